"""Row access for compiled code: one source serves dense and CSR data.

A kernel receives ``rows``, either a C-contiguous 2-D float64 array or the CSR
triple ``(data, indices, indptr)`` built by :func:`kernel_rows`, and reads it only
through the functions below. Numba compiles one specialisation per layout, so
the hot loops are written once and neither layout is converted into the other.

``bias`` is the value of the augmented constant feature (LIBLINEAR's ``-B``),
kept implicit so the data are never copied: weight vectors then have one more
entry, ``w[n_features]``, and a bias of 0 switches it off.

Dense and CSR rows give bit-identical sums: both add the products in column
order (the zeros of a dense row add nothing).

Speed (dual coordinate descent visits rows in random order, so memory latency,
not arithmetic, sets its pace):

* ``kernel_rows`` stores CSR column indices as int32 (half the bytes of
  scikit-learn's int64) and row pointers as int64, so kernels see one CSR type.
* The helpers are inlined by LLVM (``forceinline``). Written as they are (no
  branch around a load in ``row_dot``), they leave no reference counting in the
  kernels' loops: Numba's refcount pruning gives up on some branchy shapes, and
  an atomic increment per row then costs more than the row.
* Positions are cast to unsigned integers, which spares each access Numba's
  negative-index wraparound.
* ``prefetch_row_start`` (where row i starts; CSR only), ``prefetch_row`` (its
  first cache lines) and ``prefetch`` (one entry of any array) let a kernel
  announce the rows it will visit a few steps ahead. They are hints only: they
  never fault, never change a result, and may touch any address.

Kernel columns (``column_dots``, ``entry_dot``, ``clear_dots``, ``row_square``,
``row_squares``, ``gram_entry``): a column j of a kernel matrix needs x_i'x_j for many
rows i. Dense rows: x_j is read in place and every entry is one dot product
(fastmath lets LLVM vectorise it; its sum order differs from a sequential one by
rounding only). CSR rows: all the dot products are accumulated at once through the
rows' copy by feature (CSC), touching only the rows that share a feature with x_j:
faster per column than one sparse dot per row on sparse rows (measurements:
benchmarks/results/design_measurements.md, section data/rows.py). The terms are
added in feature order, as a row-wise sparse dot adds them, so the sums are equal.
"""

import numpy as np
import scipy.sparse as sp
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic, overload

_INLINE = {"cache": True, "forceinline": True}
_LINE_BITS = 64 * 8  # a cache line
_PREFETCH_LINES = 4  # lines announced per row; longer rows stream on their own
#: How many steps ahead of its use a row is prefetched: a broad optimum, much further
#: ahead is slower (measurements: benchmarks/results/design_measurements.md, section
#: data/rows.py).
AHEAD = 4


def kernel_rows(X):
    """The ``rows`` argument of compiled kernels for X (no copy of the values).

    X is a C-contiguous 2-D float64 array, returned as is, or a CSR matrix with
    float64 data and sorted indices, returned as ``(data, indices, indptr)``
    with int32 column indices (when the columns fit) and int64 row pointers,
    converting only what is not already so.
    """
    if not sp.issparse(X):
        return X
    indices = X.indices
    if X.shape[1] <= np.iinfo(np.int32).max:
        indices = indices.astype(np.int32, copy=False)
    return X.data, indices, X.indptr.astype(np.int64, copy=False)


def row_dot(rows, i, w, bias):
    """Return x_i'w, with the augmented feature when bias != 0."""
    raise NotImplementedError("only callable from compiled code")


def row_axpy(rows, i, scale, w, bias):
    """w += scale * x_i, with the augmented feature when bias != 0."""
    raise NotImplementedError("only callable from compiled code")


def row_square_axpy(rows, i, scale, w, bias):
    """w += scale * x_i**2 (entrywise), with bias**2 for the augmented feature when
    bias != 0: a sum of squared entries without a squared copy of the rows."""
    raise NotImplementedError("only callable from compiled code")


def row_row_dot(rows, i, j, bias):
    """Return x_i'x_j (CSR column indices must be sorted)."""
    raise NotImplementedError("only callable from compiled code")


def pair_dots(rows, i, j, w, mark):
    """Return (x_i'w, x_j'w, x_i'x_j): the same sums as ``row_dot`` and
    ``row_row_dot``, bit for bit, in two passes over the rows instead of four.

    CSR: x_i is scattered into ``mark`` (float64 of n_features, zero on entry) and
    x_j gathers from it, instead of merging the two index lists (a mispredicted
    branch per entry). ``mark`` then holds x_i: clear it by ``row_axpy_unmark`` or
    ``row_unmark`` of row i. Dense rows leave ``mark`` alone.
    """
    raise NotImplementedError("only callable from compiled code")


def row_axpy_unmark(rows, i, scale, w, mark):
    """w += scale * x_i, and ``mark`` zero again where ``pair_dots`` put x_i."""
    raise NotImplementedError("only callable from compiled code")


def row_unmark(rows, i, mark):
    """``mark`` zero again where ``pair_dots`` put x_i."""
    raise NotImplementedError("only callable from compiled code")


def row_squared_norm(rows, i, bias):
    """Return x_i'x_i: ``row_row_dot(rows, i, i, bias)`` (the same sum, bit for bit)
    without its merge of the row with itself."""
    raise NotImplementedError("only callable from compiled code")


def prefetch_row_start(rows, i):
    """Announce that row i will be read soon: where it starts (CSR; no-op dense)."""
    raise NotImplementedError("only callable from compiled code")


def prefetch_row(rows, i):
    """Announce that the entries of row i will be read soon."""
    raise NotImplementedError("only callable from compiled code")


def prefetch_ahead(rows, index, s, end, per_row):
    """At step s of a pass over rows index[:end]: announce the entries of the row of
    step s + AHEAD, and where the row of step s + 2 AHEAD starts with its entries of
    the per-row arrays ``per_row`` (a tuple of 1-D arrays)."""
    raise NotImplementedError("only callable from compiled code")


@intrinsic
def prefetch(typingctx, array, i):
    """Announce that array.flat[i] will be read soon (a hint: no bounds check).

    A no-op unless the array is C-contiguous.
    """
    if not isinstance(array, types.Array) or not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        if signature.args[0].layout != "C":
            return context.get_dummy_value()
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        # i8*: llvm.prefetch.p0i8 with typed pointers, llvm.prefetch.p0 with opaque ones
        address = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fn = builder.module.declare_intrinsic(
            "llvm.prefetch", [address.type],
            ir.FunctionType(ir.VoidType(), [address.type, i32, i32, i32]))
        builder.call(fn, [address, i32(0), i32(3), i32(1)])  # read, keep in all caches, data
        return context.get_dummy_value()

    return types.void(array, i), codegen


def is_dense(rows):
    """Whether a ``rows`` type (at compile time) is the dense layout, not the CSR triple."""
    return isinstance(rows, types.Array)


@overload(row_dot, jit_options=_INLINE)
def _row_dot(rows, i, w, bias):
    if is_dense(rows):
        def dense(rows, i, w, bias):
            r = np.uint64(i)
            d = np.uint64(rows.shape[1])
            s = 0.0
            for k in range(d):
                s += rows[r, k] * w[k]
            b = bias * w[d] if bias != 0.0 else 0.0
            return s + b
        return dense

    def csr(rows, i, w, bias):
        data, indices, indptr = rows
        r = np.uint64(i)
        s = 0.0
        for k in range(np.uint64(indptr[r]), np.uint64(indptr[r + np.uint64(1)])):
            s += data[k] * w[np.uint64(indices[k])]
        b = bias * w[np.uint64(w.shape[0] - 1)] if bias != 0.0 else 0.0
        return s + b
    return csr


@overload(row_axpy, jit_options=_INLINE)
def _row_axpy(rows, i, scale, w, bias):
    if is_dense(rows):
        def dense(rows, i, scale, w, bias):
            r = np.uint64(i)
            d = np.uint64(rows.shape[1])
            for k in range(d):
                w[k] += scale * rows[r, k]
            if bias != 0.0:
                w[d] += scale * bias
        return dense

    def csr(rows, i, scale, w, bias):
        data, indices, indptr = rows
        r = np.uint64(i)
        for k in range(np.uint64(indptr[r]), np.uint64(indptr[r + np.uint64(1)])):
            w[np.uint64(indices[k])] += scale * data[k]
        if bias != 0.0:
            w[np.uint64(w.shape[0] - 1)] += scale * bias
    return csr


@overload(row_square_axpy, jit_options=_INLINE)
def _row_square_axpy(rows, i, scale, w, bias):
    if is_dense(rows):
        def dense(rows, i, scale, w, bias):
            r = np.uint64(i)
            d = np.uint64(rows.shape[1])
            for k in range(d):
                value = rows[r, k]
                w[k] += scale * value * value
            if bias != 0.0:
                w[d] += scale * bias * bias
        return dense

    def csr(rows, i, scale, w, bias):
        data, indices, indptr = rows
        r = np.uint64(i)
        for k in range(np.uint64(indptr[r]), np.uint64(indptr[r + np.uint64(1)])):
            w[np.uint64(indices[k])] += scale * data[k] * data[k]
        if bias != 0.0:
            w[np.uint64(w.shape[0] - 1)] += scale * bias * bias
    return csr


@overload(row_row_dot, jit_options=_INLINE)
def _row_row_dot(rows, i, j, bias):
    if is_dense(rows):
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


@overload(pair_dots, jit_options=_INLINE)
def _pair_dots(rows, i, j, w, mark):
    if is_dense(rows):
        def dense(rows, i, j, w, mark):
            return row_dot(rows, i, w, 0.0), row_dot(rows, j, w, 0.0), row_row_dot(rows, i, j, 0.0)
        return dense

    def csr(rows, i, j, w, mark):
        data, indices, indptr = rows
        r = np.uint64(i)
        gi = 0.0
        for k in range(np.uint64(indptr[r]), np.uint64(indptr[r + np.uint64(1)])):
            c = np.uint64(indices[k])
            gi += data[k] * w[c]
            mark[c] = data[k]
        r = np.uint64(j)
        gj = 0.0
        q = 0.0  # + 0.0 where x_i is 0: the merge's sum, bit for bit
        for k in range(np.uint64(indptr[r]), np.uint64(indptr[r + np.uint64(1)])):
            c = np.uint64(indices[k])
            gj += data[k] * w[c]
            q += mark[c] * data[k]
        return gi, gj, q
    return csr


@overload(row_axpy_unmark, jit_options=_INLINE)
def _row_axpy_unmark(rows, i, scale, w, mark):
    if is_dense(rows):
        return lambda rows, i, scale, w, mark: row_axpy(rows, i, scale, w, 0.0)

    def csr(rows, i, scale, w, mark):
        data, indices, indptr = rows
        r = np.uint64(i)
        for k in range(np.uint64(indptr[r]), np.uint64(indptr[r + np.uint64(1)])):
            c = np.uint64(indices[k])
            w[c] += scale * data[k]
            mark[c] = 0.0
    return csr


@overload(row_unmark, jit_options=_INLINE)
def _row_unmark(rows, i, mark):
    if is_dense(rows):
        return lambda rows, i, mark: None

    def csr(rows, i, mark):
        data, indices, indptr = rows
        r = np.uint64(i)
        for k in range(np.uint64(indptr[r]), np.uint64(indptr[r + np.uint64(1)])):
            mark[np.uint64(indices[k])] = 0.0
    return csr


@overload(row_squared_norm, jit_options=_INLINE)
def _row_squared_norm(rows, i, bias):
    if is_dense(rows):
        def dense(rows, i, bias):
            r = np.uint64(i)
            s = bias * bias
            for k in range(np.uint64(rows.shape[1])):
                s += rows[r, k] * rows[r, k]
            return s
        return dense

    def csr(rows, i, bias):
        data, indices, indptr = rows
        r = np.uint64(i)
        s = bias * bias
        for k in range(np.uint64(indptr[r]), np.uint64(indptr[r + np.uint64(1)])):
            s += data[k] * data[k]
        return s
    return csr


@overload(prefetch_row_start, jit_options=_INLINE)
def _prefetch_row_start(rows, i):
    if is_dense(rows):
        return lambda rows, i: None

    def csr(rows, i):
        prefetch(rows[2], np.uint64(i))
    return csr


@overload(prefetch_row, jit_options=_INLINE)
def _prefetch_row(rows, i):
    # The row's first _PREFETCH_LINES lines, clamped to its last entry (short
    # rows repeat a line rather than announce the next row); no branches.
    if is_dense(rows):
        step = _LINE_BITS // rows.dtype.bitwidth

        def dense(rows, i):
            d = rows.shape[1]
            start = np.int64(i) * d  # C order: row i starts at flat position i * d
            last = start + d - 1
            for line in range(_PREFETCH_LINES):
                prefetch(rows, min(start + line * step, last))
        return dense

    step = _LINE_BITS // max(rows[0].dtype.bitwidth, rows[1].dtype.bitwidth)

    def csr(rows, i):
        data, indices, indptr = rows
        r = np.uint64(i)
        start = indptr[r]
        last = indptr[r + np.uint64(1)] - 1
        for line in range(_PREFETCH_LINES):
            k = min(start + line * step, last)
            prefetch(data, k)
            prefetch(indices, k)
    return csr


@overload(prefetch_ahead, jit_options=_INLINE)
def _prefetch_ahead(rows, index, s, end, per_row):
    def ahead(rows, index, s, end, per_row):
        if s + 2 * AHEAD < end:
            j = np.uint64(index[s + 2 * AHEAD])
            prefetch_row_start(rows, j)
            for k in range(len(per_row)):
                prefetch(per_row[k], j)
        if s + AHEAD < end:
            prefetch_row(rows, np.uint64(index[s + AHEAD]))
    return ahead


@njit(cache=True, nogil=True)
def squared_norms(rows, n, bias):
    """||x_i||^2 for every row, the augmented feature included, in ``row_row_dot``'s
    sum order (the kernels' distances use :func:`row_squares`)."""
    out = np.empty(n)
    for i in range(n):
        out[i] = row_squared_norm(rows, i, bias)
    return out


# --- Kernel columns (module docstring) ---


def column_dots(rows, by_feature, j, work):
    """What entry_dot needs for column j: x_j (dense rows, a view) or, for CSR
    rows, every x_i'x_j accumulated into work (length n) through by_feature."""
    raise NotImplementedError("only callable from compiled code")


def entry_dot(rows, i, dots):
    """x_i'x_j from what column_dots returned."""
    raise NotImplementedError("only callable from compiled code")


def clear_dots(rows, by_feature, j, work):
    """Undo column_dots's accumulation (CSR), leaving work all zeros."""
    raise NotImplementedError("only callable from compiled code")


def row_square(rows, i, work):
    """||x_i||^2."""
    raise NotImplementedError("only callable from compiled code")


def gram_entry(rows, j, i):
    """K[j, i] of a precomputed kernel matrix (always dense)."""
    raise NotImplementedError("only callable from compiled code")


_COLUMN = {"cache": True, "inline": "always", "fastmath": {"reassoc", "contract", "nsz"}}


@overload(column_dots, jit_options=_COLUMN)
def _column_dots(rows, by_feature, j, work):
    if is_dense(rows):
        return lambda rows, by_feature, j, work: rows[j]

    def csr(rows, by_feature, j, work):
        data, indices, indptr = rows
        feature_data, feature_rows, feature_ptr = by_feature
        for p in range(indptr[j], indptr[j + 1]):
            f, value = indices[p], data[p]
            for q in range(feature_ptr[f], feature_ptr[f + 1]):
                work[feature_rows[q]] += feature_data[q] * value
        return work
    return csr


@overload(clear_dots, jit_options=_COLUMN)
def _clear_dots(rows, by_feature, j, work):
    if is_dense(rows):
        return lambda rows, by_feature, j, work: None

    def csr(rows, by_feature, j, work):
        data, indices, indptr = rows
        feature_data, feature_rows, feature_ptr = by_feature
        for p in range(indptr[j], indptr[j + 1]):
            f = indices[p]
            for q in range(feature_ptr[f], feature_ptr[f + 1]):
                work[feature_rows[q]] = 0.0
    return csr


@overload(entry_dot, jit_options=_COLUMN)
def _entry_dot(rows, i, dots):
    if is_dense(rows):
        def dense(rows, i, dots):
            s = 0.0
            for k in range(rows.shape[1]):
                s += rows[i, k] * dots[k]
            return s
        return dense
    return lambda rows, i, dots: dots[i]


@overload(row_square, jit_options=_COLUMN)
def _row_square_impl(rows, i, work):
    if is_dense(rows):
        return lambda rows, i, work: entry_dot(rows, i, rows[i])

    def csr(rows, i, work):
        data, indices, indptr = rows
        s = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            s += data[p] * data[p]
        return s
    return csr


@overload(gram_entry, jit_options=_COLUMN)
def _gram_entry_impl(rows, j, i):
    if is_dense(rows):
        return lambda rows, j, i: rows[j, i]
    return lambda rows, j, i: 0.0  # a precomputed kernel matrix is always dense


@njit(cache=True, nogil=True)
def row_squares(rows, n):
    """||x_i||^2 of the first n rows by :func:`row_square`: the kernels' own sum (in
    :func:`entry_dot`'s order), so that their distances ||x_i||^2 + ||x_j||^2 - 2 x_i'x_j
    vanish at i = j. :func:`squared_norms` sums in ``row_row_dot``'s order instead."""
    out = np.empty(n)
    work = np.zeros(0)
    for i in range(n):
        out[i] = row_square(rows, i, work)
    return out
