"""Training kernel models in memory, one-vs-one, without scikit-learn.

:class:`dualsvm.SVC` validates its input with scikit-learn and then calls
:func:`fit_kernel`; the command line calls it directly. The fitted model's
layout is described in :mod:`dualsvm.fits`.
"""

import math
import time
from typing import Callable, NamedTuple

import numpy as np

from .constants import LOSSES
from .fits import KernelFit
from .kernels import make_kernel
from .multiclass import one_vs_one, solve_tasks
from .problem import KernelDualProblem
from .solvers import Stopping
from .solvers.cgd import CGD
from .solvers.dual_pgd import DualPGD
from .solvers.kernel_dcd import KernelDCD
from .solvers.smo import SMO
from .solvers.ws_smo import WorkingSetSMO
from .validation import random_generator


def _epochs(max_iter, per_epoch):
    """The epoch limit that gives ``max_iter`` (-1: none) iterations of ``per_epoch`` each."""
    return math.inf if max_iter < 0 else math.ceil(max_iter / per_epoch)


def _build_smo(problem, tol, *, shrinking, random_state, max_iter):
    solver = SMO(problem, tol, shrinking=shrinking, random_state=random_state,
                 max_steps=None if max_iter < 0 else max_iter)
    return solver, _epochs(max_iter, solver.steps_per_epoch)


def _builder(solver_class):
    """build for a solver whose epochs are ``iterations_per_epoch`` iterations (max_iter counts
    iterations), or passes over the data (no such attribute: max_iter counts epochs)."""
    def build(problem, tol, *, shrinking, random_state, max_iter):
        solver = solver_class(problem, tol, shrinking=shrinking, random_state=random_state)
        return solver, _epochs(max_iter, getattr(solver, "iterations_per_epoch", 1))
    return build


class KernelSolver(NamedTuple):
    """An entry of :data:`KERNEL_SOLVERS`.

    ``build(problem, tol, *, shrinking, random_state, max_iter) -> (solver, max_epochs)``
    returns a driver-interface solver (see :mod:`dualsvm.solvers._driver`) and the
    epoch limit that gives ``max_iter`` (-1: none) in the solver's own iterations;
    ``bias``: the bias mode of the problem it solves; ``losses``: those it accepts.
    """

    build: Callable
    bias: str
    losses: tuple


#: SVC's ``solver`` values ('auto' picks 'ws' or 'smo' per fit: :func:`choose_solver`).
KERNEL_SOLVERS = {
    "smo": KernelSolver(_build_smo, "exact", LOSSES),
    "ws": KernelSolver(_builder(WorkingSetSMO), "exact", LOSSES),
    "cgd": KernelSolver(_builder(CGD), "exact", LOSSES),
    "dcd": KernelSolver(_builder(KernelDCD), "none", LOSSES),
    "pgd": KernelSolver(_builder(DualPGD), "exact", LOSSES),
}


#: 'auto' never takes the working-set solver below this many training rows.
AUTO_MIN_ROWS = 5000
#: ... and takes it when the cache holds less than this fraction of Q's columns: while
#: it holds more, SMO computes each column about once and wins (measured on 2 cores,
#: 100 MB cache: SMO faster on ijcnn1 and w7a up to 15000 rows, 12% of the columns;
#: the working sets faster from 20000 rows, and on a9a from 10000).
AUTO_CACHE_FRACTION = 0.15


def choose_solver(params, n_samples):
    """What ``solver='auto'`` trains with: 'ws' (large working sets) when the column
    cache (``params['cache_size']`` MB, float32 columns of n entries) holds less than
    ``AUTO_CACHE_FRACTION`` of Q's n columns and n >= ``AUTO_MIN_ROWS``; 'smo' for
    smaller problems, a precomputed kernel, or shrinking turned off (the working-set
    solver has none)."""
    if params["kernel"] == "precomputed" or not params["shrinking"] or \
            n_samples < AUTO_MIN_ROWS:
        return "smo"
    columns = params["cache_size"] * 2**20 / (4 * n_samples)
    return "ws" if columns < AUTO_CACHE_FRACTION * n_samples else "smo"


def kernel_solver(solver, loss, shrinking=True):
    """KERNEL_SOLVERS[solver], or a clear error for an unknown solver, a wrong loss, or
    shrinking=False with the working-set solver (which has no shrinking to turn off)."""
    if solver == "auto":
        solver = "smo"  # both accept every loss; the choice itself waits for the data
    if solver not in KERNEL_SOLVERS:
        raise ValueError(f"solver must be one of {sorted(KERNEL_SOLVERS) + ['auto']}, "
                         f"got {solver!r}")
    if solver == "ws" and not shrinking:
        raise ValueError("solver='ws' has no shrinking to turn off: use solver='smo' (or "
                         "'auto') with shrinking=False")
    entry = KERNEL_SOLVERS[solver]
    if loss not in entry.losses:
        raise ValueError(f"solver={solver!r} does not solve loss={loss!r}; it solves "
                         f"{', '.join(map(repr, entry.losses))}")
    return entry


def fit_kernel(X, y, cost, params):
    """Train one binary kernel model per pair of classes (one-vs-one).

    Parameters
    ----------
    X : ndarray or csr_matrix of shape (n_samples, n_features)
        Validated float64 data (C-ordered, or CSR with canonical indices); for
        kernel 'precomputed', the dense (n_samples, n_samples) kernel matrix.
    y : ndarray of shape (n_samples,)
        Class labels, at least two distinct.
    cost : ndarray of shape (n_samples,)
        C_i = C * class_weight[y_i] * sample_weight_i; rows of cost 0 are left out.
    params : dict
        :class:`dualsvm.SVC` parameters (``get_params()``); ``solver='auto'`` is
        resolved by :func:`choose_solver` (the result is the fit's ``solver_used_``).

    Returns
    -------
    KernelFit
    """
    solver = params["solver"]
    if solver == "auto":
        solver = choose_solver(params, X.shape[0])
    if solver == "ws" and params["kernel"] == "precomputed":
        raise ValueError("solver='ws' needs the data rows, not a precomputed kernel matrix: "
                         "use solver='smo' or 'auto'")
    entry = kernel_solver(solver, params["loss"], params["shrinking"])
    kernel = make_kernel(params["kernel"], gamma=params["gamma"], degree=params["degree"],
                         coef0=params["coef0"], X=X)
    precomputed = kernel.name == "precomputed"
    classes, label = np.unique(y, return_inverse=True)
    generator = random_generator(params["random_state"])
    time_limit = params["time_limit"]
    tasks = one_vs_one(classes, y, keep=cost > 0)

    def build(task):
        rows = task.rows
        sub = X[np.ix_(rows, rows)] if precomputed else X[rows]
        problem = KernelDualProblem(sub, task.y, cost[rows], params["loss"], entry.bias, kernel,
                                    params["cache_size"])
        solver, max_epochs = entry.build(problem, params["tol"], shrinking=params["shrinking"],
                                         random_state=generator, max_iter=params["max_iter"])
        return problem, solver, max_epochs

    stopping = Stopping(callback=params["callback"], verbose=params["verbose"],
                        deadline=None if time_limit is None
                        else time.perf_counter() + time_limit)
    solved = solve_tasks(tasks, build, stopping)
    coef = np.zeros((len(tasks), X.shape[0]))  # y_t alpha_t of each pair, by row
    for p, s in enumerate(solved):
        coef[p, s.task.rows] = s.problem.y * s.result.alpha
    support = np.flatnonzero((coef != 0).any(axis=0))
    support = support[np.argsort(label[support], kind="stable")]  # grouped by class
    sv_label = label[support]
    dual_coef = np.zeros((max(len(classes) - 1, 1), len(support)))
    for p, s in enumerate(solved):
        i, j = s.task.positive, s.task.negative
        dual_coef[j - 1, sv_label == i] = coef[p, support[sv_label == i]]
        dual_coef[i, sv_label == j] = coef[p, support[sv_label == j]]
    results = [s.result for s in solved]
    return KernelFit(
        params=dict(params), kernel=kernel, classes_=classes,
        support_=support.astype(np.int32),
        support_vectors_=np.empty((0, 0)) if precomputed else X[support],
        n_support_=np.bincount(sv_label, minlength=len(classes)).astype(np.int32),
        dual_coef_=dual_coef, intercept_=np.array([r.intercept for r in results]),
        n_features_in_=X.shape[1],
        n_iter_=np.array([s.solver.n_iter for s in solved], dtype=np.int64),
        primal_=np.array([r.primal for r in results]),
        dual_=np.array([r.dual for r in results]),
        gap_=np.array([r.gap for r in results]),
        status_=[r.status for r in results],
        history_=[r.history for r in results],
        solver_used_=solver,
    )
