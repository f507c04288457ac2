"""Primal and dual objectives and the exact bias, as compiled one-pass sums over n-vectors."""

import numpy as np
from numba import njit


def nu_primal(half_norm, margins, weight, total, rho):
    """The nu-primal of a model with 1/2 ||f||^2 = ``half_norm`` and margins m_i:
    1/2 ||f||^2 - S rho + sum_i W_i max(0, rho - m_i), S = ``total`` = nu sum_i W_i
    (one-class: m_i = f(x_i); nu-SVC: y_i (f(x_i) + b))."""
    # a sum, not a BLAS dot: a threaded ddot waits for busy cores on a loaded machine
    return half_norm - total * rho + float(np.sum(weight * np.maximum(0.0, rho - margins)))


def as_floats(a):
    """a as a contiguous float64 array (no copy when it is one)."""
    return np.ascontiguousarray(a, dtype=np.float64)


# The certificate is evaluated after every epoch (the trace); the working-set
# solver's epochs are short, and the same formulas in NumPy, a dozen passes over
# n-vectors, took a large share of its fit time (measurements:
# benchmarks/results/design_measurements.md, section problems/objectives.py). Compiled, each
# is one pass.
@njit(cache=True, nogil=True)
def kkt_bias(y, alpha, upper, gradient):
    """The exact bias b from the KKT conditions at G = ``gradient``: the mean of
    -y_i G_i over the free variables (0 < a_i < U_i), else the midpoint of the
    interval [max over I_up, min over I_low] that the bounded ones allow."""
    total, free, lo, hi = kkt_bias_sums(y, alpha, upper, gradient)
    return bias_from_sums(total, free, lo, hi)


@njit(cache=True, nogil=True)
def kkt_bias_sums(y, alpha, upper, gradient):
    """What :func:`kkt_bias` needs of the variables, in one pass: (sum and count of
    -y_i G_i over the free variables, its max over I_up, its min over I_low). Those of
    parts of the variables combine by sum, sum, max and min."""
    total, free = 0.0, 0
    lo, hi = -np.inf, np.inf
    for i in range(len(y)):
        score = -y[i] * gradient[i]
        above, below = alpha[i] > 0, alpha[i] < upper[i]
        if above and below:
            total += score
            free += 1
        if (below if y[i] > 0 else above) and score > lo:
            lo = score
        if (above if y[i] > 0 else below) and score < hi:
            hi = score
    return total, free, lo, hi


@njit(cache=True, nogil=True)
def bias_from_sums(total, free, lo, hi):
    """:func:`kkt_bias` from :func:`kkt_bias_sums`' (total, free, lo, hi): the free
    variables' mean, else the midpoint of [lo, hi] (its finite end, or 0, when one is
    missing)."""
    if free:
        return total / free
    if np.isfinite(lo) and np.isfinite(hi):
        return 0.5 * (lo + hi)
    return lo if np.isfinite(lo) else hi if np.isfinite(hi) else 0.0


@njit(cache=True, nogil=True)
def nu_offsets(y, alpha, upper, gradient):
    """LIBSVM's ``Solver_NU::calculate_rho`` in one pass: (r1, r2), per sign the mean
    gradient of its free variables, else the midpoint of the interval its bounded
    ones allow (max over a = U, min over a = 0; the finite end, or 0, when one is
    missing)."""
    total = np.zeros(2)
    free = np.zeros(2, dtype=np.int64)
    lb = np.full(2, -np.inf)
    ub = np.full(2, np.inf)
    for i in range(len(y)):
        k = 0 if y[i] > 0 else 1
        if alpha[i] >= upper[i]:
            lb[k] = max(lb[k], gradient[i])
        elif alpha[i] <= 0:
            ub[k] = min(ub[k], gradient[i])
        else:
            total[k] += gradient[i]
            free[k] += 1
    r = np.zeros(2)
    for k in range(2):
        if free[k]:
            r[k] = total[k] / free[k]
        elif np.isfinite(lb[k]) and np.isfinite(ub[k]):
            r[k] = 0.5 * (lb[k] + ub[k])
        elif np.isfinite(lb[k]):
            r[k] = lb[k]
        elif np.isfinite(ub[k]):
            r[k] = ub[k]
    return r[0], r[1]


@njit(cache=True, nogil=True)
def kernel_primal(alpha, gradient, y, diag, cost, intercept, squared):
    """P(a, b) = 1/2 a'Qa + sum_i C_i loss((Qa)_i + y_i b), with (Qa)_i = G_i + 1 -
    D_ii a_i (hinge, or squared hinge when ``squared``); as :func:`weighted_sum`, only
    terms with a loss count, so an infinite C_i (a hard margin) adds nothing where the
    margin holds."""
    quadratic, losses = 0.0, 0.0
    for i in range(len(alpha)):
        qa = gradient[i] + 1.0 - diag[i] * alpha[i]
        quadratic += alpha[i] * qa
        slack = 1.0 - (qa + y[i] * intercept)
        if slack > 0.0:
            losses += cost[i] * (slack * slack if squared else slack)
    return 0.5 * quadratic + losses


@njit(cache=True, nogil=True)
def multiclass_hinge_sum(scores, labels, cost):
    """sum_i C_i max_m (e_i^m + s_im - s_iy_i) (e_i^m = 1 for m != y_i, else 0) over the
    rows (n, k) of ``scores``; as :func:`weighted_sum`, only terms with a loss count.

    One pass, where NumPy's took a dozen over n x k temporaries (a large share of a
    Crammer-Singer fit's fixed cost; measurements:
    benchmarks/results/design_measurements.md, section problems/objectives.py).
    """
    total = 0.0
    for i in range(scores.shape[0]):
        own = scores[i, labels[i]]
        loss = 0.0
        for m in range(scores.shape[1]):
            if m != labels[i]:
                loss = max(loss, 1.0 + scores[i, m] - own)
        if loss > 0.0:
            total += cost[i] * loss
    return total


def loss_terms(margins, cost, loss):
    """sum_i C_i loss(m_i) at the margins m_i = y_i (w'x_i + b)."""
    slack = np.maximum(0.0, 1.0 - margins)
    if loss == "squared_hinge":
        slack = slack * slack
    return weighted_sum(cost, slack)


@njit(cache=True, nogil=True, inline="always")
def _add(total, error, term):
    """Neumaier's compensated summation step: (total + term, the rounding error so far).
    The certificate subtracts two sums of n terms that agree to the last digits at the
    optimum; plain running sums left gaps of -1e-15 there."""
    added = total + term
    if abs(total) >= abs(term):
        error += (total - added) + term
    else:
        error += (term - added) + total
    return added, error


@njit(cache=True, nogil=True)
def weighted_sum(cost, loss):
    """sum_i C_i loss_i over the terms with loss_i > 0: an infinite C_i (a hard margin)
    adds nothing where its loss is 0, and infinity where it is not.

    Compiled, like :func:`dual_terms`: BLAS's threaded dot products over n wait for a
    busy core at every hand-over (certificates many times slower; measurements:
    benchmarks/results/design_measurements.md, section problems/objectives.py)."""
    total, error = 0.0, 0.0
    for i in range(len(loss)):
        if loss[i] > 0.0:
            total, error = _add(total, error, cost[i] * loss[i])
    return total + error if np.isfinite(total) else total  # (inf - inf in the error: NaN)


def regression_loss_terms(residuals, cost, loss, epsilon):
    """sum_i C_i loss(r_i) of the residuals r_i = y_i - w'x_i - b (epsilon-insensitive)."""
    slack = np.maximum(0.0, np.abs(residuals) - epsilon)
    if loss == "squared_epsilon_insensitive":
        slack = slack * slack
    return weighted_sum(cost, slack)


@njit(cache=True, nogil=True)
def dual_terms(alpha, diag):
    """sum_i (a_i - 1/2 D_ii a_i^2): the dual without -1/2 w'w."""
    total, error = 0.0, 0.0
    for i in range(len(alpha)):
        total, error = _add(total, error, alpha[i] - 0.5 * diag[i] * alpha[i] * alpha[i])
    return total + error if np.isfinite(total) else total


def relative_gap(primal, dual):
    """``(P - D) / |P|``, guarded for P = 0."""
    return (primal - dual) / max(abs(primal), np.finfo(float).tiny)
