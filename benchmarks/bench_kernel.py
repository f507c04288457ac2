"""Kernel SVM benchmark: dualsvm beside LIBSVM 3.37, ThunderSVM (CPU) and scikit-learn's SVC.

C-SVC (hinge loss, exact bias), gamma = 1 / n_features, the same stopping rule for
all (LIBSVM's maximal violating pair below -e = 1e-3: dualsvm's tol and ThunderSVM's
-e are the same measure), a 100 MB kernel cache for dualsvm, LIBSVM and scikit-learn
(LIBSVM's default; ThunderSVM runs with its own default memory limit, 8 GB, which
sets its working set to 1024), on a9a, w8a, ijcnn1 and w7a: RBF at C = 1 and 10,
sigmoid and degree-3 polynomial (coef0 0) at C = 1 (``--other-C``), plus ijcnn1's
first 5k, 10k and 20k rows (``--sizes``; RBF, C = 1) to show how time grows with n.
Per case: fit seconds, best of ``--repeats`` (interleaved), data conversion outside
the clock for every solver (dualsvm and scikit-learn get the CSR matrix they use;
LIBSVM's ``svm_problem`` is built before its clock starts; ThunderSVM reads a file
and reports its own ``all training time``, which excludes reading), the threads of
each solver with CPU / wall, the dual objective of every model evaluated by one
formula (dualsvm's KernelDualProblem; ThunderSVM's from its model file's support
vectors), iterations, test accuracy on the .t files (w8a has none), and dualsvm's
peak traced memory split into cache_size, its copy of the data, and the rest in
n-length float64 vectors.

Threads: ``--threads N`` runs every solver with N threads (the script re-executes
itself with OMP_NUM_THREADS, NUMBA_NUM_THREADS and OPENBLAS_NUM_THREADS = N, and
passes ``-o N`` to ThunderSVM); the default is every core. ``--one-thread`` adds, in
the same run and interleaved with the others, dualsvm on one thread (Numba's and
BLAS's pools set to 1 around its fit) and ThunderSVM with ``-o 1``. LIBSVM runs with
the OpenMP threads its wheel uses (its kernel columns are computed in parallel).

    python benchmarks/bench_kernel.py                      # all cases, writes results/kernel.*
    python benchmarks/bench_kernel.py --quick              # ijcnn1's first 5000 rows, prints only
    python benchmarks/bench_kernel.py --datasets w7a --kernels rbf --C 1 --rows 2000 \
        --repeats 1 --output-dir /tmp/kernel              # any subset, with files

ThunderSVM's binary: ``THUNDERSVM_TRAIN`` (default: what
``../shared/peers/build-thundersvm`` prints, if it was built); without it the
ThunderSVM column is left out.
"""

import argparse
import gc
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file, load_svmlight_file
from sklearn.svm import SVC as SklearnSVC

import dualsvm
from dualsvm.kernels import make_kernel
from dualsvm.problems.kernel import KernelDualProblem

from common import (DATA_DIR, RESULTS_DIR, CapturedStdout, Clock, best_of, command_line,
                    cores_busy, machine, machine_lines, thread_pools)

DATASETS = {"a9a": ("a9a.bz2", "a9a.t.bz2"), "w8a": ("w8a.bz2", None),
            "ijcnn1": ("ijcnn1.bz2", "ijcnn1.t.bz2"), "w7a": ("w7a.bz2", "w7a.t.bz2")}
#: ``dualsvm_1`` and ``thundersvm_1``: the same on one thread (``--one-thread``).
SOLVERS = ("dualsvm", "dualsvm_1", "libsvm", "thundersvm", "thundersvm_1", "sklearn")
#: The single-thread runs and the runs with all threads they are compared with.
ONE_THREAD = {"dualsvm_1": "dualsvm", "thundersvm_1": "thundersvm"}
CACHE_MB = 100
TOL = 1e-3
CODES = {"linear": 0, "poly": 1, "rbf": 2, "sigmoid": 3}
DEGREE = 3


def thundersvm_binary():
    """The thundersvm-train binary: THUNDERSVM_TRAIN, else the default build path."""
    path = os.environ.get("THUNDERSVM_TRAIN") or str(
        Path(tempfile.gettempdir()) / "thundersvm-cpu/thundersvm/build/bin/thundersvm-train")
    return path if Path(path).is_file() and os.access(path, os.X_OK) else None


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


def fit_dualsvm(X, y, kernel, C, solver="auto", threads=None):
    """SVC.fit timed; ``threads``: Numba's and BLAS's threads for this fit (None: all)."""
    import numba
    from threadpoolctl import threadpool_limits

    model = dualsvm.SVC(kernel=kernel, C=C, gamma=1.0 / X.shape[1], degree=DEGREE, tol=TOL,
                        cache_size=CACHE_MB, solver=solver)
    pool = numba.get_num_threads()
    numba.set_num_threads(threads or pool)
    try:
        with threadpool_limits(limits=threads, user_api="blas"):
            with Clock() as clock:
                model.fit(X, y)
    finally:
        numba.set_num_threads(pool)
    last = model.history_[0][-1]
    return {**clock.timing, "model": model, "solver_used": model.solver_used_,
            "iterations": int(last.get("iterations", model.n_iter_[0])),
            "kernel_evaluations": int(last["kernel_evaluations"]),
            "cache_hits": int(last["cache_hits"]), "status": model.status_[0],
            "gap": float(model.gap_[0]), "n_support": int(len(model.support_))}


def dualsvm_memory(X, y, kernel, C, solver="auto"):
    """Peak bytes traced (NumPy registers its buffers) during a second, untimed fit."""
    gc.collect()
    tracemalloc.start()
    model = dualsvm.SVC(kernel=kernel, C=C, gamma=1.0 / X.shape[1], degree=DEGREE, tol=TOL,
                        cache_size=CACHE_MB, solver=solver).fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del model
    return peak


def fit_libsvm(X, y, kernel, C):
    """svm_train timed; svm_problem (LIBSVM's copy of the data) built before the clock;
    #iter from its output."""
    from libsvm import svmutil

    options = (f"-t {CODES[kernel]} -g {1.0 / X.shape[1]!r} -d {DEGREE} -c {C} -e {TOL} "
               f"-m {CACHE_MB}")
    with Clock() as setup:
        problem = svmutil.svm_problem(y, X)
    with CapturedStdout() as out:
        with Clock() as clock:
            model = svmutil.svm_train(problem, svmutil.svm_parameter(options))
    iterations = re.findall(r"#iter = (\d+)", out.text)
    obj = re.findall(r"obj = (-?[\d.e+-]+)", out.text)
    return {**clock.timing, "setup_seconds": setup.seconds, "model": model,
            "iterations": int(iterations[-1]) if iterations else None,
            "libsvm_obj": -float(obj[-1]) if obj else None,
            "n_support": int(model.get_nr_sv()), "options": options}


def fit_thundersvm(path, n_features, kernel, C, threads, binary):
    """thundersvm-train on the svmlight file ``path`` (written outside the clock); the
    seconds are its own ``all training time`` (reading the file excluded); the model
    file is read back (its support vectors, coefficients, rho and labels)."""
    model_path = f"{path}.{threads}.model"
    options = ["-s", "0", "-t", str(CODES[kernel]), "-g", repr(1.0 / n_features), "-d",
               str(DEGREE), "-c", str(C), "-e", str(TOL), "-o", str(threads)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with Clock() as clock:
        done = subprocess.run([binary, *options, path, model_path], capture_output=True,
                              text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    log = done.stdout + done.stderr
    seconds = float(re.findall(r"all training time = ([\d.e+-]+)", log)[-1])
    iterations = re.findall(r"total local iter = (\d+)", log)
    outer = re.findall(r"global iter = (\d+)", log)
    return {"seconds": seconds, "process_seconds": clock.seconds,
            "cpu_seconds": child_cpu * seconds / clock.seconds, "options": " ".join(options),
            "iterations": int(iterations[-1]) if iterations else None,
            "outer_iterations": int(outer[-1]) if outer else None,
            "model": read_thundersvm_model(model_path, n_features)}


def read_thundersvm_model(path, n_features):
    """(support vectors CSR, coefficients, rho, labels) of a binary LIBSVM-format model."""
    header, rows = {}, []
    with open(path) as f:
        for line in f:
            if line.strip() == "SV":
                break
            key, *values = line.split()
            header[key] = values
        rows = f.read()
    with tempfile.NamedTemporaryFile("w", suffix=".svm", delete=False) as out:
        out.write(rows)
    try:
        # one-based, as its input was written (the 'auto' guess of the base shifts
        # every feature when no support vector holds feature 0)
        sv, coef = load_svmlight_file(out.name, n_features=n_features, zero_based=False)
    finally:
        os.unlink(out.name)
    return {"sv": sp.csr_matrix(sv), "coef": coef, "rho": float(header["rho"][0]),
            "labels": [float(v) for v in header["label"]]}


def thundersvm_dual_and_predict(model, kernel_obj, Xt):
    """The dual sum |c| - c'Kc / 2 from the model's support vectors, and its predictions."""
    sv, coef = model["sv"], model["coef"]
    quadratic = 0.0
    for start in range(0, sv.shape[0], 2000):
        quadratic += coef[start:start + 2000] @ (kernel_obj(sv[start:start + 2000], sv) @ coef)
    dual = float(np.abs(coef).sum() - 0.5 * quadratic)
    predicted = None
    if Xt is not None:
        # times() returns an (n, 1) column: flattened, or comparing the predictions
        # with the labels would broadcast to an (n, n) matrix
        decision = kernel_obj.times(Xt, sv, coef).ravel() - model["rho"]
        first, second = model["labels"]
        predicted = np.where(decision > 0, first, second)
    return dual, predicted


def fit_sklearn(X, y, kernel, C):
    model = SklearnSVC(kernel=kernel, C=C, gamma=1.0 / X.shape[1], degree=DEGREE, tol=TOL,
                       cache_size=CACHE_MB)
    with Clock() as clock:
        model.fit(X, y)
    return {**clock.timing, "model": model, "iterations": int(model.n_iter_[0]),
            "n_support": int(len(model.support_))}


def dual_objective(problem, alpha):
    """D(alpha) by the one formula, from a full gradient computed in float64."""
    return problem.dual_from_gradient(alpha, problem.gradient(alpha))


def warm_up(solvers, dualsvm_solver):
    """Compile (or load from the Numba cache) before timing; return the seconds."""
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.random((300, 5)) * (rng.random((300, 5)) < 0.3))
    y = np.where(rng.random(300) < 0.5, 1.0, -1.0)
    for dense in (False, True):
        for kernel in ("rbf", "sigmoid", "poly"):
            for solver in {"smo", "ws", dualsvm_solver}:
                model = dualsvm.SVC(kernel=kernel, cache_size=1, solver=solver).fit(
                    X.toarray() if dense else X, y)
                model.predict(X)
    for kernel in ("rbf", "sigmoid"):  # the peers' first-call costs (imports, ctypes)
        fit_libsvm(X, y, kernel, 1.0)
        if "sklearn" in solvers:
            fit_sklearn(X, y, kernel, 1.0)
    return time.perf_counter() - start


def run_case(name, kernel, C, X, y, test, repeats, threads, solvers, options, log):
    case = {"dataset": name, "kernel": kernel, "C": C, "n_samples": X.shape[0],
            "n_features": X.shape[1], "gamma": 1.0 / X.shape[1]}
    y_pm = np.where(y == np.unique(y)[1], 1.0, -1.0)
    kernel_obj = make_kernel(kernel, gamma=1.0 / X.shape[1], degree=DEGREE)
    problem = KernelDualProblem(X, y_pm, np.full(len(y), float(C)), "hinge", "exact",
                                kernel_obj, CACHE_MB)
    fits = {"dualsvm": lambda: fit_dualsvm(X, y, kernel, C, options.solver)}
    if "dualsvm_1" in solvers:
        fits["dualsvm_1"] = lambda: fit_dualsvm(X, y, kernel, C, options.solver, threads=1)
    fits["libsvm"] = lambda: fit_libsvm(X, y, kernel, C)
    train_file = None
    if "thundersvm" in solvers:  # its input file, written outside every clock
        handle, train_file = tempfile.mkstemp(suffix=".svm")
        os.close(handle)
        dump_svmlight_file(X, y, train_file, zero_based=False)  # LIBSVM's one-based indices
        fits["thundersvm"] = lambda: fit_thundersvm(train_file, X.shape[1], kernel, C,
                                                    threads["thundersvm"], options.thundersvm)
        if "thundersvm_1" in solvers:
            fits["thundersvm_1"] = lambda: fit_thundersvm(train_file, X.shape[1], kernel, C, 1,
                                                          options.thundersvm)
    if "sklearn" in solvers:
        fits["sklearn"] = lambda: fit_sklearn(X, y, kernel, C)
    log(f"{name} (n = {X.shape[0]}) {kernel} C={C}: {repeats} x ({', '.join(fits)}) ...")
    try:
        runs = best_of(repeats, fits, log)
    finally:
        if train_file is not None:
            for path in (train_file, f"{train_file}.{threads['thundersvm']}.model",
                         f"{train_file}.1.model"):
                if os.path.exists(path):
                    os.unlink(path)
    failed = [solver for solver in fits if "error" in runs[solver]]
    if failed:
        raise RuntimeError(f"{name} {kernel} C={C}: " + "; ".join(
            f"{solver}: {runs[solver]['error']}" for solver in failed))
    models = {solver: runs[solver].pop("model") for solver in fits}
    for solver in fits:
        case[solver] = {**runs[solver], "threads": threads[solver],
                        "cores_busy": cores_busy(runs[solver])}
    ours, theirs = models["dualsvm"], models["libsvm"]
    case["dualsvm"]["dual"] = float(ours.dual_[0])
    case["dualsvm"]["dual_recomputed"] = dual_objective(
        problem, binary_alpha(y, ours.support_, ours.dual_coef_.toarray().ravel()
                              if sp.issparse(ours.dual_coef_) else ours.dual_coef_[0])[1])
    if "dualsvm_1" in fits:  # the same solver on one thread: its own dual, as a check
        case["dualsvm_1"]["dual"] = float(models["dualsvm_1"].dual_[0])
        case["dualsvm_1"]["solver_used"] = models["dualsvm_1"].solver_used_
    support = np.array(theirs.get_sv_indices()) - 1
    coef = np.array(theirs.get_sv_coef()).ravel()
    case["libsvm"]["dual"] = dual_objective(problem, binary_alpha(y, support, coef)[1])
    if "sklearn" in fits:
        sk = models["sklearn"]
        case["sklearn"]["dual"] = dual_objective(
            problem, binary_alpha(y, sk.support_, sk.dual_coef_.toarray().ravel()
                                  if sp.issparse(sk.dual_coef_) else sk.dual_coef_[0])[1])
    thunder_predicted = None
    if "thundersvm" in fits:
        case["thundersvm"]["dual"], thunder_predicted = thundersvm_dual_and_predict(
            models["thundersvm"], kernel_obj, None if test is None else test[0])
        case["thundersvm"]["n_support"] = int(models["thundersvm"]["sv"].shape[0])
    if "thundersvm_1" in fits:
        case["thundersvm_1"]["dual"] = thundersvm_dual_and_predict(
            models["thundersvm_1"], kernel_obj, None)[0]
        case["thundersvm_1"]["n_support"] = int(models["thundersvm_1"]["sv"].shape[0])
    best = " / ".join(f"{case[solver]['seconds']:.2f}" for solver in fits)
    log(f"  best {best} s ({' / '.join(fits)}); memory ...")
    case["dualsvm"]["peak_traced_mb"] = dualsvm_memory(X, y, kernel, C, options.solver) / 2**20
    # dualsvm's own data: the rows, and the copy columns are computed from: dense rows
    # (when QMatrix made them), or else the rows by feature (CSC, int32 row numbers)
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
        if "sklearn" in fits:
            case["sklearn"]["test_accuracy"] = float(np.mean(models["sklearn"].predict(Xt) == yt))
        if thunder_predicted is not None:
            case["thundersvm"]["test_accuracy"] = float(np.mean(thunder_predicted == yt))
    for solver in fits:
        if solver in ONE_THREAD:  # one thread against one thread
            ours_1 = "dualsvm_1" if "dualsvm_1" in fits else "dualsvm"
            if solver != "dualsvm_1":
                case[f"ratio_{solver}"] = case[ours_1]["seconds"] / case[solver]["seconds"]
        elif solver != "dualsvm":
            case[f"ratio_{solver}"] = case["dualsvm"]["seconds"] / case[solver]["seconds"]
        if solver != "dualsvm":
            # dualsvm's dual by the same float64 formula as the others'
            case[f"dual_rel_diff_{solver}"] = (case["dualsvm"]["dual_recomputed"]
                                               - case[solver]["dual"]) / abs(case[solver]["dual"])
    log(f"  ratio/LIBSVM {case['ratio_libsvm']:.3f}"
        + (f", ratio/ThunderSVM {case['ratio_thundersvm']:.3f}" if "thundersvm" in fits else "")
        + (f", 1 thread {case['ratio_thundersvm_1']:.3f}" if "thundersvm_1" in fits else "")
        + f", dual rel. diff {case['dual_rel_diff_libsvm']:.1e}")
    return case


NAMES = {"dualsvm": "dualsvm", "dualsvm_1": "dualsvm 1 thread", "libsvm": "LIBSVM",
         "thundersvm": "ThunderSVM", "thundersvm_1": "ThunderSVM 1 thread", "sklearn": "sklearn"}


def markdown(results, meta):
    def fmt(x, spec):
        return "n/a" if x is None else format(x, spec)

    pools = meta["thread_pools"]
    solvers = [s for s in SOLVERS if s in meta["solvers"]]
    others = [s for s in solvers if s != "dualsvm"]  # dual differences
    peers = [s for s in others if s != "dualsvm_1"]  # time ratios
    judged = [s for s in solvers if s not in ONE_THREAD]  # test accuracy
    one = (" One thread: `dualsvm 1 thread` is the same fit with Numba's and BLAS's "
           "threads set to 1 in the process, `ThunderSVM 1 thread` is `-o 1`; their "
           "ratio column is dualsvm 1 thread / ThunderSVM 1 thread." if ONE_THREAD.keys()
           & set(solvers) else "")
    lines = [
        "# Kernel SVM: dualsvm vs " + " vs ".join(NAMES[s] for s in peers), "",
        f"Command: `{meta['command']}`  ",
        f"Date: {meta['date']}  ",
        *machine_lines(meta["machine"], meta["load_average_at_end"]), "",
        f"C-SVC (hinge, exact bias), gamma = 1/n_features, degree {DEGREE} and coef0 0 for poly, "
        f"cache {CACHE_MB} MB for dualsvm, LIBSVM and scikit-learn (ThunderSVM: its default "
        "memory limit, 8 GB, working set 1024). "
        f"Stopping rule for all: LIBSVM's, maximal violating pair below tol (-e) = {TOL}. "
        f"dualsvm: `SVC(solver={meta['dualsvm_solver']!r})` (the solver it used is in the table). "
        f"Fit seconds: best of {meta['repeats']} fits per solver (RBF; "
        f"{meta.get('other_repeats', meta['repeats'])} for sigmoid and poly), repeats interleaved across "
        "solvers; data conversion outside the clock for every solver (dualsvm and scikit-learn "
        "get their CSR matrix; LIBSVM's `svm_problem` is built before its clock; ThunderSVM's "
        "own `all training time`, which excludes reading its input file). "
        "dualsvm's JIT compilation and the peers' first calls excluded "
        f"(warm-up: {meta['warm_up_seconds']:.1f} s, from the Numba cache when warm). "
        f"Threads: {meta['threads']} for every solver (dualsvm: Numba's pool {pools['numba']}, "
        f"BLAS {pools.get('blas', 1)}; LIBSVM's OpenMP {pools.get('openmp', 1)}; ThunderSVM "
        f"`-o`; scikit-learn's bundled LIBSVM is serial).{one} CPU / wall: process CPU seconds over "
        "wall seconds of the fastest fit (ThunderSVM: of the whole process, reading included). "
        "Dual objectives evaluated by the same formula from each solver's dual coefficients "
        "(float64 kernel). Test accuracy on the .t files (w8a has no test file: n/a).", "",
        "| data | n | kernel | C | solver used | " + " | ".join(f"{NAMES[s]} s" for s in solvers)
        + " | " + " | ".join(f"ratio to {NAMES[s]}" for s in peers)
        + " | threads (CPU / wall) " + "; ".join(NAMES[s] for s in solvers)
        + " | dual dualsvm | dual rel. diff to " + " / ".join(NAMES[s] for s in others)
        + " | iter dualsvm / LIBSVM | nSV | test acc " + " / ".join(NAMES[s] for s in judged)
        + " | peak MB dualsvm = cache + data + rest (n-vectors) |",
        "|" + "---|" * (12 + len(solvers) + len(peers)),
    ]
    for r in results:
        d = r["dualsvm"]
        acc = "n/a" if "test_accuracy" not in d else " / ".join(
            f"{r[s]['test_accuracy']:.4f}" for s in judged)
        threads = "; ".join(f"{r[s]['threads']} ({fmt(r[s]['cores_busy'], '.2f')})"
                            for s in solvers)
        lines.append(
            f"| {r['dataset']} | {r['n_samples']} | {r['kernel']} | {r['C']:g} | "
            f"{d.get('solver_used', 'smo')} | "
            + " | ".join(f"{r[s]['seconds']:.2f}" for s in solvers) + " | "
            + " | ".join(f"{r[f'ratio_{s}']:.3f}" for s in peers) + f" | {threads} | "
            f"{d['dual']:.6f} | " + " / ".join(f"{r[f'dual_rel_diff_{s}']:.1e}" for s in others)
            + f" | {d['iterations']} / {fmt(r['libsvm']['iterations'], 'd')} | "
            f"{d['n_support']} | {acc} | "
            f"{d['peak_traced_mb']:.1f} = {r['cache_mb']:.0f} + {r['data_mb']:.1f} + "
            f"{d['peak_traced_mb'] - r['cache_mb'] - r['data_mb']:.1f} "
            f"({d['rest_in_n_vectors']:.0f}) |")
    rbf = [r for r in results if r["kernel"] == "rbf"]
    lines.append("")
    if rbf:
        lines.append(f"Median fit-time ratio dualsvm/LIBSVM over the {len(rbf)} RBF cases: "
                     f"**{statistics.median(r['ratio_libsvm'] for r in rbf):.3f}**.  ")
        for peer, label in (("thundersvm", "dualsvm/ThunderSVM"),
                            ("thundersvm_1", "One thread, dualsvm/ThunderSVM")):
            if peer in peers:
                ratio = f"ratio_{peer}"
                worst = max(rbf, key=lambda r: r[ratio])
                lines.append(f"{label} over the RBF cases: median "
                             f"{statistics.median(r[ratio] for r in rbf):.3f}, largest "
                             f"**{worst[ratio]:.3f}** ({worst['dataset']}, n = "
                             f"{worst['n_samples']}, C = {worst['C']:g}).  ")
        if "dualsvm_1" in solvers:
            lines.append("One thread against LIBSVM's threads, dualsvm/LIBSVM over the RBF "
                         "cases: median " + format(statistics.median(
                             r["dualsvm_1"]["seconds"] / r["libsvm"]["seconds"] for r in rbf),
                             ".3f") + ".  ")
    lines.append(f"Median over all cases dualsvm/LIBSVM: "
                 f"{statistics.median(r['ratio_libsvm'] for r in results):.3f}; dual relative "
                 f"to LIBSVM's: lowest {min(r['dual_rel_diff_libsvm'] for r in results):.1e}, "
                 f"largest {max(r['dual_rel_diff_libsvm'] for r in results):.1e}.")
    return "\n".join(lines) + "\n"


def _threads_environment(threads):
    """Re-execute with every pool at ``threads`` threads, unless already so."""
    wanted = {name: str(threads) for name in
              ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    if all(os.environ.get(k) == v for k, v in wanted.items()):
        return
    os.environ.update(wanted)
    os.execv(sys.executable, [sys.executable, *sys.argv])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", choices=list(DATASETS), default=list(DATASETS))
    parser.add_argument("--kernels", nargs="+", choices=["rbf", "sigmoid", "poly"],
                        default=["rbf", "sigmoid", "poly"])
    parser.add_argument("--C", nargs="+", type=float, default=[1.0, 10.0],
                        help="C of the RBF cases (default 1 10)")
    parser.add_argument("--other-C", nargs="+", type=float, default=[1.0],
                        help="C of the sigmoid and poly cases (default 1)")
    parser.add_argument("--sizes", nargs="*", type=int, default=[5000, 10000, 20000],
                        help="ijcnn1's first SIZES rows as extra RBF C=1 cases (default "
                             "5000 10000 20000; none: --sizes)")
    parser.add_argument("--solvers", nargs="+", choices=list(SOLVERS),
                        default=["dualsvm", "libsvm", "thundersvm"],
                        help="dualsvm and LIBSVM always run; add sklearn for scikit-learn")
    parser.add_argument("--solver", default="auto", help="dualsvm's SVC(solver=...)")
    parser.add_argument("--one-thread", action="store_true",
                        help="also dualsvm on one thread and ThunderSVM with -o 1")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for every solver (default: every core)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="fits per solver and case, the best kept (default 3, 1 with --quick)")
    parser.add_argument("--other-repeats", type=int, default=None,
                        help="fits per solver for the sigmoid and poly cases (default: --repeats)")
    parser.add_argument("--rows", type=int, default=None,
                        help="train on the first ROWS rows of each training set (default all)")
    parser.add_argument("--quick", action="store_true",
                        help="ijcnn1's first 5000 rows, RBF, C=1, 1 repeat; prints only "
                             "unless --output-dir is given")
    parser.add_argument("--output-dir", type=Path,
                        help="where kernel.md and kernel.json go (default benchmarks/results/)")
    args = parser.parse_args(argv)
    if args.threads is not None:
        _threads_environment(args.threads)
    if args.quick:
        args.datasets, args.kernels, args.C, args.sizes = ["ijcnn1"], ["rbf"], [1.0], []
        args.rows = args.rows or 5000
    solvers = list(dict.fromkeys(["dualsvm", "libsvm", *args.solvers]))
    if args.one_thread:
        solvers += [one for one, many in ONE_THREAD.items() if many in solvers]
    args.thundersvm = thundersvm_binary()
    if "thundersvm" in solvers and args.thundersvm is None:
        print("ThunderSVM not found (THUNDERSVM_TRAIN): left out", file=sys.stderr)
        solvers = [s for s in solvers if not s.startswith("thundersvm")]
    repeats = args.repeats or (1 if args.quick else 3)
    other_repeats = args.other_repeats or repeats
    out_dir = args.output_dir or (None if args.quick else RESULTS_DIR)

    def log(text):
        print(text, file=sys.stderr, flush=True)

    meta = {"command": command_line(argv),
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": machine(), "warm_up_seconds": warm_up(solvers, args.solver),
            "cache_mb": CACHE_MB, "tol": TOL, "repeats": repeats,
            "other_repeats": other_repeats, "rows": args.rows,
            "solvers": solvers, "dualsvm_solver": args.solver,
            "thundersvm_binary": args.thundersvm}
    pools = meta["thread_pools"] = thread_pools()
    meta["threads"] = args.threads or os.cpu_count()
    threads = {"dualsvm": pools["numba"], "libsvm": pools.get("openmp", 1),
               "thundersvm": meta["threads"], "sklearn": 1, "dualsvm_1": 1, "thundersvm_1": 1}
    data = {}
    for name in args.datasets:
        train, test_name = DATASETS[name]
        X, y = load(train)
        test = load(test_name, n_features=X.shape[1]) if test_name else None
        data[name] = (X[:args.rows], y[:args.rows], test)
    cases = [(kernel, name, C) for kernel in args.kernels for name in args.datasets
             for C in (args.C if kernel == "rbf" else args.other_C)]
    if args.sizes:
        X, y = load(DATASETS["ijcnn1"][0])
        test = load(DATASETS["ijcnn1"][1], n_features=X.shape[1])
        for size in args.sizes:
            data[f"ijcnn1[:{size}]"] = (X[:size], y[:size], test)
            cases.insert(0, ("rbf", f"ijcnn1[:{size}]", 1.0))
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    results = []
    # after every case, so a stopped run keeps what it measured
    partial = (out_dir or Path(tempfile.gettempdir())) / "kernel.partial.json"
    for kernel, name, C in cases:  # the small and RBF cases first: the headline medians
        results.append(run_case(name, kernel, C, *data[name],
                                repeats if kernel == "rbf" else other_repeats, threads,
                                solvers, args, log))
        partial.write_text(json.dumps({**meta, "results": results}, indent=1, default=str))
    partial.unlink()
    meta["load_average_at_end"] = [round(x, 2) for x in os.getloadavg()]
    text = markdown(results, meta)
    print(text)
    if out_dir is not None:
        (out_dir / "kernel.md").write_text(text)
        (out_dir / "kernel.json").write_text(json.dumps({**meta, "results": results}, indent=1,
                                                        default=str))


if __name__ == "__main__":
    main()
