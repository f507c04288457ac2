"""``dualsvm train DIR``: a linear model trained out of core on a dataset directory
(written by ``dualsvm convert``), with rows in memory bounded by ``--memory``."""

import time

from ..outofcore import DiskDataset
from ..outofcore import fit as fit_out_of_core
from ..persistence.linear import save_linear
from .options import ADVICE, SEARCH_FLAGS, augmented_bias, class_weight, linear_defaults, \
    model_path, refuse_given, refuse_in_memory_solvers, refuse_regression
from .parser import LIBLINEAR_TYPES, refuse
from .report import Reporter


#: What training from a dataset directory refuses (destination, flag).
NOT_FOR_DIRECTORIES = (("folds", "-v"), ("exact_bias", "--exact-bias")) + SEARCH_FLAGS


def refuse_directory_options(args):
    """Usage errors for the options out-of-core training has no use for, and
    --resume without --checkpoint."""
    refuse_given(args, NOT_FOR_DIRECTORIES, "does not apply to a dataset directory")
    if args.resume and not args.checkpoint:
        raise refuse("--resume", "needs --checkpoint PATH (the file to continue from)")


def pass_progress(report):
    """The training callback that reports each pass over the disk."""
    def progress(record):
        report(f"pass {record['epoch']}: {record['passes']:.1f} passes over the disk, cache "
               f"{record['cache_size']} rows, primal {record['primal']:.10g}, "
               f"gap {record['gap']:.3e}, {record['seconds']:.1f} s")

    return progress


def run(args):
    refuse_regression(args, "(support vector regression) is trained from a file, not from a "
                            "dataset directory")
    refuse_in_memory_solvers(args, "is trained from a file, not from a dataset directory "
                                   "(out of core: -s 1 and -s 3)")
    linear_defaults(args)
    refuse_directory_options(args)
    report = Reporter(args.quiet, args.json, args.trace)
    path = model_path(args)
    report.check_outputs(path)
    dataset = DiskDataset(args.file)
    fit_intercept, intercept_scaling = augmented_bias(args)
    method, memory = args.method or "dcl", args.memory or 1024.0
    options = {} if args.gap_tol is None else {"gap_tol": args.gap_tol}
    report(f"{dataset}: {method} with {memory:g} MB for rows")
    start = time.perf_counter()
    fit = fit_out_of_core(
        dataset, method=method, memory=memory, C=args.C, loss=LIBLINEAR_TYPES[args.solver],
        fit_intercept=fit_intercept, intercept_scaling=intercept_scaling,
        class_weight=class_weight(args, dataset.labels, report), tol=args.tol,
        max_iter=args.max_iter, time_limit=args.time_limit, shrinking=not args.no_shrinking,
        shuffle=not args.cyclic, random_state=args.seed, checkpoint=args.checkpoint,
        resume=args.resume, callback=pass_progress(report), **options)
    seconds = time.perf_counter() - start
    report.finished(fit, ADVICE)
    report.save(fit, path, save_linear)
    report.summary({"data": args.file, "model": path, "solver": method, "memory": memory,
                    "loss": fit.params["loss"], "C": args.C,
                    "bias": intercept_scaling if fit_intercept else -1.0,
                    "n_samples": int(dataset.n_samples), "n_features": int(dataset.n_features),
                    "seconds": seconds}, fit)
    return 130 if "interrupted" in fit.status_ else 0
