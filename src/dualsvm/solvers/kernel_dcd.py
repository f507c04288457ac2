"""Dual coordinate descent for kernel SVMs without a bias (Hsieh et al., 2008, Section 4).

The problem is the box-constrained dual of :class:`dualsvm.problems.kernel.KernelDualProblem`
with ``bias='none'`` (no equality constraint)::

    min_a  f(a) = 1/2 a'(Q + D)a - e'a,   0 <= a_i <= U_i,   Q_ij = y_i y_j K(x_i, x_j),

for both losses through (D_ii, U_i) (hinge: D_ii = 0, U_i = C_i; squared hinge:
D_ii = 1/(2 C_i), U_i = inf). There is no w: the solver keeps the gradient
G = (Q + D)a - e, and a step on coordinate i,

    a_i <- clip(a_i - G_i / (Q_ii + D_ii), 0, U_i),   G += (a_i - a_i_old) (Q[:, i] + D_ii e_i),

costs one Q column (from the LRU cache of :class:`dualsvm.kernels.QMatrix`) when a_i moves,
and nothing otherwise. Variables are visited in a new random order per pass (the seeded
generator of :mod:`dualsvm.solvers.rng`).

Stopping and shrinking are LIBLINEAR's, as in :class:`dualsvm.solvers.DualCD`: ``tol`` is
LIBLINEAR's ``-e`` on the projected gradients PG_i (max PG - min PG <= tol and both within
[-tol, tol]), checked on the whole problem before stopping; a variable at a bound whose
gradient points out of the box beyond the previous pass's extreme PG leaves the active set.
Columns are then computed only at the active positions (the cache's partial columns), so
the gradient of a shrunk variable goes stale; it is rebuilt, by BLAS blocks over the
support, when the variables come back and whenever a certificate is asked for.

A non-PSD kernel (sigmoid) can give Q_ii + D_ii <= 0; the curvature is then floored at
``TAU`` (LIBSVM's safeguard), which sends a_i to the bound its gradient points to.

An epoch is a bounded chunk of work: the rest of the current pass, or fewer steps once
``chunk_evaluations`` kernel values have been computed, so time limits and Ctrl-C act
within a pass; the stopping rule is checked at the end of each pass.
"""

import numpy as np
from numba import njit

from ..constants import TAU
from ..kernels import new_generation
from ..kernels.qmatrix import EVALUATIONS, cached_slot, column_slot, column_store
from .dcd import projected_gradient_rule
from .rng import new_state, shuffle_prefix

#: Kernel evaluations after which an epoch returns within a pass (about 0.1-1 s of work).
CHUNK_EVALUATIONS = 2**25


@njit(cache=True, nogil=True, error_model="numpy")
def kernel_dcd_steps(data, cache, grad, alpha, q_diag, diag, upper_bound, index, position,
                     active_size, pg, budget):
    """Continue the pass over index[position:active_size] until its end or ``budget``
    kernel evaluations; return (position, active_size).

    ``pg`` = [pg_max_old, pg_min_old, pg_max, pg_min]: the previous pass's shrinking
    thresholds (read) and this pass's extreme projected gradients (updated).
    """
    counters = cache.counters
    store = column_store(data, cache)
    stop_at = counters[EVALUATIONS] + budget
    s = position
    while s < active_size and counters[EVALUATIONS] < stop_at:
        i = index[s]
        g = grad[i]
        a = alpha[i]
        u = upper_bound[i]
        at_lower = a == 0.0
        at_upper = a == u
        if (g > pg[0]) if at_lower else ((g < pg[1]) if at_upper else False):
            active_size -= 1
            index[s], index[active_size] = index[active_size], index[s]
            continue
        p = (g if g < 0.0 else 0.0) if at_lower else ((g if g > 0.0 else 0.0) if at_upper else g)
        pg[2] = max(pg[2], p)
        pg[3] = min(pg[3], p)
        if abs(p) > 1e-12:
            new = min(max(a - g / max(q_diag[i], TAU), 0.0), u)
            delta = new - a
            if delta != 0.0:
                alpha[i] = new
                slot = cached_slot(data, cache, i, active_size)  # kernels.qmatrix
                if slot < 0:
                    slot = column_slot(data, cache, i, index, active_size)
                for k in range(active_size):
                    j = index[k]
                    grad[j] += delta * store[slot, j]
                grad[i] += diag[i] * delta
        s += 1
    return s, active_size


class KernelDCD:
    """One-variable dual coordinate descent for kernel SVMs without bias.

    Parameters
    ----------
    problem : KernelDualProblem
        With ``bias='none'``; either loss.
    tol : float
        LIBLINEAR's ``-e`` on the projected gradients.
    shrinking : bool
        LIBLINEAR's shrinking rule.
    random_state : numpy.random.Generator
        Seeds the permutation of every pass.
    alpha : ndarray, optional
        Warm start (made feasible by ``problem.feasible``).
    shuffle : bool
        A new random order per pass (False: index order).
    chunk_evaluations : int
        Kernel evaluations after which an epoch returns within a pass.
    """

    def __init__(self, problem, tol, *, shrinking=True, random_state, alpha=None, shuffle=True,
                 chunk_evaluations=CHUNK_EVALUATIONS):
        if problem.bias != "none":
            raise ValueError("KernelDCD solves bias='none'; use solver='smo' or 'cgd' for the exact bias")
        self.problem = problem
        self.tol = tol
        self.shrinking = shrinking
        self.shuffle = shuffle
        self.chunk_evaluations = int(chunk_evaluations)
        self.state = new_state(random_state)
        self.alpha = problem.feasible(alpha)
        self.gradient = problem.gradient(self.alpha)
        self.index = problem.movable()
        self.n_movable = self.active_size = len(self.index)
        self.position = 0  # where the current pass stands in index[:active_size]
        self.pg = np.array([np.inf, -np.inf, -np.inf, np.inf])
        self.violation = np.inf
        self.passes = 0

    def epoch(self):
        p = self.problem
        if self.position == 0:
            if self.shuffle:
                shuffle_prefix(self.index, self.active_size, self.state)
            self.pg[2:] = (-np.inf, np.inf)
        self.position, self.active_size = kernel_dcd_steps(
            p.q.data, p.q.cache, self.gradient, self.alpha, p.q_diag, p.diag, p.upper_bound,
            self.index, self.position, self.active_size, self.pg, self.chunk_evaluations)
        if self.position < self.active_size:
            return False  # the pass goes on in the next epoch
        self.position = 0
        self.passes += 1
        self.violation, met, thresholds = projected_gradient_rule(self.pg[2], self.pg[3], self.tol)
        if met:
            if self.active_size == self.n_movable:
                return True
            self._unshrink()  # converged on the shrunk problem: check them all
            return False
        if self.shrinking:
            self.pg[:2] = thresholds
        return False

    def _unshrink(self):
        self._refresh_gradient()
        self.active_size = self.n_movable
        new_generation(self.problem.q.cache)  # partial columns no longer cover the active set
        self.pg[:2] = (np.inf, -np.inf)

    def _refresh_gradient(self):
        """Recompute the stale gradient entries of the shrunk variables."""
        stale = self.index[self.active_size:]
        self.gradient[stale] = self.problem.gradient(self.alpha)[stale]

    @property
    def n_iter(self):
        """The solver's own iteration count (what ``max_iter`` limits)."""
        return self.passes

    def certificate(self):
        """(primal, dual, relative gap, intercept) from the exact gradient."""
        if self.active_size < self.n_movable:
            self._refresh_gradient()
        return self.problem.certificate(self.alpha, self.gradient)

    def counters(self):
        q = self.problem.q
        return {"passes": self.passes, "kernel_evaluations": q.kernel_evaluations,
                "cache_hits": q.cache_hits}
