"""Kernel k-means over rows: parts with little kernel mass between them.

Divide and conquer (:mod:`dualsvm.training.divide_conquer`) splits a kernel SVM into
independent SVMs on the parts of a clustering and drops the kernel entries between
parts; its bound on the error this costs is the sum of |K(x_i, x_j)| over pairs in
different parts, which kernel k-means minimises (Hsieh, Si and Dhillon, ICML 2014).

Kernel k-means clusters in the kernel's feature space phi: the centre of cluster c
is the mean mu_c of its points, and a row's distance to it needs kernel values only::

    ||phi(x) - mu_c||^2 = K(x, x) - 2/|c| sum_{t in c} K(x, s_t) + ||mu_c||^2,
    ||mu_c||^2 = 1/|c|^2 sum_{t, u in c} K(s_t, s_u)

Two steps, as the paper does, so that no n x n kernel matrix is needed:

1. :func:`kernel_kmeans` clusters a sample of m rows from its m x m kernel matrix
   (k-means++ seeding in feature space, then Lloyd's iterations);
2. :meth:`KernelClusters.assign` puts every row into the cluster of the nearest
   centre, from K(x, sample) only: m kernel values a row, computed by the tile
   driver of :mod:`.blocks` (its :class:`~.blocks.NearestCentre` consumer) and never
   stored (K(x, x) is the same for every cluster and is
   left out).
"""

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from ..constants import PRECOMPUTED
from ..data.rows import row_squares
from .blocks import NearestCentre, contiguous_rows, dense_points, tile_values

#: Lloyd's iterations of :func:`kernel_kmeans` at most (it stops when no label changes).
KMEANS_ITERATIONS = 30
#: Most bytes the dense layout of the sample's points may take (8 m d): a wider
#: sample is cut to fit (:func:`sample_limit`), so that assigning rows stays a
#: tile product against points held in memory at once.
SAMPLE_BYTES = 32 * 2**20


def sample_limit(n_features, wanted):
    """The sample size to cluster: ``wanted``, or fewer when the points' dense layout
    would exceed ``SAMPLE_BYTES`` (wide data)."""
    return int(max(1, min(wanted, SAMPLE_BYTES // (8 * max(n_features, 1)))))


def kernel_kmeans(K, n_clusters, rng, max_iter=KMEANS_ITERATIONS):
    """Cluster m points from their kernel matrix.

    Parameters
    ----------
    K : ndarray of shape (m, m)
        The kernel matrix of the points.
    n_clusters : int
        Clusters wanted (at most m are made; an empty cluster is dropped).
    rng : numpy.random.Generator
        Seeds the k-means++ choice of the first centres.
    max_iter : int
        Lloyd's iterations at most.

    Returns
    -------
    labels : ndarray of int64, shape (m,)
        The cluster of every point, numbered 0 .. k-1 with no empty cluster.
    """
    K = np.asarray(K, dtype=np.float64)
    m = K.shape[0]
    n_clusters = int(min(n_clusters, m))
    diag = np.diag(K).copy()
    # k-means++: each new seed drawn with probability proportional to its squared
    # distance in feature space to the nearest seed so far
    seeds = [int(rng.integers(m))]
    nearest = np.maximum(diag + diag[seeds[0]] - 2.0 * K[:, seeds[0]], 0.0)
    for _ in range(1, n_clusters):
        total = nearest.sum()
        j = int(rng.choice(m, p=nearest / total)) if total > 0 else int(rng.integers(m))
        seeds.append(j)
        nearest = np.minimum(nearest, np.maximum(diag + diag[j] - 2.0 * K[:, j], 0.0))
    labels = np.argmin(diag[seeds][None, :] - 2.0 * K[:, seeds], axis=1)
    for _ in range(max_iter):
        labels = _compact(labels)
        sums, sizes = _cluster_sums(K, labels)
        norms = _centre_norms(sums, labels, sizes)
        new = np.argmin(norms[None, :] - 2.0 * sums / sizes, axis=1)
        if np.array_equal(new, labels):
            break
        labels = new
    return _compact(labels)


def _compact(labels):
    """Labels renumbered 0 .. k-1 in order, the empty clusters dropped."""
    return np.unique(labels, return_inverse=True)[1].astype(np.int64)


def _cluster_sums(K, labels):
    """(sums, sizes): sums[i, c] = sum over the points t of cluster c of K[i, t]."""
    sizes = np.bincount(labels)
    members = sp.csr_matrix((np.ones(len(labels)), (labels, np.arange(len(labels)))),
                            shape=(len(sizes), len(labels)))
    return np.asarray(members @ K.T).T, sizes


def _centre_norms(sums, labels, sizes):
    """||mu_c||^2 = 1/|c|^2 sum over t, u in c of K(s_t, s_u), from the cluster sums."""
    return np.bincount(labels, weights=sums[np.arange(len(labels)), labels],
                       minlength=len(sizes)) / sizes.astype(np.float64) ** 2


@dataclass
class KernelClusters:
    """Clusters of a kernel k-means on a sample, and the rule that assigns any row.

    Attributes
    ----------
    kernel : Kernel
    points : ndarray or csr_matrix of shape (m, n_features)
        The sample's points (empty for the precomputed kernel).
    rows : ndarray of int64, shape (m,)
        Their training rows: for the precomputed kernel, the columns of a kernel
        matrix that hold K(x, sample).
    labels : ndarray of int64, shape (m,)
        The cluster of every sample point.
    norms : ndarray of shape (n_clusters,)
        ||mu_c||^2, the squared norm of each centre in feature space.
    """

    kernel: object
    points: object
    rows: np.ndarray
    labels: np.ndarray
    norms: np.ndarray

    @property
    def n_clusters(self):
        return len(self.norms)

    @classmethod
    def fit(cls, kernel, X, sample, n_clusters, rng, max_iter=KMEANS_ITERATIONS):
        """Kernel k-means of the rows ``sample`` of X (for the precomputed kernel, X
        is the kernel matrix and ``sample`` its rows and columns)."""
        sample = np.asarray(sample, dtype=np.int64)
        if kernel.code == PRECOMPUTED:
            K = np.asarray(X[np.ix_(sample, sample)], dtype=np.float64)
            points = np.empty((0, 0))
        else:
            points = X[sample]
            K = kernel(points, points)
        labels = kernel_kmeans(K, n_clusters, rng, max_iter)
        sums, sizes = _cluster_sums(K, labels)
        return cls(kernel, points, sample, labels, _centre_norms(sums, labels, sizes))

    def assign(self, X):
        """The nearest centre of every row of X (int64, shape (n,)): data rows, or for
        the precomputed kernel a kernel matrix whose columns ``rows`` hold K(x, sample)."""
        out = np.empty(X.shape[0], dtype=np.int64)
        if self.kernel.code == PRECOMPUTED:
            step = max(1, SAMPLE_BYTES // (8 * len(self.rows)))
            for start in range(0, X.shape[0], step):
                K = X[start:start + step][:, self.rows]
                K = K.toarray() if sp.issparse(K) else np.asarray(K, dtype=np.float64)
                sums, sizes = _cluster_sums(K, self.labels)
                out[start:start + step] = np.argmin(self.norms - 2.0 * sums / sizes, axis=1)
            return out
        sizes = np.bincount(self.labels).astype(np.float64)
        rows = contiguous_rows(X)
        Zt = dense_points(self.points, slice(None))
        tile_values(rows, np.arange(X.shape[0], dtype=np.int64), row_squares(rows, X.shape[0]),
                    Zt, np.einsum("ij,ij->j", Zt, Zt), self.kernel.params,
                    NearestCentre(self.labels, 1.0 / sizes, self.norms, out))
        return out
