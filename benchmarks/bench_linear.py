"""dualsvm.LinearSVC against LIBLINEAR 2.50 and scikit-learn's LinearSVC, in one run.

All three solve the same problem: no bias, C = 1, labels in {-1, +1},

    min_w 1/2 w'w + sum_i loss(y_i w'x_i),   loss = hinge (-s 3) or squared hinge (-s 1),

by dual coordinate descent with LIBLINEAR's stopping rule ``-e eps``. For every
(dataset, loss, eps) the script reports the in-process fit time (best of
``--repeats``, interleaved; every solver timed from the same CSR matrix with its
conversion to its own format), the threads and CPU / wall of each, the epochs,
the primal objective of each returned w computed by one function
(:meth:`dualsvm.problems.linear.DualProblem.primal`), and per dataset the cost of an
epoch in units of one SciPy CSR product X @ w. dualsvm's Numba compilation is
excluded from the fit times (a warm-up fit) and measured once, separately, in
fresh processes with an empty cache.

Run from the repository root (``pip install -e .[bench]`` first)::

    python benchmarks/bench_linear.py            # full run, writes benchmarks/results/
    python benchmarks/bench_linear.py --quick    # smoke test: a9a, one repeat, no files

See benchmarks/README.md for what every column means.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
from sklearn.svm import LinearSVC as SklearnLinearSVC

import dualsvm
from dualsvm.problems.linear import DualProblem

from common import (DATA_DIR, RESULTS_DIR, best_of, cores_busy, fit_liblinear, load,
                    new_record, page, plus_minus, thread_pools, timed_fit, write_results)

DATASETS = ("a9a", "w8a", "ijcnn1", "reuters")
LOSSES = {"squared_hinge": 1, "hinge": 3}  # dualsvm / scikit-learn loss -> LIBLINEAR -s
EPSILONS = (0.1, 0.01)
C = 1.0
#: LIBLINEAR 2.50 caps its dual solvers (-s 1, -s 3) at 300 epochs, hard-coded
#: (solve_l2r_l1l2_svc(..., int max_iter=300)); the others get the same cap by default.
LIBLINEAR_MAX_ITER = 300
SEED = 0
SOLVERS = ("dualsvm", "liblinear", "sklearn")
#: Threads each solver computes with: dualsvm's linear kernels are serial Numba
#: functions (no parallel region); LIBLINEAR's -s 1 / -s 3 and scikit-learn's
#: bundled copy are serial C (the wheels link no OpenMP). The CPU / wall column
#: checks it on every run.
THREADS = {"dualsvm": 1, "liblinear": 1, "sklearn": 1}
NO_SHRINK_EPOCHS = 10


# --------------------------------------------------------------------------- data

def load_pm(name):
    """A public set's training rows, labels in {-1.0, +1.0}."""
    X, y = load(name)
    return X, plus_minus(y)


def matvec_seconds(X, min_total=0.3, min_runs=20):
    """Best time of one X @ w (SciPy CSR), w dense float64."""
    w = np.random.default_rng(SEED).standard_normal(X.shape[1])
    times = []
    start = time.perf_counter()
    while len(times) < min_runs or time.perf_counter() - start < min_total:
        t = time.perf_counter()
        X @ w
        times.append(time.perf_counter() - t)
    return min(times)


# ------------------------------------------------------------------------ solvers
# Every fit starts from the same CSR matrix and is timed with its conversion to
# the solver's own format: scikit-learn converts inside fit (no public way to
# take it out), so LIBLINEAR's ll.problem is timed with ll.train, and dualsvm's
# input validation is inside its fit.

def fit_ll(X, y, loss, eps):
    """One LIBLINEAR run (ll.problem + ll.train), timed; epochs from its output."""
    run = fit_liblinear(y, X, f"-s {LOSSES[loss]} -c {C} -e {eps}")
    model = run.pop("model")
    w = np.zeros(X.shape[1])
    coef = np.asarray(model.get_decfun()[0], dtype=np.float64)
    w[: len(coef)] = coef
    if model.get_labels()[0] != 1:  # LIBLINEAR's first label is its positive class
        w = -w
    return {"seconds": run["seconds"], "cpu_seconds": run["cpu_seconds"],
            "setup_seconds": run["setup_seconds"], "w": w, "n_iter": run["iterations"],
            "status": "max_iter" if run["max_iter_reached"] else "converged"}


def fit_dualsvm(X, y, loss, eps, max_iter, shrinking=True, monitor=None):
    run = timed_fit(dualsvm.LinearSVC(C=C, loss=loss, dual=True, fit_intercept=False, tol=eps,
                                      max_iter=max_iter, shrinking=shrinking,
                                      random_state=SEED, monitor=monitor), X, y)
    est = run["model"]
    return {"seconds": run["seconds"], "cpu_seconds": run["cpu_seconds"],
            "w": est.coef_[0].copy(), "n_iter": int(est.n_iter_), "status": est.status_[0],
            "history": est.history_[0]}


def full_epoch_seconds(X, y):
    """Mean time of epochs 2..NO_SHRINK_EPOCHS of dualsvm without shrinking.

    shrinking=False and tol 1e-12: every epoch visits all n rows. ``history_``
    stamps the end of every epoch's work; with ``monitor=False`` nothing else runs
    between two stamps (no objective evaluation), and setup and epoch 1 are left out.
    """
    run = fit_dualsvm(X, y, "squared_hinge", 1e-12, NO_SHRINK_EPOCHS, shrinking=False,
                      monitor=False)
    marks = [record["seconds"] for record in run["history"]]
    if len(marks) != NO_SHRINK_EPOCHS:
        raise RuntimeError(f"{len(marks)} epochs run, {NO_SHRINK_EPOCHS} expected")
    return {**run, "seconds": (marks[-1] - marks[0]) / (len(marks) - 1)}


def fit_sklearn(X, y, loss, eps, max_iter):
    run = timed_fit(SklearnLinearSVC(C=C, loss=loss, dual=True, fit_intercept=False, tol=eps,
                                     max_iter=max_iter, random_state=SEED), X, y)
    est = run["model"]
    return {"seconds": run["seconds"], "cpu_seconds": run["cpu_seconds"],
            "w": est.coef_[0].copy(), "n_iter": int(est.n_iter_),
            "status": "converged" if run["converged"] else "max_iter"}


# ---------------------------------------------------------------------- compile

_COMPILE_PROBE = textwrap.dedent("""
    import json, sys, time
    import numpy as np, scipy.sparse as sp
    from sklearn.datasets import load_svmlight_file
    t = time.perf_counter()
    import dualsvm
    t_import = time.perf_counter() - t
    X, y = load_svmlight_file(sys.argv[1])
    X = sp.csr_matrix(X, dtype=np.float64)
    X.indices = X.indices.astype(np.int32); X.indptr = X.indptr.astype(np.int32)
    fits = []
    for loss in ("squared_hinge", "squared_hinge", "hinge", "hinge"):
        est = dualsvm.LinearSVC(loss=loss, dual=True, fit_intercept=False, tol=0.1,
                                random_state=0)
        t = time.perf_counter(); est.fit(X, y); fits.append(time.perf_counter() - t)
    print(json.dumps({"import": t_import, "fits": fits}))
""")


def compile_times():
    """dualsvm's first fit in fresh processes: empty Numba cache, then the cache it left."""
    with tempfile.TemporaryDirectory(prefix="dualsvm-numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        runs = []
        for _ in ("cold", "cached"):
            out = subprocess.run([sys.executable, "-c", _COMPILE_PROBE,
                                  str(DATA_DIR / "heart_scale")],
                                 env=env, capture_output=True, text=True, check=True)
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    cold, cached = runs
    warm = min(cold["fits"][1], cold["fits"][3])
    return {
        "dataset": "heart_scale",
        "import_cold_s": cold["import"],
        "first_fit_cold_cache_s": cold["fits"][0],
        "first_hinge_fit_cold_cache_s": cold["fits"][2],
        "warm_fit_s": warm,
        "compile_s": cold["fits"][0] + cold["fits"][2] - 2 * warm,
        "import_cached_s": cached["import"],
        "first_fit_disk_cache_s": cached["fits"][0],
    }


def warm_up():
    """Load dualsvm's compiled kernels, and the peers' first-call costs, before timing."""
    X, y = load("heart_scale")
    for loss in LOSSES:
        for shrinking in (True, False):
            fit_dualsvm(X, y, loss, 0.1, 50, shrinking=shrinking)
        fit_dualsvm(X, y, loss, 0.1, 5, shrinking=False, monitor=False)
        fit_sklearn(X, y, loss, 0.1, 50)
        fit_ll(X, y, loss, 0.1)


# ------------------------------------------------------------------------ running

def run_dataset(name, repeats, max_iter, log):
    X, y = load_pm(name)
    mv = matvec_seconds(X)
    info = {"n_samples": X.shape[0], "n_features": X.shape[1], "nnz": int(X.nnz),
            "matvec_s": mv, "cases": []}
    log(f"{name}: {X.shape[0]} x {X.shape[1]}, nnz {X.nnz}, X @ w {mv * 1e3:.3f} ms")
    cost = np.ones(X.shape[0])
    for loss in LOSSES:
        problem = DualProblem(X, y, cost, loss, "none", 1.0)
        for eps in EPSILONS:
            fits = {
                "dualsvm": lambda: fit_dualsvm(X, y, loss, eps, max_iter),
                "liblinear": lambda: fit_ll(X, y, loss, eps),
                "sklearn": lambda: fit_sklearn(X, y, loss, eps, max_iter),
            }
            case = {"dataset": name, "loss": loss, "eps": eps}
            outcomes = best_of(repeats, fits, log)
            for solver in SOLVERS:
                run = outcomes[solver]
                if "error" in run:
                    case[solver] = run
                    continue
                w = run.pop("w")
                run.pop("history", None)
                case[solver] = {**run, "threads": THREADS[solver], "cores_busy": cores_busy(run),
                                "primal": problem.primal(w), "norm_w": float(np.linalg.norm(w))}
            ref = case["liblinear"]
            for solver in SOLVERS:
                r = case[solver]
                if "error" in r or "error" in ref:
                    continue
                r["primal_rel_diff"] = (r["primal"] - ref["primal"]) / abs(ref["primal"])
                r["time_ratio"] = r["seconds"] / ref["seconds"]
            info["cases"].append(case)
            log("  " + "  ".join(
                [f"{loss:>13} eps={eps:<4}"]
                + [f"{s} {case[s]['seconds']:.3f}s/{case[s]['n_iter']}ep"
                   if "error" not in case[s] else f"{s} failed" for s in SOLVERS]))

    # Epoch cost with shrinking: total fit time over total epochs of the cases that ran.
    info["epoch_matvecs"] = {}
    for s in SOLVERS:
        ok = [c[s] for c in info["cases"] if "error" not in c[s] and c[s]["n_iter"]]
        info["epoch_matvecs"][s] = (sum(r["seconds"] for r in ok)
                                    / sum(r["n_iter"] for r in ok) / mv) if ok else None
    # dualsvm on every row every epoch: shrinking off, a fixed number of epochs.
    run = best_of(repeats, {"no_shrinking": lambda: full_epoch_seconds(X, y)}, log)["no_shrinking"]
    if "error" in run:
        info["dualsvm_no_shrinking"] = {**run, "epoch_matvecs": None}
    else:
        info["dualsvm_no_shrinking"] = {"epoch_seconds": run["seconds"], "n_iter": run["n_iter"],
                                        "all_epoch_seconds": run["all_seconds"],
                                        "epoch_matvecs": run["seconds"] / mv}
    return info


# ------------------------------------------------------------------------ report

FAILED = "failed"


def _epochs(r):
    if "error" in r:
        return FAILED
    return f"{r['n_iter']}{'*' if r['status'] == 'max_iter' else ''}"


def _num(r, key, spec):
    """r[key] formatted, or 'failed' / '-' when the solver failed or it is missing."""
    if "error" in r:
        return FAILED
    value = r.get(key)
    return "-" if value is None else format(value, spec)


def _threads(r):
    if "error" in r:
        return FAILED
    return f"{r['threads']} ({r['cores_busy']:.2f})"


def markdown(results):
    s = results["settings"]
    cases = [c for d in results["datasets"].values() for c in d["cases"]]
    comp = results["compile"]
    lines = [
        f"Settings: best of {s['repeats']} fits per solver, repeats interleaved across "
        f"solvers; max_iter {s['max_iter']} for all three "
        f"(LIBLINEAR 2.50's fixed cap); random_state {SEED}; fit_intercept=False. "
        "Timed for every solver: its fit from the same CSR matrix, conversion to its own "
        "format included (LIBLINEAR: `ll.problem` + `ll.train`). Stopping rule for all "
        "three: LIBLINEAR's projected-gradient rule at eps, or the epoch cap.",
        "",
        f"dualsvm JIT compilation (excluded below): first fits on {comp['dataset']} in a fresh "
        f"process with an empty Numba cache take {comp['first_fit_cold_cache_s']:.2f} s "
        f"(squared hinge) + {comp['first_hinge_fit_cold_cache_s']:.2f} s (hinge) against "
        f"{comp['warm_fit_s'] * 1e3:.1f} ms warm: **compile ≈ {comp['compile_s']:.2f} s**. "
        f"With the on-disk cache, a new process's first fit takes "
        f"{comp['first_fit_disk_cache_s']:.2f} s, and `import dualsvm` (Numba included) "
        f"{comp['import_cached_s']:.2f} s.",
        "",
        "## Fit time (seconds) and epochs",
        "",
        "| dataset | loss | eps | dualsvm s | LIBLINEAR s | sklearn s | dualsvm / LL "
        "| sklearn / LL | epochs dualsvm | epochs LL | epochs sklearn "
        "| threads (CPU / wall) dualsvm; LL; sklearn |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for c in cases:
        d, ll_, sk = c["dualsvm"], c["liblinear"], c["sklearn"]
        lines.append(
            f"| {c['dataset']} | {c['loss']} | {c['eps']} | {_num(d, 'seconds', '.3f')} | "
            f"{_num(ll_, 'seconds', '.3f')} | {_num(sk, 'seconds', '.3f')} | "
            f"{_num(d, 'time_ratio', '.2f')} | {_num(sk, 'time_ratio', '.2f')} | "
            f"{_epochs(d)} | {_epochs(ll_)} | {_epochs(sk)} | "
            + "; ".join(_threads(c[solver]) for solver in SOLVERS) + " |")
    summary = results["summary"]

    def median(key):
        value = summary[f"median_ratio_{key}_liblinear"]
        n = summary[f"n_ratios_{key}"]
        text = "n/a" if value is None else f"{value:.2f}"
        return text + ("" if n == len(cases) else f" (over the {n} runs that did not fail)")

    lines += [
        "",
        f"**Median fit-time ratio over the {len(cases)} runs: dualsvm / LIBLINEAR = "
        f"{median('dualsvm')}**, sklearn / LIBLINEAR = {median('sklearn')}. "
        "`*` = stopped by max_iter, not by eps. Threads: what each solver computes with "
        "(dualsvm's linear kernels have no parallel region; LIBLINEAR and scikit-learn's "
        "copy are serial C); CPU / wall: process CPU seconds over wall seconds of the "
        "fastest fit, the cores it kept busy.",
        "",
        "## Primal objective of each returned w (same function for all)",
        "",
        "| dataset | loss | eps | P dualsvm | P LIBLINEAR | P sklearn "
        "| rel. diff dualsvm | rel. diff sklearn |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c in cases:
        d, ll_, sk = c["dualsvm"], c["liblinear"], c["sklearn"]
        lines.append(
            f"| {c['dataset']} | {c['loss']} | {c['eps']} | {_num(d, 'primal', '.6f')} | "
            f"{_num(ll_, 'primal', '.6f')} | {_num(sk, 'primal', '.6f')} | "
            f"{_num(d, 'primal_rel_diff', '+.2e')} | {_num(sk, 'primal_rel_diff', '+.2e')} |")
    lines += [
        "",
        "## Epoch cost in units of one SciPy CSR product X @ w (2 is the floor)",
        "",
        "| dataset | n | d | nnz | X @ w ms | dualsvm | LIBLINEAR | sklearn "
        f"| dualsvm, no shrinking ({NO_SHRINK_EPOCHS} epochs) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, d in results["datasets"].items():
        e = dict(d["epoch_matvecs"], no_shrinking=d["dualsvm_no_shrinking"]["epoch_matvecs"])
        lines.append(
            f"| {name} | {d['n_samples']} | {d['n_features']} | {d['nnz']} | "
            f"{d['matvec_s'] * 1e3:.3f} | "
            + " | ".join(_num(e, k, ".1f") for k in (*SOLVERS, "no_shrinking")) + " |")
    lines += [
        "",
        "Shrinking columns: total fit time (as timed above, conversion included) of the "
        "dataset's four runs / their total epochs / (X @ w time); with shrinking, later "
        "epochs visit only the active rows, so these can be below the cost of a full pass. "
        f"Last column: dualsvm, squared hinge, shrinking=False, tol 1e-12, max_iter "
        f"{NO_SHRINK_EPOCHS}, monitor=False (every epoch visits all n rows, no objective "
        "evaluation between epochs); (end of epoch "
        f"{NO_SHRINK_EPOCHS} - end of epoch 1, from `history_`) / {NO_SHRINK_EPOCHS - 1}, "
        "i.e. the mean time of one full epoch of coordinate updates without setup, best of "
        f"{s['repeats']} fits, / (X @ w time). One thread for all.",
        "",
    ]
    errors = [(c["dataset"], c["loss"], c["eps"], s, c[s]["error"])
              for c in cases for s in SOLVERS if "error" in c[s]]
    errors += [(name, "squared_hinge", "-", "dualsvm (no shrinking)",
                d["dualsvm_no_shrinking"]["error"])
               for name, d in results["datasets"].items() if "error" in d["dualsvm_no_shrinking"]]
    if errors:
        lines += ["## Failures", ""]
        lines += [f"- {name} {loss} eps={eps}, {solver}: `{message}`"
                  for name, loss, eps, solver, message in errors]
        lines.append("")
    return page("dualsvm.LinearSVC vs LIBLINEAR vs scikit-learn (linear DCD, no bias, C = 1)",
                results, lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="smoke test: first dataset only, one repeat, no files written "
                             "unless --output-dir is given")
    parser.add_argument("--datasets", nargs="+", choices=list(DATASETS), default=None,
                        help="datasets to run (default: all four)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="fits per solver and case; the best is kept (default 3)")
    parser.add_argument("--max-iter", type=int, default=LIBLINEAR_MAX_ITER,
                        help="epoch cap of dualsvm and scikit-learn (default 300, "
                             "LIBLINEAR 2.50's fixed cap)")
    parser.add_argument("--output-dir", type=Path, default=None,
                        help="where linear.md and linear.json go (default benchmarks/results/)")
    args = parser.parse_args(argv)

    datasets = args.datasets or list(DATASETS)
    repeats = args.repeats or 3
    if args.quick:
        datasets = datasets[:1]
        repeats = args.repeats or 1
    output_dir = args.output_dir or (None if args.quick else RESULTS_DIR)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    start = time.perf_counter()
    results = {
        **new_record(argv),
        "settings": {"C": C, "fit_intercept": False, "repeats": repeats,
                     "max_iter": args.max_iter, "liblinear_max_iter": LIBLINEAR_MAX_ITER,
                     "random_state": SEED, "epsilons": list(EPSILONS),
                     "losses": list(LOSSES)},
    }
    log("measuring dualsvm compile time in fresh processes ...")
    results["compile"] = compile_times()
    warm_up()
    results["thread_pools"] = thread_pools()
    results["datasets"] = {name: run_dataset(name, repeats, args.max_iter, log)
                           for name in datasets}
    cases = [c for d in results["datasets"].values() for c in d["cases"]]
    results["summary"] = {"n_runs": len(cases)}
    for solver in ("dualsvm", "sklearn"):
        ratios = [c[solver]["time_ratio"] for c in cases if "time_ratio" in c[solver]]
        results["summary"][f"median_ratio_{solver}_liblinear"] = (
            statistics.median(ratios) if ratios else None)
        results["summary"][f"n_ratios_{solver}"] = len(ratios)
    results["summary"]["wall_seconds"] = time.perf_counter() - start
    report = markdown(results)
    print(report)
    if output_dir is not None:
        write_results(output_dir, "linear", results, report)
    log(f"total {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
