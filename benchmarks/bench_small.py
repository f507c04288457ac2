"""Small data, many fits: dualsvm's per-fit time against scikit-learn's, every estimator.

Each estimator is fitted beside its scikit-learn peer at the same parameters (the
defaults of both, tol stated per row) on the small sets shipped with scikit-learn or in
the data directory: Cleveland heart disease (297 complete rows, its first 30 too; label
> 0 is 1), iris, breast cancer, digits (classification, features scaled), diabetes
(regression). A fit's time is the median over repeated warm fits (about
``--budget`` seconds of them, at least 3, at most 200; a fit longer than the budget
once); each pair is timed best of
``--repeats``, interleaved. Then whole grid searches: ``GridSearchCV(SVC(), C in
1e-2..1e10, gamma in 1e-9..1e3, 13 values each, cv=5)`` on iris's first two features
(scaled), or every ``--grid-step``-th value of each (a sub-grid; the page says which).

    python benchmarks/bench_small.py

Writes ``results/small.md`` and ``results/small.json``.
"""

import argparse
import time
import warnings

import numpy as np
from sklearn import svm as sk_svm
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV
from sklearn.preprocessing import StandardScaler

import dualsvm

from common import DATA_DIR, RESULTS_DIR, Clock, best_of, log, new_record, page, write_results

CLEVELAND = "processed.cleveland.data"
GRID_C = np.logspace(-2, 10, 13)
GRID_GAMMA = np.logspace(-9, 3, 13)


def cleveland():
    """The Cleveland heart-disease table's complete rows, scaled; target > 0 is 1."""
    rows = [line.strip().split(",") for line in open(DATA_DIR / CLEVELAND) if line.strip()]
    table = np.array([row for row in rows if "?" not in row], dtype=np.float64)
    return StandardScaler().fit_transform(table[:, :-1]), (table[:, -1] > 0).astype(int)


def shipped_sets():
    """The small classification sets by name: (X scaled, y)."""
    X, y = cleveland()
    sets = {"cleveland 30": (X[:30], y[:30]), "cleveland": (X, y)}
    for name, loader in (("iris", load_iris), ("breast cancer", load_breast_cancer),
                         ("digits", load_digits)):
        X, y = loader(return_X_y=True)
        sets[name] = (StandardScaler().fit_transform(X), y)
    return sets


def diabetes():
    X, y = load_diabetes(return_X_y=True)
    return StandardScaler().fit_transform(X), (y - y.mean()) / y.std()


def per_fit(make, X, y=None, budget=0.2):
    """One warm fit, then the median seconds of about ``budget`` seconds of fits of
    ``make()`` (3 to 200 of them). Returns a best_of run: seconds, fits, and the
    last model's primal objective and n_iter_ (dualsvm's; NaN and its n_iter_ else)."""
    args = (X,) if y is None else (X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = time.perf_counter()
        model = make().fit(*args)
        once = time.perf_counter() - start
        # a fit longer than the budget is timed once more (its compilation is done)
        count = 1 if once > budget else int(min(200, max(3, budget / max(once, 1e-9))))
        seconds = []
        with Clock() as clock:
            for _ in range(count):
                start = time.perf_counter()
                model = make().fit(*args)
                seconds.append(time.perf_counter() - start)
    n_iter = np.max(getattr(model, "n_iter_", -1))
    return {"seconds": float(np.median(seconds)), "cpu_seconds": clock.cpu_seconds / count,
            "fits": count, "primal": float(np.sum(getattr(model, "primal_", np.nan))),
            "n_iter": int(n_iter)}


def estimator_cases():
    """(estimator, data name, X, y or None, dualsvm factory, scikit-learn factory)."""
    sets = shipped_sets()
    Xr, yr = diabetes()
    both = {}
    for name, (X, y) in sets.items():
        both[("LinearSVC", name)] = (X, y, dualsvm.LinearSVC, sk_svm.LinearSVC, {})
        both[("LinearSVC dual=True", name)] = (X, y, lambda: dualsvm.LinearSVC(dual=True),
                                               lambda: sk_svm.LinearSVC(dual=True), {})
        both[("SVC rbf", name)] = (X, y, dualsvm.SVC, sk_svm.SVC, {})
        both[("SVC linear", name)] = (X, y, lambda: dualsvm.SVC(kernel="linear"),
                                      lambda: sk_svm.SVC(kernel="linear"), {})
        if name in ("iris", "breast cancer", "cleveland"):
            both[("NuSVC", name)] = (X, y, dualsvm.NuSVC, sk_svm.NuSVC, {})
            both[("OneClassSVM", name)] = (X, None, dualsvm.OneClassSVM, sk_svm.OneClassSVM, {})
            # LIBLINEAR -s 21 is the one-class SVM with a linear kernel (LIBSVM's)
            both[("LinearOneClassSVM", name)] = (
                X, None, dualsvm.LinearOneClassSVM,
                lambda: sk_svm.OneClassSVM(kernel="linear"), {})
    both[("LinearSVR", "diabetes")] = (Xr, yr, dualsvm.LinearSVR, sk_svm.LinearSVR, {})
    both[("SVR", "diabetes")] = (Xr, yr, dualsvm.SVR, sk_svm.SVR, {})
    both[("NuSVR", "diabetes")] = (Xr, yr, dualsvm.NuSVR, sk_svm.NuSVR, {})
    return both


def run_estimators(args):
    results = []
    for (estimator, data), (X, y, ours, peer, _) in estimator_cases().items():
        if args.estimators and estimator not in args.estimators:
            continue
        runs = best_of(args.repeats, {
            "dualsvm": lambda: per_fit(ours, X, y, args.budget),
            "sklearn": lambda: per_fit(peer, X, y, args.budget)})
        if "error" in runs["dualsvm"] or "error" in runs["sklearn"]:
            log(f"{estimator} on {data}: {runs}")
            continue
        result = {"estimator": estimator, "data": data, "n_samples": X.shape[0],
                  "n_features": X.shape[1],
                  "dualsvm_seconds": runs["dualsvm"]["seconds"],
                  "sklearn_seconds": runs["sklearn"]["seconds"],
                  "ratio": runs["dualsvm"]["seconds"] / runs["sklearn"]["seconds"],
                  "dualsvm_fits": runs["dualsvm"]["fits"], "sklearn_fits": runs["sklearn"]["fits"],
                  "dualsvm_n_iter": runs["dualsvm"]["n_iter"],
                  "sklearn_n_iter": runs["sklearn"]["n_iter"]}
        results.append(result)
        log(f"{estimator} on {data}: dualsvm {1e3 * result['dualsvm_seconds']:.3f} ms, "
            f"scikit-learn {1e3 * result['sklearn_seconds']:.3f} ms, ratio {result['ratio']:.2f}")
    return results


def run_grid(args):
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X[:, :2])
    grid = {"C": GRID_C[::args.grid_step], "gamma": GRID_GAMMA[::args.grid_step]}

    def search(estimator):
        def run():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                with Clock() as clock:
                    found = GridSearchCV(estimator, grid, cv=5).fit(X, y)
            return {**clock.timing, "best_params": {k: float(v) for k, v in
                                                    found.best_params_.items()},
                    "best_score": float(found.best_score_)}
        return run

    runs = best_of(args.grid_repeats, {"dualsvm": search(dualsvm.SVC()),
                                       "sklearn": search(sk_svm.SVC())})
    return [{"search": f"GridSearchCV(SVC(), {len(grid['C'])} C x {len(grid['gamma'])} "
                       f"gamma, cv=5), iris's first two features",
             "grid_step": args.grid_step, "settings": len(grid["C"]) * len(grid["gamma"]),
             **{f"{side}_{key}": runs[side][key] for side in runs
                for key in ("seconds", "best_params", "best_score")},
             "ratio": runs["dualsvm"]["seconds"] / runs["sklearn"]["seconds"]}]


def table(record):
    lines = ["Per-fit seconds, warm, one process: the median of repeated fits (best of "
             f"{record['repeats']}, interleaved); both sides at their defaults (LinearSVC "
             "and LinearSVR: tol 1e-4, dual='auto'; the kernel estimators: tol 1e-3, "
             "gamma='scale'). Goal: ratio <= 1.0 (0.5 ideal).", "",
             "| estimator | data | n | d | dualsvm ms | scikit-learn ms | ratio | <= 1 | "
             "dualsvm n_iter | scikit-learn n_iter |",
             "|---|---|---:|---:|---:|---:|---:|---|---:|---:|"]
    for r in record["results"]:
        lines.append(f"| {r['estimator']} | {r['data']} | {r['n_samples']} | {r['n_features']} | "
                     f"{1e3 * r['dualsvm_seconds']:.3f} | {1e3 * r['sklearn_seconds']:.3f} | "
                     f"{r['ratio']:.2f} | {'yes' if r['ratio'] <= 1.0 else 'no'} | "
                     f"{r['dualsvm_n_iter']} | {r['sklearn_n_iter']} |")
    ratios = [r["ratio"] for r in record["results"]]
    if ratios:
        lines += ["", f"{sum(r <= 1.0 for r in ratios)} of {len(ratios)} rows <= 1.0; "
                  f"geometric mean ratio {np.exp(np.mean(np.log(ratios))):.3f}, largest "
                  f"{max(ratios):.2f}."]
    if record["grid"]:
        lines += ["", "## Grid searches", "",
                  "C in 1e-2..1e10 and gamma in 1e-9..1e3 (13 log-spaced values each; every "
                  "grid_step-th of them), 5-fold, on iris's first two features scaled; "
                  f"best of {record['grid_repeats']}.", "",
                  "| search | grid_step | settings | dualsvm s | scikit-learn s | ratio | "
                  "best (dualsvm) | best (scikit-learn) |",
                  "|---|---:|---:|---:|---:|---:|---|---|"]
        for g in record["grid"]:
            lines.append(f"| {g['search']} | {g['grid_step']} | {g['settings']} | "
                         f"{g['dualsvm_seconds']:.2f} | {g['sklearn_seconds']:.2f} | "
                         f"{g['ratio']:.2f} | {g['dualsvm_best_params']} "
                         f"({g['dualsvm_best_score']:.3f}) | {g['sklearn_best_params']} "
                         f"({g['sklearn_best_score']:.3f}) |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--estimators", nargs="+", default=None)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--budget", type=float, default=0.2,
                        help="seconds of repeated fits a timing takes the median of")
    parser.add_argument("--grid-step", type=int, default=1)
    parser.add_argument("--grid-repeats", type=int, default=1)
    parser.add_argument("--no-grid", dest="grid", action="store_false")
    parser.add_argument("--output", default=str(RESULTS_DIR / "small"))
    args = parser.parse_args(argv)
    record = {**new_record(argv), "repeats": args.repeats, "grid_repeats": args.grid_repeats}
    record["results"] = run_estimators(args)
    record["grid"] = run_grid(args) if args.grid else []
    out_dir, name = args.output.rsplit("/", 1)
    write_results(out_dir, name, record,
                  page("Small data, many fits: dualsvm against scikit-learn", record,
                       table(record)))


if __name__ == "__main__":
    main()
