"""What the scikit-learn estimators share: fitted attributes from fit objects.

Training functions return plain fit objects (:mod:`dualsvm.training.fitted`); an estimator
takes one over after ``fit`` (warning when training stopped early),
:meth:`FitMixin.from_fit` builds a fitted estimator from one (model files, the
out-of-core entry point) and :meth:`FitMixin.to_sklearn` the scikit-learn estimator
of one. :class:`KernelMixin`: what the kernel estimators share.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..data.validation import sample_costs, samples
from ..kernels import callable_matrix
from .sklearn_export import to_sklearn


#: The parameter names of each estimator class (see ``FitMixin._get_param_names``).
_PARAM_NAMES = {}


class FitMixin:
    """``from_fit`` and the ConvergenceWarning of a fit; the estimator defines
    ``_set_fitted(fit)``, which copies a fit object's attributes."""

    @classmethod
    def _get_param_names(cls):
        """scikit-learn's list of the parameters of ``__init__``, read once per class:
        scikit-learn inspects the signature on every ``get_params`` (a fit calls it
        twice, the parameter check included; measurements:
        benchmarks/results/design_measurements.md, section estimators/base.py)."""
        names = _PARAM_NAMES.get(cls)
        if names is None:
            names = _PARAM_NAMES[cls] = tuple(super()._get_param_names())
        return list(names)

    @classmethod
    def from_fit(cls, fit):
        """A fitted estimator from a fit object of :mod:`dualsvm.training.fitted`.

        The parameters are those ``fit.params`` records (the others keep their
        defaults); the fitted attributes those the fit has (an imported model
        has no training certificate).

        Raises
        ------
        ValueError
            Invalid parameters.
        """
        estimator = cls()
        known = estimator.get_params(deep=False)
        estimator.set_params(**{k: v for k, v in fit.params.items() if k in known})
        estimator._validate_params()  # scikit-learn's check of the declared parameters
        estimator._set_fitted(fit)
        return estimator

    def to_sklearn(self, *, probability=True):
        """The fitted scikit-learn estimator that computes what this model computes.

        ``LinearSVC``, ``LinearSVR``, ``SVC``, ``NuSVC``, ``SVR``, ``NuSVR`` and
        ``OneClassSVM`` become scikit-learn's class of the same name, whose
        ``predict``, ``decision_function`` and ``predict_proba`` give this model's
        values (to rounding, about 1e-15 relative), for an environment that has
        scikit-learn but not dualsvm. Its parameters are this model's where
        scikit-learn has them: refitting it trains scikit-learn's problem (for
        example LIBLINEAR's augmented intercept where this model had
        ``intercept_mode='exact'``). See :mod:`dualsvm.estimators.sklearn_export`.

        Parameters
        ----------
        probability : bool, default=True
            Include the probability model (``predict_proba``) of a model trained with
            ``probability=True``; False leaves it out, for the models whose
            probabilities scikit-learn computes otherwise (two classes: it couples
            the pair's sigmoid iteratively, up to about 1e-3 from the sigmoid
            itself) or not at all (the one-class SVM).

        Raises
        ------
        ModelError
            No scikit-learn estimator computes the same function (``LinearOneClassSVM``;
            with ``probability``, a two-class or one-class model trained with
            probabilities; a callable kernel), or the installed scikit-learn version is
            not supported.
        """
        return to_sklearn(self, probability)

    def _take_fit(self, fit):
        """Take over a fit made by ``fit``; warn unless every problem converged."""
        self._set_fitted(fit)
        if fit.early_stop():
            # stacklevel: here, fit, scikit-learn's validation wrapper, the caller
            warnings.warn(f"{fit.early_stop()} Increase max_iter or time_limit, or loosen tol.",
                          ConvergenceWarning, stacklevel=4)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class KernelMixin(FitMixin):
    """What the kernel estimators share (``SVC``, ``NuSVC``, ``SVR``, ``NuSVR``,
    ``OneClassSVM``): a kernel given as a function, the fitted attributes of a
    :class:`~dualsvm.training.fitted.KernelFit` in scikit-learn's layout, ``coef_``, ``to_fit``.

    A callable kernel ``kernel(X, Z)`` (scikit-learn's convention) is trained as
    'precomputed' on its matrix K(X, X) and predicts from K(X_test, X); the training
    samples are kept for that, as given (they may be of any kind the function takes,
    e.g. strings). Trained on sparse data, ``support_vectors_``, ``dual_coef_`` and
    ``coef_`` are sparse (CSR), as scikit-learn's are.
    """

    def _training_params(self):
        """The parameters training receives (a callable kernel: 'precomputed')."""
        params = self.get_params(deep=False)
        if callable(self.kernel):
            params["kernel"] = "precomputed"
        return params

    def _training_matrix(self, X):
        """What training takes for the checked samples X: the dense square kernel
        matrix for kernel='precomputed' or a callable kernel (whose samples are kept
        for prediction), else X itself."""
        if callable(self.kernel):
            self._training_samples = X
            return callable_matrix(self.kernel, X, X)
        if self.kernel == "precomputed":
            if X.shape[0] != X.shape[1]:
                raise ValueError("kernel='precomputed' needs the square (n_samples, n_samples) "
                                 f"kernel matrix; X has shape {X.shape}")
            return X.toarray() if sp.issparse(X) else X
        return X

    def _prediction_data(self, X):
        """X checked against the fitted model: float64 rows (or the kernel matrix
        against the training rows for 'precomputed'); for a callable kernel, the
        matrix K(X, training samples)."""
        check_is_fitted(self)
        if callable(self.kernel):
            return callable_matrix(self.kernel, X, self._training_samples)
        return samples(self, X, reset=False)

    def to_fit(self):
        """The :class:`~dualsvm.training.fitted.KernelFit` of this fitted model (what model files hold).

        Raises
        ------
        ValueError
            For a callable kernel: a model file holds no Python function.
        """
        check_is_fitted(self)
        if callable(self._fit_kernel):
            raise ValueError("a model trained with a callable kernel cannot be saved: model "
                             "files hold arrays and JSON, not Python functions; train with "
                             "kernel='precomputed' on the kernel matrix to save the model")
        return self._fit

    def _set_fitted(self, fit):
        """Take the fitted attributes of a KernelFit, in scikit-learn's signs and layout."""
        self._fit = fit
        self._fit_kernel = self.kernel
        for name, value in fit.fitted_attributes().items():
            if name == "classes_" and not fit.classifies:
                continue
            if name == "prob_density_marks_" and fit.kind != "one_class":
                continue  # the one-class model's
            if name == "n_features_in_" and callable(self.kernel):
                continue  # the kernel matrix's width, not the samples'
            setattr(self, name, value)
        self._gamma = fit.kernel.gamma
        if fit.classifies and len(fit.classes_) == 2:  # positive decisions mean classes_[1]
            self.dual_coef_ = -fit.dual_coef_
            self.intercept_ = -fit.intercept_
        if sp.issparse(fit.support_vectors_):
            self.dual_coef_ = sp.csr_matrix(self.dual_coef_)

    @property
    def coef_(self):
        """Weights of the primal problem (kernel='linear' only), read-only: a change
        would not reach the model, which predicts from ``dual_coef_``; sparse (CSR)
        when the model was trained on sparse data."""
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        check_is_fitted(self)
        coef = np.asarray(self._primal_coef(), dtype=np.float64)
        if sp.issparse(self.support_vectors_):
            return sp.csr_matrix(coef)
        coef.flags.writeable = False
        return coef

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags


def unit_weights(n, sample_weight):
    """The checked sample weights, all 1 for None (as SVC checks them; ValueError when
    none is > 0)."""
    return sample_costs(1.0, None, np.zeros(n), np.zeros(1), sample_weight)


class SingleModel(KernelMixin, BaseEstimator):
    """What one-class and regression models share: one function
    f(x) = sum_t dual_coef_[0, t] K(x_t, x) + intercept_[0] from one SMO problem."""

    _kind = None

    def _fit_one(self, X, y, cost):
        from ..training.kernel import fit_kernel  # deferred: the kernel solvers' compiled code

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
