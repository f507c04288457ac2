"""Many passes per return to Python (issue 39): the same passes, model and stops as one
pass per epoch; the history it keeps; and ``dual='auto'``'s choice of side."""

import _thread
import signal
import threading
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from dualsvm import LinearSVC
from dualsvm.problems.linear import DualProblem
from dualsvm.solvers import DualCD, Stopping, run_epochs
from dualsvm.training.config import LinearTraining
from dualsvm.training.linear import auto_dual, liblinear_type

from reference import liblinear_weights, primal


def quiet_fit(X, y, **params):
    params.setdefault("random_state", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return LinearSVC(**params).fit(X, y)


def solve(problem, stopping, **options):
    solver = DualCD(problem, 1e-12, random_state=np.random.default_rng(0), **options)
    return solver, run_epochs(solver, problem, stopping)


@pytest.fixture
def heart(load):
    return load("heart_scale")


@pytest.mark.parametrize("loss", ["squared_hinge", "hinge"])
@pytest.mark.parametrize("layout", ["dense", "csr"])
def test_batched_passes_are_the_passes_of_one_pass_per_epoch(heart, loss, layout):
    X, y = heart
    X = X.toarray() if layout == "dense" and sp.issparse(X) else sp.csr_matrix(X)
    batched = quiet_fit(X, y, dual=True, loss=loss, tol=1e-5, max_iter=10**5)
    single = quiet_fit(X, y, dual=True, loss=loss, tol=1e-5, max_iter=10**5, monitor=True)
    assert batched.n_iter_ == single.n_iter_ > 10
    assert batched.status_ == single.status_ == ["converged"]
    np.testing.assert_array_equal(batched.coef_, single.coef_)
    np.testing.assert_array_equal(batched.alpha_, single.alpha_)
    # one record per return to Python: its epoch is the passes so far
    history = batched.history_[0]
    assert len(single.history_[0]) == single.n_iter_ > len(history)
    epochs = [record["epoch"] for record in history]
    assert epochs == sorted(epochs) and epochs[-1] == batched.n_iter_ and epochs[0] > 1
    assert all(np.isnan(record["gap"]) for record in history[:-1])
    assert history[-1]["gap"] == batched.gap_[0]
    assert history[-1]["violation"] <= 1e-5  # the converged pass's


def test_max_iter_counts_passes_when_batched(heart):
    X, y = heart
    model = quiet_fit(X, y, dual=True, tol=1e-12, max_iter=37)
    assert model.status_ == ["max_iter"] and model.n_iter_ == 37
    assert model.history_[0][-1]["epoch"] == 37


@pytest.mark.parametrize("shrinking", [True, False])
def test_gap_is_checked_after_the_same_passes_as_one_pass_per_epoch(heart, shrinking):
    X, y = heart
    problem = DualProblem(X, np.where(y > 0, 1.0, -1.0), np.ones(len(y)), "hinge", "none")
    stopping = Stopping(max_iter=100000, gap_tol=1e-4, monitor=False)
    one, one_result = solve(problem, stopping, shrinking=shrinking)
    many, many_result = solve(problem, stopping, shrinking=shrinking, work_per_epoch=10**9,
                              max_passes=100000)
    assert one_result.status == many_result.status == "gap"
    assert many.n_iter == one_result.n_iter == one.n_iter
    checked_one = [r["epoch"] for r in one_result.history if not np.isnan(r["gap"])]
    checked_many = [r["epoch"] for r in many_result.history if not np.isnan(r["gap"])]
    assert checked_one == checked_many and len(checked_many) > 2
    assert len(many_result.history) == len(checked_many)  # each return ends at a check
    if not shrinking:  # every pass visits all the rows: a check every GAP_CHECK_PASSES
        assert checked_many == list(range(2, 2 * len(checked_many) + 1, 2))
    np.testing.assert_array_equal(one.alpha, many.alpha)


def test_batched_fit_stops_on_its_time_limit(load):
    X, y = load("a9a.bz2")
    quiet_fit(X[:100], y[:100], dual=True, loss="hinge")  # compiled outside the budget
    model = quiet_fit(X, y, dual=True, loss="hinge", tol=1e-12, max_iter=10**6,
                      time_limit=0.3)
    assert model.status_ == ["time_limit"] and model.n_iter_ >= 1
    assert model.history_[0][-1]["seconds"] < 0.3 + 1.0
    assert model.history_[0][-1]["gap"] == model.gap_[0] < 1


def test_batched_fit_stops_on_ctrl_c(load):
    X, y = load("a9a.bz2")
    quiet_fit(X[:100], y[:100], dual=True, loss="hinge")
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")
    # Ctrl-C as in a terminal: a test runner's worker may have SIGINT ignored, and
    # interrupt_main then does nothing
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        model = quiet_fit(X, y, dual=True, loss="hinge", tol=1e-12, max_iter=10**6)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, handler)
    assert model.status_ == ["interrupted"] and model.n_iter_ >= 1
    assert np.isfinite(model.gap_[0]) and model.score(X, y) > 0.75


def test_callback_sees_every_pass(heart):
    X, y = heart
    seen = []

    def callback(record):
        seen.append(record["epoch"])
        return record["epoch"] == 7

    model = quiet_fit(X, y, dual=True, tol=1e-12, callback=callback)
    assert seen == list(range(1, 8))
    assert model.status_ == ["callback"] and model.n_iter_ == 7


@pytest.mark.parametrize("shape, params, dual", [
    ((300, 5), {}, False),
    ((300, 299), {}, False),  # 300 rows, 300 weights with the augmented feature
    ((300, 300), {}, True),
    ((300, 300), {"fit_intercept": False}, False),
    ((30, 500), {}, True),
    ((99, 5), {}, True),  # fewer than PRIMAL_MIN_ROWS rows
    ((100, 5), {}, False),
    ((300, 5), {"loss": "hinge"}, True),  # no Newton method for the hinge
    ((300, 5), {"intercept_mode": "exact"}, True),  # the exact bias is a dual constraint
    ((300, 5), {"multi_class": "crammer_singer"}, True),
    ((300, 5), {"solver": "pegasos"}, True),  # its own primal solver
    (None, {}, True),
])
def test_dual_auto_chooses_by_shape(shape, params, dual):
    assert auto_dual(LinearTraining.of(params), shape) is dual


def test_dual_auto_fits_tall_data_in_the_primal_to_liblinears_objective(heart):
    X, y = heart
    model = quiet_fit(X, y, tol=1e-6)
    assert liblinear_type(LinearTraining.of(model.get_params()), X.shape) == 2
    assert "cg_iterations" in model.history_[0][-1]  # Newton's records
    np.testing.assert_array_equal(model.coef_, quiet_fit(X, y, dual=False, tol=1e-6).coef_)
    w = liblinear_weights(X, y, loss="squared_hinge", eps=1e-6, bias=1.0)
    ours = primal(X, y, np.append(model.coef_[0], model.intercept_[0]), loss="squared_hinge",
                  bias="augmented")
    theirs = primal(X, y, w, loss="squared_hinge", bias="augmented")
    assert abs(ours - theirs) <= 1e-6 * theirs


def test_dual_auto_fits_wide_data_in_the_dual(load):
    X, y = load("heart_scale")
    X, y = X[:10], y[:10]  # 10 rows, 13 features
    model = quiet_fit(X, y)
    assert "cg_iterations" not in model.history_[0][-1]
    np.testing.assert_array_equal(model.coef_, quiet_fit(X, y, dual=True).coef_)
