"""``dualsvm plot``: convergence curves of a ``dualsvm train --trace`` file."""

import os

from ..plotting import plot_convergence, read_trace
from .outputs import check_writable, write_error
from .parser import CommandError


def run(args):
    out = args.out or args.trace + ".png"
    check_writable(out, "image file")
    try:
        import matplotlib
    except ImportError:
        raise CommandError("plot needs matplotlib: pip install 'dualsvm[plot]'") from None
    matplotlib.use("Agg")  # a file, never a window
    import matplotlib.pyplot as plt

    ax = plot_convergence(read_trace(args.trace), x=args.x, y=args.y, optimum=args.optimum)
    ax.set_title(os.path.basename(args.trace), fontsize="medium")
    try:
        ax.figure.savefig(out, dpi=100)
    except OSError as e:
        raise write_error(out, "image file", e) from None
    finally:
        plt.close(ax.figure)
    return 0
