"""``dualsvm train -s 12|13 [-p EPSILON] FILE``: linear support vector regression
(LIBLINEAR's train with those solvers, and its -v output for regression)."""

import sys
import time

import numpy as np

from ..data.svmlight import read_svmlight
from ..persistence.linear import save_linear_svr
from ..training.linear import fit_linear_svr
from .options import ADVICE, DIRECTORY_FLAGS, augmented_bias, refuse_given
from .parser import LIBLINEAR_TYPES, CommandError, refuse
from .search import MAX_C_REGRESSION, find_C, linear_outputs, search_grid, start_C

#: LIBLINEAR's default -p.
DEFAULT_TUBE = 0.1


def run(args):
    """Train LinearSVR's problem from a file; called by ``train`` for -s 12 and -s 13."""
    if args.weights:
        raise refuse("-w", "weighs classes; regression (-s 12, -s 13) has none")
    refuse_given(args, (("exact_bias", "--exact-bias"),),
                 "is for classification; LIBLINEAR's regression has the -B bias only")
    refuse_given(args, DIRECTORY_FLAGS, "applies to a dataset directory (dualsvm convert), "
                                        "not to a file")
    report, path = linear_outputs(args)
    X, y = read_svmlight(args.file)
    fit_intercept, intercept_scaling = augmented_bias(args)
    params = dict(
        epsilon=DEFAULT_TUBE if args.epsilon is None else args.epsilon, tol=args.tol, C=args.C,
        loss=LIBLINEAR_TYPES[args.solver], fit_intercept=fit_intercept,
        intercept_scaling=intercept_scaling, dual="auto",
        verbose=0 if args.quiet or args.folds or args.find_C else 2, random_state=args.seed,
        max_iter=args.max_iter, gap_tol=args.gap_tol, time_limit=args.time_limit,
        shrinking=not args.no_shrinking, shuffle=not args.cyclic, warm_start=False,
        callback=None, monitor=True if args.trace else None)
    common = {"data": args.file, "solver": f"dcd-svr-l{2 if args.solver == 12 else 1}",
              "n_samples": int(X.shape[0]), "n_features": int(X.shape[1])}
    if args.find_C:
        from ..estimators.linear_svr import LinearSVR  # scikit-learn (slow import): only -C pays for it

        first = start_C(X, X.shape[0], intercept_scaling if fit_intercept else 0.0,
                        params["epsilon"], y)
        Cs = search_grid(args, first, MAX_C_REGRESSION)
        return find_C(args, LinearSVR(**params), X, y, report, common, Cs)
    cost = np.full(X.shape[0], float(args.C))
    if args.folds is not None:
        return _cross_validate(args, params, X, y, cost, report, common)
    start = time.perf_counter()
    fit = fit_linear_svr(X, y, cost, params)
    seconds = time.perf_counter() - start
    report.finished(fit, ADVICE)
    report.save(fit, path, save_linear_svr)
    report.summary({**common, "model": path, "loss": params["loss"], "C": args.C,
                    "epsilon": params["epsilon"],
                    "bias": intercept_scaling if fit_intercept else -1.0, "seconds": seconds}, fit)
    return 130 if "interrupted" in fit.status_ else 0


def regression_scores(predicted, y):
    """(mean squared error, squared correlation coefficient): what LIBLINEAR prints."""
    n = len(y)
    mse = float(np.mean((predicted - y) ** 2))
    sv, sy = float(predicted.sum()), float(y.sum())
    svv, syy, svy = float(predicted @ predicted), float(y @ y), float(predicted @ y)
    denominator = (n * svv - sv * sv) * (n * syy - sy * sy)
    scc = (n * svy - sv * sy) ** 2 / denominator if denominator > 0 else float("nan")
    return mse, scc


def _cross_validate(args, params, X, y, cost, report, common):
    n = X.shape[0]
    folds = min(args.folds, n)
    if folds < args.folds:
        report.warn(f"{args.folds} folds > {n} samples; using {n} folds (leave-one-out)")
    order = np.random.default_rng(args.seed).permutation(n)
    predicted = np.empty(n)
    start = time.perf_counter()
    for fold, test in enumerate(np.array_split(order, folds), start=1):
        train = np.ones(n, dtype=bool)
        train[test] = False
        try:
            fit = fit_linear_svr(X[train], y[train], cost[train], params)
        except ValueError as e:
            raise CommandError(f"cross validation fold {fold}: {e}") from None
        predicted[test] = X[test] @ fit.coef_ + fit.intercept_[0]
        if fit.early_stop() and "interrupted" not in fit.status_:
            report.warn(f"fold {fold}: {fit.early_stop()} {ADVICE}")
        if "interrupted" in fit.status_:
            print("dualsvm: cross validation was interrupted", file=sys.stderr)
            return 130
    report.cross_validation_regression({**common, "cross_validation_folds": folds,
                                        "seconds": time.perf_counter() - start},
                                       *regression_scores(predicted, y))
    return 0
