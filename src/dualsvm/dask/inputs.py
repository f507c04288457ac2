"""What the Dask estimators share: their input, the client, and waiting for workers.

The input is a dask array chunked by rows (dense or scipy.sparse chunks) with its
labels, or a block directory written by ``dualsvm convert``: :class:`ArrayData`
and :class:`DirectoryData` split it into partitions and build each on a worker
(``submit``), where it stays; the client holds the labels only (a block
directory: not even those). :func:`wait_or_lost` waits for one call on every
partition and tells which partitions were lost with their worker.
"""

import threading
import time

import numpy as np

from ..data.validation import check_classes

#: Seconds between looks at the cluster while the partitions work (to see a lost
#: worker), and how long a cluster may have no worker before that is an error.
POLL_SECONDS, NO_WORKER_SECONDS = 0.5, 30.0


def is_dask(value):
    """Whether ``value`` is a dask collection (array, dataframe, ...)."""
    return type(value).__module__.startswith("dask.")


class current_client:
    """The current distributed Client, or a LocalCluster for this block."""

    def __enter__(self):
        from distributed import Client, get_client

        try:
            self.own = None
            return get_client()
        except ValueError:
            self.own = Client(processes=True, threads_per_worker=1, dashboard_address=None)
            return self.own

    def __exit__(self, *exc):
        if self.own is not None:
            cluster = self.own.cluster
            self.own.close()
            cluster.close()


def live_workers(client):
    """The addresses of the cluster's workers, sorted; RuntimeError when there has
    been none for NO_WORKER_SECONDS (nannies restart lost workers meanwhile)."""
    waited = time.monotonic()
    while True:
        workers = sorted(client.scheduler_info(n_workers=-1)["workers"])
        if workers:
            return workers
        if time.monotonic() - waited > NO_WORKER_SECONDS:
            raise RuntimeError("the Dask cluster has no workers")
        time.sleep(POLL_SECONDS)


def wait_or_lost(client, futures, holders):
    """Wait for ``futures`` (future k runs on worker ``holders[k]``); return the
    indices of those lost with their worker, [] when all finished. When some were
    lost, every unfinished future is cancelled. A task's own error is raised; so is
    Ctrl-C, after the futures are cancelled."""
    lost = []
    # woken by the futures' callbacks, looking at the workers every POLL_SECONDS (not
    # distributed.wait: its timeout did not fire once a worker was killed)
    remaining = [len(futures)]
    lock, all_done = threading.Lock(), threading.Event()

    def one_done(_):
        with lock:
            remaining[0] -= 1
            if remaining[0] == 0:
                all_done.set()

    try:
        for f in futures:
            f.add_done_callback(one_done)
        while not all_done.wait(POLL_SECONDS) and not all(f.done() for f in futures):
            alive = set(live_workers(client))
            lost = [k for k, f in enumerate(futures) if not f.done() and holders[k] not in alive]
            if lost:
                break
    except BaseException:
        for f in futures:
            f.cancel()
        raise
    for f in futures:
        if f.status == "error":
            for g in futures:
                if g is not f:
                    g.cancel()
            f.result()  # raises the worker's exception
    lost = lost or [k for k, f in enumerate(futures) if f.status != "finished"]
    if lost:
        for f in futures:
            f.cancel()
    return lost


def check_built(client, futures, holders):
    """Wait for the partitions' builds and raise the first error (bad data, named by
    its partition) without bringing any partition to the client."""
    if wait_or_lost(client, futures, holders):
        raise RuntimeError("a Dask worker was lost while the partitions were built")


class ArrayData:
    """A dask array (or a NumPy / SciPy matrix, one chunk) and its labels, by row chunks.

    Parameters
    ----------
    X : dask array, ndarray or sparse matrix of shape (n_samples, n_features)
        Chunked by rows only.
    y : dask array or array-like of shape (n_samples,)
        One label per row (brought to the client: n numbers).
    n_partitions : int or None
        None: X's row chunks; an int rechunks X into that many row chunks.
    """

    def __init__(self, X, y, n_partitions):
        import dask.array as da
        import scipy.sparse as sp

        if y is None:
            raise ValueError("y is required when X is an array (X may be a block directory)")
        if not is_dask(X):
            if not (sp.issparse(X) or isinstance(X, np.ndarray)):
                X = np.asarray(X)
            X = da.from_array(X, chunks=(max(X.shape[0], 1), X.shape[1]), asarray=False)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D, got {X.ndim} dimensions")
        if X.numblocks[1] != 1:
            raise ValueError(f"X is chunked along its columns too ({X.numblocks[1]} column "
                             "chunks); chunk it by rows only, e.g. X.rechunk({1: -1})")
        if n_partitions is not None and n_partitions != X.numblocks[0]:
            step = -(-X.shape[0] // n_partitions)
            X = X.rechunk({0: step})
        self.y = np.asarray(y.compute() if is_dask(y) else y).ravel()
        if self.y.shape[0] != X.shape[0]:
            raise ValueError(f"X has {X.shape[0]} rows but y has {self.y.shape[0]} labels")
        self.parts = X.to_delayed().ravel()
        self.n_rows = list(X.chunks[0])
        self.starts = np.concatenate([[0], np.cumsum(self.n_rows)]).astype(np.int64)
        self.n_partitions = len(self.n_rows)
        self.n_features = X.shape[1]

    def classes(self):
        """(the sorted distinct labels, the rows of each)."""
        classes = check_classes(self.y)
        return classes, np.bincount(np.searchsorted(classes, self.y), minlength=len(classes))

    def where(self, k):
        return f"partition {k}"

    def row_ids(self, k):
        """The rows of partition k in the whole data (int64, sorted)."""
        return np.arange(self.starts[k], self.starts[k + 1], dtype=np.int64)

    def submit(self, client, k, worker, build, *args):
        """Run ``build(rows, labels, *args)`` on ``worker`` for partition k; its future."""
        # the chunk unrestricted: its key outlives a worker lost with it, and a
        # restriction to that worker would keep its recomputation waiting forever
        chunk = client.compute(self.parts[k])
        labels = self.y[self.starts[k]:self.starts[k + 1]]
        return client.submit(build, chunk, labels, *args, pure=False, workers=[worker],
                             allow_other_workers=False)


class DirectoryData:
    """A block directory (``dualsvm convert``): partition k holds blocks k, k + K, ...,
    read on its worker."""

    def __init__(self, path, n_partitions, client):
        from ..outofcore import DiskDataset

        self.dataset = DiskDataset(path)
        self.path = str(self.dataset.path)
        n_workers = len(client.scheduler_info()["workers"])
        self.n_partitions = min(n_partitions or max(n_workers, 1), max(self.dataset.n_blocks, 1))
        self.blocks = [list(range(k, self.dataset.n_blocks, self.n_partitions))
                       for k in range(self.n_partitions)]
        self.n_rows = [sum(self.dataset.blocks[b]["n_rows"] for b in ids) for ids in self.blocks]
        self.n_features = self.dataset.n_features

    def classes(self):
        labels = np.asarray(self.dataset.labels)
        if len(labels) < 2:
            raise ValueError(f"{self.path}: every row has the label {labels[0]:g}; "
                             "training needs two classes or more")
        return labels, np.asarray(self.dataset.label_counts)

    def where(self, k):
        return f"partition {k} of {self.path}"

    def row_ids(self, k):
        entries = [self.dataset.blocks[b] for b in self.blocks[k]]
        return np.concatenate([np.arange(e["first_row"], e["first_row"] + e["n_rows"])
                               for e in entries] or [np.zeros(0)]).astype(np.int64)

    def submit(self, client, k, worker, build, *args):
        """Run ``build(rows, labels, *args)`` on ``worker`` for partition k, its blocks
        read there; its future."""
        return client.submit(from_blocks, self.path, self.blocks[k], build, *args, pure=False,
                             workers=[worker], allow_other_workers=False)


def checked_rows(chunk, labels, where):
    """(X, labels) of a partition's chunk on its worker: X float64, contiguous or
    canonical CSR, finite, one label a row (``where`` names the partition in errors)."""
    import scipy.sparse as sp

    from ..data.validation import canonical

    if sp.issparse(chunk):
        X = canonical(sp.csr_matrix(chunk, dtype=np.float64))
        values = X.data
    else:
        X = np.ascontiguousarray(chunk, dtype=np.float64)
        values = X
    if X.ndim != 2:
        raise ValueError(f"{where}: expected a 2-D block of rows, got shape {X.shape}")
    if not np.isfinite(values).all():
        raise ValueError(f"{where}: X contains NaN or infinity")
    labels = np.asarray(labels)
    if labels.shape != (X.shape[0],):
        raise ValueError(f"{where}: {X.shape[0]} rows but {labels.shape[0]} labels; the labels "
                         "must be chunked like the rows of X")
    return X, labels


def accuracy(predicted, y, sample_weight=None):
    """Mean accuracy of ``predicted`` (a dask array or not, computed now) against y."""
    if is_dask(predicted):
        predicted = predicted.compute()
    y = y.compute() if is_dask(y) else np.asarray(y)
    return float(np.average(predicted == y, weights=sample_weight))


def from_blocks(path, ids, build, *args):
    """``build(rows, labels, *args)`` of the blocks ``ids`` of a block directory (on a worker)."""
    import scipy.sparse as sp

    from ..outofcore import DiskDataset

    blocks = list(DiskDataset(path).iter_blocks(ids))
    X = sp.vstack([b.csr() for b in blocks], format="csr")
    labels = np.concatenate([b.labels for b in blocks])
    return build(X, labels, *args)
