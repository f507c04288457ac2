"""The Newton method for the L2-loss SVC in the primal: LIBLINEAR's ``-s 2``.

On a :class:`~dualsvm.problems.linear.DualProblem` with the squared hinge (bias 'none' or
'augmented'), the primal

    P(w) = 1/2 w'w + sum_i C_i max(0, 1 - y_i w'x_i)^2

is once differentiable with a generalised Hessian: with I the rows inside the
margin (y_i w'x_i < 1),

    grad P(w) = w + 2 X_I' (C_I y_I (y_I X_I w - 1)),   H = Id + 2 X_I' C_I X_I.

``NewtonCG`` is LIBLINEAR 2.50's ``NEWTON`` on its ``l2r_l2_svc_fun`` (Galli and
Lin, 2021): each iteration solves H s = -grad P(w) by conjugate gradients
preconditioned with M = 0.99 + 0.01 diag(H), stopped by the decrease of the
quadratic model (cg_iter (Q_k - Q_{k-1}) >= min(0.5, sqrt(||g||_{M^-1})) Q_k), then
backtracks from the step 1 (halving, at most 20 times) until P(w + a s) - P(w) <=
0.01 a g's, with P(w + a s) from X w and X s in O(n) per try. An iteration is one
compiled call (:func:`._newton_jit.newton_iteration`).

Stopping is LIBLINEAR's: ||grad P(w)|| <= eps ||grad P(0)||, eps = tol * max(min(#pos,
#neg), 1) / l (:func:`.primal_cd.primal_tolerance`), or a failed line search, or a
relative decrease of P below 1e-12. ``violation`` is ||grad P(w)|| / ||grad P(0)||;
``epoch()`` is one Newton iteration and ``n_iter`` counts them. The certificate is
the problem's ``evaluate_primal`` (the dual point of the margins).
"""

import numpy as np

from ._newton_jit import gradient_at, newton_iteration
from .primal_cd import primal_tolerance

#: LIBLINEAR's constants: the preconditioner's mixing, the CG tolerance cap, the
#: Armijo fraction and the most halvings of a line search.
PRECONDITIONER_MIX = 0.01
CG_TOLERANCE = 0.5
ARMIJO = 0.01
MAX_LINE_SEARCH = 20


class NewtonCG:
    """Newton iterations on w; ``alpha`` is the dual point of the last certificate."""

    def __init__(self, problem, tol, *, w=None):
        if problem.loss != "squared_hinge" or problem.bias == "exact" or problem.penalty != "l2":
            raise ValueError("the Newton method solves the L2-penalty squared hinge with the "
                             "bias 'none' or 'augmented'")
        self.problem = problem
        self.eps = primal_tolerance(tol, problem.y, problem.C)
        self.w = np.zeros(problem.n_weights)
        self.decision = np.zeros(problem.n_samples)
        self._gradient(self.decision)  # at w = 0, for the stopping rule
        self.gnorm0 = float(np.linalg.norm(self.g))
        if w is not None and np.any(w):
            self.w = np.array(w, dtype=np.float64)
            self.decision = problem.decision(self.w)
            self._gradient(self.decision)
        self.f = problem.loss_sum(self.decision) + 0.5 * float(self.w @ self.w)
        self.violation = self._violation()
        self.alpha = np.zeros(problem.n_samples)
        self.n_iter = 0
        self.cg_iterations = 0

    @property
    def active_size(self):
        """The rows inside the margin, those the Hessian sums over."""
        return len(self.inside)

    def _gradient(self, decision):
        """g = grad P(w) at the decisions X w, and the diagonal of the Hessian there
        (``hessian_diagonal``); sets ``inside``, the rows of I."""
        p = self.problem
        self.g, self.hessian_diagonal, self.inside = gradient_at(
            p.rows, p.y, p.C, decision, p.augmented_value, self.w)

    def _violation(self):
        return float(np.linalg.norm(self.g)) / self.gnorm0 if self.gnorm0 > 0 else 0.0

    def epoch(self):
        """One Newton iteration; True once LIBLINEAR's rule stops training."""
        if self.violation <= self.eps:  # already (a warm start, or w = 0 optimal)
            return True
        p = self.problem
        f_old = self.f
        step, self.f, cg_iter, self.g, self.hessian_diagonal, self.inside = newton_iteration(
            p.rows, p.y, p.C, p.augmented_value, self.w, self.decision, self.g,
            self.hessian_diagonal, self.inside, self.f, PRECONDITIONER_MIX, CG_TOLERANCE,
            ARMIJO, MAX_LINE_SEARCH)
        self.cg_iterations += cg_iter
        if step == 0.0:  # no decrease found: LIBLINEAR stops here
            return True
        self.n_iter += 1
        self.violation = self._violation()
        return (self.violation <= self.eps or self.f < -1.0e32
                or abs(f_old - self.f) <= 1.0e-12 * abs(self.f))

    def counters(self):
        """Newton iterations so far (the record's ``epoch``) and their CG steps."""
        return {"epoch": self.n_iter, "cg_iterations": self.cg_iterations}

    def certificate(self):
        """(primal, dual, relative gap, intercept) of w; sets ``alpha``, the dual point."""
        primal, dual, gap, self.alpha = self.problem.evaluate_primal(self.w, self.decision)
        return primal, dual, gap, 0.0
