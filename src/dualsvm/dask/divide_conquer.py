"""Divide and conquer (``dualsvm.dask.SVC(solver='dc')``) with the rows on the workers.

The levels of :mod:`dualsvm.training.divide_conquer` (Hsieh, Si and Dhillon, ICML
2014) for one pair of classes, each step placed where its data are. The pair's rows
are numbered as the in-memory problem numbers them (the positive class's rows, then
the negative's, each in row order); level l = L .. 1, k**l clusters:

1. **cluster**: the client draws the sample by the in-memory rule (``sample_rows``:
   of all rows at level L, of the support vectors found so far below it), fetches
   those m rows from their partitions and runs kernel k-means on them
   (``KernelClusters.fit``); every partition assigns its own rows to the nearest
   centre (``KernelClusters.assign``, m kernel values a row, on its worker) and
   answers with their clusters;
2. **solve**: each cluster's sub-problem is given to one worker (largest first, to
   the least loaded, ties to the one holding most of its rows); every partition
   sends its rows of the cluster there, worker to worker (:func:`cluster_piece`
   -> :func:`solve_cluster`: the client never holds them), where the in-memory
   ``solve_part`` solves it by SMO from the last level's a, repaired to
   y_c'a_c = 0 by the sub-problem's ``feasible`` (as in memory); the clusters are
   solved side by side, one a worker at a time;
3. the clusters' a_i, slacks and biases come back to the client, which keeps every
   a_i (n numbers, as the working-set solver keeps them: the checkpoint) and starts
   the next level from them.

Then the whole problem by the distributed working-set solver
(:class:`~dualsvm.dask.kernel_solver.PairSolver`) started from the last level's a,
which is feasible (each cluster kept its y_c'a_c = 0): every partition computes its
gradient slice from the support vectors, and the working sets finish to ``tol``
with the solver's certificate.

Early prediction (``early_stop_level`` l): training stops after level l and the
model is the level's cluster models
(:class:`~dualsvm.training.fitted.ClusterModels`): predictions on a dask array send
the model to the workers once and each row is assigned to its cluster and decided by
that cluster's model there. Its certificate is the sum of the clusters' (the SVM whose
kernel has no entries between clusters, one bias a cluster).

With the same ``random_state`` the samples, clusters and sub-problems are the
in-memory ``SVC(solver='dc')``'s, so every level's a and the early models are too.

**Traffic** per level: the m sample rows to the client and the clustering (those
rows and m labels) to every partition; each cluster's rows held by other workers to
its worker (about (W - 1) / W of the rows with W workers: k-means clusters are spread
over the partitions); 4 numbers a row between the client and the workers (a and the
slack, out and back).

A worker lost during a level: its partitions are rebuilt on the live workers and the
level's assignment and solves are done again (the client holds the point).
"""

import math
import time
from dataclasses import replace
from functools import partial

import numpy as np
import scipy.sparse as sp

from ..data.validation import random_generator
from ..kernels.clustering import KernelClusters
from ..problems.kernel import KernelDualProblem
from ..problems.objectives import relative_gap
from ..solvers import Stopping
from ..training.divide_conquer import (LEVEL_TOL, auto_clusters, sample_rows, sample_size_of,
                                       solve_part)
from ..training.fitted import ClusterModels
from ..training.kernel import part_build
from .inputs import live_workers, wait_or_lost
from .kernel_solver import PairSolver, pair_rows, payload_bytes, stack_rows, start_pair


# ------------------------------------------------------------------ on the workers

def pair_members(part):
    """(row numbers, labels +-1) of the partition's rows of its pair."""
    return part.pair.ids, part.pair.y


def assign_rows(part, clusters):
    """Put every row of the partition's pair in its nearest cluster (kept for
    :func:`cluster_piece`); (the clusters, the bytes of each cluster's rows)."""
    pair = part.pair
    X = pair.X
    pair.cluster = clusters.assign(X) if len(pair.ids) else np.zeros(0, dtype=np.int64)
    row_bytes = 12.0 * np.diff(X.indptr) + 8.0 if sp.issparse(X) else \
        np.full(X.shape[0], 8.0 * X.shape[1])
    return pair.cluster, np.bincount(pair.cluster, weights=row_bytes,
                                     minlength=clusters.n_clusters)


def cluster_piece(part, c):
    """The partition's rows of cluster c: (row numbers, labels, C_i, rows)."""
    pair = part.pair
    rows = np.flatnonzero(pair.cluster == c)
    return pair.ids[rows], pair.y[rows], pair.cost[rows], pair.X[rows]


def solve_cluster(pieces, start, start_slack, kernel, loss, tol, cache_size, max_iter, seconds):
    """A cluster's SVM from its ``pieces`` (:func:`cluster_piece`'s, sent here by
    their partitions), by the in-memory ``solve_part`` from ``start`` (its a in the
    pair's order); ``seconds``: the time left (None: no limit). Returns (its rows'
    numbers, in the pair's order, and the ``PartSolution``)."""
    ids = np.concatenate([p[0] for p in pieces])
    y = np.concatenate([p[1] for p in pieces])
    order = np.lexsort((ids, y < 0))  # the pair's order: the positive class first
    problem = KernelDualProblem(stack_rows([p[3] for p in pieces])[order], y[order],
                                np.concatenate([p[2] for p in pieces])[order], loss, "exact",
                                kernel, cache_size)
    deadline = None if seconds is None else time.perf_counter() + seconds
    solution = solve_part(problem, start, start_slack, tol,  # SMO with shrinking, as in memory
                          partial(part_build, "smo", True, max_iter),
                          Stopping(deadline=deadline, monitor=False))
    return ids[order], solution


# ------------------------------------------------------------------ on the client

def dc_pair_solver(partitions, config, n_features):
    """:func:`~dualsvm.dask.kernel_solver.fit_pairs`'s ``pair_solver`` for
    ``solver='dc'``: a :class:`ClusterDivideAndConquer` of each pair, the pairs
    drawing from one generator (``random_state``) in turn, as in memory."""
    rng = random_generator(config.random_state)

    def build(positive, negative, kernel, deadline):
        return ClusterDivideAndConquer(partitions, positive, negative, kernel, config,
                                       n_features, rng, deadline), math.inf

    return build


class ClusterDivideAndConquer:
    """Divide and conquer of one binary problem across the partitions (module
    docstring), with the interface of :func:`dualsvm.solvers.run_epochs`: one epoch
    a level, then one a working set of the final :class:`PairSolver`.

    Parameters
    ----------
    partitions : Partitions
    positive, negative : label values of the pair's classes (y = +1, -1)
    kernel : dualsvm.kernels.Kernel
    config : dualsvm.training.config.KernelTraining
        ``dualsvm.dask.SVC``'s parameters (``dc_clusters``, ``dc_levels``,
        ``dc_sample_size``, ``early_stop_level``, ``loss``, ``tol``, ``cache_size``,
        ``working_set``, ``max_iter``: the clusters' SMO steps and the final working sets).
    n_features : int
    rng : numpy.random.Generator
        Draws the samples and seeds kernel k-means.
    deadline : float or None
        ``time.perf_counter()`` time at which the clusters' solves stop.
    """

    def __init__(self, partitions, positive, negative, kernel, config, n_features, rng,
                 deadline=None):
        self.partitions = partitions
        self.client = partitions.client
        self.n_all = 1 + max((int(i[-1]) for i in partitions.ids if len(i)), default=0)
        self.pair_args = (positive, negative, kernel, config.loss,
                          float(config.cache_size) * 2**20, self.n_all)
        self.kernel = kernel
        self.config = config
        self.n_features = n_features
        self.rng = rng
        self.deadline = deadline
        self.tol = float(config.tol)
        self._start(range(len(partitions)))
        members = self.partitions.run_all(pair_members, [()] * len(partitions), self._start)
        self.members = [ids for ids, _ in members]  # each partition's rows of the pair
        ids = np.concatenate(self.members)
        y = np.concatenate([y for _, y in members])
        order = np.lexsort((ids, y < 0))
        self.ids, self.y = ids[order], y[order]  # the in-memory problem's order
        n = len(self.ids)
        self.position = np.full(self.n_all, -1, dtype=np.int64)  # by row number
        self.position[self.ids] = np.arange(n)
        levels, stop = config.dc_levels, config.early_stop_level
        self.early_stop_level = stop
        clusters = config.dc_clusters
        self.n_clusters = auto_clusters(n, levels) if clusters == "auto" else int(clusters)
        self.sample_size = sample_size_of(config.dc_sample_size, stop)
        self._levels = list(range(levels, (1 if stop is None else stop) - 1, -1))
        self._point = np.zeros(n)  # a of the pair's rows, in its order
        self._slack = np.full(n, np.inf)
        self.local = None  # (level, clusters, cluster of every row, biases) of the last level
        self._level_record = None  # (primal, dual, violation) of that level
        self._final = None
        self.exhausted = False
        self._iterations = self._evaluations = 0
        self.bytes_sent = 0
        self._steps = self._work()

    # ------------------------------------------------------------ run_epochs
    @property
    def alpha(self):
        """a by row number (0 off the pair)."""
        if self._final is not None:
            return self._final.alpha
        alpha = np.zeros(self.n_all)
        alpha[self.ids] = self._point
        return alpha

    @property
    def violation(self):
        if self._final is not None:
            return self._final.violation
        return np.nan if self._level_record is None else self._level_record[2]

    @property
    def active_size(self):
        return self._final.active_size if self._final is not None else len(self.ids)

    @property
    def n_iter(self):
        """SMO steps of the clusters, and working sets of the final solver."""
        return self._iterations + (0 if self._final is None else self._final.n_iter)

    @property
    def early(self):
        """Whether the model is early prediction's (a level's cluster models)."""
        return self.early_stop_level is not None and self.local is not None

    def epoch(self):
        """A level, or a working set of the final solver."""
        return next(self._steps)

    def finish(self):
        """Early prediction: the support vectors of the level's models. Else the final
        solver's finish, that solver first started from the current point when
        training stopped before it (Ctrl-C, a time limit): the model is then the
        whole problem's at that point, with its certificate."""
        if self.early:
            support = np.flatnonzero(self._point)
            ids = self.ids[support]
            order = np.argsort(ids)
            self.support_ids = ids[order]
            self.support_coef = (self.y * self._point)[support][order]
            self.support_rows = self._rows(self.support_ids)
            return False
        if self._final is None:
            self._final = self._final_solver()
        self._final.finish()
        self.support_ids = self._final.support_ids
        self.support_coef = self._final.support_coef
        self.support_rows = self._final.support_rows
        return True

    def certificate(self):
        """(primal, dual, relative gap, intercept): the final solver's, or the sums
        over the last level's clusters (intercept 0: each has its own)."""
        if self._final is not None:
            return self._final.certificate()
        if self._level_record is None:
            return np.nan, np.nan, np.nan, 0.0
        primal, dual, _ = self._level_record
        return primal, dual, relative_gap(primal, dual), 0.0

    def counters(self):
        if self._final is not None:
            final = self._final.counters()
            return {**final, "level": 0, "parts": 1, "iterations": self.n_iter,
                    "kernel_evaluations": self._evaluations + final["kernel_evaluations"]}
        return {"iterations": self.n_iter, "kernel_evaluations": self._evaluations,
                "level": 0 if self.local is None else self.local[0],
                "parts": 0 if self.local is None else self.local[1].n_clusters,
                "bytes": self.bytes_sent, "rebuilt": self.partitions.rebuilt}

    def cluster_models(self, support):
        """Early prediction's :class:`ClusterModels` of the pair, for the fit's
        support vectors ``support`` (row numbers); None for a model of the whole problem."""
        if not self.early:
            return None
        level, clusters, part, intercepts = self.local
        position = self.position[support]
        sv_part = np.where(position >= 0, part[np.maximum(position, 0)], -1)
        return ClusterModels(level, clusters, sv_part, intercepts)

    # ------------------------------------------------------------ the stages
    def _work(self):
        for level in self._levels:
            tol = self.tol if level == self.early_stop_level else max(self.tol, LEVEL_TOL)
            if not self._solve_level(level, tol):
                yield False  # a time limit stopped a cluster: the driver sees the deadline
            if level == self.early_stop_level:
                yield True
                return
            yield False
        self._final = self._final_solver()
        max_iter = self.config.max_iter
        epochs = 0
        while max_iter < 0 or epochs < max_iter:
            epochs += 1
            yield self._final.epoch()
        self.exhausted = True  # the final solver's working sets reached max_iter
        yield False

    def _final_solver(self):
        """The working-set solver of the whole pair, from the current point."""
        positive, negative, kernel, loss, cache_bytes, _ = self.pair_args
        return PairSolver(self.partitions, positive, negative, kernel, loss, self.tol,
                          cache_bytes, self.config.working_set, alpha=self.alpha)

    def _solve_level(self, level, tol):
        """Cluster a sample, assign and solve every cluster on the workers, join; False
        when a time limit stopped a cluster (the point stays the last level's)."""
        n = len(self.ids)
        support = np.flatnonzero(self._point > 0)
        pool = support if len(support) else np.arange(n)
        sample = sample_rows(pool, self.n_clusters ** level, self.sample_size, self.n_features,
                             self.rng)
        points = self._rows(self.ids[sample])
        clusters = KernelClusters.fit(self.kernel, points, np.arange(len(sample)),
                                      self.n_clusters ** level, self.rng)
        clusters = replace(clusters, rows=self.ids[sample])  # row numbers, for the record
        sent = payload_bytes(points) * (1 + len(self.partitions)) + 32 * n
        while True:
            solved = self._solve_clusters(clusters, tol)
            if solved is not None:
                break
        part, results, moved = solved
        self.bytes_sent = sent + moved
        alpha = np.zeros(n)
        slack = np.full(n, np.inf)
        intercepts = np.zeros(clusters.n_clusters)
        primal = dual = violation = 0.0
        for c, (ids, solution) in results.items():
            if solution.status == "time_limit":
                return False
            rows = self.position[ids]
            alpha[rows] = solution.alpha
            slack[rows] = solution.slack
            intercepts[c] = solution.intercept
            primal += solution.primal
            dual += solution.dual
            violation = max(violation, solution.violation)
            self._iterations += solution.iterations
            self._evaluations += solution.kernel_evaluations
        self._point, self._slack = alpha, slack
        self.local = (level, clusters, part, intercepts)
        self._level_record = (primal, dual, violation)
        return True

    def _solve_clusters(self, clusters, tol):
        """Assign the rows and solve every cluster on its worker: (the cluster of
        every row, {cluster: (row numbers, PartSolution)}, bytes of rows moved
        between workers), or None when a worker was lost (its partitions rebuilt)."""
        partitions = self.partitions
        answers = self.partitions.run_all(assign_rows, [(clusters,)] * len(partitions), self._start)
        k = clusters.n_clusters
        part = np.empty(len(self.ids), dtype=np.int64)
        held = np.zeros((len(partitions), k))  # rows of each cluster on each partition
        for p, (labels, _) in enumerate(answers):
            part[self.position[self.members[p]]] = labels
            held[p] = np.bincount(labels, minlength=k)
        sizes = held.sum(axis=0)
        holders = partitions.holders
        workers = sorted(set(holders))
        load = dict.fromkeys(workers, 0.0)
        owner = {}
        for c in sorted(np.flatnonzero(sizes).tolist(), key=lambda c: -sizes[c]):
            on = {w: sum(held[p, c] for p in range(len(partitions)) if holders[p] == w)
                  for w in workers}
            owner[c] = min(workers, key=lambda w: (load[w], -on[w]))
            load[owner[c]] += sizes[c] ** 2  # SMO's kernel work grows as the square
        client = self.client
        seconds = None if self.deadline is None else max(0.0, self.deadline - time.perf_counter())
        pieces, solves, moved = [], {}, 0.0
        for c, worker in owner.items():
            rows = np.flatnonzero(part == c)
            mine = []
            for p in np.flatnonzero(held[:, c]).tolist():
                mine.append(client.submit(cluster_piece, partitions.futures[p], c, pure=False,
                                          workers=[holders[p]], allow_other_workers=False))
                pieces.append((mine[-1], holders[p]))
                if holders[p] != worker:
                    moved += answers[p][1][c]
            solves[c] = client.submit(
                solve_cluster, mine, self._point[rows], self._slack[rows], self.kernel,
                self.config.loss, tol, self.config.cache_size, self.config.max_iter,
                seconds, pure=False, workers=[worker], allow_other_workers=False)
        futures = [f for f, _ in pieces] + list(solves.values())
        lost = wait_or_lost(client, futures, [w for _, w in pieces] + list(owner.values()))
        if lost:
            alive = set(live_workers(client))
            self._restart([p for p in range(len(partitions)) if holders[p] not in alive])
            return None
        return part, {c: f.result() for c, f in solves.items()}, int(moved)

    # ------------------------------------------------------------ internals
    def _start(self, which):
        """Start the pair on the partitions ``which`` (its rows, no gradient: the
        levels need none)."""
        args = [self.pair_args + (0, None)] * len(which)
        _, lost = self.partitions.run(start_pair, args, list(which))
        if lost:
            self._start(sorted(set(which) | set(lost)))

    def _restart(self, lost):
        """Rebuild the partitions ``lost`` with their workers and start the pair there."""
        self.partitions.rebuild(lost)
        self._start(lost)

    def _rows(self, ids):
        """The rows of ``ids`` (row numbers of the pair), in that order, from their
        partitions."""
        wanted = [np.intersect1d(mine, ids) for mine in self.partitions.ids]
        found = self.partitions.run_all(pair_rows, [(w,) for w in wanted], self._start)
        got = np.concatenate(wanted)  # sorted within each partition only
        sorter = np.argsort(got)
        return stack_rows([r for r, _ in found])[sorter[np.searchsorted(got, ids, sorter=sorter)]]
