"""What every dual problem shares: the box 0 <= a_i <= U_i, (D_ii, U_i) from the
costs and the loss, and the exact bias y'a = 0 with its KKT value (see
:mod:`dualsvm.problems`)."""

import numpy as np
from numba import njit

from ..constants import L1_LOSSES, LOSSES
from .objectives import as_floats, kkt_bias


def dual_parameters(C, loss):
    """(D_ii, U_i) of the dual for the costs C_i: the table above, for every problem
    (the regression losses as their classification twins).

    A zero-cost sample (zero sample weight) gets U_i = 0 and D_ii = 0: it never moves.
    """
    C = np.asarray(C, dtype=np.float64)
    if loss in L1_LOSSES:
        return np.zeros(len(C)), C.copy()
    free = C > 0
    diag = np.divide(0.5, C, out=np.zeros(len(C)), where=free)
    return diag, np.where(free, np.inf, 0.0)


def check_modes(loss, bias, allowed_bias, losses=LOSSES):
    if loss not in losses:
        raise ValueError(f"loss must be one of {losses}, got {loss!r}")
    if bias not in allowed_bias:
        raise ValueError(f"bias must be one of {allowed_bias}, got {bias!r}")


class BoxDual:
    """What every dual problem shares: y, (D_ii, U_i) and the exact bias from KKT."""

    def intercept_from_dual(self, gradient, alpha):
        """The exact bias b from the KKT conditions, given G = grad f(a).

        For 0 < a_i < U_i, y_i (w'x_i + b) = 1 - D_ii a_i, so b = -y_i G_i; with no
        such i, b is the midpoint of the interval the bounded variables allow.
        """
        return kkt_bias(as_floats(self.y), as_floats(alpha), as_floats(self.upper_bound),
                        as_floats(gradient))

    def feasible(self, alpha):
        """A warm start made feasible: zeros for None, else clipped to the box and,
        for the exact bias, scaled down on one class so that y'a = 0 holds (values
        within 1e-12 relative of their bound are put on it)."""
        if alpha is None:
            return np.zeros(self.n_samples)
        alpha = np.clip(np.asarray(alpha, dtype=np.float64), 0.0, self.upper_bound)
        if self.bias == "exact":
            positive = self.y > 0
            sp, sn = alpha[positive].sum(), alpha[~positive].sum()
            if sp > sn and sp > 0:
                alpha[positive] *= sn / sp
            elif sn > sp and sn > 0:
                alpha[~positive] *= sp / sn
        # A start scaled from another C (a path) lands within rounding of its bound:
        # put it on the bound, or it looks free to the KKT tests and the bias while
        # no step can move it (CGD's pair gains vanish).
        near = (alpha < self.upper_bound) & (alpha >= self.upper_bound * (1.0 - 1e-12))
        alpha[near] = self.upper_bound[near]
        return alpha

    def movable(self):
        """Indices (int64) of the variables that can move: U_i > 0 (a zero-cost sample never does)."""
        return np.flatnonzero(self.upper_bound > 0).astype(np.int64)

    def max_violation(self, alpha, gradient):
        """LIBSVM's measure of the exact-bias dual: max over I_up of -y_i G_i minus the
        min over I_low (0 when a set is empty); at most ``-e`` at its optimum."""
        score = -self.y * gradient
        up, low = self.bias_sets(alpha)
        if not up.any() or not low.any():
            return 0.0
        return float(score[up].max() - score[low].min())

    def bias_sets(self, alpha):
        """LIBSVM's I_up and I_low: where y_i a_i can still grow, and shrink.

        At the optimum, max over I_up of -y_i G_i <= b <= min over I_low of it.
        """
        below = alpha < self.upper_bound
        above = alpha > 0
        positive = self.y > 0
        return (positive & below) | (~positive & above), (positive & above) | (~positive & below)

def greedy_fill(total, upper):
    """a_i = min(U_i, what is left of ``total`` after a_1..a_{i-1}): LIBSVM's feasible
    start for a sum constraint e'a = total (the first variables at their bound)."""
    return _greedy_fill(float(total), as_floats(upper))


@njit(cache=True, nogil=True)
def _greedy_fill(total, upper):
    # one pass (NumPy's cumsum and clip took four over n; the same sums, in order)
    out = np.empty(len(upper))
    before = 0.0
    for i in range(len(upper)):
        out[i] = min(max(total - before, 0.0), upper[i])
        before += upper[i]
    return out
