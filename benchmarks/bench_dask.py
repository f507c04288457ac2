"""CoCoA+ on a Dask LocalCluster with K = 1, 2, 4, 8 partitions, beside single-process
DCD and Spark MLlib's LinearSVC.

Every dualsvm run trains the same problem (C, no bias: Spark's intercept is not
regularised, so neither side has one) and stops on the same rule, the relative
duality gap <= ``--gap-tol`` computed by ``dualsvm.problems.objectives.relative_gap``:
single-process DCD (``dualsvm.LinearSVC``, one thread, solver tol 1e-12) after
every epoch, CoCoA+ (``dualsvm.dask.LinearSVC``) every round, summed across its
partitions. Spark cannot stop on a gap: it runs L-BFGS (OWL-QN) in the primal to
its own ``tol`` / ``maxIter`` (``spark_peer.py``: regParam = 1/(C n) is the same
objective), and the table gives the objective it reached against the best dual
bound any dualsvm run certified, (P - D*) / P.

Setup is outside every clock: the set is converted once (shuffled blocks), the
single-process run loads it before its clock, Spark reads, caches and counts its
DataFrame before its clock. CoCoA+'s clock covers ``fit`` on the block directory,
which includes the workers reading their partitions: `load s` is that part and
`rounds s` the rounds alone. Threads: the LocalCluster has ``--workers`` worker
processes of one thread each (K partitions are spread over them); DCD one thread;
Spark ``local[2]``. Best of ``--repeats`` runs per solver (interleaved).

``--sigma`` runs CoCoA+ with each sigma' given ('K', 'adaptive' or a number;
see ``dualsvm.dask.LinearSVC``). The set ``disjoint`` is generated: 8 groups of
4000 rows, each group with its own 40 features (a linear rule plus noise), in
group order, so the K row partitions (K = 1, 2, 4, 8) share no feature: the
case of rows split by source, where sigma'_min is 1 instead of K. It is trained
from a dask array; Spark does not run on it.

**Kernel part** (``--part kernel``): ``dualsvm.dask.SVC`` (the distributed working-set
solver, and its ``solver='dc'``: divide and conquer's level on the workers, the whole
problem finished by the working sets) on LocalClusters of 1, 2 and 4 worker processes
of one thread each, beside in-memory ``dualsvm.SVC`` (its solver 'auto': the working
sets, on 1 and 2 threads; ``solver='dc'`` on 2 threads: its parts are solved by one
thread a core whatever Numba's thread count), on ijcnn1 (the training file) and
ijcnn1+t (training and test files, 141691 rows), RBF at the C and gamma of the grid
search in ``benchmarks/results/kernel_tuned_params.json`` (written by bench_kernel.py
``--part search``), the same tol (1e-3) and cache (``--cache-mb``, per worker for the
cluster; divide and conquer at its defaults, ``random_state=0``). All clusters run at
once, idle but for the fit timed, so that the runs interleave. A dask fit's clock
covers building its partitions from a dask array of the rows (the client's chunks sent
to the workers; ``load s``) and its iterations.
``bytes/it``: between the client and the workers per iteration. The duals are
compared with the in-memory one.

Usage (a quiet machine)::

    python benchmarks/bench_dask.py                     # a9a, w8a, ijcnn1
    python benchmarks/bench_dask.py --part kernel       # ijcnn1, ijcnn1+t on 1, 2, 4 workers
    # a converted directory larger than memory: partitions on disk, one pass a round
    python benchmarks/bench_dask.py --dataset-dir DIR --memory 2048 --local-epochs 1 \\
        --C 0.001 --repeats 1 --no-single --name dask_10gb
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (RESULTS_DIR, Clock, best_of, data_file, load,  # noqa: E402
                    merge, new_record, page, write_results)

SETS = ("a9a", "w8a", "ijcnn1", "disjoint")  # disjoint: made here (Disjoint), the others' files
LOSSES = ("hinge", "squared_hinge")


class Disjoint:
    """The generated set ``disjoint`` (see the module's docstring), in memory."""

    def __init__(self, groups=8, rows=4000, features=40, seed=0):
        import scipy.sparse as sp

        rng = np.random.default_rng(seed)
        blocks, labels = [], []
        for g in range(groups):
            rule = rng.normal(size=features)
            values = rng.normal(size=(rows, features))
            labels.append(np.where(values @ rule + rng.normal(size=rows) > 0, 1.0, -1.0))
            block = sp.csr_matrix(values)
            blocks.append(sp.csr_matrix((block.data, block.indices + g * features, block.indptr),
                                        shape=(rows, groups * features)))
        self.X, self.y = sp.vstack(blocks, format="csr"), np.concatenate(labels)
        self.rows_per_group = rows
        self.n_samples, self.n_features = self.X.shape
        self.nnz = self.X.nnz
        self.n_blocks = groups
        self.nbytes = self.X.data.nbytes + self.X.indices.nbytes + self.X.indptr.nbytes

    def load(self):
        return self.X, self.y

    def fit_input(self):
        import dask.array as da

        return (da.from_array(self.X, chunks=(self.rows_per_group, self.n_features),
                              asarray=False), self.y)


def converted(name, args):
    """The set's block directory (rows shuffled), converted once into --workdir."""
    from dualsvm.outofcore import DiskDataset
    from dualsvm.outofcore import convert

    if name == "disjoint":
        return Disjoint()
    path = os.path.join(args.workdir, f"{name}-{args.block_mb:g}")
    if not os.path.isdir(path):
        convert(str(data_file(name)), path, block_mb=args.block_mb, shuffle=True, seed=0)
    return DiskDataset(path)


def cocoa(data, loss, K, memory, args, sigma="K"):
    """CoCoA+ on ``data``: a block directory's path or a (dask array, labels) pair; the
    estimator's defaults where the command line gives nothing."""
    from dualsvm.dask import LinearSVC

    given = {name: getattr(args, name) for name in ("max_rounds", "local_epochs")
             if getattr(args, name) is not None}
    model = LinearSVC(C=args.C, loss=loss, fit_intercept=False, gap_tol=args.gap_tol,
                      n_partitions=K, memory=memory, sigma=sigma, time_limit=args.time_limit,
                      random_state=0, **given)
    start = time.perf_counter()
    model.fit(*(data if isinstance(data, tuple) else (data,)))
    seconds = time.perf_counter() - start
    rounds_seconds = model.history_[-1]["seconds"]
    label = f"cocoa+ K={K}" + ("" if sigma == "K" else f" sigma'={sigma}")
    return {"solver": label, "K": model.n_partitions_, "sigma": model.sigma_,
            "sigma_option": sigma, "seconds": seconds,
            "rounds_seconds": rounds_seconds, "load_seconds": seconds - rounds_seconds,
            "rounds": model.n_rounds_, "primal": float(model.primal_[0]),
            "local_epochs": float(np.mean([r["local_epochs"] for r in model.history_])),
            "dual": float(model.dual_[0]), "gap": float(model.gap_[0]), "status": model.status_,
            "mb_per_round": float(np.mean([r["bytes"] for r in model.history_])) / 2**20,
            "threads": f"{args.workers} workers x 1"}


def single(X, y, loss, args):
    from dualsvm import LinearSVC

    model = LinearSVC(C=args.C, loss=loss, fit_intercept=False, tol=1e-12, gap_tol=args.gap_tol,
                      max_iter=100000, time_limit=args.time_limit, random_state=0)
    start = time.perf_counter()
    model.fit(X, y)
    return {"solver": "dcd (one process)", "seconds": time.perf_counter() - start,
            "rounds": int(model.n_iter_), "primal": float(model.primal_[0]),
            "dual": float(model.dual_[0]), "gap": float(model.gap_[0]),
            "status": model.status_[0], "threads": "1"}


def spark(name, X, y, args):
    import spark_peer

    out = spark_peer.spark_linear_svc(data_file(name), args.C, max_iter=args.spark_max_iter,
                                      tol=args.spark_tol, n_features=X.shape[1], threads=2)
    # Spark's column j is our column j, its positive class the larger label (spark_peer)
    primal = spark_peer.hinge_primal(X, y, out["coef"], args.C)
    return {"solver": "Spark LinearSVC", "seconds": out["seconds"], "rounds": out["iterations"],
            "primal": primal, "dual": float("nan"), "gap": float("nan"),
            "status": out["status"], "threads": "local[2]", "notes": out["notes"]}


def best(runs):
    chosen = dict(min(runs, key=lambda r: r["seconds"]))
    chosen["all_seconds"] = [r["seconds"] for r in runs]
    return chosen


#: The kernel part's sets, named as bench_kernel.py names them (ijcnn1+t: ijcnn1's
#: training and test files stacked; its C and gamma are ijcnn1's).
KERNEL_SETS = ("ijcnn1", "ijcnn1+t")


def tuned_params(name="ijcnn1"):
    """C and gamma of ``name`` from bench_kernel.py's grid search (--part search)."""
    params = json.loads((RESULTS_DIR / "kernel_tuned_params.json").read_text())
    chosen, = [r for r in params["results"] if r["dataset"] == name]
    return chosen["C"], chosen["gamma"]


def kernel_data(name):
    """(dense X, y, test X or None, test y or None) of a kernel set."""
    X, y = load("ijcnn1")
    Xt, yt = load("ijcnn1", "test")
    if name == "ijcnn1+t":
        return np.vstack([X.toarray(), Xt.toarray()]), np.concatenate([y, yt]), None, None
    return X.toarray(), y, Xt.toarray(), yt


def kernel_in_memory(X, y, params, threads):
    """dualsvm.SVC on ``threads`` threads (Numba's pool)."""
    import numba

    from dualsvm import SVC

    numba.set_num_threads(threads)
    try:
        model = SVC(**params)
        with Clock() as clock:
            model.fit(X, y)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return model, {"solver": f"SVC ({model.solver_used_}, in memory)", "threads": str(threads),
                   **clock.timing, "iterations": int(model.n_iter_[0])}


def kernel_on_cluster(client, X, y, params, workers):
    """dualsvm.dask.SVC on ``client``'s cluster, the rows in one chunk a worker (solver
    'dc': ``levels s`` and ``level MB``, the levels' seconds and bytes; the other
    columns are the final working sets')."""
    import dask.array as da

    from dualsvm.dask import SVC

    Xd = da.from_array(X, chunks=(-(-X.shape[0] // workers), X.shape[1]))
    model = SVC(**params)
    with client.as_current(), Clock() as clock:
        model.fit(Xd, y)
    history = model.history_[0]
    last = history[-1]
    levels = [r for r in history if r.get("level", 0) > 0]
    final = history[len(levels):]
    dc = {"levels_seconds": levels[-1]["seconds"],
          "level_bytes": float(sum(r["bytes"] for r in levels))} if levels else {}
    name = "dask SVC" if model.solver == "ws" else "dask SVC(solver='dc')"
    return model, {"solver": f"{name}, {workers} worker(s)", "threads": f"{workers} x 1",
                   **clock.timing, "iterations": int(last["outer_iterations"]),
                   "load_seconds": clock.seconds - last["seconds"],
                   "exchange_seconds": last["exchange_seconds"],
                   "worker_seconds": last["worker_seconds"],
                   "bytes_per_iteration": float(np.mean([r["bytes"] for r in final])),
                   "kernel_evaluations": int(last["kernel_evaluations"]),
                   "working_set": int(last["working_set"]), **dc}


def kernel_part(args):
    """The kernel part (module docstring)."""
    from distributed import Client, LocalCluster

    args.name = args.name or "dask_kernel"
    record = new_record()
    C, gamma = tuned_params()
    common = dict(C=C, kernel="rbf", gamma=gamma, tol=1e-3, cache_size=args.cache_mb)
    rows = []
    clusters = {w: LocalCluster(n_workers=w, threads_per_worker=1, processes=True,
                                dashboard_address=None) for w in args.workers_list}
    clients = {w: Client(cluster, set_as_default=False) for w, cluster in clusters.items()}
    try:
        tiny = (np.eye(40, 22) + 0.1, np.arange(40) % 2)
        dc = dict(common, solver="dc", random_state=0)
        for w, client in clients.items():  # compile on every worker before any clock
            for params in (common, dc):
                kernel_on_cluster(client, *tiny, params, w)
        kernel_in_memory(*tiny, common, 1)
        kernel_in_memory(*tiny, dc, 2)
        for name in args.kernel_sets:
            X, y, Xt, yt = kernel_data(name)
            fits = {f"memory-{t}": (lambda t=t: kernel_in_memory(X, y, common, t))
                    for t in (1, 2)}
            fits["memory-dc-2"] = lambda: kernel_in_memory(X, y, dc, 2)
            for key, params in (("dask", common), ("dask-dc", dc)):
                fits.update({f"{key}-{w}": (lambda w=w, params=params:
                                            kernel_on_cluster(clients[w], X, y, params, w))
                             for w in args.workers_list})
            models = {}

            def timed(fit, key):
                def run():
                    model, record = fit()
                    models[key] = model
                    print(f"  {name} {key}: {record['seconds']:.2f} s", flush=True)
                    return record
                return run

            chosen = best_of(args.repeats, {k: timed(f, k) for k, f in fits.items()},
                             log=lambda m: print(m, flush=True))
            reference = models["memory-2"].dual_[0]
            for key, r in chosen.items():
                model = models[key]
                r.update(data=name, repeats=args.repeats, n=X.shape[0], d=X.shape[1], C=C, gamma=gamma,
                         dual=float(model.dual_[0]), gap=float(model.gap_[0]),
                         status=model.status_[0], n_support=int(len(model.support_)),
                         dual_vs_memory=(float(model.dual_[0]) - reference) / abs(reference),
                         accuracy=None if Xt is None else float(model.score(Xt, yt)))
                rows.append(r)
                print(f"{name:>11} {r['solver']:>28} {r['seconds']:8.2f} s "
                      f"{r['iterations']:6d} it dual {r['dual']:.10g} "
                      f"({r['dual_vs_memory']:+.1e})", flush=True)
    finally:
        for client in clients.values():
            client.close()
        for cluster in clusters.values():
            cluster.close()
    record["results"] = rows
    save(record, args, kernel_markdown)


def kernel_markdown(record, args):
    lines = ["RBF, C and gamma from benchmarks/results/kernel_tuned_params.json (bench_kernel.py "
             "--part search; ijcnn1+t: ijcnn1's training and test files, ijcnn1's values), "
             f"tol 1e-3, kernel cache {args.cache_mb:g} MB "
             "(in memory: float32 columns of all rows; on the cluster: float64 columns of "
             "each worker's rows, per worker). Best of the runs each set's heading gives. "
             "In-memory SVC on 1 and 2 threads; dask SVC on LocalClusters "
             "of 1, 2, 4 worker processes of one thread each (4 processes share the 2 "
             "cores). `iterations`: working sets (outer iterations). `load s`: building the "
             "partitions from the dask array, inside the wall time. `exchange s`: the round "
             "trips (the iterations but the client's sub-problems); `worker s`: the busiest "
             "worker's part of them. `q`: the working set. `bytes/it`: between the client "
             "and the workers per iteration. `dual vs memory`: (D - D_memory) / D_memory, "
             "against in-memory SVC on 2 threads. Divide and conquer (`solver='dc'`, its "
             "defaults: one level of about n / 2000 clusters): `levels s`, the level "
             "(clustering, assignment, the clusters' SMO on the workers) inside the wall "
             "time; `level MB`, the bytes it moved (each cluster's rows sent to the worker "
             "that solves it, the sample, a and the slacks); the columns from `exchange s` to "
             "`KB/it` are its final working sets'. In-memory `iterations`: the solver's own "
             "(SMO steps for 'dc').\n"]
    current = None
    for r in record["results"]:
        if r["data"] != current:
            current = r["data"]
            lines += [f"\n## {current}: n = {r['n']}, d = {r['d']}, C = {r['C']:g}, "
                      f"gamma = {r['gamma']:g}, best of {r['repeats']}\n",
                      "| solver | threads | wall s | load s | levels s | level MB | exchange s | "
                      "worker s | iterations | q | KB/it | kernel evals | dual | dual vs memory "
                      "| nSV | test acc. | status |",
                      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        nan = float("nan")
        accuracy = "" if r.get("accuracy") is None else f"{r['accuracy']:.4f}"
        lines.append(
            f"| {r['solver']} | {r['threads']} | {r['seconds']:.2f} | "
            f"{r.get('load_seconds', nan):.2f} | {r.get('levels_seconds', nan):.2f} | "
            f"{r.get('level_bytes', nan) / 1e6:.1f} | {r.get('exchange_seconds', nan):.2f} | "
            f"{r.get('worker_seconds', nan):.2f} | {r['iterations']} | "
            f"{r.get('working_set', '')} | {r.get('bytes_per_iteration', nan) / 1e3:.0f} | "
            f"{r.get('kernel_evaluations', '')} | {r['dual']:.10g} | "
            f"{r['dual_vs_memory']:+.1e} | {r['n_support']} | {accuracy} | {r['status']} |")
    return page("Kernel SVC on Dask (the distributed working sets, divide and conquer) and in "
                "memory", record, lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    parser.add_argument("--dataset-dir", nargs="+", default=[],
                        help="already converted datasets (no svmlight file: no Spark run)")
    parser.add_argument("--losses", nargs="+", default=list(LOSSES), choices=LOSSES)
    parser.add_argument("--partitions", nargs="+", type=int, default=[1, 2, 4, 8])
    parser.add_argument("--sigma", nargs="+", default=["K"],
                        help="sigma' of CoCoA+: 'K', 'adaptive' or numbers (each is run)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory", type=float,
                        help="MB of rows per worker; partitions then stay on disk, each with "
                             "its share (default: partitions in memory)")
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--gap-tol", type=float, default=1e-3)
    parser.add_argument("--local-epochs", type=lambda v: v if v == "auto" else int(v),
                        help="CoCoA+'s local epochs a round (default: the estimator's, auto)")
    parser.add_argument("--max-rounds", type=int,
                        help="CoCoA+'s rounds at most (default: the estimator's, 1000)")
    parser.add_argument("--block-mb", type=float, default=0.25)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--time-limit", type=float)
    parser.add_argument("--spark-max-iter", type=int, default=100)
    parser.add_argument("--spark-tol", type=float, default=1e-6)
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--no-single", action="store_true",
                        help="skip single-process DCD (data larger than memory)")
    parser.add_argument("--workdir", default=os.path.join("/tmp", "dualsvm-bench-dask"))
    parser.add_argument("--output-dir", default=str(RESULTS_DIR))
    parser.add_argument("--name", help="results file name (default dask, dask_kernel)")
    parser.add_argument("--merge", action="store_true",
                        help="keep the runs of other sets in the results file (a part run)")
    parser.add_argument("--part", choices=("linear", "kernel"), default="linear")
    parser.add_argument("--kernel-sets", nargs="+", default=list(KERNEL_SETS),
                        choices=list(KERNEL_SETS))
    parser.add_argument("--workers-list", nargs="+", type=int, default=[1, 2, 4])
    parser.add_argument("--cache-mb", type=float, default=1000.0,
                        help="kernel cache, in memory and per worker (default 1000)")
    args = parser.parse_args()
    if args.part == "kernel":
        return kernel_part(args)
    args.name = args.name or "dask"

    from distributed import Client, LocalCluster

    from dualsvm.outofcore import DiskDataset
    from dualsvm.outofcore import convert

    os.makedirs(args.workdir, exist_ok=True)
    record = new_record()
    info = record["machine"]
    targets = [(name, converted(name, args)) for name in ([] if args.dataset_dir else args.sets)]
    targets += [(os.path.basename(os.path.normpath(d)), DiskDataset(d)) for d in args.dataset_dir]
    args.sigma = [v if v in ("K", "adaptive") else float(v) for v in args.sigma]
    if not args.no_spark and not args.dataset_dir and any(n != "disjoint" for n in args.sets):
        import spark_peer

        info["pyspark"] = spark_peer.ensure_pyspark(spark_peer.ensure_java())
    rows = []
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        # compile the kernels on every worker before any clock
        warm_up = os.path.join(args.workdir, "warm-up")
        tiny = DiskDataset(warm_up) if os.path.isdir(warm_up) else convert(
            str(data_file("heart_scale")), warm_up, block_mb=0.004)
        for loss in args.losses:
            cocoa(str(tiny.path), loss, 2, None, argparse.Namespace(**{**vars(args), "max_rounds": 2}))
        for name, ds in targets:
            about = {"data": name, "n": ds.n_samples, "d": ds.n_features, "nnz": ds.nnz,
                     "blocks": ds.n_blocks, "in_memory_mb": ds.nbytes / 2**20, "C": args.C}
            X = y = None
            if not (args.no_single and args.no_spark) and not args.dataset_dir:
                X, y = ds.load()
            for loss in args.losses:
                runs = {}
                for _ in range(args.repeats):
                    if not args.no_single:
                        runs.setdefault("single", []).append(single(X, y, loss, args))
                    for sigma in args.sigma:
                        for K in args.partitions:
                            per_worker = -(-min(K, ds.n_blocks) // args.workers)
                            memory = None if args.memory is None else args.memory / per_worker
                            data = ds.fit_input() if isinstance(ds, Disjoint) else str(ds.path)
                            runs.setdefault((sigma, K), []).append(
                                cocoa(data, loss, K, memory, args, sigma))
                    if (loss == "hinge" and not args.no_spark and not args.dataset_dir
                            and not isinstance(ds, Disjoint)):
                        runs.setdefault("spark", []).append(spark(name, X, y, args))
                chosen = [best(r) for r in runs.values()]
                dual_bound = max(r["dual"] for r in chosen if np.isfinite(r["dual"]))
                ones = {r["sigma_option"]: r for r in chosen if r.get("K") == 1}
                for r in chosen:
                    r.update(about, loss=loss, best_dual=dual_bound,
                             to_best_dual=(r["primal"] - dual_bound) / r["primal"])
                    if "K" in r and r["sigma_option"] in ones:
                        r["rounds_vs_K1"] = r["rounds"] / ones[r["sigma_option"]]["rounds"]
                    rows.append(r)
                    print(f"{name:>10} {loss:>13} {r['solver']:>18} {r['seconds']:8.2f} s "
                          f"{r['rounds']!s:>5} rounds gap {r['gap']:.1e} "
                          f"(P - D*)/P {r['to_best_dual']:.1e} {r['status']}", flush=True)
    record["results"] = rows
    save(record, args, markdown)


def save(record, args, markdown):
    """The results file and page; with ``--merge``, the runs of the sets this run did not
    measure are kept from the file (a benchmark made in parts)."""
    if args.merge:
        record = merge(Path(args.output_dir) / f"{args.name}.json", record,
                       key=lambda r: r["data"])
    write_results(args.output_dir, args.name, record, markdown(record, args))


def markdown(record, args):
    budget = ("partitions in the workers' memory" if args.memory is None else
              f"partitions on disk, {args.memory:g} MB of rows per worker")
    epochs = ("local_epochs='auto' (mean per round in `epochs`)" if args.local_epochs in
              (None, "auto") else f"{args.local_epochs} local DCD epoch(s) per round")
    lines = [f"C = {args.C:g}, no bias. dualsvm runs stop at a relative duality gap of "
             f"{args.gap_tol:g} (one function for all); CoCoA+ runs {epochs}, "
             f"{budget}; Spark runs L-BFGS to tol {args.spark_tol:g} or "
             f"{args.spark_max_iter} iterations. Best of {args.repeats}. `rounds`: CoCoA+ rounds, "
             "DCD epochs, Spark iterations. `MB/round`: bytes between the client and the "
             "workers per round (w out, updates and certificate sums back, checkpoints). "
             "`(P - D*)/P`: the primal reached against the best certified dual bound of the "
             "row. `load s`: reading the partitions on the workers, inside CoCoA+'s wall time. "
             "`sigma'`: CoCoA+'s sigma' in the last round (K unless the solver says "
             "otherwise); no round is rejected: the exact search keeps the dual from "
             "falling whatever sigma' is. `rounds / K=1`: against K = 1 with the same "
             "sigma' option.\n"]
    current = None
    for r in record["results"]:
        if r["data"] != current:
            current = r["data"]
            lines += [f"\n## {current}: n = {r['n']}, d = {r['d']}, nnz = {r['nnz']}, "
                      f"{r['in_memory_mb']:.1f} MB in memory, {r['blocks']} blocks\n",
                      "| loss | solver | threads | wall s | load s | rounds | rounds / K=1 | "
                      "epochs | sigma' | MB/round | primal | rel. gap | (P - D*)/P | status |",
                      "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        lines.append(
            f"| {r['loss']} | {r['solver']} | {r['threads']} | {r['seconds']:.2f} | "
            f"{r.get('load_seconds', float('nan')):.2f} | {r['rounds']} | "
            f"{r.get('rounds_vs_K1', float('nan')):.2f} | "
            f"{r.get('local_epochs', float('nan')):.1f} | {r.get('sigma', float('nan')):.3g} | "
            f"{r.get('mb_per_round', float('nan')):.3f} | "
            f"{r['primal']:.10g} | {r['gap']:.1e} | {r['to_best_dual']:.1e} | {r['status']} |")
    return page("CoCoA+ on Dask, single-process DCD and Spark MLlib", record, lines)


if __name__ == "__main__":
    main()
