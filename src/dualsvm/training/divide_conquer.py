"""Divide and conquer for the kernel SVM with the exact bias (``SVC(solver='dc')``).

Hsieh, Si and Dhillon, "A Divide-and-Conquer Solver for Kernel Support Vector
Machines" (ICML 2014). Split the rows into parts pi(1..k) and drop the kernel
entries between parts: the dual of :class:`~dualsvm.problems.kernel.KernelDualProblem`
becomes k independent SVMs, and their concatenated solution a-bar is close to the
true one, D(a-bar) - D(a*) <= C^2 sum of |K(x_i, x_j)| over pairs in different
parts. Kernel k-means (:mod:`dualsvm.kernels.clustering`) makes that sum small.

Levels l = L .. 1 (``levels``), k**l parts at level l (k = ``n_clusters``):

1. cluster: kernel k-means on a random sample of the rows (at level L), or of the
   support vectors found so far (below it: the paper's adaptive clustering), then
   every row to its nearest centre (:func:`split_rows`);
2. solve every part's SVM (:func:`solve_part`; the parts are independent: worker
   threads, one a core, from ``PARALLEL_MIN_ROWS`` rows), started from the previous
   level's dual variables on its rows; each part keeps its own equality constraint
   y_k'a_k = 0 (the start is repaired by the problem's ``feasible``, as a path over
   C repairs its start), so the concatenation satisfies y'a = 0;
3. the concatenation starts the next level.

Then the whole problem from the last level's point (:func:`candidate_rounds`): the
rows with a_i > 0 and, round after round, the rows whose optimality conditions the
whole problem's exact gradient shows violated (or within ``MARGIN`` of it) are solved
as one problem (by SMO when its kernel columns fit in the cache, else by the
working sets), until no row outside violates. The last round's point is the whole problem's, its gradient exact over all
rows: when its maximal violation is below tol (LIBSVM's rule), it is the model, with
its duality gap; else a run of the ordinary solver ('auto''s choice) on all rows
from it finishes and certifies the model as any other solver's. The rounds do
what shrinking does, with the gradient of the rows left out computed in bulk (tiles
on all threads) instead of column by column.

Early prediction (``early_stop_level`` l): training stops after level l and each row
is predicted by the model of its nearest cluster, f(x) = sum over i in pi(x) of y_i
a_i K(x_i, x) + b_pi(x) (:class:`LocalModels`). That model solves the SVM whose kernel
has no entries between clusters, with one bias per cluster: its primal and dual
are the sums of the parts', and so is its certificate.

The pieces are functions over arrays and problems (a cluster scheduler can run a
level's parts anywhere); :class:`DivideAndConquer` drives them through the common
solver interface (:mod:`dualsvm.solvers._driver`): one epoch a level, one a round,
then the epochs of the last solver, so progress, time limits and Ctrl-C work as for
every solver.
"""

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import numba
import numpy as np

from ..kernels.clustering import KernelClusters, sample_limit
from ..problems.kernel import KernelDualProblem
from ..problems.objectives import relative_gap
from ..solvers import Stopping, run_epochs

#: Rows a part of the lowest level holds, about, with ``n_clusters=None``: its kernel
#: columns fit in a small cache (2000 rows: 16 MB of float32), and its SVM takes
#: milliseconds.
PART_ROWS = 2000
#: Rows of the sample that kernel k-means clusters, by default (at least
#: SAMPLE_PER_CLUSTER a cluster are taken); for early prediction EARLY_SAMPLE_SIZE, as
#: its whole fit is a level: clustering the sample and assigning every row to the
#: centres dominate that fit, and a smaller sample costs little accuracy
#: (measurements: benchmarks/results/design_measurements.md, section
#: training/divide_conquer.py).
SAMPLE_SIZE = 2000
EARLY_SAMPLE_SIZE = 500
SAMPLE_PER_CLUSTER = 4
#: Rows whose slack y_i (f(x_i) + b) - 1 is below MARGIN join the candidates of the
#: next round (a row at a_i = 0 is optimal at slack >= 0; those close to 0 tend to
#: become support vectors once the candidates move).
MARGIN = 0.1
#: Rounds of the final stage at most (then the ordinary solver takes the rest).
MAX_ROUNDS = 10
#: Levels below the last one solved are solved to max(tol, LEVEL_TOL): their points
#: only start the next level.
LEVEL_TOL = 1e-2
#: A level's parts are solved by worker threads (one a core, Numba's loops on one
#: thread each) from this many rows; below it, where a level takes a few tens of
#: milliseconds, one after the other.
PARALLEL_MIN_ROWS = 10_000


def sample_size_of(sample_size, early_stop_level):
    """The rows k-means clusters at each level: ``sample_size``, or for 'auto'
    SAMPLE_SIZE (EARLY_SAMPLE_SIZE with early prediction)."""
    if sample_size != "auto":
        return int(sample_size)
    return EARLY_SAMPLE_SIZE if early_stop_level is not None else SAMPLE_SIZE


def auto_clusters(n_samples, levels):
    """k such that the k**levels parts of the lowest level hold about ``PART_ROWS`` rows
    each (at least 2)."""
    return max(2, round((n_samples / PART_ROWS) ** (1.0 / levels)))


def sub_problem(problem, rows):
    """The KernelDualProblem of ``rows`` of ``problem`` (its kernel, loss, bias, costs)."""
    X = problem.X
    X = X[np.ix_(rows, rows)] if problem.kernel.name == "precomputed" else X[rows]
    return KernelDualProblem(X, problem.y[rows], problem.C[rows], problem.loss, problem.bias,
                             problem.kernel, problem.cache_size)


def split_rows(problem, pool, n_parts, sample_size, rng):
    """Kernel k-means of a random sample of the rows ``pool`` into ``n_parts`` clusters
    (:class:`~dualsvm.kernels.clustering.KernelClusters`), and the cluster of every
    row of the problem (int64, shape (n,))."""
    X = problem.X
    n_features = None if problem.kernel.name == "precomputed" else X.shape[1]
    sample = sample_rows(pool, n_parts, sample_size, n_features, rng)
    clusters = KernelClusters.fit(problem.kernel, X, sample, n_parts, rng)
    return clusters, clusters.assign(X)


def sample_rows(pool, n_parts, sample_size, n_features, rng):
    """The rows of ``pool`` that kernel k-means clusters into ``n_parts``, sorted: a
    random sample of ``sample_size`` of them (at least ``SAMPLE_PER_CLUSTER`` a
    part), cut to ``sample_limit`` of ``n_features`` (None: the precomputed kernel)."""
    wanted = max(sample_size, SAMPLE_PER_CLUSTER * n_parts)
    if n_features is not None:
        wanted = sample_limit(n_features, wanted)
    return np.sort(rng.choice(pool, size=min(wanted, len(pool)), replace=False))


@dataclass
class PartSolution:
    """A solved problem: its dual variables, bias, certificate, maximal violation, the
    slack y_i (f(x_i) + b) - 1 of every row (squared hinge: + D_ii a_i), the solver's
    status, iterations and kernel evaluations (of its own caches)."""

    alpha: np.ndarray
    intercept: float
    primal: float
    dual: float
    gap: float
    violation: float
    slack: np.ndarray
    status: str
    iterations: int
    kernel_evaluations: int


def _run(problem, alpha, tol, build, stopping):
    """``build``'s solver on ``problem`` from ``alpha`` (None: cold), to tol:
    (Result, solver); Ctrl-C raised again, so that the caller stops too."""
    solver, max_epochs = build(problem, tol, alpha)
    result = run_epochs(solver, problem, replace(stopping, max_iter=max_epochs))
    if result.status == "interrupted":
        raise KeyboardInterrupt
    return result, solver


def split_gradient(problem, alpha):
    """G = (Q + D)a - e, with Q a as Q times the variables at their bound plus Q times
    the free ones, each product from the last of its kind (only the columns of the
    variables that moved): from one round to the next few variables change bound,
    and the free ones are fewer than all. The sum is kept as the product of a, and
    the bounded one under SMO's name for it, so that a solver started at a takes its
    gradient (and SMO its G_bar) without a kernel evaluation."""
    bounded = np.where(alpha >= problem.upper_bound, problem.upper_bound, 0.0)
    product = problem.product(bounded, "bounded") + problem.product(alpha - bounded, "free")
    # exact in float64: also the product the final certificate recomputes its entries from
    problem.keep_product("exact", alpha, product)
    problem.keep_product("alpha", alpha, product)
    return product + problem.diag * alpha + problem.linear


def candidate_rounds(problem, alpha, candidates, tol, build, stopping, margin=MARGIN,
                     max_rounds=MAX_ROUNDS):
    """Solve ``problem`` from a feasible ``alpha`` by rounds over candidate rows; a
    generator of (:class:`PartSolution`, last) a round, the last when the rows outside
    the candidates meet the optimality conditions, or ``max_rounds`` were run, or the
    round's solver stopped before convergence (a time limit).

    A round solves the problem restricted to the candidates (at first ``candidates``,
    a boolean mask: the rows with a_i > 0 and those likely to join them) by
    ``build(problem, tol, alpha) -> (solver, max_epochs)``'s solver from their a, computes the whole problem's gradient in float64
    (:func:`split_gradient`) and adds the rows whose slack is below ``margin``. Its
    certificate and maximal violation are the whole problem's at the round's point
    (a_i = 0 outside the candidates).
    """
    n = problem.n_samples
    inside = candidates | (alpha > 0)
    for _ in range(max_rounds):
        rows = np.flatnonzero(inside)
        sub = sub_problem(problem, rows)
        result, solver = _run(sub, alpha[rows], tol, build, stopping)
        alpha = np.zeros(n)
        alpha[rows] = result.alpha
        gradient = split_gradient(problem, alpha)
        violation = problem.max_violation(alpha, gradient)
        primal, dual, gap, intercept = problem.certificate(alpha, gradient)
        slack = problem.loss_slack(alpha, gradient)
        added = ~inside & (slack < margin)
        last = violation < tol or not added.any() or result.status != "converged"
        yield PartSolution(alpha, intercept, primal, dual, gap, violation, slack, result.status,
                           solver.n_iter, sub.q.kernel_evaluations), last
        if last:
            return
        inside |= added


def solve_part(problem, start, start_slack, tol, build, stopping):
    """A part's SVM: ``build``'s solver from scratch when ``start`` has no support
    vector, else :func:`candidate_rounds` from ``start`` (repaired by the problem's
    ``feasible``: clipped to the box, one class scaled down so that y'a = 0), the
    first candidates its support vectors and the rows whose ``start_slack`` (by the
    model that gave the start) is below ``MARGIN``."""
    alpha = problem.feasible(start)
    if not alpha.any():
        result, solver = _run(problem, None, tol, build, stopping)
        # the certificate kept the product of the solution: its gradient costs nothing
        slack = problem.loss_slack(result.alpha, problem.gradient(result.alpha))
        return PartSolution(result.alpha, result.intercept, result.primal, result.dual,
                            result.gap, solver.violation, slack, result.status, solver.n_iter,
                            problem.q.kernel_evaluations)
    iterations = evaluations = 0
    for solution, _ in candidate_rounds(problem, alpha, start_slack < MARGIN, tol, build,
                                        stopping):
        iterations += solution.iterations
        evaluations += solution.kernel_evaluations
    solution.iterations = iterations
    solution.kernel_evaluations = evaluations + problem.q.kernel_evaluations
    return solution


def _one_thread():
    """A part worker's Numba loops on one thread: the workers are the parallelism."""
    numba.set_num_threads(1)


def threads_safe():
    """Whether two threads may run Numba's parallel loops at once: its OpenMP (the
    default) and TBB layers allow it, its workqueue layer aborts the process."""
    numba.get_num_threads()  # starts the layer when no parallel loop has run yet
    return numba.threading_layer() in ("omp", "tbb")


@dataclass
class LocalModels:
    """The models of one level's parts, for early prediction.

    ``clusters`` assigns a row to its nearest cluster; ``part`` (n,) is the cluster of
    every training row of the problem, ``intercepts`` (n_clusters,) the bias of each
    cluster's model. The dual variables are the problem's (concatenated).
    """

    level: int
    clusters: KernelClusters
    part: np.ndarray
    intercepts: np.ndarray


class DivideAndConquer:
    """Divide and conquer over a :class:`~dualsvm.problems.kernel.KernelDualProblem`
    with ``bias='exact'`` (module docstring), with the driver interface.

    Parameters
    ----------
    problem : KernelDualProblem
    tol : float
        The tol of the last level's parts (early prediction) or of the final solve.
    part_solver, round_solver, final_solver : callable
        ``f(problem, tol, alpha) -> (solver, max_epochs)``: the solver of the parts
        (run by worker threads), of the rounds' candidates, and of the whole
        problem at the end.
    random_state : numpy.random.Generator
        Draws the samples and seeds kernel k-means.
    alpha : ndarray or None
        A warm start (a path over C): the levels are skipped (except for early
        prediction, whose levels start cold) and the rounds start from it.
    n_clusters : int or None
        k: level l has k**l parts; None: :func:`auto_clusters`.
    levels : int
        L, the levels run (L, L - 1, ..., 1).
    sample_size : int or 'auto'
        Rows kernel k-means clusters at each level; 'auto': ``SAMPLE_SIZE``, or
        ``EARLY_SAMPLE_SIZE`` for early prediction.
    early_stop_level : int or None
        Stop after this level (1 .. L) with its :class:`LocalModels`.
    deadline : float or None
        ``time.perf_counter()`` time at which the solves inside an epoch stop.
    workers : int or None
        Threads that solve a level's parts side by side (None: one a core), for
        problems of ``PARALLEL_MIN_ROWS`` rows or more.
    """

    def __init__(self, problem, tol, *, part_solver, round_solver, final_solver, random_state,
                 alpha=None, n_clusters=None,
                 levels=1, sample_size="auto", early_stop_level=None, deadline=None,
                 workers=None):
        if getattr(problem, "bias", None) != "exact":
            raise ValueError("divide and conquer solves a KernelDualProblem with bias='exact'")
        self.problem = problem
        self.tol = float(tol)
        self.part_solver = part_solver
        self.round_solver = round_solver
        self.final_solver = final_solver
        self.rng = random_state
        self.sample_size = sample_size_of(sample_size, early_stop_level)
        self.early_stop_level = early_stop_level
        n = problem.n_samples
        levels = int(levels)
        if early_stop_level is not None and not 1 <= early_stop_level <= levels:
            raise ValueError(f"early_stop_level={early_stop_level} is not one of the levels "
                             f"run, {levels} down to 1")
        self.n_clusters = auto_clusters(n, levels) if n_clusters is None else int(n_clusters)
        bottom = 1 if early_stop_level is None else early_stop_level
        cold = alpha is None or early_stop_level is not None
        self._levels = list(range(levels, bottom - 1, -1)) if cold else []
        self._point = problem.feasible(None if cold else alpha)
        # the slack of every row by the model that gave the point (for a warm start,
        # unknown: the rounds start from its support vectors only)
        self._slack = np.full(n, np.inf)
        self._stopping = Stopping(deadline=deadline, monitor=False)
        self.workers = (os.cpu_count() or 1) if workers is None else int(workers)
        self.local_models = None  # LocalModels of the last level solved
        self._level_record = None  # (primal, dual, violation) of that level
        self._round = None  # the last PartSolution of the final stage
        self._final = None  # the final solver on the whole problem
        self._certified = False  # the last round met tol on the whole problem
        self.exhausted = False  # the last solver reached its iteration limit
        self._iterations = 0
        self._evaluations = 0  # of the parts' and the rounds' own caches
        self._steps = self._work()

    # ------------------------------------------------------------ driver interface

    @property
    def alpha(self):
        return self._final.alpha if self._final is not None else self._point

    @property
    def violation(self):
        if self._final is not None:
            return self._final.violation
        if self._round is not None:
            return self._round.violation
        return np.nan if self._level_record is None else self._level_record[2]

    @property
    def active_size(self):
        if self._final is not None:
            return self._final.active_size
        return int(np.count_nonzero(self._point)) if self._round is not None else \
            self.problem.n_samples

    @property
    def n_iter(self):
        """Iterations of every solver run so far (the parts', the rounds', the last)."""
        return self._iterations + (0 if self._final is None else self._final.n_iter)

    @property
    def early(self):
        """Whether the model is early prediction's (local models of a level)."""
        return self.early_stop_level is not None and self.local_models is not None

    def epoch(self):
        """A level, a round of the final stage, or an epoch of the last solver."""
        return next(self._steps)

    def finish(self):
        """Early prediction: nothing (the local models stand). Else the last solver's
        finish, the solver first built from the current point when training stopped
        before it (Ctrl-C, a time limit, max_iter): the model is then the whole
        problem's at that point, with its certificate."""
        if self.early or self._certified:
            return False
        if self._final is None:
            self._final = self.final_solver(self.problem, self.tol, self._point)[0]
        finish = getattr(self._final, "finish", None)
        if finish is not None:
            finish()
        return True

    def certificate(self):
        """(primal, dual, relative gap, intercept): of the last solver, or of the last
        round (the whole problem at its point), or of the last level's model (the sums
        over its parts; intercept 0: each part has its own, in ``local_models``)."""
        if self._final is not None:
            return self._final.certificate()
        if self._round is not None:
            r = self._round
            return r.primal, r.dual, r.gap, r.intercept
        if self._level_record is None:
            return self.problem.certificate(self._point, self.problem.gradient(self._point))
        primal, dual, _ = self._level_record
        return primal, dual, relative_gap(primal, dual), 0.0

    def counters(self):
        q = self.problem.q
        level = 0 if self._round is not None or self._final is not None or \
            self.local_models is None else self.local_models.level
        return {"iterations": self.n_iter,
                "kernel_evaluations": self._evaluations + q.kernel_evaluations,
                "cache_hits": q.cache_hits, "level": level,
                "parts": 1 if level == 0 else self.local_models.clusters.n_clusters}

    # ------------------------------------------------------------ the stages

    def _work(self):
        for level in self._levels:
            tol = self.tol if level == self.early_stop_level else max(self.tol, LEVEL_TOL)
            if not self._solve_level(level, tol):
                yield False  # a time limit stopped a part: the driver sees the deadline
            if level == self.early_stop_level:
                yield True
                return
            yield False
        p = self.problem
        if self._point.any():
            for solution, last in candidate_rounds(p, self._point, self._slack < MARGIN,
                                                   self.tol, self.round_solver,
                                                   self._stopping):
                self._round = solution
                self._point = solution.alpha
                self._iterations += solution.iterations
                self._evaluations += solution.kernel_evaluations
                if last and solution.violation < self.tol:
                    # the whole problem's exact gradient meets LIBSVM's rule: certified
                    # as any solver's last epoch is (its duality gap from that gradient)
                    self._certified = True
                    yield True
                    return
                yield False  # after a time limit, the driver sees the deadline and stops
        self._final, max_epochs = self.final_solver(p, self.tol, self._point)
        epochs = 0
        while epochs < max_epochs:
            epochs += 1
            yield self._final.epoch()
        self.exhausted = True  # the last solver's own limit: the driver stops
        yield False

    def _solve_level(self, level, tol):
        """Cluster, solve every part from the current point (in worker processes for a
        large problem), concatenate."""
        p = self.problem
        support = np.flatnonzero(self._point > 0)
        pool = support if len(support) else np.arange(p.n_samples)
        clusters, part = split_rows(p, pool, self.n_clusters ** level, self.sample_size,
                                    self.rng)
        order = np.argsort(part, kind="stable")
        bounds = np.searchsorted(part[order], np.arange(clusters.n_clusters + 1))
        parts = [order[bounds[c]:bounds[c + 1]] for c in range(clusters.n_clusters)]
        solutions = self._solve_parts(parts, tol)
        alpha = np.zeros(p.n_samples)
        slack = np.full(p.n_samples, np.inf)
        intercepts = np.zeros(clusters.n_clusters)
        primal = dual = 0.0
        violation = 0.0
        for rows, solution in zip(parts, solutions):
            if solution is None:
                continue
            if solution.status == "time_limit":
                return False  # the level is incomplete: the point stays the last level's
            alpha[rows] = solution.alpha
            slack[rows] = solution.slack
            intercepts[part[rows[0]]] = solution.intercept
            primal += solution.primal
            dual += solution.dual
            violation = max(violation, solution.violation)
            self._iterations += solution.iterations
            self._evaluations += solution.kernel_evaluations
        self._point = alpha
        self._slack = slack
        self.local_models = LocalModels(level, clusters, part, intercepts)
        self._level_record = (primal, dual, violation)
        return True

    def _solve_parts(self, parts, tol):
        """The :class:`PartSolution` of every part (None for an empty one), the largest
        parts first."""
        def solve(rows):  # the part's problem made where it is solved, freed after
            return solve_part(sub_problem(self.problem, rows), self._point[rows],
                              self._slack[rows], tol, self.part_solver, self._stopping)

        workers = min(self.workers, sum(len(rows) > 0 for rows in parts))
        if workers < 2 or self.problem.n_samples < PARALLEL_MIN_ROWS or not threads_safe():
            return [solve(rows) if len(rows) else None for rows in parts]
        largest_first = sorted((c for c in range(len(parts)) if len(parts[c])),
                               key=lambda c: -len(parts[c]))
        solutions = [None] * len(parts)
        with ThreadPoolExecutor(workers, initializer=_one_thread) as executor:
            futures = {c: executor.submit(solve, parts[c]) for c in largest_first}
            try:
                for c, future in futures.items():
                    solutions[c] = future.result()
            except BaseException:  # Ctrl-C: the parts not started are dropped
                for future in futures.values():
                    future.cancel()
                raise
        return solutions
