"""scikit-learn estimators: validation and multi-class around the binary solvers."""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, _fit_context
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils import compute_class_weight
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, validate_data

from .training import fit_linear


class LinearSVC(LinearClassifierMixin, BaseEstimator):
    """Linear support vector classifier trained by dual coordinate descent.

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
        lie within [-tol, tol] and span at most tol.
    gap_tol : float or None, default=None
        Also stop once the relative duality gap (P - D) / P is at most this.
    max_iter : int, default=1000
        Maximum number of epochs (passes over the active variables).
    time_limit : float or None, default=None
        Seconds after which training stops with the current model.
    shrinking : bool, default=True
        Drop variables stuck at a bound from the epochs (LIBLINEAR's rule).
    shuffle : bool, default=True
        Visit variables in a new random order each epoch; False is cyclic order.
    random_state : int, RandomState instance or None, default=None
        Seeds the epoch order.
    class_weight : dict, 'balanced' or None, default=None
        Multiplies C per class.
    warm_start : bool, default=False
        Start from the previous fit's dual variables when the data shape agrees.
    callback : callable or None, default=None
        Called after every epoch with a dict (epoch, seconds, primal, dual, gap,
        violation, active_size); returning True stops training.
    verbose : int, default=0
        0: silent; 1: a progress bar; 2: a trace line at epochs 1-10, 20, 30, ...,
        100, 200, ... and the last; 3: a trace line for every epoch (on stderr).
    monitor : bool or None, default=None
        Compute the primal and dual objectives and the duality gap after every
        epoch (one extra pass over the data each). None: only when ``verbose``,
        ``callback`` or ``gap_tol`` needs them. The final model always carries
        its exact certificate (``primal_``, ``dual_``, ``gap_``).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    alpha_ : ndarray of shape (n_problems, n_samples)
        Dual variables of each binary problem, in training-row order.
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
        (the stopping rule's measure) and active_size.
    """

    _parameter_constraints = {
        "C": [Interval(Real, 0.0, None, closed="neither")],
        "loss": [StrOptions({"hinge", "squared_hinge"})],
        "fit_intercept": ["boolean"],
        "intercept_mode": [StrOptions({"augmented", "exact"})],
        "intercept_scaling": [Interval(Real, 0.0, None, closed="neither")],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
        "gap_tol": [Interval(Real, 0.0, None, closed="neither"), None],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "time_limit": [Interval(Real, 0.0, None, closed="left"), None],
        "shrinking": ["boolean"],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "warm_start": ["boolean"],
        "callback": [callable, None],
        "verbose": ["verbose"],
        "monitor": ["boolean", None],
    }

    def __init__(self, C=1.0, *, loss="squared_hinge", fit_intercept=True,
                 intercept_mode="augmented", intercept_scaling=1.0, tol=1e-4, gap_tol=None,
                 max_iter=1000, time_limit=None, shrinking=True, shuffle=True,
                 random_state=None, class_weight=None, warm_start=False, callback=None,
                 verbose=0, monitor=None):
        self.C = C
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.intercept_mode = intercept_mode
        self.intercept_scaling = intercept_scaling
        self.tol = tol
        self.gap_tol = gap_tol
        self.max_iter = max_iter
        self.time_limit = time_limit
        self.shrinking = shrinking
        self.shuffle = shuffle
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.callback = callback
        self.verbose = verbose
        self.monitor = monitor

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None, sample_weight=None, **outofcore):
        """Fit the model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features), or DiskDataset
            Training data; sparse input is used as CSR without densifying. A
            :class:`dualsvm.outofcore.DiskDataset` (binary labels inside, ``y``
            None) is trained out of core by
            :func:`dualsvm.outofcore.fit_linear_disk`.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample multipliers of C.
        **outofcore : dict
            With a DiskDataset only: ``method`` ('dcl', 'bm' or 'sbm'), ``memory``
            (MB for rows in memory), ``checkpoint``, ``resume``, ...

        Returns
        -------
        self
        """
        from .outofcore.format import DiskDataset

        if isinstance(X, DiskDataset):
            from .outofcore.fit import fit_linear_disk

            if y is not None or sample_weight is not None:
                raise ValueError("a DiskDataset holds its labels: pass y=None and no sample_weight")
            self.n_features_in_ = X.n_features
            return self._store(fit_linear_disk(X, self.get_params(deep=False), **outofcore))
        if outofcore:
            raise TypeError(f"fit() got unexpected keyword arguments {sorted(outofcore)} "
                            "(they apply to a DiskDataset only)")
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64,
                             order="C")
        X = _canonical(X)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if len(self.classes_) < 2:
            raise ValueError("This solver needs samples of at least 2 classes in the data, "
                             f"but the data contains only one class: {self.classes_[0]!r}")
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64,
                                             ensure_non_negative=True)
        class_weight = compute_class_weight(self.class_weight, classes=self.classes_, y=y)
        cost = self.C * class_weight[np.searchsorted(self.classes_, y)] * sample_weight

        n_problems = 1 if len(self.classes_) == 2 else len(self.classes_)
        return self._store(fit_linear(X, y, cost, self.get_params(deep=False),
                                      warm_alpha=self._warm_alpha(n_problems, X.shape[0])))

    def _store(self, fit):
        """Take the fitted attributes of a training.LinearFit; warn unless converged."""
        for name, value in fit.fitted_attributes().items():
            setattr(self, name, value)
        if fit.early_stop():
            warnings.warn(f"{fit.early_stop()} Increase max_iter or time_limit, or loosen tol.",
                          ConvergenceWarning, stacklevel=4)
        return self

    def _warm_alpha(self, n_problems, n_samples):
        if self.warm_start and getattr(self, "alpha_", None) is not None:
            if self.alpha_.shape == (n_problems, n_samples):
                return self.alpha_
        return None

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


def _canonical(X):
    """CSR with sorted, unique column indices (pairwise row products need them)."""
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X
