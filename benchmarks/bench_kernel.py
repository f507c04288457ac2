"""Kernel SVM benchmark: dualsvm's SMO beside LIBSVM 3.37 and scikit-learn's SVC, in one run.

C-SVC (hinge loss, exact bias) with the RBF and sigmoid kernels, C = 1 and 10,
gamma = 1 / n_features, the same stopping rule for all three (LIBSVM's maximal
violating pair below -e = 1e-3: dualsvm's tol is the same measure), the same
100 MB kernel cache (LIBSVM's default), on a9a, w8a, ijcnn1 and w7a. Per case:
fit seconds, best of ``--repeats`` (interleaved, every solver timed from the same
CSR matrix with its conversion to its own format), threads and CPU / wall of
each solver, the dual objective of every model evaluated by one formula
(dualsvm's KernelDualProblem, from each solver's dual coefficients), iterations,
kernel evaluations (dualsvm's counters), test accuracy on the .t files (w8a has
none), and dualsvm's peak traced memory split into cache_size, its copy of the
data, and the rest in n-length float64 vectors.

    python benchmarks/bench_kernel.py                      # all 16 cases, writes results/kernel.*
    python benchmarks/bench_kernel.py --quick              # ijcnn1's first 5000 rows, prints only
    python benchmarks/bench_kernel.py --datasets w7a --kernels rbf --C 1 --rows 2000 \
        --repeats 1 --output-dir /tmp/kernel              # any subset, with files
"""

import argparse
import gc
import json
import os
import re
import statistics
import sys
import tempfile
import time
import tracemalloc
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
from sklearn.svm import SVC as SklearnSVC

import dualsvm
from dualsvm.kernels import make_kernel
from dualsvm.problem import KernelDualProblem

from common import (DATA_DIR, RESULTS_DIR, CapturedStdout, Clock, best_of, command_line,
                    cores_busy, machine, machine_lines, thread_pools)

DATASETS = {"a9a": ("a9a.bz2", "a9a.t.bz2"), "w8a": ("w8a.bz2", None),
            "ijcnn1": ("ijcnn1.bz2", "ijcnn1.t.bz2"), "w7a": ("w7a.bz2", "w7a.t.bz2")}
SOLVERS = ("dualsvm", "libsvm", "sklearn")
CACHE_MB = 100
TOL = 1e-3


def load(name, n_features=None):
    X, y = load_svmlight_file(str(DATA_DIR / name), n_features=n_features)
    X = sp.csr_matrix(X)
    X.indices = X.indices.astype(np.int32)  # scikit-learn's SVC takes 32-bit indices only
    X.indptr = X.indptr.astype(np.int32)
    return X, y


def binary_alpha(y, support, coef):
    """alpha_i from y_i alpha_i on the support, for labels classes[1] = +1."""
    y_pm = np.where(y == np.unique(y)[1], 1.0, -1.0)
    alpha = np.zeros(len(y))
    alpha[support] = np.abs(coef)
    return y_pm, alpha


def fit_dualsvm(X, y, kernel, C):
    model = dualsvm.SVC(kernel=kernel, C=C, gamma=1.0 / X.shape[1], tol=TOL, cache_size=CACHE_MB)
    with Clock() as clock:
        model.fit(X, y)
    last = model.history_[0][-1]
    return {**clock.timing, "model": model, "iterations": int(model.n_iter_[0]),
            "kernel_evaluations": int(last["kernel_evaluations"]),
            "cache_hits": int(last["cache_hits"]), "status": model.status_[0],
            "gap": float(model.gap_[0]), "n_support": int(len(model.support_))}


def dualsvm_memory(X, y, kernel, C):
    """Peak bytes traced (NumPy registers its buffers) during a second, untimed fit."""
    gc.collect()
    tracemalloc.start()
    model = dualsvm.SVC(kernel=kernel, C=C, gamma=1.0 / X.shape[1], tol=TOL,
                        cache_size=CACHE_MB).fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del model
    return peak


def fit_libsvm(X, y, kernel, C):
    """svm_problem (LIBSVM's copy of the data) + svm_train, timed; #iter from its output."""
    from libsvm import svmutil

    code = {"rbf": 2, "sigmoid": 3}[kernel]
    options = f"-t {code} -g {1.0 / X.shape[1]!r} -c {C} -e {TOL} -m {CACHE_MB}"
    with CapturedStdout() as out:
        with Clock() as clock:
            with Clock() as setup:
                problem = svmutil.svm_problem(y, X)
            model = svmutil.svm_train(problem, svmutil.svm_parameter(options))
    iterations = re.findall(r"#iter = (\d+)", out.text)
    obj = re.findall(r"obj = (-?[\d.e+-]+)", out.text)
    return {**clock.timing, "setup_seconds": setup.seconds, "model": model,
            "iterations": int(iterations[-1]) if iterations else None,
            "libsvm_obj": -float(obj[-1]) if obj else None,
            "n_support": int(model.get_nr_sv()), "options": options}


def fit_sklearn(X, y, kernel, C):
    model = SklearnSVC(kernel=kernel, C=C, gamma=1.0 / X.shape[1], tol=TOL, cache_size=CACHE_MB)
    with Clock() as clock:
        model.fit(X, y)
    return {**clock.timing, "model": model, "iterations": int(model.n_iter_[0]),
            "n_support": int(len(model.support_))}


def dual_objective(problem, alpha):
    """D(alpha) by the one formula, from a full gradient computed in float64."""
    return problem.dual_from_gradient(alpha, problem.gradient(alpha))


def warm_up():
    """Compile (or load from the Numba cache) before timing; return the seconds."""
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.random((300, 5)) * (rng.random((300, 5)) < 0.3))
    y = np.where(rng.random(300) < 0.5, 1.0, -1.0)
    for dense in (False, True):
        for kernel in ("rbf", "sigmoid"):
            dualsvm.SVC(kernel=kernel, cache_size=1).fit(X.toarray() if dense else X, y)
    for kernel in ("rbf", "sigmoid"):  # the peers' first-call costs (imports, ctypes)
        fit_libsvm(X, y, kernel, 1.0)
        fit_sklearn(X, y, kernel, 1.0)
    return time.perf_counter() - start


def run_case(name, kernel, C, X, y, test, repeats, threads, log):
    case = {"dataset": name, "kernel": kernel, "C": C, "n_samples": X.shape[0],
            "n_features": X.shape[1], "gamma": 1.0 / X.shape[1]}
    y_pm = np.where(y == np.unique(y)[1], 1.0, -1.0)
    problem = KernelDualProblem(X, y_pm, np.full(len(y), float(C)), "hinge", "exact",
                                make_kernel(kernel, gamma=1.0 / X.shape[1]), CACHE_MB)
    log(f"{name} {kernel} C={C}: {repeats} x (dualsvm, LIBSVM, scikit-learn) ...")
    runs = best_of(repeats, {"dualsvm": lambda: fit_dualsvm(X, y, kernel, C),
                             "libsvm": lambda: fit_libsvm(X, y, kernel, C),
                             "sklearn": lambda: fit_sklearn(X, y, kernel, C)}, log)
    failed = [solver for solver in SOLVERS if "error" in runs[solver]]
    if failed:
        raise RuntimeError(f"{name} {kernel} C={C}: " + "; ".join(
            f"{solver}: {runs[solver]['error']}" for solver in failed))
    ours, theirs, sk = (runs[solver].pop("model") for solver in SOLVERS)
    for solver in SOLVERS:
        case[solver] = {**runs[solver], "threads": threads[solver],
                        "cores_busy": cores_busy(runs[solver])}
    case["dualsvm"]["dual"] = float(ours.dual_[0])
    case["dualsvm"]["dual_recomputed"] = dual_objective(
        problem, binary_alpha(y, ours.support_, ours.dual_coef_[0])[1])
    support = np.array(theirs.get_sv_indices()) - 1
    coef = np.array(theirs.get_sv_coef()).ravel()
    case["libsvm"]["dual"] = dual_objective(problem, binary_alpha(y, support, coef)[1])
    case["sklearn"]["dual"] = dual_objective(
        problem, binary_alpha(y, sk.support_, sk.dual_coef_.toarray().ravel()
                              if sp.issparse(sk.dual_coef_) else sk.dual_coef_[0])[1])
    best = " / ".join(f"{case[solver]['seconds']:.2f}" for solver in SOLVERS)
    log(f"  best {best} s (dualsvm / LIBSVM / sklearn); memory ...")
    case["dualsvm"]["peak_traced_mb"] = dualsvm_memory(X, y, kernel, C) / 2**20
    # dualsvm's own data: the rows in LIBSVM's class order, and the copy columns are
    # computed from: dense rows (when QMatrix made them), or else the rows by
    # feature (CSC, int32 row numbers)
    data = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    if sp.issparse(problem.q.X):
        data += 12 * X.nnz + 8 * (X.shape[1] + 1)
    else:
        data += 8 * X.shape[0] * X.shape[1]
    case["data_mb"] = data / 2**20
    # the cache never holds more than all of Q in float32 (small subsamples)
    case["cache_mb"] = min(CACHE_MB, 4 * X.shape[0] ** 2 / 2**20)
    case["dualsvm"]["rest_in_n_vectors"] = (
        (case["dualsvm"]["peak_traced_mb"] - case["cache_mb"] - case["data_mb"]) * 2**20
        / (8 * X.shape[0]))
    if test is not None:
        Xt, yt = test
        from libsvm import svmutil

        with CapturedStdout():
            predicted, _, _ = svmutil.svm_predict(yt, Xt, theirs, "-q")
        case["libsvm"]["test_accuracy"] = float(np.mean(np.array(predicted) == yt))
        ours_predicted = ours.predict(Xt)
        case["dualsvm"]["test_accuracy"] = float(np.mean(ours_predicted == yt))
        case["dualsvm"]["test_agreement_with_libsvm"] = float(
            np.mean(ours_predicted == np.array(predicted)))
        case["sklearn"]["test_accuracy"] = float(np.mean(sk.predict(Xt) == yt))
    case["ratio_libsvm"] = case["dualsvm"]["seconds"] / case["libsvm"]["seconds"]
    case["ratio_sklearn"] = case["dualsvm"]["seconds"] / case["sklearn"]["seconds"]
    case["dual_rel_diff_libsvm"] = (case["dualsvm"]["dual"] - case["libsvm"]["dual"]) / abs(
        case["libsvm"]["dual"])
    log(f"  ratio/LIBSVM {case['ratio_libsvm']:.3f}, dual rel. diff "
        f"{case['dual_rel_diff_libsvm']:.1e}")
    return case


def markdown(results, meta):
    def fmt(x, spec):
        return "n/a" if x is None else format(x, spec)

    pools = meta["thread_pools"]
    lines = [
        "# Kernel SVM: dualsvm SMO vs LIBSVM 3.37 vs scikit-learn SVC", "",
        f"Command: `{meta['command']}`  ",
        f"Date: {meta['date']}  ",
        *machine_lines(meta["machine"], meta["load_average_at_end"]), "",
        f"C-SVC (hinge, exact bias), gamma = 1/n_features, cache {CACHE_MB} MB for all three. "
        f"Stopping rule for all three: LIBSVM's, maximal violating pair below tol (-e) = {TOL}. "
        f"Fit seconds: best of {meta['repeats']} fits per solver, repeats interleaved across "
        "solvers; every fit starts from the same CSR matrix and includes its conversion to the "
        "solver's own format (LIBSVM: `svm_problem` + `svm_train`; scikit-learn and dualsvm "
        "convert inside `fit`). dualsvm's JIT compilation and the peers' first calls excluded "
        f"(warm-up: {meta['warm_up_seconds']:.1f} s, from the Numba cache when warm). "
        f"Threads: dualsvm computes kernel columns in Numba's pool ({pools['numba']} threads) "
        f"and gradient blocks by BLAS ({pools.get('blas', 1)} threads); "
        f"the libsvm-official wheel links OpenMP ({pools.get('openmp', 1)} threads); "
        "scikit-learn's bundled LIBSVM is serial. CPU / wall: process CPU seconds over wall "
        "seconds of the fastest fit, the cores it kept busy. "
        "Dual objectives of all three evaluated by the same formula from their dual coefficients "
        "(float64 kernel). Test accuracy on the .t files (w8a has no test file: n/a).", "",
        "| data | kernel | C | dualsvm s | LIBSVM s | sklearn s | ratio dualsvm/LIBSVM | "
        "ratio dualsvm/sklearn | threads (CPU / wall) dualsvm; LIBSVM; sklearn | "
        "dual dualsvm | dual LIBSVM | rel. diff | iter dualsvm | "
        "iter LIBSVM | kernel evals dualsvm | nSV | test acc dualsvm / LIBSVM / sklearn | "
        "peak MB dualsvm = cache + data + rest (rest in n-vectors) |",
        "|" + "---|" * 18,
    ]
    for r in results:
        d, l, s = r["dualsvm"], r["libsvm"], r["sklearn"]
        acc = "n/a" if "test_accuracy" not in d else \
            f"{d['test_accuracy']:.4f} / {l['test_accuracy']:.4f} / {s['test_accuracy']:.4f}"
        threads = "; ".join(f"{x['threads']} ({x['cores_busy']:.2f})" for x in (d, l, s))
        lines.append(
            f"| {r['dataset']} | {r['kernel']} | {r['C']:g} | {d['seconds']:.2f} | "
            f"{l['seconds']:.2f} | {s['seconds']:.2f} | {r['ratio_libsvm']:.3f} | "
            f"{r['ratio_sklearn']:.3f} | {threads} | {d['dual']:.6f} | {l['dual']:.6f} | "
            f"{r['dual_rel_diff_libsvm']:.1e} | {d['iterations']} | {fmt(l['iterations'], 'd')} | "
            f"{d['kernel_evaluations']:.3g} | {d['n_support']} | {acc} | "
            f"{d['peak_traced_mb']:.1f} = {r['cache_mb']:.0f} + {r['data_mb']:.1f} + "
            f"{d['peak_traced_mb'] - r['cache_mb'] - r['data_mb']:.1f} "
            f"({d['rest_in_n_vectors']:.0f}) |")
    rbf = [r["ratio_libsvm"] for r in results if r["kernel"] == "rbf"]
    every = [r["ratio_libsvm"] for r in results]
    lines += ["", f"Median fit-time ratio dualsvm/LIBSVM over the RBF cases: "
              f"**{statistics.median(rbf):.3f}** ({len(rbf)} cases)" if rbf else "",
              f"Median over all cases: {statistics.median(every):.3f}; largest relative dual "
              f"difference to LIBSVM: "
              f"{max(abs(r['dual_rel_diff_libsvm']) for r in results):.1e}."]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", choices=list(DATASETS), default=list(DATASETS))
    parser.add_argument("--kernels", nargs="+", choices=["rbf", "sigmoid"],
                        default=["rbf", "sigmoid"])
    parser.add_argument("--C", nargs="+", type=float, default=[1.0, 10.0])
    parser.add_argument("--repeats", type=int, default=None,
                        help="fits per solver and case, the best kept (default 3, 1 with --quick)")
    parser.add_argument("--rows", type=int, default=None,
                        help="train on the first ROWS rows of each training set (default all)")
    parser.add_argument("--quick", action="store_true",
                        help="ijcnn1's first 5000 rows, RBF, C=1, 1 repeat; prints only "
                             "unless --output-dir is given")
    parser.add_argument("--output-dir", type=Path,
                        help="where kernel.md and kernel.json go (default benchmarks/results/)")
    args = parser.parse_args(argv)
    if args.quick:
        args.datasets, args.kernels, args.C = ["ijcnn1"], ["rbf"], [1.0]
        args.rows = args.rows or 5000
    repeats = args.repeats or (1 if args.quick else 3)
    out_dir = args.output_dir or (None if args.quick else RESULTS_DIR)

    def log(text):
        print(text, file=sys.stderr, flush=True)

    meta = {"command": command_line(argv),
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": machine(), "warm_up_seconds": warm_up(), "cache_mb": CACHE_MB,
            "tol": TOL, "repeats": repeats, "rows": args.rows}
    pools = meta["thread_pools"] = thread_pools()
    threads = {"dualsvm": pools["numba"], "libsvm": pools.get("openmp", 1), "sklearn": 1}
    data = {}
    for name in args.datasets:
        train, test_name = DATASETS[name]
        X, y = load(train)
        test = load(test_name, n_features=X.shape[1]) if test_name else None
        data[name] = (X[:args.rows], y[:args.rows], test)
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    # after every case, so a stopped run keeps what it measured
    partial = (out_dir or Path(tempfile.gettempdir())) / "kernel.partial.json"
    for kernel in args.kernels:  # the RBF cases first: the headline median
        for name in args.datasets:
            for C in args.C:
                results.append(run_case(name, kernel, C, *data[name], repeats, threads, log))
                partial.write_text(json.dumps({**meta, "results": results}, indent=1))
    partial.unlink()
    meta["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    text = markdown(results, meta)
    print(text)
    if out_dir is not None:
        (out_dir / "kernel.md").write_text(text)
        (out_dir / "kernel.json").write_text(json.dumps({**meta, "results": results}, indent=1))


if __name__ == "__main__":
    main()
