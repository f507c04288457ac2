"""``dualsvm train DIR --scheduler ADDRESS`` (or ``--workers N``): a model trained on a
Dask cluster from a dataset directory (``dualsvm convert``): linear by CoCoA+, or with a
kernel option (``-t``, ...) LIBSVM's C-SVC by the distributed working-set solver, or by
divide and conquer on the cluster (``--kernel-solver dc`` and its ``--dc-*`` options)."""

import os
import time

from ..constants import LIBSVM_CACHE_MB, LIBSVM_TOL
from ..outofcore import DiskDataset
from ..persistence.kernel import save_kernel
from ..persistence.linear import save_linear
from .options import ADVICE, DIRECTORY_FLAGS, SEARCH_FLAGS, augmented_bias, class_weight, given, \
    model_path, refuse_given, refuse_in_memory_solvers, refuse_regression
from .parser import COCOA_FLAGS, DC_OPTIONS, KERNEL_OPTIONS, LIBLINEAR_TYPES, refuse
from .report import Reporter

#: Flags CoCoA+ has no use for (destination, flag).
NOT_FOR_COCOA = (("folds", "-v"), ("exact_bias", "--exact-bias"), ("no_shrinking", "-h"),
                 ("cyclic", "--cyclic")) + tuple(f for f in DIRECTORY_FLAGS if f[0] != "memory") \
    + SEARCH_FLAGS
#: The kernel solvers of a cluster (``--kernel-solver``; the first is the default).
CLUSTER_SOLVERS = ("ws", "dc")
#: Flags the kernel solver on a cluster has no use for (destination, flag).
NOT_FOR_KERNEL = (("folds", "-v"), ("probability", "-b"), ("nu", "-n"), ("bias", "-B"),
                  ("exact_bias", "--exact-bias"), ("no_shrinking", "--no-shrinking"),
                  ("cyclic", "--cyclic"), ("gap_tol", "--gap-tol")) \
    + tuple(f for f in COCOA_FLAGS if f[0] != "partitions") + DIRECTORY_FLAGS + SEARCH_FLAGS


def run(args):
    if args.scheduler is not None and args.workers is not None:
        raise refuse("--workers", "starts a local cluster; with --scheduler the cluster is given")
    if not os.path.isdir(args.file):
        raise refuse("--scheduler" if args.scheduler else "--workers",
                     "trains a dataset directory (write one with dualsvm convert)")
    kernel = any(getattr(args, dest) is not None for dest in KERNEL_OPTIONS)
    report = Reporter(args.quiet, args.json, args.trace)
    path = model_path(args)
    report.check_outputs(path)
    dataset = DiskDataset(args.file)
    estimator, describe = (_kernel if kernel else _linear)(args, dataset, report)
    from distributed import Client, LocalCluster

    if given(args, "scheduler"):
        client = Client(args.scheduler)
        cluster = None
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    solver = {"ws": "the kernel working-set solver", "dc": "kernel divide and conquer"}[
        estimator.solver] if kernel else "CoCoA+"
    report(f"{dataset}: {solver} on {len(client.scheduler_info()['workers'])} Dask workers")
    start = time.perf_counter()
    try:
        with client:
            estimator.fit(args.file)
    finally:
        if cluster is not None:
            cluster.close()
    seconds = time.perf_counter() - start
    fit = estimator.to_fit()
    report.finished(fit, ADVICE)
    if kernel:
        report(f"Total nSV = {len(fit.support_)}")
    report.save(fit, path, save_kernel if kernel else save_linear)
    report.summary({"data": args.file, "model": path, **describe(estimator),
                    "partitions": estimator.n_partitions_, "C": args.C,
                    "n_samples": int(dataset.n_samples), "n_features": int(dataset.n_features),
                    "seconds": seconds}, fit)
    return 130 if "interrupted" in fit.status_ else 0


def _linear(args, dataset, report):
    """The dask LinearSVC of the command line, and what the summary says of it once fitted."""
    refuse_regression(args, "(support vector regression) is trained from a file, not on a "
                            "Dask cluster")
    refuse_in_memory_solvers(args, "is trained from a file, not on a Dask cluster (CoCoA+: "
                                   "-s 1 and -s 3)")
    refuse_given(args, NOT_FOR_COCOA, "does not apply to CoCoA+ on a Dask cluster")
    from ..dask import LinearSVC

    def progress(record):
        report(f"round {record['epoch']}: primal {record['primal']:.10g}, gap "
               f"{record['gap']:.3e}, {record['bytes'] / 2**20:.2f} MB sent, "
               f"{record['seconds']:.1f} s")

    solver = 1 if args.solver is None else args.solver
    fit_intercept, intercept_scaling = augmented_bias(args)
    estimator = LinearSVC(
        C=args.C, loss=LIBLINEAR_TYPES[solver], fit_intercept=fit_intercept,
        intercept_scaling=intercept_scaling,
        class_weight=class_weight(args, dataset.labels, report),
        gap_tol=1e-3 if args.gap_tol is None else args.gap_tol,
        max_rounds=1000 if args.max_iter is None else args.max_iter,
        local_epochs=args.local_epochs or "auto", local_time=args.local_time,
        n_partitions=args.partitions, memory=args.memory,
        sigma="K" if args.sigma is None else args.sigma,
        time_limit=args.time_limit, callback=progress, random_state=args.seed)
    return estimator, lambda fitted: {
        "solver": "cocoa+", "sigma": float(fitted.sigma_), "loss": fitted.loss,
        "bias": intercept_scaling if fit_intercept else -1.0}


def _kernel(args, dataset, report):
    """The dask SVC of the command line (LIBSVM's C-SVC options), and what the summary
    says of it once fitted."""
    if args.solver not in (None, 0):
        raise refuse(f"-s {args.solver}", "is trained from a file; a Dask cluster trains "
                                          "C-SVC kernel models (-s 0)")
    refuse_regression(args, "(support vector regression) is trained from a file; a Dask "
                            "cluster trains C-SVC kernel models (-s 0)")
    refuse_given(args, NOT_FOR_KERNEL, "does not apply to a kernel model on a Dask cluster")
    if args.shrinking is False:
        raise refuse("-h 0", "does not apply to a kernel model on a Dask cluster: its "
                             "working-set solver has no shrinking")
    if args.kernel_type and args.kernel_name and args.kernel_type != args.kernel_name:
        raise refuse("-t", f"and --kernel disagree ({args.kernel_type} and {args.kernel_name})")
    kernel = args.kernel_type or args.kernel_name or "rbf"
    if kernel == "precomputed":
        raise refuse("-t 4", "(a precomputed kernel) has no rows to spread over a Dask "
                             "cluster; train it from a file")
    solver = args.kernel_solver or CLUSTER_SOLVERS[0]
    if solver not in CLUSTER_SOLVERS:
        raise refuse(f"--kernel-solver {solver}", "is an in-memory solver; a Dask cluster "
                                                  "trains with ws (the distributed working "
                                                  "sets) or dc (divide and conquer)")
    if solver != "dc":
        refuse_given(args, DC_OPTIONS.items(), "configures divide and conquer (--kernel-solver dc)")
    dc = {name: getattr(args, name) for name in DC_OPTIONS if getattr(args, name) is not None}
    from ..dask import SVC

    estimator = SVC(solver=solver, random_state=args.seed, **dc,
        C=args.C, kernel=kernel, degree=3 if args.degree is None else args.degree,
        gamma="auto" if args.gamma is None else args.gamma,
        coef0=0.0 if args.coef0 is None else args.coef0,
        tol=LIBSVM_TOL if args.tol is None else args.tol,
        cache_size=LIBSVM_CACHE_MB if args.cache_size is None else args.cache_size,
        class_weight=class_weight(args, dataset.labels, report),
        max_iter=-1 if args.max_iter is None else args.max_iter,
        n_partitions=args.partitions, time_limit=args.time_limit,
        verbose=0 if args.quiet else 2)
    return estimator, lambda fitted: {
        "solver": f"dask-{solver}", "svm_type": "c_svc", "kernel": fitted.to_fit().kernel.to_dict(),
        "bias": "exact", "n_support": int(len(fitted.support_))}
