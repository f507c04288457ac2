"""Kernel support vector regression: ``SVR`` (LIBSVM ``-s 3``) and ``NuSVR`` (``-s 4``).

Thin scikit-learn classes over :class:`dualsvm.problems.SVRDual`, solved by our SMO
and trained by :func:`dualsvm.training.kernel.fit_kernel`; names, parameters and
fitted attributes are scikit-learn's, with our extras as :class:`dualsvm.SVC`'s.
"""

from numbers import Real

from sklearn.base import RegressorMixin

from sklearn.base import _fit_context  # noqa: I001  (private, as in svc.py)
from sklearn.utils._param_validation import Interval

from ..data.validation import regression_data, scaled_costs
from ..training.kernel import fit_kernel
from .base import SingleModel, unit_weights
from .svc import KERNEL_PARAMETERS, NU_CONSTRAINT, SVC


class _Regressor(RegressorMixin, SingleModel):
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
        return self._training_matrix(X), y, unit_weights(len(y), sample_weight)

    def predict(self, X):
        """f(x) = sum_t dual_coef_[0, t] K(x_t, x) + intercept_[0]."""
        return self._decision(X)


class SVR(_Regressor):
    """Epsilon-support vector regression (LIBSVM ``-s 3``) trained by SMO.

    Solves min 1/2 ||f||^2 + sum_i C_i max(0, ``|y_i - f(x_i)|`` - epsilon),
    C_i = C * sample_weight_i, in LIBSVM's dual on 2n variables
    (:class:`dualsvm.problems.kernel.SVRDual`).

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
        **KERNEL_PARAMETERS,
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
    e'(a + a*) = S (:class:`dualsvm.problems.kernel.SVRDual` with ``nu``).

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
        **KERNEL_PARAMETERS,
        "nu": NU_CONSTRAINT,
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
