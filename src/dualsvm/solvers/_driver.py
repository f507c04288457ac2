"""The Python layer around compiled epochs: stopping, history, progress, interrupts.

Every solver exposes the same small interface (``alpha``, ``w``, ``violation``,
``active_size`` and ``epoch() -> converged``), so the rules for stopping,
the per-epoch record and the progress display live here once. A solver whose w
is not w(alpha) (the primal solvers) also has ``certificate() -> (primal, dual,
relative gap, intercept)``.
"""

import sys
import time
from dataclasses import dataclass, field

import numpy as np

#: Why training stopped.
STATUSES = ("converged", "gap", "max_iter", "time_limit", "interrupted", "callback")


@dataclass
class Stopping:
    """When to stop: the solver's own ``tol`` rule, then any of these."""

    max_iter: int = 1000
    gap_tol: float | None = None
    time_limit: float | None = None
    deadline: float | None = None  # absolute perf_counter() time, shared by sub-problems
    callback: object = None
    verbose: int = 0
    label: str = ""
    monitor: bool = True  # primal, dual and gap after every epoch (one pass over the data)


@dataclass
class Result:
    """A trained binary model with its certificate."""

    alpha: np.ndarray
    w: np.ndarray
    intercept: float
    n_iter: int
    status: str
    primal: float
    dual: float
    gap: float
    history: list = field(default_factory=list)


class _Trace:
    """verbose=1: a tqdm bar over epochs; 2: trace lines at epochs 1-10, 20, 30, ..,
    100, 200, ... and the last; 3: a line for every epoch."""

    def __init__(self, verbose, max_iter, label):
        self.verbose = verbose
        self.bar = None
        if verbose == 1:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=max_iter, desc=label or "epochs", unit="epoch", leave=False)
        elif verbose >= 2:
            print(f"{label}{'epoch':>6} {'seconds':>9} {'primal':>15} {'dual':>15} "
                  f"{'rel.gap':>9} {'violation':>10} {'active':>8}", file=sys.stderr)

    def update(self, r, force=False):
        if self.bar is not None and not force:
            self.bar.set_postfix(gap=f"{r['gap']:.1e}", violation=f"{r['violation']:.1e}", refresh=False)
            self.bar.update(1)
        elif force or self.verbose >= 3 or (self.verbose == 2 and _on_log_grid(r["epoch"])):
            print(f"{r['epoch']:6d} {r['seconds']:9.3f} {r['primal']:15.8g} {r['dual']:15.8g} "
                  f"{r['gap']:9.2e} {r['violation']:10.3e} {r['active_size']:8d}", file=sys.stderr)

    def close(self, status, history):
        if self.bar is not None:
            self.bar.close()
        if self.verbose == 2 and history and not _on_log_grid(history[-1]["epoch"]):
            self.update(history[-1], force=True)
        if self.verbose:
            print(f"stopped: {status} after {len(history)} epochs", file=sys.stderr)


def _on_log_grid(epoch):
    step = 10 ** max(0, len(str(epoch)) - 1)
    return epoch % step == 0


def run_epochs(solver, problem, stopping):
    """Run ``solver.epoch()`` until a stopping rule fires; return a :class:`Result`.

    Ctrl-C (KeyboardInterrupt) between epochs ends training with the current
    model; the result's status says so and its gap is exact.
    """
    start = time.perf_counter()
    deadline = stopping.deadline
    if stopping.time_limit is not None:
        own = start + stopping.time_limit
        deadline = own if deadline is None else min(deadline, own)
    trace = _Trace(stopping.verbose, stopping.max_iter, stopping.label)
    history = []
    status = "max_iter"
    n_iter = 0
    evaluation = None
    try:
        while n_iter < stopping.max_iter:
            if deadline is not None and time.perf_counter() >= deadline:
                status = "time_limit"
                break
            evaluation = None  # the state changes in the epoch
            converged = solver.epoch()
            n_iter += 1
            seconds = time.perf_counter() - start
            primal = dual = gap = np.nan
            if stopping.monitor:
                evaluation = _certificate(solver, problem)
                primal, dual, gap, _ = evaluation
            record = {
                "epoch": n_iter,
                "seconds": seconds,
                "primal": primal,
                "dual": dual,
                "gap": gap,
                "violation": solver.violation,
                "active_size": solver.active_size,
            }
            if hasattr(solver, "progress"):  # solver-specific fields (out-of-core: passes, cache)
                record.update(solver.progress())
            history.append(record)
            trace.update(record)
            if converged:
                status = "converged"
                break
            if stopping.gap_tol is not None and gap <= stopping.gap_tol:  # NaN compares False
                status = "gap"
                break
            if stopping.callback is not None and stopping.callback(
                    {**record, **_model(problem, solver.w, evaluation)}):
                status = "callback"
                break
    except KeyboardInterrupt:
        status = "interrupted"
    if evaluation is None:  # not monitored, or interrupted before the evaluation ended
        evaluation = _certificate(solver, problem)
    primal, dual, gap, intercept = evaluation
    if history:  # the last record always carries the certificate
        history[-1].update(primal=primal, dual=dual, gap=gap)
    trace.close(status, history)
    return Result(solver.alpha, solver.w, intercept, n_iter, status, primal, dual, gap, history)


def _certificate(solver, problem):
    """(primal, dual, relative gap, intercept) of the solver's current model."""
    certificate = getattr(solver, "certificate", None)
    return certificate() if certificate is not None else problem.evaluate(solver.alpha, solver.w)


def _model(problem, w, evaluation):
    """What a callback sees of the current model: its ``coef`` and ``intercept``."""
    coef, intercept = problem.coef_intercept(w, 0.0 if evaluation is None else evaluation[3])
    return {"coef": coef, "intercept": intercept}
