"""Crammer and Singer's multi-class SVM by the sequential dual method: the Python side.

``CrammerSingerCD`` is LIBLINEAR's ``Solver_MCSVM_CS`` (``-s 4``) on a
:class:`~dualsvm.problems.crammer_singer.CrammerSingerProblem`: each step solves one row's
k-variable sub-problem exactly (:mod:`._cs_jit`). ``tol`` is LIBLINEAR's
``-e``; with the violation of a pass, the largest max_m G_m - min_m G_m over the
rows it stepped on, LIBLINEAR's rule is:

* violation < eps_shrink (first max(10 tol, 1)): if it is also < tol and the pass
  ran on the full, unshrunk problem, training has converged; otherwise every row
  and class is made active again and eps_shrink = max(eps_shrink / 2, tol);
* else the next pass keeps the shrunk problem.

An ``epoch()`` may run several passes (``passes_per_epoch``; the rule is checked
between them in compiled code), since a Python round trip costs more than a pass
over a small problem; ``n_iter`` counts passes. ``certificate()`` gives
P(W) - D(a) of the problem (one product X W per call).
"""

import numpy as np
import scipy.sparse as sp

from ._cs_jit import cs_passes
from .rng import new_state


class CrammerSingerCD:
    """The sequential dual method; ``alpha`` is (n_classes, n_samples), ``w`` the
    (n_weights, n_classes) W(alpha)."""

    def __init__(self, problem, tol, *, shrinking=True, shuffle=True, random_state, alpha=None,
                 passes_per_epoch=1, max_passes=None):
        self.problem = problem
        self.tol = tol
        self.shrinking = shrinking
        self.shuffle = shuffle
        self.state = new_state(random_state)
        k, n = problem.n_classes, problem.n_samples
        X = problem.X
        # one compiled loop for both layouts: dense rows as CSR (zeros add nothing)
        csr = X if sp.issparse(X) else sp.csr_matrix(X)
        self._data = csr.data
        # int32 column indices when they fit: half the bytes of a row walk
        self._indices = csr.indices.astype(
            np.int32 if X.shape[1] <= np.iinfo(np.int32).max else np.int64, copy=False)
        self._indptr = csr.indptr.astype(np.int64, copy=False)
        start = problem.feasible(alpha)
        self.w = problem.weights(start) if start.any() else \
            np.zeros((problem.n_weights, k))  # a cold start: no product X'a
        # the kernel reads a row's k variables together: rows of (n, k)
        self._alpha = np.ascontiguousarray(start.T)
        self.index = np.flatnonzero(problem.C > 0).astype(np.int64)
        self.n_movable = self.active_size = len(self.index)
        self.class_index = np.tile(np.arange(k, dtype=np.int64), (n, 1))
        self.n_active = np.full(n, k, dtype=np.int64)
        self.y_pos = problem.labels.copy()
        # G, B, D, alpha_new, d_ind, d_val of the kernel
        self._scratch = [np.zeros(k) for _ in range(4)] + [np.zeros(k, dtype=np.int64),
                                                          np.zeros(k)]
        self.eps_shrink = max(10.0 * tol, 1.0)
        self.start_from_all = True
        self.violation = np.inf
        self.passes_per_epoch = passes_per_epoch
        self.max_passes = max_passes  # the total budget of passes (None: none)
        self.n_iter = 0  # passes so far

    @property
    def alpha(self):
        """The dual variables a_i^m as (n_classes, n_samples)."""
        return self._alpha.T

    def epoch(self):
        """``passes_per_epoch`` passes (fewer at the end of ``max_passes``) in compiled
        code, LIBLINEAR's rule checked after each; True once it holds."""
        p = self.problem
        budget = self.passes_per_epoch
        if self.max_passes is not None:
            budget = max(1, min(budget, self.max_passes - self.n_iter))
        (self.active_size, self.eps_shrink, self.start_from_all, passes, converged,
         violation) = cs_passes(
            self._data, self._indices, self._indptr, p.augmented_value, p.C, p.q_diag,
            self._alpha, self.w, self.index, self.active_size, self.n_movable,
            self.class_index, self.n_active, self.y_pos, self.shrinking, self.state,
            self.shuffle, *self._scratch, self.tol, self.eps_shrink, self.start_from_all,
            budget)
        self.n_iter += passes
        self.violation = max(violation, 0.0)
        return converged

    def counters(self):
        """The record's ``epoch`` is the number of passes (several per call unmonitored)."""
        return {"epoch": self.n_iter}

    def certificate(self):
        return self.problem.evaluate(self.alpha, self.w)
