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
0.01 a g's, with P(w + a s) from X w and X s in O(n) per try. The Hessian-vector
products are :func:`._newton_jit.hessian_product`.

Stopping is LIBLINEAR's: ||grad P(w)|| <= eps ||grad P(0)||, eps = tol * max(min(#pos,
#neg), 1) / l (:func:`.primal_cd.primal_tolerance`), or a failed line search, or a
relative decrease of P below 1e-12. ``violation`` is ||grad P(w)|| / ||grad P(0)||;
``epoch()`` is one Newton iteration and ``n_iter`` counts them. The certificate is
the problem's ``evaluate_primal`` (the dual point of the margins).
"""

import numpy as np

from ._newton_jit import gradient_terms, hessian_product, loss_along
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
        rows = problem.rows
        # x_ij^2 (and B^2 for the augmented feature): the diagonal of the Hessian
        self._squared_rows = (rows[0] * rows[0], rows[1], rows[2]) if isinstance(rows, tuple) \
            else rows * rows
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
        margins = p.y * decision
        inside = self.inside = np.flatnonzero(margins < 1.0)
        g, diagonal = np.zeros(p.n_weights), np.zeros(p.n_weights)
        gradient_terms(p.rows, self._squared_rows, inside,
                       p.C[inside] * p.y[inside] * (margins[inside] - 1.0), p.C,
                       p.augmented_value, g, diagonal)
        self.g = self.w + 2.0 * g
        self.hessian_diagonal = 1.0 + 2.0 * diagonal

    def _violation(self):
        return float(np.linalg.norm(self.g)) / self.gnorm0 if self.gnorm0 > 0 else 0.0

    def _hessian_times(self, d, out):
        p = self.problem
        hessian_product(p.rows, self.inside, p.C, d, p.augmented_value, out)
        return d + 2.0 * out

    def _preconditioner(self):
        return (1.0 - PRECONDITIONER_MIX) + PRECONDITIONER_MIX * self.hessian_diagonal

    def _conjugate_gradient(self, M):
        """The Newton direction s of H s = -g, LIBLINEAR's stopping rule for CG."""
        g = self.g
        s = np.zeros_like(g)
        r = -g
        z = r / M
        d = z.copy()
        scratch = np.empty_like(g)
        ztr = float(z @ r)
        cg_tol = min(CG_TOLERANCE, np.sqrt(np.sqrt(ztr)))
        q = 0.0
        for cg_iter in range(1, max(len(g), 5) + 1):
            hd = self._hessian_times(d, scratch)
            dhd = float(d @ hd)
            if dhd <= 1.0e-16:  # no curvature left along d (0 / 0)
                break
            step = ztr / dhd
            s += step * d
            r -= step * hd
            q_new = -0.5 * (float(s @ r) - float(s @ g))  # the quadratic model at s
            q_diff = q_new - q
            if q_new > 0 or q_diff > 0:  # the model did not decrease: rounding
                break
            if cg_iter * q_diff >= cg_tol * q_new:
                break
            q = q_new
            z = r / M
            ztr_new = float(z @ r)
            d = (ztr_new / ztr) * d + z
            ztr = ztr_new
        self.cg_iterations += cg_iter
        return s

    def _line_search(self, s):
        """Step from w along s by LIBLINEAR's backtracking; the step taken, 0 if none."""
        p = self.problem
        xs = p.decision(s)
        sts, wts, gts = float(s @ s), float(self.w @ s), float(self.g @ s)
        wtw = float(self.w @ self.w)
        f_old, step = self.f, 1.0
        for _ in range(MAX_LINE_SEARCH):
            f = loss_along(self.decision, xs, step, p.y, p.C) + \
                0.5 * (step * step * sts + wtw) + step * wts
            if f - f_old <= ARMIJO * step * gts:
                self.decision += step * xs
                self.w += step * s
                self.f = f
                return step
            step *= 0.5
        return 0.0

    def epoch(self):
        """One Newton iteration; True once LIBLINEAR's rule stops training."""
        if self.violation <= self.eps:  # already (a warm start, or w = 0 optimal)
            return True
        s = self._conjugate_gradient(self._preconditioner())
        f_old = self.f
        if self._line_search(s) == 0.0:  # no decrease found: LIBLINEAR stops here
            return True
        self._gradient(self.decision)
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
