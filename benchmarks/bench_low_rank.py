"""Kernel SVMs at scale: low rank (``LowRankSVC``) beside exact ``SVC``, divide and conquer's
early prediction and scikit-learn's ``Nystroem`` + ``LinearSVC``: issue 41's table.

Two parts (``--part``), each written to results/low_rank.json and results/low_rank.md
(a part run again replaces its rows of the B values it measures, and its exact fits):

* ``ijcnn1``: train on ijcnn1 (49,990 x 22), test on ijcnn1.t (91,701 rows), RBF at
  ``--C`` and ``--gamma`` (tuned: C = 32, gamma = 2). For every B of ``--B``:
  ``LowRankSVC(n_components=B)`` with basis 'uniform' and 'kmeans', and scikit-learn's
  ``Pipeline(Nystroem(n_components=B), LinearSVC())`` (the same C, both sides' default
  ``tol`` and ``dual='auto'``, ``random_state=0``: the same uniform basis rows); beside
  them, once, the exact ``SVC()`` (tol 1e-3, cache 200 MB) and ``SVC(solver='dc',
  early_stop_level=1)``. Fit seconds (best of ``--repeats``, interleaved), test accuracy,
  and the fit's peak memory: the process's peak resident set above its resident set
  when the fit starts (Linux: ``/proc/self/clear_refs`` resets the peak before each
  fit; freed heap memory returned to the OS before), so the data loaded before the
  clock is not counted on either side. Marks: at equal B, accuracy within 0.2 points
  of scikit-learn's pipeline in at most half its time and a quarter of its peak memory.
* ``million``: the first 1,000,000 rows of ``--million`` (the docs' recipe: ``dualsvm
  convert ijcnn1.bz2 ijcnn1.t.bz2 DIR --replicas 8 --perturbation 0.1 --seed 0
  --n-features 22``), loaded dense, a random tenth held out; ``LowRankSVC`` at each B of
  ``--B`` (one fit each) and scikit-learn's pipeline where ``--sklearn`` asks. Marks:
  B = 512 in at most 3 minutes, peak memory under 4 GB.

Threads: ``--threads N`` re-executes with OMP/NUMBA/OPENBLAS_NUM_THREADS = N (both sides'
BLAS: scikit-learn's Nystroem transform is a BLAS product; its LinearSVC is one thread).

    python benchmarks/bench_low_rank.py --part ijcnn1 --threads 2
    python benchmarks/bench_low_rank.py --part million --million DIR --B 512 --threads 2
"""

import argparse
import ctypes
import ctypes.util
import gc
import json
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_approximation import Nystroem
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

import dualsvm
from dualsvm.outofcore import DiskDataset

from common import (RESULTS_DIR, Clock, best_of, load, log, new_record, page,
                    threads_environment)

B_VALUES = (64, 128, 256, 512, 1024, 2048, 4096)
TOL = 1e-3
CACHE_MB = 200
MILLION = 1_000_000


def _status_kb(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"/proc/self/status has no {field}")


def _trim_heap():
    """Return the freed memory glibc's heaps keep to the OS: a fit that reuses it would
    not raise the resident set, and its peak would be undercounted."""
    gc.collect()
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    libc.malloc_trim(0)


class PeakMemory:
    """The peak resident set of a span above the resident set at its start, in MB (the
    heaps' freed memory returned to the OS first)."""

    def __enter__(self):
        _trim_heap()
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")  # resets VmHWM to the current resident set
        self._start = _status_kb("VmRSS")
        return self

    def __exit__(self, *exc):
        self.mb = (_status_kb("VmHWM") - self._start) / 1024


def timed(make, X, y):
    """Fit ``make()`` on (X, y): seconds, CPU seconds, peak MB, the model."""
    model = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        with PeakMemory() as memory, Clock() as clock:
            model.fit(X, y)
    return {**clock.timing, "peak_mb": memory.mb, "model": model}


def low_rank(C, gamma, B, basis):
    return lambda: dualsvm.LowRankSVC(C=C, gamma=gamma, n_components=B, basis=basis,
                                      random_state=0)


def sklearn_pipeline(C, gamma, B):
    return lambda: make_pipeline(Nystroem(gamma=gamma, n_components=B, random_state=0),
                                 LinearSVC(C=C, random_state=0))


def exact(C, gamma, **kwargs):
    return lambda: dualsvm.SVC(C=C, gamma=gamma, tol=TOL, cache_size=CACHE_MB, random_state=0,
                               **kwargs)


def summary(run, Xt, yt):
    """The run's numbers and the model's test accuracy (the model dropped)."""
    model = run.pop("model")
    with Clock() as clock:
        run["test_accuracy"] = float(np.mean(model.predict(Xt) == yt))
    run["predict_seconds"] = clock.seconds
    if isinstance(model, dualsvm.LowRankSVC):
        run.update(n_components=int(model.n_components_), gap=float(model.gap_[0]),
                   status=model.status_[0])
    elif isinstance(model, dualsvm.SVC):
        run.update(n_support=int(len(model.support_)), gap=float(model.gap_[0]))
    return run


def warm_up(X, y):
    """Compile (or load from Numba's cache) every fit's code before any clock."""
    X, y = X[:3000], y[:3000]
    for basis in ("uniform", "kmeans"):
        dualsvm.LowRankSVC(n_components=64, basis=basis, random_state=0).fit(X, y).predict(X)
        dualsvm.LowRankSVC(n_components=64, basis=basis, dual=True, random_state=0).fit(X, y)
    for kwargs in ({}, {"solver": "dc", "early_stop_level": 1}):
        dualsvm.SVC(**kwargs).fit(X, y).predict(X)


def part_ijcnn1(args):
    X, y = load("ijcnn1")
    Xt, yt = load("ijcnn1", "test")
    X, Xt = X.toarray(), Xt.toarray()  # 9 MB: the pipeline's Nystroem takes dense rows alike
    warm_up(X, y)
    rows = []
    fits = {"exact SVC()": exact(args.C, args.gamma),
            "SVC(solver='dc', early_stop_level=1)": exact(args.C, args.gamma, solver="dc",
                                                          early_stop_level=1)}
    log(f"ijcnn1: exact fits, {args.repeats} x ({', '.join(fits)})")
    for name, run in best_of(args.repeats, {n: (lambda f=f: timed(f, X, y))
                                            for n, f in fits.items()}, log).items():
        rows.append({"B": None, "fit": name, **summary(run, Xt, yt)})
        log(f"  {name}: {rows[-1]['seconds']:.2f} s, accuracy {rows[-1]['test_accuracy']:.4%}")
    for B in args.B:
        fits = {"LowRankSVC uniform": low_rank(args.C, args.gamma, B, "uniform"),
                "LowRankSVC kmeans": low_rank(args.C, args.gamma, B, "kmeans"),
                "Nystroem + LinearSVC": sklearn_pipeline(args.C, args.gamma, B)}
        log(f"B = {B}: {args.repeats} x ({', '.join(fits)})")
        runs = best_of(args.repeats, {n: (lambda f=f: timed(f, X, y)) for n, f in fits.items()},
                       log, once_above=args.once_above)
        for name, run in runs.items():
            if "error" in run:
                rows.append({"B": B, "fit": name, **run})
                continue
            rows.append({"B": B, "fit": name, **summary(run, Xt, yt)})
            log(f"  {name}: {rows[-1]['seconds']:.2f} s, accuracy "
                f"{rows[-1]['test_accuracy']:.4%}, peak {rows[-1]['peak_mb']:.0f} MB")
    return {"train": "ijcnn1", "test": "ijcnn1.t", "n_samples": X.shape[0],
            "n_test": Xt.shape[0], "C": args.C, "gamma": args.gamma, "rows": rows}


def part_million(args):
    with Clock() as loading:
        X, y = DiskDataset(args.million).load(dense=True)
    X, y = X[:MILLION], y[:MILLION]
    held = np.random.default_rng(0).permutation(len(y))
    test, train = held[:len(y) // 10], np.sort(held[len(y) // 10:])
    Xt, yt = X[test], y[test]
    X, y = np.ascontiguousarray(X[train]), y[train]
    del held, test, train
    log(f"million: {X.shape[0]} training rows, {Xt.shape[0]} held out (loaded in "
        f"{loading.seconds:.1f} s)")
    warm_up(X, y)
    rows = []
    for B in args.B:
        fits = {"LowRankSVC uniform": low_rank(args.C, args.gamma, B, "uniform")}
        if args.sklearn:
            fits["Nystroem + LinearSVC"] = sklearn_pipeline(args.C, args.gamma, B)
        for name, make in fits.items():
            run = summary(timed(make, X, y), Xt, yt)
            rows.append({"B": B, "fit": name, **run, "all_seconds": [run["seconds"]]})
            log(f"  B = {B}, {name}: {run['seconds']:.1f} s, accuracy "
                f"{run['test_accuracy']:.4%}, peak {run['peak_mb']:.0f} MB")
    return {"data": Path(args.million).name, "n_samples": X.shape[0], "n_test": Xt.shape[0],
            "C": args.C, "gamma": args.gamma, "data_mb": X.nbytes / 2**20, "rows": rows}


def table(record):
    lines = ["| B | fit | seconds (best) | all runs | CPU s | peak MB | test accuracy | k | "
             "gap |", "|---:|---|---:|---|---:|---:|---:|---:|---:|"]
    for r in record["rows"]:
        B = "" if r["B"] is None else r["B"]
        if "error" in r:
            lines.append(f"| {B} | {r['fit']} | failed: {r['error']} | | | | | | |")
            continue
        runs = ", ".join(f"{s:.2f}" for s in r["all_seconds"])
        gap = f"{r['gap']:.1e}" if "gap" in r else ""
        lines.append(f"| {B} | {r['fit']} | {r['seconds']:.2f} | {runs} | "
                     f"{r['cpu_seconds']:.1f} | {r['peak_mb']:.0f} | {r['test_accuracy']:.4%} | "
                     f"{r.get('n_components', '')} | {gap} |")
    return lines


def marks(record):
    """At each B: LowRankSVC (uniform) against the pipeline, the three marks."""
    by = {(r["B"], r["fit"]): r for r in record["rows"] if "error" not in r}
    lines = ["| B | accuracy ours - theirs (points; mark >= -0.2) | time ours / theirs "
             "(mark <= 0.5) | peak ours / theirs (mark <= 0.25) |", "|---:|---:|---:|---:|"]
    for B in sorted({r["B"] for r in record["rows"] if r["B"] is not None}):
        ours, theirs = by.get((B, "LowRankSVC uniform")), by.get((B, "Nystroem + LinearSVC"))
        if ours is None or theirs is None:
            continue
        lines.append(f"| {B} | {100 * (ours['test_accuracy'] - theirs['test_accuracy']):+.2f} | "
                     f"{ours['seconds'] / theirs['seconds']:.3f} | "
                     f"{ours['peak_mb'] / max(theirs['peak_mb'], 1e-9):.3f} |")
    return lines


def markdown(results):
    body = []
    for part, record in results.items():
        if part == "ijcnn1":
            body += ["## ijcnn1 -> ijcnn1.t", "",
                     f"Train {record['train']} (n = {record['n_samples']}), test "
                     f"{record['test']} (n = {record['n_test']}), RBF, C = {record['C']}, "
                     f"gamma = {record['gamma']}; LowRankSVC and LinearSVC at their default "
                     f"tol (1e-4) and dual='auto'; exact fits tol {TOL}, cache {CACHE_MB} MB; "
                     f"best of {record['repeats']}, threads {record['threads']}. Peak MB: the "
                     "fit's resident set above its start.", "", *table(record), "",
                     "Marks, LowRankSVC (uniform basis, the pipeline's rows) against "
                     "Nystroem + LinearSVC at the same B:", "", *marks(record), ""]
        else:
            body += [f"## {record['data']}: a million rows", "",
                     f"{record['n_samples']} training rows, {record['n_test']} held out, "
                     f"C = {record['C']}, gamma = {record['gamma']}; data "
                     f"{record['data_mb']:.0f} MB dense; one fit each, threads "
                     f"{record['threads']}. Marks: B = 512 in <= 180 s, peak < 4096 MB.", "",
                     *table(record), "", *marks(record), ""]
        runs = list(dict.fromkeys(r.get("run", "") for r in record["rows"]))
        body += ["Made by " + ("; ".join(runs) if len(runs) > 1 else runs[0]) + " (the last "
                 f"with load average at start {record['machine']['load_average_at_start']})",
                 ""]
    last = list(results.values())[-1]
    return page("Kernel SVMs at scale: low rank beside exact and scikit-learn's pipeline",
                dict(last), body)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("ijcnn1", "million"), required=True)
    parser.add_argument("--C", type=float, default=32.0)
    parser.add_argument("--gamma", type=float, default=2.0)
    parser.add_argument("--B", type=int, nargs="+", default=list(B_VALUES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--once-above", type=float, default=120.0,
                        help="a fit whose first run took longer runs once")
    parser.add_argument("--million", help="the dataset directory of the million part")
    parser.add_argument("--sklearn", action="store_true",
                        help="the million part: scikit-learn's pipeline too")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--output-dir", type=Path, default=RESULTS_DIR)
    args = parser.parse_args(argv)
    if args.threads is not None:
        threads_environment(args.threads)
    if args.part == "million" and not args.million:
        parser.error("--part million needs --million DIR")
    started = time.perf_counter()
    record = {**new_record(argv), "threads": args.threads, "repeats": args.repeats}
    record.update({"ijcnn1": part_ijcnn1, "million": part_million}[args.part](args))
    record["wall_seconds"] = time.perf_counter() - started
    path = args.output_dir / "low_rank.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    run = f"`{record['command']}`, {record['date']}, git {record['machine']['git']}"
    for row in record["rows"]:
        row["run"] = run
    if args.part in results:  # keep the rows of the B values this run did not measure
        kept = [row for row in results[args.part]["rows"]
                if row["B"] is not None and row["B"] not in args.B]
        record["rows"] = sorted(kept + record["rows"],
                                key=lambda row: -1 if row["B"] is None else row["B"])
    results[args.part] = record
    path.write_text(json.dumps(results, indent=1, default=float) + "\n")
    (args.output_dir / "low_rank.md").write_text(markdown(results))
    log(f"wrote {path} and low_rank.md")


if __name__ == "__main__":
    main()
