"""LIBSVM's C-SVC dual on a Dask cluster: a working-set solver with the rows on the workers.

For one pair of classes (one-vs-one, as LIBSVM splits them), the problem of
:class:`dualsvm.problems.kernel.KernelDualProblem` with the exact bias::

    min_a f(a) = 1/2 a'(Q + D)a - e'a,   0 <= a_i <= U_i,   y'a = 0,
    Q_ij = y_i y_j K(x_i, x_j)     ((D_ii, U_i) = (0, C_i) hinge, (1/(2 C_i), inf) squared hinge)

The rows are split into partitions, one worker each (:class:`KernelPartition`),
and stay there with their a_i and their slice G_k of the gradient G = (Q + D)a - e.
The algorithm is ThunderSVM's (:mod:`dualsvm.solvers.ws_smo`), its parts placed
where their data are; one iteration is one round trip (:class:`PairSolver`):

1. The client sends every partition the working set B it solved last (row
   numbers, labels, new a_B and their change d), with the rows of B's members
   that are new in it. Each partition adds Q[k, B] d to G_k (the in-memory
   solver's ``update_gradient``) from the columns Q[k, j] of B's members: the
   in-memory solver's column cache (:class:`~dualsvm.kernels.qmatrix.ColumnCache`,
   float64 slots over the partition's rows, columns numbered as the rows of the
   whole data), the new members' columns computed by the kernel engine's tile
   driver (:func:`~dualsvm.kernels.blocks.tile_values`) against their rows (the
   columns of the set before are always there: the cache holds 2q columns or
   more), and takes its a_i in B.
2. Each partition answers with its candidates for the next set: its rows in the
   kept half of B (``kept_half``) and, by LIBSVM's score -y_i G_i, its ``need = q - |kept|`` most
   violating variables of each side (I_up from the top, I_low from the bottom):
   their a, G, C_i, labels and the rows the client does not hold, and six sums
   for the certificate.
3. The client runs the same selection (``select_working_set``) over the
   candidates in row order: each side's ``need`` best of all rows are among the
   partitions' ``need`` best, so the working set and the maximal violation are
   those the in-memory solver finds on all rows (ties broken in row order). It
   solves the q-variable sub-problem by SMO in Q[B, B] (``solve_sub_problem``, the
   in-memory solver's, with its tolerance and step bound), from the rows it received.

It stops as ``WorkingSetSMO`` does, at a maximal violation below
``STOP_RATIO * tol``: the model is in-memory SVC's to the tolerance.

**Traffic** per iteration and worker: out, 4 numbers for each of the q members
of B and the rows of its new members (q/2 after the first iteration); back, at most
1.5q candidates (5 numbers each) and the rows of q of them. Kernel work is split by
rows: each worker computes K(its rows, the new members of B), and no worker ever
holds another's rows beyond the working set.

**Certificate.** The columns are float64, so G is exact to rounding, and the
partitions' sums give in O(n / K) each

    dual     D(a) = 1/2 sum_i a_i (1 - G_i)
    bias     b: LIBSVM's KKT value (the mean of -y_i G_i over the free variables,
             else the midpoint of [max over I_up, min over I_low] of it), by
             ``kkt_bias``'s parts: each partition's ``kkt_bias_sums``, combined
             into ``bias_from_sums``
    primal   P(a, b) = 1/2 a'Qa + sum_i C_i loss((Qa)_i + y_i b),  (Qa)_i = G_i + 1 - D_ii a_i

An iteration's primal is taken at the bias of the iteration before (the
partitions need b before they sum); :meth:`PairSolver.finish` certifies the last
point at its own b, which is the model's.

**Faults.** The client keeps every a_i (n numbers, as it keeps the labels): it
is the checkpoint, up to date every iteration. A partition lost with its worker
is rebuilt from its data on another worker, takes its a_i from the client, its
gradient from the support vectors (their rows fetched from the partitions) and
the columns of the current B, and the iteration is redone; the other partitions
see it was applied and only answer again.

**Warm starts.** ``alpha`` (feasible, y'a = 0) starts every partition the same
way; divide and conquer (:mod:`dualsvm.dask.divide_conquer`) finishes by this
solver started from its last level's a.
"""

import math
import time

import numpy as np
import scipy.sparse as sp

from ..data.rows import row_squares
from ..data.svmlight import format_label
from ..kernels import MIN_SLOTS, make_kernel
from ..kernels.functions import entry_moments, gamma_value, moments_variance
from ..kernels.blocks import SlotColumns, contiguous_rows, dense_points, tile_values
from ..kernels.qmatrix import claim_columns, column_cache, columns_completed
from ..problems.box import dual_parameters
from ..problems.objectives import bias_from_sums, kernel_primal, kkt_bias_sums, relative_gap
from ..solvers import Stopping
from ..solvers._ws_jit import select_working_set, update_gradient
from ..solvers.ws_smo import (INNER_RATIO, MAX_WORKING_SET, STOP_RATIO, kept_half,
                              solve_sub_problem, working_set_size)
from ..training.config import KernelTraining
from ..training.fitted import KernelFit, class_pairs, dual_coefficients
from ..training.multiclass import BinaryTask, solve_tasks
from .inputs import check_built, checked_rows, live_workers, wait_or_lost

#: Most bytes of points laid out densely at once (the new rows of B, by feature).
BLOCK_BYTES = 64 * 2**20


# ------------------------------------------------------------------ on the workers

class KernelPartition:
    """A worker's rows, their labels, costs C_i and numbers in the whole data, and the
    binary problem it works on (``pair``, a :class:`PairState`).

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_rows, n_features)
    labels : ndarray of shape (n_rows,)
    cost : ndarray of shape (n_rows,), or (classes, cost_by_class)
        C_i of every row, or the cost of each class (rows of a block directory).
    ids : ndarray of int
        The rows' numbers in the whole data, increasing.
    where : str
        Names the partition in errors.
    """

    def __init__(self, X, labels, cost, ids, where="a partition"):
        X, labels = checked_rows(X, labels, where)
        if isinstance(cost, tuple):
            classes, cost_by_class = cost
            cost = np.asarray(cost_by_class)[np.searchsorted(classes, labels)]
        self.X = X
        self.labels = labels
        self.cost = np.asarray(cost, dtype=np.float64)
        self.ids = np.asarray(ids, dtype=np.int64)
        self.pair = None

    @property
    def n_rows(self):
        return self.X.shape[0]


def partition_moments(part):
    """(count, sum, sum of squares) of the partition's entries (gamma='scale')."""
    return entry_moments(part.X)


class PairState:
    """A partition's share of one binary problem: its rows of the two classes (cost
    > 0), their a and G, and the column cache of Q[its rows, j] for rows j of the
    whole data (numbered 0 .. n_columns - 1).

    ``iteration``: the last working set applied (the client's count).
    """

    def __init__(self, part, positive, negative, kernel, loss, cache_bytes, n_columns,
                 iteration, alpha):
        on = (part.cost > 0) & ((part.labels == positive) | (part.labels == negative))
        rows = np.flatnonzero(on)
        self.ids = part.ids[rows]
        self.X = part.X if len(rows) == part.n_rows else part.X[rows]
        m = len(rows)
        self.rows = contiguous_rows(self.X)
        self.sq = row_squares(self.rows, m)
        self.every_row = np.arange(m, dtype=np.int64)
        self.y = np.where(part.labels[rows] == positive, 1.0, -1.0)
        self.cost = part.cost[rows]
        self.diag, self.upper = dual_parameters(self.cost, loss)
        self.squared = loss == "squared_hinge"
        self.kernel = kernel
        self.alpha = np.zeros(m) if alpha is None else np.array(alpha, dtype=np.float64)[rows]
        self.G = self.diag * self.alpha - 1.0  # + Q a: set_gradient, for a warm start
        # float64 columns: G stays exact to rounding, and so does the certificate summed
        # from it (module docstring)
        self.n_slots = max(MIN_SLOTS, int(cache_bytes // (8 * max(m, 1))))
        self.cache = column_cache(n_columns, self.n_slots, m, np.float64)
        self.iteration = iteration

    def positions(self, ids):
        """(positions in this pair's rows, mask of the ``ids`` that are its rows)."""
        pos = np.searchsorted(self.ids, ids)
        pos = np.minimum(pos, max(len(self.ids) - 1, 0))
        mine = (pos < len(self.ids)) & (self.ids[pos] == ids) if len(self.ids) else \
            np.zeros(len(ids), dtype=bool)
        return pos, mine

    def cache_columns(self, ids, y, new_ids, new_points):
        """The cache slots of the columns of ``ids`` (the working set, labels ``y``),
        made the most recently used; the missing ones computed from ``new_points`` (the
        rows of ``new_ids``) into the least recently used slots. A column of the last
        working set is never evicted here (the cache holds 2q columns or more), so only
        its new members need rows."""
        slots = np.empty(len(ids), dtype=np.int64)
        if not len(self.ids):
            return slots
        if len(ids) > self.n_slots:
            raise RuntimeError(f"the kernel cache holds {self.n_slots} columns, fewer than the "
                               "working set needs")
        where = {j: t for t, j in enumerate(new_ids.tolist())}
        held = self.cache.slot_of[ids] >= 0
        if any(j not in where for j in ids[~held].tolist()):
            raise RuntimeError("a working-set column is neither cached nor sent")
        missing = claim_columns(self.cache, ids, slots)
        if not len(missing):
            return slots
        Z = new_points[[where[j] for j in ids[missing].tolist()]]
        step = max(1, BLOCK_BYTES // (8 * Z.shape[1]))
        for start in range(0, len(missing), step):  # Z laid out densely by parts
            part = missing[start:start + step]
            Zt = dense_points(Z, slice(start, start + step))
            tile_values(self.rows, self.every_row, self.sq, Zt, np.einsum("ij,ij->j", Zt, Zt),
                        self.kernel.params, SlotColumns(self.y, y[part], slots[part],
                                                        self.cache.slots))
        columns_completed(self.cache, slots[missing])
        return slots

    def apply(self, request):
        """G += Q[:, B] d for the request's working set B; a_B of these rows."""
        ws, delta = request["ws"], request["delta"]
        slots = self.cache_columns(ws, request["ws_y"], request["new_ids"], request["new_rows"])
        if len(self.ids):
            update_gradient(self.cache.slots, slots, delta, self.G, self.every_row)
        pos, mine = self.positions(ws)
        self.alpha[pos[mine]] = request["ws_alpha"][mine]
        self.G[pos[mine]] += self.diag[pos[mine]] * delta[mine]
        self.iteration = request["iteration"]

    def candidates(self, ws, q, intercept):
        """This partition's candidates for the next working set (module docstring)
        and its sums: [2 D(a) share, P(a, intercept) share, and the bias's sums
        (``kkt_bias_sums``: sum and count of -y_i G_i over the free variables, its max
        over I_up, its min over I_low)]."""
        kept = kept_half(ws, q)
        pos, mine = self.positions(kept)
        keep = pos[mine].astype(np.int64)
        need = q - len(kept)
        out = np.empty(len(keep) + 2 * need, dtype=np.int64)
        count, _ = select_working_set(self.y, self.alpha, self.G, self.upper, keep, len(out),
                                      out, self.every_row)
        chosen = np.sort(out[:count])
        new = np.setdiff1d(chosen, keep, assume_unique=True)
        a, G, y = self.alpha, self.G, self.y
        sums = np.array([float(a @ (1.0 - G)),
                         kernel_primal(a, G, y, self.diag, self.cost, float(intercept),
                                       self.squared),
                         *kkt_bias_sums(y, a, self.upper, G)])
        return {"ids": self.ids[chosen], "y": y[chosen], "alpha": a[chosen], "G": G[chosen],
                "cost": self.cost[chosen], "new_ids": self.ids[new], "rows": self.X[new],
                "sums": sums, "kernel_evaluations": self.cache.evaluations,
                "cache_hits": self.cache.hits}


def start_pair(part, positive, negative, kernel, loss, cache_bytes, n_columns, iteration=0,
               alpha=None):
    """Start the binary problem of classes (``positive``, ``negative``) on a partition
    (``n_columns``: the rows of the whole data; ``alpha``: a_i of all the partition's
    rows, 0 off the pair); returns (its rows in the problem, the columns its cache holds)."""
    part.pair = PairState(part, positive, negative, kernel, loss, cache_bytes, n_columns,
                          iteration, alpha)
    return len(part.pair.ids), part.pair.n_slots


def pair_round(part, request):
    """One iteration on a partition: apply the request's working set (unless it did
    already: a redone iteration), then answer with its candidates and sums."""
    started = time.perf_counter()
    pair = part.pair
    if request["iteration"] > pair.iteration:
        pair.apply(request)
    answer = pair.candidates(request["ws"], request["q"], request["intercept"])
    answer["seconds"] = time.perf_counter() - started
    return answer


def pair_rows(part, ids):
    """(rows, labels) of ``ids``, rows of the partition's pair."""
    pos, mine = part.pair.positions(ids)
    if not mine.all():
        raise RuntimeError("rows asked of a partition that does not hold them")
    return part.pair.X[pos], part.pair.y[pos]


def pair_support(part, intercept):
    """The support vectors' (row numbers, y_i a_i, rows) and the primal sum at
    ``intercept`` (the last certificate)."""
    pair = part.pair
    sv = np.flatnonzero(pair.alpha)
    primal = kernel_primal(pair.alpha, pair.G, pair.y, pair.diag, pair.cost, float(intercept),
                           pair.squared)
    return pair.ids[sv], pair.y[sv] * pair.alpha[sv], pair.X[sv], primal


def set_gradient(part, rows, coef, ws_ids, ws_y, ws_rows):
    """G = Q a + D a - e from the support vectors (``rows`` and their y_i a_i), and the
    columns of the working set (``ws_ids``, labels ``ws_y``, rows ``ws_rows``) in the
    cache: a warm start, or a partition rebuilt after a fault."""
    pair = part.pair
    qa = pair.kernel.times(pair.X, rows, coef)[:, 0] if len(pair.ids) and len(coef) else 0.0
    pair.G = pair.y * qa + pair.diag * pair.alpha - 1.0
    pair.cache_columns(ws_ids, ws_y, ws_ids, ws_rows)


# ------------------------------------------------------------------ on the client

def cluster_working_set(n_samples, n_slots, requested=None):
    """q: ``requested`` (checked as ``SVC(solver='ws')`` checks it), else the largest
    power of two within MAX_WORKING_SET, half the smallest cache and the rows.

    The in-memory solver takes q near n / 100 (``ws_smo.ROWS_PER_VARIABLE``: larger
    sets computed more columns than they saved in selections); here every iteration
    also costs a round trip, so fewer, larger sets pay.
    """
    if requested is not None:
        return working_set_size(n_samples, n_slots, requested)
    limit = max(2, min(MAX_WORKING_SET, n_slots // 2, n_samples))
    return 1 << (limit.bit_length() - 1)


class Partitions:
    """The data's partitions on the workers (futures of :class:`KernelPartition`),
    each rebuilt from its source on another worker when its own is lost.

    ``sources[k](worker)`` submits the build of partition k to ``worker``;
    ``ids[k]`` are its rows' numbers.
    """

    def __init__(self, client, sources, ids):
        self.client = client
        self.sources = sources
        self.ids = ids
        self.rebuilt = 0
        self.workers = live_workers(client)
        self.holders = [self.workers[k % len(self.workers)] for k in range(len(sources))]
        self.futures = [source(holder) for source, holder in zip(sources, self.holders)]
        check_built(client, self.futures, self.holders)  # bad data: an error now, by partition

    def __len__(self):
        return len(self.futures)

    def run(self, function, args, which=None):
        """``function(partition k, *args[i])`` on the partitions k = ``which[i]`` (all
        by default): (their results, []), or (None, the lost ones) after rebuilding
        those without state."""
        which = range(len(self.futures)) if which is None else which
        futures = [self.client.submit(function, self.futures[k], *a, pure=False,
                                      workers=[self.holders[k]], allow_other_workers=False)
                   for k, a in zip(which, args)]
        lost = wait_or_lost(self.client, futures, [self.holders[k] for k in which])
        if not lost:
            return [f.result() for f in futures], []
        lost = [which[i] for i in lost]
        self.rebuild(lost)
        return None, lost

    def run_all(self, function, args, restore):
        """:meth:`run` on every partition until none is lost, ``restore(lost)``
        setting the rebuilt ones up again after each loss; the results."""
        while True:
            results, lost = self.run(function, args)
            if results is not None:
                return results
            restore(lost)

    def rebuild(self, lost):
        """Build the partitions ``lost`` (with their workers) again, on live workers."""
        self.workers = live_workers(self.client)
        for k in lost:
            self.holders[k] = self.workers[k % len(self.workers)]
            self.futures[k] = self.sources[k](self.holders[k])
            self.rebuilt += 1


def payload_bytes(value):
    """Bytes of the arrays (dense or sparse) in a message: a dict, tuple or array."""
    if isinstance(value, dict):
        return sum(payload_bytes(v) for v in value.values())
    if isinstance(value, (tuple, list)):
        return sum(payload_bytes(v) for v in value)
    if sp.issparse(value):
        return value.data.nbytes + value.indices.nbytes + value.indptr.nbytes
    return getattr(value, "nbytes", 8)


def stack_rows(blocks):
    """One matrix of the rows in ``blocks`` (all dense or all CSR)."""
    if sp.issparse(blocks[0]):
        return sp.vstack(blocks, format="csr")
    return np.vstack(blocks)


class PairSolver:
    """One binary problem across the partitions, by the algorithm of the module
    docstring, with the interface of :func:`dualsvm.solvers.run_epochs`: one
    ``epoch()`` is one working set (its sub-problem solved, sent out, answered).

    Parameters
    ----------
    partitions : Partitions
    positive, negative : label values of the pair's classes (y = +1, -1)
    kernel : dualsvm.kernels.Kernel
    loss : 'hinge' or 'squared_hinge'
    tol : float
        LIBSVM's -e, as ``WorkingSetSMO`` takes it.
    cache_bytes : float
        Each partition's column cache.
    working_set : int or None
        q (None: :func:`cluster_working_set` of the pair's rows and the smallest cache).
    alpha : ndarray or None
        Warm start: a_i by row number (0 off the pair), feasible (y'a = 0).
    """

    def __init__(self, partitions, positive, negative, kernel, loss, tol, cache_bytes,
                 working_set=None, alpha=None):
        self.partitions = partitions
        # the client's copy of every a_i, by row number: the checkpoint
        n_all = 1 + max((int(ids[-1]) for ids in partitions.ids if len(ids)), default=0)
        self.start_args = (positive, negative, kernel, loss, float(cache_bytes), n_all)
        self.kernel = kernel
        self.loss = loss
        self.stop_at = STOP_RATIO * float(tol)
        self.steps = self.outer = self.iteration = 0
        self.exchange_seconds = self.worker_seconds = 0.0  # round trips, the busiest worker's part
        self.finished = False
        self.alpha = np.zeros(n_all) if alpha is None else np.array(alpha, dtype=np.float64)
        self.ws = np.zeros(0, dtype=np.int64)
        self.ws_y = np.zeros(0)
        self.ws_rows = None
        self.intercept = 0.0
        shapes = self._start(range(len(partitions)))
        self.n_samples = sum(m for m, _ in shapes)
        self.q = cluster_working_set(self.n_samples, min(s for _, s in shapes), working_set)
        self.request = self._request(self.ws, [], [], [], None)
        self._exchange()

    # ------------------------------------------------------------ run_epochs
    @property
    def n_iter(self):
        """Working sets solved."""
        return self.outer

    @property
    def active_size(self):
        return self.n_samples

    def epoch(self):
        """Select B, solve its sub-problem, send it out and take the answers; True once
        the maximal violation is below STOP_RATIO * tol."""
        if self.violation < self.stop_at or self.count < 2:
            return True
        chosen = self.out[:self.count]
        pool = self.pool
        ws = pool["ids"][chosen]
        rows = self._rows_of(ws)
        y = pool["y"][chosen]
        diag, upper = dual_parameters(pool["cost"][chosen], self.loss)
        K = self.kernel(rows, rows)
        alpha, G = pool["alpha"][chosen].copy(), pool["G"][chosen].copy()
        steps, _, _ = solve_sub_problem(y[:, None] * K * y[None, :], y, alpha, G, upper,
                                        np.diag(K) + diag, diag, self.stop_at, INNER_RATIO,
                                        self.violation)
        self.steps += int(steps)
        self.outer += 1
        self.request = self._request(ws, y, alpha, alpha - pool["alpha"][chosen], rows)
        self.alpha[ws] = alpha
        self.ws, self.ws_y, self.ws_rows = ws, y, rows
        self._exchange()
        return self.violation < self.stop_at

    def finish(self):
        """Certify the last point at its own bias; keep its support vectors
        (``support_ids``, ``support_coef`` y_i a_i, ``support_rows``)."""
        if not self.settled:  # stopped during a round trip (Ctrl-C): settle it
            self._exchange()
        b = self.intercept
        results = self.partitions.run_all(pair_support, [(b,)] * len(self.partitions),
                                           self._start)
        ids = np.concatenate([r[0] for r in results])
        order = np.argsort(ids, kind="stable")
        self.support_ids = ids[order]
        self.support_coef = np.concatenate([r[1] for r in results])[order]
        self.support_rows = stack_rows([r[2] for r in results])[order]
        primal = float(sum(r[3] for r in results))
        self.final = (primal, self.dual, relative_gap(primal, self.dual), b)
        self.finished = True
        return True

    def certificate(self):
        """(primal, dual, relative gap, intercept): while training, the primal at the
        bias of the iteration before; after :meth:`finish`, the model's own."""
        if self.finished:
            return self.final
        b = self.request["intercept"]
        return self.primal, self.dual, relative_gap(self.primal, self.dual), b

    def counters(self):
        return {"iterations": self.steps, "outer_iterations": self.outer, "working_set": self.q,
                "kernel_evaluations": self.kernel_evaluations, "cache_hits": self.cache_hits,
                "bytes": self.bytes_sent, "rebuilt": self.partitions.rebuilt,
                "exchange_seconds": self.exchange_seconds, "worker_seconds": self.worker_seconds}

    # ------------------------------------------------------------ internals
    def _request(self, ws, y, alpha, delta, rows):
        """What every partition is sent: the working set B solved, its labels, new a
        and change, the rows of its members that were not in the last B, q and the
        bias for the primal sum."""
        ws = np.asarray(ws, dtype=np.int64)
        new = np.flatnonzero(~np.isin(ws, self.ws))
        self.iteration += 1
        return {"iteration": self.iteration, "ws": ws, "ws_y": np.asarray(y, dtype=np.float64),
                "ws_alpha": np.asarray(alpha, dtype=np.float64),
                "delta": np.asarray(delta, dtype=np.float64), "new_ids": ws[new],
                "new_rows": None if rows is None else rows[new], "q": self.q,
                "intercept": self.intercept}

    def _exchange(self):
        """Send the request to every partition; merge their candidates, select the
        next working set (and the maximal violation), sum the certificate."""
        self.settled = False
        started = time.perf_counter()
        results = self.partitions.run_all(pair_round, [(self.request,)] * len(self.partitions),
                                           self._start)
        self.settled = True
        self.exchange_seconds += time.perf_counter() - started
        self.worker_seconds += max(r["seconds"] for r in results)
        self.bytes_sent = (len(results) * payload_bytes(self.request)
                           + sum(payload_bytes(r) for r in results))
        order = np.argsort(np.concatenate([r["ids"] for r in results]), kind="stable")
        self.pool = pool = {key: np.concatenate([r[key] for r in results])[order]
                            for key in ("ids", "y", "alpha", "G", "cost")}
        self.received = (np.concatenate([r["new_ids"] for r in results]),
                         stack_rows([r["rows"] for r in results]))
        self.kernel_evaluations = sum(r["kernel_evaluations"] for r in results)
        self.cache_hits = sum(r["cache_hits"] for r in results)
        ws = self.ws
        kept = kept_half(ws, self.q)
        self.out = np.empty(self.q, dtype=np.int64)
        self.count, violation = select_working_set(
            pool["y"], pool["alpha"], pool["G"], dual_parameters(pool["cost"], self.loss)[1],
            np.searchsorted(pool["ids"], kept).astype(np.int64), self.q, self.out,
            np.arange(len(pool["ids"]), dtype=np.int64))
        self.violation = float(violation)
        sums = np.sum([r["sums"][:4] for r in results], axis=0)
        self.dual, self.primal = 0.5 * sums[0], sums[1]
        # the in-memory bias from the partitions' kkt_bias_sums, combined
        self.intercept = float(bias_from_sums(sums[2], int(sums[3]),
                                              max(r["sums"][4] for r in results),
                                              min(r["sums"][5] for r in results)))

    def _rows_of(self, ids):
        """The rows of ``ids``, from the last working set's and those received."""
        known = self.received[0] if self.ws_rows is None else \
            np.concatenate([self.ws, self.received[0]])
        rows = self.received[1] if self.ws_rows is None else \
            stack_rows([self.ws_rows, self.received[1]])
        first = {}
        for t, j in enumerate(known.tolist()):
            first.setdefault(j, t)
        return rows[[first[j] for j in ids.tolist()]]

    def _start(self, which):
        """Start the pair on the partitions ``which`` from the client's a (at the
        current iteration), their gradients from the support vectors (when a is
        not 0) and the current working set's columns; returns what start_pair
        returned for each. Partitions lost meanwhile are started too."""
        which = list(which)
        while True:
            args = [self.start_args + (self.iteration, self.alpha[self.partitions.ids[k]])
                    for k in which]
            shapes, lost = self.partitions.run(start_pair, args, which)
            if lost:
                which = sorted(set(which) | set(lost))
                continue
            support = np.flatnonzero(self.alpha)
            if not len(support) and not len(self.ws):
                return shapes
            wanted = [np.intersect1d(ids, support) for ids in self.partitions.ids]
            found, lost = self.partitions.run(pair_rows, [(w,) for w in wanted])
            if lost:
                which = sorted(set(which) | set(lost))
                continue
            coef = np.concatenate([y for _, y in found]) * self.alpha[np.concatenate(wanted)]
            rows = stack_rows([r for r, _ in found])
            ws_rows = rows[:0] if self.ws_rows is None else self.ws_rows
            restart = (rows, coef, self.ws, self.ws_y, ws_rows)
            _, lost = self.partitions.run(set_gradient, [restart] * len(which), which)
            if lost:
                which = sorted(set(which) | set(lost))
                continue
            return shapes


# ------------------------------------------------------------------ one-vs-one

def resolve_kernel(partitions, config, n_features):
    """The Kernel of ``config`` with gamma resolved by the in-memory rule
    (``gamma_value``): for 'scale', X.var() over all entries from the partitions'
    moments."""
    gamma = config.gamma
    if isinstance(gamma, str):  # 'scale' or 'auto' (checked as dualsvm.SVC checks it)
        variance = 0.0
        if gamma == "scale":  # run_all rebuilds a lost partition: it needs no other state
            variance = moments_variance(*np.sum(partitions.run_all(
                partition_moments, [()] * len(partitions), lambda lost: None), axis=0))
        gamma = gamma_value(gamma, n_features, variance)
    return make_kernel(config.kernel, gamma=gamma, degree=config.degree, coef0=config.coef0)


def ws_pair_solver(partitions, config):
    """:func:`fit_pairs`'s ``pair_solver`` of the working sets: a :class:`PairSolver`
    within ``max_iter`` working sets."""
    max_iter = config.max_iter

    def build(positive, negative, kernel, deadline):
        solver = PairSolver(partitions, positive, negative, kernel, config.loss, config.tol,
                            config.cache_size * 2**20, config.working_set)
        return solver, math.inf if max_iter < 0 else max_iter

    return build


def fit_pairs(partitions, classes, params, n_features, libsvm_labels=None, pair_solver=None):
    """Train one binary model per pair of classes (LIBSVM's one-vs-one) on the
    partitions, each by ``pair_solver``'s solver (a :class:`PairSolver` by default),
    the pairs in turn; the model as :func:`dualsvm.training.kernel.fit_kernel` lays
    it out.

    Parameters
    ----------
    partitions : Partitions
    classes : ndarray
        The sorted distinct labels.
    params : dict
        ``dualsvm.dask.SVC``'s parameters (kernel, gamma, degree, coef0, loss, tol,
        cache_size per partition in MB, working_set, max_iter, time_limit, callback,
        verbose), read as a :class:`~dualsvm.training.config.KernelTraining`; the
        model keeps them (but the callback)
    n_features : int
    libsvm_labels : ndarray or None
        The classes in LIBSVM's order (None: not known).
    pair_solver : callable or None
        ``f(positive label, negative label, kernel, deadline) -> (solver, max_epochs)``:
        a driver-interface solver of the pair that keeps, after ``finish()``, its
        support vectors (``support_ids``, ``support_coef`` y_i a_i, ``support_rows``)
        and may give early prediction's models (``cluster_models(support)``).
        None: :func:`ws_pair_solver`'s.

    Returns
    -------
    KernelFit
    """
    config = KernelTraining.of(params)
    kernel = resolve_kernel(partitions, config, n_features)
    tasks = [BinaryTask(i, j, None, None, f"{format_label(classes[i])} vs "
                        f"{format_label(classes[j])}")
             for i, j in class_pairs(len(classes))]
    pair_solver = pair_solver or ws_pair_solver(partitions, config)
    time_limit = config.time_limit
    deadline = None if time_limit is None else time.perf_counter() + time_limit

    def build(task):
        solver, max_epochs = pair_solver(classes[task.positive], classes[task.negative], kernel,
                                         deadline)
        return solver, solver, max_epochs

    solved = solve_tasks(tasks, build, Stopping(callback=config.callback, verbose=config.verbose,
                                                deadline=deadline))
    # every pair's support vectors (a class by the sign of y_i a_i), in LIBSVM's layout
    intercept = np.array([s.result.intercept for s in solved])
    support, dual_coef, n_support = dual_coefficients(
        [s.solver.support_ids for s in solved], [s.solver.support_coef for s in solved],
        [np.where(s.solver.support_coef > 0, s.task.positive, s.task.negative) for s in solved],
        intercept, len(classes))
    ids, first = np.unique(np.concatenate([s.solver.support_ids for s in solved]),
                           return_index=True)
    rows = stack_rows([s.solver.support_rows for s in solved])[first[np.searchsorted(ids, support)]]
    results = [s.result for s in solved]
    early = [s.solver.cluster_models(support) if hasattr(s.solver, "cluster_models") else None
             for s in solved]
    return KernelFit(
        params={k: v for k, v in params.items() if k != "callback"},  # sent to the workers
        kernel=kernel, classes_=np.asarray(classes),
        support_=support.astype(np.int32), support_vectors_=rows,
        n_support_=n_support.astype(np.int32),
        dual_coef_=dual_coef, intercept_=intercept, n_features_in_=n_features,
        n_iter_=np.array([s.solver.n_iter for s in solved], dtype=np.int64),
        primal_=np.array([r.primal for r in results]), dual_=np.array([r.dual for r in results]),
        gap_=np.array([r.gap for r in results]), status_=[r.status for r in results],
        history_=[r.history for r in results], solver_used_=f"dask-{config.solver or 'ws'}",
        kind="c_svc", libsvm_labels=libsvm_labels,
        cluster_models_=early if any(m is not None for m in early) else None)
