"""Dual coordinate descent on data read from disk, block by block.

All three solvers keep the dual variables of all n rows, their D_ii and w in
memory (O(n + d)) and the rows themselves on disk; they differ in which rows sit
in memory while DCD runs (``solvers/_dcd_jit.dcd_epoch``, through
:class:`DualCD` or directly):

* :class:`BlockMinimization` (Yu, Hsieh, Chang and Lin, KDD 2010) with the
  partition redrawn every pass: the blocks, in a new random order each pass,
  are grouped into sub-problems that fill the memory budget; each sub-problem
  is solved by DCD with the global w (the other rows' a fixed) for up to
  ``inner_epochs`` epochs, to an inner tolerance that tightens with the outer
  violation.
* the same with ``selective=True``, selective block minimization (Chang and
  Roth, KDD 2011): half of the budget keeps informative rows of the groups seen
  so far (free variables 0 < a_i < U_i first, then those nearest the margin, by
  |G_i|), and they join every later sub-problem.
* :class:`DualCachedLoops` (Matsushima, Vishwanathan and Smola, KDD 2012): a
  reader thread streams the blocks and screens their rows (a row whose a_i sits
  at a bound with a gradient that keeps it there by more than ``epsilon`` is not
  informative); the trainer runs DCD sweeps over a bounded cache at the same
  time, takes in the screened rows of each block as it arrives (the oldest
  rows leave when it is full) and drops rows that the epsilon rule marks, all
  without the GIL.

Why regroup: a fixed partition is what stalls (block minimization on a fixed
partition plateaus far above the gap of random regroupings, issue #10; measurements:
benchmarks/results/design_measurements.md, section outofcore/solvers.py), and a fresh
grouping each pass costs no memory.

An *epoch* (one call of ``epoch()``, one record of the driver) is one pass over
the data on disk. The certificate costs no pass of its own while training: the
dual D(a) = sum_i (a_i - D_ii a_i^2 / 2) - w(a)'w(a) / 2 is exact at any moment
from the vectors in memory, and the primal P(v) of a *fixed* vector v is exact
once every row has streamed by. So each pass sums the losses of the model the
previous pass proposed, v = the mean of w over that pass (taken after each
sub-problem, BM and SBM, or at each block's arrival, DCL), and ends with the
exact certificate P(v) - D(a) of v; weak duality makes it a valid bound for v,
whatever a is. The mean beats the w of the pass's end, which leans towards the
last rows trained (measurements: benchmarks/results/design_measurements.md, section
outofcore/solvers.py). Training stops
when the certified gap is at most ``gap_tol``, and returns v (``model_w``).
Only a run stopped otherwise (passes, time, Ctrl-C) costs one more pass: the
exact primal of w(a), returned if it beats the last certified v.

The dual parameters of every row (C_i, D_ii, U_i, both losses, bias none or
augmented) come from the block's :class:`~dualsvm.problems.linear.DualProblem`.
Memory: rows held by the solver at once (blocks being read ahead by the reader
threads, the sub-problem or cache) stay within ``memory`` bytes.
"""

import functools
import queue
import threading
import time
import weakref

import numpy as np
from numba import njit

from ..data.rows import row_dot
from ..problems.linear import DualProblem
from ..problems.objectives import dual_terms, relative_gap
from ..solvers._dcd_jit import dcd_epoch
from ..solvers.dcd import DualCD
from ..solvers.rng import new_state
from ._cache import RowCache

#: Reader threads of block minimization (BM, SBM). Its trainer copies blocks in
#: until the sub-problem is full and then solves it, so that reading is on its
#: critical path: one reader decompressing and checking a block, several times slower
#: than the trainer copying it in, left the trainer waiting for much of each pass
#: (measurements: benchmarks/results/design_measurements.md, section
#: outofcore/solvers.py). DCL, whose trainer sweeps its cache while it waits, has one. The
#: second reader holds a block of its own, so BM takes it only when that block
#: is at most 1/BM_READER_SHARE of the budget (a sub-problem a little smaller).
BM_READERS = 2
BM_READER_SHARE = 8


def blocks_in_flight(readers):
    """Blocks held at once besides the sub-problem or cache: the one being copied
    in, and one queued or being read by each reader thread."""
    return readers + 1

#: DCL's trainer may spend this many row updates per row taken into its cache (a
#: sweep costs one per cached row) before it must take the next block; beyond, it
#: sweeps only while it would otherwise wait. Sweeping after every block made the
#: trainer, not the disk, the bottleneck once the cache is large (a sweep longer than
#: reading a block; measurements: benchmarks/results/design_measurements.md, section
#: outofcore/solvers.py).
UPDATES_PER_ROW = 8


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
    loss, bias, bias_scale : as in :class:`~dualsvm.problems.linear.DualProblem` (bias
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

    def check_budget(self, memory, what, blocks):
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
    """Read, check and prepare blocks in background threads, in order.

    With ``readers`` threads, thread j reads the blocks at positions j, j +
    readers, ... of ``order``; each starts on its next block only once the
    consumer has taken its last one, so at most ``readers`` blocks wait or are
    being read besides the one the consumer works with (``readers`` + 1 in
    memory; one reader: block k + 1 is read while the consumer works with k).
    The consumer gets them in ``order`` whatever thread finished first, so a
    run does not depend on timing. Iterate for (block, problem) pairs, or call
    :meth:`get` with ``wait=False`` to poll. An error in a thread is raised by
    the consumer when it reaches that block. Reading (file I/O, CRC, zstd/zlib)
    and DualProblem's compiled parts release the GIL, so these threads run
    truly in parallel with a compiled trainer and with each other.

    Made with ``order`` None, it serves one pass per :meth:`begin` (``order`` and
    ``prepare`` of that pass), its threads, open files and decompressors kept from
    pass to pass: starting them cost each pass of a small data set a share of its time.
    Between passes the threads hold no reference to ``prepare`` (a solver's method),
    so an owner that is collected can close them (``weakref.finalize``).
    """

    def __init__(self, dataset, order, prepare, readers=1):
        self.dataset = dataset
        self.readers = max(1, min(int(readers), dataset.n_blocks or 1))
        self.threads = []
        self.one_pass = order is not None
        self.position = self.count = 0  # of the next block the consumer gets, of the pass
        self.block_seconds = 0.0  # reading and preparing the last block took this long
        if order is not None:
            self.begin(order, prepare)

    def begin(self, order, prepare):
        """Start a pass: the blocks of ``order``, each with ``prepare(block)``."""
        order = list(order)
        if self.position < self.count or not all(t.is_alive() for t in self.threads):
            self.close()  # a pass left unfinished (an error), or a thread ended by one
        if not self.threads:
            self._start()
        self.position, self.count = 0, len(order)
        self.block_seconds = 0.0
        for j in range(self.readers):
            self.jobs[j].put((order[j::self.readers], prepare))

    def _start(self):
        self.jobs = [queue.SimpleQueue() for _ in range(self.readers)]
        self.queues = [queue.Queue(maxsize=1) for _ in range(self.readers)]
        self.taken = [threading.Event() for _ in range(self.readers)]
        for event in self.taken:
            event.set()
        self.stopped = threading.Event()
        self.threads = [threading.Thread(target=self._work, args=(j,),
                                         name=f"dualsvm-reader-{j}", daemon=True)
                        for j in range(self.readers)]
        for thread in self.threads:
            thread.start()

    def _work(self, j):
        read = self.dataset.reader()
        jobs, stopped = self.jobs[j], self.stopped
        try:
            while not stopped.is_set():
                job = jobs.get()
                if job is None or not self._serve(j, read, *job):
                    return
                job = None  # holds prepare: none between passes
        finally:
            read.close()

    def _serve(self, j, read, order, prepare):
        """Thread j's share of a pass; False when stopped or after an error."""
        taken = self.taken[j]
        try:
            for k in order:
                while not taken.wait(0.05):  # the last block is still queued
                    if self.stopped.is_set():
                        return False
                if self.stopped.is_set():
                    return False
                began = time.perf_counter()
                block = read(k)
                item = (block, prepare(block))
                self.block_seconds = (time.perf_counter() - began) / self.readers
                taken.clear()
                if not self._put(j, item):
                    return False
                block = item = None
        except BaseException as error:  # handed to the consumer
            self._put(j, error)
            return False
        return True

    def _put(self, j, item):
        while not self.stopped.is_set():
            try:
                self.queues[j].put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def get(self, wait=True):
        """The next (block, problem); None if ``wait`` is False and none is ready.

        Raises StopIteration after the last block (closing a one-pass Prefetcher).
        """
        if self.position >= self.count:
            if self.one_pass:
                self.close()
            raise StopIteration
        j = self.position % self.readers
        try:
            item = self.queues[j].get(block=wait)
        except queue.Empty:
            return None
        self.position += 1
        self.taken[j].set()
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
            self.end_pass()

    def end_pass(self):
        """After a pass: close a one-pass Prefetcher, or one whose pass was left
        unfinished (its threads may hold blocks); keep the others' threads."""
        if self.one_pass or self.position < self.count:
            self.close()

    def close(self):
        """Stop and join the threads (the next :meth:`begin` starts new ones)."""
        if not self.threads:
            return
        self.stopped.set()
        for jobs in self.jobs:
            jobs.put(None)
        current = threading.current_thread()
        for thread in self.threads:
            if thread is not current:  # a finalizer may run in a reader thread
                thread.join()
        self.threads = []
        self.position = self.count = 0


@functools.cache
def _return_freed_blocks_to_the_os():
    """Make glibc map every allocation above 128 KiB with mmap, so a freed block
    leaves the process at once.

    By default glibc raises that threshold after each such free (up to 32 MiB)
    and then serves blocks from heaps that keep freed memory: SBM's peak RSS then
    crept ever further above its budget. Once a process: the setting lasts, and
    finding libc runs ``ldconfig``, a few ms per fit.
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-3, 128 * 1024)  # M_MMAP_THRESHOLD; setting it stops the adjustment
    except (OSError, AttributeError):  # not glibc: nothing to tune
        pass


class _DiskSolver:
    """What the out-of-core solvers share: state, warm start, the certificate of
    the proposed model, the per-pass record."""

    def __init__(self, problem, tol, *, memory, random_state, gap_tol, shrinking, shuffle,
                 alpha, w, what, blocks_held, readers):
        # the budget holds the blocks in flight and at least blocks_held more
        self.readers = readers
        problem.check_budget(memory, what, blocks_in_flight(readers) + blocks_held)
        _return_freed_blocks_to_the_os()
        self.problem = problem
        self.tol = tol
        self.gap_tol = gap_tol
        self.shrinking = shrinking
        self.shuffle = shuffle
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
        # D_ii of every row, filled in as blocks are read: the exact dual needs no disk
        self.row_diag = np.zeros(n)
        self.violation = np.inf
        self.rows_read_before = problem.dataset.rows_read
        self.active_size = 0  # rows in memory during the last pass (sub-problem or cache)
        self.cache_size = 0
        self.wait_share = 0.0
        # the model proposed for certification by the last pass (None before one
        # ended), the running sum of w that makes the next one, the best certified
        # model (the lowest primal) and the dual of the latest alpha, both exact
        self.proposed = None
        self._w_sum = np.zeros(problem.n_weights)
        self._w_count = 0
        self.model_w = self.w.copy()
        self.model_primal = self.dual = np.nan
        self._loss = self._waited = self._started = 0.0
        self._reader = None  # the Prefetcher of the passes, made by the first

    def resume_state(self):
        """(JSON values, arrays) that, with alpha and w, let a new solver go on exactly as
        this one would: the random generator, the proposed and the best certified model."""
        arrays = {"model_w": self.model_w}
        if self.proposed is not None:
            arrays["proposed"] = self.proposed
        return {"generator": self.generator.bit_generator.state,
                "model_primal": float(self.model_primal)}, arrays

    def restore(self, values, arrays):
        """Take up a :meth:`resume_state` (ValueError, TypeError or KeyError if damaged)."""
        n_weights = self.problem.n_weights
        for name, array in arrays.items():
            if name not in ("model_w", "proposed") or array.shape != (n_weights,):
                raise ValueError(f"resume state {name!r} of shape {array.shape}")
        self.generator.bit_generator.state = values["generator"]
        self.model_primal = float(values["model_primal"])
        self.model_w = np.array(arrays["model_w"], dtype=np.float64)
        proposed = arrays.get("proposed")
        self.proposed = None if proposed is None else np.array(proposed, dtype=np.float64)

    def _rows_in_budget(self):
        """A RowCache for the budget left after the blocks in flight."""
        ds = self.problem.dataset
        room = self.memory - blocks_in_flight(self.readers) * self.problem.block_nbytes
        return RowCache.for_budget(room, ds.nnz / max(ds.n_samples, 1),
                                   self.problem.augmented_value, self.problem.bias)

    def counters(self):
        """Extra fields of the driver's per-epoch record."""
        return {"passes": self.passes, "cache_size": self.cache_size,
                "wait_share": self.wait_share}

    @property
    def passes(self):
        """Passes over the data on disk since this solver started (evaluations included)."""
        read = self.problem.dataset.rows_read - self.rows_read_before
        return read / max(self.problem.n_samples, 1)

    def certificate(self):
        """(primal, dual, gap, 0.0) of ``model_w`` and the latest alpha (NaN before a
        model is certified)."""
        return (self.model_primal, self.dual,
                relative_gap(self.model_primal, self.dual), 0.0)

    def finish(self):
        """Unless the certified model meets ``gap_tol``: certify w(a) too, by one
        pass, and keep the better (the driver asks again when this is True)."""
        if self.gap_tol is not None and self.certificate()[2] <= self.gap_tol:
            return False
        primal, self.dual, _, _ = self.problem.evaluate(self.alpha, self.w)
        self._offer(self.w, primal)
        return True

    def _offer(self, w, primal):
        """Make ``w`` the model if its primal beats the model's."""
        if not primal >= self.model_primal:  # NaN: no model yet
            self.model_primal = primal
            self.model_w = np.array(w, dtype=np.float64)

    def _begin_pass(self, prepare):
        """Start a pass: the solver's Prefetcher, on (block, prepare(block)) in a new
        random order (end it with ``end_pass``)."""
        self._loss = self._waited = 0.0
        self._w_sum[:] = 0.0
        self._w_count = 0
        self._started = time.perf_counter()
        order = self.generator.permutation(self.problem.dataset.n_blocks)
        if self._reader is None:  # one for all passes; closed with the solver
            self._reader = Prefetcher(self.problem.dataset, None, None, self.readers)
            weakref.finalize(self, self._reader.close)
        self._reader.begin(order, prepare)
        return self._reader

    def close(self):
        """Stop the reader threads (they are also stopped when the solver is collected)."""
        if self._reader is not None:
            self._reader.close()

    def _sample_w(self):
        """Add the w of this moment to the mean that makes the next proposed model."""
        self._w_sum += self.w
        self._w_count += 1

    def _get(self, reader, wait=True):
        """reader.get(wait), the time spent waiting for the disk counted."""
        began = time.perf_counter()
        try:
            return reader.get(wait)
        finally:
            if wait:
                self._waited += time.perf_counter() - began

    def _end_pass(self):
        """Certify the proposed model (its loss summed during the pass) and propose the next."""
        self.wait_share = self._waited / max(time.perf_counter() - self._started, 1e-12)
        self.dual = dual_terms(self.alpha, self.row_diag) - 0.5 * float(self.w @ self.w)
        if self.proposed is not None:
            self._offer(self.proposed, 0.5 * float(self.proposed @ self.proposed) + self._loss)
        self.proposed = self._w_sum / self._w_count if self._w_count else self.w.copy()


class BlockMinimization(_DiskSolver):
    """Block minimization with random regrouping; selective with ``selective=True``.

    Parameters
    ----------
    problem : DiskProblem
    tol : float
        A pass has converged when the first DCD epoch on every sub-problem met
        a projected-gradient violation of at most ``tol``.
    memory : int
        Bytes for rows in memory: the blocks in flight (``blocks_in_flight``), and the sub-problem
        in what remains (with ``selective``, half of it for the kept rows).
    inner_epochs : int
        DCD epochs on each sub-problem at most.
    inner_ratio : float
        Each sub-problem is solved to a violation of max(tol, inner_ratio * v),
        with v the largest violation seen in the previous pass (0.01: with 0.1
        the sub-problems are solved too loosely and more passes are needed;
        measurements: benchmarks/results/design_measurements.md, section outofcore/solvers.py).
    selective : bool
    random_state : numpy.random.Generator
    gap_tol, shrinking, shuffle :
        The driver's gap rule (see the module docstring); DCD's shrinking and
        random order inside each sub-problem (the grouping is random always).
    alpha, w : warm start (w computed from alpha by a pass when not given).
    """

    def __init__(self, problem, tol, *, memory, inner_epochs=30, inner_ratio=0.01,
                 selective=False, random_state, gap_tol=None, shrinking=True, shuffle=True,
                 alpha=None, w=None):
        # the sub-problem holds at least two blocks (SBM: one of them for kept rows)
        super().__init__(problem, tol, memory=memory, random_state=random_state, gap_tol=gap_tol,
                         shrinking=shrinking, shuffle=shuffle, alpha=alpha, w=w,
                         what="selective block minimization" if selective else "block minimization",
                         blocks_held=2,
                         readers=BM_READERS if memory >= BM_READER_SHARE * problem.block_nbytes
                         else 1)
        self.inner_epochs = inner_epochs
        self.inner_ratio = inner_ratio
        self.selective = selective
        self.buffer = self._rows_in_budget()
        # SBM keeps rows in up to half the buffer, leaving room for the largest block
        blocks = problem.dataset.blocks
        largest_rows, largest_nnz = max(b["n_rows"] for b in blocks), max(b["nnz"] for b in blocks)
        self.keep_rows = self.keep_nnz = 0
        if selective:
            rows_cap, nnz_cap = self.buffer.rows_cap, self.buffer.nnz_cap
            self.keep_rows = max(0, min(rows_cap // 2, rows_cap - largest_rows))
            self.keep_nnz = max(0, min(nnz_cap // 2, nnz_cap - largest_nnz))
        self.last_violation = np.inf
        self.kept = np.zeros(problem.n_samples, dtype=np.bool_)  # SBM: rows in the buffer

    def resume_state(self):
        values, arrays = super().resume_state()
        return {**values, "last_violation": float(self.last_violation)}, arrays

    def restore(self, values, arrays):
        super().restore(values, arrays)
        self.last_violation = float(values["last_violation"])

    def epoch(self):
        buffer = self.buffer
        self.violation = 0.0
        self.active_size = 0
        reader = self._begin_pass(self._prepare)
        try:
            while True:
                try:
                    block, (block_problem, loss) = self._get(reader)
                except StopIteration:
                    break
                self._loss += loss
                if not buffer.room_for(block):
                    self._solve()
                # SBM: the rows kept from earlier groups are in the buffer already
                rows = np.flatnonzero(~self.kept[block.rows])
                if buffer.add(block, block_problem, rows, self.alpha) != len(rows):
                    raise ValueError(f"block {block.number} does not fit the sub-problem's "
                                     "memory; convert the data with smaller blocks")
                block = block_problem = None  # copied into the buffer
            if buffer.size > np.count_nonzero(self.kept):
                self._solve()
        finally:
            reader.end_pass()
        self.last_violation = self.violation
        self._end_pass()
        return self.violation <= self.tol

    def _prepare(self, block):
        """Reader side: the block's problem, its D_ii for the dual, and the proposed
        model's loss on its rows (each row's once a pass)."""
        block_problem = self.problem.block_problem(block)
        self.row_diag[block.rows] = block_problem.diag
        loss = 0.0 if self.proposed is None else block_problem.loss_of(self.proposed)
        return block_problem, loss

    def _solve(self):
        """DCD on the buffer's rows; then keep (SBM) or drop them."""
        buffer = self.buffer
        inner_tol = max(self.tol, self.inner_ratio * self.last_violation)
        solver = DualCD(buffer, inner_tol, shrinking=self.shrinking, shuffle=self.shuffle,
                        random_state=self.generator, alpha=buffer.alpha, w=self.w)
        try:
            for inner in range(self.inner_epochs):
                done = solver.epoch()
                if inner == 0:
                    self.violation = max(self.violation, solver.violation)
                if done:
                    break
        finally:  # also on Ctrl-C: alpha must agree with w
            buffer.alpha[:] = solver.alpha
            buffer.store(self.alpha)
        self._sample_w()
        self.active_size = max(self.active_size, buffer.size)  # the largest sub-problem
        if self.selective:
            self._select()
        else:
            buffer.clear()

    def _select(self):
        """Keep the most informative rows that fit half the buffer: free ones, then by |G_i|."""
        buffer = self.buffer
        alpha, upper = buffer.alpha, buffer.upper_bound
        score = np.abs(buffer.gradient(self.w))
        score[(alpha > 0) & (alpha < upper)] = -1.0
        order = np.argsort(score, kind="stable")
        lengths = np.diff(buffer.indptr[:buffer.size + 1])[order]
        fits = np.cumsum(lengths) <= self.keep_nnz
        count = min(int(fits.sum()) if fits.all() else int(np.argmin(fits)), self.keep_rows)
        keep = np.zeros(buffer.size, dtype=np.bool_)
        keep[order[:count]] = True
        self.kept[buffer.row_id[:buffer.size]] = False
        buffer.retain(keep)
        self.kept[buffer.row_id[:buffer.size]] = True
        self.cache_size = buffer.size


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
        with G_i < -epsilon, is not taken into the cache; with ``shrinking`` it
        is dropped from it when its gradient is also beyond the last sweep's
        extreme projected gradients (LIBLINEAR's shrinking rule).
    inner_ratio : float
        The trainer waits for the next block once a sweep's violation is at
        most max(tol, inner_ratio * v), v the previous pass's violation.
    random_state : numpy.random.Generator
    gap_tol, shrinking, shuffle : as in :class:`BlockMinimization`.
    alpha, w : warm start.
    """

    def __init__(self, problem, tol, *, memory, epsilon=1e-3, inner_ratio=0.1,
                 updates_per_row=UPDATES_PER_ROW, random_state, gap_tol=None, shrinking=True,
                 shuffle=True, alpha=None, w=None):
        super().__init__(problem, tol, memory=memory, random_state=random_state, gap_tol=gap_tol,
                         shrinking=shrinking, shuffle=shuffle, alpha=alpha, w=w,
                         what="dual cached loops", blocks_held=1, readers=1)
        self.epsilon = epsilon
        self.inner_ratio = inner_ratio
        self.updates_per_row = updates_per_row
        self.cache = self._rows_in_budget()
        self.state = new_state(random_state)
        self.sweeps = 0
        self._update_seconds = 0.0  # of a row update in the last sweep

    def counters(self):
        return {**super().counters(), "sweeps": self.sweeps}

    def _screen(self, block):
        """Reader side: the block's problem, its informative rows and projected-gradient
        range with the w of the moment (a racy read), and the proposed model's loss."""
        block_problem = self.problem.block_problem(block)
        self.row_diag[block.rows] = block_problem.diag
        proposed = self.proposed
        selected = np.empty(block.n_rows, dtype=np.int64)
        count, high, low, loss = _screen_rows(
            block_problem.rows, block.n_rows, self.w, self.w if proposed is None else proposed,
            proposed is not None, block_problem.augmented_value, block_problem.y,
            block_problem.C, block_problem.diag, block_problem.upper_bound,
            self.alpha[block.rows], self.epsilon, block_problem.loss == "squared_hinge",
            selected)
        return block_problem, selected[:count], high, low, loss

    def _sweep(self, index, active, shrink):
        """One DCD epoch over the cached rows index[:active]; times a row update."""
        cache = self.cache
        began = time.perf_counter()
        result = dcd_epoch(cache.rows, cache.y, cache.alpha, self.w, cache.q_diag, cache.diag,
                           cache.upper_bound, cache.augmented_value, index, active, *shrink,
                           self.state, self.shuffle)
        self._update_seconds = (time.perf_counter() - began) / active
        self.sweeps += 1
        return result

    def epoch(self):
        cache = self.cache
        pg_max, pg_min = 0.0, 0.0
        index = cache.live_rows()
        active = len(index)
        sweep_violation = np.inf
        # Rows shrunk out of the active prefix leave the cache when the next block
        # comes: at a bound with a gradient beyond epsilon (the epsilon rule) and
        # beyond the last sweep's extreme projected gradients (LIBLINEAR's rule).
        shrink = (self.epsilon, -self.epsilon) if self.shrinking else (np.inf, -np.inf)
        inner_tol = max(self.tol, self.inner_ratio * self.violation)
        fresh = active > 0  # rows no sweep of this pass has seen yet
        budget = active  # row updates the trainer may spend before it must take a block
        reader = self._begin_pass(self._screen)
        try:
            while True:
                gain = active > 0 and (fresh or sweep_violation > inner_tol)
                item = None
                if not (gain and budget >= active):
                    # Past the budget, sweep only while the next block is not ready
                    # and a sweep is shorter than the reader's time for a block: a
                    # longer one would hold the reader up (its queue is one block).
                    short = active * self._update_seconds <= reader.block_seconds
                    try:
                        item = self._get(reader, wait=not (gain and short))
                    except StopIteration:
                        break
                if item is None:
                    budget = max(budget - active, 0)
                    active, high, low = self._sweep(index, active, shrink)
                    fresh = False
                    sweep_violation = max(high, 0.0) - min(low, 0.0) if active else 0.0
                    if self.shrinking:  # LIBLINEAR's thresholds, never below epsilon's
                        shrink = (max(self.epsilon, high) if high > 0 else np.inf,
                                  min(-self.epsilon, low) if low < 0 else -np.inf)
                    continue
                self._sample_w()
                block, (block_problem, selected, high, low, loss) = item
                pg_max, pg_min = max(pg_max, high), min(pg_min, low)
                self._loss += loss
                # the epsilon rule dropped index[active:]
                index = cache.take_in(block, block_problem, selected, self.alpha,
                                      index[:active], self.state)
                budget += self.updates_per_row * len(selected)
                fresh = fresh or len(selected) > 0
                active = len(index)
                item = block = block_problem = None
        finally:
            reader.end_pass()
            cache.store(self.alpha)
        self.active_size = self.cache_size = len(cache.live_rows())
        swept = 0.0 if not active or fresh else sweep_violation
        self.violation = max(pg_max - pg_min, swept)
        self._end_pass()
        return pg_max - pg_min <= self.tol and not fresh and swept <= self.tol


@njit(cache=True, nogil=True)
def _screen_rows(rows, n, w, proposed, with_proposed, bias, y, cost, diag, upper, alpha,
                 epsilon, squared, selected):
    """DCL's screening of a block's rows 0..n-1, in one pass over them.

    With G_i = y_i w'x_i - 1 + D_ii a_i: row i is informative unless U_i = 0, or
    a_i = 0 and G_i > epsilon, or a_i >= U_i and G_i < -epsilon; the informative
    rows' positions go to ``selected``. Returns (how many, the largest and the
    smallest projected gradient, 0 included, and the loss sum_i C_i loss(y_i v'x_i)
    of ``proposed`` v when ``with_proposed``, else 0): the sums of ``decisions``,
    ``DualProblem.gradient`` and ``loss_of_rows``, term for term.
    """
    count = 0
    high = low = loss = 0.0
    for i in range(n):
        a = alpha[i]  # once: the trainer may write alpha meanwhile
        g = y[i] * row_dot(rows, i, w, bias) - 1.0 + diag[i] * a
        if a == 0.0:
            pg = min(g, 0.0)
            easy = g > epsilon
        elif a >= upper[i]:
            pg = max(g, 0.0)
            easy = g < -epsilon
        else:
            pg = g
            easy = False
        high = max(high, pg)
        low = min(low, pg)
        if not (easy or upper[i] == 0.0):
            selected[count] = i
            count += 1
        if with_proposed:
            slack = 1.0 - y[i] * row_dot(rows, i, proposed, bias)
            if slack > 0.0:
                loss += cost[i] * (slack * slack if squared else slack)
    return count, high, low, loss
