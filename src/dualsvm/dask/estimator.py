"""``dualsvm.dask.LinearSVC``: the linear SVM trained by CoCoA+ on a Dask cluster."""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning

from ..data.validation import class_weights, random_generator
from ..solvers import Stopping, run_epochs
from ..training.fitted import LinearFit
from .cocoa import CoCoA, DiskPartition, build_partition, problem_classes
from .inputs import ArrayData, DirectoryData, accuracy, current_client, is_dask


class LinearSVC(ClassifierMixin, BaseEstimator):
    """Linear SVM (LIBLINEAR's ``-s 1`` / ``-s 3`` problems) trained by CoCoA+ on Dask.

    The rows stay on the workers, split into partitions; every round sends w
    out, runs local DCD epochs on every partition (from a point extrapolated by
    Nesterov momentum) and combines their steps, and the steps to the dual point
    their margins ask for, by an exact search that never lowers the dual (see
    :mod:`dualsvm.dask.cocoa`). Each round certifies the best model so far
    (primal, dual, relative gap), and training stops at ``gap_tol``, with a
    ConvergenceWarning naming the gap when a limit stops it first. Multi-class:
    one-vs-rest, all binary problems advancing in the same rounds.

    Runs on the current ``distributed.Client``, or on a LocalCluster it starts
    and closes when there is none.

    Parameters
    ----------
    C, loss, fit_intercept, intercept_scaling, class_weight :
        As in :class:`dualsvm.LinearSVC` (the intercept is the augmented feature).
    gap_tol : float
        Stop when the largest relative duality gap is at most this.
    max_rounds : int
    local_epochs : 'auto' or int
        DCD epochs on every partition per round (at most, with ``local_time``).
        'auto': as many as take the time of the last rounds' communication
        (their seconds less the busiest worker's local work; at most
        ``dualsvm.dask.cocoa.MAX_LOCAL_EPOCHS``), so that a round computes at
        least half of its time, however slow the network; the number then
        depends on timing, so only a fixed number gives the same model for the
        same seed.
    local_time : float or None
        Seconds of local epochs per round on each partition, after the first.
    n_partitions : int or None
        Partitions K. None: the row chunks of a dask array, or one per worker
        for a block directory; an int rechunks an array into K row chunks.
    memory : float or None
        For a block directory: MB of rows a partition holds in its worker's
        memory; its blocks stay on disk and each local epoch streams them in
        random groups that fit (block minimization, see
        :class:`~dualsvm.dask.cocoa.DiskPartition`), so the cluster can train on
        more data than all its memory. None: every partition in memory.
    checkpoint_every : int
        Rounds between copies of the dual variables to the client (what a lost
        worker's partition restarts from).
    sigma : 'K', 'adaptive' or float
        sigma' of the local sub-problems. 'K' (the number of partitions):
        CoCoA+'s value, safe for any data and the fastest measured when the
        partitions are random samples of the rows (a shuffled split).
        'adaptive': sigma' = 1 until a round's local steps overlap more than
        sigma' allows (their measured coupling ||sum_k dw_k||^2 / sum_k
        ||dw_k||^2 exceeds it), then K; for partitions that share few
        features (rows split by source), where it gives K partitions the
        rounds of one. A number >= 1 fixes sigma'. The exact search keeps
        every choice safe: the dual never falls. See :mod:`dualsvm.dask.cocoa`.
    time_limit : float or None
        Seconds; training stops after the round running then.
    callback : callable or None
        Called with each round's record and the model; True stops training.
    verbose : int
        1: a progress bar over rounds; 2, 3: trace lines.
    random_state : int, RandomState or None
        Seeds every partition's DCD order: the same seed (and a fixed
        ``local_epochs``) gives the same model.

    Attributes
    ----------
    coef_, intercept_, classes_ :
        The model.
    primal_, dual_, gap_ : ndarray of shape (n_problems,)
        The certificate of the model, per binary problem.
    n_rounds_ : int
    n_partitions_ : int
    sigma_ : float
        The sigma' of the last round.
    status_ : str
        'gap', 'max_iter', 'time_limit', 'callback' or 'interrupted'.
    history_ : list of dict
        One record per round: seconds, primal (the best so far), dual, gap
        (sums and largest gap over the binary problems), bytes (sent between
        client and workers), rebuilt (partitions rebuilt after a lost worker,
        so far), sigma (the round's sigma'), coupling (the measured coupling of
        its local steps, largest over the binary problems) and local_epochs.
    """

    def __init__(self, C=1.0, *, loss="squared_hinge", fit_intercept=True, intercept_scaling=1.0,
                 class_weight=None, gap_tol=1e-3, max_rounds=1000, local_epochs="auto",
                 local_time=None, n_partitions=None, memory=None, checkpoint_every=5,
                 sigma="K", time_limit=None, callback=None, verbose=0, random_state=None):
        self.C = C
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.gap_tol = gap_tol
        self.max_rounds = max_rounds
        self.local_epochs = local_epochs
        self.local_time = local_time
        self.n_partitions = n_partitions
        self.memory = memory
        self.checkpoint_every = checkpoint_every
        self.sigma = sigma
        self.time_limit = time_limit
        self.callback = callback
        self.verbose = verbose
        self.random_state = random_state

    def fit(self, X, y=None):
        """Fit on a dask array X (chunked by rows; dense or scipy.sparse chunks) and
        labels y (dask or NumPy, one per row), or on a block directory written by
        ``dualsvm convert`` (y None), whose blocks every worker reads its share of."""
        self._check_params()
        with current_client() as client:
            if isinstance(X, str) or hasattr(X, "__fspath__"):
                data = DirectoryData(X, self.n_partitions, client)
            elif self.memory is not None:
                raise ValueError("memory applies to a block directory (dualsvm convert); "
                                 "the chunks of a dask array are held in memory")
            else:
                data = ArrayData(X, y, self.n_partitions)
            classes, counts = data.classes()
            cost_by_class = self.C * class_weights(self.class_weight, classes, counts)
            bias = "augmented" if self.fit_intercept else "none"
            n_features = data.n_features
            options = (classes, cost_by_class, self.loss, bias, float(self.intercept_scaling))
            sources = [self._source(client, data, k, options) for k in range(data.n_partitions)]
            n_problems = len(problem_classes(classes))
            seed = int(random_generator(self.random_state).integers(2**31))
            solver = CoCoA(client, sources, data.n_rows, n_problems, n_features + (bias == "augmented"),
                           n_features=n_features, bias=bias, bias_scale=float(self.intercept_scaling),
                           local_epochs=self.local_epochs, local_time=self.local_time, seed=seed,
                           checkpoint_every=self.checkpoint_every, sigma=self.sigma)
            result = run_epochs(solver, solver, Stopping(
                max_iter=self.max_rounds, gap_tol=self.gap_tol, time_limit=self.time_limit,
                callback=self.callback, verbose=self.verbose, label="rounds "))
        coef, intercept = solver.coef_intercept(solver.model_w)
        self.classes_ = classes
        self.coef_ = coef
        self.intercept_ = intercept
        self.primal_, self.dual_, self.gap_ = solver.primal, solver.dual, solver.gap
        self.n_rounds_ = self.n_iter_ = result.n_iter
        self.status_ = result.status
        self.history_ = result.history
        self.n_features_in_ = n_features
        self.n_partitions_ = data.n_partitions
        self.sigma_ = solver.round_sigma
        stopped = self.to_fit().early_stop()
        if stopped:
            warnings.warn(f"{stopped} Increase max_rounds or time_limit, or loosen gap_tol.",
                          ConvergenceWarning, stacklevel=2)
        return self

    def _source(self, client, data, k, options):
        """``submit(alpha, completed, worker)``: the build of partition k on ``worker``
        with that alpha (the future of its :class:`~dualsvm.dask.cocoa.Partition`, or
        :class:`~dualsvm.dask.cocoa.DiskPartition` with ``memory``)."""
        where = data.where(k)
        if self.memory is None:
            return lambda alpha, completed, worker: data.submit(
                client, k, worker, build_partition, *options, alpha, completed, where)
        return lambda alpha, completed, worker: client.submit(
            DiskPartition, data.path, data.blocks[k], options, self.memory * 2**20, alpha,
            completed, where, pure=False, workers=[worker], allow_other_workers=False)

    def _check_params(self):
        if self.loss not in ("hinge", "squared_hinge"):
            raise ValueError(f"loss must be 'hinge' or 'squared_hinge', got {self.loss!r}")
        for name in ("C", "intercept_scaling"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and np.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number, got {value!r}")
        for name in ("max_rounds", "local_epochs", "checkpoint_every"):
            value = getattr(self, name)
            if name == "local_epochs" and value == "auto":
                continue
            if not (isinstance(value, (int, np.integer)) and value >= 1):
                raise ValueError(f"{name} must be an integer >= 1, got {value!r}")
        for name in ("local_time", "memory"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, (int, float)) and value > 0):
                raise ValueError(f"{name} must be None or a positive number, got {value!r}")
        if not (self.sigma in ("K", "adaptive") or (
                isinstance(self.sigma, (int, float, np.integer, np.floating))
                and not isinstance(self.sigma, bool) and np.isfinite(self.sigma)
                and self.sigma >= 1)):
            raise ValueError(f"sigma must be 'K', 'adaptive' or a number >= 1, got {self.sigma!r}")
        if self.n_partitions is not None and not (
                isinstance(self.n_partitions, (int, np.integer)) and self.n_partitions >= 1):
            raise ValueError(f"n_partitions must be None or an integer >= 1, got {self.n_partitions!r}")

    def decision_function(self, X):
        """x'coef + intercept for every row; lazily (a dask array) for a dask array."""
        coef, intercept = self.coef_, self.intercept_
        if is_dask(X):
            out = X.map_blocks(_decisions, coef, intercept, dtype=np.float64,
                               chunks=(X.chunks[0],) + ((len(coef),) if len(coef) > 1 else ()),
                               drop_axis=None if len(coef) > 1 else 1)
            return out
        return _decisions(X, coef, intercept)

    def predict(self, X):
        """Class labels; lazily for a dask array."""
        scores = self.decision_function(X)
        if len(self.classes_) == 2:
            picked = (scores > 0).astype(np.intp)
        else:
            picked = scores.argmax(axis=1)
        if is_dask(picked):
            return picked.map_blocks(lambda b: self.classes_[b], dtype=self.classes_.dtype)
        return self.classes_[picked]

    def score(self, X, y, sample_weight=None):
        """Mean accuracy (computed now)."""
        return accuracy(self.predict(X), y, sample_weight)

    def to_fit(self):
        """The :class:`~dualsvm.training.fitted.LinearFit` of this model (what model files hold)."""
        params = dict(C=self.C, loss=self.loss, fit_intercept=self.fit_intercept,
                      intercept_scaling=self.intercept_scaling, class_weight=self.class_weight,
                      gap_tol=self.gap_tol, random_state=self.random_state)
        return LinearFit(params=params, classes_=self.classes_.copy(), coef_=self.coef_.copy(),
                         intercept_=np.array(self.intercept_, dtype=np.float64),
                         n_iter_=self.n_rounds_, primal_=self.primal_.copy(),
                         dual_=self.dual_.copy(), gap_=self.gap_.copy(),
                         status_=[self.status_] * len(self.gap_), history_=[self.history_])

    def to_local(self):
        """The model as a :class:`dualsvm.LinearSVC` (with its certificate)."""
        from ..estimators.linear_svc import LinearSVC as Local

        return Local.from_fit(self.to_fit())


def _decisions(X, coef, intercept):
    scores = np.asarray(X @ coef.T) + intercept
    return scores[:, 0] if scores.shape[1] == 1 else scores

