"""``dualsvm train -s 21 [-n NU] FILE``: LIBLINEAR's linear one-class SVM (its train
with ``-s 21``, and its -v output: the accuracy of the +1/-1 predictions against
the file's labels)."""

import sys
import time

import numpy as np

from ..constants import LIBLINEAR_ONE_CLASS_TOL
from ..data.svmlight import read_svmlight
from ..persistence.linear import save_linear_one_class
from ..training.linear import fit_linear_one_class
from .options import ADVICE, DIRECTORY_FLAGS, SEARCH_FLAGS, model_path, refuse_given
from .parser import PROG, CommandError, UsageError, refuse
from .report import Reporter
from .search import cross_validation_folds

#: LIBLINEAR's default -n.
DEFAULT_NU = 0.5


def run(args):
    """Train LinearOneClassSVM's problem from a file (``train -s 21``)."""
    if args.given_C:
        raise refuse("-c", "is not a parameter of -s 21: nu (-n) takes its place")
    if args.weights:
        raise refuse("-w", "weighs classes; the one-class SVM (-s 21) has none")
    if args.epsilon is not None:
        raise refuse("-p", "is the epsilon of support vector regression; -s 21 has none")
    if args.bias is not None and args.bias >= 0:
        raise refuse("-B", "(a bias feature) does not apply to -s 21: rho takes its place, "
                           "as in LIBLINEAR")
    refuse_given(args, (("exact_bias", "--exact-bias"),), "is for classification; -s 21 "
                 "has rho in place of a bias")
    refuse_given(args, (("cyclic", "--cyclic"),), "does not apply to -s 21: its pairs are "
                 "chosen by violation, in no visiting order")
    refuse_given(args, SEARCH_FLAGS, "(the search for C) is for classification (-s 1, -s 3)")
    refuse_given(args, DIRECTORY_FLAGS + (("scheduler", "--scheduler"), ("workers", "--workers")),
                 "is for the out-of-core and cluster training of -s 1 and -s 3; -s 21 trains "
                 "from a file")
    if args.nu is not None and args.nu > 1:
        raise UsageError(f"{PROG} train", f"nu (-n) must be in (0, 1], got {args.nu:g}")
    if args.folds is not None and args.trace:
        raise refuse("--trace", "does not apply to -v (cross validation writes no model)")
    report = Reporter(args.quiet, args.json, args.trace)
    path = None if args.folds is not None else model_path(args)
    report.check_outputs(path)
    X, y = read_svmlight(args.file)
    params = dict(nu=DEFAULT_NU if args.nu is None else args.nu,
                  tol=LIBLINEAR_ONE_CLASS_TOL if args.tol is None else args.tol,
                  max_iter=1000 if args.max_iter is None else args.max_iter,
                  shrinking=not args.no_shrinking, gap_tol=args.gap_tol,
                  time_limit=args.time_limit, callback=None,
                  verbose=0 if args.quiet or args.folds else 2,
                  monitor=True if args.trace else None)
    common = {"data": args.file, "solver": "oneclass-dcd", "n_samples": int(X.shape[0]),
              "n_features": int(X.shape[1])}
    if args.folds is not None:
        return _cross_validate(args, params, X, y, report, common)
    start = time.perf_counter()
    fit = fit_linear_one_class(X, np.ones(X.shape[0]), params)
    seconds = time.perf_counter() - start
    report.finished(fit, ADVICE)
    report(f"nSV = {int(np.count_nonzero(fit.alpha_))}")
    report.save(fit, path, save_linear_one_class)
    report.summary({**common, "model": path, "nu": params["nu"], "bias": -1.0,
                    "rho": float(fit.offset_[0]), "seconds": seconds}, fit)
    return 130 if "interrupted" in fit.status_ else 0


def _cross_validate(args, params, X, y, report, common):
    """LIBLINEAR's -v for -s 21: the fraction of rows whose label equals the +1/-1
    prediction of the model trained without their fold."""
    predicted = np.empty(len(y))
    start = time.perf_counter()
    folds = cross_validation_folds(args.folds, X.shape[0], args.seed, report)
    for fold, (train, test) in enumerate(folds, start=1):
        try:
            fit = fit_linear_one_class(X[train], np.ones(len(train)), params)
        except ValueError as e:
            raise CommandError(f"cross validation fold {fold}: {e}") from None
        decision = X[test] @ fit.coef_[0] - fit.offset_[0]
        predicted[test] = np.where(decision > 0, 1.0, -1.0)
        if fit.early_stop() and "interrupted" not in fit.status_:
            report.warn(f"fold {fold}: {fit.early_stop()} {ADVICE}")
        if "interrupted" in fit.status_:
            print(f"{PROG}: cross validation was interrupted", file=sys.stderr)
            return 130
    report.cross_validation_accuracy({**common, "cross_validation_folds": len(folds),
                                      "seconds": time.perf_counter() - start}, predicted, y)
    return 0
