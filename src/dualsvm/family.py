"""The rest of LIBSVM's kernel family: ``NuSVC``, ``OneClassSVM``, ``SVR``, ``NuSVR``.

Each is a thin scikit-learn class over one LIBSVM formulation (``-s 1`` to ``-s 4``)
solved by our SMO (:mod:`dualsvm.solvers.smo`) on the dual problems of
:mod:`dualsvm.problem` (``NuDual``, ``SVRDual``), trained by
:func:`dualsvm.kernel_training.fit_kernel` into a :class:`~dualsvm.fits.KernelFit`
(saved and loaded as any kernel model). Names, parameters and fitted attributes
are scikit-learn's (``sklearn.svm``); the extras are ours, as in
:class:`dualsvm.SVC`: ``time_limit``, ``callback``, ``verbose`` levels, and the
certificate ``primal_``, ``dual_``, ``gap_``, ``status_``, ``history_`` (of the
problem SMO solves, in LIBSVM's unscaled form: see the classes).
"""

from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin, RegressorMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from sklearn.base import _fit_context  # noqa: I001  (private, as in svc.py)
from sklearn.utils._param_validation import Interval

from .base import KernelMixin
from .kernel_training import fit_kernel
from .kernels import n_samples
from .svc import SVC
from .validation import regression_data, sample_costs, samples, scaled_costs

#: The parameters every member shares with SVC (kernel, SMO, our extras).
_KERNEL_PARAMETERS = {name: SVC._parameter_constraints[name] for name in (
    "kernel", "degree", "gamma", "coef0", "tol", "cache_size", "shrinking", "max_iter",
    "time_limit", "callback", "verbose")}
_NU = [Interval(Real, 0.0, 1.0, closed="right")]


def _weights(n, sample_weight):
    """The checked sample weights, all 1 for None (as SVC checks them; ValueError when
    none is > 0)."""
    return sample_costs(1.0, None, np.zeros(n), np.zeros(1), sample_weight)


class _SingleModel(KernelMixin, BaseEstimator):
    """What one-class and regression models share: one function
    f(x) = sum_t dual_coef_[0, t] K(x_t, x) + intercept_[0] from one SMO problem."""

    _kind = None

    def _fit_one(self, X, y, cost):
        return self._take_fit(fit_kernel(self._training_matrix(X), y, cost,
                                         self._training_params(), self._kind))

    def _set_fitted(self, fit):
        super()._set_fitted(fit)
        self.n_iter_ = int(fit.n_iter_[0]) if len(fit.n_iter_) else 0

    def _decision(self, X):
        X = self._prediction_data(X)  # first: it says when the model is not fitted
        return self._fit.decision_ovo(X)[:, 0]

    def _primal_coef(self):
        """w, shape (1, n_features)."""
        return np.asarray(self._fit.dual_coef_ @ self.support_vectors_).reshape(1, -1)


class _Regressor(RegressorMixin, _SingleModel):
    def fit(self, X, y, sample_weight=None):
        """Fit the regression model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; for kernel='precomputed', the (n_samples, n_samples) kernel matrix.
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample multipliers of C; samples of weight <= 0 are left out
            (as scikit-learn's SVMs leave them out).

        Returns
        -------
        self
        """
        X, y, unit_cost = self._training_inputs(X, y, sample_weight)
        return self._take_fit(fit_kernel(X, y, scaled_costs(unit_cost, self.C),
                                         self._training_params(), self._kind))

    def _training_inputs(self, X, y, sample_weight):
        """Checked (X, y) (X as training takes it) and the costs at C = 1."""
        X, y = regression_data(self, X, y, check_X=not callable(self.kernel))
        return self._training_matrix(X), y, _weights(len(y), sample_weight)

    def predict(self, X):
        """f(x) = sum_t dual_coef_[0, t] K(x_t, x) + intercept_[0]."""
        return self._decision(X)


class SVR(_Regressor):
    """Epsilon-support vector regression (LIBSVM ``-s 3``) trained by SMO.

    Solves min 1/2 ||f||^2 + sum_i C_i max(0, ``|y_i - f(x_i)|`` - epsilon),
    C_i = C * sample_weight_i, in LIBSVM's dual on 2n variables
    (:class:`dualsvm.problem.SVRDual`).

    Parameters
    ----------
    kernel, degree, gamma, coef0
        As :class:`dualsvm.SVC` (``kernel`` may be a callable).
    tol : float, default=1e-3
        LIBSVM's ``-e``.
    C : float, default=1.0
        > 0; ``inf``: no sample outside the tube (the hard constraint).
    epsilon : float, default=0.1
        Width of the insensitive tube (LIBSVM's ``-p``), >= 0.
    shrinking, cache_size, max_iter, time_limit, callback, verbose
        As :class:`dualsvm.SVC`.

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
    support_vectors_ : ndarray or csr_matrix of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (1, n_SV)
        alpha_i - alpha*_i.
    intercept_ : ndarray of shape (1,)
    n_support_ : ndarray of shape (1,)
    n_iter_ : int
        SMO steps.
    primal_, dual_, gap_ : ndarray of shape (1,)
        The objectives above and the relative duality gap.
    status_ : list of str
    history_ : list of list of dict
    """

    _kind = "epsilon_svr"
    _parameter_constraints = {
        **_KERNEL_PARAMETERS,
        "C": SVC._parameter_constraints["C"],
        "epsilon": [Interval(Real, 0.0, None, closed="left")],
    }

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3, C=1.0,
                 epsilon=0.1, shrinking=True, cache_size=200, verbose=0, max_iter=-1,
                 time_limit=None, callback=None):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.callback = callback

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        return super().fit(X, y, sample_weight)

    fit.__doc__ = _Regressor.fit.__doc__


class NuSVR(_Regressor):
    """Nu-support vector regression (LIBSVM ``-s 4``) trained by SMO.

    Solves min 1/2 ||f||^2 + S eps + sum_i C_i max(0, ``|y_i - f(x_i)|`` - eps) over f
    and eps, S = nu sum_i C_i (LIBSVM's scaling of Scholkopf et al.'s
    C (nu eps + 1/n sum_i xi_i)), in LIBSVM's dual with the second constraint
    e'(a + a*) = S (:class:`dualsvm.problem.SVRDual` with ``nu``).

    Parameters
    ----------
    nu : float, default=0.5
        In (0, 1]: an upper bound on the fraction of errors and a lower bound on
        the fraction of support vectors (LIBSVM's ``-n``).
    C : float, default=1.0
    kernel, degree, gamma, coef0, shrinking, tol, cache_size, verbose, max_iter,
    time_limit, callback
        As :class:`SVR`.

    Attributes
    ----------
    As :class:`SVR`, and ``epsilon_``: the tube width found (LIBSVM prints it).
    """

    _kind = "nu_svr"
    _parameter_constraints = {
        **_KERNEL_PARAMETERS,
        "nu": _NU,
        "C": SVC._parameter_constraints["C"],
    }

    def __init__(self, *, nu=0.5, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, tol=1e-3, cache_size=200, verbose=0, max_iter=-1,
                 time_limit=None, callback=None):
        self.nu = nu
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.callback = callback

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        return super().fit(X, y, sample_weight)

    fit.__doc__ = _Regressor.fit.__doc__


class OneClassSVM(OutlierMixin, _SingleModel):
    """Unsupervised outlier detection (LIBSVM ``-s 2``, Scholkopf et al.) trained by SMO.

    Solves min 1/2 ||f||^2 - S rho + sum_i W_i max(0, rho - f(x_i)), S = nu sum_i W_i
    (W_i the sample weights; LIBSVM's scaling), in the dual
    min 1/2 a'K a, 0 <= a_i <= W_i, e'a = S (:class:`dualsvm.problem.NuDual`).
    The decision function is f(x) - rho.

    Parameters
    ----------
    kernel, degree, gamma, coef0, tol
        As :class:`dualsvm.SVC`.
    nu : float, default=0.5
        In (0, 1]: an upper bound on the fraction of training errors and a lower
        bound on the fraction of support vectors (LIBSVM's ``-n``).
    shrinking, cache_size, verbose, max_iter, time_limit, callback
        As :class:`dualsvm.SVC`.
    probability : bool, default=False
        LIBSVM's ``-b 1`` for the one-class SVM (not a parameter of scikit-learn's
        OneClassSVM): after training, the density marks of the training decision
        values (``prob_density_marks_``), from which :meth:`predict_proba` gives
        the probability of being an inlier. With fewer than 5 negative or 5
        non-negative training decision values there are no marks (a UserWarning
        says so, as LIBSVM warns and saves its model without them).

    Attributes
    ----------
    support_, support_vectors_, n_support_, n_iter_, primal_, dual_, gap_,
    status_, history_
        As :class:`SVR`.
    dual_coef_ : ndarray of shape (1, n_SV)
        alpha_i.
    intercept_ : ndarray of shape (1,)
        -rho.
    offset_ : ndarray of shape (1,)
        rho: decision_function = score_samples - ``offset_``.
    prob_density_marks_ : ndarray of shape (10,)
        With ``probability``, LIBSVM's marks (:func:`dualsvm.probability.density_marks`):
        the sorted training decision values, the negative ones cut into 5 bins of
        equal counts and the non-negative ones into 5 more, each mark midway between
        two bins; empty without them.
    """

    _kind = "one_class"
    _parameter_constraints = {**_KERNEL_PARAMETERS, "nu": _NU,
                              "probability": SVC._parameter_constraints["probability"]}

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3, nu=0.5,
                 shrinking=True, cache_size=200, verbose=0, max_iter=-1, time_limit=None,
                 callback=None, probability=False):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.nu = nu
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.callback = callback
        self.probability = probability

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None):
        """Detect the soft boundary of the set of samples X (with ``probability``, and
        the density marks of its decision values, LIBSVM's -b 1).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; for kernel='precomputed', the (n_samples, n_samples) kernel matrix.
        y : Ignored
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights W_i (the bounds of the dual); a weight <= 0 leaves a sample out.

        Returns
        -------
        self
        """
        if not callable(self.kernel):
            X = samples(self, X)
        n = n_samples(X)
        return self._fit_one(X, np.zeros(n), _weights(n, sample_weight))

    def _set_fitted(self, fit):
        super()._set_fitted(fit)
        self.offset_ = -fit.intercept_  # an array of shape (1,), as scikit-learn's
        if fit.prob_density_marks_ is None:  # as SVC's probA_: empty without probabilities
            self.prob_density_marks_ = np.empty(0)

    def decision_function(self, X):
        """Signed distance to the boundary: positive inside (inliers), f(x) - rho."""
        return self._decision(X)

    def score_samples(self, X):
        """The raw score f(x) = sum_t dual_coef_[0, t] K(x_t, x) (decision + ``offset_``)."""
        return self.decision_function(X) + self.offset_

    def predict(self, X):
        """+1 for inliers (decision > 0, as LIBSVM), -1 for outliers."""
        return np.where(self.decision_function(X) > 0, 1, -1)

    _check_proba = SVC._check_proba  # predict_proba exists with probability=True only

    @available_if(_check_proba)
    def predict_proba(self, X):
        """LIBSVM's ``-b 1`` for the one-class SVM: columns P(-1) (outlier) and P(+1)
        (inlier), in the order of the sorted labels as scikit-learn orders probability
        columns (LIBSVM's svm-predict writes them the other way round: inlier first).

        P(+1) is 0.001 below the first density mark, i / 10 from mark i up to the
        next, 0.999 from the last mark on (:func:`dualsvm.probability.one_class_probability`).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, 2)
        """
        check_is_fitted(self)
        if self._fit.prob_density_marks_ is None:
            # NotFittedError, as SVC's: the model needs a fit with probability=True
            raise NotFittedError("predict_proba is not available when fitted with "
                                 "probability=False (or when training was interrupted, or had "
                                 "too few decision values on either side of 0 for density "
                                 "marks); fit with probability=True")
        return self._fit.predict_proba(self._prediction_data(X))

    @available_if(_check_proba)
    def predict_log_proba(self, X):
        """The logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))


class NuSVC(SVC):
    """Nu-support vector classification (LIBSVM ``-s 1``) trained by SMO.

    For each pair of classes, solves LIBSVM's unscaled problem
    min 1/2 ||f||^2 - S rho + sum_i W_i max(0, rho - y_i (f(x_i) + b)),
    S = nu sum_i W_i, in the dual min 1/2 a'Q a, 0 <= a_i <= W_i, y'a = 0, e'a = S
    (:class:`dualsvm.problem.NuDual`), then scales the model by 1 / rho as LIBSVM
    does (it is then the C-SVC model with C = 1 / rho). ``primal_``, ``dual_`` and
    ``gap_`` are those of the unscaled problem. W_i = class_weight[y_i] *
    sample_weight_i (LIBSVM has no weights: W_i = 1).

    Parameters
    ----------
    nu : float, default=0.5
        In (0, 1]; for each pair of classes nu * n / 2 must not exceed the size of
        the smaller class (with weights, its weight), else the error
        'specified nu is infeasible' (LIBSVM's ``-n``).
    kernel, degree, gamma, coef0, shrinking, tol, cache_size, class_weight,
    verbose, max_iter, decision_function_shape, probability, break_ties, random_state,
    time_limit, callback
        As :class:`dualsvm.SVC` (``probability``: LIBSVM's ``-b 1`` for nu-SVC, each
        pair's sigmoid fitted on decision values of nu-SVC models trained on 4/5 of
        its rows; nu must be feasible on those too).

    Attributes
    ----------
    As :class:`dualsvm.SVC`.
    """

    _kind = "nu_svc"
    _parameter_constraints = {
        **_KERNEL_PARAMETERS,
        "nu": _NU,
        "class_weight": SVC._parameter_constraints["class_weight"],
        "decision_function_shape": SVC._parameter_constraints["decision_function_shape"],
        "random_state": SVC._parameter_constraints["random_state"],
        "probability": SVC._parameter_constraints["probability"],
        "break_ties": SVC._parameter_constraints["break_ties"],
    }

    def __init__(self, *, nu=0.5, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, tol=1e-3, cache_size=200, class_weight=None, verbose=0,
                 max_iter=-1, decision_function_shape="ovr", probability=False,
                 break_ties=False, random_state=None, time_limit=None, callback=None):
        self.nu = nu
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.probability = probability
        self.break_ties = break_ties
        self.random_state = random_state
        self.time_limit = time_limit
        self.callback = callback

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit one binary nu-SVC per pair of classes (with ``probability``, and Platt's
        sigmoid of each from 5-fold cross-validated nu-SVC decisions, LIBSVM's -b 1).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; for kernel='precomputed', the (n_samples, n_samples) kernel matrix.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights (the bounds W_i); a weight <= 0 leaves a sample out.

        Returns
        -------
        self
        """
        X, y, weight = self._training_inputs(X, y, sample_weight)
        return self._take_fit(fit_kernel(X, y, weight, self._training_params(), self._kind))


__all__ = ["NuSVC", "NuSVR", "OneClassSVM", "SVR"]
