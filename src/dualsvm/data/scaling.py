"""LIBSVM's svm-scale: feature ranges, their range files, and the scaled data lines.

Each feature (and, with ``y_range``, the label) is mapped linearly from its range
:math:`[m_j, M_j]` in the training data to ``[lower, upper]``:

.. math::

    x' = \\mathrm{lower} + (\\mathrm{upper} - \\mathrm{lower})\\,
         \\frac{x - m_j}{M_j - m_j},

with :math:`x = m_j` mapped to ``lower`` and :math:`x = M_j` to ``upper`` exactly, the
operations in svm-scale's order (the same doubles). The range of a feature counts the
zeros of the rows that do not list it. A feature with :math:`m_j = M_j` (single-valued in
the training data, or not in a range file) is scaled to 0, so it disappears from sparse
output; so does every feature of new data beyond the ranges. Values of new data outside
:math:`[m_j, M_j]` are extrapolated, not clipped.

Columns are 0-based: ``feature_min[j]`` is the range of feature ``j + 1`` of the file.
Range files are svm-scale's (``x``, ``lower upper``, ``index min max`` lines, and a
``y`` section before them with label scaling), numbers written ``%.17g`` as svm-scale
3.24 writes them, so that a range file saved by one tool is restored by the other.
"""

import io
import os
from dataclasses import dataclass

import numpy as np

from ..exceptions import DataError

__all__ = ["ScaleRanges", "compute_ranges", "apply_ranges", "differing_limits", "unseen_features",
           "read_range_file", "write_range_file", "write_scaled", "format_ranges"]

#: Rows formatted at a time by :func:`write_scaled` (bounds the memory of the text).
_ROWS_PER_CHUNK = 4096


@dataclass
class ScaleRanges:
    """Scaling parameters of svm-scale.

    Attributes
    ----------
    lower, upper : float
        The interval features are mapped to (``-l``, ``-u``).
    feature_min, feature_max : ndarray of shape (n_features,)
        The range of each feature in the training data; column ``j`` is feature
        ``j + 1``. ``feature_min[j] == feature_max[j]``: scaled to 0.
    y_lower, y_upper, y_min, y_max : float or None
        Label scaling (``-y``): ``[y_min, y_max]`` mapped to ``[y_lower, y_upper]``;
        all None without it.
    """

    lower: float
    upper: float
    feature_min: np.ndarray
    feature_max: np.ndarray
    y_lower: float = None
    y_upper: float = None
    y_min: float = None
    y_max: float = None

    @property
    def n_features(self):
        return len(self.feature_min)

    @property
    def scales_y(self):
        return self.y_lower is not None


def _check_limits(lower, upper, what):
    if not (np.isfinite(lower) and np.isfinite(upper) and upper > lower):
        raise ValueError(f"{what}: the upper limit must be above the lower one, got "
                         f"{lower!r} and {upper!r}")


def compute_ranges(X, y=None, *, lower=-1.0, upper=1.0, y_range=None):
    """The ranges svm-scale finds in training data.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Absent entries of a sparse matrix count as zeros.
    y : array-like of shape (n_samples,) or None
        Labels; needed with ``y_range``.
    lower, upper : float, default=-1, 1
        The interval features are mapped to (``upper > lower``).
    y_range : (float, float) or None
        ``(y_lower, y_upper)``: also scale the labels (svm-scale's ``-y``).

    Returns
    -------
    ScaleRanges
    """
    import scipy.sparse as sp

    _check_limits(lower, upper, "lower, upper")
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        if X.shape[0] == 0:
            raise ValueError("no samples to compute feature ranges from")
        feature_min = X.min(axis=0).toarray().ravel().astype(np.float64)
        feature_max = X.max(axis=0).toarray().ravel().astype(np.float64)
    else:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[0] == 0:
            raise ValueError(f"expected a 2-d array of at least one sample, got shape {X.shape}")
        feature_min, feature_max = X.min(axis=0), X.max(axis=0)
    if not (np.isfinite(feature_min).all() and np.isfinite(feature_max).all()):
        raise ValueError("X contains NaN or infinity")
    ranges = ScaleRanges(float(lower), float(upper), feature_min, feature_max)
    if y_range is not None:
        y_lower, y_upper = (float(v) for v in y_range)
        _check_limits(y_lower, y_upper, "y_range")
        if y is None:
            raise ValueError("y_range needs the labels y")
        y = np.asarray(y, dtype=np.float64)
        if not np.isfinite(y).all():
            raise ValueError("y contains NaN or infinity")
        ranges.y_lower, ranges.y_upper = y_lower, y_upper
        ranges.y_min, ranges.y_max = float(y.min()), float(y.max())
    return ranges


def _scale(values, low, high, lower, upper):
    """svm-scale's map of ``values`` from [low, high] to [lower, upper] (elementwise, in
    its order of operations; low == high nowhere)."""
    scaled = lower + (upper - lower) * (values - low) / (high - low)
    return np.where(values == low, lower, np.where(values == high, upper, scaled))


def apply_ranges(ranges, X, y=None):
    """Scale data as svm-scale does with these ranges.

    Parameters
    ----------
    ranges : ScaleRanges
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
        Any width: features beyond ``ranges.n_features`` are scaled to 0 (see
        :func:`unseen_features` for those svm-scale warns about).
    y : array-like of shape (n_samples,) or None
        Scaled when the ranges scale labels, else returned as floats.

    Returns
    -------
    X_scaled : CSR matrix (sparse X) or ndarray
        Of width the larger of X's and ``ranges.n_features``. A CSR result stores
        no zero: a feature whose zero maps to a nonzero value (``lower < 0`` for a
        feature of minimum 0) fills its column.
    y_scaled : ndarray or None
    """
    import scipy.sparse as sp

    width = max(X.shape[1], ranges.n_features)
    low = np.zeros(width)
    high = np.zeros(width)
    low[:ranges.n_features] = ranges.feature_min
    high[:ranges.n_features] = ranges.feature_max
    active = low != high
    # the image of 0 in each scaled column: where it is not 0, a sparse column fills
    zero_image = np.zeros(width)
    zero_image[active] = _scale(np.zeros(active.sum()), low[active], high[active],
                                ranges.lower, ranges.upper)
    if sp.issparse(X):
        X_scaled = _apply_sparse(sp.csr_matrix(X, dtype=np.float64), width, low, high,
                                 active, zero_image, ranges)
    else:
        X = np.asarray(X, dtype=np.float64)
        X_scaled = np.tile(zero_image, (X.shape[0], 1))
        columns = np.flatnonzero(active[:X.shape[1]])
        X_scaled[:, columns] = _scale(X[:, columns], low[columns], high[columns],
                                      ranges.lower, ranges.upper)
    if y is None:
        return X_scaled, None
    y = np.asarray(y, dtype=np.float64)
    if not ranges.scales_y:
        return X_scaled, y.copy()
    with np.errstate(divide="ignore", invalid="ignore"):  # y_min == y_max: as svm-scale
        return X_scaled, _scale(y, ranges.y_min, ranges.y_max, ranges.y_lower, ranges.y_upper)


def _apply_sparse(X, width, low, high, active, zero_image, ranges):
    import scipy.sparse as sp

    X = X.copy()
    X.sum_duplicates()
    n_rows = X.shape[0]
    rows = np.repeat(np.arange(n_rows), np.diff(X.indptr))
    columns = X.indices
    keep = active[columns]
    values = _scale(X.data[keep], low[columns[keep]], high[columns[keep]],
                    ranges.lower, ranges.upper)
    rows, columns = rows[keep], columns[keep]
    filled = np.flatnonzero(zero_image != 0)
    if len(filled):
        # a filled column holds the image of 0 in every row, but the stored entries' own
        block = np.tile(zero_image[filled], (n_rows, 1))
        position = np.full(width, -1)
        position[filled] = np.arange(len(filled))
        in_filled = position[columns] >= 0
        block[rows[in_filled], position[columns[in_filled]]] = values[in_filled]
        rows = np.concatenate([rows[~in_filled], np.repeat(np.arange(n_rows), len(filled))])
        columns = np.concatenate([columns[~in_filled], np.tile(filled, n_rows)])
        values = np.concatenate([values[~in_filled], block.ravel()])
    nonzero = values != 0
    X_scaled = sp.csr_matrix((values[nonzero], (rows[nonzero], columns[nonzero])),
                             shape=(n_rows, width))
    X_scaled.sort_indices()
    return X_scaled


def differing_limits(ranges, **given):
    """The limits given (``lower``, ``upper``, ``y_lower``, ``y_upper``; None: not
    given) that differ from those ``ranges`` hold, as (name, given, saved): scaling by
    a range file uses the file's limits, so a different one is the caller's error."""
    return [(name, value, getattr(ranges, name)) for name, value in given.items()
            if value is not None and value != getattr(ranges, name)]


def unseen_features(ranges, X):
    """1-based indices of the features that vary in ``X`` but have no range (svm-scale's
    "feature index i ... was not seen in the scaling factor file": they are scaled to 0).
    """
    import scipy.sparse as sp

    if X.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        varies = (X.max(axis=0) != X.min(axis=0)).toarray().ravel()
    else:
        X = np.asarray(X, dtype=np.float64)
        varies = X.max(axis=0) != X.min(axis=0)
    no_range = np.ones(X.shape[1], dtype=bool)
    known = min(X.shape[1], ranges.n_features)
    no_range[:known] = ranges.feature_min[:known] == ranges.feature_max[:known]
    return np.flatnonzero(varies & no_range) + 1


def format_ranges(ranges):
    """The text of a range file, as svm-scale 3.24 writes it (``%.17g``)."""
    out = io.StringIO()
    if ranges.scales_y:
        out.write("y\n%.17g %.17g\n%.17g %.17g\n" % (ranges.y_lower, ranges.y_upper,
                                                      ranges.y_min, ranges.y_max))
    out.write("x\n%.17g %.17g\n" % (ranges.lower, ranges.upper))
    for j in np.flatnonzero(ranges.feature_min != ranges.feature_max):
        out.write("%d %.17g %.17g\n" % (j + 1, ranges.feature_min[j], ranges.feature_max[j]))
    return out.getvalue()


def write_range_file(ranges, path):
    """Write ``ranges`` as svm-scale's range file (``-s``); atomically."""
    from .atomic_files import atomic_write

    text = format_ranges(ranges).encode("ascii")
    atomic_write(path, lambda f: f.write(text))


def read_range_file(path):
    """Read a range file of svm-scale (``-r``) or of :func:`write_range_file`.

    Raises
    ------
    DataError
        Missing or unreadable file, or text that is not a range file (naming the line).
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise DataError(f"{path}: is a directory, not a range file")
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise DataError(f"{path}: no such file") from None
    except OSError as e:
        raise DataError(f"{path}: cannot read ({e.strerror or e})") from None
    try:
        lines = raw.decode("ascii").split("\n")
    except UnicodeDecodeError:
        raise DataError(f"{path}: not a range file of svm-scale (binary or non-ASCII "
                        "content)") from None
    numbered = [(n, line.split()) for n, line in enumerate(lines, 1) if line.strip()]

    def bad(number, what):
        return DataError(f"{path}: line {number}: {what} (not a range file of svm-scale?)")

    def numbers(k, count, what):
        if k >= len(numbered):
            raise DataError(f"{path}: ends before {what} (not a range file of svm-scale?)")
        number, tokens = numbered[k]
        try:
            values = [float(t) for t in tokens]
        except ValueError:
            values = []
        if len(values) != count or not np.isfinite(values).all():
            raise bad(number, f"expected {what}, got {' '.join(tokens)!r}")
        return values

    k = 0
    y_part = None
    if numbered and numbered[0][1] == ["y"]:
        y_part = numbers(1, 2, "y_lower y_upper") + numbers(2, 2, "y_min y_max")
        k = 3
    if k >= len(numbered) or numbered[k][1] != ["x"]:
        where = numbered[k][0] if k < len(numbered) else len(lines)
        raise bad(where, "expected the line 'x'")
    lower, upper = numbers(k + 1, 2, "lower upper")
    if not upper > lower:
        raise bad(numbered[k + 1][0], f"upper {upper!r} is not above lower {lower!r}")
    indices, low, high = [], [], []
    for number, tokens in numbered[k + 2:]:
        try:
            index, fmin, fmax = int(tokens[0]), float(tokens[1]), float(tokens[2])
            ok = len(tokens) == 3 and np.isfinite([fmin, fmax]).all()
        except (ValueError, IndexError):
            ok = False
        if not ok:
            raise bad(number, f"expected 'index min max', got {' '.join(tokens)!r}")
        if index < 1 or (indices and index <= indices[-1]):
            raise bad(number, f"feature index {index} is below 1 or not above the one before")
        indices.append(index)
        low.append(fmin)
        high.append(fmax)
    n_features = indices[-1] if indices else 0
    feature_min = np.zeros(n_features)
    feature_max = np.zeros(n_features)
    feature_min[np.array(indices, dtype=np.int64) - 1] = low
    feature_max[np.array(indices, dtype=np.int64) - 1] = high
    ranges = ScaleRanges(lower, upper, feature_min, feature_max)
    if y_part is not None:
        ranges.y_lower, ranges.y_upper, ranges.y_min, ranges.y_max = y_part
    return ranges


def write_scaled(path_or_stream, X, y):
    """Write data lines as svm-scale prints them: the label ``%.17g``, then
    ``index:value`` (``%g``, 1-based) for every nonzero, each followed by a space.

    Parameters
    ----------
    path_or_stream : str, os.PathLike or text stream
    X : CSR matrix or ndarray of shape (n_samples, n_features)
        Zeros are not written.
    y : array-like of shape (n_samples,)
    """
    if isinstance(path_or_stream, (str, os.PathLike)):
        with open(path_or_stream, "w", encoding="ascii") as f:
            _write_lines(f, X, y)
    else:
        _write_lines(path_or_stream, X, y)


def _write_lines(stream, X, y):
    import scipy.sparse as sp

    X = sp.csr_matrix(X, dtype=np.float64)
    X.sum_duplicates()
    X.eliminate_zeros()
    X.sort_indices()
    y = np.asarray(y, dtype=np.float64)
    if len(y) != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {len(y)} labels")
    for start in range(0, X.shape[0], _ROWS_PER_CHUNK):
        block = X[start:start + _ROWS_PER_CHUNK]
        # each distinct (index, value) is formatted once: scaled columns take few values
        values, value_ids = np.unique(block.data, return_inverse=True)
        keys, key_ids = np.unique(block.indices.astype(np.int64) * len(values)
                                  + value_ids.ravel(), return_inverse=True)
        texts = np.array(["%d:%g " % (key // len(values) + 1, values[key % len(values)])
                          for key in keys.tolist()], dtype=object)[key_ids.ravel()]
        indptr = block.indptr
        stream.write("".join(
            "%.17g %s\n" % (label, "".join(texts[indptr[i]:indptr[i + 1]].tolist()))
            for i, label in enumerate(y[start:start + _ROWS_PER_CHUNK].tolist())))
