"""``dualsvm.LinearSVR``: linear support vector regression, LIBLINEAR's ``-s 12`` / ``-s 13``.

Validation here (scikit-learn and :mod:`dualsvm.data.validation`); training in
:func:`dualsvm.training.linear.fit_linear_svr` (dual coordinate descent on
:class:`~dualsvm.problems.linear.SVRDualProblem`), which returns a
:class:`~dualsvm.training.fitted.LinearSVRFit`; :meth:`LinearSVR.from_fit` turns one into a
fitted estimator.
"""

import dataclasses
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted, validate_data

# Private scikit-learn APIs with no public equivalent (scikit-learn is pinned below
# the next minor version in pyproject.toml for them): the parameter declarations
# and their check in fit (_fit_context).
from sklearn.base import _fit_context  # noqa: I001
from sklearn.utils._param_validation import Interval, StrOptions

from ..constants import REGRESSION_LOSSES
from ..data.validation import regression_data, sample_weights
from ..training.fitted import LinearSVRFit
from ..training.linear import fit_linear_svr, linear_svr_path as train_path
from .base import FitMixin


class LinearSVR(FitMixin, RegressorMixin, BaseEstimator):
    """Linear support vector regression trained by dual coordinate descent.

    Solves LIBLINEAR's ``-s 13`` (L1-loss) and ``-s 12`` (L2-loss) problems::

        min_w 1/2 w'w + sum_i C_i loss(y_i - w'x_i - b),   C_i = C * sample_weight_i,
        loss(r) = max(0, |r| - epsilon)  or  max(0, |r| - epsilon)^2,

    in the dual (Ho and Lin, JMLR 2012), and reports the primal and dual
    objectives and the duality gap of the model. Parameter and attribute names
    are scikit-learn's ``LinearSVR``'s.

    Parameters
    ----------
    epsilon : float, default=0.0
        Half-width of the insensitive tube (LIBLINEAR ``-p``), >= 0.
    tol : float, default=1e-4
        LIBLINEAR's ``-e`` for ``-s 12`` / ``-s 13``: stop when the sum of the
        violations of the optimality conditions over an epoch is at most tol times
        that sum in the first epoch (checked on the full, unshrunk problem).
    C : float, default=1.0
        Regularisation trade-off, > 0.
    loss : {'epsilon_insensitive', 'squared_epsilon_insensitive'}, default='epsilon_insensitive'
        L1-loss (LIBLINEAR ``-s 13``) or L2-loss (``-s 12``).
    fit_intercept : bool, default=True
        Fit a bias b as the weight of a constant feature ``intercept_scaling``
        (LIBLINEAR ``-B``; the bias is regularised); False: b = 0.
    intercept_scaling : float, default=1.0
        Value of that constant feature, > 0.
    dual : 'auto' or True, default='auto'
        The problem is always solved in the dual; False (LIBLINEAR's primal
        Newton solver ``-s 11``) is refused.
    verbose : int, default=0
        0: silent; 1: a progress bar; 2: a trace line on a log grid of epochs;
        3: a line for every epoch (on stderr).
    random_state : int, RandomState instance or None, default=None
        Seeds the order in which the variables are visited.
    max_iter : int, default=1000
        Maximum number of epochs.
    gap_tol : float or None, default=None
        Also stop once the relative duality gap (P - D) / P is at most this.
    time_limit : float or None, default=None
        Seconds after which training stops with the current model.
    shrinking : bool, default=True
        LIBLINEAR's shrinking of variables stuck at 0 or at a bound.
    shuffle : bool, default=True
        A new random order every epoch; False: cyclic order.
    warm_start : bool, default=False
        Start from the previous fit's dual variables when the number of rows agrees.
    callback : callable or None, default=None
        Called after every epoch with a dict (epoch, seconds, primal, dual, gap,
        violation, active_size, ``coef``, ``intercept``); True stops training.
    monitor : bool or None, default=None
        Certify every epoch (one more pass over the data each); None: when
        ``verbose`` or ``callback`` needs it (``gap_tol`` alone is checked every two
        passes' worth of epochs). The final model always carries its exact
        certificate.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : ndarray of shape (1,)
    alpha_ : ndarray of shape (n_samples,)
        The dual variables beta_i in [-C_i, C_i] (L1-loss) or unbounded (L2-loss);
        w = sum_i beta_i x_i.
    n_iter_ : int
        Epochs run.
    primal_, dual_, gap_ : ndarray of shape (1,)
        Primal and dual objectives and relative duality gap.
    status_ : list of str
        Why training stopped: 'converged', 'gap', 'max_iter', 'time_limit',
        'interrupted' or 'callback'.
    history_ : list of one list of dict
        One record per epoch (as :class:`dualsvm.LinearSVC`'s) when monitored
        (``monitor``, ``verbose`` or ``callback``); otherwise one per
        chunk of passes run in compiled code, its ``epoch`` the passes so far.
    """

    _parameter_constraints = {
        "epsilon": [Interval(Real, 0.0, None, closed="left")],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
        "C": [Interval(Real, 0.0, None, closed="neither")],
        "loss": [StrOptions(set(REGRESSION_LOSSES))],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0.0, None, closed="neither")],
        "dual": ["boolean", StrOptions({"auto"})],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "gap_tol": [Interval(Real, 0.0, None, closed="neither"), None],
        "time_limit": [Interval(Real, 0.0, None, closed="left"), None],
        "shrinking": ["boolean"],
        "shuffle": ["boolean"],
        "warm_start": ["boolean"],
        "callback": [callable, None],
        "monitor": ["boolean", None],
    }

    def __init__(self, *, epsilon=0.0, tol=1e-4, C=1.0, loss="epsilon_insensitive",
                 fit_intercept=True, intercept_scaling=1.0, dual="auto", verbose=0,
                 random_state=None, max_iter=1000, gap_tol=None, time_limit=None,
                 shrinking=True, shuffle=True, warm_start=False, callback=None, monitor=None):
        self.epsilon = epsilon
        self.tol = tol
        self.C = C
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.dual = dual
        self.verbose = verbose
        self.random_state = random_state
        self.max_iter = max_iter
        self.gap_tol = gap_tol
        self.time_limit = time_limit
        self.shrinking = shrinking
        self.shuffle = shuffle
        self.warm_start = warm_start
        self.callback = callback
        self.monitor = monitor

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; sparse input is used as CSR without densifying.
        y : array-like of shape (n_samples,)
            Real targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample multipliers of C.

        Returns
        -------
        self
        """
        X, y, unit_cost = self._training_inputs(X, y, sample_weight)
        alpha = None
        previous = getattr(self, "alpha_", None)
        if self.warm_start and previous is not None and previous.shape == (len(y),):
            alpha = previous
        return self._take_fit(fit_linear_svr(X, y, unit_cost * self.C,
                                             self.get_params(deep=False), alpha=alpha))

    def _training_inputs(self, X, y, sample_weight):
        """Validated (X, y) and the costs per unit of C, C_i / C = sample_weight_i."""
        if self.dual is False:
            raise ValueError("dual=False (LIBLINEAR's primal solver -s 11) is not offered: "
                             "LinearSVR solves the dual; use dual='auto' or True")
        X, y = regression_data(self, X, y)
        weights = sample_weights(sample_weight, len(y))
        return X, y, np.ones(len(y)) if weights is None else weights

    def predict(self, X):
        """w'x + b for every row of X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return safe_sparse_dot(X, self.coef_, dense_output=True) + self.intercept_[0]

    def to_fit(self):
        """The :class:`~dualsvm.training.fitted.LinearSVRFit` of this fitted model (what model files hold)."""
        check_is_fitted(self)
        names = [f.name for f in dataclasses.fields(LinearSVRFit) if f.name.endswith("_")]
        return LinearSVRFit(params=self.get_params(deep=False),
                            **{name: getattr(self, name, None) for name in names})

    def _set_fitted(self, fit):
        for name, value in fit.fitted_attributes().items():
            if value is not None:
                setattr(self, name, value)
        self.n_features_in_ = fit.n_features_in_


def linear_svr_path(estimator, X, y, Cs, *, sample_weight=None):
    """Fitted clones of a :class:`LinearSVR`, one per C of the increasing ``Cs``,
    each started from the one before (see :func:`dualsvm.c_path`); a generator."""
    estimator = clone(estimator)
    estimator._validate_params()
    X, y, unit_cost = estimator._training_inputs(X, y, sample_weight)
    names = getattr(estimator, "feature_names_in_", None)
    for fit in train_path(X, y, unit_cost, estimator.get_params(deep=False), Cs):
        model = clone(estimator).set_params(C=fit.params["C"])
        model._take_fit(fit)
        model.n_features_in_ = X.shape[1]
        if names is not None:
            model.feature_names_in_ = names
        yield model
