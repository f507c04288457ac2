"""A bounded cache of rows for out-of-core solvers, in preallocated CSR arrays.

The cache holds up to ``rows_cap`` rows and ``nnz_cap`` non-zeros: CSR arrays
``data``, ``indices``, ``indptr``, the dataset row number of each cached row
(``row_id``) and, per row, the dual parameters copied from the row's block
problem (y_i, Q_ii + D_ii, D_ii, U_i, C_i) and its dual variable a_i. While a row is
cached its a_i lives here; :meth:`RowCache.store` writes the cached values back
to the global alpha. Rows are removed by compaction in place and appended at
the end, so the first ``size`` rows always form a valid CSR matrix that the
DCD kernel reads like any other.
"""

import numpy as np
from numba import njit

from ..problems.box import BoxDual
from ..problems.linear import decisions
from ..solvers.rng import shuffle_prefix

#: Rows of ``RowCache.values``.
Y, Q_DIAG, DIAG, UPPER, COST, ALPHA = range(6)
#: Bytes a cached row costs besides its non-zeros: its indptr entry, row_id, the
#: six per-row values and an entry of the live-row index (the DCD sweeps' order).
ROW_BYTES = 8 + 8 + 6 * 8 + 8
NNZ_BYTES = 12  # float64 value + int32 column index
#: Share of the capacity left free when RowCache.take_in compacts.
SLACK = 0.25


class RowCache(BoxDual):
    """Rows of a dataset with their dual parameters (see the module docstring).

    The first ``size`` rows are a :class:`~dualsvm.problems.linear.DualProblem` to the
    DCD solvers (the same attributes, and BoxDual's rules).
    """

    def __init__(self, rows_cap, nnz_cap, augmented_value, bias):
        self.rows_cap = int(rows_cap)
        self.nnz_cap = int(nnz_cap)
        self.data = np.empty(self.nnz_cap)
        self.indices = np.empty(self.nnz_cap, dtype=np.int32)
        self.indptr = np.zeros(self.rows_cap + 1, dtype=np.int64)
        self.row_id = np.empty(self.rows_cap, dtype=np.int64)
        self.values = np.empty((6, self.rows_cap))
        self.live = np.empty(self.rows_cap, dtype=np.int64)  # take_in's answer
        self.size = 0
        self.nnz = 0
        self.augmented_value = augmented_value
        self.bias = bias

    @classmethod
    def for_budget(cls, nbytes, mean_row_nnz, augmented_value, bias, extra_rows=0, extra_nnz=0):
        """A cache of about ``nbytes`` for rows of ``mean_row_nnz`` non-zeros on average,
        plus room for ``extra_rows`` rows with ``extra_nnz`` non-zeros (a block)."""
        nbytes = max(int(nbytes), 0)
        rows = nbytes // int(NNZ_BYTES * mean_row_nnz + ROW_BYTES)
        nnz = (nbytes - rows * ROW_BYTES) // NNZ_BYTES
        return cls(rows + extra_rows, nnz + extra_nnz, augmented_value, bias)

    @property
    def nbytes(self):
        return self.nnz_cap * NNZ_BYTES + self.rows_cap * ROW_BYTES

    # what DualCD and the DCD kernel read (a duck-typed DualProblem of the cached rows)
    @property
    def rows(self):
        return self.data[:self.nnz], self.indices[:self.nnz], self.indptr[:self.size + 1]

    @property
    def n_samples(self):
        return self.size

    @property
    def y(self):
        return self.values[Y, :self.size]

    @property
    def q_diag(self):
        return self.values[Q_DIAG, :self.size]

    @property
    def diag(self):
        return self.values[DIAG, :self.size]

    @property
    def upper_bound(self):
        return self.values[UPPER, :self.size]

    @property
    def alpha(self):
        return self.values[ALPHA, :self.size]

    def gradient(self, w):
        """G_i = y_i w'x_i - 1 + D_ii a_i of the cached rows."""
        decision = decisions(self.rows, self.size, w, self.augmented_value)
        return self.y * decision - 1.0 + self.diag * self.alpha

    def clear(self):
        self.size = self.nnz = 0

    def store(self, alpha):
        """Write the cached rows' a_i into the global alpha."""
        ids = self.row_id[:self.size]
        live = ids >= 0
        alpha[ids[live]] = self.alpha[live]

    def live_rows(self):
        """Positions of the rows not marked dead by :meth:`take_in`."""
        return np.flatnonzero(self.row_id[:self.size] >= 0)

    def retain(self, keep):
        """Keep the rows where ``keep`` (bool, one per cached row) is true."""
        self.size, self.nnz = _compact(np.asarray(keep, dtype=np.bool_), self.size, self.data,
                                       self.indices, self.indptr, self.values, self.row_id)

    def add(self, block, problem, selected, alpha):
        """Append rows ``selected`` (positions in ``block``) while they fit; a_i from alpha.

        ``problem`` is the block's DualProblem (y, q_diag, diag, upper_bound).
        Returns how many rows were added.
        """
        before = self.size
        self.size, self.nnz = _append(
            self.size, self.nnz, self.data, self.indices, self.indptr, self.values, self.row_id,
            block.data, block.indices, block.indptr, np.asarray(selected, dtype=np.int64),
            problem.y, problem.q_diag, problem.diag, problem.upper_bound, problem.C,
            alpha[block.rows], block.first_row)
        return self.size - before

    def room_for(self, block):
        """Whether all rows of ``block`` fit without evicting anything."""
        return (self.size + block.n_rows <= self.rows_cap
                and self.nnz + block.indices.shape[0] <= self.nnz_cap)

    def take_in(self, block, problem, selected, alpha, active_rows, state):
        """Replace cached rows by rows ``selected`` of ``block``, in a random order
        (``state``: a kernel random state); returns the positions of the live rows
        afterwards (:meth:`live_rows`), a view of a buffer the next call overwrites
        (``active_rows`` may be one: it is read before that).

        The cached a_i go back to ``alpha`` first. Leaving: the rows not in
        ``active_rows`` (positions in the cache) and the rows of ``block`` (it
        brings them again) are marked dead (row_id -1: skipped by :meth:`store`,
        not in :meth:`live_rows`), and the new rows are appended. Only when they
        do not fit is the cache compacted: the dead rows and then the oldest
        live ones leave until the new rows fit with SLACK of the capacity to
        spare, so one compaction (a move of the whole cache) serves several blocks.
        """
        # the compiled part returns numbers only: boxing an array it made runs Python
        # (Numba unpickles the array's type), where a Ctrl-C became a SystemError
        self.size, self.nnz, n_live = _take_in(
            np.asarray(active_rows, dtype=np.int64), self.size, self.nnz, self.data,
            self.indices, self.indptr, self.values, self.row_id, alpha, block.first_row,
            block.data, block.indices, block.indptr, np.array(selected, dtype=np.int64),
            problem.y, problem.q_diag, problem.diag, problem.upper_bound, problem.C, state,
            self.live)
        return self.live[:n_live]


@njit(cache=True, nogil=True)
def _compact(keep, size, data, indices, indptr, values, row_id):
    # Rows only move towards the front, so copying forwards is safe in place; the
    # rows before the first one dropped stay where they are.
    j = 0
    while j < size and keep[j]:
        j += 1
    at = indptr[j]
    for i in range(j, size):
        start, end = indptr[i], indptr[i + 1]
        if not keep[i]:
            continue
        length = end - start
        if at != start:
            for k in range(length):
                data[at + k] = data[start + k]
                indices[at + k] = indices[start + k]
        indptr[j] = at
        for v in range(values.shape[0]):
            values[v, j] = values[v, i]
        row_id[j] = row_id[i]
        at += length
        j += 1
    indptr[j] = at
    return j, at


@njit(cache=True, nogil=True)
def _take_in(active_rows, size, nnz, data, indices, indptr, values, row_id, alpha, first_row,
             b_data, b_indices, b_indptr, selected, y, q_diag, diag, upper_bound, cost, state,
             live):
    n_rows = b_indptr.shape[0] - 1
    # active_rows comes shuffled by the sweeps: only the flags are set in its
    # order; the rows' arrays are then read once, in cache order
    keep = np.zeros(size, dtype=np.bool_)
    for k in range(active_rows.shape[0]):
        keep[active_rows[k]] = True
    kept_rows = kept_nnz = 0
    for i in range(size):
        row = row_id[i]
        if row >= 0:
            alpha[row] = values[ALPHA, i]
            if keep[i] and (row < first_row or row >= first_row + n_rows):
                kept_rows += 1
                kept_nnz += indptr[i + 1] - indptr[i]
                continue
        keep[i] = False
        row_id[i] = -1
    new_nnz = 0
    for i in selected:
        new_nnz += b_indptr[i + 1] - b_indptr[i]
    rows_cap, nnz_cap = row_id.shape[0], data.shape[0]
    old_size = size
    compacted = size + selected.shape[0] > rows_cap or nnz + new_nnz > nnz_cap
    if compacted:
        need_rows = kept_rows + selected.shape[0] - int((1.0 - SLACK) * rows_cap)
        need_nnz = kept_nnz + new_nnz - int((1.0 - SLACK) * nnz_cap)
        i = 0
        while (need_rows > 0 or need_nnz > 0) and i < size:  # rows sit in the order they came
            if keep[i]:
                keep[i] = False
                need_rows -= 1
                need_nnz -= indptr[i + 1] - indptr[i]
            i += 1
        size, nnz = _compact(keep, size, data, indices, indptr, values, row_id)
    shuffle_prefix(selected, selected.shape[0], state)
    block_alpha = alpha[first_row:first_row + n_rows]
    size, nnz = _append(size, nnz, data, indices, indptr, values, row_id, b_data, b_indices,
                        b_indptr, selected, y, q_diag, diag, upper_bound, cost, block_alpha,
                        first_row)
    kept_end = 0 if compacted else old_size  # compacted: only live rows are left
    count = 0
    for i in range(kept_end):
        if keep[i]:
            live[count] = i
            count += 1
    for i in range(kept_end, size):
        live[count] = i
        count += 1
    return size, nnz, count


@njit(cache=True, nogil=True)
def _append(size, nnz, data, indices, indptr, values, row_id, b_data, b_indices, b_indptr,
            selected, y, q_diag, diag, upper_bound, cost, alpha, first_row):
    rows_cap = row_id.shape[0]
    nnz_cap = data.shape[0]
    for s in range(selected.shape[0]):
        i = selected[s]
        start, end = b_indptr[i], b_indptr[i + 1]
        length = end - start
        if size >= rows_cap or nnz + length > nnz_cap:
            break
        for k in range(length):
            data[nnz + k] = b_data[start + k]
            indices[nnz + k] = b_indices[start + k]
        values[0, size] = y[i]
        values[1, size] = q_diag[i]
        values[2, size] = diag[i]
        values[3, size] = upper_bound[i]
        values[4, size] = cost[i]
        values[5, size] = alpha[i]
        row_id[size] = first_row + i
        nnz += length
        size += 1
        indptr[size] = nnz
    return size, nnz
