"""``dualsvm train -t K FILE``: a kernel model (LIBSVM's svm-train, ``-s 0`` to ``4``:
C-SVC, nu-SVC, one-class, epsilon-SVR, nu-SVR), with its ``-v`` cross validation and
``-b 1`` probability models (by the estimators and scikit-learn's cross-validation; for
-s 2 the density marks of the training decisions, by :func:`fit_kernel`). FILE may be a
dataset directory (``dualsvm convert``), loaded into memory. ``--kernel-solver`` picks
SVC's solver for -s 0, and ``--dc-*``, ``--early-stop-level`` configure divide and
conquer (``--kernel-solver dc``)."""

import os
import sys
import time
import warnings

import numpy as np

from ..constants import LIBSVM_CACHE_MB, LIBSVM_TOL
from ..data.svmlight import read_svmlight, with_width
from ..data.validation import check_classes, sample_costs
from ..outofcore import DiskDataset
from ..persistence.kernel import save_kernel
from ..training.config import DC_PARAMETERS, check_divide_and_conquer
from ..training.kernel import fit_kernel, kernel_solver
from .options import ADVICE, DIRECTORY_FLAGS, SEARCH_FLAGS, class_weight, model_path, \
    refuse_given
from .parser import DC_OPTIONS, LIBLINEAR_ONE_CLASS, LIBLINEAR_REGRESSIONS, LIBSVM_TYPES, PROG, \
    CommandError, UsageError, refuse
from .report import Reporter


def _check_type_options(args, kind):
    """Refuse what LIBSVM's svm_type does not use: -n, -p, -c, -wi."""
    if args.nu is not None and kind not in ("nu_svc", "one_class", "nu_svr"):
        raise refuse("-n", f"(nu) is for -s 1, 2 and 4; -s {args.solver or 0} has no nu")
    if args.epsilon is not None and kind != "epsilon_svr":
        raise refuse("-p", "(the epsilon of the SVR loss) is for -s 3 only")
    if args.given_C and kind in ("nu_svc", "one_class"):
        raise refuse("-c", f"is not a parameter of -s {args.solver}: nu (-n) takes its place")
    if args.weights and kind != "c_svc":
        raise refuse("-w", "(class weights) applies to C-SVC (-s 0) only, as in LIBSVM")
    if args.nu is not None and args.nu > 1:
        raise UsageError(f"{PROG} train", f"nu (-n) must be in (0, 1], got {args.nu:g}")
    if kind != "c_svc":
        refuse_given(args, (("kernel_solver", "--kernel-solver"), *DC_OPTIONS.items()),
                     f"is for -s 0 (C-SVC); -s {args.solver} is solved by SMO, as in LIBSVM")


def kernel_solver_params(args, shrinking):
    """SVC's solver and divide-and-conquer parameters of -s 0, checked (UsageError)."""
    solver = args.kernel_solver or "auto"
    params = {"solver": solver, **DC_PARAMETERS,
              **{name: getattr(args, name) for name in DC_OPTIONS
                 if getattr(args, name) is not None}}
    if solver != "dc":
        refuse_given(args, DC_OPTIONS.items(), "configures divide and conquer (--kernel-solver dc)")
    try:
        kernel_solver(solver, "hinge", shrinking)
        check_divide_and_conquer(solver, bool(args.probability), params)
    except ValueError as e:
        raise UsageError(f"{PROG} train", str(e)) from None
    return params


def run(args):
    """LIBSVM's svm-train: the same data and model checks as the linear path."""
    _refuse_linear_options(args)
    kind = LIBSVM_TYPES[0 if args.solver is None else args.solver]
    _check_type_options(args, kind)
    report = Reporter(args.quiet, args.json, args.trace)
    path = None if args.folds is not None else model_path(args)
    report.check_outputs(path)

    kernel = args.kernel_type or args.kernel_name or "rbf"
    shrinking = not args.no_shrinking and args.shrinking is not False
    solver_params = kernel_solver_params(args, shrinking) if kind == "c_svc" else {}
    X, y = _read_data(args, kernel)
    classes = check_classes(y, args.file) if kind in ("c_svc", "nu_svc") else None
    weights = class_weight(args, classes, report) if kind == "c_svc" else None
    params = kernel_params(args, kind, kernel, shrinking, solver_params, weights)
    if kind == "c_svc":
        cost = sample_costs(args.C, weights, y, classes)
        if not (cost > 0).any():
            raise CommandError("every class has weight 0 (-w): nothing to train")
    else:  # C for the regressions, the bounds W_i = 1 of nu-SVC and one-class
        cost = np.full(len(y), args.C if _uses(kind, "C") else 1.0)
    if args.folds is not None:
        common = {"data": args.file, "svm_type": kind, "n_samples": int(X.shape[0]),
                  "n_features": int(X.shape[1])}
        return cross_validate(args, kind, params, X, y, report, common)
    return _train(args, kind, params, X, y, cost, report, path)


def _refuse_linear_options(args):
    """UsageError for LIBLINEAR's types and the options of linear training only, and
    for kernel options that disagree."""
    if args.solver in LIBLINEAR_REGRESSIONS:
        raise refuse(f"-s {args.solver}", "(LIBLINEAR's support vector regression) is linear "
                                          "only: -s 12 and -s 13 take no kernel options; "
                                          "kernel regression is -s 3 or -s 4")
    if args.solver == LIBLINEAR_ONE_CLASS:
        raise refuse("-s 21", "(LIBLINEAR's one-class SVM) is linear only and takes no kernel "
                              "options; the kernel one-class SVM is -s 2")
    if args.bias is not None:
        raise refuse("-B", "is for linear models; a kernel model has the exact "
                           "(unregularised) bias")
    if args.folds is not None and args.trace:
        raise refuse("--trace", "does not apply to -v (cross validation writes no model)")
    refuse_given(args, SEARCH_FLAGS, "(the search for C) is for linear models; for kernel "
                                     "models use dualsvm.SVCCV or dualsvm.c_path in Python")
    refuse_given(args, (("gap_tol", "--gap-tol"),),
                 "is for linear models; kernel models stop on LIBSVM's -e")
    refuse_given(args, (("cyclic", "--cyclic"),),
                 "is for linear models; SMO picks its pairs by violation, in no visiting order")
    refuse_given(args, DIRECTORY_FLAGS, "applies to a dataset directory (dualsvm convert), "
                                        "trained linearly, not to a kernel model")
    if args.kernel_type and args.kernel_name and args.kernel_type != args.kernel_name:
        raise UsageError(f"{PROG} train", f"-t and --kernel disagree ({args.kernel_type} and "
                         f"{args.kernel_name})")
    if args.no_shrinking and args.shrinking:
        raise UsageError(f"{PROG} train", "-h 1 and --no-shrinking disagree")


def _read_data(args, kernel):
    """(X, y) of FILE or a dataset directory; for -t 4 the dense, square kernel matrix."""
    if os.path.isdir(args.file):
        if kernel == "precomputed":
            raise refuse("-t 4", "(a precomputed kernel) is read from a file, not from a "
                                 "dataset directory")
        X, y = DiskDataset(args.file).load()
    else:
        X, y = read_svmlight(args.file, precomputed=kernel == "precomputed")
    if kernel == "precomputed":
        if X.shape[1] > X.shape[0]:
            raise CommandError(f"{args.file}: a precomputed kernel file of {X.shape[0]} samples "
                               f"has {X.shape[1]} kernel columns")
        X = np.ascontiguousarray(with_width(X, X.shape[0]).toarray())
    return X, y


def kernel_params(args, kind, kernel, shrinking, solver_params, weights):
    """The estimator parameters of the command line, LIBSVM's defaults for those not
    given; only those of ``kind``'s estimator (the model file records them)."""
    params = dict(
        C=args.C, kernel=kernel, degree=3 if args.degree is None else args.degree,
        gamma="auto" if args.gamma is None else args.gamma,
        coef0=0.0 if args.coef0 is None else args.coef0,
        loss="hinge", **solver_params,
        tol=LIBSVM_TOL if args.tol is None else args.tol,
        cache_size=LIBSVM_CACHE_MB if args.cache_size is None else args.cache_size,
        shrinking=shrinking,
        class_weight=weights, max_iter=-1 if args.max_iter is None else args.max_iter,
        time_limit=args.time_limit, callback=None, verbose=0 if args.quiet else 2,
        decision_function_shape="ovr", random_state=args.seed,
        nu=0.5 if args.nu is None else args.nu,
        epsilon=0.1 if args.epsilon is None else args.epsilon,
        probability=bool(args.probability))
    return {name: value for name, value in params.items()
            if name not in ("loss", "C", "nu", "epsilon", "solver", "probability")
            or _uses(kind, name)}


def _train(args, kind, params, X, y, cost, report, path):
    """Train, report and save the model (with -b 1 for -s 3, 4 the Laplace model of
    the error); exit status 130 after Ctrl-C, 0 otherwise."""
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:  # -s 2 -b 1: too few decisions
        warnings.simplefilter("always")
        fit = fit_kernel(X, y, cost, params, kind)
    for message in sorted({str(w.message) for w in caught}):
        report.warn(message)
    sigma = None
    if args.probability and kind in ("epsilon_svr", "nu_svr") and \
            "interrupted" not in fit.status_:
        sigma = laplace_sigma(args, kind, params, X, y, report)
        fit.probA_, fit.probB_ = np.array([sigma]), np.array([0.0])
    seconds = time.perf_counter() - start
    report.finished(fit, ADVICE)
    if sigma is not None:
        report(LAPLACE_LINE % sigma)
    report(f"Total nSV = {len(fit.support_)}")
    report.save(fit, path, save_kernel)
    report.summary({"data": args.file, "model": path, "solver": fit.solver_used_,
                    "kernel": fit.kernel.to_dict(), "svm_type": kind,
                    **{name: params[name] for name in ("loss", "C", "nu", "epsilon")
                       if name in params},
                    "bias": "exact", "n_samples": int(X.shape[0]),
                    "n_features": int(X.shape[1]), "seconds": seconds,
                    "n_support": int(len(fit.support_))}, fit)
    return 130 if "interrupted" in fit.status_ else 0


def _uses(kind, name):
    """Whether LIBSVM's svm_type ``kind`` has the parameter ``name``."""
    return {"loss": kind == "c_svc", "solver": kind == "c_svc",
            "probability": kind in ("c_svc", "nu_svc", "one_class"),
            "C": kind in ("c_svc", "epsilon_svr", "nu_svr"),
            "nu": kind in ("nu_svc", "one_class", "nu_svr"),
            "epsilon": kind == "epsilon_svr"}[name]


#: What LIBSVM prints of the Laplace model of a regression's error (-b 1).
LAPLACE_LINE = ("Prob. model for test data: target value = predicted value + z,\n"
                "z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma=%g")
#: LIBSVM's folds of the probability models (svm_svr_probability, svm_binary_svc_probability).
PROBABILITY_FOLDS = 5


def kernel_estimator(kind, params):
    """The estimator of LIBSVM's svm_type ``kind`` with the command line's parameters."""
    from ..estimators.model_io import KERNEL_ESTIMATORS  # scikit-learn (slow import): -v and -b pay for it

    estimator = KERNEL_ESTIMATORS[kind]()
    known = estimator.get_params()
    return estimator.set_params(**{name: value for name, value in params.items()
                                   if name in known and name != "verbose"}, verbose=0)


def cross_validation_splitter(kind, folds, y, seed):
    """LIBSVM's folds: random, and for classification with fewer folds than samples
    grouped by class (stratified; when no class has as many samples as folds, plain
    random folds, the only ones there are)."""
    from sklearn.model_selection import KFold, StratifiedKFold

    stratify = kind in ("c_svc", "nu_svc") and folds < len(y) and \
        np.unique(y, return_counts=True)[1].max() >= folds
    splitter = StratifiedKFold if stratify else KFold
    return splitter(n_splits=folds, shuffle=True, random_state=seed)


def _predictions(args, kind, params, X, y, folds, report, method="predict"):
    """Cross-validated predictions (each row by the model trained without its fold), or
    None after Ctrl-C; the folds' warnings are reported once each."""
    from sklearn.model_selection import cross_val_predict

    estimator = kernel_estimator(kind, params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            predicted = cross_val_predict(
                estimator, X, y, cv=cross_validation_splitter(kind, folds, y, args.seed),
                method=method)
        except KeyboardInterrupt:
            return None
    for message in sorted({str(w.message) for w in caught}):
        report.warn(message)
    return predicted


def cross_validate(args, kind, params, X, y, report, common):
    """LIBSVM's svm-train -v: accuracy (-s 0, 1, 2), or mean squared error and squared
    correlation coefficient (-s 3, 4), of cross-validated predictions."""
    from .train_svr import regression_scores

    n = X.shape[0]
    folds = args.folds
    if folds > n:
        report.warn(f"{folds} folds > {n} samples; using {n} folds (leave-one-out)")
        folds = n
    start = time.perf_counter()
    # with -b 1 LIBSVM predicts the most probable class (svm_predict_probability); a
    # one-class model's label is the sign of its decision, with -b 1 or without
    method = "predict_proba" if params.get("probability") and kind != "one_class" \
        else "predict"
    try:
        predicted = _predictions(args, kind, params, X, y, folds, report, method)
    except ValueError as e:
        raise CommandError(f"cross validation: {e}") from None
    if predicted is None:
        print(f"{PROG}: cross validation was interrupted", file=sys.stderr)
        return 130
    if method == "predict_proba":
        predicted = np.unique(y)[np.argmax(predicted, axis=1)]
    fields = {**common, "cross_validation_folds": folds,
              "seconds": time.perf_counter() - start}
    if kind in ("epsilon_svr", "nu_svr"):
        report.cross_validation_regression(fields, *regression_scores(predicted, y))
    else:
        report.cross_validation_accuracy(fields, predicted, y)
    return 0


def laplace_sigma(args, kind, params, X, y, report):
    """LIBSVM's ``svm_svr_probability``: the scale sigma of a Laplace model of the error
    y - f(x), fitted on 5-fold cross-validated residuals: their mean absolute value
    once those beyond 5 standard deviations (of a Laplace law of that mean) are left out."""
    if X.shape[0] < PROBABILITY_FOLDS:
        raise CommandError(f"-b 1 needs at least {PROBABILITY_FOLDS} samples (LIBSVM's "
                           f"{PROBABILITY_FOLDS}-fold cross validation); the data have {X.shape[0]}")
    predicted = _predictions(args, kind, params, X, y, PROBABILITY_FOLDS, report)
    if predicted is None:
        raise KeyboardInterrupt
    residual = np.abs(y - predicted)
    std = np.sqrt(2.0) * float(residual.mean())
    kept = residual[residual <= 5.0 * std]
    return float(kept.mean())
