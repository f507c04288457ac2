"""The linear dual problems: solvers keep w = sum_i y_i a_i x_i (see :mod:`dualsvm.problems`).

:class:`DualProblem` (LIBLINEAR's -s 1 / -s 3 and the exact bias), :class:`SVRDualProblem`
(-s 12 / -s 13), :class:`L1RegularizedProblem` (-s 5, solved in the primal) and
:class:`LinearOneClassDual` (-s 21), with the compiled row sums their certificates use.
"""

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..constants import BIAS_MODES, REGRESSION_LOSSES
from ..data.rows import kernel_rows, row_axpy, row_dot, squared_norms
from .box import BoxDual, check_modes, dual_parameters, greedy_fill
from .objectives import dual_terms, loss_terms, nu_primal, regression_loss_terms, relative_gap


class LinearRows:
    """The sizes of a linear problem over rows X with an optional augmented bias
    (``X``, ``bias`` and, for an augmented bias, ``bias_scale`` are its fields)."""

    @property
    def n_samples(self):
        return self.X.shape[0]

    @property
    def n_features(self):
        return self.X.shape[1]

    @property
    def augmented_value(self):
        """B in compiled kernels: 0.0 unless the bias is an augmented feature."""
        return float(self.bias_scale) if self.bias == "augmented" else 0.0

    @property
    def n_weights(self):
        """Length of w: the features, plus one for the augmented bias."""
        return self.n_features + (self.bias == "augmented")


@dataclass(eq=False)
class DualProblem(BoxDual, LinearRows):
    """A binary SVM problem with its dual parameters.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or scipy.sparse.csr_matrix
        float64 training data; CSR with sorted indices.
    y : ndarray of shape (n_samples,)
        Labels in {-1.0, +1.0}.
    C : ndarray of shape (n_samples,)
        Per-sample cost C_i = C * class_weight[y_i] * sample_weight_i, all >= 0.
    loss : {'hinge', 'squared_hinge'}
    bias : {'none', 'augmented', 'exact'}
    bias_scale : float
        Value B of the augmented feature (used when ``bias='augmented'``).
    """

    X: object
    y: np.ndarray
    C: np.ndarray
    loss: str = "squared_hinge"
    bias: str = "augmented"
    bias_scale: float = 1.0

    #: Whether y holds real targets (:class:`SVRDualProblem`) rather than labels.
    regression = False
    #: The regulariser of the primal: 1/2 w'w ('l2') or ||w||_1 ('l1', :class:`L1RegularizedProblem`).
    penalty = "l2"

    def __post_init__(self):
        self.check_modes()
        self.rows = kernel_rows(self.X)  # what compiled kernels read: see _rows
        self.row_squared_norms = squared_norms(self.rows, self.n_samples, self.augmented_value)
        self.set_costs(self.C)

    def set_costs(self, C):
        """Take new costs C_i for the same rows and labels (a path over C): (D_ii, U_i)
        and the curvatures Q_ii + D_ii follow; the rows' squared norms are kept."""
        self.C = np.asarray(C, dtype=np.float64)
        self.diag, self.upper_bound = dual_parameters(self.C, self.loss)
        self.q_diag = self.row_squared_norms + self.diag  # Q_ii + D_ii: each coordinate's curvature

    def check_modes(self):
        """ValueError for a loss or bias mode this problem does not have."""
        check_modes(self.loss, self.bias, BIAS_MODES)

    def weights(self, alpha):
        """w = sum_i y_i a_i x_i (with the augmented entry)."""
        if self.X.dtype != np.float64:  # float32 rows: BLAS would cast a copy of X
            w = np.zeros(self.n_weights)
            self.add_weights(alpha, w)
            return w
        ya = self.y * alpha
        w = np.empty(self.n_weights)
        w[: self.n_features] = self.X.T @ ya
        if self.bias == "augmented":
            w[-1] = self.bias_scale * ya.sum()
        return w

    def add_weights(self, alpha, w):
        """w += sum_i y_i a_i x_i (with the augmented entry), in place, by the kernels'
        row operations: dense and CSR data give identical sums (:meth:`weights` uses BLAS)."""
        add_rows(self.rows, self.n_samples, self.y * alpha, w, self.augmented_value)

    def coef_intercept(self, w, intercept=0.0):
        """(coef, b) of the decision function x'coef + b of a weight vector w.

        ``intercept`` is the exact bias (see :meth:`evaluate`); the augmented
        bias is B w_d; coef is a copy.
        """
        coef = w[: self.n_features].copy()
        if self.bias == "augmented":
            return coef, self.bias_scale * float(w[self.n_features])
        return coef, float(intercept)

    def decision(self, w):
        """w'x_i for every training row (the augmented bias included)."""
        return decisions(self.rows, self.n_samples, w, self.augmented_value)

    def primal(self, w, intercept=0.0, decision=None):
        """P(w, b) = 1/2 w'w + sum_i C_i loss(y_i (w'x_i + b))."""
        if decision is None:
            decision = self.decision(w)
        return 0.5 * float(w @ w) + self.loss_sum(decision, intercept)

    def loss_sum(self, decision, intercept=0.0):
        """sum_i C_i loss(y_i (w'x_i + b)): the primal without 1/2 w'w (sums over row blocks)."""
        return loss_terms(self.y * (decision + intercept), self.C, self.loss)

    def loss_of(self, w):
        """sum_i C_i loss(y_i w'x_i): :meth:`loss_sum` of :meth:`decision`, in one
        compiled pass without temporaries (out of core, once per block and pass)."""
        return loss_of_rows(self.rows, self.n_samples, w, self.augmented_value, self.y, self.C,
                            self.loss == "squared_hinge")

    def dual(self, alpha, w):
        """D(a) = -1/2 w'w - 1/2 sum_i D_ii a_i^2 + sum_i a_i, with w = w(a)."""
        return -0.5 * float(w @ w) + self.dual_sum(alpha)

    def dual_sum(self, alpha):
        """sum_i (a_i - 1/2 D_ii a_i^2): the dual without -1/2 w'w (sums over row blocks)."""
        return dual_terms(alpha, self.diag)

    def gradient(self, alpha, decision):
        """G = grad f(a) = y * (X w) - 1 + D a, from decision = X w (no bias term)."""
        return self.y * decision - 1.0 + self.diag * alpha

    def evaluate(self, alpha, w):
        """Certificate of a dual point: (primal, dual, relative gap, intercept).

        The intercept is the KKT value of the exact bias (0 for the other modes,
        where the bias is inside w). One product X w serves everything.
        """
        decision = self.decision(w)
        intercept = 0.0
        if self.bias == "exact":
            intercept = self.intercept_from_dual(self.gradient(alpha, decision), alpha)
        primal = self.primal(w, intercept, decision)
        dual = self.dual(alpha, w)
        return primal, dual, relative_gap(primal, dual), intercept

    def dual_point(self, decision):
        """A feasible dual point for a primal w, from its decisions w'x_i (bias included).

        The KKT map a_i = -C_i loss'(m_i) at the margins m_i = y_i w'x_i (hinge:
        C_i where m_i < 1, else 0; squared hinge: 2 C_i max(0, 1 - m_i)), then
        scaled by the factor s in [0, max feasible] that maximises D(s a), a
        concave quadratic in s. At the optimum of the squared hinge this is the
        optimal dual point; for the hinge, margins hovering around 1 make it a
        coarse one, so its gap is a valid but loose bound.
        """
        if self.bias == "exact":
            raise ValueError("dual_point needs bias 'none' or 'augmented': the exact "
                             "bias adds the constraint y'a = 0")
        alpha = self.kkt_alpha(decision)
        curvature = float(np.sum(self.weights(alpha) ** 2)) + float(self.diag @ (alpha * alpha))
        if curvature > 0.0:
            best = alpha.sum() / curvature
            movable = alpha > 0
            limit = float(np.min(self.upper_bound[movable] / alpha[movable])) if movable.any() else 0.0
            alpha = alpha * min(best, limit)
        return alpha

    def kkt_alpha(self, decision):
        """The dual variables the margins m_i = y_i w'x_i ask for: a_i = -C_i loss'(m_i)
        (hinge: C_i where m_i < 1, else 0; squared hinge: 2 C_i max(0, 1 - m_i)).

        Feasible for both losses; at the optimum w* (bias none or augmented) the
        optimal dual point of the squared hinge, and of the hinge away from m_i = 1.
        """
        slack = np.maximum(0.0, 1.0 - self.y * decision)
        return self.C * ((slack > 0) if self.loss == "hinge" else 2.0 * slack)

    def evaluate_primal(self, w, decision=None):
        """Certificate of a primal point: (primal, dual, relative gap, dual point).

        The dual value is that of :meth:`dual_point`, so P(w) - D >= P(w) - P*:
        the gap bounds the suboptimality of w. ``decision``: its w'x_i when the
        caller keeps them.
        """
        if decision is None:
            decision = self.decision(w)
        alpha = self.dual_point(decision)
        primal = self.primal(w, 0.0, decision)
        dual = self.dual(alpha, self.weights(alpha))
        return primal, dual, relative_gap(primal, dual), alpha


@dataclass(eq=False)
class SVRDualProblem(DualProblem):
    """Linear support vector regression: the dual of the module docstring with beta.

    Parameters
    ----------
    X, C, bias_scale
        As in :class:`DualProblem`.
    y : ndarray of shape (n_samples,)
        Real targets.
    loss : {'epsilon_insensitive', 'squared_epsilon_insensitive'}
    bias : {'none', 'augmented'}
        LIBLINEAR has no exact bias for regression, nor do we.
    epsilon : float
        Width of the insensitive tube (LIBLINEAR ``-p``), >= 0.

    The dual variables (``alpha`` in the solvers' interface) are beta in
    [-U_i, U_i]; w = sum_i beta_i x_i; the certificate is P(w(beta)) - D(beta).
    """

    loss: str = "squared_epsilon_insensitive"
    epsilon: float = 0.0

    regression = True

    def check_modes(self):
        check_modes(self.loss, self.bias, ("none", "augmented"), REGRESSION_LOSSES)
        if not self.epsilon >= 0:
            raise ValueError(f"epsilon must be >= 0, got {self.epsilon!r}")

    def weights(self, beta):
        """w = sum_i beta_i x_i (with the augmented entry)."""
        w = np.empty(self.n_weights)
        w[: self.n_features] = self.X.T @ beta
        if self.bias == "augmented":
            w[-1] = self.bias_scale * beta.sum()
        return w

    def loss_sum(self, decision, intercept=0.0):
        """sum_i C_i loss(y_i - w'x_i - b)."""
        return regression_loss_terms(self.y - decision - intercept, self.C, self.loss,
                                     self.epsilon)

    def dual_sum(self, beta):
        """sum_i (y_i beta_i - eps |beta_i| - 1/2 D_ii beta_i^2): the dual without -1/2 w'w."""
        return (float(self.y @ beta) - self.epsilon * float(np.abs(beta).sum())
                - 0.5 * float(self.diag @ (beta * beta)))

    def gradient(self, beta, decision):
        """The smooth part of grad f: X w - y + D beta (the eps |beta| term apart)."""
        return decision - self.y + self.diag * beta

    def feasible(self, beta):
        """A warm start clipped to [-U_i, U_i] (zeros for None)."""
        if beta is None:
            return np.zeros(self.n_samples)
        return np.clip(np.asarray(beta, dtype=np.float64), -self.upper_bound, self.upper_bound)

    def dual_point(self, decision):
        raise ValueError("regression problems are solved in the dual only (no primal "
                         "solver maps w to a dual point)")


@dataclass(eq=False)
class L1RegularizedProblem(DualProblem):
    """L1-regularised L2-loss SVC (LIBLINEAR ``-s 5``), a primal problem, with a dual
    for its certificate.

    Primal, with margins m_i = y_i w'x_i (the augmented bias inside w, penalised
    like the other weights, as LIBLINEAR does by default)::

        min_w  P(w) = ||w||_1 + sum_i C_i max(0, 1 - m_i)^2

    Dual (Fenchel: C max(0, 1 - m)^2 = max_{a >= 0} a (1 - m) - a^2 / (4 C), and
    min_w ||w||_1 - w'v is 0 when ||v||_inf <= 1, else -inf)::

        max_a  D(a) = sum_i (a_i - a_i^2 / (4 C_i)),   a >= 0,   ||X'(y * a)||_inf <= 1

    the same separable terms as the L2-regularised dual (:func:`dual_terms` with
    D_ii = 1/(2 C_i)) on another feasible set. A dual point for a primal w
    (:meth:`dual_point`): the KKT map a_i = 2 C_i max(0, 1 - m_i), scaled by the
    s >= 0 that maximises D(s a) (a concave quadratic) subject to
    s ||X'(y * a)||_inf <= 1. At the optimum w* the optimality condition
    |X'(y * a)|_j <= 1 (with equality where w*_j != 0) makes s = 1 feasible and
    optimal, so P(w) - D(s a) closes as w approaches w*. Parameters as
    :class:`DualProblem` (the loss is the squared hinge; bias 'none' or 'augmented').
    """

    penalty = "l1"

    def check_modes(self):
        check_modes(self.loss, self.bias, ("none", "augmented"), ("squared_hinge",))

    def primal(self, w, intercept=0.0, decision=None):
        """P(w) = ||w||_1 + sum_i C_i max(0, 1 - y_i w'x_i)^2."""
        if decision is None:
            decision = self.decision(w)
        return float(np.abs(w).sum()) + self.loss_sum(decision, intercept)

    def dual(self, alpha, w=None):
        """D(a) = sum_i (a_i - a_i^2 / (4 C_i)); -inf when ||X'(y * a)||_inf > 1
        (beyond rounding), i.e. for an infeasible a. ``w``: X'(y * a) if known."""
        v = self.weights(alpha) if w is None else w
        if float(np.abs(v).max(initial=0.0)) > 1.0 + 1e-12:
            return -np.inf
        return self.dual_sum(alpha)

    def dual_point(self, decision):
        """The feasible dual point of a primal w, from its decisions (class docstring)."""
        alpha = self.kkt_alpha(decision)
        linear = float(alpha.sum())
        quadratic = float(self.diag @ (alpha * alpha))  # D(s a) = s lin - s^2 quad / 2
        if linear <= 0.0:
            return np.zeros_like(alpha)
        largest = float(np.abs(self.weights(alpha)).max(initial=0.0))
        scale = linear / quadratic if quadratic > 0 else np.inf
        if largest > 0.0:
            scale = min(scale, 1.0 / largest)
        return alpha * scale

    def evaluate_primal(self, w, decision=None):
        """(primal, dual, relative gap, dual point) of a primal w (see :meth:`dual_point`);
        ``decision``: its w'x_i when the caller keeps them."""
        if decision is None:
            decision = self.decision(w)
        alpha = self.dual_point(decision)
        primal = self.primal(w, 0.0, decision)
        dual = self.dual_sum(alpha)  # feasible by construction: no second X'(y a)
        return primal, dual, relative_gap(primal, dual), alpha


@dataclass(eq=False)
class LinearOneClassDual(BoxDual, LinearRows):
    """The one-class SVM with a linear kernel, in w (LIBLINEAR ``-s 21``; Chou, Lin,
    Lin et al., SDM 2020): :class:`NuDual`'s one-class problem with Q_ij = x_i'x_j,
    kept as w = sum_i a_i x_i instead of a kernel matrix.

    Primal and dual (S = nu sum_i W_i; LIBLINEAR's W_i = 1, S = nu l)::

        min_{w, rho}  1/2 w'w - S rho + sum_i W_i max(0, rho - w'x_i)
        min_a  f(a) = 1/2 a'Q a,   0 <= a_i <= W_i,   e'a = S

    The gradient is G = Q a = X w, and rho is the KKT value of the multiplier of
    e'a = S, computed as :meth:`BoxDual.intercept_from_dual` computes the exact
    bias (y = e, so rho = -b): the mean of G_i over the free variables, else the
    midpoint of what the bounded ones allow (LIBLINEAR's rule). The decision is
    w'x - rho.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or scipy.sparse.csr_matrix
        float64 rows (CSR with sorted indices).
    weight : ndarray of shape (n_samples,)
        W_i >= 0 (sample weights; 1 in LIBLINEAR).
    nu : float
        In (0, 1].
    """

    X: object
    weight: np.ndarray
    nu: float = 0.5

    bias = "none"  # no bias term: rho plays its part
    regression = False

    def __post_init__(self):
        if not 0.0 < self.nu <= 1.0:
            raise ValueError(f"nu must be in (0, 1], got {self.nu!r}")
        self.weight = np.asarray(self.weight, dtype=np.float64)
        n = self.X.shape[0]
        self.y = np.ones(n)
        self.upper_bound = self.weight
        self.diag = np.zeros(n)
        self.total = self.nu * float(self.weight.sum())
        self.rows = kernel_rows(self.X)
        self.q_diag = squared_norms(self.rows, n, self.augmented_value)

    def feasible(self, alpha):
        """LIBLINEAR's start: the first variables at their bound W_i, one with the rest
        of S, the others 0 (no warm start: e'a = S fixes where it starts)."""
        if alpha is not None:
            raise ValueError("LinearOneClassDual takes no warm start")
        return greedy_fill(self.total, self.upper_bound)

    def weights(self, alpha):
        """w = sum_i a_i x_i, by the kernels' row operations (dense and CSR data give
        identical sums)."""
        w = np.zeros(self.n_features)
        add_rows(self.rows, self.n_samples, np.asarray(alpha, dtype=np.float64), w, 0.0)
        return w

    def decision(self, w):
        """w'x_i for every training row (the compiled kernels' sums)."""
        return decisions(self.rows, self.n_samples, w, 0.0)

    def rho(self, alpha, decision):
        """rho from the KKT conditions at G = X w = ``decision``."""
        return -self.intercept_from_dual(decision, alpha)

    def coef_intercept(self, w, intercept=0.0):
        """(coef, -rho): the decision is x'coef - rho."""
        return w.copy(), float(intercept)

    def evaluate(self, alpha, w, decision=None):
        """Certificate of a dual point: (primal, dual, relative gap, -rho).

        D(a) = -1/2 w'w (the maximisation form of f); P is the primal at (w, rho).
        ``decision``: X w when known (entries of zero-weight rows may be anything:
        they count in neither P nor rho)."""
        if decision is None:
            decision = self.decision(w)
        rho = self.rho(alpha, decision)
        half = 0.5 * float(w @ w)
        primal = nu_primal(half, decision, self.weight, self.total, rho)
        return primal, -half, relative_gap(primal, -half), -rho


@njit(cache=True, nogil=True)
def decisions(rows, n, w, bias):
    """w'x_i (+ B w_d) of rows 0..n-1 of ``rows`` (see :mod:`dualsvm.data.rows`).

    The kernels' own row products, so dense and CSR data give identical sums.
    """
    out = np.empty(n)
    for i in range(n):
        out[i] = row_dot(rows, i, w, bias)
    return out


@njit(cache=True, nogil=True)
def loss_of_rows(rows, n, w, bias, y, cost, squared):
    """:func:`loss_terms` at the margins y_i w'x_i of rows 0..n-1, without arrays
    in between: much faster than ``decisions`` and ``loss_terms`` on a block
    (measurements: benchmarks/results/design_measurements.md, section problems/linear.py)."""
    total = 0.0
    for i in range(n):
        slack = 1.0 - y[i] * row_dot(rows, i, w, bias)
        if slack > 0.0:
            total += cost[i] * (slack * slack if squared else slack)
    return total


@njit(cache=True, nogil=True)
def add_rows(rows, n, scales, w, bias):
    """w += sum_i scales_i x_i (+ scales_i B in the augmented entry) over rows 0..n-1."""
    for i in range(n):
        if scales[i] != 0.0:
            row_axpy(rows, i, scales[i], w, bias)
