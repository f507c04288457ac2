"""Columns of Q (Q_ij = y_i y_j K(x_i, x_j)) for compiled solvers, with an LRU cache.

How a solver gets columns
-------------------------
A :class:`QMatrix` owns two named tuples of plain arrays that compiled code receives:

* ``qm.data``, a :class:`KernelRows`: the training rows (a dense 2-D array or a CSR
  triple, see :mod:`dualsvm.data.rows`), labels, squared row norms, the kernel's
  ``params`` (a ``KernelParams``), a scratch vector, for CSR rows the
  same rows by feature (a CSC triple; empty otherwise), the map of variables to
  rows (a :class:`VariableColumns`, below; None for one variable a row), the rows
  by feature as a dense (d, n) array ``points`` with a float64 vector ``values``
  of n (both empty when not kept; see "Complete columns"; laid out on the first
  read of ``qm.data``, which the bulk paths do not make), and ``shared``: whether
  a column can be long enough to share among threads (True, or None when the
  rows are fewer than the threshold: the threaded filler is then not compiled);
* ``qm.cache``, a :class:`ColumnCache`: a preallocated float32 buffer ``slots`` of
  ``n_slots`` columns of length n (pages are only committed when a slot is first
  written, so memory grows with use up to ``cache_size``), the slot of each column
  (``slot_of``, -1: not cached), the column of each slot, the generation a slot
  was computed in, its LRU time stamp, int64 ``counters`` (see ``CLOCK`` ...
  ``MISSES``) and how many entries (``active[:length]``) a slot holds.

Inside an ``@njit`` loop, ``col = q_column(data, cache, j, active, m)`` returns
column j as a float32 view of its slot, valid at the positions ``active[:m]``
(entries elsewhere are stale), computing it on a miss (in parallel over the
entries when m is large; see :mod:`dualsvm.data.rows` for the dot products).
``m == n`` asks for a complete column. The view stays valid until
``MIN_SLOTS - 1`` further columns have been requested (LRU eviction), so a
solver may hold up to 7 columns at once. A loop that asks for columns every step
takes them by slot instead: ``store = column_store(data, cache)`` once, then
``s = cached_slot(data, cache, j, m)`` and, only when that is -1,
``s = column_slot(data, cache, j, active, m)``; the column is ``store[s]``. A hit
then costs a few loads: a compiled call that passes ``data`` and ``cache`` on
counts references to each of their arrays, and only a function that calls nothing
(``cached_slot``) has that counting removed by the compiler.

Shrinking: within one *generation* the active set may only shrink, so a column
computed for a larger active set serves any later, smaller one. A solver that
puts variables back into its active set (un-shrinking) must call
``new_generation(cache)`` (compiled) or ``qm.new_generation()`` first; complete
columns (computed with m == n) survive generations. A complete request for a
column held partially in the current generation computes only the missing
entries, so it must pass the same ``active`` array as the partial requests.

Variables over rows: with ``row_of``, Q has a variable t for each entry of
``row_of`` (several per training row: SVR's a_i and a*_i), sign ``y[t]``, and
Q_st = y_s y_t K(x_row_of[s], x_row_of[t]). The cache then holds kernel columns
of the *rows* (length n_rows, always complete: LIBSVM's ``SVR_Q`` computes one
row for both signs), twice as many as columns of the 2n variables would be; a
variable's column is gathered from its row's column with the signs into one of
``MIN_SLOTS`` float32 buffers (LRU, reused while the active set only shrinks;
complete when half the variables or more are asked for, as a loop over all of
them in order costs about half of one through ``active``; measurements:
benchmarks/results/design_measurements.md, section kernels/qmatrix.py), so
``q_column`` keeps its contract and no solver knows the difference.

Complete columns: when the dense layout of the rows by feature, 8 n d bytes, fits
in half of ``cache_size`` (it is carved out of it), a column requested for at least a
quarter of the rows is computed whole, as a row of a block (:func:`.blocks.kernel_row`):
the dot products by axpys of length n over x_j's features, the kernel by a loop that
vectorises (:func:`.values.kernel_values`), one thread: faster than a dot product
and a kernel value per entry, and two threads were slower at the sizes measured
(measurements: benchmarks/results/design_measurements.md, section
kernels/qmatrix.py). Such a column is complete, so it also survives the generations.

From Python: ``qm.column(j)`` (a complete column, float64 copy, through the
cache), ``qm.block(rows, cols)`` (Q[rows][:, cols] by BLAS in one matrix
product, not cached; ``rows=None`` for all rows), ``qm.column_chunks(cols, n_rows)``
(cols in pieces whose block fits in ``qm.block_bytes``), ``qm.columns(index)`` (many
complete columns by BLAS, stored in the cache), ``qm.complete_slots(cols)`` (the cache
slots of complete columns, the missing ones computed in bulk), ``qm.times(cols, v,
rows)`` (Q[rows][:, cols] v by tiles, each kernel row and column once; the linear
kernel's through w = X[cols]' v), ``qm.sharing_rows(variables)`` (the variables of the
same training rows), ``qm.matrix()`` (all of Q, refused above a memory bound),
``qm.diag`` (Q_ii) and the counters ``kernel_evaluations``, ``cache_hits``,
``cache_misses``.
"""

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from numba import njit, prange, types
from numba.extending import overload

from ..constants import LINEAR, PRECOMPUTED
from ..data.rows import (clear_dots, column_dots, entry_dot, gram_entry, row_row_dot,
                         row_squares)
from .blocks import (block_times, block_values, contiguous_rows, dense_points, fill_slots,
                     kernel_row, plain_array)
from .values import KernelParams, kernel_from_dot

#: counters[...]: LRU clock, current generation, kernel evaluations, hits, misses.
CLOCK, GENERATION, EVALUATIONS, HITS, MISSES = 0, 1, 2, 3, 4
#: slot_generation of a complete column (valid in every generation).
COMPLETE = -1
#: The cache holds at least this many columns, whatever cache_size says.
MIN_SLOTS = 8
#: Most bytes a block of Q computed by BLAS (gradient from scratch, reconstruction
#: after shrinking) may take at once. The blocks are carved out of cache_size (at
#: most a sixteenth of it), so cache and blocks together stay within cache_size.
BLOCK_BYTES = 16 * 2**20
#: Below this many entries a column computed entry by entry (fewer than a quarter of
#: the rows asked for, or no rows by feature kept) takes one thread. CSR rows: the dot
#: products are accumulated by feature on one thread first, only the kernel values
#: are shared, which pays only for long columns. Dense rows (and a precomputed matrix)
#: share all the work, which pays from a few thousand entries
#: (measurements: benchmarks/results/design_measurements.md, section kernels/qmatrix.py).
_PARALLEL_ENTRIES = 16384
_PARALLEL_ENTRIES_DENSE = 2048
#: Ranges a parallel column is cut into for the threads.
_CHUNKS = 64


class ColumnCache(NamedTuple):
    """The LRU cache of float32 columns (module docstring)."""

    slots: np.ndarray  # (n_slots, n) float32
    slot_of: np.ndarray  # (n,) the slot of each column, -1: not cached
    column_of: np.ndarray  # (n_slots,) the column of each slot, -1: none
    slot_generation: np.ndarray  # (n_slots,) COMPLETE, or the generation
    last_used: np.ndarray  # (n_slots,) LRU time stamps
    counters: np.ndarray  # (5,) CLOCK, GENERATION, EVALUATIONS, HITS, MISSES
    slot_length: np.ndarray  # (n_slots,) entries active[:length] a slot holds

    @property
    def evaluations(self):
        """Kernel values computed into the cache so far."""
        return int(self.counters[EVALUATIONS])

    @property
    def hits(self):
        return int(self.counters[HITS])

    @property
    def misses(self):
        return int(self.counters[MISSES])


class VariableColumns(NamedTuple):
    """Several variables a training row (module docstring, "Variables over rows"): the
    row of each variable, its sign, all rows 0..n_rows-1, MIN_SLOTS float32 buffers
    of the variables' columns and their tags (variable, length, generation, use)."""

    row_of: np.ndarray
    sign: np.ndarray
    every_row: np.ndarray
    buffers: np.ndarray
    tags: np.ndarray


class KernelRows(NamedTuple):
    """What compiled code reads to compute columns (module docstring)."""

    rows: object  # dense (n, d) float64, or a CSR triple
    y: np.ndarray  # the signs the fillers multiply by
    sq_norms: np.ndarray
    params: KernelParams
    work: np.ndarray  # CSR: a scratch vector of n; dense: empty
    by_feature: tuple  # CSR: the rows by feature (a CSC triple); dense: empty
    variables: object  # VariableColumns, or None: one variable a row
    points: np.ndarray  # the rows by feature, dense (d, n); empty when not kept
    values: np.ndarray  # a scratch vector of n for a complete column; empty likewise
    shared: object  # True, or None: no column is long enough to share among threads


def _field_type(tuple_type, name):
    """The Numba type of field ``name`` of a named tuple's type."""
    return tuple_type.types[tuple_type.fields.index(name)]


class QMatrix:
    """Q = (y_i y_j K(x_i, x_j)) for a binary problem, with an LRU column cache.

    Parameters
    ----------
    X : ndarray of shape (n, d) or csr_matrix
        Training rows, float64, C-contiguous (dense) or CSR with sorted indices;
        for the precomputed kernel, the (n, n) kernel matrix.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    kernel : Kernel
    cache_size : float
        Memory bound in MB (2**20 bytes) for the float32 column cache, the
        transient BLAS blocks and the dense rows by feature (``points``, kept when
        within half of it: see "Complete columns") together; the cache holds at least
        MIN_SLOTS columns.
    row_of : ndarray of shape (N,) or None
        The training row of each of N variables (see "Variables over rows");
        y then holds their N signs. None: one variable a row, in order.
    """

    def __init__(self, X, y, kernel, cache_size=200.0, row_of=None):
        n_rows = X.shape[0]
        if kernel.code != PRECOMPUTED and sp.issparse(X) and dense_enough(X):
            X = X.toarray()
        self.X = X
        self.y = plain_array(y, np.float64)
        self.kernel = kernel
        self.n_rows = n_rows
        self.row_of = None if row_of is None else plain_array(row_of, np.int64)
        self.n = n = n_rows if row_of is None else len(self.row_of)
        if len(self.y) != n:
            raise ValueError(f"{len(self.y)} signs for {n} variables")
        self.rows = contiguous_rows(X)
        if kernel.code == PRECOMPUTED:
            if sp.issparse(X):
                raise ValueError("a precomputed kernel matrix must be dense")
            self.sq_norms = np.zeros(n_rows)
            self.diag = np.ascontiguousarray(np.diag(X), dtype=np.float64)
        else:
            self.sq_norms = row_squares(self.rows, n_rows)
            self.diag = _diagonal(self.rows, self.sq_norms, kernel.params)
        # what the compiled fillers multiply by: the labels, or 1 for the rows'
        # kernel columns when the signs belong to the variables
        row_signs = self.y if row_of is None else np.ones(n_rows)
        if row_of is not None:
            self.diag = self.diag[self.row_of]
        if isinstance(self.rows, tuple):
            by_feature = sp.csc_matrix(X)
            by_feature.sort_indices()
            by_feature = (plain_array(by_feature.data, np.float64),
                          by_feature.indices.astype(np.int32),  # row numbers: n < 2**31
                          plain_array(by_feature.indptr, np.int64))
            work = np.zeros(n_rows)
        else:
            by_feature = (np.zeros(0), np.zeros(0, np.int32), np.zeros(1, np.int64))
            work = np.zeros(0)
        self.cache_bytes = cache_bytes = int(cache_size * 2**20)
        self.block_bytes = min(BLOCK_BYTES, cache_bytes // 16)
        # the rows by feature, dense, for complete columns (see "Complete columns"): laid
        # out when compiled code first asks for ``data`` (the bulk paths, which lay out
        # their own columns' points, never do), its bytes reserved in cache_size now
        self._points_bytes = 8 * n_rows * X.shape[1] if kernel.code != PRECOMPUTED and \
            8 * n_rows * X.shape[1] <= cache_bytes // 2 else 0
        self._points = None if self._points_bytes else np.zeros((0, 0))
        if row_of is None:
            variables = None  # typed none: column_slot compiles without _variable_slot
        else:
            tags = np.full((MIN_SLOTS, 4), -1, dtype=np.int64)  # variable, length, generation, use
            variables = VariableColumns(self.row_of, self.y, np.arange(n_rows, dtype=np.int64),
                                        np.zeros((MIN_SLOTS, n), np.float32), tags)
        # typed none below the size that shares a column among threads, so that a
        # small problem's first fit does not compile the threaded filler
        shared = True if n_rows >= (_PARALLEL_ENTRIES if len(work) else
                                    _PARALLEL_ENTRIES_DENSE) else None
        self._data = KernelRows(self.rows, row_signs, self.sq_norms, kernel.params, work,
                                by_feature, variables, np.zeros((0, 0)), np.zeros(0), shared)
        buffers = 0 if variables is None else variables.buffers.nbytes
        room = cache_bytes - self.block_bytes - buffers - self._points_bytes
        self.n_slots = int(min(n_rows, max(MIN_SLOTS, room // (4 * max(n_rows, 1)))))
        self.cache = column_cache(n_rows, self.n_slots, n_rows)
        self._all = np.arange(n, dtype=np.int64)

    @property
    def points(self):
        """The rows by feature as a dense (d, n) array (empty when not kept), laid out
        on first use."""
        self._lay_out_points()
        return self._points

    @property
    def data(self):
        """What compiled code receives (module docstring), the points laid out."""
        self._lay_out_points()
        return self._data

    def _lay_out_points(self):
        if self._points is None:
            self._points = dense_points(self.X, slice(None))
            self._data = self._data._replace(points=self._points, values=np.zeros(self.n_rows))

    def _kernel_index(self, values):
        """values[row_of] (values by training row -> by variable): the rows of
        variables, or a kernel row's entries; values themselves without row_of."""
        return values if self.row_of is None else values[self.row_of]

    @property
    def kernel_evaluations(self):
        return self.cache.evaluations

    @property
    def cache_hits(self):
        return self.cache.hits

    @property
    def cache_misses(self):
        return self.cache.misses

    def new_generation(self):
        """Invalidate partial columns (call before the active set grows)."""
        new_generation(self.cache)

    def column(self, j):
        """Column j of Q, complete, as a float64 copy (through the cache)."""
        slot = self.cache.slot_of[j] if self.row_of is None else -1
        if slot >= 0 and self.cache.slot_generation[slot] != COMPLETE:
            self.cache.slot_length[slot] = 0  # held in a solver's active order, not 0..n-1: recompute
        return self.column_view(j, self._all, self.n).astype(np.float64)

    def column_view(self, j, active, m):
        """Column j valid at ``active[:m]`` as compiled code gets it (:func:`q_column`):
        a float32 view of its cache slot."""
        return _column_view(self.data, self.cache, j, active, m)

    def column_chunks(self, cols, n_rows):
        """cols in pieces whose block of n_rows rows (and the dense copy of the
        piece's points, see :meth:`block`) stays within ``block_bytes``."""
        per_column = 8 * (n_rows + self.X.shape[1])
        step = max(1, self.block_bytes // max(per_column, 1))
        return [cols[k:k + step] for k in range(0, len(cols), step)]

    def block(self, rows, cols):
        """Q[rows][:, cols] as float64, computed by BLAS matrix products.

        ``rows=None`` means all rows. The dot products are vectorised tile
        products over the rows in place (see :mod:`.blocks`), in all threads.
        """
        rows = self._all if rows is None else np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        if self.row_of is not None:
            rows_, cols_ = self.row_of[rows], self.row_of[cols]
        else:
            rows_, cols_ = rows, cols
        if self.kernel.code == PRECOMPUTED:
            K = self.X[np.ix_(rows_, cols_)]
        else:
            K = block_values(self._data, rows_, cols_, self.X)
        self.cache.counters[EVALUATIONS] += len(rows) * len(cols)
        K *= self.y[rows, None]
        K *= self.y[None, cols]
        return K

    def times(self, cols, vector, rows=None):
        """Q[rows][:, cols] @ vector (float64; ``rows=None``: all rows), by the tiles of
        :meth:`block` without storing the block: ``block_bytes`` at most for the
        columns' points."""
        cols = np.asarray(cols, dtype=np.int64)
        coef = self.y[cols] * np.asarray(vector, dtype=np.float64)
        if self.row_of is not None:
            # variables of one row share its kernel column: their signed
            # coefficients are summed by row, and one product over the rows serves all
            by_row = np.bincount(self.row_of[cols], weights=coef, minlength=self.n_rows)
            cols = np.flatnonzero(by_row)
            coef = by_row[cols]
        if rows is None:
            return self.y * self._kernel_index(self._kernel_times(cols, coef))
        rows = np.asarray(rows, dtype=np.int64)
        if self.row_of is None:
            return self.y[rows] * self._kernel_times(cols, coef, rows)
        # variables of one row (SVR's a_i and a*_i) share its kernel entries: each
        # row is computed once
        kernel_rows, back = np.unique(self.row_of[rows], return_inverse=True)
        return self.y[rows] * self._kernel_times(cols, coef, kernel_rows)[back]

    def sharing_rows(self, variables):
        """The variables whose training row is that of one of ``variables`` (sorted
        int64): ``variables`` themselves without row_of."""
        variables = np.asarray(variables, dtype=np.int64)
        if self.row_of is None:
            return variables
        chosen = np.zeros(self.n_rows, dtype=bool)
        chosen[self.row_of[variables]] = True
        return np.flatnonzero(chosen[self.row_of])

    def _kernel_times(self, cols, coef, rows=None):
        """K[rows][:, cols] @ coef (training rows; cols: rows too; ``rows=None``: all
        rows): through w for the linear kernel, else by tiles."""
        rows = np.arange(self.n_rows, dtype=np.int64) if rows is None else rows
        if self.kernel.code == LINEAR:
            return self._linear_times(cols, coef, rows)  # no kernel value is computed
        if self.kernel.code == PRECOMPUTED:
            out = np.zeros(len(rows))
            step = max(1, self.block_bytes // (8 * max(len(rows), 1)))
            for start in range(0, len(cols), step):
                out += self.X[np.ix_(rows, cols[start:start + step])] @ coef[start:start + step]
        else:
            out = np.zeros((len(rows), 1))
            step = max(1, self.block_bytes // (8 * max(self.X.shape[1], 1)))
            for start in range(0, len(cols), step):
                block_times(self._data, rows, cols[start:start + step], self.X,
                            coef[start:start + step, None], out)
            out = out[:, 0]
        self.cache.counters[EVALUATIONS] += len(rows) * len(cols)
        return out

    def _linear_times(self, cols, coef, rows):
        """K(X[rows], X[cols]) coef for the linear kernel: X[rows] (X[cols]' coef), two
        matrix-vector products through w (O((rows + cols) d), not O(rows cols d)),
        each over all of X when it takes half of it or more (no copy of its rows)."""
        X, n = self.X, self.n_rows
        if 2 * len(cols) >= n:
            by_row = np.zeros(n)
            by_row[cols] = coef
            w = X.T @ by_row
        else:
            w = X[cols].T @ coef
        if 2 * len(rows) >= n:
            return np.asarray(X @ w, dtype=np.float64).ravel()[rows]
        return np.asarray(X[rows] @ w, dtype=np.float64).ravel()

    def fill_columns(self, cols, col_slots):
        """Compute the complete columns ``cols`` into the cache slots ``col_slots``
        (claimed by the caller, e.g. with :func:`claim_slot`) in bulk: tiles of
        rows against the columns' points laid out densely, ``block_bytes`` at most."""
        self._one_per_row("fill_columns")
        cols = np.asarray(cols, dtype=np.int64)
        col_slots = np.asarray(col_slots, dtype=np.int64)
        step = max(1, self.block_bytes // (8 * max(self.X.shape[1], 1)))
        for start in range(0, len(cols), step):
            where = col_slots[start:start + step]
            fill_slots(self._data, cols[start:start + step], where, self.cache.slots, self.X)
        columns_completed(self.cache, col_slots)

    @property
    def bulk_columns(self):
        """Whether complete columns are computed in bulk into the cache
        (:meth:`fill_columns`, :meth:`complete_slots`): one variable a row, and rows
        (not a precomputed matrix)."""
        return self.row_of is None and self.kernel.code != PRECOMPUTED

    def complete_slots(self, cols):
        """The cache slots of the complete columns ``cols`` (at most ``n_slots`` of
        them): the cached ones are hits, the others computed in one bulk block
        (:meth:`fill_columns`)."""
        if not self.bulk_columns:
            raise ValueError("QMatrix.complete_slots needs one variable a row and data "
                             "rows (not a precomputed kernel matrix)")
        cols = np.asarray(cols, dtype=np.int64)
        slots = np.empty(len(cols), dtype=np.int64)
        missing = claim_columns(self.cache, cols, slots)
        self.fill_columns(cols[missing], slots[missing])
        return slots

    def columns(self, index):
        """Complete columns Q[:, index] as a float64 array of shape (n, len(index)).

        Computed by BLAS in one product and stored in the cache (the most
        recently listed last, so they are the last evicted).
        """
        self._one_per_row("columns")
        index = np.asarray(index, dtype=np.int64)
        out = self.block(None, index)
        if len(index) <= self.n_slots:
            for t, j in enumerate(index):
                slot = claim_slot(self.cache, j)
                self.cache.slots[slot] = out[:, t]
                self.cache.slot_generation[slot] = COMPLETE
        return out

    def _one_per_row(self, name):
        # the cache slots hold the rows' columns, not the variables'
        if self.row_of is not None:
            raise ValueError(f"QMatrix.{name} stores variables' columns in the cache: "
                             "not available with row_of (use column_view or block)")

    def matrix(self, max_bytes=None):
        """All of Q as an (n, n) float64 array; ValueError if above max_bytes."""
        need = 8 * self.n * self.n
        if max_bytes is not None and need > max_bytes:
            raise ValueError(f"the kernel matrix of {self.n} samples needs {need / 2**20:.0f} MB, "
                             f"more than the {max_bytes / 2**20:.0f} MB allowed")
        return self.block(None, self._all)


def column_cache(n_columns, n_slots, length, dtype=np.float32):
    """An empty :class:`ColumnCache` of ``n_slots`` columns of ``length`` entries for the
    columns 0 .. n_columns - 1 (a QMatrix's: float32, its n columns of n entries; a
    worker's part of the rows against columns numbered in the whole data: see
    :mod:`dualsvm.dask.kernel_solver`). The slots' pages are committed as they are
    first written."""
    return ColumnCache(
        np.empty((n_slots, length), dtype=dtype),
        np.full(n_columns, -1, dtype=np.int64),
        np.full(n_slots, -1, dtype=np.int64),
        np.full(n_slots, COMPLETE, dtype=np.int64),
        np.full(n_slots, -1, dtype=np.int64),
        np.zeros(5, dtype=np.int64),
        np.zeros(n_slots, dtype=np.int64),
    )


def columns_completed(cache, col_slots):
    """Record complete columns just computed into the slots ``col_slots`` (claimed by
    :func:`claim_slot` or :func:`claim_columns`): valid in every generation, counted
    as misses, their entries as kernel evaluations."""
    length = cache.slots.shape[1]
    cache.slot_generation[col_slots] = COMPLETE
    cache.slot_length[col_slots] = length
    cache.counters[EVALUATIONS] += len(col_slots) * length
    cache.counters[MISSES] += len(col_slots)


@njit(cache=True, nogil=True)
def new_generation(cache):
    """Partial columns computed so far become invalid (the active set grows)."""
    cache.counters[GENERATION] += 1


@njit(cache=True, nogil=True)
def claim_slot(cache, j):
    """The slot to (re)compute column j into: its own, else the least recently used."""
    slots, slot_of, column_of, slot_generation, last_used, counters, slot_length = cache
    counters[CLOCK] += 1
    s = slot_of[j]
    if s < 0:
        s = 0
        for t in range(1, len(last_used)):
            if last_used[t] < last_used[s]:
                s = t
        if column_of[s] >= 0:
            slot_of[column_of[s]] = -1
        column_of[s] = j
        slot_of[j] = s
    last_used[s] = counters[CLOCK]
    return s


@njit(cache=True, nogil=True)
def claim_columns(cache, cols, col_slots):
    """Slots for the complete columns ``cols`` in a QMatrix cache: complete columns
    already cached are hits (and become the most recently used), the others get
    a slot (the least recently used outside the set, when the cache holds at
    least len(cols) columns); returns the positions in cols of the columns to compute."""
    slots, slot_of, column_of, slot_generation, last_used, counters, slot_length = cache
    missing = np.zeros(len(cols), dtype=np.bool_)
    for a in range(len(cols)):
        s = slot_of[cols[a]]
        if s >= 0 and slot_generation[s] == COMPLETE:
            counters[CLOCK] += 1
            last_used[s] = counters[CLOCK]
            counters[HITS] += 1
            col_slots[a] = s
        else:
            missing[a] = True
    for a in range(len(cols)):
        if missing[a]:
            col_slots[a] = claim_slot(cache, cols[a])
    return np.flatnonzero(missing)


def q_column(data, cache, j, active, m):
    """Column j of Q, valid at active[:m] (all of it when m == n): a float32 view.

    For compiled code off the hot path (from Python: :meth:`QMatrix.column_view`);
    a loop that asks for columns every step takes them by slot (:func:`cached_slot`).
    """


@overload(q_column, jit_options={"cache": True, "nogil": True})
def _q_column_impl(data, cache, j, active, m):
    def column(data, cache, j, active, m):
        return column_store(data, cache)[column_slot(data, cache, j, active, m)]
    return column


@njit(cache=True, nogil=True)
def _column_view(data, cache, j, active, m):
    return q_column(data, cache, j, active, m)


def column_store(data, cache):
    """The 2-D float32 array whose rows :func:`cached_slot` and :func:`column_slot`
    index: the cache's slots, or with variables over rows the buffers their columns
    are gathered into."""


@overload(column_store, jit_options={"cache": True, "nogil": True})
def _column_store_by_type(data, cache):
    if isinstance(_field_type(data, "variables"), types.NoneType):
        return lambda data, cache: cache.slots
    return lambda data, cache: data.variables.buffers


def cached_slot(data, cache, j, m):
    """The row of :func:`column_store` holding column j valid at active[:m] when it
    is there (a hit, counted), else -1 (then :func:`column_slot` computes it).

    A solver's step asks ``s = cached_slot(...)`` and only on -1 calls
    ``column_slot``: this function calls nothing, so the compiler drops the reference
    counting of the arrays in ``data`` and ``cache``, which a call of any function
    that passes them on (``q_column``, ``column_slot``) pays for each of its 20
    arrays, several times a hit's own cost."""


@overload(cached_slot, jit_options={"cache": True, "nogil": True})
def _cached_slot_by_type(data, cache, j, m):
    if isinstance(_field_type(data, "variables"), types.NoneType):
        return _cached_row_slot
    return _cached_variable_slot


def _cached_row_slot(data, cache, j, m):
    # Without a branch: the compiler removes the reference counting of the arrays
    # only within one basic block (an if here kept it).
    slots, slot_of, column_of, slot_generation, last_used, counters, slot_length = cache
    s = slot_of[j]
    t = max(s, 0)
    g = slot_generation[t]
    hit = (s >= 0) & ((g == COMPLETE) | ((g == counters[GENERATION]) & (m <= slot_length[t])))
    counters[CLOCK] += hit
    last_used[t] += hit * (counters[CLOCK] - last_used[t])
    counters[HITS] += hit
    return hit * (s + 1) - 1


def _cached_variable_slot(data, cache, j, m):
    # no branch either: a loop that returns on a hit kept the counting too
    tags = data.variables.tags
    counters = cache.counters
    found = -1
    for b in range(len(tags)):
        g = tags[b, 2]
        hit = (tags[b, 0] == j) & ((g == COMPLETE) | ((g == counters[GENERATION])
                                                       & (m <= tags[b, 1])))
        found = max(found, hit * (b + 1) - 1)
    hit = found >= 0
    t = max(found, 0)
    counters[CLOCK] += hit
    tags[t, 3] += hit * (counters[CLOCK] - tags[t, 3])
    counters[HITS] += hit
    return found


def column_slot(data, cache, j, active, m):
    """The row of :func:`column_store` holding column j valid at active[:m], computed
    when it is not there (the module docstring's rules). Its body is
    :func:`_row_slot` (one variable a row: ``data.variables`` is None) or
    :func:`_variable_slot`, chosen by type where the caller compiles, so that each
    compiles only its own, with no layer between: every compiled function above the
    column code compiles all of it again."""


@overload(column_slot, jit_options={"cache": True, "nogil": True})
def _column_slot_by_type(data, cache, j, active, m):
    return _row_slot if isinstance(_field_type(data, "variables"), types.NoneType) \
        else _variable_slot


def _variable_slot(data, cache, j, active, m):
    """Column j of Q over variables mapped to rows: gathered from the complete kernel
    column of row_of[j] (cached) with the signs, into the least recently used buffer
    unless a buffer holds it already for this active set (rule of the cache)."""
    b = _cached_variable_slot_jit(data, cache, j, m)
    if b >= 0:
        return b
    row_of, sign, every_row, buffers, tags = data.variables
    counters = cache.counters
    n = len(row_of)
    oldest = 0
    for b in range(1, len(tags)):
        if tags[b, 3] < tags[oldest, 3]:
            oldest = b
    kernel = cache.slots[_row_slot_jit(data, cache, row_of[j], every_row, len(every_row))]
    out = buffers[oldest]
    s_j = sign[j]
    if 2 * m >= n:  # the whole column, in order (module docstring)
        for t in range(n):
            out[t] = np.float32(s_j * sign[t]) * kernel[row_of[t]]
        m = n
    else:
        for k in range(m):
            t = active[k]
            out[t] = np.float32(s_j * sign[t]) * kernel[row_of[t]]
    counters[CLOCK] += 1
    tags[oldest, 0] = j
    tags[oldest, 1] = m
    tags[oldest, 2] = COMPLETE if m == n else counters[GENERATION]
    tags[oldest, 3] = counters[CLOCK]
    return oldest


def _row_slot(data, cache, j, active, m):
    """The slot of column j of the cached matrix (one variable a row), as
    column_slot describes."""
    s = _cached_row_slot_jit(data, cache, j, m)
    if s >= 0:
        return s
    slots, slot_of, column_of, slot_generation, last_used, counters, slot_length = cache
    n = slots.shape[1]
    s = slot_of[j]
    # Within a generation the set active[:slot_length] does not change (shrinking
    # swaps inside the active prefix only), so a longer request (a complete column)
    # needs only the entries after it, as LIBSVM's cache extends a shorter column.
    start = slot_length[s] if s >= 0 and slot_generation[s] == counters[GENERATION] else 0
    s = claim_slot(cache, j)
    column = slots[s]
    values = data.values
    if len(values) and 4 * m >= n:  # the whole column (see "Complete columns")
        y = data.y
        kernel_row(data.rows, j, data.sq_norms[j], data.points, data.sq_norms, data.params,
                   values)
        y_j = y[j]
        for i in range(n):
            column[i] = np.float32(y[i] * y_j * values[i])
        start, m = 0, n
    else:
        _fill_entries(data.shared, data.rows, data.y, data.sq_norms, data.params, data.work,
                      data.by_feature, j, active, start, m, column)
    slot_generation[s] = COMPLETE if m == n else counters[GENERATION]
    slot_length[s] = m
    counters[EVALUATIONS] += m - start
    counters[MISSES] += 1
    return s


_cached_row_slot_jit = njit(cache=True, nogil=True)(_cached_row_slot)
_cached_variable_slot_jit = njit(cache=True, nogil=True)(_cached_variable_slot)
_row_slot_jit = njit(cache=True, nogil=True)(_row_slot)


@njit(cache=True, nogil=True)
def q_entry(data, cache, i, j):
    """Q_ij: read from a cached complete column of i or j, else one kernel evaluation."""
    slots, slot_of, column_of, slot_generation, last_used, counters, _ = cache
    s = slot_of[i]
    if s >= 0 and slot_generation[s] == COMPLETE:
        return np.float64(slots[s, j])
    s = slot_of[j]
    if s >= 0 and slot_generation[s] == COMPLETE:
        return np.float64(slots[s, i])
    rows, y, sq_norms, params = data.rows, data.y, data.sq_norms, data.params
    counters[EVALUATIONS] += 1
    if params.code == PRECOMPUTED:
        value = gram_entry(rows, i, j)
    else:
        value = kernel_from_dot(params, row_row_dot(rows, i, j, 0.0), sq_norms[i], sq_norms[j])
    return y[i] * y[j] * value


def dense_enough(X):
    """Whether dense rows are cheaper than CSR for one column: half the entries
    nonzero (a dense dot streams 8 bytes an entry, CSR 12 a nonzero and gathers),
    and the dense copy fits in 1 GiB."""
    n, d = X.shape
    return X.nnz >= 0.5 * n * d and 8 * n * d <= 2**30


def _fill_signature(rows, params):
    # An explicit signature: a parallel function compiled lazily and cached, called
    # from another cached function, can crash when the two were cached by different
    # processes (numba issue 8578); eager, typed compilation avoids it.
    from numba import types as t

    vec, column, index = t.float64[::1], t.float32[::1], t.int64[::1]
    by_feature = t.Tuple((vec, t.int32[::1], index))
    return t.void(rows, vec, vec, params, vec, by_feature, t.int64, index, t.int64, t.int64,
                  column)


@njit(cache=True, nogil=True, inline="always")
def _fill_gram(rows, y, j, active, low, high, column):
    """column[i] = Q_ij for i in active[low:high], from a precomputed kernel matrix."""
    for k in range(low, high):
        i = active[k]
        column[i] = np.float32(y[i] * y[j] * gram_entry(rows, j, i))  # row j: contiguous


@njit(cache=True, nogil=True, inline="always")
def _fill_kernel(rows, y, sq_norms, params, dots, j, active, low, high, column):
    """column[i] = Q_ij for i in active[low:high], from column_dots's ``dots``."""
    for k in range(low, high):
        i = active[k]
        value = kernel_from_dot(params, entry_dot(rows, i, dots), sq_norms[i], sq_norms[j])
        column[i] = np.float32(y[i] * y[j] * value)


# The precomputed test stays outside the loops over entries: inside, it slowed every
# column (measurements: benchmarks/results/design_measurements.md, section
# kernels/qmatrix.py). Both fillers run the same two loops
# (_fill_gram, _fill_kernel) over a range of entries; the parallel one over
# _CHUNKS ranges, which the threads share (at least 256 entries each).
def _fill_parallel_body(rows, y, sq_norms, params, work, by_feature, j, active, start, m, column):
    size = (m - start + _CHUNKS - 1) // _CHUNKS
    if params.code == PRECOMPUTED:
        for c in prange(_CHUNKS):
            _fill_gram(rows, y, j, active, start + c * size, min(start + (c + 1) * size, m),
                       column)
        return
    dots = column_dots(rows, by_feature, j, work)
    for c in prange(_CHUNKS):
        _fill_kernel(rows, y, sq_norms, params, dots, j, active, start + c * size,
                     min(start + (c + 1) * size, m), column)
    clear_dots(rows, by_feature, j, work)


_PARALLEL_FILLS = {}


def _fill_entries(shared, rows, y, sq_norms, params, work, by_feature, j, active, start, m,
                  column):
    """column[i] = Q_ij for i in active[start:m]: shared among the threads
    (_fill_parallel_body) from _PARALLEL_ENTRIES entries (dense rows:
    _PARALLEL_ENTRIES_DENSE), else in this thread (_fill_serial). Compiled for the
    caller's row layout only (a dense fit does not compile the CSR filler), and
    without the threaded one for a problem too small to share a column (``shared``
    None), the body of _fill_serial then being this function's."""


@overload(_fill_entries, jit_options={"cache": True, "nogil": True})
def _fill_entries_for(shared, rows, y, sq_norms, params, work, by_feature, j, active, start,
                      m, column):
    if isinstance(shared, types.NoneType):
        return _fill_serial
    if (rows, params) not in _PARALLEL_FILLS:
        _PARALLEL_FILLS[rows, params] = njit(_fill_signature(rows, params), cache=True,
                                             nogil=True, parallel=True)(_fill_parallel_body)
    fill_parallel = _PARALLEL_FILLS[rows, params]

    def fill(shared, rows, y, sq_norms, params, work, by_feature, j, active, start, m, column):
        # work (the CSR accumulator) is empty for dense rows
        if m - start >= (_PARALLEL_ENTRIES if len(work) else _PARALLEL_ENTRIES_DENSE):
            fill_parallel(rows, y, sq_norms, params, work, by_feature, j, active, start, m,
                          column)
        else:
            _fill_serial_jit(shared, rows, y, sq_norms, params, work, by_feature, j, active,
                             start, m, column)
    return fill


def _fill_serial(shared, rows, y, sq_norms, params, work, by_feature, j, active, start, m,
                 column):
    if params.code == PRECOMPUTED:
        _fill_gram(rows, y, j, active, start, m, column)
        return
    dots = column_dots(rows, by_feature, j, work)
    _fill_kernel(rows, y, sq_norms, params, dots, j, active, start, m, column)
    clear_dots(rows, by_feature, j, work)


_fill_serial_jit = njit(cache=True, nogil=True)(_fill_serial)


@njit(cache=True, nogil=True)
def _diagonal(rows, sq_norms, params):
    out = np.empty(len(sq_norms))
    for i in range(len(sq_norms)):
        out[i] = kernel_from_dot(params, sq_norms[i], sq_norms[i], sq_norms[i])
    return out
