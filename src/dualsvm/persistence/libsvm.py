"""LIBSVM text models: export and import.

:func:`export_libsvm` writes a kernel model (:class:`~dualsvm.training.fitted.KernelFit`) as
LIBSVM 3.37's ``svm_save_model`` writes it::

    svm_type c_svc|nu_svc|one_class|epsilon_svr|nu_svr
    kernel_type linear|polynomial|rbf|sigmoid|precomputed
    degree d                          (polynomial)
    gamma g                           (polynomial, rbf, sigmoid)
    coef0 c                           (polynomial, sigmoid)
    nr_class K                        (2 for one-class and regression models)
    total_sv l
    rho r_1 ... r_{K(K-1)/2}          (-intercept_ of every pair)
    label l_1 ... l_K                 (classifiers: integers, in LIBSVM's order)
    probA ..., probB ...              (Platt's sigmoids; a regression has probA = [sigma])
    prob_density_marks m_1 ... m_10   (a one-class model trained with -b 1)
    nr_sv n_1 ... n_K                 (classifiers)
    SV
    l lines: K - 1 coefficients "%.17g ", then "index:value " of the support vector

numbers as ``%.17g``, as LIBSVM writes them, except that LIBSVM writes the
support vectors' values with ``%.8g``: they are written here with the fewest digits
that read back to the same float (Python's ``repr``; 0.583333 stays 0.583333), so
the file predicts exactly as the model. For a precomputed kernel a support vector
is ``0:i``, its 1-based training row. The classes are written in the order of
LIBSVM's model (``KernelFit.libsvm_labels``: first appearance in the training
data), the pairs and support vectors in that order (:func:`~dualsvm.training.fitted.reorder_classes`).

:func:`import_libsvm` reads such a file (any of the five svm_types and kernels)
into a KernelFit with sorted classes; the file's label order is kept as its
``libsvm_labels``. LIBSVM's files do not record the training rows of the support
vectors (``support_`` is then their position in the file, or for a precomputed
kernel the row numbers they give) nor the width of the data: ``n_features_in_`` is
the largest feature index of a support vector.
"""

import math

import numpy as np
import scipy.sparse as sp

from ..constants import CLASSIFIER_TYPES, SVM_TYPES
from ..data.atomic_files import atomic_write
from ..data.svmlight import short_repr
from ..exceptions import ModelError
from ..kernels import make_kernel
from ..training.fitted import KernelFit, reorder_classes
from ..training.probability import N_MARKS
from .text_format import integer_labels, read_model_text

#: LIBSVM's kernel_type names of our kernels.
KERNEL_TYPES = {"linear": "linear", "poly": "polynomial", "rbf": "rbf", "sigmoid": "sigmoid",
                "precomputed": "precomputed"}
_KERNELS = {name: ours for ours, name in KERNEL_TYPES.items()}
#: The header lines of each kernel's parameters.
_KERNEL_LINES = {"poly": ("degree", "gamma", "coef0"), "rbf": ("gamma",),
                 "sigmoid": ("gamma", "coef0"), "linear": (), "precomputed": ()}
_HEADER_KEYS = ("svm_type", "kernel_type", "degree", "gamma", "coef0", "nr_class", "total_sv",
                "rho", "label", "probA", "probB", "prob_density_marks", "nr_sv")


def is_libsvm_text(head):
    """Whether a file's first bytes start like a LIBSVM text model."""
    return head.split(None, 1)[:1] == [b"svm_type"]


def _numbers(values):
    return " ".join("%.17g" % v for v in values)


def _shortest(value):
    """The shortest text that reads back as ``value`` (no '.0' on integers, as %g)."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def export_libsvm(fit, path):
    """Write a :class:`~dualsvm.training.fitted.KernelFit` as a LIBSVM 3.37 text model file.

    LIBSVM's ``svm-predict`` (with ``-b 1`` too) gives the model's predictions.

    Raises
    ------
    ModelError
        Class labels that are not integers, coefficients that are not finite, or an
        early-prediction model (which LIBSVM's format cannot hold).
    OSError
        The file cannot be written.
    """
    if fit.cluster_models_ is not None:
        raise ModelError("an early-prediction model (solver='dc' with early_stop_level) "
                         "decides each row by the model of its nearest cluster, which a LIBSVM "
                         "model cannot hold: refit without early_stop_level to export it")
    classifies = fit.kind in CLASSIFIER_TYPES
    if classifies:
        fit = reorder_classes(fit, fit.libsvm_order())
        labels = integer_labels(np.asarray(fit.classes_), "LIBSVM")
    arrays = [fit.dual_coef_, fit.intercept_] + [a for a in (fit.probA_, fit.probB_,
                                                            fit.prob_density_marks_)
                                                 if a is not None]
    if not all(np.isfinite(a).all() for a in arrays):
        raise ModelError("the model's coefficients contain NaN or infinity")
    kernel = fit.kernel
    lines = [f"svm_type {fit.kind}", f"kernel_type {KERNEL_TYPES[kernel.name]}"]
    values = {"degree": "%d" % kernel.degree, "gamma": "%.17g" % kernel.gamma,
              "coef0": "%.17g" % kernel.coef0}
    lines += [f"{key} {values[key]}" for key in _KERNEL_LINES[kernel.name]]
    n_sv = fit.dual_coef_.shape[1]
    lines += [f"nr_class {len(fit.classes_) if classifies else 2}", f"total_sv {n_sv}",
              f"rho {_numbers(-np.asarray(fit.intercept_))}"]
    if classifies:
        lines.append("label " + " ".join(str(v) for v in labels))
    if fit.probA_ is not None:
        lines.append(f"probA {_numbers(fit.probA_)}")
        if classifies:  # a regression's model has probA = [sigma] only
            lines.append(f"probB {_numbers(fit.probB_)}")
    if fit.prob_density_marks_ is not None:
        lines.append(f"prob_density_marks {_numbers(fit.prob_density_marks_)}")
    if classifies:
        lines.append("nr_sv " + " ".join(str(int(v)) for v in fit.n_support_))
    lines.append("SV")
    coef = np.asarray(fit.dual_coef_)
    if kernel.name == "precomputed":
        rows = [f"0:{int(t) + 1} " for t in fit.support_]
    else:
        sv = sp.csr_matrix(fit.support_vectors_)
        rows = ["".join(f"{j + 1}:{_shortest(v)} "
                        for j, v in zip(sv.indices[sv.indptr[t]:sv.indptr[t + 1]],
                                        sv.data[sv.indptr[t]:sv.indptr[t + 1]]))
                for t in range(n_sv)]
    lines += ["".join("%.17g " % c for c in coef[:, t]) + rows[t] for t in range(n_sv)]
    text = "\n".join(lines) + "\n"
    atomic_write(path, lambda f: f.write(text.encode("ascii")))


def import_libsvm(path):
    """Read a LIBSVM text model as a :class:`~dualsvm.training.fitted.KernelFit` (see the module
    docstring); its predictions, and with probabilities ``predict_proba``, are
    LIBSVM's. The training certificate is unknown.

    Raises
    ------
    ModelError
        A malformed file.
    """
    text, bad = read_model_text(path, "LIBSVM")
    header = _Header(text.splitlines(), bad)
    kind = header.value("svm_type", str)[0]
    if kind not in SVM_TYPES:
        raise bad(f"unknown svm_type {kind!r}")
    kernel = _kernel(header, bad)
    classifies = kind in CLASSIFIER_TYPES
    k = header.value("nr_class", int)[0]
    if k < 2 or (not classifies and k != 2):
        raise bad(f"nr_class {k}")
    n_pairs = k * (k - 1) // 2 if classifies else 1
    n_sv = header.value("total_sv", int)[0]
    rho = header.value("rho", float, n_pairs)
    labels = header.value("label", int, k, needed=classifies)
    n_support = header.value("nr_sv", int, k, needed=classifies)
    prob_a = header.value("probA", float, n_pairs, needed=False)
    prob_b = header.value("probB", float, n_pairs, needed=False)
    marks = header.value("prob_density_marks", float, N_MARKS, needed=False)
    _check_classes(kind, k, n_sv, labels, n_support, bad)
    _check_probability_lines(kind, prob_a, prob_b, marks, bad)
    coef, support, sv, width = _support_vectors(header.sv_lines, n_sv, max(k - 1, 1),
                                                kernel.name == "precomputed", bad)
    params = {"kernel": kernel.name, "gamma": kernel.gamma, "degree": kernel.degree,
              "coef0": kernel.coef0}
    if (classifies and prob_a is not None) or marks is not None:
        params["probability"] = True
    nan = np.full(n_pairs, np.nan)
    fit = KernelFit(
        params=params, kernel=kernel,
        classes_=np.array(labels if classifies else [], dtype=np.float64),
        support_=support.astype(np.int32), support_vectors_=sv,
        n_support_=np.array(n_support if classifies else [n_sv], dtype=np.int32),
        dual_coef_=coef, intercept_=-np.array(rho), n_features_in_=width,
        n_iter_=np.zeros(n_pairs, dtype=np.int64), primal_=nan, dual_=nan.copy(),
        gap_=nan.copy(), status_=["unknown"] * n_pairs, history_=[[] for _ in range(n_pairs)],
        kind=kind, probA_=None if prob_a is None else np.array(prob_a),
        probB_=None if prob_a is None else np.array(prob_b if classifies else [0.0]),
        prob_density_marks_=None if marks is None else np.array(marks))
    if not classifies:
        return fit
    fit = reorder_classes(fit, np.argsort(fit.classes_))
    fit.libsvm_labels = np.array(labels, dtype=np.float64)
    return fit


class _Header:
    """The lines of a LIBSVM model before ``SV`` (each key once, a known one), read by
    :meth:`value`; ``sv_lines``: the lines after it. ``bad(reason)``: the ModelError."""

    def __init__(self, lines, bad):
        self.bad = bad
        self.fields = {}
        for number, line in enumerate(lines):
            tokens = line.split()
            if tokens == ["SV"]:
                break
            if not tokens or tokens[0] not in _HEADER_KEYS:
                raise bad(f"unknown text {short_repr(line)} on line {number + 1}")
            if tokens[0] in self.fields:
                raise bad(f"'{tokens[0]}' given twice")
            self.fields[tokens[0]] = tokens[1:]
        else:
            raise bad("no 'SV' line" if lines else "empty file")
        self.sv_lines = lines[number + 1:]

    def value(self, key, convert, count=1, needed=True):
        """The ``count`` values of ``key`` through ``convert`` (int, float: finite, str);
        None for a missing key that is not ``needed``."""
        bad = self.bad
        if key not in self.fields:
            if needed:
                raise bad(f"no '{key}' line")
            return None
        values = self.fields[key]
        if len(values) != count:
            raise bad(f"'{key}' has {len(values)} values, expected {count}")
        try:
            parsed = [convert(v) for v in values]
        except ValueError:
            raise bad(f"'{key}' has a bad value {short_repr(' '.join(values))}") from None
        if convert is float and not all(math.isfinite(v) for v in parsed):
            raise bad(f"'{key}' holds NaN or infinity")
        return parsed


def _kernel(header, bad):
    """The kernel of the kernel_type line and its parameters' lines."""
    kernel_name = _KERNELS.get(header.value("kernel_type", str)[0])
    if kernel_name is None:
        raise bad(f"unknown kernel_type {header.fields['kernel_type'][0]!r}")
    parameters = {key: header.value(key, int if key == "degree" else float)[0]
                  for key in _KERNEL_LINES[kernel_name]}
    try:
        return make_kernel(kernel_name, **{"gamma": 1.0, **parameters})
    except ValueError as e:
        raise bad(str(e)) from None


def _check_classes(kind, k, n_sv, labels, n_support, bad):
    """A classifier has k distinct labels and nr_sv adding up to total_sv; the other
    svm_types have neither line."""
    if kind not in CLASSIFIER_TYPES:
        if labels is not None or n_support is not None:
            raise bad(f"a {kind} model has no 'label' or 'nr_sv' line")
    elif len(set(labels)) != k or sum(n_support) != n_sv or min(n_support) < 0:
        raise bad("repeated labels, or nr_sv does not add up to total_sv")


def _check_probability_lines(kind, prob_a, prob_b, marks, bad):
    """probA and probB go together in a classifier's model, probA alone in a
    regression's, prob_density_marks in a one-class model's."""
    if kind in CLASSIFIER_TYPES:
        fits = (prob_a is None) == (prob_b is None) and marks is None
    elif kind == "one_class":
        fits = prob_a is None and prob_b is None
    else:
        fits = prob_b is None and marks is None
    if not fits:
        raise bad("probA and probB go together in a classifier's model, probA alone in a "
                  "regression's, prob_density_marks in a one-class model's")


def _support_vectors(lines, n_sv, n_coef, precomputed, bad):
    """(coefficients (n_coef, n_sv), support_, support vectors (CSR), width) of the
    SV lines: for a precomputed kernel, each is '0:i' (i its 1-based training row;
    no vectors, the width the largest i); otherwise the width is the largest
    feature index."""
    if len(lines) != n_sv:
        raise bad(f"{len(lines)} support vector lines, expected total_sv = {n_sv}"
                  + ("; truncated file?" if len(lines) < n_sv else ""))
    coef, indptr, indices, data = _parse_support_vectors(lines, n_coef, bad)
    if precomputed:
        if len(data) != n_sv or np.any(np.diff(indptr) != 1) or np.any(indices != 0) \
                or np.any(data < 1) or np.any(data != np.round(data)):
            raise bad("a precomputed kernel's support vector is '0:i', i its training row")
        width = int(data.max()) if len(data) else 1
        return coef, data.astype(np.int64) - 1, np.empty((0, 0)), width
    if len(indices) and indices.min() < 1:
        raise bad("feature indices start at 1")
    width = int(indices.max()) if len(indices) else 1
    sv = sp.csr_matrix((data, indices - 1, indptr), shape=(n_sv, width))
    sv.sum_duplicates()
    return coef, np.arange(n_sv), sv, width


def _parse_support_vectors(lines, n_coef, bad):
    """(coefficients (n_coef, l), CSR indptr, 1-based indices, values) of the SV lines."""
    coef = np.zeros((n_coef, len(lines)))
    indptr, indices, data = [0], [], []
    for t, line in enumerate(lines):
        tokens = line.split()
        if len(tokens) < n_coef:
            raise bad(f"support vector {t + 1} has fewer than {n_coef} coefficients")
        try:
            coef[:, t] = [float(v) for v in tokens[:n_coef]]
            for token in tokens[n_coef:]:
                index, _, number = token.partition(":")
                indices.append(int(index))
                data.append(float(number))
        except ValueError:
            raise bad(f"support vector {t + 1}: bad text {short_repr(line)}") from None
        indptr.append(len(indices))
    data = np.array(data, dtype=np.float64)
    if not (np.isfinite(coef).all() and np.isfinite(data).all()):
        raise bad("support vectors or coefficients hold NaN or infinity")
    return coef, np.array(indptr), np.array(indices, dtype=np.int64), data
