"""Low-rank kernel SVMs in memory: a Nystroem map, then the linear dual on it.

With B basis rows Z and the eigendecomposition K(Z, Z) = U diag(lambda) U', the
Nystroem map (Williams and Seeger 2001)

    phi(x) = K(x, Z) U_k diag(lambda_k)^(-1/2),

keeps the k eigenvalues above ``EIGEN_RTOL * lambda_max`` (the others, and the negative
ones of a kernel that is not positive semi-definite, are dropped), so that
phi(x)'phi(x') = K(x, Z) K_+(Z, Z)^+ K(Z, x'), K_+ the positive part of K(Z, Z): the
kernel approximated through the basis. On phi the SVM is linear: LinearSVC's one-vs-rest
dual coordinate descent (:func:`dualsvm.training.linear.fit_linear`) solves it, and its
certificate (``primal_``, ``dual_``, ``gap_``) is that of this linear problem. The
model folds the map into B weights on the basis rows,

    f(x) = phi(x)'w + b = K(x, Z) (U_k diag(lambda_k)^(-1/2) w) + b,

so that a prediction costs B kernel values a row (``LowRankFit.dual_coef_``).

The basis is 'uniform' (B distinct training rows, those scikit-learn's ``Nystroem`` draws
with the same ``random_state``) or 'kmeans' (Zhang, Tsang and Kwok 2008): the input-space
means of the clusters of a kernel k-means (:mod:`dualsvm.kernels.clustering`, the
clustering of ``solver='dc'``) of a sample of the rows.

The map is computed in tiles of rows into one float32 (n, k) matrix (4 n k bytes), which
the linear solver reads: its compiled epochs take stored rows, not a map applied as they
read.
"""

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..data.validation import random_generator
from ..kernels import make_kernel
from ..kernels.clustering import KernelClusters
from .fitted import LinearFit, early_stop_message
from .linear import fit_linear

#: The ways of choosing the basis rows.
BASES = ("uniform", "kmeans")
#: The kernels of a low-rank model: named kernels of data rows (the map needs K(x, Z)
#: of new rows).
LOW_RANK_KERNELS = ("linear", "poly", "rbf", "sigmoid")
#: Eigenvalues of K(Z, Z) at most this times the largest are dropped: float64 eigenvalues
#: carry absolute errors of a few eps * lambda_max, and phi divides by their square roots.
EIGEN_RTOL = 1e-10
#: Bytes of kernel values one tile of the map holds (n_tile x B float64), and at least
#: MAP_TILE_ROWS rows a tile: the map's working memory beside phi (the kernel values,
#: their dot products, the float64 product before its float32 store) stays a few tiles,
#: small next to phi's 4 n k bytes, while the product K(tile, Z) U keeps blocks of rows
#: that BLAS runs near its peak (ijcnn1, B = 4096: 128-row tiles 15% slower than 512).
MAP_TILE_BYTES = 2 * 2**20
MAP_TILE_ROWS = 512
#: basis='kmeans' clusters a sample of max(KMEANS_MIN_SAMPLE, KMEANS_SAMPLE_PER_CENTRE * B)
#: rows (all of them when fewer), at most KMEANS_MAX_SAMPLE: kernel k-means holds the
#: sample's kernel matrix (8 m^2 bytes: 512 MB at the most).
KMEANS_MIN_SAMPLE = 2000
KMEANS_SAMPLE_PER_CENTRE = 4
KMEANS_MAX_SAMPLE = 8192


def map_tile_rows(n_basis):
    """Rows a tile of the map: ``MAP_TILE_BYTES`` of kernel values, at least
    ``MAP_TILE_ROWS``."""
    return max(MAP_TILE_ROWS, MAP_TILE_BYTES // (8 * n_basis))


@dataclass(frozen=True)
class NystroemMap:
    """phi(x) = K(x, components) @ normalization.T (scikit-learn's ``Nystroem`` layout).

    Attributes
    ----------
    kernel : Kernel
        gamma resolved.
    components : ndarray or csr_matrix of shape (B, n_features)
        The basis rows Z.
    normalization : ndarray of shape (k, B)
        diag(lambda_k)^(-1/2) U_k' of the kept eigenpairs of K(Z, Z).
    """

    kernel: object
    components: object
    normalization: np.ndarray

    @property
    def n_components(self):
        """k, the kept components (the width of phi)."""
        return self.normalization.shape[0]

    def transform(self, X, dtype=np.float64):
        """phi(X) of shape (n, k), computed in float64 in tiles of rows of
        ``MAP_TILE_BYTES`` of kernel values and stored as ``dtype``."""
        n, B = X.shape[0], self.components.shape[0]
        out = np.empty((n, self.n_components), dtype=dtype)
        step = map_tile_rows(B)
        for start in range(0, n, step):
            block = self.kernel(X[start:start + step], self.components)
            np.matmul(block, self.normalization.T, out=out[start:start + step])
        return out

    def fold(self, coef):
        """The weights on the basis rows, (n_problems, B), of weights ``coef``
        (n_problems, k) on phi: K(x, Z) @ fold(coef).T = phi(x) @ coef.T."""
        return np.ascontiguousarray(coef @ self.normalization)


def nystroem_map(kernel, components):
    """The :class:`NystroemMap` of the basis rows ``components``.

    Raises
    ------
    ValueError
        K(Z, Z) has no eigenvalue above 0 (every basis row maps to 0).
    """
    eigenvalues, eigenvectors = np.linalg.eigh(kernel(components, components))
    top = float(eigenvalues[-1])
    kept = eigenvalues > EIGEN_RTOL * top
    if top <= 0 or not kept.any():
        raise ValueError(f"the kernel matrix of the {components.shape[0]} basis rows has no "
                         f"positive eigenvalue (largest {top:.3g}): the Nystroem map would be 0; "
                         "check the kernel's parameters (gamma, coef0) and the data")
    normalization = (eigenvectors[:, kept] / np.sqrt(eigenvalues[kept])).T[::-1]
    return NystroemMap(kernel, components, np.ascontiguousarray(normalization))


def uniform_basis(n_samples, n_components, random_state):
    """The first ``n_components`` rows of a random permutation of the rows: those
    scikit-learn's ``Nystroem`` draws from the same ``random_state`` (None: NumPy's
    global state; an int; a RandomState, advanced)."""
    if random_state is None:
        permutation = np.random.permutation(n_samples)
    elif isinstance(random_state, (int, np.integer)):
        permutation = np.random.RandomState(int(random_state)).permutation(n_samples)
    else:
        permutation = random_state.permutation(n_samples)
    return np.asarray(permutation[:n_components], dtype=np.int64)


def kmeans_basis(kernel, X, n_components, rng):
    """The input-space means of the clusters of a kernel k-means of a sample of the rows
    of X, (at most n_components, n_features), dense or CSR as X; the means minimise, for
    the clusters found, the quantisation error that bounds the Nystroem error (Zhang,
    Tsang and Kwok 2008). Empty clusters are dropped, so there may be fewer."""
    n = X.shape[0]
    m = min(n, KMEANS_MAX_SAMPLE, max(KMEANS_MIN_SAMPLE, KMEANS_SAMPLE_PER_CENTRE * n_components))
    sample = np.sort(rng.choice(n, size=m, replace=False))
    clusters = KernelClusters.fit(kernel, X, sample, n_components, rng)
    sizes = np.bincount(clusters.labels).astype(np.float64)
    means = sp.csr_matrix((1.0 / sizes[clusters.labels], (clusters.labels, np.arange(m))),
                          shape=(clusters.n_clusters, m)) @ clusters.points
    return sp.csr_matrix(means) if sp.issparse(means) else np.ascontiguousarray(means)


def basis_size(n_components, n_samples):
    """B: ``n_components``, clipped to n_samples with scikit-learn's ``Nystroem`` warning."""
    if n_components > n_samples:
        warnings.warn(f"n_components={n_components} > n_samples={n_samples}: the basis is "
                      f"all {n_samples} rows (the exact kernel on the training rows, at the "
                      "cost of a full kernel row per prediction)", UserWarning, stacklevel=5)
        return n_samples
    return n_components


@dataclass(eq=False)
class LowRankFit:
    """A fitted low-rank kernel classifier: what :class:`dualsvm.LowRankSVC` stores.

    ``linear`` is the :class:`~dualsvm.training.fitted.LinearFit` of the linear SVM on
    phi (its ``coef_``, (n_problems, k), and certificate); the decision of problem p is
    K(x, ``components_``) @ ``dual_coef_[p]`` + ``intercept_[p]``.
    """

    params: dict
    kernel: object  # the dualsvm.kernels.Kernel, gamma resolved
    components_: object
    component_indices_: np.ndarray | None
    normalization_: np.ndarray
    linear: LinearFit
    feature_names_in_: np.ndarray = None
    _tiles: list = field(default=None, init=False, repr=False)

    # the linear fit's attributes
    classes_ = property(lambda self: self.linear.classes_)
    coef_ = property(lambda self: self.linear.coef_)
    intercept_ = property(lambda self: self.linear.intercept_)
    n_iter_ = property(lambda self: self.linear.n_iter_)
    primal_ = property(lambda self: self.linear.primal_)
    dual_ = property(lambda self: self.linear.dual_)
    gap_ = property(lambda self: self.linear.gap_)
    status_ = property(lambda self: self.linear.status_)
    history_ = property(lambda self: self.linear.history_)

    def __post_init__(self):
        self.dual_coef_ = self.mapping.fold(self.linear.coef_)

    @property
    def mapping(self):
        return NystroemMap(self.kernel, self.components_, self.normalization_)

    @property
    def n_features_in_(self):
        return self.components_.shape[1]

    @property
    def n_components_(self):
        return self.normalization_.shape[0]

    def early_stop(self):
        """None when every problem converged, else why training stopped, as a sentence."""
        return early_stop_message(self.linear.status_, self.linear.gap_)

    def fitted_attributes(self):
        """The fitted attributes (names ending in ``_``) as a dict."""
        linear = {name: value for name, value in vars(self.linear).items()
                  if name.endswith("_") and name not in ("n_samples_seen_", "lambda_", "t_")}
        return {**linear, "components_": self.components_,
                "component_indices_": self.component_indices_,
                "normalization_": self.normalization_, "n_components_": self.n_components_,
                "dual_coef_": self.dual_coef_}

    def decision(self, X):
        """K(X, Z) @ dual_coef_.T + intercept_, (n, n_problems): B kernel values a row,
        never stored."""
        if self._tiles is None:
            self._tiles = self.kernel.tiles(self.components_)
        return self.kernel.times(X, self.components_, self.dual_coef_.T, tiles=self._tiles) \
            + self.linear.intercept_


def check_low_rank_kernel(name):
    """ValueError unless ``name`` is a kernel of a low-rank model (LOW_RANK_KERNELS)."""
    if name not in LOW_RANK_KERNELS:
        raise ValueError(f"kernel must be one of {LOW_RANK_KERNELS} for a low-rank model, "
                         f"got {name!r}")


def linear_params(params):
    """The :func:`~dualsvm.training.linear.fit_linear` parameters of LowRankSVC's: the
    L2 penalty, one-vs-rest, LIBLINEAR's solvers (``dual`` as LinearSVC's)."""
    names = ("C", "loss", "fit_intercept", "intercept_mode", "intercept_scaling", "tol",
             "gap_tol", "max_iter", "time_limit", "shrinking", "shuffle", "random_state",
             "class_weight", "callback", "verbose", "monitor")
    return {**{name: params[name] for name in names}, "penalty": "l2",
            "dual": params.get("dual", "auto"), "multi_class": "ovr", "solver": "dcd",
            "batch_size": 1, "warm_start": False}


def fit_low_rank(X, y, cost, params):
    """Train a low-rank kernel classifier: the basis, the map, the linear dual on it.

    Parameters
    ----------
    X : ndarray or scipy.sparse.csr_matrix of shape (n_samples, n_features)
        Validated float64 data (C-ordered, or CSR with canonical indices).
    y : ndarray of shape (n_samples,)
        Class labels, at least two distinct.
    cost : ndarray of shape (n_samples,)
        C_i = C * class_weight[y_i] * sample_weight_i.
    params : dict
        :class:`dualsvm.LowRankSVC` parameters (``get_params()``); ``time_limit``
        counts the map's seconds too.

    Returns
    -------
    LowRankFit
    """
    started = time.perf_counter()
    check_low_rank_kernel(params["kernel"])
    kernel = make_kernel(params["kernel"], gamma=params["gamma"], degree=params["degree"],
                         coef0=params["coef0"], X=X)
    B = basis_size(params["n_components"], X.shape[0])
    indices = None
    if params["basis"] == "uniform":
        indices = uniform_basis(X.shape[0], B, params["random_state"])
        components = X[indices]
    elif params["basis"] == "kmeans":
        components = kmeans_basis(kernel, X, B, random_generator(params["random_state"]))
    else:
        raise ValueError(f"basis must be one of {BASES}, got {params['basis']!r}")
    mapping = nystroem_map(kernel, components)
    # float32 halves phi's memory; the certificate is exact for the problem on these rows
    phi = mapping.transform(X, dtype=np.float32)
    solving = linear_params(params)
    if solving["time_limit"] is not None:
        solving["time_limit"] = max(0.0, solving["time_limit"] - (time.perf_counter() - started))
    linear = fit_linear(phi, y, cost, solving)
    return LowRankFit(params=dict(params), kernel=kernel, components_=components,
                      component_indices_=indices, normalization_=mapping.normalization,
                      linear=linear)
