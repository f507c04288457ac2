"""Crammer and Singer's multi-class SVM (LIBLINEAR -s 4): one w per class."""

from dataclasses import dataclass

import numpy as np

from ..data.rows import kernel_rows, squared_norms
from .box import check_modes
from .linear import LinearRows
from .objectives import multiclass_hinge_sum, relative_gap


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
        check_modes("hinge", self.bias, ("none", "augmented"))
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
