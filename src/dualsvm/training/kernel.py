"""Training kernel models in memory, one-vs-one, without scikit-learn.

:class:`dualsvm.SVC` (and NuSVC, OneClassSVM, SVR, NuSVR) validates its input
with scikit-learn and then calls :func:`fit_kernel`; the command line calls it
directly. The other members of LIBSVM's family are solved by SMO on their
problems of :mod:`dualsvm.problems` (``SVRDual``, ``NuDual``). The fitted model's
layout is described in :mod:`dualsvm.training.fitted`.
"""

import math
import sys
import time
import warnings
from dataclasses import replace
from functools import partial
from typing import Callable, NamedTuple

import numpy as np

from ..constants import CLASSIFIER_TYPES, LOSSES, SVM_TYPES
from ..data.validation import random_generator
from ..kernels import make_kernel
from ..problems.kernel import KernelDualProblem, NuDual, SVRDual
from ..solvers import Stopping, run_epochs
from ..solvers.cgd import CGD
from ..solvers.dual_pgd import DualPGD
from ..solvers.kernel_dcd import KernelDCD
from ..solvers.smo import SMO
from ..solvers.ws_smo import WorkingSetSMO
from .config import KernelTraining
from .divide_conquer import DivideAndConquer
from .fitted import ClusterModels, KernelFit, dual_coefficients, libsvm_label_order
from .linear import SLICE_ENTRIES, WarmStart
from .multiclass import BinaryTask, one_vs_one, solve_tasks
from .probability import TOO_FEW_DECISIONS, density_marks, fold_decision_slices, sigmoid_train


def _epochs(max_iter, per_epoch):
    """The epoch limit that gives ``max_iter`` (-1: none) iterations of ``per_epoch`` each."""
    return math.inf if max_iter < 0 else math.ceil(max_iter / per_epoch)


def smo_step_limit(max_iter, n_variables):
    """SMO's step limit: ``max_iter``, or for -1 LIBSVM's max(10^7, 100 N). LIBSVM's
    solver stops there too (with a warning): where the float32 kernel columns'
    rounding of the gradient (|a| 6e-8) approaches tol, the violation may never
    drop below it (NuSVR at C = 2^15 on 21 points: LIBSVM stops after 8e5 steps,
    we did not within 2e6)."""
    return max_iter if max_iter >= 0 else max(10_000_000, 100 * n_variables)


def _build_smo(problem, tol, *, shrinking, random_state, max_iter, alpha=None, config=None,
               deadline=None):
    max_steps = smo_step_limit(max_iter, problem.n_samples)
    solver = SMO(problem, tol, shrinking=shrinking, random_state=random_state, alpha=alpha,
                 max_steps=max_steps, steps_per_epoch=smo_steps_per_epoch(problem, config))
    return solver, _epochs(max_steps, solver.steps_per_epoch)


def smo_steps_per_epoch(problem, config):
    """SMO steps one ``epoch()`` runs in compiled code: LIBSVM's 1000 (its progress dots)
    when monitored, else at least 1000 and about
    :data:`~dualsvm.training.linear.SLICE_ENTRIES` entries' worth: a step reads three
    columns over the active set, which shrinking keeps near a tenth of the n variables
    (on a small problem 1000 steps cost less than ten Python round trips)."""
    if config is None or config.monitored:
        return 1000
    return max(1000, 10 * SLICE_ENTRIES // (3 * problem.n_samples))


def _builder(solver_class):
    """build for a solver whose epochs are ``iterations_per_epoch`` iterations (max_iter counts
    iterations), or passes over the data (no such attribute: max_iter counts epochs)."""
    def build(problem, tol, *, shrinking, random_state, max_iter, alpha=None, config=None,
              deadline=None):
        solver = solver_class(problem, tol, shrinking=shrinking, random_state=random_state,
                              alpha=alpha)
        return solver, _epochs(max_iter, getattr(solver, "iterations_per_epoch", 1))
    return build


def part_build(name, shrinking, max_iter, problem, tol, start):
    """``KERNEL_SOLVERS[name]``'s solver of ``problem`` from ``start``, to ``tol``:
    (solver, max_epochs): divide and conquer's solver of its parts and of the whole."""
    return KERNEL_SOLVERS[name].build(problem, tol, shrinking=shrinking, random_state=None,
                                      max_iter=max_iter, alpha=start)


def _round_build(config, problem, tol, start):
    """The solver of divide and conquer's candidate rows: SMO when the cache holds a
    quarter of their columns or more, else 'auto''s choice (the working sets, which
    stop storing columns when the cache thrashes, where SMO recomputes its columns
    over and over; measurements: benchmarks/results/design_measurements.md, section
    training/kernel.py)."""
    fits = 4.0 * problem.n_samples * (problem.n_samples / 4) <= config.cache_size * 2**20
    name = "smo" if fits else auto_solver(config, problem.n_samples).name
    return part_build(name, config.shrinking, config.max_iter, problem, tol, start)


def _build_dc(problem, tol, *, shrinking, random_state, max_iter, alpha=None, config=None,
              deadline=None):
    """Divide and conquer (:mod:`dualsvm.training.divide_conquer`): its parts are
    solved by SMO (problems made to fit the cache, where SMO is the faster:
    benchmarks/results/design_measurements.md, section training/kernel.py), the
    candidates of its final rounds by :func:`_round_build`'s
    choice, the whole problem at the end (when the rounds did not meet tol) by
    'auto''s; each within ``max_iter`` (DC's own epochs are not limited: it stops when
    its last solver does)."""
    final = auto_solver(config, problem.n_samples).name
    clusters = config.dc_clusters
    solver = DivideAndConquer(problem, tol, part_solver=partial(part_build, "smo", shrinking,
                                                                max_iter),
                              round_solver=partial(_round_build, config),
                              final_solver=partial(part_build, final, shrinking, max_iter),
                              random_state=random_state, alpha=alpha,
                              n_clusters=None if clusters == "auto" else clusters,
                              levels=config.dc_levels, sample_size=config.dc_sample_size,
                              early_stop_level=config.early_stop_level, deadline=deadline)
    return solver, math.inf


class KernelSolver(NamedTuple):
    """An entry of :data:`KERNEL_SOLVERS`.

    ``build(problem, tol, *, shrinking, random_state, max_iter, alpha=None, config=None,
    deadline=None) -> (solver, max_epochs)`` returns a driver-interface solver (started
    from ``alpha``, a warm start) (see :mod:`dualsvm.solvers._driver`) and the epoch
    limit that gives ``max_iter`` (-1: none) in the solver's own iterations; ``config``
    (the fit's :class:`~.config.KernelTraining`) and ``deadline`` (the fit's) serve the
    solvers that run others (divide and conquer);
    ``bias``: the bias mode of the problem it solves; ``losses``: those it accepts;
    ``random``: whether it draws from its ``random_state`` (SMO is deterministic: a fit
    by it without probabilities makes no generator).
    """

    build: Callable
    bias: str
    losses: tuple
    random: bool = True


#: SVC's ``solver`` values ('auto' picks 'ws' or 'smo' per fit: :func:`choose_solver`).
KERNEL_SOLVERS = {
    "dc": KernelSolver(_build_dc, "exact", LOSSES),
    "smo": KernelSolver(_build_smo, "exact", LOSSES, random=False),
    "ws": KernelSolver(_builder(WorkingSetSMO), "exact", LOSSES),
    "cgd": KernelSolver(_builder(CGD), "exact", LOSSES),
    "dcd": KernelSolver(_builder(KernelDCD), "none", LOSSES),
    "pgd": KernelSolver(_builder(DualPGD), "exact", LOSSES),
}


#: 'auto' takes the working-set solver from this many training rows: with fewer rows
#: the cache holds most of Q, SMO computes each column about once, and the bulk columns
#: have little to save (measurements: ``benchmarks/results/auto.md``; summary in
#: benchmarks/results/design_measurements.md, section training/kernel.py).
AUTO_MIN_ROWS = 10000


class SolverChoice(NamedTuple):
    """What trains a C-SVC: a key of :data:`KERNEL_SOLVERS` and why (``solver_reason_``)."""

    name: str
    reason: str


def choose_solver(config, n_samples):
    """The solver of a C-SVC fit and the reason (:class:`SolverChoice`): the requested
    one, or for ``solver='auto'`` :func:`auto_solver`'s."""
    if config.solver != "auto":
        return SolverChoice(config.solver, "requested")
    return auto_solver(config, n_samples)


def auto_solver(config, n_samples):
    """'auto''s choice (:class:`SolverChoice`): 'ws' (large working sets) from
    ``AUTO_MIN_ROWS`` rows, 'smo' for smaller problems, a precomputed kernel, or
    shrinking turned off (the working-set solver needs data rows, and its shrinking
    cannot be turned off)."""
    if config.kernel == "precomputed":
        return SolverChoice("smo", "auto: 'smo' for a precomputed kernel ('ws' needs data rows)")
    if not config.shrinking:
        return SolverChoice("smo", "auto: 'smo' for shrinking=False")
    if n_samples < AUTO_MIN_ROWS:
        return SolverChoice("smo", f"auto: 'smo' for {n_samples} rows (< {AUTO_MIN_ROWS})")
    return SolverChoice("ws", f"auto: 'ws' for {n_samples} rows (>= {AUTO_MIN_ROWS})")


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


def _family_problem(kind, X, y, cost, config, kernel):
    """The dual problem of one task of a kind other than C-SVC (LIBSVM's formulations)."""
    if kind == "nu_svc":
        return NuDual(X, y, cost, config.nu, kernel, config.cache_size)
    if kind == "one_class":
        return NuDual(X, None, cost, config.nu, kernel, config.cache_size)
    if kind == "epsilon_svr":
        return SVRDual(X, y, cost, epsilon=config.epsilon, kernel=kernel,
                       cache_size=config.cache_size)
    if kind == "nu_svr":
        return SVRDual(X, y, cost, nu=config.nu, kernel=kernel, cache_size=config.cache_size)
    raise ValueError(f"unknown kind of kernel model {kind!r}; known: {sorted(SVM_TYPES)}")


def _task_problem(kind, X, y, cost, config, kernel, entry):
    """The dual problem of one task (a pair of classes, or the one task) of ``kind``."""
    if kind == "c_svc":
        return KernelDualProblem(X, y, cost, config.loss, entry.bias, kernel, config.cache_size)
    return _family_problem(kind, X, y, cost, config, kernel)


def _task_rows(X, rows, precomputed):
    """The training data of a task's rows (the kernel matrix's block for 'precomputed'):
    X itself when they are all its rows in order (regression and one-class without
    zero weights: a copy would cost a small fit a noticeable share of its time)."""
    if len(rows) == X.shape[0] and np.array_equal(rows, np.arange(len(rows))):
        return X
    return X[np.ix_(rows, rows)] if precomputed else X[rows]


def _model(kind, problem, solver, result):
    """(coefficients by task row, intercept) of a trained task, as LIBSVM stores them.

    C-SVC: y_i a_i and b. nu-SVC: both divided by rho (LIBSVM's scaling, the C-SVC
    with C = 1 / rho). Regression: beta = a - a*. One-class: a and -rho.
    """
    if kind == "c_svc":
        return problem.y * result.alpha, result.intercept
    if kind == "nu_svc":
        _, rho = problem.offsets(result.alpha, solver.G)  # SMO's gradient, as LIBSVM's
        return problem.y * result.alpha / rho, result.intercept / rho
    if kind in ("epsilon_svr", "nu_svr"):
        return problem.coefficients(result.alpha), result.intercept
    return result.alpha.copy(), result.intercept


def fit_kernel(X, y, cost, params, kind="c_svc", *, start=None, problems=None):
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
        The estimator's parameters (``get_params()``, read as a
        :class:`~.config.KernelTraining`; the model keeps the dict): those of
        :class:`dualsvm.SVC` for C-SVC (``solver='auto'`` is resolved by
        :func:`choose_solver`, the result is the fit's ``solver_used_`` and
        ``solver_reason_``); ``nu`` /
        ``epsilon``, kernel, ``tol``, ``shrinking``, ``cache_size``, ``max_iter``,
        ``time_limit``, ``callback``, ``verbose`` (and for nu-SVC and one-class
        ``probability``)
        for the others (solved by SMO).
    kind : str
        A key of :data:`dualsvm.constants.SVM_TYPES`.
    start : WarmStart or None
        Dual variables to start each pair from (``start.alpha[p]``, in the pair's
        row order, see :func:`task_alphas`).
    problems : list or None
        The binary problems, kept for the next call on the same X and y with
        other costs (a path over C): an empty list is filled; a filled one is
        reused with the new costs, so the kernel column caches carry over.

    Returns
    -------
    KernelFit
    """
    if kind not in SVM_TYPES:
        raise ValueError(f"unknown kind of kernel model {kind!r}; known: {sorted(SVM_TYPES)}")
    config = KernelTraining.of(params)
    solver, reason, entry = _solver_entry(kind, config, X)
    if config.verbose:
        print(f"solver: {solver} ({reason})", file=sys.stderr)
    kernel = make_kernel(config.kernel, gamma=config.gamma, degree=config.degree,
                         coef0=config.coef0, X=X)
    precomputed = kernel.name == "precomputed"
    classifies = kind in CLASSIFIER_TYPES
    probability = classifies and config.probability
    generator = random_generator(config.random_state) if entry.random or probability else None
    time_limit = config.time_limit
    classes, label, tasks = _tasks(kind, X, y, cost)

    def build(task):
        rows = task.rows
        p = tasks.index(task)
        if problems is not None and p < len(problems):
            problem = problems[p]
            problem.set_costs(cost[rows])
        else:
            sub = _task_rows(X, rows, precomputed)
            problem = _task_problem(kind, sub, task.y, cost[rows], config, kernel, entry)
            if problems is not None:
                problems.append(problem)
        solver, max_epochs = entry.build(problem, config.tol, shrinking=config.shrinking,
                                         random_state=generator, max_iter=config.max_iter,
                                         alpha=None if start is None else start.alpha[p],
                                         config=config, deadline=stopping.deadline)
        return problem, solver, max_epochs

    stopping = Stopping(callback=config.callback, verbose=config.verbose,
                        monitor=config.monitored, deadline=None if time_limit is None
                        else time.perf_counter() + time_limit)
    solved = solve_tasks(tasks, build, stopping)
    sigmoids = None
    if probability and not any(s.result.status == "interrupted" for s in solved):
        sigmoids = _platt_sigmoids(X, cost, tasks, solved, kernel, entry, config, generator,
                                   stopping, kind)
    support, dual_coef, intercept, n_support = _dual_coefficients(kind, solved, label,
                                                                  len(classes))
    results = [s.result for s in solved]
    if solver == "ws":  # the mode of each pair's sets (see WorkingSetSMO.mode)
        reason += "; " + ", ".join(dict.fromkeys(s.solver.mode for s in solved))
    fit = KernelFit(
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
        probA_=None if sigmoids is None else sigmoids[0],
        probB_=None if sigmoids is None else sigmoids[1],
        solver_used_=solver,
        cluster_models_=_cluster_models(solved, support, X.shape[0], precomputed),
        solver_reason_=reason,
        kind=kind,
        libsvm_labels=libsvm_label_order(y[cost > 0]) if classifies else None,
    )
    if kind == "one_class" and config.probability and \
            "interrupted" not in fit.status_:
        fit.prob_density_marks_ = _one_class_marks(fit, X[cost > 0])
    return fit


def _one_class_marks(fit, X):
    """LIBSVM's svm_one_class_probability: the density marks of the decisions on the
    training rows ``X`` (None, with a warning, when there are too few)."""
    marks = density_marks(fit.decision_ovo(X)[:, 0])
    if marks is None:
        warnings.warn(TOO_FEW_DECISIONS, UserWarning, stacklevel=3)
    return marks


def _solver_entry(kind, config, X):
    """(solver name, the reason it was chosen, its :class:`KernelSolver`) of ``kind``:
    C-SVC's solver by :func:`choose_solver`, LIBSVM's SMO for the rest of the family."""
    if kind != "c_svc":  # two constraints for the nu ones
        return "smo", "LIBSVM's SMO solves every kernel model but C-SVC", KERNEL_SOLVERS["smo"]
    solver, reason = choose_solver(config, X.shape[0])
    if solver == "ws" and config.kernel == "precomputed":
        raise ValueError("solver='ws' needs the data rows, not a precomputed kernel "
                         "matrix: use solver='smo' or 'auto'")
    return solver, reason, kernel_solver(solver, config.loss, config.shrinking)


def _tasks(kind, X, y, cost):
    """(classes, each row's class index, the binary tasks): one per pair of classes
    for the classifiers, the one task of the rows of cost > 0 for the others."""
    if kind in CLASSIFIER_TYPES:
        classes = np.unique(y)  # a sort: return_inverse's argsort costs more
        return classes, np.searchsorted(classes, y), one_vs_one(classes, y, keep=cost > 0)
    rows = np.flatnonzero(cost > 0)
    task = BinaryTask(0, None, rows, np.asarray(y, dtype=np.float64)[rows], "")
    return np.empty(0), np.zeros(X.shape[0], dtype=np.int64), [task]


def _platt_sigmoids(X, cost, tasks, solved, kernel, entry, config, generator, stopping, kind):
    """Platt's (A, B) of every task, shape (2, n_tasks), from cross-validated decisions;
    None after Ctrl-C, which marks the models interrupted (they stand, without
    probabilities)."""
    sigmoids = np.zeros((2, len(tasks)))
    for p, task in enumerate(tasks):
        dec = cross_validated_decisions(X, task.y, cost[task.rows], task.rows, kernel, entry,
                                        config, generator, stopping, kind)
        if dec is None:
            for s in solved:
                s.result.status = "interrupted"
            return None
        sigmoids[:, p] = sigmoid_train(dec, task.y)
    return sigmoids


def _dual_coefficients(kind, solved, label, n_classes):
    """(support, dual_coef, intercept, n_support) in LIBSVM's layout from the trained
    tasks (:func:`~.fitted.dual_coefficients`)."""
    models = [_model(kind, s.problem, s.solver, s.result) for s in solved]
    intercept = np.array([b for _, b in models])
    rows = [s.task.rows for s in solved]
    support, dual_coef, n_support = dual_coefficients(
        rows, [coef for coef, _ in models], [label[r] for r in rows], intercept, n_classes,
        kind in CLASSIFIER_TYPES)
    return support, dual_coef, intercept, n_support


def _cluster_models(solved, support, n_rows, precomputed):
    """Early prediction's :class:`ClusterModels` of every pair (None for a pair trained
    to the end), or None when no pair stopped at a level (divide and conquer)."""
    models = []
    for s in solved:
        local = s.solver.local_models if getattr(s.solver, "early", False) else None
        if local is None:
            models.append(None)
            continue
        part = np.full(n_rows, -1, dtype=np.int64)
        part[s.task.rows] = local.part
        clusters = local.clusters
        if precomputed:  # the sample's columns of the whole kernel matrix
            clusters = replace(clusters, rows=s.task.rows[clusters.rows])
        models.append(ClusterModels(local.level, clusters, part[support], local.intercepts))
    return models if any(m is not None for m in models) else None


def cross_validated_decisions(X, y, cost, rows, kernel, entry, config, generator, stopping,
                              kind="c_svc"):
    """Decision values of one binary problem's rows, each from a model trained without it.

    LIBSVM's ``svm_binary_svc_probability``: the rows are permuted and split into five
    folds; each fold is scored by a model trained on the other four (same kernel, costs
    and solver, no callback or trace); a fold whose training part holds one class only
    gets +1 or -1 (0 if empty), as LIBSVM gives it. None when Ctrl-C stopped a fold.

    Parameters
    ----------
    X : the whole training data (the kernel matrix for 'precomputed')
    y : ndarray of the problem's labels in {-1, +1}
    cost : ndarray of the problem's C_i
    rows : ndarray of the problem's rows of X
    kind : 'c_svc' or 'nu_svc' (LIBSVM's -b 1 for both: the fold models are of that
        kind, nu-SVC's scaled by 1 / rho as its final model is)
    """
    precomputed = kernel.name == "precomputed"
    dec = np.zeros(len(rows))
    perm, folds = fold_decision_slices(len(rows), generator)
    quiet = Stopping(deadline=stopping.deadline, monitor=False)
    for begin, end in folds:
        held = perm[begin:end]
        train = np.concatenate([perm[:begin], perm[end:]])
        positive = int(np.count_nonzero(y[train] > 0))
        if positive in (0, len(train)):
            dec[held] = 0.0 if len(train) == 0 else (1.0 if positive else -1.0)
            continue
        train_rows = rows[train]
        sub = _task_rows(X, train_rows, precomputed)
        problem = _task_problem(kind, sub, y[train], cost[train], config, kernel, entry)
        solver, max_epochs = entry.build(problem, config.tol, shrinking=config.shrinking,
                                         random_state=generator, max_iter=config.max_iter,
                                         config=config, deadline=stopping.deadline)
        result = run_epochs(solver, problem, replace(quiet, max_iter=max_epochs))
        if result.status == "interrupted":
            return None
        coef, intercept = _model(kind, problem, solver, result)
        support = np.flatnonzero(coef)
        coef = coef[support]
        if precomputed:
            K = X[np.ix_(rows[held], train_rows[support])]
        else:
            K = kernel(X[rows[held]], X[train_rows[support]])
        dec[held] = K @ coef + intercept
    return dec


def task_alphas(fit, y, cost):
    """The dual variables of every task of a C-SVC or regression :class:`KernelFit`,
    each in its task's variable order: what :func:`fit_kernel` takes as
    ``start.alpha``. Classification: each pair's (the rows of
    :func:`dualsvm.training.multiclass.one_vs_one` of the training ``y`` and ``cost``).
    Regression: (a, a*) = (beta+, beta-) over the rows of cost > 0 (the solution's a
    and a* are never both nonzero when eps > 0; else the start's sums are restored
    by :meth:`dualsvm.problems.kernel.KernelQP.feasible`)."""
    if fit.kind in ("epsilon_svr", "nu_svr"):
        beta = np.zeros(len(y))
        beta[fit.support_] = fit.dual_coef_[0]
        beta = beta[cost > 0]
        return [np.concatenate([np.maximum(beta, 0.0), np.maximum(-beta, 0.0)])]
    label = np.searchsorted(fit.classes_, y)
    sv_label = label[fit.support_]
    alphas = []
    for task in one_vs_one(fit.classes_, y, keep=cost > 0):
        i, j = task.positive, task.negative
        coef = np.zeros(len(y))  # y_t alpha_t by training row
        on_i, on_j = sv_label == i, sv_label == j
        coef[fit.support_[on_i]] = fit.dual_coef_[j - 1, on_i]
        coef[fit.support_[on_j]] = fit.dual_coef_[i, on_j]
        alphas.append(coef[task.rows] * task.y)
    return alphas


def kernel_path(X, y, unit_cost, params, Cs, kind="c_svc"):
    """Fit one kernel model per C of the increasing ``Cs``, each from the one before.

    Each fit starts from the previous dual variables scaled by C_new / C_old
    (:meth:`WarmStart.rescaled`; the solver projects them into its box and
    restores the equality constraints: :meth:`BoxDual.feasible`,
    :meth:`KernelQP.feasible`), and the problems, with their kernel column caches,
    are kept across the path (their ``set_costs``).

    Parameters
    ----------
    X, y
        As for :func:`fit_kernel`.
    unit_cost : ndarray of shape (n_samples,)
        C_i / C (costs scale with C).
    params : dict
        The estimator's parameters (``params["C"]`` is replaced by each C).
    Cs : sequence of float
        Increasing values of C.
    kind : {'c_svc', 'epsilon_svr', 'nu_svr'}
        The models with a C (nu-SVC and one-class have none).

    Yields
    ------
    KernelFit
        The model at each C in turn, with its certificate.
    """
    problems = []
    previous = None
    for C in Cs:
        C = float(C)
        cost = unit_cost * C
        start = None
        if previous is not None:
            start = WarmStart(alpha=task_alphas(previous[1], y, cost)).rescaled(C / previous[0])
        fit = fit_kernel(X, y, cost, {**params, "C": C}, kind, start=start, problems=problems)
        yield fit
        if "interrupted" in fit.status_:
            return
        previous = (C, fit)
