"""``dualsvm train --rank B FILE|DIR``: a low-rank kernel model (:class:`dualsvm.LowRankSVC`),
LIBLINEAR's dual (-s 1, -s 3) on the Nystroem map of B training rows, with LIBSVM's
kernel options -t 0..3, -g, -d, -r. From a file it is trained in memory
(:func:`dualsvm.training.low_rank.fit_low_rank`); from a dataset directory (``dualsvm
convert``) out of core under ``--memory`` (:func:`dualsvm.outofcore.fit_low_rank`), each
block mapped as it is read. The other kernel options (the kernel cache, LIBSVM's
shrinking, the kernel solvers) and what the low-rank model has no use for are refused."""

import os
import time
import warnings

import numpy as np

from ..data.svmlight import read_svmlight
from ..data.validation import check_classes, sample_costs
from ..outofcore import DiskDataset
from ..outofcore import fit_low_rank as fit_low_rank_on_disk
from ..persistence.low_rank import save_low_rank
from ..training.low_rank import fit_low_rank
from .options import ADVICE, DIRECTORY_FLAGS, SEARCH_FLAGS, class_weight, linear_defaults, \
    model_path, refuse_exact_and_augmented_bias, refuse_given
from .parser import COCOA_FLAGS, DC_OPTIONS, LIBLINEAR_TYPES, PROG, CommandError, UsageError, \
    refuse
from .report import Reporter
from .train_disk import pass_progress, refuse_directory_options

#: The LIBLINEAR types of the linear problem on the map.
LOW_RANK_TYPES = (1, 3)
#: Options a low-rank model has no use for: (destination, flag) pairs, and why.
NOT_FOR_LOW_RANK = (
    ((("cache_size", "-m"),), "(the kernel cache) does not apply to --rank: a low-rank model "
                              "computes each row's B kernel values once, into the map"),
    ((("kernel_solver", "--kernel-solver"), *DC_OPTIONS.items()),
     "chooses an exact kernel model's solver; --rank is solved by LIBLINEAR's dual "
     "coordinate descent (out of core: --method)"),
    ((("nu", "-n"), ("probability", "-b"), ("epsilon", "-p")),
     "does not apply to --rank (a C-SVC on the Nystroem map: -s 1 or -s 3)"),
    ((("folds", "-v"), *SEARCH_FLAGS),
     "does not apply to --rank; cross-validate dualsvm.LowRankSVC with scikit-learn in Python"),
    ((("scheduler", "--scheduler"), ("workers", "--workers"), *COCOA_FLAGS),
     "does not apply to --rank: a low-rank model is trained on one machine (in memory, or "
     "out of core from a dataset directory)"),
)
#: The kernel parameters each kernel has (others given are refused).
KERNEL_PARAMETERS = {"linear": (), "poly": ("gamma", "degree", "coef0"), "rbf": ("gamma",),
                     "sigmoid": ("gamma", "coef0")}
_PARAMETER_FLAGS = {"gamma": "-g", "degree": "-d", "coef0": "-r"}


def run(args):
    directory = os.path.isdir(args.file)
    kernel = _refuse_options(args, directory)
    linear_defaults(args)
    report = Reporter(args.quiet, args.json, args.trace)
    path = model_path(args)
    report.check_outputs(path)
    bias = 1.0 if args.bias is None else args.bias  # LowRankSVC's bias, unless -B
    fit_intercept, intercept_scaling = args.exact_bias or bias > 0, bias if bias > 0 else 1.0
    kernel_params = {"kernel": kernel, "gamma": "auto" if args.gamma is None else args.gamma,
                     "degree": 3 if args.degree is None else args.degree,
                     "coef0": 0.0 if args.coef0 is None else args.coef0}
    loss = LIBLINEAR_TYPES[args.solver]
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:  # B > n_samples: clipped
        warnings.simplefilter("always")
        if directory:
            dataset = DiskDataset(args.file)
            method, memory = args.method or "dcl", args.memory or 1024.0
            report(f"{dataset}: low rank {args.rank}, {method} with {memory:g} MB for rows")
            options = {} if args.gap_tol is None else {"gap_tol": args.gap_tol}
            fit = fit_low_rank_on_disk(
                dataset, n_components=args.rank, **kernel_params, random_state=args.seed,
                time_limit=args.time_limit, method=method, memory=memory, C=args.C,
                loss=loss, fit_intercept=fit_intercept, intercept_scaling=intercept_scaling,
                class_weight=class_weight(args, dataset.labels, report), tol=args.tol,
                max_iter=args.max_iter, shrinking=not args.no_shrinking,
                shuffle=not args.cyclic, checkpoint=args.checkpoint, resume=args.resume,
                callback=pass_progress(report), **options)
            shape = dataset.shape
            where = {"solver": method, "memory": memory}
        else:
            fit, shape = _fit_in_memory(args, report, kernel_params, loss, fit_intercept,
                                        intercept_scaling)
            where = {"solver": "dcd"}
    for message in sorted({str(w.message) for w in caught}):
        report.warn(message)
    seconds = time.perf_counter() - start
    report.finished(fit, ADVICE)
    report(f"basis {fit.components_.shape[0]} rows, {fit.n_components_} components")
    report.save(fit, path, save_low_rank)
    report.summary({"data": args.file, "model": path, **where, "loss": loss, "C": args.C,
                    "kernel": fit.kernel.to_dict(), "n_basis": int(fit.components_.shape[0]),
                    "n_components": int(fit.n_components_),
                    "bias": "exact" if args.exact_bias else
                    (intercept_scaling if fit_intercept else -1.0),
                    "n_samples": int(shape[0]), "n_features": int(shape[1]),
                    "seconds": seconds}, fit)
    return 130 if "interrupted" in fit.status_ else 0


def _fit_in_memory(args, report, kernel_params, loss, fit_intercept, intercept_scaling):
    """(LowRankFit, data shape) of FILE, trained as LowRankSVC.fit trains."""
    X, y = read_svmlight(args.file)
    classes = check_classes(y, args.file)
    weights = class_weight(args, classes, report)
    cost = sample_costs(args.C, weights, y, classes)
    if len(np.unique(y[cost > 0])) < 2:
        raise CommandError("fewer than two classes have weight > 0 (-w): nothing to train")
    params = dict(
        C=args.C, **kernel_params, n_components=args.rank, basis="uniform", loss=loss,
        dual=True,  # -s 1 and -s 3 are LIBLINEAR's dual solvers
        fit_intercept=fit_intercept,
        intercept_mode="exact" if args.exact_bias else "augmented",
        intercept_scaling=intercept_scaling, tol=args.tol, gap_tol=args.gap_tol,
        max_iter=args.max_iter, time_limit=args.time_limit, shrinking=not args.no_shrinking,
        shuffle=not args.cyclic, class_weight=weights, random_state=args.seed, callback=None,
        verbose=0 if args.quiet else 2, monitor=True if args.trace else None)
    return fit_low_rank(X, y, cost, params), X.shape


def _refuse_options(args, directory):
    """The kernel's name; UsageError for an option that does not apply to a low-rank
    model, or to training from a file or from a dataset directory."""
    for flags, why in NOT_FOR_LOW_RANK:
        refuse_given(args, flags, why)
    if args.shrinking is not None:  # -h 0 too
        raise refuse("-h", "(LIBSVM's shrinking) does not apply to --rank: its solver is "
                           "LIBLINEAR's dual coordinate descent (--no-shrinking)")
    if args.solver is not None and args.solver not in LOW_RANK_TYPES:
        raise refuse(f"-s {args.solver}", "does not apply to --rank, which trains LIBLINEAR's "
                                          "dual on the Nystroem map: -s 1 (L2-loss SVC, the "
                                          "default) or -s 3 (L1-loss SVC)")
    if args.kernel_type and args.kernel_name and args.kernel_type != args.kernel_name:
        raise UsageError(f"{PROG} train", f"-t and --kernel disagree ({args.kernel_type} and "
                         f"{args.kernel_name})")
    kernel = args.kernel_type or args.kernel_name or "rbf"
    if kernel == "precomputed":
        raise refuse("-t 4", "(a precomputed kernel) does not apply to --rank: the map needs "
                             "the kernel of new rows, K(x, Z); use -t 0 to 3")
    for name, flag in _PARAMETER_FLAGS.items():
        if getattr(args, name) is not None and name not in KERNEL_PARAMETERS[kernel]:
            raise refuse(flag, f"is not a parameter of the {kernel} kernel")
    refuse_exact_and_augmented_bias(args)
    if directory:
        refuse_directory_options(args)
    else:
        refuse_given(args, DIRECTORY_FLAGS, "applies to a dataset directory (dualsvm "
                                            "convert), not to a file")
    return kernel
