"""Low-rank kernel SVMs out of core: the Nystroem map applied to each block as it is read.

The model is :class:`dualsvm.LowRankSVC`'s (:mod:`dualsvm.training.low_rank`): B basis
rows Z, the map phi(x) = K(x, Z) U_k diag(lambda_k)^(-1/2) of :func:`nystroem_map`, and
the linear SVM on phi. Here the linear SVM is trained by the out-of-core solvers
(:func:`dualsvm.outofcore.fit`) on :class:`MappedDataset`, a view of a
:class:`DiskDataset` whose every block is replaced, as a reader thread decodes it, by
phi of its rows; phi is never held whole, and the certificate (``primal_``, ``dual_``,
``gap_``) is that of the linear problem on phi, as in memory.

The basis is 'uniform': B rows drawn by :func:`uniform_basis` from the same
``random_state`` as in memory (so the same rows as ``LowRankSVC(basis='uniform')`` on the
loaded data), read by one pass over the blocks that hold them; ``gamma='scale'`` reads
every block in that pass, for the variance of the data.

Why a CSR of full density for phi rather than dense blocks: every solver, the
sub-problems of block minimization and the cache of dual cached loops keep rows in
:class:`~._cache.RowCache`, whose compiled moves, compaction and DCD sweeps take CSR
arrays; phi's rows as CSR (indices 0..k-1 in every row, one shared array of them) go
through that one code path unchanged, at 12 bytes a value instead of 8.
"""

import json
import time
import zlib

import numpy as np
import scipy.sparse as sp

from ..kernels import make_kernel
from ..kernels.functions import gamma_value, moments_variance
from ..training.low_rank import (LowRankFit, NystroemMap, basis_size,
                                 check_low_rank_kernel, map_tile_rows, nystroem_map,
                                 uniform_basis)
from .format import Block, DiskDataset, block_nbytes
from .training import fit, two_label_dataset

#: Largest dense copy of sparse basis rows that the map of the blocks reads (B x d float64).
DENSE_BASIS_BYTES = 16 * 2**20


class MappedDataset:
    """The rows of a :class:`DiskDataset` mapped by a :class:`NystroemMap`, block by block:
    what the out-of-core solvers read in place of the dataset (its attributes, with
    ``n_features`` = k and every row k values).

    Parameters
    ----------
    dataset : DiskDataset
    mapping : dualsvm.training.low_rank.NystroemMap
    """

    def __init__(self, dataset, mapping):
        self.dataset = dataset
        self.mapping = mapping
        k = mapping.n_components
        self.path = dataset.path
        self.n_samples = dataset.n_samples
        self.n_features = k
        self.nnz = dataset.n_samples * k
        self.labels = dataset.labels
        self.label_counts = dataset.label_counts
        self.n_blocks = dataset.n_blocks
        largest = max((b["n_rows"] for b in dataset.blocks), default=0)
        if (largest + 1) * k >= 2**31:
            raise ValueError(f"a block of {largest} rows mapped to {k} components holds 2**31 "
                             "values or more; convert the data with smaller blocks")
        # The checkpoints' fingerprint of the data (training._problem_key) covers the map;
        # reading checks the blocks against the dataset's own checksums.
        mark = _map_checksum(mapping)
        self.blocks = [{**b, "nnz": b["n_rows"] * k, "crc32": zlib.crc32(
            np.uint32(b["crc32"]).tobytes(), mark)} for b in dataset.blocks]
        # Sparse rows against dense basis rows: the dot products of a block, a CSR by
        # dense product, take about half the time of scipy's CSR by CSR product (with its
        # sparse result), which made most of a pass (measured on ijcnn1, B = 256).
        Z = mapping.components
        self._reading_map = NystroemMap(mapping.kernel, Z.toarray(), mapping.normalization) \
            if sp.issparse(Z) and 8 * Z.shape[0] * Z.shape[1] <= DENSE_BASIS_BYTES else mapping
        # every mapped row's column indices are 0..k-1: one array serves all blocks
        self._indices = np.tile(np.arange(k, dtype=np.int32), largest)
        self._indptr = np.arange(0, (largest + 1) * k, k, dtype=np.int32)

    def __repr__(self):
        return f"MappedDataset({self.dataset!r} mapped to {self.n_features} components)"

    @property
    def rows_read(self):
        return self.dataset.rows_read

    @property
    def max_block_nbytes(self):
        """Memory of the largest block while it is mapped and then held: phi of its rows
        (CSR, k values a row), the block as read, and two tiles of kernel values (the
        dot products and the kernel values of :meth:`NystroemMap.transform`'s tiles)."""
        B = self.mapping.components.shape[0]
        tile_rows = map_tile_rows(B)
        return max((block_nbytes(b["n_rows"], b["n_rows"] * self.n_features)
                    + block_nbytes(b["n_rows"], b["nnz"]) + 2 * 8 * min(b["n_rows"], tile_rows) * B
                    for b in self.dataset.blocks), default=0)

    def map_block(self, block):
        """The Block of phi of ``block``'s rows (same number, rows and labels)."""
        n, k = block.n_rows, self.n_features
        phi = self._reading_map.transform(block.csr())
        return Block(block.number, block.first_row, block.labels, self._indptr[:n + 1],
                     self._indices[:n * k], phi.reshape(-1), k)

    def reader(self):
        """A function ``read(k) -> Block`` of mapped blocks; use one per thread."""
        read = self.dataset.reader()

        def read_mapped(k):
            return self.map_block(read(k))

        read_mapped.close = read.close
        return read_mapped


def _map_checksum(mapping):
    """CRC-32 of the map: kernel, basis rows and normalization."""
    Z = mapping.components
    parts = [json.dumps(mapping.kernel.to_dict(), sort_keys=True).encode("utf-8"),
             np.ascontiguousarray(mapping.normalization).tobytes()]
    parts += [Z.data.tobytes(), Z.indices.tobytes(), Z.indptr.tobytes()] if sp.issparse(Z) \
        else [np.ascontiguousarray(Z).tobytes()]
    mark = 0
    for part in parts:
        mark = zlib.crc32(part, mark)
    return mark


def basis_rows(dataset, indices, variance=False):
    """(Z, var): rows ``indices`` of ``dataset`` in that order (CSR, canonical), read by one
    pass over the blocks that hold them (all blocks with ``variance``), and the variance of
    all n_samples * n_features entries as ``gamma='scale'`` takes it (None without)."""
    indices = np.asarray(indices, dtype=np.int64)
    starts = np.array([b["first_row"] for b in dataset.blocks], dtype=np.int64)
    owner = np.searchsorted(starts, indices, side="right") - 1
    # empty blocks share their first_row with the next block: the search took the last
    wanted = np.unique(owner)
    order = np.arange(dataset.n_blocks) if variance else wanted
    pieces, positions = [], []
    total = squares = 0.0
    for block in dataset.iter_blocks(order):
        if variance:
            total += float(block.data.sum())
            squares += float(block.data @ block.data)
        chosen = np.flatnonzero(owner == block.number)
        if len(chosen):
            pieces.append(block.csr()[indices[chosen] - block.first_row])
            positions.append(chosen)
    Z = sp.vstack(pieces, format="csr")[np.argsort(np.concatenate(positions))]
    Z.sort_indices()
    if not variance:
        return Z, None
    # as make_kernel's, over the entries, the zeros included
    return Z, moments_variance(dataset.n_samples * dataset.n_features, total, squares)


def resolved_gamma(gamma, n_features, variance):
    """make_kernel's 'scale' and 'auto' (:func:`~dualsvm.kernels.functions.gamma_value`)
    from the variance of the data read on disk; a number as given."""
    return gamma_value(gamma, n_features, variance) if isinstance(gamma, str) else gamma


def fit_low_rank(dataset, *, n_components=256, kernel="rbf", gamma="scale", degree=3,
                 coef0=0.0, random_state=None, time_limit=None, **options):
    """Train :class:`dualsvm.LowRankSVC`'s model on data on disk, under a memory budget.

    The basis is ``n_components`` rows drawn as ``LowRankSVC(basis='uniform')`` draws
    them from ``random_state`` (the same rows of the same data), read with the data's
    variance for ``gamma='scale'`` in one pass; the linear SVM on phi is then trained by
    :func:`dualsvm.outofcore.fit`, each block mapped to phi as it is read. Binary only
    (two label values; the larger is ``classes_[1]``).

    Parameters
    ----------
    dataset : DiskDataset or str
    n_components, kernel, gamma, degree, coef0 :
        As :class:`dualsvm.LowRankSVC`'s (kernel 'linear', 'poly', 'rbf' or 'sigmoid').
    random_state : int, RandomState or None
        Seeds the basis and the solver (an int makes both reproducible, and a checkpoint
        resumable).
    time_limit : float or None
        Seconds, the basis and the map counted.
    **options :
        :func:`dualsvm.outofcore.fit`'s: ``method``, ``memory`` (MB for rows in memory:
        a block of phi takes 12 bytes a value, k values a row), ``C``, ``loss``,
        ``fit_intercept``, ``intercept_scaling``, ``class_weight``, ``tol``,
        ``gap_tol``, ``max_iter``, ``checkpoint``, ``resume``, ``callback``, ...

    Returns
    -------
    dualsvm.training.low_rank.LowRankFit
        What ``LowRankSVC.fit`` makes: ``dualsvm.LowRankSVC.from_fit`` of it predicts,
        is saved and loaded as a model fitted in memory; ``alpha_``, ``history_`` and
        the certificate are those of the out-of-core run.

    Raises
    ------
    ValueError
        A kernel that is not a low-rank model's ('precomputed'), other than two label
        values, a memory budget that does not hold the blocks mapped to phi.
    """
    started = time.perf_counter()
    check_low_rank_kernel(kernel)
    dataset = two_label_dataset(dataset, "out-of-core low-rank training is binary; train "
                                         "LowRankSVC in memory (one-vs-rest) on "
                                         "DiskDataset(path).load()")
    make_kernel(kernel, gamma=gamma, degree=degree, coef0=coef0)  # checked before any read
    B = basis_size(n_components, dataset.n_samples)
    indices = uniform_basis(dataset.n_samples, B, random_state)
    scale = isinstance(gamma, str) and gamma == "scale"
    components, variance = basis_rows(dataset, indices, variance=scale)
    resolved = make_kernel(kernel, gamma=resolved_gamma(gamma, dataset.n_features, variance),
                           degree=degree, coef0=coef0)
    mapping = nystroem_map(resolved, components)
    remaining = None if time_limit is None else \
        max(0.0, time_limit - (time.perf_counter() - started))
    linear = fit(MappedDataset(dataset, mapping), random_state=random_state,
                 time_limit=remaining, **options)
    # LowRankSVC's parameters: the linear problem's, the kernel's and the basis's
    params = {**{name: value for name, value in linear.params.items() if name != "solver"},
              "kernel": kernel, "gamma": gamma, "degree": degree, "coef0": coef0,
              "n_components": n_components, "basis": "uniform", "time_limit": time_limit,
              "dual": True}
    return LowRankFit(params=params, kernel=resolved, components_=components,
                      component_indices_=indices, normalization_=mapping.normalization,
                      linear=linear)
