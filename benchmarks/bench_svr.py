"""dualsvm.LinearSVR against LIBLINEAR 2.50 (-s 12, -s 13) and scikit-learn's LinearSVR, in one run.

All three solve linear support vector regression with a regularised bias (LIBLINEAR
``-B 1``), C = 1 and the tube half-width ``-p`` eps_tube,

    min_w 1/2 w'w + C sum_i loss(y_i - w'x_i),
    loss(r) = max(0, |r| - p) (-s 13) or its square (-s 12),

by dual coordinate descent (Ho and Lin, 2012) with LIBLINEAR's stopping rule ``-e``
(the sum of the violations at most eps times that of the first epoch), capped at
LIBLINEAR's 300 epochs. Timed: each fit from the same CSR matrix, its own
conversion included (LIBLINEAR: ``ll.problem`` + ``ll.train``; dualsvm and
scikit-learn: ``fit``), best of ``--repeats`` interleaved runs; dualsvm's Numba
compilation is excluded (a warm-up fit). The primal objective of every returned w
is computed by one function (:meth:`dualsvm.problems.linear.SVRDualProblem.primal`).

Data: housing_scale (the one regression set of the data directory) and, as larger
regression problems, a9a and ijcnn1 with their labels -1/+1 taken as real targets
(the same computation as any regression set of that size and sparsity).

Run from the repository root::

    python benchmarks/bench_svr.py              # writes benchmarks/results/svr.{json,md}
    python benchmarks/bench_svr.py --quick      # housing only, one repeat, no files
"""

import argparse
import statistics

import numpy as np
from sklearn.svm import LinearSVR as SklearnLinearSVR

import dualsvm
from dualsvm.problems.linear import SVRDualProblem

from common import (RESULTS_DIR, best_of, fit_liblinear, load, new_record, page, thread_pools,
                    timed_fit, write_results)

DATASETS = {"housing": "housing_scale", "a9a": "a9a", "ijcnn1": "ijcnn1"}
LOSSES = {"squared_epsilon_insensitive": 12, "epsilon_insensitive": 13}
EPSILONS = (0.1, 0.01)
C, P, BIAS = 1.0, 0.1, 1.0
LIBLINEAR_MAX_ITER = 300  # LIBLINEAR 2.50's fixed cap of solve_l2r_l1l2_svr
SEED = 0


def fit_ll(X, y, loss, eps):
    run = fit_liblinear(y, X, f"-s {LOSSES[loss]} -c {C} -p {P} -e {eps} -B {BIAS}")
    coef, b = run["model"].get_decfun()
    return {**run, "w": np.append(coef, b / BIAS), "n_iter": run["iterations"]}


def fit_estimator(model, X, y):
    run = timed_fit(model, X, y)
    est = run["model"]
    return {**run, "w": np.append(est.coef_, est.intercept_[0] / BIAS),
            "n_iter": int(est.n_iter_)}


def fit_dualsvm(X, y, loss, eps):
    return fit_estimator(dualsvm.LinearSVR(
        C=C, epsilon=P, loss=loss, tol=eps, max_iter=LIBLINEAR_MAX_ITER,
        intercept_scaling=BIAS, random_state=SEED), X, y)


def fit_sklearn(X, y, loss, eps):
    return fit_estimator(SklearnLinearSVR(
        C=C, epsilon=P, loss=loss, tol=eps, dual=True, max_iter=LIBLINEAR_MAX_ITER,
        intercept_scaling=BIAS, random_state=SEED), X, y)


SOLVERS = {"dualsvm": fit_dualsvm, "liblinear": fit_ll, "sklearn": fit_sklearn}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    names = ["housing"] if args.quick else list(DATASETS)
    repeats = 1 if args.quick else args.repeats
    record = new_record()
    rows = []
    for name in names:
        X, y = load(DATASETS[name])
        fit_dualsvm(X, y, "epsilon_insensitive", 0.1)  # compile (or load the cache)
        for loss in LOSSES:
            problem = SVRDualProblem(X, y, np.full(len(y), C), loss, "augmented", BIAS, P)
            for eps in EPSILONS:
                runs = best_of(repeats, {s: (lambda f=f: f(X, y, loss, eps))
                                         for s, f in SOLVERS.items()})
                row = {"dataset": name, "n": X.shape[0], "d": X.shape[1], "loss": loss,
                       "eps": eps}
                for solver, run in runs.items():
                    row[solver] = {"seconds": run["seconds"], "cpu_seconds": run["cpu_seconds"],
                                   "all_seconds": run["all_seconds"], "n_iter": run["n_iter"],
                                   "primal": problem.primal(run["w"])}
                row["ratio"] = row["dualsvm"]["seconds"] / row["liblinear"]["seconds"]
                rows.append(row)
                print(f"{name} {loss} eps={eps}: dualsvm {row['dualsvm']['seconds']:.4f} s, "
                      f"LIBLINEAR {row['liblinear']['seconds']:.4f} s, ratio {row['ratio']:.2f}",
                      flush=True)
    record.update({"threads": thread_pools(),
                   "settings": {"C": C, "p": P, "bias": BIAS, "repeats": repeats,
                                "max_iter": LIBLINEAR_MAX_ITER, "random_state": SEED},
                   "rows": rows, "median_ratio": statistics.median(r["ratio"] for r in rows)})
    if not args.quick:
        write_results(RESULTS_DIR, "svr", record, markdown(record))


def markdown(results):
    s = results["settings"]
    lines = [
        f"Threads: {results['threads']}  ",
        f"Settings: C = {s['C']}, -p {s['p']}, -B {s['bias']} (regularised bias), best of "
        f"{s['repeats']} interleaved fits, at most {s['max_iter']} epochs for all three "
        "(LIBLINEAR's fixed cap), LIBLINEAR's stopping rule at eps; each timed from the same "
        "CSR matrix, conversion included. a9a and ijcnn1: labels -1/+1 as real targets. "
        "Run under an exclusive CPU lock (no other benchmark or test at the same time).",
        "",
        "| dataset | n x d | loss | eps | dualsvm s | LIBLINEAR s | sklearn s | dualsvm / LL "
        "| epochs dualsvm / LL / sklearn | primal dualsvm | primal LL | primal sklearn |",
        "|---|---|---|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for r in results["rows"]:
        d, ll, sk = r["dualsvm"], r["liblinear"], r["sklearn"]
        cap = LIBLINEAR_MAX_ITER

        def epochs(run):
            return f"{run['n_iter']}{'*' if run['n_iter'] >= cap else ''}"

        lines.append(
            f"| {r['dataset']} | {r['n']} x {r['d']} | {r['loss']} | {r['eps']} | "
            f"{d['seconds']:.4f} | {ll['seconds']:.4f} | {sk['seconds']:.4f} | "
            f"{r['ratio']:.2f} | {epochs(d)} / {epochs(ll)} / {epochs(sk)} | "
            f"{d['primal']:.10g} | {ll['primal']:.10g} | {sk['primal']:.10g} |")
    lines += ["", f"Median dualsvm / LIBLINEAR time ratio: **{results['median_ratio']:.2f}**. "
              "`*`: stopped at the 300-epoch cap."]
    return page("dualsvm.LinearSVR vs LIBLINEAR -s 12 / -s 13 vs scikit-learn's LinearSVR",
                results, lines)


if __name__ == "__main__":
    main()
