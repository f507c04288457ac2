"""The four kernel solvers side by side: SMO, CGD (Tseng-Yun, 1 and 3 pairs), dual PGD, kernel DCD.

Every case is a random subsample (seeded) of a LIBSVM data set with the RBF kernel,
gamma = 1/n_features, C = 1, hinge loss. SMO, CGD and PGD solve the exact-bias dual
(y'a = 0); kernel DCD solves the dual without bias, a different problem, so its curve is
measured against its own optimum.

Reference optimum D*: SMO (exact bias) and kernel DCD (no bias) at tol 1e-9, with
10 x the time limit; the relative duality gap of that run says how well D* is known.

One stopping rule for every solver: stop after the first epoch whose dual objective
is within ``STOP`` = 1e-6 relative suboptimality, (D* - D) / |D*| <= 1e-6, computed by
one function (:func:`reached`) from the dual of the solver's certificate (for PGD the
repaired, feasible point), or at the time limit. An epoch is 100 pair updates for SMO
and CGD, one pass over the variables for kernel DCD, one gradient step for PGD. The
solvers' own rules do not mean the same thing (SMO's tol bounds the maximal violating
pair, CGD's the decrease of its quadratic model, PGD's the projected gradient, kernel
DCD's LIBLINEAR's projected gradient), so each gets tol = 1e-12, below anything
reached here; a status 'converged' would say that one fired first.

Timing: the problem (the data in the kernel's format, an empty column cache) is
built outside the clock for every solver; the solver's construction and its epochs,
with the certificate after every epoch, are timed. Best of ``--repeats`` runs per
solver, each on a fresh problem: the run that reached the level soonest, or else
the one with the highest dual at the time limit. Numba compilation is excluded by a
warm-up. The figure plots (D* - D(t)) / |D*| against seconds; the table gives, per
solver, the seconds to reach 1e-3 and 1e-6, the final suboptimality and status,
iterations, kernel evaluations, threads and CPU / wall.

Run from the repository root (``pip install -e .[bench,plot]``), under the lock::

    flock -x /tmp/dualsvm-cpu.lock python benchmarks/bench_kernel_solvers.py --time-limit 30
    python benchmarks/bench_kernel_solvers.py --quick --output-dir /tmp/ks   # smoke test
"""

import argparse
import time
from pathlib import Path

import numpy as np

from dualsvm.kernels import make_kernel
from dualsvm.problems.kernel import KernelDualProblem
from dualsvm.solvers import Stopping, run_epochs
from dualsvm.solvers.cgd import CGD
from dualsvm.solvers.dual_pgd import DualPGD
from dualsvm.solvers.kernel_dcd import KernelDCD
from dualsvm.solvers.smo import SMO

from common import (RESULTS_DIR, Clock, cores_busy, load, new_record, page, plus_minus,
                    thread_pools, write_results)

#: case name -> (public set, rows sampled)
CASES = {"a9a-5000": ("a9a", 5000), "w7a-5000": ("w7a", 5000),
         "ijcnn1-5000": ("ijcnn1", 5000)}
#: label -> (solver class, bias, options)
#: SMO's and CGD's epochs are 100 pair updates (default 1000), so that the common
#: rule, checked after every epoch, is checked often on small problems too.
SOLVERS = {
    "SMO": (SMO, "exact", {"steps_per_epoch": 100}),
    "CGD": (CGD, "exact", {"pairs": 1, "iterations_per_epoch": 100}),
    "CGD 3-pair": (CGD, "exact", {"pairs": 3, "iterations_per_epoch": 100}),
    "dual PGD": (DualPGD, "exact", {"max_kernel_bytes": 2**30}),
    "kernel DCD (no bias)": (KernelDCD, "none", {}),
}
#: The solvers' own rules, out of the way of the common one.
OWN_TOL = 1e-12
#: The common stopping rule: relative suboptimality of the dual.
STOP = 1e-6
REFERENCE_TOL = 1e-9
CACHE_MB = 200.0
LEVELS = (1e-3, 1e-6)


def load_case(name, rows):
    data, n = CASES[name]
    X, y = load(data)
    pick = np.sort(np.random.default_rng(0).choice(X.shape[0], min(n, rows or n), replace=False))
    return X[pick], plus_minus(y[pick])


def problem(X, y, bias):
    kernel = make_kernel("rbf", gamma=1.0 / X.shape[1], X=X)
    return KernelDualProblem(X, y, np.ones(len(y)), "hinge", bias, kernel, CACHE_MB)


def suboptimality(optimum, dual):
    return (optimum - dual) / abs(optimum)


def reached(optimum, level):
    """The common stopping rule, as a run_epochs callback: the record's dual is within level."""
    return lambda record: suboptimality(optimum, record["dual"]) <= level


def run(solver_class, p, tol, options, stopping):
    """Construct and run one solver on the problem ``p``; both are timed."""
    with Clock() as clock:
        with Clock() as setup:
            solver = solver_class(p, tol, random_state=np.random.default_rng(0), **options)
        result = run_epochs(solver, p, stopping)
    return solver, result, clock, setup.seconds


def measure(label, X, y, optimum, time_limit):
    """One run of a compared solver: its record for the table and the figure."""
    solver_class, bias, options = SOLVERS[label]
    p = problem(X, y, bias)
    # a deadline, not a time limit from the first epoch: the construction counts too
    stopping = Stopping(max_iter=10**9, deadline=time.perf_counter() + time_limit,
                        callback=reached(optimum[bias], STOP))
    solver, r, clock, setup = run(solver_class, p, OWN_TOL, options, stopping)
    # history seconds count from the first epoch; the construction came before
    curve = [(setup + h["seconds"], h["dual"]) for h in r.history]
    return {
        "bias": bias, "status": "level" if r.status == "callback" else r.status,
        **clock.timing, "setup_seconds": setup, "cores_busy": cores_busy(clock.timing),
        "dual": r.dual, "gap": r.gap, "suboptimality": suboptimality(optimum[bias], r.dual),
        "iterations": int(getattr(solver, "n_iter", r.n_iter)),
        "kernel_evaluations": int(r.history[-1].get("kernel_evaluations", 0)),
        **{f"seconds_to_{level:g}": first_time_below(curve, optimum[bias], level)
           for level in LEVELS},
        "curve": curve,
    }


def first_time_below(curve, optimum, level):
    for seconds, dual in curve:
        if suboptimality(optimum, dual) <= level:
            return seconds
    return None


def best(runs):
    """The run that reached the level soonest, or else the one that got furthest."""
    done = [r for r in runs if r["suboptimality"] <= STOP]
    if done:
        return min(done, key=lambda r: r["seconds"])
    return min(runs, key=lambda r: r["suboptimality"])


def warm_up():
    """Compile every solver's kernels (CSR and dense rows) outside the timings."""
    X, y = load_case("a9a-5000", 300)
    for solver_class, bias, options in SOLVERS.values():
        for data in (X, X.toarray()):
            run(solver_class, problem(data, y, bias), 1e-3, options, Stopping(time_limit=5.0))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    parser.add_argument("--rows", type=int, default=None,
                        help="rows sampled per case (default: each case's own, 5000)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="runs per solver and case, the best kept (default 3, 1 with --quick)")
    parser.add_argument("--time-limit", type=float, default=60.0,
                        help="seconds per run (the reference runs get 10 x)")
    parser.add_argument("--quick", action="store_true",
                        help="a9a, 1000 rows, 1 repeat, 5 s limit; writes nothing unless "
                             "--output-dir is given")
    parser.add_argument("--output-dir", type=Path, default=None,
                        help="where kernel_solvers.md/.json/.png go (default benchmarks/results/)")
    args = parser.parse_args(argv)
    if args.quick:
        args.cases, args.rows, args.time_limit = ["a9a-5000"], args.rows or 1000, 5.0
    repeats = args.repeats or (1 if args.quick else 3)
    out_dir = args.output_dir or (None if args.quick else RESULTS_DIR)

    meta = {**new_record(argv), "time_limit": args.time_limit, "repeats": repeats,
            "cache_mb": CACHE_MB, "stop": STOP, "own_tol": OWN_TOL,
            "reference_tol": REFERENCE_TOL}
    warm_up()
    meta["thread_pools"] = thread_pools()

    results = {}
    for case in args.cases:
        X, y = load_case(case, args.rows)
        optimum, reference = {}, {}
        for bias, cls in (("exact", SMO), ("none", KernelDCD)):
            _, r, clock, _ = run(cls, problem(X, y, bias), REFERENCE_TOL, {},
                                 Stopping(max_iter=10**9, time_limit=10 * args.time_limit,
                                          monitor=False))
            optimum[bias] = r.dual
            reference[bias] = {"solver": cls.__name__, "status": r.status, "gap": r.gap,
                               "seconds": clock.seconds}
        results[case] = {"n": X.shape[0], "d": X.shape[1], "optimum": optimum,
                         "reference": reference, "solvers": {}}
        for label in SOLVERS:
            runs = []
            for _ in range(repeats):
                runs.append(measure(label, X, y, optimum, args.time_limit))
            s = results[case]["solvers"][label] = {**best(runs),
                                                   "all_seconds": [r["seconds"] for r in runs]}
            print(f"{case:12s} {label:22s} {s['status']:10s} {s['seconds']:8.2f}s "
                  f"dual {s['dual']:.10g} subopt {s['suboptimality']:.2e}", flush=True)
    meta["results"] = results
    text = markdown(meta, results)
    print(text)
    if out_dir is None:
        return
    write_results(out_dir, "kernel_solvers", meta, text)
    plot(results, out_dir / "kernel_solvers.png")


def markdown(meta, results):
    pools = meta["thread_pools"]
    lines = ["RBF, gamma = 1/n_features, C = 1, hinge loss; seeded random subsamples. "
             "Suboptimality = (D* - D) / |D*| with D* from SMO (exact bias) or kernel DCD "
             f"(no bias) at tol {meta['reference_tol']:g} (its relative duality gap below each "
             "table). Stopping rule for every solver: the first epoch whose dual is within "
             f"suboptimality {meta['stop']:g} (status 'level'; an epoch is 100 pair updates "
             "for SMO and CGD, a pass for kernel DCD, a step for PGD), or the time limit of "
             f"{meta['time_limit']:g} s; the solvers' own rules at tol {meta['own_tol']:g}, out "
             "of the way. Seconds: best of "
             f"{meta['repeats']} runs, each on a fresh problem (data and empty cache built "
             "outside the clock); the solver's construction and a certificate after every "
             "epoch are inside, for all. Threads: every solver computes kernel columns in "
             f"Numba's pool ({pools['numba']} threads) and BLAS products with "
             f"{pools.get('blas', 1)} threads; CPU / wall = process CPU seconds over wall "
             "seconds of the best run, the cores it kept busy.", ""]
    for case, r in results.items():
        lines += [f"## {case} (n = {r['n']}, d = {r['d']})", "",
                  "| solver | problem | status | seconds | to 1e-3 | to 1e-6 | suboptimality "
                  "| iterations | kernel evaluations | threads (CPU / wall) |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for label, s in r["solvers"].items():
            fmt = lambda v: "-" if v is None else f"{v:.2f}"  # noqa: E731
            lines.append(f"| {label} | {s['bias']} bias | {s['status']} | {s['seconds']:.2f} "
                         f"| {fmt(s['seconds_to_0.001'])} | {fmt(s['seconds_to_1e-06'])} "
                         f"| {s['suboptimality']:.1e} | {s['iterations']} "
                         f"| {s['kernel_evaluations']:.3g} "
                         f"| {pools['numba']} ({s['cores_busy']:.2f}) |")
        lines += [""] + [f"D* {bias} bias: {ref['solver']}, {ref['status']} in "
                         f"{ref['seconds']:.1f} s, relative gap {ref['gap']:.1e}.  "
                         for bias, ref in r["reference"].items()] + [""]
    lines += ["![dual objective vs seconds](kernel_solvers.png)", ""]
    return page("The kernel solvers side by side", meta, lines)


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(5.5 * len(results), 4.2), squeeze=False)
    for ax, (case, r) in zip(axes[0], results.items()):
        for label, s in r["solvers"].items():
            optimum = r["optimum"][s["bias"]]
            t = np.array([c[0] for c in s["curve"]])
            sub = np.maximum(np.array([suboptimality(optimum, c[1]) for c in s["curve"]]), 1e-12)
            ax.semilogy(t, sub, marker=".", ms=3, label=label,
                        linestyle="--" if s["bias"] == "none" else "-")
        ax.set_title(f"{case}: RBF, C = 1")
        ax.set_xlabel("seconds")
        ax.set_ylabel("(D* - D) / |D*|")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
