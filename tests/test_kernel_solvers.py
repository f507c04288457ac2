"""The kernel solvers other than SMO: CGD (Tseng-Yun), kernel DCD, dual PGD, and their parts."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from dualsvm.kernels import make_kernel
from dualsvm.problems.linear import DualProblem
from dualsvm.problems.kernel import KernelDualProblem
from dualsvm.solvers import DualCD, Stopping, run_epochs
from dualsvm.solvers._knapsack_jit import conformal_pairs, solve_knapsack
from dualsvm.solvers.cgd import CGD
from dualsvm.solvers.dual_pgd import DualPGD
from dualsvm.solvers.kernel_dcd import KernelDCD
from reference import dual_objective, libsvm_dual

# --- the continuous quadratic knapsack -------------------------------------------


def knapsack_objective(c, h, z):
    return float(c @ z + 0.5 * h @ (z * z))


def brute_force_knapsack(c, h, lower, upper, total):
    """Try every status (at L, at R, free) of every variable; keep the best feasible z."""
    best, best_z = np.inf, None
    for status in itertools.product("LRF", repeat=len(c)):
        z = np.empty(len(c))
        free = np.array([s == "F" for s in status])
        if any(s == "L" and not np.isfinite(l) for s, l in zip(status, lower)):
            continue
        if any(s == "R" and not np.isfinite(u) for s, u in zip(status, upper)):
            continue
        for i, s in enumerate(status):
            if s != "F":
                z[i] = lower[i] if s == "L" else upper[i]
        fixed = z[~free].sum()
        if free.any():
            lam = (fixed - (c[free] / h[free]).sum() - total) / (1.0 / h[free]).sum()
            z[free] = -(c[free] + lam) / h[free]
        elif abs(fixed - total) > 1e-9:
            continue
        if np.all(z >= lower - 1e-9) and np.all(z <= upper + 1e-9):
            value = knapsack_objective(c, h, z)
            if value < best:
                best, best_z = value, z
    return best_z


def random_knapsack(rng, n, ties=False):
    if ties:  # few distinct values: coinciding breakpoints
        c = rng.integers(-2, 3, n).astype(float)
        h = rng.choice([0.5, 1.0, 2.0], n)
        lower = -rng.integers(0, 3, n).astype(float)
        upper = lower + rng.integers(0, 3, n)  # includes L = R
    else:
        c = rng.normal(size=n)
        h = rng.uniform(0.1, 3.0, n)
        lower = -rng.uniform(0, 2, n)
        upper = rng.uniform(0, 2, n)
    lower[rng.random(n) < 0.2] = -np.inf
    upper[rng.random(n) < 0.2] = np.inf
    lo = lower[np.isfinite(lower)].sum() if np.isfinite(lower).all() else -10.0
    hi = upper[np.isfinite(upper)].sum() if np.isfinite(upper).all() else 10.0
    total = float(rng.uniform(lo, hi)) if ties is False else float(np.round(rng.uniform(lo, hi)))
    return c, h, lower, upper, total


@pytest.mark.parametrize("ties", [False, True])
def test_knapsack_equals_brute_force(ties):
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(1, 7))
        c, h, lower, upper, total = random_knapsack(rng, n, ties)
        z = np.empty(n)
        lam = solve_knapsack(c, h, lower, upper, total, z)
        reference = brute_force_knapsack(c, h, lower, upper, total)
        assert reference is not None
        np.testing.assert_allclose(z, reference, atol=1e-9)
        # a guess of the multiplier (right, or wrong on either side) changes nothing
        for guess, spread in [(lam, 0.1), (lam + 1.0, 0.5), (lam - 3.0, 0.0), (0.0, 10.0)]:
            z_guess = np.empty(n)
            solve_knapsack(c, h, lower, upper, total, z_guess, guess, spread)
            np.testing.assert_allclose(z_guess, reference, atol=1e-9)
        # lam is a KKT multiplier of the solution
        np.testing.assert_allclose(z, np.clip(-(c + lam) / h, lower, upper), atol=1e-9)


def test_knapsack_large_kkt_and_no_better_point():
    rng = np.random.default_rng(1)
    for n, ties in [(1000, False), (5000, True), (20001, False)]:
        c, h, lower, upper, total = random_knapsack(rng, n, ties)
        z = np.empty(n)
        lam = solve_knapsack(c, h, lower, upper, total, z)
        assert abs(z.sum() - total) <= 1e-9 * max(1.0, np.abs(z).sum())
        assert np.all(z >= lower) and np.all(z <= upper)
        np.testing.assert_allclose(z, np.clip(-(c + lam) / h, lower, upper), atol=1e-12)
        # a bisection on the multiplier gives the same point
        a, b = -1e6, 1e6
        for _ in range(200):
            mid = 0.5 * (a + b)
            if np.clip(-(c + mid) / h, lower, upper).sum() > total:
                a = mid
            else:
                b = mid
        reference = np.clip(-(c + 0.5 * (a + b)) / h, lower, upper)
        assert knapsack_objective(c, h, z) <= knapsack_objective(c, h, reference) + 1e-8


@pytest.mark.parametrize("case", ["at_lower", "at_upper", "all_fixed", "all_free", "single"])
def test_knapsack_degenerate(case):
    n = 5
    c = np.array([1.0, -2.0, 0.5, 0.0, 3.0])
    h = np.ones(n)
    lower, upper = -np.ones(n), np.ones(n)
    total = {"at_lower": -5.0, "at_upper": 5.0, "all_fixed": 0.0, "all_free": 0.3, "single": 0.7}[case]
    if case == "all_fixed":
        lower = upper = np.array([0.5, -0.5, 0.0, 0.0, 0.0])
    if case == "all_free":
        lower, upper = np.full(n, -np.inf), np.full(n, np.inf)
    if case == "single":
        c, h, lower, upper = c[:1], h[:1], lower[:1], upper[:1]
    z = np.empty(len(c))
    solve_knapsack(c, h, lower, upper, total, z)
    expected = {"at_lower": -np.ones(n), "at_upper": np.ones(n), "all_fixed": lower,
                "all_free": -(c - (c.sum() + total) / n), "single": [0.7]}[case]
    np.testing.assert_allclose(z, expected, atol=1e-12)


# --- conformal realization -------------------------------------------------------


def test_conformal_pieces_sum_to_the_direction_and_are_conformal():
    rng = np.random.default_rng(2)
    for _ in range(200):
        n = int(rng.integers(1, 40))
        z = rng.integers(-4, 5, n).astype(float) * (rng.random(n) < 0.6)
        z[-1] -= z.sum()  # sum z = 0 exactly (integers)
        first, second, amount = (np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n))
        count = conformal_pairs(z, first, second, amount)
        support = np.count_nonzero(z)
        assert count <= max(support - 1, 0)
        total = np.zeros(n)
        np.add.at(total, first[:count], amount[:count])
        np.add.at(total, second[:count], -amount[:count])
        np.testing.assert_array_equal(total, z)
        assert np.all(amount[:count] > 0)
        assert np.all(z[first[:count]] > 0) and np.all(z[second[:count]] < 0)


def test_conformal_pieces_of_a_knapsack_direction():
    rng = np.random.default_rng(3)
    n = 300
    c, h = rng.normal(size=n), rng.uniform(0.5, 2, n)
    lower, upper = -rng.uniform(0, 1, n), rng.uniform(0, 1, n)
    z = np.empty(n)
    solve_knapsack(c, h, lower, upper, 0.0, z)
    first, second, amount = (np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n))
    count = conformal_pairs(z, first, second, amount)
    total = np.zeros(n)
    np.add.at(total, first[:count], amount[:count])
    np.add.at(total, second[:count], -amount[:count])
    np.testing.assert_allclose(total, z, atol=1e-12)
    # each piece is a feasible point of the subproblem on its two coordinates
    assert np.all(amount[:count] <= upper[first[:count]] + 1e-15)
    assert np.all(-amount[:count] >= lower[second[:count]] - 1e-15)


# --- the solvers -------------------------------------------------------------------


def kernel_problem(X, y, kernel="rbf", *, C=1.0, loss="hinge", bias="exact", cache_size=20.0,
                   gamma=None, coef0=0.0):
    y = np.where(y == np.unique(y)[1], 1.0, -1.0)
    k = make_kernel(kernel, gamma=gamma or 1.0 / X.shape[1], coef0=coef0, X=X)
    return KernelDualProblem(X, y, np.full(len(y), C), loss, bias, k, cache_size)


def solve(solver_class, problem, tol, max_iter=100000, **params):
    solver = solver_class(problem, tol, random_state=np.random.default_rng(0), **params)
    return solver, run_epochs(solver, problem, Stopping(max_iter=max_iter))


def max_violation(problem, alpha, gradient):
    score = -problem.y * gradient
    up, low = problem.bias_sets(alpha)
    return score[up].max() - score[low].min()


@pytest.fixture(scope="module")
def heart(load):
    X, y = load("heart_scale")
    return X.toarray(), y


@pytest.mark.parametrize("pairs", [1, 3])
@pytest.mark.parametrize("kernel,C,coef0", [("rbf", 1.0, 0.0), ("rbf", 10.0, 0.0),
                                            ("sigmoid", 1.0, 0.0), ("sigmoid", 1.0, -1.0),
                                            ("poly", 1.0, 1.0)])
def test_cgd_objective_equals_libsvm(heart, kernel, C, coef0, pairs):
    X, y = heart
    problem = kernel_problem(X, y, kernel, C=C, coef0=coef0)
    if coef0 < 0:  # a non-PSD case with negative diagonal entries: LIBSVM's TAU safeguard
        assert problem.q.diag.min() < 0
    solver, result = solve(CGD, problem, 1e-8, pairs=pairs)
    assert result.status == "converged"
    _, _, theirs = libsvm_dual(problem, eps=1e-6)
    assert abs(dual_objective(problem, result.alpha) - theirs) <= 1e-7 * abs(theirs)
    assert abs(problem.y @ solver.alpha) <= 1e-10 * solver.alpha.sum()
    assert np.all(solver.alpha >= 0) and np.all(solver.alpha <= problem.upper_bound)
    # the maintained gradient is the true one (up to its float32 kernel columns), and the KKT
    # conditions hold: tol bounds Tseng and Yun's -q_D, about v^2 / 4 for a maximal violation
    # v, so tol = 1e-8 leaves v of about 2e-4
    np.testing.assert_allclose(solver.gradient, problem.gradient(solver.alpha), atol=1e-5)
    assert max_violation(problem, solver.alpha, solver.gradient) < 5e-4
    assert result.history[-1]["max_violation"] == pytest.approx(
        max_violation(problem, solver.alpha, solver.gradient))
    assert result.history[-1]["violation"] <= 1e-8  # -q_D(x; N), Tseng and Yun's measure


def test_cgd_on_a9a_subsample_equals_libsvm(load):
    X, y = load("a9a.bz2")
    problem = kernel_problem(X[:1500], y[:1500], "rbf", C=1.0)
    solver, result = solve(CGD, problem, 1e-7, pairs=3)
    _, _, theirs = libsvm_dual(problem, eps=1e-5)
    assert abs(dual_objective(problem, result.alpha) - theirs) <= 1e-7 * abs(theirs)


def test_cgd_squared_hinge_closes_the_gap(heart):
    problem = kernel_problem(*heart, "rbf", loss="squared_hinge")
    _, result = solve(CGD, problem, 1e-10)
    assert result.status == "converged" and result.gap < 1e-5


@pytest.mark.parametrize("solver_class,bias,params", [
    (CGD, "exact", {"pairs": 3}), (KernelDCD, "none", {}), (DualPGD, "exact", {})])
def test_dense_equals_sparse(heart, solver_class, bias, params):
    X, y = heart
    results = [solve(solver_class, kernel_problem(data, y, "rbf", bias=bias), 1e-6, **params)[1]
               for data in (X, sp.csr_matrix(X))]
    np.testing.assert_allclose(results[0].alpha, results[1].alpha, atol=1e-6)
    assert results[0].dual == pytest.approx(results[1].dual, rel=1e-9)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_kernel_dcd_linear_kernel_equals_linear_dcd(heart, loss):
    X, y = heart
    problem = kernel_problem(X, y, "linear", loss=loss, bias="none")
    _, ours = solve(KernelDCD, problem, 1e-4)
    linear = DualProblem(X, problem.y, problem.C, loss, "none")
    _, theirs = solve(DualCD, linear, 1e-4)
    assert ours.status == theirs.status == "converged"
    assert abs(ours.dual - theirs.dual) <= 1e-5 * abs(theirs.dual)


# (sigmoid with the squared hinge is left out: with U_i = inf and Q + D indefinite the
# dual is unbounded below, so there is no solution to reach)
@pytest.mark.parametrize("kernel,loss", [("rbf", "hinge"), ("rbf", "squared_hinge"),
                                         ("sigmoid", "hinge")])
def test_kernel_dcd_closes_the_gap(heart, kernel, loss):
    problem = kernel_problem(*heart, kernel, loss=loss, bias="none", C=10.0)
    solver, result = solve(KernelDCD, problem, 1e-5)
    assert result.status == "converged"
    assert result.gap < 1e-5
    np.testing.assert_allclose(solver.gradient, problem.gradient(solver.alpha), atol=1e-4)
    assert result.history[-1]["kernel_evaluations"] > 0


def test_kernel_dcd_chunks_change_nothing(heart):
    runs = [solve(KernelDCD, kernel_problem(*heart, "rbf", bias="none"), 1e-4,
                  chunk_evaluations=chunk)[1] for chunk in (2**40, 500)]
    assert len(runs[1].history) > len(runs[0].history)  # epochs ended within passes
    np.testing.assert_array_equal(runs[0].alpha, runs[1].alpha)


def test_kernel_dcd_shrinking_changes_little(heart):
    results = [solve(KernelDCD, kernel_problem(*heart, "rbf", bias="none", C=10.0), 1e-5,
                     shrinking=shrinking)[1] for shrinking in (True, False)]
    assert results[0].dual == pytest.approx(results[1].dual, rel=1e-6)


@pytest.mark.parametrize("kernel", ["rbf", "sigmoid"])
def test_pgd_reaches_the_libsvm_objective(heart, kernel):
    problem = kernel_problem(*heart, kernel)
    solver, result = solve(DualPGD, problem, 1e-6, penalty=100.0)
    _, _, theirs = libsvm_dual(problem, eps=1e-6)
    # the penalty leaves |y'a| ~ |b| / c before the repair; the repaired point is feasible
    ours = dual_objective(problem, result.alpha)
    assert abs(ours - theirs) <= 1e-6 * abs(theirs)
    assert ours <= theirs * (1 + 1e-9)  # a feasible point cannot beat the optimum
    assert abs(problem.y @ result.alpha) <= 1e-10 * result.alpha.sum()
    assert 0 < result.history[-1]["equality_violation"] < 0.1
    assert result.gap < 1e-4


def test_pgd_larger_penalty_is_closer(heart):
    errors = []
    for penalty in (1.0, 100.0):
        problem = kernel_problem(*heart, "rbf")
        solver, _ = solve(DualPGD, problem, 1e-6, penalty=penalty)
        errors.append(solver.equality_violation)
    assert errors[1] < errors[0] / 10


@pytest.mark.parametrize("accelerated", [True, False])
def test_pgd_without_bias_equals_kernel_dcd(heart, accelerated):
    _, ours = solve(DualPGD, kernel_problem(*heart, "rbf", bias="none"), 1e-5,
                    accelerated=accelerated)
    _, theirs = solve(KernelDCD, kernel_problem(*heart, "rbf", bias="none"), 1e-6)
    assert ours.dual == pytest.approx(theirs.dual, rel=1e-6)


def test_pgd_refuses_a_matrix_above_the_limit(heart):
    problem = kernel_problem(*heart, "rbf", cache_size=0.5)
    need = 8 * 270 * 270
    with pytest.raises(ValueError, match=f"n=270 samples need {need} bytes .* limit of 524288 bytes"):
        DualPGD(problem, 1e-3)
    with pytest.raises(ValueError, match="limit of 1000 bytes"):
        DualPGD(kernel_problem(*heart, "rbf"), 1e-3, max_kernel_bytes=1000)
    DualPGD(problem, 1e-3, max_kernel_bytes=need)  # exactly at the limit is allowed


@pytest.mark.parametrize("solver_class,bias,message", [
    (CGD, "none", "bias='exact'"), (KernelDCD, "exact", "bias='none'")])
def test_wrong_problem_is_refused(heart, solver_class, bias, message):
    with pytest.raises(ValueError, match=message):
        solver_class(kernel_problem(*heart, "rbf", bias=bias), 1e-3, random_state=np.random.default_rng(0))


def test_warm_start_keeps_the_equality(heart):
    problem = kernel_problem(*heart, "rbf")
    solver = CGD(problem, 1e-8, alpha=np.random.default_rng(0).uniform(0, 2, 270))
    assert abs(problem.y @ solver.alpha) < 1e-9
    result = run_epochs(solver, problem, Stopping(max_iter=100000))
    _, _, theirs = libsvm_dual(problem, eps=1e-6)
    assert abs(dual_objective(problem, result.alpha) - theirs) <= 1e-7 * abs(theirs)


# --- through dualsvm.SVC -------------------------------------------------------------


@pytest.mark.parametrize("solver", ["cgd", "pgd"])
def test_svc_exact_bias_solvers_match_smo(heart, solver):
    from dualsvm import SVC

    X, y = heart
    ours = SVC(solver=solver, tol=1e-6, gamma=0.1, max_iter=-1).fit(X, y)
    smo = SVC(solver="smo", tol=1e-6, gamma=0.1).fit(X, y)
    # CGD's tol = 1e-6 leaves KKT violations of about 2e-3 (see above); PGD's bias, repaired
    # after the penalty, is off by about as much
    np.testing.assert_allclose(ours.decision_function(X), smo.decision_function(X), atol=2e-3)
    assert ours.dual_[0] == pytest.approx(smo.dual_[0], rel=1e-6)
    assert ours.n_iter_[0] > 0
    np.testing.assert_array_equal(ours.predict(X), smo.predict(X))


def test_svc_dcd_has_no_intercept_and_multiclass_works():
    from sklearn.datasets import load_iris

    from dualsvm import SVC

    X, y = load_iris(return_X_y=True)
    model = SVC(solver="dcd", tol=1e-4, random_state=0).fit(X, y)
    np.testing.assert_array_equal(model.intercept_, 0.0)
    assert model.score(X, y) > 0.9
    assert model.dual_coef_.shape == (2, len(model.support_))
