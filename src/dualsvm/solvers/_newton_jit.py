"""The compiled step of the Newton method for the L2-loss SVC primal
(:mod:`dualsvm.solvers.newton`): its Hessian-vector product.

With the rows I inside the margin (y_i w'x_i < 1), the generalised Hessian of
P(w) = 1/2 w'w + sum_i C_i max(0, 1 - y_i w'x_i)^2 is I + 2 X_I' C_I X_I, and the
conjugate gradient steps need (X_I' C_I X_I) s. LIBLINEAR computes X_I s and then
X_I' of it, two passes; here each row of I is read once for both, its dot product
and its update back to back (the row is in cache for the second).
"""

import numpy as np
from numba import njit

from ..data.rows import row_axpy, row_dot


@njit(cache=True, nogil=True)
def hessian_product(rows, inside, cost, s, bias, out):
    """out = sum over the rows i of ``inside`` of C_i (x_i's) x_i, the augmented
    feature (value ``bias``, 0: none) included (see :mod:`dualsvm.data.rows`)."""
    out[:] = 0.0
    for k in range(inside.shape[0]):
        i = np.uint64(inside[k])
        row_axpy(rows, i, cost[i] * row_dot(rows, i, s, bias), out, bias)


@njit(cache=True, nogil=True)
def gradient_terms(rows, squared_rows, inside, scales, cost, bias, out, diagonal):
    """Over the rows i = inside[k]: out += sum_k scales[k] x_i (the gradient's X_I' v) and
    diagonal += sum_k cost[i] x_i^2 (the Hessian's diagonal, from ``squared_rows``, the
    entries squared), the augmented feature included; one loop for both, so the row's
    indices are read once."""
    for k in range(inside.shape[0]):
        i = np.uint64(inside[k])
        row_axpy(rows, i, scales[k], out, bias)
        row_axpy(squared_rows, i, cost[i], diagonal, bias * bias)


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
