"""Choosing C: warm-started paths and cross-validation against cold fits, scikit-learn's
GridSearchCV and LIBLINEAR's ``-C``, in one run.

Three parts (the marks of issue 15):

1. **Paths.** For a9a, w8a, ijcnn1 and both losses (no bias, eps 0.1, at most 1000
   epochs per fit, seed 0): ``dualsvm.c_path`` over 81 C log-spaced from 2^-10 to
   2^10, against one cold fit at the largest C (best of ``--repeats``, interleaved)
   and against the 81 cold fits (one run: they take the longest). Path and cold
   fits alike also stop once their certificate's relative gap is at most
   ``--gap-tol`` (default 1e-3, the primal mark's tolerance; checked every two
   passes' worth of epochs; ``--gap-tol none``: LIBLINEAR's eps rule alone, which
   no fit at large C on w8a meets within 1000 epochs, LIBLINEAR's own included). Every path model's primal
   is compared with the cold fit's at the same C (relative difference; negative:
   the path's model is better).
2. **Cross-validation.** ``LinearSVCCV`` (5 folds, 81 C, squared hinge, augmented
   bias B = 1) against ``GridSearchCV(sklearn LinearSVC)`` on the same folds
   (StratifiedKFold, shuffled, seed 0), at two stopping rules (:func:`cv_settings`:
   eps 0.1, and every fit converged), and LIBLINEAR's ``-C``
   (``train(y, x, '-C -s 2 -v 5 -B 1 -c 2^-10')``: its solver 2, primal L2-loss,
   its own random folds, its own C grid 2^-10, 2^-9, ... up to 1024 or until
   the model stops changing). One run each (the grid search takes minutes).
3. **Kernel path.** RBF (gamma = 1/300, LIBSVM's 1/num_features) on w7a, eps 1e-3:
   the path over 20 C log-spaced from 2^-5 to 2^``--kernel-max-log2c`` against one
   cold fit at the largest C with the same solver (best of ``--kernel-repeats``,
   default 2), for ``solver='smo'`` (the issue's mark) and ``'ws'`` (what
   ``solver='auto'`` picks on w7a), and against the 20 cold fits (one run): every
   path model's primal compared with the cold fit's at its C.

Threads: one for every linear solver (serial Numba or C); SMO computes its kernel
columns in Numba's pool (2 threads here) in the path and the cold fit alike.

Run from the repository root, under the exclusive CPU lock::

    flock -x /tmp/dualsvm-cpu.lock python benchmarks/bench_path.py
    python benchmarks/bench_path.py --quick     # smoke test: a9a, 21 C, no files
"""

import argparse
import math
import sys
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import LinearSVC as SklearnLinearSVC

import dualsvm

from common import (RESULTS_DIR, CapturedStdout, Clock, best_of, load, new_record, page,
                    plus_minus, thread_pools, write_results)

DATASETS = ("a9a", "w8a", "ijcnn1")
LOSSES = ("hinge", "squared_hinge")
EPS = 0.1
#: Part 1: the certificate's stop, for path and cold fits alike (``--gap-tol``).
GAP_TOL = 1e-3
MAX_ITER = 1000
SEED = 0
FOLDS = 5
#: joblib workers of LinearSVCCV and GridSearchCV (the machine's 2 cores; LIBLINEAR's -C
#: is serial); LinearSVCCV is also timed with one.
JOBS = 2
KERNEL_DATA = "w7a"
KERNEL_GAMMA = 1.0 / 300
KERNEL_TOL = 1e-3
#: The kernel path's solvers: SMO (the issue's mark) and the working-set solver, which
#: solver='auto' picks on w7a (from kernel_training.AUTO_MIN_ROWS rows).
KERNEL_SOLVERS = ("smo", "ws")
#: The marks of the issue.
PATH_VS_ONE_COLD = 5.0
PATH_VS_ALL_COLD = 0.1
PRIMAL_RTOL = 1e-3
KERNEL_VS_ONE_COLD = 3.0


def grid(n, low=-10, high=10):
    return np.logspace(low, high, n, base=2.0)


def linear(loss, C=1.0, gap_tol=None):
    return dualsvm.LinearSVC(C=C, loss=loss, dual=True, fit_intercept=False, tol=EPS,
                             gap_tol=gap_tol, max_iter=MAX_ITER, random_state=SEED)


def quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return fn()


# -------------------------------------------------------------------- 1. paths

def run_paths(name, X, y, Cs, repeats, gap_tol, log):
    cases = []
    for loss in LOSSES:
        log(f"{name} {loss}: path, one cold fit at C = {Cs[-1]:g} (best of {repeats})")
        models = {}

        def path():
            with Clock() as clock:
                models["path"] = quiet(lambda: dualsvm.c_path(linear(loss, gap_tol=gap_tol),
                                                              X, y, Cs))
            return clock.timing

        def cold_last():
            with Clock() as clock:
                models["last"] = quiet(lambda: linear(loss, Cs[-1], gap_tol).fit(X, y))
            return clock.timing

        timed = best_of(repeats, {"path": path, "cold_last": cold_last}, log)
        log(f"{name} {loss}: {len(Cs)} cold fits (one run)")
        cold = []
        with Clock() as all_cold:
            for C in Cs:
                cold.append(quiet(lambda: linear(loss, C, gap_tol).fit(X, y)))
        warm = models["path"]
        rel = np.array([(w.primal_[0] - c.primal_[0]) / abs(c.primal_[0])
                        for w, c in zip(warm, cold)])
        converged = np.array([c.status_[0] in ("converged", "gap") for c in cold])
        case = {
            "dataset": name, "loss": loss, "n_C": len(Cs), "gap_tol": gap_tol,
            "path_seconds": timed["path"]["seconds"], "path_all_seconds": timed["path"]["all_seconds"],
            "cold_last_seconds": timed["cold_last"]["seconds"],
            "cold_last_all_seconds": timed["cold_last"]["all_seconds"],
            "cold_all_seconds": all_cold.seconds,
            "path_epochs": int(sum(m.n_iter_ for m in warm)),
            "cold_epochs": int(sum(m.n_iter_ for m in cold)),
            "cold_last_epochs": int(models["last"].n_iter_),
            "cold_max_iter": int((~converged).sum()),
            "path_max_iter": int(sum(m.status_[0] == "max_iter" for m in warm)),
            "path_stopped_by_gap": int(sum(m.status_[0] == "gap" for m in warm)),
            "cold_stopped_by_gap": int(sum(c.status_[0] == "gap" for c in cold)),
            "primal_rel_diff": rel.tolist(),
            "max_abs_rel_diff": float(np.abs(rel).max()),
            "max_abs_rel_diff_converged": float(np.abs(rel[converged]).max()) if converged.any() else None,
            "max_worse_rel_diff": float(rel.max()),
            "max_path_gap": float(max(m.gap_[0] for m in warm)),
            "Cs": Cs.tolist(),
        }
        case["ratio_one_cold"] = case["path_seconds"] / case["cold_last_seconds"]
        case["ratio_all_cold"] = case["path_seconds"] / case["cold_all_seconds"]
        log(f"  path {case['path_seconds']:.2f} s ({case['path_epochs']} epochs), cold at max C "
            f"{case['cold_last_seconds']:.2f} s, {len(Cs)} cold {case['cold_all_seconds']:.1f} s "
            f"({case['cold_epochs']} epochs); max |rel| {case['max_abs_rel_diff']:.1e}, "
            f"worst {case['max_worse_rel_diff']:.1e}")
        cases.append(case)
    return cases


# ----------------------------------------------------------- 2. cross-validation

def liblinear_find_C(X, y):
    """LIBLINEAR's -C (solver 2, -v 5, -B 1, from C = 2^-10): (best C, accuracy %, seconds, text)."""
    from liblinear import liblinearutil as ll

    with CapturedStdout() as out:
        with Clock() as clock:
            prob = ll.problem(y, X)
            best_C, _, rate = ll.train(prob, ll.parameter(f"-C -s 2 -v {FOLDS} -B 1 -c {2.0**-10}"))
    return best_C, 100.0 * rate, clock.seconds, out.text


def cv_settings(gap_tol):
    """Part 2's two stopping rules: (ours, scikit-learn's) LinearSVC parameters.

    'eps 0.1': LIBLINEAR's default for its dual solvers, for ours with part 1's gap
    stop, for scikit-learn's dual solver (LIBLINEAR -s 1) alone. 'converged': every
    fit solved to its optimum (ours: eps 1e-6 and gap 1e-9; scikit-learn: its primal
    Newton method, LIBLINEAR -s 2, at tol 1e-6), so that both searches score the same
    models: only then is the argmax of a flat CV curve the same C for both.
    """
    return {"eps 0.1": ({"tol": EPS, "gap_tol": gap_tol, "max_iter": MAX_ITER},
                        {"tol": EPS, "dual": True, "max_iter": MAX_ITER}),
            "converged": ({"tol": 1e-6, "gap_tol": 1e-9, "max_iter": 100_000},
                          {"tol": 1e-6, "dual": False, "max_iter": 10_000})}


def run_cv(name, X, y, Cs, gap_tol, log):
    folds = StratifiedKFold(FOLDS, shuffle=True, random_state=SEED)
    splits = list(folds.split(X, y))
    log(f"{name}: LIBLINEAR -C")
    ll_C, ll_rate, ll_seconds, ll_text = liblinear_find_C(X, y)
    cases = []
    for setting, (ours_params, sk_params) in cv_settings(gap_tol).items():
        log(f"{name} ({setting}): LinearSVCCV, {FOLDS} folds x {len(Cs)} C, n_jobs = 1 and {JOBS}")
        clocks = {}
        for jobs in (1, JOBS):
            ours = dualsvm.LinearSVCCV(Cs=Cs, cv=splits, random_state=SEED, n_jobs=jobs,
                                       **ours_params)
            with Clock() as clocks[jobs]:
                quiet(lambda: ours.fit(X, y))
        log(f"{name} ({setting}): GridSearchCV(sklearn LinearSVC), n_jobs = {JOBS}")
        search = GridSearchCV(SklearnLinearSVC(random_state=SEED, **sk_params),
                              {"C": list(Cs)}, cv=splits, n_jobs=JOBS)
        with Clock() as sk_clock:
            quiet(lambda: search.fit(X, y))
        ours_scores = ours.cv_results_["mean_test_score"]
        sk_scores = search.cv_results_["mean_test_score"]
        i_ours, i_sk = ours.best_index_, search.best_index_
        case = {
            "dataset": name, "setting": setting, "ours_params": ours_params,
            "sklearn_params": sk_params, "n_C": len(Cs), "folds": FOLDS,
            "ours_C": ours.C_, "ours_accuracy": 100 * ours.best_score_,
            "ours_seconds": clocks[JOBS].seconds, "ours_refit_seconds": ours.refit_time_,
            "ours_seconds_one_job": clocks[1].seconds, "n_jobs": JOBS,
            "sklearn_C": float(search.best_params_["C"]), "sklearn_accuracy": 100 * search.best_score_,
            "sklearn_seconds": sk_clock.seconds,
            "liblinear_C": ll_C, "liblinear_accuracy": ll_rate, "liblinear_seconds": ll_seconds,
            "liblinear_output": ll_text,
            # the other's choice scored by ours, on the same folds
            "ours_accuracy_at_sklearn_C": 100 * float(ours_scores[i_sk]),
            "sklearn_accuracy_at_ours_C": 100 * float(sk_scores[i_ours]),
            "grid_steps_sklearn": int(abs(i_ours - i_sk)),
            # candidates whose fold scores differ (a test row scored differently)
            "candidates_scored_differently": int(sum(
                not np.array_equal(ours.cv_results_[f"split{k}_test_score"][j],
                                   search.cv_results_[f"split{k}_test_score"][j])
                for j in range(len(Cs)) for k in range(FOLDS))),
            "log2_ratio_liblinear": math.log2(ours.C_ / ll_C),
            "ours_mean_test_score": ours_scores.tolist(), "sklearn_mean_test_score": sk_scores.tolist(),
            "ours_mean_fit_time": ours.cv_results_["mean_fit_time"].tolist(),
        }
        case["same_C_as_sklearn"] = bool(i_ours == i_sk or (
            abs(i_ours - i_sk) <= 1 and np.isclose(ours_scores[i_ours], ours_scores[i_sk])))
        case["ratio_sklearn"] = case["ours_seconds"] / case["sklearn_seconds"]
        case["ratio_liblinear"] = case["ours_seconds"] / case["liblinear_seconds"]
        log(f"  ours C = {ours.C_:g} ({case['ours_accuracy']:.3f}%) {case['ours_seconds']:.1f} s; "
            f"sklearn C = {case['sklearn_C']:g} ({case['sklearn_accuracy']:.3f}%) "
            f"{sk_clock.seconds:.1f} s; LIBLINEAR C = {ll_C:g} ({ll_rate:.3f}%) {ll_seconds:.1f} s")
        cases.append(case)
    return cases


# ---------------------------------------------------------------- 3. kernel path

def run_kernel(repeats, max_log2c, log, solver="smo"):
    X, y = load(KERNEL_DATA)
    Cs = grid(20, -5, max_log2c)
    svc = dualsvm.SVC(gamma=KERNEL_GAMMA, tol=KERNEL_TOL, solver=solver)
    models = {}

    def cold_fit(C):
        return quiet(lambda: dualsvm.SVC(C=C, gamma=KERNEL_GAMMA, tol=KERNEL_TOL,
                                         solver=solver).fit(X, y))

    def path():
        with Clock() as clock:
            models["path"] = quiet(lambda: dualsvm.c_path(svc, X, y, Cs))
        return clock.timing

    def cold_last():
        with Clock() as clock:
            models["last"] = cold_fit(Cs[-1])
        return clock.timing

    log(f"w7a RBF ({solver}): path of {len(Cs)} C up to 2^{max_log2c}, cold fit at the largest (best of {repeats})")
    timed = best_of(repeats, {"path": path, "cold_last": cold_last}, log)
    log(f"w7a RBF ({solver}): {len(Cs)} cold fits (one run)")
    with Clock() as all_cold:
        cold = [cold_fit(C) for C in Cs]
    path_models = models["path"]
    rel = np.array([(w.primal_[0] - c.primal_[0]) / abs(c.primal_[0])
                    for w, c in zip(path_models, cold)])
    case = {
        "dataset": "w7a", "kernel": "rbf", "solver": solver, "repeats": repeats, "gamma": KERNEL_GAMMA, "tol": KERNEL_TOL,
        "Cs": Cs.tolist(),
        "path_seconds": timed["path"]["seconds"], "path_all_seconds": timed["path"]["all_seconds"],
        "cold_last_seconds": timed["cold_last"]["seconds"],
        "cold_last_all_seconds": timed["cold_last"]["all_seconds"],
        "cold_all_seconds": all_cold.seconds,
        "path_iterations": [int(m.n_iter_[0]) for m in path_models],
        "cold_last_iterations": int(models["last"].n_iter_[0]),
        "cold_iterations": [int(m.n_iter_[0]) for m in cold],
        "last_primal_rel_diff": float((path_models[-1].primal_[0] - models["last"].primal_[0])
                                      / abs(models["last"].primal_[0])),
        "primal_rel_diff": rel.tolist(),
        "max_worse_rel_diff": float(rel.max()),
        "worst_C": float(Cs[int(np.argmax(rel))]),
        "path_gaps": [float(m.gap_[0]) for m in path_models],
        "max_path_gap": float(max(m.gap_[0] for m in path_models)),
        "max_cold_gap": float(max(m.gap_[0] for m in cold)),
    }
    # P_path - P_cold <= P_path - P* <= the path model's gap: the certificate's bound
    case["within_own_gap"] = all(w.primal_[0] - c.primal_[0] <= w.primal_[0] - w.dual_[0]
                                 for w, c in zip(path_models, cold))
    case["ratio_one_cold"] = case["path_seconds"] / case["cold_last_seconds"]
    case["ratio_all_cold"] = case["path_seconds"] / case["cold_all_seconds"]
    log(f"  path {case['path_seconds']:.1f} s, cold {case['cold_last_seconds']:.1f} s, "
        f"ratio {case['ratio_one_cold']:.2f}; {len(Cs)} cold {case['cold_all_seconds']:.1f} s; "
        f"worst primal rel. diff {case['max_worse_rel_diff']:+.1e} at C = {case['worst_C']:.3g}")
    return case


# -------------------------------------------------------------------- report

def mark(ok):
    return "yes" if ok else "**no**"


def _stopping_rule(cases):
    gap_tol = cases[0].get("gap_tol") if cases else None
    rule = f"LIBLINEAR's projected-gradient rule at eps {EPS}"
    return rule if gap_tol is None else f"{rule}, or a relative duality gap <= {gap_tol:g}"


def markdown(results):
    lines = [f"Threads: {results['threads']}"]
    if results["paths"]:
        lines += ["",
                  "## 1. Paths: 81 C from 2^-10 to 2^10 (no bias, eps 0.1, at most 1000 epochs)", "",
                  "Path and one cold fit at the largest C: best of "
                  f"{results['repeats']}; the 81 cold fits: one run. Stopping rule, path and cold "
                  f"fits alike: {_stopping_rule(results['paths'])}. Primal difference: "
                  "(P_path - P_cold) / P_cold at the same C; negative means the path's model is "
                  "better (the cold fit stopped at 1000 epochs).", "",
                  "| data | loss | path s | epochs | cold at 2^10 s | path / cold | 81 cold s | epochs "
                  "| path / 81 cold | fits stopped by the gap, path / cold | cold fits at max_iter "
                  "| max abs rel. diff (cold stopped by a rule) "
                  "| worst rel. diff | path gap max | marks (<= 5x, <= 1/10, 1e-3) |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for c in results["paths"]:
            primal_ok = c["max_worse_rel_diff"] <= PRIMAL_RTOL
            conv = c["max_abs_rel_diff_converged"]
            lines.append(
                f"| {c['dataset']} | {c['loss']} | {c['path_seconds']:.2f} | {c['path_epochs']} | "
                f"{c['cold_last_seconds']:.2f} | {c['ratio_one_cold']:.2f} | {c['cold_all_seconds']:.1f} | "
                f"{c['cold_epochs']} | {c['ratio_all_cold']:.3f} | "
                f"{c.get('path_stopped_by_gap', 0)} / {c.get('cold_stopped_by_gap', 0)} | "
                f"{c['cold_max_iter']} | "
                f"{c['max_abs_rel_diff']:.1e} ({'-' if conv is None else f'{conv:.1e}'}) | "
                f"{c['max_worse_rel_diff']:.1e} | {c['max_path_gap']:.1e} | "
                f"{mark(c['ratio_one_cold'] <= PATH_VS_ONE_COLD)}, "
                f"{mark(c['ratio_all_cold'] <= PATH_VS_ALL_COLD)}, {mark(primal_ok)} |")
        lines += ["", "The primal mark reads: no path model is worse than the cold fit at its C "
                  "by more than 1e-3 relative."]
    if results["cv"]:
        lines += ["",
                  f"## 2. Cross-validation: {FOLDS} folds x 81 C (squared hinge, bias B = 1)",
                  "", "LinearSVCCV and GridSearchCV share the folds (StratifiedKFold, shuffled, seed 0); "
                  "LIBLINEAR's -C (solver 2) uses its own folds and its own grid (powers of 2 from "
                  "2^-10). One run each; LinearSVCCV and GridSearchCV with n_jobs = 2 (LinearSVCCV "
                  "with 1 in brackets), LIBLINEAR serial. Accuracies: mean over the folds "
                  "(LIBLINEAR: pooled). Stopping rules: 'eps 0.1': LinearSVCCV at eps 0.1 with "
                  "part 1's gap stop, GridSearchCV(LinearSVC(dual=True, tol=0.1)) (LIBLINEAR -s 1); "
                  "'converged': LinearSVCCV at eps 1e-6 and gap 1e-9, "
                  "GridSearchCV(LinearSVC(dual=False, tol=1e-6)) (LIBLINEAR -s 2, its Newton "
                  "method); LIBLINEAR -C at its own default. 'Fold scores apart': of the 81 x 5 "
                  "(C, fold) scores, how many differ between the two searches.", "",
                  "| data | rule | LinearSVCCV C | acc. % | s (1 job) | GridSearchCV C | acc. % "
                  "| its acc. at our C | s | fold scores apart | LIBLINEAR -C C | acc. % | s "
                  "| ours / GridSearchCV | ours / LIBLINEAR | same C as GridSearchCV "
                  "| log2(C_ours / C_LIBLINEAR) |",
                  "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
        for c in results["cv"]:
            lines.append(
                f"| {c['dataset']} | {c.get('setting', 'eps 0.1')} | {c['ours_C']:.4g} | "
                f"{c['ours_accuracy']:.3f} | {c['ours_seconds']:.1f} ({c['ours_seconds_one_job']:.1f}) | "
                f"{c['sklearn_C']:.4g} | {c['sklearn_accuracy']:.3f} | "
                f"{c['sklearn_accuracy_at_ours_C']:.3f} | {c['sklearn_seconds']:.1f} | "
                f"{c.get('candidates_scored_differently', '')} | "
                f"{c['liblinear_C']:.4g} | {c['liblinear_accuracy']:.3f} | {c['liblinear_seconds']:.1f} | "
                f"{c['ratio_sklearn']:.3f} | {c['ratio_liblinear']:.2f} | "
                f"{mark(c['same_C_as_sklearn'])} ({c['grid_steps_sklearn']} steps) | "
                f"{c['log2_ratio_liblinear']:+.2f} |")
    kernels = results.get("kernel") or []
    if isinstance(kernels, dict):
        kernels = [kernels]
    if kernels:
        k = kernels[0]
        lines += ["", f"## 3. Kernel path: RBF (gamma 1/300), w7a, eps 1e-3, 20 C from "
                  f"2^-5 to 2^{math.log2(k['Cs'][-1]):.0f}", "", f"Best of {k['repeats']}; the "
                  "path and the cold fit with the same solver ('smo': the issue's mark; 'ws': "
                  "the one solver='auto' picks here). Steps: SMO steps, or the working-set "
                  "solver's outer iterations. The 20 cold fits: one run; primal difference "
                  "(P_path - P_cold) / P_cold at the same C, worst over the path (negative: the "
                  "path's model is better everywhere). Both stop at LIBSVM's rule (eps 1e-3), not "
                  "at a gap: the second mark reads that every path model's primal exceeds the cold "
                  "fit's by at most its own certificate's gap (P_path - P_cold <= P_path - D_path), "
                  "the most two fits at that rule can be told apart.", "",
                  "| solver | path s | steps | cold fit at the largest C s | its steps | path / cold "
                  "| 20 cold s | path / 20 cold | last model's primal vs cold "
                  "| worst primal vs cold (at C) | path gap max | cold gap max "
                  "| marks (<= 3x, within its gap) |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
        for k in kernels:
            lines.append(
                f"| {k['solver']} | {k['path_seconds']:.1f} | {sum(k['path_iterations'])} "
                f"| {k['cold_last_seconds']:.1f} | {k['cold_last_iterations']} | "
                f"{k['ratio_one_cold']:.2f} | {k['cold_all_seconds']:.1f} | "
                f"{k['ratio_all_cold']:.2f} | {k['last_primal_rel_diff']:+.1e} | "
                f"{k['max_worse_rel_diff']:+.1e} ({k['worst_C']:.3g}) | {k['max_path_gap']:.1e} | "
                f"{k['max_cold_gap']:.1e} | {mark(k['ratio_one_cold'] <= KERNEL_VS_ONE_COLD)}, "
                f"{mark(k['within_own_gap'])} |")
    return page("Choosing C: warm-started paths and cross-validation", results, lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a9a, 21 C, one repeat, no files")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    parser.add_argument("--parts", nargs="+", default=["paths", "cv", "kernel"],
                        choices=["paths", "cv", "kernel"])
    parser.add_argument("--gap-tol", type=lambda v: None if v == "none" else float(v),
                        default=GAP_TOL, help="part 1: also stop path and cold fits at this "
                        "relative gap ('none': the eps rule alone; default %(default)s)")
    parser.add_argument("--kernel-max-log2c", type=int, default=7)
    parser.add_argument("--kernel-repeats", type=int, default=2,
                        help="best of this many for the kernel path (default 2: it is the slowest)")
    parser.add_argument("--name", default="path", help="results file name (without extension)")
    args = parser.parse_args(argv)
    n_C = 81
    if args.quick:
        args.datasets, args.repeats, n_C = ["a9a"], 1, 21

    def log(text):
        print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)

    # warm-up: compile everything the timed runs use
    X, y = load("a9a")
    y = plus_minus(y)
    quiet(lambda: dualsvm.c_path(linear("hinge"), X[:2000], y[:2000], grid(3)))
    quiet(lambda: dualsvm.c_path(linear("squared_hinge"), X[:2000], y[:2000], grid(3)))
    for solver in KERNEL_SOLVERS:
        quiet(lambda: dualsvm.c_path(dualsvm.SVC(solver=solver), X[:6000], y[:6000], grid(3)))
    results = {**new_record(argv), "repeats": args.repeats, "threads": thread_pools(), "paths": [], "cv": []}
    Cs = grid(n_C)
    for name in args.datasets:
        X, y = load(name)
        y = plus_minus(y)
        if "paths" in args.parts:
            results["paths"] += run_paths(name, X, y, Cs, args.repeats, args.gap_tol, log)
        if "cv" in args.parts:
            results["cv"] += run_cv(name, X, y, Cs, args.gap_tol, log)
    if "kernel" in args.parts and not args.quick:
        results["kernel"] = [run_kernel(args.kernel_repeats, args.kernel_max_log2c, log, solver)
                             for solver in KERNEL_SOLVERS]
    text = markdown(results)
    print(text)
    if not args.quick:
        write_results(RESULTS_DIR, args.name, results, text)


if __name__ == "__main__":
    main()
