"""The four kernel solvers side by side: SMO, CGD (Tseng-Yun, 1 and 3 pairs), dual PGD, kernel DCD.

Every case is a random subsample (seeded) of a LIBSVM data set with the RBF kernel,
gamma = 1/n_features, C = 1, hinge loss. SMO, CGD and PGD solve the exact-bias dual
(y'a = 0); kernel DCD solves the dual without bias, a different problem, so its curve is
measured against its own optimum. Each solver runs once, in one process, after a warm-up
fit that compiles the Numba kernels (excluded), with a time limit; the dual objective
after every epoch comes from the solver's history records (the certificate of the point
reached: for PGD the repaired, feasible point).

Reference optimum D*: SMO with tol = 1e-6 (exact bias), kernel DCD with tol = 1e-6
(no bias). The figure plots (D* - D(t)) / |D*| against seconds; the table gives, per
solver, the seconds to reach relative suboptimality 1e-3 and 1e-6, the final value and
status, iterations and kernel evaluations.

Run from the repository root (``pip install -e .[bench,plot]``), under the lock::

    flock /tmp/dualsvm-bench.lock python benchmarks/bench_kernel_solvers.py
    python benchmarks/bench_kernel_solvers.py --quick   # smoke test, no files
"""

import argparse
import json
import os
import platform
import shlex
import sys
import time
from datetime import datetime, timezone
from importlib.metadata import version
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

from dualsvm.kernels import make_kernel
from dualsvm.problem import KernelDualProblem
from dualsvm.solvers import Stopping, run_epochs
from dualsvm.solvers.cgd import CGD
from dualsvm.solvers.dual_pgd import DualPGD
from dualsvm.solvers.kernel_dcd import KernelDCD
from dualsvm.solvers.smo import SMO

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("DUALSVM_DATA", REPO.parent / "shared" / "data"))
RESULTS_DIR = REPO / "benchmarks" / "results"

#: case name -> (file, rows sampled)
CASES = {"a9a-5000": ("a9a.bz2", 5000), "w7a-5000": ("w7a.bz2", 5000),
         "ijcnn1-5000": ("ijcnn1.bz2", 5000)}
#: label -> (solver class, bias, tol, options)
SOLVERS = {
    "SMO": (SMO, "exact", 1e-3, {}),
    "CGD": (CGD, "exact", 1e-6, {"pairs": 1}),
    "CGD 3-pair": (CGD, "exact", 1e-6, {"pairs": 3}),
    "dual PGD": (DualPGD, "exact", 1e-3, {"max_kernel_bytes": 2**30}),
    "kernel DCD (no bias)": (KernelDCD, "none", 1e-3, {}),
}
CACHE_MB = 200.0
LEVELS = (1e-3, 1e-6)


def load_case(name, rows):
    file, n = CASES[name]
    X, y = load_svmlight_file(str(DATA_DIR / file))
    pick = np.sort(np.random.default_rng(0).choice(X.shape[0], min(n, rows or n), replace=False))
    X, y = X[pick], y[pick]
    return X, np.where(y == np.unique(y)[1], 1.0, -1.0)


def problem(X, y, bias):
    kernel = make_kernel("rbf", gamma=1.0 / X.shape[1], X=X)
    return KernelDualProblem(X, y, np.ones(len(y)), "hinge", bias, kernel, CACHE_MB)


def run(solver_class, p, tol, options, time_limit):
    solver = solver_class(p, tol, random_state=np.random.default_rng(0), **options)
    start = time.perf_counter()
    result = run_epochs(solver, p, Stopping(max_iter=10**9, time_limit=time_limit))
    return solver, result, time.perf_counter() - start


def first_time_below(history, optimum, level):
    for r in history:
        if (optimum - r["dual"]) / abs(optimum) <= level:
            return r["seconds"]
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a9a, 1000 rows, no files")
    parser.add_argument("--time-limit", type=float, default=60.0)
    args = parser.parse_args()
    cases = ["a9a-5000"] if args.quick else list(CASES)
    rows = 1000 if args.quick else None

    warm = load_case("a9a-5000", 300)  # compile every solver's kernels (CSR and dense)
    for solver_class, bias, tol, options in SOLVERS.values():
        for data in (warm[0], warm[0].toarray()):
            run(solver_class, problem(data, warm[1], bias), tol, options, 5.0)

    results = {}
    for case in cases:
        X, y = load_case(case, rows)
        optimum = {}
        for bias, cls in (("exact", SMO), ("none", KernelDCD)):
            _, r, _ = run(cls, problem(X, y, bias), 1e-6, {}, 10 * args.time_limit)
            optimum[bias] = r.dual
        results[case] = {"n": X.shape[0], "d": X.shape[1], "optimum": optimum, "solvers": {}}
        for label, (solver_class, bias, tol, options) in SOLVERS.items():
            solver, r, seconds = run(solver_class, problem(X, y, bias), tol, options, args.time_limit)
            last = r.history[-1]
            results[case]["solvers"][label] = {
                "bias": bias, "tol": tol, "status": r.status, "seconds": seconds,
                "dual": r.dual, "gap": r.gap,
                "suboptimality": (optimum[bias] - r.dual) / abs(optimum[bias]),
                "iterations": int(getattr(solver, "n_iter", r.n_iter)),
                "kernel_evaluations": int(last.get("kernel_evaluations", 0)),
                **{f"seconds_to_{level:g}": first_time_below(r.history, optimum[bias], level)
                   for level in LEVELS},
                "curve": [(h["seconds"], h["dual"]) for h in r.history],
            }
            print(f"{case:12s} {label:22s} {r.status:10s} {seconds:8.2f}s dual {r.dual:.10g} "
                  f"subopt {results[case]['solvers'][label]['suboptimality']:.2e}", flush=True)
    if args.quick:
        return
    meta = {"command": "flock /tmp/dualsvm-bench.lock python " + shlex.join(sys.argv),
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": f"{platform.machine()} {platform.processor()} {os.cpu_count()} cores",
            "python": platform.python_version(),
            "versions": {k: version(k) for k in ("dualsvm", "numpy", "numba", "scipy")},
            "time_limit": args.time_limit, "cache_mb": CACHE_MB}
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / "kernel_solvers.json").write_text(json.dumps({"meta": meta, "results": results},
                                                                indent=1) + "\n")
    write_table(meta, results)
    plot(results)


def write_table(meta, results):
    lines = ["# The kernel solvers side by side", "",
             f"Command: `{meta['command']}`  ", f"Date: {meta['date']}; machine: {meta['machine']}; "
             f"Python {meta['python']}; " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items()),
             "", "RBF, gamma = 1/n_features, C = 1, hinge loss; seeded random subsamples. "
             "Suboptimality = (D* - D) / |D*| with D* from SMO (exact bias) or kernel DCD (no bias) "
             "at tol 1e-6. Time limit per run: "
             f"{meta['time_limit']:g} s. Seconds include monitoring (a certificate per epoch).", ""]
    for case, r in results.items():
        lines += [f"## {case} (n = {r['n']}, d = {r['d']})", "",
                  "| solver | problem | tol | status | seconds | to 1e-3 | to 1e-6 | suboptimality "
                  "| iterations | kernel evaluations |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for label, s in r["solvers"].items():
            fmt = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
            lines.append(f"| {label} | {s['bias']} bias | {s['tol']:g} | {s['status']} | "
                         f"{s['seconds']:.2f} | {fmt(s['seconds_to_0.001'])} | {fmt(s['seconds_to_1e-06'])} "
                         f"| {s['suboptimality']:.1e} | {s['iterations']} | {s['kernel_evaluations']:.3g} |")
        lines.append("")
    lines += ["![dual objective vs seconds](kernel_solvers.png)", ""]
    (RESULTS_DIR / "kernel_solvers.md").write_text("\n".join(lines))


def plot(results):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(5.5 * len(results), 4.2), squeeze=False)
    for ax, (case, r) in zip(axes[0], results.items()):
        for label, s in r["solvers"].items():
            optimum = r["optimum"][s["bias"]]
            t = np.array([c[0] for c in s["curve"]])
            sub = np.maximum(np.array([(optimum - c[1]) / abs(optimum) for c in s["curve"]]), 1e-12)
            ax.semilogy(t, sub, marker=".", ms=3, label=label,
                        linestyle="--" if s["bias"] == "none" else "-")
        ax.set_title(f"{case}: RBF, C = 1")
        ax.set_xlabel("seconds")
        ax.set_ylabel("(D* - D) / |D*|")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS_DIR / "kernel_solvers.png", dpi=110)


if __name__ == "__main__":
    main()
