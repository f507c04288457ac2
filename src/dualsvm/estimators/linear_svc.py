"""``dualsvm.LinearSVC``: the scikit-learn estimator of linear models.

Validation here (scikit-learn and :mod:`dualsvm.data.validation`); training in
:mod:`dualsvm.training.linear`, which returns a :class:`~dualsvm.training.fitted.LinearFit`;
:meth:`LinearSVC.from_fit` turns one into a fitted estimator.
"""

import dataclasses
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, clone
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

# Private scikit-learn APIs with no public equivalent (scikit-learn is pinned below
# the next minor version in pyproject.toml for them): the parameter declarations
# and their check in fit (_fit_context), and the decision_function / predict /
# score of linear classifiers.
from sklearn.base import _fit_context  # noqa: I001
from sklearn.linear_model._base import LinearClassifierMixin, SparseCoefMixin
from sklearn.utils._param_validation import Interval, StrOptions

from ..constants import LOSSES, MCSVM_CS
from ..data.validation import canonical, sample_costs, training_data
from ..training.fitted import LinearFit
from ..training.config import LinearTraining
from ..training.linear import LIBLINEAR_PRIMAL_TYPES, PRIMAL_SOLVERS, WarmStart, fit_linear, \
    liblinear_type, linear_path, stacked_weights
from .base import FitMixin


class LinearSVC(FitMixin, LinearClassifierMixin, SparseCoefMixin, BaseEstimator):
    """Linear support vector classifier trained by dual coordinate descent (or, on
    request, by the primal stochastic solvers Pegasos and implicit updates).

    Solves LIBLINEAR's ``-s 1`` (squared hinge) and ``-s 3`` (hinge) problems

        min_w 1/2 w'w + sum_i C_i loss(y_i (w'x_i + b)),   C_i = C * class_weight[y_i] * sample_weight_i,

    in the dual, and reports for every model its primal and dual objectives and
    the duality gap. Multi-class problems are solved one-vs-rest.

    Parameters
    ----------
    C : float, default=1.0
        Regularisation trade-off; must be > 0.
    loss : {'squared_hinge', 'hinge'}, default='squared_hinge'
        L2-loss (LIBLINEAR ``-s 1``) or L1-loss (``-s 3``).
    penalty : {'l2', 'l1'}, default='l2'
        The regulariser: 1/2 w'w, or ||w||_1 (sparse ``coef_``; LIBLINEAR ``-s 5``,
        with ``loss='squared_hinge'`` and ``dual=False`` only, as in scikit-learn),
        solved by primal coordinate descent (:mod:`dualsvm.solvers.primal_cd`),
        whose certificate is a dual-feasible point built from the margins
        (:class:`dualsvm.problems.linear.L1RegularizedProblem`). ``tol`` is then
        LIBLINEAR's ``-e`` of ``-s 5``: stop when the summed violations fall to
        tol * max(min(#pos, #neg), 1) / n times those of the first pass.
    dual : 'auto' or bool, default='auto'
        Solve the dual (True) or the primal (False). Allowed combinations are
        scikit-learn's: the hinge loss needs dual=True; penalty='l1' needs
        dual=False. dual=False with the squared hinge and penalty='l2' is served,
        as in scikit-learn, by LIBLINEAR's Newton method ``-s 2``
        (:mod:`dualsvm.solvers.newton`; the optimum is that of the dual), ``tol``
        being its ``-e``: stop when ||grad P(w)|| falls to tol * max(min(#pos,
        #neg), 1) / n times ||grad P(0)||. 'auto' chooses, as scikit-learn does for
        this combination, by the shape (``dualsvm.training.linear.auto_dual``): the
        primal Newton method when n_samples >= n_features + 1 (the augmented feature
        counted) and n_samples >= 100 (measured faster there,
        benchmarks/results/dual_auto.md); the dual on wider or smaller tables, with
        ``intercept_mode='exact'`` and with the hinge loss (whose primal has no Newton
        method); the other combinations have one side. Which
        side ran shows in ``history_``: Newton's records count ``cg_iterations``.
    multi_class : {'ovr', 'crammer_singer'}, default='ovr'
        'ovr': one binary problem per class (one for two classes).
        'crammer_singer': one joint problem over all classes (Crammer and Singer;
        LIBLINEAR ``-s 4``), solved by the sequential dual method
        (:mod:`dualsvm.solvers.crammer_singer`) with ``tol`` as its ``-e``; its loss is
        the multi-class hinge (``loss`` other than its default is refused, where
        scikit-learn ignores it), the bias
        is augmented or none, ``solver`` must be 'dcd', ``penalty`` 'l2' and
        ``dual`` 'auto' or True. ``coef_`` is (n_classes, n_features), one row
        (w_1 - w_0) for two classes; ``alpha_`` (n_classes, n_samples) and one
        certificate for the whole problem (``primal_`` etc. of length 1).
    solver : {'dcd', 'pegasos', 'implicit'}, default='dcd'
        'dcd': dual coordinate descent. 'pegasos' and 'implicit': stochastic steps
        on w in the primal (Pegasos, optionally with mini-batches; implicit, i.e.
        proximal, updates), with step sizes 1/(lambda t) and lambda = 1/sum_i C_i
        (= 1/(C n) without weights), which minimise the same objective P(w)
        (see :mod:`dualsvm.solvers.primal`). They fit the bias as the augmented
        feature or not at all, have no dual variables (``alpha_`` is the dual point
        their certificate uses), compute the certificate after every epoch and stop
        when its relative gap is at most ``tol`` (or ``gap_tol``), which for the
        hinge loss is a loose bound: expect them to run ``max_iter`` epochs.
        They offer :meth:`partial_fit`. Pegasos' step sizes presume a bounded
        gradient (the hinge): with the squared hinge its early steps overshoot
        by orders of magnitude and it needs many more epochs; implicit steps
        cannot overshoot. See ``docs/study.md`` for how they compare with 'dcd'.
    fit_intercept : bool, default=True
        Whether to fit a bias b. ``False`` gives b = 0.
    intercept_mode : {'augmented', 'exact'}, default='augmented'
        How the bias is fitted. 'augmented' appends a constant feature of value
        ``intercept_scaling`` (LIBLINEAR ``-B``, scikit-learn's LinearSVC): the bias
        is regularised. 'exact' leaves it unregularised, which adds the constraint
        y'a = 0 to the dual, solved by two-variable steps (LIBSVM's objective with a
        linear kernel); ``tol`` then means LIBSVM's ``-e`` and ``shrinking`` and
        ``shuffle`` do not apply.
    intercept_scaling : float, default=1.0
        Value of the augmented feature, > 0.
    tol : float, default=1e-4
        LIBLINEAR's ``-e``: stop when the projected gradients of all variables
        lie within [-tol, tol] and span at most tol. For the primal solvers: the
        relative duality gap at which to stop.
    gap_tol : float or None, default=None
        Also stop once the relative duality gap (P - D) / P is at most this.
    max_iter : int, default=1000
        Maximum number of epochs (passes over the active variables; in the primal
        with penalty='l2', Newton iterations).
    time_limit : float or None, default=None
        Seconds after which training stops with the current model.
    shrinking : bool, default=True
        Drop variables stuck at a bound from the epochs (LIBLINEAR's rule).
    shuffle : bool, default=True
        Visit variables in a new random order each epoch; False is cyclic order.
    batch_size : int, default=1
        Rows per step of ``solver='pegasos'`` (mini-batches); the other solvers
        take one row per step and do not accept another value.
    random_state : int, RandomState instance or None, default=None
        Seeds the epoch order.
    class_weight : dict, 'balanced' or None, default=None
        Multiplies C per class.
    warm_start : bool, default=False
        Start from the previous fit's dual variables when the data shape agrees
        (the primal solvers: from its w and step count, when the classes agree).
    callback : callable or None, default=None
        Called after every epoch with a dict (epoch, seconds, primal, dual, gap,
        violation, active_size, and the current model's ``coef`` and
        ``intercept``); returning True stops training.
    verbose : int, default=0
        0: silent; 1: a progress bar; 2: a trace line at epochs 1-10, 20, 30, ...,
        100, 200, ... and the last; 3: a trace line for every epoch (on stderr).
    monitor : bool or None, default=None
        Compute the primal and dual objectives and the duality gap after every
        epoch (one extra pass over the data each). None: only when ``verbose`` or
        ``callback`` needs them; ``gap_tol`` alone is checked after every two
        passes' worth of epochs (with shrinking, many short epochs), which keeps its
        cost within about half a pass per two. The final model always carries
        its exact certificate (``primal_``, ``dual_``, ``gap_``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        A CSR matrix after :meth:`sparsify` (scikit-learn's), until :meth:`densify`.
    intercept_ : ndarray of shape (1,) or (n_classes,)
    alpha_ : ndarray of shape (n_problems, n_samples)
        Dual variables of each binary problem, in training-row order (the dual
        point of the certificate for the primal solvers; for
        ``multi_class='crammer_singer'``, (n_classes, n_samples): a_i^m).
    n_iter_ : int
        Largest number of epochs run over the binary problems.
    primal_, dual_, gap_ : ndarray of shape (n_problems,)
        Primal and dual objectives and relative duality gap of each model.
    status_ : list of str
        Why each binary problem stopped: 'converged', 'gap', 'max_iter',
        'time_limit', 'interrupted' or 'callback'.
    history_ : list of list of dict
        Per binary problem, one record per epoch: epoch, seconds, primal, dual,
        gap (NaN where not monitored, except in the last record), violation
        (the stopping rule's measure; NaN for the primal solvers) and active_size.
        Unmonitored, DCD and primal CD run several passes per record, in compiled
        code (about 2e5 row entries' worth, at least one pass): a record's
        ``epoch`` is then the passes so far, its violation and active_size those
        of its last pass; monitored (``verbose``, ``callback``, ``monitor=True``)
        there is one record per pass.
    n_samples_seen_ : int
        Rows with C_i > 0 the model was trained on (over all ``partial_fit`` calls).
    lambda_ : float
        1 / sum_i C_i over those rows: the regularisation of the primal solvers'
        form lambda/2 ||w||^2 + mean of the weighted losses.
    t_ : ndarray of shape (n_problems,)
        Stochastic steps taken by the primal solvers (0 for 'dcd').
    """

    _parameter_constraints = {
        "C": [Interval(Real, 0.0, None, closed="neither")],
        "loss": [StrOptions(set(LOSSES))],
        "penalty": [StrOptions({"l1", "l2"})],
        "dual": ["boolean", StrOptions({"auto"})],
        "multi_class": [StrOptions({"ovr", "crammer_singer"})],
        "solver": [StrOptions({"dcd", "pegasos", "implicit"})],
        "fit_intercept": ["boolean"],
        "intercept_mode": [StrOptions({"augmented", "exact"})],
        "intercept_scaling": [Interval(Real, 0.0, None, closed="neither")],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
        "gap_tol": [Interval(Real, 0.0, None, closed="neither"), None],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "time_limit": [Interval(Real, 0.0, None, closed="left"), None],
        "shrinking": ["boolean"],
        "shuffle": ["boolean"],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "random_state": ["random_state"],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "warm_start": ["boolean"],
        "callback": [callable, None],
        "verbose": ["verbose"],
        "monitor": ["boolean", None],
    }

    def __init__(self, C=1.0, *, loss="squared_hinge", penalty="l2", dual="auto",
                 multi_class="ovr", solver="dcd", fit_intercept=True,
                 intercept_mode="augmented", intercept_scaling=1.0, tol=1e-4, gap_tol=None,
                 max_iter=1000, time_limit=None, shrinking=True, shuffle=True, batch_size=1,
                 random_state=None, class_weight=None, warm_start=False, callback=None,
                 verbose=0, monitor=None):
        self.C = C
        self.loss = loss
        self.penalty = penalty
        self.dual = dual
        self.multi_class = multi_class
        self.solver = solver
        self.fit_intercept = fit_intercept
        self.intercept_mode = intercept_mode
        self.intercept_scaling = intercept_scaling
        self.tol = tol
        self.gap_tol = gap_tol
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.shrinking = shrinking
        self.shuffle = shuffle
        self.batch_size = batch_size
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.callback = callback
        self.verbose = verbose
        self.monitor = monitor

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the model.

        Data larger than memory is trained by :func:`dualsvm.outofcore.fit`, whose
        result :meth:`from_fit` turns into a LinearSVC.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; sparse input is used as CSR without densifying.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample multipliers of C.

        Returns
        -------
        self
        """
        self._check_solver()
        X, y, classes = training_data(self, X, y)
        cost = sample_costs(self.C, self.class_weight, y, classes, sample_weight)
        start = self._warm_start(X, classes)
        return self._take_fit(fit_linear(X, y, cost, self.get_params(deep=False), start=start))

    def to_fit(self):
        """The :class:`~dualsvm.training.fitted.LinearFit` of this fitted model (what model files hold)."""
        check_is_fitted(self)
        names = [f.name for f in dataclasses.fields(LinearFit) if f.name.endswith("_")]
        fitted = {name: getattr(self, name, None) for name in names}
        fitted["coef_"] = self._dense_coef()
        return LinearFit(params=self.get_params(deep=False), **fitted)

    def _set_fitted(self, fit):
        for name, value in fit.fitted_attributes().items():
            if value is not None:
                setattr(self, name, value)
        self.n_features_in_ = fit.n_features_in_

    @available_if(lambda self: self.solver in PRIMAL_SOLVERS)
    @_fit_context(prefer_skip_nested_validation=True)
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One epoch of the primal solver over a chunk of data (streaming use).

        Available with ``solver='pegasos'`` or ``'implicit'``. The first call
        (on an unfitted model) needs ``classes``, every label that will ever
        occur. Each call continues from the current model and step count, and
        extends the objective: after chunks holding N rows in all, the model
        targets the objective of ``fit`` on those N rows (lambda = 1/sum C_i over
        them), so passing the same rows again counts them twice, as repeating
        them in ``fit`` would. ``primal_``, ``dual_`` and ``gap_`` describe this
        chunk's problem, 1/2 w'w + sum over the chunk of C_i loss_i.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            All class labels; required on the first call, optional (but checked)
            later.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        first = not hasattr(self, "t_")
        if first:
            if classes is None:
                raise ValueError("classes must be passed on the first call to partial_fit.")
        self._check_solver()
        if self.class_weight == "balanced":
            raise ValueError("class_weight='balanced' is not supported by partial_fit: the "
                             "class frequencies of a stream are unknown; pass a dict")
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C",
                             reset=first)
        X = canonical(X)
        check_classification_targets(y)
        if classes is not None:
            classes = np.unique(classes)
            if not first and not np.array_equal(classes, self.classes_):
                raise ValueError(f"classes={classes!r} differs from the classes of the first "
                                 f"call to partial_fit, {self.classes_!r}")
            if len(classes) < 2:
                raise ValueError(f"classes must hold at least 2 labels, got {classes!r}")
        classes = self.classes_ if classes is None else classes
        unknown = np.setdiff1d(np.unique(y), classes)
        if len(unknown):
            raise ValueError(f"labels {unknown!r} are not among the classes {classes!r}")
        cost = sample_costs(self.C, self.class_weight, y, classes, sample_weight)
        n_problems = 1 if len(classes) == 2 else len(classes)
        if first:
            start = WarmStart(weights=np.zeros((n_problems, self._n_weights(X))),
                              steps=np.zeros(n_problems, dtype=int))
        else:
            start = WarmStart(weights=self._weights(), steps=self.t_,
                              seen_rows=self.n_samples_seen_, seen_cost=1.0 / self.lambda_)
        fit = fit_linear(X, y, cost, self.get_params(deep=False), start=start,
                         classes=classes, max_iter=1)
        self._set_fitted(fit)
        return self

    def _check_solver(self):
        if self.solver != "dcd" and (self.multi_class != "ovr" or self.penalty != "l2"
                                     or self.dual is True):
            raise ValueError(f"solver={self.solver!r} runs stochastic steps on w in the primal "
                             "for the L2 penalty, one-vs-rest; multi_class='crammer_singer', "
                             "penalty='l1' and dual=True need solver='dcd'")
        solver_type = liblinear_type(self._config())  # scikit-learn's combinations
        if self._bias_mode() == "exact" and (solver_type == MCSVM_CS
                                             or solver_type in LIBLINEAR_PRIMAL_TYPES):
            raise ValueError("intercept_mode='exact' (the constraint y'a = 0) is a property of "
                             "the binary L2-penalty dual; with multi_class='crammer_singer', "
                             "penalty='l1' or dual=False the intercept is augmented "
                             "(intercept_mode='augmented') or none")
        if self.solver in PRIMAL_SOLVERS and self._bias_mode() == "exact":
            raise ValueError(f"solver={self.solver!r} fits the intercept as an augmented feature "
                             "(intercept_mode='augmented') or not at all; the exact intercept "
                             "needs solver='dcd'")
        if self.solver != "pegasos" and self.batch_size != 1:
            raise ValueError(f"batch_size={self.batch_size} needs solver='pegasos'; "
                             f"solver={self.solver!r} takes one row per step")

    def _config(self):
        return LinearTraining.of(self.get_params(deep=False))

    def _bias_mode(self):
        return self._config().bias_mode

    def _n_weights(self, X):
        return X.shape[1] + (self._bias_mode() == "augmented")

    def _weights(self):
        """The current w of each binary problem, the augmented entry included."""
        return stacked_weights(self._dense_coef(), self.intercept_, self._config())

    def _dense_coef(self):
        # sparsify() (scikit-learn's SparseCoefMixin) may have made coef_ a sparse matrix
        return self.coef_.toarray() if sp.issparse(self.coef_) else self.coef_

    def _warm_start(self, X, classes):
        """Where ``fit`` continues with warm_start: the previous dual variables ('dcd')
        or w and step counts (primal solvers), when they fit the data; else None."""
        if not (self.warm_start and hasattr(self, "coef_") and hasattr(self, "t_")):
            return None
        solver_type = liblinear_type(self._config(), X.shape)
        if solver_type == MCSVM_CS:
            alpha = getattr(self, "alpha_", None)
            same = alpha is not None and alpha.shape == (len(classes), X.shape[0])
            return WarmStart(alpha=alpha) if same else None
        if solver_type in LIBLINEAR_PRIMAL_TYPES:
            weights = self._weights()
            same = np.array_equal(self.classes_, classes) and \
                weights.shape[1] == self._n_weights(X)
            return WarmStart(weights=weights) if same else None
        if self.solver in PRIMAL_SOLVERS:
            weights = self._weights()
            if np.array_equal(self.classes_, classes) and weights.shape[1] == self._n_weights(X):
                return WarmStart(weights=weights, steps=self.t_)
            return None
        n_problems = 1 if len(classes) == 2 else len(classes)
        alpha = getattr(self, "alpha_", None)
        if alpha is not None and alpha.shape == (n_problems, X.shape[0]):
            return WarmStart(alpha=alpha)
        return None


def linear_svc_path(estimator, X, y, Cs, *, sample_weight=None, start="dual"):
    """Fitted clones of a :class:`LinearSVC`, one per C of the increasing ``Cs``,
    each started from the one before (see :func:`dualsvm.c_path`); a generator,
    so a caller can score or time each model as it comes."""
    estimator = clone(estimator)
    estimator._validate_params()
    estimator._check_solver()
    X, y, classes = training_data(estimator, X, y)
    unit_cost = sample_costs(1.0, estimator.class_weight, y, classes, sample_weight)
    names = getattr(estimator, "feature_names_in_", None)
    for fit in linear_path(X, y, unit_cost, estimator.get_params(deep=False), Cs, start=start):
        model = clone(estimator).set_params(C=fit.params["C"])
        model._take_fit(fit)
        if names is not None:
            model.feature_names_in_ = names
        yield model
