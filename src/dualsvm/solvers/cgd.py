"""Coordinate gradient descent with the Gauss-Southwell-q rule (Tseng and Yun) for the exact bias.

Tseng, P. and Yun, S. (2010), "A coordinate gradient descent method for linearly
constrained smooth optimization and support vector machines training", Comput. Optim.
Appl. 47, 179-206. Their problem is min f(x) s.t. x in X = {l <= x <= u, Ax = b}; here
f(a) = 1/2 a'(Q + D)a - e'a (:class:`dualsvm.problems.kernel.KernelDualProblem`, either loss),
A = y', b = 0, l = 0, u = U. Their definitions, with H diagonal positive definite:

* direction (their (7)):  d_H(x; J) = argmin_d { grad f(x)'d + 1/2 d'Hd :
  x + d in X, d_j = 0 for j not in J };
* q_H(x; J) = [grad f(x)'d + 1/2 d'Hd] at d = d_H(x; J): the optimal value of that
  subproblem, <= 0, and q_H(x; N) = 0 exactly at stationary points (N = all indices);
* Gauss-Southwell-q rule (their (9)): take J with q_D(x; J) <= v q_D(x; N), v in (0, 1],
  D diagonal positive definite;
* conformal realization (their Section 5, after Rockafellar): d = d_D(x; N) is a sum of
  elementary vectors of A = y' (two nonzeros, y_i e_i - y_j e_j scaled), each
  sign-conformal to d, at most n - 1 of them; each is feasible for the subproblem on its
  own support and q_D is superadditive over conformal pieces, so the best of the r
  pieces satisfies the rule with v = 1/r; for m = 1 equality, |J| = 2 suffices.

Here D = diag(max(Q_ii + D_ii, TAU)). Every iteration

1. solves the diagonal subproblem on all variables: in z = y * d it is the continuous
   quadratic knapsack min c'z + 1/2 z'Hz, sum z = 0, box (c = y * G), solved in expected
   linear time by the median breakpoint search of :mod:`._knapsack_jit`, warm-started at the
   previous multiplier (which tends to the bias -b);
2. stops if -q_D(x; N) <= ``tol``;
3. splits z into its conformal pairs and scores each pair by the decrease it gives on the
   *true* objective, an exact line search along y_i e_i - y_j e_j with the curvature
   K_ii + K_jj - 2 K_ij + D_ii + D_jj (Q_ij read from a cached column when there is one,
   otherwise one kernel evaluation; LIBSVM's TAU safeguard when the curvature is <= 0,
   as the non-PSD sigmoid kernel allows);
4. updates the best pair, or with ``pairs=3`` up to three disjoint best pairs one after
   the other (each with its own exact line search on the updated gradient), keeping the
   gradient G = (Q + D)a - e with two Q columns from the LRU cache per pair.

Stopping measure: -q_D(x; N) is a squared quantity (a pair violated by v with unit
curvature contributes about v^2 / 4), so its ``tol`` is not LIBSVM's ``-e``; LIBSVM's
maximal violation max_{I_up} -y_i G_i - min_{I_low} -y_i G_i is reported beside it in
every record (``max_violation``) for comparison. There is no shrinking.

An epoch is ``iterations_per_epoch`` iterations (or fewer once ``CHUNK_EVALUATIONS``
kernel values have been computed).
"""

import numpy as np

from ._cgd_jit import cgd_iterations
from ._driver import IteratingKernelSolver
from .kernel_dcd import CHUNK_EVALUATIONS


class CGD(IteratingKernelSolver):
    """Tseng-Yun coordinate gradient descent for the kernel dual with y'a = 0.

    Parameters
    ----------
    problem : KernelDualProblem
        With ``bias='exact'``; either loss.
    tol : float
        Stop when -q_D(x; N) <= tol (see the module docstring for its scale).
    shrinking, random_state
        Accepted for the common solver interface; CGD neither shrinks nor draws.
    alpha : ndarray, optional
        Warm start, clipped to the box and scaled on one class to satisfy y'a = 0.
    pairs : int
        Disjoint pairs updated per iteration (1, or 3 for the 3-pair variant).
    iterations_per_epoch : int, optional
        Default min(n, 1000).
    """

    def __init__(self, problem, tol, *, shrinking=False, random_state=None, alpha=None, pairs=1,
                 iterations_per_epoch=None):
        if problem.bias != "exact":
            raise ValueError("CGD solves bias='exact' (y'a = 0); use solver='kernel_dcd' for no bias")
        if int(pairs) < 1:
            raise ValueError(f"pairs must be an integer >= 1, got {pairs!r}")
        self.problem = problem
        self.tol = tol
        self.pairs = int(pairs)
        n = problem.n_samples
        self.iterations_per_epoch = int(iterations_per_epoch or max(1, min(n, 1000)))
        self.alpha = problem.feasible(alpha)
        self.gradient = problem.gradient(self.alpha)
        self.movable = problem.movable()
        self.everyone = np.arange(n, dtype=np.int64)
        self.active_size = len(self.movable)
        self.multiplier = np.array([np.nan, 0.0, np.inf])  # lam, its last move, -q_D
        self.iterations = 0
        self.violation = np.inf

    def epoch(self):
        p = self.problem
        done, converged = cgd_iterations(
            p.q.data, p.q.cache, self.gradient, self.alpha, p.y, p.q_diag, p.diag, p.upper_bound,
            self.movable, self.everyone, self.pairs, self.tol, self.iterations_per_epoch,
            CHUNK_EVALUATIONS, self.multiplier)
        self.iterations += done
        self.violation = float(self.multiplier[2])
        return converged

    def counters(self):
        q = self.problem.q
        return {"iterations": self.iterations,
                "max_violation": self.problem.max_violation(self.alpha, self.gradient),
                "kernel_evaluations": q.kernel_evaluations, "cache_hits": q.cache_hits}
