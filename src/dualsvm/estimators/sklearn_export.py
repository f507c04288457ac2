"""scikit-learn's SVM objects from dualsvm's fitted models, and back.

:func:`to_sklearn` builds the scikit-learn estimator a dualsvm model stands in for,
fitted: its public constructor with the model's parameters, then the attributes its
``predict``, ``decision_function`` and ``predict_proba`` read. For the linear models
those are public (``coef_``, ``intercept_``, ``classes_``); the libsvm-based classes
(``SVC``, ``NuSVC``, ``SVR``, ``NuSVR``, ``OneClassSVM``) predict from private ones,
set here as ``sklearn/svm/_base.py`` of scikit-learn 1.6 to 1.9 sets them in ``fit``:

* ``_dual_coef_``, ``_intercept_``: LIBSVM's signs (class i of pair (i, j)
  positive), which are a :class:`~dualsvm.training.fitted.KernelFit`'s; the public
  ``dual_coef_`` and ``intercept_`` are negated for two classes;
* ``_n_support`` (int32; ``[n_SV, n_SV]`` for regression and one-class models, as
  libsvm returns it), ``support_`` (int32), ``support_vectors_``;
* ``_probA``, ``_probB`` (Platt's sigmoids, empty without probabilities),
  ``_gamma`` (resolved), ``_sparse``, ``shape_fit_``, ``fit_status_``,
  ``class_weight_``, and ``_effective_probability`` (read from 1.9 on);
* for a model trained on sparse data, ``support_vectors_`` and ``dual_coef_`` are
  CSR with every coefficient stored (libsvm's sparse predict reads
  ``dual_coef_.data`` as the dense (n_classes - 1, n_SV) array).

scikit-learn's libsvm keeps the classes sorted, as a KernelFit does, so the pairs,
the support vectors' order and the sigmoids carry over as they are; ties of votes go
to the first class in both. A model is refused (:class:`~dualsvm.exceptions.ModelError`)
when scikit-learn has no estimator computing the same function: the linear one-class
SVM (scikit-learn's ``SGDOneClassSVM`` is trained on another objective and predicts
+1 at a decision of exactly 0, LIBLINEAR's model -1), a one-class model with
probabilities (scikit-learn's ``OneClassSVM`` has no ``predict_proba``), a
callable kernel, or a scikit-learn version outside :data:`SKLEARN_VERSIONS`. Every
exported kernel model is checked once: its decision values (and probabilities) on
a few of its support vectors must equal the dualsvm model's, else it is refused.

A :class:`~dualsvm.LowRankSVC` becomes a ``Pipeline(Nystroem, LinearSVC)``
(:func:`low_rank_pipeline`) whose Nystroem step holds the model's basis and map.

The reverse, :func:`sklearn_fit`, reads a fitted scikit-learn SVM into the fit
object from which ``dualsvm.from_sklearn`` builds the dualsvm estimator.
"""

from dataclasses import replace

import numpy as np
import scipy.sparse as sp
import sklearn
from sklearn import svm

from ..constants import CLASSIFIER_TYPES
from ..exceptions import ModelError
from ..kernels import make_kernel
from ..training.fitted import KernelFit, LinearFit, LinearOneClassFit, LinearSVRFit
from ..training.low_rank import LowRankFit

#: The scikit-learn versions whose SVM internals this module sets: [first, last] minor.
SKLEARN_VERSIONS = ((1, 6), (1, 9))
#: scikit-learn's class of each kind of kernel model.
SKLEARN_KERNEL_CLASSES = {"c_svc": svm.SVC, "nu_svc": svm.NuSVC, "one_class": svm.OneClassSVM,
                          "epsilon_svr": svm.SVR, "nu_svr": svm.NuSVR}
#: Support vectors on which an exported kernel model is compared with the dualsvm one.
N_CHECKED = 16
#: Largest difference allowed in that check, relative to the largest decision value
#: (the two compute the same sums in another order: about 1e-15).
CHECK_TOLERANCE = 1e-9

#: The constructor parameters scikit-learn's classes share with the fit's ``params``.
_LINEAR_SVC_PARAMS = ("C", "loss", "penalty", "dual", "tol", "multi_class", "fit_intercept",
                      "intercept_scaling", "class_weight", "random_state", "max_iter")
_LINEAR_SVR_PARAMS = ("epsilon", "tol", "C", "loss", "fit_intercept", "intercept_scaling",
                      "dual", "random_state", "max_iter")
_KERNEL_PARAMS = ("tol", "shrinking", "cache_size", "max_iter", "C", "nu", "epsilon",
                  "class_weight", "decision_function_shape", "break_ties", "random_state")


def sklearn_version():
    """The installed scikit-learn's (major, minor)."""
    return tuple(int(part) for part in sklearn.__version__.split(".")[:2])


def check_sklearn_version():
    """Raise ModelError unless the installed scikit-learn is one this module serves."""
    first, last = SKLEARN_VERSIONS
    if not first <= sklearn_version() <= last:
        raise ModelError(
            f"scikit-learn {sklearn.__version__} is not supported by to_sklearn/from_sklearn: "
            f"they set the private attributes scikit-learn {first[0]}.{first[1]} to "
            f"{last[0]}.{last[1]} predict from; install one of those versions")


def exportable_fit(model):
    """``model.to_fit()`` of a model whose predictions are its fit's decision function,
    what every export writes (ModelError otherwise).

    Refused: a callable kernel (a model file, a scikit-learn object or an ONNX graph
    holds no Python function), and a divide-and-conquer model stopped early
    (``SVC(solver='dc', early_stop_level=l)``), which predicts every row with the model
    of its nearest cluster.
    """
    if callable(getattr(model, "kernel", None)):
        raise ModelError("a model trained with a callable kernel cannot be exported: the "
                         "function and its training samples do not leave Python; train with "
                         "kernel='precomputed' on the kernel matrix (ONNX: a kernel by name)")
    if getattr(model, "early_stop_level", None) is not None:
        raise ModelError("a model stopped early by divide and conquer (early_stop_level) "
                         "predicts each row with the model of its nearest cluster, which no "
                         "export format holds; train it to the end (early_stop_level=None)")
    return model.to_fit()


def to_sklearn(model, probability=True):
    """The fitted scikit-learn estimator computing what the fitted dualsvm ``model`` computes
    (without its probability model if ``probability`` is False).

    Raises
    ------
    ModelError
        No scikit-learn estimator computes the same function, or this scikit-learn
        version is not supported (see the module's docstring).
    sklearn.exceptions.NotFittedError
        The model is not fitted.
    """
    check_sklearn_version()
    fit = exportable_fit(model)
    if isinstance(fit, LowRankFit):
        return low_rank_pipeline(model, fit)
    if isinstance(fit, LinearOneClassFit):
        raise ModelError(
            "LinearOneClassSVM has no scikit-learn counterpart: SGDOneClassSVM is trained on "
            "another objective and predicts +1 where the decision is exactly 0 (LIBLINEAR's "
            "model: -1); export it with export_liblinear or dualsvm.onnx.to_onnx")
    if isinstance(fit, KernelFit):
        if not probability:
            fit = replace(fit, probA_=None, probB_=None, prob_density_marks_=None)
        estimator = _kernel_estimator(fit)
    elif isinstance(fit, LinearSVRFit):
        estimator = svm.LinearSVR(**_params(fit.params, _LINEAR_SVR_PARAMS))
        estimator.coef_ = np.asarray(fit.coef_, dtype=np.float64)
        estimator.intercept_ = np.asarray(fit.intercept_, dtype=np.float64)
    else:
        estimator = svm.LinearSVC(**_params(fit.params, _LINEAR_SVC_PARAMS))
        estimator.classes_ = np.asarray(fit.classes_)
        estimator.coef_ = np.asarray(fit.coef_, dtype=np.float64)
        estimator.intercept_ = np.asarray(fit.intercept_, dtype=np.float64)
    estimator.n_features_in_ = int(fit.n_features_in_)
    estimator.n_iter_ = _n_iter(fit)
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        estimator.feature_names_in_ = names
    if isinstance(fit, KernelFit):
        _check_same(model, estimator, fit)
    return estimator


def low_rank_pipeline(model, fit):
    """scikit-learn's ``Pipeline(Nystroem, LinearSVC)`` of a low-rank model, fitted: the
    Nystroem step with this model's basis (``components_``, ``component_indices_``) and
    ``normalization_`` (its transform is then K(x, Z) @ normalization_.T, this model's phi
    with its k components; scikit-learn's own fit would keep all B), the LinearSVC step
    with ``coef_`` and ``intercept_`` on phi. Checked on the basis rows as the kernel
    models are (:func:`_check_same`)."""
    from sklearn.kernel_approximation import Nystroem
    from sklearn.pipeline import Pipeline

    kernel = fit.kernel
    random_state = fit.params.get("random_state")
    nystroem = Nystroem(kernel=kernel.name, gamma=kernel.gamma, coef0=kernel.coef0,
                        degree=kernel.degree, n_components=fit.components_.shape[0],
                        random_state=random_state if isinstance(random_state, int) else None)
    nystroem.components_ = fit.components_
    if fit.component_indices_ is not None:
        nystroem.component_indices_ = np.asarray(fit.component_indices_, dtype=np.int64)
    nystroem.normalization_ = np.asarray(fit.normalization_, dtype=np.float64)
    nystroem._n_features_out = fit.n_components_  # what Nystroem.fit sets: the output width
    nystroem.n_features_in_ = int(fit.n_features_in_)
    linear = svm.LinearSVC(**_params({"dual": "auto", **fit.params}, _LINEAR_SVC_PARAMS))
    linear.classes_ = np.asarray(fit.classes_)
    linear.coef_ = np.asarray(fit.coef_, dtype=np.float64)
    linear.intercept_ = np.asarray(fit.intercept_, dtype=np.float64)
    linear.n_features_in_ = fit.n_components_
    linear.n_iter_ = 0 if fit.n_iter_ is None else int(fit.n_iter_)
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        nystroem.feature_names_in_ = names
    pipeline = Pipeline([("nystroem", nystroem), ("linearsvc", linear)])
    X = fit.components_[:N_CHECKED]
    _check_values(model, pipeline, X, ["decision_function", "predict"], labels=True)
    return pipeline


def _params(params, names):
    """The entries of ``params`` that scikit-learn's constructor takes (``names``)."""
    return {name: params[name] for name in names if name in params}


def _n_iter(fit):
    n_iter = fit.n_iter_
    if isinstance(fit, KernelFit):
        n_iter = np.zeros(max(len(fit.intercept_), 1), dtype=np.int32) if n_iter is None \
            else np.asarray(n_iter, dtype=np.int32)
        return n_iter if fit.classifies else int(n_iter[0])
    return 0 if n_iter is None else int(n_iter)


def _kernel_estimator(fit):
    """scikit-learn's estimator of a KernelFit, its attributes as its ``fit`` sets them."""
    if fit.kind == "one_class" and fit.prob_density_marks_ is not None:
        raise ModelError(
            "scikit-learn's OneClassSVM has no predict_proba, and this model has probability "
            "estimates; export it without them (to_sklearn(probability=False), dualsvm export "
            "--no-probability), or with them by export_libsvm or dualsvm.onnx.to_onnx")
    if fit.classifies and fit.probA_ is not None and len(fit.classes_) == 2:
        raise ModelError(
            "scikit-learn's SVC computes two-class probabilities by an older LIBSVM's pairwise "
            "coupling, which stops within 0.0025 of Platt's sigmoid that this model (as LIBSVM "
            "3.37) returns: its predict_proba would differ by up to about 1e-3; export the "
            "model without them (to_sklearn(probability=False), dualsvm export "
            "--no-probability), or with them by export_libsvm or dualsvm.onnx.to_onnx")
    kernel = fit.kernel
    params = _params(fit.params, _KERNEL_PARAMS)
    params.update(kernel=kernel.name, degree=kernel.degree, coef0=kernel.coef0,
                  gamma=fit.params.get("gamma", kernel.gamma))
    if fit.classifies and fit.probA_ is not None:
        params["probability"] = True  # else scikit-learn's default (False; 1.9: 'deprecated')
    cls = SKLEARN_KERNEL_CLASSES[fit.kind]
    known = cls().get_params()
    estimator = cls(**{name: value for name, value in params.items() if name in known})

    sparse = sp.issparse(fit.support_vectors_)
    n_sv = fit.dual_coef_.shape[1]
    dual_coef = np.asarray(fit.dual_coef_, dtype=np.float64)
    intercept = np.asarray(fit.intercept_, dtype=np.float64)
    if sparse:
        support_vectors = sp.csr_matrix(fit.support_vectors_, dtype=np.float64)
        support_vectors.sort_indices()
        support_vectors.indices = support_vectors.indices.astype(np.int32)
        support_vectors.indptr = support_vectors.indptr.astype(np.int32)
        rows = dual_coef.shape[0]  # every coefficient stored, as libsvm's sparse predict reads
        columns = np.tile(np.arange(n_sv, dtype=np.int32), rows)
        starts = np.arange(0, rows * n_sv + 1, max(n_sv, 1), dtype=np.int32)
        dual_coef = sp.csr_matrix((dual_coef.ravel(), columns, starts), shape=(rows, n_sv))
    elif kernel.name == "precomputed":
        support_vectors = np.empty((0, 0))
    else:
        support_vectors = np.ascontiguousarray(fit.support_vectors_, dtype=np.float64)

    estimator.support_ = np.asarray(fit.support_, dtype=np.int32)
    estimator.support_vectors_ = support_vectors
    estimator._dual_coef_ = dual_coef
    estimator._intercept_ = intercept
    estimator.dual_coef_, estimator.intercept_ = dual_coef, intercept
    if fit.classifies:
        estimator.classes_ = np.asarray(fit.classes_)
        estimator._n_support = np.asarray(fit.n_support_, dtype=np.int32)
        weights = fit.params.get("class_weight")
        # scikit-learn's class_weight_ (libsvm's sparse predict passes it, unused);
        # 'balanced' needs the class counts, which a model does not keep: ones
        estimator.class_weight_ = np.array(
            [weights.get(c, 1.0) for c in fit.classes_] if isinstance(weights, dict)
            else np.ones(len(fit.classes_)), dtype=np.float64)
        if len(fit.classes_) == 2:  # scikit-learn's public signs: positive means classes_[1]
            estimator.dual_coef_, estimator.intercept_ = -dual_coef, -intercept
    else:
        estimator._n_support = np.array([n_sv, n_sv], dtype=np.int32)
    if fit.kind == "one_class":
        estimator.offset_ = -intercept
    has_probabilities = fit.classifies and fit.probA_ is not None
    estimator._probA = np.asarray(fit.probA_ if has_probabilities else [], dtype=np.float64)
    estimator._probB = np.asarray(fit.probB_ if has_probabilities else [], dtype=np.float64)
    estimator._effective_probability = has_probabilities
    estimator._gamma = float(kernel.gamma)
    estimator._sparse = sparse
    n_train = (fit.n_features_in_ if kernel.name == "precomputed"
               else int(np.max(fit.support_)) + 1 if len(fit.support_) else 0)
    estimator.shape_fit_ = (n_train, fit.n_features_in_)  # libsvm reads it for 'precomputed'
    estimator.fit_status_ = 1 if fit.early_stop() else 0
    return estimator


def _check_same(model, estimator, fit):
    """Refuse an exported kernel model whose decision values (and probabilities) on a
    few support vectors differ from the dualsvm model's (a scikit-learn whose
    internals changed)."""
    if fit.kernel.name == "precomputed":
        rng = np.random.default_rng(0)
        X = rng.uniform(-1, 1, size=(N_CHECKED, fit.n_features_in_))
    else:
        X = fit.support_vectors_[:N_CHECKED]
    if X.shape[0] == 0:
        return
    labels = fit.classifies or fit.kind == "one_class"
    methods = ["decision_function", "predict"] if labels else ["predict"]
    if fit.classifies and fit.probA_ is not None:
        methods.append("predict_proba")
    _check_values(model, estimator, X, methods, labels)


def _check_values(model, estimator, X, methods, labels):
    """Refuse ``estimator`` when one of ``methods`` on X differs from ``model``'s (labels
    exactly, where ``labels``; values to CHECK_TOLERANCE)."""
    for method in methods:
        ours = np.asarray(getattr(model, method)(X))
        theirs = np.asarray(getattr(estimator, method)(X))
        if method == "predict" and labels:
            same = np.array_equal(ours, theirs)
        else:
            scale = max(float(np.max(np.abs(ours))), 1e-300)
            same = ours.shape == theirs.shape and \
                float(np.max(np.abs(ours - theirs))) <= CHECK_TOLERANCE * scale
        if not same:
            raise ModelError(
                f"scikit-learn {sklearn.__version__}'s {type(estimator).__name__}.{method} "
                "differs from this model's on its support vectors (basis rows); this "
                "scikit-learn version is not supported")


def sklearn_fit(estimator):
    """The fit object (:mod:`dualsvm.training.fitted`) of a fitted scikit-learn SVM:
    ``LinearSVC``, ``LinearSVR``, ``SVC``, ``NuSVC``, ``SVR``, ``NuSVR`` or ``OneClassSVM``.

    Raises
    ------
    ModelError
        Another kind of estimator, a callable kernel, an unsupported version.
    sklearn.exceptions.NotFittedError
        The estimator is not fitted.
    """
    from sklearn.utils.validation import check_is_fitted

    check_sklearn_version()
    kind = next((kind for kind, cls in SKLEARN_KERNEL_CLASSES.items()
                 if type(estimator) is cls), None)
    if kind is None and type(estimator) not in (svm.LinearSVC, svm.LinearSVR):
        raise ModelError(
            f"from_sklearn takes a fitted scikit-learn LinearSVC, LinearSVR, SVC, NuSVC, SVR, "
            f"NuSVR or OneClassSVM, not a {type(estimator).__module__}."
            f"{type(estimator).__name__}")
    check_is_fitted(estimator)
    params = estimator.get_params(deep=False)
    names = getattr(estimator, "feature_names_in_", None)
    if type(estimator) is svm.LinearSVR:
        return LinearSVRFit(params=_params(params, _LINEAR_SVR_PARAMS),
                            coef_=np.asarray(estimator.coef_, dtype=np.float64),
                            intercept_=_intercept(estimator.intercept_, 1),
                            n_iter_=int(estimator.n_iter_), feature_names_in_=names)
    if type(estimator) is svm.LinearSVC:
        coef = np.asarray(estimator.coef_, dtype=np.float64)
        return LinearFit(params=_params(params, _LINEAR_SVC_PARAMS),
                         classes_=np.asarray(estimator.classes_), coef_=coef,
                         intercept_=_intercept(estimator.intercept_, coef.shape[0]),
                         n_iter_=int(estimator.n_iter_), feature_names_in_=names,
                         t_=np.zeros(coef.shape[0], dtype=np.int64))
    if callable(estimator.kernel):
        raise ModelError("a scikit-learn model with a callable kernel cannot be converted: "
                         "train it with kernel='precomputed' on the kernel matrix")
    classifies = kind in CLASSIFIER_TYPES
    dual_coef = estimator._dual_coef_
    dual_coef = np.asarray(dual_coef.toarray() if sp.issparse(dual_coef) else dual_coef,
                           dtype=np.float64)
    support_vectors = estimator.support_vectors_
    support_vectors = (sp.csr_matrix(support_vectors, dtype=np.float64)
                       if sp.issparse(support_vectors)
                       else np.asarray(support_vectors, dtype=np.float64))
    probability = classifies and len(estimator._probA) > 0
    kept = dict(_params(params, _KERNEL_PARAMS), gamma=params["gamma"])
    if classifies:
        kept["probability"] = probability
    gamma = estimator._gamma if estimator._gamma > 0 else 1.0  # 'precomputed': unused
    return KernelFit(
        params=kept,
        kernel=make_kernel(estimator.kernel, gamma=gamma, degree=estimator.degree,
                           coef0=estimator.coef0),
        classes_=np.asarray(estimator.classes_) if classifies else np.empty(0),
        support_=np.asarray(estimator.support_, dtype=np.int64),
        support_vectors_=support_vectors,
        n_support_=np.asarray(estimator.n_support_, dtype=np.int64),
        dual_coef_=dual_coef,
        intercept_=np.asarray(estimator._intercept_, dtype=np.float64),
        n_features_in_=int(estimator.n_features_in_),
        n_iter_=np.atleast_1d(np.asarray(estimator.n_iter_, dtype=np.int64)),
        kind=kind,
        probA_=np.asarray(estimator._probA, dtype=np.float64) if probability else None,
        probB_=np.asarray(estimator._probB, dtype=np.float64) if probability else None)


def _intercept(intercept, n_rows):
    """scikit-learn's intercept_ as an array: 0.0 (fit_intercept=False) -> zeros."""
    intercept = np.asarray(intercept, dtype=np.float64)
    return np.zeros(n_rows) if intercept.ndim == 0 else intercept
