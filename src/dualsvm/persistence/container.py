"""The dualsvm model file: one container for every model kind.

A zip archive written by :func:`numpy.savez` (an ``.npz`` file) of ``.npy``
entries and nothing that needs pickle to read, one of them ``metadata``: a 1-D
``uint8`` array holding a UTF-8 JSON object with

* ``format`` = ``"dualsvm-model"``, ``format_version`` = ``1``, ``estimator``
  (the model kind: ``"LinearSVC"``, ``"LinearSVR"``, ``"LinearOneClassSVM"``, or a kernel model's estimator, see
  :mod:`.kernel`), ``dualsvm_version``;
* ``params``: the estimator parameters without ``callback``; ``class_weight`` as a
  list of ``[label, weight]`` pairs (JSON object keys are strings only),
  ``random_state`` as an int or null (:func:`params_to_json`);
* ``n_features_in`` (int), ``n_classes`` (int);
* the training certificate, each null when unknown (an imported model):
  ``status`` (list of str), ``n_iter``, ``primal``, ``dual``, ``gap`` (lists of
  float, one per binary problem; null for a non-finite value).

The entries of each kind are described in :mod:`.linear` and :mod:`.kernel`.
:func:`read_container` reads with ``numpy.load(allow_pickle=False)`` and checks
the format name and version; anything else is a :class:`ModelError`. Files are
written to a temporary file in the target directory and moved into place
(:func:`dualsvm.data.atomic_files.atomic_write`), so an interrupted save never destroys an
existing model.
"""

import json
import math
import os
import zipfile
import zlib

import numpy as np

from ..constants import VERSION
from ..data.atomic_files import atomic_write
from ..exceptions import ModelError, one_line

FORMAT_NAME = "dualsvm-model"
FORMAT_VERSION = 1
#: The model kinds, by the ``estimator`` name in the metadata.
KINDS = ("LinearSVC", "SVC", "NuSVC", "OneClassSVM", "SVR", "NuSVR", "LinearSVR",
         "LinearOneClassSVM", "LowRankSVC")
ZIP_MAGIC = b"PK\x03\x04"


def json_float(x):
    """A float for JSON: None when it is not finite."""
    x = float(x)
    return x if math.isfinite(x) else None


def _json_value(value):
    return value.item() if isinstance(value, np.generic) else value


def params_to_json(params):
    """Estimator parameters as JSON values (``callback`` dropped; ``class_weight``
    as [label, weight] pairs; ``random_state`` an int or None)."""
    params = dict(params)
    params.pop("callback", None)
    if isinstance(params.get("class_weight"), dict):
        params["class_weight"] = [[_json_value(k), float(v)]
                                  for k, v in params["class_weight"].items()]
    if not (params.get("random_state") is None or isinstance(params["random_state"], int)):
        params["random_state"] = None
    return {k: _json_value(v) for k, v in params.items()}


def params_from_json(meta, bad):
    """The parameters of a model file as Python values (undoes :func:`params_to_json`);
    ``bad(what)`` makes the error for an invalid entry."""
    params = meta.get("params")
    if not isinstance(params, dict):
        raise bad("params is not an object")
    params = {key: value for key, value in params.items() if key != "callback"}
    weights = params.get("class_weight")
    if isinstance(weights, list):
        try:
            params["class_weight"] = {label: float(weight) for label, weight in weights}
        except (TypeError, ValueError):
            raise bad("class_weight is not a list of [label, weight] pairs") from None
    return params


def certificate_to_json(fit):
    """``status``, ``primal``, ``dual``, ``gap`` of a fit's metadata (None when unknown)."""
    def optional(name, convert):
        value = getattr(fit, name + "_", None)
        return None if value is None else convert(value)

    return {"status": optional("status", lambda v: [str(s) for s in v]),
            **{name: optional(name, lambda v: [json_float(x) for x in v])
               for name in ("primal", "dual", "gap")}}


def write_container(path, kind, meta, arrays):
    """Write a model file of ``kind`` (one of KINDS): ``meta`` (the JSON fields besides
    the format's own) and the ``arrays`` entries, atomically."""
    meta = {"format": FORMAT_NAME, "format_version": FORMAT_VERSION, "estimator": kind,
            "dualsvm_version": VERSION, **meta}
    try:
        text = json.dumps(meta, allow_nan=False, sort_keys=True)
    except (TypeError, ValueError) as e:
        raise ModelError(f"the model's parameters cannot be stored as JSON ({one_line(e)})") from None
    arrays = {"metadata": np.frombuffer(text.encode("utf-8"), dtype=np.uint8), **arrays}
    atomic_write(path, lambda f: np.savez(f, **arrays))


def read_head(path, size=64):
    """The first bytes of a model file; ModelError for a missing or unreadable one."""
    try:
        with open(path, "rb") as f:
            return f.read(size)
    except IsADirectoryError:
        raise ModelError(f"{path}: is a directory, not a model file") from None
    except FileNotFoundError:
        raise ModelError(f"{path}: no such model file") from None
    except OSError as e:
        raise ModelError(f"{path}: cannot read ({e.strerror or one_line(e)})") from None


def describe(head):
    """What a file that is not a dualsvm model looks like, from its first bytes."""
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


def read_container(path):
    """(metadata, entries) of a dualsvm model file, format name and version checked.

    Raises ModelError for anything but a readable dualsvm model file (never unpickles).
    """
    path = os.fspath(path)
    head = read_head(path)
    if not head.startswith(ZIP_MAGIC):
        raise ModelError(f"{path}: not a dualsvm model file ({describe(head)})")
    try:
        with open(path, "rb") as f, np.load(f, allow_pickle=False) as npz:
            names = set(npz.files)
            if "metadata" not in names:
                raise ModelError(f"{path}: not a dualsvm model file (a zip/npz archive "
                                 "without dualsvm metadata)")
            arrays = {name: npz[name] for name in names}
    except ModelError:
        raise
    except ValueError as e:
        if "allow_pickle" in str(e):
            raise ModelError(f"{path}: holds object (pickled) arrays, which are never "
                             "loaded; not a dualsvm model file") from None
        raise ModelError(f"{path}: damaged or unreadable model file ({one_line(e)})") from None
    except (OSError, EOFError, KeyError, zipfile.BadZipFile, zlib.error) as e:
        raise ModelError(f"{path}: damaged or unreadable model file ({one_line(e)})") from None
    meta = _read_metadata(path, arrays.pop("metadata"))
    return meta, arrays


def _read_metadata(path, raw):
    if raw.dtype != np.uint8 or raw.ndim != 1:
        raise ModelError(f"{path}: bad metadata entry (dtype {raw.dtype}, shape {raw.shape})")
    try:
        meta = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ModelError(f"{path}: metadata is not valid JSON ({one_line(e)})") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_NAME:
        raise ModelError(f"{path}: not a dualsvm model file (format is "
                         f"{meta.get('format') if isinstance(meta, dict) else None!r})")
    version = meta.get("format_version")
    if version != FORMAT_VERSION:
        raise ModelError(f"{path}: dualsvm model format version {version!r} is not supported "
                         f"(this dualsvm reads version {FORMAT_VERSION})")
    if meta.get("estimator") not in KINDS:
        raise ModelError(f"{path}: unsupported estimator {meta.get('estimator')!r}")
    return meta


def certificate_from_json(meta, n_problems, bad):
    """``status_``, ``primal_``, ``dual_``, ``gap_`` from a model file's metadata, each
    None when the file does not have it (an imported model)."""
    out = {}
    status = meta.get("status")
    if status is not None and not (isinstance(status, list) and len(status) == n_problems
                                   and all(isinstance(s, str) for s in status)):
        raise bad(f"status {status!r}")
    out["status_"] = None if status is None else list(status)
    for name in ("primal", "dual", "gap"):
        values = meta.get(name)
        if values is not None and not (isinstance(values, list) and len(values) == n_problems
                                       and all(v is None or isinstance(v, (int, float))
                                               for v in values)):
            raise bad(f"{name} {values!r}")
        out[name + "_"] = None if values is None else np.array(
            [np.nan if v is None else v for v in values], dtype=np.float64)
    return out
