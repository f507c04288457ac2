"""Warm-started paths over C (c_path), the searches over them (LinearSVCCV, LinearSVRCV,
SVCCV, SVRCV, NuSVRCV), the command line's -C and the plot of a search."""

import json
import re
import warnings

import numpy as np
import pytest
from liblinear import liblinearutil as ll
from sklearn.datasets import load_iris
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from dualsvm import SVC, SVCCV, LinearSVC, LinearSVCCV, c_path
from dualsvm import cli
from dualsvm.data.svmlight import read_svmlight
from dualsvm.training.kernel import KERNEL_SOLVERS
from dualsvm.kernels import make_kernel
from dualsvm.problems.kernel import KernelDualProblem, NuDual, SVRDual
from dualsvm.solvers import Stopping, run_epochs

CS = np.logspace(-6, 2, 9, base=2)


@pytest.fixture(scope="module")
def a9a(data_dir):
    X, y = read_svmlight(data_dir / "a9a.bz2")
    return X[:3000], y[:3000]


@pytest.fixture(scope="module")
def heart(data_dir):
    return read_svmlight(data_dir / "heart_scale")


def quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return fn()


def cold(estimator, C, X, y, **fit):
    return quiet(lambda: LinearSVC(**{**estimator.get_params(), "C": C}).fit(X, y, **fit)
                 if isinstance(estimator, LinearSVC)
                 else SVC(**{**estimator.get_params(), "C": C}).fit(X, y, **fit))


def relative(a, b):
    return np.abs(np.asarray(a) - np.asarray(b)) / np.abs(np.asarray(b))


# --- linear paths ----------------------------------------------------------------------

@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("bias", [{"fit_intercept": False}, {"intercept_mode": "augmented"},
                                  {"intercept_mode": "exact"}])
def test_linear_path_models_are_the_cold_fits(a9a, loss, bias):
    # LIBLINEAR's eps 0.1 on 3000 rows; then tight (eps 1e-6) on 1000
    for tol, rtol in ((0.1, 1e-3), (1e-6, 1e-6)):
        X, y = a9a if tol == 0.1 else (a9a[0][:1000], a9a[1][:1000])
        est = LinearSVC(loss=loss, dual=True, tol=tol, max_iter=100_000, random_state=0, **bias)
        path = c_path(est, X, y, CS)
        assert [m.C for m in path] == list(CS) and est.get_params()["C"] == 1.0
        colds = [cold(est, C, X, y) for C in CS]
        for model, reference in zip(path, colds):
            assert model.status_ == ["converged"]
            assert relative(model.primal_, reference.primal_).max() <= rtol
            assert 0 <= model.gap_[0] <= (2e-3 if tol == 0.1 else 1e-5)
            # the same function (w is unique): at tol 1e-6 the decisions agree to 1.4e-5
            np.testing.assert_allclose(model.decision_function(X), reference.decision_function(X),
                                       atol=0.3 if tol == 0.1 else 1e-4)
        if tol == 0.1 and bias.get("intercept_mode") != "exact":
            # warm starts save work: fewer epochs along the path than the cold fits take
            assert sum(m.n_iter_ for m in path) < sum(m.n_iter_ for m in colds)


@pytest.mark.parametrize("start", ["primal", "best"])
def test_primal_and_best_starts_reach_the_same_models(a9a, start):
    X, y = a9a
    est = LinearSVC(tol=1e-6, max_iter=100_000, random_state=0)
    for model, C in zip(c_path(est, X, y, CS, start=start), CS):
        assert relative(model.primal_, cold(est, C, X, y).primal_).max() <= 1e-6
    with pytest.raises(ValueError, match="exact intercept"):
        c_path(LinearSVC(intercept_mode="exact"), X, y, CS, start=start)


def test_extrapolated_start_predicts_a_linear_trend_in_log_c():
    # dual variables per unit of C that move linearly in log C are predicted exactly
    # at the next C (before the solver's projection into its box)
    from types import SimpleNamespace

    from dualsvm.training.linear import WarmStart, extrapolated_alpha

    base, slope = np.array([0.2, 0.5, 0.9]), np.array([0.01, -0.02, 0.0])
    Cs = np.array([1.0, 1.5, 3.0])
    fits = [SimpleNamespace(alpha_=C * (base + np.log(C) * slope)) for C in Cs[:2]]
    guess = WarmStart(extrapolated=[extrapolated_alpha(fits[1], Cs[2] / Cs[1], Cs[1] / Cs[0],
                                                       fits[0])]).rescaled(Cs[2] / Cs[1])
    np.testing.assert_allclose(guess.extrapolated[0], Cs[2] * (base + np.log(Cs[2]) * slope))


def test_path_starts_from_the_candidate_of_larger_dual(a9a):
    # each fit after the second is offered the scaled and the extrapolated start and
    # takes the one of larger dual objective: never below the scaled start's
    from dualsvm.training.config import LinearTraining
    from dualsvm.training.linear import WarmStart, dual_start, path_start
    from dualsvm.problems.linear import DualProblem

    X, y = a9a
    est = LinearSVC(loss="hinge", tol=0.1, random_state=0)
    path = c_path(est, X, y, CS[:3])
    ratio, earlier = CS[2] / CS[1], (CS[1] / CS[0], path[0])
    start = path_start(path[1], ratio, LinearTraining.of(est.get_params()), "dual", earlier)
    assert start.extrapolated is not None
    labels = np.where(y == path[1].classes_[1], 1.0, -1.0)
    problem = DualProblem(X, labels, np.full(len(y), CS[2]), "hinge", "augmented")
    chosen, w = dual_start(problem, start, 0)
    scaled, _ = dual_start(problem, WarmStart(alpha=start.alpha), 0)
    extrapolated, _ = dual_start(problem, WarmStart(alpha=start.extrapolated), 0)
    np.testing.assert_allclose(w, problem.weights(chosen))
    dual = lambda a: problem.dual(a, problem.weights(a))  # noqa: E731
    assert dual(chosen) == max(dual(scaled), dual(extrapolated))
    assert not np.array_equal(scaled, extrapolated)  # two candidates to choose from
    assert np.all((chosen >= 0) & (chosen <= CS[2]))


def test_path_fits_shrink_from_their_first_epoch(a9a):
    # the next C continues the run: its first epoch shrinks by the violation the
    # previous fit ended with, where a cold fit's first epoch visits every variable
    X, y = a9a
    est = LinearSVC(loss="hinge", tol=0.1, random_state=0, monitor=True)
    path = c_path(est, X, y, CS)
    n = X.shape[0]
    assert cold(est, CS[-1], X, y).history_[0][0]["active_size"] == n
    assert all(m.history_[0][0]["active_size"] < n for m in path[1:])


@pytest.mark.parametrize("loss", ["epsilon_insensitive", "squared_epsilon_insensitive"])
def test_linear_svr_path_models_are_the_cold_fits(load, loss):
    from dualsvm import LinearSVR

    X, y = load("housing_scale")
    Cs = np.logspace(-3, 5, 17, base=2)
    weights = np.linspace(0.5, 1.5, len(y))
    est = LinearSVR(loss=loss, epsilon=0.1, tol=1e-6, max_iter=100_000, random_state=0)
    path = c_path(est, X, y, Cs, sample_weight=weights)
    colds = [cold_fit for cold_fit in (quiet(lambda: LinearSVR(**{**est.get_params(), "C": C})
                                             .fit(X, y, sample_weight=weights)) for C in Cs)]
    for model, reference, C in zip(path, colds, Cs):
        assert model.C == C and relative(model.primal_, reference.primal_).max() <= 1e-5
        assert model.gap_[0] <= 1e-4 and model.predict(X[:3]).shape == (3,)
    # held to the cold fit's reference, the warm starts save passes
    assert sum(m.n_iter_ for m in path) < sum(m.n_iter_ for m in colds)
    with pytest.raises(ValueError, match="previous dual variables"):
        c_path(est, X, y, Cs, start="best")


def test_multiclass_weighted_path():
    X, y = load_iris(return_X_y=True)
    est = LinearSVC(loss="hinge", tol=1e-8, max_iter=100_000, class_weight={0: 2.0, 2: 0.5},
                    random_state=0)
    weights = np.linspace(0.5, 1.5, len(y))
    path = c_path(est, X, y, CS, sample_weight=weights)
    for model, C in zip(path, CS):
        reference = cold(est, C, X, y, sample_weight=weights)
        assert model.coef_.shape == (3, 4)
        assert relative(model.primal_, reference.primal_).max() <= 1e-6
        assert (model.gap_ <= 1e-6).all()


@pytest.mark.parametrize("solver", ["pegasos", "implicit"])
def test_primal_solvers_continue_along_the_path(heart, solver):
    X, y = heart
    est = LinearSVC(solver=solver, max_iter=30, random_state=0)
    path = quiet(lambda: c_path(est, X, y, CS[:4]))
    steps = [int(m.t_[0]) for m in path]
    assert steps == sorted(steps) and steps[0] > 0  # each continues the one before
    for model, C in zip(path, CS):
        reference = cold(est.set_params(max_iter=30), C, X, y)
        assert np.isfinite(model.primal_).all() and (model.gap_ >= 0).all()
        assert model.primal_[0] <= reference.primal_[0] * 1.05


def test_grid_and_estimator_are_checked(heart):
    X, y = heart
    for bad in ([1.0, 1.0], [2.0, 1.0], [0.0, 1.0], [], [np.inf], [[1.0, 2.0]]):
        with pytest.raises(ValueError, match="Cs must"):
            c_path(LinearSVC(), X, y, bad)
    with pytest.raises(TypeError, match="c_path takes a dualsvm LinearSVC"):
        c_path(GridSearchCV(LinearSVC(), {"C": [1.0]}), X, y, [1.0])
    with pytest.raises(ValueError, match="start must be one of"):
        c_path(LinearSVC(), X, y, [1.0, 2.0], start="cold")
    with pytest.raises(ValueError, match="start='dual'"):
        c_path(SVC(), X, y, [1.0, 2.0], start="primal")


# --- kernel paths ----------------------------------------------------------------------

@pytest.mark.parametrize("solver", ["smo", "ws", "cgd", "dcd", "pgd"])
def test_kernel_path_models_are_the_cold_fits(heart, solver):
    X, y = heart
    Cs = np.logspace(-3, 4, 8, base=2)
    if solver == "dcd":  # without a bias it takes thousands of epochs from C = 8 at tol 1e-6
        Cs = Cs[:6]  # (40 s of the default run)
    est = SVC(solver=solver, gamma=0.1, tol=1e-6, random_state=0)
    path = quiet(lambda: c_path(est, X, y, Cs))
    colds = [cold(est, C, X, y) for C in Cs]
    for model, reference in zip(path, colds):
        assert model.status_ == ["converged"]
        assert relative(model.primal_, reference.primal_).max() <= 1e-4
    if solver == "smo":
        # the kernel cache is kept across the path: fewer kernel evaluations than cold fits
        evaluations = path[-1].history_[0][-1]["kernel_evaluations"]  # cumulative on the path
        assert evaluations < sum(m.history_[0][-1]["kernel_evaluations"] for m in colds)
        np.testing.assert_allclose(path[-1].decision_function(X),
                                   colds[-1].decision_function(X), atol=1e-3)


def test_kernel_path_multiclass_one_vs_one():
    X, y = load_iris(return_X_y=True)
    est = SVC(gamma=0.5, tol=1e-8, class_weight="balanced")
    for model, C in zip(c_path(est, X, y, CS), CS):
        reference = cold(est, C, X, y)
        assert relative(model.primal_, reference.primal_).max() <= 1e-6
        np.testing.assert_array_equal(model.predict(X), reference.predict(X))


@pytest.mark.parametrize("model", ["SVR", "NuSVR"])
def test_kernel_regression_path_models_are_the_cold_fits(load, model):
    # the path starts each fit from (a, a*) = (beta+, beta-) scaled, its equality
    # constraints restored; every model as good as a cold fit's to within its own gap
    import dualsvm

    X, y = load("housing_scale")
    Cs = np.logspace(-3, 6, 10, base=2)
    extra = {"epsilon": 0.5} if model == "SVR" else {"nu": 0.3}
    est = getattr(dualsvm, model)(gamma=0.5, tol=1e-6, **extra)
    path = c_path(est, X, y, Cs)
    colds = [clone(est).set_params(C=C).fit(X, y) for C in Cs]
    for fitted, reference, C in zip(path, colds, Cs):
        assert type(fitted) is type(est) and fitted.C == C and fitted.status_ == ["converged"]
        assert fitted.primal_[0] - reference.primal_[0] <= fitted.primal_[0] - fitted.dual_[0]
        assert relative(fitted.primal_, reference.primal_).max() <= 1e-6
        assert fitted.gap_[0] <= 1e-6
        np.testing.assert_allclose(fitted.predict(X), reference.predict(X), atol=1e-3)
    # warm starts take fewer SMO steps, and the cache kept along the path fewer kernel values
    assert sum(m.n_iter_ for m in path) < sum(m.n_iter_ for m in colds)
    evaluations = path[-1].history_[0][-1]["kernel_evaluations"]  # cumulative on the path
    assert evaluations < sum(m.history_[0][-1]["kernel_evaluations"] for m in colds)


def test_a_regression_start_keeps_the_equality_constraints(load):
    # nu-SVR: e'(a - a*) = 0 and e'(a + a*) = nu sum C, whatever the start (a scaled
    # solution off by rounding, one a far from feasible); epsilon-SVR: e'(a - a*) = 0;
    # one-class: e'a = nu sum W
    X, z = load("housing_scale")
    C = np.full(len(z), 2.0)
    rng = np.random.default_rng(0)
    nu = SVRDual(X, z, C, nu=0.3, kernel=make_kernel("rbf", gamma=0.5))
    for start in (nu.start * (1 + 1e-13), rng.uniform(0, 3, 2 * len(z)), np.zeros(2 * len(z))):
        alpha = nu.feasible(start)
        assert ((alpha >= 0) & (alpha <= nu.upper_bound)).all()
        assert alpha[nu.y > 0].sum() == pytest.approx(0.15 * C.sum(), rel=1e-12)
        assert alpha[nu.y < 0].sum() == pytest.approx(0.15 * C.sum(), rel=1e-12)
    eps = SVRDual(X, z, C, epsilon=0.1, kernel=make_kernel("rbf", gamma=0.5))
    alpha = eps.feasible(rng.uniform(0, 3, 2 * len(z)))
    assert ((alpha >= 0) & (alpha <= eps.upper_bound)).all()
    assert alpha @ eps.y == pytest.approx(0.0, abs=1e-9)
    one_class = NuDual(X, None, np.ones(len(z)), nu=0.2, kernel=make_kernel("rbf", gamma=0.5))
    alpha = one_class.feasible(rng.uniform(0, 1, len(z)))
    assert alpha.sum() == pytest.approx(0.2 * len(z), rel=1e-12) and (alpha <= 1).all()


def test_kernel_models_without_c_are_refused(heart):
    from dualsvm import NuSVC, OneClassSVM

    X, y = heart
    for est in (NuSVC(), OneClassSVM()):
        with pytest.raises(TypeError, match="c_path takes"):
            c_path(est, X, y, [1.0, 2.0])


def test_scaled_gradient_equals_a_fresh_one(heart):
    X, y = heart
    y = np.where(y > 0, 1.0, -1.0)
    kernel = make_kernel("rbf", gamma=0.2, X=X)
    alpha = np.random.default_rng(0).uniform(0, 1, len(y))
    kept = KernelDualProblem(X, y, np.ones(len(y)), "squared_hinge", "exact", kernel)
    kept.gradient(alpha)
    kept.set_costs(np.full(len(y), 3.0))
    fresh = KernelDualProblem(X, y, np.full(len(y), 3.0), "squared_hinge", "exact", kernel)
    np.testing.assert_allclose(kept.gradient(3.0 * alpha), fresh.gradient(3.0 * alpha),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(kept.gradient(alpha[::-1]), fresh.gradient(alpha[::-1]),
                               rtol=1e-12, atol=1e-12)  # not a multiple: computed afresh


def test_a_start_within_rounding_of_the_kept_product_computes_no_column(heart):
    # a path's start is the previous solution times C_new / C_old while the kept
    # product was scaled by the ratio of the costs (and y'a = 0 is restored by a factor
    # 1 - 1e-16): entries that differ by rounding must not cost a kernel column
    X, y = heart
    y = np.where(y > 0, 1.0, -1.0)
    kernel = make_kernel("rbf", gamma=0.2, X=X)
    alpha = np.random.default_rng(0).uniform(0, 1, len(y))
    problem = KernelDualProblem(X, y, np.ones(len(y)), "hinge", "exact", kernel)
    problem.gradient(alpha)
    problem.set_costs(np.full(len(y), 1.0 / 3.0) * 3.0 * 1.7)  # a ratio computed otherwise
    evaluations = problem.q.kernel_evaluations
    start = alpha * (1.7 * (1 + 2**-52))
    start[:5] += 0.1  # five entries really moved
    fresh = KernelDualProblem(X, y, np.full(len(y), 1.7), "hinge", "exact", kernel)
    np.testing.assert_allclose(problem.gradient(start), fresh.gradient(start),
                               rtol=1e-12, atol=1e-12)
    assert problem.q.kernel_evaluations - evaluations == 5 * len(y)

def test_exact_product_on_a_path_computes_only_what_moved(heart):
    # the certificate's float64 product is kept (NaN where not computed) and rescaled with
    # the costs: the next one costs the moved columns on the rows it knows, and the
    # support's columns on the others
    X, y = heart
    y = np.where(y > 0, 1.0, -1.0)
    kernel = make_kernel("rbf", gamma=0.2, X=X)
    rng = np.random.default_rng(0)
    alpha = np.where(rng.uniform(size=len(y)) < 0.5, rng.uniform(0, 1, len(y)), 0.0)
    problem = KernelDualProblem(X, y, np.ones(len(y)), "hinge", "exact", kernel)
    first = np.arange(0, 200)
    problem.exact_product(alpha, first)
    problem.set_costs(np.full(len(y), 2.5))
    start = 2.5 * alpha
    start[[3, 4, 250]] += 0.1  # three variables moved
    rows = np.arange(100, 270)  # 100 rows known, 70 not
    evaluations = problem.q.kernel_evaluations
    exact = problem.exact_product(start, rows)
    assert problem.q.kernel_evaluations - evaluations == 100 * 3 + 70 * np.count_nonzero(start)
    fresh = KernelDualProblem(X, y, np.full(len(y), 2.5), "hinge", "exact", kernel)
    np.testing.assert_allclose(exact, fresh.q.block(rows, np.arange(len(y))) @ start,
                               rtol=1e-12, atol=1e-12)


def test_ws_path_leaves_out_far_rows_and_checks_all(a9a):
    # a warm-started working-set fit leaves out the rows far beyond the margin once its
    # violation is small, and meets the stopping rule on every variable at the end (the
    # left-out gradients brought up to date): each path model is the cold fit's
    X, y = a9a
    Cs = np.logspace(-1, 3, 5, base=2)
    est = SVC(solver="ws", gamma=0.05, tol=1e-3)
    path = quiet(lambda: c_path(est, X, y, Cs))
    assert all(min(r["active_size"] for r in m.history_[0]) < len(y) for m in path[2:])
    y_pm = np.where(y == path[0].classes_[1], 1.0, -1.0)
    for model, C in zip(path, Cs):
        reference = cold(est, C, X, y)
        assert model.status_ == ["converged"] and model.history_[0][-1]["active_size"] == len(y)
        assert relative(model.dual_, reference.dual_).max() <= 1e-6
        alpha = np.zeros(len(y))
        alpha[model.support_] = np.abs(model.dual_coef_.toarray()[0])
        problem = KernelDualProblem(X, y_pm, np.full(len(y), C), "hinge", "exact",
                                    make_kernel("rbf", gamma=0.05))
        assert problem.max_violation(alpha, problem.gradient(alpha)) < 1e-3


def test_smo_warm_start_shrinks_early_and_reaches_the_cold_fit(a9a):
    # a warm start shrinks after WARM_FIRST_SHRINK steps (LIBSVM's counter waits
    # min(n, 1000)); the rule is still checked on every variable at the end
    from dualsvm.solvers.smo import WARM_FIRST_SHRINK

    X, y, kernel, problem, warm = _warm_at_twice_c(a9a, "smo")
    warm.steps_per_epoch = WARM_FIRST_SHRINK + 1
    warm.epoch()
    assert warm.active_size < len(y)
    result = run_epochs(warm, problem, Stopping(max_iter=10**6))
    fresh = KernelDualProblem(X, y, np.full(len(y), 8.0), "hinge", "exact", kernel)
    _, cold = _solve(fresh, "smo")
    assert result.status == "converged" and warm.active_size == len(y)
    assert result.dual == pytest.approx(cold.dual, rel=1e-6)
    assert fresh.max_violation(result.alpha, fresh.gradient(result.alpha)) < 1e-3 + 1e-5


def test_ws_stopped_while_rows_are_left_out_certifies_all(a9a):
    # an early stop (max_iter, time limit, Ctrl-C) while rows are left out brings their
    # gradients up to date before the final certificate
    X, y, kernel, _, warm = _warm_at_twice_c(a9a, "ws")
    while warm.active_size == len(y):
        assert not warm.epoch()
    warm.epoch()
    assert warm.active_size < len(y) and warm.finish()
    fresh = KernelDualProblem(X, y, np.full(len(y), 8.0), "hinge", "exact", kernel)
    np.testing.assert_allclose(warm.G, fresh.gradient(warm.alpha), rtol=0, atol=1e-5)
    primal, dual, gap, intercept = warm.certificate()
    expected = fresh.certificate(warm.alpha, fresh.gradient(warm.alpha), intercept=intercept)
    np.testing.assert_allclose([primal, dual, gap], expected[:3], rtol=1e-10)


def _warm_at_twice_c(a9a, solver):
    """(X, y, kernel, problem, solver): ``solver`` at C = 8 started from its solution at
    C = 4 scaled (a path's step), on the same problem."""
    X, y = a9a
    y = np.where(y > 0, 1.0, -1.0)
    kernel = make_kernel("rbf", gamma=0.05)
    problem = KernelDualProblem(X, y, np.full(len(y), 4.0), "hinge", "exact", kernel)
    _, first = _solve(problem, solver)
    problem.set_costs(np.full(len(y), 8.0))
    warm, _ = KERNEL_SOLVERS[solver].build(problem, 1e-3, shrinking=True, random_state=None,
                                           max_iter=-1, alpha=first.alpha * 2.0)
    return X, y, kernel, problem, warm


def _solve(problem, solver, alpha=None):
    build = KERNEL_SOLVERS[solver].build
    trained, _ = build(problem, 1e-3, shrinking=True, random_state=None, max_iter=-1,
                       alpha=alpha)
    return trained, run_epochs(trained, problem, Stopping(max_iter=10**6))


@pytest.mark.parametrize("solver", ["smo", "ws"])
@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_final_certificate_equals_that_of_the_exact_gradient(heart, solver, loss):
    # the final certificate recomputes in float64 only the rows that count (support
    # vectors, rows near a loss), on a path after a warm start too: it must equal
    # the one of a full float64 gradient
    X, y = heart
    y = np.where(y > 0, 1.0, -1.0)
    kernel = make_kernel("rbf", gamma=0.2, X=X)
    problem = KernelDualProblem(X, y, np.full(len(y), 2.0), loss, "exact", kernel)
    _, first = _solve(problem, solver)
    problem.set_costs(np.full(len(y), 6.0))
    for result, C in ((first, 2.0), (_solve(problem, solver, first.alpha * 3.0)[1], 6.0)):
        assert result.status == "converged"
        fresh = KernelDualProblem(X, y, np.full(len(y), C), loss, "exact", kernel)
        primal, dual, gap, _ = fresh.certificate(result.alpha, fresh.gradient(result.alpha),
                                                 intercept=result.intercept)
        np.testing.assert_allclose([result.primal, result.dual], [primal, dual], rtol=1e-10)
        # the gap (P - D) / |P| is a difference: the two products' rounding (their sums
        # in other orders) moves it by a few ulps of 1, not of itself
        np.testing.assert_allclose(result.gap, gap, rtol=0, atol=1e-14)


@pytest.mark.parametrize("solver", ["smo", "ws"])
def test_warm_start_after_a_fit_computes_no_column(heart, solver):
    # a solver's last gradient (and SMO's G_bar) are kept by the problem, so the next
    # fit of a path starts from the scaled solution without a kernel evaluation, and
    # from the gradient a fresh product gives
    X, y = heart
    y = np.where(y > 0, 1.0, -1.0)
    kernel = make_kernel("rbf", gamma=0.2, X=X)
    problem = KernelDualProblem(X, y, np.full(len(y), 0.5), "hinge", "exact", kernel)
    _, result = _solve(problem, solver)
    assert result.status == "converged"
    problem.set_costs(np.full(len(y), 0.5 * 1.5))
    evaluations = problem.q.kernel_evaluations
    started, _ = KERNEL_SOLVERS[solver].build(problem, 1e-3, shrinking=True, random_state=None,
                                              max_iter=-1, alpha=result.alpha * 1.5)
    assert problem.q.kernel_evaluations == evaluations
    fresh = KernelDualProblem(X, y, np.full(len(y), 0.75), "hinge", "exact", kernel)
    np.testing.assert_allclose(started.G, fresh.gradient(started.alpha), rtol=0, atol=1e-5)
    if solver == "smo":
        bounded = np.where(started.alpha >= fresh.upper_bound, fresh.upper_bound, 0.0)
        np.testing.assert_allclose(started.G_bar, fresh.product(bounded), rtol=0, atol=1e-5)


# --- cross-validation ------------------------------------------------------------------

@pytest.mark.parametrize("params", [{}, {"loss": "hinge", "intercept_mode": "exact"}])
def test_linear_svc_cv_picks_the_grid_search_c(data_dir, params):
    X, y = read_svmlight(data_dir / "breast-cancer_scale")
    folds = StratifiedKFold(4, shuffle=True, random_state=0)
    common = {"tol": 1e-8, "max_iter": 100_000, "random_state": 0, **params}
    search = LinearSVCCV(Cs=CS, cv=folds, n_jobs=2, **common).fit(X, y)
    grid = GridSearchCV(LinearSVC(**common), {"C": list(CS)}, cv=folds).fit(X, y)
    assert search.C_ == grid.best_params_["C"] and search.best_index_ == grid.best_index_
    results = search.cv_results_
    for key in ("mean_test_score", "std_test_score", "rank_test_score",
                *(f"split{k}_test_score" for k in range(4))):
        np.testing.assert_allclose(results[key], grid.cv_results_[key], atol=1e-12)
    assert results["params"] == [{"C": C} for C in CS]
    assert list(results["param_C"]) == list(CS)
    splits = np.array([results[f"split{k}_test_score"] for k in range(4)])
    np.testing.assert_allclose(results["mean_test_score"], splits.mean(axis=0))
    assert results["rank_test_score"][search.best_index_] == 1
    assert search.best_score_ == results["mean_test_score"].max()
    assert (results["mean_fit_time"] > 0).all() and (results["mean_n_iter"] >= 1).all()
    # refit: the model at C_ on all the data, with its certificate
    refit = LinearSVC(C=search.C_, **common).fit(X, y)
    np.testing.assert_allclose(search.coef_, refit.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(search.predict(X), refit.predict(X))
    assert search.gap_[0] <= 1e-6 and search.best_estimator_.C == search.C_


def test_linear_svr_cv_picks_the_grid_search_c(load):
    from sklearn.model_selection import KFold

    from dualsvm import LinearSVR, LinearSVRCV

    X, y = load("housing_scale")
    Cs = np.logspace(-3, 5, 17, base=2)
    folds = list(KFold(4, shuffle=True, random_state=0).split(X))
    common = {"epsilon": 0.1, "loss": "squared_epsilon_insensitive", "tol": 1e-9,
              "max_iter": 100_000, "random_state": 0}
    search = LinearSVRCV(Cs=Cs, cv=folds, n_jobs=2, **common).fit(X, y)
    grid = GridSearchCV(LinearSVR(**common), {"C": list(Cs)}, cv=folds).fit(X, y)
    assert search.C_ == grid.best_params_["C"] and search.best_index_ == grid.best_index_
    np.testing.assert_allclose(search.cv_results_["mean_test_score"],
                               grid.cv_results_["mean_test_score"], rtol=0, atol=1e-7)
    refit = LinearSVR(C=search.C_, **common).fit(X, y)
    np.testing.assert_allclose(search.predict(X), refit.predict(X), rtol=1e-6)
    assert search.score(X, y) == pytest.approx(refit.score(X, y)) and not hasattr(search, "classes_")
    # scored by any of scikit-learn's regression scorers
    mse = LinearSVRCV(Cs=Cs, cv=folds, scoring="neg_mean_squared_error", **common).fit(X, y)
    assert (mse.cv_results_["mean_test_score"] < 0).all()


def test_scoring_and_refit_false(heart):
    X, y = heart
    search = LinearSVCCV(Cs=5, cv=3, scoring="balanced_accuracy", refit=False).fit(X, y)
    assert len(search.cv_results_["params"]) == 5 and search.cv_results_["params"][0]["C"] == 2.0**-10
    assert not hasattr(search, "best_estimator_") and not hasattr(search, "predict")

    def negative_error(model, X_test, y_test):
        return -np.mean(model.predict(X_test) != y_test)

    scored = LinearSVCCV(Cs=CS, cv=3, scoring=negative_error).fit(X, y)
    accuracy = LinearSVCCV(Cs=CS, cv=3).fit(X, y)
    np.testing.assert_allclose(scored.cv_results_["mean_test_score"],
                               accuracy.cv_results_["mean_test_score"] - 1.0)


def test_svc_cv_picks_the_grid_search_c_and_gamma():
    X, y = load_iris(return_X_y=True)
    Cs, gammas = np.logspace(-3, 7, 6, base=2), [0.05, "scale", 2.0]
    search = SVCCV(Cs=Cs, gammas=gammas, cv=5, n_jobs=2, tol=1e-8).fit(X, y)
    grid = GridSearchCV(SVC(tol=1e-8), {"C": list(Cs), "gamma": gammas}, cv=5).fit(X, y)
    assert (search.C_, search.gamma_) == (grid.best_params_["C"], grid.best_params_["gamma"])
    assert search.cv_results_["params"] == grid.cv_results_["params"]
    np.testing.assert_allclose(search.cv_results_["mean_test_score"],
                               grid.cv_results_["mean_test_score"], atol=1e-12)
    np.testing.assert_array_equal(search.predict(X), grid.predict(X))
    with pytest.raises(ValueError, match="precomputed"):
        SVCCV(kernel="precomputed").fit(X @ X.T, y)
    with pytest.raises(ValueError, match="repeated"):
        SVCCV(gammas=[1.0, 1.0]).fit(X, y)


@pytest.mark.parametrize("model", ["SVR", "NuSVR"])
def test_kernel_regression_cv_picks_the_grid_search_c_and_gamma(load, model):
    import dualsvm
    from sklearn.model_selection import KFold

    X, y = load("housing_scale")
    # (tol 1e-5: the float32 kernel columns' rounding of the gradient, |a| 6e-8, stays
    # below it up to C = 2^6; at C = 2^8 and tol 1e-8 NuSVR took minutes)
    Cs, gammas = np.logspace(-2, 6, 5, base=2), [0.1, "scale", 2.0]
    folds = list(KFold(4, shuffle=True, random_state=0).split(X))
    extra = {"epsilon": 0.5} if model == "SVR" else {"nu": 0.3}
    search = getattr(dualsvm, model + "CV")(Cs=Cs, gammas=gammas, cv=folds, n_jobs=2,
                                            tol=1e-5, **extra).fit(X, y)
    grid = GridSearchCV(getattr(dualsvm, model)(tol=1e-5, **extra),
                        {"C": list(Cs), "gamma": gammas}, cv=folds).fit(X, y)
    assert (search.C_, search.gamma_) == (grid.best_params_["C"], grid.best_params_["gamma"])
    assert search.cv_results_["params"] == grid.cv_results_["params"]
    np.testing.assert_allclose(search.cv_results_["mean_test_score"],
                               grid.cv_results_["mean_test_score"], rtol=0, atol=1e-6)
    np.testing.assert_allclose(search.predict(X), grid.predict(X), atol=1e-5)
    assert type(search.best_estimator_).__name__ == model and search.status_ == ["converged"]
    with pytest.raises(ValueError, match="precomputed"):
        getattr(dualsvm, model + "CV")(kernel="precomputed").fit(X @ X.T, y)


# --- the command line ------------------------------------------------------------------

LOG2C = re.compile(r"log2c=(?= *-?\d+\.\d\d\t)(.{7})\trate=\d+(\.\d+)?$")  # %7.2f, %g
BEST = re.compile(r"Best C = (\S+)  CV accuracy = (\S+)%$")


def test_find_c_prints_what_liblinear_prints(capfd, data_dir):
    path = data_dir / "breast-cancer_scale"
    status = cli.main(["train", "-C", str(path)])
    out = capfd.readouterr().out.splitlines()
    assert status == 0
    # LIBLINEAR's -C (solver 2) on the same file, its C-level output captured
    y, x = ll.svm_read_problem(str(path))
    best_C, _, rate = ll.train(y, x, "-C -s 2")
    printed = capfd.readouterr().out.splitlines()
    ours = [line for line in out if line.startswith("log2c")]
    theirs = [line for line in printed if line.startswith("log2c")]
    assert printed[-2] == "Best C = %g  CV accuracy = %g%%" % (best_C, 100 * rate)
    assert ours[0].split("\t")[0] == theirs[0].split("\t")[0]  # the same first C
    assert all(LOG2C.match(line) for line in ours + theirs)
    assert out[0] == "Doing parameter search with 5-fold cross validation."
    match = BEST.match(out[-1])
    assert match and BEST.match("Best C = %g  CV accuracy = %g%%" % (best_C, 100 * rate))
    rates = [float(line.split("rate=")[1]) for line in ours]
    assert float(match.group(2)) == max(rates)
    assert float(match.group(1)) == 2.0 ** float(ours[rates.index(max(rates))][6:13])


@pytest.mark.parametrize("argv, file, measure", [
    (["-s", "12"], "housing_scale", "Mean squared error"),
    (["-s", "13", "-p", "0.5"], "housing_scale", "Mean squared error"),
    (["-s", "4"], "heart_scale", "Accuracy"),
    (["-s", "5"], "heart_scale", "Accuracy")])
def test_find_c_for_every_linear_solver(capsys, data_dir, argv, file, measure):
    # -C for regression and LIBLINEAR's -s 4 and -s 5 too (LIBLINEAR's -C has -s 0, 2, 11):
    # solved tightly, the measure printed for the best C is -v's for a cold fit there
    path = str(data_dir / file)
    common = [*argv, "-e", "1e-7", "--max-iter", "100000", "--seed", "3", "-q"]
    assert cli.main(["train", "-C", *common, "--c-grid", "0.01", "100", "9", path]) == 0
    best = capsys.readouterr().out.splitlines()[-1]
    C = float(best.split("Best C = ")[1].split()[0])
    assert cli.main(["train", *common, "-c", repr(C), "-v", "5", path]) == 0
    printed = capsys.readouterr().out
    if measure == "Accuracy":
        assert best.endswith(printed.split("Cross Validation Accuracy = ")[1].split()[0])
    else:
        value = float(printed.split("Cross Validation Mean squared error = ")[1].split()[0])
        assert float(best.split("CV MSE = ")[1]) == pytest.approx(value, rel=1e-4)
        assert "Best p = %g" % (0.5 if "13" in argv else 0.1) in best
    assert cli.main(["train", "-C", *argv, "--json", path]) == 0  # LIBLINEAR's own grid
    summary = json.loads(capsys.readouterr().out)
    values = summary["accuracy" if measure == "Accuracy" else "mean_squared_error"]
    k = (np.argmax if measure == "Accuracy" else np.argmin)(values)
    assert summary["best_C"] == summary["C"][k] and len(summary["C"]) >= 10


def test_find_c_grid_trace_json_and_plot(tmp_path, capsys, data_dir):
    path = data_dir / "heart_scale"
    trace = tmp_path / "search.jsonl"
    assert cli.main(["train", "-C", "-s", "3", "-v", "3", "-q", "--c-grid", "0.01", "10", "7",
                     "--trace", str(trace), str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 and BEST.match(out[1])  # -q: no log2c lines
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    np.testing.assert_allclose([r["C"] for r in records], np.logspace(np.log10(0.01), 1, 7))
    assert "%g" % max(r["accuracy"] for r in records) == BEST.match(out[1]).group(2)
    assert cli.main(["train", "-C", "--exact-bias", "--json", "-c", "0.5", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["C"][0] == 0.5 and summary["C"][-1] == 1024.0
    assert summary["cross_validation_accuracy"] == max(summary["accuracy"])
    pytest.importorskip("matplotlib")
    assert cli.main(["plot", str(trace), "-o", str(tmp_path / "search.png")]) == 0
    assert (tmp_path / "search.png").read_bytes()[:4] == b"\x89PNG"
    assert cli.main(["plot", str(trace), "--y", "gap"]) == 2


@pytest.mark.parametrize("argv,message", [
    (["-C", "-t", "2"], "-C (the search for C) is for linear models"),
    (["-C", "--kernel", "rbf"], "-C (the search for C) is for linear models"),
    (["--c-grid", "1", "2", "2"], "--c-grid needs -C"),
    (["-C", "-c", "2", "--c-grid", "1", "2", "2"], "-c and --c-grid"),
    (["-C", "--c-grid", "2", "1", "3"], "START < END"),
    (["-C", "--c-grid", "1", "2", "2.5"], "whole number"),
    (["-C", "--c-grid", "1", "-2", "2"], "must be > 0"),
])
def test_find_c_refusals(capsys, data_dir, argv, message):
    assert cli.main(["train", *argv, str(data_dir / "heart_scale")]) == 2
    assert message in capsys.readouterr().err


def test_find_c_refuses_a_model_and_a_directory(tmp_path, capsys, data_dir):
    assert cli.main(["train", "-C", str(data_dir / "heart_scale"), str(tmp_path / "m")]) == 2
    assert "writes no model" in capsys.readouterr().err
    assert cli.main(["train", "-C", str(tmp_path)]) == 2
    assert "-C does not apply to a dataset directory" in capsys.readouterr().err


# --- the plot --------------------------------------------------------------------------

def test_plot_c_search_draws_the_cv_results(heart):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from dualsvm import plotting

    X, y = heart
    search = LinearSVCCV(Cs=CS, cv=3).fit(X, y)
    ax, times = plotting.plot_c_search(search)
    np.testing.assert_array_equal(ax.get_lines()[0].get_xdata(), CS)
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(),
                               100 * search.cv_results_["mean_test_score"])
    np.testing.assert_allclose(times.get_lines()[0].get_ydata(),
                               search.cv_results_["mean_fit_time"])
    assert ax.get_lines()[1].get_xdata()[0] == search.C_  # the best C marked
    svc = SVCCV(Cs=3, gammas=[0.1, 1.0], cv=3).fit(X, y)
    ax, _ = plotting.plot_c_search(svc)
    assert len([line for line in ax.get_lines() if len(line.get_xdata()) == 3]) == 2
    with pytest.raises(TypeError, match="plot_c_search takes a fitted"):
        plotting.plot_c_search(LinearSVC())
    # a regression search: its score (R^2) as it is, the best C the highest
    from sklearn.model_selection import KFold

    from dualsvm import LinearSVRCV

    regression = LinearSVRCV(Cs=CS, cv=KFold(3), tol=1e-6, max_iter=100_000).fit(
        X, y.astype(float))
    ax, _ = plotting.plot_c_search(regression)
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(),
                               regression.cv_results_["mean_test_score"])
    assert ax.get_lines()[1].get_xdata()[0] == regression.C_
