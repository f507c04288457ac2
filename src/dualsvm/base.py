"""What the scikit-learn estimators share: fitted attributes from fit objects.

Training functions return plain fit objects (:mod:`dualsvm.fits`); an estimator
takes one over after ``fit`` (warning when training stopped early), and
:meth:`FitMixin.from_fit` builds a fitted estimator from one (model files, the
out-of-core entry point).
"""

import warnings

from sklearn.exceptions import ConvergenceWarning


class FitMixin:
    """``from_fit`` and the ConvergenceWarning of a fit; the estimator defines
    ``_set_fitted(fit)``, which copies a fit object's attributes."""

    @classmethod
    def from_fit(cls, fit):
        """A fitted estimator from a fit object of :mod:`dualsvm.fits`.

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
