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

Usage (a quiet machine)::

    python benchmarks/bench_dask.py                     # a9a, w8a, ijcnn1
    # a converted directory larger than memory: partitions on disk, one pass a round
    python benchmarks/bench_dask.py --dataset-dir DIR --memory 2048 --local-epochs 1 \\
        --C 0.001 --repeats 1 --no-single --name dask_10gb
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import DATA_DIR, RESULTS_DIR, data_file, new_record, page, write_results  # noqa: E402

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
    """CoCoA+ on ``data``: a block directory's path or a (dask array, labels) pair."""
    from dualsvm.dask import LinearSVC

    model = LinearSVC(C=args.C, loss=loss, fit_intercept=False, gap_tol=args.gap_tol,
                      max_rounds=args.max_rounds, local_epochs=args.local_epochs,
                      n_partitions=K, memory=memory, sigma=sigma, time_limit=args.time_limit,
                      random_state=0)
    start = time.perf_counter()
    model.fit(*(data if isinstance(data, tuple) else (data,)))
    seconds = time.perf_counter() - start
    rounds_seconds = model.history_[-1]["seconds"]
    label = f"cocoa+ K={K}" + ("" if sigma == "K" else f" sigma'={sigma}")
    return {"solver": label, "K": model.n_partitions_, "sigma": model.sigma_,
            "sigma_option": sigma, "seconds": seconds,
            "rounds_seconds": rounds_seconds, "load_seconds": seconds - rounds_seconds,
            "rounds": model.n_rounds_, "primal": float(model.primal_[0]),
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
    parser.add_argument("--local-epochs", type=int, default=5)
    parser.add_argument("--max-rounds", type=int, default=2000)
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
    parser.add_argument("--name", default="dask")
    args = parser.parse_args()

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
            str(DATA_DIR / "heart_scale"), warm_up, block_mb=0.004)
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
    record["runs"] = rows
    write_results(args.output_dir, args.name, record, markdown(record, args))


def markdown(record, args):
    budget = ("partitions in the workers' memory" if args.memory is None else
              f"partitions on disk, {args.memory:g} MB of rows per worker")
    lines = [f"C = {args.C:g}, no bias. dualsvm runs stop at a relative duality gap of "
             f"{args.gap_tol:g} (one function for all); CoCoA+ runs {args.local_epochs} local "
             f"DCD epoch(s) per round, {budget}; Spark runs L-BFGS to tol {args.spark_tol:g} or "
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
    for r in record["runs"]:
        if r["data"] != current:
            current = r["data"]
            lines += [f"\n## {current}: n = {r['n']}, d = {r['d']}, nnz = {r['nnz']}, "
                      f"{r['in_memory_mb']:.1f} MB in memory, {r['blocks']} blocks\n",
                      "| loss | solver | threads | wall s | load s | rounds | rounds / K=1 | "
                      "sigma' | MB/round | primal | rel. gap | (P - D*)/P | status |",
                      "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        lines.append(
            f"| {r['loss']} | {r['solver']} | {r['threads']} | {r['seconds']:.2f} | "
            f"{r.get('load_seconds', float('nan')):.2f} | {r['rounds']} | "
            f"{r.get('rounds_vs_K1', float('nan')):.2f} | {r.get('sigma', float('nan')):.3g} | "
            f"{r.get('mb_per_round', float('nan')):.3f} | "
            f"{r['primal']:.10g} | {r['gap']:.1e} | {r['to_best_dual']:.1e} | {r['status']} |")
    return page("CoCoA+ on Dask, single-process DCD and Spark MLlib", record, lines)


if __name__ == "__main__":
    main()
