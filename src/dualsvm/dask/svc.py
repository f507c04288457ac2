"""``dualsvm.dask.SVC``: kernel C-SVC trained on a Dask cluster, the rows on the workers."""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted

from ..data.validation import class_weights, sample_costs
from ..estimators.svc import SVC as LocalSVC
from ..training.fitted import libsvm_label_order
from ..training.config import KernelTraining
from .divide_conquer import dc_pair_solver
from .inputs import ArrayData, DirectoryData, accuracy, current_client, is_dask
from .kernel_solver import KernelPartition, Partitions, fit_pairs

#: The solvers of the cluster: the distributed working sets, divide and conquer.
SOLVERS = ("ws", "dc")


class SVC(ClassifierMixin, BaseEstimator):
    """Kernel support vector classifier (LIBSVM's C-SVC) trained on a Dask cluster.

    The same model as :class:`dualsvm.SVC` (one binary problem per pair of
    classes, the exact bias, class and sample weights), trained by a working-set
    solver whose rows stay on the workers: each iteration the client picks q
    variables from the workers' most violating candidates, solves their
    sub-problem, and every worker updates its part of the gradient from the
    kernel block of its rows against those q (see
    :mod:`dualsvm.dask.kernel_solver`, which also gives the traffic). It stops
    at LIBSVM's tolerance ``tol`` as ``SVC(solver='ws')`` does, and every binary
    model comes with its duality gap.

    ``solver='dc'`` is :class:`dualsvm.SVC`'s divide and conquer on the cluster
    (:mod:`dualsvm.dask.divide_conquer`): each level's clusters are solved on the
    workers side by side (each cluster's rows sent worker to worker to the one that
    solves it), and the whole problem is finished by the working sets from their
    solution; with ``early_stop_level`` the model is the level's cluster models,
    each row predicted by its nearest cluster's model on the workers.

    Runs on the current ``distributed.Client``, or on a LocalCluster it starts
    and closes when there is none.

    Parameters
    ----------
    C, kernel, degree, gamma, coef0, loss, tol, class_weight, max_iter, time_limit,
    callback, verbose, decision_function_shape, break_ties :
        As in :class:`dualsvm.SVC` (``kernel`` by name: 'linear', 'poly', 'rbf' or
        'sigmoid'; ``max_iter`` counts working sets per binary problem).
    cache_size : float, default=200
        MB of kernel columns each partition keeps (float64, its rows' length).
    working_set : int or None, default=None
        q, the variables of each sub-problem (None: as ``SVC(solver='ws')`` chooses
        it for the rows, at most half the columns a partition's cache holds).
    solver : {'ws', 'dc'}, default='ws'
        The distributed working sets, or divide and conquer whose last level they
        run.
    random_state, dc_clusters, dc_levels, dc_sample_size, early_stop_level :
        As in :class:`dualsvm.SVC` (``solver='dc'`` only); the same values give the
        same clusters and levels as ``dualsvm.SVC(solver='dc')``.
    n_partitions : int or None, default=None
        Partitions K: None for the row chunks of a dask array or one per worker
        for a block directory; an int rechunks an array into K row chunks.

    Attributes
    ----------
    classes_, support_, support_vectors_, n_support_, dual_coef_, intercept_,
    n_iter_, primal_, dual_, gap_, status_, history_ :
        As in :class:`dualsvm.SVC` (``support_`` numbers the rows of the whole data;
        ``history_`` records also ``bytes``, between the client and the workers in
        the iteration, and ``rebuilt``, partitions rebuilt after a lost worker).
    n_partitions_ : int
    """

    def __init__(self, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0, *,
                 loss="hinge", tol=1e-3, cache_size=200, class_weight=None, max_iter=-1,
                 working_set=None, n_partitions=None, time_limit=None, callback=None,
                 verbose=0, decision_function_shape="ovr", break_ties=False, solver="ws",
                 random_state=None, dc_clusters="auto", dc_levels=1, dc_sample_size="auto",
                 early_stop_level=None):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.loss = loss
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.working_set = working_set
        self.n_partitions = n_partitions
        self.time_limit = time_limit
        self.callback = callback
        self.verbose = verbose
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.solver = solver
        self.random_state = random_state
        self.dc_clusters = dc_clusters
        self.dc_levels = dc_levels
        self.dc_sample_size = dc_sample_size
        self.early_stop_level = early_stop_level

    def fit(self, X, y=None, sample_weight=None):
        """Fit on a dask array X (chunked by rows; dense or scipy.sparse chunks) with
        labels y and optional sample weights (dask or NumPy, one per row), or on a
        block directory written by ``dualsvm convert`` (y None), whose blocks every
        worker reads its share of. The rows are never brought to the client."""
        params, config = self._check_params()
        with current_client() as client:
            if isinstance(X, str) or hasattr(X, "__fspath__"):
                if y is not None or sample_weight is not None:
                    raise ValueError("a block directory holds its labels; y and sample_weight "
                                     "apply to an array X")
                data = DirectoryData(X, self.n_partitions, client)
                classes, counts = data.classes()
                by_class = (classes, self.C * class_weights(self.class_weight, classes, counts))
                costs = [by_class] * data.n_partitions
                libsvm_labels = None
            else:
                data = ArrayData(X, y, self.n_partitions)
                classes, _ = data.classes()
                if is_dask(sample_weight):
                    sample_weight = sample_weight.compute()
                cost = sample_costs(self.C, self.class_weight, data.y, classes, sample_weight)
                if len(np.unique(data.y[cost > 0])) < 2:
                    raise ValueError("Invalid input - all samples with positive weights belong "
                                     "to the same class: training needs samples of two "
                                     "classes or more with sample_weight (and class_weight) > 0")
                costs = [cost[data.starts[k]:data.starts[k + 1]] for k in range(data.n_partitions)]
                libsvm_labels = libsvm_label_order(data.y[cost > 0])
            ids = [data.row_ids(k) for k in range(data.n_partitions)]

            def source(k):
                return lambda worker: data.submit(client, k, worker, KernelPartition, costs[k],
                                                  ids[k], data.where(k))

            partitions = Partitions(client, [source(k) for k in range(data.n_partitions)], ids)
            pair_solver = dc_pair_solver(partitions, config, data.n_features) \
                if self.solver == "dc" else None
            fit = fit_pairs(partitions, classes, params, data.n_features, libsvm_labels,
                            pair_solver)
        self._fit = fit
        self._local = self.to_local().set_params(callback=None)  # what predictions send out
        for name in ("classes_", "support_", "support_vectors_", "n_support_", "dual_coef_",
                     "intercept_", "n_iter_", "primal_", "dual_", "gap_", "status_", "history_",
                     "n_features_in_"):
            setattr(self, name, getattr(self._local, name))
        self.n_partitions_ = data.n_partitions
        if fit.early_stop():
            warnings.warn(f"{fit.early_stop()} Increase max_iter or time_limit, or loosen tol.",
                          ConvergenceWarning, stacklevel=2)
        return self

    def _check_params(self):
        """The parameters, checked (those of dualsvm.SVC by its own declarations), as
        a dict and as the :class:`~dualsvm.training.config.KernelTraining` they make."""
        params = self.get_params(deep=False)
        if callable(self.kernel) or self.kernel == "precomputed":
            raise ValueError("dualsvm.dask.SVC takes a kernel by name ('linear', 'poly', 'rbf', "
                             "'sigmoid'): a precomputed or callable kernel has no rows to "
                             "spread over the workers")
        shared = {k: v for k, v in params.items() if k not in ("working_set", "n_partitions")}
        LocalSVC(**shared)._validate_params()
        if self.solver not in SOLVERS:
            raise ValueError(f"dualsvm.dask.SVC's solver is 'ws' or 'dc', got "
                             f"{self.solver!r}: the others run in one process (dualsvm.SVC)")
        config = KernelTraining.of(params)
        for name in ("working_set", "n_partitions"):
            value = params[name]
            if value is not None and not (isinstance(value, (int, np.integer))
                                          and not isinstance(value, bool) and value >= 1):
                raise ValueError(f"{name} must be None or an integer >= 1, got {value!r}")
        return params, config

    def decision_function(self, X):
        """As :meth:`dualsvm.SVC.decision_function`; lazily (a dask array) for a dask
        array, the model sent to each worker once."""
        return self._map(X, "decision_function", np.float64)

    def predict(self, X):
        """Class labels; lazily for a dask array."""
        return self._map(X, "predict", self.classes_.dtype)

    def score(self, X, y, sample_weight=None):
        """Mean accuracy (computed now)."""
        return accuracy(self.predict(X), y, sample_weight)

    def _map(self, X, method, dtype):
        check_is_fitted(self)
        if not is_dask(X):
            return getattr(self._local, method)(X)
        import dask

        if X.ndim != 2 or X.numblocks[1] != 1:
            raise ValueError("X must be a 2-D dask array chunked by rows only, e.g. "
                             "X.rechunk({1: -1})")
        model = dask.delayed(self._local, pure=True)  # one graph node: sent once per worker
        k = len(self.classes_)
        width = () if method == "predict" or k == 2 else \
            (k,) if self.decision_function_shape == "ovr" else (k * (k - 1) // 2,)
        return X.map_blocks(_apply, model, method, dtype=dtype, chunks=(X.chunks[0],) + width,
                            drop_axis=None if width else 1,
                            meta=np.empty((0,) * (1 + len(width)), dtype=dtype))

    def to_fit(self):
        """The :class:`~dualsvm.training.fitted.KernelFit` of this model (what model files hold)."""
        if not hasattr(self, "_fit"):
            check_is_fitted(self)
        return self._fit

    def to_local(self):
        """The model as a :class:`dualsvm.SVC` (with its certificate)."""
        return LocalSVC.from_fit(self.to_fit()).set_params(
            decision_function_shape=self.decision_function_shape, break_ties=self.break_ties)


def _apply(block, model, method):
    return getattr(model, method)(block)
