"""Dual coordinate descent for linear SVMs: the Python side of the solvers.

``DualCD`` is LIBLINEAR's ``solve_l2r_l1l2_svc`` (no bias or augmented bias):
``tol`` is LIBLINEAR's ``-e``; an epoch has converged when the projected
gradients of the active variables satisfy

    max PG - min PG <= tol   and   |max PG| <= tol   and   |min PG| <= tol,

and training stops only when that holds on the full, unshrunk problem. An
``epoch()`` runs one pass, or with ``work_per_epoch`` passes until that many
variables have been visited (the compiled loop checking the rule and re-checking the
full problem between them, as one pass per call would); ``n_iter`` counts passes.

For support vector regression (:class:`~dualsvm.problems.linear.SVRDualProblem`),
``DualCD`` is LIBLINEAR's ``solve_l2r_l1l2_svr`` and ``tol`` its ``-e`` for
``-s 12`` / ``-s 13``: an epoch has converged when the sum of the violations of
its variables is at most tol times that sum in the first epoch,

    sum_i v_i <= tol * sum_i v_i(first epoch),

again re-checked on the full problem before training stops; ``violation``
reports that ratio. An ``epoch()`` may run several passes (``passes_per_epoch``,
the compiled loop checking the rule between them), since a Python round trip
costs more than a pass over a small problem; ``n_iter`` counts passes.

``PairCD`` solves the exact-bias dual (y'a = 0) by two-variable steps. Each epoch
computes the full gradient once (one product X w), stops when LIBSVM's
maximal violation max_{I_up} -y_i G_i - min_{I_low} -y_i G_i <= tol (LIBSVM's
``-e``), and otherwise takes steps on the pairs of that ranking, from the most
violating down, with exact gradients for each pair.
"""

import numpy as np

from ._dcd_jit import dcd_passes, pair_epoch, projected_gradient_rule, svr_passes
from .rng import new_state


class DualCD:
    """One-variable dual coordinate descent (bias 'none' or 'augmented').

    ``w``, when given, is updated in place instead of computed from ``alpha``:
    the problem is then a block of rows of a larger problem (out-of-core
    training), and w must already hold sum_i y_i a_i x_i over all its rows.
    ``shrink_threshold`` v lets the first epoch shrink as if the one before had
    ended with projected gradients in [-v, v] (a path's next fit continues the run;
    classification only). ``violation_reference`` (regression): the sum of
    violations that ``tol`` is relative to, instead of this run's first pass (a path
    holds its warm-started fits to its cold first fit's reference: their own first
    pass, from a near-optimal start, would make the rule ever stricter).
    ``work_per_epoch`` (classification): an ``epoch()`` runs passes until it has
    visited this many variables (None: one pass); ``max_passes`` bounds all the
    passes (``exhausted`` then stops the driver); ``work_until_check``, which the
    driver sets before each epoch when a gap rule is due after that many
    variables, ends the epoch there too, so the gap is checked after the same
    passes as with one pass per epoch.
    """

    def __init__(self, problem, tol, *, shrinking=True, shuffle=True, random_state, alpha=None,
                 w=None, passes_per_epoch=1, max_passes=None, work_per_epoch=None,
                 shrink_threshold=np.inf, violation_reference=None):
        if problem.bias == "exact":
            raise ValueError("DualCD solves bias='none' or 'augmented'; use PairCD for the exact bias")
        self.problem = problem
        # SVRDualProblem says so; other problems (out-of-core row caches) are classification
        self.regression = getattr(problem, "regression", False)
        self.tol = tol
        self.shrinking = shrinking
        self.shuffle = shuffle
        self.state = new_state(random_state)
        self.alpha = problem.feasible(alpha)
        self.w = problem.weights(self.alpha) if w is None else w
        self.index = problem.movable()
        self.n_movable = self.active_size = len(self.index)
        self.violation = np.inf
        # as LIBLINEAR's thresholds: none (inf) unless there was a violation to shrink by
        threshold = shrink_threshold if shrinking and shrink_threshold > 0 else np.inf
        self._pg_old = (threshold, -threshold)
        self._gmax_old = np.inf  # regression: the previous pass's largest violation
        # regression: the first pass's sum of violations (< 0: none yet)
        self._gnorm1_init = -1.0 if violation_reference is None else violation_reference
        self.passes_per_epoch = passes_per_epoch  # regression: passes per epoch() call
        self.max_passes = max_passes  # the total budget of passes (None: none)
        self.work_per_epoch = work_per_epoch
        self.work_until_check = np.inf
        self.work = 0  # variables visited by the last epoch() (the gap rule's schedule)
        self.n_iter = 0  # passes over the active variables so far

    @property
    def exhausted(self):
        """Whether ``max_passes`` passes have run."""
        return self.max_passes is not None and self.n_iter >= self.max_passes

    def epoch(self):
        if self.regression:
            return self._svr_epoch()
        p = self.problem
        max_passes = 1
        if self.work_per_epoch is not None:
            max_passes = np.iinfo(np.int64).max if self.max_passes is None else \
                max(1, self.max_passes - self.n_iter)
        work_limit = min(np.inf if self.work_per_epoch is None else self.work_per_epoch,
                         self.work_until_check)
        (self.active_size, pg_max_old, pg_min_old, passes, converged, self.violation,
         self.work) = dcd_passes(
            p.rows, p.y, self.alpha, self.w, p.q_diag, p.diag, p.upper_bound,
            p.augmented_value, self.index, self.active_size, self.n_movable, *self._pg_old,
            self.tol, self.shrinking, max_passes, float(work_limit), self.state, self.shuffle)
        self._pg_old = (pg_max_old, pg_min_old)
        self.n_iter += passes
        return converged

    def _svr_epoch(self):
        p = self.problem
        budget = self.passes_per_epoch
        if self.max_passes is not None:
            budget = max(1, min(budget, self.max_passes - self.n_iter))
        (self.active_size, self._gmax_old, self._gnorm1_init, passes, converged,
         self.violation) = svr_passes(
            p.rows, p.y, self.alpha, self.w, p.q_diag, p.diag, p.upper_bound,
            p.augmented_value, p.epsilon, self.index, self.active_size, self.n_movable,
            self._gmax_old, self._gnorm1_init, self.tol, self.shrinking, budget,
            self.state, self.shuffle)
        self.n_iter += passes
        self.work = self.active_size
        return converged

    def counters(self):
        """The record's ``epoch`` is the number of passes so far (several per call, see
        ``work_per_epoch`` and ``passes_per_epoch``); regression adds
        ``violation_reference``, the sum of violations ``tol`` is relative to."""
        if not self.regression:
            return {"epoch": self.n_iter}
        return {"epoch": self.n_iter, "violation_reference": self._gnorm1_init}


class PairCD:
    """Two-variable dual coordinate descent for the exact bias (y'a = 0)."""

    def __init__(self, problem, tol, *, shrinking=True, shuffle=True, random_state=None, alpha=None):
        # shrinking, shuffle and random_state are accepted for a uniform solver
        # interface; pairs are chosen by violation, not by a random order.
        if problem.bias != "exact":
            raise ValueError("PairCD solves bias='exact'")
        self.problem = problem
        self.tol = tol
        self.alpha = problem.feasible(alpha)
        self.w = problem.weights(self.alpha)
        self.active_size = problem.n_samples
        self.violation = np.inf

    def epoch(self):
        p = self.problem
        gradient = p.gradient(self.alpha, p.decision(self.w))
        self.violation = p.max_violation(self.alpha, gradient)
        if self.violation <= self.tol:
            return True
        score = -p.y * gradient
        up, low = p.bias_sets(self.alpha)
        up_order = np.flatnonzero(up)
        up_order = up_order[np.argsort(-score[up_order], kind="stable")]
        low_order = np.flatnonzero(low)
        low_order = low_order[np.argsort(score[low_order], kind="stable")]
        pair_epoch(p.rows, p.y, self.alpha, self.w, p.q_diag, p.diag, p.upper_bound,
                   score, up_order, low_order)
        return False

