"""The Python layer around compiled epochs: stopping, history, progress, interrupts.

Every solver exposes the same small interface, so the rules for stopping, the
per-epoch record and the progress display live here once:

* constructor ``Solver(problem, tol, *, shrinking, random_state, alpha=None)``
  (``alpha``: a warm start; solvers may take more keyword arguments);
* attributes ``alpha`` (the dual variables), ``violation`` (the measure the
  solver's own ``tol`` rule compares) and ``active_size`` (variables not shrunk);
* ``epoch() -> converged``: a bounded chunk of work (a pass over the active
  variables, or a fixed number of SMO steps), True once the solver's own
  stopping rule holds on the whole problem;
* ``w`` (linear solvers: the driver calls ``problem.evaluate(alpha, w)``) and/or
  ``certificate() -> (primal, dual, relative gap, intercept)`` (solvers whose w
  is not w(alpha), such as the primal ones, and kernel solvers, which have no w
  and certify from their maintained gradient: ``KernelDualProblem.certificate``);
* optionally ``model_w``: the w the certificate is about, when it is not the
  ``w`` the solver trains (the out-of-core solvers certify a mean of w);
* optionally ``finish() -> changed``, called once after the last epoch (e.g. to
  make shrunk gradients exact before the final certificate);
* optionally ``counters() -> dict`` of numbers added to every record (kernel
  solvers: ``iterations``, ``kernel_evaluations``, ``cache_hits``);
* optionally ``n_movable``: the variables an unshrunk epoch visits (the unit of the
  gap rule's schedule, :data:`GAP_CHECK_PASSES`; default: the largest epoch so far);
* optionally ``exhausted``: True once the solver has reached an iteration limit of its
  own (a solver that runs other solvers inside, or runs several passes an epoch), which
  stops it as ``max_iter`` does;
* optionally ``work`` and ``work_until_check``, for a solver whose ``epoch()`` runs
  several passes in compiled code (a slice of work: a Python round trip costs more
  than a pass over a small problem): ``work`` is the variables its last epoch visited
  (the sum of the active sizes its passes left; default ``active_size``), and the
  driver sets ``work_until_check`` before each epoch, when a gap rule is due, to the
  variables still to visit before it, where the solver ends that epoch: the gap is
  then checked after the same passes as with one pass per epoch.

The history holds one record per ``epoch()`` call. A solver that runs several passes
a call reports in ``counters()`` its ``epoch``: the passes so far (what ``max_iter``
limits, through the solver's own pass budget and ``exhausted``); the record's
``violation`` and ``active_size`` are those of the call's last pass, its objectives
those of the model at the end of the call. Monitored (a certificate every epoch, as
``verbose`` and ``callback`` ask), the training functions give such solvers one pass a
call, so that traces and callbacks see every pass.
"""

import sys
import time
from dataclasses import dataclass, field

import numpy as np

#: Without ``monitor``, a gap rule is checked after the epochs that, since the last
#: check, visited this many times all the variables (``n_movable``, else the largest
#: epoch so far): a certificate costs about one pass over the data, so checking costs
#: at most about 1/GAP_CHECK_PASSES of the training, however much shrinking shortens
#: the epochs.
GAP_CHECK_PASSES = 2


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
    # without monitor, gap_tol is checked every GAP_CHECK_PASSES passes' worth of epochs


@dataclass
class Result:
    """A trained binary model with its certificate."""

    alpha: np.ndarray
    w: np.ndarray | None  # None for kernel solvers
    intercept: float
    n_iter: int
    status: str  # one of dualsvm.constants.STATUSES
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


class IteratingKernelSolver:
    """``n_iter`` and ``certificate()`` of a kernel solver that counts its
    ``iterations`` and keeps ``alpha`` with its exact ``gradient``."""

    @property
    def n_iter(self):
        """The solver's own iteration count (what ``max_iter`` limits)."""
        return self.iterations

    def certificate(self):
        return self.problem.certificate(self.alpha, self.gradient)


def _on_log_grid(epoch):
    step = 10 ** max(0, len(str(epoch)) - 1)
    return epoch % step == 0


def run_epochs(solver, problem, stopping):
    """Run ``solver.epoch()`` until a stopping rule fires; return a :class:`Result`.

    Ctrl-C (KeyboardInterrupt) between epochs ends training with the current
    model; the result's status says so and its gap is exact.
    """
    counters = getattr(solver, "counters", None)
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
    unchecked_work = 0  # variables visited since the last gap check
    largest_epoch = getattr(solver, "n_movable", 0)
    try:
        while n_iter < stopping.max_iter:
            if deadline is not None and time.perf_counter() >= deadline:
                status = "time_limit"
                break
            evaluation = None  # the state changes in the epoch
            scheduled = not stopping.monitor and stopping.gap_tol is not None
            if scheduled and hasattr(solver, "work_until_check"):
                solver.work_until_check = GAP_CHECK_PASSES * largest_epoch - unchecked_work
            converged = solver.epoch()
            n_iter += 1
            seconds = time.perf_counter() - start
            primal = dual = gap = np.nan
            certify = stopping.monitor
            if scheduled:
                unchecked_work += getattr(solver, "work", solver.active_size)
                largest_epoch = max(largest_epoch, solver.active_size)
                certify = unchecked_work >= GAP_CHECK_PASSES * largest_epoch
            if certify:
                unchecked_work = 0
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
            if counters is not None:
                record.update(counters())
            history.append(record)
            trace.update(record)
            if converged:
                status = "converged"
                break
            if stopping.gap_tol is not None and gap <= stopping.gap_tol:  # NaN compares False
                status = "gap"
                break
            if stopping.callback is not None and stopping.callback(
                    {**record, **_model(problem, solver, evaluation)}):
                status = "callback"
                break
            if getattr(solver, "exhausted", False):
                break  # status stays "max_iter"
    except KeyboardInterrupt:
        status = "interrupted"
    finish = getattr(solver, "finish", None)
    if finish is not None and finish():
        evaluation = None
    if evaluation is None:  # not monitored, or interrupted before the evaluation ended
        evaluation = _certificate(solver, problem)
    primal, dual, gap, intercept = evaluation
    if history:  # the last record always carries the certificate
        history[-1].update(primal=primal, dual=dual, gap=gap)
        if counters is not None:
            history[-1].update(counters())
    trace.close(status, history)
    return Result(solver.alpha, _model_w(solver), intercept, n_iter, status, primal, dual, gap, history)


def _certificate(solver, problem):
    """(primal, dual, relative gap, intercept) of the solver's current model."""
    certificate = getattr(solver, "certificate", None)
    return certificate() if certificate is not None else problem.evaluate(solver.alpha, solver.w)


def _model(problem, solver, evaluation):
    """What a callback sees of the current model: its ``coef`` and ``intercept``
    (kernel models: ``alpha`` and ``intercept``)."""
    intercept = 0.0 if evaluation is None else evaluation[3]
    w = _model_w(solver)
    if w is None:
        return {"alpha": solver.alpha, "intercept": intercept}
    coef, intercept = problem.coef_intercept(w, intercept)
    return {"coef": coef, "intercept": intercept}


def _model_w(solver):
    """The w of the certified model (None for kernel solvers)."""
    return getattr(solver, "model_w", getattr(solver, "w", None))
