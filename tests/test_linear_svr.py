"""LinearSVR (LIBLINEAR -s 12 / -s 13) against liblinear-official, and its properties.

Objectives are scored by tests/reference.py's numpy primal, from each side's w. The data:
housing_scale (shipped in tests/data) and scikit-learn's bundled diabetes set (442 x 10,
scaled here to [-1, 1] per feature as housing_scale is).
"""

import json
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from reference import liblinear_svr, svr_primal
from sklearn.datasets import load_diabetes
from sklearn.exceptions import ConvergenceWarning

from conftest import bad_parameter
from dualsvm import LinearSVR, load_model, save_model
from dualsvm.estimators.model_io import export_liblinear, import_liblinear

LOSSES = ("squared_epsilon_insensitive", "epsilon_insensitive")
LIBLINEAR_SVR_LIMIT = 300  # LIBLINEAR's iteration limit of -s 12 / -s 13


@pytest.fixture(scope="module")
def housing(load):
    return load("housing_scale")


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    return X / np.abs(X).max(axis=0), y


def _sets(housing, diabetes):
    return {"housing": housing, "diabetes": diabetes}


def _weights(model):
    """w with the bias feature's weight last (intercept_scaling = 1), as LIBLINEAR's."""
    if model.fit_intercept:
        return np.append(model.coef_, model.intercept_[0] / model.intercept_scaling)
    return model.coef_


CASES = [  # (set, C, epsilon): LIBLINEAR converges on some, stops at its limit on others
    ("housing", 0.01, 1.0), ("housing", 0.1, 5.0), ("housing", 1.0, 0.5), ("housing", 1.0, 5.0),
    ("diabetes", 1.0, 5.0), ("diabetes", 100.0, 1.0), ("diabetes", 10.0, 10.0),
]


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("bias", [-1.0, 1.0])
@pytest.mark.parametrize("name, C, epsilon", CASES)
def test_objective_equals_liblinear(housing, diabetes, name, C, epsilon, bias, loss):
    X, y = _sets(housing, diabetes)[name]
    w_peer, iterations, printed = liblinear_svr(X, y, loss=loss, C=C, epsilon=epsilon,
                                                eps=1e-10, bias=bias)
    model = LinearSVR(loss=loss, C=C, epsilon=epsilon, tol=1e-10, max_iter=100_000,
                      fit_intercept=bias > 0, random_state=0).fit(X, y)
    mode = "augmented" if bias > 0 else "none"
    ours = svr_primal(X, y, _weights(model), loss=loss, C=C, epsilon=epsilon, bias=mode)
    peer = svr_primal(X, y, w_peer, loss=loss, C=C, epsilon=epsilon, bias=mode)
    assert model.status_ == ["converged"]
    assert model.gap_[0] <= 1e-9
    assert ours == pytest.approx(model.primal_[0], rel=1e-12)  # our primal is the textbook one
    if iterations < LIBLINEAR_SVR_LIMIT:  # both converged: the same optimum
        assert abs(ours - peer) <= 1e-6 * abs(peer)
        assert abs(model.dual_[0] + printed) <= 1e-6 * abs(printed)  # LIBLINEAR prints -D
    else:  # LIBLINEAR stopped at its limit: never worse than its model
        assert ours <= peer * (1 + 1e-6)


def test_both_branches_of_the_peer_comparison_are_exercised(housing):
    """The cases above include problems LIBLINEAR solves and problems where it stops."""
    X, y = housing
    _, solved, _ = liblinear_svr(X, y, loss="epsilon_insensitive", C=0.01, epsilon=1.0, eps=1e-10)
    _, stopped, _ = liblinear_svr(X, y, loss="epsilon_insensitive", C=1.0, epsilon=0.5, eps=1e-10)
    assert solved < LIBLINEAR_SVR_LIMIT == stopped


@pytest.mark.parametrize("loss", LOSSES)
def test_default_tol_matches_liblinear_default_run(housing, loss):
    """At LIBLINEAR's own -e 0.1 both stop early: ours is no worse than LIBLINEAR's run
    (within 5%; LIBLINEAR's unseeded order makes its early stop vary, by 20x on housing
    with the L1 loss depending on the C library's rand() state)."""
    X, y = housing
    w_peer, _, _ = liblinear_svr(X, y, loss=loss, C=1.0, epsilon=0.1, eps=0.1, bias=1.0)
    model = LinearSVR(loss=loss, C=1.0, epsilon=0.1, tol=0.1, random_state=0).fit(X, y)
    kwargs = dict(loss=loss, C=1.0, epsilon=0.1, bias="augmented")
    ours, peer = svr_primal(X, y, _weights(model), **kwargs), svr_primal(X, y, w_peer, **kwargs)
    assert ours <= 1.05 * peer


@pytest.mark.parametrize("loss", LOSSES)
def test_gap_closes_and_dense_equals_sparse(housing, loss):
    X, y = housing
    params = dict(loss=loss, C=0.5, epsilon=0.2, tol=1e-8, max_iter=100_000, random_state=3,
                  monitor=True)
    sparse = LinearSVR(**params).fit(sp.csr_matrix(X), y)
    dense = LinearSVR(**params).fit(X.toarray(), y)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, rtol=1e-12, atol=1e-14)
    assert dense.intercept_ == pytest.approx(sparse.intercept_, rel=1e-12)
    gaps = [r["gap"] for r in sparse.history_[0]]
    assert gaps[-1] <= 1e-7 < gaps[0]
    assert all(r["primal"] >= r["dual"] - 1e-9 * abs(r["primal"]) for r in sparse.history_[0])


def test_sample_weights(housing):
    X, y = housing
    X = X.toarray()
    params = dict(loss="squared_epsilon_insensitive", epsilon=0.3, tol=1e-12, max_iter=100_000,
                  random_state=0)
    weights = np.ones(len(y))
    weights[:50] = 0.0
    weighted = LinearSVR(**params).fit(X, y, sample_weight=weights)
    removed = LinearSVR(**params).fit(X[50:], y[50:])
    np.testing.assert_allclose(weighted.coef_, removed.coef_, rtol=1e-8)
    scaled = LinearSVR(C=2.5, **params).fit(X, y)
    by_weight = LinearSVR(**params).fit(X, y, sample_weight=np.full(len(y), 2.5))
    np.testing.assert_allclose(scaled.coef_, by_weight.coef_, rtol=1e-8)


def test_predict_score_and_fitted_shapes(housing):
    X, y = housing
    model = LinearSVR(C=1.0, epsilon=0.0, random_state=0, max_iter=5000).fit(X, y)
    assert model.coef_.shape == (X.shape[1],) and model.intercept_.shape == (1,)
    np.testing.assert_allclose(model.predict(X), X @ model.coef_ + model.intercept_[0])
    assert model.score(X, y) > 0.6  # R^2 of a linear model on housing
    assert model.alpha_.shape == (len(y),)
    assert np.all(np.abs(model.alpha_) <= 1.0 + 1e-12)  # L1-loss: |beta_i| <= C


def test_early_stop_warns_and_warm_start_continues(housing):
    X, y = housing
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        model = LinearSVR(C=1.0, epsilon=0.5, tol=1e-10, max_iter=3, warm_start=True,
                          random_state=0).fit(X, y)
    first = model.gap_[0]
    model.set_params(max_iter=100_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model.fit(X, y)
    assert model.gap_[0] < first and model.status_ == ["converged"]


def test_bad_parameters_are_refused(housing):
    X, y = housing
    with pytest.raises(ValueError, match=r"dual=False \(LIBLINEAR's primal solver -s 11\) is not "
                                         "offered: LinearSVR solves the dual"):
        LinearSVR(dual=False).fit(X, y)
    with pytest.raises(ValueError, match=bad_parameter("LinearSVR", "epsilon", -1.0)):
        LinearSVR(epsilon=-1.0).fit(X, y)
    with pytest.raises(ValueError, match=bad_parameter("LinearSVR", "loss", "hinge")):
        LinearSVR(loss="hinge").fit(X, y)
    with pytest.raises(ValueError, match="NaN|infinity"):
        LinearSVR().fit(X, np.full(len(y), np.nan))


@pytest.mark.parametrize("loss", LOSSES)
def test_model_file_and_liblinear_round_trips(housing, tmp_path, loss):
    from liblinear import liblinearutil as ll

    X, y = housing
    model = LinearSVR(loss=loss, C=0.3, epsilon=0.5, intercept_scaling=2.0, random_state=0,
                      max_iter=5000).fit(X, y)
    save_model(model, tmp_path / "m.npz")
    loaded = load_model(tmp_path / "m.npz")
    assert isinstance(loaded, LinearSVR)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert loaded.gap_ == pytest.approx(model.gap_)
    export_liblinear(model, tmp_path / "m.txt")
    peer = ll.load_model(str(tmp_path / "m.txt"))
    assert peer.get_nr_class() == 2 and peer.is_regression_model()
    predicted, _, _ = ll.predict(y, sp.csr_matrix(X), peer, "-q")
    np.testing.assert_allclose(predicted, model.predict(X), rtol=1e-12)
    back = import_liblinear(tmp_path / "m.txt")
    assert isinstance(back, LinearSVR) and back.loss == loss
    np.testing.assert_allclose(back.predict(X), model.predict(X), rtol=1e-12)


def test_liblinear_svr_model_imports(housing, tmp_path):
    """A model LIBLINEAR trained and saved (-s 11, 12, 13) predicts as LIBLINEAR does."""
    from liblinear import liblinearutil as ll

    X, y = housing
    for solver in (11, 12, 13):
        peer = ll.train(y, sp.csr_matrix(X), f"-s {solver} -p 0.2 -B 1 -q")
        ll.save_model(str(tmp_path / f"{solver}.txt"), peer)
        expected, _, _ = ll.predict(y, sp.csr_matrix(X), peer, "-q")
        ours = import_liblinear(tmp_path / f"{solver}.txt")
        np.testing.assert_allclose(ours.predict(X), expected, rtol=1e-12, atol=1e-12)


def _cli(capsys, *argv):
    from dualsvm import cli

    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("solver", [12, 13])
def test_command_line_train_predict_as_liblinear(capsys, data_dir, tmp_path, solver):
    """dualsvm train -s 12|13 -p EPS -e -B: LIBLINEAR's objective; predict prints its
    regression lines; the model exports to a file LIBLINEAR predicts with."""
    from liblinear import liblinearutil as ll

    data = data_dir / "housing_scale"
    model = tmp_path / "m.npz"
    status, out, _ = _cli(capsys, "train", "-s", solver, "-p", 1.0, "-c", 0.01, "-e", 1e-8,
                          "-B", 1, "--max-iter", 100000, "-q", "--json", data, model)
    assert status == 0
    summary = json.loads(out)
    loss = {12: "squared_epsilon_insensitive", 13: "epsilon_insensitive"}[solver]
    X, y = load_svmlight(data)
    w_peer, iterations, _ = liblinear_svr(X, y, loss=loss, C=0.01, epsilon=1.0, eps=1e-10,
                                          bias=1.0)
    assert iterations < LIBLINEAR_SVR_LIMIT
    peer = svr_primal(X, y, w_peer, loss=loss, C=0.01, epsilon=1.0, bias="augmented")
    assert summary["primal"] == pytest.approx(peer, rel=1e-6)
    status, out, _ = _cli(capsys, "predict", data, model, tmp_path / "out")
    values = np.loadtxt(tmp_path / "out")
    mse = np.mean((values - y) ** 2)
    assert status == 0 and out.startswith(f"Mean squared error = {mse:g} (regression)\n")
    assert "Squared correlation coefficient = " in out
    _cli(capsys, "export-liblinear", model, tmp_path / "m.txt")
    expected, _, _ = ll.predict(y, sp.csr_matrix(X), ll.load_model(str(tmp_path / "m.txt")), "-q")
    np.testing.assert_allclose(values, expected, rtol=1e-12)


def test_command_line_cross_validation_and_refusals(capsys, data_dir):
    data = data_dir / "housing_scale"
    status, out, _ = _cli(capsys, "train", "-s", 12, "-v", 5, "-q", data)
    assert status == 0
    mse = float(out.split("Cross Validation Mean squared error = ")[1].split()[0])
    assert 15 < mse < 40  # housing's linear models: MSE about 25
    for argv, message in ((("-p", 1), "-p is the epsilon"),
                          (("-s", 12, "-t", 2), "linear only"),
                          (("-s", 13, "-w1", 2), "-w weighs classes"),
                          (("-s", 12, "--exact-bias"), "--exact-bias"),
                          (("-s", 12, "--c-grid", 1, 2, 2), "--c-grid needs -C")):
        status, _, err = _cli(capsys, "train", *argv, data)
        assert status == 2 and message in err


def load_svmlight(path):
    from sklearn.datasets import load_svmlight_file

    return load_svmlight_file(str(path))


def test_callback_sees_every_epoch_and_stops_training(housing):
    X, y = housing
    seen = []

    def callback(record):
        seen.append(record)
        assert record["coef"].shape == (X.shape[1],) and np.isfinite(record["intercept"])
        return record["epoch"] == 4

    model = LinearSVR(tol=1e-12, callback=callback, random_state=0).fit(X, y)
    assert [r["epoch"] for r in seen] == [1, 2, 3, 4]
    assert model.status_ == ["callback"] and model.n_iter_ == 4
    assert seen[-1]["primal"] == pytest.approx(model.primal_[0])
