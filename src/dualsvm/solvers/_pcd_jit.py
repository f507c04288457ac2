"""Compiled passes of primal coordinate descent for the L1-regularised L2-loss SVC
(LIBLINEAR's ``solve_l1r_l2_svc``, ``-s 5``; Yuan, Chang, Hsieh and Lin, JMLR 2010).

With b_i = 1 - y_i w'x_i and the squared-hinge loss L(w) = sum_i C_i max(0, b_i)^2,
one coordinate w_j of the objective ||w||_1 + L(w) moves along a one-dimensional
Newton direction, then a backtracking line search (Armijo, sigma = 0.01, halving,
at most 20 tries) accepts the step. With G = dL/dw_j and H its generalised second
derivative (floored at 1e-12), the direction minimises |w_j + d| + G d + H d^2 / 2:
d = -(G + 1)/H if G + 1 < H w_j, -(G - 1)/H if G - 1 > H w_j, else -w_j. The
violation is the distance of 0 from the subdifferential (|G + sign(w_j)| off zero;
max(G + 1 < 0 ? -(G+1) : 0, G - 1 > 0 ? G - 1 : 0) at zero), and a zero weight deep
inside (-1 + M/l, 1 - M/l) with M the previous pass's largest violation leaves the
active set (shrinking).

The line search first tries the bound L(w + d e_j) - L(w) <= G d + (sum_i C_i
x_ij^2) d^2 (the loss's curvature is at most 2 C_i x_ij^2), which accepts most
steps without touching b; otherwise it updates b and evaluates the loss over
column j's rows. After 20 failed halvings b is recomputed from w (rounding).

Speed: the column walks are what a pass costs, and whether b_i > 0 (row i inside
the margin) is a coin toss to the branch predictor. So they take every entry and
weigh it by a select between values already loaded, ``c if b_i > 0 else 0.0``
(c = C_i, or C_i x_ij), which LLVM compiles without a branch, instead of branching
around its terms: the same sums, bit for bit (a term of weight 0 adds +-0), and
much faster passes. A select whose arm computes or loads
(``C_i * x if b_i > 0 else 0.0``) LLVM turns back into a branch, losing much of the
gain (measurements: benchmarks/results/design_measurements.md, section solvers/_pcd_jit.py).

Columns come as CSC of y_i x_ij (``col_data``, ``col_rows``, ``col_ptr``), the
augmented bias feature, when there is one, as the last column.
"""

import numpy as np
from numba import njit

from .rng import shuffle_prefix

SIGMA = 0.01
MAX_LINE_SEARCH = 20


@njit(cache=True, nogil=True, error_model="numpy")
def pcd_pass(col_data, col_rows, col_ptr, cost, col_sq, w, b, index, active_size, gmax_old,
             n_rows, shrinking, state, shuffle):
    """One pass over index[:active_size]; returns (active_size, gmax, gnorm1): the
    largest violation and the sum of the violations of the coordinates visited."""
    if shuffle:
        shuffle_prefix(index, active_size, state)
    gmax = 0.0
    gnorm1 = 0.0
    s = 0
    while s < active_size:
        j = np.uint64(index[s])
        start = np.uint64(col_ptr[j])
        end = np.uint64(col_ptr[j + np.uint64(1)])
        g_loss = 0.0
        h = 0.0
        for p in range(start, end):
            r = np.uint64(col_rows[p])
            br = b[r]
            v = col_data[p]
            t = cost[r] * v
            t = t if br > 0.0 else 0.0  # rows outside the margin: a select (docstring)
            g_loss -= t * br
            h += t * v
        g_loss *= 2.0
        h = max(2.0 * h, 1e-12)
        wj = w[j]
        gp = g_loss + 1.0
        gn = g_loss - 1.0
        violation = 0.0
        if wj == 0.0:
            if gp < 0.0:
                violation = -gp
            elif gn > 0.0:
                violation = gn
            elif shrinking and gp > gmax_old / n_rows and gn < -gmax_old / n_rows:
                active_size -= 1
                index[s], index[active_size] = index[active_size], index[s]
                continue
        elif wj > 0.0:
            violation = abs(gp)
        else:
            violation = abs(gn)
        if gp < h * wj:
            d = -gp / h
        elif gn > h * wj:
            d = -gn / h
        else:
            d = -wj
        delta = abs(wj + d) - abs(wj) + g_loss * d
        gmax = max(gmax, violation)
        gnorm1 += violation
        s += 1
        if abs(d) < 1.0e-12:
            continue
        d_old = 0.0
        loss_old = 0.0
        searches = 0
        while searches < MAX_LINE_SEARCH:
            d_diff = d_old - d
            cond = abs(wj + d) - abs(wj) - SIGMA * delta
            if col_sq[j] * d * d + g_loss * d + cond <= 0.0:
                for p in range(start, end):
                    b[np.uint64(col_rows[p])] += d_diff * col_data[p]
                break
            loss_new = 0.0
            if searches == 0:  # the loss before the step too, in the same walk
                for p in range(start, end):
                    r = np.uint64(col_rows[p])
                    br = b[r]
                    c = cost[r]
                    b_new = br + d_diff * col_data[p]
                    b[r] = b_new
                    loss_old += (c if br > 0.0 else 0.0) * br * br
                    loss_new += (c if b_new > 0.0 else 0.0) * b_new * b_new
            else:
                for p in range(start, end):
                    r = np.uint64(col_rows[p])
                    c = cost[r]
                    b_new = b[r] + d_diff * col_data[p]
                    b[r] = b_new
                    loss_new += (c if b_new > 0.0 else 0.0) * b_new * b_new
            cond = cond + loss_new - loss_old
            if cond <= 0.0:
                break
            d_old = d
            d *= 0.5
            delta *= 0.5
            searches += 1
        w[j] += d
        if searches >= MAX_LINE_SEARCH:
            recompute_margins(col_data, col_rows, col_ptr, w, b)
    return active_size, gmax, gnorm1


@njit(cache=True, nogil=True)
def recompute_margins(col_data, col_rows, col_ptr, w, b):
    """b_i = 1 - y_i w'x_i from scratch (the columns hold y_i x_ij)."""
    b[:] = 1.0
    for j in range(w.shape[0]):
        if w[j] != 0.0:
            for p in range(col_ptr[j], col_ptr[j + 1]):
                b[col_rows[p]] -= w[j] * col_data[p]


@njit(cache=True, nogil=True)
def column_squares(col_data, col_rows, col_ptr, cost, n_columns):
    """sum_i C_i x_ij^2 of every column."""
    out = np.zeros(n_columns)
    for j in range(n_columns):
        for p in range(col_ptr[j], col_ptr[j + 1]):
            out[j] += cost[col_rows[p]] * col_data[p] * col_data[p]
    return out


@njit(cache=True, nogil=True, error_model="numpy")
def pcd_passes(col_data, col_rows, col_ptr, cost, col_sq, w, b, index, active_size, gmax_old,
               gnorm1_init, n_rows, shrinking, state, shuffle, tol, max_passes):
    """Up to ``max_passes`` calls of :func:`pcd_pass` with LIBLINEAR's rule between them
    (summed violations <= tol * the first pass's, re-checked on the full problem);
    ``gnorm1_init`` < 0: not known yet (this is the first pass).

    Returns (active_size, gmax_old, gnorm1_init, passes, converged, ratio), ratio being
    the last pass's summed violations over the first's.
    """
    passes = 0
    converged = False
    ratio = np.inf
    n_weights = w.shape[0]
    while passes < max_passes:
        active_size, gmax, gnorm1 = pcd_pass(col_data, col_rows, col_ptr, cost, col_sq, w, b,
                                             index, active_size, gmax_old, n_rows,
                                             shrinking, state, shuffle)
        passes += 1
        if gnorm1_init < 0.0:
            gnorm1_init = gnorm1
        ratio = gnorm1 / gnorm1_init if gnorm1_init > 0.0 else 0.0
        if gnorm1 <= tol * gnorm1_init:
            if active_size == n_weights:
                converged = True
                break
            active_size = n_weights  # converged on the shrunk problem: check them all
            gmax_old = np.inf
            continue
        gmax_old = gmax
    return active_size, gmax_old, gnorm1_init, passes, converged, ratio


@njit(cache=True, nogil=True)
def signed_transpose(data, indices, indptr, n_columns, y, bias):
    """CSC arrays (data, row indices as int32, pointers) of y_i x_ij from CSR arrays, in
    one counting pass and one scatter (rows in order, so each column's are sorted);
    ``bias`` != 0 appends the augmented column y_i * bias."""
    n = indptr.shape[0] - 1
    extra = 1 if bias != 0.0 else 0
    counts = np.zeros(n_columns + extra + 1, dtype=np.int64)
    for p in range(indptr[n]):
        counts[indices[p] + 1] += 1
    if extra:
        counts[n_columns + 1] = n
    pointers = np.cumsum(counts)
    out_data = np.empty(pointers[-1])
    out_rows = np.empty(pointers[-1], dtype=np.int32)
    fill = pointers[:-1].copy()
    for i in range(n):
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            out_data[fill[j]] = y[i] * data[p]
            out_rows[fill[j]] = i
            fill[j] += 1
        if extra:
            out_data[fill[n_columns]] = y[i] * bias
            out_rows[fill[n_columns]] = i
            fill[n_columns] += 1
    return out_data, out_rows, pointers
