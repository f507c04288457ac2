"""Row access for compiled kernels: one kernel source serves dense and CSR data.

A kernel receives ``rows``, either a C-contiguous 2-D float64 array or the CSR
triple ``(data, indices, indptr)``, and reads it only through the functions
below. Numba compiles one specialisation per layout, so the hot loops are
written once and neither layout is converted into the other.

``bias`` is the value of the augmented constant feature (LIBLINEAR's ``-B``),
kept implicit so the data are never copied: weight vectors then have one more
entry, ``w[n_features]``, and a bias of 0 switches it off.
"""

import numpy as np
from numba import njit, types
from numba.extending import overload


def row_dot(rows, i, w, bias):
    """Return x_i'w, with the augmented feature when bias != 0."""
    raise NotImplementedError("only callable from compiled code")


def row_axpy(rows, i, scale, w, bias):
    """w += scale * x_i, with the augmented feature when bias != 0."""
    raise NotImplementedError("only callable from compiled code")


def row_row_dot(rows, i, j, bias):
    """Return x_i'x_j (CSR column indices must be sorted)."""
    raise NotImplementedError("only callable from compiled code")


def _is_dense(rows):
    return isinstance(rows, types.Array)


@overload(row_dot, jit_options={"cache": True})
def _row_dot(rows, i, w, bias):
    if _is_dense(rows):
        def dense(rows, i, w, bias):
            d = rows.shape[1]
            s = 0.0
            for k in range(d):
                s += rows[i, k] * w[k]
            if bias != 0.0:
                s += bias * w[d]
            return s
        return dense

    def csr(rows, i, w, bias):
        data, indices, indptr = rows
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * w[indices[k]]
        if bias != 0.0:
            s += bias * w[w.shape[0] - 1]
        return s
    return csr


@overload(row_axpy, jit_options={"cache": True})
def _row_axpy(rows, i, scale, w, bias):
    if _is_dense(rows):
        def dense(rows, i, scale, w, bias):
            d = rows.shape[1]
            for k in range(d):
                w[k] += scale * rows[i, k]
            if bias != 0.0:
                w[d] += scale * bias
        return dense

    def csr(rows, i, scale, w, bias):
        data, indices, indptr = rows
        for k in range(indptr[i], indptr[i + 1]):
            w[indices[k]] += scale * data[k]
        if bias != 0.0:
            w[w.shape[0] - 1] += scale * bias
    return csr


@overload(row_row_dot, jit_options={"cache": True})
def _row_row_dot(rows, i, j, bias):
    if _is_dense(rows):
        def dense(rows, i, j, bias):
            s = bias * bias
            for k in range(rows.shape[1]):
                s += rows[i, k] * rows[j, k]
            return s
        return dense

    def csr(rows, i, j, bias):
        data, indices, indptr = rows
        s = bias * bias
        a, a_end = indptr[i], indptr[i + 1]
        b, b_end = indptr[j], indptr[j + 1]
        while a < a_end and b < b_end:
            if indices[a] == indices[b]:
                s += data[a] * data[b]
                a += 1
                b += 1
            elif indices[a] < indices[b]:
                a += 1
            else:
                b += 1
        return s
    return csr


@njit(cache=True, nogil=True)
def squared_norms(rows, n, bias):
    """||x_i||^2 for every row, the augmented feature included."""
    out = np.empty(n)
    for i in range(n):
        out[i] = row_row_dot(rows, i, i, bias)
    return out
