"""Kernel models in the dualsvm model file (``estimator`` = ``"SVC"``, ``"NuSVC"``,
``"OneClassSVM"``, ``"SVR"`` or ``"NuSVR"``: the fit's ``kind``, :data:`ESTIMATORS`).

One-class and regression models have ``n_classes`` 0, an empty ``classes_``,
``n_support`` [n_SV], ``dual_coef_`` (1, n_SV), ``intercept_`` (1,) and one entry
in each certificate list.

Same container and safety as linear models (:mod:`.container`), with these entries:

``metadata``
    as for linear models, plus ``kernel`` (``{"kernel", "gamma", "degree",
    "coef0"}``, gamma resolved to a number) and ``n_support`` (list of int);
    ``n_iter`` is a list (one per pair of classes); ``solver_used`` the solver
    that trained the model (``"smo"``, ``"ws"``; absent in older files).
``classes_``
    sorted, unique labels (n_classes,).
``support_``
    int64 (n_SV,): training-row indices of the support vectors, grouped by class.
``dual_coef_``
    float64 (n_classes - 1, n_SV): y_i alpha_i in LIBSVM's layout and signs
    (class i of pair (i, j) positive; see :mod:`dualsvm.training.fitted`).
``intercept_``
    float64 (n_pairs,): LIBSVM's -rho of every pair.
``probA_``, ``probB_`` (optional; both or neither)
    float64 (n_pairs,): Platt's sigmoid of every pair (``probability=True``); for a
    regression model (n_pairs = 1), probA_ = [sigma] of LIBSVM's Laplace model of the
    error (``dualsvm train -b 1 -s 3|4``) and probB_ = [0].
``prob_density_marks_`` (optional; one-class models only)
    float64 (10,): LIBSVM's density marks (``probability=True``, ``-s 2 -b 1``).
``libsvm_labels`` (optional; classifiers only)
    ``classes_`` in the order of LIBSVM's model (first appearance in the training
    data; see :func:`dualsvm.training.fitted.libsvm_label_order`), the order of svm-predict
    -b 1's columns; absent in older files.
``sv_dense`` (float64 (n_SV, n_features_in)) or ``sv_data``, ``sv_indices``,
``sv_indptr`` (the CSR arrays of the support vectors; int64 indices)
    the support vectors (neither for the precomputed kernel).
``cluster_level``, ``cluster_sample_start``, ``cluster_sample``, ``cluster_sample_label``, ``cluster_start``, ``cluster_norm``, ``cluster_intercept``, ``cluster_sv_part`` (optional; all or none: early prediction, ``solver='dc'`` with ``early_stop_level``)
    the :class:`~dualsvm.training.fitted.ClusterModels` of every pair p:
    ``cluster_level`` int64 (n_pairs,) its level (-1: a pair trained to the end,
    decided by ``dual_coef_`` and ``intercept_``); its kernel k-means sample is
    entries ``cluster_sample_start[p]:cluster_sample_start[p + 1]`` (int64
    (n_pairs + 1,)) of ``cluster_sample`` (float64 (m, n_features_in): the points;
    for the precomputed kernel int64 (m,): their training rows) and of
    ``cluster_sample_label`` (int64 (m,): their cluster); its clusters are entries
    ``cluster_start[p]:cluster_start[p + 1]`` of ``cluster_norm`` (float64: the
    centres' squared norms in feature space) and ``cluster_intercept`` (float64:
    each cluster model's bias); ``cluster_sv_part`` int64 (n_pairs, n_SV) the
    cluster of every support vector in each pair (-1: not the pair's).
"""

import numpy as np
import scipy.sparse as sp

from ..constants import CLASSIFIER_TYPES
from ..exceptions import ModelError, one_line
from ..kernels import make_kernel
from ..kernels.clustering import KernelClusters
from ..training.fitted import ClusterModels, KernelFit, class_pairs
from ..training.probability import N_MARKS
from .container import (certificate_from_json, certificate_to_json, params_from_json,
                        params_to_json, write_container)

#: The estimator name a model file records for each kind of kernel model.
ESTIMATORS = {"c_svc": "SVC", "nu_svc": "NuSVC", "one_class": "OneClassSVM",
              "epsilon_svr": "SVR", "nu_svr": "NuSVR"}
_KINDS = {name: kind for kind, name in ESTIMATORS.items()}

_ENTRIES = {"classes_", "support_", "dual_coef_", "intercept_"}
_DENSE = {"sv_dense"}
_CSR = {"sv_data", "sv_indices", "sv_indptr"}
_PROBABILITY = {"probA_", "probB_"}
_MARKS = "prob_density_marks_"
_LIBSVM_LABELS = "libsvm_labels"
_CLUSTERS = {"cluster_level", "cluster_sample_start", "cluster_sample", "cluster_sample_label",
             "cluster_start", "cluster_norm", "cluster_intercept", "cluster_sv_part"}


def save_kernel(fit, path):
    """Save a :class:`~dualsvm.training.fitted.KernelFit` as a dualsvm model file (atomically)."""
    meta = {
        "params": params_to_json(fit.params),
        "kernel": fit.kernel.to_dict(),
        "n_features_in": int(fit.n_features_in_),
        "n_classes": int(len(fit.classes_)),
        "n_support": [int(v) for v in fit.n_support_],
        "n_iter": [int(v) for v in fit.n_iter_],
        "solver_used": fit.solver_used_,
        "solver_reason": fit.solver_reason_,
        **certificate_to_json(fit),
    }
    arrays = {
        "classes_": fit.classes_,
        "support_": fit.support_.astype(np.int64),
        "dual_coef_": fit.dual_coef_,
        "intercept_": fit.intercept_,
    }
    if fit.probA_ is not None:
        arrays.update(probA_=np.asarray(fit.probA_, dtype=np.float64),
                      probB_=np.asarray(fit.probB_, dtype=np.float64))
    if fit.prob_density_marks_ is not None:
        arrays[_MARKS] = np.asarray(fit.prob_density_marks_, dtype=np.float64)
    if fit.libsvm_labels is not None:
        arrays[_LIBSVM_LABELS] = np.asarray(fit.libsvm_labels, dtype=fit.classes_.dtype)
    sv = fit.support_vectors_
    if fit.kernel.name != "precomputed":
        if sp.issparse(sv):
            sv = sp.csr_matrix(sv)
            arrays.update(sv_data=sv.data, sv_indices=sv.indices.astype(np.int64),
                          sv_indptr=sv.indptr.astype(np.int64))
        else:
            arrays["sv_dense"] = np.asarray(sv, dtype=np.float64)
    if fit.cluster_models_ is not None:
        arrays.update(_cluster_arrays(fit))
    write_container(path, ESTIMATORS[fit.kind], meta, arrays)


def _cluster_arrays(fit):
    """The ``cluster_*`` entries of an early-prediction fit (module docstring)."""
    models = fit.cluster_models_
    precomputed = fit.kernel.name == "precomputed"
    levels, samples, labels, norms, intercepts = [], [], [], [], []
    parts = np.full((len(models), len(fit.support_)), -1, dtype=np.int64)
    for p, model in enumerate(models):
        levels.append(-1 if model is None else model.level)
        if model is None:
            samples.append(np.empty((0,) if precomputed else (0, fit.n_features_in_)))
            labels.append(np.empty(0, dtype=np.int64))
            norms.append(np.empty(0))
            intercepts.append(np.empty(0))
            continue
        points = model.clusters.points
        samples.append(model.clusters.rows if precomputed else
                       points.toarray() if sp.issparse(points) else np.asarray(points))
        labels.append(model.clusters.labels)
        norms.append(model.clusters.norms)
        intercepts.append(model.intercepts)
        parts[p] = model.sv_part
    return {
        "cluster_level": np.array(levels, dtype=np.int64),
        "cluster_sample_start": np.cumsum([0] + [len(a) for a in labels], dtype=np.int64),
        "cluster_sample": np.concatenate(samples).astype(np.int64 if precomputed else np.float64),
        "cluster_sample_label": np.concatenate(labels).astype(np.int64),
        "cluster_start": np.cumsum([0] + [len(a) for a in norms], dtype=np.int64),
        "cluster_norm": np.concatenate(norms).astype(np.float64),
        "cluster_intercept": np.concatenate(intercepts).astype(np.float64),
        "cluster_sv_part": parts,
    }


def read_kernel(path, meta, arrays):
    """The :class:`~dualsvm.training.fitted.KernelFit` of a kernel model file's parts, all checked."""
    def bad(what):
        return ModelError(f"{path}: invalid model file ({what})")

    probability, clustered = _check_entries(set(arrays), bad)
    kind = _KINDS.get(meta.get("estimator"))
    if kind is None:
        raise bad(f"estimator {meta.get('estimator')!r} is not a kernel model")
    classifies = kind in CLASSIFIER_TYPES
    d, k, n_support = _sizes(meta, classifies, bad)
    n_sv, n_pairs = sum(n_support), len(class_pairs(k)) if classifies else 1
    classes, support = arrays["classes_"], arrays["support_"]
    dual_coef, intercept = arrays["dual_coef_"], arrays["intercept_"]
    if classes.dtype.kind not in "biufU" or classes.shape != (k,) or \
            len(np.unique(classes)) != k or not np.array_equal(np.sort(classes), classes):
        raise bad("classes_ are not k sorted, unique labels")
    if support.dtype != np.int64 or support.shape != (n_sv,) or (support < 0).any():
        raise bad(f"support_ has dtype {support.dtype} and shape {support.shape}")
    sigmoids = [(name, arrays[name], (n_pairs,)) for name in sorted(probability)]
    marks = arrays.get(_MARKS)
    if marks is not None:
        if kind != "one_class":
            raise bad(f"{_MARKS} in a {meta.get('estimator')} model (one-class models only)")
        sigmoids.append((_MARKS, marks, (N_MARKS,)))
    order = arrays.get(_LIBSVM_LABELS)
    if order is not None and not (classifies and order.dtype == classes.dtype
                                  and order.shape == (k,)
                                  and np.array_equal(np.sort(order), classes)):
        raise bad(f"{_LIBSVM_LABELS} is not an order of the classes_")
    for name, value, shape in [("dual_coef_", dual_coef, (max(k - 1, 1), n_sv)),
                               ("intercept_", intercept, (n_pairs,))] + sigmoids:
        if value.dtype != np.float64 or value.shape != shape or not np.isfinite(value).all():
            raise bad(f"{name} must be finite float64 of shape {shape}")
    try:
        kernel = make_kernel(**meta.get("kernel", {}))
    except (TypeError, ValueError) as e:
        raise bad(f"kernel: {one_line(e)}") from None
    sv = _support_vectors(arrays, kernel, n_sv, d, bad)
    cluster_models = _read_cluster_models(arrays, kernel, n_pairs, n_sv, d, bad) \
        if clustered else None
    return KernelFit(params=params_from_json(meta, bad), kernel=kernel, classes_=classes,
                     support_=support.astype(np.int32), support_vectors_=sv,
                     n_support_=np.array(n_support, dtype=np.int32), dual_coef_=dual_coef,
                     intercept_=intercept, n_features_in_=d, kind=kind,
                     probA_=arrays.get("probA_"), probB_=arrays.get("probB_"),
                     prob_density_marks_=marks, libsvm_labels=order,
                     cluster_models_=cluster_models, **_training_record(meta, n_pairs, bad))


def _check_entries(names, bad):
    """(the probability entries, the cluster entries) among a file's ``names``: each
    optional group all or none, nothing unknown, one layout of the support vectors."""
    layout = _DENSE if "sv_dense" in names else _CSR if names & _CSR else set()
    probability = _PROBABILITY if names & _PROBABILITY else set()
    clustered = _CLUSTERS if names & _CLUSTERS else set()
    unknown = names - _ENTRIES - layout - probability - clustered - {_MARKS, _LIBSVM_LABELS}
    missing = (_ENTRIES | layout | probability | clustered) - names
    if unknown or missing:
        raise bad(f"entries missing: {sorted(missing)}, unexpected: {sorted(unknown)}")
    return probability, clustered


def _sizes(meta, classifies, bad):
    """(n_features_in, n_classes, n_support) of the metadata, checked."""
    d, k, n_support = meta.get("n_features_in"), meta.get("n_classes"), meta.get("n_support")
    if not (isinstance(d, int) and d >= 1 and isinstance(k, int)
            and (k >= 2 if classifies else k == 0)):
        raise bad(f"n_features_in={d!r}, n_classes={k!r}")
    if not (isinstance(n_support, list) and len(n_support) == (k if classifies else 1)
            and all(isinstance(v, int) and v >= 0 for v in n_support)):
        raise bad(f"n_support {n_support!r}")
    return d, k, n_support


def _support_vectors(arrays, kernel, n_sv, d, bad):
    """The support vectors (dense or CSR; empty for the precomputed kernel), checked."""
    if "sv_dense" in arrays:
        sv = arrays["sv_dense"]
        if sv.dtype != np.float64 or sv.shape != (n_sv, d):
            raise bad(f"sv_dense has dtype {sv.dtype} and shape {sv.shape}")
    elif "sv_data" in arrays:
        try:
            sv = sp.csr_matrix((arrays["sv_data"], arrays["sv_indices"], arrays["sv_indptr"]),
                               shape=(n_sv, d))
            sv.check_format(full_check=True)
        except (TypeError, ValueError) as e:
            raise bad(f"support vectors: {one_line(e)}") from None
        if sv.data.dtype != np.float64:
            raise bad("support vectors must be float64")
    elif kernel.name == "precomputed":
        return np.empty((0, 0))
    else:
        raise bad("no support vectors")
    if sv.shape[0] and not np.isfinite(sv.data if sp.issparse(sv) else sv).all():
        raise bad("support vectors contain NaN or infinity")
    return sv


def _training_record(meta, n_pairs, bad):
    """The KernelFit fields of how the model was trained: ``n_iter_``, the solver and
    its reason, the certificate (unknown values where older files lack them)."""
    n_iter = meta.get("n_iter")
    if n_iter is not None and not (isinstance(n_iter, list) and len(n_iter) == n_pairs
                                   and all(isinstance(v, int) for v in n_iter)):
        raise bad(f"n_iter {n_iter!r}")
    solver_used = meta.get("solver_used", "")
    solver_reason = meta.get("solver_reason", "")  # absent from files before it was saved
    for name, value in (("solver_used", solver_used), ("solver_reason", solver_reason)):
        if not isinstance(value, str):
            raise bad(f"{name} {value!r}")
    certificate = certificate_from_json(meta, n_pairs, bad)
    if certificate["status_"] is None:
        certificate["status_"] = ["unknown"] * n_pairs
    for name in ("primal_", "dual_", "gap_"):
        if certificate[name] is None:
            certificate[name] = np.full(n_pairs, np.nan)
    return {"n_iter_": np.array(n_iter or [0] * n_pairs, dtype=np.int64),
            "solver_used_": solver_used, "solver_reason_": solver_reason, **certificate}


def _read_cluster_models(arrays, kernel, n_pairs, n_sv, d, bad):
    """The ClusterModels of a model file's ``cluster_*`` entries, all checked."""
    level, sample_start = arrays["cluster_level"], arrays["cluster_sample_start"]
    sample, label = arrays["cluster_sample"], arrays["cluster_sample_label"]
    start, norm = arrays["cluster_start"], arrays["cluster_norm"]
    intercept, sv_part = arrays["cluster_intercept"], arrays["cluster_sv_part"]
    precomputed = kernel.name == "precomputed"
    m, k = len(label), len(norm)
    checks = [
        level.dtype == np.int64 and level.shape == (n_pairs,) and (level >= -1).all(),
        all(a.dtype == np.int64 and a.shape == (n_pairs + 1,) and a[0] == 0
            and (np.diff(a) >= 0).all() for a in (sample_start, start)),
        sample_start[-1] == m and start[-1] == k,
        sample.shape == ((m,) if precomputed else (m, d)),
        sample.dtype == (np.int64 if precomputed else np.float64),
        label.dtype == np.int64 and label.shape == (m,),
        all(a.dtype == np.float64 and a.shape == (k,) and np.isfinite(a).all()
            for a in (norm, intercept)),
        sv_part.dtype == np.int64 and sv_part.shape == (n_pairs, n_sv),
    ]
    if not all(checks):
        raise bad("cluster_* entries of inconsistent types or shapes")
    if not precomputed and not np.isfinite(sample).all():
        raise bad("cluster_sample contains NaN or infinity")
    if precomputed and (sample < 0).any():
        raise bad("cluster_sample has negative training rows")
    models = []
    for p in range(n_pairs):
        a, b = sample_start[p], sample_start[p + 1]
        c0, c1 = start[p], start[p + 1]
        if level[p] < 0:
            if b > a or c1 > c0 or (sv_part[p] != -1).any():
                raise bad(f"cluster_* entries of pair {p}, which has no cluster models")
            models.append(None)
            continue
        labels, parts = label[a:b], sv_part[p]
        if b == a or c1 == c0 or (labels < 0).any() or (labels >= c1 - c0).any() or \
                (parts < -1).any() or (parts >= c1 - c0).any():
            raise bad(f"cluster labels of pair {p} out of range")
        clusters = KernelClusters(kernel, np.empty((0, 0)) if precomputed else sample[a:b],
                                  sample[a:b] if precomputed else np.arange(b - a),
                                  labels, norm[c0:c1])
        models.append(ClusterModels(int(level[p]), clusters, parts, intercept[c0:c1]))
    return models if any(model is not None for model in models) else None
