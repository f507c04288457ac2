"""``OneClassSVM``: LIBSVM's one-class SVM (``-s 2``), novelty detection with a kernel.

A thin scikit-learn class over :class:`dualsvm.problems.NuDual` without labels, solved
by our SMO; names, parameters and fitted attributes are scikit-learn's.
"""

import numpy as np
from sklearn.base import OutlierMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from sklearn.base import _fit_context  # noqa: I001  (private, as in svc.py)

from ..data.validation import samples
from ..kernels import n_samples
from .base import SingleModel, unit_weights
from .svc import KERNEL_PARAMETERS, NU_CONSTRAINT, SVC


class OneClassSVM(OutlierMixin, SingleModel):
    """Unsupervised outlier detection (LIBSVM ``-s 2``, Scholkopf et al.) trained by SMO.

    Solves min 1/2 ||f||^2 - S rho + sum_i W_i max(0, rho - f(x_i)), S = nu sum_i W_i
    (W_i the sample weights; LIBSVM's scaling), in the dual
    min 1/2 a'K a, 0 <= a_i <= W_i, e'a = S (:class:`dualsvm.problems.kernel.NuDual`).
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
        With ``probability``, LIBSVM's marks (:func:`dualsvm.training.probability.density_marks`):
        the sorted training decision values, the negative ones cut into 5 bins of
        equal counts and the non-negative ones into 5 more, each mark midway between
        two bins; empty without them.
    """

    _kind = "one_class"
    _parameter_constraints = {**KERNEL_PARAMETERS, "nu": NU_CONSTRAINT,
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
        return self._fit_one(X, np.zeros(n), unit_weights(n, sample_weight))

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
        next, 0.999 from the last mark on (:func:`dualsvm.training.probability.one_class_probability`).

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
