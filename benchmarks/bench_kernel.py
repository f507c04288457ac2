"""Kernel SVM benchmark: dualsvm beside LIBSVM 3.37, oneDAL, ThunderSVM (CPU) and scikit-learn.

C-SVC (hinge loss, exact bias), the same stopping rule for all (LIBSVM's maximal
violating pair below -e = 1e-3: dualsvm's tol, oneDAL's tol and ThunderSVM's -e are
the same measure), a 100 MB kernel cache for dualsvm, LIBSVM, oneDAL and
scikit-learn (LIBSVM's default; ThunderSVM runs with its own default memory limit,
8 GB, which sets its working set to 1024). Three parts (``--part``):

* ``default``: LIBSVM's default hyperparameters, gamma = 1 / n_features, on a9a, w8a,
  ijcnn1 and w7a: RBF at C = 1 and 10, sigmoid and degree-3 polynomial (coef0 0) at
  C = 1 (``--other-C``), plus ijcnn1's first 5k, 10k and 20k rows (``--sizes``; RBF,
  C = 1) to show how time grows with n. Writes results/kernel.*.
* ``search``: C and gamma of the tuned part, by ``dualsvm.SVCCV`` (3 stratified folds,
  C in 2^0..2^8, gamma in 2^-7..2^1, accuracy) on a seeded random subsample of at most
  10,000 training rows, untimed; writes results/kernel_tuned_params.json, which the
  tuned part reads (``ijcnn1+t`` takes ijcnn1's values).
* ``tuned``: RBF at those C and gamma on a9a, w7a, w8a, ijcnn1 and ijcnn1+t (ijcnn1's
  training and test files stacked, 141,691 rows: no held-out rows, so its accuracy is
  training accuracy, marked as such; w8a's too, having no test file), every dualsvm
  solver named by ``--dualsvm-solvers`` beside ``SVC()``'s default. Writes
  results/kernel_tuned.*.

Per case: fit seconds, best of ``--repeats`` (interleaved; a solver whose fit takes
over ``--once-above`` seconds runs once), data conversion outside the clock for
every solver (dualsvm, oneDAL and scikit-learn get the CSR matrix they use; LIBSVM's
``svm_problem`` is built before its clock starts; ThunderSVM reads a file and reports
its own ``all training time``, which excludes reading), the threads of each solver
with CPU / wall, the dual objective of every model evaluated by one formula
(dualsvm's KernelDualProblem, float64; ThunderSVM's from its model file's support
vectors), iterations, accuracy, and dualsvm's peak traced memory split into
cache_size, its copy of the data, and the rest in n-length float64 vectors.

Threads: ``--threads N`` runs every solver with N threads (the script re-executes
itself with OMP_NUM_THREADS, NUMBA_NUM_THREADS and OPENBLAS_NUM_THREADS = N, and
passes ``-o N`` to ThunderSVM); the default is every core. oneDAL computes with its
own default (every core: 2 here). ``--one-thread`` adds, in the same run and
interleaved with the others, dualsvm on one thread (Numba's and BLAS's pools set to
1 around its fit) and ThunderSVM with ``-o 1``.

    python benchmarks/bench_kernel.py --threads 2          # default part, writes results/kernel.*
    python benchmarks/bench_kernel.py --quick              # ijcnn1's first 5000 rows, prints only
    python benchmarks/bench_kernel.py --part search --datasets a9a w7a w8a ijcnn1
    python benchmarks/bench_kernel.py --part tuned --threads 2 --datasets a9a --merge
    python benchmarks/bench_kernel.py --datasets w7a --kernels rbf --C 1 --rows 2000 \
        --repeats 1 --output-dir /tmp/kernel              # any subset, with files

``--merge`` keeps the cases of the existing results file that this run does not
measure again (a table made one data set per run, each under the lock's 20 minutes).
ThunderSVM's binary: ``THUNDERSVM_TRAIN`` (default: what
``../shared/peers/build-thundersvm`` prints, if it was built); without it the
ThunderSVM column is left out.
"""

import argparse
import gc
import json
import os
import statistics
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC as SklearnSVC

import dualsvm
from dualsvm.kernels import make_kernel
from dualsvm.problems.kernel import KernelDualProblem

from common import (RESULTS_DIR, CapturedStdout, Clock, best_of, cores_busy, fit_libsvm, fit_onedal,
                    fit_thundersvm, load, log, merge, new_record, onedal_threads, page,
                    plus_minus, thread_pools, threads_environment, thundersvm_binary,
                    timed_fit, write_results)

CACHE_MB = 100
TOL = 1e-3
CODES = {"linear": 0, "poly": 1, "rbf": 2, "sigmoid": 3}
DEGREE = 3
DEFAULT_SETS = ("a9a", "w8a", "ijcnn1", "w7a")
TUNED_SETS = ("a9a", "w7a", "w8a", "ijcnn1", "ijcnn1+t")
#: The grid search of the tuned part.
SEARCH = {"Cs": [2.0**k for k in range(0, 9)], "gammas": [2.0**k for k in range(-7, 2)],
          "folds": 3, "rows": 10_000, "seed": 0}
#: Sets whose tuned C and gamma are another set's (the same data, more rows).
SEARCHED_ON = {"ijcnn1+t": "ijcnn1"}
#: The peers; the tuned part's mark is dualsvm against the fastest of them.
PEERS = ("libsvm", "onedal", "thundersvm")
#: Every solver a table can have, in its column order; ``dualsvm`` is SVC(solver=--solver),
#: ``dualsvm_<name>`` SVC(solver=name) for each of --dualsvm-solvers (added at run time).
SOLVERS = ["dualsvm", "dualsvm_1", "libsvm", "onedal", "thundersvm", "thundersvm_1", "sklearn"]
NAMES = {"dualsvm": "dualsvm", "dualsvm_1": "dualsvm 1 thread", "libsvm": "LIBSVM",
         "onedal": "oneDAL", "thundersvm": "ThunderSVM", "thundersvm_1": "ThunderSVM 1 thread",
         "sklearn": "sklearn"}
#: The single-thread runs and the runs with all threads they are compared with.
ONE_THREAD = {"dualsvm_1": "dualsvm", "thundersvm_1": "thundersvm"}


# ------------------------------------------------------------------------- data

def load_set(name):
    """(X, y, test, accuracy_on): training rows, (X_test, y_test) or None, and whether
    accuracy is measured on the ``"test"`` file or, lacking one, the ``"training"`` rows."""
    if name == "ijcnn1+t":
        (X, y), (Xt, yt) = load("ijcnn1"), load("ijcnn1", "test")
        return sp.vstack([X, Xt], format="csr"), np.concatenate([y, yt]), None, "training"
    X, y = load(name)
    try:
        return X, y, load(name, "test"), "test"
    except ValueError:  # no test file
        return X, y, None, "training"


def subsample(X, y, rows, seed):
    """At most ``rows`` rows drawn at random (seeded), in their order in the file."""
    if X.shape[0] <= rows:
        return X, y
    pick = np.sort(np.random.default_rng(seed).choice(X.shape[0], rows, replace=False))
    return X[pick], y[pick]


# ------------------------------------------------------------------------- fits

def dualsvm_model(kernel, C, gamma, solver):
    return dualsvm.SVC(kernel=kernel, C=C, gamma=gamma, degree=DEGREE, tol=TOL,
                       cache_size=CACHE_MB, solver=solver)


def fit_dualsvm(X, y, kernel, C, gamma, solver, threads=None):
    """SVC.fit timed; ``threads``: Numba's and BLAS's threads for this fit (None: all)."""
    import numba
    from threadpoolctl import threadpool_limits

    pool = numba.get_num_threads()
    numba.set_num_threads(threads or pool)
    try:
        with threadpool_limits(limits=threads, user_api="blas"):
            run = timed_fit(dualsvm_model(kernel, C, gamma, solver), X, y)
    finally:
        numba.set_num_threads(pool)
    model = run["model"]
    last = model.history_[0][-1]
    return {**run, "solver_used": model.solver_used_,
            "iterations": int(last.get("iterations", model.n_iter_[0])),
            "kernel_evaluations": int(last["kernel_evaluations"]),
            "cache_hits": int(last["cache_hits"]), "status": model.status_[0],
            "gap": float(model.gap_[0]), "n_support": int(len(model.support_))}


def dualsvm_memory(X, y, kernel, C, gamma, solver):
    """Peak bytes traced (NumPy registers its buffers) during a second, untimed fit."""
    gc.collect()
    tracemalloc.start()
    model = dualsvm_model(kernel, C, gamma, solver).fit(X, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del model
    return peak


def libsvm_options(kernel, C, gamma):
    return f"-t {CODES[kernel]} -g {gamma!r} -d {DEGREE} -c {C!r} -e {TOL} -m {CACHE_MB}"


def thundersvm_options(kernel, C, gamma, threads):
    return ["-s", "0", "-t", str(CODES[kernel]), "-g", repr(gamma), "-d", str(DEGREE),
            "-c", repr(C), "-e", str(TOL), "-o", str(threads)]


def peer_params(kernel, C, gamma):
    """The parameters of scikit-learn's and oneDAL's SVC."""
    return {"kernel": kernel, "C": C, "gamma": gamma, "degree": DEGREE, "tol": TOL,
            "cache_size": CACHE_MB}


def fit_sklearn(X, y, kernel, C, gamma):
    run = timed_fit(SklearnSVC(**peer_params(kernel, C, gamma)), X, y)
    return {**run, "iterations": int(run["model"].n_iter_[0]),
            "n_support": int(len(run["model"].support_))}


def dual_objective(problem, y, support, coef):
    """D(alpha) by the one formula (a full float64 gradient), from y_i alpha_i on the
    support (``coef``; labels: the larger one +1, as every solver here orders them)."""
    alpha = np.zeros(len(y))
    alpha[support] = np.abs(coef)
    return problem.dual_from_gradient(alpha, problem.gradient(alpha))


def estimator_dual(problem, y, model):
    """The dual of a scikit-learn-style binary model (dualsvm's, scikit-learn's, oneDAL's)."""
    coef = model.dual_coef_
    coef = coef.toarray().ravel() if sp.issparse(coef) else np.asarray(coef)[0]
    return dual_objective(problem, y, model.support_, coef)


def thundersvm_dual_and_predict(model, kernel_obj, X):
    """The dual sum |c| - c'Kc / 2 from the model's support vectors, and its predictions
    of the rows X (None: none)."""
    sv, coef = model["sv"], model["coef"]
    quadratic = 0.0
    for start in range(0, sv.shape[0], 2000):
        quadratic += coef[start:start + 2000] @ (kernel_obj(sv[start:start + 2000], sv) @ coef)
    dual = float(np.abs(coef).sum() - 0.5 * quadratic)
    predicted = None
    if X is not None:
        # times() returns an (n, 1) column: flattened, or comparing the predictions
        # with the labels would broadcast to an (n, n) matrix
        decision = kernel_obj.times(X, sv, coef).ravel() - model["rho"]
        first, second = model["labels"]
        predicted = np.where(decision > 0, first, second)
    return dual, predicted


def libsvm_predict(model, X, y):
    from libsvm import svmutil

    with CapturedStdout():
        predicted, _, _ = svmutil.svm_predict(y, X, model, "-q")
    return np.array(predicted)


def warm_up(solvers, dualsvm_solvers):
    """Compile (or load from the Numba cache) before timing; return the seconds and the
    dualsvm solvers this version has (an unknown name is skipped with a message)."""
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    X = sp.csr_matrix(rng.random((300, 5)) * (rng.random((300, 5)) < 0.3))
    y = np.where(rng.random(300) < 0.5, 1.0, -1.0)
    known = []
    for solver in dict.fromkeys(["smo", "ws", *dualsvm_solvers]):
        try:
            for dense in (False, True):
                for kernel in ("rbf", "sigmoid", "poly"):
                    model = dualsvm_model(kernel, 1.0, 0.2, solver).fit(
                        X.toarray() if dense else X, y)
                    model.predict(X)
        except (ValueError, TypeError) as exc:
            log(f"dualsvm solver {solver!r} skipped: {type(exc).__name__}: {exc}")
            continue
        if solver in dualsvm_solvers:  # smo and ws are warmed for SVC(solver='auto')
            known.append(solver)
    for kernel in ("rbf", "sigmoid"):  # the peers' first-call costs (imports, ctypes)
        fit_libsvm(y, X, libsvm_options(kernel, 1.0, 0.2))
        if "onedal" in solvers:
            fit_onedal(X, y, **peer_params(kernel, 1.0, 0.2))
        if "sklearn" in solvers:
            fit_sklearn(X, y, kernel, 1.0, 0.2)
    return time.perf_counter() - start, known


# ------------------------------------------------------------------------- one case

def run_case(name, kernel, C, gamma, data, repeats, threads, solvers, options):
    """Every solver of ``solvers`` on one problem: best-of times, duals, accuracies."""
    X, y, test, accuracy_on = data
    case = {"dataset": name, "kernel": kernel, "C": C, "gamma": gamma,
            "n_samples": X.shape[0], "n_features": X.shape[1], "accuracy_on": accuracy_on}
    kernel_obj = make_kernel(kernel, gamma=gamma, degree=DEGREE)
    fits = {}
    for solver in solvers:
        if solver == "dualsvm":
            fits[solver] = lambda: fit_dualsvm(X, y, kernel, C, gamma, options.solver)
        elif solver == "dualsvm_1":
            fits[solver] = lambda: fit_dualsvm(X, y, kernel, C, gamma, options.solver, 1)
        elif solver.startswith("dualsvm_"):
            fits[solver] = lambda s=solver[8:]: fit_dualsvm(X, y, kernel, C, gamma, s)
        elif solver == "libsvm":
            fits[solver] = lambda: fit_libsvm(y, X, libsvm_options(kernel, C, gamma))
        elif solver == "onedal":
            fits[solver] = lambda: fit_onedal(X, y, **peer_params(kernel, C, gamma))
        elif solver == "sklearn":
            fits[solver] = lambda: fit_sklearn(X, y, kernel, C, gamma)
    train_file = None
    if "thundersvm" in solvers:  # its input file, written outside every clock
        handle, train_file = tempfile.mkstemp(suffix=".svm")
        os.close(handle)
        dump_svmlight_file(X, y, train_file, zero_based=False)  # LIBSVM's one-based indices
        for solver in ("thundersvm", "thundersvm_1"):
            if solver in solvers:
                fits[solver] = lambda t=threads[solver]: fit_thundersvm(
                    options.thundersvm, thundersvm_options(kernel, C, gamma, t), train_file,
                    X.shape[1])
    log(f"{name} (n = {X.shape[0]}) {kernel} C={C:g} gamma={gamma:g}: {repeats} x "
        f"({', '.join(fits)}) ...")
    try:
        runs = best_of(repeats, fits, log, once_above=options.once_above)
    finally:
        if train_file is not None:
            os.unlink(train_file)
    failed = [solver for solver in fits if "error" in runs[solver]]
    if failed:
        raise RuntimeError(f"{name} {kernel} C={C}: " + "; ".join(
            f"{solver}: {runs[solver]['error']}" for solver in failed))
    log("  best " + ", ".join(f"{s} {runs[s]['seconds']:.2f}" for s in fits)
        + " s; duals, accuracy, memory ...")

    y_pm = plus_minus(y)
    problem = KernelDualProblem(X, y_pm, np.full(len(y), float(C)), "hinge", "exact",
                                kernel_obj, CACHE_MB)
    X_acc, y_acc = test if test is not None else (X, y)
    for solver in fits:
        run = runs[solver]
        model = run.pop("model")
        run.pop("converged", None)
        run["threads"] = threads.get(solver, threads["dualsvm"])  # dualsvm_<solver>: all
        run["cores_busy"] = cores_busy(run)
        predicted = None
        if solver.startswith("dualsvm"):
            run["dual_certificate"] = float(model.dual_[0])
        if solver == "libsvm":
            support = np.array(model.get_sv_indices()) - 1
            run["dual"] = dual_objective(problem, y, support, np.array(model.get_sv_coef()).ravel())
            run["iterations"] = run["iterations"][-1] if run["iterations"] else None
            run["libsvm_obj"] = -run.pop("objectives")[-1]
            predicted = libsvm_predict(model, X_acc, y_acc)
        elif solver.startswith("thundersvm"):
            run["dual"], predicted = thundersvm_dual_and_predict(
                model, kernel_obj, None if solver in ONE_THREAD else X_acc)
        else:
            run["dual"] = estimator_dual(problem, y, model)
            if solver not in ONE_THREAD:
                predicted = model.predict(X_acc)
        if predicted is not None:
            run["accuracy"] = float(np.mean(predicted == y_acc))
        case[solver] = run
    case["dualsvm"]["peak_traced_mb"] = dualsvm_memory(X, y, kernel, C, gamma,
                                                       options.solver) / 2**20
    # dualsvm's own data: the rows, and the copy columns are computed from: dense rows
    # (when QMatrix made them), or else the rows by feature (CSC, int32 row numbers)
    data_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    if sp.issparse(problem.q.X):
        data_bytes += 12 * X.nnz + 8 * (X.shape[1] + 1)
    else:
        data_bytes += 8 * X.shape[0] * X.shape[1]
    case["data_mb"] = data_bytes / 2**20
    # the cache never holds more than all of Q in float32 (small subsamples)
    case["cache_mb"] = min(CACHE_MB, 4 * X.shape[0] ** 2 / 2**20)
    case["dualsvm"]["rest_in_n_vectors"] = (
        (case["dualsvm"]["peak_traced_mb"] - case["cache_mb"] - case["data_mb"]) * 2**20
        / (8 * X.shape[0]))
    compare(case)
    log(f"  ratio/LIBSVM {case['ratio_libsvm']:.3f}"
        + "".join(f", ratio/{NAMES[p]} {case[f'ratio_{p}']:.3f}" for p in ("onedal", "thundersvm")
                  if p in case)
        + f", dual rel. diff {case['dualsvm']['dual_rel_diff']:.1e}")
    return case


def compare(case):
    """Ratios (dualsvm's seconds over each other solver's: one thread against one thread)
    and every dual relative to LIBSVM's, (D - D_LIBSVM) / |D_LIBSVM|."""
    solvers = [s for s in case if isinstance(case[s], dict) and "seconds" in case[s]]
    reference = case["libsvm"]["dual"]
    for solver in solvers:
        case[solver]["dual_rel_diff"] = (case[solver]["dual"] - reference) / abs(reference)
        ours = "dualsvm_1" if solver in ONE_THREAD and "dualsvm_1" in case else "dualsvm"
        if not solver.startswith("dualsvm"):
            case[f"ratio_{solver}"] = case[ours]["seconds"] / case[solver]["seconds"]
    peers = [p for p in PEERS if p in case]
    fastest = min(peers, key=lambda p: case[p]["seconds"])
    case["fastest_peer"] = fastest
    for solver in solvers:
        if solver.startswith("dualsvm") and solver != "dualsvm_1":
            case[solver]["ratio_fastest_peer"] = (case[solver]["seconds"]
                                                  / case[fastest]["seconds"])


# ------------------------------------------------------------------------- the pages

def fmt(x, spec):
    return "n/a" if x is None else format(x, spec)


def columns(results):
    """The solvers of a table, in column order: SVC(solver=--solver), the other dualsvm
    solvers, then the peers (a merged table has every solver any of its runs measured)."""
    present = {s for r in results for s in r if isinstance(r[s], dict) and "seconds" in r[s]}
    named = sorted(s for s in present if s.startswith("dualsvm_") and s != "dualsvm_1")
    return [s for s in ["dualsvm", *named, *SOLVERS[1:]] if s in present]


def cell(r, solver, key, spec):
    """A solver's figure in a row; '-' when that row's run did not measure the solver."""
    return fmt(r[solver].get(key), spec) if solver in r else "-"


def threads_cell(r, solvers):
    return "; ".join(f"{r[s]['threads']} ({fmt(r[s]['cores_busy'], '.2f')})" if s in r
                     else "-" for s in solvers)


def name_of(solver):
    return NAMES.get(solver) or f"dualsvm {solver[8:]}"


def setting_text(record):
    pools = record["thread_pools"]
    return (
        f"C-SVC (hinge, exact bias), cache {CACHE_MB} MB for dualsvm, LIBSVM, oneDAL and "
        "scikit-learn (ThunderSVM: its default memory limit, 8 GB, working set 1024). "
        "oneDAL: `sklearnex.svm.SVC` (scikit-learn-intelex; its method 'thunder', at most "
        "10,000 outer iterations, its cap for max_iter=-1). "
        f"Stopping rule for all: LIBSVM's, maximal violating pair below tol (-e) = {TOL}. "
        f"dualsvm: `SVC(solver={record['dualsvm_solver']!r})` (the solver it used is in the "
        "table). Fit seconds: best of "
        f"{record['repeats']} fits per solver, repeats interleaved across solvers, their order "
        f"reversed every other round (a solver whose fit took over {record['once_above']:g} "
        "s ran once: see `all_seconds` in the JSON); data conversion outside the clock for "
        "every solver (dualsvm, oneDAL and scikit-learn get their CSR matrix; LIBSVM's `svm_problem` is built before its "
        "clock; ThunderSVM's own `all training time`, which excludes reading its input "
        "file). dualsvm's JIT compilation and the peers' first calls excluded (warm-up: "
        f"{record['warm_up_seconds']:.1f} s, from the Numba cache when warm). "
        f"Threads: {record['threads']} for every solver (dualsvm: Numba's pool "
        f"{pools['numba']}, BLAS {pools.get('blas', 1)}; LIBSVM's OpenMP "
        f"{pools.get('openmp', 1)}; oneDAL's default, {record['onedal_threads']} (TBB); ThunderSVM "
        "`-o`; scikit-learn's bundled LIBSVM is serial). CPU / wall: process CPU seconds "
        "over wall seconds of the fastest fit (ThunderSVM: of the whole process, reading "
        "included). Dual objectives evaluated by the same formula from each solver's dual "
        "coefficients (float64 kernel), given relative to LIBSVM's: (D - D_LIBSVM) / "
        "|D_LIBSVM| (positive: higher, better).")


def current(result):
    """Whether a result has this script's fields: results of runs before ``accuracy_on``
    (an older layout, without oneDAL) are left out of a merge, to be rerun."""
    if "accuracy_on" in result:
        return True
    log(f"merge: left out {result['dataset']} {result.get('kernel', '')} C = {result['C']:g} "
        "of an older run (its fields are not this page's)")
    return False


def default_page(record):
    results = record["results"]
    solvers = columns(results)
    peers = [s for s in solvers if not s.startswith("dualsvm")]  # time ratios
    judged = [s for s in solvers if s not in ONE_THREAD]  # accuracy
    one = (" One thread: `dualsvm 1 thread` is the same fit with Numba's and BLAS's "
           "threads set to 1 in the process, `ThunderSVM 1 thread` is `-o 1`; their "
           "ratio column is dualsvm 1 thread / ThunderSVM 1 thread." if ONE_THREAD.keys()
           & set(solvers) else "")
    lines = [
        "gamma = 1/n_features, degree 3 and coef0 0 for poly. " + setting_text(record) + one
        + " Test accuracy on the .t files (w8a has no test file: n/a).", "",
        "| data | n | kernel | C | solver used | " + " | ".join(f"{name_of(s)} s" for s in solvers)
        + " | " + " | ".join(f"ratio to {name_of(s)}" for s in peers)
        + " | threads (CPU / wall) " + "; ".join(name_of(s) for s in solvers)
        + " | dual dualsvm | dual rel. diff to LIBSVM: " + " / ".join(
            name_of(s) for s in solvers if s != "libsvm")
        + " | iter dualsvm / LIBSVM | nSV | test acc " + " / ".join(name_of(s) for s in judged)
        + " | peak MB dualsvm = cache + data + rest (n-vectors) |",
        "|" + "---|" * (12 + len(solvers) + len(peers)),
    ]
    for r in results:
        d = r["dualsvm"]
        acc = "n/a" if r["accuracy_on"] != "test" else " / ".join(
            cell(r, s, "accuracy", ".4f") for s in judged)
        lines.append(
            f"| {r['dataset']} | {r['n_samples']} | {r['kernel']} | {r['C']:g} | "
            f"{d['solver_used']} | "
            + " | ".join(cell(r, s, "seconds", ".2f") for s in solvers) + " | "
            + " | ".join(fmt(r.get(f"ratio_{s}"), ".3f") for s in peers)
            + f" | {threads_cell(r, solvers)} | {d['dual']:.6f} | "
            + " / ".join(cell(r, s, "dual_rel_diff", ".1e") for s in solvers if s != "libsvm")
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
    for peer in ("onedal", "thundersvm", "thundersvm_1"):
        if peer in peers:
            label = ("One thread, dualsvm/ThunderSVM" if peer == "thundersvm_1"
                     else f"dualsvm/{name_of(peer)}")
            ratio = f"ratio_{peer}"
            for which, cases in (("the RBF cases", rbf), ("all cases", results)):
                cases = [r for r in cases if ratio in r]
                if cases:
                    worst = max(cases, key=lambda r: r[ratio])
                    lines.append(f"{label} over {which}: median "
                                 f"{statistics.median(r[ratio] for r in cases):.3f}, largest "
                                 f"**{worst[ratio]:.3f}** ({worst['dataset']}, n = "
                                 f"{worst['n_samples']}, {worst['kernel']}, C = "
                                 f"{worst['C']:g}).  ")
    if "dualsvm_1" in solvers and rbf:
        lines.append("One thread against LIBSVM's threads, dualsvm/LIBSVM over the RBF "
                     "cases: median " + format(statistics.median(
                         r["dualsvm_1"]["seconds"] / r["libsvm"]["seconds"] for r in rbf),
                         ".3f") + ".  ")
    diffs = [r["dualsvm"]["dual_rel_diff"] for r in results]
    lines.append(f"Median over all cases dualsvm/LIBSVM: "
                 f"{statistics.median(r['ratio_libsvm'] for r in results):.3f}; dualsvm's dual "
                 f"relative to LIBSVM's: lowest {min(diffs):.1e}, largest {max(diffs):.1e}.")
    return page("Kernel SVM: dualsvm vs " + " vs ".join(name_of(s) for s in peers),
                record, lines)


def tuned_page(record, params):
    results = record["results"]
    solvers = columns(results)
    ours = [s for s in solvers if s.startswith("dualsvm")]
    peers = [s for s in solvers if s in PEERS]

    def accuracy(r, solver):
        if solver not in r:
            return "-"
        return f"{r[solver]['accuracy']:.4f}" + ("*" if r["accuracy_on"] != "test" else "")

    search = params["settings"]
    lines = [
        "RBF at the C and gamma a grid search chose (`--part search`, "
        "`results/kernel_tuned_params.json`: `dualsvm.SVCCV`, "
        f"{search['folds']} stratified folds (shuffled, seed {search['seed']}), C in 2^0..2^8, "
        "gamma in 2^-7..2^1, accuracy, on a random subsample (seed "
        f"{search['seed']}) of at most {search['rows']} training rows; ijcnn1+t takes "
        "ijcnn1's values). ijcnn1+t: ijcnn1's training and test files stacked (141,691 "
        "rows), so it has no held-out rows; w8a has no test file either: their accuracy "
        "(marked *) is on the training rows. " + setting_text(record), "",
        "## Fit seconds", "",
        "| data | n | C | gamma | CV acc. | solver used | "
        + " | ".join(f"{name_of(s)} s" for s in solvers)
        + " | fastest peer | **dualsvm / fastest peer** | "
        + " | ".join(f"{name_of(s)} / fastest peer" for s in ours if s != "dualsvm")
        + " | " + " | ".join(f"dualsvm / {name_of(p)}" for p in peers) + " | run |",
        "|" + "---|" * (9 + len(solvers) + len(ours) - 1 + len(peers)),
    ]
    for r in results:
        chosen = params_of(params, r["dataset"])
        lines.append(
            f"| {r['dataset']} | {r['n_samples']} | {r['C']:g} | {r['gamma']:g} | "
            f"{chosen['cv_accuracy']:.4f} | {r['dualsvm']['solver_used']} | "
            + " | ".join(cell(r, s, "seconds", ".2f") for s in solvers)
            + f" | {name_of(r['fastest_peer'])} | **{r['dualsvm']['ratio_fastest_peer']:.2f}** | "
            + " | ".join(cell(r, s, "ratio_fastest_peer", ".2f") for s in ours if s != "dualsvm")
            + " | " + " | ".join(fmt(r.get(f"ratio_{p}"), ".2f") for p in peers)
            + f" | {r.get('run', 0)} |")
    lines += [
        "", "## Agreement and cost", "",
        "Dual relative to LIBSVM's, (D - D_LIBSVM) / |D_LIBSVM|; accuracy on the test "
        "file (* on the training rows); iterations: dualsvm's SMO steps (working-set "
        "solver: inner steps), LIBSVM's #iter, oneDAL's n_iter_, ThunderSVM's total local "
        "iterations.", "",
        "| data | dual LIBSVM | dual rel. diff " + " / ".join(name_of(s) for s in solvers
                                                             if s != "libsvm")
        + " | accuracy " + " / ".join(name_of(s) for s in solvers)
        + " | nSV " + " / ".join(name_of(s) for s in solvers)
        + " | iterations " + " / ".join(name_of(s) for s in solvers)
        + " | threads (CPU / wall) " + "; ".join(name_of(s) for s in solvers)
        + " | peak MB dualsvm = cache + data + rest (n-vectors) |",
        "|" + "---|" * 8,
    ]
    for r in results:
        d = r["dualsvm"]
        lines.append(
            f"| {r['dataset']} | {r['libsvm']['dual']:.6f} | "
            + " / ".join(cell(r, s, "dual_rel_diff", ".1e") for s in solvers if s != "libsvm")
            + " | " + " / ".join(accuracy(r, s) for s in solvers)
            + " | " + " / ".join(cell(r, s, "n_support", "d") for s in solvers)
            + " | " + " / ".join(cell(r, s, "iterations", "d") for s in solvers)
            + f" | {threads_cell(r, solvers)}"
            + f" | {d['peak_traced_mb']:.1f} = {r['cache_mb']:.0f} + {r['data_mb']:.1f} + "
            f"{d['peak_traced_mb'] - r['cache_mb'] - r['data_mb']:.1f} "
            f"({d['rest_in_n_vectors']:.0f}) |")
    ratios = [r["dualsvm"]["ratio_fastest_peer"] for r in results]
    worst = max(results, key=lambda r: r["dualsvm"]["ratio_fastest_peer"])
    diffs = [abs(r[s]["dual_rel_diff"]) for r in results for s in ours if s in r]
    lines += ["", f"dualsvm (`SVC()`) / the fastest peer over the {len(results)} sets: median "
              f"**{statistics.median(ratios):.2f}**, largest **{max(ratios):.2f}** "
              f"({worst['dataset']}); the mark is <= 1.0 on every set, the goal 0.5. Largest "
              f"|dual rel. diff| of a dualsvm solver to LIBSVM's: {max(diffs):.1e}."]
    return page("Kernel SVM at tuned C and gamma: dualsvm vs " + " vs ".join(
        name_of(p) for p in peers), record, lines)


# ------------------------------------------------------------------------- the search

def params_of(params, name):
    """The chosen C and gamma of a set (ijcnn1+t: ijcnn1's)."""
    searched = SEARCHED_ON.get(name, name)
    for result in params["results"]:
        if result["dataset"] == searched:
            return result
    raise SystemExit(f"no tuned C and gamma for {name}: run --part search --datasets "
                     f"{searched} first")


def search(name, rows):
    """SVCCV over the grid on a seeded subsample of at most ``rows`` training rows (untimed)."""
    X, y = subsample(*load(name), rows, SEARCH["seed"])
    folds = StratifiedKFold(SEARCH["folds"], shuffle=True, random_state=SEARCH["seed"])
    model = dualsvm.SVCCV(Cs=SEARCH["Cs"], gammas=SEARCH["gammas"], cv=folds, refit=False,
                          n_jobs=2, tol=TOL, cache_size=CACHE_MB)
    log(f"{name}: SVCCV on {X.shape[0]} rows, {len(SEARCH['Cs'])} C x "
        f"{len(SEARCH['gammas'])} gamma x {SEARCH['folds']} folds ...")
    with Clock() as clock:
        model.fit(X, y)
    cv = model.cv_results_
    scores = {f"C={C:g}, gamma={gamma:g}": float(score) for C, gamma, score in zip(
        cv["param_C"], cv["param_gamma"], cv["mean_test_score"])}
    log(f"  C = {model.best_params_['C']:g}, gamma = {model.best_params_['gamma']:g}, "
        f"CV accuracy {model.best_score_:.4f} ({clock.seconds:.0f} s)")
    return {"dataset": name, "C": float(model.best_params_["C"]),
            "gamma": float(model.best_params_["gamma"]), "cv_accuracy": float(model.best_score_),
            "n_rows": X.shape[0], "seconds": clock.seconds, "mean_test_scores": scores}


# ------------------------------------------------------------------------- main

def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=["default", "search", "tuned"], default="default")
    parser.add_argument("--datasets", nargs="+", choices=list(TUNED_SETS),
                        help=f"default part: {' '.join(DEFAULT_SETS)}; search and tuned: "
                             f"{' '.join(TUNED_SETS)} (search: without ijcnn1+t)")
    parser.add_argument("--kernels", nargs="+", choices=["rbf", "sigmoid", "poly"],
                        default=["rbf", "sigmoid", "poly"], help="default part's kernels")
    parser.add_argument("--C", nargs="+", type=float, default=[1.0, 10.0],
                        help="C of the default part's RBF cases (default 1 10)")
    parser.add_argument("--other-C", nargs="+", type=float, default=[1.0],
                        help="C of the sigmoid and poly cases (default 1)")
    parser.add_argument("--sizes", nargs="*", type=int, default=[5000, 10000, 20000],
                        help="ijcnn1's first SIZES rows as extra RBF C=1 cases of the default "
                             "part (default 5000 10000 20000; none: --sizes)")
    parser.add_argument("--solvers", nargs="+", choices=SOLVERS,
                        default=["dualsvm", "libsvm", "onedal", "thundersvm"],
                        help="dualsvm and LIBSVM always run; add sklearn for scikit-learn")
    parser.add_argument("--solver", default="auto", help="dualsvm's SVC(solver=...)")
    parser.add_argument("--dualsvm-solvers", default=None,
                        help="comma-separated dualsvm solvers timed beside SVC(solver=--solver)"
                             " (tuned part: default smo,ws; default part: none; 'none': "
                             "none); a name this dualsvm does not know is skipped with a "
                             "message")
    parser.add_argument("--one-thread", action="store_true",
                        help="also dualsvm on one thread and ThunderSVM with -o 1")
    parser.add_argument("--cache-mb", type=float, default=CACHE_MB,
                        help=f"cache_size for dualsvm, LIBSVM, oneDAL and scikit-learn "
                             f"(default {CACHE_MB})")
    parser.add_argument("--threads", type=int, default=None,
                        help="threads for every solver (default: every core)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="fits per solver and case, the best kept (default 3, 1 with --quick)")
    parser.add_argument("--other-repeats", type=int, default=None,
                        help="fits per solver for the sigmoid and poly cases (default: --repeats)")
    parser.add_argument("--once-above", type=float, default=600.0,
                        help="a solver whose fit takes longer runs once (default 600 s)")
    parser.add_argument("--rows", type=int, default=None,
                        help="train on the first ROWS rows of each training set (default all)")
    parser.add_argument("--quick", action="store_true",
                        help="ijcnn1's first 5000 rows, RBF, C=1 (tuned: ijcnn1's first 5000 "
                             "rows at its C and gamma), 1 repeat; prints only unless "
                             "--output-dir is given")
    parser.add_argument("--merge", action="store_true",
                        help="keep the cases of the existing results that this run does not "
                             "measure again")
    parser.add_argument("--output-dir", type=Path,
                        help="where the results go (default benchmarks/results/)")
    parser.add_argument("--params", type=Path, default=RESULTS_DIR / "kernel_tuned_params.json",
                        help="the tuned C and gamma: written by --part search, read by --part "
                             "tuned (default benchmarks/results/kernel_tuned_params.json)")
    return parser.parse_args(argv)


def main(argv=None):
    global CACHE_MB
    args = parse(argv)
    CACHE_MB = args.cache_mb
    if args.threads is not None:
        threads_environment(args.threads)
    tuned = args.part == "tuned"
    if args.quick:
        args.datasets, args.kernels, args.C, args.sizes = ["ijcnn1"], ["rbf"], [1.0], []
        args.rows = args.rows or 5000
    names = args.datasets or list(TUNED_SETS if args.part != "default" else DEFAULT_SETS)
    out_dir = args.output_dir or (None if args.quick else RESULTS_DIR)
    if args.part == "search":
        record = new_record(argv)
        record["settings"] = {**SEARCH, "rows": args.rows or SEARCH["rows"], "tol": TOL,
                              "cache_mb": CACHE_MB, "solver": "smo", "n_jobs": 2,
                              "scoring": "accuracy"}
        record["results"] = [search(name, record["settings"]["rows"]) for name in names
                             if name not in SEARCHED_ON]
        if args.merge:
            record = merge(args.params, record, key=lambda r: r["dataset"])
        write_results(args.params.parent, args.params.stem, record)
        return

    dualsvm_solvers = ([] if args.dualsvm_solvers == "none"
                       else args.dualsvm_solvers.split(",") if args.dualsvm_solvers
                       else ["smo", "ws"] if tuned else [])
    solvers = list(dict.fromkeys(["dualsvm", "libsvm", *args.solvers]))
    if args.one_thread:
        solvers += [one for one, many in ONE_THREAD.items() if many in solvers]
    args.thundersvm = thundersvm_binary()
    if "thundersvm" in solvers and args.thundersvm is None:
        log("ThunderSVM not found (THUNDERSVM_TRAIN): left out")
        solvers = [s for s in solvers if not s.startswith("thundersvm")]
    repeats = args.repeats or (1 if args.quick else 3)
    other_repeats = args.other_repeats or repeats

    record = new_record(argv)
    warm_seconds, dualsvm_solvers = warm_up(solvers, dualsvm_solvers)
    solvers[1:1] = [f"dualsvm_{s}" for s in dualsvm_solvers]
    record.update({"part": args.part, "warm_up_seconds": warm_seconds, "cache_mb": CACHE_MB,
                   "tol": TOL, "repeats": repeats, "other_repeats": other_repeats,
                   "once_above": args.once_above, "rows": args.rows, "solvers": solvers,
                   "dualsvm_solver": args.solver, "thundersvm_binary": args.thundersvm,
                   "thread_pools": thread_pools(), "threads": args.threads or os.cpu_count(),
                   "onedal_threads": onedal_threads() if "onedal" in solvers else None})
    pools = record["thread_pools"]
    threads = {"dualsvm": pools["numba"], "libsvm": pools.get("openmp", 1),
               "onedal": record["onedal_threads"], "thundersvm": record["threads"],
               "sklearn": 1, "dualsvm_1": 1, "thundersvm_1": 1}

    def rows(data):
        X, y, *rest = data
        return (X[:args.rows], y[:args.rows], *rest)

    cases = []  # (name, kernel, C, gamma, data, repeats)
    if tuned:
        params = json.loads(args.params.read_text())
        for name in names:
            chosen = params_of(params, name)
            cases.append((name, "rbf", chosen["C"], chosen["gamma"], rows(load_set(name)),
                          repeats))
    else:
        data = {name: rows(load_set(name)) for name in names}
        cases = [(name, kernel, C, 1.0 / data[name][0].shape[1], data[name],
                  repeats if kernel == "rbf" else other_repeats)
                 for kernel in args.kernels for name in names
                 for C in (args.C if kernel == "rbf" else args.other_C)]
        if args.sizes:  # the small and RBF cases first: the headline medians
            X, y, test, on = load_set("ijcnn1")
            for size in args.sizes:
                cases.insert(0, (f"ijcnn1[:{size}]", "rbf", 1.0, 1.0 / X.shape[1],
                                 (X[:size], y[:size], test, on), repeats))
    name = "kernel_tuned" if tuned else "kernel"
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    # after every case, so a stopped run keeps what it measured
    partial = (out_dir or Path(tempfile.gettempdir())) / f"{name}.partial.json"
    record["results"] = []
    for case in cases:
        record["results"].append(run_case(*case, threads, solvers, args))
        partial.write_text(json.dumps(record, indent=1, default=str))
    partial.unlink()
    if args.merge and out_dir is not None:
        record = merge(out_dir / f"{name}.json", record,
                       key=lambda r: r["dataset"] if tuned else (r["dataset"], r["kernel"], r["C"]),
                       keep=current)
    text = tuned_page(record, params) if tuned else default_page(record)
    print(text)
    if out_dir is not None:
        write_results(out_dir, name, record, text)


if __name__ == "__main__":
    main()
