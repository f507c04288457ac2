"""The kernel solvers other than SMO: CGD (Tseng-Yun), kernel DCD, dual PGD, and their parts."""

import itertools

import numpy as np
import pytest

from dualsvm.solvers._knapsack import conformal_pairs, solve_knapsack

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
