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

Modules: :mod:`.box` (the constraints every dual shares), :mod:`.linear`,
:mod:`.crammer_singer`, :mod:`.kernel` (the problems), :mod:`.objectives` (their
compiled sums).

:class:`DualProblem` is the linear problem (solvers keep w). The kernel problems
(solvers keep the gradient) are one, LIBSVM's general dual :class:`KernelQP`: the same
dual with another linear term, other bounds and signs, and for the nu problems a second
equality constraint. Its members are thin builders, each with its primal for the
certificate: :class:`KernelDualProblem` (C-SVC, the linear term -e),
:class:`SVRDual` (epsilon-SVR and nu-SVR on 2n variables) and :class:`NuDual` (nu-SVC
and the one-class SVM). The linear and kernel problems take (D_ii, U_i) from
:func:`dual_parameters` and the exact bias from the same KKT rule.
"""


from .box import BoxDual, dual_parameters
from .crammer_singer import CrammerSingerProblem
from .kernel import KernelDualProblem, KernelQP, NuDual, SVRDual
from .linear import DualProblem, L1RegularizedProblem, LinearOneClassDual, SVRDualProblem
from .objectives import relative_gap

__all__ = ["BoxDual", "CrammerSingerProblem", "DualProblem", "KernelDualProblem", "KernelQP",
           "L1RegularizedProblem", "LinearOneClassDual", "NuDual", "SVRDual", "SVRDualProblem",
           "dual_parameters", "relative_gap"]
