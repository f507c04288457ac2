"""SMO decomposition for the kernel dual with the exact bias (LIBSVM's C-SVC).

Problem (:class:`dualsvm.problems.kernel.KernelDualProblem`, ``bias='exact'``)::

    min_a f(a) = 1/2 a'(Q + D)a - e'a,   0 <= a_i <= U_i,   y'a = 0

or LIBSVM's general form (:class:`dualsvm.problems.kernel.KernelQP`: SVR, nu-SVR, nu-SVC,
one-class), with a linear term p in place of -e, and for the nu problems a second
constraint e'a = const (``two_constraints``): then both variables of a step have
the same sign, so that each of the two sums stays, and the working set is
LIBSVM's ``Solver_NU`` rule: i is the maximal violator among the variables of
one sign, j chosen by the second-order rule among the same sign, the sign whose
pair gains more; the stopping measure is the larger of the two signs' violations,
and shrinking tests each sign against its own violation.

Every step changes two variables (i, j) along y_i a_i + y_j a_j = const:

* working set: i maximises -y_i G_i over I_up (maximal violation), j minimises
  the second-order decrease -(b_ij)^2 / a_ij over I_low with b_ij > 0 (WSS3 of
  Fan, Chen and Lin 2005, LIBSVM's ``select_working_set``), where
  a_ij = Q_ii + Q_jj - 2 y_i y_j Q_ij is replaced by tau = 1e-12 when <= 0
  (non-PSD kernels such as sigmoid stay correct: every step still decreases f);
* stop when max_{I_up} -y G - min_{I_low} -y G < tol (LIBSVM's ``-e``, 1e-3);
* shrinking: every min(n, 1000) steps, bounded variables whose gradient pushes
  them into their bound beyond the current violation leave the active set;
  once the violation is below 10 tol the gradient is rebuilt and all variables
  return (once), and convergence on the active set is always re-checked on the
  whole problem. Rebuilding the gradient of shrunk variables uses
  G_bar = sum_{a_j = U_j} U_j Q_j and the free variables' complete columns (cached).
  A warm start (a path over C) shrinks first after ``WARM_FIRST_SHRINK`` steps;
* the bias b from the KKT conditions (average of -y_i G_i over free variables,
  else the midpoint of the feasible interval), as LIBSVM computes -rho.

Hinge loss gives LIBSVM's C-SVC; squared hinge (D_ii = 1/(2 C_i), U_i = inf)
works the same way. The compiled steps are in :mod:`._smo_jit`; one
``epoch()`` runs at most ``steps_per_epoch`` steps, so time budgets, Ctrl-C and
progress reports work during training.
"""

import numpy as np

from ._smo_jit import (ACTIVE, ACTIVE_SIZE, CONVERGED, ITERATIONS, ONE_CONSTRAINT, RECONSTRUCT,
                       SHRINK_COUNTER, new_smo_state, new_status, smo_steps)
from ._ws_jit import update_gradient

#: A warm start's first shrinking comes after this many steps, not LIBSVM's min(n, 1000):
#: its start is near the solution, and until it shrinks every step scans all n rows.
#: Shrinking after 50 steps saves most of those scans for about the same number of
#: steps; much earlier (a few steps) costs steps for less gain (measurements:
#: benchmarks/results/design_measurements.md, section solvers/smo.py).
WARM_FIRST_SHRINK = 50


class SMO:
    """LIBSVM's SMO solver over a :class:`~dualsvm.problems.kernel.KernelDualProblem`.

    Parameters
    ----------
    problem : KernelDualProblem
        With ``bias='exact'``.
    tol : float
        LIBSVM's ``-e``: stop when the maximal violation is below tol.
    shrinking : bool
        LIBSVM's ``-h``.
    random_state : ignored
        Accepted for the common solver interface (SMO is deterministic).
    alpha : ndarray or None
        Warm start (clipped to the box, then scaled to satisfy y'a = 0).
    steps_per_epoch : int
        SMO steps per ``epoch()``.
    max_steps : int or None
        Total step limit (the last epoch runs only the remainder).
    """

    def __init__(self, problem, tol=1e-3, *, shrinking=True, random_state=None, alpha=None,
                 steps_per_epoch=1000, max_steps=None):
        if getattr(problem, "bias", None) != "exact" or not hasattr(problem, "q"):
            raise ValueError("SMO solves a KernelDualProblem with bias='exact' or a KernelQP")
        self.problem = problem
        self.tol = float(tol)
        self.shrinking = bool(shrinking)
        self.steps_per_epoch = int(steps_per_epoch)
        self.max_steps = max_steps
        n = problem.n_samples
        p = problem
        self.alpha = p.feasible(alpha)
        self.status = new_status(p.y, self.alpha, p.upper_bound)  # kept by the steps
        started = self.alpha.any()
        cached = self._cached_start() if started else None
        if not started:  # LIBSVM's start: G = p at a = 0 (where f(a) = 0)
            self.G_bar, self.G = np.zeros(n), p.linear.copy()
        elif cached is not None:
            self.G_bar, self.G = cached
        else:
            # G_bar = sum over a_j = U_j of U_j Q_j (a product the problem may have
            # kept), first: the general problems' G then adds only the columns of
            # the free variables of their start (see KernelQP.product)
            at_upper = self.alpha >= p.upper_bound
            self.G_bar = p.product(np.where(at_upper, p.upper_bound, 0.0), "bounded") \
                if at_upper.any() else np.zeros(n)
            self.G = p.gradient(self.alpha)
        self.active = np.arange(n, dtype=np.int64)
        self.state = new_smo_state(n)
        if alpha is not None:
            self.state[SHRINK_COUNTER] = min(self.state[SHRINK_COUNTER], WARM_FIRST_SHRINK + 1)
        # the violation of the last selection and the objective f(a) = -D(a)
        self._measures = np.array([np.inf, -p.dual_from_gradient(self.alpha, self.G)
                                   if started else 0.0])
        self.finished = False

    def _cached_start(self):
        """(G_bar, G) of the start from the cached complete columns of its nonzero
        variables, as LIBSVM's ``Solver::Solve`` starts, when the cache computes them
        in bulk and holds them all and the problem has kept no product to start from
        (the first fit of a problem, not a path's next), and the float32 columns'
        rounding of G stays below a tenth of tol: the steps then find those columns
        cached (the nu problems' starts have about nu n nonzeros). As on the float64
        route, G is G_bar plus the columns of the free variables only. The products
        are kept as :meth:`KernelQP.product` keeps its own. None when it does not
        apply (then the start is from float64 products)."""
        p, alpha = self.problem, self.alpha
        cols = np.flatnonzero(alpha)
        if p.has_products or not p.q.bulk_columns or len(cols) > p.q.n_slots or \
                p.column_rounding(alpha) > 0.1 * self.tol:
            return None
        slots = p.q.complete_slots(cols)
        every = np.arange(p.n_samples, dtype=np.int64)
        bounded = np.where(alpha >= p.upper_bound, p.upper_bound, 0.0)
        G_bar = np.zeros(p.n_samples)
        update_gradient(p.q.cache.slots, slots, bounded[cols], G_bar, every)
        product = G_bar.copy()  # update_gradient skips the columns of a zero delta
        update_gradient(p.q.cache.slots, slots, (alpha - bounded)[cols], product, every)
        p.keep_product("bounded", bounded, G_bar)
        p.keep_product("alpha", alpha, product)
        return G_bar, product + p.diag * alpha + p.linear

    @property
    def violation(self):
        return float(self._measures[0])

    @property
    def active_size(self):
        return int(self.state[ACTIVE_SIZE])

    @property
    def n_iter(self):
        """SMO steps taken (LIBSVM's #iter)."""
        return int(self.state[ITERATIONS])

    def epoch(self):
        p = self.problem
        budget = self.steps_per_epoch
        if self.max_steps is not None:
            budget = min(budget, self.max_steps - self.n_iter)
        stop_at = self.n_iter + budget
        while True:
            code = smo_steps(p.q.data, p.q.cache, p.y, self.alpha, self.status, self.G,
                             self.G_bar, p.upper_bound, p.q_diag, p.diag, self.active,
                             self.state, self.tol, self.shrinking, stop_at - self.n_iter,
                             self._measures, p.two_constraints or ONE_CONSTRAINT)
            if code != RECONSTRUCT:
                return code == CONVERGED
            self._reconstruct()

    def finish(self):
        """Make the gradient exact everywhere (after an early stop), and the final
        certificate exact in float64; True (the certificate changed)."""
        p = self.problem
        if self.active_size < p.n_samples:
            self._reconstruct()
        # G_bar for the next warm start of a path (the start is scaled with the
        # bounds, so the same variables are at their bound: no kernel evaluation)
        p.keep_product("bounded", np.where(self.alpha >= p.upper_bound, p.upper_bound, 0.0),
                       self.G_bar)
        self.finished = True
        return True

    def certificate(self):
        """(primal, dual, relative gap, intercept).

        While training, the dual is the one SMO keeps, and while variables are
        shrunk their gradients are those of the moment they were shrunk, so the
        primal and gap are estimates. After :meth:`finish` the intercept is
        LIBSVM's (from SMO's gradient) and the objectives come from gradients
        recomputed in float64 where they count (the problem's
        ``final_certificate``): SMO's columns are float32, as LIBSVM's, which
        with large kernel values moves them by more than the gap (example:
        benchmarks/results/design_measurements.md, section solvers/smo.py).
        """
        if not self.finished:
            return self.problem.certificate(self.alpha, self.G, dual=-float(self._measures[1]))
        return self.problem.final_certificate(self.alpha, self.G)

    def counters(self):
        q = self.problem.q
        return {"iterations": self.n_iter, "kernel_evaluations": q.kernel_evaluations,
                "cache_hits": q.cache_hits}

    def _reconstruct(self):
        """G of the shrunk variables from G_bar and the free variables' columns:
        complete cached columns where the cache computes them in bulk (LIBSVM's
        float32 columns: along a path the free set changes little from one C to
        the next, so its columns are computed once and read by the later
        reconstructions), else tiled products (``QMatrix.times``, each kernel row
        once)."""
        p = self.problem
        n = p.n_samples
        m = self.active_size
        inactive = np.sort(self.active[m:])
        if len(inactive):
            alpha = self.alpha
            self.G[inactive] = (self.G_bar[inactive] + p.linear[inactive]
                                + p.diag[inactive] * alpha[inactive])
            on = self.active[:m]
            free = on[(alpha[on] > 0) & (alpha[on] < p.upper_bound[on])]
            if not p.q.bulk_columns:
                if len(free):
                    self.G[inactive] += p.q.times(free, alpha[free], rows=inactive)
            else:
                for start in range(0, len(free), p.q.n_slots):
                    cols = free[start:start + p.q.n_slots]
                    update_gradient(p.q.cache.slots, p.q.complete_slots(cols), alpha[cols],
                                    self.G, inactive)
        self.state[ACTIVE_SIZE] = n
        self.active.sort()  # 0..n-1, all active (see _smo_jit: the passes' order)
        self.status |= ACTIVE
        p.q.new_generation()
        self._measures[1] = -p.dual_from_gradient(self.alpha, self.G)
