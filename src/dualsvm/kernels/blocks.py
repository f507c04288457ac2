"""Many kernel rows at once: one tile driver over rows x points, with a few consumers.

Every bulk use of kernel values is K(X[rows], Z) for some points Z, consumed as it is
made: complete columns of Q for the column cache (:mod:`dualsvm.solvers.ws_smo`'s
working sets), a block of a QMatrix's rows (its fused sub-problems), the product
with coefficients (gradient updates, decision values for prediction), the nearest
kernel k-means centre (:mod:`.clustering`). One driver, :func:`tile_values`, makes
the values:

* the points are laid out once as a dense (d, m) matrix ``Zt``;
* a tile of ``TILE_ROWS`` rows gets its dot products x_i'Zt by adding, for every
  nonzero x_if (CSR) or every feature (dense rows), x_if times row f of Zt: an
  axpy of length m that the compiler vectorises and that reads Zt from the core's
  cache (a row of z nonzeros costs about z fused multiply-adds per kernel value
  instead of a sparse dot or a scattered by-feature accumulation);
* the kernel function is applied over each row by :func:`.values.kernel_values`
  (vectorised; the exponential by a polynomial within 2 ulp of libm's exp);
* tiles are spread over the threads (``prange``), or taken in the calling thread
  for a block too small to pay for waking the threads (``PARALLEL_VALUES``).

What is done with the values is the *consumer*, chosen by the type of the named
tuple ``target`` the driver is given (one compilation of the driver a consumer):
:class:`SlotColumns` (Q[:, cols] into float32 cache slots, labels applied),
:class:`BlockRows` (a float64 block), :class:`RowProducts` (out += K @ coef),
:class:`NearestCentre` (kernel k-means assignment). A consumer is three small
compiled functions (:func:`_consumer`): the tile's scratch rows, what is done with
one row's values, what is done with a finished tile.

The public helpers :func:`fill_slots`, :func:`block_values`, :func:`block_times`
and :func:`kernel_times` serve a QMatrix (:mod:`.qmatrix`) and prediction.

Memory: ``Zt`` (8 d m bytes) and one tile's scratch per thread (8 TILE_ROWS m bytes
for the cache slots' transposition, 8 m otherwise).
"""

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from numba import njit, prange
from numba.extending import overload

from ..data.rows import is_dense, kernel_rows, row_squares
from .values import FAST_MATH, kernel_values

#: Rows per tile (a tile of 512 columns is 256 KB, within a core's L2 cache).
TILE_ROWS = 64
#: Padding of a tile's rows (float64 entries): see _slot_scratch.
_PAD = 8
#: Fewer kernel values than this in a block are computed in the calling thread: waking
#: the thread pool costs tens of microseconds, about what one core takes for 2^16
#: values of a few features, so below it a second thread cannot pay for itself.
PARALLEL_VALUES = 2**16


def dense_points(X, index):
    """Zt = X[index].T as a C-contiguous (d, m) float64 array (dense or CSR X)."""
    Z = X[index]
    Z = Z.toarray() if sp.issparse(Z) else np.asarray(Z)
    return np.ascontiguousarray(Z.T, dtype=np.float64)


def _row_times(rows, i, Zt, out):
    """out[:] = x_i' Zt (overloaded for dense rows and CSR triples)."""
    raise NotImplementedError("only callable from compiled code")


@overload(_row_times, jit_options={"cache": True, "inline": "always", "fastmath": FAST_MATH})
def _row_times_impl(rows, i, Zt, out):
    if is_dense(rows):
        def dense(rows, i, Zt, out):
            out[:] = 0.0
            m = len(out)
            for f in range(rows.shape[1]):
                v = rows[i, f]
                if v != 0.0:
                    for k in range(m):
                        out[k] += v * Zt[f, k]
        return dense

    def csr(rows, i, Zt, out):
        data, indices, indptr = rows
        out[:] = 0.0
        m = len(out)
        for p in range(indptr[i], indptr[i + 1]):
            f, v = indices[p], data[p]
            for k in range(m):
                out[k] += v * Zt[f, k]
    return csr


@njit(cache=True, nogil=True, inline="always")
def kernel_row(rows, i, sq_i, Zt, sq_cols, params, out):
    """out[:] = K(x_i, z_k) for the points z_k laid out in Zt (d, m) with squared norms
    sq_cols: one row of a block, the dot products by axpys over x_i's features, the
    kernel by loops that vectorise (:func:`.values.kernel_values`). Also a complete kernel column
    of a QMatrix (Zt: all its rows by feature)."""
    _row_times(rows, i, Zt, out)
    kernel_values(params, sq_i, sq_cols, out)


# ------------------------------------------------------------------ consumers

class SlotColumns(NamedTuple):
    """Consumer: the complete columns Q[:, cols] written into the slots of a column
    cache, Q_ij = y_i y_j K(x_i, x_j), rounded to the slots' type (the driver's rows:
    all of them, in order)."""

    y: np.ndarray  # the rows' signs
    col_y: np.ndarray  # the columns' signs
    col_slots: np.ndarray  # the slot of each column
    slots: np.ndarray  # (n_slots, n): float32 (a QMatrix's), or float64


class BlockRows(NamedTuple):
    """Consumer: the kernel values stored, out[r] = K(x_{row_index[r]}, Z)."""

    out: np.ndarray  # (len(row_index), m) float64


class RowProducts(NamedTuple):
    """Consumer: out[r] += K(x_{row_index[r]}, Z) @ coef, the values never stored (a
    gradient update, decision values)."""

    coef: np.ndarray  # (m, k) float64
    out: np.ndarray  # (len(row_index), k) float64


class NearestCentre(NamedTuple):
    """Consumer: out[r] = argmin over c of norms[c] - 2/|c| sum_{t in c} K(x_r, z_t), the
    nearest kernel k-means centre (:mod:`.clustering`) of the points Z in clusters
    ``labels``."""

    labels: np.ndarray  # (m,) int64, the cluster of each point
    inverse_sizes: np.ndarray  # (n_clusters,) 1 / |c|
    norms: np.ndarray  # (n_clusters,) ||mu_c||^2
    out: np.ndarray  # (len(row_index),) int64


#: The consumer of each target type: (scratch, row, tile) functions (see _consumer).
_CONSUMERS = {}


def _consumer(target_type, scratch, row, tile=None):
    """Declare the consumer of ``target_type``: ``scratch(target, first, last, m)`` gives
    a tile's 2-D scratch (one row for each row of the tile, or a single row that each
    reuses; a row's kernel values go into its first m entries), ``row(target, scratch,
    values, r, i)`` takes row r's values (row i of the data), ``tile(target, scratch,
    first, last)`` (optional) takes the finished tile of rows first..last-1."""
    _CONSUMERS[target_type] = (scratch, row, tile or _no_tile)


def _no_tile(target, scratch, first, last):
    pass


def _slot_scratch(target, first, last, m):
    # Rows padded by _PAD: read down a column of the tile (the transposition in
    # _slot_tile), a row length of a power of two put every row's entry in the same
    # few sets of the L1 cache, which slowed the fill (measurements:
    # benchmarks/results/design_measurements.md, section kernels/blocks.py).
    return np.empty((last - first, m + _PAD))


def _slot_row(target, scratch, values, r, i):
    values *= target.y[i]


def _slot_tile(target, scratch, first, last):
    for t in range(len(target.col_slots)):  # transposed into the columns' slots
        column = target.slots[target.col_slots[t]]
        y_t = target.col_y[t]
        for r in range(first, last):
            column[r] = y_t * scratch[r - first, t]  # rounded to the slots' type


def _block_scratch(target, first, last, m):
    return target.out[first:last]  # the values are made in place


def _block_row(target, scratch, values, r, i):
    pass


def _single_row(target, first, last, m):
    return np.empty((1, m))


def _product_row(target, scratch, values, r, i):
    coef, out = target.coef, target.out
    for k in range(coef.shape[1]):
        s = 0.0
        for t in range(len(values)):
            s += values[t] * coef[t, k]
        out[r, k] += s


def _centre_scratch(target, first, last, m):
    return np.empty((1, m + len(target.norms)))  # the values, then the cluster sums


def _centre_row(target, scratch, values, r, i):
    labels, inverse_sizes, norms = target.labels, target.inverse_sizes, target.norms
    m = len(values)
    sums = scratch[0, m:]
    sums[:] = 0.0
    for t in range(m):
        sums[labels[t]] += values[t]
    best = 0
    best_distance = np.inf
    for c in range(len(norms)):
        distance = norms[c] - 2.0 * inverse_sizes[c] * sums[c]
        if distance < best_distance:
            best, best_distance = c, distance
    target.out[r] = best


_consumer(SlotColumns, _slot_scratch, _slot_row, _slot_tile)
_consumer(BlockRows, _block_scratch, _block_row)
_consumer(RowProducts, _single_row, _product_row)
_consumer(NearestCentre, _centre_scratch, _centre_row)

_CONSUMER_OPTIONS = {"cache": True, "nogil": True, "inline": "always"}


def _tile_scratch(target, first, last, m):
    """The scratch of a tile (:func:`_consumer`), by the type of ``target``."""


@overload(_tile_scratch, jit_options=_CONSUMER_OPTIONS)
def _tile_scratch_for(target, first, last, m):
    return _CONSUMERS[target.instance_class][0]


def _take_row(target, scratch, values, r, i):
    """A row's values to the consumer of ``target``."""


@overload(_take_row, jit_options=_CONSUMER_OPTIONS)
def _take_row_for(target, scratch, values, r, i):
    return _CONSUMERS[target.instance_class][1]


def _take_tile(target, scratch, first, last):
    """A finished tile to the consumer of ``target``."""


@overload(_take_tile, jit_options=_CONSUMER_OPTIONS)
def _take_tile_for(target, scratch, first, last):
    return _CONSUMERS[target.instance_class][2]


# ------------------------------------------------------------------ the driver

@njit(cache=True, nogil=True)
def _tile(rows, row_index, sq_rows, Zt, sq_cols, params, target, first, last):
    """Rows first..last-1 of the driver: their kernel values, each to the consumer."""
    m = len(sq_cols)
    scratch = _tile_scratch(target, first, last, m)
    for r in range(first, last):
        i = row_index[r]
        values = scratch[(r - first) % len(scratch), :m]
        kernel_row(rows, i, sq_rows[i], Zt, sq_cols, params, values)
        _take_row(target, scratch, values, r, i)
    _take_tile(target, scratch, first, last)


# Two drivers, the threads' and the calling thread's, around the same _tile: two
# dispatchers of one Python function would share one entry of Numba's on-disk cache
# (its key is the function's code and signature, not the parallel option), so the
# second would load the first's compilation.
@njit(cache=True, nogil=True, parallel=True)
def _tiles_parallel(rows, row_index, sq_rows, Zt, sq_cols, params, target):
    n_rows = len(row_index)
    for c in prange((n_rows + TILE_ROWS - 1) // TILE_ROWS):
        _tile(rows, row_index, sq_rows, Zt, sq_cols, params, target, c * TILE_ROWS,
              min((c + 1) * TILE_ROWS, n_rows))


@njit(cache=True, nogil=True)
def _tiles_serial(rows, row_index, sq_rows, Zt, sq_cols, params, target):
    n_rows = len(row_index)
    for first in range(0, n_rows, TILE_ROWS):
        _tile(rows, row_index, sq_rows, Zt, sq_cols, params, target, first,
              min(first + TILE_ROWS, n_rows))


def _shared(n_rows, n_cols):
    """Whether a block of n_rows x n_cols kernel values is shared among the threads:
    more than one tile of rows and at least PARALLEL_VALUES values."""
    return n_rows > TILE_ROWS and n_rows * n_cols >= PARALLEL_VALUES


def tile_values(rows, row_index, sq_rows, Zt, sq_cols, params, target):
    """Give the kernel values K(x_i, z_t), i = row_index[r], to the consumer of
    ``target`` (a :class:`SlotColumns`, :class:`BlockRows`, :class:`RowProducts` or
    :class:`NearestCentre`), by tiles of rows: shared among the threads, or in this
    thread for a block too small to share (:func:`_shared`).

    ``rows`` are compiled rows (:func:`contiguous_rows`) with squared norms
    ``sq_rows``, ``Zt`` the points' dense (d, m) layout (:func:`dense_points`) with
    squared norms ``sq_cols``, ``params`` ``Kernel.params``.
    """
    tiles = _tiles_parallel if _shared(len(row_index), len(sq_cols)) else _tiles_serial
    tiles(rows, row_index, sq_rows, Zt, sq_cols, params, target)


# ------------------------------------------------------------------ for a QMatrix

def fill_slots(data, cols, col_slots, slots, X):
    """Compute the complete columns Q[:, cols] into ``slots[col_slots]`` (float32),
    with ``data`` a QMatrix's :class:`~.qmatrix.KernelRows` and X its rows."""
    y, sq_norms = data.y, data.sq_norms
    tile_values(data.rows, np.arange(len(y), dtype=np.int64), sq_norms, dense_points(X, cols),
                sq_norms[cols], data.params, SlotColumns(y, y[cols], col_slots, slots))


def block_values(data, row_index, cols, X):
    """K(x_i, x_j) for i in row_index, j in cols (float64, no labels), with ``data``
    a QMatrix's :class:`~.qmatrix.KernelRows` and X its rows."""
    out = np.empty((len(row_index), len(cols)))
    tile_values(data.rows, row_index, data.sq_norms, dense_points(X, cols),
                data.sq_norms[cols], data.params, BlockRows(out))
    return out


def block_times(data, row_index, cols, X, coef, out):
    """out += K(X[row_index], X[cols]) @ coef (no labels applied; coef of shape
    (len(cols), k), out (len(row_index), k)), without storing the block."""
    tile_values(data.rows, row_index, data.sq_norms, dense_points(X, cols),
                data.sq_norms[cols], data.params,
                RowProducts(np.ascontiguousarray(coef, dtype=np.float64), out))


def point_tiles(Z, max_bytes):
    """Z's points as :func:`kernel_times` reads them: (start, Zt, sq_cols) for
    consecutive points from ``start``, Zt their dense (d, m) layout of at most
    ``max_bytes`` (m >= 1) and sq_cols their squared norms; a generator."""
    step = max(1, max_bytes // (8 * max(Z.shape[1], 1)))
    for start in range(0, Z.shape[0], step):
        Zt = dense_points(Z, slice(start, start + step))
        yield start, Zt, np.einsum("ij,ij->j", Zt, Zt)


def kernel_times(kernel, X, tiles, coef):
    """K(X, Z) @ coef (coef of shape (len(Z), k)) as a float64 (len(X), k) array, Z
    given by its :func:`point_tiles`; the kernel values are never stored
    (prediction: coef holds the dual coefficients)."""
    rows = contiguous_rows(X)
    n = X.shape[0]
    sq_rows = row_squares(rows, n)
    coef = np.ascontiguousarray(coef, dtype=np.float64)
    coef = coef.reshape(-1, 1) if coef.ndim == 1 else coef
    out = np.zeros((n, coef.shape[1]))
    everything = np.arange(n, dtype=np.int64)
    for start, Zt, sq_cols in tiles:
        tile_values(rows, everything, sq_rows, Zt, sq_cols, kernel.params,
                    RowProducts(coef[start:start + Zt.shape[1]], out))
    return out


def contiguous_rows(X):
    """X as compiled kernels read it (see :mod:`dualsvm.data.rows`): writeable,
    C-contiguous, float64 values, int32 column indices when they fit, int64 row
    pointers (the types the compiled signatures name), copied only when needed."""
    rows = kernel_rows(X)
    if isinstance(rows, tuple):
        data, indices, indptr = rows
        index_type = np.int32 if indices.dtype == np.int32 else np.int64
        return (plain_array(data, np.float64), plain_array(indices, index_type),
                plain_array(indptr, np.int64))
    return plain_array(rows, np.float64)


def plain_array(a, dtype):
    """A writeable C-contiguous copy of a only when needed (the compiled signatures)."""
    return np.require(a, dtype, ["C", "W"])

