"""LinearOneClassSVM (LIBLINEAR -s 21) against liblinear-official 2.50, and its properties.

LIBLINEAR solves min 1/2 a'Q a, 0 <= a_i <= 1, e'a = nu l and prints 1/2 w'w as its
objective; ours reports the dual in its maximisation form, -1/2 w'w, so the two are
compared through w. LIBLINEAR's model gives (w, -rho) by ``get_decfun``.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from liblinear import liblinearutil as ll
from sklearn.exceptions import ConvergenceWarning

from numba import njit
from sklearn.utils.validation import validate_data

from conftest import bad_parameter
from dualsvm import LinearOneClassSVM, OneClassSVM, load_model, save_model
from dualsvm import cli
from dualsvm.data.rows import (kernel_rows, pair_dots, row_axpy, row_axpy_unmark, row_dot,
                               row_row_dot, row_unmark, squared_norms)
from dualsvm.estimators.model_io import export_liblinear, import_liblinear
from dualsvm.problems.box import greedy_fill
from dualsvm.solvers._oneclass_jit import _first_k

SETS = ("heart_scale", "breast-cancer_scale")


def liblinear_one_class(X, nu, eps):
    """(w, rho, model) of LIBLINEAR -s 21 on X."""
    model = ll.train(np.ones(X.shape[0]), sp.csr_matrix(X), f"-s 21 -n {nu} -e {eps} -q")
    w, minus_rho = model.get_decfun()
    return np.asarray(w), -minus_rho, model


def clear(decision, margin):
    """Rows whose decision is farther than ``margin`` from 0: the boundary's free support
    vectors sit at 0 up to the stopping tolerance (or rounding, in one model), so two
    solutions may predict them differently."""
    return np.abs(decision) > margin


@pytest.mark.parametrize("name", SETS)
@pytest.mark.parametrize("nu", (0.1, 0.5))
def test_objective_and_predictions_match_liblinear(load, name, nu):
    X, _ = load(name)
    # 1e-6: both converge within LIBLINEAR's fixed 1000 outer iterations (at 1e-8 it
    # stops at that cap on breast-cancer with nu = 0.1)
    w, rho, model = liblinear_one_class(X, nu, 1e-6)
    ours = LinearOneClassSVM(nu=nu, tol=1e-6).fit(X)
    theirs_dual = -0.5 * float(w @ w)
    assert ours.status_ == ["converged"]
    assert ours.dual_[0] == pytest.approx(theirs_dual, rel=1e-6)
    assert ours.offset_[0] == pytest.approx(rho, rel=1e-6)
    # the certificate closes: P >= D and the gap is that of the tolerance
    assert ours.primal_[0] >= ours.dual_[0] - 1e-9 * abs(ours.dual_[0])
    assert ours.gap_[0] < 1e-6
    labels, _, values = ll.predict([], sp.csr_matrix(X), model, "-q")
    decision = ours.decision_function(X)
    keep = clear(decision, 1e-5)
    assert keep.mean() > 0.9
    assert np.array_equal(ours.predict(X)[keep], np.asarray(labels)[keep])
    np.testing.assert_allclose(decision, np.ravel(values), rtol=1e-6, atol=1e-6 * abs(rho))


@pytest.mark.parametrize("name", SETS)
@pytest.mark.parametrize("nu", (0.1, 0.5))
def test_same_steps_as_liblinear(capfd, load, name, nu):
    """The same pairs in the same order (LIBLINEAR's order among equal gradients too):
    at its default -e 0.01 both stop after the same outer iterations at the same w."""
    X, _ = load(name)
    ours = LinearOneClassSVM(nu=nu).fit(X)
    capfd.readouterr()
    model = ll.train(np.ones(X.shape[0]), sp.csr_matrix(X), f"-s 21 -n {nu}")
    iterations = int(capfd.readouterr().out.split("#iter = ")[1].split()[0])
    w, minus_rho = model.get_decfun()
    assert ours.n_iter_ == iterations
    np.testing.assert_allclose(ours.coef_[0], w, rtol=1e-12, atol=1e-12 * np.abs(w).max())
    assert ours.offset_[0] == pytest.approx(-minus_rho, rel=1e-12)


def test_same_problem_as_the_kernel_one_class_svm(load):
    """OneClassSVM(kernel='linear') solves this dual by SMO over the kernel matrix."""
    X, _ = load("heart_scale")
    linear = LinearOneClassSVM(nu=0.2, tol=1e-9).fit(X)
    kernel = OneClassSVM(kernel="linear", nu=0.2, tol=1e-9).fit(X)
    assert linear.dual_[0] == pytest.approx(kernel.dual_[0], rel=1e-6)


def test_dense_equals_sparse(load):
    X, _ = load("breast-cancer_scale")
    sparse = LinearOneClassSVM(nu=0.3, tol=1e-6).fit(X)
    dense = LinearOneClassSVM(nu=0.3, tol=1e-6).fit(X.toarray())
    assert np.array_equal(sparse.coef_, dense.coef_)
    assert np.array_equal(sparse.offset_, dense.offset_)
    assert sparse.n_iter_ == dense.n_iter_


def test_sample_weights_repeat_and_remove_rows(load):
    X, _ = load("heart_scale")
    X = X.toarray()
    weights = np.random.default_rng(0).integers(0, 4, X.shape[0])
    weighted = LinearOneClassSVM(nu=0.3, tol=1e-10, max_iter=100_000).fit(
        X, sample_weight=weights)
    repeated = LinearOneClassSVM(nu=0.3, tol=1e-10, max_iter=100_000).fit(
        np.repeat(X, weights, axis=0))
    assert weighted.dual_[0] == pytest.approx(repeated.dual_[0], rel=1e-9)
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-6, atol=1e-8)
    assert weighted.alpha_[weights == 0].max() == 0.0
    assert np.all(weighted.alpha_ <= weights)
    assert weighted.alpha_.sum() == pytest.approx(0.3 * weights.sum(), rel=1e-12)


def test_refuses_bad_input(load):
    X, _ = load("heart_scale")
    with pytest.raises(ValueError, match=bad_parameter("LinearOneClassSVM", "nu", 1.5)):
        LinearOneClassSVM(nu=1.5).fit(X)
    with pytest.raises(ValueError, match="sample_weight"):
        LinearOneClassSVM().fit(X, sample_weight=-np.ones(X.shape[0]))


def test_early_stop_warns_and_keeps_a_certified_model(load):
    X, _ = load("breast-cancer_scale")
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        model = LinearOneClassSVM(nu=0.5, tol=1e-12, max_iter=2).fit(X)
    assert model.status_ == ["max_iter"] and model.n_iter_ == 2
    assert model.primal_[0] >= model.dual_[0]
    tight = LinearOneClassSVM(nu=0.5, tol=1e-8).fit(X)
    assert model.dual_[0] <= tight.dual_[0] + 1e-9 * abs(tight.dual_[0])


def test_monitored_history_and_callback(load):
    X, _ = load("heart_scale")
    seen = []
    model = LinearOneClassSVM(nu=0.3, callback=lambda r: seen.append(r) or len(seen) == 5).fit(X)
    assert model.status_ == ["callback"] and len(seen) == 5
    assert seen[-1]["coef"].shape == (X.shape[1],) and "intercept" in seen[-1]
    assert all(np.isfinite(r["gap"]) for r in model.history_[0])


def test_model_file_and_liblinear_round_trips(tmp_path, load):
    X, _ = load("heart_scale")
    model = LinearOneClassSVM(nu=0.3, tol=1e-6).fit(X)
    save_model(model, tmp_path / "m")
    back = load_model(tmp_path / "m")
    assert isinstance(back, LinearOneClassSVM)
    assert np.array_equal(back.coef_, model.coef_) and np.array_equal(back.offset_, model.offset_)
    assert back.dual_[0] == model.dual_[0] and back.get_params()["nu"] == 0.3
    export_liblinear(model, tmp_path / "m.txt")
    theirs = ll.load_model(str(tmp_path / "m.txt"))
    labels, _, values = ll.predict([], sp.csr_matrix(X), theirs, "-q")
    decision = model.decision_function(X)
    keep = clear(decision, 1e-9 * model.offset_[0])
    assert np.array_equal(np.asarray(labels)[keep], model.predict(X)[keep])
    np.testing.assert_allclose(np.ravel(values), decision, rtol=1e-12, atol=1e-12)
    imported = import_liblinear(tmp_path / "m.txt")
    assert np.array_equal(imported.coef_, model.coef_)
    assert np.array_equal(imported.offset_, model.offset_)


def test_liblinear_model_imports(tmp_path, load):
    X, _ = load("breast-cancer_scale")
    w, rho, theirs = liblinear_one_class(X, 0.2, 0.01)
    ll.save_model(str(tmp_path / "ll.txt"), theirs)
    ours = import_liblinear(tmp_path / "ll.txt")
    assert np.array_equal(ours.coef_[0], w) and ours.offset_[0] == rho
    labels, _, _ = ll.predict([], sp.csr_matrix(X), theirs, "-q")
    assert np.array_equal(ours.predict(X), np.asarray(labels))


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_train_predict_match_liblinear(tmp_path, capsys, data_dir, load):
    X, y = load("heart_scale")
    model = tmp_path / "m"
    status, out, _ = run(capsys, "train", "-s", "21", "-n", "0.3", "-e", "1e-8",
                         data_dir / "heart_scale", model)
    assert status == 0 and "rho = " in out and "nSV = " in out
    status, out, _ = run(capsys, "predict", data_dir / "heart_scale", model, tmp_path / "out")
    ours = np.loadtxt(tmp_path / "out")
    _, _, theirs = liblinear_one_class(X, 0.3, 1e-8)
    labels, (accuracy, _, _), _ = ll.predict(y, sp.csr_matrix(X), theirs, "-q")
    keep = clear(load_model(model).decision_function(X), 1e-6)
    assert np.array_equal(ours[keep], np.asarray(labels)[keep])
    correct = int(np.sum(ours == y))
    assert out == "Accuracy = %g%% (%d/%d)\n" % (100.0 * correct / len(y), correct, len(y))
    assert abs(100.0 * correct / len(y) - accuracy) <= 100.0 * (~keep).sum() / len(y)


def test_cli_cross_validation_prints_liblinear_line(tmp_path, capsys, data_dir, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "train", "-s", "21", "-v", "5", data_dir / "heart_scale")
    assert status == 0 and out.startswith("Cross Validation Accuracy = ")
    rate = float(out.split("=")[1].strip().rstrip("%"))
    assert 0.0 <= rate <= 100.0
    assert not list(tmp_path.iterdir())  # -v writes no model


@pytest.mark.parametrize("argv, word", [
    (("-t", "2"), "-s 21"), (("-c", "2"), "-c"), (("-B", "1"), "-B"), (("-w1", "2"), "-w"),
    (("-p", "0.1"), "-p"), (("-C",), "-C"), (("--exact-bias",), "--exact-bias"),
    (("-n", "1.5"), "nu"),
])
def test_cli_refuses_what_does_not_apply(capsys, data_dir, argv, word):
    status, _, err = run(capsys, "train", "-s", "21", *argv, data_dir / "heart_scale")
    assert status == 2 and word in err


@pytest.mark.slow
@pytest.mark.parametrize("nu", (0.1, 0.5))
def test_a9a_objective_matches_liblinear(load_benchmark, nu):
    X, _ = load_benchmark("a9a.bz2")
    w, rho, _ = liblinear_one_class(X, nu, 1e-6)
    ours = LinearOneClassSVM(nu=nu, tol=1e-6).fit(X)
    assert ours.dual_[0] == pytest.approx(-0.5 * float(w @ w), rel=1e-6)
    assert ours.offset_[0] == pytest.approx(rho, rel=1e-6)


@pytest.mark.parametrize("larger_index_first", (True, False))
@pytest.mark.parametrize("m, k", [(1, 1), (2, 1), (7, 7), (40, 4), (40, 17), (300, 30),
                                  (300, 299), (1000, 100)])
def test_selection_is_liblinears_order(m, k, larger_index_first):
    """The k first of (value, index) pairs in LIBLINEAR's order (larger values first;
    equal values by index, as its sort of (value, index) nodes): ties are common
    (duplicate rows give equal gradients), so few distinct values are drawn."""
    rng = np.random.default_rng(m + k)
    for distinct in (2, 5, m):
        values = rng.integers(0, distinct, m).astype(np.float64) * 0.5
        index = rng.permutation(10 * m)[:m].astype(np.int64)
        sign = -1 if larger_index_first else 1
        expected = sorted(zip(values.tolist(), index.tolist()),
                          key=lambda pair: (-pair[0], sign * pair[1]))[:k]
        v, i = values.copy(), index.copy()
        _first_k(v, i, m, k, larger_index_first, np.empty(128, dtype=np.int64))
        assert list(zip(v[:k].tolist(), i[:k].tolist())) == expected
        # a permutation of what was given
        assert sorted(zip(v.tolist(), i.tolist())) == sorted(zip(values.tolist(), index.tolist()))


@njit
def _fused_and_separate(rows, i, j, w, mark):
    gi, gj, q = pair_dots(rows, i, j, w, mark)
    fused = np.array([gi, gj, q])
    separate = np.array([row_dot(rows, i, w, 0.0), row_dot(rows, j, w, 0.0),
                         row_row_dot(rows, i, j, 0.0)])
    w_fused = w.copy()
    row_axpy_unmark(rows, i, 0.5, w_fused, mark)
    w_separate = w.copy()
    row_axpy(rows, i, 0.5, w_separate, 0.0)
    return fused, separate, w_fused, w_separate


@njit
def _unmark(rows, i, j, w, mark):
    pair_dots(rows, i, j, w, mark)
    row_unmark(rows, i, mark)


@pytest.mark.parametrize("dense", (False, True))
def test_row_primitives_equal_the_merge(load, dense):
    """The pair steps' fused products and the squared norms are the merge's sums bit for
    bit (CSR and dense), and leave the scratch row at zero."""
    X, _ = load("heart_scale")
    X = sp.csr_matrix(X)
    X.data[::7] *= -1.0  # negative entries too
    rows = np.ascontiguousarray(X.toarray()) if dense else kernel_rows(X)
    n, d = X.shape
    w = np.random.default_rng(0).normal(size=d)
    mark = np.zeros(d)
    for i, j in [(0, 1), (5, 5), (17, 250), (269, 3)]:
        fused, separate, w_fused, w_separate = _fused_and_separate(rows, i, j, w, mark)
        assert np.array_equal(fused, separate) and np.array_equal(w_fused, w_separate)
        assert not mark.any()
        _unmark(rows, i, j, w, mark)
        assert not mark.any()
    for bias in (0.0, 1.5):
        merged = np.array([X[i].multiply(X[i]).sum() + bias * bias for i in range(n)])
        np.testing.assert_allclose(squared_norms(rows, n, bias), merged, rtol=1e-14)
        assert np.array_equal(squared_norms(rows, n, bias),
                              squared_norms(kernel_rows(X), n, bias))


def test_greedy_fill_is_liblinears_start():
    upper = np.array([1.0, 2.0, 0.0, 0.5, 1.0, 3.0])
    np.testing.assert_array_equal(greedy_fill(3.25, upper), [1.0, 2.0, 0.0, 0.25, 0.0, 0.0])
    np.testing.assert_array_equal(greedy_fill(0.0, upper), np.zeros(6))
    np.testing.assert_array_equal(greedy_fill(upper.sum(), upper), upper)
    assert greedy_fill(7, [1, 2, 3]).dtype == np.float64  # lists and integers taken


def test_validation_shortcut_keeps_scikit_learns_bookkeeping(load):
    """X that scikit-learn would pass unchanged skips its validation; the estimator's
    n_features_in_ and feature names, and every error, stay scikit-learn's."""
    X, _ = load("heart_scale")
    X = sp.csr_matrix(X)
    dense = np.ascontiguousarray(X.toarray())
    model = LinearOneClassSVM(nu=0.3)
    model.feature_names_in_ = np.array(["old"], dtype=object)  # as after a DataFrame
    model.fit(X)
    assert model.n_features_in_ == X.shape[1] and not hasattr(model, "feature_names_in_")
    reference = LinearOneClassSVM(nu=0.3)
    validate_data(reference, X, accept_sparse="csr", dtype=np.float64, order="C")
    assert reference.n_features_in_ == model.n_features_in_
    # the same model from every layout scikit-learn accepts (through it or not)
    unsorted = X.copy()
    unsorted.indices[:2] = unsorted.indices[1::-1].copy()  # row 0's first two swapped
    unsorted.data[:2] = unsorted.data[1::-1].copy()
    unsorted.has_sorted_indices = False
    for other in (dense, np.asfortranarray(dense), unsorted,
                  sp.csr_array(X), X.tocsc(), dense.tolist()):
        again = LinearOneClassSVM(nu=0.3).fit(other)
        assert np.array_equal(again.coef_, model.coef_), type(other)
        np.testing.assert_allclose(again.decision_function(other), model.decision_function(X),
                                   rtol=1e-12, atol=1e-12)  # a dense or a sparse product
    with pytest.raises(ValueError, match="expecting 13 features"):
        model.decision_function(dense[:, :5])
    bad = dense.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        LinearOneClassSVM().fit(bad)
    with pytest.raises(ValueError, match="NaN"):
        model.decision_function(bad)
    with pytest.raises(ValueError, match=r"Found array with 0 sample\(s\) \(shape=\(0, 13\)\)"):
        LinearOneClassSVM().fit(dense[:0])
    with pytest.raises(ValueError, match=r"Found array with 0 feature\(s\) \(shape=\(270, 0\)\)"):
        LinearOneClassSVM().fit(dense[:, :0])
