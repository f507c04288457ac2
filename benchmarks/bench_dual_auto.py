"""Does ``LinearSVC(dual='auto')`` choose the faster side? Measured on a grid of shapes.

For every case (synthetic data of n rows and d features, dense or CSR, and the shipped
sets) ``LinearSVC`` with the squared hinge, C = 1 and tol 1e-4 (scikit-learn's
defaults) is fitted in the dual (DCD, ``dual=True``) and in the primal (LIBLINEAR's
Newton method, ``dual=False``), each the best of ``--repeats`` of a median over
repeated fits (:func:`bench_small.per_fit`), interleaved (a side slower than
ONCE_ABOVE seconds: one round). 'auto' is scored by the side
it chooses (``auto_dual``, a rule of the shape made before training: its fit is that
side's fit, so it is not timed again). Reported: each side's time and objective, the
choice, its ratio to the faster side, and scikit-learn's choice (primal when
n_samples >= n_features) for comparison.

    python benchmarks/bench_dual_auto.py

Writes ``results/dual_auto.md`` and ``results/dual_auto.json``.
"""

import argparse
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

import dualsvm
from dualsvm.training.config import LinearTraining
from dualsvm.training.linear import auto_dual

from bench_small import per_fit, shipped_sets
from common import RESULTS_DIR, best_of, load, log, new_record, page, write_results

ROWS = (30, 300, 3000, 30000, 100000)
FEATURES = (5, 50, 500, 5000, 100000)
DENSE_ENTRIES = 3_000_000  # the largest dense case (24 MB; larger ones: CSR)
ONCE_ABOVE = 2.0  # seconds: a side slower than this is timed in one round only
SPARSE_ROW_ENTRIES = 20  # nonzeros per row of the CSR cases (at most d)
PUBLIC = ("heart_scale", "a9a", "w8a", "ijcnn1")


def synthetic(n, d, layout, seed=0):
    """Rows from a noisy linear rule: Gaussian entries (CSR: SPARSE_ROW_ENTRIES a row)."""
    rng = np.random.default_rng(seed)
    truth = rng.standard_normal(d)
    if layout == "dense":
        X = rng.standard_normal((n, d))
    else:
        k = min(d, SPARSE_ROW_ENTRIES)
        columns = np.array([rng.choice(d, k, replace=False) for _ in range(n)]) if d < 4 * k \
            else rng.integers(0, d, (n, k))
        X = sp.csr_matrix((rng.standard_normal(n * k), columns.ravel(),
                           np.arange(0, n * k + 1, k)), shape=(n, d))
        X.sum_duplicates()
        X.sort_indices()
    score = X @ truth
    y = np.where(score + 0.5 * np.std(score) * rng.standard_normal(n) > 0, 1, -1)
    return X, y


def cases(args):
    for layout in args.layouts:
        for n in args.rows:
            for d in args.features:
                if layout == "dense" and n * d > DENSE_ENTRIES:
                    continue
                yield f"synthetic {n} x {d}", layout, lambda n=n, d=d, layout=layout: \
                    synthetic(n, d, layout)
    if args.public:
        for name in PUBLIC:
            yield name, "csr", lambda name=name: load(name)
        for name, (X, y) in shipped_sets().items():
            yield name, "dense", lambda X=X, y=y: (X, y)


def fit_side(X, y, dual):
    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return per_fit(lambda: dualsvm.LinearSVC(dual=dual, random_state=0), X, y)
    return run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", type=int, default=list(ROWS))
    parser.add_argument("--features", nargs="+", type=int, default=list(FEATURES))
    parser.add_argument("--layouts", nargs="+", default=["dense", "csr"],
                        choices=["dense", "csr"])
    parser.add_argument("--no-public", dest="public", action="store_false")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--output", default=str(RESULTS_DIR / "dual_auto"))
    args = parser.parse_args(argv)
    record = new_record(argv)
    results = []
    for name, layout, make in cases(args):
        X, y = make()
        shape = X.shape
        runs = best_of(args.repeats, {"dual": fit_side(X, y, True),
                                      "primal": fit_side(X, y, False)}, once_above=ONCE_ABOVE)
        chose_dual = auto_dual(LinearTraining(), shape)
        times = {side: runs[side]["seconds"] for side in runs}
        fastest = min(times.values())
        chosen = times["dual" if chose_dual else "primal"]
        result = {"case": name, "layout": layout, "n_samples": shape[0],
                  "n_features": shape[1], "auto": "dual" if chose_dual else "primal",
                  "sklearn_auto": "dual" if shape[0] < shape[1] else "primal",
                  "ratio_to_fastest": chosen / fastest,
                  **{f"{side}_seconds": times[side] for side in times},
                  **{f"{side}_fits": runs[side]["fits"] for side in runs},
                  **{f"{side}_primal": runs[side]["primal"] for side in runs},
                  **{f"{side}_n_iter": runs[side]["n_iter"] for side in runs}}
        results.append(result)
        log(f"{name} {layout}: dual {times['dual']:.4g} s, primal {times['primal']:.4g} s, "
            f"auto {result['auto']} ({result['ratio_to_fastest']:.2f} of the fastest)")
    record["results"] = results
    write_results(args.output.rsplit("/", 1)[0], args.output.rsplit("/", 1)[1], record,
                  page("dual='auto': the dual (DCD) or the primal (Newton)?", record,
                       table(results)))


def table(results):
    ratios = [r["ratio_to_fastest"] for r in results]
    right = sum(r <= 1.0 for r in ratios)
    lines = ["LinearSVC, squared hinge, C = 1, tol 1e-4, max_iter 1000, one thread. Per-fit "
             "seconds: the best of 3 of a median over repeated fits (warm; one fit, one "
             "round, for fits over 2 s). Dense cases up to 3e6 entries; CSR cases have 20 "
             "nonzeros a row (at most d). 'auto' is dualsvm's choice "
             "(`auto_dual`: primal when n_samples >= n_features + 1 and >= 100), 'sklearn' "
             "scikit-learn's "
             "rule for the same combination (primal when n_samples >= n_features); ratio: "
             "the chosen side's time over the faster side's.", "",
             f"auto chose the faster side in {right} of {len(results)} cases; largest ratio "
             f"{max(ratios):.2f}, geometric mean {np.exp(np.mean(np.log(ratios))):.3f}.", "",
             "| case | layout | n | d | dual s | primal s | dual / primal | auto | sklearn | "
             "ratio | dual epochs | Newton its | primal objective, dual side | primal side |",
             "|---|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|"]
    for r in results:
        lines.append(
            f"| {r['case']} | {r['layout']} | {r['n_samples']} | {r['n_features']} | "
            f"{r['dual_seconds']:.4g} | {r['primal_seconds']:.4g} | "
            f"{r['dual_seconds'] / r['primal_seconds']:.2f} | {r['auto']} | "
            f"{r['sklearn_auto']} | {r['ratio_to_fastest']:.2f} | {r['dual_n_iter']} | "
            f"{r['primal_n_iter']} | {r['dual_primal']:.8g} | {r['primal_primal']:.8g} |")
    return lines


if __name__ == "__main__":
    main()
