"""What LIBLINEAR's and LIBSVM's text models share: reading the text, integer labels."""

import os

import numpy as np

from ..data.svmlight import format_label
from ..exceptions import ModelError, one_line
from .container import ZIP_MAGIC, read_head


def read_model_text(path, tool):
    """(text, bad) of the text model of ``tool`` ('LIBLINEAR', 'LIBSVM') at ``path``:
    its ASCII text, checked to end with a newline (the tools end every line with one),
    and ``bad(what)``, the ModelError of an invalid file.

    Raises
    ------
    ModelError
        A zip archive (a dualsvm model file), binary content, a truncated or
        unreadable file.
    """
    path = os.fspath(path)
    if read_head(path).startswith(ZIP_MAGIC):
        raise ModelError(f"{path}: a zip archive (a dualsvm model file?), not a {tool} text model")

    def bad(what):
        return ModelError(f"{path}: not a valid {tool} model ({what})")

    try:
        with open(path, "rb") as f:
            text = f.read().decode("ascii")
    except UnicodeDecodeError:
        raise bad("binary or non-ASCII content") from None
    except OSError as e:
        raise ModelError(f"{path}: cannot read ({e.strerror or one_line(e)})") from None
    if text and not text.endswith("\n"):
        raise bad("no newline at the end: a truncated file?")
    return text, bad


def integer_labels(classes, tool):
    """The class labels as Python ints (``tool``'s model files hold C ints); ModelError
    for labels that are not integers or not within the 32-bit range."""
    kind = classes.dtype.kind
    if kind in "iu" or kind == "b":
        values = classes.astype(np.int64)
    elif kind == "f" and np.isfinite(classes).all() and np.all(classes == np.round(classes)):
        values = classes.astype(np.int64)
    else:
        shown = ", ".join(format_label(c) for c in classes[:5])
        raise ModelError(f"{tool} model files need integer class labels; this model's "
                         f"labels are {shown}")
    info = np.iinfo(np.int32)
    if values.min() < info.min or values.max() > info.max:
        raise ModelError(f"{tool} model files need class labels within the 32-bit range")
    return [int(v) for v in values]
