"""svmlight/LIBSVM data files: the reader and its diagnosis of bad lines.

:func:`read_svmlight` reads LIBSVM/svmlight text (``label index:value ...``,
1-based increasing indices, ``#`` comments; ``.gz`` and ``.bz2`` are
decompressed by extension) with a compiled parser (:mod:`dualsvm.data._svmlight_jit`:
the matrices of :func:`sklearn.datasets.load_svmlight_file`, without the cost
of importing scikit-learn), returns CSR float64 with 32-bit indices, and turns
every failure into a :class:`~dualsvm.exceptions.DataError` naming the file, the
problem and, where it can, the line. :func:`open_data` and :func:`diagnose` serve
the out-of-core converter too; :func:`line_problems`, the one check of a line behind
:func:`diagnose`, also serves ``dualsvm checkdata`` (in LIBSVM's grammar);
:func:`format_label` writes a label as LIBLINEAR does.
"""

import math
import os
import zlib

import numpy as np

from ..constants import MAX_INDEX
from ..exceptions import DataError, one_line

__all__ = ["read_svmlight", "open_data", "diagnose", "line_problems", "with_width", "format_label",
           "short_repr"]


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
        problems = line_problems(lines[number - 1])
        if problems:
            return f"line {number}: {problems[0]}"
    return f"line {line}: malformed svmlight/LIBSVM data" if line else "malformed svmlight/LIBSVM data"


def line_problems(raw, *, libsvm=False):
    """Every problem of one line of data, in order, at most one per token.

    Parameters
    ----------
    raw : bytes
        The line; with ``libsvm``, with its line end (``b"\\n"``) if it has one.
    libsvm : bool, default=False
        False: the readers' grammar (LIBLINEAR's and scikit-learn's): ``#`` comments,
        blank lines, ``qid:N`` after the label, indices from 1. True: LIBSVM's, as
        its checkdata.py checks it: no comments or qid, a line (the last one too)
        ends with a newline and has a label, a label may be comma-separated numbers
        (multi-label), index 0 is allowed (precomputed kernels), NaN and infinity
        are refused.

    Returns
    -------
    list of str
        Empty for a good line.
    """
    if b"\0" in raw:
        return ["binary data, not svmlight/LIBSVM text"]
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return ["not UTF-8 text (a binary file?)"]
    problems = []
    if libsvm and not raw.endswith(b"\n"):
        problems.append("no newline at the end of the line (the file's last line)")
    # bytes.split() splits at ASCII white space only, as the parser does (str.split()
    # would also split at Unicode separators such as U+001C and U+00A0)
    tokens = [t.decode("utf-8") for t in (raw if libsvm else raw.split(b"#", 1)[0]).split()]
    if not tokens:
        return problems + ["no label (an empty line?)"] if libsvm else problems
    label = tokens[0]
    if libsvm and "," in label:
        if any(_number_problem(part, libsvm) for part in label.split(",")):
            problems.append(f"label {short_repr(label)} is not a comma-separated list of "
                            "finite numbers (multi-label)")
    elif _number_problem(label, libsvm):
        problems.append(f"label {short_repr(label)} {_number_problem(label, libsvm)}")
    first_index = 0 if libsvm else 1
    previous = first_index - 1
    for position, token in enumerate(tokens[1:]):
        if not libsvm and token.startswith("qid:"):
            if position:
                problems.append(f"qid {short_repr(token)} must come right after the label")
            elif not (token[4:].isascii() and token[4:].isdigit()):
                problems.append(f"qid {short_repr(token)} is not qid:N with N an integer")
            continue
        problem, index = _pair_problem(token, libsvm)
        if problem is None and index < first_index:
            problem = (f"feature index {index} is negative" if libsvm else
                       f"feature index {index} (indices start at 1)")
        elif problem is None and index <= previous:
            problem = (f"feature indices must increase (index {index} after {previous})"
                       if index < previous else f"feature index {index} appears twice")
        if index is not None:
            previous = index
        if problem:
            problems.append(problem)
    return problems


def _pair_problem(token, libsvm):
    """(problem or None, the index or None) of one ``index:value`` token."""
    parts = token.split(":")
    if len(parts) != 2:
        return f"expected index:value, got {short_repr(token)}", None
    index, value = parts
    digits = index[1:] if index.startswith("-") else index
    if not (digits.isascii() and digits.isdigit()):
        return f"feature index {short_repr(index)} is not an integer", None
    if len(digits.lstrip("0")) > len(str(MAX_INDEX)):  # int() refuses 4300 digits
        return f"feature index {short_repr(index)} is above {MAX_INDEX} (2**31 - 1)", None
    if _number_problem(value, libsvm):
        return f"feature value {short_repr(value)} {_number_problem(value, libsvm)}", None
    index = int(index)
    if index > MAX_INDEX:
        return f"feature index {index} is above {MAX_INDEX} (2**31 - 1)", None
    return None, index


def _number_problem(text, finite):
    """None for a number C's strtod reads whole (ASCII, no '_'; with ``finite``, not NaN
    or infinite), else what is wrong with it."""
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or "_" in text or not text.isascii():
        return "is not a number"
    if finite and not math.isfinite(value):
        return "is NaN or infinite"
    return None


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
