"""LinearSVC's multi_class='crammer_singer' (LIBLINEAR -s 4), penalty='l1' (-s 5) and
dual=False against LIBLINEAR 2.50, and the properties of their solutions."""

import re
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning

from dualsvm import LinearSVC
from dualsvm.estimators.model_io import export_liblinear, import_liblinear, load_model, save_model
from dualsvm.problems.linear import L1RegularizedProblem
from reference import crammer_singer_primal, l1_primal, liblinear_train, primal

TIGHT = {"tol": 1e-9, "max_iter": 200_000, "random_state": 0}


def fit(X, y, sample_weight=None, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return LinearSVC(**params).fit(X, y, sample_weight=sample_weight)


def scaled(X):
    """Features divided by their largest magnitude (LIBLINEAR users scale; unscaled
    digits and wine take both solvers tens of thousands of epochs)."""
    return X / np.maximum(np.abs(X).max(axis=0), 1e-12)


def multiclass_sets():
    for name, loader in (("iris", load_iris), ("wine", load_wine), ("digits", load_digits)):
        X, y = loader(return_X_y=True)
        yield name, scaled(X), y.astype(float)


MULTICLASS = {name: (X, y) for name, X, y in multiclass_sets()}


def our_cs_weights(model, bias):
    """(n_weights, n_classes) W of a multi-class Crammer-Singer model, the bias row last."""
    W = model.coef_.T
    return np.vstack([W, model.intercept_ / bias]) if bias > 0 else W


# --- Crammer-Singer: objectives equal LIBLINEAR's -s 4 -------------------------------

@pytest.mark.parametrize("bias", [-1.0, 1.0])
@pytest.mark.parametrize("name", ["iris", "wine", "digits"])
def test_crammer_singer_objective_equals_liblinear(name, bias):
    X, y = MULTICLASS[name]
    C = 1.0
    model = fit(X, y, multi_class="crammer_singer", C=C, fit_intercept=bias > 0, **TIGHT)
    _, printed, W = liblinear_train(X, y, f"-s 4 -c {C} -e 1e-9 -B {bias}")
    cost = np.full(len(y), C)
    ours = crammer_singer_primal(X, y, our_cs_weights(model, bias), cost=cost, bias=bias)
    theirs = crammer_singer_primal(X, y, W, cost=cost, bias=bias)
    assert model.status_ == ["converged"]
    assert abs(ours - theirs) <= 1e-6 * theirs
    # our certificate: the primal is the reference's, the gap closed, and LIBLINEAR's
    # printed dual objective (f = -D, 6 decimals) is ours
    assert model.primal_[0] == pytest.approx(ours, rel=1e-12)
    assert 0 <= model.gap_[0] <= 1e-6
    printed_f = float(re.findall(r"Objective value = (\S+)", printed)[-1])
    assert -printed_f == pytest.approx(model.dual_[0], abs=2e-6, rel=1e-6)


def test_crammer_singer_class_weights_equal_liblinear():
    X, y = MULTICLASS["digits"]
    weights = {0.0: 2.0, 3.0: 0.5, 7.0: 3.0}
    model = fit(X, y, multi_class="crammer_singer", class_weight=weights, **TIGHT)
    flags = " ".join(f"-w{int(k)} {v}" for k, v in weights.items())
    _, _, W = liblinear_train(X, y, f"-s 4 -e 1e-9 -B 1 {flags}")
    cost = np.array([weights.get(label, 1.0) for label in y])
    ours = crammer_singer_primal(X, y, our_cs_weights(model, 1.0), cost=cost, bias=1.0)
    theirs = crammer_singer_primal(X, y, W, cost=cost, bias=1.0)
    assert abs(ours - theirs) <= 1e-6 * theirs
    assert model.gap_[0] <= 1e-6


def test_crammer_singer_sample_weights_equal_repeated_rows():
    X, y = MULTICLASS["wine"]
    counts = np.random.default_rng(0).integers(0, 4, len(y))
    weighted = fit(X, y, sample_weight=counts, multi_class="crammer_singer", **TIGHT)
    repeated = fit(np.repeat(X, counts, axis=0), np.repeat(y, counts),
                   multi_class="crammer_singer", **TIGHT)
    assert weighted.primal_[0] == pytest.approx(repeated.primal_[0], rel=1e-7)
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, atol=1e-4)


def test_crammer_singer_dense_equals_sparse_and_dual_is_feasible():
    X, y = MULTICLASS["iris"]
    dense = fit(X, y, multi_class="crammer_singer", tol=1e-6, random_state=3)
    sparse = fit(sp.csr_matrix(X), y, multi_class="crammer_singer", tol=1e-6, random_state=3)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dense.intercept_, sparse.intercept_, rtol=1e-10, atol=1e-12)
    alpha = dense.alpha_  # (n_classes, n_samples): sum_m a_i^m = 0, a_i^m <= C_i^m
    assert alpha.shape == (3, len(y))
    np.testing.assert_allclose(alpha.sum(axis=0), 0.0, atol=1e-12)
    own = alpha[np.searchsorted(dense.classes_, y), np.arange(len(y))]
    assert (own <= 1.0 + 1e-12).all() and (own >= -1e-12).all()
    others = alpha.copy()
    others[np.searchsorted(dense.classes_, y), np.arange(len(y))] = 0.0
    assert (others <= 0.0).all()
    # the decision is the class of the largest score
    scores = dense.decision_function(X)
    np.testing.assert_array_equal(dense.predict(X), dense.classes_[np.argmax(scores, axis=1)])


def test_crammer_singer_two_classes_use_one_row():
    X, y = MULTICLASS["iris"]
    y = (y == 1).astype(float)
    model = fit(X, y, multi_class="crammer_singer", **TIGHT)
    assert model.coef_.shape == (1, 4) and model.intercept_.shape == (1,)
    _, _, W = liblinear_train(X, y, "-s 4 -e 1e-9 -B 1")
    ours = np.concatenate([model.coef_[0], model.intercept_])
    np.testing.assert_allclose(ours, W[:, 1] - W[:, 0], rtol=1e-5, atol=1e-6)


def test_crammer_singer_history_callback_and_limits():
    X, y = MULTICLASS["digits"]
    seen = []

    def callback(record):
        seen.append((record["epoch"], record["coef"].shape, record["intercept"].shape))
        return record["epoch"] == 3

    model = fit(X, y, multi_class="crammer_singer", callback=callback, tol=1e-12,
                random_state=0)
    assert model.status_ == ["callback"] and model.n_iter_ == 3
    assert seen == [(e, (10, 64), (10,)) for e in (1, 2, 3)]
    assert [r["epoch"] for r in model.history_[0]] == [1, 2, 3]
    assert all(r["primal"] >= r["dual"] for r in model.history_[0])
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        limited = LinearSVC(multi_class="crammer_singer", tol=1e-12, max_iter=2).fit(X, y)
    assert limited.status_ == ["max_iter"] and limited.gap_[0] > 0


def test_crammer_singer_warm_start_continues():
    X, y = MULTICLASS["wine"]
    model = fit(X, y, multi_class="crammer_singer", warm_start=True, **TIGHT)
    first = model.n_iter_
    model.fit(X, y)
    assert model.n_iter_ < first
    assert model.gap_[0] <= 1e-6


# --- penalty='l1': objectives equal LIBLINEAR's -s 5 ---------------------------------

def _liblinear_converged(printed):
    return "reaching max number of iterations" not in printed


@pytest.mark.parametrize("bias", [-1.0, 1.0])
@pytest.mark.parametrize("name", ["heart_scale", "breast-cancer_scale"])
def test_l1_objective_equals_liblinear(load, name, bias):
    X, y = load(name)
    C = 1.0
    model = fit(X, y, penalty="l1", dual=False, C=C, fit_intercept=bias > 0, tol=1e-7,
                max_iter=100_000, random_state=0)
    _, printed, W = liblinear_train(X, y, f"-s 5 -c {C} -e 1e-7 -B {bias}")
    w = W[:, 0] if np.unique(y)[1] == 1 else -W[:, 0]
    cost = np.full(len(y), C)
    ours = l1_primal(X, y, np.concatenate([model.coef_[0], model.intercept_])
                     if bias > 0 else model.coef_[0], cost=cost, bias=bias)
    theirs = l1_primal(X, y, w, cost=cost, bias=bias)
    assert model.status_ == ["converged"]
    if _liblinear_converged(printed):
        assert abs(ours - theirs) <= 1e-6 * theirs
    else:  # LIBLINEAR stops -s 5 at 1000 iterations: never worse than where it stops
        assert ours <= theirs * (1 + 1e-12)
    assert model.primal_[0] == pytest.approx(ours, rel=1e-12)
    assert 0 <= model.gap_[0] <= 1e-4


def test_l1_certificate_is_a_feasible_dual_point(load):
    X, y = load("heart_scale")
    model = fit(X, y, penalty="l1", dual=False, tol=1e-8, max_iter=100_000, random_state=0)
    yy = np.where(y == model.classes_[1], 1.0, -1.0)
    problem = L1RegularizedProblem(X, yy, np.ones(len(y)), "squared_hinge", "augmented", 1.0)
    alpha = model.alpha_[0]
    assert (alpha >= 0).all()
    assert np.abs(problem.weights(alpha)).max() <= 1.0 + 1e-12
    dual = float(alpha.sum() - (alpha**2).sum() / 4.0)
    assert dual == pytest.approx(model.dual_[0], rel=1e-12)
    assert dual <= model.primal_[0] and model.gap_[0] <= 1e-6


def test_l1_gives_sparse_coefficients_and_dense_equals_sparse(load):
    X, y = load("breast-cancer_scale")
    sparse = fit(X, y, penalty="l1", dual=False, C=0.05, tol=1e-6, random_state=1)
    dense = fit(X.toarray(), y, penalty="l1", dual=False, C=0.05, tol=1e-6, random_state=1)
    assert (sparse.coef_ == 0).any()
    np.testing.assert_array_equal(dense.coef_, sparse.coef_)
    np.testing.assert_array_equal(dense.intercept_, sparse.intercept_)


def test_l1_multiclass_is_one_vs_rest_of_liblinear():
    X, y = MULTICLASS["wine"]
    model = fit(X, y, penalty="l1", dual=False, tol=1e-7, max_iter=100_000, random_state=0)
    _, printed, W = liblinear_train(X, y, "-s 5 -e 1e-7 -B 1")
    assert model.coef_.shape == (3, 13)
    for k, label in enumerate(model.classes_):
        yk = np.where(y == label, 1.0, 0.0)
        w_ours = np.concatenate([model.coef_[k], model.intercept_[k:k + 1]])
        ours = l1_primal(X, yk, w_ours, cost=np.ones(len(y)), bias=1.0)
        theirs = l1_primal(X, yk, W[:, k], cost=np.ones(len(y)), bias=1.0)
        assert ours <= theirs * (1 + 1e-6)


# --- dual=False with the L2 penalty: the same optimum as the dual --------------------

@pytest.mark.parametrize("fit_intercept", [False, True])
def test_primal_l2_equals_dual_and_liblinear(load, fit_intercept):
    X, y = load("heart_scale")
    primal_model = fit(X, y, dual=False, tol=1e-8, max_iter=100_000, random_state=0,
                       fit_intercept=fit_intercept)
    dual_model = fit(X, y, dual=True, tol=1e-10, max_iter=100_000, random_state=0,
                     fit_intercept=fit_intercept)
    bias = 1.0 if fit_intercept else -1.0
    _, _, W = liblinear_train(X, y, f"-s 2 -e 1e-8 -B {bias}")
    mode = "augmented" if fit_intercept else "none"
    w = W[:, 0] if np.unique(y)[1] == 1 else -W[:, 0]
    theirs = primal(X, y, w, loss="squared_hinge", bias=mode)
    assert primal_model.status_ == ["converged"]
    assert primal_model.primal_[0] == pytest.approx(dual_model.primal_[0], rel=1e-8)
    assert primal_model.primal_[0] == pytest.approx(theirs, rel=1e-6)
    assert primal_model.gap_[0] <= 1e-6


@pytest.mark.parametrize("eps", [1e-2, 1e-4])
@pytest.mark.parametrize("name", ["heart_scale", "iris"])
def test_primal_l2_is_liblinears_newton_method(load, name, eps):
    # the same algorithm and stopping rule: the same Newton iterations (the largest
    # over the one-vs-rest problems) and the same model, rounding apart
    X, y = load(name) if name == "heart_scale" else MULTICLASS[name]
    model = fit(X, y, dual=False, tol=eps)
    _, printed, W = liblinear_train(X, y, f"-s 2 -e {eps} -B 1")
    iterations = [int(n) for n in re.findall(r"^iter +(\d+)", printed, re.MULTILINE)]
    assert model.n_iter_ == max(iterations)
    if W.shape[1] == 1:  # LIBLINEAR's w decides for its first label
        W = W if np.unique(y)[1] == y[0] else -W
    ours = np.vstack([model.coef_.T, model.intercept_[None, :]])
    np.testing.assert_allclose(ours, W, rtol=1e-7, atol=1e-9)


# --- scikit-learn's combinations ----------------------------------------------------

@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("penalty", ["l1", "l2"])
@pytest.mark.parametrize("dual", [True, False, "auto"])
def test_combinations_as_scikit_learn(loss, penalty, dual):
    X, y = MULTICLASS["iris"]
    model = LinearSVC(penalty=penalty, loss=loss, dual=dual, max_iter=50)
    refused = (loss, penalty) == ("hinge", "l1") or (loss, penalty, dual) == \
        ("hinge", "l2", False) or (penalty, dual) == ("l1", True)
    if refused:
        shown = dual
        with pytest.raises(ValueError, match=f"Unsupported set of arguments.*penalty='{penalty}"
                                             f".*loss='{loss}.*dual={shown}"):
            model.fit(X, y)
    else:
        fit(X, y, penalty=penalty, loss=loss, dual=dual, max_iter=50)


@pytest.mark.parametrize("params,match", [
    ({"multi_class": "crammer_singer", "penalty": "l1"}, "crammer_singer.*penalty='l1'"),
    ({"multi_class": "crammer_singer", "dual": False}, "crammer_singer.*dual=False"),
    ({"multi_class": "crammer_singer", "intercept_mode": "exact"}, "exact"),
    ({"multi_class": "crammer_singer", "loss": "hinge"}, "own loss.*loss='hinge'"),
    ({"penalty": "l1", "dual": False, "intercept_mode": "exact"}, "exact"),
    ({"multi_class": "crammer_singer", "solver": "pegasos"}, "solver='pegasos'"),
    ({"penalty": "l1", "solver": "implicit"}, "solver='implicit'"),
    ({"dual": True, "solver": "pegasos"}, "solver='pegasos'"),
    ({"multi_class": "one_vs_one"}, "multi_class"),
    ({"penalty": "elasticnet"}, "penalty"),
])
def test_combinations_we_refuse(params, match):
    X, y = MULTICLASS["iris"]
    with pytest.raises(ValueError, match=match):
        LinearSVC(**params).fit(X, y)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_stochastic_solvers_are_primal_solvers(loss):
    X, y = MULTICLASS["iris"]
    model = fit(X, y, solver="implicit", loss=loss, dual=False, max_iter=5, random_state=0)
    assert (model.t_ > 0).all()  # the stochastic solver ran, not primal CD


# --- model files ----------------------------------------------------------------------

@pytest.mark.parametrize("params", [
    {"multi_class": "crammer_singer"},
    {"penalty": "l1", "dual": False},
    {"dual": False},
])
def test_save_load_round_trip(tmp_path, params):
    X, y = MULTICLASS["wine"]
    model = fit(X, y, random_state=0, **params)
    save_model(model, tmp_path / "m")
    loaded = load_model(tmp_path / "m")
    np.testing.assert_array_equal(loaded.coef_, model.coef_)
    np.testing.assert_array_equal(loaded.intercept_, model.intercept_)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert loaded.get_params() == {**model.get_params(), "callback": None}
    np.testing.assert_array_equal(loaded.gap_, model.gap_)
    assert loaded.status_ == model.status_


@pytest.mark.parametrize("solver,params,y_kind", [
    (4, {"multi_class": "crammer_singer"}, "multi"),
    (4, {"multi_class": "crammer_singer"}, "binary"),
    (5, {"penalty": "l1", "dual": False}, "multi"),
    (5, {"penalty": "l1", "dual": False}, "binary"),
])
def test_liblinear_text_models_both_ways(tmp_path, solver, params, y_kind):
    from liblinear import liblinearutil as ll

    X, y = MULTICLASS["wine"]
    if y_kind == "binary":
        y = np.where(y == 1, 1.0, -1.0)
    model = fit(X, y, random_state=0, **params)
    export_liblinear(model, tmp_path / "ours.txt")
    text = (tmp_path / "ours.txt").read_text()
    assert text.startswith("solver_type " + ("MCSVM_CS" if solver == 4 else "L1R_L2LOSS_SVC"))
    theirs = ll.load_model(str(tmp_path / "ours.txt"))
    labels, _, _ = ll.predict(y, sp.csr_matrix(X), theirs, "-q")
    np.testing.assert_array_equal(labels, model.predict(X))
    # a model LIBLINEAR trained, imported: the same predictions as LIBLINEAR's
    peer, _, _ = liblinear_train(X, y, f"-s {solver} -B 1 -q")
    ll.save_model(str(tmp_path / "peer.txt"), peer)
    imported = import_liblinear(tmp_path / "peer.txt")
    labels, _, _ = ll.predict(y, sp.csr_matrix(X), peer, "-q")
    np.testing.assert_array_equal(imported.predict(X), labels)
    for name, value in params.items():
        assert imported.get_params()[name] == value


# --- slow: benchmark-sized data ---------------------------------------------------------

@pytest.mark.slow
def test_l1_objective_no_worse_than_liblinear_on_a9a(load_benchmark):
    X, y = load_benchmark("a9a.bz2")
    model = fit(X, y, penalty="l1", dual=False, tol=1e-4, max_iter=100_000, random_state=0,
                fit_intercept=False)
    _, printed, W = liblinear_train(X, y, "-s 5 -e 1e-4")
    w = W[:, 0] if np.unique(y)[1] == 1 else -W[:, 0]
    theirs = l1_primal(X, y, w, cost=np.ones(len(y)))
    ours = l1_primal(X, y, model.coef_[0], cost=np.ones(len(y)))
    if _liblinear_converged(printed):
        assert abs(ours - theirs) <= 1e-6 * theirs
    else:
        assert ours <= theirs * (1 + 1e-12)
    assert model.status_ == ["converged"]


@pytest.mark.slow
def test_crammer_singer_objective_equals_liblinear_on_a9a_as_multiclass(load_benchmark):
    """a9a's 123 binary features with a 4-class label (the class and whether feature 1 of
    the education block is on): a larger, sparse multi-class problem."""
    X, y = load_benchmark("a9a.bz2")
    X, y = X[:8000], y[:8000]
    y = 2.0 * (y > 0) + np.asarray(X[:, 40].todense()).ravel()
    model = fit(X, y, multi_class="crammer_singer", tol=1e-6, max_iter=100_000, random_state=0)
    _, _, W = liblinear_train(X, y, "-s 4 -e 1e-6 -B 1")
    cost = np.ones(len(y))
    ours = crammer_singer_primal(X, y, our_cs_weights(model, 1.0), cost=cost, bias=1.0)
    theirs = crammer_singer_primal(X, y, W, cost=cost, bias=1.0)
    assert abs(ours - theirs) <= 1e-6 * theirs


# --- the command line: dualsvm train -s 4 and -s 5 as LIBLINEAR's train ---------------

def _svmlight(tmp_path, name):
    from sklearn.datasets import dump_svmlight_file

    X, y = MULTICLASS[name]
    path = tmp_path / name
    dump_svmlight_file(X, y.astype(int), str(path), zero_based=False)
    return path


def run_cli(capsys, *argv):
    from dualsvm import cli

    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("solver,bias", [(4, -1.0), (4, 1.0), (5, 1.0)])
def test_cli_trains_like_liblinear(tmp_path, capsys, solver, bias):
    import json

    from liblinear import liblinearutil as ll

    data = _svmlight(tmp_path, "wine")
    X, y = MULTICLASS["wine"]
    status, out, err = run_cli(capsys, "train", "-s", solver, "-e", "1e-7", "-B", bias, "--json",
                               "--max-iter", 100_000, data, tmp_path / "m")
    assert status == 0, err
    summary = json.loads(out.strip().splitlines()[-1])
    assert summary["solver"] == {4: "cs-dual", 5: "l1-primal-cd"}[solver]
    assert summary["status"] == "converged"
    model = load_model(tmp_path / "m")
    _, _, W = liblinear_train(X, y, f"-s {solver} -e 1e-7 -B {bias}")
    if solver == 4:
        assert model.multi_class == "crammer_singer" and len(summary["problems"]) == 1
        cost = np.ones(len(y))
        ours = crammer_singer_primal(X, y, our_cs_weights(model, bias), cost=cost, bias=bias)
        theirs = crammer_singer_primal(X, y, W, cost=cost, bias=bias)
        assert abs(ours - theirs) <= 1e-6 * theirs
        assert summary["primal"] == pytest.approx(ours, rel=1e-10)
    else:
        assert (model.penalty, model.dual) == ("l1", False) and len(summary["problems"]) == 3
    # LIBLINEAR's predict reads our exported model and agrees
    assert run_cli(capsys, "export-liblinear", tmp_path / "m", tmp_path / "ll.txt")[0] == 0
    labels, _, _ = ll.predict(y, sp.csr_matrix(X), ll.load_model(str(tmp_path / "ll.txt")), "-q")
    np.testing.assert_array_equal(labels, model.predict(X))
    # and -v cross-validates them
    status, out, err = run_cli(capsys, "train", "-s", solver, "-v", 3, data)
    assert status == 0 and "Cross Validation Accuracy" in out, err


@pytest.mark.parametrize("argv,match", [
    (["-s", "4", "--exact-bias"], "--exact-bias does not apply to -s 4"),
    (["-s", "5", "--exact-bias"], "--exact-bias does not apply to -s 5"),
    (["-s", "4", "-C", "-c", "2", "--c-grid", "1", "2", "2"], "-c and --c-grid"),
    (["-s", "5", "-p", "0.1"], "-p"),
])
def test_cli_refuses_what_does_not_apply(tmp_path, capsys, argv, match):
    data = _svmlight(tmp_path, "iris")
    status, _, err = run_cli(capsys, "train", *argv, data, tmp_path / "m")
    assert status == 2 and match in err


def test_cli_l1_default_tolerance_is_liblinears(tmp_path, capsys, load, data_dir):
    import json

    status, out, err = run_cli(capsys, "train", "-s", "5", "--json", data_dir / "heart_scale",
                               tmp_path / "m")
    assert status == 0, err
    model = load_model(tmp_path / "m")
    assert model.tol == 0.01
    X, y = load("heart_scale")
    _, _, W = liblinear_train(X, y, "-s 5")
    w = W[:, 0] if np.unique(y)[1] == 1 else -W[:, 0]
    theirs = l1_primal(X, y, w, cost=np.ones(len(y)))
    assert json.loads(out.strip().splitlines()[-1])["primal"] <= theirs * (1 + 1e-3)


@pytest.mark.parametrize("params", [{"multi_class": "crammer_singer"},
                                    {"penalty": "l1", "dual": False}])
def test_path_over_C_reaches_the_cold_fits(params):
    from dualsvm import c_path

    X, y = MULTICLASS["wine"]
    Cs = [0.1, 1.0]
    estimator = LinearSVC(tol=1e-8, max_iter=100_000, random_state=0, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        path = list(c_path(estimator, X, y, Cs))
    for C, model in zip(Cs, path):
        cold = fit(X, y, C=C, tol=1e-8, max_iter=100_000, random_state=0, **params)
        assert model.C == C
        np.testing.assert_allclose(model.primal_, cold.primal_, rtol=1e-6)


@pytest.mark.parametrize("params", [{"multi_class": "crammer_singer"},
                                    {"penalty": "l1", "dual": False}])
def test_time_limit_and_verbose_trace(params, capsys):
    X, y = MULTICLASS["digits"]
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        model = LinearSVC(time_limit=0.0, **params).fit(X, y)
    assert set(model.status_) == {"time_limit"} and np.isfinite(model.gap_).all()
    fit(X, y, verbose=2, max_iter=3, tol=1e-12, random_state=0, **params)
    err = capsys.readouterr().err
    assert "primal" in err and "stopped: max_iter after 3 epochs" in err
