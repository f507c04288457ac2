"""Compiled SMO steps (LIBSVM's ``Solver::Solve``) over plain arrays.

The state lives in arrays owned by :class:`dualsvm.solvers.smo.SMO`, in the
training-row order (no permutation of the data): ``alpha``, the gradient
``G = (Q + D)a - e``, ``G_bar = sum over a_j = U_j of U_j Q_j`` (what the
variables at their upper bound add to G, kept to rebuild the gradient of shrunk
variables), and ``active``, a permutation of the rows whose first
``state[ACTIVE_SIZE]`` entries are the variables not shrunk.

A variable can grow when a_i < U_i and shrink when a_i > 0, tested directly
(so U_i = 0 is a variable that never moves), with I_up / I_low as in LIBSVM:
I_up = {y = +1, a < U} u {y = -1, a > 0}, I_low = {y = +1, a > 0} u {y = -1, a < U}.
The working-set passes read them from ``status`` (one byte a variable: ``IN_UP``,
``IN_LOW``, ``POSITIVE``, as LIBSVM's alpha_status, and ``ACTIVE``: not shrunk),
kept by every step for its two variables, instead of y, alpha and U (24 bytes): the
data a pass reads then stays within the core's L2 cache (measurements:
benchmarks/results/design_measurements.md, section solvers/_smo_jit.py).

``active[:m]`` is kept sorted (shrinking keeps the order, un-shrinking restores 0..n-1), so
a pass may walk the active variables by index or walk all variables in order and
skip those not ``ACTIVE`` (:func:`_in_order`): the same variables in the same order,
without the gather through ``active``. The gradient update, a loop the compiler
vectorises in order, walks in order from a quarter active; the selection passes, i
and j, from three quarters, as below that skipping the inactive ones mispredicts
(measurements: benchmarks/results/design_measurements.md, section solvers/_smo_jit.py).
"""

import numpy as np
from numba import njit

from ..constants import TAU
from ..kernels.qmatrix import cached_slot, column_slot, column_store, q_column

#: state[...]: active size, SMO steps so far, steps to the next shrinking,
#: whether the one-time un-shrinking happened, and a shrinking that waits for
#: the gradient reconstruction.
ACTIVE_SIZE, ITERATIONS, SHRINK_COUNTER, UNSHRUNK, SHRINK_PENDING = 0, 1, 2, 3, 4
_STATE_SIZE = 5
#: What smo_steps returns.
BUDGET_SPENT, CONVERGED, RECONSTRUCT = 0, 1, 2


IN_UP, IN_LOW, POSITIVE, ACTIVE = 1, 2, 4, 8
#: ``two_constraints`` of a problem with the one constraint y'a = const: typed none,
#: so that smo_steps compiles without Solver_NU's selection (a C-SVC's first fit
#: compiles less).
ONE_CONSTRAINT = None


@njit(cache=True, nogil=True, inline="always")
def _status(y_t, a_t, U_t):
    """The status bits of one variable (module docstring)."""
    grow = IN_UP if y_t > 0 else IN_LOW  # y_t a_t grows with a_t when y_t > 0
    shrink = IN_LOW if y_t > 0 else IN_UP
    return ((POSITIVE if y_t > 0 else 0) | (grow if a_t < U_t else 0)
            | (shrink if a_t > 0 else 0))


@njit(cache=True, nogil=True)
def new_status(y, alpha, U):
    """The status of every variable (int8, all active), for :func:`smo_steps`."""
    out = np.empty(len(y), dtype=np.int8)
    for t in range(len(y)):
        out[t] = _status(y[t], alpha[t], U[t]) | ACTIVE
    return out


@njit(cache=True, nogil=True, inline="always")
def _in_order(m, n, quarters):
    """Whether a pass over the m active variables walks all n in order: from
    ``quarters`` quarters of them active (module docstring)."""
    return 4 * m >= quarters * n


def new_smo_state(n):
    """The state of a fresh SMO run on n variables: all active, no steps yet, the first
    shrinking after min(n, 1000) steps (LIBSVM's counter), no un-shrinking done or pending."""
    state = np.zeros(_STATE_SIZE, dtype=np.int64)
    state[ACTIVE_SIZE] = n
    state[SHRINK_COUNTER] = min(n, 1000) + 1
    return state


@njit(cache=True, nogil=True)
def smo_steps(data, cache, y, alpha, status, G, G_bar, U, QD, D, active, state, eps,
              shrinking, max_steps, measures, two_constraints):
    """At most max_steps SMO steps; BUDGET_SPENT, CONVERGED or RECONSTRUCT.

    RECONSTRUCT: the caller must rebuild G outside the active set, set
    state[ACTIVE_SIZE] = n, sort ``active``, mark every variable ``ACTIVE`` and start
    a new cache generation, then call again.
    ``measures[0]`` receives LIBSVM's violation max_{I_up} -y G - min_{I_low} -y G
    of the last selection; ``measures[1]``, the objective f(a), is kept up to date
    (each step adds its exact change), so the dual is known even while shrunk
    variables have stale gradients. ``status``: :func:`new_status` of y, alpha and U,
    kept up to date. ``two_constraints``: True for LIBSVM's ``Solver_NU`` working sets
    and shrinking (e'a is kept too), else :data:`ONE_CONSTRAINT`.
    """
    n = len(y)
    store = column_store(data, cache)
    steps = 0
    # the next step's i, found by the last step's gradient update (one pass fewer a
    # step: _select_i's pass over the same variables in the same order, so the same
    # i); -1: select it by its own pass (the first step, after shrinking, after a
    # step with a diagonal D, added to G after the pass)
    next_i, next_g_max = -1, -np.inf
    while steps < max_steps:
        if shrinking:
            state[SHRINK_COUNTER] -= 1
            if state[SHRINK_COUNTER] <= 0 or state[SHRINK_PENDING]:
                state[SHRINK_COUNTER] = min(n, 1000)
                next_i = -1
                if _shrink(y, alpha, status, G, U, active, state, eps, two_constraints):
                    state[SHRINK_PENDING] = 1
                    return RECONSTRUCT
                state[SHRINK_PENDING] = 0
        m = state[ACTIVE_SIZE]
        # Columns by slot, the hit test apart (kernels.qmatrix: a hit then costs a
        # few loads). Compiled code counts references to the arrays it passes to a
        # function, inlined or not, unless that function calls nothing and has no
        # branch: the step's update is written out here, and the selections, which
        # take few arrays, are inlined (on small problems the counting dominated a step).
        if two_constraints is None:  # pruned where smo_steps compiles (ONE_CONSTRAINT)
            if next_i >= 0:
                i, g_max = next_i, next_g_max
            else:
                i, g_max = _select_i(status, G, active, m)
            j, gap = -1, 0.0
            if i >= 0:
                s_i = cached_slot(data, cache, i, m)
                if s_i < 0:
                    s_i = column_slot(data, cache, i, active, m)
                j, gap = _select_j(status, G, QD, active, m, i, g_max, store, s_i)
        else:
            ip, i_n, g_maxp, g_maxn = _select_i_nu(status, G, active, m)
            # a column is only read for a sign with a maximal violator (else its
            # g_max is -inf, and no j of that sign has a positive grad_diff)
            s_ip = cached_slot(data, cache, ip, m) if ip >= 0 else 0
            if s_ip < 0:
                s_ip = column_slot(data, cache, ip, active, m)
            s_in = cached_slot(data, cache, i_n, m) if i_n >= 0 else 0
            if s_in < 0:
                s_in = column_slot(data, cache, i_n, active, m)
            i, j, gap = _select_j_nu(status, G, QD, active, m, ip, i_n, g_maxp, g_maxn,
                                     store, s_ip, s_in)
        measures[0] = gap
        if j < 0 or gap < eps:
            if m < n:  # converged on the shrunk problem: check the whole one
                state[SHRINK_COUNTER] = 2  # and shrink again right after one step
                return RECONSTRUCT
            return CONVERGED
        s_i = cached_slot(data, cache, i, m)
        if s_i < 0:
            s_i = column_slot(data, cache, i, active, m)
        s_j = cached_slot(data, cache, j, m)
        if s_j < 0:
            s_j = column_slot(data, cache, j, active, m)
        was_upper_i, was_upper_j = alpha[i] >= U[i], alpha[j] >= U[j]
        # the pair's step, then G += Q_i d_i + Q_j d_j over the active variables
        # (the diagonal D of the squared hinge is not in the columns of Q)
        d_i, d_j, change = step_pair(alpha, G, U, QD, i, j, store[s_i, j], y[i] != y[j])
        status[i] = _status(y[i], alpha[i], U[i]) | ACTIVE
        status[j] = _status(y[j], alpha[j], U[j]) | ACTIVE
        in_order1 = _in_order(m, n, 1)
        if two_constraints is None:
            next_i, next_g_max = _update_select_i(status, G, active, m, in_order1, store,
                                                  s_i, s_j, d_i, d_j)
            if D[i] != 0.0 or D[j] != 0.0:
                next_i = -1
        else:
            for k in range(n if in_order1 else m):
                t = k if in_order1 else active[k]
                if status[t] & ACTIVE:
                    G[t] += store[s_i, t] * d_i + store[s_j, t] * d_j
        G[i] += D[i] * d_i
        G[j] += D[j] * d_j
        measures[1] += change
        # G_bar follows the variables entering or leaving their upper bound. The
        # columns are fetched here, not in the helpers: every compiled caller of
        # the column code compiles all of it again.
        if was_upper_i != (alpha[i] >= U[i]):
            _add_scaled(G_bar, U[i] if alpha[i] >= U[i] else -U[i],
                        q_column(data, cache, i, active, n))
        if was_upper_j != (alpha[j] >= U[j]):
            _add_scaled(G_bar, U[j] if alpha[j] >= U[j] else -U[j],
                        q_column(data, cache, j, active, n))
        state[ITERATIONS] += 1
        steps += 1
    return BUDGET_SPENT


@njit(cache=True, nogil=True, inline="always")
def _update_select_i(status, G, active, m, in_order, store, s_i, s_j, d_i, d_j):
    """G += Q_i d_i + Q_j d_j over the active variables, and :func:`_select_i` of the
    new G in the same pass: (i, its -y_i G_i), i = -1 when I_up is empty."""
    n = len(status)
    g_max = -np.inf
    i = -1
    for k in range(n if in_order else m):
        t = k if in_order else active[k]
        s = status[t]
        if s & ACTIVE:
            g = G[t] + (store[s_i, t] * d_i + store[s_j, t] * d_j)
            G[t] = g
            if s & IN_UP:
                v = -g if s & POSITIVE else g  # -y_t G_t
                if v >= g_max:
                    g_max = v
                    i = t
    return i, g_max


@njit(cache=True, nogil=True, inline="always")
def _select_i(status, G, active, m):
    """The i of WSS3 (Fan, Chen and Lin 2005, LIBSVM's ``select_working_set``): the
    maximal violator, argmax over I_up of -y_i G_i; (i, that maximum), i = -1 when
    I_up is empty."""
    n = len(status)
    in_order = _in_order(m, n, 3)
    g_max = -np.inf
    i = -1
    for k in range(n if in_order else m):
        t = k if in_order else active[k]
        s = status[t]
        if (s & (IN_UP | ACTIVE)) == IN_UP | ACTIVE:
            v = -G[t] if s & POSITIVE else G[t]  # -y_t G_t
            if v >= g_max:
                g_max = v
                i = t
    return i, g_max


@njit(cache=True, nogil=True, inline="always")
def _gain_bound(best):
    """b such that a candidate with grad_diff^2 < b quad cannot reach the gain
    -grad_diff^2 / quad <= ``best`` (best <= 0, or inf before the first): the
    selections divide only for the candidates that pass this test (a division a
    candidate cost more than the rest of its visit), with a margin far above the
    rounding of both sides, so the same j is chosen."""
    return -best * (1.0 - 1e-12)


@njit(cache=True, nogil=True, inline="always")
def _select_j(status, G, QD, active, m, i, g_max, store, s_i):
    """The j of WSS3 by the second-order decrease over I_low, with column i at
    ``store[s_i]``; (j, the violation max_{I_up} -y G - min_{I_low} -y G)."""
    n = len(status)
    in_order = _in_order(m, n, 3)
    QD_i = QD[i]
    two_y_i = 2.0 if status[i] & POSITIVE else -2.0
    g_max2 = -np.inf
    j = -1
    best = np.inf
    bound = _gain_bound(best)
    for k in range(n if in_order else m):
        t = k if in_order else active[k]
        s = status[t]
        if (s & (IN_LOW | ACTIVE)) == IN_LOW | ACTIVE:
            if s & POSITIVE:  # v = y_t G_t; quad = QD_i + QD_t - 2 y_i y_t Q_it
                v = G[t]
                c = two_y_i
            else:
                v = -G[t]
                c = -two_y_i
            if v >= g_max2:
                g_max2 = v
            grad_diff = g_max + v
            if grad_diff > 0:
                quad = QD_i + QD[t] - c * store[s_i, t]
                quad = quad if quad > 0 else TAU
                if grad_diff * grad_diff >= bound * quad:  # _may_gain
                    gain = -grad_diff * grad_diff / quad
                    if gain <= best:
                        best = gain
                        bound = _gain_bound(best)
                        j = t
    return j, g_max + g_max2


@njit(cache=True, nogil=True, inline="always")
def _select_i_nu(status, G, active, m):
    """The two candidates of LIBSVM's ``Solver_NU::select_working_set``: i_p
    maximises -G over {y = +1, a < U}, i_n maximises G over {y = -1, a > 0};
    (i_p, i_n, their maxima), -1 for an empty side."""
    n = len(status)
    in_order = _in_order(m, n, 3)
    g_maxp = -np.inf
    g_maxn = -np.inf
    ip = -1
    i_n = -1
    for k in range(n if in_order else m):
        t = k if in_order else active[k]
        s = status[t]
        if (s & (IN_UP | ACTIVE)) == IN_UP | ACTIVE:
            if s & POSITIVE:
                if -G[t] >= g_maxp:
                    g_maxp = -G[t]
                    ip = t
            elif G[t] >= g_maxn:
                g_maxn = G[t]
                i_n = t
    return ip, i_n, g_maxp, g_maxn


@njit(cache=True, nogil=True, inline="always")
def _select_j_nu(status, G, QD, active, m, ip, i_n, g_maxp, g_maxn, store, s_ip, s_in):
    """j of ``Solver_NU``: the second-order decrease within the sign of its partner
    (y = +1: a > 0 and G_j > -G_ip; y = -1: a < U and G_j < G_in), columns i_p and
    i_n at ``store[s_ip]``, ``store[s_in]`` (read only for a side with a violator);
    (i, j, the violation: the larger of the signs' max I_up - min I_low)."""
    n = len(status)
    in_order = _in_order(m, n, 3)
    QD_ip = QD[ip] if ip >= 0 else 0.0
    QD_in = QD[i_n] if i_n >= 0 else 0.0
    g_maxp2 = -np.inf
    g_maxn2 = -np.inf
    j = -1
    best = np.inf
    bound = _gain_bound(best)
    for k in range(n if in_order else m):
        t = k if in_order else active[k]
        s = status[t]
        if (s & (IN_LOW | ACTIVE)) == IN_LOW | ACTIVE:
            if s & POSITIVE:
                if G[t] >= g_maxp2:
                    g_maxp2 = G[t]
                grad_diff = g_maxp + G[t]
                if grad_diff > 0:
                    quad = QD_ip + QD[t] - 2.0 * store[s_ip, t]
                    quad = quad if quad > 0 else TAU
                    if grad_diff * grad_diff >= bound * quad:
                        gain = -grad_diff * grad_diff / quad
                        if gain <= best:
                            best = gain
                            bound = _gain_bound(best)
                            j = t
            else:
                if -G[t] >= g_maxn2:
                    g_maxn2 = -G[t]
                grad_diff = g_maxn - G[t]
                if grad_diff > 0:
                    quad = QD_in + QD[t] - 2.0 * store[s_in, t]
                    quad = quad if quad > 0 else TAU
                    if grad_diff * grad_diff >= bound * quad:
                        gain = -grad_diff * grad_diff / quad
                        if gain <= best:
                            best = gain
                            bound = _gain_bound(best)
                            j = t
    gap = max(g_maxp + g_maxp2, g_maxn + g_maxn2)
    if j < 0:
        return -1, -1, gap
    return (ip if status[j] & POSITIVE else i_n), j, gap


@njit(cache=True, nogil=True, inline="always")
def _clip_sum(a, b, total, upper_a):
    """(a, b) moved along a + b = total so that a <= upper_a, or else b >= 0: one
    half of LIBSVM's clipping of a pair with y_i = y_j (the other swaps the roles)."""
    if total > upper_a:
        if a > upper_a:
            return upper_a, total - upper_a
    elif b < 0:
        return total, 0.0
    return a, b


@njit(cache=True, nogil=True, inline="always")
def solve_pair(a_i, a_j, G_i, G_j, QD_i, QD_j, Q_ij, opposite, U_i, U_j):
    """LIBSVM's two-variable solution: (a_i, a_j) minimising f along the line that
    keeps y_i a_i + y_j a_j (``opposite``: y_i != y_j), clipped to the box; shared
    by SMO and the working-set solver's inner steps."""
    if opposite:
        quad = QD_i + QD_j + 2.0 * Q_ij
        if quad <= 0:
            quad = TAU
        delta = (-G_i - G_j) / quad
        diff = a_i - a_j
        a_i += delta
        a_j += delta
        if diff > 0:
            if a_j < 0:
                a_j = 0.0
                a_i = diff
        elif a_i < 0:
            a_i = 0.0
            a_j = -diff
        if diff > U_i - U_j:
            if a_i > U_i:
                a_i = U_i
                a_j = U_i - diff
        elif a_j > U_j:
            a_j = U_j
            a_i = U_j + diff
    else:
        quad = QD_i + QD_j - 2.0 * Q_ij
        if quad <= 0:
            quad = TAU
        delta = (G_i - G_j) / quad
        total = a_i + a_j
        a_i, a_j = _clip_sum(a_i - delta, a_j + delta, total, U_i)
        a_j, a_i = _clip_sum(a_j, a_i, total, U_j)
    return a_i, a_j


@njit(cache=True, nogil=True, inline="always")
def step_pair(alpha, G, U, QD, i, j, Q_ij, opposite):
    """LIBSVM's step on the pair (i, j): (a_i, a_j) from :func:`solve_pair`, written
    into ``alpha``; returns their changes and the change of f(a). The gradient is
    the caller's to update (over its rows and columns)."""
    old_i, old_j = alpha[i], alpha[j]
    a_i, a_j = solve_pair(old_i, old_j, G[i], G[j], QD[i], QD[j], Q_ij, opposite, U[i], U[j])
    alpha[i] = a_i
    alpha[j] = a_j
    d_i = a_i - old_i
    d_j = a_j - old_j
    change = (G[i] * d_i + G[j] * d_j
              + 0.5 * (QD[i] * d_i * d_i + QD[j] * d_j * d_j) + Q_ij * d_i * d_j)
    return d_i, d_j, change


@njit(cache=True, nogil=True)
def _add_scaled(G_bar, scale, column):
    for t in range(len(G_bar)):
        G_bar[t] += scale * column[t]


@njit(cache=True, nogil=True)
def _shrink(y, alpha, status, G, U, active, state, eps, two_constraints):
    """LIBSVM's do_shrinking (``Solver_NU``'s with two constraints); True when the
    one-time un-shrinking is due first."""
    m = state[ACTIVE_SIZE]
    g_max1 = -np.inf  # max over I_up of -y G  (two constraints: y = +1 only)
    g_max2 = -np.inf  # max over I_low of y G  (y = +1 only)
    g_max3 = -np.inf  # two constraints: max over y = -1, a > 0 of G
    g_max4 = -np.inf  # two constraints: max over y = -1, a < U of -G
    for k in range(m):
        t = active[k]
        if y[t] > 0:
            if alpha[t] < U[t]:
                g_max1 = max(g_max1, -G[t])
            if alpha[t] > 0:
                g_max2 = max(g_max2, G[t])
        elif two_constraints:
            if alpha[t] < U[t]:
                g_max4 = max(g_max4, -G[t])
            if alpha[t] > 0:
                g_max3 = max(g_max3, G[t])
        else:
            if alpha[t] < U[t]:
                g_max2 = max(g_max2, -G[t])
            if alpha[t] > 0:
                g_max1 = max(g_max1, G[t])
    if two_constraints:
        violation = max(g_max1 + g_max2, g_max3 + g_max4)
        # be_shrunk of Solver_NU in the one-constraint form below: a y = -1 variable
        # at its upper bound shrinks when -G > g_max4, at 0 when G > g_max3
        g_neg_up, g_neg_low = g_max4, g_max3
    else:
        violation = g_max1 + g_max2
        g_neg_up, g_neg_low = g_max2, g_max1
    if not state[UNSHRUNK] and violation <= eps * 10:
        state[UNSHRUNK] = 1
        if m < len(y):
            return True
    # The variables that stay move to the front in their order (sorted, so the
    # passes over them read G, alpha, y and the columns nearly sequentially and may
    # walk all variables instead: module docstring), each swapped with the first
    # shrunk one; the kept set is what the column cache's active[:length] rule needs.
    kept = 0
    for k in range(m):
        t = active[k]
        if _can_shrink(y, alpha, G, U, t, g_max1, g_max2, g_neg_up, g_neg_low):
            status[t] &= ~ACTIVE
        else:
            active[k] = active[kept]
            active[kept] = t
            kept += 1
    state[ACTIVE_SIZE] = kept
    return False


@njit(cache=True, nogil=True, inline="always")
def _can_shrink(y, alpha, G, U, t, g_max1, g_max2, g_neg_up, g_neg_low):
    # A bounded variable whose gradient pushes it further into its bound by more
    # than the current maximal violation will stay there (LIBSVM's be_shrunk).
    # One constraint: g_neg_up = g_max2, g_neg_low = g_max1.
    if alpha[t] >= U[t]:
        return -G[t] > g_max1 if y[t] > 0 else -G[t] > g_neg_up
    if alpha[t] <= 0:
        return G[t] > g_max2 if y[t] > 0 else G[t] > g_neg_low
    return False
