"""Rounds of CoCoA+ (``dualsvm.dask.cocoa.CoCoA``) to a gap, run in this process without
Dask, for a sweep of sigma' and K: the driver's exact rounds (same local solves, same
search, same seeds per partition), with the cluster replaced by direct calls.

Counts rounds only (no seconds), so it runs on a busy machine; the cluster's own figures
are ``bench_dask.py``'s. Sets: the block directories ``bench_dask.py`` converts (into
``--workdir``; converted here when missing) and its generated ``disjoint`` set.

Usage::

    python benchmarks/rounds_dask.py --sets a9a w8a ijcnn1 reuters disjoint \\
        --sigma K adaptive 4 2 1
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import RESULTS_DIR, data_file, new_record, page  # noqa: E402



class _Done:
    """A finished future."""

    status = "finished"

    def __init__(self, value):
        self.value = value

    def done(self):
        return True

    def result(self):
        return self.value

    def cancel(self):
        pass


class InProcess:
    """The part of ``distributed.Client`` the driver uses, calling functions at once."""

    def submit(self, fn, *args, pure=None, workers=None, allow_other_workers=None):
        return _Done(fn(*[a.value if isinstance(a, _Done) else a for a in args]))

    def compute(self, delayed):
        return _Done(delayed.compute())

    def scheduler_info(self, n_workers=None):
        return {"workers": {"in-process": {}}}

    def gather(self, futures):
        return [f.value for f in futures]


def rounds(data, loss, K, sigma, args):
    """(rounds, status, last sigma') of CoCoA+ on ``data`` (a path or an (X, y) pair)."""
    from dualsvm.dask.cocoa import CoCoA, problem_classes
    from dualsvm.dask.estimator import _ArrayData, _DirectoryData
    from dualsvm.solvers import Stopping, run_epochs
    from dualsvm.data.validation import class_weights

    client = InProcess()
    if isinstance(data, tuple):
        import dask.array as da

        X, y = data
        source = _ArrayData(da.from_array(X, chunks=(X.shape[0] // 8, X.shape[1]),
                                          asarray=False), y, K)
    else:
        source = _DirectoryData(data, K, None, client)
    classes, counts = source.classes()
    options = (classes, args.C * class_weights(None, classes, counts), loss, "none", 1.0)
    sources = [source.source(client, k, options) for k in range(source.n_partitions)]
    solver = CoCoA(client, sources, source.n_rows, len(problem_classes(classes)),
                   source.n_features, n_features=source.n_features, bias="none",
                   bias_scale=1.0, local_epochs=args.local_epochs, seed=0,
                   checkpoint_every=5, sigma=sigma)
    result = run_epochs(solver, solver, Stopping(max_iter=args.max_rounds, gap_tol=args.gap_tol))
    return result.n_iter, result.status, solver.round_sigma


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", nargs="+", default=["a9a", "w8a", "ijcnn1", "reuters", "disjoint"])
    parser.add_argument("--losses", nargs="+", default=["hinge", "squared_hinge"])
    parser.add_argument("--partitions", nargs="+", type=int, default=[1, 8])
    parser.add_argument("--sigma", nargs="+", default=["K", "adaptive"])
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--gap-tol", type=float, default=1e-3)
    parser.add_argument("--local-epochs", type=int, default=5)
    parser.add_argument("--max-rounds", type=int, default=300)
    parser.add_argument("--workdir", default=os.path.join("/tmp", "dualsvm-bench-dask"))
    parser.add_argument("--output", default=str(RESULTS_DIR / "dask_rounds.md"))
    args = parser.parse_args()
    sigmas = [v if v in ("K", "adaptive") else float(v) for v in args.sigma]

    import bench_dask
    from dualsvm.outofcore import convert

    record = new_record()
    lines = [f"C = {args.C:g}, no bias, gap {args.gap_tol:g}, {args.local_epochs} local DCD "
             f"epochs a round, at most {args.max_rounds} rounds; partition seeds 0. A cell: "
             "rounds (sigma' of the last round); `>` when the limit stopped the run. The "
             "rows of `disjoint` (bench_dask.py) are in 8 groups with their own features, so "
             "K partitions share none.\n",
             "| set | loss | K | " + " | ".join(f"sigma' = {s}" for s in sigmas) + " |",
             "|---|---|---|" + "---|" * len(sigmas)]
    for name in args.sets:
        if name == "disjoint":
            ds = bench_dask.Disjoint()
            data = (ds.X, ds.y)
        else:
            data = os.path.join(args.workdir, f"{name}-0.25")
            if not os.path.isdir(data):
                convert(str(data_file(name)), data, block_mb=0.25, shuffle=True, seed=0)
        for loss in args.losses:
            for K in args.partitions:
                cells = []
                for sigma in sigmas:
                    if K == 1 and sigma != "K":  # sigma' = 1 under every rule but a number
                        cells.append("-")
                        continue
                    n, status, last = rounds(data, loss, K, sigma, args)
                    cells.append(f"{'>' if status != 'gap' else ''}{n} ({last:.3g})")
                    print(name, loss, K, sigma, n, status, last, flush=True)
                lines.append(f"| {name} | {loss} | {K} | " + " | ".join(cells) + " |")
    with open(args.output, "w") as f:
        f.write(page("CoCoA+ rounds to a gap, in process (no Dask)", record, lines))


if __name__ == "__main__":
    main()
