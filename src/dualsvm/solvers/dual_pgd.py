"""Dual projected gradient descent on the stored kernel matrix, with a penalty for the bias.

For :class:`dualsvm.problems.kernel.KernelDualProblem` (either loss), the exact bias's equality
y'a = 0 is replaced by a quadratic penalty, leaving only the box::

    min_a  F(a) = 1/2 a'(Q + D)a - e'a + c/2 (y'a)^2,   0 <= a_i <= U_i

(c = 0 for ``bias='none'``, which has no equality). grad F = (Q + D)a - e + c y (y'a)
costs one product with the stored Q, so the n x n matrix is computed once by BLAS and
kept: 8 n^2 bytes. The solver refuses (ValueError naming n, the bytes needed and the
limit) when that exceeds ``max_kernel_bytes``, by default the problem's ``cache_size``.

Steps are 1/L with L = 1.01 * |lambda|_max(Q + D + c yy'), estimated by Lanczos (ARPACK's
``eigsh`` on the matrix-free operator; largest magnitude, so a non-PSD sigmoid kernel
gets a valid Lipschitz constant too), and the projection onto the box is a clip.
``accelerated=True`` is FISTA (Beck and Teboulle, 2009) with O'Donoghue and Candes'
gradient restart (momentum is dropped whenever it points uphill), which also keeps the
non-convex case monotone in practice; ``False`` is plain projected gradient.

The penalty only approximates the equality: at the minimiser of F, c (y'a) plays the role
of the bias, so |y'a| is about |b| / c. The default c = ``penalty`` * |lambda|_max(Q) / n
(``penalty`` = 100) makes the y-direction curvature c n about 100 times the largest of Q:
tighter feasibility for a larger condition number. So that the reported numbers are
honest, ``alpha`` is not the penalised iterate but its repair: the projection onto
{y'a = 0, 0 <= a <= U}, moving only the free variables when they suffice (a continuous
quadratic knapsack, :mod:`._knapsack_jit`), whose exact gradient gives the certificate (dual objective, gap, intercept). Each record also
carries ``equality_violation`` = |y'a| of the penalised iterate.

``tol`` bounds the projected gradient of F: stop when max_i |PG_i| <= tol.
An epoch is ``iterations_per_epoch`` gradient steps (20 by default).
"""

import numpy as np
import scipy.sparse.linalg as spla

from ._driver import IteratingKernelSolver
from ._knapsack_jit import solve_knapsack

#: The default penalty weight, relative to |lambda|_max(Q) / n.
PENALTY = 100.0


def _largest_eigenvalue(matvec, n, rng):
    """|lambda|_max of a symmetric operator by Lanczos (power iteration for tiny n)."""
    if n <= 2:
        A = np.column_stack([matvec(e) for e in np.eye(n)])
        return float(np.abs(np.linalg.eigvalsh(A)).max()) if n else 0.0
    operator = spla.LinearOperator((n, n), matvec=matvec, dtype=np.float64)
    value = spla.eigsh(operator, k=1, which="LM", tol=1e-4, v0=rng.standard_normal(n),
                       return_eigenvectors=False)
    return float(abs(value[0]))


def _projected_gradient(grad, alpha, upper_bound):
    return np.where(alpha <= 0.0, np.minimum(grad, 0.0),
                    np.where(alpha >= upper_bound, np.maximum(grad, 0.0), grad))


class DualPGD(IteratingKernelSolver):
    """Projected gradient descent on the stored kernel matrix (penalty for y'a = 0).

    Parameters
    ----------
    problem : KernelDualProblem
        ``bias='exact'`` (penalised) or ``'none'``; either loss.
    tol : float
        Stop when the projected gradient of the penalised objective is within [-tol, tol].
    shrinking
        Accepted for the common solver interface (not used).
    random_state : numpy.random.Generator, optional
        Start vector of the eigenvalue estimate.
    alpha : ndarray, optional
        Warm start (made feasible by ``problem.feasible``).
    penalty : float
        c = penalty * |lambda|_max(Q) / n (bias='exact' only).
    accelerated : bool
        FISTA with gradient restart (True) or plain projected gradient.
    max_kernel_bytes : int, optional
        Memory limit for the stored matrix; default ``problem.cache_size`` MB.
    iterations_per_epoch : int
    """

    def __init__(self, problem, tol, *, shrinking=False, random_state=None, alpha=None,
                 penalty=PENALTY, accelerated=True, max_kernel_bytes=None, iterations_per_epoch=20):
        n = problem.n_samples
        limit = problem.cache_size * 2**20 if max_kernel_bytes is None else max_kernel_bytes
        need = 8 * n * n
        if need > limit:
            raise ValueError(
                f"dual PGD stores the full kernel matrix: n={n} samples need {need} bytes "
                f"({need / 2**20:.1f} MB), above the limit of {int(limit)} bytes "
                f"({limit / 2**20:.1f} MB, cache_size / max_kernel_bytes); raise the limit "
                f"or use solver='smo', 'cgd' or 'kernel_dcd'")
        if not penalty > 0:
            raise ValueError(f"penalty must be > 0, got {penalty!r}")
        self.problem = problem
        self.tol = tol
        self.accelerated = accelerated
        self.iterations_per_epoch = int(iterations_per_epoch)
        rng = random_state if random_state is not None else np.random.default_rng(0)
        self.Q = problem.q.matrix()
        y, diag = problem.y, problem.diag
        q_norm = _largest_eigenvalue(lambda v: self.Q @ v + diag * v, n, rng)
        self.c = penalty * q_norm / max(n, 1) if problem.bias == "exact" else 0.0
        self.lipschitz = 1.01 * _largest_eigenvalue(
            lambda v: self.Q @ v + diag * v + self.c * y * (y @ v), n, rng)
        self.iterate = problem.feasible(alpha)
        self._previous = self.iterate.copy()
        self._momentum = 1.0
        self.iterations = 0
        self.violation = np.inf
        self.active_size = n
        self._repair()

    def _penalised_gradient(self, a):
        p = self.problem
        return self.Q @ a + p.diag * a - 1.0 + self.c * p.y * (p.y @ a)

    def epoch(self):
        upper = self.problem.upper_bound
        step = 1.0 / self.lipschitz
        x, x_old, t = self.iterate, self._previous, self._momentum
        for _ in range(self.iterations_per_epoch):
            if self.accelerated:
                t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
                point = x + ((t - 1.0) / t_next) * (x - x_old)
            else:
                t_next, point = t, x
            x_new = np.clip(point - step * self._penalised_gradient(point), 0.0, upper)
            if self.accelerated and (point - x_new) @ (x_new - x) > 0.0:
                t_next = 1.0  # gradient restart: the momentum pointed uphill
            x_old, x, t = x, x_new, t_next
            self.iterations += 1
        self.iterate, self._previous, self._momentum = x, x_old, t
        self.violation = float(np.abs(_projected_gradient(
            self._penalised_gradient(x), x, upper)).max(initial=0.0))
        self._repair()
        return self.violation <= self.tol

    def _repair(self):
        """alpha: the projection of the iterate onto y'a = 0 and the box; its gradient."""
        p = self.problem
        a = self.iterate
        self.equality_violation = abs(float(p.y @ a))
        if p.bias == "exact":
            y, upper = p.y, p.upper_bound
            lower_z = np.where(y > 0, -a, a - upper)
            upper_z = np.where(y > 0, upper - a, a)
            # Move only the free variables when they can absorb y'a: a variable nudged
            # off its bound would count as free in the KKT bias and distort the certificate.
            total = -float(y @ a)
            free = (a > 0.0) & (a < upper)
            if lower_z[free].sum() <= total <= upper_z[free].sum():
                lower_z[~free] = upper_z[~free] = 0.0
            z = np.empty(len(a))
            solve_knapsack(np.zeros(len(a)), np.ones(len(a)), lower_z, upper_z, total, z)
            a = np.clip(a + y * z, 0.0, upper)
        self.alpha = a
        self.gradient = self.Q @ a + p.diag * a - 1.0

    def counters(self):
        return {"iterations": self.iterations, "equality_violation": self.equality_violation,
                "kernel_evaluations": self.problem.q.kernel_evaluations}
