"""``dualsvm.SVC``: kernel support vector classification, LIBSVM's C-SVC and more.

Binary problems are :class:`~dualsvm.problem.KernelDualProblem` instances solved
by the solver ``solver`` names (see ``SOLVERS``); multi-class problems are split
one-vs-one exactly as LIBSVM does (pairs (i, j), i < j, in ``classes_`` order,
class i positive), so the fitted attributes have LIBSVM's and scikit-learn's layout.
"""

import math
import time
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context
from sklearn.utils import check_random_state, compute_class_weight
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import _ovr_decision_function, check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .estimators import _canonical, _warn_unless_converged
from .kernels import KERNELS, make_kernel
from .problem import KernelDualProblem
from .solvers import Stopping, run_epochs


def _smo(problem, tol, *, shrinking, random_state, max_iter):
    from .solvers.smo import SMO

    solver = SMO(problem, tol, shrinking=shrinking, random_state=random_state,
                 max_steps=None if max_iter < 0 else max_iter)
    return solver, math.inf if max_iter < 0 else math.ceil(max_iter / solver.steps_per_epoch)


#: solver name -> (build(problem, tol, *, shrinking, random_state, max_iter) -> (solver,
#: max_epochs), bias mode of the problem it solves, losses it accepts).
#: A builder returns a driver-interface solver (see dualsvm.solvers._driver) and the
#: epoch limit that makes ``max_iter`` (-1: none) its own unit of iterations.
SOLVERS = {
    "smo": (_smo, "exact", ("hinge", "squared_hinge")),
    "cgd": None,  # Tseng-Yun coordinate gradient descent (exact bias)
    "dcd": None,  # kernel dual coordinate descent (no bias)
    "pgd": None,  # dual projected gradient descent (penalised equality)
}


class SVC(ClassifierMixin, BaseEstimator):
    """Kernel support vector classifier trained in the dual (LIBSVM's C-SVC).

    Solves, for each pair of classes,

        min_{f, b} 1/2 ||f||^2 + sum_i C_i loss(y_i (f(x_i) + b)),   C_i = C * class_weight[y_i] * sample_weight_i

    in the dual (``loss='hinge'``: LIBSVM's and scikit-learn's SVC), with the
    duality gap of every model reported.

    Parameters
    ----------
    C : float, default=1.0
        Regularisation trade-off, > 0.
    kernel : {'linear', 'poly', 'rbf', 'sigmoid', 'precomputed'}, default='rbf'
        As LIBSVM's ``-t 0..4``. With 'precomputed', X is the kernel matrix
        (n_samples, n_samples) in fit and (n_test, n_train) in predict.
    degree : int, default=3
        Degree of 'poly'.
    gamma : {'scale', 'auto'} or float, default='scale'
        Kernel coefficient of 'rbf', 'poly', 'sigmoid': 'scale' is
        1 / (n_features * X.var()), 'auto' 1 / n_features (LIBSVM's default).
    coef0 : float, default=0.0
        Constant term of 'poly' and 'sigmoid'.
    loss : {'hinge', 'squared_hinge'}, default='hinge'
        'hinge' is LIBSVM's C-SVC.
    solver : {'smo', 'cgd', 'dcd', 'pgd'}, default='smo'
        'smo': SMO decomposition with second-order working sets and shrinking
        (LIBSVM's algorithm; exact bias). 'cgd', 'dcd' (no bias), 'pgd': see
        ``dualsvm.svc.SOLVERS``.
    tol : float, default=1e-3
        LIBSVM's ``-e``: stop when the maximal KKT violation is below tol.
    cache_size : float, default=200
        Kernel column cache in MB.
    shrinking : bool, default=True
        LIBSVM's shrinking heuristic (``-h``).
    class_weight : dict, 'balanced' or None, default=None
        Multiplies C per class.
    max_iter : int, default=-1
        Iterations per binary problem (SMO steps for 'smo'); -1: no limit.
    time_limit : float or None, default=None
        Seconds after which training stops with the current models.
    callback : callable or None, default=None
        Called after every epoch with its record (a dict); True stops training.
    verbose : int, default=0
        0 silent, 1 progress bar, 2 trace lines on a log grid, 3 every epoch.
    decision_function_shape : {'ovr', 'ovo'}, default='ovr'
        As scikit-learn's SVC.
    random_state : int, RandomState instance or None, default=None
        Seeds randomised solvers ('smo' is deterministic).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors, grouped by class.
    support_vectors_ : ndarray or csr_matrix of shape (n_SV, n_features)
        Empty for the precomputed kernel.
    n_support_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray of shape (n_classes - 1, n_SV)
        y_i alpha_i in LIBSVM's layout (binary: sign flipped as scikit-learn does).
    intercept_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
    n_iter_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        SMO steps (or solver iterations) of each binary problem.
    primal_, dual_, gap_ : ndarray of shape (n_pairs,)
        Primal and dual objectives and relative duality gap per binary problem.
    status_ : list of str
    history_ : list of list of dict
        Per binary problem, one record per epoch (epoch, seconds, primal, dual, gap,
        violation, active_size, and for kernel solvers iterations,
        kernel_evaluations, cache_hits).
    """

    _parameter_constraints = {
        "C": [Interval(Real, 0.0, None, closed="neither")],
        "kernel": [StrOptions(set(KERNELS))],
        "degree": [Interval(Integral, 0, None, closed="left")],
        "gamma": [StrOptions({"scale", "auto"}), Interval(Real, 0.0, None, closed="neither")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "loss": [StrOptions({"hinge", "squared_hinge"})],
        "solver": [StrOptions(set(SOLVERS))],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
        "cache_size": [Interval(Real, 0.0, None, closed="neither")],
        "shrinking": ["boolean"],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "max_iter": [Interval(Integral, -1, None, closed="left")],
        "time_limit": [Interval(Real, 0.0, None, closed="left"), None],
        "callback": [callable, None],
        "verbose": ["verbose"],
        "decision_function_shape": [StrOptions({"ovr", "ovo"})],
        "random_state": ["random_state"],
    }

    def __init__(self, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0, *,
                 loss="hinge", solver="smo", tol=1e-3, cache_size=200, shrinking=True,
                 class_weight=None, max_iter=-1, time_limit=None, callback=None, verbose=0,
                 decision_function_shape="ovr", random_state=None):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.loss = loss
        self.solver = solver
        self.tol = tol
        self.cache_size = cache_size
        self.shrinking = shrinking
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.callback = callback
        self.verbose = verbose
        self.decision_function_shape = decision_function_shape
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit one binary model per pair of classes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (CSR is used without densifying unless it is dense
            enough); for kernel='precomputed', the (n_samples, n_samples) kernel matrix.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample multipliers of C; samples of weight 0 are left out.

        Returns
        -------
        self
        """
        entry = SOLVERS[self.solver]
        if entry is None:
            raise NotImplementedError(f"solver={self.solver!r} is not available yet; "
                                      "use solver='smo'")
        build, bias, losses = entry
        if self.loss not in losses:
            raise ValueError(f"solver={self.solver!r} does not solve loss={self.loss!r}; "
                             f"it solves {', '.join(map(repr, losses))}")
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        X = _canonical(X)
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError("kernel='precomputed' needs the square (n_samples, n_samples) "
                             f"kernel matrix; X has shape {X.shape}")
        if self.kernel == "precomputed" and sp.issparse(X):
            X = X.toarray()
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError("SVC needs samples of at least 2 classes in the data, but the "
                             f"data contains only one class: {self.classes_[0]!r}")
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                             ensure_non_negative=True)
        class_weight = compute_class_weight(self.class_weight, classes=self.classes_, y=y)
        label = np.searchsorted(self.classes_, y)
        cost = self.C * class_weight[label] * sample_weight
        if not (cost > 0).any():
            raise ValueError("every sample has zero weight (sample_weight or class_weight)")
        self._kernel = make_kernel(self.kernel, gamma=self.gamma, degree=self.degree,
                                   coef0=self.coef0, X=X)
        self._gamma = self._kernel.gamma

        rng = check_random_state(self.random_state)
        generator = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
        deadline = None if self.time_limit is None else time.perf_counter() + self.time_limit
        k = len(self.classes_)
        pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
        coef = np.zeros((len(pairs), X.shape[0]))  # y_t alpha_t of each pair, by row
        intercept = np.zeros(len(pairs))
        results, n_iter = [], []
        for p, (i, j) in enumerate(pairs):
            # LIBSVM's order: class i's rows, then class j's; zero-cost rows left out
            rows = np.concatenate([np.flatnonzero((label == c) & (cost > 0)) for c in (i, j)])
            sub = X[np.ix_(rows, rows)] if self.kernel == "precomputed" else X[rows]
            problem = KernelDualProblem(sub, np.where(label[rows] == i, 1.0, -1.0),
                                        cost[rows], self.loss, bias, self._kernel,
                                        self.cache_size)
            solver, max_epochs = build(problem, self.tol, shrinking=self.shrinking,
                                       random_state=generator, max_iter=self.max_iter)
            interrupted = bool(results) and results[-1].status == "interrupted"
            tag = f"{self.classes_[i]} vs {self.classes_[j]}: " if k > 2 else ""
            stopping = Stopping(max_iter=0 if interrupted else max_epochs, deadline=deadline,
                                callback=self.callback, verbose=self.verbose, label=tag)
            result = run_epochs(solver, problem, stopping)
            if interrupted:
                result.status = "interrupted"
            results.append(result)
            n_iter.append(getattr(solver, "n_iter", result.n_iter))
            coef[p, rows] = problem.y * result.alpha
            intercept[p] = result.intercept
        self._store(X, label, pairs, coef, intercept)
        self.n_iter_ = np.array(n_iter, dtype=np.int64)
        self.primal_ = np.array([r.primal for r in results])
        self.dual_ = np.array([r.dual for r in results])
        self.gap_ = np.array([r.gap for r in results])
        self.status_ = [r.status for r in results]
        self.history_ = [r.history for r in results]
        _warn_unless_converged(self.status_, self.gap_)
        return self

    def _store(self, X, label, pairs, coef, intercept):
        """LIBSVM's model layout from the per-pair coefficients."""
        k = len(self.classes_)
        is_sv = (coef != 0).any(axis=0)
        # grouped by class, in row order within a class (stable sort)
        support = np.flatnonzero(is_sv)
        support = support[np.argsort(label[support], kind="stable")]
        sv_label = label[support]
        dual_coef = np.zeros((max(k - 1, 1), len(support)))
        for p, (i, j) in enumerate(pairs):
            dual_coef[j - 1, sv_label == i] = coef[p, support[sv_label == i]]
            dual_coef[i, sv_label == j] = coef[p, support[sv_label == j]]
        self.support_ = support.astype(np.int32)
        self.n_support_ = np.bincount(sv_label, minlength=k).astype(np.int32)
        if self.kernel == "precomputed":
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = X[support]
        self._pairs = pairs
        self._pair_coef = coef[:, support]  # (n_pairs, n_SV): what decisions need
        self._intercept_ = intercept
        if k == 2:  # scikit-learn's sign: positive decisions mean classes_[1]
            self.dual_coef_ = -dual_coef
            self.intercept_ = -intercept
        else:
            self.dual_coef_ = dual_coef
            self.intercept_ = intercept.copy()

    def _ovo_decision(self, X):
        """LIBSVM's decision values of the pairs (positive: class i of pair (i, j))."""
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, order="C",
                          reset=False)
        if self.kernel == "precomputed":
            K = X[:, self.support_]
            K = K.toarray() if sp.issparse(K) else K
        else:
            K = self._kernel(X, self.support_vectors_)
        return K @ self._pair_coef.T + self._intercept_

    def decision_function(self, X):
        """Signed distances: (n,) for two classes (positive: classes_[1]); else
        (n, n_classes) ('ovr') or (n, n_pairs) ('ovo')."""
        dec = self._ovo_decision(X)
        if len(self.classes_) == 2:
            return -dec[:, 0]
        if self.decision_function_shape == "ovr":
            return _ovr_decision_function(dec < 0, -dec, len(self.classes_))
        return dec

    def predict(self, X):
        """One-vs-one votes as LIBSVM counts them (ties: the first class)."""
        dec = self._ovo_decision(X)
        votes = np.zeros((dec.shape[0], len(self.classes_)), dtype=np.int64)
        for p, (i, j) in enumerate(self._pairs):
            positive = dec[:, p] > 0
            votes[:, i] += positive
            votes[:, j] += ~positive
        return self.classes_[np.argmax(votes, axis=1)]

    @property
    def coef_(self):
        """Weights of the primal problem (kernel='linear' only)."""
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        check_is_fitted(self)
        coef = self.dual_coef_ @ self.support_vectors_ if len(self.classes_) == 2 else \
            self._pair_coef @ self.support_vectors_
        return np.asarray(coef)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags
