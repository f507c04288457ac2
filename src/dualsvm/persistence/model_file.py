"""Any model file: saved by the fit object's type, loaded by the file's content."""


import os

from ..exceptions import ModelError
from ..training.fitted import KernelFit, LinearFit, LinearOneClassFit, LinearSVRFit
from .container import ZIP_MAGIC, describe, read_container, read_head
from .kernel import read_kernel, save_kernel
from .liblinear import import_liblinear, is_liblinear_text
from .libsvm import import_libsvm, is_libsvm_text
from ..training.low_rank import LowRankFit
from .linear import read_linear, read_linear_one_class, read_linear_svr, save_linear, \
    save_linear_one_class, save_linear_svr
from .low_rank import read_low_rank, save_low_rank

__all__ = ["load_any_fit", "load_fit", "save_fit"]


def save_fit(fit, path):
    """Save a LinearFit, LinearSVRFit, LinearOneClassFit, KernelFit or LowRankFit as a dualsvm
    model file (atomically)."""
    if isinstance(fit, LinearFit):
        return save_linear(fit, path)
    if isinstance(fit, KernelFit):
        return save_kernel(fit, path)
    if isinstance(fit, LinearSVRFit):
        return save_linear_svr(fit, path)
    if isinstance(fit, LinearOneClassFit):
        return save_linear_one_class(fit, path)
    if isinstance(fit, LowRankFit):
        return save_low_rank(fit, path)
    raise ModelError(f"cannot save a {type(fit).__name__}; dualsvm.LinearSVC, dualsvm.LinearSVR, "
                     "dualsvm.LinearOneClassSVM and the kernel models (SVC, NuSVC, OneClassSVM, SVR, NuSVR) have a model "
                     "file format")


def load_fit(path):
    """The fit object (LinearFit, LinearSVRFit, LinearOneClassFit or KernelFit) of a dualsvm model file;
    ModelError otherwise."""
    path = os.fspath(path)
    meta, arrays = read_container(path)
    read = {"LinearSVC": read_linear, "LinearSVR": read_linear_svr,
            "LinearOneClassSVM": read_linear_one_class,
            "LowRankSVC": read_low_rank}.get(meta["estimator"], read_kernel)
    return read(path, meta, arrays)


def load_any_fit(path):
    """Load a dualsvm model file, a LIBLINEAR or a LIBSVM text model, detected by content."""
    path = os.fspath(path)
    head = read_head(path)
    if head.startswith(ZIP_MAGIC):
        return load_fit(path)
    if is_liblinear_text(head):
        return import_liblinear(path)
    if is_libsvm_text(head):
        return import_libsvm(path)
    raise ModelError(f"{path}: neither a dualsvm model file nor a LIBLINEAR or LIBSVM model "
                     f"({describe(head)})")
