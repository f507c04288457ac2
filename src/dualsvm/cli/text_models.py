"""``dualsvm import-liblinear`` and ``import-libsvm``: a LIBLINEAR or LIBSVM text model read
into a dualsvm model file (``args.tool`` names the format; the exports are :mod:`.export`)."""

from ..persistence.liblinear import import_liblinear
from ..persistence.libsvm import import_libsvm
from ..persistence.model_file import save_fit
from .output_files import check_writable, write_error

#: Each tool's import function.
_IMPORTS = {"LIBLINEAR": import_liblinear, "LIBSVM": import_libsvm}


def run_import(args):
    check_writable(args.model, "model file")
    fit = _IMPORTS[args.tool](args.source)
    try:
        save_fit(fit, args.model)
    except OSError as e:
        raise write_error(args.model, "model file", e) from None
    return 0
