"""LinearSVC against LIBLINEAR and LIBSVM, and the properties of its solutions."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from conftest import bad_parameter
from dualsvm import LinearSVC
from dualsvm.problems.linear import DualProblem
from dualsvm.training.config import LinearTraining
from reference import liblinear_weights, libsvm_linear, primal

LOSSES = ["squared_hinge", "hinge"]


def fit(X, y, **params):
    # these tests are about DCD: dual='auto' would solve tall tables in the primal
    params.setdefault("dual", True)
    params.setdefault("random_state", 0)
    with np.errstate(all="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return LinearSVC(**params).fit(X, y)


def binary_problem(model, X, y, sample_weight=None):
    """The DualProblem a fitted binary model solved, to check its KKT conditions."""
    cost = model.C * (np.ones(len(y)) if sample_weight is None else sample_weight)
    return DualProblem(sp.csr_matrix(X), np.where(y == model.classes_[1], 1.0, -1.0), cost,
                       model.loss, LinearTraining.of(model.get_params()).bias_mode, model.intercept_scaling)


# --- objectives equal LIBLINEAR's ------------------------------------------------

@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("bias", [-1.0, 1.0])
@pytest.mark.parametrize("name", ["heart_scale", "a9a.bz2"])
def test_tight_objective_equals_liblinear(load, name, loss, bias):
    X, y = load(name)
    eps = 1e-5
    model = fit(X, y, loss=loss, tol=eps, max_iter=5000, fit_intercept=bias > 0)
    mode = "augmented" if bias > 0 else "none"
    ours = primal(X, y, np.append(model.coef_[0], model.intercept_[0:1] if bias > 0 else []),
                  loss=loss, bias=mode)
    np.testing.assert_allclose(ours, model.primal_[0], rtol=1e-12)
    theirs = primal(X, y, liblinear_weights(X, y, loss=loss, eps=eps, bias=bias), loss=loss, bias=mode)
    if loss == "squared_hinge":
        assert abs(ours - theirs) <= 1e-5 * theirs
    else:  # LIBLINEAR stops at its 300-epoch limit here, short of the optimum
        assert ours <= theirs * (1 + 1e-5)
    assert model.gap_[0] < 1e-4


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("eps", [0.1, 0.01])
def test_loose_objective_no_worse_than_liblinear(load, loss, eps):
    X, y = load("a9a.bz2")
    model = fit(X, y, loss=loss, tol=eps, fit_intercept=False)
    theirs = primal(X, y, liblinear_weights(X, y, loss=loss, eps=eps), loss=loss)
    assert primal(X, y, model.coef_[0], loss=loss) <= theirs * (1 + 1e-3)


@pytest.mark.slow
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("eps", [0.1, 0.01])
@pytest.mark.parametrize("name", ["w8a.bz2", "ijcnn1.bz2", "reuters.trn.bz2"])
def test_benchmark_objectives_no_worse_than_liblinear(load_benchmark, name, loss, eps):
    X, y = load_benchmark(name)
    model = fit(X, y, loss=loss, tol=eps, fit_intercept=False)
    theirs = primal(X, y, liblinear_weights(X, y, loss=loss, eps=eps), loss=loss)
    assert primal(X, y, model.coef_[0], loss=loss) <= theirs * (1 + 1e-3)


def test_class_weight_matches_liblinear(load):
    X, y = load("heart_scale")
    weights = {1: 3.0, -1: 0.5}
    model = fit(X, y, tol=1e-6, class_weight=weights, fit_intercept=False, max_iter=5000)
    cost = np.where(y == 1, 3.0, 0.5)
    ours = primal(X, y, model.coef_[0], loss="squared_hinge", cost=cost)
    theirs = primal(X, y, liblinear_weights(X, y, loss="squared_hinge", eps=1e-6, weights=weights),
                    loss="squared_hinge", cost=cost)
    assert abs(ours - theirs) <= 1e-6 * theirs


def test_multiclass_one_vs_rest_matches_liblinear():
    from liblinear import liblinearutil as ll

    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    model = fit(X, y, tol=1e-6, fit_intercept=False, max_iter=5000)
    theirs = ll.train(ll.problem(y, X), ll.parameter("-s 1 -c 1 -e 1e-6 -q"))
    labels = theirs.get_labels()
    w = np.array([theirs.w[k] for k in range(X.shape[1] * len(labels))]).reshape(X.shape[1], -1).T
    order = [labels.index(c) for c in model.classes_]
    np.testing.assert_allclose(model.coef_, w[order], rtol=1e-3, atol=1e-4)
    assert model.coef_.shape == (3, X.shape[1])


# --- the exact bias ----------------------------------------------------------------

@pytest.mark.parametrize("name", ["heart_scale", "breast-cancer_scale"])
def test_exact_bias_objective_equals_libsvm(load, name):
    X, y = load(name)
    model = fit(X, y, loss="hinge", intercept_mode="exact", tol=1e-5, max_iter=100000)
    w, b = libsvm_linear(X, y, eps=1e-5)
    theirs = primal(X, y, w, loss="hinge", intercept=b)
    ours = primal(X, y, model.coef_[0], loss="hinge", intercept=model.intercept_[0])
    np.testing.assert_allclose(ours, model.primal_[0], rtol=1e-12)
    assert ours <= theirs * (1 + 1e-5)
    assert ours >= theirs * (1 - 1e-4)
    assert abs(model.alpha_[0] @ np.where(y == model.classes_[1], 1, -1)) < 1e-8


@pytest.mark.slow
def test_exact_bias_objective_equals_libsvm_on_a9a(load):
    X, y = load("a9a.bz2")  # LIBSVM takes about 4 minutes here
    model = fit(X, y, loss="hinge", intercept_mode="exact", tol=1e-3, max_iter=100000)
    w, b = libsvm_linear(X, y, eps=1e-3)
    theirs = primal(X, y, w, loss="hinge", intercept=b)
    ours = primal(X, y, model.coef_[0], loss="hinge", intercept=model.intercept_[0])
    assert theirs * (1 - 1e-4) <= ours <= theirs * (1 + 1e-5)


@pytest.mark.parametrize("loss", LOSSES)
def test_exact_bias_kkt(load, loss):
    X, y = load("heart_scale")
    model = fit(X, y, loss=loss, intercept_mode="exact", tol=1e-6, max_iter=100000)
    problem = binary_problem(model, X, y)
    alpha = model.alpha_[0]
    score = -problem.y * problem.gradient(alpha, problem.decision(model.coef_[0]))
    up, low = problem.bias_sets(alpha)
    assert score[up].max() - score[low].min() <= 1e-6
    # the bias lies between the bounds the KKT conditions give it
    assert score[up].max() - 1e-6 <= model.intercept_[0] <= score[low].min() + 1e-6
    assert model.gap_[0] < 1e-5


def test_bias_modes():
    X, y = load_iris(return_X_y=True)
    X, y = X[y < 2] + 5.0, y[y < 2]  # shifted away from the origin: the bias matters
    none = fit(X, y, fit_intercept=False, tol=1e-6, max_iter=20000)
    augmented = fit(X, y, intercept_scaling=10.0, tol=1e-6, max_iter=20000)
    exact = fit(X, y, intercept_mode="exact", tol=1e-6, max_iter=20000)
    assert none.intercept_[0] == 0.0
    # a regularised bias costs objective; an unregularised one is the cheapest
    assert exact.primal_[0] <= augmented.primal_[0] <= none.primal_[0]
    # the augmented bias is B * w_B, w_B = B * sum_i alpha_i y_i, and enters the regularizer
    signed = augmented.alpha_[0] * np.where(y == augmented.classes_[1], 1.0, -1.0)
    assert augmented.intercept_[0] == pytest.approx(10.0**2 * signed.sum(), rel=1e-12)
    np.testing.assert_allclose(augmented.coef_[0], signed @ X, rtol=1e-12, atol=1e-12)
    w = np.append(augmented.coef_[0], augmented.intercept_[0] / 10.0)
    assert augmented.primal_[0] == pytest.approx(
        primal(X, y, w, loss="squared_hinge", bias="augmented", intercept_scaling=10.0), rel=1e-12)
    for model in (none, augmented, exact):
        assert model.score(X, y) == 1.0


# --- properties of the solution -----------------------------------------------------

@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("intercept_mode", ["augmented", "exact"])
def test_dense_and_sparse_give_the_same_model(load, loss, intercept_mode):
    X, y = load("heart_scale")
    params = dict(loss=loss, intercept_mode=intercept_mode, tol=1e-3, random_state=7)
    sparse = fit(X, y, **params)
    dense = fit(X.toarray(), y, **params)
    np.testing.assert_allclose(dense.alpha_, sparse.alpha_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dense.coef_, sparse.coef_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(dense.intercept_, sparse.intercept_, rtol=1e-10, atol=1e-12)
    assert dense.n_iter_ == sparse.n_iter_


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("shuffle", [True, False])
def test_kkt_conditions_at_the_solution(load, loss, shrinking, shuffle):
    X, y = load("heart_scale")
    tol = 1e-6 if shuffle else 1e-3  # cyclic order is far slower on this data
    model = fit(X, y, loss=loss, tol=tol, shrinking=shrinking, shuffle=shuffle, max_iter=100000)
    assert model.status_ == ["converged"]
    problem = binary_problem(model, X, y)
    alpha = model.alpha_[0]
    w = np.append(model.coef_[0], model.intercept_[0])
    np.testing.assert_allclose(problem.weights(alpha), w, rtol=1e-8, atol=1e-10)
    gradient = problem.gradient(alpha, problem.decision(w))
    assert np.all(alpha >= 0) and np.all(alpha <= problem.upper_bound)
    projected = np.where(alpha <= 0, np.minimum(gradient, 0),
                         np.where(alpha >= problem.upper_bound, np.maximum(gradient, 0), gradient))
    # The rule measures each PG_i when i is visited; later steps of the same epoch move
    # it a little, so the a-posteriori bound is a small multiple of tol.
    assert np.abs(projected).max() <= 10 * tol
    assert model.gap_[0] < 10 * tol
    assert model.dual_[0] <= model.primal_[0]


def test_scaling_sample_weight_equals_scaling_C(load):
    X, y = load("heart_scale")
    weighted = fit(X, y, C=1.0, tol=1e-8, max_iter=100000)
    heavier = LinearSVC(C=0.5, dual=True, tol=1e-8, max_iter=100000, random_state=0).fit(
        X, y, sample_weight=np.full(len(y), 2.0))
    np.testing.assert_allclose(heavier.coef_, weighted.coef_, rtol=1e-6)
    np.testing.assert_allclose(heavier.primal_, weighted.primal_, rtol=1e-10)


def test_zero_weight_equals_removing_the_row(load):
    X, y = load("heart_scale")
    sample_weight = np.ones(len(y))
    sample_weight[:40] = 0.0
    weighted = LinearSVC(dual=True, tol=1e-8, max_iter=100000, random_state=0).fit(
        X, y, sample_weight=sample_weight)
    removed = fit(X[40:], y[40:], tol=1e-8, max_iter=100000)
    np.testing.assert_allclose(weighted.coef_, removed.coef_, rtol=1e-6)
    assert np.all(weighted.alpha_[0, :40] == 0)


def test_random_state_reproducible_and_order_matters(load):
    X, y = load("heart_scale")
    a = fit(X, y, tol=1e-2, random_state=3)
    b = fit(X, y, tol=1e-2, random_state=3)
    c = fit(X, y, tol=1e-2, random_state=4)
    np.testing.assert_array_equal(a.alpha_, b.alpha_)
    assert not np.array_equal(a.alpha_, c.alpha_)


def test_warm_start_continues_from_the_dual(load):
    X, y = load("heart_scale")
    cold = fit(X, y, tol=1e-6, max_iter=5000)
    warm = LinearSVC(dual=True, tol=1e-2, warm_start=True, random_state=0).fit(X, y)
    warm.set_params(tol=1e-6, max_iter=5000).fit(X, y)
    assert warm.n_iter_ < cold.n_iter_
    np.testing.assert_allclose(warm.primal_, cold.primal_, rtol=1e-7)


# --- stopping, history, progress ----------------------------------------------------

def test_history_records_every_epoch(load):
    X, y = load("heart_scale")
    model = fit(X, y, tol=1e-4, monitor=True)
    history = model.history_[0]
    assert len(history) == model.n_iter_
    assert [r["epoch"] for r in history] == list(range(1, model.n_iter_ + 1))
    seconds = [r["seconds"] for r in history]
    assert seconds == sorted(seconds)
    duals = np.array([r["dual"] for r in history])
    assert np.all(np.diff(duals) >= -1e-9 * abs(duals[-1]))  # dual ascent is monotone
    for r in history:
        assert r["dual"] <= r["primal"] + 1e-9
    assert history[-1]["gap"] == model.gap_[0]


def test_unmonitored_history_still_certifies_the_last_epoch(load):
    X, y = load("heart_scale")
    model = fit(X, y, tol=1e-3)
    assert model.n_iter_ > 1
    assert all(np.isnan(record["primal"]) for record in model.history_[0][:-1])
    assert model.history_[0][-1]["gap"] == model.gap_[0]


def test_gap_tol_stops_on_the_certificate(load):
    X, y = load("heart_scale")
    model = fit(X, y, tol=1e-12, gap_tol=1e-3, max_iter=100000)
    assert model.status_ == ["gap"]
    assert model.gap_[0] <= 1e-3


def test_unmonitored_gap_tol_is_checked_every_two_passes_of_work(load):
    # gap_tol alone does not certify every epoch: a check after every two passes'
    # worth of (shrunk, shorter) epochs, and the stop is still certified; unmonitored,
    # a record ends at a check or after a slice of passes (tests/test_small_fits.py
    # holds the checks to those of one pass per record)
    X, y = load("a9a.bz2")
    model = fit(X, y, tol=1e-12, gap_tol=1e-3, max_iter=10000)
    history = model.history_[0]
    assert model.status_ == ["gap"] and model.gap_[0] <= 1e-3
    checked = [record["epoch"] for record in history if not np.isnan(record["gap"])]
    assert checked[-1] == history[-1]["epoch"] == model.n_iter_
    assert 1 < len(checked) < model.n_iter_ / 2
    monitored = fit(X, y, tol=1e-12, gap_tol=1e-3, max_iter=10000, monitor=True)
    assert not any(np.isnan(record["gap"]) for record in monitored.history_[0])
    assert monitored.status_ == ["gap"] and monitored.n_iter_ <= model.n_iter_


def test_max_iter_warns_and_returns_the_model(load):
    X, y = load("heart_scale")
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        model = LinearSVC(dual=True, tol=1e-12, max_iter=3, random_state=0).fit(X, y)
    assert model.status_ == ["max_iter"] and model.n_iter_ == 3
    assert 0 < model.gap_[0] < 1


def test_time_limit_returns_the_model_with_its_gap(load):
    X, y = load("a9a.bz2")
    fit(X[:100], y[:100], loss="hinge")  # compile (or load) the kernels outside the budget
    with pytest.warns(ConvergenceWarning, match="time_limit"):
        model = LinearSVC(loss="hinge", tol=1e-12, max_iter=10**6, time_limit=0.3,
                          random_state=0).fit(X, y)
    assert model.status_ == ["time_limit"]
    assert model.n_iter_ >= 1 and model.history_[0][-1]["seconds"] < 0.3 + 1.0
    assert 0 <= model.gap_[0] < 1 and model.history_[0][-1]["gap"] == model.gap_[0]
    assert model.score(X, y) > 0.75


def test_callback_sees_each_epoch_and_can_stop(load):
    X, y = load("heart_scale")
    seen = []

    def callback(record):
        seen.append(record["epoch"])
        return record["epoch"] == 5

    model = fit(X, y, tol=1e-12, callback=callback)
    assert seen == [1, 2, 3, 4, 5]
    assert model.status_ == ["callback"] and model.n_iter_ == 5


def test_ctrl_c_returns_the_current_model(load):
    X, y = load("heart_scale")

    def interrupt(record):
        if record["epoch"] == 4:
            raise KeyboardInterrupt

    with pytest.warns(ConvergenceWarning, match="interrupted"):
        model = LinearSVC(dual=True, tol=1e-12, callback=interrupt, random_state=0).fit(X, y)
    assert model.status_ == ["interrupted"]
    assert np.isfinite(model.gap_[0]) and model.score(X, y) > 0.7


def test_verbose_trace_and_progress_bar(load, capsys):
    X, y = load("heart_scale")
    fit(X, y, tol=1e-2, verbose=2)
    err = capsys.readouterr().err
    assert "primal" in err and "stopped: converged" in err
    assert len([line for line in err.splitlines() if line.strip()[:1].isdigit()]) >= 2
    fit(X, y, tol=1e-2, verbose=1)
    assert "epoch" in capsys.readouterr().err


# --- bad input ----------------------------------------------------------------------

@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_non_finite_input_is_refused(load, value):
    X, y = load("heart_scale")
    X = X.toarray()
    X[3, 2] = value
    with pytest.raises(ValueError, match="NaN|infinity"):
        LinearSVC().fit(X, y)
    with pytest.raises(ValueError, match="NaN|infinity"):
        LinearSVC().fit(sp.csr_matrix(X), y)


@pytest.mark.parametrize("loss", LOSSES)
def test_empty_rows_are_handled(loss):
    # an all-zero row has Q_ii = 0: hinge then sets a_i = C, as LIBLINEAR does
    X = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 0.0], [-1.0, 0.5], [0.0, 0.0], [2.0, 1.0]]))
    y = np.array([1, 1, -1, -1, 1])
    model = fit(X, y, loss=loss, fit_intercept=False, tol=1e-8, max_iter=10000)
    assert np.all(np.isfinite(model.coef_)) and model.status_ == ["converged"]
    if loss == "hinge":
        assert model.alpha_[0, 1] == model.alpha_[0, 3] == 1.0
    assert model.gap_[0] < 1e-6


def test_bad_inputs_have_clear_errors(load):
    X, y = load("heart_scale")
    with pytest.raises(ValueError, match="only one class"):
        LinearSVC().fit(X, np.ones(len(y)))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        LinearSVC().fit(X, y[:-1])
    with pytest.raises(ValueError, match=bad_parameter("LinearSVC", "C", 0)):
        LinearSVC(C=0).fit(X, y)
    with pytest.raises(ValueError, match=bad_parameter("LinearSVC", "loss", "log")):
        LinearSVC(loss="log").fit(X, y)
    with pytest.raises(ValueError, match=r"sample_weight.shape == \(3,\), expected \(270,\)"):
        LinearSVC().fit(X, y, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="all samples have zero or negative weights"):
        LinearSVC().fit(X, y, sample_weight=-np.ones(len(y)))
    model = LinearSVC().fit(X, y)
    with pytest.raises(ValueError, match="X has 5 features, but LinearSVC is expecting 13"):
        model.predict(X[:, :5])
