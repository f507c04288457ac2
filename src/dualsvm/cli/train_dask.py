"""``dualsvm train DIR --scheduler ADDRESS`` (or ``--workers N``): a linear model trained
by CoCoA+ on a Dask cluster from a dataset directory (``dualsvm convert``)."""

import os
import time

from ..outofcore import DiskDataset
from ..persistence.linear import save_linear
from .options import ADVICE, DIRECTORY_FLAGS, SEARCH_FLAGS, augmented_bias, class_weight, given, \
    model_path, refuse_given, refuse_kernel_options, refuse_in_memory_solvers, refuse_regression
from .parser import LIBLINEAR_TYPES, refuse
from .report import Reporter

#: Flags CoCoA+ has no use for (destination, flag).
NOT_FOR_COCOA = (("folds", "-v"), ("exact_bias", "--exact-bias"), ("no_shrinking", "-h"),
                 ("cyclic", "--cyclic")) + tuple(f for f in DIRECTORY_FLAGS if f[0] != "memory") \
    + SEARCH_FLAGS


def run(args):
    refuse_regression(args, "(support vector regression) is trained from a file, not on a "
                            "Dask cluster")
    refuse_in_memory_solvers(args, "is trained from a file, not on a Dask cluster (CoCoA+: "
                                   "-s 1 and -s 3)")
    from distributed import Client, LocalCluster

    from ..dask import LinearSVC

    if args.scheduler is not None and args.workers is not None:
        raise refuse("--workers", "starts a local cluster; with --scheduler the cluster is given")
    if not os.path.isdir(args.file):
        raise refuse("--scheduler" if args.scheduler else "--workers",
                     "trains a dataset directory (write one with dualsvm convert)")
    refuse_given(args, NOT_FOR_COCOA, "does not apply to CoCoA+ on a Dask cluster")
    refuse_kernel_options(args, "selects a kernel model; the cluster trains linear models")
    solver = 1 if args.solver is None else args.solver
    report = Reporter(args.quiet, args.json, args.trace)
    path = model_path(args)
    report.check_outputs(path)
    dataset = DiskDataset(args.file)

    def progress(record):
        report(f"round {record['epoch']}: primal {record['primal']:.10g}, gap "
               f"{record['gap']:.3e}, {record['bytes'] / 2**20:.2f} MB sent, "
               f"{record['seconds']:.1f} s")

    fit_intercept, intercept_scaling = augmented_bias(args)
    estimator = LinearSVC(
        C=args.C, loss=LIBLINEAR_TYPES[solver], fit_intercept=fit_intercept,
        intercept_scaling=intercept_scaling,
        class_weight=class_weight(args, dataset.labels, report),
        gap_tol=1e-3 if args.gap_tol is None else args.gap_tol,
        max_rounds=1000 if args.max_iter is None else args.max_iter,
        local_epochs=args.local_epochs or 5, local_time=args.local_time,
        n_partitions=args.partitions, memory=args.memory,
        sigma="K" if args.sigma is None else args.sigma,
        time_limit=args.time_limit, callback=progress, random_state=args.seed)
    if given(args, "scheduler"):
        client = Client(args.scheduler)
        cluster = None
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    report(f"{dataset}: CoCoA+ on {len(client.scheduler_info()['workers'])} Dask workers")
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
    report.save(fit, path, save_linear)
    report.summary({"data": args.file, "model": path, "solver": "cocoa+",
                    "partitions": estimator.n_partitions_, "sigma": float(estimator.sigma_),
                    "loss": fit.params["loss"], "C": args.C,
                    "bias": intercept_scaling if fit_intercept else -1.0,
                    "n_samples": int(dataset.n_samples), "n_features": int(dataset.n_features),
                    "seconds": seconds}, fit)
    return 130 if "interrupted" in fit.status_ else 0
