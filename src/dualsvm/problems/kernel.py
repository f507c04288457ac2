"""The kernel dual problems: solvers keep the gradient, not w (see :mod:`dualsvm.problems`).

One problem, LIBSVM's general dual :class:`KernelQP`, and its members as thin builders
that set its linear term, bounds, diagonal and signs and define their primal, as
LIBSVM's ``solve_c_svc``, ``solve_nu_svc``, ... do for its one ``Solver``:
:class:`KernelDualProblem` (C-SVC), :class:`SVRDual` (epsilon- and nu-SVR) and
:class:`NuDual` (nu-SVC, one-class).
"""

from dataclasses import dataclass

import numpy as np

from .box import BoxDual, check_modes, dual_parameters, greedy_fill
from .objectives import (as_floats, kernel_primal, nu_offsets, nu_primal, relative_gap,
                         weighted_sum)


#: Relative difference below which :func:`kept_product` takes an entry of
#: v as the kept one (a few units of rounding).
_SAME = 1e-14


#: The relative rounding of a float32 column entry (2^-24).
COLUMN_ROUNDING = 6e-8

#: Variables with a_i = 0 whose loss term, by the solver's gradient, is within
#: NEAR_MARGIN (or the gradient's error bound, if larger) of non-zero get their
#: gradient recomputed in float64 for the final certificate
#: (:meth:`KernelQP.refined_gradient`).
NEAR_MARGIN = 0.01


class KernelQP(BoxDual):
    """LIBSVM's general kernel dual, which every kernel solver solves.

    On N variables with signs y_i in {-1, +1}, each variable tied to a training
    row r(i)::

        min_a  f(a) = 1/2 a'(Q + D)a + p'a,   0 <= a_i <= U_i,   y'a = const
                                               [two_constraints: and e'a = const]
        Q_ij = y_i y_j K(x_r(i), x_r(j))

    There is no w to keep; solvers maintain the gradient G = (Q + D)a + p instead,
    and everything the certificate needs follows from it in O(N), since
    Q a = G - p - D a and the dual (the maximisation form) is
    D(a) = -f(a) = -1/2 a'(G + p).

    The members differ only in p, U, D, the signs and the second constraint
    (LIBSVM's ``Solver_NU``, which the SMO's working-set rule keeps:
    :mod:`dualsvm.solvers.smo`). A member (subclass) sets ``X``, ``y``, ``kernel``,
    ``cache_size``, ``diag`` (D), ``upper_bound`` (U), ``linear`` (p), ``start``
    (LIBSVM's feasible starting point), then calls ``_build_q`` (with the training
    row of each variable when they are not one a row), and defines
    ``primal_from_gradient(alpha, gradient, b, r)``; a member with costs C_i
    defines ``_set_bounds`` for :meth:`set_costs`.

    The final certificate (:meth:`final_certificate`): solvers keep G in float64
    but add float32 columns of Q (as LIBSVM), so G is off by up to
    6e-8 sum_j a_j max_ij |Q_ij| (each entry's rounding, summed over the steps,
    telescopes to the final a). The certificate needs exact values only where the
    dual or a loss term reads them: the support vectors and the variables near a
    non-zero loss (:meth:`loss_slack` below a margin far above that error);
    elsewhere the loss is 0 either way. (A full product, n_sv n kernel values,
    costs a large share of a C-SVC fit; measurements:
    benchmarks/results/design_measurements.md, section problems/kernel.py.)

    Products Q v are kept by name for the next ones (:meth:`product`), and rescaled
    when the costs are (:meth:`set_costs`): along a path over C, a start is the
    previous solution scaled by C_new / C_old, so its gradient and the next
    certificate need only the columns of the variables that moved.
    """

    bias = "exact"
    #: SMO keeps y'a = const only (LIBSVM's ``Solver``), unless a member sets it
    #: (LIBSVM's ``Solver_NU``).
    two_constraints = False

    def _build_q(self, row_of=None):
        from ..kernels.qmatrix import QMatrix  # deferred: a slow import, kernel models only

        if self.kernel is None:
            from ..kernels import make_kernel

            self.kernel = make_kernel("rbf", gamma="scale", X=self.X)
        self.q = QMatrix(self.X, self.y, self.kernel, self.cache_size, row_of=row_of)
        self.q_diag = self.q.diag + self.diag  # Q_ii + D_ii, the curvature of every coordinate
        self._kernel_max = float(self.q.diag.max()) if len(self.q.diag) else 0.0  # max Q_ii
        self._keep_no_products()

    @property
    def n_samples(self):
        """The number of dual variables N (twice the rows for regression)."""
        return len(self.y)

    @property
    def fixed_sums(self):
        """Whether the sums of each sign's variables are fixed (two constraints; a
        member with one sign fixes them with its one constraint too)."""
        return self.two_constraints

    def set_costs(self, C):
        """Take new costs C_i for the same rows, labels and kernel (a path over C):
        the bounds (``_set_bounds``) change; the column cache stays (Q does not
        depend on C) but its partial columns are invalidated (a new solver starts
        with every variable active). When every C_i is scaled by one ratio r, the
        kept products are rescaled with it (a start scaled by r then needs no
        kernel evaluation); otherwise they are dropped."""
        old, self.C = self.C, np.asarray(C, dtype=np.float64)
        self._set_bounds()
        self.q_diag = self.q.diag + self.diag
        self.q.new_generation()
        on = old > 0
        ratio = float(self.C[on][0] / old[on][0]) if on.any() else 1.0
        if not np.allclose(self.C[on], ratio * old[on], rtol=1e-12, atol=0.0) or \
                (self.C[~on] != 0).any():
            self._keep_no_products()
            return
        self._products = {name: (ratio * v, ratio * qv) for name, (v, qv) in self._products.items()}
        self._last = None if self._last is None else (ratio * self._last[0],
                                                      ratio * self._last[1])

    def feasible(self, alpha):
        """LIBSVM's starting point for None; else a warm start clipped to the box with
        its equality constraints restored: y'a = 0 by :meth:`BoxDual.feasible`'s rule
        when that is the only one; when the sums of each sign's variables are fixed
        (:attr:`fixed_sums`), each side's sum set to that of the starting point (the
        excess taken, or the shortfall filled, in index order)."""
        if alpha is None:
            return self.start.copy()
        if not self.fixed_sums:
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
        """G = (Q + D)a + p from scratch, with Q a from :meth:`product`."""
        return self.product(alpha) + self.diag * alpha + self.linear

    def dual_from_gradient(self, alpha, gradient):
        """D(a) = -f(a) = -1/2 a'(G + p)."""
        return -0.5 * float(alpha @ (gradient + self.linear))

    def offsets(self, alpha, gradient):
        """(b, r): the model's bias and the second multiplier, from the KKT conditions.

        One constraint: b from :meth:`BoxDual.intercept_from_dual` (LIBSVM's -rho;
        0 with ``bias='none'``), r = 0. Two (LIBSVM's ``Solver_NU::calculate_rho``):
        r1, r2 the mean gradient of the free variables of sign +1 and -1 (else the
        midpoint of the interval their bounded ones allow); b = -(r1 - r2) / 2 and
        r = (r1 + r2) / 2.
        """
        if not self.two_constraints:
            b = self.intercept_from_dual(gradient, alpha) if self.bias == "exact" else 0.0
            return b, 0.0
        r = nu_offsets(self.y, as_floats(alpha), self.upper_bound, as_floats(gradient))
        return -0.5 * (r[0] - r[1]), 0.5 * (r[0] + r[1])

    def tied_multiplier(self, intercept, r):
        """r for a given bias, when the two are one number (one-class); else r."""
        return r

    def intercept(self, alpha, gradient):
        """The model's bias b at G = ``gradient`` (see :meth:`offsets`)."""
        return self.offsets(alpha, gradient)[0]

    def loss_slack(self, alpha, gradient, offsets=None):
        """s_t = G_t + y_t b - r: the loss term of variable t is 0 when s_t >= 0. C-SVC,
        y_t (f(x_t) + b) - 1 + D_tt a_t (the hinge loss of a_t = 0 is max(0, -s_t));
        regression, the distance of f(x_t) inside its side of the tube (p holds eps,
        or eps = -r); nu-SVC, y_t (f(x_t) + b) - rho. ``offsets``: (b, r) of
        :meth:`offsets` when the caller has them."""
        b, r = self.offsets(alpha, gradient) if offsets is None else offsets
        return gradient + self.y * b - r

    def certificate(self, alpha, gradient, dual=None, intercept=None):
        """(primal, dual, relative gap, intercept) of a dual point, in O(N).

        The primal is that of the model with bias b (``intercept``, else the KKT
        value of ``gradient``) and the second multiplier r of :meth:`offsets`.
        ``dual``: the dual objective when the solver knows it better than from
        ``gradient`` (e.g. kept exact while some gradients are stale).
        """
        if intercept is None:
            b, r = self.offsets(alpha, gradient)
        else:  # with one constraint, r is 0 or tied to b: no pass over the gradient
            r = self.offsets(alpha, gradient)[1] if self.two_constraints else 0.0
            b, r = intercept, self.tied_multiplier(intercept, r)
        primal = self.primal_from_gradient(alpha, gradient, b, r)
        if dual is None:
            dual = self.dual_from_gradient(alpha, gradient)
        return primal, dual, relative_gap(primal, dual), b

    def final_certificate(self, alpha, gradient):
        """(primal, dual, relative gap, intercept) of a solver's last point: the
        intercept from the solver's ``gradient`` (LIBSVM's), the objectives from
        :meth:`refined_gradient`, whose Q a is kept for the next warm start of a
        path (:meth:`keep_product`)."""
        offsets = self.offsets(alpha, gradient)
        refined = self.refined_gradient(alpha, gradient, offsets)
        self.keep_product("alpha", alpha, refined - self.diag * alpha - self.linear)
        return self.certificate(alpha, refined, intercept=offsets[0])

    def refined_gradient(self, alpha, gradient, offsets=None):
        """``gradient`` with the entries the certificate reads recomputed in float64
        (Q[rows, sv] a_sv): the support vectors, the variables whose slack is below
        max(NEAR_MARGIN, 170 times :meth:`column_rounding`), and
        the other variables of their training rows (SVR's primal reads a row's
        kernel product from its a_i). ``offsets``: as in :meth:`loss_slack`."""
        slack = self.loss_slack(alpha, gradient, offsets)
        near = max(NEAR_MARGIN, 170.0 * self.column_rounding(alpha))
        rows = self.q.sharing_rows(np.flatnonzero((alpha != 0) | (slack < near)))
        out = np.array(gradient, dtype=np.float64)
        if len(rows):
            out[rows] = (self.exact_product(alpha, rows) + self.diag[rows] * alpha[rows]
                         + self.linear[rows])
        return out

    # --- products Q v kept for the next ones ------------------------------------

    def _keep_no_products(self):
        self._products = {}  # name -> (v, Q v) of the last product of that name
        self._last = None  # the last product of any name

    def column_rounding(self, alpha):
        """The bound 6e-8 sum_j |a_j| max_ij |Q_ij| on the error of Q a summed from
        float32 columns (the class docstring), with max Q_ii for max |Q_ij|."""
        return COLUMN_ROUNDING * float(np.abs(alpha).sum()) * self._kernel_max

    @property
    def has_products(self):
        """Whether a product Q v is kept for the next ones (:meth:`product`)."""
        return self._last is not None or bool(self._products)

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


@dataclass(eq=False)
class KernelDualProblem(KernelQP):
    """A binary kernel SVM problem (C-SVC, LIBSVM ``-s 0``): :class:`KernelQP` with
    p = -e, one label a row, and (D_ii, U_i) from the loss (:func:`dual_parameters`).

    With G = (Q + D)a - e, (Q a)_i = G_i + 1 - D_ii a_i::

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
        check_modes(self.loss, self.bias, ("none", "exact"))
        self._set_bounds()
        self.linear = np.full(len(self.y), -1.0)  # the linear term -e
        self.start = np.zeros(len(self.y))
        self._build_q()

    def _set_bounds(self):
        """(D_ii, U_i) for the costs C."""
        self.diag, self.upper_bound = dual_parameters(self.C, self.loss)

    def primal_from_gradient(self, alpha, gradient, intercept=0.0, r=0.0):
        """P(a, b), from (Q a)_i = G_i + 1 - D_ii a_i."""
        return kernel_primal(as_floats(alpha), as_floats(gradient), self.y, self.diag, self.C,
                             float(intercept), self.loss == "squared_hinge")


def kept_product(q, v, kept, rows=None):
    """(Q v)[rows] (``q``: a QMatrix; ``rows=None``: all rows) in float64, from
    scratch, or as (Q v_old)[rows] + Q[rows] (v - v_old) when ``kept`` = (v_old,
    Q v_old) and v differs from v_old in fewer entries than it has nonzeros (fewer
    columns to compute); the entries a kept product does not know (NaN) are
    computed from scratch."""
    if kept is None:  # from scratch (the first product of a problem)
        cols = np.flatnonzero(v)
        n_rows = len(v) if rows is None else len(rows)
        return q.times(cols, v[cols], rows) if len(cols) and n_rows else np.zeros(n_rows)
    index = np.arange(len(v)) if rows is None else np.asarray(rows, dtype=np.int64)
    result = np.zeros(len(index))
    fresh = np.ones(len(index), dtype=bool)
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
        self.diag = np.zeros(2 * n)
        self._set_bounds()
        # a_i and a*_i share row i's kernel column (LIBSVM's SVR_Q)
        self._build_q(np.concatenate([np.arange(n), np.arange(n)]))

    def _set_bounds(self):
        """U = (C, C) and LIBSVM's starting point for the costs C (for nu-SVR it
        depends on them through S)."""
        self.upper_bound = np.concatenate([self.C, self.C])
        if self.two_constraints:
            half = greedy_fill(0.5 * self.nu * float(self.C.sum()), self.C)
            self.start = np.concatenate([half, half])
        else:
            self.start = np.zeros(2 * self.n_rows)

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

    #: nu-SVC's two constraints, or one-class's e'a = S on its one sign
    fixed_sums = True

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
        self.diag = np.zeros(n)
        self.linear = np.zeros(n)
        self._build_q()

    def offsets(self, alpha, gradient):
        """(b, rho): nu-SVC's by LIBSVM's ``Solver_NU`` rule; one-class: rho is
        LIBSVM's rho of the one constraint and the model's bias is -rho."""
        b, r = super().offsets(alpha, gradient)
        return (b, -b) if self.one_class else (b, r)

    def tied_multiplier(self, intercept, r):
        return -intercept if self.one_class else r

    def loss_slack(self, alpha, gradient, offsets=None):
        """One-class: f(x_t) - rho = G_t + b (b = -rho); nu-SVC as KernelQP's."""
        if self.one_class:
            return gradient + (self.offsets(alpha, gradient) if offsets is None else offsets)[0]
        return super().loss_slack(alpha, gradient, offsets)

    def primal_from_gradient(self, alpha, gradient, intercept, rho):
        """P at (f, b, rho), from y_i f(x_i) = (Q a)_i = G_i."""
        margin = gradient if self.one_class else gradient + self.y * intercept
        return nu_primal(0.5 * float(alpha @ gradient), margin, self.weight,
                         self.nu * float(self.weight.sum()), rho)
