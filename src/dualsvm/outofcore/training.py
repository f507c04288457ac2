"""Train a binary linear SVM on a :class:`DiskDataset` under a memory budget.

:func:`fit` builds the :class:`~.solvers.DiskProblem`, one of the three
solvers, and runs them through the shared driver (``solvers.run_epochs``): one
epoch is one pass over the data, each record carries ``passes`` (over the disk,
evaluation passes included), ``cache_size`` and ``wait_share`` (of the pass
spent waiting for the disk); every gap is exact, that of the model certified
by the pass (the mean of w over the pass before, see :mod:`.solvers`).

Checkpoints: with ``checkpoint=PATH`` the dual variables, w and the number of
passes done are saved atomically (temporary file + rename) every
``checkpoint_every`` passes and/or ``checkpoint_seconds`` seconds, and at the
end; ``resume=True`` continues from the file after a kill. The file also
records the problem (C, loss, bias, class weights, positive label) and a
fingerprint of the dataset (sizes and block checksums); resuming with another
problem or other data is an error. With the same method it also holds the
solver's state (random generator, proposed and best certified models, BM's
inner tolerance), so that ``bm`` resumed after a kill ends with the very model
of an uninterrupted run with the same seed; ``sbm`` (whose kept rows are not
saved) and ``dcl`` (whose two threads race) go on from alpha and w to the same
optimum by another path.
"""

import functools
import json
import os
import time
import zlib

import numpy as np
from threadpoolctl import ThreadpoolController

from ..data.atomic_files import atomic_write
from ..data.validation import balanced_class_weight, random_generator
from ..exceptions import DataError, one_line
from ..solvers import Stopping, run_epochs
from ..training.fitted import LinearFit
from .format import DiskDataset
from .solvers import BlockMinimization, DiskProblem, DualCachedLoops

METHODS = ("bm", "sbm", "dcl")
CHECKPOINT_FORMAT = "dualsvm-checkpoint"


def fit(dataset, *, method="dcl", memory=1024.0, C=1.0, loss="squared_hinge",
        fit_intercept=True, intercept_scaling=1.0, class_weight=None, tol=0.1, gap_tol=1e-3,
        max_iter=1000, time_limit=None, shrinking=True, shuffle=True, random_state=None,
        checkpoint=None, checkpoint_every=1, checkpoint_seconds=None, resume=False,
        callback=None, verbose=0, **method_options):
    """Train a binary linear SVM on data on disk.

    Parameters
    ----------
    dataset : DiskDataset, str or MappedDataset
        Two label values; the larger is the positive class. A
        :class:`~.low_rank.MappedDataset` trains on the Nystroem map of the rows (see
        :func:`~.low_rank.fit_low_rank`).
    method : {'bm', 'sbm', 'dcl'}
        Block minimization, selective block minimization, dual cached loops.
    memory : float
        MB for rows in memory (blocks, sub-problems and caches); w and the
        per-row vectors (O(n + d)) come on top.
    C, loss, fit_intercept, intercept_scaling, class_weight :
        The problem, as in :class:`dualsvm.LinearSVC` (``class_weight``: a dict
        label -> weight, 'balanced' or None); the intercept is the augmented
        feature.
    tol : float
        The solvers' projected-gradient rule (see each solver).
    gap_tol : float or None
        Stop when the relative duality gap after a pass is at most this
        (certified without a pass of its own, see :mod:`.solvers`).
    max_iter : int
        Passes of training.
    time_limit : float or None
        Seconds; training stops after the pass running then.
    shrinking, shuffle : bool
        DCD's shrinking (for 'dcl': the epsilon rule's dropping of cached rows)
        and random order of the rows within a sub-problem or cache.
    random_state : int, RandomState or None
        Seeds block orders, groupings and DCD orders as :class:`dualsvm.LinearSVC` does.
    checkpoint : str or None
        File to save (alpha, w, passes) to; see the module docstring.
    checkpoint_every : int or None
        Save every this many passes.
    checkpoint_seconds : float or None
        Save after a pass once this many seconds have passed since the last save.
    resume : bool
        Start from ``checkpoint`` if it exists.
    callback : callable or None
        Called with each record; True stops training.
    verbose : int
        As the driver's (1: bar, 2-3: trace lines).
    **method_options :
        'bm', 'sbm': ``inner_epochs`` (DCD epochs per sub-problem, at most) and
        ``inner_ratio``; 'dcl': ``epsilon`` (the epsilon rule) and ``inner_ratio``
        (see :mod:`.solvers`).

    Returns
    -------
    dualsvm.training.fitted.LinearFit
        With ``params`` named as LinearSVC's, ``alpha_`` of shape (1, n) and
        ``history_[0]`` the per-pass records.
    """
    _check_options(method, memory, method_options)
    dataset = two_label_dataset(dataset)
    if class_weight == "balanced":
        class_weight = balanced_class_weight(dataset.labels, dataset.label_counts)
    problem = DiskProblem(dataset, float(dataset.labels[-1]), C, class_weight, loss,
                          "augmented" if fit_intercept else "none", intercept_scaling)
    solver, done_passes = _solver(problem, method, tol, memory, gap_tol, shrinking, shuffle,
                                  random_state, checkpoint, resume, method_options)
    saver = None if checkpoint is None else _Saver(checkpoint, problem, solver, method,
                                                   done_passes, checkpoint_every,
                                                   checkpoint_seconds)
    stopping = Stopping(max_iter=max(max_iter - done_passes, 0), gap_tol=gap_tol,
                        time_limit=time_limit, callback=_after_pass(saver, callback),
                        verbose=verbose)
    result = _run(solver, problem, stopping, saver, done_passes)
    params = dict(C=C, loss=loss, solver="dcd", fit_intercept=fit_intercept,
                  intercept_mode="augmented", intercept_scaling=intercept_scaling, tol=tol,
                  gap_tol=gap_tol, max_iter=max_iter, time_limit=time_limit,
                  shrinking=shrinking, shuffle=shuffle, random_state=random_state,
                  class_weight=class_weight, callback=callback, verbose=verbose)
    return _linear_fit(problem, result, params, done_passes)


def two_label_dataset(dataset, advice=None):
    """``dataset`` (a :class:`DiskDataset`, its path, or a view of one such as
    :class:`~.low_rank.MappedDataset`) opened; ValueError unless it has two label values
    (``advice``, if given, ends the message)."""
    if isinstance(dataset, (str, os.PathLike)):
        dataset = DiskDataset(dataset)
    labels = dataset.labels
    if len(labels) != 2:
        raise ValueError(f"out-of-core training needs exactly 2 label values; {dataset.path} "
                         f"has {len(labels)}: {labels.tolist()[:10]}"
                         + ("" if advice is None else f"; {advice}"))
    return dataset


def _after_pass(saver, callback):
    """The driver's callback: checkpoint when due, then the user's callback."""
    def after_pass(record):
        if saver is not None:
            saver.maybe_save()
        return callback is not None and callback(record)

    return after_pass


def _run(solver, problem, stopping, saver, done_passes):
    """The driver's run, checkpointed at the end; the records' epochs count the
    ``done_passes`` of the checkpoint resumed from."""
    # The reader thread and the trainer use the cores; an idle BLAS thread pool
    # would spin on one of them after every dot product over n (up to a whole core).
    try:
        with _thread_pools().limit(limits=1, user_api="blas"):
            result = run_epochs(solver, problem, stopping)
    finally:
        solver.close()
    if saver is not None:
        saver.save()
    for record in result.history:
        record["epoch"] += done_passes
    return result


@functools.cache
def _thread_pools():
    """The process's thread pools, found once: finding them (threadpool_limits does it
    at every call) scans the loaded libraries, a few ms per fit."""
    return ThreadpoolController()


def _check_options(method, memory, method_options):
    """ValueError for an unknown method or a memory budget <= 0, TypeError for an
    option ``method`` does not take."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    allowed = {"dcl": {"epsilon", "inner_ratio"}}.get(method, {"inner_epochs", "inner_ratio"})
    unknown = sorted(set(method_options) - allowed)
    if unknown:
        raise TypeError(f"method {method!r} takes no option {', '.join(unknown)} "
                        f"(its options: {', '.join(sorted(allowed))})")
    if not memory > 0:
        raise ValueError(f"memory must be > 0 MB, got {memory!r}")


def _solver(problem, method, tol, memory, gap_tol, shrinking, shuffle, random_state,
            checkpoint, resume, method_options):
    """(solver, passes done): the solver of ``method``, started from the checkpoint
    (with its own state when the checkpoint is of the same method) when resuming."""
    alpha = w = state = None
    done_passes = 0
    if resume and checkpoint is not None and os.path.exists(checkpoint):
        alpha, w, done_passes, state = load_checkpoint(checkpoint, problem, method)
    if method == "dcl":
        solver_class, options = DualCachedLoops, method_options
    else:
        solver_class, options = BlockMinimization, {**method_options, "selective": method == "sbm"}
    solver = solver_class(problem, tol, memory=int(memory * 2**20), gap_tol=gap_tol,
                          shrinking=shrinking, shuffle=shuffle,
                          random_state=random_generator(random_state), alpha=alpha, w=w,
                          **options)
    if state is not None:
        try:
            solver.restore(*state)
        except (KeyError, TypeError, ValueError) as e:
            raise DataError(f"{checkpoint}: damaged solver state ({one_line(e)})") from None
    return solver, done_passes


def _linear_fit(problem, result, params, done_passes):
    """The :class:`LinearFit` of a run (one binary problem, ``done_passes`` before it)."""
    coef, intercept = problem.coef_intercept(result.w)
    return LinearFit(params=params, classes_=problem.dataset.labels.copy(),
                     coef_=coef[None, :], intercept_=np.array([intercept]),
                     alpha_=result.alpha[None, :], n_iter_=result.n_iter + done_passes,
                     primal_=np.array([result.primal]), dual_=np.array([result.dual]),
                     gap_=np.array([result.gap]), status_=[result.status],
                     history_=[result.history])


# ---------------------------------------------------------------- checkpoints


def _problem_key(problem):
    """What a checkpoint must agree with: the problem and the data's fingerprint."""
    ds = problem.dataset
    crcs = zlib.crc32(np.array([b["crc32"] for b in ds.blocks], dtype=np.uint64).tobytes())
    return {"n_samples": ds.n_samples, "n_features": ds.n_features, "nnz": ds.nnz,
            "blocks_crc32": crcs, "positive": problem.positive, "C": problem.C,
            "class_weight": sorted(problem.class_weight.items()), "loss": problem.loss,
            "bias": problem.bias, "bias_scale": float(problem.bias_scale)}


class _Saver:
    def __init__(self, path, problem, solver, method, done_passes, every, seconds):
        self.path = os.fspath(path)
        self.problem = problem
        self.solver = solver
        self.method = method
        self.passes = done_passes
        self.every = every
        self.seconds = seconds
        self.last = time.monotonic()
        self.since = 0

    def maybe_save(self):
        self.passes += 1
        self.since += 1
        due = (self.every is not None and self.since >= self.every) or (
            self.seconds is not None and time.monotonic() - self.last >= self.seconds)
        if due:
            self.save()

    def save(self):
        save_checkpoint(self.path, self.problem, self.solver, self.method, self.passes)
        self.last = time.monotonic()
        self.since = 0


#: Prefix of the solver's state arrays in a checkpoint file.
_STATE = "state_"


def save_checkpoint(path, problem, solver, method, passes):
    """Write alpha, w, passes and the solver's state with the problem's key,
    atomically (npz, no pickle)."""
    values, arrays = solver.resume_state()
    meta = {"format": CHECKPOINT_FORMAT, "version": 1, "passes": int(passes),
            "problem": _problem_key(problem), "method": method, "state": values}
    raw = np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8)
    arrays = {_STATE + name: array for name, array in arrays.items()}
    atomic_write(path, lambda f: np.savez(f, metadata=raw, alpha=solver.alpha, w=solver.w,
                                          **arrays))


def load_checkpoint(path, problem, method):
    """(alpha, w, passes, state) from a checkpoint of this problem; state is the
    solver's (values, arrays) when the checkpoint is of ``method``, else None.
    DataError for another problem or a damaged file."""
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(bytes(z["metadata"]).decode("utf-8"))
            alpha, w = z["alpha"], z["w"]
            arrays = {name[len(_STATE):]: z[name] for name in z.files if name.startswith(_STATE)}
    except Exception as e:  # a damaged file: zip, npy or JSON errors
        raise DataError(f"{path}: not a readable checkpoint ({one_line(e)})") from None
    if not isinstance(meta, dict) or meta.get("format") != CHECKPOINT_FORMAT:
        raise DataError(f"{path}: not a dualsvm checkpoint")
    expected = json.loads(json.dumps(_problem_key(problem)))
    if meta.get("problem") != expected:
        raise DataError(f"{path}: checkpoint of another problem or dataset; remove it or "
                        "train without resume")
    if (alpha.dtype != np.float64 or w.dtype != np.float64 or alpha.shape != (problem.n_samples,)
            or w.shape != (problem.n_weights,)):
        raise DataError(f"{path}: checkpoint arrays have the wrong shape or type")
    passes = meta.get("passes")
    if not (isinstance(passes, int) and passes >= 0):
        raise DataError(f"{path}: damaged checkpoint (passes {passes!r})")
    state = (meta.get("state"), arrays) if meta.get("method") == method else None
    return alpha, w, passes, state
