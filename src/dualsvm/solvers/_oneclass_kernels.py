"""Compiled passes of the linear one-class SVM's two-level coordinate descent
(LIBLINEAR ``-s 21``; Chou, Lin, Lin et al., SDM 2020, Algorithm 7 of the
supplement).

The dual (:class:`dualsvm.problem.LinearOneClassDual`)::

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
pairs by quickselect and a sort of (value, index) pairs; here a partition finds
the k-th value and a stable sort orders the k, with LIBLINEAR's order among equal
values, so both take the same steps.
"""

import numpy as np
from numba import njit

from .._rows import row_axpy, row_dot, row_row_dot


@njit(cache=True, nogil=True)
def _top_k(values, index, m, k, larger_index_first):
    """The entries of index[:m] of the k largest values[:m], largest first; among
    equal values the larger index first if ``larger_index_first``, else the smaller
    (LIBLINEAR's order: it sorts (value, index) pairs)."""
    threshold = np.partition(values[:m], m - k)[m - k]  # (np.partition copies)
    chosen = np.empty(k, dtype=np.int64)
    chosen_values = np.empty(k)
    c = 0
    n_tied = 0
    for s in range(m):  # everything above the k-th value
        v = values[s]
        if v > threshold:
            chosen[c] = index[s]
            chosen_values[c] = v
            c += 1
        elif v == threshold:
            n_tied += 1
    if c < k:  # then those equal to it, in LIBLINEAR's order, until k
        tied = np.empty(n_tied, dtype=np.int64)
        t = 0
        for s in range(m):
            if values[s] == threshold:
                tied[t] = index[s]
                t += 1
        if n_tied > k - c:
            tied.sort()
        for t in range(k - c):
            chosen[c + t] = tied[n_tied - 1 - t] if larger_index_first else tied[t]
            chosen_values[c + t] = threshold
    order = np.argsort(-chosen_values)
    out = chosen[order]
    ordered = chosen_values[order]
    start = 0
    for t in range(1, k + 1):  # runs of equal values: in index order
        if t == k or ordered[t] != ordered[start]:
            if t - start > 1:
                run = np.sort(out[start:t])
                for r in range(t - start):
                    out[start + r] = run[t - start - 1 - r] if larger_index_first else run[r]
            start = t
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def oneclass_passes(rows, alpha, w, q_diag, upper, index, active_size, n_movable, gradient,
                    tol, shrinking, budget, up_values, up_index, low_values, low_index):
    """Up to ``budget`` outer iterations over index[:active_size].

    Returns (active_size, iterations, converged, violation); ``gradient`` holds
    G_i = w'x_i of the variables of the last check.
    """
    iterations = 0
    violation = np.inf
    while iterations < budget:
        neg_max = -np.inf  # max -G_i over I_up = {a_i < U_i}
        neg_min = np.inf  # min -G_j over I_low = {a_j > 0}
        for s in range(active_size):
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
            index[:n_movable].sort()
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
            ups = _top_k(up_values, up_index, n_up, k, True)  # the largest -G_i
            lows = _top_k(low_values, low_index, n_low, k, False)  # the smallest -G_j
            for s in range(k):
                _pair_step(rows, alpha, w, q_diag, upper, ups[s], lows[s])
        iterations += 1
    return active_size, iterations, False, violation


@njit(cache=True, nogil=True, error_model="numpy")
def _pair_step(rows, alpha, w, q_diag, upper, i, j):
    """The exact minimisation along a_i -= d, a_j += d (LIBLINEAR's inner step)."""
    ai, aj = alpha[i], alpha[j]
    ui, uj = upper[i], upper[j]
    if (ai <= 0.0 and aj <= 0.0) or (ai >= ui and aj >= uj):
        return
    gi = row_dot(rows, i, w, 0.0)
    gj = row_dot(rows, j, w, 0.0)
    if not ((ai < ui and aj > 0.0 and -gj + 1e-12 < -gi)
            or (ai > 0.0 and aj < uj and -gi + 1e-12 < -gj)):
        return
    quad = q_diag[i] + q_diag[j] - 2.0 * row_row_dot(rows, i, j, 0.0)
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
        row_axpy(rows, i, step, w, 0.0)
        row_axpy(rows, j, -step, w, 0.0)
