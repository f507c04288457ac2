"""Divide and conquer (``SVC(solver='dc')``) against today's kernel solvers: issue 28's marks.

Three parts (``--part``), each merged into results/dc.json and written out as results/dc.md:

* ``exact``: ijcnn1's training and test sets together (141,691 x 22), RBF at the tuned C
  and gamma (``--C``, ``--gamma``), tol 1e-3 (LIBSVM's rule for all), cache 200 MB (SVC's
  default; LIBSVM's -m and oneDAL's cache_size too). dualsvm's 'smo', 'ws', 'auto' (the
  default SVC) and 'dc' beside LIBSVM 3.37, oneDAL (``sklearnex.svm.SVC``) and ThunderSVM
  CPU; fit seconds (data conversion outside every clock), best of ``--repeats``
  interleaved. Every dual objective is scored by one formula (sum |c| - c'Kc / 2 over the
  support vectors, float64). Mark: dc <= 1/3 of the fastest other, its dual within 1e-4
  (relative) of LIBSVM's.
* ``early``: train on ijcnn1, test on ijcnn1.t: the exact fits ('auto', 'dc') and dc's
  early prediction (``early_stop_level=1``); test accuracy and seconds. Mark: early within
  0.5 points of the exact model's accuracy at <= 1/10 of the exact fit's time (the faster
  exact fit of the two).
* ``million``: the first 1,000,000 rows of ``--million`` (a directory written by
  ``dualsvm convert ijcnn1.bz2 ijcnn1.t.bz2 DIR --replicas 8 --perturbation 0.1 --seed 0
  --n-features 22``: 1,133,528 rows in a random order), loaded into memory
  (``DiskDataset.load(dense=True)``), a random tenth held out: dc exact and dc early, one
  fit each (the mark is a time limit, not a ratio), their held-out accuracy, and the
  process's peak RSS. Marks: exact to tol 1e-3 in <= 10 minutes, peak RSS under 4 GB;
  early within 0.5 points at <= 1/10 of the exact fit's time. Run it in its own process
  (its peak RSS is the process's).

Threads: every solver takes the machine's cores (``--threads N`` re-executes with
OMP/NUMBA/OPENBLAS_NUM_THREADS = N and passes ``-o N`` to ThunderSVM).

    python benchmarks/bench_dc.py --part exact --C 8 --gamma 2 --threads 2
    python benchmarks/bench_dc.py --part early --C 8 --gamma 2 --threads 2
    python benchmarks/bench_dc.py --part million --million /path/to/DIR --C 8 --gamma 2 --threads 2
"""

import argparse
import json
import os
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file

import dualsvm
from dualsvm.kernels import make_kernel
from dualsvm.outofcore import DiskDataset

import common
from common import (RESULTS_DIR, Clock, best_of, load, load_average, log, new_record,
                    threads_environment, thundersvm_binary)

TOL = 1e-3
CACHE_MB = 200
MILLION = 1_000_000
OURS = ("smo", "ws", "auto", "dc")
PEERS = ("libsvm", "onedal", "thundersvm")


def load_ijcnn1(*splits):
    """ijcnn1's ``"train"`` and/or ``"test"`` rows, stacked in that order (CSR, int32
    indices, as :func:`common.load` gives them)."""
    parts = [load("ijcnn1", split) for split in splits]
    X = sp.csr_matrix(sp.vstack([X for X, _ in parts]))
    X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
    return X, np.concatenate([y for _, y in parts])


def positive_first(coef, first_label, y):
    """Coefficients y_i alpha_i with the larger label positive, from a LIBSVM-format
    model whose first label is ``first_label`` (its sign positive)."""
    return coef if first_label == np.unique(y)[1] else -coef


def dual_objective(sv, coef, kernel):
    """sum |c| - c'Kc / 2 of the support vectors' y_i alpha_i, in float64 (one formula)."""
    quadratic = 0.0
    for start in range(0, sv.shape[0], 2000):
        quadratic += coef[start:start + 2000] @ (kernel(sv[start:start + 2000], sv) @ coef)
    return float(np.abs(coef).sum() - 0.5 * quadratic)


def fit_ours(X, y, C, gamma, solver, **kwargs):
    model = dualsvm.SVC(C=C, gamma=gamma, tol=TOL, cache_size=CACHE_MB, solver=solver,
                        random_state=0, **kwargs)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with Clock() as clock:
        model.fit(X, y)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # dc's part workers, reaped
    workers = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    clock.cpu_seconds += workers
    coef = model.dual_coef_
    coef = coef.toarray().ravel() if sp.issparse(coef) else coef[0]
    return {**clock.timing, "model": model, "solver_used": model.solver_used_,
            "status": model.status_[0], "gap": float(model.gap_[0]),
            "certified_dual": float(model.dual_[0]), "n_support": int(len(model.support_)),
            "iterations": int(model.n_iter_[0]), "sv": model.support_vectors_, "coef": coef,
            "epochs": len(model.history_[0])}


def fit_libsvm(X, y, C, gamma):
    """LIBSVM by :func:`common.fit_libsvm` (its copy of the data outside the clock)."""
    run = common.fit_libsvm(y, X, f"-t 2 -g {gamma!r} -c {C!r} -e {TOL} -m {CACHE_MB}")
    model = run["model"]
    support = np.array(model.get_sv_indices()) - 1
    coef = positive_first(np.array(model.get_sv_coef()).ravel(), model.get_labels()[0], y)
    return {**run, "sv": X[support], "coef": coef, "n_support": int(len(support)),
            "iterations": run["iterations"][-1] if run["iterations"] else None}


def fit_onedal(X, y, C, gamma):
    """oneDAL by :func:`common.fit_onedal`."""
    run = common.fit_onedal(X, y, C=C, gamma=gamma, tol=TOL, cache_size=CACHE_MB)
    model = run["model"]
    coef = model.dual_coef_
    coef = coef.toarray().ravel() if sp.issparse(coef) else np.asarray(coef)[0]
    return {**run, "sv": X[model.support_], "coef": coef}


def fit_thundersvm(path, y, C, gamma, threads, binary):
    """thundersvm-train by :func:`common.fit_thundersvm` on the svmlight file ``path``
    (written outside the clock)."""
    options = ["-s", "0", "-t", "2", "-g", repr(gamma), "-c", repr(C), "-e", str(TOL),
               "-o", str(threads)]
    run = common.fit_thundersvm(binary, options, path, 22)
    model = run.pop("model")
    return {**run, "sv": model["sv"], "coef": positive_first(model["coef"], model["labels"][0], y)}


def warm_up():
    """Compile (or load from Numba's cache) every solver's code before any clock."""
    X, y = load_ijcnn1("train")
    X, y = X[:4000], y[:4000]
    for solver in ("smo", "ws", "dc"):
        for data in (X, X.toarray()):
            dualsvm.SVC(C=8, gamma=2, solver=solver).fit(data, y).predict(data[:10])
    dualsvm.SVC(C=8, gamma=2, solver="dc", early_stop_level=1).fit(X, y).predict(X[:10])


def part_exact(args, threads):
    X, y = load_ijcnn1("train", "test")
    X, y = X[:args.rows], y[:args.rows]
    kernel = make_kernel("rbf", gamma=args.gamma)
    fits = {solver: (lambda s=solver: fit_ours(X, y, args.C, args.gamma, s))
            for solver in args.solvers if solver in OURS}
    if "libsvm" in args.solvers:
        fits["libsvm"] = lambda: fit_libsvm(X, y, args.C, args.gamma)
    if "onedal" in args.solvers:
        fits["onedal"] = lambda: fit_onedal(X, y, args.C, args.gamma)
    train_file = None
    binary = thundersvm_binary()
    if "thundersvm" in args.solvers and binary is not None:
        handle, train_file = tempfile.mkstemp(suffix=".svm")
        os.close(handle)
        dump_svmlight_file(X, y, train_file, zero_based=False)
        fits["thundersvm"] = lambda: fit_thundersvm(train_file, y, args.C, args.gamma, threads,
                                                    binary)
    log(f"exact: ijcnn1 train+test (n = {X.shape[0]}), C = {args.C}, gamma = {args.gamma}: "
        f"{args.repeats} x ({', '.join(fits)})")
    try:
        runs = best_of(args.repeats, fits, log, once_above=args.once_above)
    finally:
        if train_file is not None:
            os.unlink(train_file)
    results = {}
    for name, run in runs.items():
        if "error" in run:
            results[name] = run
            continue
        run.pop("model", None)  # ThunderSVM returns none
        run["dual"] = dual_objective(run.pop("sv"), run.pop("coef"), kernel)
        results[name] = run
        log(f"  {name}: best {run['seconds']:.2f} s of {[round(s, 2) for s in run['all_seconds']]}"
            f", dual {run['dual']:.8g}")
    return {"dataset": "ijcnn1 train+test", "n_samples": X.shape[0], "n_features": X.shape[1],
            "C": args.C, "gamma": args.gamma, "solvers": results}


def accuracy(model, X, y):
    return float(np.mean(model.predict(X) == y))


def part_early(args, threads):
    X, y = load_ijcnn1("train")
    Xt, yt = load_ijcnn1("test")
    X, y = X[:args.rows], y[:args.rows]
    fits = {"auto": lambda: fit_ours(X, y, args.C, args.gamma, "auto"),
            "dc": lambda: fit_ours(X, y, args.C, args.gamma, "dc"),
            "dc_early": lambda: fit_ours(X, y, args.C, args.gamma, "dc",
                                         early_stop_level=1)}
    log(f"early: ijcnn1 -> ijcnn1.t, C = {args.C}, gamma = {args.gamma}: "
        f"{args.repeats} x ({', '.join(fits)})")
    runs = best_of(args.repeats, fits, log)
    results = {}
    for name, run in runs.items():
        model = run.pop("model")
        for key in ("sv", "coef"):
            run.pop(key)
        with Clock() as clock:
            run["test_accuracy"] = accuracy(model, Xt, yt)
        run["predict_seconds"] = clock.seconds
        if model.cluster_models_ is not None:
            run["clusters"] = int(model.cluster_models_[0].clusters.n_clusters)
        results[name] = run
        log(f"  {name}: best {run['seconds']:.2f} s, test accuracy {run['test_accuracy']:.4%}")
    return {"train": "ijcnn1", "test": "ijcnn1.t", "n_samples": X.shape[0],
            "n_test": Xt.shape[0], "C": args.C, "gamma": args.gamma, "solvers": results}


def part_million(args, threads):
    with Clock() as loading:
        X, y = DiskDataset(args.million).load(dense=True)
    X, y = X[:args.rows or MILLION], y[:args.rows or MILLION]
    held = np.random.default_rng(0).permutation(len(y))
    test, train = held[:len(y) // 10], np.sort(held[len(y) // 10:])
    Xt, yt = X[test], y[test]
    X, y = np.ascontiguousarray(X[train]), y[train]
    log(f"million: {args.million}, {X.shape[0]} training rows, {Xt.shape[0]} held out "
        f"(loaded in {loading.seconds:.1f} s)")
    results = {}
    for name, kwargs in (("dc", {}), ("dc_early", {"early_stop_level": 1})):
        if name not in args.fits:
            continue
        run = fit_ours(X, y, args.C, args.gamma, "dc", verbose=args.verbose, **kwargs)
        model = run.pop("model")
        for key in ("sv", "coef"):
            run.pop(key)
        run["test_accuracy"] = accuracy(model, Xt, yt)
        run["history"] = [{key: record[key] for key in ("epoch", "seconds", "level", "parts",
                                                         "active_size", "gap", "violation")}
                          for record in model.history_[0]]
        run["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        results[name] = run
        log(f"  {name}: {run['seconds']:.1f} s, gap {run['gap']:.2e}, test accuracy "
            f"{run['test_accuracy']:.4%}, peak RSS so far {run['peak_rss_mb']:.0f} MB")
        del model
    return {"data": os.path.basename(os.path.normpath(args.million)),
            "n_samples": X.shape[0], "n_test": Xt.shape[0], "n_features": X.shape[1],
            "C": args.C, "gamma": args.gamma, "data_mb": X.nbytes / 2**20,
            "load_seconds": loading.seconds, "solvers": results}


def markdown(results):
    lines = ["# Divide and conquer (`SVC(solver='dc')`): issue 28's marks", ""]
    for part, record in results.items():
        lines += [f"## {part}", "", f"Command: `{record['command']}`  ",
                  f"Date: {record['date']}, git {record['machine']['git']}, "
                  f"{record['machine']['nproc']} CPUs ({record['machine']['cpu']}), "
                  f"threads {record['threads']}, load average at start "
                  f"{record['machine']['load_average_at_start']}", ""]
        solvers = record["solvers"]
        if part == "exact":
            others = {n: r for n, r in solvers.items() if n != "dc" and "seconds" in r}
            fastest = min(others, key=lambda n: others[n]["seconds"]) if others else None
            reference = solvers.get("libsvm", {}).get("dual")
            lines += [f"{record['dataset']}: n = {record['n_samples']}, C = {record['C']}, "
                      f"gamma = {record['gamma']}, tol {TOL}, cache {CACHE_MB} MB; best of "
                      f"{record['repeats']}.", "",
                      "| solver | seconds (best) | all runs | CPU s | dual (one formula) | "
                      "rel. to LIBSVM's | gap (certified) | SVs |",
                      "|---|---:|---|---:|---:|---:|---:|---:|"]
            for name, r in solvers.items():
                if "error" in r:
                    lines.append(f"| {name} | failed: {r['error']} | | | | | | |")
                    continue
                used = r.get("solver_used")
                label = name if used in (None, name) else f"{name} ({used})"
                rel = "n/a" if not reference else f"{(r['dual'] - reference) / abs(reference):+.1e}"
                gap = f"{r['gap']:.1e}" if "gap" in r else "n/a"
                runs = ", ".join(f"{seconds:.2f}" for seconds in r["all_seconds"])
                lines.append(f"| {label} | {r['seconds']:.2f} | {runs} | "
                             f"{r.get('cpu_seconds', float('nan')):.1f} | {r['dual']:.10g} | "
                             f"{rel} | {gap} | {r['n_support']} |")
            if fastest and "dc" in solvers and "seconds" in solvers["dc"]:
                ratio = solvers["dc"]["seconds"] / others[fastest]["seconds"]
                lines += ["", f"dc / fastest other ({fastest}): **{ratio:.3f}** (mark: <= 1/3)."]
        elif part == "early":
            exact = [n for n in ("auto", "dc") if n in solvers]
            fastest = min(exact, key=lambda n: solvers[n]["seconds"])
            early = solvers["dc_early"]
            lines += [f"Train {record['train']} (n = {record['n_samples']}), test "
                      f"{record['test']} (n = {record['n_test']}), C = {record['C']}, gamma = "
                      f"{record['gamma']}; best of {record['repeats']}.", "",
                      "| fit | seconds (best) | test accuracy | predict s | gap | SVs |",
                      "|---|---:|---:|---:|---:|---:|"]
            for name, r in solvers.items():
                label = f"{name} ({r['clusters']} clusters)" if "clusters" in r else name
                lines.append(f"| {label} | {r['seconds']:.2f} | {r['test_accuracy']:.4%} | "
                             f"{r['predict_seconds']:.2f} | {r['gap']:.1e} | {r['n_support']} |")
            lines += ["", f"Early / fastest exact ({fastest}): time "
                      f"**{early['seconds'] / solvers[fastest]['seconds']:.3f}** (mark <= 0.1), "
                      f"accuracy {100 * (early['test_accuracy'] - solvers[fastest]['test_accuracy']):+.2f} "
                      "points (mark: within 0.5)."]
        else:
            exact, early = solvers.get("dc"), solvers.get("dc_early")
            lines += [f"{record['data']}: {record['n_samples']} training rows, "
                      f"{record['n_test']} held out, C = {record['C']}, gamma = "
                      f"{record['gamma']}; data {record['data_mb']:.0f} MB dense; one fit each.",
                      "", "| fit | seconds | test accuracy | gap | SVs | peak RSS MB |",
                      "|---|---:|---:|---:|---:|---:|"]
            for name, r in solvers.items():
                lines.append(f"| {name} | {r['seconds']:.1f} | {r['test_accuracy']:.4%} | "
                             f"{r['gap']:.1e} | {r['n_support']} | {r['peak_rss_mb']:.0f} |")
            lines += [""] + [f"{name}: {r.get('run', 'an earlier run (not recorded)')}  "
                             for name, r in solvers.items()]
            if exact and early:
                lines += ["", f"Exact: {exact['seconds'] / 60:.1f} minutes (mark <= 10), peak "
                          f"RSS {exact['peak_rss_mb']:.0f} MB (mark < 4096). Early / exact: "
                          f"time **{early['seconds'] / exact['seconds']:.3f}** (mark <= 0.1), "
                          f"accuracy {100 * (early['test_accuracy'] - exact['test_accuracy']):+.2f} "
                          "points."]
            lines += ["", "Where the memory goes (peak RSS of the process): the whole set "
                      "loaded dense (1,133,528 x 22 float64, 190 MB, kept as the base of the "
                      f"first million's view), the training copy ({record['data_mb']:.0f} MB) "
                      "and the held-out rows, the kernel column cache of the rounds' problem "
                      f"(cache_size {CACHE_MB} MB) with the working sets' blocks, a few dozen "
                      "n-vectors of the whole problem (7 MB each: gradient, kept products, "
                      "slack, alpha) and Python, NumPy and Numba's compiled code (about 300 MB)."]
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("exact", "early", "million"), required=True)
    parser.add_argument("--C", type=float, default=8.0)
    parser.add_argument("--gamma", type=float, default=2.0)  # tuned for ijcnn1 (kernel_tuned_params.json)
    parser.add_argument("--solvers", nargs="+", choices=OURS + PEERS, default=list(OURS + PEERS),
                        help="the exact part's solvers (default all)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--once-above", type=float, default=None,
                        help="the exact part: a solver whose first run took longer runs once")
    parser.add_argument("--fits", nargs="+", choices=("dc", "dc_early"),
                        default=["dc", "dc_early"], help="the million part's fits")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--million", help="the dataset directory of the million part")
    parser.add_argument("--verbose", type=int, default=0, help="the million part's SVC verbose")
    parser.add_argument("--rows", type=int, default=None,
                        help="train on the first ROWS rows only (a quick check)")
    parser.add_argument("--output-dir", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)
    if args.threads is not None:
        threads_environment(args.threads)
    threads = args.threads or os.cpu_count()
    if args.part == "million" and not args.million:
        parser.error("--part million needs --million DIR")
    started = time.perf_counter()
    record = {**new_record(argv), "threads": threads, "repeats": args.repeats}
    if args.part != "million":
        warm_up()
    record.update({"exact": part_exact, "early": part_early,
                   "million": part_million}[args.part](args, threads))
    record["load_average_at_end"] = load_average()
    record["wall_seconds"] = time.perf_counter() - started
    path = args.output_dir / "dc.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    if args.part == "million":  # one fit a run (its own peak RSS): keep the others
        run = f"`{record['command']}`, {record['date']}, git {record['machine']['git']}"
        for fit in record["solvers"].values():
            fit["run"] = run
        if "million" in results:
            record["solvers"] = {**results["million"]["solvers"], **record["solvers"]}
    results[args.part] = record
    path.write_text(json.dumps(results, indent=1, default=float) + "\n")
    (args.output_dir / "dc.md").write_text(markdown(results))
    log(f"wrote {path} and dc.md")


if __name__ == "__main__":
    main()
