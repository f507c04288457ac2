"""``dualsvm export MODEL --format onnx|sklearn|libsvm|liblinear OUTPUT``: a model file
(dualsvm's, LIBLINEAR's or LIBSVM's) written in another format. ``export-liblinear`` and
``export-libsvm`` are this command with ``--format liblinear`` / ``libsvm``.

* ``libsvm``, ``liblinear``: LIBSVM's text model of a kernel model, LIBLINEAR's of a
  linear one (:mod:`dualsvm.persistence`; NumPy only).
* ``onnx``: the ONNX model of :func:`dualsvm.onnx.to_onnx`, input float32 (``--dtype
  float64``: float64, dualsvm's decision values to rounding); a classifier's
  probabilities as an (n, n_classes) array (no ZipMap).
* ``sklearn``: the fitted scikit-learn estimator of ``model.to_sklearn()`` as a
  pickle (load it with ``joblib.load`` or ``pickle.load``, in an environment with
  scikit-learn 1.6 to 1.9 and without dualsvm); ``--no-probability`` leaves the
  probability model out (scikit-learn computes two-class and one-class
  probabilities otherwise than dualsvm). dualsvm itself never loads pickles.
"""

import pickle
from functools import partial

import numpy as np

from ..data.atomic_files import atomic_write
from ..exceptions import ModelError
from ..persistence.liblinear import export_liblinear
from ..persistence.libsvm import export_libsvm
from ..persistence.model_file import load_any_fit
from ..training.fitted import KernelFit
from ..training.low_rank import LowRankFit
from .output_files import check_writable, write_error
from .parser import PROG, CommandError, UsageError

#: What each format writes.
FORMATS = {"onnx": "ONNX model", "sklearn": "scikit-learn pickle",
           "libsvm": "LIBSVM model file", "liblinear": "LIBLINEAR model file"}
#: The text formats: their writer and the kind of model they hold.
_TEXT_FORMATS = {"liblinear": (export_liblinear, "linear"), "libsvm": (export_libsvm, "kernel")}


def run(args):
    what = FORMATS[args.format]
    if args.dtype is not None and args.format != "onnx":
        raise UsageError(f"{PROG} export", "--dtype applies to --format onnx")
    if args.no_probability and args.format != "sklearn":
        raise UsageError(f"{PROG} export", "--no-probability applies to --format sklearn")
    check_writable(args.output, what)
    if args.format in _TEXT_FORMATS:
        export, holds = _TEXT_FORMATS[args.format]
        fit = load_any_fit(args.model)
        kind = "kernel" if isinstance(fit, KernelFit) else \
            "low-rank" if isinstance(fit, LowRankFit) else "linear"
        if kind != holds:
            raise ModelError(f"{args.model}: a {kind} model; only {holds} models have a "
                             f"{args.format.upper()} format")
        write = partial(export, fit)
    else:
        from ..estimators.model_io import load_any_model

        model = load_any_model(args.model)
        content = _onnx(model, args.dtype) if args.format == "onnx" else \
            pickle.dumps(model.to_sklearn(probability=not args.no_probability))
        write = partial(atomic_write, write=lambda f: f.write(content))
    try:
        write(args.output)
    except OSError as e:
        raise write_error(args.output, what, e) from None
    return 0


def _onnx(model, dtype):
    """The serialized ONNX model of an estimator, input rows of ``dtype`` (float32)."""
    try:
        from .. import onnx
        import skl2onnx  # noqa: F401  (the one the message names)
    except ImportError as e:
        raise CommandError(f"--format onnx needs skl2onnx, onnx and onnxruntime: pip install "
                           f"'dualsvm[onnx]' ({e})") from None
    sample = np.zeros((1, model.n_features_in_), dtype=dtype or "float32")
    options = {id(model): {"zipmap": False}} if hasattr(model, "classes_") else None
    return onnx.to_onnx(model, sample, options=options).SerializeToString()
