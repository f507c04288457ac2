"""Kernel functions and the Q-column provider with its LRU cache."""

import numpy as np
import pytest
import scipy.sparse as sp
from numba import njit
from sklearn.metrics import pairwise
from sklearn.svm import SVC as SkSVC

from dualsvm.kernels import MIN_SLOTS, QMatrix, make_kernel
from dualsvm.kernels.qmatrix import dense_enough
from dualsvm.kernels.values import (PARAMS, KernelParams, kernel_from_dot, kernel_from_dots,
                                    kernel_values, powi)

KERNELS = [
    ("linear", {}, lambda X, Z: pairwise.linear_kernel(X, Z)),
    ("poly", {"gamma": 0.3, "degree": 3, "coef0": 1.5},
     lambda X, Z: pairwise.polynomial_kernel(X, Z, degree=3, gamma=0.3, coef0=1.5)),
    ("rbf", {"gamma": 0.3}, lambda X, Z: pairwise.rbf_kernel(X, Z, gamma=0.3)),
    ("sigmoid", {"gamma": 0.3, "coef0": -0.5},
     lambda X, Z: pairwise.sigmoid_kernel(X, Z, gamma=0.3, coef0=-0.5)),
]


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 9))
    X[rng.random(X.shape) < 0.6] = 0.0  # sparse enough to stay CSR
    y = np.where(rng.random(300) < 0.4, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("name,params,reference", KERNELS)
@pytest.mark.parametrize("sparse", [False, True])
def test_kernel_matrix_and_columns_match_sklearn(data, name, params, reference, sparse):
    X, y = data
    Xs = sp.csr_matrix(X) if sparse else X
    kernel = make_kernel(name, **params, X=Xs)
    expected = reference(X, X)
    np.testing.assert_allclose(kernel(Xs, Xs[:7]), expected[:, :7], rtol=1e-12, atol=1e-12)
    q = QMatrix(Xs, y, kernel, cache_size=1)
    Q = expected * np.outer(y, y)
    np.testing.assert_allclose(q.diag, np.diag(Q), rtol=1e-12)
    for j in (0, 5, 299):  # compiled columns are stored as float32, as LIBSVM's
        np.testing.assert_allclose(q.column(j), Q[:, j], rtol=1e-6, atol=1e-6)
    rows = np.random.default_rng(1).permutation(300)[:200]  # gathered in several pieces
    for r in ([3, 1], rows):
        np.testing.assert_allclose(q.block(r, [2, 8, 9]), Q[np.ix_(r, [2, 8, 9])],
                                   rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(q.matrix(), Q, rtol=1e-12, atol=1e-12)


@njit
def _values(params, sq_i, sq_cols, out):  # the compiled-only kernel functions, from here
    kernel_values(params, sq_i, sq_cols, out)


@njit
def _from_dot(params, dot, sq_i, sq_j):
    return kernel_from_dot(params, dot, sq_i, sq_j)


@pytest.mark.parametrize("name,params,reference", KERNELS)
def test_the_three_shapes_of_kernel_values_agree(data, name, params, reference):
    # kernels/values.py: one value, a row in place (vectorised) and a NumPy block give
    # the same values from the same dot products and squared norms
    X, _ = data
    kernel = make_kernel(name, **params, X=X)
    assert type(kernel.params) is PARAMS[kernel.code] and isinstance(kernel.params, KernelParams)
    expected = reference(X[:20], X)
    dots, sq = X[:20] @ X.T, np.einsum("ij,ij->i", X, X)
    block = kernel_from_dots(kernel, dots.copy(), sq[:20], sq)
    np.testing.assert_allclose(block, expected, rtol=1e-12, atol=1e-12)
    for i in (0, 7, 19):
        row = dots[i].copy()
        _values(kernel.params, sq[i], sq, row)
        np.testing.assert_allclose(row, expected[i], rtol=1e-13, atol=1e-15)
        single = [_from_dot(kernel.params, dots[i, j], sq[i], sq[j]) for j in (0, 3, 299)]
        np.testing.assert_allclose(single, expected[i, [0, 3, 299]], rtol=1e-13, atol=1e-15)
    assert powi(1.5, 0) == 1.0 and powi(-2.0, 5) == -32.0 and powi(1.1, 3) == 1.1 * 1.1 * 1.1


def test_dense_and_sparse_columns_agree(data):
    X, y = data
    kernel = make_kernel("rbf", gamma=0.2)
    dense, csr = QMatrix(X, y, kernel), QMatrix(sp.csr_matrix(X), y, kernel)
    assert isinstance(csr.rows, tuple) and not isinstance(dense.rows, tuple)
    for j in (0, 17, 123):
        np.testing.assert_allclose(dense.column(j), csr.column(j), rtol=1e-6, atol=1e-7)


def test_dense_enough_csr_is_densified():
    X = sp.csr_matrix(np.arange(1.0, 13.0).reshape(4, 3))
    assert dense_enough(X)
    q = QMatrix(X, np.ones(4), make_kernel("linear"))
    assert not isinstance(q.rows, tuple)
    assert not dense_enough(sp.csr_matrix(np.eye(10)))


def test_precomputed_columns(data):
    X, y = data
    K = pairwise.rbf_kernel(X, gamma=0.1)
    q = QMatrix(K, y, make_kernel("precomputed"))
    np.testing.assert_allclose(q.column(4), (K * np.outer(y, y))[:, 4], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(q.diag, np.ones(len(y)))


@pytest.mark.parametrize("gamma", ["scale", "auto"])
@pytest.mark.parametrize("sparse", [False, True])
def test_gamma_scale_and_auto_as_sklearn(data, gamma, sparse):
    X, y = data
    Xs = sp.csr_matrix(X) if sparse else X
    expected = SkSVC(gamma=gamma).fit(Xs, y)._gamma
    assert make_kernel("rbf", gamma=gamma, X=Xs).gamma == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("kwargs,message", [
    ({"kernel": "cubic"}, "kernel must be one of"),
    ({"gamma": 0.0}, "gamma must be"),
    ({"gamma": "big"}, "gamma must be"),
    ({"gamma": np.nan}, "gamma must be"),
    ({"degree": -1}, "degree must be"),
    ({"degree": 2.5}, "degree must be"),
    ({"coef0": np.inf}, "coef0 must be"),
])
def test_bad_kernel_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_kernel(**{"kernel": "rbf", **kwargs})


def test_cache_is_bounded_by_cache_size():
    n = 5000
    X = np.random.default_rng(1).standard_normal((n, 3))
    q = QMatrix(X, np.ones(n), make_kernel("rbf", gamma=1.0), cache_size=1)
    # float32 columns of length n in the 1 MB left after the BLAS block's sixteenth and
    # the rows by feature (8 n d bytes, kept when within half of it)
    assert q.block_bytes == 2**20 // 16
    assert q.points.shape == (3, n)
    assert q.n_slots == (2**20 - q.block_bytes - q.points.nbytes) // (4 * n)
    assert q.cache[0].nbytes + q.block_bytes + q.points.nbytes <= 2**20
    wide = QMatrix(np.zeros((n, 20)), np.ones(n), make_kernel("rbf", gamma=1.0), cache_size=1)
    assert wide.points.size == 0  # 800 KB: not kept
    assert wide.n_slots == (2**20 - wide.block_bytes) // (4 * n)
    for piece in q.column_chunks(np.arange(n), n):
        assert 8 * n * len(piece) <= q.block_bytes
    tiny = QMatrix(X, np.ones(n), make_kernel("rbf", gamma=1.0), cache_size=1e-6)
    assert tiny.n_slots == MIN_SLOTS
    small = QMatrix(X[:10], np.ones(10), make_kernel("rbf", gamma=1.0), cache_size=100)
    assert small.n_slots == 10  # never more slots than columns


def test_lru_eviction_hits_and_counters(data):
    X, y = data
    q = QMatrix(X, y, make_kernel("rbf", gamma=0.2), cache_size=1e-6)  # MIN_SLOTS columns
    slot_of = q.cache[1]
    for j in range(MIN_SLOTS):
        q.column(j)
    assert q.cache_misses == MIN_SLOTS and q.cache_hits == 0
    assert q.kernel_evaluations == MIN_SLOTS * len(y)
    q.column(0)  # a hit: column 0 becomes the most recently used
    assert q.cache_hits == 1 and q.kernel_evaluations == MIN_SLOTS * len(y)
    q.column(MIN_SLOTS)  # evicts the least recently used: column 1
    assert slot_of[1] == -1 and slot_of[0] >= 0 and slot_of[MIN_SLOTS] >= 0
    assert (slot_of >= 0).sum() == MIN_SLOTS


def test_partial_columns_and_generations(data):
    X, y = data
    q = QMatrix(X, y, make_kernel("rbf", gamma=0.2))
    full = q.column(3)
    q.cache[1][:] = -1  # forget everything
    q.cache[2][:] = -1
    active = np.arange(len(y))[::-1].copy()
    part = q.column_view(3, active, 50)  # valid at active[:50] only
    np.testing.assert_allclose(part[active[:50]], full[active[:50]], rtol=1e-7)
    evaluations = q.kernel_evaluations
    q.column_view(3, active, 20)  # a smaller active set: served by the cache
    assert q.kernel_evaluations == evaluations
    q.new_generation()  # the active set may grow: partial columns are recomputed
    q.column_view(3, active, 20)
    assert q.kernel_evaluations == evaluations + 20
    np.testing.assert_allclose(q.column(3), full)  # a complete column replaces it
    q.new_generation()
    hits = q.cache_hits
    q.column(3)  # complete columns survive generations
    assert q.cache_hits == hits + 1


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name,params,reference", KERNELS)
def test_complete_columns_equal_the_entries_computed_one_by_one(data, sparse, name, params,
                                                                 reference):
    # from a quarter of the rows a column is computed whole from the rows by feature
    # (and serves later, larger requests); below, entry by entry; without the rows by
    # feature (cache too small to keep them) always entry by entry: the same values
    X, y = data
    X = sp.csr_matrix(X) if sparse else X
    n = len(y)
    active = np.random.default_rng(4).permutation(n)
    kernel = make_kernel(name, **params)
    q = QMatrix(X, y, kernel)
    bare = QMatrix(X, y, kernel, cache_size=1e-3)
    assert q.points.shape == (9, n) and bare.points.size == 0
    m = n // 4
    whole = q.column_view(3, active, m)
    assert q.kernel_evaluations == n
    again = q.column_view(3, active, n)  # complete: a hit
    assert np.shares_memory(again, whole) and q.kernel_evaluations == n
    part = q.column_view(5, active, m - 1)
    assert q.kernel_evaluations == n + m - 1
    for j, column, size in ((3, whole, n), (5, part, m - 1)):
        one_by_one = bare.column_view(j, active, n)
        np.testing.assert_allclose(column[active[:size]], one_by_one[active[:size]],
                                   rtol=1e-6, atol=1e-7)
    Q = reference(X, X) * np.outer(y, y)
    np.testing.assert_allclose(whole, Q[:, 3], rtol=1e-6, atol=1e-6)


def test_batched_columns_fill_the_cache(data):
    X, y = data
    q = QMatrix(sp.csr_matrix(X), y, make_kernel("poly", gamma=0.5, coef0=1.0, degree=2))
    cols = q.columns([4, 9])
    hits = q.cache_hits
    np.testing.assert_allclose(q.column(9), cols[:, 1], rtol=1e-6, atol=1e-6)
    assert q.cache_hits == hits + 1


def test_matrix_refuses_above_memory_bound(data):
    X, y = data
    with pytest.raises(ValueError, match="needs .* MB"):
        QMatrix(X, y, make_kernel("rbf", gamma=1.0)).matrix(max_bytes=1000)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("name", ["rbf", "precomputed"])
def test_variables_over_rows_equal_the_stacked_matrix(data, sparse, name):
    # SVR's 2n variables served from n kernel columns (row_of) give the Q of the rows
    # stacked twice with the signs, through every access path, with n cached columns
    X, _ = data
    n = len(X)
    K = pairwise.rbf_kernel(X, X, gamma=0.3)
    rows = K if name == "precomputed" else (sp.csr_matrix(X) if sparse else X)
    kernel = make_kernel(name, gamma=0.3)
    signs = np.concatenate([np.ones(n), -np.ones(n)])
    row_of = np.concatenate([np.arange(n), np.arange(n)])
    q = QMatrix(rows, signs, kernel, cache_size=1, row_of=row_of)
    Q = np.block([[K, -K], [-K, K]])
    assert q.n == 2 * n and q.cache[0].shape[1] == n
    np.testing.assert_allclose(q.diag, np.diag(Q), rtol=1e-12)
    for j in (0, 5, n + 5, 2 * n - 1):
        np.testing.assert_allclose(q.column(j), Q[:, j], rtol=1e-6, atol=1e-6)
    # both signs of row 5 cost one kernel column
    assert q.kernel_evaluations == 3 * n
    cols = np.array([1, n + 1, 7, n + 9, 2 * n - 1])
    np.testing.assert_allclose(q.block([3, n + 4, 0], cols), Q[np.ix_([3, n + 4, 0], cols)],
                               rtol=1e-12, atol=1e-12)
    v = np.random.default_rng(2).random(len(cols))
    np.testing.assert_allclose(q.times(cols, v), Q[:, cols] @ v, rtol=1e-12, atol=1e-12)
    # rows: both signs of a row (3 and n + 3) cost its kernel entries once
    rows = np.array([n + 3, 3, 8, 2 * n - 1])
    before = q.kernel_evaluations
    np.testing.assert_allclose(q.times(cols, v, rows=rows), Q[np.ix_(rows, cols)] @ v,
                               rtol=1e-12, atol=1e-12)
    assert q.kernel_evaluations - before == 3 * 4  # 3 rows against 4 distinct columns
    np.testing.assert_array_equal(q.sharing_rows([n + 3, 8]), [3, 8, n + 3, n + 8])
    with pytest.raises(ValueError, match="row_of"):
        q.columns([0, 1])


@pytest.mark.parametrize("sparse", [False, True])
def test_linear_products_through_w_equal_the_kernel_matrix(data, sparse):
    # the linear kernel's Q v is X[rows] (X[cols]' v): no kernel value is formed (none
    # counted), the same product for few or most rows and columns, dense and CSR
    X, y = data
    rows_in = sp.csr_matrix(X) if sparse else X
    q = QMatrix(rows_in, y, make_kernel("linear"), cache_size=1)
    Q = y[:, None] * (X @ X.T) * y[None, :]
    rng = np.random.default_rng(3)
    for cols in (np.array([4, 17, 250]), np.arange(0, 300, 2)[:200]):
        v = rng.standard_normal(len(cols))
        for rows in (None, np.array([299, 0, 17]), np.arange(10, 290)):
            expected = Q[:, cols] @ v if rows is None else Q[np.ix_(rows, cols)] @ v
            np.testing.assert_allclose(q.times(cols, v, rows=rows), expected, rtol=1e-12,
                                       atol=1e-12)
    assert q.kernel_evaluations == 0


def test_variable_columns_on_a_shrunk_active_set(data):
    # a partial request fills the active entries only, and a later request for a
    # smaller active set (shrinking) is served by the same buffer
    X, _ = data
    n = len(X)
    K = pairwise.rbf_kernel(X, X, gamma=0.3)
    q = QMatrix(X, np.concatenate([np.ones(n), -np.ones(n)]), make_kernel("rbf", gamma=0.3),
                cache_size=1, row_of=np.concatenate([np.arange(n), np.arange(n)]))
    active = np.random.default_rng(3).permutation(2 * n)
    column = q.column_view(n + 2, active, 100)
    expected = -np.concatenate([K[:, 2], -K[:, 2]])
    np.testing.assert_allclose(column[active[:100]], expected[active[:100]], rtol=1e-6, atol=1e-6)
    hits = q.cache_hits
    again = q.column_view(n + 2, active, 50)
    assert again is column or np.shares_memory(again, column)
    assert q.cache_hits == hits + 1
