"""LowRankSVC: the Nystroem map against scikit-learn's and an explicit computation, the
linear problem on it against scikit-learn's LIBLINEAR, the exact SVC at a full basis,
dense == sparse, weights, one-vs-rest, model files, the scikit-learn export, refusals."""

import warnings

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse as sp
from sklearn import svm as sk
from sklearn.datasets import load_digits
from sklearn.kernel_approximation import Nystroem
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.utils._param_validation import InvalidParameterError

from conftest import bad_parameter
from dualsvm import SVC, LowRankSVC, cli, load_model, save_model
from dualsvm.exceptions import ModelError
from dualsvm.training.config import LinearTraining
from dualsvm.training.linear import auto_dual
from dualsvm.training.low_rank import linear_params

#: Every kernel with parameters that keep its values of order 1 on heart_scale.
KERNELS = [dict(kernel="linear"), dict(kernel="rbf", gamma=0.1),
           dict(kernel="poly", gamma=0.1, degree=3, coef0=1.0),
           dict(kernel="sigmoid", gamma=0.01, coef0=0.5)]


@pytest.fixture(scope="module")
def heart(load):
    """heart_scale (270 x 13, two classes) as dense float64 rows and labels."""
    X, y = load("heart_scale")
    return X.toarray(), y


def _kernel(X, Z, kernel, gamma=None, degree=3, coef0=0.0):
    """scikit-learn's kernel values (its own formulas, not dualsvm's)."""
    return pairwise_kernels(X, Z, metric=kernel, filter_params=True, gamma=gamma,
                            degree=degree, coef0=coef0)


def _phi(model, X, params):
    """The model's map phi(X) = K(X, components_) @ normalization_.T, from scikit-learn's
    kernel values."""
    Z = model.components_
    return _kernel(X, Z.toarray() if sp.issparse(Z) else Z, **params) @ model.normalization_.T


@pytest.mark.parametrize("params", KERNELS, ids=lambda p: p["kernel"])
def test_the_map_is_nystroem_of_the_positive_part(heart, params):
    X, y = heart
    model = LowRankSVC(n_components=60, loss="squared_hinge", random_state=0, **params).fit(X, y)
    # the basis is the one scikit-learn's Nystroem draws from the same random_state
    theirs = Nystroem(n_components=60, random_state=0, **params).fit(X)
    np.testing.assert_array_equal(model.component_indices_, theirs.component_indices_)
    np.testing.assert_array_equal(model.components_, theirs.components_)
    # phi phi' = K(X, Z) K_+(Z, Z)^+ K(Z, X), K_+ the part of K(Z, Z) of the eigenvalues kept
    K_xz, K_zz = _kernel(X, model.components_, **params), _kernel(model.components_,
                                                                   model.components_, **params)
    eigenvalues, eigenvectors = scipy.linalg.eigh(K_zz)
    kept = eigenvalues > 1e-10 * eigenvalues.max()
    assert model.n_components_ == kept.sum()
    if params["kernel"] == "linear":
        assert model.n_components_ == X.shape[1]  # rank 13 of 60 rows in 13 dimensions
    pinv = (eigenvectors[:, kept] / eigenvalues[kept]) @ eigenvectors[:, kept].T
    expected = K_xz @ pinv @ K_xz.T
    phi = _phi(model, X, params)
    scale = np.abs(expected).max()
    np.testing.assert_allclose(phi @ phi.T, expected, rtol=0, atol=1e-9 * scale)
    if params["kernel"] != "sigmoid":  # positive semi-definite: scikit-learn's map too
        phi_theirs = theirs.transform(X)
        np.testing.assert_allclose(phi @ phi.T, phi_theirs @ phi_theirs.T, rtol=0,
                                   atol=1e-8 * scale)
    else:  # not positive semi-definite: its negative eigenvalues are dropped
        assert (eigenvalues < 0).any() and not kept.all()
    # the model folded onto the basis: K(x, Z) @ dual_coef_.T = phi(x) @ coef_.T
    np.testing.assert_allclose(model.decision_function(X),
                               phi @ model.coef_[0] + model.intercept_[0], rtol=1e-10,
                               atol=1e-10)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_the_objective_is_liblinears_on_the_explicit_map(heart, loss):
    X, y = heart
    C = 2.0
    model = LowRankSVC(C=C, n_components=80, loss=loss, tol=1e-10, max_iter=100_000,
                       random_state=0).fit(X, y)
    assert model.status_ == ["converged"]
    assert 0 <= model.gap_[0] < 1e-8
    phi = _phi(model, X, dict(kernel="rbf", gamma=model.to_fit().kernel.gamma))
    theirs = sk.LinearSVC(C=C, loss=loss, dual=True, tol=1e-8, max_iter=100_000).fit(phi, y)
    signed = np.where(y == model.classes_[1], 1.0, -1.0)

    def primal(coef, intercept, rows=phi):
        # the augmented bias (intercept_scaling 1) is regularised with w
        margin = np.maximum(0.0, 1.0 - signed * (rows @ coef + intercept))
        losses = margin if loss == "hinge" else margin ** 2
        return 0.5 * (coef @ coef + intercept ** 2) + C * losses.sum()

    # the certificate is that of the problem trained: on phi stored as float32
    trained = phi.astype(np.float32).astype(np.float64)
    assert primal(model.coef_[0], model.intercept_[0], trained) == \
        pytest.approx(model.primal_[0], rel=1e-10)
    ours = primal(model.coef_[0], model.intercept_[0])
    assert ours == pytest.approx(primal(theirs.coef_[0], theirs.intercept_[0]), rel=1e-5)
    np.testing.assert_allclose(model.decision_function(X), theirs.decision_function(phi),
                               rtol=0, atol=1e-3)


def test_a_full_basis_of_rbf_is_the_exact_svc(heart):
    X, y = heart
    exact = SVC(C=1.0, gamma=0.1, tol=1e-6).fit(X, y)
    model = LowRankSVC(C=1.0, gamma=0.1, n_components=len(y), loss="hinge", intercept_mode="exact",
                       tol=1e-8, max_iter=100_000, random_state=0).fit(X, y)
    assert model.n_components_ == len(y)  # K of distinct rows: no eigenvalue dropped
    # phi phi' = K on the training rows: the same dual, objective and model
    assert model.primal_[0] == pytest.approx(exact.primal_[0], rel=1e-5)
    assert model.score(X, y) == exact.score(X, y)
    np.testing.assert_allclose(model.decision_function(X), exact.decision_function(X),
                               rtol=0, atol=1e-4)


@pytest.mark.parametrize("basis", ["uniform", "kmeans"])
def test_dense_and_sparse_data_give_the_same_model(heart, basis):
    X, y = heart
    options = dict(n_components=50, basis=basis, tol=1e-10, max_iter=100_000, random_state=0)
    dense = LowRankSVC(**options).fit(X, y)
    sparse = LowRankSVC(**options).fit(sp.csr_matrix(X), y)
    assert sp.issparse(sparse.components_) and not sp.issparse(dense.components_)
    np.testing.assert_allclose(sparse.components_.toarray(), dense.components_, atol=1e-14)
    np.testing.assert_allclose(sparse.decision_function(X), dense.decision_function(X),
                               rtol=1e-7, atol=1e-8)
    np.testing.assert_allclose(sparse.primal_, dense.primal_, rtol=1e-9)


def test_the_kmeans_basis_approximates_the_kernel_better_than_uniform_rows():
    X, y = load_digits(return_X_y=True)
    X = X[:600] / 16.0
    params = dict(kernel="rbf", gamma=0.02)
    K = _kernel(X, X, **params)
    errors = {}
    for basis in ("uniform", "kmeans"):
        model = LowRankSVC(n_components=40, basis=basis, loss="squared_hinge", random_state=0,
                           **params).fit(X, y[:600])
        assert model.components_.shape == (40, 64) and model.n_components_ == 40
        phi = _phi(model, X, params)
        errors[basis] = np.linalg.norm(K - phi @ phi.T)
    assert model.component_indices_ is None  # means, not training rows
    assert errors["kmeans"] < 0.8 * errors["uniform"]


def test_class_weight_is_a_sample_weight_of_the_class(heart):
    X, y = heart
    options = dict(n_components=40, tol=1e-10, max_iter=100_000, random_state=0)
    by_class = LowRankSVC(class_weight={1.0: 3.0}, **options).fit(X, y)
    by_sample = LowRankSVC(**options).fit(X, y, sample_weight=np.where(y == 1, 3.0, 1.0))
    plain = LowRankSVC(**options).fit(X, y)
    np.testing.assert_allclose(by_class.decision_function(X), by_sample.decision_function(X),
                               rtol=1e-10, atol=1e-10)
    assert np.abs(by_class.decision_function(X) - plain.decision_function(X)).max() > 1e-2
    # scaling every weight is scaling C
    doubled = LowRankSVC(C=2.0, **options).fit(X, y)
    weighted = LowRankSVC(**options).fit(X, y, sample_weight=np.full(len(y), 2.0))
    np.testing.assert_allclose(weighted.decision_function(X), doubled.decision_function(X),
                               rtol=1e-8, atol=1e-8)


def test_multi_class_is_one_vs_rest_of_binary_problems():
    X, y = load_digits(return_X_y=True)
    X, y = X[:500] / 16.0, y[:500]
    options = dict(n_components=100, gamma=0.02, tol=1e-8, max_iter=100_000, random_state=0)
    model = LowRankSVC(**options).fit(X, y)
    decision = model.decision_function(X)
    assert decision.shape == (500, 10) and model.coef_.shape == (10, model.n_components_)
    assert model.dual_coef_.shape == (10, 100) and len(model.gap_) == 10
    np.testing.assert_array_equal(model.predict(X), model.classes_[decision.argmax(axis=1)])
    assert model.score(X, y) > 0.95
    for k in (0, 7):  # each row of the model is the binary problem of its class, same basis
        binary = LowRankSVC(**options).fit(X, y == k)
        np.testing.assert_allclose(model.primal_[k], binary.primal_[0], rtol=1e-6)
        np.testing.assert_allclose(decision[:, k], binary.decision_function(X), atol=1e-4)


@pytest.mark.parametrize("basis, sparse", [("uniform", False), ("uniform", True),
                                           ("kmeans", False)])
def test_a_saved_model_predicts_the_same(heart, tmp_path, basis, sparse):
    X, y = heart
    X = sp.csr_matrix(X) if sparse else X
    model = LowRankSVC(kernel="poly", gamma=0.1, coef0=1.0, n_components=50, basis=basis,
                       loss="squared_hinge", random_state=0).fit(X, np.where(y > 0, "yes", "no"))
    save_model(model, tmp_path / "model.npz")
    loaded = load_model(tmp_path / "model.npz")
    assert type(loaded) is LowRankSVC and loaded.get_params() == model.get_params()
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    for name in ("primal_", "dual_", "gap_", "status_", "n_components_", "n_iter_"):
        np.testing.assert_array_equal(getattr(loaded, name), getattr(model, name))
    assert sp.issparse(loaded.components_) == sparse
    assert (loaded.component_indices_ is None) == (basis == "kmeans")


def test_a_damaged_model_file_is_refused(heart, tmp_path):
    X, y = heart
    model = LowRankSVC(n_components=20, random_state=0).fit(X, y)
    save_model(model, tmp_path / "model.npz")
    with np.load(tmp_path / "model.npz") as npz:
        entries = dict(npz)
    entries["normalization_"] = entries["normalization_"][:, :-1]
    np.savez(tmp_path / "bad.npz", **entries)
    with pytest.raises(ModelError, match="normalization_ must be finite float64"):
        load_model(tmp_path / "bad.npz")


def test_the_command_line_predicts_with_a_model_file_and_refuses_text_formats(heart, tmp_path,
                                                                             capsys, data_dir):
    X, y = heart
    model = LowRankSVC(n_components=30, loss="squared_hinge", random_state=0).fit(X, y)
    save_model(model, tmp_path / "model.npz")
    assert cli.main(["predict", "-q", str(data_dir / "heart_scale"), str(tmp_path / "model.npz"),
                     str(tmp_path / "predicted")]) == 0
    predicted = np.loadtxt(tmp_path / "predicted")
    np.testing.assert_array_equal(predicted, model.predict(X))
    for text_format in ("liblinear", "libsvm"):  # weights on phi are not a LIBLINEAR model
        assert cli.main(["export", str(tmp_path / "model.npz"), "--format", text_format,
                         str(tmp_path / "out")]) != 0
        assert "a low-rank model; only" in capsys.readouterr().err


@pytest.mark.parametrize("params", KERNELS, ids=lambda p: p["kernel"])
def test_the_sklearn_pipeline_predicts_the_same(heart, params):
    X, y = heart
    digits_X, digits_y = load_digits(return_X_y=True)
    for X_train, y_train in ((X, y), (digits_X[:300] / 16.0, digits_y[:300])):
        model = LowRankSVC(n_components=40, loss="squared_hinge", random_state=0,
                           **params).fit(X_train, y_train)
        pipeline = model.to_sklearn()
        assert [name for name, _ in pipeline.steps] == ["nystroem", "linearsvc"]
        ours = model.decision_function(X_train)
        np.testing.assert_allclose(pipeline.decision_function(X_train), ours, rtol=0,
                                   atol=1e-12 * np.abs(ours).max())
        np.testing.assert_array_equal(pipeline.predict(X_train), model.predict(X_train))


def test_bad_input_is_refused_with_a_clear_error(heart):
    X, y = heart
    with pytest.raises(InvalidParameterError, match=bad_parameter("LowRankSVC", "n_components", 0)):
        LowRankSVC(n_components=0).fit(X, y)
    with pytest.raises(InvalidParameterError, match=bad_parameter("LowRankSVC", "basis", "pca")):
        LowRankSVC(basis="pca").fit(X, y)
    with pytest.raises(InvalidParameterError,
                       match=bad_parameter("LowRankSVC", "kernel", "precomputed")):
        LowRankSVC(kernel="precomputed").fit(X, y)
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        LowRankSVC().fit(bad, y)
    with pytest.raises(ValueError, match="only one class"):
        LowRankSVC().fit(X, np.ones(len(y)))
    with pytest.raises(ValueError, match="same class"):
        LowRankSVC().fit(X, y, sample_weight=(y > 0).astype(float))
    # a basis larger than the data is every row, with scikit-learn's warning
    with pytest.warns(UserWarning, match="n_components=500 > n_samples=270"):
        model = LowRankSVC(n_components=500, random_state=0).fit(X, y)
    assert model.components_.shape == (270, 13)
    # a kernel that maps every basis row to 0
    with pytest.raises(ValueError, match="no positive eigenvalue"):
        LowRankSVC(kernel="linear", n_components=5).fit(np.zeros((10, 3)), np.arange(10) % 2)


@pytest.mark.parametrize("params", KERNELS, ids=lambda p: p["kernel"])
def test_the_onnx_graph_predicts_the_same(heart, params):
    onnxruntime = pytest.importorskip("onnxruntime")
    import dualsvm.onnx

    X, y = heart
    digits_X, digits_y = load_digits(return_X_y=True)
    for X_train, y_train in ((X, y), (digits_X[:300] / 16.0, digits_y[:300])):
        model = LowRankSVC(n_components=40, loss="squared_hinge", random_state=0,
                           **params).fit(X_train, y_train)
        graph = dualsvm.onnx.to_onnx(model, X_train)
        session = onnxruntime.InferenceSession(graph.SerializeToString())
        labels, decision = session.run(None, {session.get_inputs()[0].name: X_train})
        ours = model.decision_function(X_train)
        np.testing.assert_array_equal(labels, model.predict(X_train))
        np.testing.assert_allclose(decision.reshape(ours.shape), ours, rtol=0,
                                   atol=1e-10 * np.abs(ours).max())


def test_dual_auto_solves_the_same_problem_in_the_primal(heart):
    # phi of 270 rows and 40 columns: 'auto' takes LIBLINEAR's primal Newton method (no
    # dual variables), dual=True the coordinate descent; both to a tight tol
    X, y = heart
    common = dict(C=2.0, n_components=40, random_state=0, max_iter=100_000)
    primal = LowRankSVC(dual="auto", tol=1e-10, **common).fit(X, y)
    dual = LowRankSVC(dual=True, tol=1e-10, **common).fit(X, y)
    assert not auto_dual(LinearTraining.of(linear_params(primal.get_params())), (len(y), primal.n_components_))
    assert primal.primal_[0] == pytest.approx(dual.primal_[0], rel=1e-7)
    np.testing.assert_allclose(primal.coef_, dual.coef_, rtol=0, atol=1e-4)


@pytest.mark.parametrize("dual", ["auto", True])
def test_training_holds_phi_once_in_float32(dual):
    # the fit's NumPy memory: phi (4 n k bytes) and the map's tiles, no float64 copy of phi
    # (BLAS on float32 rows with float64 weights casts one) nor a squared copy (Newton's
    # Hessian diagonal)
    import tracemalloc

    from dualsvm.training.low_rank import map_tile_rows
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100_000, 5))  # phi: 76 MB, well above the map's tiles
    y = (X[:, 0] + 0.5 * rng.normal(size=len(X)) > 0).astype(int)
    model = LowRankSVC(n_components=200, gamma=0.5, dual=dual, max_iter=5, random_state=0)
    model.fit(X[:500], y[:500])  # compiled before the count
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # max_iter: the memory is the point here
            model.fit(X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    phi_bytes = 4 * len(X) * model.n_components_
    # a few n-vectors (0.8 MB each) beside: a copy of phi would add 80 to 160 MB
    assert peak < phi_bytes + 3 * 8 * map_tile_rows(model.n_components_) * 200 + 16 * 2**20
