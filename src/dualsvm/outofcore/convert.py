"""Streaming conversion of svmlight files into an on-disk dataset.

The input is read in chunks of about ``chunk_mb`` MB of whole lines (``.gz``
and ``.bz2`` decompressed on the fly); each chunk is parsed by the compiled
svmlight parser of :mod:`dualsvm.data._svmlight_jit` (as :func:`dualsvm.data.svmlight.read_svmlight`),
optionally transformed, and cut into blocks of about
``block_mb`` MB (in-memory size) that are compressed and written at once. Peak
memory is a few chunks and blocks, whatever the size of the input.

Scale-up transforms (to make large real-valued problems from real data):

* ``poly2``: the degree-2 polynomial expansion without constant: a row with
  values x_j becomes [x_j for all j] + [x_a x_b for a <= b], columns of the
  products numbered d + a d - a (a - 1) / 2 + (b - a) for a base width d, so a
  row with k non-zeros gets k + k (k + 1) / 2.
* ``replicas`` R with ``perturbation`` s: the input is streamed R times; copy 0
  is exact and copy r >= 1 multiplies every base value by (1 + s z), z standard
  normal drawn from a generator seeded by (seed, r, chunk), before the
  expansion. Labels are kept. This is replicated real data with small noise,
  not new data; the manifest's ``source`` says so.
"""

import os
import time
import zlib

import numpy as np
from numba import njit

from ..data.svmlight import diagnose, open_data
from ..exceptions import DataError, one_line
from .format import DatasetWriter, block_nbytes, decode_block, encode_block


def convert(inputs, path, *, block_mb=8.0, chunk_mb=16.0, n_features=None, poly2=False,
            replicas=1, perturbation=0.0, shuffle=True, seed=0, compression="zstd",
            progress=None):
    """Convert svmlight files into a block dataset at ``path``.

    Parameters
    ----------
    inputs : str or list of str
        svmlight/LIBSVM files (1-based indices; ``.gz``/``.bz2`` allowed),
        concatenated in this order.
    path : str
        The dataset directory to create (must not exist, or be empty).
    block_mb : float
        In-memory size of a block in MB; a block holds at least one row.
        Training regroups blocks into sub-problems each pass: choose blocks of
        at most 1/16 of the memory budget it will run with.
    chunk_mb : float
        Text read and parsed at once, in MB.
    n_features : int or None
        Width of the input rows when wider than their largest index (e.g. a
        test set that lacks the last feature); None: the largest index.
    poly2 : bool
        Write the degree-2 polynomial expansion of the rows.
    replicas : int
        Number of copies of the input to write (see the module docstring).
    perturbation : float
        Relative noise s of copies 1..R-1.
    shuffle : bool
        Write the rows in a random order (seeded; the default), so that every
        block is a random sample of the data, as block minimization assumes
        (False keeps the file order). Bounded
        memory: a first pass scatters the rows into temporary bucket files of
        about four blocks each, a second shuffles each bucket and writes it.
    seed : int
    compression : {'zstd', 'zlib'}
    progress : callable or None
        Called with a short status line after every block written.

    Returns
    -------
    DiskDataset
    """
    from .format import DiskDataset

    inputs = _input_paths(inputs)
    if block_mb <= 0 or chunk_mb <= 0:
        raise ValueError("block_mb and chunk_mb must be > 0")
    if replicas < 1:
        raise ValueError(f"replicas must be >= 1, got {replicas}")
    if perturbation < 0:
        raise ValueError(f"perturbation must be >= 0, got {perturbation}")
    chunk_bytes = max(int(chunk_mb * 2**20), 1)
    block_bytes = int(block_mb * 2**20)
    base_width, total_bytes = n_features, 0
    if poly2 or shuffle:  # the expansion numbers columns by the base width: one scan first
        base_width, total_bytes = _scan(inputs, chunk_bytes, n_features, poly2)
    width = poly2_width(base_width) if poly2 else n_features
    # rows go to random buckets of about 4 blocks (at most 1024 bucket files)
    n_buckets = max(1, min(1024, -(-total_bytes * replicas // (4 * block_bytes)))) if shuffle else 0
    source = {"inputs": [os.path.basename(p) for p in inputs], "poly2": bool(poly2),
              "replicas": int(replicas), "perturbation": float(perturbation),
              "shuffle": bool(shuffle), "seed": int(seed)}
    if replicas > 1:
        source["note"] = ("copy 0 is the input; copies 1.. multiply each input value by "
                          "(1 + perturbation * N(0,1)) before any expansion")
    with DatasetWriter(path, n_features=width, compression=compression,
                       source=source) as writer:
        cutter = _BlockCutter(writer, block_bytes)
        buckets = _Buckets(writer.tmp, n_buckets, seed) if shuffle else None
        _write_replicas(inputs, chunk_bytes, writer, cutter, buckets, base_width if poly2 else None,
                        replicas, perturbation, seed, progress)
        if buckets is not None:
            for labels, indptr, indices, data in buckets.shuffled():
                cutter.add(labels, indptr, indices, data)
        cutter.flush()
    return DiskDataset(path)


def _input_paths(inputs):
    """The input files as a non-empty list of paths."""
    paths = [os.fspath(inputs)] if isinstance(inputs, (str, os.PathLike)) \
        else [os.fspath(p) for p in inputs]
    if not paths:
        raise ValueError("no input files")
    return paths


def _scan(inputs, chunk_bytes, n_features, poly2):
    """(base width, in-memory bytes of the rows written) by one pass over the inputs."""
    base_width, total_bytes = n_features or 0, 0
    for _, _, indptr, indices, _ in _chunks(inputs, chunk_bytes):
        if indices.size:
            base_width = max(base_width, int(indices.max()) + 1)
        k = np.diff(indptr)
        total_bytes += int((12 + 12 * (k + k * (k + 1) // 2 if poly2 else k)).sum())
    return base_width, total_bytes


def _write_replicas(inputs, chunk_bytes, writer, cutter, buckets, poly2_base, replicas,
                    perturbation, seed, progress):
    """Stream the inputs ``replicas`` times (copies 1.. perturbed, then expanded when
    ``poly2_base`` is a base width) into the buckets, or straight into blocks."""
    start = time.perf_counter()
    for replica in range(replicas):
        for number, labels, indptr, indices, data in _chunks(inputs, chunk_bytes):
            if replica and perturbation:
                rng = np.random.default_rng([seed, replica, number])
                data = data * (1.0 + perturbation * rng.standard_normal(data.shape[0]))
            if poly2_base is not None:
                indptr, indices, data = poly2_expand(indptr, indices, data, poly2_base)
            if buckets is not None:
                buckets.scatter(labels, indptr, indices, data)
                continue
            cutter.add(labels, indptr, indices, data)
            if progress is not None and cutter.written:
                cutter.written = False
                progress(f"replica {replica + 1}/{replicas}: {writer.n_samples} rows, "
                         f"{writer.offset / 2**30:.2f} GB on disk, "
                         f"{time.perf_counter() - start:.0f} s")


def _chunks(inputs, chunk_bytes):
    """(chunk number, labels, indptr, indices int32, data) of whole-line chunks."""
    from ..data._svmlight_jit import parse_svmlight

    number = 0
    for path in inputs:
        if not os.path.isfile(path):
            raise DataError(f"{path}: no such file")
        first_line = 1
        with open_data(path) as f:
            while True:
                try:
                    lines = f.readlines(chunk_bytes)
                except (EOFError, OSError, zlib.error) as e:
                    raise DataError(f"{path}: truncated or corrupt compressed file "
                                    f"({one_line(e)})") from None
                if not lines:
                    break
                text = b"".join(lines)
                try:
                    parsed = parse_svmlight(text)
                except ValueError:  # a token the grammar accepts that float() does not
                    parsed = None
                if not isinstance(parsed, tuple):
                    problem = diagnose(text, parsed)
                    line, _, what = problem.partition(": ") if problem.startswith("line ") else ("", "", problem)
                    at = f"line {first_line - 1 + int(line[5:])}" if line else f"lines {first_line}-"
                    raise DataError(f"{path}: {at}: {what}")
                labels, indptr, indices, data, width = parsed
                if not (np.isfinite(labels).all() and np.isfinite(data).all()):
                    raise DataError(f"{path}: lines {first_line}-{first_line + len(lines) - 1}: "
                                    "contains NaN or infinity")
                yield number, labels, indptr, indices.astype(np.int32), data
                number += 1
                first_line += len(lines)


class _Buckets:
    """Temporary files that rows are scattered into at random, read back shuffled."""

    def __init__(self, directory, n_buckets, seed):
        import zstandard

        self.paths = [os.path.join(directory, f"bucket{k}.tmp") for k in range(n_buckets)]
        self.files = [open(p, "wb") for p in self.paths]
        self.rng = np.random.default_rng([seed, 2**32 - 1])
        self.compress = zstandard.ZstdCompressor(level=1).compress
        self.decompress = zstandard.ZstdDecompressor().decompress

    def scatter(self, labels, indptr, indices, data):
        bucket = self.rng.integers(len(self.files), size=len(labels))
        order = np.argsort(bucket, kind="stable")
        bounds = np.searchsorted(bucket[order], np.arange(len(self.files) + 1))
        for k in np.flatnonzero(np.diff(bounds)):
            rows = order[bounds[k]:bounds[k + 1]]
            piece = _take_rows(labels, indptr, indices, data, rows)
            raw = self.compress(encode_block(*piece))
            self.files[k].write(np.array([len(rows), len(piece[2]), len(raw)], dtype="<i8").tobytes())
            self.files[k].write(raw)

    def shuffled(self):
        """Each bucket's rows in a random order, bucket after bucket (files removed)."""
        for handle in self.files:
            handle.close()
        for path in self.paths:
            pieces = []
            with open(path, "rb") as f:
                while header := f.read(24):
                    n_rows, nnz, size = np.frombuffer(header, dtype="<i8").tolist()
                    payload = self.decompress(f.read(size), max_output_size=block_nbytes(n_rows, nnz))
                    block = decode_block(payload, 0, 0, n_rows, nnz, 2**31 - 1, path)
                    pieces.append((block.labels, block.indptr.astype(np.int64), block.indices, block.data))
            os.unlink(path)
            if pieces:
                labels, indptr, indices, data = _concatenate(pieces)
                yield _take_rows(labels, indptr, indices, data, self.rng.permutation(len(labels)))


def _take_rows(labels, indptr, indices, data, rows):
    """Rows ``rows`` of CSR pieces, as new pieces (indptr from 0)."""
    lengths = indptr[rows + 1] - indptr[rows]
    new_indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_indptr[1:])
    take = np.repeat(indptr[rows] - new_indptr[:-1], lengths) + np.arange(new_indptr[-1])
    return labels[rows], new_indptr, indices[take], data[take]


def _concatenate(pieces):
    """One CSR piece from several (each indptr from 0)."""
    labels = np.concatenate([p[0] for p in pieces])
    offsets = np.cumsum([0] + [p[1][-1] for p in pieces])
    indptr = np.concatenate([p[1][:-1] + o for p, o in zip(pieces, offsets)] + [offsets[-1:]])
    return (labels, indptr, np.concatenate([p[2] for p in pieces]),
            np.concatenate([p[3] for p in pieces]))


class _BlockCutter:
    """Collects rows and writes a block whenever about ``block_bytes`` are pending."""

    def __init__(self, writer, block_bytes):
        self.writer = writer
        self.block_bytes = block_bytes
        self.pending = []  # CSR pieces (labels, indptr, indices, data), indptr from 0
        self.pending_bytes = 0
        self.written = False

    def add(self, labels, indptr, indices, data):
        row_bytes = 12 + 12 * np.diff(indptr)
        start = 0
        n = len(labels)
        while start < n:
            # rows start..stop-1 fill the current block up to block_bytes (at least one row)
            room = self.block_bytes - self.pending_bytes
            cumulative = np.cumsum(row_bytes[start:])
            stop = start + max(int(np.searchsorted(cumulative, room, side="right")),
                               0 if self.pending else 1)
            if stop > start:
                a, b = indptr[start], indptr[stop]
                self.pending.append((labels[start:stop], indptr[start:stop + 1] - a,
                                     indices[a:b], data[a:b]))
                self.pending_bytes += int(row_bytes[start:stop].sum())
            start = stop
            if start < n or self.pending_bytes >= self.block_bytes:
                self.flush()

    def flush(self):
        if not self.pending:
            return
        labels, indptr, indices, data = _concatenate(self.pending)
        assert block_nbytes(len(labels), len(indices)) == self.pending_bytes + 4
        self.writer.write_block(labels, indptr, indices, data)
        self.pending = []
        self.pending_bytes = 0
        self.written = True


def poly2_width(d):
    """Columns of the degree-2 expansion of d columns."""
    return d + d * (d + 1) // 2


@njit(cache=True, nogil=True)
def poly2_expand(indptr, indices, data, d):
    """Degree-2 expansion of CSR rows (sorted indices in, sorted indices out)."""
    n = indptr.shape[0] - 1
    out_indptr = np.empty(n + 1, dtype=np.int64)
    out_indptr[0] = 0
    for i in range(n):
        k = indptr[i + 1] - indptr[i]
        out_indptr[i + 1] = out_indptr[i] + k + k * (k + 1) // 2
    nnz = out_indptr[n]
    out_indices = np.empty(nnz, dtype=np.int32)
    out_data = np.empty(nnz, dtype=np.float64)
    for i in range(n):
        at = out_indptr[i]
        lo, hi = indptr[i], indptr[i + 1]
        for p in range(lo, hi):
            out_indices[at] = indices[p]
            out_data[at] = data[p]
            at += 1
        for p in range(lo, hi):
            a = np.int64(indices[p])
            base = d + a * d - a * (a - 1) // 2 - a
            for q in range(p, hi):
                out_indices[at] = base + indices[q]
                out_data[at] = data[p] * data[q]
                at += 1
    return out_indptr, out_indices, out_data
