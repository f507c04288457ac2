"""Training and applying kernel models, one-vs-one, without scikit-learn.

:class:`dualsvm.SVC` validates its input with scikit-learn and then calls
:func:`fit_kernel`; the command line calls it (and :func:`predict`) directly.

Layout (LIBSVM's and scikit-learn's): classes in sorted order; the pairs
(i, j), i < j, in the order (0, 1), (0, 2), ..., (1, 2), ...; in pair (i, j)
class i is the positive one; support vectors grouped by class, in row order
within a class; ``dual_coef`` (n_classes - 1, n_SV) holds y_t alpha_t of SV t
(of class c) for the pair (c, o) in row o if o < c, else row o - 1; the
decision value of pair p is sum_t coef_pt K(x_t, x) + intercept_p (LIBSVM's
-rho), positive for class i.
"""

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .kernels import make_kernel
from .problem import KernelDualProblem
from .solvers import Stopping, run_epochs
from .training import early_stop_message, random_generator


def _smo(problem, tol, *, shrinking, random_state, max_iter):
    from .solvers.smo import SMO

    solver = SMO(problem, tol, shrinking=shrinking, random_state=random_state,
                 max_steps=None if max_iter < 0 else max_iter)
    return solver, math.inf if max_iter < 0 else math.ceil(max_iter / solver.steps_per_epoch)


def _chunked(module, name):
    """build for a solver whose epochs are ``iterations_per_epoch`` iterations (max_iter counts
    iterations), or passes over the data (no such attribute: max_iter counts epochs)."""
    def build(problem, tol, *, shrinking, random_state, max_iter):
        import importlib

        solver_class = getattr(importlib.import_module(f".solvers.{module}", __package__), name)
        solver = solver_class(problem, tol, shrinking=shrinking, random_state=random_state)
        per_epoch = getattr(solver, "iterations_per_epoch", 1)
        return solver, math.inf if max_iter < 0 else math.ceil(max_iter / per_epoch)
    return build


#: solver name -> (build, bias mode of the problem it solves, losses it accepts).
#: ``build(problem, tol, *, shrinking, random_state, max_iter) -> (solver, max_epochs)``
#: returns a driver-interface solver (see dualsvm.solvers._driver) and the epoch
#: limit that gives ``max_iter`` (-1: none) in the solver's own iterations.
SOLVERS = {
    "smo": (_smo, "exact", ("hinge", "squared_hinge")),
    "cgd": (_chunked("cgd", "CGD"), "exact", ("hinge", "squared_hinge")),
    "dcd": (_chunked("kernel_dcd", "KernelDCD"), "none", ("hinge", "squared_hinge")),
    "pgd": (_chunked("dual_pgd", "DualPGD"), "exact", ("hinge", "squared_hinge")),
}


def solver_entry(solver, loss):
    """SOLVERS[solver], or a clear error for a missing solver or a wrong loss."""
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {sorted(SOLVERS)}, got {solver!r}")
    entry = SOLVERS[solver]
    if entry is None:
        raise NotImplementedError(f"solver={solver!r} is not available yet; use solver='smo'")
    if loss not in entry[2]:
        raise ValueError(f"solver={solver!r} does not solve loss={loss!r}; it solves "
                         f"{', '.join(map(repr, entry[2]))}")
    return entry


@dataclass
class KernelFit:
    """A fitted kernel model: what :class:`dualsvm.SVC` stores after ``fit``.

    ``dual_coef_`` and ``intercept_`` here have LIBSVM's signs (class i of pair
    (i, j) positive); SVC flips them for two classes, as scikit-learn does.
    """

    params: dict
    kernel: object  # the Kernel, gamma resolved
    classes_: np.ndarray
    support_: np.ndarray
    support_vectors_: object
    n_support_: np.ndarray
    dual_coef_: np.ndarray
    intercept_: np.ndarray
    n_features_in_: int = 0
    n_iter_: np.ndarray = None
    primal_: np.ndarray = None
    dual_: np.ndarray = None
    gap_: np.ndarray = None
    status_: list = field(default_factory=list)
    history_: list = field(default_factory=list)

    def early_stop(self):
        return early_stop_message(self.status_, self.gap_)

    def decision_ovo(self, X):
        """LIBSVM's decision values, (n, n_pairs); X as in training (for
        'precomputed': the (n, n_train) kernel against the training rows)."""
        if self.kernel.name == "precomputed":
            K = X[:, self.support_]
            K = K.toarray() if hasattr(K, "toarray") else np.asarray(K)
        else:
            K = self.kernel(X, self.support_vectors_)
        return K @ pair_coefficients(self.dual_coef_, self.n_support_).T + self.intercept_

    def predict(self, X):
        """One-vs-one votes as LIBSVM counts them (ties: the first class)."""
        dec = self.decision_ovo(X)
        k = len(self.classes_)
        votes = np.zeros((dec.shape[0], k), dtype=np.int64)
        for p, (i, j) in enumerate(class_pairs(k)):
            positive = dec[:, p] > 0
            votes[:, i] += positive
            votes[:, j] += ~positive
        return self.classes_[np.argmax(votes, axis=1)]


def class_pairs(n_classes):
    """The one-vs-one pairs in LIBSVM's order."""
    return [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]


def pair_coefficients(dual_coef, n_support):
    """(n_pairs, n_SV): the coefficient of every SV in every pair's decision."""
    k = len(n_support)
    start = np.concatenate([[0], np.cumsum(n_support)])
    out = np.zeros((len(class_pairs(k)), dual_coef.shape[1]))
    for p, (i, j) in enumerate(class_pairs(k)):
        out[p, start[i]:start[i + 1]] = dual_coef[j - 1, start[i]:start[i + 1]]
        out[p, start[j]:start[j + 1]] = dual_coef[i, start[j]:start[j + 1]]
    return out


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
        :class:`dualsvm.SVC` parameters (``get_params()``).

    Returns
    -------
    KernelFit
    """
    build, bias, _ = solver_entry(params["solver"], params["loss"])
    kernel = make_kernel(params["kernel"], gamma=params["gamma"], degree=params["degree"],
                         coef0=params["coef0"], X=X)
    precomputed = kernel.name == "precomputed"
    classes, label = np.unique(y, return_inverse=True)
    generator = random_generator(params["random_state"])
    time_limit = params["time_limit"]
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    pairs = class_pairs(len(classes))
    coef = np.zeros((len(pairs), X.shape[0]))  # y_t alpha_t of each pair, by row
    intercept = np.zeros(len(pairs))
    results, n_iter = [], []
    for p, (i, j) in enumerate(pairs):
        # LIBSVM's order: class i's rows, then class j's
        rows = np.concatenate([np.flatnonzero((label == c) & (cost > 0)) for c in (i, j)])
        sub = X[np.ix_(rows, rows)] if precomputed else X[rows]
        problem = KernelDualProblem(sub, np.where(label[rows] == i, 1.0, -1.0), cost[rows],
                                    params["loss"], bias, kernel, params["cache_size"])
        solver, max_epochs = build(problem, params["tol"], shrinking=params["shrinking"],
                                   random_state=generator, max_iter=params["max_iter"])
        interrupted = bool(results) and results[-1].status == "interrupted"
        tag = f"{classes[i]} vs {classes[j]}: " if len(classes) > 2 else ""
        stopping = Stopping(max_iter=0 if interrupted else max_epochs, deadline=deadline,
                            callback=params["callback"], verbose=params["verbose"], label=tag)
        result = run_epochs(solver, problem, stopping)
        if interrupted:
            result.status = "interrupted"
        results.append(result)
        n_iter.append(getattr(solver, "n_iter", result.n_iter))
        coef[p, rows] = problem.y * result.alpha
        intercept[p] = result.intercept

    support = np.flatnonzero((coef != 0).any(axis=0))
    support = support[np.argsort(label[support], kind="stable")]  # grouped by class
    sv_label = label[support]
    dual_coef = np.zeros((max(len(classes) - 1, 1), len(support)))
    for p, (i, j) in enumerate(pairs):
        dual_coef[j - 1, sv_label == i] = coef[p, support[sv_label == i]]
        dual_coef[i, sv_label == j] = coef[p, support[sv_label == j]]
    return KernelFit(
        params=dict(params), kernel=kernel, classes_=classes,
        support_=support.astype(np.int32),
        support_vectors_=np.empty((0, 0)) if precomputed else X[support],
        n_support_=np.bincount(sv_label, minlength=len(classes)).astype(np.int32),
        dual_coef_=dual_coef, intercept_=intercept, n_features_in_=X.shape[1],
        n_iter_=np.array(n_iter, dtype=np.int64),
        primal_=np.array([r.primal for r in results]),
        dual_=np.array([r.dual for r in results]),
        gap_=np.array([r.gap for r in results]),
        status_=[r.status for r in results],
        history_=[r.history for r in results],
    )
