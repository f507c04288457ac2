"""Dual coordinate descent on data read from disk, block by block.

All three solvers keep the dual variables of all n rows and w in memory (O(n + d))
and the rows themselves on disk; they differ in which rows sit in memory while
DCD runs (``solvers/_dcd_kernels.dcd_epoch``, through :class:`DualCD` or directly):

* :class:`BlockMinimization` (Yu, Hsieh, Chang and Lin, KDD 2010): the blocks in
  a random order, each loaded once per pass; DCD on the block's rows for up to
  ``inner_epochs`` epochs with the global w (the block's sub-problem, with the
  other blocks' a fixed).
* the same with ``selective=True``, selective block minimization (Chang and
  Roth, KDD 2011): a bounded cache of informative rows of the blocks seen so far
  (free variables 0 < a_i < U_i first, then those nearest the margin, by |G_i|)
  joins every block's sub-problem.
* :class:`DualCachedLoops` (Matsushima, Vishwanathan and Smola, KDD 2012): a
  reader thread streams the blocks and screens their rows (a row whose a_i sits
  at a bound with a gradient that keeps it there by more than ``epsilon`` is not
  informative); the trainer runs DCD sweeps over a bounded cache at the same
  time, takes in the screened rows of each block as it arrives (evicting random
  rows when full) and drops rows that the epsilon rule marks, all without the
  GIL.

Measured (benchmarks/results/outofcore.md): BM needs many more passes than
in-memory DCD needs epochs, because the partition of rows into blocks is fixed.
On ijcnn1-poly2 (C = 0.1, 35 blocks), one DCD sweep per block in a random block
order, in memory, left a relative gap of 1.5e-2 after 12 passes with a fixed
random partition and 1.5e-1 with blocks in file order (ijcnn1's last rows are
all negative), against 1.9e-4 for the same sweeps over a new random permutation
of all rows each pass. ``convert(shuffle=True)`` removes the file-order part;
SBM's and DCL's caches, which mix rows of all blocks, remove most of the rest.

An *epoch* (one call of ``epoch()``, one record of the driver) is one pass over
the data on disk. The dual parameters of every row (C_i, D_ii, U_i, both losses,
bias none or augmented) come from the block's :class:`~dualsvm.problem.DualProblem`.
Memory: rows held by the solver at once (blocks being trained, read ahead by
the reader thread, and the cache) stay within ``memory`` bytes.
"""

import queue
import threading

import numpy as np

from .._random import new_state
from ..io import DataError
from ..problem import DualProblem, relative_gap
from ..solvers._dcd_kernels import dcd_epoch
from ..solvers.dcd import DualCD
from ._cache import RowCache

#: Blocks held at once by a block pass: the one trained on, one queued by the
#: reader thread and one being read.
BLOCKS_IN_FLIGHT = 3


class DiskProblem:
    """The binary dual problem of a :class:`DiskDataset`: its blocks' DualProblems.

    Parameters
    ----------
    dataset : DiskDataset
    positive : float
        The label value of the +1 class; every other label is -1.
    C : float
    class_weight : dict or None
        Label value -> multiplier of C.
    loss, bias, bias_scale : as in :class:`~dualsvm.problem.DualProblem` (bias
        'none' or 'augmented').
    """

    def __init__(self, dataset, positive, C=1.0, class_weight=None, loss="squared_hinge",
                 bias="augmented", bias_scale=1.0):
        if bias == "exact":
            raise ValueError("out-of-core training supports bias 'none' or 'augmented', not the exact bias")
        self.dataset = dataset
        self.positive = positive
        self.C = float(C)
        self.class_weight = dict(class_weight or {})
        self.loss = loss
        self.bias = bias
        self.bias_scale = bias_scale
        self.n_samples = dataset.n_samples
        self.n_features = dataset.n_features
        self.n_weights = self.n_features + (bias == "augmented")
        self.augmented_value = float(bias_scale) if bias == "augmented" else 0.0

    # (coef, intercept) of w: DualProblem's, which reads n_features, bias and bias_scale
    coef_intercept = DualProblem.coef_intercept

    def block_problem(self, block):
        """The DualProblem of one block's rows."""
        y = np.where(block.labels == self.positive, 1.0, -1.0)
        cost = np.full(block.n_rows, self.C)
        for label, weight in self.class_weight.items():
            cost[block.labels == label] *= weight
        return DualProblem(block.csr(), y, cost, self.loss, self.bias, self.bias_scale)

    def stream(self, order=None):
        """(block, its DualProblem) in ``order``, read ahead by a thread."""
        return Prefetcher(self.dataset, order if order is not None else range(self.dataset.n_blocks),
                          self.block_problem)

    def evaluate(self, alpha, w):
        """(primal, dual, relative gap, 0.0) of (alpha, w): one pass over the data."""
        loss = dual = 0.0
        for block, problem in self.stream():
            loss += problem.loss_sum(problem.decision(w))
            dual += problem.dual_sum(alpha[block.rows])
        primal = 0.5 * float(w @ w) + loss
        dual = dual - 0.5 * float(w @ w)
        return primal, dual, relative_gap(primal, dual), 0.0

    def weights(self, alpha):
        """w = sum_i y_i a_i x_i: one pass over the data."""
        w = np.zeros(self.n_weights)
        for block, problem in self.stream():
            w += problem.weights(alpha[block.rows])
        return w

    def check_budget(self, memory, what, blocks=BLOCKS_IN_FLIGHT):
        """Raise ValueError unless ``memory`` bytes hold ``blocks`` blocks."""
        need = blocks * self.block_nbytes
        if memory < need:
            raise ValueError(
                f"memory budget {memory / 2**20:.1f} MB is below what {what} needs: "
                f"{blocks} blocks of up to {self.dataset.max_block_nbytes / 2**20:.1f} MB "
                f"({need / 2**20:.1f} MB); convert the data with smaller blocks")

    @property
    def block_nbytes(self):
        """Memory one block takes while trained on: its rows plus its DualProblem's per-row arrays."""
        largest = max(b["n_rows"] for b in self.dataset.blocks) if self.dataset.blocks else 0
        return self.dataset.max_block_nbytes + 5 * 8 * largest


class Prefetcher:
    """Read, check and prepare blocks in a background thread, one queued ahead.

    Iterate for (block, problem) pairs, or call :meth:`get` with ``wait=False``
    to poll. An error in the thread is raised by the consumer. Reading
    (file I/O, CRC, zstd/zlib) and DualProblem's compiled parts release the GIL,
    so this thread runs truly in parallel with a compiled trainer.
    """

    _END = object()

    def __init__(self, dataset, order, prepare, depth=1):
        self.queue = queue.Queue(maxsize=depth)
        self.stopped = threading.Event()
        self.finished = False
        self.thread = threading.Thread(target=self._work, args=(dataset, list(order), prepare),
                                       name="dualsvm-reader", daemon=True)
        self.thread.start()

    def _work(self, dataset, order, prepare):
        read = dataset.reader()
        try:
            for k in order:
                if self.stopped.is_set():
                    return
                block = read(k)
                if not self._put((block, prepare(block))):
                    return
            self._put(self._END)
        except BaseException as error:  # handed to the consumer
            self._put(error)
        finally:
            read.close()

    def _put(self, item):
        while not self.stopped.is_set():
            try:
                self.queue.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def get(self, wait=True):
        """The next (block, problem); None if ``wait`` is False and none is ready.

        Raises StopIteration after the last block.
        """
        if self.finished:
            raise StopIteration
        try:
            item = self.queue.get(block=wait)
        except queue.Empty:
            return None
        if item is self._END:
            self.finished = True
            self.thread.join()
            raise StopIteration
        if isinstance(item, BaseException):
            self.close()
            raise item
        return item

    def __iter__(self):
        try:
            while True:
                try:
                    yield self.get()
                except StopIteration:
                    return
        finally:
            self.close()

    def close(self):
        self.stopped.set()
        self.finished = True
        self.thread.join()


def _return_freed_blocks_to_the_os():
    """Make glibc map every allocation above 128 KiB with mmap, so a freed block
    leaves the process at once.

    By default glibc raises that threshold after each such free (up to 32 MiB)
    and then serves blocks from heaps that keep freed memory: measured on
    a9a-poly2 (2 MB blocks, 16.5 MB budget), SBM's peak RSS crept to 23 MB after
    40 passes and 50 MB after 370, against 17.4 MB with a fixed threshold.
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-3, 128 * 1024)  # M_MMAP_THRESHOLD; setting it stops the adjustment
    except (OSError, AttributeError):  # not glibc: nothing to tune
        pass


class _DiskSolver:
    """What the out-of-core solvers share: state, warm start, passes, the record."""

    def __init__(self, problem, tol, *, memory, random_state, alpha=None, w=None):
        _return_freed_blocks_to_the_os()
        self.problem = problem
        self.tol = tol
        self.memory = int(memory)
        self.generator = random_state
        n = problem.n_samples
        if alpha is None:
            self.alpha = np.zeros(n)
            self.w = np.zeros(problem.n_weights)
        else:
            self.alpha = np.array(alpha, dtype=np.float64)
            if self.alpha.shape != (n,):
                raise ValueError(f"alpha has shape {self.alpha.shape}, the data have {n} rows")
            self.w = problem.weights(self.alpha) if w is None else np.array(w, dtype=np.float64)
            if self.w.shape != (problem.n_weights,):
                raise ValueError(f"w has shape {self.w.shape}, expected ({problem.n_weights},)")
        self.violation = np.inf
        self.rows_read_before = problem.dataset.rows_read
        self.active_size = 0  # rows in memory during the last pass (block + cache)
        self.cache_size = 0

    def counters(self):
        """Extra fields of the driver's per-epoch record."""
        return {"passes": self.passes,
                "cache_size": self.cache_size}

    @property
    def passes(self):
        """Passes over the data on disk since this solver started (evaluations included)."""
        read = self.problem.dataset.rows_read - self.rows_read_before
        return read / max(self.problem.n_samples, 1)

    def _order(self):
        return self.generator.permutation(self.problem.dataset.n_blocks)


class BlockMinimization(_DiskSolver):
    """Block minimization, or selective block minimization with ``selective=True``.

    Parameters
    ----------
    problem : DiskProblem
    tol : float
        A pass has converged when the first DCD epoch on every block's
        sub-problem met LIBLINEAR's projected-gradient rule with this ``tol``.
    memory : int
        Bytes for rows in memory: BLOCKS_IN_FLIGHT blocks, and with
        ``selective`` the cache in what remains.
    inner_epochs : int
        DCD epochs on each sub-problem (fewer if it converges).
    selective : bool
    random_state : numpy.random.Generator
    alpha, w : warm start (w computed from alpha by a pass when not given).
    """

    def __init__(self, problem, tol, *, memory, inner_epochs=5, selective=False,
                 random_state, alpha=None, w=None):
        # SBM copies the block trained on into its cache: one block more
        problem.check_budget(memory, "selective block minimization" if selective
                             else "block minimization", BLOCKS_IN_FLIGHT + selective)
        super().__init__(problem, tol, memory=memory, random_state=random_state, alpha=alpha, w=w)
        self.inner_epochs = inner_epochs
        self.cache = None
        if selective:
            ds = problem.dataset
            largest = max(b["n_rows"] for b in ds.blocks)
            largest_nnz = max(b["nnz"] for b in ds.blocks)
            # The cache has room for the block trained on, which is copied in while
            # the reader holds BLOCKS_IN_FLIGHT blocks.
            room = self.memory - (BLOCKS_IN_FLIGHT + 1) * problem.block_nbytes
            self.cache = RowCache.for_budget(room, ds.nnz / max(ds.n_samples, 1),
                                             problem.augmented_value, problem.bias,
                                             extra_rows=largest, extra_nnz=largest_nnz)
            self.cache_rows = self.cache.rows_cap - largest
            self.cache_nnz = self.cache.nnz_cap - largest_nnz

    def epoch(self):
        converged = True
        self.violation = 0.0
        for block, block_problem in self.problem.stream(self._order()):
            if self.cache is None:
                sub, alpha = block_problem, self.alpha[block.rows]
            else:  # the block's rows are copied into the cache: free the block
                sub = self._join_cache(block, block_problem)
                alpha = sub.alpha
                block = block_problem = None
            solver = DualCD(sub, self.tol, random_state=self.generator, alpha=alpha, w=self.w)
            try:
                for inner in range(self.inner_epochs):
                    done = solver.epoch()
                    if inner == 0:
                        converged &= done
                        self.violation = max(self.violation, solver.violation)
                    if done:
                        break
            finally:  # also on Ctrl-C: alpha must agree with w
                if self.cache is None:
                    self.alpha[block.rows] = solver.alpha
                else:
                    sub.alpha[:] = solver.alpha
                    self.cache.store(self.alpha)
            self.active_size = sub.n_samples
            if self.cache is not None:
                self._select()
            solver = sub = block = block_problem = None  # the next block takes their memory
        return converged

    def _join_cache(self, block, block_problem):
        cache = self.cache
        cache.store(self.alpha)
        cache.drop_rows_of(block)  # the block brings them again
        cache.add(block, block_problem, np.arange(block.n_rows), self.alpha)
        return cache

    def _select(self):
        """Keep the most informative rows that fit the cache: free ones, then by |G_i|."""
        cache = self.cache
        cache.store(self.alpha)
        alpha, upper = cache.alpha, cache.upper_bound
        score = np.abs(cache.gradient(self.w))
        score[(alpha > 0) & (alpha < upper)] = -1.0
        order = np.argsort(score, kind="stable")
        lengths = np.diff(cache.indptr[:cache.size + 1])[order]
        fits = np.cumsum(lengths) <= self.cache_nnz
        count = min(int(fits.sum()) if fits.all() else int(np.argmin(fits)), self.cache_rows)
        keep = np.zeros(cache.size, dtype=np.bool_)
        keep[order[:count]] = True
        cache.retain(keep)
        self.cache_size = cache.size


class DualCachedLoops(_DiskSolver):
    """Dual cached loops: a reader thread and a DCD trainer on a cache, at once.

    Parameters
    ----------
    problem : DiskProblem
    tol : float
        A pass has converged when every row read had a projected gradient within
        [-tol, tol] when screened and the last sweep over the cache met
        LIBLINEAR's rule with this ``tol``.
    memory : int
        Bytes for rows in memory: the blocks the reader holds, the rest cache.
    epsilon : float
        The epsilon rule: a row at a_i = 0 with G_i > epsilon, or at a_i = U_i
        with G_i < -epsilon, is dropped from (or not taken into) the cache.
    random_state : numpy.random.Generator
    alpha, w : warm start.
    """

    def __init__(self, problem, tol, *, memory, epsilon=1e-3, random_state, alpha=None, w=None):
        problem.check_budget(memory, "dual cached loops")
        super().__init__(problem, tol, memory=memory, random_state=random_state, alpha=alpha, w=w)
        self.epsilon = epsilon
        ds = problem.dataset
        # while a block is copied into the cache, the reader holds two more
        room = self.memory - BLOCKS_IN_FLIGHT * problem.block_nbytes
        self.cache = RowCache.for_budget(room, ds.nnz / max(ds.n_samples, 1),
                                         problem.augmented_value, problem.bias)
        self.state = new_state(random_state)
        self.sweeps = 0

    def counters(self):
        return {**super().counters(), "sweeps": self.sweeps}

    def _screen(self, block):
        """Reader side: the block's problem and its informative rows (racy read of w)."""
        block_problem = self.problem.block_problem(block)
        alpha = self.alpha[block.rows]
        g = block_problem.gradient(alpha, block_problem.decision(self.w))
        upper = block_problem.upper_bound
        at_lower, at_upper = alpha == 0.0, alpha >= upper
        pg = np.where(at_lower, np.minimum(g, 0.0), np.where(at_upper, np.maximum(g, 0.0), g))
        easy = (at_lower & (g > self.epsilon)) | (at_upper & (g < -self.epsilon)) | (upper == 0)
        selected = np.flatnonzero(~easy)
        return block_problem, selected, (float(pg.max(initial=0.0)), float(pg.min(initial=0.0)))

    def epoch(self):
        cache = self.cache
        pg_max, pg_min = 0.0, 0.0
        index = np.arange(cache.size, dtype=np.int64)
        active = cache.size
        sweep_violation = np.inf
        reader = Prefetcher(self.problem.dataset, self._order(), self._screen)
        try:
            while True:
                if active:
                    active, high, low = dcd_epoch(
                        cache.rows, cache.y, cache.alpha, self.w, cache.q_diag, cache.diag,
                        cache.upper_bound, cache.augmented_value, index, active,
                        self.epsilon, -self.epsilon, self.state, True)
                    self.sweeps += 1
                    sweep_violation = max(high, 0.0) - min(low, 0.0) if active else 0.0
                # Wait for the reader only when the cache has nothing left to gain.
                try:
                    item = reader.get(wait=not active or sweep_violation <= self.tol)
                except StopIteration:
                    if not active or sweep_violation <= self.tol:
                        break
                    continue
                if item is None:
                    continue
                block, (block_problem, selected, (high, low)) = item
                pg_max, pg_min = max(pg_max, high), min(pg_min, low)
                keep = np.zeros(cache.size, dtype=np.bool_)
                keep[index[:active]] = True  # the epsilon rule dropped index[active:]
                cache.store(self.alpha)
                cache.retain(keep)
                cache.drop_rows_of(block)  # screened again with the block
                selected = self.generator.permutation(selected)
                cache.evict_for(block, selected, self.generator)
                cache.add(block, block_problem, selected, self.alpha)
                index = np.arange(cache.size, dtype=np.int64)
                active = cache.size
                item = block = block_problem = None
        finally:
            reader.close()
            cache.store(self.alpha)
        self.active_size = self.cache_size = cache.size
        self.violation = max(pg_max - pg_min, sweep_violation if active else 0.0)
        return pg_max - pg_min <= self.tol and (not active or sweep_violation <= self.tol)
