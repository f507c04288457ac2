"""``dualsvm export-liblinear`` / ``import-liblinear`` and ``export-libsvm`` /
``import-libsvm``: LIBLINEAR's text models of linear models, LIBSVM's of kernel models
(``args.tool`` names the format)."""

from ..exceptions import ModelError
from ..persistence.liblinear import export_liblinear, import_liblinear
from ..persistence.libsvm import export_libsvm, import_libsvm
from ..persistence.model_file import load_any_fit, save_fit
from ..training.fitted import KernelFit
from .output_files import check_writable, write_error

#: Each tool's export and import functions, and the kind of model its format holds.
_FORMATS = {"LIBLINEAR": (export_liblinear, import_liblinear, "linear"),
            "LIBSVM": (export_libsvm, import_libsvm, "kernel")}


def run_export(args):
    export, _, holds = _FORMATS[args.tool]
    check_writable(args.out, f"{args.tool} model file")
    fit = load_any_fit(args.model)
    kind = "kernel" if isinstance(fit, KernelFit) else "linear"
    if kind != holds:
        raise ModelError(f"{args.model}: a {kind} model; only {holds} models have a "
                         f"{args.tool} format")
    try:
        export(fit, args.out)
    except OSError as e:
        raise write_error(args.out, f"{args.tool} model file", e) from None
    return 0


def run_import(args):
    check_writable(args.model, "model file")
    fit = _FORMATS[args.tool][1](args.source)
    try:
        save_fit(fit, args.model)
    except OSError as e:
        raise write_error(args.model, "model file", e) from None
    return 0
