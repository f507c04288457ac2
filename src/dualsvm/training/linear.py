"""Training linear models in memory, one-vs-rest, without scikit-learn.

:class:`dualsvm.LinearSVC` validates its input with scikit-learn and then calls
:func:`fit_linear`; the command line calls it directly, because importing
scikit-learn alone takes longer than its whole start-up budget (measurements:
benchmarks/results/design_measurements.md, section training/linear.py).
"""

import math
import time
from dataclasses import dataclass, replace

import numpy as np

from ..constants import L1R_L2LOSS_SVC, L2R_L1LOSS_SVC_DUAL, L2R_L2LOSS_SVC, L2R_L2LOSS_SVC_DUAL, \
    MCSVM_CS
from ..data.validation import random_generator
from ..problems.crammer_singer import CrammerSingerProblem
from ..problems.linear import DualProblem, L1RegularizedProblem, LinearOneClassDual, SVRDualProblem
from ..solvers import DualCD, ImplicitSGD, PairCD, Pegasos, Stopping, run_epochs
from ..solvers.crammer_singer import CrammerSingerCD
from ..solvers.newton import NewtonCG
from ..solvers.oneclass import OneClassCD
from ..solvers.primal_cd import PrimalCD
from .config import LinearTraining
from .fitted import LinearFit, LinearOneClassFit, LinearSVRFit
from .multiclass import one_vs_rest, solve_tasks

#: LinearSVC's ``solver`` values that run in the primal (stochastic steps on w).
PRIMAL_SOLVERS = {"pegasos": Pegasos, "implicit": ImplicitSGD}

#: scikit-learn's and LIBLINEAR's table of LinearSVC's one-vs-rest problems:
#: loss -> penalty -> dual -> LIBLINEAR's ``-s``. Combinations not in it are refused.
SOLVER_TYPES = {"hinge": {"l2": {True: L2R_L1LOSS_SVC_DUAL}},
                "squared_hinge": {"l1": {False: L1R_L2LOSS_SVC},
                                  "l2": {False: L2R_L2LOSS_SVC, True: L2R_L2LOSS_SVC_DUAL}}}
#: LIBLINEAR's ``-s`` values solved in the primal, from w: ``-s 2`` by its Newton method
#: (:mod:`dualsvm.solvers.newton`), ``-s 5`` by coordinate descent
#: (:mod:`dualsvm.solvers.primal_cd`).
LIBLINEAR_PRIMAL_TYPES = (L2R_L2LOSS_SVC, L1R_L2LOSS_SVC)
#: The solvers of LIBLINEAR_PRIMAL_TYPES.
LIBLINEAR_SOLVERS = (NewtonCG, PrimalCD)


#: ``dual='auto'`` solves the squared hinge with the L2 penalty in the primal (LIBLINEAR's
#: Newton method, ``-s 2``) when n_samples >= PRIMAL_ROWS_PER_FEATURE * n_weights and
#: n_samples >= PRIMAL_MIN_ROWS: Newton's few iterations beat DCD's many passes on such
#: tables, DCD wins on wider ones and on very few rows (a few short passes); measured
#: by benchmarks/bench_dual_auto.py (measurements: benchmarks/results/design_measurements.md,
#: section training/linear.py).
PRIMAL_ROWS_PER_FEATURE = 1.0
PRIMAL_MIN_ROWS = 100


def auto_dual(config, shape):
    """Whether ``dual='auto'`` solves LinearSVC ``config`` (a
    :class:`~.config.LinearTraining`) on data of ``shape`` in the dual.

    The primal (LIBLINEAR's Newton method) for the squared hinge with the L2 penalty
    on tables with at least :data:`PRIMAL_ROWS_PER_FEATURE` rows per feature (the
    augmented feature counted) and :data:`PRIMAL_MIN_ROWS` rows, one-vs-rest, the bias
    augmented or none and solver 'dcd'; the dual otherwise, and for the hinge loss
    (whose primal LIBLINEAR has no Newton method for: it is not differentiable).
    ``shape`` None: the dual.
    """
    if shape is None or config.solver != "dcd" or config.multi_class != "ovr" or \
            config.loss != "squared_hinge" or config.penalty != "l2" or \
            config.bias_mode == "exact":
        return True
    n_samples, n_features = shape
    n_weights = n_features + bool(config.fit_intercept)
    return n_samples < max(PRIMAL_ROWS_PER_FEATURE * n_weights, PRIMAL_MIN_ROWS)


def liblinear_type(config, shape=None):
    """LIBLINEAR's ``-s`` of LinearSVC parameters (a :class:`~.config.LinearTraining`:
    parameters missing from a model file of an older version take their defaults),
    ``dual`` resolved for data of
    ``shape`` (n_samples, n_features) by :func:`auto_dual`.

    ``multi_class='crammer_singer'`` is ``-s 4`` (its loss is the multi-class hinge:
    scikit-learn ignores ``loss`` there, a ``loss`` other than the default is refused
    here); it is a dual method, so ``dual=False`` and ``penalty='l1'`` are refused
    with it. Otherwise ``SOLVER_TYPES``:
    ``dual='auto'`` takes the side :func:`auto_dual` chooses when the combination has
    both (the squared hinge with the L2 penalty), else the one it has.
    The stochastic primal solvers (``solver`` 'pegasos',
    'implicit') have their own rules (``LinearSVC._check_solver``): None.

    Raises
    ------
    ValueError
        A combination scikit-learn refuses, with scikit-learn's message.
    """
    if config.solver in PRIMAL_SOLVERS:
        return None
    penalty, loss = config.penalty, config.loss
    dual = config.dual
    if config.multi_class == "crammer_singer":
        if penalty != "l2" or dual is False:
            raise ValueError(f"multi_class='crammer_singer' is solved in the dual with the L2 "
                             f"penalty (LIBLINEAR -s 4); penalty={penalty!r} and dual={dual!r} "
                             "do not apply to it: use penalty='l2' and dual='auto' or True")
        if loss != "squared_hinge":
            # its loss is fixed; scikit-learn ignores `loss` here, we refuse what does not apply
            raise ValueError(f"multi_class='crammer_singer' has its own loss (the multi-class "
                             f"hinge); loss={loss!r} does not apply to it: leave loss at its "
                             "default")
        return MCSVM_CS
    by_dual = SOLVER_TYPES.get(loss, {}).get(penalty)
    if by_dual is None:
        reason = f"The combination of penalty='{penalty}' and loss='{loss}' is not supported"
    else:
        if dual == "auto":
            dual = True in by_dual and (False not in by_dual or auto_dual(config, shape))
        if dual in by_dual:
            return by_dual[dual]
        reason = (f"The combination of penalty='{penalty}' and loss='{loss}' are not "
                  f"supported when dual={dual}")
    raise ValueError(f"Unsupported set of arguments: {reason}, Parameters: "
                     f"penalty='{penalty}', loss='{loss}', dual={dual}")


@dataclass
class WarmStart:
    """Where training continues, one row per binary problem.

    ``alpha``: dual variables (solver 'dcd'). ``extrapolated``: more dual variables
    for 'dcd' to choose from (a path's prediction, see :func:`path_start`).
    ``violations``: the projected-gradient violation each problem ended with, which
    a path's next fit takes for its first shrinking thresholds.
    ``weights``, ``steps``: the primal
    solvers' w (the augmented entry included) and step counts t ('dcd' given
    ``weights`` starts from their dual point, see :func:`dual_start`); ``seen_rows``,
    ``seen_cost``: rows and sum of C_i of earlier data whose objective this
    training extends (``partial_fit``; 0 for a warm-started ``fit``).
    """

    alpha: np.ndarray | None = None
    extrapolated: np.ndarray | None = None
    violations: list | None = None
    weights: np.ndarray | None = None
    steps: np.ndarray | None = None
    seen_rows: int = 0
    seen_cost: float = 0.0

    def rescaled(self, ratio):
        """The start for the same data at C multiplied by ``ratio`` (a path over C).

        The dual variables scale with C: the hinge loss's box [0, C_i] scales
        exactly, so a point interior to the old box keeps its place in the new
        one; the squared hinge's optimum a_i = 2 C_i max(0, 1 - m_i) scales too
        at fixed margins. The solver then projects the start into its box
        (:meth:`dualsvm.problems.box.BoxDual.feasible`). w stays as it is (the primal
        start, see :func:`dual_start`); the step counts of the primal solvers
        continue, so their steps stay as small as the model is good.
        """
        def scaled(alphas):
            return None if alphas is None else [np.asarray(a) * ratio for a in alphas]

        return replace(self, alpha=scaled(self.alpha), extrapolated=scaled(self.extrapolated))


def dual_start(problem, start, k):
    """(alpha, w): the dual variables DCD starts binary problem ``k`` from (None:
    zeros), and their w(alpha) when computed here (else None).

    Candidates: ``start.alpha[k]`` and ``start.extrapolated[k]`` made feasible, and
    the dual point of the primal w ``start.weights[k]``
    (:meth:`dualsvm.problems.linear.DualProblem.dual_point`, not for the exact bias); with
    more than one, the one of the largest dual objective (one product X'a each), so
    a path over C starts from whichever is closest.
    """
    candidates = []
    for alphas in (start.alpha, start.extrapolated):
        if alphas is not None:
            candidates.append(problem.feasible(alphas[k]))
    if start.weights is not None and problem.bias != "exact":
        candidates.append(problem.dual_point(problem.decision(start.weights[k])))
    if len(candidates) < 2:
        return (candidates[0] if candidates else None), None
    scored = [(problem.dual(alpha, w), alpha, w)
              for alpha, w in ((a, problem.weights(a)) for a in candidates)]
    _, alpha, w = max(scored, key=lambda entry: entry[0])
    return alpha, w


#: How a path over C starts each fit from the one before (see :func:`linear_path`).
PATH_STARTS = ("dual", "primal", "best")


#: Row entries one unmonitored ``epoch()`` visits in compiled code (at least a pass):
#: a work budget, not a time, so that the same data gives the same epochs on any
#: host; about a millisecond, against the few microseconds of a Python round trip.
SLICE_ENTRIES = 200_000


def passes_per_epoch(X, monitor):
    """Passes of the data one ``epoch()`` runs in compiled code: 1 when every epoch is
    certified (``monitor``), else :data:`SLICE_ENTRIES` row entries' worth (a Python
    round trip costs more than a pass over a small problem)."""
    return 1 if monitor else max(1, SLICE_ENTRIES // (X.size + X.shape[0]))  # CSR size too


def work_per_epoch(X, monitor):
    """Variables one DCD ``epoch()`` visits (:class:`~dualsvm.solvers.DualCD`'s
    ``work_per_epoch``): None (one pass) when every epoch is certified, else
    :func:`passes_per_epoch` full passes' worth, which shrinking spreads over more,
    shorter passes."""
    return None if monitor else passes_per_epoch(X, monitor) * X.shape[0]


def fit_linear(X, y, cost, params, *, start=None, classes=None, max_iter=None, problems=None):
    """Train one binary model (two classes) or one per class (one-vs-rest).

    Parameters
    ----------
    X : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features)
        Validated float64 data (C-ordered, or CSR with canonical indices).
    y : ndarray of shape (n_samples,)
        Class labels, at least two distinct.
    cost : ndarray of shape (n_samples,)
        C_i = C * class_weight[y_i] * sample_weight_i.
    params : dict
        :class:`dualsvm.LinearSVC` parameters (``get_params()``, read as a
        :class:`~.config.LinearTraining`; the model keeps the dict).
    start : WarmStart or None
        Where to continue from (its ``alpha`` for 'dcd', its primal state for
        the primal solvers).
    classes : ndarray or None
        All class labels, when y may lack some (``partial_fit``); default np.unique(y).
    max_iter : int or None
        Overrides ``params["max_iter"]`` (``partial_fit``: 1).
    problems : dict or None
        The binary problems by index, kept across the fits of a path: a problem
        found here takes the new costs (its rows' norms are kept), others are added.

    Returns
    -------
    LinearFit
    """
    classes = np.unique(y) if classes is None else classes
    config = LinearTraining.of(params)
    solver_type = liblinear_type(config, X.shape)
    if solver_type == MCSVM_CS:
        return fit_crammer_singer(X, y, cost, params, start=start, classes=classes,
                                  max_iter=max_iter)
    start = WarmStart() if start is None else start
    random_state = random_generator(config.random_state)
    stopping = _stopping(config, stochastic=config.solver in PRIMAL_SOLVERS)
    per_epoch = passes_per_epoch(X, stopping.monitor)
    dcd_work = work_per_epoch(X, stopping.monitor)
    budget = max_iter or config.max_iter
    problem_class = L1RegularizedProblem if solver_type == L1R_L2LOSS_SVC else DualProblem
    problems = {} if problems is None else problems
    tasks = one_vs_rest(classes, y)

    def build(task):
        k = tasks.index(task)
        if k in problems:
            problems[k].set_costs(cost)
        else:
            problems[k] = problem_class(X, task.y, cost, config.loss, config.bias_mode,
                                        config.intercept_scaling)
        solver, max_epochs = _task_solver(problems[k], k, solver_type, config, start, budget,
                                          per_epoch, dcd_work, random_state)
        return problems[k], solver, max_epochs

    solved = solve_tasks(tasks, build, stopping)
    return _linear_fit(solved, X, cost, params, config, classes, start, solver_type)


def _stopping(config, stochastic):
    """The :class:`~dualsvm.solvers.Stopping` of LinearSVC parameters (its time limit
    counted from now). The stochastic primal solvers have no optimality measure of
    their own: ``tol`` is then the certificate's gap, checked every epoch."""
    monitor = config.monitored
    gap_tol = config.gap_tol
    if stochastic:
        gap_tol = config.tol if gap_tol is None else min(gap_tol, config.tol)
        monitor = True
    time_limit = config.time_limit
    return Stopping(gap_tol=gap_tol, callback=config.callback, verbose=config.verbose,
                    monitor=monitor, deadline=None if time_limit is None
                    else time.perf_counter() + time_limit)


def _task_solver(problem, k, solver_type, config, start, budget, per_epoch, dcd_work,
                 random_state):
    """(solver, epoch limit) of binary problem ``k``: LIBLINEAR's primal methods
    continue from ``start``'s w, the stochastic ones from its w and step counts, DCD
    (PairCD for the exact bias) from its dual variables (:func:`dual_start`).
    ``budget``: passes over the data (Newton: iterations, one per epoch); primal CD
    runs ``per_epoch`` passes an epoch, DCD ``dcd_work`` variables' worth."""
    common = {"shrinking": config.shrinking, "shuffle": config.shuffle,
              "random_state": random_state}
    w = None if start.weights is None else start.weights[k]
    if solver_type == L2R_L2LOSS_SVC:
        return NewtonCG(problem, config.tol, w=w), budget
    if solver_type == L1R_L2LOSS_SVC:
        solver = PrimalCD(problem, config.tol, **common, w=w, passes_per_epoch=per_epoch,
                          max_passes=budget)
        return solver, math.ceil(budget / per_epoch)
    name = config.solver
    if name in PRIMAL_SOLVERS:
        options = {"batch_size": config.batch_size} if name == "pegasos" else {}
        if w is not None:
            options.update(w=w, t=start.steps[k], seen=(start.seen_rows, start.seen_cost))
        return PRIMAL_SOLVERS[name](problem, config.tol, **common, **options), budget
    alpha, w = dual_start(problem, start, k)
    if config.bias_mode == "exact":
        return PairCD(problem, config.tol, **common, alpha=alpha), budget
    threshold = np.inf if start.violations is None else start.violations[k]
    return DualCD(problem, config.tol, **common, alpha=alpha, w=w, max_passes=budget,
                  work_per_epoch=dcd_work, shrink_threshold=threshold), budget


def _linear_fit(solved, X, cost, params, config, classes, start, solver_type):
    """The :class:`LinearFit` of the solved one-vs-rest tasks (``cost``: this
    training's C_i, added to ``start``'s for ``partial_fit``'s lambda)."""
    results = [s.result for s in solved]
    d = X.shape[1]
    if config.bias_mode == "augmented":
        intercept = np.array([config.intercept_scaling * r.w[d] for r in results])
    else:
        intercept = np.array([r.intercept for r in results])
    cost_seen = start.seen_cost + float(cost.sum())
    stochastic = config.solver in PRIMAL_SOLVERS
    return LinearFit(
        params=dict(params),
        classes_=classes,
        coef_=np.array([r.w[:d] for r in results]),
        intercept_=intercept,
        alpha_=np.array([r.alpha for r in results]),
        # primal CD and DCD count their passes (several per epoch() call when unmonitored)
        n_iter_=max(s.solver.n_iter if isinstance(s.solver, (DualCD, *LIBLINEAR_SOLVERS))
                    else s.result.n_iter for s in solved),
        primal_=np.array([r.primal for r in results]),
        dual_=np.array([r.dual for r in results]),
        gap_=np.array([r.gap for r in results]),
        status_=[r.status for r in results],
        history_=[r.history for r in results],
        n_samples_seen_=start.seen_rows + int(np.count_nonzero(cost > 0)),
        lambda_=1.0 / cost_seen if cost_seen > 0 else float("inf"),
        t_=np.array([s.solver.t if stochastic else 0 for s in solved]),
    )


def fit_crammer_singer(X, y, cost, params, *, start=None, classes=None, max_iter=None):
    """Train Crammer and Singer's multi-class SVM (LIBLINEAR ``-s 4``) by the
    sequential dual method (:class:`~dualsvm.solvers.crammer_singer.CrammerSingerCD`).

    Arguments as :func:`fit_linear` (``start.alpha``: a previous ``alpha_``,
    (n_classes, n_samples), used when feasible for these costs). The bias is the
    augmented feature (LIBLINEAR's ``-B``) or none. With two classes, ``coef_``
    and ``intercept_`` are w_1 - w_0 and b_1 - b_0 (scikit-learn's layout, one row
    deciding for ``classes_[1]``); otherwise one row per class, the decision
    being the class of the largest x'coef_m + b_m. The certificate (one entry)
    is that of the whole multi-class problem.
    """
    classes = np.unique(y) if classes is None else classes
    config = LinearTraining.of(params)
    mode = config.bias_mode
    if mode == "exact":
        raise ValueError("multi_class='crammer_singer' fits the intercept as an augmented "
                         "feature (intercept_mode='augmented', LIBLINEAR's -B) or not at all; "
                         "the exact intercept is not available for it")
    problem = CrammerSingerProblem(X, np.searchsorted(classes, y), cost, len(classes), mode,
                                   config.intercept_scaling)
    start = WarmStart() if start is None else start
    monitor = config.monitored
    per_epoch, budget = passes_per_epoch(X, monitor), max_iter or config.max_iter
    solver = CrammerSingerCD(problem, config.tol, shrinking=config.shrinking,
                             shuffle=config.shuffle,
                             random_state=random_generator(config.random_state),
                             alpha=None if start.alpha is None else np.asarray(start.alpha),
                             passes_per_epoch=per_epoch, max_passes=budget)
    result = run_epochs(solver, problem, Stopping(
        max_iter=math.ceil(budget / per_epoch), gap_tol=config.gap_tol,
        callback=config.callback, verbose=config.verbose, monitor=monitor,
        time_limit=config.time_limit))
    coef, intercept = problem.coef_intercept(result.w)
    if len(classes) == 2:
        coef, intercept = coef[1:] - coef[:1], intercept[1:] - intercept[:1]
    cost_sum = float(cost.sum())
    return LinearFit(
        params=dict(params), classes_=classes, coef_=coef, intercept_=intercept,
        alpha_=np.array(result.alpha), n_iter_=solver.n_iter,
        primal_=np.array([result.primal]), dual_=np.array([result.dual]),
        gap_=np.array([result.gap]), status_=[result.status], history_=[result.history],
        n_samples_seen_=int(np.count_nonzero(cost > 0)),
        lambda_=1.0 / cost_sum if cost_sum > 0 else float("inf"), t_=np.zeros(1, dtype=int))


def fit_linear_svr(X, y, cost, params, *, alpha=None, violation_reference=None):
    """Train linear support vector regression (LIBLINEAR ``-s 12`` / ``-s 13``) by DCD.

    Parameters
    ----------
    X : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features)
        Validated float64 data (C-ordered, or CSR with canonical indices).
    y : ndarray of shape (n_samples,)
        Finite float64 targets.
    cost : ndarray of shape (n_samples,)
        C_i = C * sample_weight_i.
    params : dict
        :class:`dualsvm.LinearSVR` parameters (``get_params()``).
    alpha : ndarray of shape (n_samples,) or None
        The dual variables beta to start from (``warm_start``).
    violation_reference : float or None
        The sum of violations ``tol`` is relative to (default: that of the first pass;
        see :class:`~dualsvm.solvers.DualCD`).

    Returns
    -------
    LinearSVRFit
    """
    config = LinearTraining.of(params)
    mode = "augmented" if config.fit_intercept else "none"
    problem = SVRDualProblem(X, y, cost, config.loss, mode, config.intercept_scaling,
                             config.epsilon)
    monitor = config.monitored
    max_iter = config.max_iter
    per_epoch = passes_per_epoch(X, monitor)
    solver = DualCD(problem, config.tol, shrinking=config.shrinking,
                    shuffle=config.shuffle,
                    random_state=random_generator(config.random_state), alpha=alpha,
                    passes_per_epoch=per_epoch, max_passes=max_iter,
                    violation_reference=violation_reference)
    result = run_epochs(solver, problem, Stopping(
        max_iter=math.ceil(max_iter / per_epoch), gap_tol=config.gap_tol,
        callback=config.callback, verbose=config.verbose, monitor=monitor,
        time_limit=config.time_limit))
    coef, intercept = problem.coef_intercept(result.w)
    return LinearSVRFit(params=dict(params), coef_=coef, intercept_=np.array([intercept]),
                        **_single_certificate(result, solver.n_iter))


def fit_linear_one_class(X, weight, params):
    """Train the linear one-class SVM (LIBLINEAR ``-s 21``) by two-level coordinate descent.

    Parameters
    ----------
    X : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features)
        Validated float64 data (C-ordered, or CSR with canonical indices).
    weight : ndarray of shape (n_samples,)
        W_i >= 0, the bounds of the dual (1: LIBLINEAR's problem).
    params : dict
        :class:`dualsvm.LinearOneClassSVM` parameters (``get_params()``).

    Returns
    -------
    LinearOneClassFit
    """
    config = LinearTraining.of(params)
    problem = LinearOneClassDual(X, weight, config.nu)
    monitor = config.monitored
    max_iter = config.max_iter
    # Unmonitored, one epoch() runs several outer iterations in compiled code, 1e8 row
    # entries' worth were each a pass over all rows (most run on the shrunk problem, a
    # few hundred rows: a Python round trip costs more than one of them; the time limit
    # and Ctrl-C are still checked between epochs, a tenth of a second apart at most).
    per_epoch = 1 if monitor else max(1, 100_000_000 // (X.size + X.shape[0]))
    solver = OneClassCD(problem, config.tol, shrinking=config.shrinking,
                        passes_per_epoch=per_epoch, max_passes=max_iter)
    result = run_epochs(solver, problem, Stopping(
        max_iter=math.ceil(max_iter / per_epoch), gap_tol=config.gap_tol,
        callback=config.callback, verbose=config.verbose, monitor=monitor,
        time_limit=config.time_limit))
    return LinearOneClassFit(params=dict(params), coef_=result.w[None, :].copy(),
                             offset_=np.array([-result.intercept]),
                             **_single_certificate(result, solver.n_iter))


def _single_certificate(result, n_iter):
    """The fitted certificate attributes of a model trained as one problem."""
    return dict(alpha_=result.alpha, n_iter_=n_iter, primal_=np.array([result.primal]),
                dual_=np.array([result.dual]), gap_=np.array([result.gap]),
                status_=[result.status], history_=[result.history])


def stacked_weights(coef, intercept, config):
    """The w of each binary problem as the solvers keep it (the augmented entry
    B w_d = intercept included), from a model's ``coef_`` and ``intercept_``."""
    if config.bias_mode != "augmented":
        return np.array(coef, dtype=np.float64)
    return np.hstack([coef, np.asarray(intercept)[:, None] / config.intercept_scaling])


def path_start(fit, ratio, config, start="dual", earlier=None, shape=None):
    """The :class:`WarmStart` of the next fit on a path: the previous ``fit`` at a C
    ``ratio`` times smaller.

    'dcd': ``start='dual'`` scales the previous dual variables
    (:meth:`WarmStart.rescaled`) and, given the fit before it (``earlier``: its
    ``(ratio, fit)``, ``ratio`` being C_previous / C_earlier), also offers their
    linear extrapolation in log C (:func:`extrapolated_alpha`); 'primal' starts from
    the dual point of the previous w (not for the exact bias, whose dual needs
    y'a = 0); 'best' offers all of them. DCD takes the candidate of the largest
    dual objective (:func:`dual_start`), and shrinks from its first epoch with the
    violation the previous fit ended with as its thresholds, as if the new C were
    the previous run's next epoch (fewer variables visited: see
    benchmarks/results/design_measurements.md, section training/linear.py). The
    primal solvers continue from the previous w and step counts. ``config``: the
    path's :class:`~.config.LinearTraining`; ``shape``: the training data's, for
    ``dual='auto'`` (:func:`auto_dual`).
    """
    if start not in PATH_STARTS:
        raise ValueError(f"start must be one of {PATH_STARTS}, got {start!r}")
    solver_type = liblinear_type(config, shape)
    if solver_type == MCSVM_CS:  # its box and equalities scale with C too
        return WarmStart(alpha=None if start == "primal" else fit.alpha_).rescaled(ratio)
    weights = stacked_weights(fit.coef_, fit.intercept_, config)
    if config.solver in PRIMAL_SOLVERS:
        return WarmStart(weights=weights, steps=fit.t_)
    if solver_type in LIBLINEAR_PRIMAL_TYPES:  # Newton and primal CD continue from w
        return WarmStart(weights=weights)
    if start != "dual" and config.bias_mode == "exact":
        raise ValueError(f"start={start!r} needs a primal start, which the exact intercept "
                         "(intercept_mode='exact') has not: its dual needs y'a = 0; use "
                         "start='dual'")
    dual = start != "primal"
    return WarmStart(alpha=fit.alpha_ if dual else None,
                     extrapolated=extrapolated_alpha(fit, ratio, *earlier)
                     if dual and earlier is not None else None,
                     violations=[history[-1]["violation"] if history else np.inf
                                 for history in fit.history_],
                     weights=None if start == "dual" else weights).rescaled(ratio)


def extrapolated_alpha(fit, ratio, earlier_ratio, earlier_fit):
    """The dual variables of ``fit`` extrapolated along the path, at its own C.

    Per unit of C (b = a / C: the hinge loss's box [0, 1] then stays fixed), the
    solutions at the last two C predict the next linearly in log C:
    b_next = b + (b - b_earlier) log(ratio) / log(earlier_ratio). Returned at the
    previous fit's C, so that :meth:`WarmStart.rescaled` brings it to the next
    one like the plain start; the solver projects it into its box. Taking it where
    its dual is larger saves epochs along a path (measurements:
    benchmarks/results/design_measurements.md, section training/linear.py).
    """
    alpha = np.asarray(fit.alpha_)
    step = math.log(ratio) / math.log(earlier_ratio)
    return alpha + step * (alpha - np.asarray(earlier_fit.alpha_) * earlier_ratio)


def along_path(Cs, fit_at):
    """Yield ``fit_at(C, history)`` for each C of the increasing ``Cs`` in turn.

    ``history`` lists the ``(C, fit)`` of the last two fits (oldest first; empty for
    the first C): what a warm start reads. The path ends after a fit that Ctrl-C
    interrupted, that fit being the last one yielded.
    """
    history = []
    for C in Cs:
        C = float(C)
        fit = fit_at(C, history)
        yield fit
        if "interrupted" in fit.status_:
            return
        history = [*history[-1:], (C, fit)]


def linear_path(X, y, unit_cost, params, Cs, *, start="dual"):
    """Fit one model per C of the increasing ``Cs``, each from the one before.

    Parameters
    ----------
    X, y
        As for :func:`fit_linear`.
    unit_cost : ndarray of shape (n_samples,)
        C_i / C = class_weight[y_i] * sample_weight_i (costs scale with C).
    params : dict
        LinearSVC parameters (``params["C"]`` is replaced by each C).
    Cs : sequence of float
        Increasing values of C.
    start : {'dual', 'primal', 'best'}
        How each fit starts from the previous one (:func:`path_start`).

    Returns
    -------
    generator of LinearFit
        The model at each C in turn, with its certificate (see :func:`along_path`).
    """
    problems = {}  # kept along the path (set_costs)
    config = LinearTraining.of(params)

    def fit_at(C, history):
        warm = None
        if history:
            previous_C, previous = history[-1]
            earlier = (previous_C / history[0][0], history[0][1]) if len(history) > 1 else None
            warm = path_start(previous, C / previous_C, config, start, earlier, X.shape)
        return fit_linear(X, y, unit_cost * C, {**params, "C": C}, start=warm,
                          problems=problems)

    return along_path(Cs, fit_at)


def linear_svr_path(X, y, unit_cost, params, Cs):
    """LinearSVR's fits over the increasing ``Cs`` (arguments as :func:`linear_path`'s,
    ``params`` LinearSVR's), each from the previous dual variables scaled by
    C_new / C_old: the box [-C_i, C_i] of the epsilon-insensitive loss scales with C,
    and so does the squared loss's optimum at fixed residuals; the solver projects
    the start into its box. LIBLINEAR's ``tol`` for regression is relative to the
    violations of a fit's first pass, which from a warm start are small and would
    make the rule ever stricter along the path (a warm path could take more passes
    than the cold fits): every fit is held to the first, cold
    fit's reference instead."""
    def fit_at(C, history):
        start = reference = None
        if history:
            previous_C, previous = history[-1]
            start = previous.alpha_ * (C / previous_C)
            reference = previous.history_[0][-1]["violation_reference"]
        return fit_linear_svr(X, y, unit_cost * C, {**params, "C": C}, alpha=start,
                              violation_reference=reference)

    return along_path(Cs, fit_at)
