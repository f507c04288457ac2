"""``dualsvm train -C``: LIBLINEAR's search for C by cross-validation, for every linear
model of ours (classification and regression), over warm-started paths of C; and the
-v folds it shares with cross-validation."""

import math
import sys
import time

import numpy as np

from .options import model_path
from .output_files import check_writable, write_error
from .parser import PROG, CommandError, refuse
from .report import Reporter


def linear_outputs(args):
    """(Reporter, model path or None) of a linear training run from a file (-s 1 to 5,
    12, 13), after refusing what -C, --c-grid, -v and --trace cannot do together:
    -C and -v write no model, -C's curve goes to --trace."""
    if args.c_grid is not None and not args.find_C:
        raise refuse("--c-grid", "needs -C (it sets the values of C that -C searches)")
    if args.find_C and args.given_C and args.c_grid is not None:
        raise refuse("-c", "and --c-grid both set where -C starts; give one of them")
    if args.find_C and args.model is not None:
        raise refuse("MODEL", f"({args.model}) is not written by -C: the search for C "
                              "writes no model; train again with -c BEST_C")
    if args.folds is not None and args.trace and not args.find_C:
        raise refuse("--trace", "does not apply to -v (cross validation writes no model)")
    report = Reporter(args.quiet, args.json, None if args.find_C else args.trace)
    path = None if args.folds is not None or args.find_C else model_path(args)
    if args.find_C and args.trace:
        check_writable(args.trace, "trace file")
    report.check_outputs(path)
    return report, path


def cross_validation_folds(folds, n, seed, report):
    """(train, test) index arrays of the -v folds: a seeded permutation cut in
    ``folds`` nearly equal parts (leave-one-out, with a warning, beyond n)."""
    if folds > n:
        report.warn(f"{folds} folds > {n} samples; using {n} folds (leave-one-out)")
        folds = n
    order = np.random.default_rng(seed).permutation(n)
    return [(np.setdiff1d(order, test), test) for test in np.array_split(order, folds)]


#: LIBLINEAR's -C: the largest C it tries (classification; its regression, -s 11, goes
#: to 2^20), and its folds without -v.
MAX_C = 1024.0
MAX_C_REGRESSION = 2.0 ** 20
SEARCH_FOLDS = 5


def start_C(X, n_samples, bias, tube=None, y=None):
    """LIBLINEAR's first C of -C, rounded down to a power of 2 (with -B, the bias feature
    counts in ||x_i||^2): for classification 1 / (2 l max_i ||x_i||^2), used for both
    losses; for regression (``tube`` epsilon and the targets ``y``) its -s 11 formula
    0.01 sum_i max(|y_i| - epsilon, 0)^2 / (8 (sum_i |y_i|)^2 max_i ||x_i||^2)."""
    squares = np.asarray(X.multiply(X).sum(axis=1)).ravel() if hasattr(X, "multiply") \
        else np.einsum("ij,ij->i", X, X)
    largest = float(squares.max(initial=0.0)) + bias * bias
    if largest <= 0.0:
        return 1.0
    if tube is None:
        smallest = 1.0 / (2.0 * n_samples * largest)
    else:
        magnitude = np.abs(y)
        loss = float(np.sum(np.maximum(magnitude - tube, 0.0) ** 2))
        if loss <= 0.0:
            return MAX_C_REGRESSION  # every target inside the tube: w = 0 at any C
        smallest = 0.01 * loss / (8.0 * float(magnitude.sum()) ** 2 * largest)
    return 2.0 ** math.floor(math.log2(smallest))


def search_grid(args, first, largest):
    """The C values -C tries: --c-grid's, else LIBLINEAR's (from -c or ``first``,
    doubling up to ``largest``)."""
    if args.c_grid is not None:
        low, high, steps = args.c_grid
        if steps != int(steps) or steps < 1:
            raise refuse("--c-grid", f"STEPS must be a whole number >= 1, got {steps:g}")
        if high < low or (high == low and steps > 1) or (high > low and steps < 2):
            raise refuse("--c-grid", f"needs START < END and STEPS >= 2 (or START = END and "
                         f"STEPS = 1), got {low:g} {high:g} {steps:g}")
        return np.logspace(math.log2(low), math.log2(high), int(steps), base=2.0)
    grid = [min(args.C if args.given_C else first, largest)]
    while grid[-1] * 2.0 <= largest:
        grid.append(grid[-1] * 2.0)
    return np.array(grid)


def find_C(args, estimator, X, y, report, common, Cs):
    """LIBLINEAR's -C for any linear model of ours: the cross-validated measure of every
    C of ``Cs`` over a warm-started path per fold
    (:func:`dualsvm.estimators.model_selection.fold_path_scores`), LIBLINEAR's output lines, the best C.

    Classifiers: the pooled accuracy (the first best: the smallest C, as LIBLINEAR
    keeps it); regressions: the pooled mean squared error (the first lowest), printed
    with the tube epsilon as LIBLINEAR's -s 11 prints its p."""
    import json
    import warnings

    # the estimators import scikit-learn (a slow import): only -v and -C pay for it
    from ..estimators.model_selection import fold_path_scores

    regression = hasattr(estimator, "epsilon")
    n = X.shape[0]
    folds = cross_validation_folds(args.folds or SEARCH_FOLDS, n, args.seed, report)
    print(f"Doing parameter search with {len(folds)}-fold cross validation.",
          file=report.stream)
    totals = np.zeros(len(Cs))  # right predictions, or squared errors, over all folds
    fit_seconds = np.zeros(len(Cs))
    epochs = np.zeros(len(Cs), dtype=np.int64)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for fold, (train, test) in enumerate(folds, start=1):
            try:
                scores, seconds, _, iterations = fold_path_scores(
                    estimator, X, y, None, train, test, Cs,
                    _squared_errors if regression else right_predictions)
            except ValueError as e:
                raise CommandError(f"cross validation fold {fold}: {e}") from None
            except KeyboardInterrupt:
                print(f"{PROG}: the search for C was interrupted", file=sys.stderr)
                return 130
            totals += scores
            fit_seconds += seconds
            epochs += iterations
    for message in sorted({str(w.message) for w in caught}):
        report.warn(message)
    seconds = time.perf_counter() - start
    if regression:
        measure, values = "mean_squared_error", totals / n
        best = int(np.argmin(values))
        for C, value in zip(Cs, values):
            report(f"log2c={math.log2(C):7.2f}\tp={estimator.epsilon:7.2f}\t"
                   f"Mean squared error={value:g}")
        line = "Best C = %g Best p = %g  CV MSE = %g" % (Cs[best], estimator.epsilon,
                                                          values[best])
        summary = {"best_p": float(estimator.epsilon),
                   "cross_validation_mean_squared_error": float(values[best])}
    else:
        measure, values = "accuracy", 100.0 * totals / n
        best = int(np.argmax(values))
        for C, value in zip(Cs, values):
            report(f"log2c={math.log2(C):7.2f}\trate={value:g}")
        line = "Best C = %g  CV accuracy = %g%%" % (Cs[best], values[best])
        summary = {"cross_validation_accuracy": float(values[best])}
    if args.trace:
        try:
            with open(args.trace, "w", encoding="utf-8") as f:
                for k, C in enumerate(Cs):
                    f.write(json.dumps({"search": "C", "C": float(C), measure: float(values[k]),
                                        "fit_seconds": float(fit_seconds[k]),
                                        "epochs": int(epochs[k])}) + "\n")
        except OSError as e:
            raise write_error(args.trace, "trace file", e) from None
    if report.json_summary:
        report.summary({**common, "cross_validation_folds": len(folds), "best_C": float(Cs[best]),
                        **summary, "C": Cs.tolist(), measure: values.tolist(),
                        "fit_seconds": fit_seconds.tolist(), "seconds": seconds})
    else:
        print(line)
    return 0


def right_predictions(model, X, y):
    """How many rows ``model`` predicts right (-C pools them over the folds)."""
    return float(np.count_nonzero(model.predict(X) == y))


def _squared_errors(model, X, y):
    """The sum of squared errors of ``model``'s predictions (-C pools them)."""
    return float(np.sum((model.predict(X) - y) ** 2))
