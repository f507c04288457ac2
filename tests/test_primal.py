"""Pegasos and implicit updates: objectives against DCD, the step rules, invariants."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning

from conftest import bad_parameter
from dualsvm import LinearSVC
from dualsvm.problems.linear import DualProblem
from dualsvm.solvers import DualCD, ImplicitSGD, Pegasos, Stopping, run_epochs

SOLVERS = [Pegasos, ImplicitSGD]
LOSSES = ["hinge", "squared_hinge"]


def binary(X, y):
    return sp.csr_matrix(X), np.where(y == np.unique(y)[1], 1.0, -1.0)


def problem(X, y, loss="hinge", bias="augmented", C=1.0):
    cost = np.full(X.shape[0], C) if np.isscalar(C) else C
    return DualProblem(X, y, cost, loss, bias)


def optimum(p):
    """P* from DCD at a tight tolerance."""
    solver = DualCD(p, 1e-9, random_state=np.random.default_rng(0))
    return run_epochs(solver, p, Stopping(max_iter=100_000, monitor=False))


def run(cls, p, epochs, seed=0, **options):
    solver = cls(p, random_state=np.random.default_rng(seed), **options)
    for _ in range(epochs):
        solver.epoch()
    return solver


# --- the same objective as the dual solvers ----------------------------------------

@pytest.mark.parametrize("cls", SOLVERS)
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("bias", ["none", "augmented"])
@pytest.mark.parametrize("name", ["heart_scale", "breast-cancer_scale"])
def test_reaches_dcd_objective(load, name, cls, loss, bias):
    X, y = binary(*load(name))
    p = problem(X, y, loss, bias)
    best = optimum(p).primal
    solver = run(cls, p, 1000)
    primal, dual, gap, _ = solver.certificate()
    assert best <= primal <= best * (1 + 1e-2)
    # the certificate is honest: D <= P* <= P, so the gap bounds the suboptimality
    assert dual <= best * (1 + 1e-12)
    assert gap >= (primal - best) / primal


@pytest.mark.parametrize("batch_size", [8, 32])
def test_minibatch_pegasos_reaches_dcd_objective(load, batch_size):
    X, y = binary(*load("heart_scale"))
    p = problem(X, y, "hinge")
    best = optimum(p).primal
    primal = run(Pegasos, p, 1000, batch_size=batch_size).certificate()[0]
    assert best <= primal <= best * (1 + 1e-2)


def test_dual_point_at_the_optimum_closes_the_gap(load):
    """For the squared hinge the KKT map of w* is the optimal dual point."""
    X, y = binary(*load("heart_scale"))
    p = problem(X, y, "squared_hinge")
    result = optimum(p)
    primal, dual, gap, alpha = p.evaluate_primal(result.w)
    assert gap < 1e-7
    np.testing.assert_allclose(alpha, result.alpha, atol=1e-4 * result.alpha.max())


# --- the step rules ---------------------------------------------------------------

def naive_epochs(p, method, epochs, batch_size=1):
    """The update rules of primal.py's docstring, literally, in cyclic order.

    Returns w and how many steps the projection shortened."""
    X = p.X.toarray() if sp.issparse(p.X) else p.X
    if p.bias == "augmented":
        X = np.hstack([X, np.full((X.shape[0], 1), p.bias_scale)])
    lam = 1.0 / p.C.sum()
    s = p.C * len(p.C) * lam
    squared = p.loss == "squared_hinge"
    w = np.zeros(X.shape[1])
    t = projections = 0
    for _ in range(epochs):
        for start in range(0, len(p.y), batch_size):
            batch = range(start, min(start + batch_size, len(p.y)))
            t += 1
            eta = 1.0 / (lam * t)
            if method == "pegasos":
                margins = [p.y[i] * (X[i] @ w) for i in batch]
                step = np.zeros_like(w)
                for i, m in zip(batch, margins):
                    if m < 1:
                        step += s[i] * (2 * (1 - m) if squared else 1.0) * p.y[i] * X[i]
                w = (1 - eta * lam) * w + eta / len(batch) * step
            else:
                (i,) = batch
                c, r, q = 1 + eta * lam, p.y[i] * (X[i] @ w), X[i] @ X[i]
                if squared:
                    g = 2 * s[i] * max(c - r, 0.0) / (c + 2 * s[i] * eta * q)
                else:
                    g = np.clip((c - r) / (eta * q), 0, s[i])
                w = (w + eta * g * p.y[i] * X[i]) / c
            if lam * (w @ w) > 1.0:
                w /= np.sqrt(lam * (w @ w))
                projections += 1
    return w, projections


@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("method, cls, batch_size", [("pegasos", Pegasos, 1),
                                                     ("pegasos", Pegasos, 5),
                                                     ("implicit", ImplicitSGD, 1)])
def test_lazy_scaling_equals_the_literal_rules(load, loss, method, cls, batch_size):
    X, y = binary(*load("heart_scale"))
    weights = np.random.default_rng(1).uniform(0.5, 2.0, len(y))  # s_i != 1
    for C in (1.0, 100.0):  # 100: the projection is active
        p = problem(X, y, loss, C=C * weights)
        options = {"batch_size": batch_size} if cls is Pegasos else {}
        ours = run(cls, p, 3, shuffle=False, **options).w
        theirs, projections = naive_epochs(p, method, 3, batch_size)
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9 * np.abs(ours).max())
        if C == 100.0 and method == "pegasos":
            assert projections > 0


@pytest.mark.parametrize("loss", LOSSES)
def test_implicit_step_minimises_the_proximal_objective(loss):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((1, 6))
    checked = 0
    q = X[0] @ X[0]
    # margins below, near and above 1 + eta lambda; clipped and interior g
    for y_i, margin, C in [(1.0, 0.0, 1.0), (-1.0, 0.9, 1.0), (1.0, 1.1, 1.0), (1.0, 3.0, 1.0),
                           (-1.0, 0.0, 0.1), (1.0, 0.5, 0.05)]:
        w0 = margin / q * y_i * X[0]
        p = problem(X, np.array([y_i]), loss, "none", C=C)
        solver = ImplicitSGD(p, random_state=np.random.default_rng(0), w=w0, t=4)
        solver.epoch()  # one step, t = 5
        eta, lam = 1.0 / (solver.lam * 5), solver.lam

        def prox(u):
            slack = max(0.0, 1.0 - y_i * (X[0] @ u))
            loss_value = slack ** 2 if loss == "squared_hinge" else slack
            return (u - w0) @ (u - w0) / (2 * eta) + lam / 2 * (u @ u) + loss_value

        u = solver.w
        if lam * (u @ u) >= 1.0 - 1e-9:
            continue  # projected: not the proximal point itself
        checked += 1
        for direction in [X[0], -X[0], *rng.standard_normal((20, 6))]:
            for h in (1e-3, 1e-6):
                assert prox(u) <= prox(u + h * direction) + 1e-12
    assert checked >= 3


# --- invariants -----------------------------------------------------------------

@pytest.mark.parametrize("cls", SOLVERS)
@pytest.mark.parametrize("loss", LOSSES)
def test_projection_keeps_w_in_the_ball(load, cls, loss):
    X, y = binary(*load("heart_scale"))
    p = problem(X, y, loss, C=100.0)
    solver = cls(p, random_state=np.random.default_rng(0))
    ratios = []
    for _ in range(5):
        solver.epoch()
        ratios.append(solver.lam * (solver.w @ solver.w))
    assert max(ratios) <= 1.0 + 1e-9


@pytest.mark.parametrize("cls", SOLVERS)
@pytest.mark.parametrize("loss", LOSSES)
def test_dense_equals_sparse(load, cls, loss):
    X, y = binary(*load("heart_scale"))
    sparse = run(cls, problem(X, y, loss), 5).w
    dense = run(cls, problem(np.ascontiguousarray(X.toarray()), y, loss), 5).w
    np.testing.assert_array_equal(sparse, dense)


@pytest.mark.parametrize("cls", SOLVERS)
def test_zero_weight_equals_removing_the_rows(load, cls):
    X, y = binary(*load("heart_scale"))
    weights = np.ones(len(y))
    weights[::3] = 0.0
    keep = weights > 0
    weighted = run(cls, problem(X, y, C=weights), 4).w
    removed = run(cls, problem(X[keep], y[keep]), 4).w
    np.testing.assert_array_equal(weighted, removed)


@pytest.mark.parametrize("cls", SOLVERS)
def test_seeded(load, cls):
    X, y = binary(*load("heart_scale"))
    p = problem(X, y)
    np.testing.assert_array_equal(run(cls, p, 2, seed=3).w, run(cls, p, 2, seed=3).w)
    assert not np.array_equal(run(cls, p, 2, seed=3).w, run(cls, p, 2, seed=4).w)


@pytest.mark.parametrize("cls", SOLVERS)
def test_empty_rows_without_bias(cls):
    X = sp.csr_matrix(np.array([[0.0, 0.0], [1.0, 0.5], [0.0, 0.0], [-1.0, -0.2]]))
    p = problem(X, np.array([1.0, 1.0, -1.0, -1.0]), "hinge", "none")
    w = run(cls, p, 20).w
    assert np.all(np.isfinite(w)) and w[0] > 0


@pytest.mark.parametrize("cls", SOLVERS)
def test_driver_records_and_certificate(load, cls):
    X, y = binary(*load("heart_scale"))
    p = problem(X, y, "squared_hinge")
    solver = cls(p, random_state=np.random.default_rng(0))
    result = run_epochs(solver, p, Stopping(max_iter=4, monitor=True))
    dcd = run_epochs(DualCD(p, 0.1, random_state=np.random.default_rng(0)), p, Stopping(max_iter=2))
    assert [set(r) for r in result.history] == [set(dcd.history[0])] * 4
    assert result.status == "max_iter" and result.n_iter == 4
    last = result.history[-1]
    assert last["primal"] == result.primal == p.primal(result.w)
    assert np.isnan(last["violation"]) and last["active_size"] == len(y)
    # alpha is the dual point of the final w, and the dual value is its value
    assert result.dual == pytest.approx(p.dual(result.alpha, p.weights(result.alpha)), rel=1e-12)
    assert np.all(result.alpha >= 0) and np.all(np.isfinite(result.alpha))


def test_gap_tol_stops_primal_solvers(load):
    X, y = binary(*load("heart_scale"))
    p = problem(X, y, "squared_hinge")
    result = run_epochs(ImplicitSGD(p, random_state=np.random.default_rng(0)), p,
                        Stopping(max_iter=5000, gap_tol=0.05))
    assert result.status == "gap" and result.gap <= 0.05 and result.n_iter < 5000


# --- bad input --------------------------------------------------------------------

@pytest.mark.parametrize("cls", SOLVERS)
def test_bad_input(load, cls):
    X, y = binary(*load("heart_scale"))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="exact bias"):
        cls(problem(X, y, bias="exact"), random_state=rng)
    with pytest.raises(ValueError, match="zero weight"):
        cls(problem(X, y, C=np.zeros(len(y))), random_state=rng)
    with pytest.raises(ValueError, match="primal w"):
        cls(problem(X, y), random_state=rng, alpha=np.zeros(len(y)))
    with pytest.raises(ValueError, match="shape"):
        cls(problem(X, y), random_state=rng, w=np.zeros(3))
    with pytest.raises(ValueError, match="batch_size"):
        Pegasos(problem(X, y), random_state=rng, batch_size=0)


# --- LinearSVC(solver=...) and partial_fit -------------------------------------------

def fit_estimator(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return LinearSVC(random_state=0, **params).fit(X, y)


@pytest.mark.parametrize("solver", ["pegasos", "implicit"])
@pytest.mark.parametrize("loss", LOSSES)
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_estimator_reaches_dcd_objective(load, solver, loss, fit_intercept):
    X, y = load("heart_scale")
    dcd = fit_estimator(X, y, loss=loss, fit_intercept=fit_intercept, tol=1e-8, max_iter=100_000)
    ours = fit_estimator(X, y, loss=loss, fit_intercept=fit_intercept, solver=solver,
                         max_iter=1000)
    assert dcd.primal_[0] <= ours.primal_[0] <= dcd.primal_[0] * (1 + 1e-2)
    assert ours.t_[0] == 1000 * len(y) and ours.n_samples_seen_ == len(y)
    assert ours.lambda_ == pytest.approx(1.0 / len(y))
    assert abs(ours.score(X, y) - dcd.score(X, y)) <= 0.02


@pytest.mark.parametrize("solver", ["pegasos", "implicit"])
def test_estimator_dense_equals_sparse(load, solver):
    X, y = load("heart_scale")
    sparse = fit_estimator(X, y, solver=solver, max_iter=5)
    dense = fit_estimator(X.toarray(), y, solver=solver, max_iter=5)
    np.testing.assert_array_equal(sparse.coef_, dense.coef_)
    np.testing.assert_array_equal(sparse.intercept_, dense.intercept_)


@pytest.mark.parametrize("solver", ["pegasos", "implicit"])
def test_one_partial_fit_equals_one_epoch_of_fit(load, solver):
    X, y = load("heart_scale")
    streamed = LinearSVC(solver=solver, random_state=0).partial_fit(X, y, classes=[-1, 1])
    fitted = fit_estimator(X, y, solver=solver, max_iter=1)
    np.testing.assert_array_equal(streamed.coef_, fitted.coef_)
    np.testing.assert_array_equal(streamed.intercept_, fitted.intercept_)
    np.testing.assert_array_equal(streamed.t_, [len(y)])


@pytest.mark.parametrize("solver", ["pegasos", "implicit"])
def test_partial_fit_over_chunks_approaches_fit(load, solver):
    X, y = load("a9a.bz2")
    best = fit_estimator(X, y, loss="hinge", tol=1e-6).primal_[0]
    streamed = LinearSVC(solver=solver, loss="hinge", random_state=0)
    for chunk in np.array_split(np.arange(len(y)), 8):
        streamed.partial_fit(X[chunk], y[chunk], classes=[-1, 1])
    # after one pass the model targets fit's objective on all the rows
    assert streamed.n_samples_seen_ == len(y) and streamed.lambda_ == pytest.approx(1 / len(y))
    assert streamed.t_[0] == len(y)
    # one pass in chunks is as good as one epoch of fit (the early steps of a
    # stream have fewer rows behind them, so larger lambda and shorter steps)
    one_epoch = fit_estimator(X, y, loss="hinge", solver=solver, max_iter=1)
    one_pass = binary_primal(X, y, streamed)
    assert best <= one_pass <= binary_primal(X, y, one_epoch) * 1.05


def binary_primal(X, y, model):
    X, y_pm = binary(X, y)
    p = problem(X, y_pm, model.loss)
    return p.primal(np.append(model.coef_[0], model.intercept_[0]))


def test_partial_fit_multiclass_chunks_missing_classes():
    X, y = make_blobs(n_samples=300, centers=3, cluster_std=1.0, random_state=0)
    first = np.flatnonzero(y == 0)[:50]  # the first chunk holds class 0 only
    rest = np.random.default_rng(0).permutation(np.setdiff1d(np.arange(len(y)), first))
    for solver, batch_size in [("pegasos", 4), ("implicit", 1)]:
        # the hinge: Pegasos' 1/(lambda t) steps on the squared hinge overshoot for
        # many epochs (its gradient is unbounded); implicit steps do not
        model = LinearSVC(solver=solver, loss="hinge", batch_size=batch_size, random_state=0)
        for _ in range(10):  # ten passes: each counts its rows again
            for chunk in [first, *np.array_split(rest, 5)]:
                model.partial_fit(X[chunk], y[chunk], classes=[0, 1, 2])
        assert model.coef_.shape == (3, 2) and list(model.classes_) == [0, 1, 2]
        assert model.n_samples_seen_ == 10 * len(y) and np.all(model.t_ > 0)
        assert model.score(X, y) >= 0.85  # chance is 1/3; the optimum of C = 10 scores 0.93


def test_partial_fit_bad_input(load):
    X, y = load("heart_scale")
    assert not hasattr(LinearSVC(), "partial_fit")  # 'dcd' has no streaming form
    model = LinearSVC(solver="implicit")
    with pytest.raises(ValueError, match="classes must be passed on the first call"):
        model.partial_fit(X, y)
    model.partial_fit(X, y, classes=[-1, 1])
    with pytest.raises(ValueError, match="X has 5 features, but LinearSVC is expecting 13"):
        model.partial_fit(X[:, :5], y)
    with pytest.raises(ValueError, match="not among the classes"):
        model.partial_fit(X, np.where(y > 0, 2, -1))
    with pytest.raises(ValueError, match="differs from the classes"):
        model.partial_fit(X, y, classes=[-1, 1, 2])
    with pytest.raises(ValueError, match="class_weight='balanced' is not supported by partial_fit"):
        LinearSVC(solver="pegasos", class_weight="balanced").partial_fit(X, y, classes=[-1, 1])


def test_estimator_bad_solver_combinations(load):
    X, y = load("heart_scale")
    with pytest.raises(ValueError, match="exact intercept needs solver='dcd'"):
        LinearSVC(solver="pegasos", intercept_mode="exact").fit(X, y)
    with pytest.raises(ValueError, match="batch_size=4 needs solver='pegasos'"):
        LinearSVC(solver="implicit", batch_size=4).fit(X, y)
    with pytest.raises(ValueError, match=bad_parameter("LinearSVC", "solver", "sgd")):
        LinearSVC(solver="sgd").fit(X, y)
    with pytest.raises(ValueError, match=bad_parameter("LinearSVC", "batch_size", 0)):
        LinearSVC(solver="pegasos", batch_size=0).fit(X, y)


def test_primal_warm_start_continues(load):
    X, y = load("heart_scale")
    model = fit_estimator(X, y, solver="pegasos", max_iter=3, warm_start=True)
    first = model.coef_.copy()
    model.fit(X, y)
    assert model.t_[0] == 6 * len(y)
    assert not np.array_equal(first, model.coef_)
