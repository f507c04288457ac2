"""Compiled passes of the linear one-class SVM's two-level coordinate descent
(LIBLINEAR ``-s 21``; Chou, Lin, Lin et al., SDM 2020, Algorithm 7 of the
supplement).

The dual (:class:`dualsvm.problems.linear.LinearOneClassDual`)::

    min_a  1/2 a'Q a,   0 <= a_i <= U_i,   e'a = S,   Q_ij = x_i'x_j,   G = Q a = X w

keeps e'a = S by moving pairs: a_i -= d, a_j += d. An outer iteration computes G
on the active variables and LIBSVM's maximal violation

    m(a) = max_{a_i < U_i} -G_i  -  min_{a_j > 0} -G_j

(stop when m(a) < tol, re-checked on every variable after shrinking); it shrinks
the variables at a bound whose gradient points out of the box beyond that
iteration's extremes (keeping the active ones in row order), then takes k = min(active / 10, |I_up|, |I_low|) pairs:
the i of the k largest -G_i in I_up with the j of the k smallest -G_j in I_low,
in order. Each pair's step uses fresh G_i = w'x_i, G_j = w'x_j, skips a pair
that no longer violates by 1e-12, and minimises exactly along the pair:
d = (G_i - G_j) / (Q_ii + Q_jj - 2 Q_ij), clipped so both stay in their boxes;
w += d (x_j - x_i).

LIBLINEAR's bounds are 1 (U_i = W_i here: sample weights) and it selects the k
pairs by quickselect and a sort of (value, index) pairs, which orders equal values
by index. Here the same total order is used: a quickselect puts the k first
entries in front and a quicksort orders them, in place in the scratch arrays (no
allocation per iteration: on a shrunk problem an iteration moves a few pairs, and
allocations cost more than the steps), so both take the same steps.
"""

import numpy as np
from numba import njit

from ..data.rows import (AHEAD, pair_dots, prefetch, prefetch_row, prefetch_row_start, row_axpy,
                         row_axpy_unmark, row_dot, row_unmark)

#: Ranges up to this length are sorted by insertion.
_SMALL = 16


@njit(cache=True, nogil=True)
def _swap(values, index, a, b):
    values[a], values[b] = values[b], values[a]
    index[a], index[b] = index[b], index[a]


@njit(cache=True, nogil=True)
def _before(v, i, pivot_value, pivot_index, larger_index_first):
    """Whether (v, i) comes before the pivot: the larger value first; among equal
    values the larger index if ``larger_index_first``, else the smaller. (Bitwise
    operators: no branch, so a partition mispredicts nothing.)"""
    return (v > pivot_value) | ((v == pivot_value) & ((i > pivot_index) == larger_index_first))


@njit(cache=True, nogil=True)
def _partition(values, index, lo, hi, larger_index_first):
    """Partition [lo, hi] around the median of its ends and middle; return the pivot's
    final position (those before it come first in the order, those after it later)."""
    mid = (lo + hi) >> 1
    if _before(values[mid], index[mid], values[lo], index[lo], larger_index_first):
        _swap(values, index, lo, mid)
    if _before(values[hi], index[hi], values[lo], index[lo], larger_index_first):
        _swap(values, index, lo, hi)
    if _before(values[mid], index[mid], values[hi], index[hi], larger_index_first):
        _swap(values, index, mid, hi)
    pivot_value, pivot_index = values[hi], index[hi]
    store = lo
    for s in range(lo, hi):
        # branch-free Lomuto: [store, s) holds entries after the pivot, so swapping
        # entry s with entry store and advancing store only when s comes before keeps
        # that true whichever s is (the comparison's branch was a coin toss)
        v, i = values[s], index[s]
        values[s], index[s] = values[store], index[store]
        values[store], index[store] = v, i
        store += _before(v, i, pivot_value, pivot_index, larger_index_first)
    _swap(values, index, store, hi)
    return store


@njit(cache=True, nogil=True)
def _first_k(values, index, m, k, larger_index_first, stack):
    """Reorder values[:m], index[:m] (in step) so that the first k entries in the
    order of :func:`_before` come first, in that order. ``stack``: int64 scratch of
    128 entries (the quicksort's pending ranges)."""
    lo, hi = 0, m - 1
    while lo < hi:  # quickselect: the boundary at k
        p = _partition(values, index, lo, hi, larger_index_first)
        if p == k or p == k - 1:
            break
        if p < k:
            lo = p + 1
        else:
            hi = p - 1
    top = 0
    lo, hi = 0, k - 1
    while True:  # quicksort of [0, k): the larger side waits on the stack
        while hi - lo > _SMALL:
            p = _partition(values, index, lo, hi, larger_index_first)
            if p - lo < hi - p:
                stack[top], stack[top + 1] = p + 1, hi
                hi = p - 1
            else:
                stack[top], stack[top + 1] = lo, p - 1
                lo = p + 1
            top += 2
        for s in range(lo + 1, hi + 1):  # insertion sort of a small range
            v, i = values[s], index[s]
            t = s
            while t > lo and _before(v, i, values[t - 1], index[t - 1], larger_index_first):
                values[t], index[t] = values[t - 1], index[t - 1]
                t -= 1
            values[t], index[t] = v, i
        if top == 0:
            return
        top -= 2
        lo, hi = stack[top], stack[top + 1]


@njit(cache=True, nogil=True, error_model="numpy")
def oneclass_passes(rows, alpha, w, q_diag, upper, index, active_size, movable, gradient,
                    tol, shrinking, budget, up_values, up_index, low_values, low_index, stack,
                    mark):
    """Up to ``budget`` outer iterations over index[:active_size].

    ``movable``: the variables that can move, in row order (index[:len(movable)]
    is a permutation of it); ``mark``: zeros of n_features (scratch of the pair
    steps). Returns (active_size, iterations, converged,
    violation); ``gradient`` holds G_i = w'x_i of the variables of the last check.
    """
    n_movable = len(movable)
    iterations = 0
    violation = np.inf
    while iterations < budget:
        neg_max = -np.inf  # max -G_i over I_up = {a_i < U_i}
        neg_min = np.inf  # min -G_j over I_low = {a_j > 0}
        for s in range(active_size):
            if s + 2 * AHEAD < active_size:  # announce the rows ahead (a hint, see _rows)
                prefetch_row_start(rows, np.uint64(index[s + 2 * AHEAD]))
            if s + AHEAD < active_size:
                prefetch_row(rows, np.uint64(index[s + AHEAD]))
            i = index[s]
            g = row_dot(rows, i, w, 0.0)
            gradient[i] = g
            if alpha[i] < upper[i]:
                neg_max = max(neg_max, -g)
            if alpha[i] > 0.0:
                neg_min = min(neg_min, -g)
        violation = neg_max - neg_min
        if violation < tol:
            if active_size == n_movable:
                return active_size, iterations, True, violation
            active_size = n_movable  # converged on the shrunk problem: check them all
            index[:n_movable] = movable  # in row order again (a copy, not a sort)
            continue
        if shrinking:
            # compacted in place, not swapped as LIBLINEAR does: the active rows stay in
            # memory order, so the passes over them read the data sequentially (the
            # steps do not depend on the order: pairs are chosen by value and index)
            kept = 0
            dropped = 0
            for s in range(active_size):
                i = index[s]
                g = -gradient[i]
                if (alpha[i] >= upper[i] and g > neg_max) or (alpha[i] <= 0.0 and g < neg_min):
                    low_index[dropped] = i
                    dropped += 1
                else:
                    index[kept] = i
                    kept += 1
            for t in range(dropped):
                index[kept + t] = low_index[t]
            active_size = kept
        n_up = 0
        n_low = 0
        for s in range(active_size):
            i = index[s]
            if alpha[i] < upper[i]:
                up_values[n_up] = -gradient[i]
                up_index[n_up] = i
                n_up += 1
            if alpha[i] > 0.0:
                low_values[n_low] = gradient[i]  # the smallest -G: the largest G
                low_index[n_low] = i
                n_low += 1
        k = min(max(active_size // 10, 1), n_up, n_low)
        if k > 0:
            _first_k(up_values, up_index, n_up, k, True, stack)  # the largest -G_i
            _first_k(low_values, low_index, n_low, k, False, stack)  # the smallest -G_j
            for s in range(k):
                # the pairs are known in advance: announce their rows (random in memory)
                if s + 2 * AHEAD < k:
                    _announce(rows, up_index[s + 2 * AHEAD], alpha, upper, q_diag)
                    _announce(rows, low_index[s + 2 * AHEAD], alpha, upper, q_diag)
                if s + AHEAD < k:
                    prefetch_row(rows, np.uint64(up_index[s + AHEAD]))
                    prefetch_row(rows, np.uint64(low_index[s + AHEAD]))
                _pair_step(rows, alpha, w, q_diag, upper, up_index[s], low_index[s], mark)
        iterations += 1
    return active_size, iterations, False, violation


@njit(cache=True, nogil=True)
def _announce(rows, i, alpha, upper, q_diag):
    """Prefetch where row i starts and its entries of the per-variable arrays."""
    j = np.uint64(i)
    prefetch_row_start(rows, j)
    prefetch(alpha, j)
    prefetch(upper, j)
    prefetch(q_diag, j)


@njit(cache=True, nogil=True, error_model="numpy")
def _pair_step(rows, alpha, w, q_diag, upper, i, j, mark):
    """The exact minimisation along a_i -= d, a_j += d (LIBLINEAR's inner step).
    ``mark``: zeros of n_features (see :func:`dualsvm.data.rows.pair_dots`), zeros again
    on return."""
    ai, aj = alpha[i], alpha[j]
    ui, uj = upper[i], upper[j]
    if (ai <= 0.0 and aj <= 0.0) or (ai >= ui and aj >= uj):
        return
    gi, gj, qij = pair_dots(rows, i, j, w, mark)
    if not ((ai < ui and aj > 0.0 and -gj + 1e-12 < -gi)
            or (ai > 0.0 and aj < uj and -gi + 1e-12 < -gj)):
        row_unmark(rows, i, mark)
        return
    quad = q_diag[i] + q_diag[j] - 2.0 * qij
    if quad <= 0.0:
        quad = 1e-12
    delta = (gi - gj) / quad
    total = ai + aj
    low = total - uj if total > uj else 0.0
    high = ui if total > ui else total
    new_i = ai - delta
    if new_i <= low:  # a bound: put both exactly on theirs
        new_i = low
        new_j = uj if total > uj else total
    elif new_i >= high:
        new_i = high
        new_j = total - ui if total > ui else 0.0
    else:
        new_j = aj + delta
    alpha[i] = new_i
    alpha[j] = new_j
    step = new_i - ai
    if step != 0.0:
        row_axpy_unmark(rows, i, step, w, mark)
        row_axpy(rows, j, -step, w, 0.0)
    else:
        row_unmark(rows, i, mark)
