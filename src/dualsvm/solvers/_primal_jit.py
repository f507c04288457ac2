"""Compiled epochs of the primal stochastic solvers: Pegasos and implicit updates.

The weight vector is kept as w = scale * v (scikit-learn's ``WeightVector``), so
the L2 decay w <- c w of every step costs O(1) (``scale *= c``) and a step costs
O(nnz_i): only the rows it touches are read and written. ``sq_norm`` tracks
||v||^2 through the rank-one updates (||v + a x||^2 = ||v||^2 + 2 a v'x + a^2 x'x),
so the projection onto the ball ||w|| <= 1/sqrt(lambda) is O(1) too. When
``scale`` falls below ``_RESCALE_BELOW`` it is folded into v (O(d), rare; it is
exactly 0 after Pegasos' first step, eta_1 lambda = 1, which forgets w).

Rows are visited in random order, so, as in ``_dcd_jit``, each step
prefetches the rows (and per-row entries) of the steps ``AHEAD`` and
``2 * AHEAD`` later (``_rows.prefetch_ahead``), for several times faster epochs
(measurements: benchmarks/results/design_measurements.md, section solvers/_primal_jit.py).

``weight[i]`` is the multiplier s_i of sample i's loss in the stochastic
objective lambda/2 ||w||^2 + 1/m sum_i s_i loss_i (see ``primal.py``); ``squared``
selects the squared hinge, else the hinge. The epoch visits index[:] in order,
after a Fisher-Yates shuffle when ``shuffle``.
"""

import numpy as np
from numba import njit

from ..data.rows import prefetch_ahead, row_axpy, row_dot
from .rng import shuffle_prefix

#: Fold the scale into v below this (scikit-learn uses the same threshold).
_RESCALE_BELOW = 1e-9
@njit(cache=True, nogil=True)
def _fold_scale(v, scale, sq_norm):
    """Fold a small scale into v: returns (scale, sq_norm, the factor v was multiplied by)."""
    if scale >= _RESCALE_BELOW:
        return scale, sq_norm, 1.0
    v *= scale
    return 1.0, sq_norm * scale * scale, scale


@njit(cache=True, nogil=True)
def _add_row(rows, i, step, v, v_dot_x, x_sq_norm, sq_norm, bias):
    """v += step * x_i; returns the new ||v||^2 (v_dot_x = v'x_i before the step)."""
    row_axpy(rows, i, step, v, bias)
    return sq_norm + 2.0 * step * v_dot_x + step * step * x_sq_norm


@njit(cache=True, nogil=True)
def _project(scale, sq_norm, lam):
    """The scale after projecting w = scale * v onto the ball ||w||^2 <= 1/lambda."""
    norm2 = scale * scale * sq_norm
    if norm2 * lam > 1.0:
        scale *= np.sqrt(1.0 / (lam * norm2))
    return scale


@njit(cache=True, nogil=True, error_model="numpy")
def pegasos_epoch(rows, y, weight, x_sq_norms, v, scale, sq_norm, bias, index,
                  batch_size, lam, t, squared, state, shuffle, dots):
    """One pass of mini-batch Pegasos over index; returns t. On return v is w.

    Step t (eta = 1/(lambda t)) on batch A: margins m_j = y_j w'x_j at the current
    w, then w <- (1 - eta lambda) w + eta/|A| sum_j s_j (-loss'(m_j)) y_j x_j, then
    the projection. ``dots`` is scratch of length >= batch_size.
    """
    m = index.shape[0]
    if shuffle:
        shuffle_prefix(index, m, state)
    per_row = (y, weight, x_sq_norms)
    for start in range(0, m, batch_size):
        stop = min(start + batch_size, m)
        t += 1
        eta = 1.0 / (lam * t)
        for k in range(start, stop):
            prefetch_ahead(rows, index, k, m, per_row)
            dots[k - start] = row_dot(rows, index[k], v, bias)
        margin_scale = scale
        scale, sq_norm, folded = _fold_scale(v, scale * (1.0 - eta * lam), sq_norm)
        steps = 0
        for k in range(start, stop):
            i = index[k]
            margin = y[i] * margin_scale * dots[k - start]
            if margin >= 1.0:
                continue
            slope = 2.0 * (1.0 - margin) if squared else 1.0  # -loss'(margin)
            step = eta / (stop - start) * weight[i] * slope * y[i] / scale
            # Within a batch v moves with every step: after the first, reread v'x_i.
            v_dot_x = folded * dots[k - start] if steps == 0 else row_dot(rows, i, v, bias)
            sq_norm = _add_row(rows, i, step, v, v_dot_x, x_sq_norms[i], sq_norm, bias)
            steps += 1
        scale = _project(scale, sq_norm, lam)
    v *= scale  # w itself, before any Python code runs (Ctrl-C cannot split the two)
    return t


@njit(cache=True, nogil=True, error_model="numpy")
def implicit_epoch(rows, y, weight, x_sq_norms, v, scale, sq_norm, bias, index,
                   lam, t, squared, state, shuffle):
    """One pass of implicit (proximal) updates over index; returns t. On return v is w.

    Step t (eta = 1/(lambda t)) on sample i solves exactly
    w <- argmin_u ||u - w||^2 / (2 eta) + lambda/2 ||u||^2 + s_i loss(y_i u'x_i):
    u = (w + eta g y_i x_i) / (1 + eta lambda) with g from ``primal.py``'s docstring,
    then the projection.
    """
    m = index.shape[0]
    if shuffle:
        shuffle_prefix(index, m, state)
    per_row = (y, weight, x_sq_norms)
    for k in range(m):
        prefetch_ahead(rows, index, k, m, per_row)
        i = index[k]
        t += 1
        eta = 1.0 / (lam * t)
        c = 1.0 + eta * lam
        v_dot_x = row_dot(rows, i, v, bias)
        u = y[i] * scale * v_dot_x  # margin before the step
        q = x_sq_norms[i]
        s = weight[i]
        g = 0.0
        if u < c:
            if squared:
                g = 2.0 * s * (c - u) / (c + 2.0 * s * eta * q)
            elif eta * q > 0.0:
                g = min((c - u) / (eta * q), s)
            else:  # x_i = 0: the loss is constant, any g moves nothing
                g = 0.0
        step = eta * g * y[i] / scale
        scale /= c
        if g > 0.0:
            sq_norm = _add_row(rows, i, step, v, v_dot_x, q, sq_norm, bias)
        scale, sq_norm, _ = _fold_scale(v, scale, sq_norm)
        scale = _project(scale, sq_norm, lam)
    v *= scale  # w itself, before any Python code runs (Ctrl-C cannot split the two)
    return t
