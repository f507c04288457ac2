"""Compiled parts of a partition of the kernel working-set solver
(:mod:`dualsvm.dask.kernel_solver`), on one thread (a worker's):

* :func:`fill_columns`: the kernel columns K(its rows, z_t) of new points z_t,
  written into cache slots, by tiles of rows (the dot products and kernel values
  of :func:`dualsvm.kernels.blocks.kernel_row`);
* :func:`add_columns`: out += sum_t coef_t * (cached column t), the gradient's
  update from the working set's columns, without gathering them.
"""

import numpy as np
from numba import njit

from ..kernels.blocks import kernel_row

#: Rows per tile (a tile of 1024 columns is 512 KB, within a core's L2 cache).
TILE_ROWS = 64
#: Padding of a tile's rows: a row length of a power of two puts every row's entry of
#: a column in the same L1 sets when the tile is read down its columns.
_PAD = 8


@njit(cache=True, nogil=True)
def fill_columns(rows, sq_rows, params, Zt, sq_cols, slots, cache):
    """cache[slots[t], i] = K(x_i, z_t) for every row x_i of ``rows`` (compiled rows,
    squared norms ``sq_rows``) and every point z_t laid out in Zt (d, m) with squared
    norms ``sq_cols``; ``params``: ``Kernel.params``."""
    n = len(sq_rows)
    m = Zt.shape[1]
    tile = np.empty((TILE_ROWS, m + _PAD))
    for start in range(0, n, TILE_ROWS):
        stop = min(start + TILE_ROWS, n)
        for i in range(start, stop):
            kernel_row(rows, i, sq_rows[i], Zt, sq_cols, params, tile[i - start, :m])
        for t in range(m):  # transposed into the columns' slots
            column = cache[slots[t]]
            for i in range(start, stop):
                column[i] = tile[i - start, t]


@njit(cache=True, nogil=True)
def add_columns(cache, slots, coef, out):
    """out += sum_t coef[t] * cache[slots[t]] over the t with coef[t] != 0."""
    for t in range(len(slots)):
        c = coef[t]
        if c != 0.0:
            column = cache[slots[t]]
            for i in range(len(out)):
                out[i] += c * column[i]
