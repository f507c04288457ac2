"""``dualsvm export-liblinear`` and ``import-liblinear``: LIBLINEAR text models."""

from ..exceptions import ModelError
from ..fits import KernelFit
from ..persistence.liblinear import export_liblinear, import_liblinear
from ..persistence.model_file import load_any_fit, save_fit
from .outputs import check_writable, write_error


def run_export(args):
    check_writable(args.out, "LIBLINEAR model file")
    fit = load_any_fit(args.model)
    if isinstance(fit, KernelFit):
        raise ModelError(f"{args.model}: a kernel model; only linear models have a LIBLINEAR "
                         "format")
    try:
        export_liblinear(fit, args.out)
    except OSError as e:
        raise write_error(args.out, "LIBLINEAR model file", e) from None
    return 0


def run_import(args):
    check_writable(args.model, "model file")
    fit = import_liblinear(args.source)
    try:
        save_fit(fit, args.model)
    except OSError as e:
        raise write_error(args.model, "model file", e) from None
    return 0
