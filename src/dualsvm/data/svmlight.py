"""svmlight/LIBSVM data files: the reader and its diagnosis of bad lines.

:func:`read_svmlight` reads LIBSVM/svmlight text (``label index:value ...``,
1-based increasing indices, ``#`` comments; ``.gz`` and ``.bz2`` are
decompressed by extension) with a compiled parser (:mod:`dualsvm.data._svmlight_jit`:
the matrices of :func:`sklearn.datasets.load_svmlight_file`, without the cost
of importing scikit-learn), returns CSR float64 with 32-bit indices, and turns
every failure into a :class:`~dualsvm.exceptions.DataError` naming the file, the
problem and, where it can, the line. :func:`open_data` and :func:`diagnose` serve
the out-of-core converter too; :func:`format_label` writes a label as LIBLINEAR does.
"""

import os
import zlib

import numpy as np

from ..constants import MAX_INDEX
from ..exceptions import DataError, one_line

__all__ = ["read_svmlight", "open_data", "diagnose", "with_width", "format_label", "short_repr"]


def read_svmlight(path, n_features=None, *, precomputed=False):
    """Read an svmlight/LIBSVM data file.

    Parameters
    ----------
    path : str or os.PathLike
        Text file, or ``.gz`` / ``.bz2`` compressed text. Indices start at 1.
    n_features : int or None, default=None
        Width of the returned matrix. Columns beyond it are dropped (LIBLINEAR
        ignores feature indices above the model's ``nr_feature``); a narrower
        file is padded with empty columns. None: the largest index in the file
        (1 when no line has a feature, as scikit-learn's reader).
    precomputed : bool, default=False
        LIBSVM's precomputed-kernel format: every line starts with ``0:i``, the
        1-based sample number, which is checked and dropped (column 1 is K(x, x_1)).

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features), float64
        With int32 indices when they fit.
    y : ndarray of shape (n_samples,), float64

    Raises
    ------
    DataError
        Missing file, directory, empty file, truncated or corrupt compressed
        file, binary content, malformed lines, NaN or infinite values.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise DataError(f"{path}: no such file")
    if os.path.isdir(path):
        raise DataError(f"{path}: is a directory, not a data file")
    if os.path.getsize(path) == 0:
        raise DataError(f"{path}: empty file")

    import scipy.sparse as sp

    from ._svmlight_jit import parse_svmlight  # compiles: imported when a file is read

    try:
        with open_data(path) as f:
            text = f.read()
    except (EOFError, zlib.error) as e:
        raise DataError(f"{path}: truncated or corrupt compressed file ({one_line(e)})") from None
    except OSError as e:
        if e.filename is None and path.endswith((".gz", ".bz2")):
            raise DataError(f"{path}: truncated or corrupt compressed file "
                            f"({one_line(e)})") from None
        raise DataError(f"{path}: cannot read ({e.strerror or one_line(e)})") from None
    if precomputed:
        text = _drop_sample_numbers(path, text)
    try:
        parsed = parse_svmlight(text)
    except ValueError:  # a token the grammar accepts that float() does not
        parsed = None
    if not isinstance(parsed, tuple):
        raise DataError(f"{path}: {diagnose(text, parsed)}")
    y, indptr, indices, values, width = parsed
    # at least one column, as scikit-learn's reader: a model of no feature cannot be saved
    X = sp.csr_matrix((values, indices, indptr), shape=(len(y), max(width, 1)))
    if X.shape[0] == 0:
        raise DataError(f"{path}: no data (only blank or comment lines)")
    if not np.isfinite(y).all():
        row = int(np.flatnonzero(~np.isfinite(y))[0])
        raise DataError(f"{path}: contains NaN or infinity (label of sample {row + 1})")
    if not np.isfinite(X.data).all():
        row = int(np.searchsorted(X.indptr, np.flatnonzero(~np.isfinite(X.data))[0], side="right")) - 1
        raise DataError(f"{path}: contains NaN or infinity (features of sample {row + 1})")
    if n_features is not None:
        X = with_width(X, int(n_features))
    return _int32_indices(X), y


def _drop_sample_numbers(path, text):
    """Remove the ``0:i`` tokens of a precomputed-kernel file, checking i = 1, 2, ..."""
    import re

    lines = [line for line in text.splitlines() if line.split(b"#", 1)[0].strip()]
    out = []
    for number, line in enumerate(lines, 1):
        match = re.match(rb"\s*(\S+)\s+0:(\S+)(.*)$", line, re.DOTALL)
        try:
            ok = match is not None and float(match.group(2)) == number
        except ValueError:
            ok = False
        if not ok:
            raise DataError(f"{path}: line {number}: a precomputed kernel file needs '0:{number}' "
                            "(the sample number) after the label")
        out.append(match.group(1) + match.group(3))
    return b"\n".join(out) + b"\n"


def with_width(X, n_features):
    import scipy.sparse as sp

    if X.shape[1] > n_features:
        return X[:, :n_features].tocsr()
    if X.shape[1] < n_features:
        return sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))
    return X


def _int32_indices(X):
    limit = np.iinfo(np.int32).max
    if X.indices.dtype != np.int32 and X.nnz < limit and X.shape[1] < limit:
        X.indices = X.indices.astype(np.int32)
        X.indptr = X.indptr.astype(np.int32)
    return X


def open_data(path):
    if path.endswith(".gz"):
        import gzip

        return gzip.open(path, "rb")
    if path.endswith(".bz2"):
        import bz2

        return bz2.BZ2File(path, "rb")
    return open(path, "rb")


def diagnose(text, line=None):
    """'line N: problem' for the first line LIBLINEAR's rules reject (or line ``line``)."""
    lines = text.split(b"\n")
    numbers = range(1, len(lines) + 1) if line is None else [line]
    for number in numbers:
        problem = _line_problem(lines[number - 1])
        if problem:
            return f"line {number}: {problem}"
    return f"line {line}: malformed svmlight/LIBSVM data" if line else "malformed svmlight/LIBSVM data"


def _line_problem(raw):
    if b"\0" in raw:
        return "binary data, not svmlight/LIBSVM text"
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text (a binary file?)"
    # bytes.split() splits at ASCII white space only, as the parser does (str.split()
    # would also split at Unicode separators such as U+001C and U+00A0)
    tokens = [t.decode("utf-8") for t in raw.split(b"#", 1)[0].split()]
    if not tokens:
        return None
    label = tokens[0]
    if not _is_number(label):
        return f"label {short_repr(label)} is not a number"
    previous = 0
    for position, token in enumerate(tokens[1:]):
        if token.startswith("qid:"):
            if position:
                return f"qid {short_repr(token)} must come right after the label"
            if not (token[4:].isascii() and token[4:].isdigit()):
                return f"qid {short_repr(token)} is not qid:N with N an integer"
            continue
        parts = token.split(":")
        if len(parts) != 2:
            return f"expected index:value, got {short_repr(token)}"
        index, value = parts
        if not (index.isascii() and index.isdigit()):
            return f"feature index {short_repr(index)} is not an integer"
        if len(index.lstrip("0")) > len(str(MAX_INDEX)):  # int() refuses 4300 digits
            return f"feature index {short_repr(index)} is above {MAX_INDEX} (2**31 - 1)"
        index = int(index)
        if index < 1:
            return f"feature index {index} (indices start at 1)"
        if index > MAX_INDEX:
            return f"feature index {index} is above {MAX_INDEX} (2**31 - 1)"
        if index <= previous:
            return f"feature indices must increase (index {index} after {previous})"
        previous = index
        if not _is_number(value):
            return f"feature value {short_repr(value)} is not a number"
    return None


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return "_" not in text


def short_repr(text, limit=30):
    """A token quoted and cut to ``limit`` characters, for messages."""
    return repr(text if len(text) <= limit else text[:limit] + "...")


def format_label(label):
    """A class label as LIBLINEAR prints it: integral numbers without '.0'."""
    if isinstance(label, (bool, np.bool_)):
        return str(label)
    if isinstance(label, (int, np.integer)):
        return str(int(label))
    if isinstance(label, (float, np.floating)):
        x = float(label)
        if x.is_integer() and abs(x) < 2.0**53:
            return str(int(x))
        return "%.17g" % x
    return str(label)
