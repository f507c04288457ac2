"""The compiled Newton iteration for the L2-loss SVC primal
(:mod:`dualsvm.solvers.newton`): its Hessian-vector product, the conjugate gradients
that solve for the Newton direction, the line search and the gradient at the new w,
in one call (on a small problem a Python loop of small vector operations costs more
than the products).

With the rows I inside the margin (y_i w'x_i < 1), the generalised Hessian of
P(w) = 1/2 w'w + sum_i C_i max(0, 1 - y_i w'x_i)^2 is I + 2 X_I' C_I X_I, and the
conjugate gradient steps need (X_I' C_I X_I) s. LIBLINEAR computes X_I s and then
X_I' of it, two passes; here each row of I is read once for both, its dot product
and its update back to back (the row is in cache for the second).
"""

import numpy as np
from numba import njit

from ..data.rows import row_axpy, row_dot, row_square_axpy


@njit(cache=True, nogil=True)
def hessian_product(rows, inside, cost, s, bias, out):
    """out = sum over the rows i of ``inside`` of C_i (x_i's) x_i, the augmented
    feature (value ``bias``, 0: none) included (see :mod:`dualsvm.data.rows`)."""
    out[:] = 0.0
    for k in range(inside.shape[0]):
        i = np.uint64(inside[k])
        row_axpy(rows, i, cost[i] * row_dot(rows, i, s, bias), out, bias)


@njit(cache=True, nogil=True)
def gradient_at(rows, y, cost, decision, bias, w):
    """(grad P(w), the Hessian's diagonal, I) at the decisions X w: over the rows i
    inside the margin (I: y_i x_i'w < 1), g = w + 2 sum_I C_i y_i (y_i x_i'w - 1) x_i and
    diag H = 1 + 2 sum_I C_i x_i^2 (entrywise squares), the augmented feature (value
    ``bias``) included."""
    n = decision.shape[0]
    inside = np.empty(n, dtype=np.int64)
    count = 0
    g = np.zeros(w.shape[0])
    diagonal = np.zeros(w.shape[0])
    for k in range(n):
        margin = y[k] * decision[k]
        if margin < 1.0:
            inside[count] = k
            count += 1
            i = np.uint64(k)
            row_axpy(rows, i, cost[k] * y[k] * (margin - 1.0), g, bias)
            row_square_axpy(rows, i, cost[k], diagonal, bias)
    return w + 2.0 * g, 1.0 + 2.0 * diagonal, inside[:count]


@njit(cache=True, nogil=True)
def loss_along(decision, xs, step, y, cost):
    """sum_i C_i max(0, 1 - y_i (decision_i + step xs_i))^2: the loss of
    :meth:`dualsvm.problems.linear.DualProblem.loss_sum` at w + step s, from X w and X s, in
    one pass without temporaries (the line search evaluates it at every halving)."""
    total = 0.0
    for i in range(decision.shape[0]):
        slack = 1.0 - y[i] * (decision[i] + step * xs[i])
        c = cost[i]
        total += (c if slack > 0.0 else 0.0) * slack * slack  # a select: see _pcd_jit
    return total


@njit(cache=True, nogil=True)
def conjugate_gradient(rows, inside, cost, bias, g, preconditioner, cg_tolerance):
    """The Newton direction s of H s = -g, H = Id + 2 X_I' C_I X_I, by conjugate
    gradients preconditioned with M = ``preconditioner``, stopped by LIBLINEAR's rule on
    the decrease of the quadratic model Q(s) = g's + 1/2 s'Hs: cg_iter (Q_k - Q_{k-1})
    >= min(``cg_tolerance``, ||g||_{M^-1}^(1/2)) Q_k, or when the model stops
    decreasing (rounding) or no curvature is left along d. Returns (s, cg_iter)."""
    n = g.shape[0]
    s = np.zeros(n)
    r = -g
    z = r / preconditioner
    d = z.copy()
    scratch = np.empty(n)
    ztr = np.dot(z, r)
    cg_tol = min(cg_tolerance, np.sqrt(np.sqrt(ztr)))
    q = 0.0
    cg_iter = 0
    for cg_iter in range(1, max(n, 5) + 1):
        hessian_product(rows, inside, cost, d, bias, scratch)
        hd = d + 2.0 * scratch
        dhd = np.dot(d, hd)
        if dhd <= 1.0e-16:  # no curvature left along d (0 / 0)
            break
        step = ztr / dhd
        s += step * d
        r -= step * hd
        q_new = -0.5 * (np.dot(s, r) - np.dot(s, g))  # the quadratic model at s
        q_diff = q_new - q
        if q_new > 0 or q_diff > 0:  # the model did not decrease: rounding
            break
        if cg_iter * q_diff >= cg_tol * q_new:
            break
        q = q_new
        z = r / preconditioner
        ztr_new = np.dot(z, r)
        d = (ztr_new / ztr) * d + z
        ztr = ztr_new
    return s, cg_iter


@njit(cache=True, nogil=True)
def newton_iteration(rows, y, cost, bias, w, decision, g, hessian_diagonal, inside, f, mix,
                     cg_tolerance, armijo, max_line_search):
    """One Newton iteration from w (:mod:`dualsvm.solvers.newton`'s docstring): the
    direction s by :func:`conjugate_gradient` preconditioned with M = (1 - mix) + mix
    diag(H), then LIBLINEAR's backtracking from the step 1 (halving, at most
    ``max_line_search`` times) until P(w + a s) - P(w) <= armijo a g's, P from X w and
    X s. w and ``decision`` (X w) move in place. Returns (the step taken, 0 when no
    decrease was found and nothing moved; P at the new w; the CG steps; and
    :func:`gradient_at`'s g, diag H and I there, or the given ones when nothing moved)."""
    s, cg_iter = conjugate_gradient(rows, inside, cost, bias, g,
                                    (1.0 - mix) + mix * hessian_diagonal, cg_tolerance)
    n = decision.shape[0]
    xs = np.empty(n)
    for i in range(n):
        xs[i] = row_dot(rows, i, s, bias)
    sts, wts, gts, wtw = np.dot(s, s), np.dot(w, s), np.dot(g, s), np.dot(w, w)
    step = 1.0
    for _ in range(max_line_search):
        f_new = loss_along(decision, xs, step, y, cost) + 0.5 * (step * step * sts + wtw) \
            + step * wts
        if f_new - f <= armijo * step * gts:
            decision += step * xs
            w += step * s
            g, hessian_diagonal, inside = gradient_at(rows, y, cost, decision, bias, w)
            return step, f_new, cg_iter, g, hessian_diagonal, inside
        step *= 0.5
    return 0.0, f, cg_iter, g, hessian_diagonal, inside
