"""The binary SVM dual problem, defined once for every solver.

Primal, with labels y_i in {-1, +1} and per-sample costs C_i::

    min_w  1/2 w'w + sum_i C_i loss(y_i (w'x_i + b))

    hinge (L1-loss):          loss(m) = max(0, 1 - m)
    squared hinge (L2-loss):  loss(m) = max(0, 1 - m)^2

Dual (written as a minimisation, as LIBLINEAR does)::

    min_a  f(a) = 1/2 a'(Q + D)a - e'a,   0 <= a_i <= U_i,   Q_ij = y_i y_j x_i'x_j
                                           [and y'a = 0 for the exact bias]

    hinge:          D_ii = 0,            U_i = C_i
    squared hinge:  D_ii = 1/(2 C_i),    U_i = inf

with w = sum_i y_i a_i x_i. The dual objective reported everywhere is the value
of the maximisation form, D(a) = -f(a), so that D(a) <= P* <= P(w) and the
duality gap P(w) - D(a) >= 0 certifies how far a model is from optimal.

Support vector regression (LIBLINEAR ``-s 12`` / ``-s 13``, Ho and Lin, JMLR 2012),
real targets y_i and the epsilon-insensitive losses of the residual r = y_i - w'x_i::

    L1-loss (epsilon_insensitive):          loss(r) = max(0, |r| - eps)
    L2-loss (squared_epsilon_insensitive):  loss(r) = max(0, |r| - eps)^2

has the same dual with other signs, a lower bound and one more term (beta = a - a*)::

    min_b  f(b) = 1/2 b'(Q + D)b - y'b + eps sum_i |b_i|,   -U_i <= b_i <= U_i,   Q_ij = x_i'x_j

with (D_ii, U_i) from the same table (L1: (0, C_i), L2: (1/(2 C_i), inf)) and
w = sum_i b_i x_i: :class:`SVRDualProblem`.

Bias modes:

* ``none``: b = 0.
* ``augmented``: x -> [x, B] (LIBLINEAR ``-B``, scikit-learn ``intercept_scaling``);
  the bias weight w_d is regularised like the others and b = B w_d.
* ``exact``: b is free (unregularised), which adds the constraint y'a = 0.

Two more linear problems have their own primal and dual here:
:class:`L1RegularizedProblem` (||w||_1 in place of 1/2 w'w, LIBLINEAR ``-s 5``,
solved in the primal) and :class:`CrammerSingerProblem` (one w per class, the
multi-class hinge loss, LIBLINEAR ``-s 4``).

:class:`DualProblem` is the linear problem (solvers keep w);
:class:`KernelDualProblem` the kernel one (solvers keep the gradient). Both take
(D_ii, U_i) from :func:`dual_parameters` and the exact bias from the same KKT rule.

The rest of LIBSVM's kernel family is the same dual with another linear term, other
bounds and signs, and for the nu problems a second equality constraint
(:class:`KernelQP`): :class:`SVRDual` (epsilon-SVR and nu-SVR on 2n variables) and
:class:`NuDual` (nu-SVC and the one-class SVM), each with its primal for the
certificate.
"""

from dataclasses import dataclass

import numpy as np
from numba import njit

from ._rows import kernel_rows, row_axpy, row_dot, squared_norms
from .constants import BIAS_MODES, L1_LOSSES, LOSSES, REGRESSION_LOSSES


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


def _check_modes(loss, bias, allowed_bias, losses=LOSSES):
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
        return kkt_bias(_floats(self.y), _floats(alpha), _floats(self.upper_bound),
                        _floats(gradient))

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
        _check_modes(self.loss, self.bias, BIAS_MODES)

    def weights(self, alpha):
        """w = sum_i y_i a_i x_i (with the augmented entry)."""
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
        _check_modes(self.loss, self.bias, ("none", "augmented"), REGRESSION_LOSSES)
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


#: Relative difference below which :func:`kept_product` takes an entry of
#: v as the kept one (a few units of rounding).
_SAME = 1e-14


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
        _check_modes(self.loss, self.bias, ("none", "augmented"), ("squared_hinge",))

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
class CrammerSingerProblem(LinearRows):
    """Crammer and Singer's multi-class SVM (LIBLINEAR ``-s 4``), k classes, one
    weight vector w_m per class, rows x_i with class y_i and cost C_i.

    Primal::

        min_W  P(W) = 1/2 sum_m ||w_m||^2 + sum_i C_i max_m (e_i^m + w_m'x_i - w_{y_i}'x_i)

    with e_i^m = 1 for m != y_i and 0 for m = y_i (so each max is >= 0: the
    multi-class hinge loss). Dual (LIBLINEAR's, in the minimisation form
    f = -D), one variable a_i^m per row and class::

        min_a  f(a) = 1/2 sum_m ||w_m(a)||^2 + sum_i sum_m e_i^m a_i^m,
               w_m(a) = sum_i a_i^m x_i,   sum_m a_i^m = 0,   a_i^m <= C_i^m

    with C_i^m = C_i for m = y_i and 0 otherwise; since sum_m a_i^m = 0,
    D(a) = -f(a) = sum_i a_i^{y_i} - 1/2 ||W(a)||^2, and P(W(a)) - D(a) >= 0
    certifies a model. LIBLINEAR prints f at the end of training.

    Parameters
    ----------
    X : ndarray or csr_matrix of shape (n_samples, n_features)
        float64 rows (CSR with sorted indices).
    labels : ndarray of int64, shape (n_samples,)
        The class index y_i in 0..n_classes-1 of every row.
    C : ndarray of shape (n_samples,)
        C_i = C * class_weight[y_i] * sample_weight_i, all >= 0.
    n_classes : int
    bias : {'none', 'augmented'}
        The bias as an augmented feature of value ``bias_scale`` (LIBLINEAR's
        ``-B``: its weights are regularised), or none.
    bias_scale : float

    ``alpha`` is stored as (n_classes, n_samples), W as (n_weights, n_classes).
    """

    X: object
    labels: np.ndarray
    C: np.ndarray
    n_classes: int
    bias: str = "augmented"
    bias_scale: float = 1.0

    def __post_init__(self):
        _check_modes("hinge", self.bias, ("none", "augmented"))
        self.labels = np.asarray(self.labels, dtype=np.int64)
        self.C = np.asarray(self.C, dtype=np.float64)
        self.rows = kernel_rows(self.X)
        self.q_diag = squared_norms(self.rows, self.n_samples, self.augmented_value)

    def feasible(self, alpha):
        """A warm start (n_classes, n_samples) if it satisfies the constraints for the
        current costs (within rounding), else zeros."""
        zeros = np.zeros((self.n_classes, self.n_samples))
        if alpha is None:
            return zeros
        alpha = np.array(alpha, dtype=np.float64)
        if alpha.shape != zeros.shape:
            return zeros
        rows = np.arange(self.n_samples)
        upper = np.zeros_like(alpha)
        upper[self.labels, rows] = self.C
        scale = max(1.0, float(self.C.max(initial=0.0)))
        if (alpha > upper + 1e-12 * scale).any() or \
                np.abs(alpha.sum(axis=0)).max(initial=0.0) > 1e-10 * scale:
            return zeros
        return alpha

    def weights(self, alpha):
        """W(a) (n_weights, n_classes): w_m = sum_i a_i^m x_i, the augmented row last."""
        W = np.empty((self.n_weights, self.n_classes))
        W[: self.n_features] = np.asarray(self.X.T @ alpha.T)
        if self.bias == "augmented":
            W[-1] = self.bias_scale * alpha.sum(axis=1)
        return W

    def scores(self, W):
        """w_m'x_i (n_samples, n_classes), the augmented bias included."""
        out = np.asarray(self.X @ W[: self.n_features])
        if self.bias == "augmented":
            out = out + self.bias_scale * W[-1]
        return out

    def loss_sum(self, scores):
        """sum_i C_i max_m (e_i^m + s_im - s_iy_i): the multi-class hinge losses."""
        return multiclass_hinge_sum(np.ascontiguousarray(scores), self.labels, self.C)

    def primal(self, W):
        """P(W) = 1/2 ||W||^2 + the weighted multi-class hinge losses."""
        return 0.5 * float(np.sum(W * W)) + self.loss_sum(self.scores(W))

    def dual(self, alpha, W):
        """D(a) = sum_i a_i^{y_i} - 1/2 ||W(a)||^2, with W = W(a)."""
        own = float(alpha[self.labels, np.arange(self.n_samples)].sum())
        return own - 0.5 * float(np.sum(W * W))

    def evaluate(self, alpha, W):
        """(primal, dual, relative gap, 0.0) of a dual point and its W = W(a)."""
        primal = self.primal(W)
        dual = self.dual(alpha, W)
        return primal, dual, relative_gap(primal, dual), 0.0

    def coef_intercept(self, W, intercept=None):
        """(coef (n_classes, n_features), intercept (n_classes,)) of the decision
        x'coef_m + b_m; b_m = B w_m[d] for the augmented bias, else 0."""
        coef = np.ascontiguousarray(W[: self.n_features].T)
        if self.bias == "augmented":
            return coef, self.bias_scale * W[-1].copy()
        return coef, np.zeros(self.n_classes)


#: Variables with a_i = 0 whose loss term, by the solver's gradient, is within
#: NEAR_MARGIN (or the gradient's error bound, if larger) of non-zero get their
#: gradient recomputed in float64 for the final certificate
#: (:meth:`KernelGradients.refined_gradient`).
NEAR_MARGIN = 0.01


class KernelGradients:
    """The final certificate of a kernel problem from a solver's gradient.

    Kernel solvers keep G in float64 but add float32 columns of Q (as LIBSVM), so G
    is off by up to 6e-8 sum_j a_j max_ij |Q_ij| (each entry's rounding, summed
    over the steps, telescopes to the final a). The certificate needs exact values
    only where the dual or a loss term reads them: the support vectors and the
    variables near a non-zero loss (:meth:`loss_slack` below a margin far above
    that error); elsewhere the loss is 0 either way. A full product (n_sv n
    kernel values) took a quarter of a fit on ijcnn1 (C-SVC) and a tenth (SVR).
    A subclass has ``q`` (a QMatrix), ``diag``, ``linear``, calls
    :meth:`_keep_no_products` once built and defines ``loss_slack``.

    Products Q v are kept by name for the next ones (:meth:`product`), and rescaled
    when the costs are (:meth:`_rescale_products`): along a path over C, a start
    is the previous solution scaled by C_new / C_old, so its gradient and the
    next certificate need only the columns of the variables that moved.
    """

    def _keep_no_products(self):
        self._products = {}  # name -> (v, Q v) of the last product of that name
        self._last = None  # the last product of any name

    def product(self, v, name="alpha"):
        """Q v in float64, by tiles of the columns of v's support (``QMatrix.times``),
        from the last product of ``name`` (else the last of any name: SMO's start
        takes G_bar = Q (the variables at their bound) first, and LIBSVM's starting
        points of the nu problems have every variable but one or two at a bound)
        when fewer columns differ than v has nonzeros (:func:`kept_product`)."""
        v = np.asarray(v, dtype=np.float64)
        result = kept_product(self.q, v, self._products.get(name, self._last))
        self.keep_product(name, v, result)
        return result

    def keep_product(self, name, v, qv):
        """Keep ``qv`` as the product Q v of ``name`` for the next :meth:`product`: also
        a product a solver maintained itself (its gradient, SMO's G_bar), so that the
        next warm start of a path costs no kernel evaluation. It carries the solver's
        rounding (float32 columns summed in float64), which is what that solver's own
        gradient has; certificates recompute their exact parts (:meth:`final_certificate`)."""
        self._products[name] = self._last = (np.array(v, dtype=np.float64),
                                             np.array(qv, dtype=np.float64))

    def _rescale_products(self, old, new):
        """New costs ``new`` for the same rows: the column cache stays (Q does not depend
        on C) but its partial columns are invalidated (a new solver starts with every
        variable active). When every C_i is scaled by one ratio r, the kept products
        are rescaled with it (a start scaled by r then needs no kernel evaluation);
        otherwise they are dropped."""
        self.q.new_generation()
        on = old > 0
        ratio = float(new[on][0] / old[on][0]) if on.any() else 1.0
        if not np.allclose(new[on], ratio * old[on], rtol=1e-12, atol=0.0) or \
                (new[~on] != 0).any():
            self._keep_no_products()
            return
        self._products = {name: (ratio * v, ratio * qv) for name, (v, qv) in self._products.items()}
        self._last = None if self._last is None else (ratio * self._last[0],
                                                      ratio * self._last[1])

    def loss_slack(self, alpha, gradient):
        """s_t: the loss term of variable t is 0 when s_t >= 0 (the model's bias and
        multipliers from ``gradient``)."""
        raise NotImplementedError

    def refined_gradient(self, alpha, gradient):
        """``gradient`` with the entries the certificate reads recomputed in float64
        (Q[rows, sv] a_sv): the support vectors, the variables whose slack is below
        max(NEAR_MARGIN, 1e-5 sum |a| max Q_ii) (170 times the error bound), and
        the other variables of their training rows (SVR's primal reads a row's
        kernel product from its a_i)."""
        slack = self.loss_slack(alpha, gradient)
        kernel_max = float(np.max(self.q.diag, initial=0.0))
        near = max(NEAR_MARGIN, 1e-5 * float(np.abs(alpha).sum()) * kernel_max)
        rows = self.q.sharing_rows(np.flatnonzero((alpha != 0) | (slack < near)))
        out = np.array(gradient, dtype=np.float64)
        if len(rows):
            out[rows] = (self.exact_product(alpha, rows) + self.diag[rows] * alpha[rows]
                         + self.linear[rows])
        return out

    def exact_product(self, alpha, rows):
        """(Q a)[rows] in float64 for a certificate, kept (NaN on the other rows) for the
        next one: along a path, the rows it had in common with the last one cost only
        the columns of the variables that moved since (:func:`kept_product`), a
        fraction of a full product Q[rows, sv] a_sv."""
        alpha = np.asarray(alpha, dtype=np.float64)
        result = kept_product(self.q, alpha, self._products.get("exact"), rows)
        exact = np.full(self.n_samples, np.nan)
        exact[rows] = result
        self._products["exact"] = (alpha.copy(), exact)  # not the last: it has NaN
        return result

    def final_certificate(self, alpha, gradient):
        """(primal, dual, relative gap, intercept) of a solver's last point: the
        intercept from the solver's ``gradient`` (LIBSVM's), the objectives from
        :meth:`refined_gradient`, whose Q a is kept for the next warm start of a
        path (:meth:`keep_product`)."""
        intercept = self.intercept(alpha, gradient)
        refined = self.refined_gradient(alpha, gradient)
        self.keep_product("alpha", alpha, refined - self.diag * alpha - self.linear)
        return self.certificate(alpha, refined, intercept=intercept)


@dataclass(eq=False)
class KernelDualProblem(KernelGradients, BoxDual):
    """A binary kernel SVM problem: the dual above with Q_ij = y_i y_j K(x_i, x_j).

    There is no w to keep; solvers maintain the gradient G = (Q + D)a - e instead,
    and everything the certificate needs follows from it in O(n), since
    (Q a)_i = G_i + 1 - D_ii a_i::

        dual    D(a) = -f(a) = 1/2 sum_i a_i (1 - G_i)
        primal  P(a, b) = 1/2 a'Q a + sum_i C_i loss((Q a)_i + y_i b)

    (P is the primal value of the model f(x) = sum_j y_j a_j K(x_j, x) + b.)

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features) or csr_matrix
        float64 training rows (CSR with sorted indices); for the precomputed
        kernel, the (n_samples, n_samples) kernel matrix.
    y, C, loss
        As in :class:`DualProblem`.
    bias : {'exact', 'none'}
        'exact': the free bias, y'a = 0 (LIBSVM's C-SVC); 'none': b = 0.
    kernel : dualsvm.kernels.Kernel
    cache_size : float
        Column cache bound in MB (see :class:`dualsvm.kernels.QMatrix`).
    """

    X: object
    y: np.ndarray
    C: np.ndarray
    loss: str = "hinge"
    bias: str = "exact"
    kernel: object = None
    cache_size: float = 200.0

    def __post_init__(self):
        from .kernels import QMatrix, make_kernel

        _check_modes(self.loss, self.bias, ("none", "exact"))
        self.diag, self.upper_bound = dual_parameters(self.C, self.loss)
        if self.kernel is None:
            self.kernel = make_kernel("rbf", gamma="scale", X=self.X)
        self.q = QMatrix(self.X, self.y, self.kernel, self.cache_size)
        # Q_ii + D_ii, the curvature of every coordinate.
        self.q_diag = self.q.diag + self.diag
        self.linear = np.full(self.n_samples, -1.0)  # the linear term -e
        self._keep_no_products()

    #: SMO keeps y'a = 0 only (LIBSVM's Solver, not Solver_NU).
    two_constraints = False

    @property
    def n_samples(self):
        return self.X.shape[0]

    def set_costs(self, C):
        """Take new costs C_i for the same rows, labels and kernel (a path over C):
        (D_ii, U_i) change, the column cache and the kept products stay
        (:meth:`KernelGradients._rescale_products`)."""
        C = np.asarray(C, dtype=np.float64)
        old, self.C = self.C, C
        self.diag, self.upper_bound = dual_parameters(self.C, self.loss)
        self.q_diag = self.q.diag + self.diag
        self._rescale_products(old, C)

    def gradient(self, alpha):
        """G = (Q + D)a - e, with Q a from :meth:`product`."""
        return self.product(alpha) + self.diag * alpha + self.linear

    def dual_from_gradient(self, alpha, gradient):
        """D(a) = 1/2 sum_i a_i (1 - G_i)."""
        return 0.5 * float(alpha @ (1.0 - gradient))

    def primal_from_gradient(self, alpha, gradient, intercept=0.0):
        """P(a, b), from (Q a)_i = G_i + 1 - D_ii a_i."""
        return kernel_primal(_floats(alpha), _floats(gradient), self.y, self.diag, self.C,
                             float(intercept), self.loss == "squared_hinge")

    def intercept(self, alpha, gradient):
        """The model's bias: the KKT value of the exact bias at G = ``gradient``, else 0."""
        return self.intercept_from_dual(gradient, alpha) if self.bias == "exact" else 0.0

    def loss_slack(self, alpha, gradient):
        """y_t (f(x_t) + b) - 1 (+ D_tt a_t) = G_t + y_t b: the hinge loss of a_t = 0
        is max(0, -s_t) (squared for the squared hinge)."""
        return gradient + self.y * self.intercept(alpha, gradient)

    def certificate(self, alpha, gradient, dual=None, intercept=None):
        """(primal, dual, relative gap, intercept) of a dual point, in O(n).

        ``dual``: the dual objective when the solver knows it better than from
        ``gradient`` (e.g. kept exact while some gradients are stale).
        ``intercept``: the model's bias when it is not the KKT value of ``gradient``.
        """
        if intercept is None:
            intercept = self.intercept(alpha, gradient)
        primal = self.primal_from_gradient(alpha, gradient, intercept)
        if dual is None:
            dual = self.dual_from_gradient(alpha, gradient)
        return primal, dual, relative_gap(primal, dual), intercept


class KernelQP(KernelGradients, BoxDual):
    """LIBSVM's general kernel dual, which SMO solves for every member of the family.

    On N variables with signs y_i in {-1, +1}, each variable tied to a training
    row r(i)::

        min_a  f(a) = 1/2 a'Q a + p'a,   0 <= a_i <= U_i,   y'a = const
                                          [two_constraints: and e'a = const]
        Q_ij = y_i y_j K(x_r(i), x_r(j))

    C-SVC is :class:`KernelDualProblem` (p = -e); the members here differ only in
    p, U, the signs and the second constraint (LIBSVM's ``Solver_NU``), which the
    SMO's working-set rule keeps (:mod:`dualsvm.solvers.smo`). A subclass sets
    ``y``, ``upper_bound``, ``linear`` (p), ``start`` (LIBSVM's feasible starting
    point), the training row of each variable when they are not one a row
    (``_build_q(row_of)``) and defines ``primal_from_gradient``; with G = Q a + p,
    (Q a) = G - p and the dual (the maximisation form) is D(a) = -f(a) = -1/2 a'(G + p).
    """

    bias = "exact"
    two_constraints = False

    def _build_q(self, row_of=None):
        from .kernels import QMatrix, make_kernel

        if self.kernel is None:
            self.kernel = make_kernel("rbf", gamma="scale", X=self.X)
        self.diag = np.zeros(len(self.y))
        self.q = QMatrix(self.X, self.y, self.kernel, self.cache_size, row_of=row_of)
        self._keep_no_products()
        self.q_diag = self.q.diag.copy()

    @property
    def n_samples(self):
        """The number of dual variables N (twice the rows for regression)."""
        return len(self.y)

    def feasible(self, alpha):
        """LIBSVM's starting point for None; else a warm start clipped to the box with
        its equality constraints restored: y'a = 0 by :meth:`BoxDual.feasible`'s rule
        when that is the only one; when the sums of each sign's variables are fixed
        (two constraints, or one-class's e'a = S), each side's sum set to that of the
        starting point (the excess taken, or the shortfall filled, in index order)."""
        if alpha is None:
            return self.start.copy()
        if not self.two_constraints and (self.y < 0).any():
            return super().feasible(alpha)
        alpha = np.clip(np.asarray(alpha, dtype=np.float64), 0.0, self.upper_bound)
        for side in (self.y > 0, self.y < 0):
            shortfall = float(self.start[side].sum() - alpha[side].sum())
            if shortfall > 0:
                alpha[side] += greedy_fill(shortfall, self.upper_bound[side] - alpha[side])
            elif shortfall < 0:
                alpha[side] -= greedy_fill(-shortfall, alpha[side])
        return alpha

    def gradient(self, alpha):
        """G = Q a + p from scratch (:meth:`product`)."""
        return self.product(alpha) + self.linear

    def dual_from_gradient(self, alpha, gradient):
        """D(a) = -f(a) = -1/2 a'(G + p)."""
        return -0.5 * float(alpha @ (gradient + self.linear))

    def offsets(self, alpha, gradient):
        """(b, r): the model's bias and the second multiplier, from the KKT conditions.

        One constraint: b from :meth:`BoxDual.intercept_from_dual` (LIBSVM's -rho),
        r = 0. Two (LIBSVM's ``Solver_NU::calculate_rho``): r1, r2 the mean gradient
        of the free variables of sign +1 and -1 (else the midpoint of the interval
        their bounded ones allow); b = -(r1 - r2) / 2 and r = (r1 + r2) / 2.
        """
        if not self.two_constraints:
            return self.intercept_from_dual(gradient, alpha), 0.0
        r = [0.0, 0.0]
        for k, sign in enumerate((1.0, -1.0)):
            side = self.y == sign
            upper = side & (alpha >= self.upper_bound)
            lower = side & ~upper & (alpha <= 0)
            free = side & ~upper & ~lower
            if free.any():
                r[k] = float(gradient[free].mean())
            else:
                lb = gradient[upper].max() if upper.any() else -np.inf
                ub = gradient[lower].min() if lower.any() else np.inf
                r[k] = 0.5 * float(lb + ub) if np.isfinite(lb + ub) else \
                    float(lb if np.isfinite(lb) else ub if np.isfinite(ub) else 0.0)
        return -0.5 * (r[0] - r[1]), 0.5 * (r[0] + r[1])

    def tied_multiplier(self, intercept, r):
        """r for a given bias, when the two are one number (one-class); else r."""
        return r

    def loss_slack(self, alpha, gradient):
        """G_t + y_t b - r: regression, the distance of f(x_t) inside its side of the
        tube (p holds eps, or eps = -r); nu-SVC, y_t (f(x_t) + b) - rho."""
        b, r = self.offsets(alpha, gradient)
        return gradient + self.y * b - r

    def intercept(self, alpha, gradient):
        """The model's bias b at G = ``gradient`` (see :meth:`offsets`)."""
        return self.offsets(alpha, gradient)[0]

    def certificate(self, alpha, gradient, dual=None, intercept=None):
        """(primal, dual, relative gap, intercept) of a dual point, in O(N).

        As :meth:`KernelDualProblem.certificate`; the primal is that of the
        model with bias b (``intercept`` or the KKT value) and the second
        multiplier r of :meth:`offsets`.
        """
        b, r = self.offsets(alpha, gradient)
        if intercept is not None:
            b, r = intercept, self.tied_multiplier(intercept, r)
        primal = self.primal_from_gradient(alpha, gradient, b, r)
        if dual is None:
            dual = self.dual_from_gradient(alpha, gradient)
        return primal, dual, relative_gap(primal, dual), b


def kept_product(q, v, kept, rows=None):
    """(Q v)[rows] (``q``: a QMatrix; ``rows=None``: all rows) in float64, from
    scratch, or as (Q v_old)[rows] + Q[rows] (v - v_old) when ``kept`` = (v_old,
    Q v_old) and v differs from v_old in fewer entries than it has nonzeros (fewer
    columns to compute); the entries a kept product does not know (NaN) are
    computed from scratch."""
    index = np.arange(len(v)) if rows is None else np.asarray(rows, dtype=np.int64)
    result = np.zeros(len(index))
    fresh = np.ones(len(index), dtype=bool)
    if kept is not None:
        # entries within rounding of the kept ones (a start scaled by C_new / C_old
        # against the kept product scaled by the ratio of the costs, or y'a = 0
        # restored by a factor 1 - 1e-16) count as unchanged: the error left is
        # below that of the product itself, and no column is recomputed for it
        moved = v - kept[0]
        moved[np.abs(moved) <= _SAME * np.abs(v)] = 0.0
        if np.count_nonzero(moved) < np.count_nonzero(v):
            base = kept[1][index]
            fresh = np.isnan(base)
            result[~fresh] = base[~fresh]
            _add_product(q, moved, index, ~fresh, result, rows is None)
    _add_product(q, v, index, fresh, result, rows is None)
    return result


def _add_product(q, v, index, where, out, every):
    """out[where] += (Q v)[index[where]] from the columns of v's support (``every``:
    index is all rows, one product over all when ``where`` is too)."""
    cols = np.flatnonzero(v)
    if len(cols) and where.any():
        if every and where.all():
            out += q.times(cols, v[cols])
        else:
            out[where] += q.times(cols, v[cols], rows=index[where])


def greedy_fill(total, upper):
    """a_i = min(U_i, what is left of ``total`` after a_1..a_{i-1}): LIBSVM's feasible
    start for a sum constraint e'a = total (the first variables at their bound)."""
    return _greedy_fill(float(total), _floats(upper))


@njit(cache=True, nogil=True)
def _greedy_fill(total, upper):
    # one pass (NumPy's cumsum and clip took four over n; the same sums, in order)
    out = np.empty(len(upper))
    before = 0.0
    for i in range(len(upper)):
        out[i] = min(max(total - before, 0.0), upper[i])
        before += upper[i]
    return out


@dataclass(eq=False)
class SVRDual(KernelQP):
    """Support vector regression in LIBSVM's 2n-variable dual: epsilon-SVR (``-s 3``)
    or, with ``nu``, nu-SVR (``-s 4``).

    Primal, with f(x) = sum_j beta_j K(x_j, x) + b::

        epsilon-SVR:  min 1/2 ||f||^2 + sum_i C_i max(0, |z_i - f(x_i)| - eps)
        nu-SVR:       min 1/2 ||f||^2 + S eps + sum_i C_i max(0, |z_i - f(x_i)| - eps),
                      S = nu sum_i C_i, eps free (LIBSVM's scaling: nu C l for C_i = C)

    Dual on a = (a_1..a_n, a*_1..a*_n), signs (+1.., -1..), beta = a - a*,
    Q the kernel of the rows twice with those signs (a_i and a*_i served by one
    cached kernel column of row i, see :class:`dualsvm.kernels.QMatrix`'s ``row_of``)::

        epsilon-SVR:  p = (eps - z, eps + z),  0 <= a_i <= C_i,  e'(a - a*) = 0
        nu-SVR:       p = (-z, z),  and e'(a + a*) = S (the second constraint)

    For nu-SVR the second multiplier gives eps = -r (LIBSVM prints it).

    Parameters
    ----------
    X : ndarray or csr_matrix of shape (n, d)
        float64 rows; for the precomputed kernel, the (n, n) kernel matrix.
    target : ndarray of shape (n,)
        The values z_i to fit.
    C : ndarray of shape (n,)
        C_i = C * sample_weight_i, all >= 0.
    epsilon : float
        Width of the insensitive tube (epsilon-SVR).
    nu : float or None
        nu-SVR's nu in (0, 1]; None for epsilon-SVR.
    kernel : dualsvm.kernels.Kernel
    cache_size : float
        Column cache in MB.
    """

    X: object
    target: np.ndarray
    C: np.ndarray
    epsilon: float = 0.1
    nu: float | None = None
    kernel: object = None
    cache_size: float = 200.0

    def __post_init__(self):
        z = np.asarray(self.target, dtype=np.float64)
        n = len(z)
        self.C = np.asarray(self.C, dtype=np.float64)
        self.n_rows = n
        self.y = np.concatenate([np.ones(n), -np.ones(n)])
        self.two_constraints = self.nu is not None
        if self.two_constraints:
            self.linear = np.concatenate([-z, z])
        else:
            self.linear = np.concatenate([self.epsilon - z, self.epsilon + z])
        self._set_bounds()
        # a_i and a*_i share row i's kernel column (LIBSVM's SVR_Q)
        self._build_q(np.concatenate([np.arange(n), np.arange(n)]))

    def _set_bounds(self):
        """U = (C, C) and LIBSVM's starting point for the costs C."""
        self.upper_bound = np.concatenate([self.C, self.C])
        if self.two_constraints:
            half = greedy_fill(0.5 * self.nu * float(self.C.sum()), self.C)
            self.start = np.concatenate([half, half])
        else:
            self.start = np.zeros(2 * self.n_rows)

    def set_costs(self, C):
        """Take new costs C_i for the same rows, targets and kernel (a path over C):
        U, nu-SVR's sum S and the starting point change, the column cache and the
        kept products stay (:meth:`KernelGradients._rescale_products`)."""
        old, self.C = self.C, np.asarray(C, dtype=np.float64)
        self._set_bounds()
        self._rescale_products(old, self.C)

    def coefficients(self, alpha):
        """beta = a - a*: the coefficient of every row in f."""
        return alpha[:self.n_rows] - alpha[self.n_rows:]

    def primal_from_gradient(self, alpha, gradient, intercept, r=0.0):
        """P of f = K beta + b, from (K beta)_i = (Q a)_i = G_i - p_i (i <= n)."""
        n = self.n_rows
        k_beta = gradient[:n] - self.linear[:n]
        beta = self.coefficients(alpha)
        eps = -r if self.two_constraints else self.epsilon
        slack = np.maximum(0.0, np.abs(self.target - k_beta - intercept) - eps)
        primal = 0.5 * float(beta @ k_beta) + weighted_sum(self.C, slack)
        if self.two_constraints:
            primal += self.nu * float(self.C.sum()) * eps
        return primal


@dataclass(eq=False)
class NuDual(KernelQP):
    """nu-SVC (LIBSVM ``-s 1``) or, without labels, the one-class SVM (``-s 2``), in
    LIBSVM's unscaled form.

    Primal, with f(x) = sum_j y_j a_j K(x_j, x) and S = nu sum_i W_i::

        nu-SVC:     min 1/2 ||f||^2 - S rho + sum_i W_i max(0, rho - y_i (f(x_i) + b))
        one-class:  min 1/2 ||f||^2 - S rho + sum_i W_i max(0, rho - f(x_i))

    Dual: min 1/2 a'Q a (p = 0), 0 <= a_i <= W_i, e'a = S, and for nu-SVC
    y'a = 0 too (LIBSVM's ``Solver_NU``; for one-class, y = e and the one
    constraint is LIBSVM's ``Solver``'s). W_i are the sample (and class) weights,
    1 in LIBSVM. nu-SVC's model is scaled after training, as LIBSVM does: with
    rho = r of :meth:`KernelQP.offsets`, the decision is (f(x) + b) / rho, that of
    a C-SVC with C = 1 / rho. The one-class decision is f(x) - rho.

    Parameters
    ----------
    X : ndarray or csr_matrix of shape (n, d)
        float64 rows; for the precomputed kernel, the (n, n) kernel matrix.
    y : ndarray of shape (n,) or None
        Labels in {-1, +1} (nu-SVC) or None (one-class).
    weight : ndarray of shape (n,)
        W_i >= 0.
    nu : float
        In (0, 1]; nu-SVC needs nu sum W / 2 <= the weight of each class.
    kernel : dualsvm.kernels.Kernel
    cache_size : float
    """

    X: object
    y: np.ndarray | None
    weight: np.ndarray
    nu: float = 0.5
    kernel: object = None
    cache_size: float = 200.0

    def __post_init__(self):
        self.weight = np.asarray(self.weight, dtype=np.float64)
        n = len(self.weight)
        self.one_class = self.y is None
        total = self.nu * float(self.weight.sum())
        if self.one_class:
            self.y = np.ones(n)
            self.start = greedy_fill(total, self.weight)
        else:
            self.y = np.asarray(self.y, dtype=np.float64)
            self.two_constraints = True
            self.start = np.zeros(n)
            for sign in (1.0, -1.0):
                side = self.y == sign
                if 0.5 * total > self.weight[side].sum() * (1 + 1e-12):
                    raise ValueError(f"specified nu is infeasible (nu={self.nu!r}): nu-SVC needs "
                                     "nu * n / 2 <= the size of the smaller class (with sample "
                                     "weights: nu * sum(W) / 2 <= each class's weight)")
                self.start[side] = greedy_fill(0.5 * total, self.weight[side])
        self.upper_bound = self.weight
        self.linear = np.zeros(n)
        self._build_q()

    def offsets(self, alpha, gradient):
        """(b, rho): nu-SVC's by LIBSVM's ``Solver_NU`` rule; one-class: rho is
        LIBSVM's rho of the one constraint and the model's bias is -rho."""
        b, r = super().offsets(alpha, gradient)
        return (b, -b) if self.one_class else (b, r)

    def tied_multiplier(self, intercept, r):
        return -intercept if self.one_class else r

    def loss_slack(self, alpha, gradient):
        """One-class: f(x_t) - rho = G_t + b (b = -rho); nu-SVC as KernelQP's."""
        if self.one_class:
            return gradient + self.offsets(alpha, gradient)[0]
        return super().loss_slack(alpha, gradient)

    def primal_from_gradient(self, alpha, gradient, intercept, rho):
        """P at (f, b, rho), from y_i f(x_i) = (Q a)_i = G_i."""
        margin = gradient if self.one_class else gradient + self.y * intercept
        return nu_primal(0.5 * float(alpha @ gradient), margin, self.weight,
                         self.nu * float(self.weight.sum()), rho)


def nu_primal(half_norm, margins, weight, total, rho):
    """The nu-primal of a model with 1/2 ||f||^2 = ``half_norm`` and margins m_i:
    1/2 ||f||^2 - S rho + sum_i W_i max(0, rho - m_i), S = ``total`` = nu sum_i W_i
    (one-class: m_i = f(x_i); nu-SVC: y_i (f(x_i) + b))."""
    # a sum, not a BLAS dot: a threaded ddot waits for busy cores on a loaded machine
    return half_norm - total * rho + float(np.sum(weight * np.maximum(0.0, rho - margins)))


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
    """w'x_i (+ B w_d) of rows 0..n-1 of ``rows`` (see ``_rows``).

    The kernels' own row products, so dense and CSR data give identical sums.
    """
    out = np.empty(n)
    for i in range(n):
        out[i] = row_dot(rows, i, w, bias)
    return out


@njit(cache=True, nogil=True)
def loss_of_rows(rows, n, w, bias, y, cost, squared):
    """:func:`loss_terms` at the margins y_i w'x_i of rows 0..n-1, without arrays
    in between: a third of the time of ``decisions`` and ``loss_terms`` on a block."""
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


def _floats(a):
    """a as a contiguous float64 array (no copy when it is one)."""
    return np.ascontiguousarray(a, dtype=np.float64)


# The certificate is evaluated after every epoch (the trace); the working-set
# solver's epochs take milliseconds, and the same formulas in NumPy, a dozen
# passes over n-vectors, took a third of its fit time on ijcnn1. Compiled, each
# is one pass.
@njit(cache=True, nogil=True)
def kkt_bias(y, alpha, upper, gradient):
    """The exact bias b from the KKT conditions at G = ``gradient``: the mean of
    -y_i G_i over the free variables (0 < a_i < U_i), else the midpoint of the
    interval [max over I_up, min over I_low] that the bounded ones allow."""
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
    if free:
        return total / free
    if np.isfinite(lo) and np.isfinite(hi):
        return 0.5 * (lo + hi)
    return lo if np.isfinite(lo) else hi if np.isfinite(hi) else 0.0


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

    One pass, where NumPy's took a dozen over n x k temporaries (a third of a
    Crammer-Singer fit's fixed cost on a9a, 4 classes).
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

    Compiled, like :func:`dual_terms`: as NumPy dot products over n, BLAS split them
    over its threads, and with the other core busy every hand-over waited for it (on
    w8a, 0.5 to 1.7 ms a certificate instead of 0.05)."""
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
