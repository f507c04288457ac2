"""``dualsvm.dask.LinearSVC`` at its default parameters: does it reach ``gap_tol``?

Issue #29's build item: a9a, w8a and ijcnn1 as dask arrays of CSR chunks in K = 1..8
row chunks, both losses, with and without bias, on a LocalCluster of 2 worker
processes of one thread; only C (1), loss, fit_intercept and random_state (0) are
set. Each run's rounds, mean local epochs a round (``local_epochs='auto'`` chooses
them from the measured time of a round), status, relative gap and primal against
in-memory ``dualsvm.LinearSVC`` to a gap of 1e-8. The seconds are one run's, on
whatever else the machine runs (a convergence table, not a timing).

Usage::

    python benchmarks/defaults_dask.py                  # 3 sets x 2 losses x 2 x 8 K
"""

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import RESULTS_DIR, load, new_record, page, write_results  # noqa: E402

SETS = ("a9a", "w8a", "ijcnn1")
LOSSES = ("hinge", "squared_hinge")


def run(X, y, loss, fit_intercept, K):
    import dask.array as da

    from dualsvm.dask import LinearSVC

    Xd = da.from_array(X, chunks=(-(-X.shape[0] // K), X.shape[1]), asarray=False)
    model = LinearSVC(C=1.0, loss=loss, fit_intercept=fit_intercept, random_state=0)
    start = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.fit(Xd, y)
    return model, time.perf_counter() - start, [str(w.message) for w in caught]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=SETS)
    parser.add_argument("--partitions", nargs="+", type=int, default=list(range(1, 9)))
    parser.add_argument("--output-dir", default=str(RESULTS_DIR))
    parser.add_argument("--name", default="dask_defaults")
    args = parser.parse_args()

    from distributed import Client, LocalCluster

    from dualsvm import LinearSVC

    record = new_record()
    rows = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        for name in args.sets:
            X, y = load(name)
            for loss in LOSSES:
                for bias in (False, True):
                    reference = LinearSVC(C=1.0, loss=loss, fit_intercept=bias, tol=1e-9,
                                          gap_tol=1e-8, max_iter=100000,
                                          random_state=0).fit(X, y).primal_[0]
                    for K in args.partitions:
                        model, seconds, caught = run(X, y, loss, bias, K)
                        r = {"data": name, "loss": loss, "fit_intercept": bias, "K": K,
                             "rounds": model.n_rounds_, "status": model.status_,
                             "gap": float(model.gap_[0]), "primal": float(model.primal_[0]),
                             "reference_primal": float(reference),
                             "primal_vs_reference": float(model.primal_[0] / reference - 1),
                             "local_epochs": float(np.mean([h["local_epochs"]
                                                            for h in model.history_])),
                             "seconds": seconds, "warnings": caught}
                        rows.append(r)
                        print(f"{name:>7} {loss:>13} bias={bias!s:5} K={K} {r['rounds']:4d} "
                              f"rounds {r['local_epochs']:5.1f} ep gap {r['gap']:.1e} "
                              f"P/P*-1 {r['primal_vs_reference']:+.1e} {r['status']} "
                              f"{seconds:.1f} s", flush=True)
    record["results"] = rows
    reached = sum(r["status"] == "gap" and r["gap"] <= 1e-3 for r in rows)
    lines = [f"`dualsvm.dask.LinearSVC(C=1, loss=..., fit_intercept=..., random_state=0)`, every "
             "other parameter at its default (gap_tol 1e-3, max_rounds 1000, local_epochs "
             "'auto', sigma' = K); dask arrays of CSR chunks, K row chunks; LocalCluster of 2 "
             "worker processes x 1 thread. A cell: rounds / mean local epochs a round / "
             "relative gap / primal against in-memory LinearSVC's at gap 1e-8 (P / P* - 1); "
             "`!` marks a run that stopped without reaching the gap. "
             f"**{reached} of {len(rows)} runs reached the gap.**\n"]
    parts = sorted({r["K"] for r in rows})
    lines += ["| set | loss | bias | " + " | ".join(f"K={K}" for K in parts) + " |",
              "|---|---|---|" + "---|" * len(parts)]
    for name in args.sets:
        for loss in LOSSES:
            for bias in (False, True):
                cells = []
                for K in parts:
                    r, = [r for r in rows if (r["data"], r["loss"], r["fit_intercept"], r["K"])
                          == (name, loss, bias, K)]
                    mark = "" if r["status"] == "gap" else "!"
                    cells.append(f"{mark}{r['rounds']} / {r['local_epochs']:.1f} / "
                                 f"{r['gap']:.1e} / {r['primal_vs_reference']:.0e}")
                lines.append(f"| {name} | {loss} | {'yes' if bias else 'no'} | "
                             + " | ".join(cells) + " |")
    seconds = [r["seconds"] for r in rows]
    lines += ["", f"Seconds a run (untimed: the machine shared): median {np.median(seconds):.1f}, "
              f"max {max(seconds):.1f}."]
    write_results(args.output_dir, args.name, record,
                  page("dualsvm.dask.LinearSVC at its defaults", record, lines))


if __name__ == "__main__":
    main()
