"""Compiled epochs of the sequential dual method for Crammer and Singer's multi-class
SVM (Keerthi, Sundararajan, Chang, Hsieh and Lin, KDD 2008; LIBLINEAR's
``Solver_MCSVM_CS``, ``-s 4``).

The dual (:class:`dualsvm.problems.crammer_singer.CrammerSingerProblem`) has k variables a_i^m per
row, coupled only through sum_m a_i^m = 0 and a_i^m <= C_i^m (C_i for m = y_i,
else 0). A step takes one row i and minimises the dual exactly over its k
variables with the others fixed: with A_i = ||x_i||^2 and the gradient
G_m = w_m'x_i + e_i^m (e_i^m = 1 for m != y_i, else 0), the sub-problem is

    min_a  1/2 A_i sum_m a_m^2 + sum_m B_m a_m,   sum_m a_m = 0,   a_m <= C_i^m,

with B_m = G_m - A_i a_i^m. Its solution is a_m = min(C_i^m, (beta - B_m) / A_i)
for the scalar beta found by sorting D_m = B_m + A_i C_i^m in decreasing order
(:func:`solve_row`). w_m += (a_m - a_i^m) x_i for the classes that moved.

Shrinking (LIBLINEAR's rule): within a row, a class whose variable sits at its
bound with a gradient below the smallest gradient of the variables that can grow
leaves the row's active classes; a row with at most one active class leaves the
active rows. The driver (:mod:`dualsvm.solvers.crammer_singer`) restores them all
when the pass's largest violation max_m G_m - min_m G_m falls below a threshold.

The data are CSR (dense input is converted by the driver: one loop for both);
``bias`` is the value of the augmented feature (0: none), whose weights are the
last row of W. W is (n_weights, k), feature-major as in LIBLINEAR, so a row's
entries touch k adjacent weights.

Speed: after shrinking, a row has two or three active classes, and a step is
two short walks of the row (its scores, then w_m += step_m x_i). Both walk class
by class (the scores two classes at a time, each sum in a register), not entry by
entry over the classes, whose sums in memory made every addition wait for the one
before; and the rows of later steps are prefetched, as dual CD does
(:mod:`dualsvm.data.rows`), for much faster passes (measurements:
benchmarks/results/design_measurements.md, section solvers/_cs_jit.py). The scores of a step are
summed in LIBLINEAR's order (e_i^m first).
"""

import numpy as np
from numba import njit

from ..data.rows import AHEAD, prefetch, prefetch_ahead
from .rng import shuffle_prefix


@njit(cache=True, nogil=True, error_model="numpy")
def solve_row(A, B, y_pos, C, active, D, alpha_new):
    """The exact minimiser of the row sub-problem over its ``active`` classes (module
    docstring); ``y_pos``: the position of the row's own class among them (>= active
    when shrunk). Writes alpha_new[:active]; D is scratch space."""
    for m in range(active):
        D[m] = B[m]
    if y_pos < active:
        D[y_pos] += A * C
    # insertion sort, decreasing (k is small; no allocation)
    for m in range(1, active):
        value = D[m]
        p = m - 1
        while p >= 0 and D[p] < value:
            D[p + 1] = D[p]
            p -= 1
        D[p + 1] = value
    beta = D[0] - A * C
    r = 1
    while r < active and beta < r * D[r]:
        beta += D[r]
        r += 1
    beta /= r
    for m in range(active):
        bound = C if m == y_pos else 0.0
        alpha_new[m] = min(bound, (beta - B[m]) / A)


@njit(cache=True, nogil=True, inline="always")
def row_scores(data, indices, start, end, W, d, bias, classes, active, yp, G):
    """G[m] = e_i^m + w_c'x_i for the active classes c = classes[m] of the row whose
    entries are data[start:end] (``yp``: the position of its own class, where e = 0).

    Class by class, two at a time, each sum in a register: summing all classes in one
    walk of the row kept them in memory, each addition waiting for the one before.
    """
    m = 0
    while m + 1 < active:
        c0 = np.uint64(classes[m])
        c1 = np.uint64(classes[m + 1])
        g0 = 0.0 if m == yp else 1.0
        g1 = 0.0 if m + 1 == yp else 1.0
        for p in range(start, end):
            j = np.uint64(indices[p])
            v = data[p]
            g0 += W[j, c0] * v
            g1 += W[j, c1] * v
        if bias != 0.0:
            g0 += W[d, c0] * bias
            g1 += W[d, c1] * bias
        G[m] = g0
        G[m + 1] = g1
        m += 2
    if m < active:
        c = np.uint64(classes[m])
        g = 0.0 if m == yp else 1.0
        for p in range(start, end):
            g += W[np.uint64(indices[p]), c] * data[p]
        if bias != 0.0:
            g += W[d, c] * bias
        G[m] = g


@njit(cache=True, nogil=True, error_model="numpy")
def cs_epoch(data, indices, indptr, bias, cost, q_diag, alpha, W, index, active_size,
             class_index, n_active, y_pos, shrinking, state, shuffle, G, B, D, alpha_new,
             d_ind, d_val):
    """One pass over the rows index[:active_size]; returns (active_size, violation),
    violation being the largest max_m G_m - min_m G_m over the rows stepped on
    (-inf when none needed a step).

    ``alpha`` (n, k) and ``W`` (n_weights, k) are updated in place; per row,
    ``class_index[i, :n_active[i]]`` are its active classes and ``y_pos[i]`` the
    position of its own class in ``class_index[i]``. G, B, D, alpha_new, d_ind and
    d_val are scratch arrays of length k.
    """
    if shuffle:
        shuffle_prefix(index, active_size, state)
    d = W.shape[0] - 1 if bias != 0.0 else W.shape[0]
    k = W.shape[1]
    stopping = -np.inf
    s = 0
    rows = (data, indices, indptr)
    while s < active_size:
        # the rows of later steps, to hide their cache misses (:mod:`dualsvm.data.rows`)
        prefetch_ahead(rows, index, s, active_size, (q_diag, cost))
        if s + 2 * AHEAD < active_size:
            j = index[s + 2 * AHEAD] * k  # (n, k) arrays: row j starts at flat position j k
            prefetch(alpha, j)
            prefetch(class_index, j)
        i = index[s]
        A = q_diag[i]
        if A <= 0.0:  # an empty row (no bias): its variables do not change w
            s += 1
            continue
        C = cost[i]
        active = n_active[i]
        yp = y_pos[i]
        classes = class_index[i]
        start = np.uint64(indptr[i])
        end = np.uint64(indptr[i + 1])
        row_scores(data, indices, start, end, W, d, bias, classes, active, yp, G)
        min_g = np.inf
        max_g = -np.inf
        for m in range(active):
            if alpha[i, class_index[i, m]] < 0.0 and G[m] < min_g:
                min_g = G[m]
            if G[m] > max_g:
                max_g = G[m]
        if yp < active:
            if alpha[i, class_index[i, yp]] < C and G[yp] < min_g:
                min_g = G[yp]
        if shrinking:
            m = 0
            while m < active:
                bound = C if m == yp else 0.0
                if alpha[i, class_index[i, m]] == bound and G[m] < min_g:
                    active -= 1
                    while active > m:
                        bound_last = C if active == yp else 0.0
                        if not (alpha[i, class_index[i, active]] == bound_last and
                                G[active] < min_g):
                            class_index[i, m], class_index[i, active] = \
                                class_index[i, active], class_index[i, m]
                            G[m], G[active] = G[active], G[m]
                            if yp == active:
                                yp = m
                            elif yp == m:
                                yp = active
                            break
                        active -= 1
                m += 1
            n_active[i] = active
            y_pos[i] = yp
            if active <= 1:
                active_size -= 1
                index[s], index[active_size] = index[active_size], index[s]
                continue
        if max_g - min_g <= 1e-12:
            s += 1
            continue
        stopping = max(stopping, max_g - min_g)
        for m in range(active):
            B[m] = G[m] - A * alpha[i, class_index[i, m]]
        solve_row(A, B, yp, C, active, D, alpha_new)
        nz = 0
        for m in range(active):
            c = class_index[i, m]
            step = alpha_new[m] - alpha[i, c]
            alpha[i, c] = alpha_new[m]
            if abs(step) >= 1e-12:
                d_ind[nz] = c
                d_val[nz] = step
                nz += 1
        for m in range(nz):  # class by class: no store waits for another
            c = np.uint64(d_ind[m])
            step = d_val[m]
            for p in range(start, end):
                W[np.uint64(indices[p]), c] += step * data[p]
            if bias != 0.0:
                W[d, c] += step * bias
        s += 1
    return active_size, stopping


@njit(cache=True, nogil=True, error_model="numpy")
def cs_passes(data, indices, indptr, bias, cost, q_diag, alpha, W, index, active_size,
              n_movable, class_index, n_active, y_pos, shrinking, state, shuffle, G, B, D,
              alpha_new, d_ind, d_val, tol, eps_shrink, start_from_all, max_passes):
    """Up to ``max_passes`` calls of :func:`cs_epoch` with LIBLINEAR's rule between them
    (:mod:`dualsvm.solvers.crammer_singer`): one Python round trip per pass costs more
    than a pass over a small problem.

    Returns (active_size, eps_shrink, start_from_all, passes, converged, violation),
    violation being the last pass's.
    """
    passes = 0
    converged = False
    violation = np.inf
    n_classes = alpha.shape[1]
    while passes < max_passes:
        active_size, violation = cs_epoch(
            data, indices, indptr, bias, cost, q_diag, alpha, W, index, active_size,
            class_index, n_active, y_pos, shrinking, state, shuffle, G, B, D, alpha_new,
            d_ind, d_val)
        passes += 1
        if violation < eps_shrink:
            if violation < tol and start_from_all:
                converged = True
                break
            active_size = n_movable  # every row and class active again
            for i in range(n_active.shape[0]):
                n_active[i] = n_classes
            eps_shrink = max(eps_shrink / 2.0, tol)
            start_from_all = True
        else:
            start_from_all = False
    return active_size, eps_shrink, start_from_all, passes, converged, violation
