"""CoCoA+ for the linear SVM dual on a Dask cluster, accelerated, with an exact search.

CoCoA+ (Ma, Smith, Jaggi, Jordan, Richtarik and Takac, ICML 2015; Smith et al.,
JMLR 2018), the 'adding' variant: the rows are split into K partitions, and each
worker keeps its partition's rows and their dual variables alpha_[k] in memory
across rounds. A round sends w (one vector per binary problem) to every worker;
worker k improves its local sub-problem

    max_da  sum_{i in k} (a_i + da_i) - D_ii (a_i + da_i)^2 / 2
            - w'A_k da - (sigma' / 2) ||A_k da||^2,        A_k da = sum_{i in k} y_i da_i x_i,

with sigma' = K (or as ``sigma`` says, below) by ``local_epochs`` epochs of our
compiled DCD epoch (``solvers._dcd_jit.dcd_epoch``: w + sigma' A_k da as its
w, ``step_scale`` sigma', curvature sigma' ||x_i||^2 + D_ii) and returns
dw_k = A_k da.

Plain CoCoA+ adds every dw_k (gamma = 1). On sets with n >> d that is slow:
the partitions' rows overlap in their features, and a move of dual mass from
one partition to another that leaves w almost unchanged is charged
sigma' ||A_k da||^2 by every local model, so the dual lags the primal by
many rounds (measurements: benchmarks/results/design_measurements.md, section
dask/cocoa.py). Two additions, both exact and cheap (O(K d) numbers a round, as
plain CoCoA+ sends):

* **An exact 2K-dimensional search.** Every worker also returns r_k = a~_k - a_k,
  the step to the dual point its rows' margins ask for (hinge: C_i where
  y_i w'x_i < 1, else 0; squared hinge: 2 C_i max(0, 1 - y_i w'x_i)), with
  A_k r_k, and seven sums over its rows (e'da, e'r, a'D da, ...). The dual
  D(a + sum_k t_k da_k + u_k r_k) is a concave quadratic in (t, u) whose Gram
  matrix is that of the vectors dw_k, A_k r_k, so the driver maximises it
  exactly over t_k, u_k >= 0, t_k + u_k <= 1 (:func:`best_step`). Every such
  point is a convex combination of a, a + da and a~, all feasible, so it is
  feasible; (t, u) = (1, 0) is CoCoA+'s step and (0, 0) no step, so the dual
  never goes down and a round is never worse than the CoCoA+ step it searches
  from.
* **Nesterov momentum on the local solves.** Each worker starts its local DCD
  from a + beta p_k (p_k its last applied change) with w + beta A p (which the
  driver sends), beta = (m - 1) / (m + 2) after m rounds since the last restart;
  the driver restarts the count whenever the step from the extrapolated point
  (t = 1, u = 0) would have lowered the dual. The local solution is projected
  onto the box, so a + da stays feasible whatever beta is.

**sigma'.** sigma' = K (``sigma='K'``, the default) is CoCoA+'s safe value for
any data: sigma'_min = max_a ||A a||^2 / sum_k ||A_k a_k||^2 <= K. It is the
right one when the partitions are random samples of the same rows, as a
shuffled split gives: their local steps then align in the features they share,
and the measured coupling of the steps a round takes, ||sum_k dw_k||^2 /
sum_k ||dw_k||^2 (a lower bound on sigma'_min), comes out near K whenever the
local model is less damped, and a fixed sigma' < K needed more rounds
(measurements: benchmarks/results/design_measurements.md, section
dask/cocoa.py). When the
partitions share few features (rows split by source, each with its own
vocabulary), sigma'_min is near 1 and sigma' = K slows every local step K-fold.
``sigma='adaptive'`` starts at sigma' = 1 and moves to K for good after the
first round whose measured coupling exceeds the sigma' it used; the exact
search keeps every round safe meanwhile (the dual never falls), so no round is
rejected. A number fixes sigma' (>= 1; the search keeps it safe too).

A partition larger than its worker's memory stays on disk (:class:`DiskPartition`):
each local epoch then streams its blocks, grouped at random into pieces that
fit its budget, and only its per-row vectors stay in memory.

The certificate is exact and costs no extra pass: at the start of a round every
worker sums, for the w it received, its rows' losses and the separable dual
terms of its alpha; those give P(w_r) and D(alpha_r) of the round's starting
point, whose w_r = A alpha_r. Round r certifies the best model so far, the w_s
(s <= r) of least primal, by P(w_s) - D(alpha_r) (the dual never falls, while
the primal of the round's w may: the search moves w as far as the dual allows),
and training stops at the first certified gap <= ``gap_tol`` and returns that
model.

**Local work.** ``local_epochs='auto'`` (:meth:`CoCoA._choose_local_epochs`)
gives each round as many local epochs as the time the last rounds spent outside
the workers' local work (sending w, the search, the scheduler): a round then
computes at least half its time, and more where the network is slow; a fixed
single epoch a round wastes rounds on communication (measurements:
benchmarks/results/design_measurements.md, section dask/cocoa.py;
benchmarks/results/dask.md has the rounds and epochs of the automatic rule).

A round is all or nothing: a partition keeps its step pending until the next
call tells it the round was applied and with which (t_k, u_k) (else it drops
the step). Faults: the driver keeps every partition's alpha from the last
checkpoint (every ``checkpoint_every`` rounds, where a lost worker cannot take
it along) and the sum of its applied changes of w since; a partition lost with
its worker is rebuilt from its data on another worker with the checkpoint's
alpha, w drops that partition's changes since, so w = A alpha still holds, the
momentum restarts, and the round is redone. Each partition draws its DCD order
from (seed, k, round), and the search is deterministic, so the same seed gives
the same model, faults or not.
"""

import time

import numpy as np

from ..outofcore.format import block_nbytes
from ..problems.linear import DualProblem
from ..problems.objectives import relative_gap
from ..solvers._dcd_jit import dcd_epoch
from ..solvers.rng import new_state
from .inputs import check_built, checked_rows, live_workers, wait_or_lost

#: ``local_epochs='auto'``: at most this many local epochs a round, chosen from the
#: median of the last AUTO_WINDOW rounds' measures (see CoCoA._choose_local_epochs).
MAX_LOCAL_EPOCHS, AUTO_WINDOW = 100, 5


class _PartitionState:
    """A partition's dual variables, its pending step and its momentum.

    ``alpha`` belongs to round ``completed``; ``pending`` holds the last local
    step (da, r, dw, dr) until the driver says whether, and with which (t, u),
    it applied it; ``momentum`` is the last applied change of alpha and
    ``momentum_w`` its A_k. ``diag`` and ``upper`` are D_ii and U_i of every
    row (filled as the rows are read).
    """

    def __init__(self, n_problems, n_rows, alpha, completed):
        self.alpha = (np.zeros((n_problems, n_rows)) if alpha is None
                      else np.array(alpha, dtype=np.float64))
        self.completed = completed
        self.pending = None
        self.momentum = np.zeros_like(self.alpha)
        self.momentum_w = None
        self.diag = np.zeros_like(self.alpha)
        self.upper = np.full_like(self.alpha, np.inf)

    @property
    def n_rows(self):
        return self.alpha.shape[1]


class Partition(_PartitionState):
    """A worker's rows, their binary problems and dual variables, in its memory.

    Parameters
    ----------
    problems : list of DualProblem
        One per binary problem, all on the partition's rows.
    alpha : ndarray of shape (n_problems, n_rows) or None
        The dual variables to start from (zeros when None).
    completed : int
        The last round these alpha belong to.
    """

    def __init__(self, problems, alpha=None, completed=0):
        super().__init__(len(problems), problems[0].n_samples, alpha, completed)
        self.problems = problems

    def pieces(self, generator):
        """(rows, problems) covering the partition once: here all rows at once."""
        yield slice(None), self.problems


class DiskPartition(_PartitionState):
    """A partition kept out of core: blocks of a block directory, with a memory budget.

    Each local epoch reads the blocks in a new random order and groups them into
    pieces that fill ``memory`` bytes (block minimization with the grouping
    redrawn every pass, as :class:`dualsvm.outofcore.solvers.BlockMinimization`
    does: a fixed grouping stalls). Only the dual variables stay in memory.

    Parameters
    ----------
    path : str
        The block directory.
    block_ids : list of int
        The partition's blocks.
    options : tuple
        (classes, cost_by_class, loss, bias, bias_scale), as for :func:`build_partition`.
    memory : float
        Bytes held at once for a piece: its rows and their per-problem vectors.
    alpha, completed : as in :class:`Partition`.
    where : str
        Names the partition in errors.
    """

    def __init__(self, path, block_ids, options, memory, alpha=None, completed=0,
                 where="a partition"):
        from ..outofcore import DiskDataset

        self.dataset = DiskDataset(path)
        self.block_ids = list(block_ids)
        entries = [self.dataset.blocks[b] for b in self.block_ids]
        n_problems = len(problem_classes(options[0]))
        # a block's rows and, per binary problem, its DualProblem's five n-vectors
        self.block_bytes = [block_nbytes(e["n_rows"], e["nnz"]) + 40 * n_problems * e["n_rows"]
                            for e in entries]
        if self.block_bytes and memory < max(self.block_bytes):
            raise ValueError(f"{where}: a memory budget of {memory / 2**20:.1f} MB is below its "
                             f"largest block ({max(self.block_bytes) / 2**20:.1f} MB); convert "
                             "the data with smaller blocks")
        self.starts = np.concatenate([[0], np.cumsum([e["n_rows"] for e in entries])]).astype(np.int64)
        self.options = options
        self.memory = memory
        self.where = where
        super().__init__(n_problems, int(self.starts[-1]), alpha, completed)

    def pieces(self, generator):
        group, size = [], 0
        for j in generator.permutation(len(self.block_ids)):
            if group and size + self.block_bytes[j] > self.memory:
                yield self._piece(group)
                group, size = [], 0
            group.append(j)
            size += self.block_bytes[j]
        if group:
            yield self._piece(group)

    def _piece(self, group):
        """(rows, problems) of the blocks ``group``, stacked as they are read."""
        import scipy.sparse as sp

        entries = [self.dataset.blocks[self.block_ids[j]] for j in group]
        n_rows, nnz = sum(e["n_rows"] for e in entries), sum(e["nnz"] for e in entries)
        labels, indptr = np.empty(n_rows), np.zeros(n_rows + 1, dtype=np.int64)
        indices, data = np.empty(nnz, dtype=np.int32), np.empty(nnz)
        row = value = 0
        for block in self.dataset.iter_blocks([self.block_ids[j] for j in group]):
            m, k = block.n_rows, len(block.data)
            labels[row:row + m] = block.labels
            indptr[row + 1:row + m + 1] = block.indptr[1:] + value
            indices[value:value + k], data[value:value + k] = block.indices, block.data
            row, value = row + m, value + k
        X = sp.csr_matrix((data, indices, indptr), shape=(n_rows, self.dataset.n_features))
        rows = np.concatenate([np.arange(self.starts[j], self.starts[j + 1]) for j in group])
        return rows, partition_problems(X, labels, *self.options, where=self.where)


def partition_problems(chunk, labels, classes, cost_by_class, loss, bias, bias_scale,
                       where="a partition"):
    """The DualProblem of every binary problem on a chunk of rows, the data checked."""
    X, labels = checked_rows(chunk, labels, where)
    cost = cost_by_class[np.searchsorted(classes, labels)]
    return [DualProblem(X, np.where(labels == classes[k], 1.0, -1.0), cost, loss, bias, bias_scale)
            for k in problem_classes(classes)]


def build_partition(chunk, labels, classes, cost_by_class, loss, bias, bias_scale, alpha=None,
                    completed=0, where="a partition"):
    """A :class:`Partition` from a chunk of rows and its labels (runs on a worker)."""
    problems = partition_problems(chunk, labels, classes, cost_by_class, loss, bias, bias_scale,
                                  where)
    return Partition(problems, alpha, completed)


def problem_classes(classes):
    """The class each binary problem decides for: classes[1] alone for two classes, else each."""
    return [1] if len(classes) == 2 else list(range(len(classes)))


def settle(part, applied, steps):
    """Apply or drop the partition's pending step; True when it is at round ``applied``.

    ``applied``: the last round the driver added to w; ``steps``: (t, u) of that
    round for this partition, one value per binary problem. A pending step of
    a later round was not applied (a lost partition made the driver redo it).
    """
    if part.pending is not None:
        if part.completed + 1 == applied:
            step, kkt, dw, dr = part.pending
            t, u = (np.asarray(v, dtype=np.float64)[:, None] for v in steps)
            # a convex combination of feasible points; the clip only trims rounding
            alpha = np.clip(part.alpha + t * step + u * kkt, 0.0, part.upper)
            part.momentum = alpha - part.alpha
            part.momentum_w = t * dw + u * dr
            part.alpha = alpha
            part.completed += 1
        part.pending = None
    return part.completed == applied


def local_round(part, w, start_w, beta, steps, applied, round_number, sigma, local_epochs,
                local_time, seed, partition_number):
    """One round on a partition (runs on its worker).

    Settles the last round (:func:`settle`), then runs local DCD epochs from
    alpha + beta * momentum with ``start_w`` = w + beta A momentum (w when
    ``start_w`` is None), ``local_epochs`` of them or until ``local_time``
    seconds have passed (after the first: it sums the certificate). Returns a
    dict with ``dw`` and ``dr`` (A_k of the local step da and of the step r to
    the margins' dual point, per problem), ``sums`` (per problem: e'da, e'r,
    a'D da, a'D r, da'D da, da'D r, r'D r, which with dw and dr make the dual
    along (da, r) exact), ``loss`` and ``dual`` (sums at the round's start, for
    w and the partition's alpha) and ``violation``; None when the partition is
    behind (rebuilt by Dask from its data after a lost worker: the driver
    restores it).
    """
    if not settle(part, applied, steps):
        return None
    started = time.perf_counter()
    generator = np.random.default_rng([seed, partition_number, round_number])
    state = new_state(generator)
    beta = np.asarray(beta, dtype=np.float64)
    extrapolate = start_w is not None and part.momentum_w is not None
    work = part.alpha + beta[:, None] * part.momentum if extrapolate else part.alpha.copy()
    local_w = np.array(start_w if extrapolate else w, dtype=np.float64)
    origin = local_w.copy()
    kkt = np.zeros_like(part.alpha)
    dr = np.zeros_like(local_w)
    loss = np.zeros(len(w))
    dual = np.zeros(len(w))
    violation = 0.0
    for epoch in range(local_epochs):
        for rows, problems in part.pieces(generator):
            for p, problem in enumerate(problems):
                if epoch == 0:
                    decision = problem.decision(w[p])
                    current = part.alpha[p, rows]
                    loss[p] += problem.loss_sum(decision)
                    dual[p] += problem.dual_sum(current)
                    part.diag[p, rows] = problem.diag
                    part.upper[p, rows] = problem.upper_bound
                    to_kkt = problem.kkt_alpha(decision) - current
                    kkt[p, rows] = to_kkt
                    problem.add_weights(to_kkt, dr[p])
                alpha = work[p, rows]  # a view for all rows, else a copy
                curvature = sigma * (problem.q_diag - problem.diag) + problem.diag
                index = problem.movable()
                _, high, low = dcd_epoch(problem.rows, problem.y, alpha, local_w[p], curvature,
                                         problem.diag, problem.upper_bound,
                                         problem.augmented_value, index, len(index), np.inf,
                                         -np.inf, state, True, sigma)
                outside = (alpha < 0.0) | (alpha > problem.upper_bound)
                if outside.any():  # an extrapolated start DCD left outside the box (rare)
                    inside = np.clip(alpha, 0.0, problem.upper_bound)
                    problem.add_weights(sigma * (inside - alpha), local_w[p])
                    alpha = inside
                work[p, rows] = alpha
                if epoch == 0 and len(index):
                    violation = max(violation, max(high, 0.0) - min(low, 0.0))
        if local_time is not None and time.perf_counter() - started >= local_time:
            break
    step = work - part.alpha
    dw = (local_w - origin) / sigma  # A_k (work - start)
    if extrapolate:
        dw += beta[:, None] * part.momentum_w  # + A_k (start - alpha)
    weighted = part.diag * step
    sums = np.stack([step.sum(axis=1), kkt.sum(axis=1),
                     np.einsum("pi,pi->p", part.alpha, weighted),
                     np.einsum("pi,pi->p", part.alpha * part.diag, kkt),
                     np.einsum("pi,pi->p", step, weighted),
                     np.einsum("pi,pi->p", weighted, kkt),
                     np.einsum("pi,pi->p", kkt * part.diag, kkt)], axis=1)
    part.pending = (step, kkt, dw, dr)
    return {"dw": dw, "dr": dr, "sums": sums, "loss": loss, "dual": dual, "violation": violation,
            "epochs": epoch + 1, "seconds": time.perf_counter() - started}


def partition_alpha(part, applied, steps):
    """The partition's alpha as of round ``applied`` (for the driver's checkpoint)."""
    if not settle(part, applied, steps):
        raise RuntimeError("the partition is behind the driver")
    return part.alpha.copy()


def coupling(dw):
    """||sum_k dw_k||^2 / sum_k ||dw_k||^2 of the partitions' local steps (rows of ``dw``).

    The ratio of the combined step's quadratic term to the sum of the local
    ones: 1 for steps in disjoint features, K for K equal steps, and a lower
    bound on CoCoA+'s sigma'_min (its maximum over all steps); 0 for no step.
    """
    total = dw.sum(axis=0)
    squares = float(np.sum(dw * dw))
    return float(total @ total) / squares if squares > 0.0 else 0.0


def best_step(dw, dr, sums, w):
    """The exact search of a round for one binary problem: (t, u, gain, plain).

    ``dw``, ``dr``: (K, d) arrays, A_k da_k and A_k r_k; ``sums``: (K, 7) from
    :func:`local_round`; ``w``: the round's w. The dual's change
    D(a + sum_k t_k da_k + u_k r_k) - D(a) = b'x - x'Hx / 2 with x = (t, u),
    H = V V' + the partitions' D terms (V: the rows of dw and dr) and b the
    gradient at x = 0; it is maximised over t_k, u_k >= 0, t_k + u_k <= 1 by
    SLSQP, and the best of that, CoCoA+'s (1, 0) and (0, 0) is returned, so
    the gain is never below CoCoA+'s (``plain``) nor below 0.
    """
    from scipy.optimize import minimize

    K = len(dw)
    V = np.concatenate([dw, dr])
    H = V @ V.T
    k = np.arange(K)
    H[k, k] += sums[:, 4]
    H[k, K + k] += sums[:, 5]
    H[K + k, k] += sums[:, 5]
    H[K + k, K + k] += sums[:, 6]
    b = np.concatenate([sums[:, 0] - sums[:, 2] - dw @ w, sums[:, 1] - sums[:, 3] - dr @ w])
    # scaled to order one for the solver's tolerances
    scale = max(float(np.max(np.abs(np.diag(H)))), float(np.max(np.abs(b))), np.finfo(float).tiny)
    Hs, bs = H / scale, b / scale
    pairs = np.hstack([np.eye(K), np.eye(K)])  # t_k + u_k
    plain_x = np.concatenate([np.ones(K), np.zeros(K)])

    def gain(x):
        return float(bs @ x - 0.5 * x @ Hs @ x)

    found = minimize(lambda x: -gain(x), plain_x, jac=lambda x: Hs @ x - bs,
                     bounds=[(0.0, 1.0)] * (2 * K), method="SLSQP",
                     constraints=[{"type": "ineq", "fun": lambda x: 1.0 - pairs @ x,
                                   "jac": lambda x: -pairs}],
                     options={"ftol": 1e-14, "maxiter": 500})
    x = np.clip(found.x, 0.0, 1.0)
    x /= np.tile(np.maximum(1.0, pairs @ x), 2)  # back inside if the solver stepped out
    best = max((x, plain_x, np.zeros(2 * K)), key=gain)
    return best[:K], best[K:], gain(best) * scale, gain(plain_x) * scale


class CoCoA:
    """The driver's side: one :meth:`epoch` is one round (the ``run_epochs`` interface).

    Parameters
    ----------
    client : distributed.Client
    sources : list of callables
        ``sources[k](alpha, completed, worker)`` submits the build of partition
        k (from its data, with that alpha) to ``worker`` and returns its future.
    n_rows : list of int
        Rows of every partition.
    n_problems, n_weights : int
    bias, bias_scale, n_features : the weights' layout (see :class:`~dualsvm.problems.linear.DualProblem`).
    local_epochs : int
    local_time : float or None
        Seconds of local epochs per round (after the first), or None.
    seed : int
    checkpoint_every : int
        Rounds between copies of every partition's alpha to the driver.
    sigma : 'K', 'adaptive' or float
        sigma' of the local sub-problems (see the module's docstring).
    """

    def __init__(self, client, sources, n_rows, n_problems, n_weights, *, n_features, bias,
                 bias_scale, local_epochs, local_time=None, seed, checkpoint_every,
                 sigma="K"):
        self.client = client
        self.sources = sources
        self.n_rows = list(n_rows)
        self.adaptive = sigma == "adaptive"
        self.sigma = (float(len(sources)) if sigma == "K" else 1.0 if self.adaptive
                      else float(sigma))
        self.round_sigma = self.sigma  # the sigma' of the last round (its record)
        self.coupling = np.nan  # the measured coupling of the last round's local steps
        self.auto_epochs = local_epochs == "auto"
        self.local_epochs = 1 if self.auto_epochs else int(local_epochs)
        self.round_epochs = self.local_epochs  # the local epochs of the last round (its record)
        self.epoch_targets = []  # the automatic rule's measured targets, one per round
        self.local_time = local_time
        self.seed = int(seed)
        self.checkpoint_every = int(checkpoint_every)
        self.n_features = n_features
        self.bias = bias
        self.bias_scale = bias_scale
        self.w = np.zeros((n_problems, n_weights))
        self.rounds = 0  # rounds applied to w
        # the last checkpoint: every partition's alpha and the round it belongs to,
        # and per partition the sum of its dw applied since
        self.saved_alpha = [np.zeros((n_problems, n)) for n in self.n_rows]
        self.saved_round = 0
        self.dw_since = [np.zeros_like(self.w) for _ in sources]
        # the search of the last applied round, (t, u) of shape (n_problems, K), and
        # the momentum: rounds since its restart per problem, last applied change of w
        self.steps = (np.zeros((n_problems, len(sources))), np.zeros((n_problems, len(sources))))
        self.momentum_rounds = np.ones(n_problems)
        self.last_change = np.zeros_like(self.w)
        self.model_w = self.w.copy()
        self.primal = self.dual = self.gap = np.full(n_problems, np.nan)
        self.violation = np.inf
        self.active_size = sum(self.n_rows)
        self.alpha = np.zeros(0)  # the dual variables stay on the workers
        self.bytes_sent = 0
        self.rebuilt = 0
        self.workers = live_workers(self.client)
        self.holders = [self.workers[k % len(self.workers)] for k in range(len(sources))]
        self.parts = [source(None, 0, holder) for source, holder in zip(sources, self.holders)]
        check_built(client, self.parts, self.holders)  # bad data: an error now, by partition

    # ------------------------------------------------------------ run_epochs
    def epoch(self):
        """One round: every partition's local step, the exact search, w += the steps."""
        started = time.perf_counter()
        results = None
        while results is None:  # None: a partition was lost and rebuilt; redo the round
            results = self._round()
        self.bytes_sent = sum(r["bytes"] for r in results)
        ww = np.einsum("pj,pj->p", self.w, self.w)
        primal = 0.5 * ww + sum(r["loss"] for r in results)
        better = ~(primal >= self.primal)  # (NaN before the first round)
        self.primal = np.where(better, primal, self.primal)
        self.model_w[better] = self.w[better]
        self.dual = sum(r["dual"] for r in results) - 0.5 * ww
        self.gap = np.array([relative_gap(p, d) for p, d in zip(self.primal, self.dual)])
        self.violation = max(r["violation"] for r in results)
        t, u = np.zeros_like(self.steps[0]), np.zeros_like(self.steps[1])
        change = np.zeros_like(self.w)
        self.round_sigma = self.sigma
        self.coupling = max(coupling(np.array([r["dw"][p] for r in results]))
                            for p in range(len(self.w)))
        if self.adaptive and self.coupling > self.sigma * (1.0 + 1e-9):
            # the local model under-charged the steps' overlap: CoCoA+'s safe value
            self.sigma = float(len(results))
        for p in range(len(self.w)):
            dw = np.array([r["dw"][p] for r in results])
            dr = np.array([r["dr"][p] for r in results])
            t[p], u[p], _, plain = best_step(dw, dr, np.array([r["sums"][p] for r in results]),
                                             self.w[p])
            # restart the momentum once its step alone would have lowered the dual
            self.momentum_rounds[p] = 1 if plain < 0 else self.momentum_rounds[p] + 1
            for k in range(len(results)):
                applied = t[p, k] * dw[k] + u[p, k] * dr[k]
                self.dw_since[k][p] += applied
                change[p] += applied
        self.w += change
        self.steps = (t, u)
        self.last_change = change
        self.rounds += 1
        self.round_epochs = self.local_epochs
        if self.auto_epochs:
            self._choose_local_epochs(results, time.perf_counter() - started)
        if self.rounds - self.saved_round >= self.checkpoint_every:
            self._checkpoint()
        return False

    def momentum(self):
        """(beta per problem, w + beta * last change, or None when beta is 0 everywhere)."""
        beta = (self.momentum_rounds - 1) / (self.momentum_rounds + 2)
        if not np.any(beta):
            return beta, None
        return beta, self.w + beta[:, None] * self.last_change

    def certificate(self):
        """(sum of primals, sum of duals, largest relative gap, 0.0) of ``model_w``."""
        return float(np.sum(self.primal)), float(np.sum(self.dual)), float(np.max(self.gap)), 0.0

    def counters(self):
        return {"bytes": self.bytes_sent, "rebuilt": self.rebuilt, "sigma": self.round_sigma,
                "coupling": self.coupling, "local_epochs": self.round_epochs}

    def coef_intercept(self, w, intercept=0.0):
        """(coef, intercept) arrays of the weight rows ``w`` (callbacks)."""
        coef = w[:, :self.n_features].copy()
        if self.bias == "augmented":
            return coef, self.bias_scale * w[:, self.n_features]
        return coef, np.zeros(len(w))

    # ------------------------------------------------------------ internals
    def _choose_local_epochs(self, results, seconds):
        """The automatic local work (``local_epochs='auto'``): the next round's epochs
        take as long as this round's communication, its ``seconds`` less the busiest
        worker's local work (the median of the last AUTO_WINDOW rounds' measures)."""
        busy, per_epoch = {}, {}
        for holder, r in zip(self.holders, results):
            busy[holder] = busy.get(holder, 0.0) + r["seconds"]
            per_epoch[holder] = per_epoch.get(holder, 0.0) + r["seconds"] / r["epochs"]
        communication = max(seconds - max(busy.values()), 0.0)
        self.epoch_targets.append(communication / max(max(per_epoch.values()), 1e-9))
        wanted = float(np.median(self.epoch_targets[-AUTO_WINDOW:]))
        self.local_epochs = int(np.clip(round(wanted), 1, MAX_LOCAL_EPOCHS))

    def _round(self):
        """The results of every partition for this round, or None when a partition
        was lost (it is rebuilt; the round is redone)."""
        beta, start_w = self.momentum()
        futures = [self.client.submit(local_round, part, self.w, start_w, beta,
                                      (self.steps[0][:, k], self.steps[1][:, k]), self.rounds,
                                      self.rounds + 1, self.sigma, self.local_epochs,
                                      self.local_time, self.seed, k, pure=False,
                                      workers=[self.holders[k]], allow_other_workers=False)
                   for k, part in enumerate(self.parts)]
        # out: w, w + beta * change (with momentum), beta, (t, u) of the last round
        out_bytes = (self.w.nbytes * (1 if start_w is None else 2)
                     + beta.nbytes + 2 * self.steps[0][:, 0].nbytes)
        lost = wait_or_lost(self.client, futures, self.holders)
        if not lost:  # None: a partition behind the driver (rebuilt by Dask from its data)
            results = [f.result() for f in futures]
            lost = [k for k, r in enumerate(results) if r is None]
        if lost:
            self._rebuild(lost)
            return None
        for r in results:
            r["bytes"] = (r["dw"].nbytes + r["dr"].nbytes + r["sums"].nbytes
                          + 16 * len(r["loss"]) + 8 + out_bytes)
        return results

    def _rebuild(self, lost):
        """Rebuild lost partitions from their data with the checkpoint's alpha; w
        drops what they added since."""
        self.workers = live_workers(self.client)
        self.momentum_rounds[:] = 1  # w + beta * change no longer matches the partitions
        for k in lost:
            self.w -= self.dw_since[k]
            self.dw_since[k][:] = 0.0
            self.holders[k] = self.workers[k % len(self.workers)]
            # continues from the current round: w holds none of its steps since the checkpoint
            self.parts[k] = self.sources[k](self.saved_alpha[k], self.rounds, self.holders[k])
            self.rebuilt += 1

    def _checkpoint(self):
        futures = [self.client.submit(partition_alpha, part, self.rounds,
                                      (self.steps[0][:, k], self.steps[1][:, k]), pure=False,
                                      workers=[self.holders[k]], allow_other_workers=False)
                   for k, part in enumerate(self.parts)]
        try:
            alphas = self.client.gather(futures)
        except Exception:  # a worker lost now: the round's check will see it
            return
        self.saved_alpha = alphas
        self.saved_round = self.rounds
        for dw in self.dw_since:
            dw[:] = 0.0
        self.bytes_sent += sum(a.nbytes for a in alphas)

