"""SMO against LIBSVM 3.37 and the KKT conditions."""

import re

import numpy as np
import pytest
import scipy.sparse as sp

from dualsvm.kernels import make_kernel
from dualsvm.problems.kernel import KernelDualProblem, NuDual, SVRDual
from dualsvm.solvers import Stopping, run_epochs
from dualsvm.solvers._smo_jit import ACTIVE, new_status
from dualsvm.solvers.smo import SMO

from reference import dual_objective, libsvm_dual


def _binary(X, y):
    return X, np.where(y == np.unique(y)[1], 1.0, -1.0)


def _solve(X, y, kernel, C=1.0, tol=1e-3, loss="hinge", shrinking=True, cost=None,
           cache_size=100, steps_per_epoch=1000, **stopping):
    cost = np.full(len(y), C) if cost is None else cost
    problem = KernelDualProblem(X, y, cost, loss, "exact", kernel, cache_size)
    solver = SMO(problem, tol, shrinking=shrinking, steps_per_epoch=steps_per_epoch)
    result = run_epochs(solver, problem, Stopping(max_iter=stopping.pop("max_iter", 10**6),
                                                  **stopping))
    return problem, solver, result


def _assert_kkt(problem, alpha, intercept, tol):
    """Box, y'a = 0, maximal violation below tol, and b inside the KKT interval."""
    y, U = problem.y, problem.upper_bound
    assert np.all(alpha >= 0) and np.all(alpha <= U)
    assert abs(y @ alpha) <= 1e-10 * max(1.0, alpha.sum())
    G = problem.gradient(alpha)  # from scratch, in float64
    score = -y * G
    up, low = problem.bias_sets(alpha)
    violation = score[up].max() - score[low].min()
    assert violation < tol + 2e-6  # G is kept with float32 kernel columns, as LIBSVM's
    assert score[up].max() - 1e-3 <= intercept <= score[low].min() + 1e-3


KERNELS = [("rbf", {"gamma": 0.5}), ("poly", {"gamma": 0.1, "coef0": 1.0, "degree": 3}),
           ("linear", {}), ("sigmoid", {"gamma": 0.05, "coef0": -1.0})]


@pytest.mark.parametrize("name,params", KERNELS)
@pytest.mark.parametrize("C", [1.0, 10.0])
def test_heart_scale_matches_libsvm(load, name, params, C):
    X, y = _binary(*load("heart_scale"))
    kernel = make_kernel(name, **params)
    problem, solver, result = _solve(X, y, kernel, C)
    assert result.status == "converged"
    _, b_ref, theirs = libsvm_dual(problem)
    ours = dual_objective(problem, result.alpha)
    assert ours == pytest.approx(theirs, rel=1e-7)  # SMO takes LIBSVM's steps
    # the objective we report is the true one: recomputed in float64 at the end
    assert result.dual == pytest.approx(ours, rel=1e-9)
    assert result.intercept == pytest.approx(b_ref, abs=3e-3)  # both within ~tol of b*
    _assert_kkt(problem, result.alpha, result.intercept, 1e-3)
    assert 0 <= result.gap < 1e-2


def _libsvm_iterations(X, y, kernel, C, shrinking):
    """LIBSVM's #iter of C-SVC on (X, y) with a dualsvm Kernel."""
    from libsvm import svmutil
    from libsvm.svm import PRINT_STRING_FUN

    parameter = svmutil.svm_parameter(
        f"-t {kernel.code} -g {float(kernel.gamma)!r} -d {kernel.degree} "
        f"-r {float(kernel.coef0)!r} -c {float(C)!r} -e 0.001 -h {int(shrinking)}")
    printed = []
    parameter.print_func = PRINT_STRING_FUN(lambda text: printed.append(text.decode()))
    svmutil.svm_train(svmutil.svm_problem(list(y), sp.csr_matrix(X)), parameter)
    return int(re.search(r"#iter = (\d+)", "".join(printed)).group(1))


@pytest.mark.parametrize("name,params,C,shrinking",
                         [(*KERNELS[0], 1.0, True), (*KERNELS[0], 10.0, True),
                          (*KERNELS[0], 10.0, False), (*KERNELS[1], 10.0, True),
                          (*KERNELS[2], 1.0, True)])
def test_steps_are_libsvms_working_sets(load, name, params, C, shrinking):
    # the next i found by the gradient update's pass and the selection of j that
    # divides only for candidates that may gain choose LIBSVM's pairs: as many steps
    # (linear at C = 10 takes tens of thousands of steps, over which the float32
    # columns' rounding, LIBSVM's and ours, leads the two elsewhere)
    X, y = _binary(*load("heart_scale"))
    kernel = make_kernel(name, **params)
    _, solver, result = _solve(X, y, kernel, C, shrinking=shrinking)
    assert result.status == "converged"
    assert solver.n_iter == _libsvm_iterations(X, y, kernel, C, shrinking)


def test_non_psd_sigmoid_converges_like_libsvm(load):
    # gamma * ||x||^2 large and coef0 < 0: the sigmoid kernel matrix is indefinite
    X, y = _binary(*load("heart_scale"))
    kernel = make_kernel("sigmoid", gamma=2.0, coef0=-1.0)
    K = kernel(X, X)
    assert np.linalg.eigvalsh(K).min() < -1e-3
    problem, solver, result = _solve(X, y, kernel, C=1.0)
    assert result.status == "converged"
    _, _, theirs = libsvm_dual(problem)
    assert dual_objective(problem, result.alpha) == pytest.approx(theirs, rel=1e-7)
    _assert_kkt(problem, result.alpha, result.intercept, 1e-3)


def test_dense_equals_sparse(load):
    X, y = _binary(*load("heart_scale"))
    kernel = make_kernel("rbf", gamma=0.3)
    _, _, sparse = _solve(sp.csr_matrix(X), y, kernel)
    _, _, dense = _solve(X.toarray(), y, kernel)
    np.testing.assert_allclose(dense.alpha, sparse.alpha, atol=1e-5)
    assert dense.dual == pytest.approx(sparse.dual, rel=1e-8)


def test_shrinking_and_small_cache_do_not_change_the_solution(load):
    X, y = _binary(*load("breast-cancer_scale"))
    kernel = make_kernel("rbf", gamma=10.0)  # 859 steps: shrinking starts after min(n, 1000)
    _, plain, reference = _solve(X, y, kernel, C=10.0, shrinking=False)
    # short epochs: the history sees the active set while shrunk
    problem, shrunk, result = _solve(X, y, kernel, C=10.0, cache_size=0.01, steps_per_epoch=50)
    assert min(r["active_size"] for r in result.history) < 0.7 * len(y)  # 398 of 683
    assert problem.q.n_slots < len(y)  # the cache evicted columns
    assert result.dual == pytest.approx(reference.dual, rel=1e-9)
    _assert_kkt(problem, result.alpha, result.intercept, 1e-3)


@pytest.mark.parametrize("kind", ["c_svc", "nu_svr"])
def test_status_bytes_follow_alpha_and_the_active_set(load, kind):
    # the passes read one status byte a variable (in I_up, in I_low, y > 0, active) and
    # may walk all variables in index order: after every epoch of a shrinking run the
    # bytes equal those recomputed from y, alpha, U and the active set, whose active
    # part stays sorted
    kernel = make_kernel("rbf", gamma=10.0)
    if kind == "c_svc":
        X, y = _binary(*load("breast-cancer_scale"))
        problem = KernelDualProblem(X, y, np.full(len(y), 10.0), "hinge", "exact", kernel, 100)
    else:
        X, z = load("housing_scale")
        problem = SVRDual(X, z, np.full(len(z), 10.0), nu=0.5, kernel=make_kernel("rbf", gamma=1.0))
    solver = SMO(problem, 1e-3, steps_per_epoch=50)
    sizes = []
    converged = False
    while not converged:
        converged = solver.epoch()
        m = solver.active_size
        sizes.append(m)
        expected = new_status(problem.y, solver.alpha, problem.upper_bound) & ~ACTIVE
        expected[solver.active[:m]] |= ACTIVE
        np.testing.assert_array_equal(solver.status, expected)
        assert np.all(np.diff(solver.active[:m]) > 0)
    # the passes walked the variables both ways: nu-SVR below a quarter active, C-SVC
    # between a quarter and three quarters (the update in order, the selection by index)
    lowest = min(sizes) / problem.n_samples
    assert (lowest < 0.25 if kind == "nu_svr" else 0.25 < lowest < 0.7)
    assert sizes[-1] == problem.n_samples


def test_reconstruction_leaves_the_free_columns_complete_in_the_cache(load):
    # the shrunk gradients are rebuilt from the free variables' complete cached columns,
    # which stay there for the next reconstruction (of this fit, or the next of a path;
    # here a third of them had been computed only over an active set)
    X, y = load("a9a.bz2")
    X, y = _binary(X[:3000], y[:3000])
    kernel = make_kernel("rbf", gamma=0.05)
    problem, solver, result = _solve(X, y, kernel, steps_per_epoch=50)
    assert min(r["active_size"] for r in result.history) < len(y)
    fresh = KernelDualProblem(X, y, np.ones(len(y)), "hinge", "exact", kernel)
    np.testing.assert_allclose(solver.G, fresh.gradient(result.alpha), rtol=0, atol=1e-5)
    free = np.flatnonzero((result.alpha > 0) & (result.alpha < 1.0))
    evaluations = problem.q.kernel_evaluations
    problem.q.complete_slots(free)
    assert len(free) and problem.q.kernel_evaluations == evaluations


@pytest.mark.parametrize("one_class", [False, True])
def test_nu_start_from_cached_columns_unless_tol_is_below_their_rounding(load, one_class):
    # LIBSVM's start of the nu problems: G_bar and G from the cached complete columns of
    # the start's nonzero variables (float32, as the steps' columns), which stay cached;
    # at a tol below their rounding, float64 products instead, computing no column
    X, y = _binary(*load("heart_scale"))
    kernel = make_kernel("rbf", gamma=0.5)
    for tol, cached in ((1e-3, True), (1e-12, False)):
        problem = NuDual(X, None if one_class else y, np.ones(len(y)), 0.5, kernel)
        start = np.flatnonzero(problem.start)
        solver = SMO(problem, tol)
        exact = NuDual(X, None if one_class else y, np.ones(len(y)), 0.5, kernel)
        bounded = np.where(problem.start >= 1.0, 1.0, 0.0)
        np.testing.assert_allclose(solver.G, exact.gradient(problem.start),
                                   rtol=0, atol=1e-6 if cached else 1e-12)
        np.testing.assert_allclose(solver.G_bar, exact.product(bounded),
                                   rtol=0, atol=1e-6 if cached else 1e-12)
        assert problem.q.cache_misses == (len(start) if cached else 0)
        if cached:
            evaluations = problem.q.kernel_evaluations
            problem.q.complete_slots(start)
            assert problem.q.kernel_evaluations == evaluations


def test_tight_tol_closes_the_gap_and_dual_increases(load):
    X, y = _binary(*load("heart_scale"))
    problem, solver, result = _solve(X, y, make_kernel("rbf", gamma=0.5), C=10.0, tol=1e-8)
    # the final certificate is computed in float64; SMO's float32 kernel columns (as
    # LIBSVM's) leave the true gap at 3e-7 here, however small tol
    assert result.gap < 1e-6
    # SMO's own duals (the last record holds the float64 certificate) are monotone up
    # to the rounding of float32 kernel columns (about 1e-9 relative)
    duals = [r["dual"] for r in result.history[:-1]]
    assert all(b >= a - 1e-8 * abs(a) for a, b in zip(duals, duals[1:]))
    assert result.history[-1]["kernel_evaluations"] > 0


def test_class_and_sample_weights_act_through_C(load):
    X, y = _binary(*load("heart_scale"))
    kernel = make_kernel("rbf", gamma=0.5)
    cost = np.where(y > 0, 2.0, 0.5)
    problem, _, result = _solve(X, y, kernel, cost=cost, tol=1e-6)
    assert np.all(result.alpha <= cost + 1e-12)
    # rows of each class reach their own bound
    assert np.any(result.alpha[y > 0] == 2.0) and np.any(result.alpha[y < 0] == 0.5)
    _assert_kkt(problem, result.alpha, result.intercept, 1e-6)
    # a zero-cost row never moves and does not change the solution of the others
    zero = cost.copy()
    zero[0] = 0.0
    _, _, with_zero = _solve(X, y, kernel, cost=zero, tol=1e-8)
    _, _, without = _solve(X[1:], y[1:], kernel, cost=cost[1:], tol=1e-8)
    assert with_zero.alpha[0] == 0.0
    assert with_zero.dual == pytest.approx(without.dual, rel=1e-8)


def test_squared_hinge_meets_its_kkt_conditions(load):
    X, y = _binary(*load("heart_scale"))
    problem, _, result = _solve(X, y, make_kernel("rbf", gamma=0.5), loss="squared_hinge",
                                tol=1e-6)
    assert result.status == "converged"
    _assert_kkt(problem, result.alpha, result.intercept, 1e-6)
    assert 0 <= result.gap < 1e-5


def test_step_limit_and_warm_start(load):
    X, y = _binary(*load("breast-cancer_scale"))
    kernel = make_kernel("rbf", gamma=1.0)
    problem = KernelDualProblem(X, y, np.full(len(y), 10.0), "hinge", "exact", kernel)
    solver = SMO(problem, 1e-3, steps_per_epoch=10, max_steps=25)
    result = run_epochs(solver, problem, Stopping(max_iter=3))
    assert result.status == "max_iter" and solver.n_iter == 25
    # the final certificate is exact even when stopped while shrunk
    G = problem.gradient(result.alpha)
    assert result.dual == pytest.approx(problem.dual_from_gradient(result.alpha, G), rel=1e-7)
    assert result.primal >= result.dual
    _, _, cold = _solve(X, y, kernel, C=10.0)
    warm = SMO(problem, 1e-3, alpha=cold.alpha)
    assert run_epochs(warm, problem, Stopping(max_iter=100)).n_iter <= 1


def test_smo_refuses_a_problem_without_the_exact_bias(load):
    X, y = _binary(*load("heart_scale"))
    problem = KernelDualProblem(X, y, np.ones(len(y)), "hinge", "none", make_kernel("rbf"))
    with pytest.raises(ValueError, match="bias='exact'"):
        SMO(problem)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["a9a.bz2", "w7a.bz2", "ijcnn1.bz2"])
@pytest.mark.parametrize("kernel_name", ["rbf", "sigmoid"])
def test_benchmark_sets_match_libsvm(load_benchmark, name, kernel_name):
    X, y = _binary(*load_benchmark(name))
    kernel = make_kernel(kernel_name, gamma=1.0 / X.shape[1])
    problem, _, result = _solve(X, y, kernel, C=1.0)
    assert result.status == "converged"
    _, _, theirs = libsvm_dual(problem)
    assert dual_objective(problem, result.alpha) == pytest.approx(theirs, rel=1e-4)
    _assert_kkt(problem, result.alpha, result.intercept, 1e-3)
