"""``dualsvm.LinearOneClassSVM``: the linear one-class SVM, LIBLINEAR's ``-s 21``.

Validation here (scikit-learn and :mod:`dualsvm.data.validation`); training in
:func:`dualsvm.training.linear.fit_linear_one_class` (two-level coordinate
descent on :class:`~dualsvm.problems.linear.LinearOneClassDual`), which returns a
:class:`~dualsvm.training.fitted.LinearOneClassFit`; :meth:`LinearOneClassSVM.from_fit` turns
one into a fitted estimator.
"""

import dataclasses
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.validation import check_is_fitted

# Private scikit-learn APIs with no public equivalent (scikit-learn is pinned below
# the next minor version in pyproject.toml for them): the parameter declarations
# and their check in fit (_fit_context).
from sklearn.base import _fit_context  # noqa: I001
from sklearn.utils._param_validation import Interval

from ..data.validation import sample_weights, samples
from ..training.fitted import LinearOneClassFit
from ..training.linear import fit_linear_one_class
from .base import FitMixin


class LinearOneClassSVM(FitMixin, OutlierMixin, BaseEstimator):
    """Unsupervised outlier detection with a linear one-class SVM (LIBLINEAR ``-s 21``).

    Solves, with sample weights W_i (1 in LIBLINEAR) and S = nu sum_i W_i::

        min_{w, rho}  1/2 w'w - S rho + sum_i W_i max(0, rho - w'x_i)

    in the dual min 1/2 a'Q a, 0 <= a_i <= W_i, e'a = S, Q_ij = x_i'x_j
    (:class:`dualsvm.problems.linear.LinearOneClassDual`), by LIBLINEAR's two-level
    coordinate descent over pairs (Chou, Lin, Lin et al., SDM 2020), keeping w and
    never a kernel matrix: :class:`dualsvm.OneClassSVM` with ``kernel='linear'``
    solves the same problem, in O(n^2) memory and time per pass. Reports the primal
    and dual objectives and the duality gap of the model. The decision function is
    w'x - rho; samples where it is > 0 are inliers (+1).

    Parameters
    ----------
    nu : float, default=0.5
        In (0, 1]: an upper bound on the fraction of training errors and a lower
        bound on the fraction of support vectors (LIBLINEAR's ``-n``).
    tol : float, default=0.01
        LIBLINEAR's ``-e`` for ``-s 21``: stop when the maximal violation
        max_{a_i < W_i} -G_i - min_{a_j > 0} -G_j (G = X w) is below tol on the
        full, unshrunk problem.
    max_iter : int, default=1000
        Maximum number of outer iterations (LIBLINEAR's fixed cap).
    shrinking : bool, default=True
        LIBLINEAR's shrinking of variables stuck at a bound.
    gap_tol : float or None, default=None
        Also stop once the relative duality gap ``|P - D| / |P|`` is at most this.
    time_limit : float or None, default=None
        Seconds after which training stops with the current model.
    callback : callable or None, default=None
        Called after every outer iteration with a dict (epoch, seconds, primal,
        dual, gap, violation, active_size, ``coef``, ``intercept`` = -rho); True
        stops training.
    verbose : int, default=0
        0: silent; 1: a progress bar; 2: a trace line on a log grid of
        iterations; 3: a line for every iteration (on stderr).
    monitor : bool or None, default=None
        Certify every iteration (one more pass over the data each); None: when
        ``verbose`` or ``callback`` needs it (``gap_tol`` alone is checked every two
        passes' worth of iterations). The final model always carries its exact
        certificate.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        w = sum_i alpha_i x_i.
    offset_ : ndarray of shape (1,)
        rho: decision_function = score_samples - ``offset_``.
    intercept_ : ndarray of shape (1,)
        -rho.
    alpha_ : ndarray of shape (n_samples,)
        The dual variables, in [0, W_i], summing to nu sum_i W_i.
    n_iter_ : int
        Outer iterations run (LIBLINEAR's ``#iter``).
    primal_, dual_, gap_ : ndarray of shape (1,)
        Primal and dual objectives (the dual in its maximisation form, -1/2 w'w:
        LIBLINEAR prints 1/2 w'w as its objective value) and the relative gap.
    status_ : list of str
        Why training stopped: 'converged', 'gap', 'max_iter', 'time_limit',
        'interrupted' or 'callback'.
    history_ : list of one list of dict
        One record per iteration when monitored, else one per chunk of
        iterations run in compiled code (its ``epoch`` the iterations so far).
    """

    _parameter_constraints = {
        "nu": [Interval(Real, 0.0, 1.0, closed="right")],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "shrinking": ["boolean"],
        "gap_tol": [Interval(Real, 0.0, None, closed="neither"), None],
        "time_limit": [Interval(Real, 0.0, None, closed="left"), None],
        "callback": [callable, None],
        "verbose": ["verbose"],
        "monitor": ["boolean", None],
    }

    def __init__(self, *, nu=0.5, tol=0.01, max_iter=1000, shrinking=True, gap_tol=None,
                 time_limit=None, callback=None, verbose=0, monitor=None):
        self.nu = nu
        self.tol = tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.gap_tol = gap_tol
        self.time_limit = time_limit
        self.callback = callback
        self.verbose = verbose
        self.monitor = monitor

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Detect the soft boundary of the set of samples X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; sparse input is used as CSR without densifying.
        y : Ignored
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights W_i (the bounds of the dual): an integer weight k is
            the sample repeated k times, weight 0 leaves it out.

        Returns
        -------
        self
        """
        X = samples(self, X)
        weights = sample_weights(sample_weight, X.shape[0])
        weight = np.ones(X.shape[0]) if weights is None else weights
        return self._take_fit(fit_linear_one_class(X, weight, self.get_params(deep=False)))

    def score_samples(self, X):
        """The raw score w'x (decision + ``offset_``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = samples(self, X, reset=False)
        return safe_sparse_dot(X, self.coef_[0], dense_output=True)

    def decision_function(self, X):
        """Signed distance to the boundary, w'x - rho: positive inside (inliers).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return self.score_samples(X) - self.offset_[0]

    def predict(self, X):
        """+1 for inliers (decision > 0, as LIBLINEAR), -1 for outliers.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        return np.where(self.decision_function(X) > 0, 1, -1)

    def to_fit(self):
        """The :class:`~dualsvm.training.fitted.LinearOneClassFit` of this fitted model (what model
        files hold)."""
        check_is_fitted(self)
        names = [f.name for f in dataclasses.fields(LinearOneClassFit) if f.name.endswith("_")]
        return LinearOneClassFit(params=self.get_params(deep=False),
                                 **{name: getattr(self, name, None) for name in names})

    def _set_fitted(self, fit):
        for name, value in fit.fitted_attributes().items():
            if value is not None:
                setattr(self, name, value)
        self.intercept_ = -np.asarray(self.offset_, dtype=np.float64)
        self.n_features_in_ = fit.n_features_in_
