"""Many kernel rows at once: blocks K(X[rows], Z) with the products vectorised.

A solver with a large working set (:mod:`dualsvm.solvers.ws_smo`) needs q complete
columns of Q at a time, and prediction needs K(X_test, support vectors). Both are
one block of kernel values, computed here in tiles of rows:

* the columns' points are laid out once as a dense (d, m) matrix ``Zt``;
* a tile of ``TILE_ROWS`` rows gets its dot products x_i'Zt by adding, for every
  nonzero x_if (CSR) or every feature (dense rows), x_if times row f of Zt: an
  axpy of length m that the compiler vectorises and that reads Zt from the core's
  cache (a row of z nonzeros costs about z fused multiply-adds per kernel value
  instead of a sparse dot or a scattered by-feature accumulation);
* the kernel function is applied over the tile's rows by
  :func:`.values.kernel_values` (vectorised; the exponential by a polynomial
  within 2 ulp of libm's exp instead of one libm call per value);
* tiles are spread over the threads (``prange``).

:func:`fill_slots` writes the result into the float32 slots of a column cache
as complete columns with the labels applied (LIBSVM stores its kernel columns in
float32 too; :meth:`QMatrix.fill_columns <dualsvm.kernels.QMatrix.fill_columns>`),
so the columns computed in bulk are also cached; :func:`block_values` returns
a float64 block of a QMatrix's rows (its gradients), :func:`kernel_times` the
product of new rows' kernel values with coefficients (prediction).

Memory: ``Zt`` (8 d m bytes) and one tile per thread (8 TILE_ROWS m bytes).
"""

import numpy as np
import scipy.sparse as sp
from numba import njit, prange
from numba.extending import overload

from ..data.rows import is_dense, kernel_rows, row_squares
from .values import FAST_MATH, kernel_values

#: Rows per tile (a tile of 512 columns is 256 KB, within a core's L2 cache).
TILE_ROWS = 64
#: Padding of a tile's rows (float64 entries): see _fill.
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


@njit(cache=True, nogil=True, parallel=True)
def _block(rows, row_index, sq_norms, Zt, sq_cols, params, out):
    """out[r] = K(x_{row_index[r]}, Z) (dot products and kernel values), by tiles."""
    n_rows = len(row_index)
    for c in prange((n_rows + TILE_ROWS - 1) // TILE_ROWS):
        for r in range(c * TILE_ROWS, min((c + 1) * TILE_ROWS, n_rows)):
            i = row_index[r]
            kernel_row(rows, i, sq_norms[i], Zt, sq_cols, params, out[r])


@njit(cache=True, nogil=True, parallel=True)
def _fill(rows, y, sq_norms, params, Zt, cols, col_slots, slots):
    n = len(y)
    m = len(cols)
    sq_cols = np.empty(m)
    for t in range(m):
        sq_cols[t] = sq_norms[cols[t]]
    for c in prange((n + TILE_ROWS - 1) // TILE_ROWS):
        start = c * TILE_ROWS
        stop = min(start + TILE_ROWS, n)
        # Rows padded by _PAD: read down a column of the tile (the transposition
        # below), a row length of a power of two put every row's entry in the same
        # few sets of the L1 cache, which slowed the fill (measurements:
        # benchmarks/results/design_measurements.md, section kernels/blocks.py).
        tile = np.empty((stop - start, m + _PAD))
        for i in range(start, stop):
            values = tile[i - start, :m]
            kernel_row(rows, i, sq_norms[i], Zt, sq_cols, params, values)
            values *= y[i]
        for t in range(m):  # transposed into the columns' slots, y_i y_j applied
            column = slots[col_slots[t]]
            y_t = y[cols[t]]
            for i in range(start, stop):
                column[i] = np.float32(y_t * tile[i - start, t])


_block_serial = njit(cache=True, nogil=True)(_block.py_func)
_fill_serial = njit(cache=True, nogil=True)(_fill.py_func)


@njit(cache=True, nogil=True)
def _times_tile(rows, row_index, first, last, sq_norms, Zt, sq_cols, params, coef, out):
    """out[r] += K(x_{row_index[r]}, Z) @ coef for first <= r < last, one row's kernel
    values at a time."""
    m = len(sq_cols)
    values = np.empty(m)
    for r in range(first, last):
        i = row_index[r]
        kernel_row(rows, i, sq_norms[i], Zt, sq_cols, params, values)
        for k in range(coef.shape[1]):
            s = 0.0
            for t in range(m):
                s += values[t] * coef[t, k]
            out[r, k] += s


@njit(cache=True, nogil=True, parallel=True)
def _times(rows, row_index, sq_norms, Zt, sq_cols, params, coef, out):
    """out[r] += K(x_{row_index[r]}, Z) @ coef, by tiles over the threads, without storing K."""
    n_rows = len(row_index)
    for c in prange((n_rows + TILE_ROWS - 1) // TILE_ROWS):
        _times_tile(rows, row_index, c * TILE_ROWS, min((c + 1) * TILE_ROWS, n_rows), sq_norms,
                    Zt, sq_cols, params, coef, out)


def _shared(n_rows, n_cols):
    """Whether a block of n_rows x n_cols kernel values is shared among the threads:
    more than one tile of rows and at least PARALLEL_VALUES values."""
    return n_rows > TILE_ROWS and n_rows * n_cols >= PARALLEL_VALUES


def _times_rows(rows, row_index, sq_norms, Zt, sq_cols, params, coef, out):
    """:func:`_times`, in this thread for a block too small to share (:func:`_shared`)."""
    if _shared(len(row_index), len(sq_cols)):
        _times(rows, row_index, sq_norms, Zt, sq_cols, params, coef, out)
    else:
        _times_tile(rows, row_index, 0, len(row_index), sq_norms, Zt, sq_cols, params, coef, out)


def fill_slots(data, cols, col_slots, slots, X):
    """Compute the complete columns Q[:, cols] into ``slots[col_slots]`` (float32),
    with ``data`` a QMatrix's :class:`~.qmatrix.KernelRows` and X its rows."""
    rows, y, sq_norms, params = data.rows, data.y, data.sq_norms, data.params
    fill = _fill if _shared(len(y), len(cols)) else _fill_serial
    fill(rows, y, sq_norms, params, dense_points(X, cols), cols, col_slots, slots)


def block_values(data, row_index, cols, X):
    """K(x_i, x_j) for i in row_index, j in cols (float64, no labels), with ``data``
    a QMatrix's :class:`~.qmatrix.KernelRows` and X its rows."""
    rows, sq_norms, params = data.rows, data.sq_norms, data.params
    out = np.empty((len(row_index), len(cols)))
    block = _block if _shared(len(row_index), len(cols)) else _block_serial
    block(rows, row_index, sq_norms, dense_points(X, cols), sq_norms[cols], params, out)
    return out


def block_times(data, row_index, cols, X, coef, out):
    """out += K(X[row_index], X[cols]) @ coef (no labels applied; coef of shape
    (len(cols), k), out (len(row_index), k)), without storing the block."""
    rows, sq_norms, params = data.rows, data.sq_norms, data.params
    _times_rows(rows, row_index, sq_norms, dense_points(X, cols), sq_norms[cols], params,
                np.ascontiguousarray(coef, dtype=np.float64), out)


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
        _times_rows(rows, everything, sq_rows, Zt, sq_cols, kernel.params,
                    coef[start:start + Zt.shape[1]], out)
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

