"""Primal coordinate descent for the L1-regularised L2-loss SVC: the Python side.

``PrimalCD`` runs :func:`._pcd_jit.pcd_pass` over the weights w_j (the
augmented bias among them) of an :class:`~dualsvm.problems.linear.L1RegularizedProblem`:
LIBLINEAR's ``solve_l1r_l2_svc`` (``-s 5``, scikit-learn's ``penalty='l1'``).

Stopping is LIBLINEAR's rule for ``-s 5``: a pass has converged when the sum of
the violations of its coordinates is at most eps times that of the first pass,
with eps = tol * max(min(#pos, #neg), 1) / l (LIBLINEAR's ``primal_solver_tol``;
rows of zero cost do not count), re-checked on the full problem once shrinking
has removed coordinates. ``violation`` is that ratio. An ``epoch()`` may run
several passes (``passes_per_epoch``), the rule checked between them in compiled
code; ``n_iter`` counts passes. The certificate is the
problem's ``evaluate_primal`` (a dual-feasible point built from the margins), so
the reported gap bounds P(w) - P*.
"""

import numpy as np
import scipy.sparse as sp

from ._pcd_jit import column_squares, pcd_passes, recompute_margins, signed_transpose
from .rng import new_state


def primal_tolerance(tol, y, cost):
    """LIBLINEAR's primal_solver_tol: tol * max(min(#pos, #neg), 1) / l over the rows of
    non-zero cost."""
    kept = cost > 0
    positive = int(np.count_nonzero(y[kept] > 0))
    rows = int(np.count_nonzero(kept))
    return tol * max(min(positive, rows - positive), 1) / max(rows, 1)


def signed_columns(problem):
    """CSC arrays (data, rows, pointers) of y_i x_ij, the augmented feature (value B)
    as the last column when the problem has one (:func:`._pcd_jit.signed_transpose`;
    row indices int32, half the bytes of the column walks)."""
    X = problem.X
    if not sp.issparse(X):
        X = sp.csr_matrix(X)  # the zeros add nothing to a column walk
    if X.shape[0] > np.iinfo(np.int32).max:
        raise ValueError(f"primal coordinate descent takes at most 2**31 - 1 rows, got "
                         f"{X.shape[0]}")
    return signed_transpose(X.data, X.indices, X.indptr, X.shape[1], problem.y,
                            problem.augmented_value)


class PrimalCD:
    """Coordinate descent on w; ``alpha`` is the dual point of the last certificate."""

    def __init__(self, problem, tol, *, shrinking=True, shuffle=True, random_state, w=None,
                 passes_per_epoch=1, max_passes=None):
        if problem.penalty != "l1":
            raise ValueError("primal coordinate descent solves the L1-penalty squared hinge "
                             "(L1RegularizedProblem)")
        self.problem = problem
        self.tol = primal_tolerance(tol, problem.y, problem.C)
        self.shrinking = shrinking
        self.shuffle = shuffle
        self.state = new_state(random_state)
        self.columns = signed_columns(problem)
        n_weights = problem.n_weights
        self.w = np.zeros(n_weights) if w is None else np.array(w, dtype=np.float64)
        self.b = np.empty(problem.n_samples)
        recompute_margins(*self.columns, self.w, self.b)
        self.col_sq = column_squares(*self.columns, problem.C, n_weights)
        self.index = np.arange(n_weights, dtype=np.int64)
        self.active_size = n_weights
        self.n_rows = max(int(np.count_nonzero(problem.C > 0)), 1)
        self.gmax_old = np.inf
        self.gnorm1_init = -1.0
        self.violation = np.inf
        self.alpha = np.zeros(problem.n_samples)
        self.passes_per_epoch = passes_per_epoch
        self.max_passes = max_passes  # the total budget of passes (None: none)
        self.n_iter = 0  # passes so far

    def epoch(self):
        """``passes_per_epoch`` passes (fewer at the end of ``max_passes``) in compiled
        code, LIBLINEAR's rule checked after each; True once it holds."""
        budget = self.passes_per_epoch
        if self.max_passes is not None:
            budget = max(1, min(budget, self.max_passes - self.n_iter))
        (self.active_size, self.gmax_old, self.gnorm1_init, passes, converged,
         self.violation) = pcd_passes(
            *self.columns, self.problem.C, self.col_sq, self.w, self.b, self.index,
            self.active_size, self.gmax_old, self.gnorm1_init, float(self.n_rows),
            self.shrinking, self.state, self.shuffle, self.tol, budget)
        self.n_iter += passes
        return converged

    def counters(self):
        """The record's ``epoch`` is the number of passes (several per call unmonitored)."""
        return {"epoch": self.n_iter}

    def certificate(self):
        """(primal, dual, relative gap, intercept) of w; sets ``alpha``, the dual point."""
        p = self.problem  # the kept margins b_i = 1 - y_i w'x_i spare a pass
        primal, dual, gap, self.alpha = p.evaluate_primal(self.w, p.y * (1.0 - self.b))
        return primal, dual, gap, 0.0
