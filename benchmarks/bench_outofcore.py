"""Out-of-core training (BM, SBM, DCL) beside in-memory DCD, under a memory budget.

For every data set and loss, every method stops on the same rule: the relative
duality gap (P - D) / P <= ``--gap-tol``, computed by ``dualsvm.problems.objectives.relative_gap``
(in memory after every epoch; out of core, each pass certifies exactly the mean
of w over the pass before, see ``dualsvm.outofcore.solvers``). Each solver's own
projected-gradient ``tol`` is 1e-12, so the gap is what stops them.

Setup is outside the clock for every method: the svmlight file is converted
once (``dualsvm convert``, rows shuffled) into blocks of at most 1/16 of the
budget, and the in-memory run loads that dataset before its clock starts. Each
run is a fresh subprocess that imports dualsvm, compiles the kernels on a tiny
set, resets its peak RSS (``/proc/self/clear_refs``) and then trains. Best of
``--repeats`` runs (interleaved across methods); peak RSS is the largest of
them, above the RSS after imports and JIT. Threads: in-memory DCD runs on one
thread (BLAS limited to one, as out-of-core fit does); BM and SBM run two reader
threads (read, check, decompress each block) beside the trainer when the budget
holds at least 8 blocks, DCL one (that also screens each block).

The I/O floor: each run also times one sequential read of every block (file read,
CRC, decompression and checks on one thread, ``io_floor``) in its own process just
before the fit; a pass's wall time (the fit's over its passes) is reported against it.

Usage (timing runs under the exclusive CPU lock, nothing else running)::

    flock -x /tmp/dualsvm-cpu.lock python benchmarks/bench_outofcore.py

    # the 10 GB run: a converted directory, one method, a fixed budget
    python benchmarks/bench_outofcore.py --dataset-dir DIR --methods dcl bm \\
        --memory 2048 --repeats 1 --time-limit 1800 --output-dir /tmp/ooc10
"""

import argparse
import json
import os
import shlex
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import DATA_DIR, RESULTS_DIR, data_file, new_record, page, write_results  # noqa: E402

SETS = {  # name: (public set, degree-2 expansion)
    "a9a": ("a9a", False),
    "w8a": ("w8a", False),
    "ijcnn1": ("ijcnn1", False),
    "a9a-poly2": ("a9a", True),
    "ijcnn1-poly2": ("ijcnn1", True),
}
METHODS = ("in-memory", "bm", "sbm", "dcl")
LOSSES = ("squared_hinge", "hinge")


def _rss_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def io_floor(dataset):
    """Seconds of one sequential read of every block of ``dataset``: file read, CRC,
    decompression and the block checks, as a reader thread does them, in file order,
    on one thread. A pass of training cannot take less."""
    start = time.perf_counter()
    for _ in dataset.iter_blocks():
        pass
    return time.perf_counter() - start


def run_one(args):
    """In the subprocess: warm up, time the I/O floor, reset the peak, train, print one
    JSON line."""
    import tempfile

    import numpy as np

    from dualsvm.outofcore import DiskDataset, fit
    from dualsvm.outofcore import convert
    from dualsvm.problems.linear import DualProblem
    from dualsvm.solvers import DualCD, Stopping, run_epochs

    with tempfile.TemporaryDirectory() as tmp:  # compile everything on a tiny set
        tiny = convert(str(DATA_DIR / "heart_scale"), os.path.join(tmp, "h"), block_mb=0.002)
        for method in ("bm", "sbm", "dcl"):
            fit(tiny, method=method, memory=0.05, max_iter=2, loss=args.loss)
        X, y = tiny.load()
        p = DualProblem(X, np.where(y > 0, 1.0, -1.0), np.ones(len(y)), args.loss, "augmented")
        run_epochs(DualCD(p, 0.1, random_state=np.random.default_rng(0)), p,
                   Stopping(max_iter=2, gap_tol=1e-3))
        del X, y, p
    ds = DiskDataset(args.run_data)
    # the floor in this process and the page cache's state of the fit: best of two
    # reads (the first may bring the file into the page cache, as a fit's first pass does)
    floor = min(io_floor(ds), io_floor(ds))
    if args.run_method == "in-memory":  # loading is setup: before the clock and the peak
        X, y = ds.load()
        problem = DualProblem(X, np.where(y == ds.labels[-1], 1.0, -1.0),
                              np.full(len(y), args.C), args.loss, "augmented")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM to the current RSS
    base = _rss_kb("VmRSS")
    start = time.perf_counter()
    if args.run_method == "in-memory":
        # one thread, as stated (and as out-of-core fit limits BLAS): its gap's dot
        # products over n on a BLAS pool spun on both cores, and on a shared machine
        # took w8a's in-memory run from 0.22 to 3 s
        from threadpoolctl import threadpool_limits

        solver = DualCD(problem, 1e-12, random_state=np.random.default_rng(0))
        with threadpool_limits(1, user_api="blas"):
            r = run_epochs(solver, problem, Stopping(max_iter=100000, gap_tol=args.gap_tol,
                                                     time_limit=args.time_limit))
        seconds = time.perf_counter() - start
        out = {"passes": 0.0, "epochs": r.n_iter, "primal": r.primal, "dual": r.dual,
               "gap": r.gap, "status": r.status}
    else:
        r = fit(ds, method=args.run_method, memory=args.run_memory, C=args.C, loss=args.loss,
                tol=1e-12, gap_tol=args.gap_tol, max_iter=100000, time_limit=args.time_limit,
                random_state=args.seed)
        seconds = time.perf_counter() - start
        history = r.history_[0]
        out = {"passes": history[-1]["passes"], "epochs": r.n_iter_, "primal": float(r.primal_[0]),
               "dual": float(r.dual_[0]), "gap": float(r.gap_[0]), "status": r.status_[0],
               "cache_rows": max(h["cache_size"] for h in history),
               "wait_share": float(np.mean([h["wait_share"] for h in history]))}
    out.update(floor_seconds=floor, pass_seconds=seconds / out["passes"] if out["passes"] else
               float("nan"))
    out["floor_ratio"] = out["pass_seconds"] / floor
    out.update(seconds=seconds, peak_mb=(_rss_kb("VmHWM") - base) / 1024, base_mb=base / 1024)
    print(json.dumps(out))


def measure(data, method, memory, loss, args):
    cmd = [sys.executable, __file__, "--run-data", data, "--run-method", method,
           "--run-memory", str(memory), "--C", str(args.C), "--run-loss", loss,
           "--gap-tol", str(args.gap_tol), "--seed", str(args.seed)]
    if args.time_limit:
        cmd += ["--time-limit", str(args.time_limit)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{method} on {data} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def prepared(name, args):
    """The converted dataset of set ``name`` with blocks of 1/16 of its budget, and the budget."""
    from dualsvm.outofcore import DiskDataset
    from dualsvm.outofcore import convert
    from dualsvm.outofcore.format import block_nbytes

    source, poly2 = SETS[name]
    whole = os.path.join(args.workdir, f"{name}-whole")
    if not os.path.isdir(whole):  # one block: its size gives the budget
        convert(str(data_file(source)), whole, block_mb=1e6, poly2=poly2, shuffle=False)
    full = DiskDataset(whole)
    budget = args.fraction * block_nbytes(full.n_samples, full.nnz) / 2**20
    path = os.path.join(args.workdir, f"{name}-blocks")
    if not os.path.isdir(path):
        convert(str(data_file(source)), path, block_mb=budget / 16, poly2=poly2,
                shuffle=True, seed=0)
    return path, budget


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    parser.add_argument("--dataset-dir", nargs="+", default=[],
                        help="already converted datasets (used as they are, with --memory)")
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS)
    parser.add_argument("--losses", nargs="+", default=list(LOSSES), choices=LOSSES)
    parser.add_argument("--fraction", type=float, default=0.25,
                        help="memory budget as a fraction of the in-memory size")
    parser.add_argument("--memory", type=float, help="budget in MB for --dataset-dir")
    parser.add_argument("--C", type=float, default=1.0)
    parser.add_argument("--gap-tol", type=float, default=1e-3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time-limit", type=float)
    parser.add_argument("--workdir", default=os.path.join("/tmp", "dualsvm-bench-ooc"),
                        help="where converted datasets are kept between runs")
    parser.add_argument("--output-dir", default=str(RESULTS_DIR))
    parser.add_argument("--name", default="outofcore")
    parser.add_argument("--run-data", help=argparse.SUPPRESS)
    parser.add_argument("--run-method", help=argparse.SUPPRESS)
    parser.add_argument("--run-memory", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--run-loss", help=argparse.SUPPRESS)
    parser.add_argument("--report", metavar="JSON",
                        help="rewrite the Markdown table of a results file from its JSON")
    args = parser.parse_args()
    if args.report:  # the run's own options, from the command it records
        with open(args.report) as f:
            saved = json.load(f)
        if "date" not in saved:  # written before common.page: the load at end in machine
            saved["date"] = "not recorded"
            saved["load_average_at_end"] = saved["machine"]["load_average_at_end"]
        options = parser.parse_args(shlex.split(saved["command"])[2:])
        with open(os.path.splitext(args.report)[0] + ".md", "w") as f:
            f.write(_markdown(saved, options))
        return None
    if args.run_data:
        args.loss = args.run_loss
        return run_one(args)

    from dualsvm.outofcore import DiskDataset

    os.makedirs(args.workdir, exist_ok=True)
    record = new_record()
    targets = [(name, *prepared(name, args)) for name in ([] if args.dataset_dir else args.sets)]
    targets += [(os.path.basename(os.path.normpath(d)), d, args.memory) for d in args.dataset_dir]
    rows = []
    for name, path, memory in targets:
        ds = DiskDataset(path)
        about = {"data": name, "C": args.C, "n": ds.n_samples, "d": ds.n_features,
                 "nnz": ds.nnz, "blocks": ds.n_blocks, "memory_mb": memory,
                 "in_memory_mb": ds.nbytes / 2**20, "disk_mb": ds.disk_nbytes / 2**20,
                 "block_mb": ds.max_block_nbytes / 2**20}
        for loss in args.losses:
            runs = {m: [] for m in args.methods}
            for _ in range(args.repeats):  # interleaved: load hits every method alike
                for method in args.methods:
                    runs[method].append(measure(path, method, memory, loss, args))
            reference = None
            for method in args.methods:
                best = min(runs[method], key=lambda r: r["seconds"])
                best["peak_mb"] = max(r["peak_mb"] for r in runs[method])
                best["all_seconds"] = [r["seconds"] for r in runs[method]]
                if method == "in-memory":
                    reference = best
                best.update(about, method=method, loss=loss)
                if reference is not None:
                    best["ratio"] = best["seconds"] / reference["seconds"]
                    best["rel_diff"] = (best["primal"] - reference["primal"]) / reference["primal"]
                rows.append(best)
                print(f"{name:>13} {loss:>13} {method:>9} {best['seconds']:8.2f} s "
                      f"x{best.get('ratio', float('nan')):5.2f} {best['passes']:6.1f} passes "
                      f"{best['peak_mb']:7.1f} MB peak gap {best['gap']:.1e} pass "
                      f"{best['pass_seconds']:.3f} s = {best['floor_ratio']:.2f} floor "
                      f"{best['status']}", flush=True)
    record["runs"] = rows
    write_results(args.output_dir, args.name, record, _markdown(record, args))


def _cell(run, key, spec):
    """``run[key]`` formatted, blank in records written before it was measured."""
    return format(run[key], spec) if key in run else ""


def _markdown(record, args):
    budget = (f"Budget: {args.memory:g} MB, blocks as converted." if args.dataset_dir else
              f"Budget: {args.fraction:g} of the data's in-memory size, blocks of at most 1/16 "
              "of the budget, rows shuffled at conversion.")
    lines = [f"C = {args.C:g}, augmented bias (B = 1). Every method stops at a relative duality "
             f"gap of {args.gap_tol:g}, computed by the same function (out of core: each pass "
             f"certifies exactly the mean of w over the pass before); solver tol 1e-12. {budget} "
             "Conversion and the in-memory run's loading "
             f"are outside the clock. Best of {args.repeats} runs. Threads: in-memory DCD 1 "
             "(BLAS too); BM and SBM two reader threads beside the trainer, DCL one. `ratio`: "
             "wall time over in-memory DCD's. `passes`: reads of the whole data (a final certificate's "
             "included). `peak`: peak RSS above the RSS after "
             "imports and JIT (max over the runs), against the budget; `n-vectors`: "
             "(peak - budget) / 8n, the O(n) part. `rel. diff`: primal against in-memory "
             "DCD's at the same gap. `wait`: mean share of a pass the trainer waited for "
             "the disk. `pass s`: wall time over passes; `floor s`: one sequential read, check and "
             "decompression of every block on one thread (`io_floor`), measured in the same "
             "process just before the fit; `/floor`: their ratio.\n"]
    current = None
    for r in record["runs"]:
        if r["data"] != current:
            current = r["data"]
            lines.append(f"\n## {current}: n = {r['n']}, d = {r['d']}, nnz = {r['nnz']}, "
                         f"{r['in_memory_mb']:.1f} MB in memory, {r['disk_mb']:.1f} MB on "
                         f"disk, {r['blocks']} blocks of <= {r['block_mb']:.2f} MB; budget "
                         f"{r['memory_mb']:.2f} MB\n")
            lines.append("| loss | method | wall s | ratio | passes | peak MB | "
                         "n-vectors | primal | rel. gap | rel. diff | cache rows | wait | pass s | "
                         "floor s | /floor | status |")
            lines.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        ooc = r["method"] != "in-memory"
        over = (r["peak_mb"] - r["memory_mb"]) * 2**20 / (8 * r["n"]) if ooc else float("nan")
        lines.append(
            f"| {r['loss']} | {r['method']} | {r['seconds']:.2f} | {r.get('ratio', float('nan')):.2f} | "
            f"{r['passes']:.0f} | {r['peak_mb']:.1f} | "
            f"{'' if not ooc else f'{over:.1f}'} | {r['primal']:.10g} | {r['gap']:.1e} | "
            f"{r.get('rel_diff', float('nan')):.1e} | {r.get('cache_rows', '')} | "
            f"{'' if not ooc else format(r['wait_share'], '.2f')} | "
            f"{_cell(r, 'pass_seconds', '.3g') if ooc else ''} | "
            f"{_cell(r, 'floor_seconds', '.3g')} | "
            f"{_cell(r, 'floor_ratio', '.2f') if ooc else ''} | {r['status']} |")
    return page("Out-of-core training", record, lines)


if __name__ == "__main__":
    main()
