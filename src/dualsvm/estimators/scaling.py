"""``dualsvm.SVMScaler``: LIBSVM's svm-scale as a scikit-learn transformer.

The computation and the range files are :mod:`dualsvm.data.scaling`'s, shared with
``dualsvm scale``: the same numbers as svm-scale, range files that svm-scale restores
(``-r``) and writes (``-s``).
"""

import os
import warnings
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

# Private scikit-learn APIs with no public equivalent (scikit-learn is pinned below
# the next minor version in pyproject.toml for them): the parameter declarations
# and their check in fit (_fit_context).
from sklearn.base import _fit_context  # noqa: I001

from ..data.scaling import apply_ranges, compute_ranges, differing_limits, read_range_file, \
    unseen_features, write_range_file

__all__ = ["SVMScaler"]


class SVMScaler(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Scale each feature linearly to ``[lower, upper]``, as LIBSVM's svm-scale.

    Feature :math:`j`, of range :math:`[m_j, M_j]` in the data ``fit`` sees (absent
    entries of sparse data count as zeros), becomes
    :math:`\\mathrm{lower} + (\\mathrm{upper} - \\mathrm{lower})(x - m_j)/(M_j - m_j)`,
    with :math:`m_j` and :math:`M_j` mapped to ``lower`` and ``upper`` exactly. Unlike
    :class:`sklearn.preprocessing.MinMaxScaler`, a feature with :math:`m_j = M_j` (or
    without a range in ``range_file``) becomes 0, sparse input stays sparse (a column
    whose zero maps to a nonzero fills), and the ranges are read from and written to
    svm-scale's range files.

    Parameters
    ----------
    lower, upper : float or None, default=None
        The interval (svm-scale's ``-l`` and ``-u``); None: -1 and 1, or those of
        ``range_file``. With ``range_file``, a value that differs from the file's is
        an error.
    range_file : str, os.PathLike or None, default=None
        A range file of svm-scale (``-s``) or of :meth:`save_ranges`: ``fit`` reads the
        ranges from it instead of computing them (svm-scale's ``-r``). Its label
        scaling (``-y``), if any, is kept but not applied: a transformer scales X only.

    Attributes
    ----------
    ranges_ : dualsvm.data.scaling.ScaleRanges
        The ranges and the interval.
    data_min_, data_max_ : ndarray of shape (n_features,)
        The range of each feature (equal where it is scaled to 0).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When ``fit`` saw column names.

    Examples
    --------
    >>> import numpy as np
    >>> from dualsvm import SVMScaler
    >>> SVMScaler().fit_transform(np.array([[0.0, 5.0], [2.0, 5.0], [4.0, 5.0]]))
    array([[-1.,  0.],
           [ 0.,  0.],
           [ 1.,  0.]])
    """

    _parameter_constraints = {
        "lower": [Real, None],
        "upper": [Real, None],
        "range_file": [str, os.PathLike, None],
    }

    def __init__(self, lower=None, upper=None, *, range_file=None):
        self.lower = lower
        self.upper = upper
        self.range_file = range_file

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Compute the ranges of ``X`` (or read them from ``range_file``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64)
        if self.range_file is None:
            lower = -1.0 if self.lower is None else self.lower
            upper = 1.0 if self.upper is None else self.upper
            ranges = compute_ranges(X, lower=lower, upper=upper)
        else:
            ranges = read_range_file(self.range_file)
            differing = differing_limits(ranges, lower=self.lower, upper=self.upper)
            if differing:
                name, given, saved = differing[0]
                raise ValueError(f"{name}={given!r} differs from the range file's "
                                 f"{saved!r} ({self.range_file}); leave {name}=None")
        if not ranges.upper > ranges.lower:  # compute_ranges checks its own
            raise ValueError(f"upper must be above lower, got {ranges.lower!r} and "
                             f"{ranges.upper!r}")
        self.ranges_ = ranges
        known = min(X.shape[1], ranges.n_features)
        self.data_min_ = np.zeros(X.shape[1])
        self.data_max_ = np.zeros(X.shape[1])
        self.data_min_[:known] = ranges.feature_min[:known]
        self.data_max_[:known] = ranges.feature_max[:known]
        return self

    def transform(self, X):
        """Scale ``X`` (CSR in, CSR out; dense in, dense out).

        A feature that varies in ``X`` but has no range (constant where the ranges
        were computed, or absent from the range file) becomes 0 with a warning, as
        svm-scale warns.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        X_scaled : ndarray or CSR matrix of shape (n_samples, n_features)
            Of the width ``fit`` saw.
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        unseen = unseen_features(self.ranges_, X)
        if len(unseen):
            shown = ", ".join(str(i) for i in unseen[:10]) + (", ..." if len(unseen) > 10 else "")
            warnings.warn(f"{len(unseen)} feature(s) vary in X but have no range (1-based "
                          f"index {shown}); they are scaled to 0", UserWarning, stacklevel=2)
        X_scaled, _ = apply_ranges(self.ranges_, X)
        return X_scaled[:, :X.shape[1]]

    def save_ranges(self, path):
        """Write the ranges as svm-scale's range file (restored by ``svm-scale -r``,
        ``dualsvm scale -r`` and ``range_file``)."""
        check_is_fitted(self)
        write_range_file(self.ranges_, path)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.requires_fit = True
        return tags
