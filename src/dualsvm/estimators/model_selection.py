"""Choosing C (and gamma) by cross-validation over warm-started paths.

:class:`LinearSVCCV`, :class:`LinearSVRCV`, :class:`SVCCV`, :class:`SVRCV` and
:class:`NuSVRCV` fit, on every training fold, one regularisation path over the
whole grid of C (:func:`dualsvm.estimators.regularization_path.iter_c_path`: each fit starts from the one
before), score each model on the held-out fold, and run the folds (and, for the
kernel models, the gamma values) in parallel with joblib.
``cv_results_`` has the layout of scikit-learn's search objects
(``GridSearchCV``), in the same order of candidates (C outer, gamma inner), so
ties are broken the same way: the first best, i.e. the smallest C.
"""

import time
from numbers import Integral

import numpy as np
from joblib import Parallel, delayed
from scipy.stats import rankdata
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone, is_classifier
from sklearn.metrics import check_scoring
from sklearn.model_selection import check_cv
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

# Private scikit-learn APIs with no public equivalent (scikit-learn is pinned below
# the next minor version in pyproject.toml for them): see linear_svc.py.
from sklearn.base import _fit_context  # noqa: I001
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions

from ..data.validation import check_grid, regression_data, training_data
from .linear_svc import LinearSVC
from .linear_svr import LinearSVR
from .regularization_path import iter_c_path
from .svc import SVC
from .svr import SVR, NuSVR

__all__ = ["LinearSVCCV", "LinearSVRCV", "NuSVRCV", "SVCCV", "SVRCV", "default_Cs",
           "fold_path_scores", "search_results"]

#: The parameters of a search itself; the others are the searched model's.
SEARCH_PARAMS = ("Cs", "gammas", "cv", "scoring", "refit", "n_jobs", "start")


def default_Cs(Cs, low, high):
    """The grid of C: ``Cs`` itself, or for an int, that many values log-spaced
    from 2**low to 2**high."""
    if isinstance(Cs, Integral):
        return np.logspace(low, high, int(Cs), base=2.0)
    return check_grid(Cs)


def fold_path_scores(estimator, X, y, sample_weight, train, test, Cs, scorer, start="dual"):
    """Fit the path over ``Cs`` on rows ``train`` and score every model on ``test``.

    Returns (scores, fit_seconds, score_seconds, iterations), one entry per C:
    a model's fit time is the time of its own fit on the path (warm-started).
    """
    weights = None if sample_weight is None else sample_weight[train]
    X_test, y_test = X[test], y[test]
    scores, fit_times, score_times, iterations = [], [], [], []
    path = iter_c_path(estimator, X[train], y[train], Cs, sample_weight=weights, start=start)
    clock = time.perf_counter()
    for model in path:
        fitted = time.perf_counter()
        fit_times.append(fitted - clock)
        scores.append(scorer(model, X_test, y_test))
        clock = time.perf_counter()
        score_times.append(clock - fitted)
        iterations.append(int(np.sum(model.n_iter_)))
    if len(scores) < len(Cs):  # Ctrl-C inside the path
        raise KeyboardInterrupt
    return np.array(scores), np.array(fit_times), np.array(score_times), np.array(iterations)


def search_results(candidates, scores, fit_times, score_times, iterations=None):
    """``cv_results_`` as scikit-learn's search objects build it.

    ``candidates``: list of parameter dicts; ``scores`` etc.: (n_splits,
    n_candidates) arrays. ``rank_test_score`` ranks by mean score ('min' ties,
    as scikit-learn does).
    """
    results = {}
    for name in candidates[0]:
        values = [c[name] for c in candidates]
        results[f"param_{name}"] = np.ma.MaskedArray(values, mask=False, dtype=object)
    results["params"] = candidates
    for k, row in enumerate(scores):
        results[f"split{k}_test_score"] = row
    results["mean_test_score"] = scores.mean(axis=0)
    results["std_test_score"] = scores.std(axis=0)
    mean = np.where(np.isnan(results["mean_test_score"]), -np.inf, results["mean_test_score"])
    results["rank_test_score"] = rankdata(-mean, method="min").astype(np.int32)
    results["mean_fit_time"] = fit_times.mean(axis=0)
    results["std_fit_time"] = fit_times.std(axis=0)
    results["mean_score_time"] = score_times.mean(axis=0)
    results["std_score_time"] = score_times.std(axis=0)
    if iterations is not None:
        results["mean_n_iter"] = iterations.mean(axis=0)
    return results


def _refitted(search):
    return search.refit


class _PathSearch:
    """What the searches share: the folds, the parallel paths, the results, refit.
    ``_model``: the class of the searched model, built from the search's other
    parameters (:meth:`_base`)."""

    #: The refitted model's attributes the search carries too (``refit=True``).
    _refitted_attributes = ("n_iter_", "primal_", "dual_", "gap_", "status_")

    def _base(self):
        params = self.get_params(deep=False)
        return self._model(**{k: v for k, v in params.items() if k not in SEARCH_PARAMS})

    def _search(self, X, y, sample_weight, base, grids):
        """Cross-validate the paths ``grids`` = [(fixed params, Cs)]; set the results.
        Classifiers' folds are stratified (``cv`` an int or None), as scikit-learn's."""
        classifier = is_classifier(self)
        X, y = training_data(self, X, y)[:2] if classifier else regression_data(self, X, y)
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight, dtype=np.float64)
        splits = list(check_cv(self.cv, y, classifier=classifier).split(X, y))
        scorer = check_scoring(base, scoring=self.scoring)
        jobs = [(g, k) for k in range(len(splits)) for g in range(len(grids))]
        outcomes = Parallel(n_jobs=self.n_jobs)(
            delayed(fold_path_scores)(clone(base).set_params(**grids[g][0]), X, y,
                                      sample_weight, *splits[k], grids[g][1], scorer,
                                      **self._path_options())
            for g, k in jobs)
        Cs = grids[0][1]
        n_candidates = len(Cs) * len(grids)
        tables = np.zeros((4, len(splits), n_candidates))
        for (g, k), outcome in zip(jobs, outcomes):
            # candidate order as scikit-learn's ParameterGrid: C outer, the rest inner
            tables[:, k, g::len(grids)] = outcome
        candidates = [{"C": float(C), **fixed} for C in Cs for fixed, _ in grids]
        self.cv_results_ = search_results(candidates, *tables)
        self.best_index_ = int(np.argmin(self.cv_results_["rank_test_score"]))
        self.best_score_ = float(self.cv_results_["mean_test_score"][self.best_index_])
        self.best_params_ = candidates[self.best_index_]
        self.C_ = self.best_params_["C"]
        self.n_splits_ = len(splits)
        self.scorer_ = scorer
        if classifier:
            self.classes_ = np.unique(y)
        if self.refit:
            start = time.perf_counter()
            self.best_estimator_ = clone(base).set_params(**self.best_params_).fit(
                X, y, sample_weight=sample_weight)
            self.refit_time_ = time.perf_counter() - start
            for name in self._refitted_attributes:
                setattr(self, name, getattr(self.best_estimator_, name))
        return X, y

    def _path_options(self):
        return {}

    @available_if(_refitted)
    def predict(self, X):
        """The refitted model's predictions."""
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class LinearSVCCV(_PathSearch, LinearClassifierMixin, BaseEstimator):
    """LinearSVC with C chosen by k-fold cross-validation over warm-started paths.

    On every training fold, the whole grid of C is fitted as one path
    (:func:`dualsvm.c_path`: each fit starts from the previous dual variables
    scaled to the new C), each model is scored on the held-out fold, and the
    folds run in parallel (joblib). The C of the best mean score (the smallest
    of equal ones) is refitted on all the data.

    Parameters
    ----------
    Cs : int or array-like, default=21
        The grid of C: an int n gives n values log-spaced from 2**-10 to 2**10;
        else the increasing values themselves.
    cv : int, cross-validation generator or iterable, default=None
        As scikit-learn's ``cv``: None is 5-fold, an int k is stratified k-fold
        (without shuffling), or the splitter / (train, test) index pairs.
    scoring : str, callable or None, default=None
        A scikit-learn scoring name or scorer (``sklearn.metrics.check_scoring``);
        None: accuracy.
    refit : bool, default=True
        Refit the best C on all the data; ``predict`` and the fitted model's
        attributes need it.
    n_jobs : int or None, default=None
        Folds trained in parallel (joblib; -1: all cores).
    start : {'dual', 'primal', 'best'}, default='dual'
        How each fit of a path starts from the previous one (see
        :func:`dualsvm.c_path`).
    penalty, loss, dual, solver, fit_intercept, intercept_mode, intercept_scaling, tol, \
gap_tol, max_iter, shrinking, class_weight, random_state
        As :class:`LinearSVC`'s. ``gap_tol`` also ends each fit of a path once its
        certificate's relative gap is at most this (checked every two passes' worth of
        epochs), which stops the fits at large C that LIBLINEAR's ``tol`` rule keeps
        running to ``max_iter``.

    Attributes
    ----------
    C_ : float
        The chosen C.
    cv_results_ : dict of ndarray
        As scikit-learn's ``GridSearchCV.cv_results_`` (``params``, ``param_C``,
        ``split{k}_test_score``, ``mean_test_score``, ``std_test_score``,
        ``rank_test_score``, ``mean_fit_time``, ``std_fit_time``,
        ``mean_score_time``, ``std_score_time``), plus ``mean_n_iter`` (epochs).
        A fit time is that of the warm-started fit on its path.
    best_index_, best_score_, best_params_, n_splits_, scorer_, refit_time_
        As GridSearchCV's.
    best_estimator_ : LinearSVC
        The model refitted at ``C_`` on all the data (``refit=True``).
    classes_, coef_, intercept_, primal_, dual_, gap_, n_iter_, status_
        Those of ``best_estimator_`` (``refit=True``; ``classes_`` always).
    """

    _parameter_constraints = {
        "Cs": [Interval(Integral, 1, None, closed="left"), "array-like"],
        "cv": ["cv_object"],
        "scoring": [str, callable, None],
        "refit": ["boolean"],
        "n_jobs": [Integral, None],
        "start": [StrOptions({"dual", "primal", "best"})],
        **{name: LinearSVC._parameter_constraints[name] for name in (
            "penalty", "loss", "dual", "solver", "fit_intercept", "intercept_mode",
            "intercept_scaling", "tol", "gap_tol", "max_iter", "shrinking", "class_weight",
            "random_state")},
    }

    def __init__(self, Cs=21, *, cv=None, scoring=None, refit=True, n_jobs=None, start="dual",
                 penalty="l2", loss="squared_hinge", dual="auto", solver="dcd",
                 fit_intercept=True, intercept_mode="augmented", intercept_scaling=1.0,
                 tol=1e-4, gap_tol=None, max_iter=1000, shrinking=True, class_weight=None,
                 random_state=None):
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.n_jobs = n_jobs
        self.start = start
        self.penalty = penalty
        self.loss = loss
        self.dual = dual
        self.solver = solver
        self.fit_intercept = fit_intercept
        self.intercept_mode = intercept_mode
        self.intercept_scaling = intercept_scaling
        self.tol = tol
        self.gap_tol = gap_tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.class_weight = class_weight
        self.random_state = random_state

    _model = LinearSVC
    _refitted_attributes = ("coef_", "intercept_", "alpha_", "history_",
                            *_PathSearch._refitted_attributes)

    def _path_options(self):
        return {"start": self.start}

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Choose C by cross-validation, then (``refit``) fit it on all the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample multipliers of C (in every training fold and the refit).

        Returns
        -------
        self
        """
        self._search(X, y, sample_weight, self._base(), [({}, default_Cs(self.Cs, -10, 10))])
        return self

    @available_if(_refitted)
    def decision_function(self, X):
        """The refitted model's decision function (see :meth:`LinearSVC.decision_function`)."""
        return super().decision_function(X)


class _KernelSearch(_PathSearch):
    """What the kernel searches share: a path over C for every gamma and fold, LIBSVM's
    grid.py range of C (2**-5 to 2**15), the refitted model's certificate."""

    def _gammas(self):
        gammas = ["scale"] if self.gammas is None else list(self.gammas)
        if not gammas:
            raise ValueError("gammas must hold at least one value")
        for gamma in gammas:
            self._model(gamma=gamma)._validate_params()  # the model's own check and message
        if len(gammas) != len({repr(g) for g in gammas}):
            raise ValueError(f"gammas has repeated values: {gammas!r}")
        return gammas

    def _kernel_search(self, X, y, sample_weight):
        if self.kernel == "precomputed":
            raise ValueError(f"{type(self).__name__} does not take kernel='precomputed' (its "
                             "folds would need the kernel matrix cut by rows and columns); "
                             "search C with dualsvm.c_path on each fold's kernel matrix instead")
        Cs = default_Cs(self.Cs, -5, 15)
        self._search(X, y, sample_weight, self._base(),
                     [({"gamma": gamma}, Cs) for gamma in self._gammas()])
        self.gamma_ = self.best_params_["gamma"]
        return self


class SVCCV(_KernelSearch, ClassifierMixin, BaseEstimator):
    """SVC with C and gamma chosen by k-fold cross-validation over warm-started paths.

    For every gamma and every training fold, the grid of C is fitted as one path
    (:func:`dualsvm.c_path`: each fit starts from the previous dual variables
    scaled to the new C, with the kernel column cache kept along the path);
    the (fold, gamma) paths run in parallel (joblib). The best mean score (the
    first of equal ones in scikit-learn's order: C outer, gamma inner) is
    refitted on all the data.

    Parameters
    ----------
    Cs : int or array-like, default=11
        The grid of C: an int n gives n values log-spaced from 2**-5 to 2**15
        (LIBSVM's grid.py range); else the increasing values themselves.
    gammas : array-like or None, default=None
        Values of gamma (floats > 0, 'scale' or 'auto'); None: ['scale'].
    cv, scoring, refit, n_jobs
        As :class:`LinearSVCCV`'s.
    kernel, degree, coef0, loss, solver, tol, cache_size, shrinking, class_weight, \
max_iter, decision_function_shape, random_state
        As :class:`SVC`'s.

    Attributes
    ----------
    C_, gamma_ : float, and float or str
        The chosen C and gamma (as given in ``gammas``).
    cv_results_, best_index_, best_score_, best_params_, n_splits_, scorer_, refit_time_
        As :class:`LinearSVCCV`'s, with ``param_gamma``.
    best_estimator_ : SVC
        The model refitted on all the data (``refit=True``); ``predict`` and
        ``decision_function`` are its.
    classes_ : ndarray
    n_iter_, primal_, dual_, gap_, status_
        Those of ``best_estimator_`` (``refit=True``).
    """

    _parameter_constraints = {
        "Cs": [Interval(Integral, 1, None, closed="left"), "array-like"],
        "gammas": ["array-like", None],
        "cv": ["cv_object"],
        "scoring": [str, callable, None],
        "refit": ["boolean"],
        "n_jobs": [Integral, None],
        **{name: SVC._parameter_constraints[name] for name in (
            "kernel", "degree", "coef0", "loss", "solver", "tol", "cache_size", "shrinking",
            "class_weight", "max_iter", "decision_function_shape", "random_state")},
    }

    def __init__(self, Cs=11, gammas=None, *, cv=None, scoring=None, refit=True, n_jobs=None,
                 kernel="rbf", degree=3, coef0=0.0, loss="hinge", solver="smo", tol=1e-3,
                 cache_size=200, shrinking=True, class_weight=None, max_iter=-1,
                 decision_function_shape="ovr", random_state=None):
        self.Cs = Cs
        self.gammas = gammas
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.n_jobs = n_jobs
        self.kernel = kernel
        self.degree = degree
        self.coef0 = coef0
        self.loss = loss
        self.solver = solver
        self.tol = tol
        self.cache_size = cache_size
        self.shrinking = shrinking
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.random_state = random_state

    _model = SVC

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Choose C and gamma by cross-validation, then (``refit``) fit them on all the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        return self._kernel_search(X, y, sample_weight)

    @available_if(_refitted)
    def decision_function(self, X):
        """The refitted model's decision function (see :meth:`SVC.decision_function`)."""
        check_is_fitted(self)
        return self.best_estimator_.decision_function(X)


class LinearSVRCV(_PathSearch, RegressorMixin, BaseEstimator):
    """LinearSVR with C chosen by k-fold cross-validation over warm-started paths.

    As :class:`LinearSVCCV`, for :class:`LinearSVR`: on every training fold the grid
    of C is one path (:func:`dualsvm.c_path`), each model is scored on the held-out
    fold (default: R^2, a regressor's ``score``), the folds run in parallel, and the
    C of the best mean score (the smallest of equal ones) is refitted on all the data.

    Parameters
    ----------
    Cs : int or array-like, default=21
        The grid of C: an int n gives n values log-spaced from 2**-10 to 2**10;
        else the increasing values themselves.
    cv : int, cross-validation generator or iterable, default=None
        As scikit-learn's ``cv``: None is 5-fold, an int k is k-fold (not
        stratified: the targets are real), or the splitter / (train, test) pairs.
    scoring : str, callable or None, default=None
        A scikit-learn scoring name or scorer; None: R^2.
    refit : bool, default=True
        Refit the best C on all the data; ``predict`` and the fitted model's
        attributes need it.
    n_jobs : int or None, default=None
        Folds trained in parallel (joblib; -1: all cores).
    epsilon, loss, dual, fit_intercept, intercept_scaling, tol, gap_tol, max_iter, \
shrinking, random_state
        As :class:`LinearSVR`'s.

    Attributes
    ----------
    C_ : float
        The chosen C.
    cv_results_, best_index_, best_score_, best_params_, n_splits_, scorer_, refit_time_
        As :class:`LinearSVCCV`'s.
    best_estimator_ : LinearSVR
        The model refitted at ``C_`` on all the data (``refit=True``).
    coef_, intercept_, primal_, dual_, gap_, n_iter_, status_
        Those of ``best_estimator_`` (``refit=True``).
    """

    _parameter_constraints = {
        **{name: LinearSVCCV._parameter_constraints[name]
           for name in ("Cs", "cv", "scoring", "refit", "n_jobs")},
        **{name: LinearSVR._parameter_constraints[name] for name in (
            "epsilon", "loss", "dual", "fit_intercept", "intercept_scaling", "tol", "gap_tol",
            "max_iter", "shrinking", "random_state")},
    }
    _model = LinearSVR
    _refitted_attributes = ("coef_", "intercept_", *_PathSearch._refitted_attributes)

    def __init__(self, Cs=21, *, cv=None, scoring=None, refit=True, n_jobs=None, epsilon=0.0,
                 loss="epsilon_insensitive", dual="auto", fit_intercept=True,
                 intercept_scaling=1.0, tol=1e-4, gap_tol=None, max_iter=1000, shrinking=True,
                 random_state=None):
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.n_jobs = n_jobs
        self.epsilon = epsilon
        self.loss = loss
        self.dual = dual
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.tol = tol
        self.gap_tol = gap_tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Choose C by cross-validation, then (``refit``) fit it on all the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample multipliers of C (in every training fold and the refit).

        Returns
        -------
        self
        """
        self._search(X, y, sample_weight, self._base(), [({}, default_Cs(self.Cs, -10, 10))])
        return self


class SVRCV(_KernelSearch, RegressorMixin, BaseEstimator):
    """SVR with C and gamma chosen by k-fold cross-validation over warm-started paths.

    As :class:`SVCCV`, for :class:`SVR`: for every gamma and every training fold the
    grid of C is one path (:func:`dualsvm.c_path`: each fit starts from the previous
    (a, a*) scaled to the new C, with the kernel column cache kept along the
    path), each model is scored on the held-out fold (default: R^2), the (fold,
    gamma) paths run in parallel, and the best mean score (the first of equal ones
    in scikit-learn's order: C outer, gamma inner) is refitted on all the data.

    Parameters
    ----------
    Cs : int or array-like, default=11
        The grid of C: an int n gives n values log-spaced from 2**-5 to 2**15
        (LIBSVM's grid.py range); else the increasing values themselves.
    gammas : array-like or None, default=None
        Values of gamma (floats > 0, 'scale' or 'auto'); None: ['scale'].
    cv, scoring, refit, n_jobs
        As :class:`LinearSVRCV`'s (folds not stratified; default score R^2).
    kernel, degree, coef0, epsilon, tol, cache_size, shrinking, max_iter
        As :class:`SVR`'s.

    Attributes
    ----------
    C_, gamma_ : float, and float or str
        The chosen C and gamma (as given in ``gammas``).
    cv_results_, best_index_, best_score_, best_params_, n_splits_, scorer_, refit_time_
        As :class:`LinearSVCCV`'s, with ``param_gamma``.
    best_estimator_ : SVR
        The model refitted on all the data (``refit=True``); ``predict`` is its.
    n_iter_, primal_, dual_, gap_, status_
        Those of ``best_estimator_`` (``refit=True``).
    """

    _model = SVR
    _parameter_constraints = {
        **{name: SVCCV._parameter_constraints[name]
           for name in ("Cs", "gammas", "cv", "scoring", "refit", "n_jobs")},
        **{name: SVR._parameter_constraints[name] for name in (
            "kernel", "degree", "coef0", "epsilon", "tol", "cache_size", "shrinking",
            "max_iter")},
    }

    def __init__(self, Cs=11, gammas=None, *, cv=None, scoring=None, refit=True, n_jobs=None,
                 kernel="rbf", degree=3, coef0=0.0, epsilon=0.1, tol=1e-3, cache_size=200,
                 shrinking=True, max_iter=-1):
        self.Cs = Cs
        self.gammas = gammas
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.n_jobs = n_jobs
        self.kernel = kernel
        self.degree = degree
        self.coef0 = coef0
        self.epsilon = epsilon
        self.tol = tol
        self.cache_size = cache_size
        self.shrinking = shrinking
        self.max_iter = max_iter

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Choose C and gamma by cross-validation, then (``refit``) fit them on all the data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample multipliers of C (in every training fold and the refit).

        Returns
        -------
        self
        """
        return self._kernel_search(X, y, sample_weight)


class NuSVRCV(SVRCV):
    """NuSVR with C and gamma chosen by k-fold cross-validation over warm-started paths.

    As :class:`SVRCV`, for :class:`NuSVR` (``nu`` in place of ``epsilon``); the
    path's starts keep nu-SVR's two equality constraints
    (:meth:`dualsvm.problems.kernel.KernelQP.feasible`).

    Parameters
    ----------
    Cs, gammas, cv, scoring, refit, n_jobs
        As :class:`SVRCV`'s.
    nu, kernel, degree, coef0, tol, cache_size, shrinking, max_iter
        As :class:`NuSVR`'s.

    Attributes
    ----------
    C_, gamma_, cv_results_, best_index_, best_score_, best_params_, n_splits_, \
scorer_, refit_time_, n_iter_, primal_, dual_, gap_, status_
        As :class:`SVRCV`'s.
    best_estimator_ : NuSVR
    """

    _model = NuSVR
    _parameter_constraints = {
        **{name: value for name, value in SVRCV._parameter_constraints.items()
           if name != "epsilon"},
        "nu": NuSVR._parameter_constraints["nu"],
    }

    def __init__(self, Cs=11, gammas=None, *, cv=None, scoring=None, refit=True, n_jobs=None,
                 nu=0.5, kernel="rbf", degree=3, coef0=0.0, tol=1e-3, cache_size=200,
                 shrinking=True, max_iter=-1):
        self.Cs = Cs
        self.gammas = gammas
        self.cv = cv
        self.scoring = scoring
        self.refit = refit
        self.n_jobs = n_jobs
        self.nu = nu
        self.kernel = kernel
        self.degree = degree
        self.coef0 = coef0
        self.tol = tol
        self.cache_size = cache_size
        self.shrinking = shrinking
        self.max_iter = max_iter
