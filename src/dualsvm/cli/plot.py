"""``dualsvm plot``: convergence curves of a ``dualsvm train --trace`` file, or the
accuracy and fit time against C of a ``dualsvm train -C --trace`` file."""

import os

from ..plotting import is_c_search, plot_c_search, plot_convergence, read_c_search, read_trace
from .output_files import check_writable, write_error
from .parser import PROG, CommandError, UsageError


def run(args):
    out = args.out or args.trace + ".png"
    check_writable(out, "image file")
    try:
        import matplotlib
    except ImportError:
        raise CommandError("plot needs matplotlib: pip install 'dualsvm[plot]'") from None
    matplotlib.use("Agg")  # a file, never a window
    import matplotlib.pyplot as plt

    if is_c_search(args.trace):
        for dest, flag in (("x", "--x"), ("y", "--y"), ("optimum", "--optimum")):
            if getattr(args, dest) is not None:
                raise refuse_plot(flag, "is for convergence traces; a search trace (dualsvm "
                                        "train -C --trace) plots accuracy and fit time against C")
        ax, _ = plot_c_search(read_c_search(args.trace))
        ax.set_title(f"{os.path.basename(args.trace)}: {ax.get_title()}", fontsize="medium")
    else:
        ax = plot_convergence(read_trace(args.trace), x=args.x or "epoch", y=args.y or "gap",
                              optimum=args.optimum)
        ax.set_title(os.path.basename(args.trace), fontsize="medium")
    try:
        ax.figure.savefig(out, dpi=100)
    except OSError as e:
        raise write_error(out, "image file", e) from None
    finally:
        plt.close(ax.figure)
    return 0


def refuse_plot(flag, why):
    """The usage error of ``dualsvm plot`` for a flag that does not apply."""
    return UsageError(f"{PROG} plot", f"{flag} {why}")
