"""dualsvm.SVC: LIBSVM's model layout and predictions, bad input (its scikit-learn
contract is checked in test_estimator_checks.py)."""

import json
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC as SkSVC

from conftest import bad_parameter
from dualsvm import SVC
from dualsvm.solvers.ws_smo import fused_working_set_size
from dualsvm.training.kernel import KERNEL_SOLVERS as SOLVERS
from reference import one_vs_one_objectives


def _int32(X):
    X = sp.csr_matrix(X)  # scikit-learn's SVC takes 32-bit indices only
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X


@pytest.mark.parametrize("kernel,params", [
    ("rbf", {"gamma": 0.1}), ("poly", {"gamma": 0.1, "coef0": 0.5}),
    ("sigmoid", {"gamma": 0.01, "coef0": -0.5}), ("linear", {})])
def test_multiclass_model_equals_sklearn(kernel, params):
    X, y = load_iris(return_X_y=True)
    ours = SVC(kernel=kernel, C=10, **params).fit(X, y)
    theirs = SkSVC(kernel=kernel, C=10, **params).fit(X, y)
    np.testing.assert_array_equal(ours.support_, theirs.support_)
    np.testing.assert_array_equal(ours.n_support_, theirs.n_support_)
    np.testing.assert_allclose(ours.dual_coef_, theirs.dual_coef_, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-6)
    np.testing.assert_allclose(ours.support_vectors_, theirs.support_vectors_)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-5)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
    ovo = SVC(kernel=kernel, C=10, decision_function_shape="ovo", **params).fit(X, y)
    np.testing.assert_allclose(ovo.decision_function(X),
                               SkSVC(kernel=kernel, C=10, decision_function_shape="ovo",
                                     **params).fit(X, y).decision_function(X), atol=1e-5)
    assert ours.status_ == ["converged"] * 3
    if kernel == "linear":
        np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-5)


@pytest.mark.parametrize("kernel,params", [
    ("rbf", {"gamma": 0.1}),
    ("poly", {"gamma": 0.1, "coef0": 0.5}),
    ("sigmoid", {"gamma": 0.01, "coef0": -0.5}),
    ("linear", {})])
def test_certificate_is_the_objectives_of_sklearns_solution(kernel, params):
    X, y = load_iris(return_X_y=True)
    ours = SVC(kernel=kernel, C=10, **params).fit(X, y)
    theirs = SkSVC(kernel=kernel, C=10, **params).fit(X, y)
    primal, dual = np.array(one_vs_one_objectives(X, y, theirs, kernel, 10.0, **params)).T
    np.testing.assert_allclose(ours.dual_, dual, rtol=1e-6)
    np.testing.assert_allclose(ours.primal_, primal, rtol=1e-6)


def test_binary_signs_class_weight_and_history(load):
    X, y = load("heart_scale")
    X = _int32(X)
    weights = {-1: 1.0, 1: 3.0}
    ours = SVC(gamma=0.2, class_weight=weights).fit(X, y)
    theirs = SkSVC(gamma=0.2, class_weight=weights).fit(X, y)
    np.testing.assert_array_equal(ours.support_, theirs.support_)
    assert sp.issparse(ours.dual_coef_)  # trained on sparse data, as scikit-learn's
    np.testing.assert_allclose(ours.dual_coef_.toarray(), theirs.dual_coef_.toarray(), atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-6)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-6)
    assert ours.n_iter_[0] == theirs.n_iter_[0]
    record = ours.history_[0][-1]
    assert record["dual"] == pytest.approx(ours.dual_[0])
    assert record["kernel_evaluations"] > 0 and record["iterations"] == ours.n_iter_[0]


def test_predictions_match_libsvm_on_test_file(load):
    from libsvm import svmutil

    X, y = load("svmguide1.bz2")
    Xt, yt = load("svmguide1.t.bz2", n_features=X.shape[1])
    model = svmutil.svm_train(svmutil.svm_problem(y, sp.csr_matrix(X)),
                              svmutil.svm_parameter("-t 2 -g 0.25 -c 1 -q"))
    expected, _, _ = svmutil.svm_predict(yt, sp.csr_matrix(Xt), model, "-q")
    predicted = SVC(gamma=0.25).fit(X, y).predict(Xt)
    assert np.mean(predicted == np.array(expected)) > 0.999


def test_precomputed_equals_rbf():
    X, y = load_iris(return_X_y=True)
    K = rbf_kernel(X, gamma=0.5)
    a = SVC(kernel="rbf", gamma=0.5).fit(X, y)
    b = SVC(kernel="precomputed").fit(K, y)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_allclose(a.dual_coef_, b.dual_coef_, atol=1e-6)
    np.testing.assert_array_equal(a.predict(X), b.predict(K))


def test_sample_weight_zero_equals_removing_rows():
    X, y = load_iris(return_X_y=True)
    w = np.ones(len(y))
    w[::7] = 0
    a = SVC(gamma=0.5, tol=1e-8).fit(X, y, sample_weight=w)
    b = SVC(gamma=0.5, tol=1e-8).fit(X[w > 0], y[w > 0])
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-6)


def test_memory_stays_within_cache_size_data_and_n_vectors(load):
    X, y = load("a8a.bz2")
    X, y = X[:6000], y[:6000]  # 2338 support vectors: the 2 MB cache fills and shrinking runs
    for solver in ("smo", "ws"):  # compile every path outside the trace (with an empty
        SVC(cache_size=2, solver=solver).fit(X, y)  # Numba cache, compiling inside it held 13 MB)
    # SVC's copies: the rows in class order, and the same by feature (CSC) for columns
    rows = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    by_feature = X.nnz * (8 + 4) + 8 * (X.shape[1] + 1)
    for solver in ("smo", "ws"):  # the cache holds 1.5% of Q's columns
        tracemalloc.start()
        try:
            model = SVC(cache_size=2, solver=solver).fit(X, y)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert model.solver_used_ == solver
        # 44 vectors of n: the solver's (alpha, G, G_bar, status, the active set, ...), the
        # products kept for a path's next fit (Q a, G_bar, the certificate's exact Q a
        # with its alpha) and the temporaries of the certificate; ws: its q x q block of Q
        # in float64 and a set's new rows, at most as many (fused mode from a few sets on:
        # the cache holds 81 columns, q = 256)
        block = 2 * 8 * fused_working_set_size(X.shape[0], 2 * 2**20)**2 \
            if solver == "ws" else 0
        assert peak <= 2 * 2**20 + rows + by_feature + 44 * 8 * X.shape[0] + block, solver


def test_time_limit_and_callback_stop_with_a_usable_model(load):
    X, y = load("a8a.bz2")
    X, y = X[:3000], y[:3000]

    def assert_usable(model):
        """The model is the point the solver stopped at: its certificate gives that point's
        objectives, and it predicts by the sign of its decision function."""
        primal, dual = one_vs_one_objectives(X, y, model, "rbf", 1.0, gamma=0.1)[0]
        assert model.primal_[0] == pytest.approx(primal, rel=1e-6)
        assert model.dual_[0] == pytest.approx(dual, rel=1e-6, abs=1e-9)
        decision = model.decision_function(X)
        decided = decision != 0
        np.testing.assert_array_equal(model.predict(X)[decided],
                                      model.classes_[(decision[decided] > 0).astype(int)])

    with pytest.warns(ConvergenceWarning, match="time_limit"):
        model = SVC(gamma=0.1, time_limit=0.0).fit(X, y)
    assert model.status_ == ["time_limit"] and model.n_iter_[0] == 0
    assert_usable(model)
    seen = []
    model = SVC(gamma=0.1, callback=lambda r: seen.append(r) or True).fit(X, y)
    assert model.status_ == ["callback"] and len(seen) == 1 and "alpha" in seen[0]
    assert_usable(model)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        model = SVC(gamma=0.1, max_iter=10).fit(X, y)
    assert model.n_iter_[0] == 10 and model.gap_[0] > 0
    assert_usable(model)


def test_verbose_trace(load, capsys):
    X, y = load("heart_scale")
    SVC(verbose=3).fit(X, y)
    err = capsys.readouterr().err
    assert "primal" in err and "stopped: converged" in err


@pytest.mark.parametrize("name,value", [("solver", "newton"), ("kernel", "cubic"), ("gamma", -1.0),
                                        ("C", 0.0), ("tol", 0.0), ("cache_size", 0),
                                        ("max_iter", -2)])
def test_bad_parameters(name, value):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=bad_parameter("SVC", name, value)):
        SVC(**{name: value}).fit(X, y)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_every_registered_solver_solves_both_losses(loss):
    # no solver is missing and none refuses a loss: each one fits, converges and agrees with SMO
    X, y = load_iris(return_X_y=True)
    assert sorted(SOLVERS) == ["cgd", "dc", "dcd", "pgd", "smo", "ws"]
    smo = SVC(solver="smo", loss=loss).fit(X, y)
    for name in SOLVERS:
        model = SVC(solver=name, loss=loss).fit(X, y)
        assert model.status_ == ["converged"] * 3, name
        np.testing.assert_array_equal(model.predict(X), smo.predict(X), err_msg=name)
        if name != "dcd":  # the same dual (dcd's has no bias): at tol 1e-3, within 3.3e-3
            np.testing.assert_allclose(model.dual_, smo.dual_, rtol=1e-2, err_msg=name)


def test_bad_data():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="NaN"):
        SVC().fit(np.where(X > 7, np.nan, X), y)
    with pytest.raises(ValueError, match="square"):
        SVC(kernel="precomputed").fit(X, y)
    with pytest.raises(ValueError, match="2 classes"):
        SVC().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="zero or negative weights"):
        SVC(class_weight={0: 0.0, 1: 0.0, 2: 0.0}).fit(X, y)
    model = SVC().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        model.predict(X[:, :2])


@pytest.mark.slow
@pytest.mark.parametrize("train,test", [("a9a.bz2", "a9a.t.bz2"), ("w7a.bz2", "w7a.t.bz2")])
def test_benchmark_test_files_match_libsvm(load_benchmark, train, test):
    from libsvm import svmutil

    X, y = load_benchmark(train)
    Xt, yt = load_benchmark(test, n_features=X.shape[1])
    gamma = 1.0 / X.shape[1]
    model = svmutil.svm_train(svmutil.svm_problem(y, sp.csr_matrix(X)),
                              svmutil.svm_parameter(f"-t 2 -g {gamma} -c 1 -q"))
    expected, _, _ = svmutil.svm_predict(yt, sp.csr_matrix(Xt), model, "-q")
    predicted = SVC(gamma=gamma).fit(X, y).predict(Xt)
    assert np.mean(predicted == np.array(expected)) > 0.999


# --- command line and model files -------------------------------------------------


def _cli(capsys, *argv):
    from dualsvm import cli

    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("options", [["-t", "2", "-g", "0.5"], ["--kernel", "poly", "-r", "1"],
                                     ["-t", "3", "-g", "0.05", "-r", "-1", "-h", "0", "-m", "1"]])
def test_cli_train_predict_matches_libsvm(tmp_path, capsys, data_dir, options):
    from libsvm import svmutil

    train, model, out = data_dir / "heart_scale", tmp_path / "m.model", tmp_path / "out"
    status, stdout, _ = _cli(capsys, "train", "-q", *options, train, model)
    assert status == 0
    status, stdout, _ = _cli(capsys, "predict", train, model, out)
    assert status == 0
    y, x = svmutil.svm_read_problem(str(train))
    libsvm_options = " ".join(o.replace("--kernel", "-t").replace("poly", "1") for o in options)
    theirs = svmutil.svm_train(y, x, libsvm_options + " -q")
    labels, (accuracy, _, _), _ = svmutil.svm_predict(y, x, theirs, "-q")
    assert np.array_equal(np.loadtxt(out), labels)
    assert stdout.startswith("Accuracy = %g%%" % accuracy)


def test_cli_multiclass_json_trace_and_model_round_trip(tmp_path, capsys):
    from dualsvm.estimators import model_io as models

    X, y = load_iris(return_X_y=True)
    data = tmp_path / "iris.svm"
    data.write_text("".join(f"{int(c)} " + " ".join(f"{k + 1}:{v}" for k, v in enumerate(row))
                            + "\n" for row, c in zip(X, y)))
    model, trace = tmp_path / "m", tmp_path / "t.jsonl"
    status, stdout, err = _cli(capsys, "train", "-t", "2", "-g", "0.25", "-c", "10",
                               "--json", "--trace", trace, data, model)
    assert status == 0
    summary = json.loads(stdout)
    assert summary["status"] == "converged" and summary["kernel"]["gamma"] == 0.25
    assert {json.loads(line)["class"] for line in trace.read_text().splitlines()} == \
        {"0 vs 1", "0 vs 2", "1 vs 2"}
    loaded = models.load_model(model)
    reference = SVC(gamma=0.25, C=10).fit(X, y)
    np.testing.assert_allclose(loaded.decision_function(X), reference.decision_function(X),
                               atol=1e-9)
    assert loaded.status_ == reference.status_
    sparse = SVC(kernel="sigmoid", gamma=0.01).fit(sp.csr_matrix(X), y)
    models.save_model(sparse, tmp_path / "s")
    np.testing.assert_array_equal(models.load_model(tmp_path / "s").predict(X), sparse.predict(X))


def test_cli_precomputed_kernel_file(tmp_path, capsys):
    X, y = load_iris(return_X_y=True)
    K = rbf_kernel(X, gamma=0.5)
    data = tmp_path / "k.svm"
    data.write_text("".join(f"{int(c)} 0:{i + 1} " + " ".join(f"{j + 1}:{float(v)!r}" for j, v in
                                                              enumerate(row)) + "\n"
                            for i, (row, c) in enumerate(zip(K, y))))
    model, out = tmp_path / "m", tmp_path / "out"
    assert _cli(capsys, "train", "-q", "-t", "4", data, model)[0] == 0
    assert _cli(capsys, "predict", data, model, out)[0] == 0
    np.testing.assert_array_equal(np.loadtxt(out), SVC(gamma=0.5).fit(X, y).predict(X))


@pytest.mark.parametrize("options,message", [
    (["-t", "7"], "unknown kernel type '7'"),
    (["-h", "2"], "-h takes 0 or 1"),
    (["-g", "0"], "gamma must be > 0"),
    (["-t", "2", "-B", "1"], "-B is for linear models"),
    (["-t", "2", "-b", "2"], "-b takes 0 or 1"),
    (["-t", "1", "--kernel", "rbf"], "-t and --kernel disagree"),
])
def test_cli_bad_kernel_options(tmp_path, capsys, data_dir, options, message):
    status, _, err = _cli(capsys, "train", *options, data_dir / "heart_scale", tmp_path / "m")
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1


def test_cli_bad_precomputed_file_and_damaged_kernel_model(tmp_path, capsys, data_dir):
    from dualsvm.estimators import model_io as models
    from dualsvm.exceptions import ModelError

    status, _, err = _cli(capsys, "train", "-t", "4", data_dir / "heart_scale", tmp_path / "m")
    assert status == 1 and "precomputed kernel file needs '0:1'" in err
    model = SVC().fit(*load_iris(return_X_y=True))
    models.save_model(model, tmp_path / "good")
    with np.load(tmp_path / "good") as npz:
        arrays = {name: npz[name] for name in npz.files}
    arrays["dual_coef_"] = arrays["dual_coef_"][:, :-1]
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ModelError, match="dual_coef_ must be finite float64 of shape"):
        models.load_model(tmp_path / "bad.npz")
    arrays.pop("dual_coef_")
    np.savez(tmp_path / "missing.npz", **arrays)
    with pytest.raises(ModelError, match="entries missing: \\['dual_coef_'\\]"):
        models.load_model(tmp_path / "missing.npz")
