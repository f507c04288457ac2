"""The on-disk dataset: rows in compressed CSR blocks, with a JSON manifest.

A dataset is a directory holding two files::

    manifest.json   what is in the data and where each block lies
    blocks.bin      the compressed blocks, one after another

``manifest.json`` (format ``dualsvm-blocks``, version 1) is a JSON object with

* ``format``, ``format_version``, ``compression`` (``"zstd"`` or ``"zlib"``);
* ``n_samples``, ``n_features``, ``nnz`` (ints), ``labels`` (sorted distinct
  label values, floats) and ``label_counts`` (rows of each label);
* ``data_file`` (``"blocks.bin"``) and ``data_size`` (its length in bytes);
* ``blocks``: one object per block, in row order, with ``offset`` and ``size``
  (bytes in ``blocks.bin``), ``crc32`` (of the compressed bytes), ``first_row``,
  ``n_rows`` and ``nnz``;
* ``source``: how the data were made (input files, transform), for the record;
* ``checksum``: the CRC-32 of the manifest's other keys as canonical JSON (sorted
  keys, no white space), so that no edit or damage of the manifest goes unseen
  (a manifest without it, from an older dualsvm, is read unchecked). No other key
  is allowed.

A block decompresses to four little-endian arrays, back to back::

    labels   float64[n_rows]     the original label values
    indptr   int32[n_rows + 1]   row starts, indptr[0] = 0, indptr[-1] = nnz < 2**31
    indices  int32[nnz]          0-based column indices, sorted within a row
    data     float64[nnz]        the values

Reading a block checks, in this order, that the file holds its bytes, the
CRC-32 of the compressed bytes, that it decompresses to exactly the size its
shape implies, that the row pointers and column indices are consistent and that
its labels are among the manifest's; any failure is a :class:`~dualsvm.exceptions.DataError` naming the block and the file.

Compression: zstd level 1 by default: it decompresses faster than zlib with about
zlib-6's ratio (lz4 is about as fast but compresses worse), and it compresses much
faster than zlib-1, which matters when writing tens of GB (measurements:
benchmarks/results/design_measurements.md, section outofcore/format.py). Both zstd
and zlib release the GIL while they work, so a reader thread decompresses while a
trainer computes.

Writing is atomic: a dataset is written into a temporary sibling directory and
renamed into place only when complete, so an interrupted conversion never
leaves a directory that looks like a dataset.
"""

import contextlib
import json
import math
import os
import shutil
import tempfile
import threading
import zlib

import numpy as np
from numba import njit

from ..data.atomic_files import sigint_deferred
from ..exceptions import DataError

FORMAT_NAME = "dualsvm-blocks"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
DATA_FILE = "blocks.bin"
COMPRESSIONS = ("zstd", "zlib")
_MANIFEST_KEYS = {"format", "format_version", "compression", "n_samples", "n_features", "nnz",
                  "labels", "label_counts", "data_file", "data_size", "blocks", "source",
                  "checksum"}


def manifest_checksum(manifest):
    """CRC-32 of a manifest's keys other than ``checksum``, as canonical JSON."""
    body = {key: value for key, value in manifest.items() if key != "checksum"}
    return zlib.crc32(json.dumps(body, sort_keys=True, separators=(",", ":")).encode("utf-8"))


def _compressor(name, level=None):
    if name == "zstd":
        import zstandard

        return zstandard.ZstdCompressor(level=1 if level is None else level).compress
    if name == "zlib":
        return lambda raw: zlib.compress(raw, 1 if level is None else level)
    raise ValueError(f"compression must be one of {COMPRESSIONS}, got {name!r}")


def _decompressor(name):
    if name == "zstd":
        import zstandard

        decompressor = zstandard.ZstdDecompressor()
        # One object per thread: zstandard's decompressors are not thread-safe.
        return lambda raw, size: decompressor.decompress(raw, max_output_size=size)
    return lambda raw, size: zlib.decompress(raw, bufsize=max(size, 1))


def block_nbytes(n_rows, nnz):
    """Decompressed (and in-memory) size of a block of n_rows rows and nnz values."""
    return 8 * n_rows + 4 * (n_rows + 1) + 12 * nnz


def encode_block(labels, indptr, indices, data):
    """The uncompressed bytes of one block (see the module docstring)."""
    return b"".join([
        np.ascontiguousarray(labels, dtype="<f8").tobytes(),
        np.ascontiguousarray(indptr - indptr[0], dtype="<i4").tobytes(),
        np.ascontiguousarray(indices, dtype="<i4").tobytes(),
        np.ascontiguousarray(data, dtype="<f8").tobytes(),
    ])


class Block:
    """Rows ``first_row .. first_row + n_rows - 1`` of a dataset, as CSR arrays."""

    __slots__ = ("number", "first_row", "labels", "indptr", "indices", "data", "n_features")

    def __init__(self, number, first_row, labels, indptr, indices, data, n_features):
        self.number = number
        self.first_row = first_row
        self.labels = labels
        self.indptr = indptr
        self.indices = indices
        self.data = data
        self.n_features = n_features

    @property
    def n_rows(self):
        return self.labels.shape[0]

    @property
    def rows(self):
        """Slice of the dataset's rows this block holds."""
        return slice(self.first_row, self.first_row + self.n_rows)

    @property
    def nbytes(self):
        return block_nbytes(self.n_rows, self.indices.shape[0])

    def csr(self):
        """The block as a scipy CSR matrix (no copy of the values)."""
        import scipy.sparse as sp

        return sp.csr_matrix((self.data, self.indices, self.indptr),
                             shape=(self.n_rows, self.n_features), copy=False)


class DiskDataset:
    """A dataset written by :func:`dualsvm.outofcore.convert`, read block by block.

    Parameters
    ----------
    path : str or os.PathLike
        The dataset directory.

    Attributes
    ----------
    n_samples, n_features, nnz : int
    labels : ndarray
        The distinct label values, sorted.
    label_counts : ndarray of int
    n_blocks : int
    rows_read : int
        Rows read from disk so far by this object (all threads): divided by
        ``n_samples`` it counts passes over the data.

    Raises
    ------
    DataError
        No such directory, no manifest (an interrupted conversion), or a
        manifest that is not valid JSON of this format.
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        self.manifest = read_manifest(self.path)
        m = self.manifest
        self.n_samples = m["n_samples"]
        self.n_features = m["n_features"]
        self.nnz = m["nnz"]
        self.labels = np.asarray(m["labels"], dtype=np.float64)
        self.label_counts = np.asarray(m["label_counts"], dtype=np.int64)
        self.blocks = m["blocks"]
        self.n_blocks = len(self.blocks)
        self.compression = m["compression"]
        self.data_path = os.path.join(self.path, m["data_file"])
        self.rows_read = 0
        self._count_lock = threading.Lock()
        if not os.path.isfile(self.data_path):
            raise DataError(f"{self.data_path}: missing data file of dataset {self.path}")
        size = os.path.getsize(self.data_path)
        if size != m["data_size"]:
            raise DataError(f"{self.data_path}: truncated or extended data file "
                            f"({size} bytes, the manifest says {m['data_size']})")

    def __getstate__(self):  # sent to Dask workers: a lock does not travel
        state = dict(self.__dict__)
        del state["_count_lock"]
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._count_lock = threading.Lock()

    def __repr__(self):
        return (f"DiskDataset({self.path!r}: {self.n_samples} rows, {self.n_features} "
                f"features, {self.nnz} non-zeros in {self.n_blocks} blocks)")

    @property
    def shape(self):
        return (self.n_samples, self.n_features)

    @property
    def nbytes(self):
        """Size of the whole dataset in memory (CSR float64 + int32 + labels)."""
        return block_nbytes(self.n_samples, self.nnz)

    @property
    def max_block_nbytes(self):
        """In-memory size of the largest block."""
        return max(block_nbytes(b["n_rows"], b["nnz"]) for b in self.blocks)

    @property
    def disk_nbytes(self):
        return self.manifest["data_size"]

    def reader(self):
        """A function ``read(k) -> Block``; use one per thread."""
        decompress = _decompressor(self.compression)
        handle = open(self.data_path, "rb")
        # One buffer, grown as needed, for the compressed bytes of every block this
        # reader reads: a fresh one per block cost its pages' first touch each time.
        buffer = [memoryview(bytearray(0))]

        def read(k):
            entry = self.blocks[k]
            where = f"block {k} of {self.data_path}"
            if len(buffer[0]) < entry["size"]:
                buffer[0] = memoryview(bytearray(entry["size"]))
            raw = buffer[0][:entry["size"]]
            handle.seek(entry["offset"])
            got = handle.readinto(raw)
            if got != entry["size"]:
                raise DataError(f"{where}: truncated ({got} of {entry['size']} bytes)")
            if zlib.crc32(raw) != entry["crc32"]:
                raise DataError(f"{where}: corrupted (checksum mismatch)")
            n_rows, nnz = entry["n_rows"], entry["nnz"]
            expected = block_nbytes(n_rows, nnz)
            try:
                payload = decompress(raw, expected)
            except Exception as e:  # zlib.error, zstd.ZstdError: both mean a bad block
                raise DataError(f"{where}: corrupted ({' '.join(str(e).split())})") from None
            if len(payload) != expected:
                raise DataError(f"{where}: corrupted (decompressed to {len(payload)} bytes, "
                                f"expected {expected})")
            block = decode_block(payload, k, entry["first_row"], n_rows, nnz, self.n_features,
                                 where, self.labels)
            with self._count_lock:  # readers in several threads
                self.rows_read += n_rows
            return block

        read.close = handle.close
        return read

    def read_block(self, k):
        """Block k (checked); opens the file for this one call."""
        read = self.reader()
        try:
            return read(k)
        finally:
            read.close()

    def iter_blocks(self, order=None):
        """The blocks in ``order`` (default: file order), one at a time."""
        read = self.reader()
        try:
            for k in range(self.n_blocks) if order is None else order:
                yield read(k)
        finally:
            read.close()

    def load(self, dense=False):
        """The whole dataset in memory, to train in memory (e.g. a kernel ``SVC``).

        One pass over the blocks into arrays of the final size (the manifest gives
        n_samples and nnz), so the peak is the data plus one block.

        Parameters
        ----------
        dense : bool, default=False
            Return X as a dense C-ordered array (8 n_samples n_features bytes)
            rather than CSR (12 nnz + 8 n_samples bytes). Kernel training
            densifies CSR data that is half non-zero or more anyway
            (:func:`dualsvm.kernels.qmatrix.dense_enough`); loading it dense spares
            that copy.

        Returns
        -------
        X : scipy.sparse.csr_matrix or ndarray of shape (n_samples, n_features), float64
        y : ndarray of shape (n_samples,), float64
            The labels.
        """
        import scipy.sparse as sp

        n, d = self.n_samples, self.n_features
        y = np.empty(n)
        if dense:
            X = np.zeros((n, d))
        else:
            data, indices = np.empty(self.nnz), np.empty(self.nnz, dtype=np.int32)
            indptr = np.zeros(n + 1, dtype=np.int64)
        for block in self.iter_blocks():
            rows = block.rows
            y[rows] = block.labels
            if dense:
                X[rows] = block.csr().toarray()
                continue
            start = int(indptr[rows.start])
            end = start + len(block.data)
            data[start:end] = block.data
            indices[start:end] = block.indices
            indptr[rows.start + 1:rows.stop + 1] = start + block.indptr[1:]
        if not dense:
            X = sp.csr_matrix((data, indices, indptr), shape=(n, d))
        return X, y


def decode_block(payload, number, first_row, n_rows, nnz, n_features, where, known_labels=None):
    """The Block of one decompressed payload, its row pointers and columns checked,
    and its labels when ``known_labels`` (the manifest's) are given."""
    buffer = memoryview(payload)
    at = 0

    def take(dtype, count):
        nonlocal at
        array = np.frombuffer(buffer, dtype=dtype, count=count, offset=at)
        at += array.nbytes
        return array

    labels = take("<f8", n_rows)
    indptr = take("<i4", n_rows + 1)
    indices = take("<i4", nnz)
    data = take("<f8", nnz)
    check_labels = known_labels is not None
    flaw = _block_flaw(indptr, indices, n_features, labels, check_labels,
                       np.asarray(known_labels if check_labels else (), dtype=np.float64))
    if flaw == _BAD_POINTERS:
        raise DataError(f"{where}: corrupted (inconsistent row pointers)")
    if flaw == _BAD_COLUMN:
        raise DataError(f"{where}: corrupted (column index out of range)")
    if flaw == _BAD_LABEL:
        raise DataError(f"{where}: corrupted (a label not in the manifest's labels)")
    return Block(number, first_row, labels, indptr, indices, data, n_features)


_BAD_POINTERS, _BAD_COLUMN, _BAD_LABEL = 1, 2, 3


@njit(cache=True, nogil=True)
def _block_flaw(indptr, indices, n_features, labels, check_labels, known_labels):
    """0 for a consistent block, else the first flaw found: row pointers, a
    column, a label not in ``known_labels`` (with ``check_labels``).

    One compiled pass instead of NumPy's diff, min, max and isin, which cost a
    reader thread a large share of decompressing a block (measurements:
    benchmarks/results/design_measurements.md, section outofcore/format.py).
    """
    nnz = indices.shape[0]
    if indptr[0] != 0 or indptr[indptr.shape[0] - 1] != nnz:
        return _BAD_POINTERS
    for i in range(indptr.shape[0] - 1):
        if indptr[i + 1] < indptr[i]:
            return _BAD_POINTERS
    for k in range(nnz):
        if indices[k] < 0 or indices[k] >= n_features:
            return _BAD_COLUMN
    if check_labels:
        for i in range(labels.shape[0]):
            found = False
            for label in known_labels:
                if labels[i] == label:
                    found = True
                    break
            if not found:
                return _BAD_LABEL
    return 0


def read_manifest(path):
    """The manifest of the dataset at ``path``, checked; DataError otherwise."""
    if not os.path.isdir(path):
        raise DataError(f"{path}: no such dataset directory")
    where = os.path.join(path, MANIFEST)
    if not os.path.isfile(where):
        raise DataError(f"{path}: a directory without {MANIFEST}: not a dualsvm dataset "
                        "(or its conversion did not finish)")
    try:
        with open(where, "rb") as f:
            m = json.loads(f.read().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise DataError(f"{where}: corrupted manifest ({' '.join(str(e).split())})") from None
    bad = _manifest_problem(m)
    if not bad and "checksum" in m and m["checksum"] != manifest_checksum(m):
        bad = "checksum mismatch: damaged or edited"
    if bad:
        raise DataError(f"{where}: invalid manifest ({bad})")
    return m


def _manifest_problem(m):
    """What is wrong with a parsed manifest, or None."""
    if not isinstance(m, dict) or m.get("format") != FORMAT_NAME:
        return f"format is not {FORMAT_NAME!r}"
    unknown = sorted(set(m) - _MANIFEST_KEYS)
    if unknown:
        return f"unknown key {unknown[0]!r}"
    if m.get("format_version") != FORMAT_VERSION:
        return f"format_version {m.get('format_version')!r} is not {FORMAT_VERSION}"
    if m.get("compression") not in COMPRESSIONS:
        return f"unknown compression {m.get('compression')!r}"
    ints = ("n_samples", "n_features", "nnz", "data_size")
    for key in ints:
        if not isinstance(m.get(key), int) or m[key] < 0:
            return f"{key} must be a non-negative integer"
    if not isinstance(m.get("data_file"), str) or os.path.basename(m["data_file"]) != m["data_file"]:
        return "data_file must be a file name"
    labels, counts = m.get("labels"), m.get("label_counts")
    if not (isinstance(labels, list) and all(_is_number(v) for v in labels)
            and labels == sorted(set(labels))):
        return "labels must be sorted, distinct, finite numbers"
    if not (isinstance(counts, list) and all(isinstance(c, int) and c >= 0 for c in counts)
            and len(labels) == len(counts) and sum(counts) == m["n_samples"]):
        return "labels and label_counts disagree with n_samples"
    blocks = m.get("blocks")
    if not isinstance(blocks, list):
        return "blocks must be a list"
    row = offset = nnz = 0
    keys = ("offset", "size", "crc32", "first_row", "n_rows", "nnz")
    for k, b in enumerate(blocks):
        if not isinstance(b, dict) or not all(isinstance(b.get(key), int) for key in keys):
            return f"block {k} lacks one of {keys}"
        if b["first_row"] != row or b["offset"] != offset or b["n_rows"] < 0 or b["nnz"] < 0:
            return f"block {k} is out of sequence"
        row += b["n_rows"]
        offset += b["size"]
        nnz += b["nnz"]
    if row != m["n_samples"] or nnz != m["nnz"] or offset != m["data_size"]:
        return "blocks do not add up to n_samples, nnz and data_size"
    if "checksum" in m and not isinstance(m["checksum"], int):
        return "checksum must be an integer"
    return None


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class DatasetWriter:
    """Write a dataset block by block; the directory appears only on :meth:`close`.

    Use as a context manager: leaving it by an exception removes everything
    written, and ``path`` is untouched.
    """

    def __init__(self, path, n_features=None, compression="zstd", level=None, source=None):
        self.path = os.path.abspath(os.fspath(path))
        if os.path.exists(self.path) and not (os.path.isdir(self.path) and not os.listdir(self.path)):
            raise FileExistsError(f"{self.path}: exists and is not an empty directory")
        parent = os.path.dirname(self.path)
        os.makedirs(parent, exist_ok=True)
        self.compress = _compressor(compression, level)
        self.compression = compression
        self.n_features = n_features
        self.source = source or {}
        self.tmp = self.handle = None
        try:  # Ctrl-C here would leave the directory behind: no `with` owns it yet
            with sigint_deferred():
                self.tmp = tempfile.mkdtemp(prefix="." + os.path.basename(self.path) + ".",
                                            suffix=".partial", dir=parent)
            self.handle = open(os.path.join(self.tmp, DATA_FILE), "wb")
        except BaseException:
            self.abort()
            raise
        self.blocks = []
        self.n_samples = self.nnz = self.offset = 0
        self.width = 0
        self.label_counts = {}

    def write_block(self, labels, indptr, indices, data):
        """Append one block of rows (CSR pieces; indptr need not start at 0)."""
        n_rows = len(labels)
        nnz = int(indptr[-1] - indptr[0])
        if nnz >= 2**31:
            raise ValueError(f"a block holds at most 2**31 - 1 non-zeros, got {nnz}")
        raw = self.compress(encode_block(labels, indptr, indices, data))
        self.handle.write(raw)
        self.blocks.append({"offset": self.offset, "size": len(raw), "crc32": zlib.crc32(raw),
                            "first_row": self.n_samples, "n_rows": n_rows, "nnz": nnz})
        self.offset += len(raw)
        self.n_samples += n_rows
        self.nnz += nnz
        if nnz:
            self.width = max(self.width, int(indices[indptr[0]:indptr[-1]].max()) + 1)
        values, counts = np.unique(labels, return_counts=True)
        for v, c in zip(values.tolist(), counts.tolist()):
            self.label_counts[v] = self.label_counts.get(v, 0) + c

    def close(self):
        """Finish: write the manifest, then move the directory into place."""
        self.handle.flush()
        os.fsync(self.handle.fileno())
        self.handle.close()
        labels = sorted(self.label_counts)
        manifest = {
            "format": FORMAT_NAME, "format_version": FORMAT_VERSION,
            "compression": self.compression,
            "n_samples": self.n_samples,
            "n_features": max(self.width, self.n_features or 0, 1),  # as read_svmlight's
            "nnz": self.nnz,
            "labels": labels, "label_counts": [self.label_counts[v] for v in labels],
            "data_file": DATA_FILE, "data_size": self.offset,
            "blocks": self.blocks,
            "source": self.source,
        }
        manifest["checksum"] = manifest_checksum(manifest)
        with open(os.path.join(self.tmp, MANIFEST), "w", encoding="utf-8") as f:
            json.dump(manifest, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        if os.path.isdir(self.path):
            os.rmdir(self.path)  # empty (checked on entry)
        os.replace(self.tmp, self.path)
        return manifest

    def abort(self):
        if self.handle is not None:
            with contextlib.suppress(OSError):
                self.handle.close()
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            self.close()
        else:
            self.abort()
        return False
