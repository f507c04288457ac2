"""LIBLINEAR text models: export and import.

:func:`export_liblinear` writes what LIBLINEAR 2.50's ``save_model`` writes::

    solver_type L2R_L2LOSS_SVC_DUAL     (L2R_L1LOSS_SVC_DUAL for the hinge loss)
    nr_class K
    label l_1 ... l_K                   (integers)
    nr_feature d
    bias B                              (-1: no bias)
    w
    d lines (d + 1 when B >= 0) of nr_w values "%.17g " each

with nr_w = 1 for two classes (w decides for ``label[0]``, so the labels are
written as ``classes_[1] classes_[0]``) and K otherwise. The solver_type names the
problem the model solves: L2R_L2LOSS_SVC_DUAL, L2R_L1LOSS_SVC_DUAL,
L2R_L2LOSS_SVC (``dual=False``), L1R_L2LOSS_SVC (``penalty='l1'``) or MCSVM_CS
(``multi_class='crammer_singer'``, whose nr_w is K even for two classes: its one
row coef = w_1 - w_0 is written as the columns w_0 = -coef / 2 and w_1 = coef / 2,
the solution LIBLINEAR's own has, since a_i^0 = -a_i^1; its prediction then
reads only w_0'x > 0). With B >= 0 the last
line is the bias weight w_b and the intercept is B * w_b; an exact
(unregularised) intercept is written with B = 1. A regression model
(:class:`~dualsvm.training.fitted.LinearSVRFit`) is written as LIBLINEAR writes ``-s 12`` /
``-s 13`` models: solver_type L2R_L2LOSS_SVR_DUAL or L2R_L1LOSS_SVR_DUAL,
``nr_class 2``, no ``label`` line, one weight per line. A one-class model
(:class:`~dualsvm.training.fitted.LinearOneClassFit`) as ``-s 21`` ones: solver_type
ONECLASS_SVM, ``nr_class 2``, no ``label``, ``bias -1``, ``rho`` (the decision is
w'x - rho), one weight per line. :func:`import_liblinear` reads the model of any
LIBLINEAR classifier (linear SVMs, logistic regression, Crammer-Singer), of its
regressions (``-s 11, 12, 13``) and of its one-class SVM (``-s 21``): prediction
needs only w (and rho).
"""

import math

import numpy as np

from ..data.atomic_files import atomic_write
from ..data.svmlight import short_repr
from ..exceptions import ModelError
from ..training.fitted import LinearFit, LinearOneClassFit, LinearSVRFit
from .linear import checked_arrays
from .text_format import integer_labels, read_model_text

#: LIBLINEAR 2.50's solver_type_table entries that are classifiers.
LIBLINEAR_CLASSIFIERS = (
    "L2R_LR", "L2R_L2LOSS_SVC_DUAL", "L2R_L2LOSS_SVC", "L2R_L1LOSS_SVC_DUAL",
    "MCSVM_CS", "L1R_L2LOSS_SVC", "L1R_LR", "L2R_LR_DUAL",
)
#: Its regression solvers (-s 11, 12, 13), with the loss each minimises.
LIBLINEAR_REGRESSIONS = {"L2R_L2LOSS_SVR": "squared_epsilon_insensitive",
                         "L2R_L2LOSS_SVR_DUAL": "squared_epsilon_insensitive",
                         "L2R_L1LOSS_SVR_DUAL": "epsilon_insensitive"}
ONE_CLASS = "ONECLASS_SVM"
_LIBLINEAR_KEYS = ("solver_type", "nr_class", "label", "nr_feature", "bias", "rho", "w")


def is_liblinear_text(head):
    """Whether a file's first bytes start like a LIBLINEAR text model."""
    first = head.split(None, 1)[:1]
    return bool(first) and first[0] in {k.encode() for k in _LIBLINEAR_KEYS}


def _bias_row(params, intercept):
    """(B, bias weights) of LIBLINEAR's file for an intercept: B = intercept_scaling for
    the augmented bias, 1 for an exact one, -1 (no row) for none."""
    if params.get("fit_intercept") and params.get("intercept_mode", "augmented") == "augmented":
        bias = float(params["intercept_scaling"])
        return bias, intercept / bias
    if params.get("fit_intercept") or np.any(intercept != 0):
        return 1.0, intercept  # exact bias: B * w_b = intercept_
    return -1.0, None


def export_liblinear(fit, path):
    """Write a :class:`~dualsvm.training.fitted.LinearFit`, :class:`~dualsvm.training.fitted.LinearSVRFit` or
    :class:`~dualsvm.training.fitted.LinearOneClassFit` as a LIBLINEAR 2.50 text model file.

    LIBLINEAR's ``predict`` gives the same labels (or values) as the model's.

    Raises
    ------
    ModelError
        Class labels that are not integers, or coefficients that are not finite.
    OSError
        The file cannot be written.
    """
    params = fit.params
    if isinstance(fit, LinearOneClassFit):
        w = np.asarray(fit.coef_, dtype=np.float64).reshape(-1)
        rho = float(np.asarray(fit.offset_).reshape(-1)[0])
        if not (np.isfinite(w).all() and np.isfinite(rho)):
            raise ModelError("the model's coefficients contain NaN or infinity")
        lines = [f"solver_type {ONE_CLASS}", "nr_class 2", f"nr_feature {len(w)}", "bias -1",
                 "rho %.17g" % rho, "w"] + ["%.17g " % v for v in w]
        text = "\n".join(lines) + "\n"
        atomic_write(path, lambda f: f.write(text.encode("ascii")))
        return
    if isinstance(fit, LinearSVRFit):
        weights = np.asarray(fit.coef_, dtype=np.float64).reshape(-1, 1)
        intercept = np.asarray(fit.intercept_, dtype=np.float64).reshape(-1)
        if not (np.isfinite(weights).all() and np.isfinite(intercept).all()):
            raise ModelError("the model's coefficients contain NaN or infinity")
        solver = ("L2R_L1LOSS_SVR_DUAL" if params.get("loss") == "epsilon_insensitive"
                  else "L2R_L2LOSS_SVR_DUAL")
        header = [f"solver_type {solver}", "nr_class 2"]
    else:
        coef, intercept, classes = checked_arrays(fit)
        labels = integer_labels(classes, "LIBLINEAR")
        if len(labels) == 2:
            # LIBLINEAR's single w decides for label[0]; ours for classes_[1].
            labels = [labels[1], labels[0]]
        weights = coef.T  # (d, nr_w)
        solver = classifier_type(params)
        if solver == "MCSVM_CS" and len(labels) == 2:
            # back to classes_ order, w_0 = -w_1 as LIBLINEAR's solution has it (its
            # prediction reads w_0'x > 0 only), with w_1 - w_0 = coef
            labels = labels[::-1]
            weights = np.hstack([-0.5 * weights, 0.5 * weights])
            intercept = np.concatenate([-0.5 * intercept, 0.5 * intercept])
        header = [f"solver_type {solver}", f"nr_class {len(labels)}",
                  "label " + " ".join(str(label) for label in labels)]
    bias, bias_row = _bias_row(params, intercept)
    lines = header + [f"nr_feature {weights.shape[0]}", "bias %.17g" % bias, "w"]
    rows = weights if bias_row is None else np.vstack([weights, bias_row[None, :]])
    lines.extend("".join("%.17g " % v for v in row) for row in rows)
    text = "\n".join(lines) + "\n"
    atomic_write(path, lambda f: f.write(text.encode("ascii")))


def classifier_type(params):
    """LIBLINEAR's solver_type of a classifier's parameters (see the module docstring)."""
    if params.get("multi_class") == "crammer_singer":
        return "MCSVM_CS"
    if params.get("penalty") == "l1":
        return "L1R_L2LOSS_SVC"
    if params.get("loss") == "hinge":
        return "L2R_L1LOSS_SVC_DUAL"
    return "L2R_L2LOSS_SVC" if params.get("dual") is False else "L2R_L2LOSS_SVC_DUAL"


#: The LinearSVC parameters of the classifiers' solver_types dualsvm trains (the others,
#: logistic regression, import with the defaults: prediction needs only w).
_CLASSIFIER_PARAMS = {
    "L2R_L1LOSS_SVC_DUAL": {"loss": "hinge"},
    "L2R_L2LOSS_SVC": {"dual": False},
    "L1R_L2LOSS_SVC": {"penalty": "l1", "dual": False},
    "MCSVM_CS": {"multi_class": "crammer_singer"},
}


def import_liblinear(path):
    """Read a LIBLINEAR text model of a classifier as a :class:`~dualsvm.training.fitted.LinearFit`,
    of a regression (``-s 11, 12, 13``) as a :class:`~dualsvm.training.fitted.LinearSVRFit`, or of
    the one-class SVM (``-s 21``) as a :class:`~dualsvm.training.fitted.LinearOneClassFit`.

    Labels become float64 ``classes_`` (sorted, as scikit-learn keeps them);
    ``coef_`` and ``intercept_`` are arranged so that the decision function gives
    LIBLINEAR's labels. The training certificate is unknown (None).

    Raises
    ------
    ModelError
        A malformed file.
    """
    text, bad = read_model_text(path, "LIBLINEAR")
    tokens = text.split()
    header, i = _read_header(tokens, bad)
    solver = header.get("solver_type")
    if solver == ONE_CLASS:
        return _one_class(header, tokens[i:], bad)
    if "rho" in header:
        raise bad(f"a 'rho' line in a {solver} model (only {ONE_CLASS} models have one)")
    if solver in LIBLINEAR_REGRESSIONS:
        return _regression(header, tokens[i:], bad)
    if solver not in LIBLINEAR_CLASSIFIERS:
        raise bad(f"unknown solver_type {solver!r}" if solver else "no solver_type")
    return _classifier(header, tokens[i:], bad)


def _read_header(tokens, bad):
    """(the header's values by key, the index of the first weight): the tokens up to
    the 'w' line, each key once with its checked value(s)."""
    header, i = {}, 0
    while True:
        if i >= len(tokens):
            raise bad("no 'w' line" if tokens else "empty file")
        key = tokens[i]
        i += 1
        if key == "w":
            return header, i
        if key not in _LIBLINEAR_KEYS:
            raise bad(f"unknown text {short_repr(key)}")
        if key in header:
            raise bad(f"'{key}' given twice")
        count = header.get("nr_class", 0) if key == "label" else 1
        if key == "label" and "nr_class" not in header:
            raise bad("'label' before 'nr_class'")
        values = tokens[i:i + count]
        i += count
        if len(values) < count:
            raise bad(f"'{key}' without a value")
        try:
            if key == "solver_type":
                header[key] = values[0]
            elif key in ("nr_class", "nr_feature"):
                header[key] = int(values[0])
            elif key == "label":
                header[key] = [int(v) for v in values]
            else:
                header[key] = float(values[0])
        except ValueError:
            raise bad(f"'{key}' has a bad value {short_repr(' '.join(values))}") from None


def _classifier(header, tokens, bad):
    """The :class:`LinearFit` of a classifier's header and weight tokens."""
    solver = header["solver_type"]
    for key in ("nr_class", "label", "nr_feature", "bias"):
        if key not in header:
            raise bad(f"no '{key}' line")
    k, d, bias = header["nr_class"], header["nr_feature"], header["bias"]
    labels = np.array(header["label"], dtype=np.float64)
    if k < 2:
        raise bad(f"nr_class {k}; a classifier needs at least 2 classes")
    if len(np.unique(labels)) != k:
        raise bad("repeated labels")
    if d < 1:
        raise bad(f"nr_feature {d}")
    _check_bias(bias, bad)
    nr_w = 1 if k == 2 and solver != "MCSVM_CS" else k
    n_rows = d + 1 if bias >= 0 else d
    w = _weights(tokens, n_rows, nr_w, bad)
    weights = w[:d]
    offsets = bias * w[d] if bias >= 0 else np.zeros(nr_w)

    if k == 2:
        if nr_w == 2:  # Crammer-Singer: label[0] wins when w_0'x > w_1'x
            weights = weights[:, :1] - weights[:, 1:]
            offsets = offsets[:1] - offsets[1:]
        if labels[0] > labels[1]:  # w decides for label[0] = the larger = classes_[1]
            classes, coef, intercept = labels[::-1].copy(), weights.T, offsets
        else:
            classes, coef, intercept = labels.copy(), -weights.T, -offsets
    else:
        order = np.argsort(labels, kind="stable")
        classes, coef, intercept = labels[order], weights[:, order].T, offsets[order]

    params = {"loss": "squared_hinge", **_CLASSIFIER_PARAMS.get(solver, {}),
              "fit_intercept": bool(bias > 0), "intercept_scaling": bias if bias > 0 else 1.0}
    return LinearFit(params=params, classes_=classes,
                     coef_=np.ascontiguousarray(coef, dtype=np.float64),
                     intercept_=np.ascontiguousarray(intercept, dtype=np.float64).reshape(-1))


def _check_bias(bias, bad):
    if not math.isfinite(bias):
        raise bad(f"bias {bias}")


def _weights(values, n_rows, nr_w, bad):
    """The (n_rows, nr_w) weights of a model file's tokens after ``w``, checked."""
    if len(values) != n_rows * nr_w:
        raise bad(f"{len(values)} weights, expected {n_rows} x {nr_w} = {n_rows * nr_w}"
                  + ("; truncated file?" if len(values) < n_rows * nr_w else ""))
    try:
        w = np.array([float(v) for v in values], dtype=np.float64).reshape(n_rows, nr_w)
    except ValueError:
        raise bad("a weight is not a number") from None
    if not np.isfinite(w).all():
        raise bad("weights contain NaN or infinity")
    return w


def _regression(header, values, bad):
    """The LinearSVRFit of a LIBLINEAR regression model's header and weight tokens."""
    for key in ("nr_feature", "bias"):
        if key not in header:
            raise bad(f"no '{key}' line")
    if "label" in header:
        raise bad("a regression model has no 'label' line")
    d, bias = header["nr_feature"], header["bias"]
    if d < 1:
        raise bad(f"nr_feature {d}")
    _check_bias(bias, bad)
    n_rows = d + 1 if bias >= 0 else d
    w = _weights(values, n_rows, 1, bad)[:, 0]
    params = {"loss": LIBLINEAR_REGRESSIONS[header["solver_type"]], "fit_intercept": bool(bias > 0),
              "intercept_scaling": bias if bias > 0 else 1.0}
    intercept = bias * w[d] if bias >= 0 else 0.0
    return LinearSVRFit(params=params, coef_=np.ascontiguousarray(w[:d]),
                        intercept_=np.array([intercept]))


def _one_class(header, values, bad):
    """The LinearOneClassFit of a LIBLINEAR ``-s 21`` model's header and weight tokens."""
    for key in ("nr_feature", "bias", "rho"):
        if key not in header:
            raise bad(f"no '{key}' line")
    if "label" in header:
        raise bad("a one-class model has no 'label' line")
    d, bias, rho = header["nr_feature"], header["bias"], header["rho"]
    if d < 1:
        raise bad(f"nr_feature {d}")
    if bias >= 0:  # LIBLINEAR refuses -B with -s 21, so its files say -1
        raise bad(f"bias {bias:g}: LIBLINEAR's one-class SVM has no bias feature")
    if not math.isfinite(rho):
        raise bad(f"rho {rho}")
    w = _weights(values, d, 1, bad)[:, 0]
    return LinearOneClassFit(params={}, coef_=np.ascontiguousarray(w[None, :]),
                             offset_=np.array([rho]))
