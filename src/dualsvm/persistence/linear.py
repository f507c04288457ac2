"""Linear models in the dualsvm model file (``estimator`` = ``"LinearSVC"``).

The container and its metadata are described in :mod:`.container`; a linear
model holds exactly these entries besides ``metadata`` (whose ``n_iter`` is an
int, the largest number of epochs):

``coef_``
    float64, shape (n_problems, n_features_in); n_problems is 1 for two
    classes, else n_classes (one-vs-rest, or Crammer and Singer's one weight
    vector per class; the certificate lists of a ``multi_class='crammer_singer'``
    model have one entry).
``intercept_``
    float64, shape (n_problems,).
``classes_``
    1-D, sorted and unique; bool, integer, float64 or unicode strings.
``feature_names_in_`` (optional)
    unicode, shape (n_features_in,).

Regression models (``estimator`` = ``"LinearSVR"``) hold ``coef_`` float64 of shape
(n_features_in,), ``intercept_`` float64 of shape (1,) and optionally
``feature_names_in_``; their metadata has no ``n_classes``, and one entry in each
certificate list.

One-class models (``estimator`` = ``"LinearOneClassSVM"``, LIBLINEAR's ``-s 21``) hold
``coef_`` float64 of shape (1, n_features_in), ``offset_`` float64 of shape (1,)
(rho) and optionally ``feature_names_in_``; no ``n_classes``, one entry in each
certificate list.

Every entry's dtype and shape is checked on reading, and that all numbers are
finite; anything else is a :class:`~dualsvm.exceptions.ModelError`.
"""

import numpy as np

from ..exceptions import ModelError
from ..training.fitted import LinearFit, LinearOneClassFit, LinearSVRFit
from .container import (certificate_from_json, certificate_to_json, params_from_json,
                        params_to_json, write_container)

_ENTRIES = {"coef_", "intercept_", "classes_"}
_OPTIONAL_ENTRIES = {"feature_names_in_"}


def checked_arrays(fit):
    """(coef, intercept, classes) of a LinearFit, checked for writing."""
    coef = np.asarray(fit.coef_, dtype=np.float64)
    intercept = np.asarray(fit.intercept_, dtype=np.float64).reshape(-1)
    classes = np.asarray(fit.classes_)
    if classes.dtype.kind == "O":
        if not all(isinstance(c, str) for c in classes):
            raise ModelError("class labels must be numbers or strings to be saved, "
                             f"not {type(classes[0]).__name__}")
        classes = classes.astype(str)
    if classes.dtype.kind not in "biufU":
        raise ModelError(f"class labels of dtype {classes.dtype} cannot be saved")
    if not (np.isfinite(coef).all() and np.isfinite(intercept).all()):
        raise ModelError("the model's coefficients contain NaN or infinity")
    return coef, intercept, classes


def save_linear(fit, path):
    """Save a :class:`~dualsvm.training.fitted.LinearFit` as a dualsvm model file (atomically).

    Raises
    ------
    ModelError
        Labels, coefficients or parameters that cannot be stored.
    OSError
        The file cannot be written.
    """
    coef, intercept, classes = checked_arrays(fit)
    meta = {"params": params_to_json(fit.params), "n_features_in": int(coef.shape[1]),
            "n_classes": int(len(classes)),
            "n_iter": None if fit.n_iter_ is None else int(fit.n_iter_),
            **certificate_to_json(fit)}
    arrays = {"coef_": coef, "intercept_": intercept, "classes_": classes}
    if fit.feature_names_in_ is not None:
        arrays["feature_names_in_"] = np.asarray(fit.feature_names_in_).astype(str)
    write_container(path, "LinearSVC", meta, arrays)


def read_linear(path, meta, arrays):
    """The :class:`~dualsvm.training.fitted.LinearFit` of a linear model file's parts, all checked."""
    def bad(what):
        return ModelError(f"{path}: invalid model file ({what})")

    names = set(arrays)
    unknown = names - _ENTRIES - _OPTIONAL_ENTRIES
    missing = _ENTRIES - names
    if unknown or missing:
        raise ModelError(f"{path}: not a dualsvm model file (entries "
                         f"missing: {sorted(missing)}, "
                         f"unexpected: {sorted(unknown)})")
    coef, intercept, classes = arrays["coef_"], arrays["intercept_"], arrays["classes_"]
    d, k = meta.get("n_features_in"), meta.get("n_classes")
    if not (isinstance(d, int) and d >= 1 and isinstance(k, int) and k >= 2):
        raise bad(f"n_features_in={d!r}, n_classes={k!r}")
    n_problems = 1 if k == 2 else k
    if coef.dtype != np.float64 or coef.shape != (n_problems, d):
        raise bad(f"coef_ has dtype {coef.dtype} and shape {coef.shape}, "
                  f"expected float64 {(n_problems, d)}")
    if intercept.dtype != np.float64 or intercept.shape != (n_problems,):
        raise bad(f"intercept_ has dtype {intercept.dtype} and shape {intercept.shape}, "
                  f"expected float64 {(n_problems,)}")
    if classes.dtype.kind not in "biufU" or classes.shape != (k,):
        raise bad(f"classes_ has dtype {classes.dtype} and shape {classes.shape}")
    if not (np.isfinite(coef).all() and np.isfinite(intercept).all()):
        raise bad("coefficients contain NaN or infinity")
    if classes.dtype.kind == "f" and not np.isfinite(classes).all():
        raise bad("class labels contain NaN or infinity")
    if len(np.unique(classes)) != k or not np.array_equal(np.sort(classes), classes):
        raise bad("class labels are not sorted and unique")
    names, n_iter = _names_and_n_iter(meta, arrays, d, bad)
    params = params_from_json(meta, bad)
    # Crammer and Singer's model is one problem over all classes: one certificate
    n_certificates = 1 if params.get("multi_class") == "crammer_singer" else n_problems
    return LinearFit(params=params, classes_=classes, coef_=coef,
                     intercept_=intercept, n_iter_=n_iter, feature_names_in_=names,
                     **certificate_from_json(meta, n_certificates, bad))


def save_linear_svr(fit, path):
    """Save a :class:`~dualsvm.training.fitted.LinearSVRFit` as a dualsvm model file (atomically)."""
    _save_single(fit, path, "LinearSVR", {"coef_": fit.coef_, "intercept_": fit.intercept_})


def save_linear_one_class(fit, path):
    """Save a :class:`~dualsvm.training.fitted.LinearOneClassFit` as a dualsvm model file (atomically)."""
    _save_single(fit, path, "LinearOneClassSVM", {"coef_": fit.coef_, "offset_": fit.offset_})


def _save_single(fit, path, estimator, arrays):
    """A model of one weight vector (its ``coef_`` and one offset) with its certificate."""
    arrays = {name: np.asarray(value, dtype=np.float64) for name, value in arrays.items()}
    arrays = {name: value if name == "coef_" and estimator != "LinearSVR" else value.reshape(-1)
              for name, value in arrays.items()}
    if not all(np.isfinite(value).all() for value in arrays.values()):
        raise ModelError("the model's coefficients contain NaN or infinity")
    meta = {"params": params_to_json(fit.params), "n_features_in": int(fit.n_features_in_),
            "n_iter": None if fit.n_iter_ is None else int(fit.n_iter_),
            **certificate_to_json(fit)}
    if fit.feature_names_in_ is not None:
        arrays["feature_names_in_"] = np.asarray(fit.feature_names_in_).astype(str)
    write_container(path, estimator, meta, arrays)


def read_linear_svr(path, meta, arrays):
    """The :class:`~dualsvm.training.fitted.LinearSVRFit` of a regression model file's parts, all checked."""
    return _read_single(path, meta, arrays, LinearSVRFit, "intercept_", lambda d: (d,))


def read_linear_one_class(path, meta, arrays):
    """The :class:`~dualsvm.training.fitted.LinearOneClassFit` of a one-class model file's parts, all
    checked."""
    return _read_single(path, meta, arrays, LinearOneClassFit, "offset_", lambda d: (1, d))


def _read_single(path, meta, arrays, fit_class, offset, coef_shape):
    """The fit of a model of one weight vector: ``coef_`` of ``coef_shape(d)`` and
    the ``offset`` entry of shape (1,), all checked."""
    def bad(what):
        return ModelError(f"{path}: invalid model file ({what})")

    names = set(arrays)
    required = {"coef_", offset}
    unknown, missing = names - required - _OPTIONAL_ENTRIES, required - names
    if unknown or missing:
        raise bad(f"entries missing: {sorted(missing)}, unexpected: {sorted(unknown)}")
    d = meta.get("n_features_in")
    if not (isinstance(d, int) and d >= 1):
        raise bad(f"n_features_in={d!r}")
    for name, shape in (("coef_", coef_shape(d)), (offset, (1,))):
        value = arrays[name]
        if value.dtype != np.float64 or value.shape != shape or not np.isfinite(value).all():
            raise bad(f"{name} must be finite float64 of shape {shape}")
    names, n_iter = _names_and_n_iter(meta, arrays, d, bad)
    return fit_class(params=params_from_json(meta, bad), coef_=arrays["coef_"],
                     n_iter_=n_iter, feature_names_in_=names,
                     **{offset: arrays[offset]}, **certificate_from_json(meta, 1, bad))


def _names_and_n_iter(meta, arrays, d, bad):
    """(feature_names_in_ as objects or None, n_iter or None) of a linear model file, checked."""
    names = arrays.get("feature_names_in_")
    if names is not None:
        if names.dtype.kind != "U" or names.shape != (d,):
            raise bad(f"feature_names_in_ has dtype {names.dtype} and shape {names.shape}")
        names = names.astype(object)
    n_iter = meta.get("n_iter")
    if n_iter is not None and not (isinstance(n_iter, int) and n_iter >= 0):
        raise bad(f"n_iter {n_iter!r}")
    return names, n_iter
