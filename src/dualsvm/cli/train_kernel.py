"""``dualsvm train -t K FILE``: a kernel model (LIBSVM's svm-train, C-SVC)."""

import time

import numpy as np

from ..constants import LIBSVM_CACHE_MB, LIBSVM_TOL
from ..data import read_svmlight, with_width
from ..kernel_training import fit_kernel
from ..persistence.kernel import save_kernel
from ..validation import check_classes, sample_costs
from .options import ADVICE, DIRECTORY_FLAGS, SEARCH_FLAGS, class_weight, model_path, \
    refuse_given, refuse_regression
from .parser import PROG, CommandError, UsageError, refuse
from .report import Reporter


def run(args):
    """LIBSVM's svm-train (C-SVC): the same data and model checks as the linear path."""
    refuse_regression(args, "(support vector regression) is linear only: -s 12 and -s 13 "
                            "take no kernel options")
    if args.bias is not None:
        raise refuse("-B", "is for linear models; a kernel model has the exact "
                           "(unregularised) bias")
    if args.folds is not None:
        raise refuse("-v", "(cross validation) is not available for kernel models")
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
    report = Reporter(args.quiet, args.json, args.trace)
    path = model_path(args)
    report.check_outputs(path)

    kernel = args.kernel_type or args.kernel_name or "rbf"
    X, y = read_svmlight(args.file, precomputed=kernel == "precomputed")
    if kernel == "precomputed":
        if X.shape[1] > X.shape[0]:
            raise CommandError(f"{args.file}: a precomputed kernel file of {X.shape[0]} samples "
                               f"has {X.shape[1]} kernel columns")
        X = np.ascontiguousarray(with_width(X, X.shape[0]).toarray())
    classes = check_classes(y, args.file)
    weights = class_weight(args, classes, report)
    params = dict(
        C=args.C, kernel=kernel, degree=3 if args.degree is None else args.degree,
        gamma="auto" if args.gamma is None else args.gamma,
        coef0=0.0 if args.coef0 is None else args.coef0,
        loss="squared_hinge" if args.solver == 1 else "hinge", solver="auto",
        tol=LIBSVM_TOL if args.tol is None else args.tol,
        cache_size=LIBSVM_CACHE_MB if args.cache_size is None else args.cache_size,
        shrinking=not args.no_shrinking and args.shrinking is not False,
        class_weight=weights, max_iter=-1 if args.max_iter is None else args.max_iter,
        time_limit=args.time_limit, callback=None, verbose=0 if args.quiet else 2,
        decision_function_shape="ovr", random_state=args.seed)
    cost = sample_costs(args.C, weights, y, classes)
    if not (cost > 0).any():
        raise CommandError("every class has weight 0 (-w): nothing to train")
    start = time.perf_counter()
    fit = fit_kernel(X, y, cost, params)
    seconds = time.perf_counter() - start
    report.finished(fit, ADVICE)
    report(f"Total nSV = {len(fit.support_)}")
    report.save(fit, path, save_kernel)
    report.summary({"data": args.file, "model": path, "solver": fit.solver_used_,
                    "kernel": fit.kernel.to_dict(), "loss": params["loss"], "C": args.C,
                    "bias": "exact", "n_samples": int(X.shape[0]),
                    "n_features": int(X.shape[1]), "seconds": seconds,
                    "n_support": int(len(fit.support_))}, fit)
    return 130 if "interrupted" in fit.status_ else 0
