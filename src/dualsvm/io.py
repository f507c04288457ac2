"""Data files and model files: svmlight data, dualsvm models, LIBLINEAR models.

Data
----
:func:`read_svmlight` reads LIBSVM/svmlight text (``label index:value ...``,
1-based increasing indices, ``#`` comments; ``.gz`` and ``.bz2`` are
decompressed by extension) with a compiled parser (:mod:`dualsvm._svmlight`:
the matrices of :func:`sklearn.datasets.load_svmlight_file`, without the cost
of importing scikit-learn), returns CSR float64 with 32-bit indices, and turns every failure into a
:class:`DataError` naming the file, the problem and, where it can, the line.

The dualsvm model file (format ``dualsvm-model``, version 1)
-----------------------------------------------------------
A zip archive written by :func:`numpy.savez` (an ``.npz`` file) holding exactly
these ``.npy`` entries, and nothing that needs pickle to read:

``metadata``
    1-D ``uint8`` array: a UTF-8 JSON object with

    * ``format`` = ``"dualsvm-model"``, ``format_version`` = ``1``,
      ``estimator`` = ``"LinearSVC"``, ``dualsvm_version``;
    * ``params``: the estimator's ``get_params()`` without ``callback``;
      ``class_weight`` as a list of ``[label, weight]`` pairs (JSON object keys
      are strings only), ``random_state`` as an int or null;
    * ``n_features_in`` (int), ``n_classes`` (int);
    * the training certificate, each null when unknown (an imported model):
      ``status`` (list of str), ``n_iter`` (int), ``primal``, ``dual``, ``gap``
      (lists of float, one per binary problem; null for a non-finite value).
``coef_``
    float64, shape (n_problems, n_features_in); n_problems is 1 for two
    classes, else n_classes (one-vs-rest).
``intercept_``
    float64, shape (n_problems,).
``classes_``
    1-D, sorted and unique; bool, integer, float64 or unicode strings.
``feature_names_in_`` (optional)
    unicode, shape (n_features_in,).

:func:`load_model` reads it with ``numpy.load(allow_pickle=False)`` and checks
the format name and version, every entry's dtype and shape, that all numbers
are finite and the parameters valid; anything else is a :class:`ModelError`.
Files are written to a temporary file in the target directory and moved into
place with :func:`os.replace`, so an interrupted save never destroys an
existing model.

LIBLINEAR text models
---------------------
:func:`export_liblinear` writes what LIBLINEAR 2.50's ``save_model`` writes::

    solver_type L2R_L2LOSS_SVC_DUAL     (L2R_L1LOSS_SVC_DUAL for the hinge loss)
    nr_class K
    label l_1 ... l_K                   (integers)
    nr_feature d
    bias B                              (-1: no bias)
    w
    d lines (d + 1 when B >= 0) of nr_w values "%.17g " each

with nr_w = 1 for two classes (w decides for ``label[0]``, so the labels are
written as ``classes_[1] classes_[0]``) and K otherwise. With B >= 0 the last
line is the bias weight w_b and the intercept is B * w_b; an exact
(unregularised) intercept is written with B = 1. :func:`import_liblinear`
reads the model of any LIBLINEAR classifier (linear SVMs, logistic
regression, Crammer-Singer): prediction needs only w.
"""

import contextlib
import json
import math
import os
import tempfile
import zipfile
import zlib

import numpy as np

__all__ = [
    "DataError", "ModelError", "read_svmlight", "save_model", "load_model",
    "load_any_model", "export_liblinear", "import_liblinear", "format_label",
]

FORMAT_NAME = "dualsvm-model"
FORMAT_VERSION = 1
_ENTRIES = {"metadata", "coef_", "intercept_", "classes_"}
_OPTIONAL_ENTRIES = {"feature_names_in_"}

#: LIBLINEAR 2.50's solver_type_table entries that are classifiers.
LIBLINEAR_CLASSIFIERS = (
    "L2R_LR", "L2R_L2LOSS_SVC_DUAL", "L2R_L2LOSS_SVC", "L2R_L1LOSS_SVC_DUAL",
    "MCSVM_CS", "L1R_L2LOSS_SVC", "L1R_LR", "L2R_LR_DUAL",
)
_LIBLINEAR_OTHERS = ("L2R_L2LOSS_SVR", "L2R_L2LOSS_SVR_DUAL", "L2R_L1LOSS_SVR_DUAL",
                     "ONECLASS_SVM")
_LIBLINEAR_KEYS = ("solver_type", "nr_class", "label", "nr_feature", "bias", "rho", "w")


class DataError(ValueError):
    """A data file that cannot be read as svmlight/LIBSVM data."""


class ModelError(ValueError):
    """A model file that is not a valid model, or a model that cannot be written."""


def _one_line(error):
    text = " ".join(str(error).split())
    return text or type(error).__name__


# --------------------------------------------------------------------------- data


def read_svmlight(path, n_features=None):
    """Read an svmlight/LIBSVM data file.

    Parameters
    ----------
    path : str or os.PathLike
        Text file, or ``.gz`` / ``.bz2`` compressed text. Indices start at 1.
    n_features : int or None, default=None
        Width of the returned matrix. Columns beyond it are dropped (LIBLINEAR
        ignores feature indices above the model's ``nr_feature``); a narrower
        file is padded with empty columns. None: the largest index in the file.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features), float64
        With int32 indices when they fit.
    y : ndarray of shape (n_samples,), float64

    Raises
    ------
    DataError
        Missing file, directory, empty file, truncated or corrupt compressed
        file, binary content, malformed lines, NaN or infinite values.
    """
    path = os.fspath(path)
    if not os.path.exists(path):
        raise DataError(f"{path}: no such file")
    if os.path.isdir(path):
        raise DataError(f"{path}: is a directory, not a data file")
    if os.path.getsize(path) == 0:
        raise DataError(f"{path}: empty file")

    import scipy.sparse as sp

    from ._svmlight import parse_svmlight

    try:
        with _open_data(path) as f:
            text = f.read()
    except (EOFError, zlib.error) as e:
        raise DataError(f"{path}: truncated or corrupt compressed file ({_one_line(e)})") from None
    except OSError as e:
        if e.filename is None and path.endswith((".gz", ".bz2")):
            raise DataError(f"{path}: truncated or corrupt compressed file "
                            f"({_one_line(e)})") from None
        raise DataError(f"{path}: cannot read ({e.strerror or _one_line(e)})") from None
    try:
        parsed = parse_svmlight(text)
    except ValueError:  # a token the grammar accepts that float() does not
        parsed = None
    if not isinstance(parsed, tuple):
        raise DataError(f"{path}: {_diagnose(text, parsed)}")
    y, indptr, indices, values, width = parsed
    X = sp.csr_matrix((values, indices, indptr), shape=(len(y), width))
    if X.shape[0] == 0:
        raise DataError(f"{path}: no data (only blank or comment lines)")
    if not np.isfinite(y).all():
        row = int(np.flatnonzero(~np.isfinite(y))[0])
        raise DataError(f"{path}: contains NaN or infinity (label of sample {row + 1})")
    if not np.isfinite(X.data).all():
        row = int(np.searchsorted(X.indptr, np.flatnonzero(~np.isfinite(X.data))[0], side="right")) - 1
        raise DataError(f"{path}: contains NaN or infinity (features of sample {row + 1})")
    if n_features is not None:
        X = _with_width(X, int(n_features))
    return _int32_indices(X), y


def _with_width(X, n_features):
    import scipy.sparse as sp

    if X.shape[1] > n_features:
        return X[:, :n_features].tocsr()
    if X.shape[1] < n_features:
        return sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], n_features))
    return X


def _int32_indices(X):
    limit = np.iinfo(np.int32).max
    if X.indices.dtype != np.int32 and X.nnz < limit and X.shape[1] < limit:
        X.indices = X.indices.astype(np.int32)
        X.indptr = X.indptr.astype(np.int32)
    return X


def _open_data(path):
    if path.endswith(".gz"):
        import gzip

        return gzip.open(path, "rb")
    if path.endswith(".bz2"):
        import bz2

        return bz2.BZ2File(path, "rb")
    return open(path, "rb")


def _diagnose(text, line=None):
    """'line N: problem' for the first line LIBLINEAR's rules reject (or line ``line``)."""
    lines = text.split(b"\n")
    numbers = range(1, len(lines) + 1) if line is None else [line]
    for number in numbers:
        problem = _line_problem(lines[number - 1])
        if problem:
            return f"line {number}: {problem}"
    return f"line {line}: malformed svmlight/LIBSVM data" if line else "malformed svmlight/LIBSVM data"


def _line_problem(raw):
    if b"\0" in raw:
        return "binary data, not svmlight/LIBSVM text"
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "not UTF-8 text (a binary file?)"
    tokens = line.split("#", 1)[0].split()
    if not tokens:
        return None
    label = tokens[0]
    if not _is_number(label):
        return f"label {_short(label)} is not a number"
    previous = 0
    for token in tokens[1:]:
        if token.startswith("qid:"):
            continue
        parts = token.split(":")
        if len(parts) != 2:
            return f"expected index:value, got {_short(token)}"
        index, value = parts
        try:
            index = int(index)
        except ValueError:
            return f"feature index {_short(index)} is not an integer"
        if index < 1:
            return f"feature index {index} (indices start at 1)"
        if index <= previous:
            return f"feature indices must increase (index {index} after {previous})"
        previous = index
        if not _is_number(value):
            return f"feature value {_short(value)} is not a number"
    return None


def _is_number(text):
    try:
        float(text)
    except ValueError:
        return False
    return "_" not in text


def _short(text, limit=30):
    return repr(text if len(text) <= limit else text[:limit] + "...")


# ---------------------------------------------------------------- atomic writes


def _atomic_write(path, write):
    """Write a file through a temporary file in its directory and os.replace.

    ``write(fileobj)`` receives a binary file object. On any failure (including
    KeyboardInterrupt) the temporary file is removed and ``path`` is untouched.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(21, "Is a directory", path)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                               dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _new_file_mode(path))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _new_file_mode(path):
    """Keep an existing file's mode; otherwise 0o666 minus the umask, like open()."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


# ------------------------------------------------------------- dualsvm models


def _fitted_arrays(estimator):
    """coef_, intercept_, classes_ of a fitted LinearSVC, checked for writing."""
    from .training import LinearFit

    if not isinstance(estimator, LinearFit):
        from .estimators import LinearSVC

        if not isinstance(estimator, LinearSVC):
            raise ModelError(f"cannot save a {type(estimator).__name__}; only dualsvm.LinearSVC "
                             "models have a model file format")
    if not hasattr(estimator, "coef_"):
        raise ModelError("the model is not fitted; call fit() before saving it")
    coef = np.asarray(estimator.coef_, dtype=np.float64)
    intercept = np.asarray(estimator.intercept_, dtype=np.float64).reshape(-1)
    classes = np.asarray(estimator.classes_)
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


def _json_float(x):
    x = float(x)
    return x if math.isfinite(x) else None


def _json_label(c):
    if isinstance(c, np.generic):
        c = c.item()
    return c


def save_model(estimator, path):
    """Save a fitted :class:`~dualsvm.LinearSVC` (or the :class:`~dualsvm.training.LinearFit`
    the command line trains) as a dualsvm model file.

    The format is described in this module's docstring. The write is atomic:
    an existing file at ``path`` is replaced only once the new one is complete.

    Raises
    ------
    ModelError
        Not a fitted LinearSVC, or labels or coefficients that cannot be stored.
    OSError
        The file cannot be written.
    """
    from . import __version__

    coef, intercept, classes = _fitted_arrays(estimator)
    params = estimator.get_params(deep=False)
    params.pop("callback", None)
    if isinstance(params.get("class_weight"), dict):
        params["class_weight"] = [[_json_label(k), float(v)]
                                  for k, v in params["class_weight"].items()]
    if not (params.get("random_state") is None or isinstance(params["random_state"], int)):
        params["random_state"] = None
    params = {k: _json_label(v) for k, v in params.items()}

    def optional(name, convert):
        value = getattr(estimator, name, None)
        return None if value is None else convert(value)

    meta = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "estimator": "LinearSVC",
        "dualsvm_version": __version__,
        "params": params,
        "n_features_in": int(coef.shape[1]),
        "n_classes": int(len(classes)),
        "status": optional("status_", lambda v: [str(s) for s in v]),
        "n_iter": optional("n_iter_", int),
        "primal": optional("primal_", lambda v: [_json_float(x) for x in v]),
        "dual": optional("dual_", lambda v: [_json_float(x) for x in v]),
        "gap": optional("gap_", lambda v: [_json_float(x) for x in v]),
    }
    try:
        text = json.dumps(meta, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError) as e:
        raise ModelError(f"the model's parameters cannot be stored as JSON ({_one_line(e)})") from None
    arrays = {
        "metadata": np.frombuffer(text.encode("utf-8"), dtype=np.uint8),
        "coef_": coef,
        "intercept_": intercept,
        "classes_": classes,
    }
    names = getattr(estimator, "feature_names_in_", None)
    if names is not None:
        arrays["feature_names_in_"] = np.asarray(names).astype(str)
    _atomic_write(path, lambda f: np.savez(f, **arrays))


def load_model(path):
    """Load a dualsvm model file written by :func:`save_model`.

    Returns
    -------
    LinearSVC
        Fitted: ``predict``, ``decision_function`` and ``score`` work; the
        training certificate (``status_``, ``n_iter_``, ``primal_``, ``dual_``,
        ``gap_``) is restored when the file has it.

    Raises
    ------
    ModelError
        Anything but a valid dualsvm model file (never unpickles).
    """
    path = os.fspath(path)
    head = _head(path)
    if not head.startswith(b"PK\x03\x04"):
        raise ModelError(f"{path}: not a dualsvm model file ({_describe(head)})")
    try:
        with open(path, "rb") as f, np.load(f, allow_pickle=False) as npz:
            names = set(npz.files)
            if "metadata" not in names:
                raise ModelError(f"{path}: not a dualsvm model file (a zip/npz archive "
                                 "without dualsvm metadata)")
            unknown = names - _ENTRIES - _OPTIONAL_ENTRIES
            missing = _ENTRIES - names
            if unknown or missing:
                raise ModelError(f"{path}: not a dualsvm model file (entries "
                                 f"missing: {sorted(missing)}, unexpected: {sorted(unknown)})")
            arrays = {name: npz[name] for name in names}
    except ModelError:
        raise
    except ValueError as e:
        if "allow_pickle" in str(e):
            raise ModelError(f"{path}: holds object (pickled) arrays, which are never "
                             "loaded; not a dualsvm model file") from None
        raise ModelError(f"{path}: damaged or unreadable model file ({_one_line(e)})") from None
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as e:
        raise ModelError(f"{path}: damaged or unreadable model file ({_one_line(e)})") from None
    meta = _read_metadata(path, arrays["metadata"])
    return _build_estimator(path, meta, arrays)


def _head(path, size=64):
    try:
        with open(path, "rb") as f:
            return f.read(size)
    except IsADirectoryError:
        raise ModelError(f"{path}: is a directory, not a model file") from None
    except FileNotFoundError:
        raise ModelError(f"{path}: no such model file") from None
    except OSError as e:
        raise ModelError(f"{path}: cannot read ({e.strerror or _one_line(e)})") from None


def _describe(head):
    if not head:
        return "empty file"
    if head.split(None, 1)[:1] == [b"solver_type"]:
        return "a LIBLINEAR text model; use import_liblinear / import-liblinear"
    if head[:1] == b"\x80":
        return "looks like a pickle, which is never loaded"
    if head.startswith(b"\x93NUMPY"):
        return "a single .npy array"
    if b"\0" in head:
        return "unknown binary content"
    return "unknown text content"


def _read_metadata(path, raw):
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise ModelError(f"{path}: bad metadata entry (dtype {raw.dtype}, shape {raw.shape})")
    try:
        meta = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ModelError(f"{path}: metadata is not valid JSON ({_one_line(e)})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise ModelError(f"{path}: not a dualsvm model file (format is "
                         f"{meta.get('format') if isinstance(meta, dict) else None!r})")
    version = meta.get("format_version")
    if version != FORMAT_VERSION:
        raise ModelError(f"{path}: dualsvm model format version {version!r} is not supported "
                         f"(this dualsvm reads version {FORMAT_VERSION})")
    if meta.get("estimator") != "LinearSVC":
        raise ModelError(f"{path}: unsupported estimator {meta.get('estimator')!r}")
    return meta


def _build_estimator(path, meta, arrays):
    from sklearn.utils._param_validation import InvalidParameterError

    from .estimators import LinearSVC

    def bad(what):
        return ModelError(f"{path}: invalid model file ({what})")

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

    params = meta.get("params")
    if not isinstance(params, dict):
        raise bad("params is not an object")
    estimator = LinearSVC()
    known = estimator.get_params(deep=False)
    params = {key: value for key, value in params.items() if key in known and key != "callback"}
    weights = params.get("class_weight")
    if isinstance(weights, list):
        try:
            params["class_weight"] = {label: float(weight) for label, weight in weights}
        except (TypeError, ValueError):
            raise bad("class_weight is not a list of [label, weight] pairs") from None
    try:
        estimator.set_params(**params)
        estimator._validate_params()
    except (InvalidParameterError, TypeError, ValueError) as e:
        raise bad(f"parameters: {_one_line(e)}") from None

    estimator.classes_ = classes
    estimator.coef_ = coef
    estimator.intercept_ = intercept
    estimator.n_features_in_ = d
    if "feature_names_in_" in arrays:
        names = arrays["feature_names_in_"]
        if names.dtype.kind != "U" or names.shape != (d,):
            raise bad(f"feature_names_in_ has dtype {names.dtype} and shape {names.shape}")
        estimator.feature_names_in_ = names.astype(object)
    _restore_certificate(estimator, meta, n_problems, bad)
    return estimator


def _restore_certificate(estimator, meta, n_problems, bad):
    status = meta.get("status")
    if status is not None:
        if not (isinstance(status, list) and len(status) == n_problems
                and all(isinstance(s, str) for s in status)):
            raise bad(f"status {status!r}")
        estimator.status_ = list(status)
    n_iter = meta.get("n_iter")
    if n_iter is not None:
        if not (isinstance(n_iter, int) and n_iter >= 0):
            raise bad(f"n_iter {n_iter!r}")
        estimator.n_iter_ = n_iter
    for name in ("primal", "dual", "gap"):
        values = meta.get(name)
        if values is None:
            continue
        if not (isinstance(values, list) and len(values) == n_problems and all(
                v is None or isinstance(v, (int, float)) for v in values)):
            raise bad(f"{name} {values!r}")
        setattr(estimator, name + "_", np.array([np.nan if v is None else v for v in values],
                                                dtype=np.float64))


def load_any_model(path):
    """Load a dualsvm model file or a LIBLINEAR text model, detected by content."""
    path = os.fspath(path)
    head = _head(path)
    if head.startswith(b"PK\x03\x04"):
        return load_model(path)
    if head.split(None, 1)[:1] and head.split(None, 1)[0] in {k.encode() for k in _LIBLINEAR_KEYS}:
        return import_liblinear(path)
    raise ModelError(f"{path}: neither a dualsvm model file nor a LIBLINEAR model "
                     f"({_describe(head)})")


# ----------------------------------------------------------- LIBLINEAR models


def format_label(label):
    """A class label as LIBLINEAR prints it: integral numbers without '.0'."""
    if isinstance(label, (bool, np.bool_)):
        return str(label)
    if isinstance(label, (int, np.integer)):
        return str(int(label))
    if isinstance(label, (float, np.floating)):
        x = float(label)
        if x.is_integer() and abs(x) < 2.0**53:
            return str(int(x))
        return "%.17g" % x
    return str(label)


def _integer_labels(classes):
    kind = classes.dtype.kind
    if kind in "iu" or kind == "b":
        values = classes.astype(np.int64)
    elif kind == "f" and np.isfinite(classes).all() and np.all(classes == np.round(classes)):
        values = classes.astype(np.int64)
    else:
        shown = ", ".join(format_label(c) for c in classes[:5])
        raise ModelError(f"LIBLINEAR model files need integer class labels; this model's "
                         f"labels are {shown}")
    info = np.iinfo(np.int32)
    if values.min() < info.min or values.max() > info.max:
        raise ModelError("LIBLINEAR model files need class labels within the 32-bit range")
    return [int(v) for v in values]


def export_liblinear(estimator, path):
    """Write a fitted LinearSVC as a LIBLINEAR 2.50 text model file.

    LIBLINEAR's ``predict`` gives the same labels as ``estimator.predict``.

    Raises
    ------
    ModelError
        Not a fitted LinearSVC, or class labels that are not integers.
    OSError
        The file cannot be written.
    """
    coef, intercept, classes = _fitted_arrays(estimator)
    labels = _integer_labels(classes)
    d = coef.shape[1]
    if len(labels) == 2:
        # LIBLINEAR's single w decides for label[0]; ours for classes_[1].
        labels = [labels[1], labels[0]]
    weights = coef.T  # (d, nr_w)
    if estimator.fit_intercept and estimator.intercept_mode == "augmented":
        bias = float(estimator.intercept_scaling)
        bias_row = intercept / bias
    elif estimator.fit_intercept or np.any(intercept != 0):
        bias, bias_row = 1.0, intercept  # exact bias: B * w_b = intercept_
    else:
        bias, bias_row = -1.0, None
    solver = "L2R_L1LOSS_SVC_DUAL" if estimator.loss == "hinge" else "L2R_L2LOSS_SVC_DUAL"
    lines = [f"solver_type {solver}", f"nr_class {len(labels)}",
             "label " + " ".join(str(label) for label in labels),
             f"nr_feature {d}", "bias %.17g" % bias, "w"]
    rows = weights if bias_row is None else np.vstack([weights, bias_row[None, :]])
    lines.extend("".join("%.17g " % v for v in row) for row in rows)
    text = "\n".join(lines) + "\n"
    _atomic_write(path, lambda f: f.write(text.encode("ascii")))


def import_liblinear(path):
    """Read a LIBLINEAR text model of a classifier as a fitted LinearSVC.

    Labels become float64 ``classes_`` (sorted, as scikit-learn keeps them);
    ``coef_`` and ``intercept_`` are arranged so that ``predict`` gives
    LIBLINEAR's labels. The training certificate is unknown and not set.

    Raises
    ------
    ModelError
        A malformed file, or a regression or one-class model.
    """
    from .estimators import LinearSVC

    path = os.fspath(path)
    head = _head(path)
    if head.startswith(b"PK\x03\x04"):
        raise ModelError(f"{path}: a zip archive (a dualsvm model file?), not a LIBLINEAR text model")

    def bad(what):
        return ModelError(f"{path}: not a valid LIBLINEAR model ({what})")

    try:
        with open(path, "rb") as f:
            text = f.read().decode("ascii")
    except UnicodeDecodeError:
        raise bad("binary or non-ASCII content") from None
    except OSError as e:
        raise ModelError(f"{path}: cannot read ({e.strerror or _one_line(e)})") from None
    tokens = text.split()
    header, i = {}, 0
    while True:
        if i >= len(tokens):
            raise bad("no 'w' line" if tokens else "empty file")
        key = tokens[i]
        i += 1
        if key == "w":
            break
        if key not in _LIBLINEAR_KEYS:
            raise bad(f"unknown text {_short(key)}")
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
            raise bad(f"'{key}' has a bad value {_short(' '.join(values))}") from None

    solver = header.get("solver_type")
    if solver in _LIBLINEAR_OTHERS:
        raise bad(f"solver_type {solver} is not a classifier; dualsvm imports classifiers "
                  f"({', '.join(LIBLINEAR_CLASSIFIERS)})")
    if solver not in LIBLINEAR_CLASSIFIERS:
        raise bad(f"unknown solver_type {solver!r}" if solver else "no solver_type")
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
    if not math.isfinite(bias):
        raise bad(f"bias {bias}")
    nr_w = 1 if k == 2 and solver != "MCSVM_CS" else k
    n_rows = d + 1 if bias >= 0 else d
    values = tokens[i:]
    if len(values) != n_rows * nr_w:
        raise bad(f"{len(values)} weights, expected {n_rows} x {nr_w} = {n_rows * nr_w}"
                  + ("; truncated file?" if len(values) < n_rows * nr_w else ""))
    try:
        w = np.array([float(v) for v in values], dtype=np.float64).reshape(n_rows, nr_w)
    except ValueError:
        raise bad("a weight is not a number") from None
    if not np.isfinite(w).all():
        raise bad("weights contain NaN or infinity")
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

    estimator = LinearSVC(
        loss="hinge" if solver == "L2R_L1LOSS_SVC_DUAL" else "squared_hinge",
        fit_intercept=bias > 0, intercept_scaling=bias if bias > 0 else 1.0)
    estimator.classes_ = classes
    estimator.coef_ = np.ascontiguousarray(coef, dtype=np.float64)
    estimator.intercept_ = np.ascontiguousarray(intercept, dtype=np.float64).reshape(-1)
    estimator.n_features_in_ = d
    return estimator
