"""dualsvm.LinearSVC's Crammer-Singer (-s 4), L1-regularised (-s 5) and primal L2 (-s 2)
solvers against LIBLINEAR 2.50 and scikit-learn's LinearSVC, in one run.

* ``multi_class='crammer_singer'`` vs LIBLINEAR ``-s 4``: the sequential dual method
  (Keerthi et al., KDD 2008), LIBLINEAR's stopping rule at eps (the largest
  max_m G_m - min_m G_m of a pass, with its shrinking schedule), at most 100000
  passes (LIBLINEAR's cap for -s 4);
* ``penalty='l1', dual=False`` vs LIBLINEAR ``-s 5``: coordinate descent with a
  one-dimensional Newton direction and line search (Yuan et al., JMLR 2010),
  LIBLINEAR's rule (summed violations at most eps * max(min(#pos, #neg), 1) / l
  times the first pass's), at most 1000 passes (LIBLINEAR's fixed cap for -s 5);
* ``dual=False`` (the L2 penalty) vs LIBLINEAR ``-s 2``, which scikit-learn's
  ``dual=False`` also runs: LIBLINEAR's Newton method with preconditioned conjugate
  gradients and line search, its rule (||grad P(w)|| at most eps * max(min(#pos,
  #neg), 1) / l times ||grad P(0)||), at most 1000 Newton iterations. Deterministic:
  the same iterations for all three, rounding apart.

C = 1, ``-B 1`` (regularised bias). The iteration counts depend on the random order
(between 39 and 84 passes for -s 5 on a9a at eps 0.01 over dualsvm's seeds 0-7), and
LIBLINEAR's generator continues from one train() to the next in a process, so every
solver's repeats run different orders: dualsvm and scikit-learn with seeds 0, 1, 2.
Timed: each fit from the same CSR matrix, its own
conversion included (LIBLINEAR: ``ll.problem`` + ``ll.train``; dualsvm and scikit-learn:
``fit``), best of ``--repeats`` interleaved runs; dualsvm's Numba compilation is excluded
(a warm-up fit). The primal objective of every returned model is computed by one
function (:class:`dualsvm.problems.crammer_singer.CrammerSingerProblem` / ``L1RegularizedProblem``).

Data: digits (scikit-learn's, 1797 x 64, scaled to [0, 1]); digits9, digits with its
8 one-pixel translations (16173 x 64, as "virtual examples" are made); a9a-4, a9a
(32561 x 123, sparse) with 4 classes: its label and whether feature 41 is on; for
-s 5 and -s 2: a9a and w8a.

Run from the repository root::

    python benchmarks/bench_liblinear_solvers.py           # writes results/liblinear_solvers.*
    python benchmarks/bench_liblinear_solvers.py --quick   # digits only, one repeat, no files
"""

import argparse
import re
import statistics

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_digits
from sklearn.svm import LinearSVC as SklearnLinearSVC

import dualsvm
from dualsvm.problems.crammer_singer import CrammerSingerProblem
from dualsvm.problems.linear import DualProblem, L1RegularizedProblem

from common import (RESULTS_DIR, best_of, fit_liblinear, load, new_record, page, thread_pools,
                    timed_fit, write_results)

C, BIAS, SEED = 1.0, 1.0, 0
MAX_ITER = {4: 100_000, 5: 1000, 2: 1000}  # LIBLINEAR 2.50's caps
# its default -e, and ten times tighter
EPSILONS = {4: (0.1, 0.01), 5: (0.01, 0.001), 2: (0.01, 0.001)}
#: Issue 14's solvers, the overall median's rows (-s 2 has its own).
ISSUE_14 = (4, 5)


def digits(shifted=False):
    X, y = load_digits(return_X_y=True)
    images = X.reshape(-1, 8, 8) / 16.0
    if shifted:
        copies = [images]
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if dx or dy:
                    copies.append(np.roll(np.roll(images, dx, axis=2), dy, axis=1))
        images = np.concatenate(copies)
        y = np.tile(y, 9)
    return sp.csr_matrix(images.reshape(len(images), 64)), y.astype(np.float64)


def a9a_four_classes():
    X, y = load("a9a")
    return X, 2.0 * (y > 0) + np.asarray(X[:, 40].todense()).ravel()


DATASETS = {4: {"digits": lambda: digits(), "digits9": lambda: digits(True),
                "a9a-4": a9a_four_classes},
            5: {"a9a": lambda: load("a9a"), "w8a": lambda: load("w8a")},
            2: {"a9a": lambda: load("a9a"), "w8a": lambda: load("w8a")}}
PARAMS = {4: {"multi_class": "crammer_singer"}, 5: {"penalty": "l1", "dual": False},
          2: {"penalty": "l2", "dual": False}}


def fit_ll(X, y, solver, eps):
    run = fit_liblinear(y, X, f"-s {solver} -c {C} -e {eps} -B {BIAS}")
    model = run["model"]
    k = model.get_nr_class()
    nr_w = k if solver == 4 or k > 2 else 1
    n_weights = model.get_nr_feature() + 1
    W = np.array([[model.w[j * nr_w + m] for m in range(nr_w)] for j in range(n_weights)])
    labels = np.array(model.get_labels())
    if nr_w == 1:  # w decides for label[0]: as np.unique(y)[1] positive
        W = W if labels[0] == np.unique(y)[1] else -W
    else:
        W = W[:, np.argsort(labels)]
    # -s 4 and -s 5 print "#iter = N", the Newton method of -s 2 a line "iter N ..." each
    pattern = r"^iter +(\d+)" if solver == 2 else r"#iter = (\d+)"
    iterations = max((int(n) for n in re.findall(pattern, run["output"], re.MULTILINE)),
                     default=0)
    return {**run, "W": W, "n_iter": iterations}


def _weights(est):
    """(n_weights, n_problems): coef_ transposed, the bias weights (intercept / B) last."""
    return np.vstack([est.coef_.T, est.intercept_[None, :] / BIAS])


def fit_estimator(cls, X, y, solver, eps, seed):
    run = timed_fit(cls(C=C, tol=eps, max_iter=MAX_ITER[solver], intercept_scaling=BIAS,
                        random_state=seed, **PARAMS[solver]), X, y)
    return {**run, "W": _weights(run["model"]), "n_iter": int(run["model"].n_iter_)}


def fit_dualsvm(X, y, solver, eps, seed=SEED):
    return fit_estimator(dualsvm.LinearSVC, X, y, solver, eps, seed)


def fit_sklearn(X, y, solver, eps, seed=SEED):
    return fit_estimator(SklearnLinearSVC, X, y, solver, eps, seed)


SOLVERS = {"dualsvm": fit_dualsvm, "liblinear": fit_ll, "sklearn": fit_sklearn}


def seeded(fit, X, y, solver, eps):
    """A fit whose random order differs at every call, as LIBLINEAR's does (its generator
    is static: each train() in a process continues the sequence), seeds SEED, SEED + 1, ...
    for dualsvm and scikit-learn: every solver's best of N is over N random orders."""
    calls = []

    def run():
        calls.append(None)
        if fit is fit_ll:
            return fit(X, y, solver, eps)
        return fit(X, y, solver, eps, seed=SEED + len(calls) - 1)
    return run


def objective(X, y, solver, W):
    """The primal objective of a model's weights (the bias row last)."""
    classes = np.unique(y)
    if solver == 4:
        if W.shape[1] == 1:  # a two-class row w_1 - w_0 (none of the sets here)
            raise ValueError("two classes")
        problem = CrammerSingerProblem(X, np.searchsorted(classes, y), np.full(len(y), C),
                                       len(classes), "augmented", BIAS)
        return problem.primal(W)
    total = 0.0
    targets = [classes[1]] if len(classes) == 2 else classes
    problem_class = L1RegularizedProblem if solver == 5 else DualProblem
    for k, label in enumerate(targets):
        signs = np.where(y == label, 1.0, -1.0)
        problem = problem_class(X, signs, np.full(len(y), C), "squared_hinge", "augmented",
                                BIAS)
        total += problem.primal(W[:, k])
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats = 1 if args.quick else args.repeats
    record = new_record()
    rows = []
    for solver, sets in DATASETS.items():
        for name, make in sets.items():
            if args.quick and name != "digits":
                continue
            X, y = make()
            X = sp.csr_matrix(X, dtype=np.float64)
            X.sort_indices()
            # 32-bit indices: scikit-learn's LIBLINEAR wrapper refuses int64 ones
            X.indices, X.indptr = X.indices.astype(np.int32), X.indptr.astype(np.int32)
            fit_dualsvm(X, y, solver, EPSILONS[solver][0])  # compile (or load the cache)
            for eps in EPSILONS[solver]:
                runs = best_of(repeats, {s: seeded(f, X, y, solver, eps)
                                         for s, f in SOLVERS.items()})
                row = {"solver": solver, "dataset": name, "n": X.shape[0], "d": X.shape[1],
                       "classes": len(np.unique(y)), "eps": eps}
                for who, run in runs.items():
                    row[who] = {"seconds": run["seconds"], "cpu_seconds": run["cpu_seconds"],
                                "all_seconds": run["all_seconds"], "n_iter": run["n_iter"],
                                "primal": objective(X, y, solver, run["W"])}
                row["ratio"] = row["dualsvm"]["seconds"] / row["liblinear"]["seconds"]
                # seconds per iteration: the implementations apart from the random order
                row["ratio_per_iteration"] = row["ratio"] * (
                    row["liblinear"]["n_iter"] / max(row["dualsvm"]["n_iter"], 1))
                rows.append(row)
                print(f"-s {solver} {name} eps={eps}: dualsvm {row['dualsvm']['seconds']:.4f} s "
                      f"({row['dualsvm']['n_iter']} it), LIBLINEAR "
                      f"{row['liblinear']['seconds']:.4f} s ({row['liblinear']['n_iter']} it), "
                      f"ratio {row['ratio']:.2f}", flush=True)
    results = {**record, "threads": thread_pools(),
        "settings": {"C": C, "bias": BIAS, "repeats": repeats, "max_iter": MAX_ITER,
                     "random_state": SEED},
        "rows": rows, "median_ratio": statistics.median(r["ratio"] for r in rows
                                                        if r["solver"] in ISSUE_14),
        "median_ratio_by_solver": {s: statistics.median(r["ratio"] for r in rows
                                                        if r["solver"] == s)
                                   for s in sorted({r["solver"] for r in rows})},
        "median_ratio_per_iteration": statistics.median(r["ratio_per_iteration"]
                                                        for r in rows
                                                        if r["solver"] in ISSUE_14)}
    if not args.quick:
        write_results(RESULTS_DIR, "liblinear_solvers", results, markdown(results))


def markdown(results):
    s = results["settings"]
    lines = [
        f"Threads: {results['threads']}  ",
        f"Settings: C = {s['C']}, -B {s['bias']} (regularised bias), best of {s['repeats']} "
        "interleaved fits, LIBLINEAR's stopping rule at eps and its iteration caps (-s 4: "
        "100000, -s 5 and -s 2: 1000) for all three; each timed from the same CSR matrix, "
        "conversion included. Primal objective: -s 4 Crammer and Singer's; -s 5 and -s 2 "
        "summed over the one-vs-rest problems. Run under an exclusive CPU lock (no other "
        "benchmark or test at the same time).",
        "",
        "| -s | dataset | n x d (classes) | eps | dualsvm s | LIBLINEAR s | sklearn s "
        "| dualsvm / LL | per iteration | iterations dualsvm / LL / sklearn | primal dualsvm "
        "| primal LL | primal sklearn |",
        "|---|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for r in results["rows"]:
        d, ll, sk = r["dualsvm"], r["liblinear"], r["sklearn"]
        cap = s["max_iter"][r["solver"]] if isinstance(next(iter(s["max_iter"])), int) \
            else s["max_iter"][str(r["solver"])]

        def its(run):
            return f"{run['n_iter']}{'*' if run['n_iter'] >= cap else ''}"

        lines.append(
            f"| {r['solver']} | {r['dataset']} | {r['n']} x {r['d']} ({r['classes']}) | "
            f"{r['eps']} | {d['seconds']:.4f} | {ll['seconds']:.4f} | {sk['seconds']:.4f} | "
            f"{r['ratio']:.2f} | {r['ratio_per_iteration']:.2f} | {its(d)} / {its(ll)} / "
            f"{its(sk)} | {d['primal']:.10g} | "
            f"{ll['primal']:.10g} | {sk['primal']:.10g} |")
    by = results["median_ratio_by_solver"]
    lines += ["", f"Median dualsvm / LIBLINEAR time ratio over -s 4 and -s 5: "
              f"**{results['median_ratio']:.2f}** (-s 4: {by[4]:.2f}, -s 5: {by[5]:.2f}); per "
              f"iteration (time ratio x LIBLINEAR's iterations / dualsvm's): "
              f"**{results['median_ratio_per_iteration']:.2f}**. -s 2 (dual=False): "
              f"**{by[2]:.2f}**. `*`: stopped at the iteration cap."]
    return page("dualsvm.LinearSVC -s 4 (Crammer-Singer), -s 5 (L1-regularised) and -s 2 "
                "(dual=False) vs LIBLINEAR 2.50 vs scikit-learn's LinearSVC", results, lines)


if __name__ == "__main__":
    main()
