"""Compiled iterations of Tseng and Yun's coordinate gradient descent (see :mod:`.cgd`)."""

import numpy as np
from numba import njit

from ..constants import TAU
from ..kernels.qmatrix import EVALUATIONS, cached_slot, column_slot, column_store, q_entry
from ._knapsack_jit import conformal_pairs, solve_knapsack


@njit(cache=True, nogil=True, inline="always")
def _onto_bound(a, upper_bound):
    """a clipped to [0, U], and put exactly on a bound it is within rounding of.

    Left an ulp away (a rounded a + (U - a), or a tiny step of a second pair), a
    variable would look free to the KKT test and to the bias while its room, and so
    its pair's gain, is too small for the Gauss-Southwell-q rule ever to pick it again.
    """
    eps = 1e-12 * (upper_bound if 1.0 < upper_bound < np.inf else 1.0)
    if a <= eps:
        return 0.0
    if a >= upper_bound - eps:
        return upper_bound
    return a


@njit(cache=True, nogil=True, inline="always")
def _pair_step(slope, curvature, room):
    """The exact minimiser t in [0, room] of slope t + 1/2 curvature t^2 (slope < 0)."""
    if curvature > 0.0:
        return min(-slope / curvature, room)
    if room < np.inf:  # concave or linear along the pair: the far end is best
        return room
    return -slope / TAU  # unbounded and not convex: LIBSVM's safeguard


@njit(cache=True, nogil=True, error_model="numpy")
def cgd_iterations(data, cache, grad, alpha, y, q_diag, diag, upper_bound, movable, everyone,
                   max_pairs, tol, max_iterations, budget, multiplier):
    """Up to ``max_iterations`` CGD iterations (or ``budget`` kernel evaluations).

    ``multiplier`` = [lam, spread, q]: the knapsack multiplier of the last iteration
    and how far it moved (a guess for the next one), and -q_D(x; N) at the last
    point examined (written). Returns (iterations done, converged).
    """
    counters = cache.counters
    stop_at = counters[EVALUATIONS] + budget
    n = everyone.shape[0]
    m = movable.shape[0]
    c = np.empty(m)
    h = np.empty(m)
    lower = np.empty(m)
    upper = np.empty(m)
    z = np.empty(m)
    first = np.empty(m, dtype=np.int64)
    second = np.empty(m, dtype=np.int64)
    amount = np.empty(m)
    chosen = np.empty(max_pairs, dtype=np.int64)
    curvature = np.empty(m)
    gain = np.empty(m)
    done = 0
    while done < max_iterations and counters[EVALUATIONS] < stop_at:
        # The direction subproblem in z = y * d (so that y'd = 0 reads sum z = 0):
        #   min sum_k c_k z_k + 1/2 h_k z_k^2,  sum z = 0,  lower <= z <= upper.
        for k in range(m):
            i = movable[k]
            c[k] = y[i] * grad[i]
            h[k] = max(q_diag[i], TAU)
            if y[i] > 0:
                lower[k] = -alpha[i]
                upper[k] = upper_bound[i] - alpha[i]
            else:
                lower[k] = alpha[i] - upper_bound[i]
                upper[k] = alpha[i]
        lam = solve_knapsack(c, h, lower, upper, 0.0, z, multiplier[0], multiplier[1])
        multiplier[1] = max(2.0 * abs(lam - multiplier[0]), 1e-12 * (1.0 + abs(lam)))
        multiplier[0] = lam
        q = 0.0
        for k in range(m):
            q += c[k] * z[k] + 0.5 * h[k] * z[k] * z[k]
        multiplier[2] = -q
        if -q <= tol:
            return done, True
        # Elementary pieces +amount (e_first - e_second) in z; along piece k the true
        # objective changes by slope t + 1/2 curvature t^2 for a step t >= 0.
        count = conformal_pairs(z, first, second, amount)
        for k in range(count):
            a, b = first[k], second[k]
            i, j = movable[a], movable[b]
            curvature[k] = q_diag[i] + q_diag[j] - 2.0 * y[i] * y[j] * q_entry(data, cache, i, j)
            slope = c[a] - c[b]
            t = _pair_step(slope, curvature[k], min(upper[a], -lower[b]))
            gain[k] = -(slope * t + 0.5 * curvature[k] * t * t)
        # The best pair, then the best disjoint from those taken (max_pairs of them).
        n_chosen = 0
        for _ in range(max_pairs):
            best = -1
            for k in range(count):
                if best >= 0 and gain[k] <= gain[best]:
                    continue
                clash = False
                for p in range(n_chosen):
                    o = chosen[p]
                    if first[k] == first[o] or first[k] == second[o] or \
                            second[k] == first[o] or second[k] == second[o]:
                        clash = True
                if not clash and gain[k] > 0.0:
                    best = k
            if best < 0:
                break
            chosen[n_chosen] = best
            n_chosen += 1
        if n_chosen == 0:  # nothing decreases (rounding at the optimum)
            return done, True
        for p in range(n_chosen):
            k = chosen[p]
            a, b = first[k], second[k]
            i, j = movable[a], movable[b]
            # Exact line search with the gradient as the earlier pairs left it.
            slope = y[i] * grad[i] - y[j] * grad[j]
            if slope >= 0.0:
                continue
            t = _pair_step(slope, curvature[k], min(upper[a], -lower[b]))
            old_i, old_j = alpha[i], alpha[j]
            alpha[i] = _onto_bound(old_i + y[i] * t, upper_bound[i])
            alpha[j] = _onto_bound(old_j - y[j] * t, upper_bound[j])
            delta_i = alpha[i] - old_i
            delta_j = alpha[j] - old_j
            s_i = cached_slot(data, cache, i, n)  # columns by slot: kernels.qmatrix
            if s_i < 0:
                s_i = column_slot(data, cache, i, everyone, n)
            s_j = cached_slot(data, cache, j, n)
            if s_j < 0:
                s_j = column_slot(data, cache, j, everyone, n)
            store = column_store(data, cache)
            for r in range(n):
                grad[r] += delta_i * store[s_i, r] + delta_j * store[s_j, r]
            grad[i] += diag[i] * delta_i
            grad[j] += diag[j] * delta_j
        done += 1
    return done, False
