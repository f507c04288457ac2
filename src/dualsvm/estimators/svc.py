"""``dualsvm.SVC``: kernel support vector classification, LIBSVM's C-SVC and more.

Validation here (scikit-learn and :mod:`dualsvm.data.validation`); training in
:mod:`dualsvm.training.kernel`: binary :class:`~dualsvm.problems.kernel.KernelDualProblem`
instances solved by the solver ``solver`` names (``KERNEL_SOLVERS``), one-vs-one
exactly as LIBSVM splits them, into a :class:`~dualsvm.training.fitted.KernelFit`;
:meth:`SVC.from_fit` turns one into a fitted estimator.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.utils.metaestimators import available_if
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

# Private scikit-learn APIs with no public equivalent (scikit-learn is pinned below
# the next minor version in pyproject.toml for them): the parameter declarations
# and their check in fit, and the one-vs-one to one-vs-rest decision transform.
from sklearn.base import _fit_context  # noqa: I001
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import _ovr_decision_function

from ..constants import KERNELS, LOSSES
from ..data.validation import sample_costs, scaled_costs, training_data
from ..training.fitted import pair_coefficients
from ..training.config import KernelTraining
from ..training.kernel import KERNEL_SOLVERS, fit_kernel, kernel_path, kernel_solver
from .base import KernelMixin

#: The kernel parameter of the kernel estimators: a name, or a function
#: kernel(X, Z) -> (n_X, n_Z) matrix (scikit-learn's convention).
KERNEL_CONSTRAINT = [StrOptions(set(KERNELS)), callable]


class SVC(KernelMixin, ClassifierMixin, BaseEstimator):
    """Kernel support vector classifier trained in the dual (LIBSVM's C-SVC).

    Solves, for each pair of classes,

        min_{f, b} 1/2 ||f||^2 + sum_i C_i loss(y_i (f(x_i) + b)),
        C_i = C * class_weight[y_i] * sample_weight_i,

    in the dual (``loss='hinge'``: LIBSVM's and scikit-learn's SVC), with the
    duality gap of every model reported.

    Parameters
    ----------
    C : float, default=1.0
        Regularisation trade-off, > 0; ``inf`` gives the hard margin (no sample
        inside it; the data must be separable in the kernel's space).
    kernel : {'linear', 'poly', 'rbf', 'sigmoid', 'precomputed'} or callable, default='rbf'
        As LIBSVM's ``-t 0..4``. With 'precomputed', X is the kernel matrix
        (n_samples, n_samples) in fit and (n_test, n_train) in predict. A callable
        ``kernel(X, Z)`` returns the (len(X), len(Z)) kernel matrix of two sets of
        samples (of any kind it takes); the model is trained as 'precomputed' on
        ``kernel(X, X)`` and keeps X for prediction (it cannot be saved to a file).
    degree : int, default=3
        Degree of 'poly'.
    gamma : {'scale', 'auto'} or float, default='scale'
        Kernel coefficient of 'rbf', 'poly', 'sigmoid': 'scale' is
        1 / (n_features * X.var()), 'auto' 1 / n_features (LIBSVM's default).
    coef0 : float, default=0.0
        Constant term of 'poly' and 'sigmoid'.
    loss : {'hinge', 'squared_hinge'}, default='hinge'
        'hinge' is LIBSVM's C-SVC.
    solver : {'auto', 'ws', 'smo', 'cgd', 'dcd', 'pgd', 'dc'}, default='auto'
        'smo': SMO decomposition with second-order working sets and shrinking
        (LIBSVM's algorithm; exact bias). 'ws': the same dual by large working
        sets whose kernel columns are computed in bulk (ThunderSVM's design; no
        precomputed kernel), kept in the cache, or, once the cache thrashes, not
        stored at all (sets of 2048 as oneDAL's, LIBSVM's shrinking:
        ``dualsvm.solvers.ws_smo``). 'auto': 'ws' from 10000 training rows (with
        shrinking and a kernel of data rows), else 'smo'
        (``dualsvm.training.kernel.choose_solver``); ``solver_used_`` says which and
        ``solver_reason_`` why (for 'ws', also the mode its sets ran in).
        'dc': divide and conquer (Hsieh, Si and Dhillon 2014; exact bias): levels
        of independent SVMs on the parts of a kernel k-means (solved side by side
        on all cores), then the whole problem from their solution, to the same
        ``tol`` and certificate (``dualsvm.training.divide_conquer``); with
        ``early_stop_level``, early prediction. 'cgd', 'dcd' (no bias), 'pgd': see
        ``dualsvm.training.kernel.KERNEL_SOLVERS``.
    tol : float, default=1e-3
        LIBSVM's ``-e``: stop when the maximal KKT violation is below tol
        ('ws' stops below tol / 2, where its dual is at or above LIBSVM's:
        ``dualsvm.solvers.ws_smo.STOP_RATIO``).
    cache_size : float, default=200
        Kernel column cache in MB.
    shrinking : bool, default=True
        LIBSVM's shrinking heuristic (``-h``).
    class_weight : dict, 'balanced' or None, default=None
        Multiplies C per class.
    max_iter : int, default=-1
        Iterations per binary problem (SMO steps for 'smo', working sets for
        'ws'; for 'dc', of each solver it runs); -1: no limit, except SMO's
        LIBSVM limit of max(10^7, 100 n) steps.
    time_limit : float or None, default=None
        Seconds after which training stops with the current models.
    callback : callable or None, default=None
        Called after every epoch with its record (a dict); True stops training.
    verbose : int, default=0
        0 silent, 1 progress bar, 2 trace lines on a log grid, 3 every epoch.
    decision_function_shape : {'ovr', 'ovo'}, default='ovr'
        As scikit-learn's SVC.
    probability : bool, default=False
        Fit Platt's sigmoid to each pair's decision values from an internal 5-fold
        cross-validation (LIBSVM's ``-b 1``; five more trainings per pair), for
        :meth:`predict_proba`; more than two classes are coupled by Wu, Lin and
        Weng's method. The probabilities may disagree with :meth:`predict`, as
        LIBSVM's and scikit-learn's do.
    break_ties : bool, default=False
        With ``decision_function_shape='ovr'`` and more than two classes, predict
        the class of the largest one-vs-rest decision value instead of the vote
        winner (ties of votes are then broken by confidence).
    random_state : int, RandomState instance or None, default=None
        Seeds randomised solvers ('smo' is deterministic; 'dc' draws its samples
        from it) and the folds of ``probability``.
    dc_clusters : int or 'auto', default='auto'
        'dc': k, the parts of level l are k**l clusters; 'auto': the k that makes
        the parts of level ``dc_levels`` hold about 2000 rows (2 at least).
    dc_levels : int, default=1
        'dc': the number of levels L (levels L, L-1, ..., 1). One level of parts
        of about 2000 rows, then the whole problem from their solution, is the
        default; the paper's hierarchy is e.g. ``dc_clusters=4, dc_levels=4``.
    dc_sample_size : int or 'auto', default='auto'
        'dc': rows kernel k-means clusters at each level before every row joins its
        nearest centre (at least 4 a cluster; fewer for wide data, whose points
        must fit in 32 MB); 'auto': 2000, or 500 with ``early_stop_level`` (whose
        fit is mostly that clustering).
    early_stop_level : int or None, default=None
        'dc': stop after this level (1 .. L) and predict every row by the model of
        its nearest cluster only (early prediction); ``cluster_models_`` holds the
        models, ``primal_``, ``dual_``, ``gap_`` the sums over the clusters (the SVM
        with no kernel entries between clusters, one bias per cluster). None: the
        exact model of the whole problem. Not with ``probability``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors, grouped by class.
    support_vectors_ : ndarray or csr_matrix of shape (n_SV, n_features)
        Empty for the precomputed kernel.
    n_support_ : ndarray of shape (n_classes,)
    dual_coef_ : ndarray of shape (n_classes - 1, n_SV)
        y_i alpha_i in LIBSVM's layout (binary: sign flipped as scikit-learn does).
    intercept_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
    n_iter_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        SMO steps (or solver iterations) of each binary problem.
    primal_, dual_, gap_ : ndarray of shape (n_pairs,)
        Primal and dual objectives and relative duality gap per binary problem.
    status_ : list of str
    solver_used_ : str
        The solver that trained the model ('ws' or 'smo' for ``solver='auto'``).
    solver_reason_ : str
        Why: 'requested', or the rule of ``solver='auto'`` with the numbers that
        decided (``dualsvm.training.kernel.choose_solver``); ``verbose`` prints it.
    history_ : list of list of dict
        Per binary problem, one record per epoch (epoch, seconds, primal, dual, gap,
        violation, active_size, and for kernel solvers iterations,
        kernel_evaluations, cache_hits).
    probA_, probB_ : ndarray of shape (n_pairs,)
        Platt's sigmoid 1 / (1 + exp(A f + B)) of each pair (LIBSVM's signs: f > 0
        for the first class of the pair); empty unless ``probability=True``.
    cluster_models_ : list of ClusterModels or None
        Early prediction (``early_stop_level``): per pair, the models of the level's
        clusters (``dualsvm.training.fitted.ClusterModels``), which decide instead of
        ``dual_coef_`` and ``intercept_`` (then 0); None for the exact model.
    """

    _kind = "c_svc"
    _parameter_constraints = {
        "C": [Interval(Real, 0.0, None, closed="right")],  # inf: hard margin, as scikit-learn's
        "kernel": KERNEL_CONSTRAINT,
        "degree": [Interval(Integral, 0, None, closed="left")],
        "gamma": [StrOptions({"scale", "auto"}), Interval(Real, 0.0, None, closed="neither")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "loss": [StrOptions(set(LOSSES))],
        "solver": [StrOptions(set(KERNEL_SOLVERS) | {"auto"})],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
        "cache_size": [Interval(Real, 0.0, None, closed="neither")],
        "shrinking": ["boolean"],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "max_iter": [Interval(Integral, -1, None, closed="left")],
        "time_limit": [Interval(Real, 0.0, None, closed="left"), None],
        "callback": [callable, None],
        "verbose": ["verbose"],
        "decision_function_shape": [StrOptions({"ovr", "ovo"})],
        "probability": ["boolean"],
        "break_ties": ["boolean"],
        "random_state": ["random_state"],
        "dc_clusters": [StrOptions({"auto"}), Interval(Integral, 2, None, closed="left")],
        "dc_levels": [Interval(Integral, 1, None, closed="left")],
        "dc_sample_size": [StrOptions({"auto"}), Interval(Integral, 2, None, closed="left")],
        "early_stop_level": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0, *,
                 loss="hinge", solver="auto", tol=1e-3, cache_size=200, shrinking=True,
                 class_weight=None, max_iter=-1, time_limit=None, callback=None, verbose=0,
                 decision_function_shape="ovr", probability=False, break_ties=False,
                 random_state=None, dc_clusters="auto", dc_levels=1, dc_sample_size="auto",
                 early_stop_level=None):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.loss = loss
        self.solver = solver
        self.tol = tol
        self.cache_size = cache_size
        self.shrinking = shrinking
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.callback = callback
        self.verbose = verbose
        self.decision_function_shape = decision_function_shape
        self.probability = probability
        self.break_ties = break_ties
        self.random_state = random_state
        self.dc_clusters = dc_clusters
        self.dc_levels = dc_levels
        self.dc_sample_size = dc_sample_size
        self.early_stop_level = early_stop_level

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit one binary model per pair of classes.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (CSR is used without densifying unless it is dense
            enough); for kernel='precomputed', the (n_samples, n_samples) kernel matrix.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample multipliers of C; samples of weight <= 0 are left out
            (as scikit-learn's SVMs leave them out).

        Returns
        -------
        self
        """
        kernel_solver(self.solver, self.loss, self.shrinking)  # bad combinations: before the data
        params = self._training_params()
        KernelTraining.of(params)  # divide and conquer's parameters: before the data
        X, y, unit_cost = self._training_inputs(X, y, sample_weight)
        return self._take_fit(fit_kernel(X, y, scaled_costs(unit_cost, self.C), params))

    def _training_inputs(self, X, y, sample_weight):
        """Checked (X, y) (X as training takes it: see ``_training_matrix``) and the
        costs at C = 1, C_i / C (they scale with C)."""
        X, y, classes = training_data(self, X, y, check_X=not callable(self.kernel))
        unit_cost = sample_costs(1.0, self.class_weight, y, classes, sample_weight)
        kept = unit_cost > 0  # all rows: their classes are two or more (training_data)
        if self._kind == "c_svc" and not kept.all() and len(np.unique(y[kept])) < 2:
            # LIBSVM's check as scikit-learn words it; nu-SVC says its nu is infeasible
            raise ValueError("Invalid input - all samples with positive weights belong to the "
                             "same class: training needs samples of two classes or more with "
                             "sample_weight (and class_weight) > 0")
        return self._training_matrix(X), y, unit_cost

    def _set_fitted(self, fit):
        super()._set_fitted(fit)
        if fit.probA_ is None:  # scikit-learn's: empty without probability
            self.probA_ = self.probB_ = np.empty(0)

    def _ovo_decision(self, X):
        X = self._prediction_data(X)  # first: it says when the model is not fitted
        return self._fit.decision_ovo(X)

    def decision_function(self, X):
        """Signed distances: (n,) for two classes (positive: classes_[1]); else
        (n, n_classes) ('ovr') or (n, n_pairs) ('ovo')."""
        dec = self._ovo_decision(X)
        if len(self.classes_) == 2:
            return -dec[:, 0]
        if self.decision_function_shape == "ovr":
            return _ovr_decision_function(dec < 0, -dec, len(self.classes_))
        return dec

    def predict(self, X):
        """One-vs-one votes as LIBSVM counts them (ties: the first class); with
        ``break_ties``, the largest one-vs-rest decision value."""
        check_is_fitted(self)
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
        if self.break_ties and len(self.classes_) > 2:
            return self.classes_[np.argmax(self.decision_function(X), axis=1)]
        X = self._prediction_data(X)
        return self._fit.predict(X)

    def _check_proba(self):
        if not self.probability:
            raise AttributeError("predict_proba is not available when probability=False")
        return True

    @available_if(_check_proba)
    def predict_proba(self, X):
        """Class probabilities (LIBSVM's ``-b 1``), columns in the order of ``classes_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        if self._fit.probA_ is None:
            # NotFittedError, as scikit-learn's: the model needs a fit with probability=True
            raise NotFittedError("predict_proba is not available when fitted with "
                                 "probability=False (or when training was interrupted before "
                                 "its cross-validation ended); fit with probability=True")
        return self._fit.predict_proba(self._prediction_data(X))

    @available_if(_check_proba)
    def predict_log_proba(self, X):
        """The logarithm of :meth:`predict_proba`."""
        return np.log(self.predict_proba(X))

    def _primal_coef(self):
        """w of every pair, (n_pairs, n_features) (two classes: scikit-learn's sign)."""
        coef = pair_coefficients(self._fit.dual_coef_, self.n_support_) @ self.support_vectors_
        return -np.asarray(coef) if len(self.classes_) == 2 else np.asarray(coef)


def kernel_path_models(estimator, X, y, Cs, *, sample_weight=None):
    """Fitted clones of a kernel model with a C (:class:`SVC`, ``SVR``, ``NuSVR``),
    one per C of the increasing ``Cs``, each started from the one before, with the
    kernel column caches kept across the path (see :func:`dualsvm.c_path`); a
    generator."""
    estimator = clone(estimator)
    estimator._validate_params()
    if callable(estimator.kernel):
        raise ValueError("a path over C takes a kernel by name, not a callable kernel: pass "
                         "kernel='precomputed' and the kernel matrix")
    if isinstance(estimator, SVC):
        kernel_solver(estimator.solver, estimator.loss, estimator.shrinking)
        KernelTraining.of(estimator.get_params(deep=False))
    X, y, unit_cost = estimator._training_inputs(X, y, sample_weight)
    names = getattr(estimator, "feature_names_in_", None)
    for fit in kernel_path(X, y, unit_cost, estimator.get_params(deep=False), Cs,
                           estimator._kind):
        model = clone(estimator).set_params(C=fit.params["C"])
        model._take_fit(fit)
        if names is not None:
            model.feature_names_in_ = names
        yield model


#: The parameters every member shares with SVC (kernel, SMO, our extras).
KERNEL_PARAMETERS = {name: SVC._parameter_constraints[name] for name in (
    "kernel", "degree", "gamma", "coef0", "tol", "cache_size", "shrinking", "max_iter",
    "time_limit", "callback", "verbose")}
NU_CONSTRAINT = [Interval(Real, 0.0, 1.0, closed="right")]


class NuSVC(SVC):
    """Nu-support vector classification (LIBSVM ``-s 1``) trained by SMO.

    For each pair of classes, solves LIBSVM's unscaled problem
    min 1/2 ||f||^2 - S rho + sum_i W_i max(0, rho - y_i (f(x_i) + b)),
    S = nu sum_i W_i, in the dual min 1/2 a'Q a, 0 <= a_i <= W_i, y'a = 0, e'a = S
    (:class:`dualsvm.problems.kernel.NuDual`), then scales the model by 1 / rho as LIBSVM
    does (it is then the C-SVC model with C = 1 / rho). ``primal_``, ``dual_`` and
    ``gap_`` are those of the unscaled problem. W_i = class_weight[y_i] *
    sample_weight_i (LIBSVM has no weights: W_i = 1).

    Parameters
    ----------
    nu : float, default=0.5
        In (0, 1]; for each pair of classes nu * n / 2 must not exceed the size of
        the smaller class (with weights, its weight), else the error
        'specified nu is infeasible' (LIBSVM's ``-n``).
    kernel, degree, gamma, coef0, shrinking, tol, cache_size, class_weight,
    verbose, max_iter, decision_function_shape, probability, break_ties, random_state,
    time_limit, callback
        As :class:`dualsvm.SVC` (``probability``: LIBSVM's ``-b 1`` for nu-SVC, each
        pair's sigmoid fitted on decision values of nu-SVC models trained on 4/5 of
        its rows; nu must be feasible on those too).

    Attributes
    ----------
    As :class:`dualsvm.SVC`.
    """

    _kind = "nu_svc"
    _parameter_constraints = {
        **KERNEL_PARAMETERS,
        "nu": NU_CONSTRAINT,
        "class_weight": SVC._parameter_constraints["class_weight"],
        "decision_function_shape": SVC._parameter_constraints["decision_function_shape"],
        "random_state": SVC._parameter_constraints["random_state"],
        "probability": SVC._parameter_constraints["probability"],
        "break_ties": SVC._parameter_constraints["break_ties"],
    }

    def __init__(self, *, nu=0.5, kernel="rbf", degree=3, gamma="scale", coef0=0.0,
                 shrinking=True, tol=1e-3, cache_size=200, class_weight=None, verbose=0,
                 max_iter=-1, decision_function_shape="ovr", probability=False,
                 break_ties=False, random_state=None, time_limit=None, callback=None):
        self.nu = nu
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.probability = probability
        self.break_ties = break_ties
        self.random_state = random_state
        self.time_limit = time_limit
        self.callback = callback

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit one binary nu-SVC per pair of classes (with ``probability``, and Platt's
        sigmoid of each from 5-fold cross-validated nu-SVC decisions, LIBSVM's -b 1).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data; for kernel='precomputed', the (n_samples, n_samples) kernel matrix.
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample weights (the bounds W_i); a weight <= 0 leaves a sample out.

        Returns
        -------
        self
        """
        X, y, weight = self._training_inputs(X, y, sample_weight)
        return self._take_fit(fit_kernel(X, y, weight, self._training_params(), self._kind))
