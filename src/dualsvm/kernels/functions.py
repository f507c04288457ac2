"""Kernel functions with LIBSVM's and scikit-learn's names, parameters and defaults.

==========  ======  ==============================  =========================
name        LIBSVM  K(x, z)                         parameters
==========  ======  ==============================  =========================
linear      -t 0    x'z
poly        -t 1    (gamma x'z + coef0)^degree      gamma, coef0, degree
rbf         -t 2    exp(-gamma ||x - z||^2)         gamma
sigmoid     -t 3    tanh(gamma x'z + coef0)         gamma, coef0
precomputed -t 4    X[i, j] given by the user
callable            kernel(X, Z)[i, j]              a function of the user's
==========  ======  ==============================  =========================

A callable kernel (scikit-learn's convention) is a function ``kernel(X, Z)`` of two
sets of samples returning their (len(X), len(Z)) kernel matrix; the estimators
train it as 'precomputed' on :func:`callable_matrix` (X, X) and predict on
:func:`callable_matrix` (X_test, X_train).

``gamma`` is a number > 0, ``'scale'`` (1 / (n_features * X.var()), scikit-learn's
default) or ``'auto'`` (1 / n_features, LIBSVM's default); ``degree`` = 3 and
``coef0`` = 0 by default. The sigmoid kernel is not positive semi-definite.

Every kernel is a function of the dot product x'z and the squared norms
||x||^2, ||z||^2, so one dot product per pair serves all of them: the values are
computed in one place, :mod:`dualsvm.kernels.values`.
"""

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from ..constants import KERNELS, PRECOMPUTED, RBF
from .blocks import kernel_times, point_tiles
from .values import PARAMS, kernel_from_dots

#: Most bytes prediction lays the support vectors out in at once (see ``Kernel.times``).
TIMES_BYTES = 16 * 2**20


@dataclass(frozen=True)
class Kernel:
    """A kernel with its parameters resolved to numbers.

    Build one with :func:`make_kernel`, which resolves ``gamma='scale'/'auto'``.
    """

    name: str = "rbf"
    gamma: float = 1.0
    degree: int = 3
    coef0: float = 0.0

    @property
    def code(self):
        return KERNELS[self.name]

    @property
    def params(self):
        """The :class:`~.values.KernelParams` compiled kernels receive (of the kernel's
        own class, :data:`~.values.PARAMS`)."""
        return PARAMS[self.code](np.int64(self.code), float(self.gamma), float(self.coef0),
                                 float(self.degree))

    def to_dict(self):
        return {"kernel": self.name, "gamma": float(self.gamma), "degree": int(self.degree),
                "coef0": float(self.coef0)}

    def __call__(self, X, Z):
        """The kernel matrix K(X, Z) of shape (len(X), len(Z)) (BLAS; dense or CSR)."""
        if self.code == PRECOMPUTED:
            return np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
        dots = X @ Z.T
        dots = dots.toarray() if sp.issparse(dots) else np.asarray(dots)
        sx = sz = None
        if self.code == RBF:
            sx, sz = squared_row_norms(X), squared_row_norms(Z)
        return kernel_from_dots(self, dots, sx, sz)


    def times(self, X, Z, coef, tiles=None):
        """K(X, Z) @ coef without storing K(X, Z): tiles of rows of X against at most
        ``TIMES_BYTES`` of Z's points at a time, in all threads (dense or CSR; not
        'precomputed'). ``tiles``: Z's :meth:`tiles`, when the caller keeps them."""
        if self.code == PRECOMPUTED:
            raise ValueError("a precomputed kernel has no rows to take products of")
        return kernel_times(self, X, point_tiles(Z, TIMES_BYTES) if tiles is None else tiles,
                            coef)

    def tiles(self, Z):
        """Z's points laid out as :meth:`times` reads them (a list): for points that
        many products read, such as a model's support vectors."""
        return list(point_tiles(Z, TIMES_BYTES))


def n_samples(X):
    """The number of samples of a data set of any kind a kernel function may take
    (arrays, sparse matrices, lists of strings)."""
    shape = getattr(X, "shape", None)
    return int(shape[0]) if shape is not None and len(shape) else len(X)


def callable_matrix(kernel, X, Z):
    """The kernel matrix a user's kernel function gives for (X, Z), as a dense,
    C-ordered float64 array, checked.

    Raises ValueError when it is not of shape (n_samples(X), n_samples(Z)) or holds
    NaN or infinity (both name the function).
    """
    K = kernel(X, Z)
    K = K.toarray() if sp.issparse(K) else K
    K = np.ascontiguousarray(K, dtype=np.float64)
    expected = (n_samples(X), n_samples(Z))
    name = getattr(kernel, "__name__", repr(kernel))
    if K.shape != expected:
        raise ValueError(f"the kernel function {name} returned a matrix of shape {K.shape}; "
                         f"a kernel of {expected[0]} and {expected[1]} samples must have "
                         f"shape {expected}")
    if not np.isfinite(K).all():
        raise ValueError(f"the kernel function {name} returned NaN or infinity")
    return K


def make_kernel(kernel="rbf", *, gamma="scale", degree=3, coef0=0.0, X=None):
    """A :class:`Kernel` with ``gamma`` resolved on the training data X.

    Raises ValueError naming the parameter for an unknown kernel or an
    out-of-range value.
    """
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {sorted(KERNELS)}, got {kernel!r}")
    if isinstance(degree, bool) or not isinstance(degree, Integral) or degree < 0:
        raise ValueError(f"degree must be an integer >= 0, got {degree!r}")
    if isinstance(coef0, bool) or not isinstance(coef0, Real) or not np.isfinite(coef0):
        raise ValueError(f"coef0 must be a finite number, got {coef0!r}")
    if isinstance(gamma, str):
        if gamma not in ("scale", "auto"):
            raise ValueError(f"gamma must be 'scale', 'auto' or a number > 0, got {gamma!r}")
        gamma = gamma_value(gamma, 0 if X is None else X.shape[1],
                            data_variance(X) if gamma == "scale" and X is not None else 0.0)
    elif isinstance(gamma, bool) or not isinstance(gamma, Real) or not gamma > 0 \
            or not np.isfinite(gamma):
        raise ValueError(f"gamma must be 'scale', 'auto' or a number > 0, got {gamma!r}")
    return Kernel(kernel, float(gamma), int(degree), float(coef0))


def gamma_value(gamma, n_features, variance):
    """The number gamma 'scale' or 'auto' stands for (scikit-learn's): 1 / (n_features
    * ``variance``) and 1 / n_features, 1 where that is not defined (no features, or a
    variance that is not positive)."""
    if gamma == "auto":
        return 1.0 / n_features if n_features else 1.0
    return 1.0 / (n_features * variance) if n_features and variance > 0 else 1.0


def entry_moments(X):
    """(count, sum, sum of squares) of all entries of X (dense, or sparse: its stored
    entries, the others 0); those of row blocks of X add up to X's."""
    values = X.data if sp.issparse(X) else X
    return X.shape[0] * X.shape[1], float(values.sum()), float((values * values).sum())


def moments_variance(count, total, squares):
    """The variance of ``count`` numbers from their sum and sum of squares."""
    if not count:
        return 0.0
    mean = total / count
    return float(squares / count - mean * mean)


def data_variance(X):
    """X.var() over all entries, as scikit-learn's gamma='scale' computes it (for
    dense X, by NumPy's two passes, which round less than the moments)."""
    if sp.issparse(X):
        return moments_variance(*entry_moments(X))
    return float(np.var(X))


def squared_row_norms(X):
    """||x_i||^2 for every row of a dense array or sparse matrix."""
    if sp.issparse(X):
        return np.asarray(X.multiply(X).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", X, X)
