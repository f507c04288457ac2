"""Decomposition with large working sets for the kernel dual with the exact bias.

Problem (:class:`dualsvm.problems.kernel.KernelDualProblem`, ``bias='exact'``), LIBSVM's
C-SVC dual, the same as :mod:`dualsvm.solvers.smo` solves::

    min_a f(a) = 1/2 a'(Q + D)a - e'a,   0 <= a_i <= U_i,   y'a = 0

The design of ThunderSVM (Wen, Shi, Li, He and Chen, JMLR 2018): instead of
two variables and two kernel columns per step, each outer iteration

1. selects a working set B of q variables: half kept from the previous set (the
   half chosen last), the rest the most violating variables in LIBSVM's order,
   taken alternately from the top of I_up and the bottom of I_low by the score
   -y_i G_i (so the maximal violating pair is always in B);
2. gets the q complete columns Q[:, B] from the column cache, computing the
   missing ones in one bulk block (:meth:`QMatrix.fill_columns
   <dualsvm.kernels.QMatrix.fill_columns>`:
   vectorised tile products, all threads), stored as cache columns (float32, as
   LIBSVM's), so columns that come back later are not recomputed;
3. solves the sub-problem over B (the other variables fixed) by SMO steps
   (WSS3, LIBSVM's clipping) inside the q x q block Q[B, B], until B's maximal
   violation is below max(STOP_RATIO * tol, ``inner_ratio`` times its value at the
   start);
4. updates the whole gradient with one pass G += Q[:, B] (a_B - a_B_old).

It stops when LIBSVM's maximal violation over all variables, computed from the
exact-in-float32-columns gradient as LIBSVM's is, falls below ``STOP_RATIO * tol``
(see there why below ``tol``): the dual reached is LIBSVM's or higher. The final
certificate recomputes in float64 the gradients of the support vectors and of the
rows near the margin (so the dual and primal objectives are exact; see
:meth:`WorkingSetSMO.certificate`).
A cold start has no shrinking: every variable is scanned once per outer iteration
(O(n)), against q columns of n entries each. A warm start (a path over C) screens:
once the violation is below ``SCREEN_VIOLATION``, the variables at 0 whose slack
y_t (f(x_t) + b) - 1 exceeds ``SCREEN_SLACK`` (rows beyond the margin, most of them
on a path at large C) leave the selection and the gradient updates until the
others meet the stopping rule; their gradients are then brought up to date in one
pass over the complete columns of the variables that moved meanwhile (from the
cache), and the rule is checked on all variables (if it fails, training goes on
and screens again). The stopping rule is the same; only the work per outer
iteration shrinks (see ``SCREEN_SLACK``).

Fused mode, when the cache cannot hold every column of Q (``cache_size`` below
4 n^2 bytes) and thrashes (``FREE_FRACTION``): the columns are not stored at all.
Step 2 keeps only the q x q block Q[B, B], in place from set to set: the variables
of the last set (half of B at least: the kept half) keep their rows of it, and the
rows of the new ones (:meth:`QMatrix.block <dualsvm.kernels.QMatrix.block>`) replace
those of the variables that left, as rows and as columns (a block gathered anew
instead cost 0.3 to 0.9 s of copies a fit at the tuned settings of the kernel
benchmark, more than the kernel values it saved on ijcnn1); step 4
computes G += Q[:, B] (a_B - a_B_old) by tiles of rows whose kernel values are used
as they are made
(:meth:`QMatrix.times <dualsvm.kernels.QMatrix.times>`, float64, all threads), for
the variables of B that moved only. With the columns
free, q is large (``FUSED_WORKING_SET``, as oneDAL's 2048): few working sets, each
column computed about once per set it moves in, instead of q = 128 to 256 columns
thrashing a cache too small for the support vectors. It shrinks as LIBSVM does,
with a margin: after each selection, the bounded variables whose gradient pushes
them into their bound beyond the maximal violation by more than the violation
itself (``SHRINK_MARGIN``) leave the selection and the gradient updates (so the
tiles cover the active rows only); when the active variables meet the stopping
rule, the others' gradients are brought up to date (by tiles, from their values
when the shrinking began, over the columns of the variables that moved since) and
the rule is checked on all.

Memory: the columns live in the problem's QMatrix cache (``cache_size``; q is at
most the number of columns it holds), plus the dense layout of at most one
block's points (within the cache's block allowance) and O(n) vectors; in fused
mode, the q x q block and a set's new rows (at most another q x q: ``cache_size``
together), the points of B and O(n) vectors.
"""

import numpy as np

from ._ws_jit import (gather_block, local_smo, place_rows, select_working_set, shrinkable,
                      update_gradient)

#: The solver stops at a maximal violation below STOP_RATIO * tol, not tol: moving q
#: variables per sub-problem, it crosses tol at points whose dual lies below LIBSVM's
#: (whose SMO crosses it by the single maximal pair) by up to 5e-6 relative on a flat
#: dual (degree-3 poly on ijcnn1, where points of violation 7e-4 to 1e-3 differ by
#: 8e-6). Half of tol took 2% to 4% more outer iterations there and put every dual
#: of the kernel benchmark at or above LIBSVM's (benchmarks/results/kernel.md).
STOP_RATIO = 0.5

#: Working-set sizes the automatic choice picks from (powers of two).
MIN_WORKING_SET, MAX_WORKING_SET = 16, 1024
#: The automatic q grows with n: at most max(SMALL_WORKING_SET, n / ROWS_PER_VARIABLE)
#: (measured on 2 cores, ijcnn1's first 5000 to 20000 rows: q = 128 was 10% to 35%
#: faster than 512 or 1024, which computed up to 50% more kernel columns; w7a and
#: a9a, 25000 and 32000 rows: 256 as fast as or faster than 128).
SMALL_WORKING_SET, ROWS_PER_VARIABLE = 128, 100

#: Screening (module docstring): variables at 0 with a slack above SCREEN_SLACK leave
#: once the violation is below SCREEN_VIOLATION. Not at the start: a start scaled by
#: C_new / C_old scales the bias too (w7a, 2^6.4 to 2^7: -19.9 at the start, -13.0 at
#: the end), and rows screened by its slacks came back violated. With the violation
#: below the slack threshold, a screened row cannot be in the maximal violating pair
#: at that point. Measured on the w7a path of the kernel benchmark (RBF, 20 C to
#: 2^7): about 7000 of 24692 rows active in 90% of the outer iterations, the same
#: outer iterations (2895 vs 2868), the path 30% faster; slack thresholds 0.05 and 0.1
#: were the fastest, 0.2 and 0.3 10% to 20% slower, 1.0 gained a fifth as much.
SCREEN_SLACK = 0.1
SCREEN_VIOLATION = 0.1

#: Fused mode (module docstring): q is the largest power of two <= min(FUSED_WORKING_SET,
#: n / FUSED_ROWS_PER_VARIABLE) whose q x q block takes at most half of cache_size (a
#: set's new rows, at most as many again, are computed beside it).
#: Measured with one thread (CPU seconds, counts), RBF, tol 1e-3: a9a at C = 8, gamma =
#: 2^-5 (11,400 support vectors, 10,000 at C): 28 working sets of 2048, 1.5e9 kernel
#: values, 8.3 s, against SMO's 55,000 steps, 1.2e9 values computed one column at a time
#: (67,500 cache misses), 25.9 s, and q = 128 in the cache (2,800 sets, 4.6e9 values);
#: q = 1024 took 124 sets and 2.8e9 values. ijcnn1 at C = 32, gamma = 2 (2,500 support
#: vectors): 21 sets, 6.0e8 values, 3.4 s, against SMO's 6.3 s and q = 1024's 4.2 s.
FUSED_WORKING_SET, FUSED_ROWS_PER_VARIABLE = 2048, 8
#: With ``fused=None``, the solver starts in the cache and goes fused once more than
#: FREE_FRACTION of its slots would be needed by the free variables (0 < a_i < U_i),
#: without waiting for the cache to turn over (on w7a at C = 16, gamma = 2^-5 that waited
#: 18 sets, with 500 free variables at their end): those move again and again, so their
#: columns are the ones the working sets come back to, and with more of them than the
#: cache keeps beside the flow of new candidates it thrashes. With few free variables
#: (C = 1 at gamma = 1 / d: variables go from 0 to C and stay) each column is used in
#: about one set, and the cache's sets of 128 to 256 beat the fused sets' products over
#: all active rows. Measured on 2 threads (wall seconds, cached / fused from the start;
#: free variables when the cache first turned over, over its slots): a9a at C = 1,
#: gamma = 1/123: 2.94 / 3.35 (0 / 508); ijcnn1 at C = 1: 3.04 / 3.47 (0 / 447), its first
#: 20000 rows 0.67 / 1.09 (0); a9a at C = 10: 5.20 / 3.97 (99 / 508); a9a at C = 8, gamma
#: = 2^-7: 5.15 / 3.80 (91); w8a at C = 16, gamma = 2^-5: 2.82 / 2.13 (252 / 493); w7a
#: there: 2.90 / 1.73 (510 / 995); ijcnn1 at C = 10 3.43 / 3.35 (52 / 447).
FREE_FRACTION = 1 / 8
#: Fused mode shrinks the active set only when at least this fraction of it can go (each
#: shrinking copies the O(n) selection arrays).
SHRINK_FRACTION = 1 / 16
#: Fused mode shrinks a bounded variable when its gradient pushes it into its bound beyond
#: the maximal violation by more than SHRINK_MARGIN times the violation (LIBSVM's rule at
#: 0): a set of 2048 moves the gradients far between two selections, and rows shrunk by
#: LIBSVM's rule at a violation of 1 to 3 came back violated when the gradients were
#: rebuilt (w7a at C = 16, gamma = 2^-5: violations 1.01 and 0.47 after the active rows
#: met the rule, 43 sets; with the margin none came back, 15 sets, kernel values 3.5e8 to
#: 1.6e8 with the other changes of that commit).
SHRINK_MARGIN = 1.0


def fused_working_set_size(n_samples, cache_bytes):
    """q of the fused mode (see ``FUSED_WORKING_SET``), at least 2."""
    limit = max(2, min(FUSED_WORKING_SET, n_samples // FUSED_ROWS_PER_VARIABLE,
                       int((cache_bytes / 16) ** 0.5)))
    return 1 << (limit.bit_length() - 1)


def working_set_size(n_samples, n_slots, requested=None):
    """q: ``requested`` (checked against what the cache holds), else the largest
    power of two <= min(MAX_WORKING_SET, n_slots / 2, n_samples, max(SMALL_WORKING_SET,
    n_samples / ROWS_PER_VARIABLE)) and >= 2."""
    if requested is not None:
        q = int(requested)
        if q < 2:
            raise ValueError(f"working_set must be an integer >= 2, got {requested!r}")
        if q > n_slots:
            raise ValueError(f"working_set={q} needs {q} kernel columns in the cache, which "
                             f"holds {n_slots}: raise cache_size or lower working_set")
        return min(q, n_samples)
    limit = max(2, min(MAX_WORKING_SET, n_slots // 2, n_samples,
                       max(SMALL_WORKING_SET, n_samples // ROWS_PER_VARIABLE)))
    return 1 << (limit.bit_length() - 1)


class WorkingSetSMO:
    """Large-working-set decomposition over a :class:`~dualsvm.problems.kernel.KernelDualProblem`.

    Parameters
    ----------
    problem : KernelDualProblem
        With ``bias='exact'`` and a kernel other than 'precomputed'.
    tol : float
        LIBSVM's ``-e``: stop when the maximal violation is below tol (below
        ``STOP_RATIO * tol``: see there).
    shrinking : bool
        Must be True (LIBSVM's default); this solver has no shrinking, and
        ``shrinking=False`` is refused rather than ignored.
    random_state : ignored
        Accepted for the common solver interface (the solver is deterministic).
    alpha : ndarray or None
        Warm start (made feasible as for SMO).
    working_set : int or None
        q; None: see :func:`working_set_size`.
    inner_ratio : float
        Each sub-problem is solved until its violation is below
        max(STOP_RATIO * tol, inner_ratio * its violation at the start) (ThunderSVM's 0.1).
    screening : bool or None
        Leave out the rows beyond the margin once the violation is small (module
        docstring); None: for a warm start only (``alpha`` given), so that cold fits
        stay those of the kernel benchmark. Not in fused mode, which shrinks.
    fused : bool or None
        Fused mode (module docstring) from the start, or never; None: when the
        cache holds fewer columns than Q has and it thrashes (``FREE_FRACTION``), unless
        ``working_set`` is given.

    Notes
    -----
    One ``epoch()`` is one outer iteration, and ``n_iter`` counts them (what
    ``SVC(max_iter=...)`` limits for this solver); ``counters()`` also reports the
    SMO steps taken inside the working sets (``iterations``, comparable to
    LIBSVM's ``#iter``).
    """

    def __init__(self, problem, tol=1e-3, *, shrinking=True, random_state=None, alpha=None,
                 working_set=None, inner_ratio=0.1, screening=None, fused=None):
        if getattr(problem, "bias", None) != "exact" or not hasattr(problem, "q"):
            raise ValueError("WorkingSetSMO solves a KernelDualProblem with bias='exact'")
        if problem.kernel.name == "precomputed":
            raise ValueError("the working-set solver needs the data rows, not a precomputed "
                             "kernel matrix: use solver='smo'")
        if not shrinking:
            raise ValueError("the working-set solver has no shrinking to turn off: "
                             "use solver='smo' for shrinking=False")
        self.problem = p = problem
        self.tol = float(tol)
        self._stop_at = STOP_RATIO * self.tol
        self.inner_ratio = float(inner_ratio)
        n = p.n_samples
        # None: cached until the cache thrashes (see FREE_FRACTION), if it cannot hold Q
        self._may_fuse = p.q.n_slots < n and working_set is None if fused is None \
            else bool(fused)
        self.fused = bool(fused)
        #: how the sets were solved, for ``solver_reason_``
        self.mode = "fused" if self.fused else "cached"
        self.q = (min(n, working_set_size(n, n, working_set)) if self.fused and working_set
                  else fused_working_set_size(n, p.q.cache_bytes) if self.fused
                  else working_set_size(n, p.q.n_slots, working_set))
        self.alpha = p.feasible(alpha)
        self.G = -np.ones(n) if alpha is None else p.gradient(self.alpha)
        self._objective = -p.dual_from_gradient(self.alpha, self.G)
        self._ws = np.empty(self.q, dtype=np.int64)
        self._count = 0
        self._keep = np.empty(0, dtype=np.int64)
        self.steps = 0
        self.outer = 0
        self._violation = np.inf
        self.active = np.arange(n, dtype=np.int64)
        # the fused mode shrinks instead (module docstring)
        self._screening = (alpha is not None if screening is None else bool(screening)) \
            and not self.fused
        self._screened_from = None  # alpha when the screened variables were left out
        self._last_block = None  # fused mode: the last set in its block's order, its block
        self._all_active = None  # fused mode: (alpha, G) when the last shrinking began
        self._select()
        self.finished = False

    @property
    def violation(self):
        return self._violation

    @property
    def active_size(self):
        return len(self.active)

    @property
    def n_iter(self):
        """Outer iterations (working sets solved)."""
        return self.outer

    def _screen(self):
        """Leave out the variables at 0 whose slack is above SCREEN_SLACK."""
        p = self.problem
        slack = p.loss_slack(self.alpha, self.G)
        kept_out = (self.alpha <= 0) & (slack > SCREEN_SLACK)
        if kept_out.any():
            self.active = np.flatnonzero(~kept_out)
            self._screened_from = self.alpha.copy()

    def _unscreen(self):
        """The screened variables' gradients brought up to date, G += Q[out, moved]
        (a - a_screened), from the complete columns of the moved variables (q at a
        time, from the cache); every variable active again."""
        p = self.problem
        inside = np.zeros(p.n_samples, dtype=bool)
        inside[self.active] = True
        out = np.flatnonzero(~inside)
        delta = self.alpha - self._screened_from
        moved = np.flatnonzero(delta)
        for start in range(0, len(moved), self.q):
            cols = moved[start:start + self.q]
            update_gradient(p.q.cache[0], p.q.complete_slots(cols), delta[cols], self.G, out)
        self.active = np.arange(p.n_samples, dtype=np.int64)
        self._screened_from = None

    def _select(self):
        """The next working set and the maximal violation over the active variables.
        A warm start screens once the violation is below SCREEN_VIOLATION; when the
        active variables meet the stopping rule, the screened ones come back and it
        is checked on all (if it fails, they are screened again at the next call)."""
        self._select_active()
        if self.fused:
            self._shrink_or_unshrink()
            return
        if self._screening and self._screened_from is None and \
                self._stop_at <= self._violation < SCREEN_VIOLATION:
            self._screen()
            self._select_active()
        if self._screened_from is not None and (self._violation < self._stop_at
                                                or self._count < 2):
            self._unscreen()
            self._select_active()

    def _shrink_or_unshrink(self):
        """Fused mode, after a selection over the active variables: when they meet the
        stopping rule, every variable back (gradients rebuilt) and selected again;
        else the bounded variables LIBSVM would shrink leave the active set."""
        p = self.problem
        if self._violation < self._stop_at or self._count < 2:
            if len(self.active) < p.n_samples:
                self._reconstruct()
                self._select_active()
            return
        out = shrinkable(p.y, self.alpha, self.G, p.upper_bound, self.active,
                         SHRINK_MARGIN * self._violation)
        if out.sum() > SHRINK_FRACTION * len(self.active):
            if len(self.active) == p.n_samples:
                self._all_active = (self.alpha.copy(), self.G.copy())
            inside = np.zeros(p.n_samples, dtype=bool)
            self.active = self.active[~out]
            inside[self.active] = True
            self._keep = self._keep[inside[self._keep]]
            self._select_active()

    def _free_count(self):
        """How many variables are strictly inside their box."""
        return int(np.count_nonzero((self.alpha > 0) & (self.alpha < self.problem.upper_bound)))

    def _go_fused(self):
        """From the cache to the fused mode: the screened rows back, a larger q."""
        if self._screened_from is not None:
            self._unscreen()
        self._screening = False
        self.fused = True
        self.q = fused_working_set_size(self.problem.n_samples, self.problem.q.cache_bytes)
        self._ws = np.empty(self.q, dtype=np.int64)

    def _reconstruct(self):
        """G of the shrunk variables brought up to date by fused tiles, every variable
        active again: from their gradients when the shrinking began (exact then, all
        variables active), G += (Q + D)(a - a_then) over the columns of the variables
        that moved since, or from scratch, (Q + D)a - e over the support vectors'
        columns, if those are fewer."""
        p = self.problem
        inside = np.zeros(p.n_samples, dtype=bool)
        inside[self.active] = True
        out = np.flatnonzero(~inside)
        alpha_then, G_then = self._all_active
        delta = self.alpha - alpha_then
        moved = np.flatnonzero(delta)
        sv = np.flatnonzero(self.alpha)
        if len(moved) < len(sv):
            self.G[out] = G_then[out] + p.diag[out] * delta[out]
            if len(moved):
                self.G[out] += p.q.times(moved, delta[moved], rows=out)
        else:
            self.G[out] = p.diag[out] * self.alpha[out] + p.linear[out]
            if len(sv):
                self.G[out] += p.q.times(sv, self.alpha[sv], rows=out)
        self.active = np.arange(p.n_samples, dtype=np.int64)
        self._all_active = None

    def _fused_block(self, ws):
        """(layout, Q[layout, layout]) for the fused mode: ``layout`` is the set ``ws``
        in the order of the block's rows. The variables of the last set keep their rows
        of its block, in place; the new ones take the rows of those that left, computed
        (Q is symmetric: a new row is also the new column). A set of another size gets
        a block of its own."""
        qm = self.problem.q
        if self._last_block is None or len(self._last_block[0]) != len(ws):
            self._last_block = None  # freed before the new block is made
            layout, block = ws.copy(), qm.block(ws, ws)
        else:
            layout, block = self._last_block
            chosen = np.zeros(self.problem.n_samples, dtype=bool)
            chosen[ws] = True
            left = np.flatnonzero(~chosen[layout])
            chosen[layout] = False  # now: the new variables
            if len(left):
                layout[left] = ws[chosen[ws]]
                place_rows(block, left, qm.block(layout[left], layout))
        self._last_block = (layout, block)
        return layout, block

    def _select_active(self):
        p = self.problem
        self._count, violation = select_working_set(p.y, self.alpha, self.G, p.upper_bound,
                                                    self._keep, self.q, self._ws, self.active)
        self._violation = float(violation)

    def epoch(self):
        """One outer iteration; True once the maximal violation is below STOP_RATIO * tol."""
        if self._violation < self._stop_at or self._count < 2:
            return True
        p = self.problem
        qm = p.q
        chosen = self._ws[:self._count].copy()  # in the order of selection
        if self.fused:
            ws, block = self._fused_block(chosen)
        else:
            ws = chosen
            ws_slots = qm.complete_slots(ws)
            block = np.empty((len(ws), len(ws)))
            gather_block(qm.cache[0], ws_slots, ws, block)
        alpha_ws = self.alpha[ws]
        G_ws = self.G[ws]
        budget = 100 * len(ws) + 10000  # ThunderSVM's bound on one sub-problem's steps
        steps, start, change = local_smo(block, p.y[ws], alpha_ws, G_ws, p.upper_bound[ws],
                                         p.q_diag[ws], p.diag[ws],
                                         max(self._stop_at, self.inner_ratio * self._violation),
                                         budget)
        self.steps += steps
        self.outer += 1
        self._objective += change
        delta = alpha_ws - self.alpha[ws]
        self.alpha[ws] = alpha_ws
        if self.fused:
            moved = np.flatnonzero(delta)  # the columns of the others are not needed
            if len(self.active) == p.n_samples:
                self.G += qm.times(ws[moved], delta[moved])
            else:
                self.G[self.active] += qm.times(ws[moved], delta[moved], rows=self.active)
        else:
            update_gradient(qm.cache[0], ws_slots, delta, self.G, self.active)
        self.G[ws] += p.diag[ws] * delta
        # ThunderSVM keeps the half of the set chosen last
        self._keep = chosen[len(chosen) - self.q // 2:] if len(chosen) > self.q // 2 else chosen
        if not self.fused and self._may_fuse and \
                self._free_count() > FREE_FRACTION * qm.n_slots:
            self.mode = (f"cached, fused from set {self.outer + 1} ({self._free_count()} free "
                         f"variables > {qm.n_slots} cache slots / {round(1 / FREE_FRACTION)})")
            self._go_fused()
        self._select()
        return self._violation < self._stop_at

    def finish(self):
        """The screened gradients brought up to date (after an early stop); the final
        certificate's exact parts are recomputed in float64; True."""
        if self._screened_from is not None:
            self._unscreen()
        if len(self.active) < self.problem.n_samples:
            self._reconstruct()
        self.finished = True
        return True

    def certificate(self):
        """(primal, dual, relative gap, intercept), as :meth:`SMO.certificate
        <dualsvm.solvers.smo.SMO.certificate>` while training; after :meth:`finish`
        exact in float64 where it counts (:meth:`KernelGradients.final_certificate
        <dualsvm.problems.kernel.KernelGradients.final_certificate>`), with the intercept
        from the solver's gradient, as SMO's."""
        p = self.problem
        if not self.finished:
            return p.certificate(self.alpha, self.G, dual=-self._objective)
        return p.final_certificate(self.alpha, self.G)

    def counters(self):
        q = self.problem.q
        return {"iterations": self.steps, "outer_iterations": self.outer,
                "kernel_evaluations": q.kernel_evaluations, "cache_hits": q.cache_hits}
