"""Where a kernel SVM's fit time goes: SMO against the large-working-set solver.

For each set (RBF, C = 1, gamma = 1/n_features, tol 1e-3, cache 100 MB), one fit by
each solver with its phases timed (wall seconds, the threads of the machine):

* SMO (``solver='smo'``): the compiled steps (selection, column computation on
  a miss, gradient updates: not separable without slowing them), the final
  float64 gradient of the certificate; kernel entries computed, and the cost of
  one entry measured apart (100 random columns by ``q_column``, the by-feature
  accumulation for CSR data);
* the working-set solver (``solver='ws'``): selection, bulk columns, sub-problems,
  gradient updates, final certificate (the support vectors' float64 gradients);
  kernel entries computed;
* the lower bound: the kernel entries SMO computed times the cost of one entry by
  the bulk tiles (:mod:`dualsvm.kernels.blocks`), measured on 256 random columns.

    python benchmarks/profile_kernel.py --datasets a9a ijcnn1 w7a

Prints a Markdown table; ``--output FILE`` also writes it.
"""

import argparse
import time
from pathlib import Path

import numpy as np

from dualsvm.kernels import QMatrix, claim_slot, make_kernel, q_column
from dualsvm.problems.kernel import KernelDualProblem
from dualsvm.solvers import Stopping, run_epochs
from dualsvm.solvers import ws_smo
from dualsvm.solvers.smo import SMO

from common import load, new_record, page, plus_minus

CACHE_MB = 100


class Timer:
    """Adds the wall seconds of calls to a function under a name."""

    def __init__(self):
        self.seconds = {}

    def wrap(self, name, function):
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start
        return timed


def entry_costs(X, y, kernel):
    """Seconds per kernel entry: by q_column (SMO's misses) and by bulk tiles."""
    n = X.shape[0]
    rng = np.random.default_rng(0)
    cols = rng.choice(n, 257, replace=False).astype(np.int64)
    qm = QMatrix(X, y, kernel, 400)
    everything = np.arange(n, dtype=np.int64)
    q_column(qm.data, qm.cache, int(cols[0]), everything, n)  # compiled before timing
    start = time.perf_counter()
    for j in cols[1:101]:
        q_column(qm.data, qm.cache, int(j), everything, n)
    per_column = (time.perf_counter() - start) / (100 * n)
    qm = QMatrix(X, y, kernel, 400)
    slots = np.array([claim_slot(qm.cache, int(j)) for j in cols])
    qm.fill_columns(cols[:1], slots[:1])
    start = time.perf_counter()
    qm.fill_columns(cols[1:], slots[1:])
    bulk = (time.perf_counter() - start) / (256 * n)
    return per_column, bulk


def profile_smo(X, y, kernel):
    problem = KernelDualProblem(X, y, np.ones(len(y)), "hinge", "exact", kernel, CACHE_MB)
    timer = Timer()
    solver = SMO(problem, 1e-3)
    problem.gradient = timer.wrap("final gradient", problem.gradient)
    start = time.perf_counter()
    result = run_epochs(solver, problem, Stopping(max_iter=10**9, monitor=False))
    total = time.perf_counter() - start
    return {"total": total, "phases": timer.seconds, "result": result,
            "entries": problem.q.kernel_evaluations, "steps": solver.n_iter}


def profile_ws(X, y, kernel):
    problem = KernelDualProblem(X, y, np.ones(len(y)), "hinge", "exact", kernel, CACHE_MB)
    timer = Timer()
    saved = {name: getattr(ws_smo, name) for name in
             ("select_working_set", "local_smo", "update_gradient", "gather_block")}
    for name, function in saved.items():
        setattr(ws_smo, name, timer.wrap(name, function))
    problem.q.fill_columns = timer.wrap("bulk columns", problem.q.fill_columns)
    problem.q.times = timer.wrap("final certificate", problem.q.times)  # Q[sv, sv] a_sv
    try:
        start = time.perf_counter()
        solver = ws_smo.WorkingSetSMO(problem, 1e-3)
        result = run_epochs(solver, problem, Stopping(max_iter=10**9, monitor=False))
        total = time.perf_counter() - start
    finally:
        for name, function in saved.items():
            setattr(ws_smo, name, function)
    return {"total": total, "phases": timer.seconds, "result": result, "q": solver.q,
            "entries": problem.q.kernel_evaluations, "steps": solver.steps,
            "outer": solver.outer}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", nargs="+", choices=["a9a", "w7a", "w8a", "ijcnn1"],
                        default=["a9a", "ijcnn1", "w7a"])
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    record = new_record(argv)
    lines = [f"RBF, C = 1, gamma = 1/n_features, tol 1e-3, cache {CACHE_MB} MB; one fit each "
             "(wall seconds, all threads). Entries: kernel values computed (the final "
             "float64 gradient included).", "",
             "| data | solver | fit s | phases s | steps (outer) | entries | dual |",
             "|---|---|---|---|---|---|---|"]
    bounds = []
    for name in args.datasets:
        X, y = load(name)
        y = plus_minus(y)
        kernel = make_kernel("rbf", gamma=1.0 / X.shape[1])
        WarmUp = X[:300], y[:300]  # compile outside the clock
        profile_ws(*WarmUp, kernel)
        profile_smo(*WarmUp, kernel)
        per_column, bulk = entry_costs(X, y, kernel)
        for label, run in (("smo", profile_smo(X, y, kernel)), ("ws", profile_ws(X, y, kernel))):
            phases = ", ".join(f"{k} {v:.2f}" for k, v in sorted(run["phases"].items(),
                                                                 key=lambda kv: -kv[1]))
            outer = f" ({run['outer']}, q = {run['q']})" if "outer" in run else ""
            lines.append(f"| {name} | {label} | {run['total']:.2f} | {phases} | "
                         f"{run['steps']}{outer} | {run['entries']:.3g} | "
                         f"{run['result'].dual:.6f} |")
            if label == "smo":
                smo_entries = run["entries"]
        bounds.append(f"| {name} | {per_column * 1e9:.1f} | {bulk * 1e9:.2f} | "
                      f"{smo_entries:.3g} | {smo_entries * bulk:.2f} |")
        print("\n".join(lines[-2:]), flush=True)
    lines += ["", "Cost of one kernel entry (ns, wall, all threads) and the bound: SMO's "
              "entries times the bulk cost.", "",
              "| data | q_column ns/entry | bulk tiles ns/entry | SMO's entries | "
              "bound s |", "|---|---|---|---|---|", *bounds]
    text = page("Profile: where kernel SVM fit time goes", record, lines)
    print(text)
    if args.output:
        args.output.write_text(text)


if __name__ == "__main__":
    main()
