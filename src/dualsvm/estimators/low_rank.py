"""``dualsvm.LowRankSVC``: a kernel SVM on a Nystroem approximation of the kernel.

Validation here (scikit-learn and :mod:`dualsvm.data.validation`); training in
:mod:`dualsvm.training.low_rank` (the basis, the map, then LinearSVC's dual coordinate
descent on the mapped rows), which returns a :class:`~dualsvm.training.low_rank.LowRankFit`;
:meth:`LowRankSVC.from_fit` turns one into a fitted estimator.
"""

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

# Private scikit-learn APIs with no public equivalent (scikit-learn is pinned below
# the next minor version in pyproject.toml for them): the parameter declarations
# and their check in fit.
from sklearn.base import _fit_context  # noqa: I001
from sklearn.utils._param_validation import Interval, StrOptions

from ..data.validation import sample_costs, samples, training_data
from ..training.low_rank import BASES, LOW_RANK_KERNELS, fit_low_rank
from .base import FitMixin
from .linear_svc import LinearSVC
from .svc import SVC


class LowRankSVC(FitMixin, ClassifierMixin, BaseEstimator):
    """Kernel support vector classifier on a Nystroem low-rank approximation of the kernel.

    B basis rows Z give the map phi(x) = K(x, Z) U_k diag(lambda_k)^(-1/2), from the
    eigenpairs of K(Z, Z) above a relative threshold (the others, and negative
    eigenvalues, dropped), so that phi(x)'phi(x') approximates K(x, x'). On phi the
    problem is LinearSVC's,

        min_w 1/2 w'w + sum_i C_i loss(y_i (w'phi(x_i) + b)),
        C_i = C * class_weight[y_i] * sample_weight_i,

    solved in the dual by coordinate descent, one-vs-rest for more than two classes,
    with its certificate (``primal_``, ``dual_``, ``gap_``). The model is Z and B
    weights a problem (``dual_coef_``): a prediction costs B kernel values a row. See
    :mod:`dualsvm.training.low_rank`.

    Parameters
    ----------
    C : float, default=1.0
        Regularisation trade-off, > 0.
    kernel : {'rbf', 'linear', 'poly', 'sigmoid'}, default='rbf'
        As :class:`dualsvm.SVC`'s (no precomputed or callable kernel: the map needs
        K(x, Z) for new rows).
    degree : int, default=3
        Degree of 'poly'.
    gamma : {'scale', 'auto'} or float, default='scale'
        Kernel coefficient of 'rbf', 'poly', 'sigmoid', resolved on the training rows
        as :class:`dualsvm.SVC` resolves it.
    coef0 : float, default=0.0
        Constant term of 'poly' and 'sigmoid'.
    n_components : int, default=256
        B, the basis rows (at most n_samples: more is clipped with a warning, as
        scikit-learn's ``Nystroem`` does).
    basis : {'uniform', 'kmeans'}, default='uniform'
        'uniform': B distinct training rows drawn at random (the rows scikit-learn's
        ``Nystroem`` draws with the same ``random_state``). 'kmeans': the input-space
        means of the clusters of a kernel k-means of a sample of the rows (the
        clustering of ``SVC(solver='dc')``; empty clusters dropped, so the basis may
        have fewer rows).
    loss : {'hinge', 'squared_hinge'}, default='squared_hinge'
        'squared_hinge' is LIBLINEAR's ``-s 1`` on phi (the default of scikit-learn's
        LinearSVC, so of its ``Nystroem`` + ``LinearSVC`` pipeline), whose dual converges
        in far fewer epochs; 'hinge' is C-SVC's loss (``-s 3``).
    dual : 'auto' or bool, default='auto'
        As :class:`dualsvm.LinearSVC`'s, on phi (n_samples x k): 'auto' takes LIBLINEAR's
        primal Newton method (``-s 2``) for the squared hinge when n_samples >= k + 1, as
        scikit-learn's ``LinearSVC`` does, the dual coordinate descent otherwise. The
        certificate is that of the linear problem either way.
    fit_intercept : bool, default=True
        Whether to fit a bias b.
    intercept_mode : {'augmented', 'exact'}, default='augmented'
        As :class:`dualsvm.LinearSVC`'s: a constant feature of value
        ``intercept_scaling`` (the bias regularised), or the unregularised bias of
        C-SVC (the constraint y'a = 0, two-variable steps).
    intercept_scaling : float, default=1.0
        Value of the augmented feature, > 0.
    tol : float, default=1e-4
        LIBLINEAR's ``-e`` on the linear problem (see :class:`dualsvm.LinearSVC`).
    gap_tol : float or None, default=None
        Also stop once the relative duality gap of the linear problem is at most this.
    max_iter : int, default=1000
        Maximum number of epochs of each binary problem.
    time_limit : float or None, default=None
        Seconds after which training stops with the current model (the map's seconds
        counted).
    shrinking : bool, default=True
        LIBLINEAR's shrinking.
    shuffle : bool, default=True
        Visit variables in a new random order each epoch.
    class_weight : dict, 'balanced' or None, default=None
        Multiplies C per class.
    random_state : int, RandomState instance or None, default=None
        Seeds the basis and the epoch order.
    callback : callable or None, default=None
        Called after every epoch with its record, as :class:`dualsvm.LinearSVC`'s (its
        ``coef`` are weights on phi); returning True stops training.
    verbose : int, default=0
        0 silent, 1 progress bar, 2 trace lines on a log grid, 3 every epoch.
    monitor : bool or None, default=None
        As :class:`dualsvm.LinearSVC`'s: certify every epoch (None: when ``verbose``
        or ``callback`` reads it).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    components_ : ndarray or csr_matrix of shape (n_basis, n_features)
        The basis rows Z (CSR when trained on sparse data).
    component_indices_ : ndarray of shape (n_basis,) or None
        Their training rows ('uniform'; None for 'kmeans').
    normalization_ : ndarray of shape (k, n_basis)
        ``diag(lambda_k)^(-1/2) U_k'``: ``phi(x) = K(x, components_) @ normalization_.T``
        (scikit-learn's ``Nystroem`` layout).
    n_components_ : int
        k, the eigenvalues of K(Z, Z) kept: the width of phi.
    coef_ : ndarray of shape (n_problems, k)
        Weights on phi (n_problems is 1 for two classes, else n_classes).
    dual_coef_ : ndarray of shape (n_problems, n_basis)
        ``coef_ @ normalization_``: the decision is
        ``K(x, components_) @ dual_coef_.T + intercept_``.
    intercept_ : ndarray of shape (n_problems,)
    alpha_ : ndarray of shape (n_problems, n_samples)
        Dual variables of each binary problem.
    n_iter_ : int
        Largest number of epochs run over the binary problems.
    primal_, dual_, gap_ : ndarray of shape (n_problems,)
        Primal and dual objectives and relative duality gap of each linear problem on phi.
    status_ : list of str
        Why each binary problem stopped (as :class:`dualsvm.LinearSVC`'s).
    history_ : list of list of dict
        Per binary problem, the solver's records (as :class:`dualsvm.LinearSVC`'s).
    """

    _parameter_constraints = {
        **{name: SVC._parameter_constraints[name] for name in ("degree", "gamma", "coef0")},
        **{name: LinearSVC._parameter_constraints[name] for name in (
            "C", "loss", "dual", "fit_intercept", "intercept_mode", "intercept_scaling", "tol",
            "gap_tol", "max_iter", "time_limit", "shrinking", "shuffle", "class_weight",
            "random_state", "callback", "verbose", "monitor")},
        "kernel": [StrOptions(set(LOW_RANK_KERNELS))],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "basis": [StrOptions(set(BASES))],
    }

    def __init__(self, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0, *,
                 n_components=256, basis="uniform", loss="squared_hinge", dual="auto",
                 fit_intercept=True,
                 intercept_mode="augmented", intercept_scaling=1.0, tol=1e-4, gap_tol=None,
                 max_iter=1000, time_limit=None, shrinking=True, shuffle=True,
                 class_weight=None, random_state=None, callback=None, verbose=0,
                 monitor=None):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.n_components = n_components
        self.basis = basis
        self.loss = loss
        self.dual = dual
        self.fit_intercept = fit_intercept
        self.intercept_mode = intercept_mode
        self.intercept_scaling = intercept_scaling
        self.tol = tol
        self.gap_tol = gap_tol
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.shrinking = shrinking
        self.shuffle = shuffle
        self.class_weight = class_weight
        self.random_state = random_state
        self.callback = callback
        self.verbose = verbose
        self.monitor = monitor

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the basis, the map and one linear model per binary problem.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; sparse input is used as CSR without densifying.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample multipliers of C (the basis is drawn from all rows).

        Returns
        -------
        self
        """
        X, y, classes = training_data(self, X, y)
        cost = sample_costs(self.C, self.class_weight, y, classes, sample_weight)
        if len(np.unique(y[cost > 0])) < 2:
            raise ValueError("Invalid input - all samples with positive weights belong to the "
                             "same class: training needs samples of two classes or more with "
                             "sample_weight (and class_weight) > 0")
        names = getattr(self, "feature_names_in_", None)
        fit = fit_low_rank(X, y, cost, self.get_params(deep=False))
        fit.feature_names_in_ = names
        return self._take_fit(fit)

    def _set_fitted(self, fit):
        self._fit = fit
        for name, value in fit.fitted_attributes().items():
            if name != "feature_names_in_":  # validate_data's, set by fit
                setattr(self, name, value)
        self.n_features_in_ = fit.n_features_in_
        if fit.feature_names_in_ is not None:
            self.feature_names_in_ = fit.feature_names_in_

    def to_fit(self):
        """The :class:`~dualsvm.training.low_rank.LowRankFit` of this fitted model (what
        model files hold)."""
        check_is_fitted(self)
        return self._fit

    def decision_function(self, X):
        """``K(x, components_) @ dual_coef_.T + intercept_``: (n,) for two classes
        (positive: ``classes_[1]``), else (n, n_classes)."""
        check_is_fitted(self)
        decision = self._fit.decision(samples(self, X, reset=False))
        return decision[:, 0] if decision.shape[1] == 1 else decision

    def predict(self, X):
        """The class of the largest decision value (two classes: classes_[1] where the
        decision is > 0)."""
        decision = self.decision_function(X)
        index = (decision > 0).astype(int) if decision.ndim == 1 else decision.argmax(axis=1)
        return self.classes_[index]
