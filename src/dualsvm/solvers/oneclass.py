"""The linear one-class SVM's solver (LIBLINEAR ``-s 21``): the Python side of
:mod:`._oneclass_jit`' two-level coordinate descent.

``tol`` is LIBLINEAR's ``-e`` for ``-s 21`` (default 0.01): stop when the maximal
violation max_{a_i < U_i} -G_i - min_{a_j > 0} -G_j is below it on the full,
unshrunk problem. ``violation`` reports it; ``n_iter`` counts outer iterations,
LIBLINEAR's ``#iter``. An ``epoch()`` may run several of them in compiled code
(``passes_per_epoch``), as a Python round trip costs more than one on a small problem.
"""

import numpy as np

from ._oneclass_jit import oneclass_passes


class OneClassCD:
    """Two-level (pair) coordinate descent on :class:`~dualsvm.problems.linear.LinearOneClassDual`."""

    def __init__(self, problem, tol, *, shrinking=True, passes_per_epoch=1, max_passes=None):
        self.problem = problem
        self.tol = tol
        self.shrinking = shrinking
        self.alpha = problem.feasible(None)
        self.w = problem.weights(self.alpha)
        self._movable = problem.movable()
        self.index = self._movable.copy()
        self.n_movable = self.active_size = len(self.index)
        self.gradient = np.zeros(problem.n_samples)
        # the selection's (value, index) lists, its quicksort's stack of ranges, and
        # the pair steps' scattered row (zeros between steps)
        self._scratch = [np.empty(self.n_movable, dtype=np.int64 if k % 2 else np.float64)
                         for k in range(4)] + [np.empty(128, dtype=np.int64),
                                               np.zeros(problem.n_features)]
        self.violation = np.inf
        self.passes_per_epoch = passes_per_epoch
        self.max_passes = max_passes
        self.n_iter = 0
        self._gradient_fresh = False

    def epoch(self):
        p = self.problem
        budget = self.passes_per_epoch
        if self.max_passes is not None:
            budget = max(1, min(budget, self.max_passes - self.n_iter))
        self.active_size, passes, converged, self.violation = oneclass_passes(
            p.rows, self.alpha, self.w, p.q_diag, p.upper_bound, self.index, self.active_size,
            self._movable, self.gradient, self.tol, self.shrinking, budget, *self._scratch)
        self.n_iter += passes
        # converged: the last check computed G = X w of every movable variable, and
        # w has not moved since, so the certificate needs no pass over the data
        self._gradient_fresh = converged
        return converged

    def certificate(self):
        """(primal, dual, relative gap, -rho) of the current point."""
        return self.problem.evaluate(self.alpha, self.w,
                                     self.gradient if self._gradient_fresh else None)

    def counters(self):
        """The record's ``epoch`` is the number of outer iterations (several per call)."""
        return {"epoch": self.n_iter}
