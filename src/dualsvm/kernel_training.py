"""Training kernel models in memory, one-vs-one, without scikit-learn.

:class:`dualsvm.SVC` (and NuSVC, OneClassSVM, SVR, NuSVR) validates its input
with scikit-learn and then calls :func:`fit_kernel`; the command line calls it
directly. The other members of LIBSVM's family are solved by SMO on their
problems of :mod:`dualsvm.problem` (``SVRDual``, ``NuDual``). The fitted model's
layout is described in :mod:`dualsvm.fits`.
"""

import math
import time
from typing import Callable, NamedTuple

import numpy as np

from .constants import CLASSIFIER_TYPES, LOSSES, SVM_TYPES
from .fits import KernelFit
from .kernels import make_kernel
from .multiclass import BinaryTask, one_vs_one, solve_tasks
from .problem import KernelDualProblem, NuDual, SVRDual
from .solvers import Stopping
from .solvers.cgd import CGD
from .solvers.dual_pgd import DualPGD
from .solvers.kernel_dcd import KernelDCD
from .solvers.smo import SMO
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


#: SVC's ``solver`` values.
KERNEL_SOLVERS = {
    "smo": KernelSolver(_build_smo, "exact", LOSSES),
    "cgd": KernelSolver(_builder(CGD), "exact", LOSSES),
    "dcd": KernelSolver(_builder(KernelDCD), "none", LOSSES),
    "pgd": KernelSolver(_builder(DualPGD), "exact", LOSSES),
}


def kernel_solver(solver, loss):
    """KERNEL_SOLVERS[solver], or a clear error for an unknown solver or a wrong loss."""
    if solver not in KERNEL_SOLVERS:
        raise ValueError(f"solver must be one of {sorted(KERNEL_SOLVERS)}, got {solver!r}")
    entry = KERNEL_SOLVERS[solver]
    if loss not in entry.losses:
        raise ValueError(f"solver={solver!r} does not solve loss={loss!r}; it solves "
                         f"{', '.join(map(repr, entry.losses))}")
    return entry


def _family_problem(kind, X, y, cost, params, kernel):
    """The dual problem of one task of a kind other than C-SVC (LIBSVM's formulations)."""
    if kind == "nu_svc":
        return NuDual(X, y, cost, params["nu"], kernel, params["cache_size"])
    if kind == "one_class":
        return NuDual(X, None, cost, params["nu"], kernel, params["cache_size"])
    if kind == "epsilon_svr":
        return SVRDual(X, y, cost, epsilon=params["epsilon"], kernel=kernel,
                       cache_size=params["cache_size"])
    if kind == "nu_svr":
        return SVRDual(X, y, cost, nu=params["nu"], kernel=kernel,
                       cache_size=params["cache_size"])
    raise ValueError(f"unknown kind of kernel model {kind!r}; known: {sorted(SVM_TYPES)}")


def _model(kind, solved):
    """(coefficients by task row, intercept) of a trained task, as LIBSVM stores them.

    C-SVC: y_i a_i and b. nu-SVC: both divided by rho (LIBSVM's scaling, the C-SVC
    with C = 1 / rho). Regression: beta = a - a*. One-class: a and -rho.
    """
    problem, solver, result = solved.problem, solved.solver, solved.result
    if kind == "c_svc":
        return problem.y * result.alpha, result.intercept
    if kind == "nu_svc":
        _, rho = problem.offsets(result.alpha, solver.G)  # SMO's gradient, as LIBSVM's
        return problem.y * result.alpha / rho, result.intercept / rho
    if kind in ("epsilon_svr", "nu_svr"):
        return problem.coefficients(result.alpha), result.intercept
    return result.alpha.copy(), result.intercept


def fit_kernel(X, y, cost, params, kind="c_svc"):
    """Train a kernel model: one binary model per pair of classes (one-vs-one) for
    C-SVC and nu-SVC, one model for one-class and regression.

    Parameters
    ----------
    X : ndarray or csr_matrix of shape (n_samples, n_features)
        Validated float64 data (C-ordered, or CSR with canonical indices); for
        kernel 'precomputed', the dense (n_samples, n_samples) kernel matrix.
    y : ndarray of shape (n_samples,)
        Class labels, at least two distinct (classifiers); the targets
        (regression); ignored (one-class).
    cost : ndarray of shape (n_samples,)
        C_i = C * class_weight[y_i] * sample_weight_i (C-SVC, regression), the
        weights W_i (nu-SVC, one-class: the bounds of LIBSVM's formulations);
        rows of cost 0 are left out.
    params : dict
        The estimator's parameters (``get_params()``): those of
        :class:`dualsvm.SVC` for C-SVC; ``nu`` / ``epsilon``, kernel, ``tol``,
        ``shrinking``, ``cache_size``, ``max_iter``, ``time_limit``, ``callback``,
        ``verbose`` for the others (solved by SMO).
    kind : str
        A key of :data:`dualsvm.constants.SVM_TYPES`.

    Returns
    -------
    KernelFit
    """
    if kind == "c_svc":
        entry = kernel_solver(params["solver"], params["loss"])
    elif kind in SVM_TYPES:
        entry = KERNEL_SOLVERS["smo"]
    else:
        raise ValueError(f"unknown kind of kernel model {kind!r}; known: {sorted(SVM_TYPES)}")
    kernel = make_kernel(params["kernel"], gamma=params["gamma"], degree=params["degree"],
                         coef0=params["coef0"], X=X)
    precomputed = kernel.name == "precomputed"
    classifies = kind in CLASSIFIER_TYPES
    generator = random_generator(params.get("random_state"))
    time_limit = params["time_limit"]
    if classifies:
        classes, label = np.unique(y, return_inverse=True)
        tasks = one_vs_one(classes, y, keep=cost > 0)
    else:
        classes, label = np.empty(0), np.zeros(X.shape[0], dtype=np.int64)
        rows = np.flatnonzero(cost > 0)
        tasks = [BinaryTask(0, None, rows, np.asarray(y, dtype=np.float64)[rows], "")]

    def build(task):
        rows = task.rows
        sub = X[np.ix_(rows, rows)] if precomputed else X[rows]
        if kind == "c_svc":
            problem = KernelDualProblem(sub, task.y, cost[rows], params["loss"], entry.bias,
                                        kernel, params["cache_size"])
        else:
            problem = _family_problem(kind, sub, task.y, cost[rows], params, kernel)
        solver, max_epochs = entry.build(problem, params["tol"], shrinking=params["shrinking"],
                                         random_state=generator, max_iter=params["max_iter"])
        return problem, solver, max_epochs

    stopping = Stopping(callback=params["callback"], verbose=params["verbose"],
                        deadline=None if time_limit is None
                        else time.perf_counter() + time_limit)
    solved = solve_tasks(tasks, build, stopping)
    coef = np.zeros((len(tasks), X.shape[0]))  # the coefficients of each task, by row
    intercept = np.zeros(len(tasks))
    for p, s in enumerate(solved):
        coef[p, s.task.rows], intercept[p] = _model(kind, s)
    support = np.flatnonzero((coef != 0).any(axis=0))
    support = support[np.argsort(label[support], kind="stable")]  # grouped by class
    sv_label = label[support]
    if classifies:
        dual_coef = np.zeros((max(len(classes) - 1, 1), len(support)))
        for p, s in enumerate(solved):
            i, j = s.task.positive, s.task.negative
            dual_coef[j - 1, sv_label == i] = coef[p, support[sv_label == i]]
            dual_coef[i, sv_label == j] = coef[p, support[sv_label == j]]
        n_support = np.bincount(sv_label, minlength=len(classes))
    else:
        dual_coef = coef[:, support]
        n_support = np.array([len(support)])
    results = [s.result for s in solved]
    return KernelFit(
        params=dict(params), kernel=kernel, classes_=classes,
        support_=support.astype(np.int32),
        support_vectors_=np.empty((0, 0)) if precomputed else X[support],
        n_support_=n_support.astype(np.int32),
        dual_coef_=dual_coef, intercept_=intercept,
        n_features_in_=X.shape[1],
        n_iter_=np.array([s.solver.n_iter for s in solved], dtype=np.int64),
        primal_=np.array([r.primal for r in results]),
        dual_=np.array([r.dual for r in results]),
        gap_=np.array([r.gap for r in results]),
        status_=[r.status for r in results],
        history_=[r.history for r in results],
        kind=kind,
    )
