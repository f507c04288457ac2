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

Fused mode: the columns are not stored at all.
Step 2 keeps only the q x q block Q[B, B], in place from set to set: the variables
of the last set (half of B at least: the kept half) keep their rows of it, and the
rows of the new ones (:meth:`QMatrix.block <dualsvm.kernels.QMatrix.block>`) replace
those of the variables that left, as rows and as columns (a block gathered anew
copies q^2 entries a set); step 4
computes G += Q[:, B] (a_B - a_B_old) by tiles of rows whose kernel values are used
as they are made
(:meth:`QMatrix.times <dualsvm.kernels.QMatrix.times>`, float64, all threads), for
the variables of B that moved only. With the columns
free, q is large (``FUSED_WORKING_SET``, as oneDAL's 2048): few working sets, each
column computed about once per set it moves in. It shrinks as LIBSVM does,
with a margin: after each selection, the bounded variables whose gradient pushes
them into their bound beyond the maximal violation by more than the violation
itself (``SHRINK_MARGIN``) leave the selection and the gradient updates (so the
tiles cover the active rows only); when the active variables meet the stopping
rule, the others' gradients are brought up to date (by tiles, from their values
when the shrinking began, over the columns of the variables that moved since) and
the rule is checked on all.

Which mode (``fused=None``, no ``working_set`` given): measured during the fit, not
set by a threshold. Every set's seconds (from the end of the last set's selection to
the end of its own), the decrease of the log of the maximal violation over it and its
dual gain (the decrease of f its sub-problem made) are recorded. The fit starts
cached; after ``FIRST_DECISION`` cached sets, and again each time the cached sets
have doubled and taken ``PROBE_SPACING`` times the last probe's seconds, the policy
compares the modes on the same stretch of the fit: the progress per second of the
last ``POLICY_WINDOW`` cached sets, then of ``POLICY_PROBE`` fused sets (without
shrinking, so that going back costs nothing). Progress is the decrease of the log
violation (what the stopping rule reads) when it fell in every window compared, else
the dual gain (early in a fit the violation rises as the variables leave 0). If the
fused rate beats the cached one, the rest of the fit is fused (the rates fall as the
fit goes on, so the later probe is not favoured); else ``POLICY_WINDOW`` cached sets
follow, and if the fused rate beats the mean of the two cached ones (the cached rate
at the probe's time, were it to fall linearly), the rest of the fit is fused; else it
stays cached until the next comparison. Fused stays once chosen: its sets' cost does
not depend on the cache, and what makes it win (many free variables, whose columns
the sets come back to) only grows as the fit goes on. A larger ``cache_size`` only
makes cached sets cheaper (more hits) and changes q only where the cache bounds it
(cached: half its slots; fused: the block within half of it), so it can only keep
the cached mode where that is measured faster. ``mode`` (in ``solver_reason_``) says
what was chosen, at which set, and the measured rates. The model does not depend on
the path beyond the stopping rule (either mode stops at the same maximal violation);
the path, and so the iteration counts, may depend on the timings.

Memory: the columns live in the problem's QMatrix cache (``cache_size``; q is at
most the number of columns it holds), plus the dense layout of at most one
block's points (within the cache's block allowance) and O(n) vectors; in fused
mode, the q x q block and a set's new rows (at most another q x q: ``cache_size``
together), the points of B and O(n) vectors.
"""

from time import perf_counter

import numpy as np

from ._ws_jit import (gather_block, local_smo, place_rows, select_working_set, shrinkable,
                      update_gradient)

#: The solver stops at a maximal violation below STOP_RATIO * tol, not tol: moving q
#: variables per sub-problem, it crosses tol at points whose dual lies below LIBSVM's
#: (whose SMO crosses it by the single maximal pair) on a flat dual; half of tol puts
#: the duals at or above LIBSVM's (measurements: benchmarks/results/reports/cache_policy.md).
STOP_RATIO = 0.5

#: Each sub-problem is solved until its violation is below max(STOP_RATIO * tol,
#: INNER_RATIO * the maximal violation at its selection) (ThunderSVM's 0.1), in at most
#: SUB_PROBLEM_STEPS[0] q + SUB_PROBLEM_STEPS[1] SMO steps (ThunderSVM's bound).
INNER_RATIO = 0.1
SUB_PROBLEM_STEPS = (100, 10000)

#: Working-set sizes the automatic choice picks from (powers of two).
MIN_WORKING_SET, MAX_WORKING_SET = 16, 1024
#: The cached mode's q grows with n: at most max(SMALL_WORKING_SET, n / ROWS_PER_VARIABLE)
#: (larger sets computed more columns than they saved sets on tens of thousands of rows;
#: a property of the problem, not of the host or the cache).
SMALL_WORKING_SET, ROWS_PER_VARIABLE = 128, 100

#: Screening (module docstring): variables at 0 with a slack above SCREEN_SLACK leave
#: once the violation is below SCREEN_VIOLATION. Not at the start: a start scaled by
#: C_new / C_old scales the bias too, and rows screened by its slacks came back violated.
#: With the violation below the slack threshold, a screened row cannot be in the maximal
#: violating pair at that point. Both are in units of the margin, not of time.
SCREEN_SLACK = 0.1
SCREEN_VIOLATION = 0.1

#: Fused mode (module docstring): q is the largest power of two <= min(FUSED_WORKING_SET,
#: n / FUSED_ROWS_PER_VARIABLE) whose q x q block takes at most half of cache_size (a
#: set's new rows, at most as many again, are computed beside it). oneDAL's and
#: ThunderSVM's set size; a set of 2048 takes a few tens of sets where SMO takes tens of
#: thousands of steps.
FUSED_WORKING_SET, FUSED_ROWS_PER_VARIABLE = 2048, 8
#: The mode policy (module docstring): cached sets per measurement window, fused sets per
#: probe and the cached sets before the first comparison: counts of sets, the fewest that
#: measure both modes on nearly the same stretch of the fit (a fused set can be worth
#: dozens of cached ones, so the first comparison comes early), the same on every host
#: and at every cache_size.
POLICY_WINDOW, POLICY_PROBE, FIRST_DECISION = 4, 2, 4
#: After a comparison that kept the cache, the next one waits until the cached sets have
#: doubled and taken PROBE_SPACING times the probe's seconds: a fit where fused never
#: wins spends at most 1 / (1 + PROBE_SPACING) of its time in probes, on any host.
PROBE_SPACING = 8
#: Fused mode shrinks the active set only when at least this fraction of it can go (each
#: shrinking copies the O(n) selection arrays).
SHRINK_FRACTION = 1 / 16
#: Fused mode shrinks a bounded variable when its gradient pushes it into its bound beyond
#: the maximal violation by more than SHRINK_MARGIN times the violation (LIBSVM's rule at
#: 0): a set of 2048 moves the gradients far between two selections, and rows shrunk by
#: LIBSVM's rule came back violated when the gradients were rebuilt.
SHRINK_MARGIN = 1.0


class ModePolicy:
    """Cached or fused sets, from their measured progress per second (module docstring).

    :meth:`after_set` is told each set's seconds, the decrease of the log of the maximal
    violation and the dual gain, and answers what the solver does next: ``None`` (go
    on), ``"probe"`` (fused sets, for the probe), ``"back"`` (cached again, after the
    probe) or ``"fuse"`` (fused for the rest).
    """

    def __init__(self):
        self.cached_sets = 0
        self.next_decision = FIRST_DECISION
        self.cached_seconds = 0.0  # of the cached sets since the last comparison
        self.wait_seconds = 0.0  # how many of them the next comparison waits for
        self.recent = []  # (seconds, progress, gain) of the last POLICY_WINDOW cached sets
        self.phase = "cached"  # "cached", "probe", "after" (the window after a probe), "fused"
        self.before = None  # the cached window before the probe under way
        self.probe = []
        self.comparisons = []  # (set, fused rate, cached rate, measure) of each comparison
        self.fused_from = None

    @staticmethod
    def _compare(fused, cached):
        """(fused rate, mean cached rate, measure) per second: of the decrease of the log
        violation if it fell in every window, else (early, as the variables leave 0 and
        the violation rises) of the dual gain."""
        windows = [fused, *cached]
        by_violation = all(sum(r[1] for r in w) > 0 for w in windows)
        k = 1 if by_violation else 2

        def rate(window):
            return sum(r[k] for r in window) / max(sum(r[0] for r in window), 1e-9)

        return (rate(fused), sum(rate(w) for w in cached) / len(cached),
                "log-violation decrease" if by_violation else "dual gain")

    def _decide(self, fused, cached, set_number, fused_from):
        fused_rate, cached_rate, measure = self._compare(fused, cached)
        if fused_rate > cached_rate:
            self.comparisons.append((set_number, fused_rate, cached_rate, measure))
            self.phase, self.fused_from = "fused", fused_from
            return True
        if len(cached) > 1:
            self.comparisons.append((set_number, fused_rate, cached_rate, measure))
        return False

    def after_set(self, seconds, progress, gain, set_number):
        if self.phase == "fused":
            return None
        record = (seconds, progress, gain)
        if self.phase == "probe":
            self.probe.append(record)
            if len(self.probe) < POLICY_PROBE:
                return None
            # faster than the cache before it (the rates fall as the fit goes on): fused
            if self._decide(self.probe, [self.before], set_number,
                            set_number - len(self.probe) + 1):
                return "fuse"
            self.wait_seconds = PROBE_SPACING * sum(r[0] for r in self.probe)
            self.recent, self.phase = [], "after"
            return "back"
        self.cached_sets += 1
        self.cached_seconds += seconds
        self.recent = (self.recent + [record])[-POLICY_WINDOW:]
        if self.phase == "after":
            if len(self.recent) < POLICY_WINDOW:
                return None
            if self._decide(self.probe, [self.before, self.recent], set_number,
                            set_number + 1):
                return "fuse"
            self.phase = "cached"
            self.next_decision = 2 * self.cached_sets
            self.cached_seconds = 0.0
            return None
        if self.cached_sets >= self.next_decision and len(self.recent) == POLICY_WINDOW \
                and self.cached_seconds >= self.wait_seconds:
            self.before, self.probe, self.phase = self.recent, [], "probe"
            return "probe"
        return None

    def reason(self):
        """What was chosen and why, for ``solver_reason_``."""
        if not self.comparisons:
            return (f"cached (done before the first mode comparison, at cached set "
                    f"{FIRST_DECISION})") if self.phase == "cached" else \
                "cached (done during the first mode comparison)"
        at, fused_rate, cached_rate, measure = self.comparisons[-1]
        rates = f"{measure} per second fused {fused_rate:.3g} vs cached {cached_rate:.3g}"
        if self.fused_from is not None:
            return f"cached, fused from set {self.fused_from} (measured faster: {rates})"
        times = len(self.comparisons)
        during = "" if self.phase == "cached" else f"; done during comparison {times + 1}"
        return (f"cached (fused measured slower {times} time{'s' if times > 1 else ''}; "
                f"at set {at}: {rates}{during})")


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


def kept_half(chosen, q):
    """The variables of the set ``chosen`` (in the order of selection) that the next
    set of q keeps: the half chosen last (ThunderSVM's rule)."""
    return chosen[len(chosen) - q // 2:] if len(chosen) > q // 2 else chosen


def solve_sub_problem(block, y, alpha, G, U, QD, D, stop_at, inner_ratio, violation):
    """The working set's sub-problem by SMO steps in its q x q block of Q
    (:func:`._ws_jit.local_smo`; alpha and G the set's entries, updated in place; QD =
    Q_ii + D_ii), until its violation is below max(stop_at, inner_ratio * violation)
    (``violation``: the maximal violation at the set's selection) or after
    ``SUB_PROBLEM_STEPS``' bound; (steps, the set's violation at the start, change of f)."""
    per_variable, fixed = SUB_PROBLEM_STEPS
    return local_smo(block, y, alpha, G, U, QD, D, max(stop_at, inner_ratio * violation),
                     per_variable * len(y) + fixed)


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
        max(STOP_RATIO * tol, inner_ratio * the maximal violation at its selection)
        (``INNER_RATIO``, ThunderSVM's 0.1).
    screening : bool or None
        Leave out the rows beyond the margin once the violation is small (module
        docstring); None: for a warm start only (``alpha`` given), so that cold fits
        stay those of the kernel benchmark. Not in fused mode, which shrinks.
    fused : bool or None
        Fused mode (module docstring) from the start, or never; None: chosen by the
        measured policy (:class:`ModePolicy`), unless ``working_set`` is given (then
        cached).

    Notes
    -----
    One ``epoch()`` is one outer iteration, and ``n_iter`` counts them (what
    ``SVC(max_iter=...)`` limits for this solver); ``counters()`` also reports the
    SMO steps taken inside the working sets (``iterations``, comparable to
    LIBSVM's ``#iter``).
    """

    def __init__(self, problem, tol=1e-3, *, shrinking=True, random_state=None, alpha=None,
                 working_set=None, inner_ratio=INNER_RATIO, screening=None, fused=None):
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
        # None: the measured policy chooses (module docstring)
        self._policy = ModePolicy() if fused is None and working_set is None else None
        self.fused = bool(fused)
        self._probing = False  # fused sets of the policy's probe: no shrinking
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
        self._cached_q = self.q  # the policy's cached sets (it starts cached)
        self._select()
        self._set_started = perf_counter()
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
            update_gradient(p.q.cache.slots, p.q.complete_slots(cols), delta[cols], self.G, out)
        self.active = np.arange(p.n_samples, dtype=np.int64)
        self._screened_from = None

    def _select(self):
        """The next working set and the maximal violation over the active variables.
        A warm start screens once the violation is below SCREEN_VIOLATION; when the
        active variables meet the stopping rule, the screened ones come back and it
        is checked on all (if it fails, they are screened again at the next call)."""
        self._select_active()
        if self.fused:
            if not self._probing:
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

    def _go_fused(self, probe=False):
        """From the cache to the fused mode: the screened rows back, a larger q; for a
        probe, without shrinking (and screening again when cached)."""
        if self._screened_from is not None:
            self._unscreen()
        self._screening = self._screening and probe
        self._probing = probe
        self.fused = True
        self.q = fused_working_set_size(self.problem.n_samples, self.problem.q.cache_bytes)
        self._ws = np.empty(self.q, dtype=np.int64)

    def _go_cached(self):
        """Back from a probe's fused sets (every variable active: no shrinking then) to
        the cached sets: their q, their selection from scratch."""
        self.fused = self._probing = False
        self._last_block = None
        self.q = self._cached_q
        self._ws = np.empty(self.q, dtype=np.int64)
        self._keep = np.empty(0, dtype=np.int64)

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
            gather_block(qm.cache.slots, ws_slots, ws, block)
        alpha_ws = self.alpha[ws]
        G_ws = self.G[ws]
        steps, start, change = solve_sub_problem(block, p.y[ws], alpha_ws, G_ws,
                                                 p.upper_bound[ws], p.q_diag[ws], p.diag[ws],
                                                 self._stop_at, self.inner_ratio,
                                                 self._violation)
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
            update_gradient(qm.cache.slots, ws_slots, delta, self.G, self.active)
        self.G[ws] += p.diag[ws] * delta
        self._keep = kept_half(chosen, self.q)
        before = self._violation
        self._select()
        if self._policy is not None:
            seconds = perf_counter() - self._set_started
            progress = np.log(before / self._violation) if self._violation > 0 else 0.0
            action = self._policy.after_set(seconds, progress, -change, self.outer)
            if action is not None:
                if action == "probe":
                    self._go_fused(probe=True)
                elif action == "back":
                    self._go_cached()
                else:
                    self._go_fused()
                self._select()
            self.mode = self._policy.reason()
        self._set_started = perf_counter()
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
