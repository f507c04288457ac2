"""Compiled epochs of dual coordinate descent for linear SVMs (Hsieh et al., 2008).

One loop serves both losses through ``diag`` (D_ii) and ``upper_bound`` (U_i), as
in LIBLINEAR's ``solve_l2r_l1l2_svc``. With G_i = y_i w'x_i - 1 + D_ii a_i, the
projected gradient is

    PG_i = min(G_i, 0) if a_i = 0,   max(G_i, 0) if a_i = U_i,   G_i otherwise,

and the one-variable minimiser is a_i <- clip(a_i - G_i / (Q_ii + D_ii), 0, U_i);
w follows incrementally, w += (a_i - a_i_old) y_i x_i.

Shrinking (LIBLINEAR's rule): a variable at a bound whose gradient points out of
the box by more than the previous epoch's extreme projected gradient is moved out
of the active prefix ``index[:active_size]``.

Floating point is IEEE, as in LIBLINEAR (``error_model="numpy"``): an all-zero
row without bias has Q_ii + D_ii = 0 under the hinge loss, G_i / 0 = -inf, and
a_i goes to U_i.

Speed: visiting rows in random order makes an epoch wait on memory, not on
arithmetic, so ``dcd_epoch`` announces (prefetches) the row it will visit
``AHEAD`` steps later, and where that row starts and its per-sample entries
``2 * AHEAD`` steps later (see :mod:`dualsvm.data.rows` for the other choices).
"""

import numpy as np
from numba import njit

from ..data.rows import (AHEAD, prefetch, prefetch_row, prefetch_row_start, row_axpy, row_dot,
                         row_row_dot)
from .rng import shuffle_prefix


@njit(cache=True, nogil=True, error_model="numpy")
def dcd_epoch(rows, y, alpha, w, q_diag, diag, upper_bound, bias,
              index, active_size, pg_max_old, pg_min_old, state, shuffle, step_scale=1.0):
    """One pass over index[:active_size]; returns (active_size, pg_max, pg_min).

    ``step_scale`` s moves w by s (a_i - a_i_old) y_i x_i: CoCoA+'s local
    sub-problem (``dualsvm.dask``) has w + s A_k da for its w and s ||x_i||^2 + D_ii
    in ``q_diag``; 1 is plain DCD.
    """
    if shuffle:
        shuffle_prefix(index, active_size, state)
    pg_max = -np.inf
    pg_min = np.inf
    s = 0
    while s < active_size:
        # _rows.prefetch_ahead written out: passed as a tuple, these five arrays made
        # the epoch much slower, where the primal epochs lose nothing (measurements:
        # benchmarks/results/design_measurements.md, section solvers/_dcd_jit.py).
        if s + 2 * AHEAD < active_size:
            j = np.uint64(index[s + 2 * AHEAD])
            prefetch_row_start(rows, j)
            prefetch(y, j)
            prefetch(alpha, j)
            prefetch(q_diag, j)
            prefetch(diag, j)
            prefetch(upper_bound, j)
        if s + AHEAD < active_size:
            prefetch_row(rows, np.uint64(index[s + AHEAD]))
        i = np.uint64(index[s])
        a = alpha[i]
        g = y[i] * row_dot(rows, i, w, bias) - 1.0 + diag[i] * a
        u = upper_bound[i]
        # Which bound a variable sits on is unpredictable, so the tests are
        # expressions the compiler may turn into selects; a = 0 is tested first.
        at_lower = a == 0.0
        at_upper = a == u
        if (g > pg_max_old) if at_lower else ((g < pg_min_old) if at_upper else False):
            active_size -= 1
            index[s], index[active_size] = index[active_size], index[s]
            continue
        pg = (g if g < 0.0 else 0.0) if at_lower else ((g if g > 0.0 else 0.0) if at_upper else g)
        pg_max = max(pg_max, pg)
        pg_min = min(pg_min, pg)
        if abs(pg) > 1e-12:
            alpha[i] = min(max(a - g / q_diag[i], 0.0), u)
            row_axpy(rows, i, step_scale * (alpha[i] - a) * y[i], w, bias)
        s += 1
    return active_size, pg_max, pg_min


@njit(cache=True, nogil=True)
def projected_gradient_rule(pg_max, pg_min, tol):
    """LIBLINEAR's stopping rule on a pass's extreme projected gradients.

    Returns (violation, met, thresholds): max PG - min PG, whether the rule holds
    (on the variables the pass visited), and the shrinking thresholds of the next pass.
    """
    if pg_max < pg_min:  # every active variable was shrunk: nothing violates
        pg_max = pg_min = 0.0
    met = pg_max - pg_min <= tol and abs(pg_max) <= tol and abs(pg_min) <= tol
    return pg_max - pg_min, met, (pg_max if pg_max > 0 else np.inf,
                                  pg_min if pg_min < 0 else -np.inf)


@njit(cache=True, nogil=True, error_model="numpy")
def dcd_passes(rows, y, alpha, w, q_diag, diag, upper_bound, bias, index, active_size,
               n_movable, pg_max_old, pg_min_old, tol, shrinking, max_passes, work_limit,
               state, shuffle):
    """Passes of :func:`dcd_epoch` with LIBLINEAR's stopping rule between them, until
    it holds on the full problem, ``max_passes`` passes, or ``work_limit`` variables
    visited (the sum over the passes of the active size each leaves for the next); a Python
    round trip per pass costs more than a pass over a small problem.

    Converged on the shrunk problem, the next pass visits every variable with no
    thresholds (LIBLINEAR's re-check). Returns (active_size, pg_max_old, pg_min_old,
    passes, converged, violation, work).
    """
    passes = 0
    work = 0
    converged = False
    violation = np.inf
    while passes < max_passes:
        active_size, pg_max, pg_min = dcd_epoch(rows, y, alpha, w, q_diag, diag, upper_bound,
                                                bias, index, active_size, pg_max_old,
                                                pg_min_old, state, shuffle)
        passes += 1
        violation, met, thresholds = projected_gradient_rule(pg_max, pg_min, tol)
        if met:
            if active_size == n_movable:
                work += active_size
                converged = True
                break
            active_size = n_movable  # converged on the shrunk problem: check them all
            pg_max_old, pg_min_old = np.inf, -np.inf
        elif shrinking:
            pg_max_old, pg_min_old = thresholds
        work += active_size
        if work >= work_limit:
            break
    return active_size, pg_max_old, pg_min_old, passes, converged, violation, work


@njit(cache=True, nogil=True, error_model="numpy")
def pair_epoch(rows, y, alpha, w, q_diag, diag, upper_bound, score, up_order, low_order):
    """Two-variable steps for the exact bias (equality constraint y'a = 0).

    ``score`` is -y_i G_i at the start of the epoch; ``up_order`` lists I_up by
    decreasing score and ``low_order`` lists I_low by increasing score, so their
    k-th entries form the k-th most violating pair. Each step recomputes both
    gradients exactly and minimises f along y_i e_i - y_j e_j, which keeps y'a = 0:
    a_i += y_i t, a_j -= y_j t, w += t (x_i - x_j). Returns the number of steps.
    """
    steps = 0
    for k in range(min(up_order.shape[0], low_order.shape[0])):
        i = up_order[k]
        j = low_order[k]
        if score[i] <= score[j]:
            break
        if i == j:
            continue
        gi = y[i] * row_dot(rows, i, w, 0.0) - 1.0 + diag[i] * alpha[i]
        gj = y[j] * row_dot(rows, j, w, 0.0) - 1.0 + diag[j] * alpha[j]
        violation = -y[i] * gi + y[j] * gj
        if violation <= 0.0:
            continue
        curvature = q_diag[i] + q_diag[j] - 2.0 * row_row_dot(rows, i, j, 0.0)
        if curvature <= 0.0:
            curvature = 1e-12
        t = violation / curvature
        t = min(t, upper_bound[i] - alpha[i] if y[i] > 0 else alpha[i])
        t = min(t, alpha[j] if y[j] > 0 else upper_bound[j] - alpha[j])
        if t <= 0.0:
            continue
        alpha[i] = min(max(alpha[i] + y[i] * t, 0.0), upper_bound[i])
        alpha[j] = min(max(alpha[j] - y[j] * t, 0.0), upper_bound[j])
        row_axpy(rows, i, t, w, 0.0)
        row_axpy(rows, j, -t, w, 0.0)
        steps += 1
    return steps


@njit(cache=True, nogil=True, error_model="numpy")
def svr_epoch(rows, target, beta, w, q_diag, diag, upper_bound, bias, epsilon,
              index, active_size, gmax_old, state, shuffle):
    """One pass of dual CD for linear SVR (Ho and Lin, 2012, Algorithm 4) over
    index[:active_size]; returns (active_size, gmax, gnorm1).

    Both losses through ``diag`` (lambda_i = D_ii) and ``upper_bound`` (U_i), as
    LIBLINEAR's ``solve_l2r_l1l2_svr``. With G = w'x_i - y_i + D_ii b_i, the
    one-sided derivatives of f along b_i are Gp = G + eps and Gn = G - eps; the
    violation (the distance of 0 from the subdifferential, projected on the box) is

        b_i = 0:    -Gp if Gp < 0,  Gn if Gn > 0,  else 0
        b_i = U_i:  max(Gp, 0)      b_i = -U_i:  max(-Gn, 0)
        else:       |Gp| if b_i > 0, |Gn| if b_i < 0,

    and the minimiser of the one-variable problem (a piecewise quadratic with
    curvature H = Q_ii + D_ii) is b_i + d with d = -Gp/H if Gp < H b_i, -Gn/H
    if Gn > H b_i, else -b_i, clipped to [-U_i, U_i]. Shrinking (LIBLINEAR's rule):
    a variable at 0 with Gp > gmax_old and Gn < -gmax_old (deep in the flat part of
    |b_i|), or at a bound with its derivative pointing out by more than gmax_old,
    leaves the active prefix.
    ``gmax`` is the largest violation of the pass, ``gnorm1`` their sum.
    """
    if shuffle:
        shuffle_prefix(index, active_size, state)
    gmax = 0.0
    gnorm1 = 0.0
    s = 0
    while s < active_size:
        if s + 2 * AHEAD < active_size:
            j = np.uint64(index[s + 2 * AHEAD])
            prefetch_row_start(rows, j)
            prefetch(target, j)
            prefetch(beta, j)
            prefetch(q_diag, j)
            prefetch(diag, j)
            prefetch(upper_bound, j)
        if s + AHEAD < active_size:
            prefetch_row(rows, np.uint64(index[s + AHEAD]))
        i = np.uint64(index[s])
        b = beta[i]
        u = upper_bound[i]
        g = row_dot(rows, i, w, bias) - target[i] + diag[i] * b
        h = q_diag[i]
        gp = g + epsilon
        gn = g - epsilon
        violation = 0.0
        shrink = False
        if b == 0.0:
            if gp < 0.0:
                violation = -gp
            elif gn > 0.0:
                violation = gn
            elif gp > gmax_old and gn < -gmax_old:
                shrink = True
        elif b >= u:
            if gp > 0.0:
                violation = gp
            elif gp < -gmax_old:
                shrink = True
        elif b <= -u:
            if gn < 0.0:
                violation = -gn
            elif gn > gmax_old:
                shrink = True
        elif b > 0.0:
            violation = abs(gp)
        else:
            violation = abs(gn)
        if shrink:
            active_size -= 1
            index[s], index[active_size] = index[active_size], index[s]
            continue
        gmax = max(gmax, violation)
        gnorm1 += violation
        if gp < h * b:
            d = -gp / h
        elif gn > h * b:
            d = -gn / h
        else:
            d = -b
        s += 1
        if abs(d) < 1e-12:
            continue
        beta[i] = min(max(b + d, -u), u)
        d = beta[i] - b
        if d != 0.0:
            row_axpy(rows, i, d, w, bias)
    return active_size, gmax, gnorm1


@njit(cache=True, nogil=True, error_model="numpy")
def svr_passes(rows, target, beta, w, q_diag, diag, upper_bound, bias, epsilon, index,
               active_size, n_movable, gmax_old, gnorm1_init, tol, shrinking, max_passes,
               state, shuffle):
    """Up to ``max_passes`` calls of :func:`svr_epoch` with LIBLINEAR's stopping rule
    between them (sum of violations <= tol * that of the first pass, re-checked on the
    full problem); one call per Python epoch costs more than a pass over a small
    problem. ``gnorm1_init`` < 0: not known yet (this is the first pass).

    Returns (active_size, gmax_old, gnorm1_init, passes, converged, ratio), ratio
    being the last pass's sum of violations over the first's.
    """
    passes = 0
    converged = False
    ratio = np.inf
    while passes < max_passes:
        active_size, gmax, gnorm1 = svr_epoch(rows, target, beta, w, q_diag, diag, upper_bound,
                                              bias, epsilon, index, active_size, gmax_old,
                                              state, shuffle)
        passes += 1
        if gnorm1_init < 0.0:
            gnorm1_init = gnorm1
        ratio = gnorm1 / gnorm1_init if gnorm1_init > 0.0 else 0.0
        if gnorm1 <= tol * gnorm1_init:
            if active_size == n_movable:
                converged = True
                break
            active_size = n_movable  # converged on the shrunk problem: check them all
            gmax_old = np.inf
            continue
        if shrinking:
            gmax_old = gmax
    return active_size, gmax_old, gnorm1_init, passes, converged, ratio
