"""The continuous quadratic knapsack problem and the conformal realization of its solution.

Knapsack (separable strictly convex QP with one equality)::

    min_z  sum_i c_i z_i + 1/2 h_i z_i^2    s.t.  sum_i z_i = r,   L_i <= z_i <= R_i,

with h_i > 0 and bounds that may be infinite (L_i < inf, R_i > -inf, L_i <= R_i).
Its KKT conditions say z_i = z_i(lam) = clip(-(c_i + lam) / h_i, L_i, R_i) for a
multiplier lam with phi(lam) = sum_i z_i(lam) = r. phi is continuous, nonincreasing
and piecewise linear with breakpoints

    t_i^R = -c_i - h_i R_i  (z_i = R_i for lam <= t_i^R),
    t_i^L = -c_i - h_i L_i  (z_i = L_i for lam >= t_i^L),

so lam is found by halving the set of breakpoints: take their median (a quickselect,
linear in expected time, no sort), evaluate phi there, keep the half-line on the side of
the root. A variable none of whose breakpoints lies strictly inside the remaining
interval has a fixed status there (at L, at R or free), so it is folded into three
running sums and never visited again; the breakpoints still inside halve each round,
which makes the whole search O(n) expected (Brucker 1984; Kiwiel 2008, "Breakpoint
searching algorithms for the continuous quadratic knapsack problem", Math. Program.
112). When no breakpoint is left, phi is linear on the interval and lam solves it.

Conformal realization (Rockafellar 1969; Tseng and Yun 2010, Section 5): a vector z with
sum_i z_i = 0 is the sum of elementary vectors of the constraint sum z_i = 0, each
with two nonzero entries +m at i and -m at j, every one sign-conformal to z
(m > 0 only where z_i > 0 and z_j < 0). Pairing the positive and the negative
entries in index order, two pointers, gives at most (#positive + #negative - 1) pieces.
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _select(values, length, k):
    """The k-th smallest of values[:length] (quickselect, median-of-three pivot; in place)."""
    left = 0
    right = length - 1
    while right > left:
        mid = (left + right) // 2
        a, b, c = values[left], values[mid], values[right]
        pivot = max(min(a, b), min(max(a, b), c))
        i = left
        j = right
        while i <= j:  # Hoare partition around the pivot value
            while values[i] < pivot:
                i += 1
            while values[j] > pivot:
                j -= 1
            if i <= j:
                values[i], values[j] = values[j], values[i]
                i += 1
                j -= 1
        if k <= j:
            right = j
        elif k >= i:
            left = i
        else:
            return values[k]
    return values[k]


@njit(cache=True, nogil=True, inline="always")
def _clip(v, lo, hi):
    return min(max(v, lo), hi)


@njit(cache=True, nogil=True)
def solve_knapsack(c, h, lower, upper, total, z, guess=np.nan, spread=0.0):
    """Solve the knapsack QP; write the minimiser into z and return the multiplier lam.

    The problem must be feasible: sum(lower) <= total <= sum(upper). A finite
    ``guess`` of lam (a solver's previous multiplier) is tried first, then
    ``guess +- spread`` on the side of the root: when they bracket it, every
    variable without a breakpoint between them is folded in after two passes.
    """
    n = c.shape[0]
    fixed = 0.0  # sum of z_i over variables known to sit at a bound
    free_c = 0.0  # sum of c_i / h_i over variables known to be free
    free_w = 0.0  # sum of 1 / h_i over them
    live = np.empty(n, dtype=np.int64)
    t_upper = np.empty(n)  # breakpoints, computed once
    t_lower = np.empty(n)
    n_live = 0
    for i in range(n):
        if lower[i] == -np.inf and upper[i] == np.inf:
            free_c += c[i] / h[i]
            free_w += 1.0 / h[i]
        else:
            live[n_live] = i
            t_upper[i] = -c[i] - h[i] * upper[i]
            t_lower[i] = -c[i] - h[i] * lower[i]
            n_live += 1
    breaks = np.empty(2 * n_live)
    lo = -np.inf
    hi = np.inf
    round_ = 0
    while n_live > 0:
        if round_ == 0 and np.isfinite(guess):
            t = guess
        elif round_ == 1 and np.isfinite(guess) and spread > 0.0:
            t = guess + spread if lo == guess else guess - spread
        else:
            m = 0
            for k in range(n_live):
                i = live[k]
                if lo < t_upper[i] < hi:
                    breaks[m] = t_upper[i]
                    m += 1
                if lo < t_lower[i] < hi:
                    breaks[m] = t_lower[i]
                    m += 1
            t = _select(breaks, m, m // 2)
        round_ += 1
        phi = fixed - free_c - t * free_w
        for k in range(n_live):
            i = live[k]
            phi += _clip(-(c[i] + t) / h[i], lower[i], upper[i])
        if phi == total:
            lo = hi = t
        elif phi > total:  # sum too large: the root lies to the right
            lo = t
        else:
            hi = t
        # Fold in the variables whose status the interval [lo, hi] now decides.
        keep = 0
        for k in range(n_live):
            i = live[k]
            if t_lower[i] <= lo:
                fixed += lower[i]
            elif t_upper[i] >= hi:
                fixed += upper[i]
            elif t_upper[i] <= lo and t_lower[i] >= hi:
                free_c += c[i] / h[i]
                free_w += 1.0 / h[i]
            else:
                live[keep] = i
                keep += 1
        n_live = keep
    # phi is linear on [lo, hi]: fixed - free_c - lam * free_w = total.
    if free_w > 0.0:
        lam = _clip((fixed - free_c - total) / free_w, lo, hi)
    elif np.isfinite(lo) and np.isfinite(hi):
        lam = 0.5 * (lo + hi)  # phi is constant here: any lam in [lo, hi] is a multiplier
    elif np.isfinite(lo):
        lam = lo
    elif np.isfinite(hi):
        lam = hi
    else:
        lam = 0.0
    for i in range(n):
        z[i] = _clip(-(c[i] + lam) / h[i], lower[i], upper[i])
    return lam


@njit(cache=True, nogil=True)
def conformal_pairs(z, first, second, amount):
    """Split z (sum z = 0) into two-coordinate pieces sign-conformal to z.

    Piece k is ``amount[k] * (e_first[k] - e_second[k])`` with amount[k] > 0,
    z[first[k]] > 0 and z[second[k]] < 0; the pieces sum to z up to the rounding of
    sum(z), which is left unassigned. Returns the number of pieces.
    """
    n = z.shape[0]
    i = 0
    j = 0
    rest_i = 0.0  # what is left of z[i] > 0 and of -z[j] > 0
    rest_j = 0.0
    count = 0
    while True:
        while rest_i <= 0.0 and i < n:
            rest_i = z[i] if z[i] > 0.0 else 0.0
            if rest_i <= 0.0:
                i += 1
        while rest_j <= 0.0 and j < n:
            rest_j = -z[j] if z[j] < 0.0 else 0.0
            if rest_j <= 0.0:
                j += 1
        if i >= n or j >= n:
            return count
        m = min(rest_i, rest_j)
        first[count] = i
        second[count] = j
        amount[count] = m
        count += 1
        # The smaller remainder is used up exactly; move past it.
        if rest_i <= rest_j:
            rest_j -= m
            rest_i = 0.0
            i += 1
            if rest_j <= 0.0:
                j += 1
        else:
            rest_i -= m
            rest_j = 0.0
            j += 1
