"""Row access for kernel columns, written once for dense rows and CSR triples.

x_j is scattered into a dense vector once per column (CSR) or read in place
(dense), then every entry is one gathered dot.
fastmath lets LLVM vectorise the dense dot (its sum order differs from a
sequential one by rounding only).
"""

from numba.extending import overload

from .._rows import _is_dense


def dense_row(rows, j, work):
    """x_j as a dense vector: a view (dense data) or scattered into work (CSR)."""
    raise NotImplementedError("only callable from compiled code")


def clear_row(rows, j, work):
    """Undo dense_row's scatter (CSR), leaving work all zeros."""
    raise NotImplementedError("only callable from compiled code")


def dot_dense(rows, i, v):
    """x_i'v for a dense vector v of length n_features."""
    raise NotImplementedError("only callable from compiled code")


def row_square(rows, i, work):
    """||x_i||^2."""
    raise NotImplementedError("only callable from compiled code")


def gram_entry(rows, j, i):
    """K[j, i] of a precomputed kernel matrix (always dense)."""
    raise NotImplementedError("only callable from compiled code")


_FAST = {"cache": True, "inline": "always", "fastmath": {"reassoc", "contract", "nsz"}}


@overload(dense_row, jit_options=_FAST)
def _dense_row(rows, j, work):
    if _is_dense(rows):
        return lambda rows, j, work: rows[j]

    def csr(rows, j, work):
        data, indices, indptr = rows
        for p in range(indptr[j], indptr[j + 1]):
            work[indices[p]] = data[p]
        return work
    return csr


@overload(clear_row, jit_options=_FAST)
def _clear_row(rows, j, work):
    if _is_dense(rows):
        return lambda rows, j, work: None

    def csr(rows, j, work):
        data, indices, indptr = rows
        for p in range(indptr[j], indptr[j + 1]):
            work[indices[p]] = 0.0
    return csr


@overload(dot_dense, jit_options=_FAST)
def _dot_dense(rows, i, v):
    if _is_dense(rows):
        def dense(rows, i, v):
            s = 0.0
            for k in range(rows.shape[1]):
                s += rows[i, k] * v[k]
            return s
        return dense


# Without fastmath: reassociation vectorises a CSR row's sum with gather
# instructions, which made a column about 1.15x slower than the scalar loop on
# short rows (a9a: 14 nonzeros a row, AMD EPYC).
@overload(dot_dense, jit_options={"cache": True, "inline": "always"})
def _dot_csr(rows, i, v):
    if not _is_dense(rows):
        def csr(rows, i, v):
            data, indices, indptr = rows
            s = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                s += data[p] * v[indices[p]]
            return s
        return csr


@overload(row_square, jit_options=_FAST)
def _row_square_impl(rows, i, work):
    if _is_dense(rows):
        def dense(rows, i, work):
            s = 0.0
            for k in range(rows.shape[1]):
                s += rows[i, k] * rows[i, k]
            return s
        return dense

    def csr(rows, i, work):
        data, indices, indptr = rows
        s = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            s += data[p] * data[p]
        return s
    return csr


@overload(gram_entry, jit_options=_FAST)
def _gram_entry_impl(rows, j, i):
    if _is_dense(rows):
        return lambda rows, j, i: rows[j, i]
    return lambda rows, j, i: 0.0  # a precomputed kernel matrix is always dense
