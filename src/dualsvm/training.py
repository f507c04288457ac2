"""Training linear models, one-vs-rest, without scikit-learn.

:class:`dualsvm.LinearSVC` validates its input with scikit-learn and then calls
:func:`fit_linear`; the command line calls it directly, because importing
scikit-learn alone takes longer (about 1.5 s) than its whole start-up budget.
"""

import time
from dataclasses import dataclass, field

import numpy as np

from .problem import DualProblem
from .solvers import DualCD, ImplicitSGD, PairCD, Pegasos, Stopping, run_epochs

#: LinearSVC's ``solver`` values that run in the primal (stochastic steps on w).
PRIMAL_SOLVERS = {"pegasos": Pegasos, "implicit": ImplicitSGD}


@dataclass
class LinearFit:
    """A fitted linear model: what :class:`dualsvm.LinearSVC` stores after ``fit``.

    Attribute names are the estimator's fitted attributes; ``params`` holds the
    estimator parameters it was trained with (what a model file records).
    """

    params: dict
    classes_: np.ndarray
    coef_: np.ndarray
    intercept_: np.ndarray
    alpha_: np.ndarray
    n_iter_: int
    primal_: np.ndarray
    dual_: np.ndarray
    gap_: np.ndarray
    status_: list
    history_: list = field(default_factory=list)
    n_samples_seen_: int = 0
    lambda_: float = float("nan")
    t_: np.ndarray = None

    def get_params(self, deep=False):
        return dict(self.params)

    def early_stop(self):
        """None when every problem converged, else why training stopped, as a sentence."""
        stopped = {s for s in self.status_ if s not in ("converged", "gap", "callback")}
        if not stopped:
            return None
        return (f"Training stopped before convergence ({', '.join(sorted(stopped))}); the "
                f"largest relative duality gap is {max(self.gap_):.3g}.")

    def fitted_attributes(self):
        """The fitted attributes (names ending in ``_``) as a dict."""
        return {name: value for name, value in vars(self).items() if name.endswith("_")}


def bias_mode(params):
    """The :mod:`dualsvm.problem` bias mode of LinearSVC parameters."""
    return params["intercept_mode"] if params["fit_intercept"] else "none"


def random_generator(random_state):
    """A NumPy Generator seeded as scikit-learn's ``check_random_state`` would draw it."""
    if random_state is None:
        random_state = np.random.mtrand._rand
    elif isinstance(random_state, (int, np.integer)):
        random_state = np.random.RandomState(random_state)
    return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))


def fit_linear(X, y, cost, params, *, warm_alpha=None, warm_primal=None, classes=None,
               max_iter=None):
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
        :class:`dualsvm.LinearSVC` parameters (``get_params()``).
    warm_alpha : ndarray of shape (n_problems, n_samples) or None
        Dual variables to start from (solver 'dcd').
    warm_primal : (W, t, seen) or None
        Where the primal solvers continue: weight vectors W of shape
        (n_problems, n_weights) (the augmented entry included), the step counts t
        of shape (n_problems,),
        and seen = (rows, sum of C_i) of earlier data whose objective this call
        extends (``partial_fit``; (0, 0.0) for a warm-started ``fit``).
    classes : ndarray or None
        All class labels, when y may lack some (``partial_fit``); default np.unique(y).
    max_iter : int or None
        Overrides ``params["max_iter"]`` (``partial_fit``: 1).

    Returns
    -------
    LinearFit
    """
    classes = np.unique(y) if classes is None else classes
    solver_name = params.get("solver", "dcd")
    primal = solver_name in PRIMAL_SOLVERS
    seen = (0, 0.0) if warm_primal is None else warm_primal[2]
    n_seen = seen[0] + int(np.count_nonzero(cost > 0))
    cost_seen = seen[1] + float(cost.sum())
    targets = [classes[1]] if len(classes) == 2 else list(classes)
    mode = bias_mode(params)
    generator = random_generator(params["random_state"])
    time_limit = params["time_limit"]
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    monitor = params["monitor"]
    if monitor is None:
        monitor = bool(params["verbose"]) or params["callback"] is not None or params["gap_tol"] is not None
    gap_tol = params["gap_tol"]
    if primal:  # no optimality measure of their own: tol is the certificate's gap
        gap_tol = params["tol"] if gap_tol is None else min(gap_tol, params["tol"])
        monitor = True
    results = []
    solvers = []
    for k, target in enumerate(targets):
        problem = DualProblem(X, np.where(y == target, 1.0, -1.0), cost, params["loss"], mode,
                              params["intercept_scaling"])
        interrupted = bool(results) and results[-1].status == "interrupted"
        common = {"shrinking": params["shrinking"], "shuffle": params["shuffle"],
                  "random_state": generator}
        if primal:
            options = {"batch_size": params["batch_size"]} if solver_name == "pegasos" else {}
            if warm_primal is not None:
                options.update(w=warm_primal[0][k], t=warm_primal[1][k], seen=seen)
            solver = PRIMAL_SOLVERS[solver_name](problem, params["tol"], **common, **options)
        else:
            solver_class = PairCD if mode == "exact" else DualCD
            solver = solver_class(problem, params["tol"], **common,
                                  alpha=None if warm_alpha is None else warm_alpha[k])
        solvers.append(solver)
        stopping = Stopping(max_iter=0 if interrupted else (max_iter or params["max_iter"]),
                            gap_tol=gap_tol, deadline=deadline,
                            callback=params["callback"], verbose=params["verbose"],
                            label=f"class {target}: " if len(targets) > 1 else "",
                            monitor=monitor)
        result = run_epochs(solver, problem, stopping)
        if interrupted:
            result.status = "interrupted"
        results.append(result)

    d = X.shape[1]
    if mode == "augmented":
        intercept = np.array([params["intercept_scaling"] * r.w[d] for r in results])
    else:
        intercept = np.array([r.intercept for r in results])
    return LinearFit(
        params=dict(params),
        classes_=classes,
        coef_=np.array([r.w[:d] for r in results]),
        intercept_=intercept,
        alpha_=np.array([r.alpha for r in results]),
        n_iter_=max(r.n_iter for r in results),
        primal_=np.array([r.primal for r in results]),
        dual_=np.array([r.dual for r in results]),
        gap_=np.array([r.gap for r in results]),
        status_=[r.status for r in results],
        history_=[r.history for r in results],
        n_samples_seen_=n_seen,
        lambda_=1.0 / cost_seen if cost_seen > 0 else float("inf"),
        t_=np.array([solver.t if primal else 0 for solver in solvers]),
    )
