"""Compiled parts of the large-working-set SMO (:mod:`dualsvm.solvers.ws_smo`).

* :func:`select_working_set`: the q most violating active variables, LIBSVM's order;
* :func:`gather_block`: Q[ws, ws] from the working set's complete cached columns
  (:meth:`QMatrix.complete_slots <dualsvm.kernels.QMatrix.complete_slots>`);
* :func:`place_rows`: new variables' rows and columns written into a fused working
  set's block in place;
* :func:`local_smo`: SMO steps (WSS3, LIBSVM's clipping) on the q-variable
  sub-problem, all of it in a q x q block;
* :func:`update_gradient`: G[rows] += Q[rows, ws] delta, in parallel over the rows
  (more than one chunk of them).

Notation as in :mod:`dualsvm.solvers.smo`: G = (Q + D)a - e, the score -y_i G_i,
I_up = {y = +1, a < U} u {y = -1, a > 0}, I_low = {y = +1, a > 0} u {y = -1, a < U}.
"""

import numpy as np
from numba import njit, prange

from ..constants import TAU
from ._smo_jit import step_pair

#: Rows per parallel chunk of the gradient update: fewer rows are updated in the
#: calling thread (waking the thread pool for one chunk costs more than it saves).
_CHUNK = 4096
#: Rows of a block written at a time by place_rows (one cache line each, kept).
_TILE = 64


@njit(cache=True, nogil=True)
def select_working_set(y, alpha, G, U, keep, size, out, active):
    """Fill ``out`` with the kept variables ``keep`` and then, alternately, the
    variables of largest score in I_up and of smallest score in I_low (none twice),
    among the ``active`` ones (sorted), until ``size`` are chosen or no candidate is
    left; return how many.

    Also return LIBSVM's maximal violation max_{I_up} score - min_{I_low} score
    over the active variables (0 when a set is empty).
    """
    n = len(y)
    score = np.empty(n)
    up = np.zeros(n, dtype=np.bool_)
    low = np.zeros(n, dtype=np.bool_)
    best_up, best_low = -np.inf, np.inf
    for t in active:
        score[t] = -y[t] * G[t]
        if y[t] > 0:
            up[t] = alpha[t] < U[t]
            low[t] = alpha[t] > 0
        else:
            up[t] = alpha[t] > 0
            low[t] = alpha[t] < U[t]
        if up[t] and score[t] > best_up:
            best_up = score[t]
        if low[t] and score[t] < best_low:
            best_low = score[t]
    violation = best_up - best_low if best_up > -np.inf and best_low < np.inf else 0.0
    chosen = np.zeros(n, dtype=np.bool_)
    count = 0
    for t in keep:
        if count < size and not chosen[t]:
            chosen[t] = True
            out[count] = t
            count += 1
    need = size - count
    if need <= 0:
        return count, violation
    # the need best of each side, sorted, alternately
    tops = _best(score, up, chosen, need, -1.0, active)
    bottoms = _best(score, low, chosen, need, 1.0, active)
    a = b = 0
    while count < size and (a < len(tops) or b < len(bottoms)):
        while a < len(tops) and chosen[tops[a]]:
            a += 1
        if a < len(tops):
            chosen[tops[a]] = True
            out[count] = tops[a]
            count += 1
        if count >= size:
            break
        while b < len(bottoms) and chosen[bottoms[b]]:
            b += 1
        if b < len(bottoms):
            chosen[bottoms[b]] = True
            out[count] = bottoms[b]
            count += 1
    return count, violation


@njit(cache=True, nogil=True)
def shrinkable(y, alpha, G, U, active, margin):
    """For each active variable, whether LIBSVM's ``be_shrunk`` would shrink it, with
    a margin: at a bound, in I_up only with a score below min over I_low - margin,
    or in I_low only with a score above max over I_up + margin (its gradient pushes
    it into its bound beyond the maximal violation; LIBSVM's rule at margin 0)."""
    m = len(active)
    best_up, best_low = -np.inf, np.inf
    for k in range(m):
        t = active[k]
        score = -y[t] * G[t]
        up, low = _sides(y[t], alpha[t], U[t])
        if up and score > best_up:
            best_up = score
        if low and score < best_low:
            best_low = score
    out = np.zeros(m, dtype=np.bool_)
    for k in range(m):
        t = active[k]
        score = -y[t] * G[t]
        up, low = _sides(y[t], alpha[t], U[t])
        out[k] = (up and not low and score < best_low - margin) or \
            (low and not up and score > best_up + margin)
    return out


@njit(cache=True, nogil=True, inline="always")
def _sides(y_t, a_t, U_t):
    """(in I_up, in I_low) of one variable."""
    if y_t > 0:
        return a_t < U_t, a_t > 0
    return a_t > 0, a_t < U_t


@njit(cache=True, nogil=True)
def _best(score, member, chosen, k, sign, active):
    """Indices of the k smallest sign * score among the active members not chosen,
    sorted, ties in index order (sign = -1: the largest scores first).

    A max-heap of the k best so far by (key, rank in ``active``), then heap-sorted:
    O(n log k), and much less to compile than np.partition and np.argsort."""
    keys = np.empty(k)
    ranks = np.empty(k, dtype=np.int64)
    size = 0
    for r in range(len(active)):
        t = active[r]
        if not member[t] or chosen[t]:
            continue
        key = sign * score[t]
        if size < k:
            c = size
            size += 1
            while c > 0 and _before(keys[(c - 1) // 2], ranks[(c - 1) // 2], key, r):
                keys[c], ranks[c] = keys[(c - 1) // 2], ranks[(c - 1) // 2]
                c = (c - 1) // 2
            keys[c], ranks[c] = key, r
        elif _before(key, r, keys[0], ranks[0]):
            _sift_down(keys, ranks, size, key, r)
    for end in range(size - 1, 0, -1):  # the largest left goes to the end
        key, r = keys[end], ranks[end]
        keys[end], ranks[end] = keys[0], ranks[0]
        _sift_down(keys, ranks, end, key, r)
    out = np.empty(size, dtype=np.int64)
    for c in range(size):
        out[c] = active[ranks[c]]
    return out


@njit(cache=True, nogil=True, inline="always")
def _before(key_a, rank_a, key_b, rank_b):
    """Whether (key_a, rank_a) comes first in _best's order."""
    return key_a < key_b or (key_a == key_b and rank_a < rank_b)


@njit(cache=True, nogil=True, inline="always")
def _sift_down(keys, ranks, size, key, r):
    """Put (key, r) at the root of the max-heap keys[:size], ranks[:size] and sift it
    down to its place."""
    c = 0
    while 2 * c + 1 < size:
        child = 2 * c + 1
        if child + 1 < size and _before(keys[child], ranks[child], keys[child + 1],
                                        ranks[child + 1]):
            child += 1
        if not _before(key, r, keys[child], ranks[child]):
            break
        keys[c], ranks[c] = keys[child], ranks[child]
        c = child
    keys[c], ranks[c] = key, r


@njit(cache=True, nogil=True)
def gather_block(slots, ws_slots, ws, out):
    """out[a, b] = Q[ws[a], ws[b]] from the complete columns in ``slots``."""
    q = len(ws)
    for a in range(q):  # row a from column a: Q is symmetric, and rows are contiguous
        column = slots[ws_slots[a]]
        for b in range(q):
            out[a, b] = column[ws[b]]


@njit(cache=True, nogil=True)
def place_rows(block, positions, rows):
    """block[p_r, :] = block[:, p_r] = rows[r] for p_r = positions[r] (Q is symmetric: a
    new variable's row of the block is also its column), in place."""
    q = block.shape[0]
    for start in range(0, q, _TILE):  # the columns by tiles of rows, each row's lines reused
        stop = min(start + _TILE, q)
        for r in range(len(positions)):
            p = positions[r]
            for t in range(start, stop):
                block[t, p] = rows[r, t]
    for r in range(len(positions)):  # loops, not slices: much less to compile
        p = positions[r]
        for t in range(q):
            block[p, t] = rows[r, t]


@njit(cache=True, nogil=True)
def local_smo(Qs, y, alpha, G, U, QD, D, eps, max_steps):
    """SMO on the working set's sub-problem (alpha, G: the set's entries, updated
    in place; Qs its q x q block of Q; QD = Q_ii + D_ii). Stops when the set's
    maximal violation is below ``eps`` or after ``max_steps`` steps; returns
    (steps, the set's violation at the start, change of f)."""
    q = len(y)
    steps = 0
    first = -1.0
    change = 0.0
    while steps < max_steps:
        # i: maximal violation in I_up; j: WSS3's second-order choice in I_low
        g_max = -np.inf
        i = -1
        for t in range(q):
            if y[t] > 0:
                if alpha[t] < U[t] and -G[t] >= g_max:
                    g_max = -G[t]
                    i = t
            elif alpha[t] > 0 and G[t] >= g_max:
                g_max = G[t]
                i = t
        if i < 0:
            break
        g_max2 = -np.inf
        j = -1
        best = np.inf
        for t in range(q):
            if y[t] > 0:
                if alpha[t] > 0:
                    if G[t] >= g_max2:
                        g_max2 = G[t]
                    grad_diff = g_max + G[t]
                    if grad_diff > 0:
                        quad = QD[i] + QD[t] - 2.0 * y[i] * Qs[i, t]
                        gain = -grad_diff * grad_diff / (quad if quad > 0 else TAU)
                        if gain <= best:
                            best = gain
                            j = t
            elif alpha[t] < U[t]:
                if -G[t] >= g_max2:
                    g_max2 = -G[t]
                grad_diff = g_max - G[t]
                if grad_diff > 0:
                    quad = QD[i] + QD[t] + 2.0 * y[i] * Qs[i, t]
                    gain = -grad_diff * grad_diff / (quad if quad > 0 else TAU)
                    if gain <= best:
                        best = gain
                        j = t
        if first < 0:
            first = g_max + g_max2
        if j < 0 or g_max + g_max2 < eps:
            break
        change += _pair_step(Qs, y, alpha, G, U, QD, D, i, j)
        steps += 1
    return steps, max(first, 0.0), change


@njit(cache=True, nogil=True)
def _pair_step(Qs, y, alpha, G, U, QD, D, i, j):
    """LIBSVM's two-variable update within the block; returns the change of f."""
    d_i, d_j, change = step_pair(alpha, G, U, QD, i, j, Qs[i, j], y[i] != y[j])
    for t in range(len(y)):
        G[t] += Qs[i, t] * d_i + Qs[j, t] * d_j
    G[i] += D[i] * d_i
    G[j] += D[j] * d_j
    return change


def update_gradient(slots, ws_slots, delta, G, rows):
    """G[rows] += sum_t delta[t] Q[rows, ws[t]] over the t with delta[t] != 0 (columns
    in ``slots[ws_slots[t]]``; ``rows`` sorted, all of them: a contiguous pass); the
    D_ii a_i part is the caller's."""
    update = _update_gradient if len(rows) > _CHUNK else _update_gradient_serial
    update(slots, ws_slots, delta, G, rows)


@njit(cache=True, nogil=True, inline="always")
def _update_rows(slots, ws_slots, delta, moved, G, rows, start, stop, every):
    """G[rows[start:stop]] += the moved columns times their delta."""
    for t in moved:
        column = slots[ws_slots[t]]
        d = delta[t]
        if every:
            for i in range(start, stop):
                G[i] += d * column[i]
        else:
            for k in range(start, stop):
                i = rows[k]
                G[i] += d * column[i]


# Two functions, not one compiled twice from the same source: Numba's cache keys an
# entry by code and signature, not by the parallel option, so the twins would share it.
@njit(cache=True, nogil=True, parallel=True)
def _update_gradient(slots, ws_slots, delta, G, rows):
    moved = np.flatnonzero(delta != 0.0)
    m = len(rows)
    every = m == len(G)
    for c in prange((m + _CHUNK - 1) // _CHUNK):
        _update_rows(slots, ws_slots, delta, moved, G, rows, c * _CHUNK,
                     min((c + 1) * _CHUNK, m), every)


@njit(cache=True, nogil=True)
def _update_gradient_serial(slots, ws_slots, delta, G, rows):
    _update_rows(slots, ws_slots, delta, np.flatnonzero(delta != 0.0), G, rows, 0, len(rows),
                 len(rows) == len(G))
