"""Out-of-core training (BM, SBM, DCL) beside in-memory DCD, under a memory budget.

Every run is a fresh subprocess that imports dualsvm, compiles the kernels on a
tiny dataset, resets its peak RSS (``/proc/self/clear_refs``) and records the RSS
after imports; it then trains and reports wall time (JIT excluded), passes over
the disk (evaluation passes included), peak RSS above the post-import RSS, the
primal objective and the relative duality gap. The in-memory run reads the
whole dataset (through the same block reader) and runs DCD; its primal is the
reference for the relative difference.

Usage (timing runs under the shared lock)::

    flock /tmp/dualsvm-bench.lock python benchmarks/bench_outofcore.py \\
        --data DIR [DIR ...] --fraction 0.25 --out benchmarks/results/outofcore

    # one method on one dataset (the 10 GB run)
    python benchmarks/bench_outofcore.py --data DIR --methods dcl bm --memory 2048 \\
        --no-in-memory --time-limit 1800 --out benchmarks/results/outofcore_10gb

Datasets are made by ``dualsvm convert`` (see benchmarks/README.md).
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def _rss_kb(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def run_one(args):
    """In the subprocess: warm up, reset the peak, train, print one JSON line."""
    import tempfile

    import numpy as np

    from dualsvm.outofcore import DiskDataset, convert, fit
    from dualsvm.problem import DualProblem
    from dualsvm.solvers import DualCD, Stopping, run_epochs

    data = os.environ.get("DUALSVM_DATA", "/work/shared/data")
    with tempfile.TemporaryDirectory() as tmp:  # compile everything on a tiny set
        tiny = convert(os.path.join(data, "heart_scale"), os.path.join(tmp, "h"), block_mb=0.002)
        for method in ("bm", "sbm", "dcl"):
            fit(tiny, method=method, memory=0.02, max_iter=2)
        X, y = tiny.load()
        p = DualProblem(X, np.where(y > 0, 1.0, -1.0), np.ones(len(y)), args.loss, "augmented")
        run_epochs(DualCD(p, 0.1, random_state=np.random.default_rng(0)), p, Stopping(max_iter=2))
        del X, y, p
    ds = DiskDataset(args.run_data)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM to the current RSS
    base = _rss_kb("VmRSS")
    start = time.perf_counter()
    if args.run_method == "in-memory":
        X, y = ds.load()
        loaded = time.perf_counter() - start
        problem = DualProblem(X, np.where(y == ds.labels[-1], 1.0, -1.0),
                              np.full(len(y), args.run_C), args.loss, "augmented")
        solver = DualCD(problem, args.tol_in_memory, random_state=np.random.default_rng(0))
        r = run_epochs(solver, problem, Stopping(max_iter=100000, monitor=False,
                                                 time_limit=args.time_limit))
        out = {"passes": 1.0, "epochs": r.n_iter, "load_seconds": loaded}
    else:
        r = fit(ds, method=args.run_method, memory=args.run_memory, C=args.run_C, loss=args.loss,
                gap_tol=args.gap_tol, max_iter=100000, time_limit=args.time_limit,
                random_state=0)
        out = {"passes": r.passes, "epochs": r.n_iter,
               "cache_rows": max(h.get("cache_size", 0) for h in r.history) if r.history else 0,
               "history": [{k: h[k] for k in ("epoch", "seconds", "primal", "dual", "gap",
                                               "passes", "cache_size")} for h in r.history]}
    seconds = time.perf_counter() - start
    out.update(seconds=seconds, primal=r.primal, dual=r.dual, gap=r.gap, status=r.status,
               peak_mb=(_rss_kb("VmHWM") - base) / 1024, base_mb=base / 1024)
    print(json.dumps(out))


def measure(data, method, memory, args):
    cmd = [sys.executable, __file__, "--run-data", data, "--run-method", method,
           "--run-memory", str(memory), "--run-C", str(args.run_C), "--loss", args.loss,
           "--gap-tol", str(args.gap_tol), "--tol-in-memory", str(args.tol_in_memory)]
    if args.time_limit:
        cmd += ["--time-limit", str(args.time_limit)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{method} on {data} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", nargs="+", help="dataset directories (dualsvm convert)")
    parser.add_argument("--methods", nargs="+", default=["bm", "sbm", "dcl"])
    parser.add_argument("--fraction", type=float, default=0.25,
                        help="memory budget as a fraction of the in-memory size")
    parser.add_argument("--memory", type=float, help="memory budget in MB (overrides --fraction)")
    parser.add_argument("--no-in-memory", action="store_true")
    parser.add_argument("--C", type=float, nargs="+", default=[1.0],
                        help="C, one for all datasets or one per dataset")
    parser.add_argument("--loss", default="squared_hinge")
    parser.add_argument("--gap-tol", type=float, default=5e-4)
    parser.add_argument("--tol-in-memory", type=float, default=1e-4)
    parser.add_argument("--time-limit", type=float)
    parser.add_argument("--out")
    parser.add_argument("--run-data", help=argparse.SUPPRESS)
    parser.add_argument("--run-method", help=argparse.SUPPRESS)
    parser.add_argument("--run-memory", type=float, help=argparse.SUPPRESS)
    parser.add_argument("--run-C", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run_data:
        return run_one(args)

    import numpy as np

    from dualsvm import __version__
    from dualsvm.outofcore import DiskDataset

    rows = []
    costs = args.C * len(args.data) if len(args.C) == 1 else args.C
    for data, C in zip(args.data, costs, strict=True):
        args.run_C = C
        ds = DiskDataset(data)
        memory = args.memory or args.fraction * ds.nbytes / 2**20
        info = {"data": os.path.basename(os.path.normpath(data)), "C": C, "n": ds.n_samples,
                "d": ds.n_features, "nnz": ds.nnz, "blocks": ds.n_blocks,
                "memory_mb": memory, "in_memory_mb": ds.nbytes / 2**20,
                "disk_mb": ds.disk_nbytes / 2**20, "block_mb": ds.max_block_nbytes / 2**20}
        reference = None
        methods = ([] if args.no_in_memory else ["in-memory"]) + args.methods
        for method in methods:
            result = measure(data, method, memory, args)
            if method == "in-memory":
                reference = result["primal"]
            result.update(info, method=method,
                          rel_diff=None if reference is None else (result["primal"] - reference) / reference)
            rows.append(result)
            print(f"{info['data']:>22} {method:>9} {result['seconds']:9.1f} s "
                  f"{result['passes']:7.1f} passes {result['peak_mb']:8.1f} MB peak "
                  f"primal {result['primal']:.8g} gap {result['gap']:.1e} "
                  f"rel {result['rel_diff'] if result['rel_diff'] is not None else float('nan'):.1e} "
                  f"{result['status']}", flush=True)
    if args.out:
        machine = {"python": platform.python_version(), "machine": platform.machine(),
                   "cpus": os.cpu_count(), "dualsvm": __version__, "numpy": np.__version__}
        command = "python benchmarks/bench_outofcore.py " + " ".join(sys.argv[1:])
        with open(args.out + ".json", "w") as f:
            json.dump({"command": command, "machine": machine, "runs": rows}, f, indent=1)
        with open(args.out + ".md", "w") as f:
            f.write(_markdown(rows, command, machine, args))


def _markdown(rows, command, machine, args):
    lines = [f"# Out-of-core training\n\nCommand: `{command}`\n\nMachine: {machine}\n",
             f"Problem: {args.loss}, augmented bias (B = 1), C per dataset. Out-of-core runs "
             f"stop at a relative duality gap of {args.gap_tol:g} (certified after each pass "
             f"by one more pass); in-memory DCD stops at LIBLINEAR's tol = "
             f"{args.tol_in_memory:g}. Peak RSS is above the RSS after imports and JIT; the "
             "budget bounds rows in memory (blocks and caches), the O(n + d) vectors "
             "(alpha, w) come on top. Passes count every read of the data on disk.\n"]
    current = None
    for r in rows:
        if r["data"] != current:
            current = r["data"]
            lines.append(f"\n## {current}, C = {r['C']:g}: n = {r['n']}, d = {r['d']}, nnz = {r['nnz']}, "
                         f"{r['in_memory_mb']:.0f} MB in memory, {r['disk_mb']:.0f} MB on disk "
                         f"({r['blocks']} blocks of <= {r['block_mb']:.1f} MB); budget "
                         f"{r['memory_mb']:.0f} MB\n")
            lines.append("| method | wall s | passes | peak RSS MB | primal | rel. gap | "
                         "rel. diff to in-memory | cache rows | status |")
            lines.append("|---|---|---|---|---|---|---|---|---|")
        rel = "" if r["rel_diff"] is None else f"{r['rel_diff']:.1e}"
        lines.append(f"| {r['method']} | {r['seconds']:.1f} | {r['passes']:.1f} | "
                     f"{r['peak_mb']:.0f} | {r['primal']:.10g} | {r['gap']:.1e} | {rel} | "
                     f"{r.get('cache_rows', '')} | {r['status']} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
