"""Fitted models as plain data: what training produces and model files hold.

:class:`LinearFit`, :class:`LinearSVRFit`, :class:`LinearOneClassFit` and
:class:`KernelFit` carry the fitted attributes of :class:`dualsvm.LinearSVC`,
:class:`dualsvm.LinearSVR`, :class:`dualsvm.LinearOneClassSVM` and
:class:`dualsvm.SVC` under the same names (ending
in ``_``) and ``params``, the estimator parameters they were trained with. They
need NumPy only, so the command line trains, saves and reports without
scikit-learn; the estimators are built from them by ``from_fit``.

Kernel layout (LIBSVM's and scikit-learn's): classes in sorted order; the pairs
(i, j), i < j, in the order (0, 1), (0, 2), ..., (1, 2), ... (:func:`class_pairs`);
in pair (i, j) class i is the positive one; support vectors grouped by class, in
row order within a class; ``dual_coef_`` (n_classes - 1, n_SV) holds y_t alpha_t
of SV t (of class c) for the pair (c, o) in row o if o < c, else row o - 1; the
decision value of pair p is sum_t coef_pt K(x_t, x) + intercept_p (LIBSVM's
-rho), positive for class i.
"""

from dataclasses import dataclass, field, replace

import numpy as np

from ..constants import CLASSIFIER_TYPES, EARLY_STOPS
from ..kernels.clustering import KernelClusters
from .probability import class_probabilities, one_class_probability


#: Largest dense layout of its support vectors (8 n_SV n_features bytes) that a
#: KernelFit keeps between predictions.
KEPT_TILE_BYTES = 64 * 2**20


def early_stop_message(statuses, gaps):
    """None when every problem converged, else why training stopped, as a sentence."""
    stopped = {s for s in statuses if s in EARLY_STOPS}
    if not stopped:
        return None
    return (f"Training stopped before convergence ({', '.join(sorted(stopped))}); the "
            f"largest relative duality gap is {max(gaps):.3g}.")


class _Fit:
    def early_stop(self):
        """None when every problem converged, else why training stopped, as a sentence."""
        return early_stop_message(self.status_, self.gap_)

    def fitted_attributes(self):
        """The fitted attributes (names ending in ``_``) as a dict."""
        return {name: value for name, value in vars(self).items() if name.endswith("_")}


@dataclass(kw_only=True)
class _LinearCertificate(_Fit):
    """What every linear fit carries besides its weights: the dual variables, the
    epochs run, the certificate (one entry per binary problem) and the feature names."""

    alpha_: np.ndarray = None
    n_iter_: int = None
    primal_: np.ndarray = None
    dual_: np.ndarray = None
    gap_: np.ndarray = None
    status_: list = None
    history_: list = None
    feature_names_in_: np.ndarray = None


@dataclass
class LinearFit(_LinearCertificate):
    """A fitted linear model: what :class:`dualsvm.LinearSVC` stores after ``fit``.

    One binary problem for two classes (it decides for ``classes_[1]``), else one
    per class (one-vs-rest). ``n_iter_`` is the largest number of epochs run.
    """

    params: dict
    classes_: np.ndarray
    coef_: np.ndarray
    intercept_: np.ndarray
    n_samples_seen_: int = 0
    lambda_: float = float("nan")
    t_: np.ndarray = None

    @property
    def n_features_in_(self):
        return self.coef_.shape[1]


@dataclass
class LinearSVRFit(_LinearCertificate):
    """A fitted linear regression model: what :class:`dualsvm.LinearSVR` stores.

    ``coef_`` (n_features,) and ``intercept_`` (1,), as scikit-learn's LinearSVR;
    the certificate (``primal_``, ``dual_``, ``gap_``, ``status_``) has one entry,
    like a LinearFit of two classes; ``alpha_`` holds beta (n_samples,).
    """

    params: dict
    coef_: np.ndarray
    intercept_: np.ndarray

    @property
    def n_features_in_(self):
        return self.coef_.shape[0]


@dataclass
class LinearOneClassFit(_LinearCertificate):
    """A fitted linear one-class SVM: what :class:`dualsvm.LinearOneClassSVM` stores.

    ``coef_`` (1, n_features) is w and ``offset_`` (1,) is rho (LIBLINEAR's ``-s 21``
    model): the decision is x'w - rho, +1 (inlier) where it is > 0. One
    certificate entry; ``alpha_`` (n_samples,) holds the dual variables.
    """

    params: dict
    coef_: np.ndarray
    offset_: np.ndarray

    @property
    def n_features_in_(self):
        return self.coef_.shape[1]


@dataclass
class ClusterModels:
    """Early prediction's models of one pair of classes (``SVC(solver='dc',
    early_stop_level=l)``): the models of the parts of level l, one per cluster.

    A row x is decided by the model of its nearest cluster c = ``clusters.assign(x)``:
    sum over the support vectors t of cluster c of coef_t K(x_t, x) + ``intercepts[c]``,
    coef_t the pair's coefficient of t (as in the whole model's layout).

    Attributes
    ----------
    level : int
        The level the models come from (k**level clusters).
    clusters : KernelClusters
        The level's kernel k-means (its sample's points, or for the precomputed
        kernel its training rows).
    sv_part : ndarray of int64, shape (n_SV,)
        The cluster of every support vector of the fit (-1: not one of this pair's).
    intercepts : ndarray of shape (n_clusters,)
        The bias of every cluster's model.
    """

    level: int
    clusters: KernelClusters
    sv_part: np.ndarray
    intercepts: np.ndarray


@dataclass
class KernelFit(_Fit):
    """A fitted kernel model: what :class:`dualsvm.SVC` stores after ``fit``.

    ``dual_coef_`` and ``intercept_`` here have LIBSVM's signs (class i of pair
    (i, j) positive); SVC flips them for two classes, as scikit-learn does.

    ``kind`` is the LIBSVM model (:data:`dualsvm.constants.SVM_TYPES`): C-SVC and
    nu-SVC models have the one-vs-one layout above (nu-SVC's coefficients scaled
    as LIBSVM scales them); one-class and regression models are one function
    f(x) = sum_t dual_coef_[0, t] K(x_t, x) + intercept_[0], with ``classes_``
    empty, ``n_support_`` = [n_SV] and support vectors in row order.
    """

    params: dict
    kernel: object  # the dualsvm.kernels.Kernel, gamma resolved
    classes_: np.ndarray
    support_: np.ndarray
    support_vectors_: object
    n_support_: np.ndarray
    dual_coef_: np.ndarray
    intercept_: np.ndarray
    n_features_in_: int = 0
    n_iter_: np.ndarray = None
    primal_: np.ndarray = None
    dual_: np.ndarray = None
    gap_: np.ndarray = None
    status_: list = field(default_factory=list)
    history_: list = field(default_factory=list)
    kind: str = "c_svc"
    probA_: np.ndarray = None  # Platt's sigmoid of every pair (probability=True), LIBSVM's signs;
    probB_: np.ndarray = None  # regression: probA_ = [sigma] of LIBSVM's Laplace error model
    prob_density_marks_: np.ndarray = None  # one-class, probability=True: LIBSVM's 10 marks
    solver_used_: str = ""  # the solver that trained it ('smo', 'ws'; '' when not known)
    solver_reason_: str = ""  # why that solver ('requested', or auto's rule and numbers)
    # early prediction (solver='dc', early_stop_level): a ClusterModels per pair (None for a
    # pair trained to the end), which decide instead of dual_coef_ and intercept_
    cluster_models_: list = None
    # classifiers: classes_ in the order of LIBSVM's model (libsvm_label_order of the
    # training labels), which svm-predict -b 1 and LIBSVM model files use; None: not known
    libsvm_labels: np.ndarray = None

    @property
    def classifies(self):
        """Whether the model is a one-vs-one classifier (C-SVC, nu-SVC)."""
        return self.kind in CLASSIFIER_TYPES

    def decision_ovo(self, X):
        """LIBSVM's decision values, (n, n_pairs) (one column for one-class and
        regression models); X as in training (for 'precomputed': the (n, n_train)
        kernel against the training rows)."""
        coef, tiles = self._prediction_terms()
        if self.cluster_models_ is not None:
            return np.column_stack([
                self._decision(X, coef[:, [p]], self.intercept_[[p]], tiles)[:, 0]
                if local is None else self._local_decision(X, coef[:, p], local)
                for p, local in enumerate(self.cluster_models_)])
        return self._decision(X, coef, self.intercept_, tiles)

    def _decision(self, X, coef, intercept, tiles):
        """K(X, support vectors) @ coef + intercept, one column a pair."""
        if self.kernel.name == "precomputed":
            K = X[:, self.support_]
            K = K.toarray() if hasattr(K, "toarray") else np.asarray(K)
            return K @ coef + intercept
        # by tiles of rows, the kernel values never stored (memory O(n n_pairs))
        return self.kernel.times(X, self.support_vectors_, coef, tiles) + intercept

    def _prediction_terms(self):
        """(coefficients (n_SV, n_pairs), the support vectors' kernel tiles or None),
        made at the first prediction and kept: laying the support vectors out again
        for every call would cost a call of a few rows more than its kernel values.
        The tiles are kept up to :data:`KEPT_TILE_BYTES`, else made at every call."""
        terms = self.__dict__.get("_terms")
        if terms is None:
            coef = np.ascontiguousarray(
                (pair_coefficients(self.dual_coef_, self.n_support_) if self.classifies
                 else self.dual_coef_).T, dtype=np.float64)
            tiles = None
            if self.kernel.name != "precomputed" and \
                    8 * np.prod(self.support_vectors_.shape) <= KEPT_TILE_BYTES:
                tiles = self.kernel.tiles(self.support_vectors_)
            terms = self._terms = (coef, tiles)
        return terms

    def __getstate__(self):  # what predictions keep is made again, not pickled
        state = dict(self.__dict__)
        state.pop("_terms", None)
        return state

    def _local_decision(self, X, coef, local):
        """One pair's decisions by early prediction: each row by its nearest cluster's
        model (see :class:`ClusterModels`)."""
        nearest = local.clusters.assign(X)
        out = np.empty(X.shape[0])
        for c in np.unique(nearest):
            rows = np.flatnonzero(nearest == c)
            sv = np.flatnonzero(local.sv_part == c)
            if self.kernel.name == "precomputed":
                K = X[rows][:, self.support_[sv]]
                K = K.toarray() if hasattr(K, "toarray") else np.asarray(K)
                out[rows] = K @ coef[sv]
            elif len(sv):
                out[rows] = self.kernel.times(X[rows], self.support_vectors_[sv], coef[sv])[:, 0]
            else:
                out[rows] = 0.0
            out[rows] += local.intercepts[c]
        return out

    @property
    def has_probabilities(self):
        """Whether :meth:`predict_proba` works: a classifier with its sigmoids, or a
        one-class model with its density marks."""
        if self.kind == "one_class":
            return self.prob_density_marks_ is not None
        return self.classifies and self.probA_ is not None

    def predict_proba(self, X):
        """LIBSVM's ``-b 1`` probabilities (:mod:`dualsvm.training.probability`): (n, n_classes),
        each pair's sigmoid of its decision value coupled over the pairs; one-class:
        (n, 2), the columns P(-1) and P(+1) (the labels sorted), P(+1) from the
        density marks."""
        if not (self.classifies or self.kind == "one_class"):
            raise ValueError("probability estimates are class probabilities: this is a "
                             f"{self.kind} model")
        if not self.has_probabilities:
            raise ValueError("the model has no probability estimates: it was trained "
                             "without probability=True, or interrupted before its "
                             "cross-validation ended, or (one-class) it had too few "
                             "decision values on either side of 0 for density marks")
        if self.kind == "one_class":
            inlier = one_class_probability(self.decision_ovo(X)[:, 0], self.prob_density_marks_)
            return np.column_stack([1.0 - inlier, inlier])
        return class_probabilities(self.decision_ovo(X), self.probA_, self.probB_,
                                   len(self.classes_))

    def libsvm_order(self):
        """Indices into ``classes_`` in the order of LIBSVM's model (``libsvm_labels``,
        or when it is not known :func:`libsvm_label_order` of ``classes_``)."""
        labels = self.libsvm_labels if self.libsvm_labels is not None \
            else libsvm_label_order(self.classes_)
        return np.searchsorted(self.classes_, labels)

    def predict(self, X, tie_order=None):
        """One-vs-one votes as LIBSVM counts them (ties: the first class of ``classes_``,
        or of ``classes_[tie_order]``: LIBSVM's is :meth:`libsvm_order`); regression:
        f(x); one-class: +1 where f(x) > 0, else -1 (LIBSVM's)."""
        dec = self.decision_ovo(X)
        if self.kind == "one_class":
            return np.where(dec[:, 0] > 0, 1, -1)
        if not self.classifies:
            return dec[:, 0]
        k = len(self.classes_)
        votes = np.zeros((dec.shape[0], k), dtype=np.int64)
        for p, (i, j) in enumerate(class_pairs(k)):
            positive = dec[:, p] > 0
            votes[:, i] += positive
            votes[:, j] += ~positive
        order = np.arange(k) if tie_order is None else np.asarray(tie_order)
        return self.classes_[order[np.argmax(votes[:, order], axis=1)]]


def class_pairs(n_classes):
    """The one-vs-one pairs in LIBSVM's order."""
    return [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]


def pair_coefficients(dual_coef, n_support):
    """(n_pairs, n_SV): the coefficient of every SV in every pair's decision."""
    k = len(n_support)
    start = np.concatenate([[0], np.cumsum(n_support)])
    out = np.zeros((len(class_pairs(k)), dual_coef.shape[1]))
    for p, (i, j) in enumerate(class_pairs(k)):
        out[p, start[i]:start[i + 1]] = dual_coef[j - 1, start[i]:start[i + 1]]
        out[p, start[j]:start[j + 1]] = dual_coef[i, start[j]:start[j + 1]]
    return out


def one_vs_one_layout(pair_coef, n_support):
    """LIBSVM's dual_coef_ (n_classes - 1, n_SV) from every pair's coefficients over
    the support vectors grouped by class (n_pairs, n_SV): pair (i, j) puts class i's
    in row j - 1, class j's in row i (the inverse of :func:`pair_coefficients`)."""
    start = np.concatenate([[0], np.cumsum(n_support)])
    dual_coef = np.zeros((max(len(n_support) - 1, 1), pair_coef.shape[1]))
    for p, (i, j) in enumerate(class_pairs(len(n_support))):
        dual_coef[j - 1, start[i]:start[i + 1]] = pair_coef[p, start[i]:start[i + 1]]
        dual_coef[i, start[j]:start[j + 1]] = pair_coef[p, start[j]:start[j + 1]]
    return dual_coef


def dual_coefficients(rows, coef, labels, intercept, n_classes, one_vs_one=True):
    """(support, dual_coef, n_support) in LIBSVM's layout from the trained tasks.

    Parameters
    ----------
    rows, coef, labels : lists of ndarray, one of each per task
        The task's row numbers, their coefficients and their class index.
    intercept : ndarray
        The tasks' intercepts (checked finite).
    n_classes : int
    one_vs_one : bool
        The tasks are the pairs of classes (:func:`class_pairs`; laid out by
        :func:`one_vs_one_layout`), else dual_coef_ has a row per task.

    Returns
    -------
    support : the rows with a coefficient, grouped by class, in row order within one
    dual_coef : ndarray of shape (n_classes - 1 or n_tasks, n_SV)
    n_support : ndarray, SVs per class (one-vs-one), else [n_SV]

    Raises ValueError when a coefficient or intercept is not finite.
    """
    all_rows, all_coef = np.concatenate(rows), np.concatenate(coef)
    nonzero = all_coef != 0
    by_row, first = np.unique(all_rows[nonzero], return_index=True)
    label = np.concatenate(labels)[nonzero][first]
    order = np.argsort(label, kind="stable")  # grouped by class
    column = np.empty(len(order), dtype=np.int64)
    column[order] = np.arange(len(order))
    task_coef = np.zeros((len(rows), len(order)))
    for p, (r, c) in enumerate(zip(rows, coef)):
        held = c != 0
        task_coef[p, column[np.searchsorted(by_row, r[held])]] = c[held]
    if one_vs_one:
        n_support = np.bincount(label, minlength=n_classes)
        dual_coef = one_vs_one_layout(task_coef, n_support)
    else:
        n_support = np.array([len(order)])
        dual_coef = task_coef
    if not (np.isfinite(dual_coef).all() and np.isfinite(intercept).all()):
        raise ValueError("The dual coefficients or intercepts are not finite: the data may "
                         "hold values too large for the kernel (the squared distances or "
                         "products overflow); scale it, e.g. with StandardScaler")
    return by_row[order], dual_coef, n_support


def libsvm_label_order(y):
    """The distinct labels of ``y`` in the order LIBSVM's model keeps them
    (``svm_group_classes``): of first appearance, except that two classes -1 and +1
    are ordered +1, -1 (its binary model then decides for +1)."""
    y = np.asarray(y)
    _, first = np.unique(y, return_index=True)
    labels = y[np.sort(first)]
    if len(labels) == 2 and labels[0] == -1 and labels[1] == 1:
        labels = labels[::-1]
    return labels


def reorder_classes(fit, order):
    """The same one-vs-one model with its classes in another order: ``classes_[order]``.

    The support vectors are regrouped by class (row order kept within a class); a pair
    whose classes swap places has its decision negated: its coefficients and
    intercept change sign, and so does the B of its sigmoid (P(j | -f) = 1 - P(i | f)).
    LIBSVM's model files list the classes in its order; a KernelFit keeps them sorted.
    """
    pairs = class_pairs(len(fit.classes_))
    old_pair = {pair: p for p, pair in enumerate(pairs)}
    order = np.asarray(order, dtype=np.int64)
    swapped = np.array([order[i] > order[j] for i, j in pairs])
    source = np.array([old_pair[(min(order[i], order[j]), max(order[i], order[j]))]
                       for i, j in pairs], dtype=np.int64)
    sign = np.where(swapped, -1.0, 1.0)
    start = np.concatenate([[0], np.cumsum(fit.n_support_)])
    sv_order = np.concatenate([np.arange(start[c], start[c + 1]) for c in order])
    coef = sign[:, None] * pair_coefficients(fit.dual_coef_, fit.n_support_)[source][:, sv_order]
    n_support = np.asarray(fit.n_support_)[order]
    dual_coef = one_vs_one_layout(coef, n_support)
    sv = fit.support_vectors_
    return replace(
        fit, classes_=np.asarray(fit.classes_)[order], support_=np.asarray(fit.support_)[sv_order],
        support_vectors_=sv if fit.kernel.name == "precomputed" else sv[sv_order],
        n_support_=n_support, dual_coef_=dual_coef,
        intercept_=sign * np.asarray(fit.intercept_)[source],
        probA_=None if fit.probA_ is None else np.asarray(fit.probA_)[source],
        probB_=None if fit.probB_ is None else sign * np.asarray(fit.probB_)[source])
