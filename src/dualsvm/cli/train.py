"""``dualsvm train FILE``: a linear model (LIBLINEAR's train, with -v cross validation):
-s 1 and 3 (dual CD), 4 (Crammer-Singer), 5 (L1-regularized, primal CD);
-s 12 and -s 13 (regression) are trained by :mod:`.train_svr`.

Kernel options send ``train`` to :mod:`.train_kernel`, a dataset directory to
:mod:`.train_disk` (see :func:`dualsvm.cli.parser.route`). Every option either works
for the kind of training it selects or is refused with a one-line usage error
naming it."""

import sys
import time

import numpy as np

from ..data.svmlight import read_svmlight
from ..data.validation import check_classes, sample_costs
from ..persistence.linear import save_linear
from ..training.linear import fit_linear
from . import train_svr
from .options import ADVICE, DIRECTORY_FLAGS, augmented_bias, class_weight, linear_defaults, \
    refuse_exact_and_augmented_bias, refuse_given
from .parser import LIBLINEAR_REGRESSIONS, LIBLINEAR_SOLVER_PARAMS, LIBLINEAR_TYPES, PROG, \
    CommandError, refuse
from .search import MAX_C, cross_validation_folds, find_C, linear_outputs, search_grid, start_C


#: LIBLINEAR's default -e of -s 5 (the others': :data:`dualsvm.constants.LIBLINEAR_TOL`).
L1_TOL = 0.01


def run(args):
    if args.solver == 5 and args.tol is None:
        args.tol = L1_TOL
    linear_defaults(args)
    if args.solver in LIBLINEAR_REGRESSIONS:
        return train_svr.run(args)
    if args.epsilon is not None:
        raise refuse("-p", "is the epsilon of support vector regression (-s 12, -s 13; with a "
                           "kernel option, -s 3)")
    refuse_given(args, DIRECTORY_FLAGS, "applies to a dataset directory (dualsvm convert), "
                                        "not to a file")
    refuse_exact_and_augmented_bias(args)
    if args.solver in LIBLINEAR_SOLVER_PARAMS:
        if args.exact_bias:
            raise refuse("--exact-bias", f"does not apply to -s {args.solver}: its bias is "
                                         "LIBLINEAR's -B (an augmented feature) or none")
    report, path = linear_outputs(args)
    X, y = read_svmlight(args.file)
    classes = check_classes(y, args.file)
    weights = class_weight(args, classes, report)
    fit_intercept, intercept_scaling = augmented_bias(args)
    params = dict(
        C=args.C, loss=LIBLINEAR_TYPES[args.solver], solver="dcd",
        fit_intercept=args.exact_bias or fit_intercept,
        intercept_mode="exact" if args.exact_bias else "augmented",
        intercept_scaling=intercept_scaling, tol=args.tol, gap_tol=args.gap_tol,
        max_iter=args.max_iter, time_limit=args.time_limit, shrinking=not args.no_shrinking,
        shuffle=not args.cyclic, batch_size=1, random_state=args.seed, class_weight=weights,
        warm_start=False, callback=None,
        verbose=0 if args.quiet or args.folds or args.find_C else 2,
        monitor=True if args.trace else None,
        **{"penalty": "l2", "dual": True, "multi_class": "ovr",  # -s 1, 3, 4: dual
           **LIBLINEAR_SOLVER_PARAMS.get(args.solver, {})})
    solver = ("pair-dcd" if args.exact_bias else {3: "dcd-l1", 4: "cs-dual",
                                                   5: "l1-primal-cd"}.get(args.solver, "dcd-l2"))
    common = {"data": args.file, "solver": solver, "n_samples": int(X.shape[0]),
              "n_features": int(X.shape[1])}
    if args.find_C:
        from ..estimators.linear_svc import LinearSVC  # scikit-learn (slow import): only -v and -C pay for it

        bias = intercept_scaling if fit_intercept and not args.exact_bias else 0.0
        Cs = search_grid(args, start_C(X, X.shape[0], bias), MAX_C)
        return find_C(args, LinearSVC(**params), X, y, report, common, Cs)
    if args.folds is not None:
        return _cross_validate(args, params, X, y, report, common)

    start = time.perf_counter()
    fit = fit_linear(X, y, sample_costs(args.C, weights, y, classes), params)
    seconds = time.perf_counter() - start
    report.finished(fit, ADVICE)
    report.save(fit, path, save_linear)
    report.summary({**common, "model": path, "loss": params["loss"], "C": args.C,
                    "bias": "exact" if args.exact_bias else
                    (intercept_scaling if fit_intercept else -1.0), "seconds": seconds}, fit)
    return 130 if "interrupted" in fit.status_ else 0


def _cross_validate(args, params, X, y, report, common):
    import warnings

    # the estimator imports scikit-learn (a slow import): only -v pays for it
    from ..estimators.linear_svc import LinearSVC

    n = X.shape[0]
    predicted = np.empty_like(y)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        folds = cross_validation_folds(args.folds, n, args.seed, report)
        for fold, (train, test) in enumerate(folds, start=1):
            model = LinearSVC(**params)
            try:
                model.fit(X[train], y[train])
            except ValueError as e:
                raise CommandError(f"cross validation fold {fold}: {e}") from None
            predicted[test] = model.predict(X[test])
            if "interrupted" in model.status_:
                print(f"{PROG}: cross validation was interrupted", file=sys.stderr)
                return 130
    for message in {str(w.message) for w in caught}:
        report.warn(message)
    report.cross_validation_accuracy({**common, "cross_validation_folds": len(folds),
                                      "seconds": time.perf_counter() - start}, predicted, y)
    return 0
