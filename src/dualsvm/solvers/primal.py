"""Primal stochastic solvers for linear SVMs: Pegasos and implicit updates.

The objective
-------------
With per-sample costs C_i, ``m`` rows (those with C_i > 0) and S = sum_i C_i,
both solvers minimise

    F(w) = lambda/2 ||w||^2 + 1/m sum_i s_i loss(y_i w'x_i),
    lambda = 1/S,  s_i = m C_i / S,

which is P(w) / S for the dual solvers' primal P(w) = 1/2 w'w + sum_i C_i loss_i:
the same minimiser, and every P reported here is that P, comparable with DCD's.
With C_i = C for all rows, lambda = 1/(C n), s_i = 1 and P = (C n) F, Pegasos'
own scaling (Shalev-Shwartz et al., 2011). Each step samples a row uniformly;
s_i weights its loss (as scikit-learn's SGD does with sample weights), so the
stochastic gradients are unbiased for F. An epoch is one pass over the m rows in
a random permutation (``shuffle=True``, new each epoch, from the seeded
generator of :mod:`.rng`) or in order; rows with C_i = 0 are never visited.

Step sizes eta_t = 1/(lambda t), t = 1, 2, ... counts steps over all epochs.

Pegasos (mini-batch A_t of ``batch_size`` rows, margins m_j = y_j w'x_j read at w_t)::

    w <- (1 - eta_t lambda) w + eta_t/|A_t| sum_j s_j (-loss'(m_j)) y_j x_j
    w <- min(1, 1/(sqrt(lambda) ||w||)) w

with -loss'(m) = 1 (hinge) or 2 (1 - m) (squared hinge) where m < 1, else 0.
The first step has eta_1 lambda = 1 and forgets the starting point.

Implicit updates take the proximal step on sample i instead of the gradient step::

    w+ = argmin_u  1/(2 eta) ||u - w||^2 + lambda/2 ||u||^2 + s_i loss(y_i u'x_i).

Derivation: with c = 1 + eta lambda, the optimality condition is
(u - w)/eta + lambda u - g y_i x_i = 0 for some g in s_i (-dloss(margin of u)),
so u = (w + eta g y_i x_i) / c, and u's margin is (r + eta g q)/c with
r = y_i w'x_i (the margin before the step) and q = ||x_i||^2.

* hinge: g = s_i if u's margin < 1, 0 if > 1, anything in [0, s_i] if = 1.
  g = 0 is consistent iff r >= c; otherwise solving (r + eta g q)/c = 1 gives
  g = (c - r)/(eta q), which is consistent iff it is <= s_i; else g = s_i. So

      g = clip((1 + eta lambda - y_i w'x_i) / (eta ||x_i||^2), 0, s_i),

  the published formula (there with s_i = 1, "gamma").
* squared hinge: g = 2 s_i max(0, 1 - (r + eta g q)/c), linear in g:

      g = 2 s_i (c - r) / (c + 2 s_i eta q)  if r < c,  else 0.

Unlike the gradient step, the implicit step cannot overshoot: u's margin never
passes 1 when x_i is the only row, whatever eta. Both solvers then project onto
the ball ||w|| <= 1/sqrt(lambda), which holds the optimum for both losses
(||w*||^2 <= sum_i a_i <= S for the hinge; <= S/2 for the squared hinge), so the
projection never moves away from it.

Cost: w = scale * v with the decay in ``scale`` (scikit-learn's WeightVector),
so one step costs O(nnz_i); see ``_primal_jit``.

The bias: 'none', or 'augmented' (the constant feature B, regularised as in
LIBLINEAR's -B and DCD's augmented mode, so the objectives compare with DCD's
augmented run). The exact (unregularised) bias is not offered: its dual
constraint has no counterpart in these steps.

The certificate: these solvers have no dual variables. After an epoch
(when monitored, and always at the end) ``certificate`` maps w to the feasible dual
point of :meth:`dualsvm.problems.linear.DualProblem.dual_point` and reports P(w), that
point's dual value D and (P - D)/P. P(w) is exact; D <= P* always, so the gap is
an honest upper bound on the relative suboptimality of w, but for the hinge loss
a loose one (see ``dual_point``). ``alpha`` is that dual point. These solvers
have no cheap optimality measure of their own, so ``epoch`` never reports
convergence and ``tol`` is not theirs to use: the driver stops them by max_iter,
time or the gap (``LinearSVC`` passes its ``tol`` as the gap to reach).
``violation`` is NaN; ``active_size`` is m.
"""

import numpy as np

from ..data.rows import squared_norms
from ._primal_jit import implicit_epoch, pegasos_epoch
from .rng import new_state


class _PrimalSGD:
    """Shared state of the primal solvers: w, the step counter, lambda, s_i."""

    def __init__(self, problem, tol=None, *, shrinking=True, shuffle=True, random_state,
                 alpha=None, w=None, t=0, seen=(0, 0.0)):
        # tol and shrinking are accepted for the uniform solver interface and
        # unused (see the module docstring); dual variables (alpha) are refused: a
        # warm start is w with its step count t.
        del tol, shrinking
        if problem.bias == "exact":
            raise ValueError(f"{type(self).__name__} fits the bias as an augmented feature "
                             "or not at all; the exact bias needs a dual solver")
        if alpha is not None:
            raise ValueError(f"{type(self).__name__} starts from a primal w, not from dual "
                             "variables: pass w (and its step count t)")
        self.problem = problem
        self.shuffle = shuffle
        self.state = new_state(random_state)
        self.index = np.flatnonzero(problem.C > 0).astype(np.int64)
        # seen = (rows, sum of C_i) of earlier data this model already stepped
        # over (partial_fit): the objective is that of all the rows together.
        n_rows = seen[0] + len(self.index)
        cost_sum = seen[1] + float(problem.C[self.index].sum())
        if cost_sum <= 0.0:
            raise ValueError("every sample has zero weight: nothing to fit")
        self.lam = 1.0 / cost_sum
        self.sample_scale = problem.C * (n_rows / cost_sum)
        self.x_sq_norms = squared_norms(problem.rows, problem.n_samples, problem.augmented_value)
        if w is None:
            self.w = np.zeros(problem.n_weights)
        else:
            self.w = np.array(w, dtype=np.float64)
            if self.w.shape != (problem.n_weights,):
                raise ValueError(f"w has shape {self.w.shape}; expected ({problem.n_weights},)")
        self.t = int(t)
        self.alpha = np.zeros(problem.n_samples)
        self.violation = np.nan
        self.active_size = len(self.index)

    def epoch(self):
        # The kernel keeps w = scale * v and folds the scale back into w at its end.
        self.t = self._run_epoch(float(self.w @ self.w))
        return False

    def certificate(self):
        """(primal, dual, relative gap, intercept) of w; sets ``alpha``, the dual point."""
        primal, dual, gap, self.alpha = self.problem.evaluate_primal(self.w)
        return primal, dual, gap, 0.0


class Pegasos(_PrimalSGD):
    """Pegasos with optional mini-batches (see the module docstring)."""

    def __init__(self, problem, tol=None, *, batch_size=1, **options):
        super().__init__(problem, tol, **options)
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.batch_size = int(batch_size)
        self._dots = np.empty(self.batch_size)

    def _run_epoch(self, sq_norm):
        p = self.problem
        return pegasos_epoch(p.rows, p.y, self.sample_scale, self.x_sq_norms, self.w, 1.0,
                             sq_norm, p.augmented_value, self.index, self.batch_size,
                             self.lam, self.t, p.loss == "squared_hinge", self.state,
                             self.shuffle, self._dots)


class ImplicitSGD(_PrimalSGD):
    """Implicit (proximal) stochastic updates, one row per step."""

    def _run_epoch(self, sq_norm):
        p = self.problem
        return implicit_epoch(p.rows, p.y, self.sample_scale, self.x_sq_norms, self.w, 1.0,
                              sq_norm, p.augmented_value, self.index, self.lam, self.t,
                              p.loss == "squared_hinge", self.state, self.shuffle)
