"""Models that leave dualsvm: to_sklearn / from_sklearn, ONNX (dualsvm.onnx and skl2onnx),
and ``dualsvm export``.

Every exported model is run on held-out rows and compared with the dualsvm model it
came from: labels equal; decision values and probabilities to 1e-12 (scikit-learn),
1e-10 (a float64 ONNX graph) and 1e-5 (float32), relative to the largest value.
"""

import pickle
import warnings

import numpy as np
import onnxruntime
import pytest
import scipy.sparse as sp
import sklearn
import skl2onnx
from sklearn import svm as sk
from sklearn.datasets import load_diabetes, load_wine
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import dualsvm
import dualsvm.onnx
from dualsvm import cli
from dualsvm.exceptions import ModelError
from dualsvm.training.fitted import pair_coefficients

KERNELS = [dict(kernel="linear"), dict(kernel="poly", degree=3, coef0=1.0, gamma=0.05),
           dict(kernel="rbf"), dict(kernel="sigmoid", gamma=0.01, coef0=0.5)]


def _wine():
    """Wine (3 classes, 178 rows) in a shuffled order (the classes' first appearance is
    not their sorted order, as LIBSVM's model keeps them), standardized."""
    X, y = load_wine(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    X, y = X[order], y[order]
    return StandardScaler().fit_transform(X), y


X_WINE, Y_WINE = _wine()
TRAIN, TEST = slice(0, 120), slice(120, None)
Y_REGRESSION = load_diabetes(return_X_y=True)[1][:178] / 100.0


def _data(binary, sparse):
    """Training (X, y) and held-out X of wine; binary: classes 0 and 1 only."""
    X, y = X_WINE, Y_WINE
    if binary:
        X, y = X[y < 2], y[y < 2]
    n = int(0.7 * len(y))
    train, test = (sp.csr_matrix(X[:n]), sp.csr_matrix(X[n:])) if sparse else (X[:n], X[n:])
    return train, y[:n], test


def _close(ours, theirs, tolerance, scale=None):
    """|ours - theirs| <= tolerance * scale (default: max |ours|), shapes equal."""
    ours, theirs = np.asarray(ours, dtype=np.float64), np.asarray(theirs, dtype=np.float64)
    assert ours.shape == theirs.shape
    scale = np.max(np.abs(ours)) if scale is None else scale
    assert np.max(np.abs(ours - theirs)) <= tolerance * scale, \
        np.max(np.abs(ours - theirs)) / scale


def _case(make, name, sparse=False):
    return pytest.param(make, sparse, id=f"{name}{'-sparse' if sparse else ''}")


def _classifiers():
    """Every kernel with SVC and NuSVC, every other feature with one kernel; dense, and
    sparse for some."""
    cases = [_case(lambda k=k: dualsvm.SVC(**k), f"SVC-{k['kernel']}") for k in KERNELS]
    cases += [_case(lambda k=k: dualsvm.NuSVC(nu=0.3, **k), f"NuSVC-{k['kernel']}")
              for k in KERNELS]
    cases += [
        _case(lambda: dualsvm.SVC(kernel="rbf"), "SVC-rbf", sparse=True),
        _case(lambda: dualsvm.SVC(decision_function_shape="ovo", kernel="poly", degree=2),
              "SVC-ovo-poly"),
        _case(lambda: dualsvm.SVC(break_ties=True, C=0.1), "SVC-break_ties"),
        _case(lambda: dualsvm.SVC(loss="squared_hinge", kernel="sigmoid", gamma=0.01),
              "SVC-squared_hinge-sigmoid"),
        _case(lambda: dualsvm.SVC(probability=True, random_state=0), "SVC-probability"),
        _case(lambda: dualsvm.SVC(probability=True, random_state=0, kernel="linear"),
              "SVC-probability-linear", sparse=True),
        _case(lambda: dualsvm.NuSVC(nu=0.2, probability=True, random_state=0, **KERNELS[1]),
              "NuSVC-probability-poly"),
        _case(lambda: dualsvm.NuSVC(nu=0.3, kernel="rbf"), "NuSVC-rbf", sparse=True),
        _case(lambda: dualsvm.LinearSVC(), "LinearSVC"),
        _case(lambda: dualsvm.LinearSVC(), "LinearSVC", sparse=True),
        _case(lambda: dualsvm.LinearSVC(intercept_mode="exact", loss="hinge"), "LinearSVC-exact"),
        _case(lambda: dualsvm.LinearSVC(multi_class="crammer_singer"), "LinearSVC-crammer_singer"),
        _case(lambda: dualsvm.LinearSVC(penalty="l1", dual=False), "LinearSVC-l1"),
        _case(lambda: dualsvm.LinearSVC(fit_intercept=False, solver="pegasos", max_iter=20),
              "LinearSVC-pegasos-no-intercept"),
    ]
    return cases


def _others():
    cases = []
    for name, make in (("SVR", lambda k: dualsvm.SVR(**k)),
                       ("NuSVR", lambda k: dualsvm.NuSVR(nu=0.3, **k)),
                       ("OneClassSVM", lambda k: dualsvm.OneClassSVM(nu=0.2, **k))):
        cases += [_case(lambda k=k, make=make: make(k), f"{name}-{k['kernel']}") for k in KERNELS]
        cases.append(_case(lambda make=make: make(KERNELS[2]), f"{name}-rbf", sparse=True))
    return cases + [
        _case(lambda: dualsvm.LinearSVR(), "LinearSVR"),
        _case(lambda: dualsvm.LinearSVR(), "LinearSVR", sparse=True),
        _case(lambda: dualsvm.OneClassSVM(nu=0.2, probability=True), "OneClassSVM-b1"),
        _case(lambda: dualsvm.LinearOneClassSVM(nu=0.2), "LinearOneClassSVM"),
        _case(lambda: dualsvm.LinearOneClassSVM(nu=0.2), "LinearOneClassSVM", sparse=True),
    ]


def _fitted_classifier(make, binary, sparse):
    X, y, X_test = _data(binary, sparse)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ConvergenceWarning of the sigmoid kernel
        return make().fit(X, y), X_test


def _fitted_other(make, sparse):
    """A regression or one-class model fitted on wine, and held-out rows. A one-class
    model is fitted on the rows moved off the origin: on centered rows a linear one's
    w (a mean of support vectors) is about 0, its decision values only rounding."""
    model = make()
    shift = 1.0 if isinstance(model, (dualsvm.OneClassSVM, dualsvm.LinearOneClassSVM)) else 0.0
    X, X_test = X_WINE[TRAIN] + shift, X_WINE[TEST] + shift
    if sparse:
        X, X_test = sp.csr_matrix(X), sp.csr_matrix(X_test)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return model.fit(X, Y_REGRESSION[TRAIN]), X_test


def _scale(model, X):
    """The size of the terms a decision value sums, max over the rows of
    sum_t |coef_t K(x_t, x)| + |b|: its rounding error is relative to this, not to the
    value (a one-class decision f(x) - rho is much smaller than f(x) and rho)."""
    fit = model.to_fit()
    if hasattr(fit, "support_vectors_"):
        K = fit.kernel(X, fit.support_vectors_)
        coef = pair_coefficients(fit.dual_coef_, fit.n_support_) if fit.classifies \
            else fit.dual_coef_
    else:
        K, coef = X, np.atleast_2d(fit.coef_)
    K = K.toarray() if sp.issparse(K) else K
    intercept = getattr(fit, "intercept_", getattr(fit, "offset_", 0.0))
    return float(np.max(np.abs(K) @ np.abs(coef).T) + np.max(np.abs(intercept)))


def _near_ties(model, X, margin):
    """Rows whose label a rounding of ``margin`` may change: a one-vs-one or binary
    decision value within it of 0, or two largest one-vs-rest values within it."""
    fit = model.to_fit()
    values = fit.decision_ovo(X) if hasattr(fit, "decision_ovo") else \
        np.asarray(model.decision_function(X)).reshape(X.shape[0], -1)
    near = np.any(np.abs(values) < margin, axis=1)
    if values.shape[1] > 1 and not hasattr(fit, "decision_ovo"):
        top = np.sort(values, axis=1)
        near |= top[:, -1] - top[:, -2] < margin
    if getattr(model, "break_ties", False) and len(model.classes_) > 2:
        top = np.sort(model.decision_function(X), axis=1)
        near |= top[:, -1] - top[:, -2] < margin
    return near


def _labels_equal(model, X, labels, dtype):
    """Equal labels, except (float32) where rounding to float32 may flip them."""
    expected = model.predict(X)
    labels = np.asarray(labels).reshape(expected.shape)
    if dtype == np.float32:
        keep = ~_near_ties(model, X, TOLERANCE[dtype] * _scale(model, X))
        assert keep.mean() > 0.9  # the comparison still covers almost every row
        expected, labels = expected[keep], labels[keep]
    np.testing.assert_array_equal(labels, expected)


def _has_probabilities(model):
    return getattr(model, "probability", False) is True


# ------------------------------------------------------------------ to_sklearn


@pytest.mark.parametrize("binary", [False, True], ids=["3-class", "binary"])
@pytest.mark.parametrize("make, sparse", _classifiers())
def test_to_sklearn_classifiers_equal_ours(make, binary, sparse):
    model, X_test = _fitted_classifier(make, binary, sparse)
    probability = _has_probabilities(model) and not binary
    exported = model.to_sklearn(probability=probability)
    assert type(exported) is getattr(sk, type(model).__name__)
    np.testing.assert_array_equal(exported.predict(X_test), model.predict(X_test))
    _close(model.decision_function(X_test), exported.decision_function(X_test), 1e-12,
           _scale(model, X_test))
    if probability:
        _close(model.predict_proba(X_test), exported.predict_proba(X_test), 1e-12)
    else:  # none, or left out (two classes)
        assert not hasattr(exported, "predict_proba")


@pytest.mark.parametrize("make, sparse", _others())
def test_to_sklearn_regression_and_one_class_equal_ours(make, sparse):
    model, X_test = _fitted_other(make, sparse)
    if isinstance(model, dualsvm.LinearOneClassSVM):
        with pytest.raises(ModelError, match="SGDOneClassSVM"):
            model.to_sklearn()
        return
    if _has_probabilities(model):
        with pytest.raises(ModelError, match="no predict_proba"):
            model.to_sklearn()
    exported = model.to_sklearn(probability=False)
    assert type(exported) is getattr(sk, type(model).__name__)
    _close(model.predict(X_test), exported.predict(X_test), 1e-12)
    if hasattr(model, "decision_function"):
        _close(model.decision_function(X_test), exported.decision_function(X_test), 1e-12,
               _scale(model, X_test))
        _close(model.score_samples(X_test), exported.score_samples(X_test), 1e-12)


def test_to_sklearn_of_models_read_from_files(tmp_path, load):
    """LIBSVM's text model (classes in its order, -1/+1 as +1, -1) and a precomputed
    kernel: scikit-learn's predictions equal the loaded model's."""
    X, y = load("heart_scale")
    X_dense = X.toarray()
    model = dualsvm.SVC(kernel="poly", gamma=0.1).fit(X[:200], y[:200])
    dualsvm.export_libsvm(model, tmp_path / "m.txt")
    loaded = dualsvm.import_libsvm(tmp_path / "m.txt")
    exported = loaded.to_sklearn()
    _close(loaded.decision_function(X[200:]), exported.decision_function(X[200:]), 1e-12)
    np.testing.assert_array_equal(exported.predict(X[200:]), model.predict(X[200:]))
    gram = X_dense @ X_dense[:200].T
    model = dualsvm.SVC(kernel="precomputed").fit(gram[:200], y[:200])
    exported = model.to_sklearn()
    _close(model.decision_function(gram[200:]), exported.decision_function(gram[200:]), 1e-12)
    np.testing.assert_array_equal(exported.predict(gram[200:]), model.predict(gram[200:]))


def test_to_sklearn_refuses_what_scikit_learn_computes_otherwise(monkeypatch):
    X, y, _ = _data(binary=True, sparse=False)
    binary = dualsvm.SVC(probability=True, random_state=0).fit(X, y)
    with pytest.raises(ModelError, match="two-class probabilities"):
        binary.to_sklearn()
    exported = binary.to_sklearn(probability=False)
    assert not hasattr(exported, "predict_proba")
    np.testing.assert_array_equal(exported.predict(X), binary.predict(X))
    with pytest.raises(ModelError, match="callable kernel"):
        dualsvm.SVC(kernel=lambda A, B: A @ B.T).fit(X, y).to_sklearn()
    early = dualsvm.SVC().fit(X, y)
    early.early_stop_level = 1  # as SVC(solver='dc', early_stop_level=1) sets it (issue 28)
    with pytest.raises(ModelError, match="nearest cluster"):
        early.to_sklearn()
    with pytest.raises(ModelError, match="nearest cluster"):
        dualsvm.onnx.to_onnx(early, X[:1])
    with pytest.raises(NotFittedError):
        dualsvm.SVC().to_sklearn()
    model = dualsvm.SVC().fit(X, y)
    for version in ("1.5.2", "1.10.0"):
        monkeypatch.setattr(sklearn, "__version__", version)
        with pytest.raises(ModelError, match=f"scikit-learn {version} is not supported"):
            model.to_sklearn()


def test_to_sklearn_refuses_a_scikit_learn_that_computes_another_function(monkeypatch):
    """The check on the support vectors: a scikit-learn reading other attributes."""
    X, y, _ = _data(binary=False, sparse=False)
    model = dualsvm.SVC().fit(X, y)
    original = sk.SVC._dense_decision_function
    monkeypatch.setattr(sk.SVC, "_dense_decision_function",
                        lambda self, X: original(self, X) * 1.001)
    with pytest.raises(ModelError, match="differs from this model's"):
        model.to_sklearn()


# ------------------------------------------------------------------ from_sklearn


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("estimator", [
    sk.SVC(), sk.SVC(probability=True, random_state=0), sk.NuSVC(kernel="poly", nu=0.3),
    sk.SVC(kernel="linear", decision_function_shape="ovo"), sk.SVR(), sk.NuSVR(),
    sk.OneClassSVM(), sk.LinearSVC(), sk.LinearSVC(fit_intercept=False), sk.LinearSVR()],
    ids=lambda e: repr(e))
def test_from_sklearn_predicts_as_scikit_learn_and_goes_back(estimator, sparse):
    X, X_test = X_WINE[TRAIN], X_WINE[TEST]
    if sparse:
        X, X_test = sp.csr_matrix(X), sp.csr_matrix(X_test)
    y = Y_REGRESSION[TRAIN] if isinstance(estimator, (sk.SVR, sk.NuSVR, sk.LinearSVR)) \
        else Y_WINE[TRAIN]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn 1.9's deprecation of probability
        estimator.fit(X, y)
    model = dualsvm.from_sklearn(estimator)
    assert type(model) is getattr(dualsvm, type(estimator).__name__)
    _close(estimator.predict(X_test), model.predict(X_test), 1e-12)
    if hasattr(estimator, "decision_function"):
        _close(estimator.decision_function(X_test), model.decision_function(X_test), 1e-12)
    if getattr(estimator, "probability", False) is True:
        _close(estimator.predict_proba(X_test), model.predict_proba(X_test), 1e-12)
    back = model.to_sklearn()
    _close(estimator.predict(X_test), back.predict(X_test), 1e-12)


def test_from_sklearn_warm_starts_a_linear_model():
    """A LinearSVC continues from scikit-learn's w: Newton needs fewer iterations."""
    X, y = X_WINE, Y_WINE
    estimator = sk.LinearSVC(dual=False, C=10.0, tol=1e-8).fit(X, y)
    model = dualsvm.from_sklearn(estimator).set_params(warm_start=True)
    cold = dualsvm.LinearSVC(dual=False, C=10.0, tol=1e-8).fit(X, y)
    assert model.fit(X, y).n_iter_ < cold.n_iter_
    np.testing.assert_allclose(model.coef_, cold.coef_, rtol=1e-4, atol=1e-6)


def test_from_sklearn_refuses_other_estimators():
    X, y = X_WINE, Y_WINE
    with pytest.raises(ModelError, match="LogisticRegression"):
        dualsvm.from_sklearn(LogisticRegression().fit(X, y))
    with pytest.raises(ModelError, match="callable kernel"):
        dualsvm.from_sklearn(sk.SVC(kernel=lambda A, B: A @ B.T).fit(X, y))
    with pytest.raises(NotFittedError):
        dualsvm.from_sklearn(sk.SVC())


# ------------------------------------------------------------------ ONNX


def _run_onnx(model, X, dtype, options=None):
    onx = dualsvm.onnx.to_onnx(model, X[:1].astype(dtype) if not sp.issparse(X)
                               else X[:1].astype(dtype), options=options)
    session = onnxruntime.InferenceSession(onx.SerializeToString(),
                                           providers=["CPUExecutionProvider"])
    X = X.toarray() if sp.issparse(X) else X
    return session.run(None, {session.get_inputs()[0].name: X.astype(dtype)})


TOLERANCE = {np.float32: 1e-5, np.float64: 1e-10}


def _svc_decision(model, X):
    """What the second output holds without probabilities: skl2onnx's layout."""
    dec = model.decision_function(X)
    if isinstance(model, dualsvm.SVC) and dec.ndim == 1:
        return np.column_stack([-dec, dec])
    return dec.reshape(len(dec), -1)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("binary", [False, True], ids=["3-class", "binary"])
@pytest.mark.parametrize("make, sparse", _classifiers())
def test_onnx_classifiers_equal_ours(make, binary, sparse, dtype):
    model, X_test = _fitted_classifier(make, binary, sparse)
    labels, second = _run_onnx(model, X_test, dtype, options={id(model): {"zipmap": False}})
    _labels_equal(model, X_test, labels, dtype)
    if _has_probabilities(model):
        _close(model.predict_proba(X_test), second, TOLERANCE[dtype])
        _, second = _run_onnx(model, X_test, dtype,
                              options={id(model): {"zipmap": False, "raw_scores": True}})
    _close(_svc_decision(model, X_test), second, TOLERANCE[dtype], _scale(model, X_test))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("make, sparse", _others())
def test_onnx_regression_and_one_class_equal_ours(make, sparse, dtype):
    model, X_test = _fitted_other(make, sparse)
    outputs = _run_onnx(model, X_test, dtype)
    if not hasattr(model, "decision_function"):
        _close(model.predict(X_test), outputs[0].ravel(), TOLERANCE[dtype])
        return
    labels, scores = outputs[:2]
    _labels_equal(model, X_test, labels, dtype)
    _close(model.decision_function(X_test), scores.ravel(), TOLERANCE[dtype],
           _scale(model, X_test))
    assert len(outputs) == 2 + _has_probabilities(model)
    if _has_probabilities(model):
        _close(model.predict_proba(X_test), outputs[2], TOLERANCE[dtype])


def test_onnx_five_class_probabilities_string_labels_and_batches():
    """The coupling Loop over 5 classes; string labels; batches of 0 and 1 rows."""
    from sklearn.datasets import load_digits

    X, y = load_digits(n_class=5, return_X_y=True)
    X = X / 16.0
    labels = np.array([f"digit {d}" for d in range(5)])[y]
    model = dualsvm.SVC(probability=True, gamma=0.05, random_state=0).fit(X[:200], labels[:200])
    for dtype in (np.float32, np.float64):
        predicted, probabilities = _run_onnx(model, X[200:], dtype,
                                             options={id(model): {"zipmap": False}})
        _labels_equal(model, X[200:], predicted, dtype)
        _close(model.predict_proba(X[200:]), probabilities, TOLERANCE[dtype])
        for n in (0, 1):
            predicted, probabilities = _run_onnx(model, X[:n], dtype,
                                                 options={id(model): {"zipmap": False}})
            assert predicted.shape == (n,) and probabilities.shape == (n, 5)


def test_onnx_zipmap_as_skl2onnx_gives_it():
    X, y, X_test = _data(binary=False, sparse=False)
    model = dualsvm.SVC(probability=True, random_state=0).fit(X, y)
    labels, dicts = _run_onnx(model, X_test, np.float32)
    np.testing.assert_array_equal(labels, model.predict(X_test))
    probabilities = np.array([[row[c] for c in range(3)] for row in dicts])
    _close(model.predict_proba(X_test), probabilities, 1e-5)
    with pytest.raises(ValueError, match="zipmap"):
        _run_onnx(model, X_test, np.float64, options={id(model): {"zipmap": True}})


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_skl2onnx_converts_a_pipeline_with_a_dualsvm_estimator(dtype):
    dualsvm.onnx.register_converters()
    X, y = load_wine(return_X_y=True)
    for estimator, name in ((dualsvm.SVC(), "decision_function"),
                            (dualsvm.LinearSVC(), "decision_function"), (dualsvm.SVR(), "predict")):
        target = y if name == "decision_function" else Y_REGRESSION
        pipeline = make_pipeline(StandardScaler(), estimator).fit(X[:120], target[:120])
        options = {id(estimator): {"zipmap": False}} if name == "decision_function" else None
        onx = skl2onnx.to_onnx(pipeline, X[:1].astype(dtype), options=options)
        session = onnxruntime.InferenceSession(onx.SerializeToString(),
                                               providers=["CPUExecutionProvider"])
        outputs = session.run(None, {"X": X[120:].astype(dtype)})
        scaled = pipeline[:-1].transform(X[120:])
        if name == "decision_function":
            _labels_equal(estimator, scaled, outputs[0], dtype)
            expected = _svc_decision(estimator, scaled)
        else:
            expected = pipeline.predict(X[120:]).reshape(-1, 1)
        _close(expected, outputs[-1], TOLERANCE[dtype])


def test_onnx_refusals():
    X, y, _ = _data(binary=False, sparse=False)
    cases = {
        "kernel='precomputed'": dualsvm.SVC(kernel="precomputed").fit(X @ X.T, y),
        "callable kernel": dualsvm.SVC(kernel=lambda A, B: A @ B.T).fit(X, y),
        "best_estimator_": dualsvm.SVCCV(Cs=[1.0], gammas=[0.1], cv=2).fit(X, y),
        "break_ties": dualsvm.SVC(break_ties=True, decision_function_shape="ovo").fit(X, y),
    }
    for message, model in cases.items():
        with pytest.raises(ValueError, match=message):
            dualsvm.onnx.to_onnx(model, X[:1])
    with pytest.raises(ValueError, match="float32 or float64"):
        dualsvm.onnx.to_onnx(dualsvm.SVC().fit(X, y), X[:1].astype(np.int64))
    with pytest.raises(NotFittedError):
        dualsvm.onnx.to_onnx(dualsvm.SVC(), X[:1])


# ------------------------------------------------------------------ dualsvm export


def _cli(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    return status, capsys.readouterr().err


def test_export_command_writes_every_format(tmp_path, capsys, data_dir, load):
    X, y = load("heart_scale")
    kernel_model, linear_model = tmp_path / "kernel.model", tmp_path / "linear.model"
    assert _cli(capsys, "train", "-q", "-t", "2", "-b", "1", data_dir / "heart_scale",
                kernel_model)[0] == 0
    assert _cli(capsys, "train", "-q", data_dir / "heart_scale", linear_model)[0] == 0
    for path in (kernel_model, linear_model):
        ours = dualsvm.load_model(path)
        assert _cli(capsys, "export", path, "--format", "onnx", "--dtype", "float64",
                    tmp_path / "m.onnx")[0] == 0
        session = onnxruntime.InferenceSession(str(tmp_path / "m.onnx"),
                                               providers=["CPUExecutionProvider"])
        labels, second = session.run(None, {"X": X.toarray()})
        np.testing.assert_array_equal(labels, ours.predict(X))
        expected = ours.predict_proba(X) if _has_probabilities(ours) else \
            _svc_decision(ours, X)
        _close(expected, second, 1e-10)
        status, err = _cli(capsys, "export", path, "--format", "sklearn", "--no-probability",
                           tmp_path / "m.pkl")
        assert status == 0, err
        with open(tmp_path / "m.pkl", "rb") as f:
            exported = pickle.load(f)
        np.testing.assert_array_equal(exported.predict(X.toarray()), ours.predict(X))
    text = "libsvm"
    assert _cli(capsys, "export", kernel_model, "--format", text, tmp_path / "a.txt")[0] == 0
    assert _cli(capsys, "export-libsvm", kernel_model, tmp_path / "b.txt")[0] == 0
    assert (tmp_path / "a.txt").read_bytes() == (tmp_path / "b.txt").read_bytes()
    assert _cli(capsys, "export", linear_model, "--format", "liblinear", tmp_path / "c.txt")[0] == 0
    assert dualsvm.import_liblinear(tmp_path / "c.txt").predict(X).tolist() == \
        dualsvm.load_model(linear_model).predict(X).tolist()


def test_export_command_errors_are_one_line(tmp_path, capsys, data_dir):
    model = tmp_path / "kernel.model"
    assert _cli(capsys, "train", "-q", "-t", "2", "-b", "1", data_dir / "heart_scale",
                model)[0] == 0
    cases = [
        (["export", model, "--format", "pdf", tmp_path / "x"], 2, "invalid choice"),
        (["export", model, tmp_path / "x"], 2, "--format"),
        (["export", model, "--format", "liblinear", tmp_path / "x"], 1, "only linear models"),
        (["export", model, "--format", "libsvm", "--dtype", "float64", tmp_path / "x"], 2,
         "--dtype applies"),
        (["export", model, "--format", "onnx", "--no-probability", tmp_path / "x"], 2,
         "--no-probability applies"),
        (["export", model, "--format", "sklearn", tmp_path / "x"], 1, "--no-probability"),
        (["export", model, "--format", "onnx", tmp_path / "no" / "x"], 1, "cannot write"),
        (["export", tmp_path / "none", "--format", "onnx", tmp_path / "x"], 1, "no such model"),
    ]
    for argv, status, word in cases:
        got, err = _cli(capsys, *argv)
        assert got == status and word in err and len(err.strip().splitlines()) == 1, (argv, err)
    assert not (tmp_path / "x").exists()
