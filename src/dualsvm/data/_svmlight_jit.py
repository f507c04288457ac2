"""A compiled svmlight/LIBSVM text parser: bytes in, CSR arrays out.

Why not :func:`sklearn.datasets.load_svmlight_file`: importing anything from
scikit-learn is slow (it imports ``scipy.stats``): most of the command line's
start-up budget (measurements: benchmarks/results/design_measurements.md, section
scikit-learn import). This parser reads the same files into the same
matrix (``tests/test_io.py`` compares the two on every data set) and is as fast.

Grammar, one sample per line (LIBLINEAR's)::

    label [qid:N] index:value index:value ...  [# comment]

with 1-based, strictly increasing integer indices of at most 2**31 - 1 and at most
one ``qid:N`` (N a non-negative integer), right after the label (scikit-learn's reader accepts nothing else and
stores indices as C ints). Numbers are parsed exactly:
a decimal with at most 19 significant digits and a power of ten in [-22, 22]
is m * 10^e or m / 10^e with m < 2^53 and 10^e exact in binary64, a single
correctly rounded operation, so the result equals ``float(text)``; every other
number (more digits, larger exponents, ``inf``, ``nan``) is handed back to
Python's ``float``.
"""

import numpy as np
from numba import njit

from ..constants import MAX_INDEX

#: Parser outcomes (first element of ``_parse``'s result).
OK, BAD_LINE = 0, 1

_EXACT_POWERS = np.array([10.0**k for k in range(23)])
_MAX_EXACT_MANTISSA = 2**53


@njit(cache=True, nogil=True)
def _bounds(buf):
    """Upper bounds on the number of lines and of index:value pairs."""
    lines = 1
    pairs = 0
    for c in buf:
        if c == 10:  # \n
            lines += 1
        elif c == 58:  # :
            pairs += 1
    return lines, pairs


@njit(cache=True, nogil=True, inline="always")
def _is_space(c):
    return c == 32 or c == 9 or c == 13 or c == 11 or c == 12


@njit(cache=True, nogil=True, inline="always")
def _digits(buf, i, end, mantissa, digits, exponent, fraction):
    """Read the decimal digits from buf[i]: the first 19 significant ones into the
    mantissa; in the integer part each further digit multiplies by 10, in the
    fraction (``fraction``) each kept digit and each leading zero divides by 10.
    Returns (i, mantissa, digits, exponent, whether there was a digit)."""
    seen = False
    while i < end and 48 <= buf[i] <= 57:
        seen = True
        if digits > 0 or buf[i] != 48:
            digits += 1
            if digits <= 19:
                mantissa = mantissa * np.uint64(10) + np.uint64(buf[i] - 48)
                if fraction:
                    exponent -= 1
            elif not fraction:
                exponent += 1
        elif fraction:
            exponent -= 1
        i += 1
    return i, mantissa, digits, exponent, seen


@njit(cache=True, nogil=True)
def _number(buf, start, end):
    """(value, exact) for buf[start:end]; exact=False means: let Python parse it."""
    i = start
    negative = False
    if i < end and (buf[i] == 45 or buf[i] == 43):  # - +
        negative = buf[i] == 45
        i += 1
    i, mantissa, digits, exponent, seen_digit = _digits(buf, i, end, np.uint64(0), 0, 0, False)
    if i < end and buf[i] == 46:  # .
        i, mantissa, digits, exponent, seen_fraction = _digits(buf, i + 1, end, mantissa, digits,
                                                               exponent, True)
        seen_digit = seen_digit or seen_fraction
    if not seen_digit:
        return 0.0, False
    if i < end and (buf[i] == 101 or buf[i] == 69):  # e E
        i += 1
        exp_negative = False
        if i < end and (buf[i] == 45 or buf[i] == 43):
            exp_negative = buf[i] == 45
            i += 1
        if i == end:
            return 0.0, False
        written = 0
        while i < end and 48 <= buf[i] <= 57:
            if written < 100000:
                written = written * 10 + (buf[i] - 48)
            i += 1
        exponent += -written if exp_negative else written
    if i != end:
        return 0.0, False
    if digits > 19 or mantissa > np.uint64(_MAX_EXACT_MANTISSA) or not -22 <= exponent <= 22:
        if mantissa == 0 and digits == 0:
            return -0.0 if negative else 0.0, True
        return 0.0, False
    value = float(mantissa)
    if exponent >= 0:
        value *= _EXACT_POWERS[exponent]
    else:
        value /= _EXACT_POWERS[-exponent]
    return -value if negative else value, True


@njit(cache=True, nogil=True)
def _parse(buf, labels, indptr, indices, values, row_start, deferred_rows):
    """Fill CSR arrays from ``buf``.

    Returns (status, n_rows, nnz, n_deferred, line_number): on BAD_LINE, the
    1-based number of the first line that breaks the grammar. The first
    ``n_deferred`` entries of ``deferred_rows`` are the rows with a number left
    for Python (its slot holds NaN); ``row_start`` is where each row's line begins.
    """
    n = len(buf)
    pos = 0
    line = 0
    row = 0
    nnz = 0
    n_deferred = 0
    indptr[0] = 0
    while pos < n:
        line += 1
        line_end = pos
        while line_end < n and buf[line_end] != 10:
            line_end += 1
        content_end = pos
        while content_end < line_end and buf[content_end] != 35:  # '#'
            content_end += 1
        i = pos
        pos = line_end + 1
        # tokens of this line
        while i < content_end and _is_space(buf[i]):
            i += 1
        if i == content_end:
            continue  # blank or comment-only line
        row_start[row] = i
        start = i
        while i < content_end and not _is_space(buf[i]):
            i += 1
        label, exact = _number(buf, start, i)
        deferred = not exact
        labels[row] = label if exact else np.nan
        previous = 0
        first = True
        while True:
            while i < content_end and _is_space(buf[i]):
                i += 1
            if i == content_end:
                break
            start = i
            colon = -1
            while i < content_end and not _is_space(buf[i]):
                if buf[i] == 58 and colon < 0:
                    colon = i
                i += 1
            if colon < 0:
                return BAD_LINE, row, nnz, n_deferred, line
            if (colon - start == 3 and buf[start] == 113 and buf[start + 1] == 105
                    and buf[start + 2] == 100):  # qid:, allowed as the first token only
                if not first or i == colon + 1:
                    return BAD_LINE, row, nnz, n_deferred, line
                for k in range(colon + 1, i):  # qid:N, N an integer
                    if not 48 <= buf[k] <= 57:
                        return BAD_LINE, row, nnz, n_deferred, line
                first = False
                continue
            first = False
            index = 0
            if colon == start:
                return BAD_LINE, row, nnz, n_deferred, line
            for k in range(start, colon):
                c = buf[k]
                if not 48 <= c <= 57:
                    return BAD_LINE, row, nnz, n_deferred, line
                index = index * 10 + (c - 48)
                if index > MAX_INDEX:
                    return BAD_LINE, row, nnz, n_deferred, line
            if index <= previous:
                return BAD_LINE, row, nnz, n_deferred, line
            previous = index
            value, exact = _number(buf, colon + 1, i)
            deferred = deferred or not exact
            indices[nnz] = index - 1
            values[nnz] = value if exact else np.nan
            nnz += 1
        if deferred:
            deferred_rows[n_deferred] = row
            n_deferred += 1
        row += 1
        indptr[row] = nnz
    return OK, row, nnz, n_deferred, 0


def parse_svmlight(buf):
    """Parse svmlight text.

    Parameters
    ----------
    buf : bytes

    Returns
    -------
    (labels, indptr, indices, values, n_features) on success, or the 1-based
    number of the first malformed line (an int) otherwise. Values that are not
    numbers to ``float`` (in a line the grammar accepts) raise ValueError
    naming the text.
    """
    data = np.frombuffer(buf, dtype=np.uint8)
    max_rows, max_pairs = _bounds(data)
    labels = np.empty(max_rows)
    indptr = np.empty(max_rows + 1, dtype=np.int64)
    indices = np.empty(max_pairs, dtype=np.int64)
    values = np.empty(max_pairs)
    row_start = np.empty(max_rows, dtype=np.int64)
    deferred_rows = np.empty(max_rows, dtype=np.int64)
    status, n_rows, nnz, n_deferred, line = _parse(data, labels, indptr, indices, values,
                                                   row_start, deferred_rows)
    if status != OK:
        return line
    for row in deferred_rows[:n_deferred]:
        _parse_row_in_python(buf, row_start[row], row, labels, indptr, values)
    n_features = int(indices[:nnz].max()) + 1 if nnz else 0
    return labels[:n_rows], indptr[:n_rows + 1], indices[:nnz], values[:nnz], n_features


def _parse_row_in_python(buf, start, row, labels, indptr, values):
    end = buf.find(b"\n", start)
    tokens = buf[start:None if end < 0 else end].split(b"#", 1)[0].split()
    labels[row] = float(tokens[0])  # ValueError: not a number
    pairs = tokens[2:] if tokens[1:2] and tokens[1].startswith(b"qid:") else tokens[1:]
    values[indptr[row]:indptr[row + 1]] = [float(t.split(b":", 1)[1]) for t in pairs]
