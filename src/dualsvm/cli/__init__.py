"""The ``dualsvm`` command line: LIBLINEAR's train/predict, plus model conversion.

::

    dualsvm train [options] FILE [MODEL]       (LIBLINEAR's -s 1|3|12|13|21 -c -e -B -p -n -wi
                                                -v -q)
    dualsvm train -t K [options] FILE [MODEL]  (a kernel SVM: LIBSVM's -s 0..4 -t -g -d -r -c
                                                -n -p -e -m -h -wi -v -b)
    dualsvm predict [-q] [-b 1] TEST MODEL OUTPUT   (a dualsvm, LIBLINEAR or LIBSVM model file)
    dualsvm export MODEL --format onnx|sklearn|libsvm|liblinear OUTPUT   [--dtype float64]
    dualsvm export-liblinear MODEL OUT         (export-libsvm for a kernel model)
    dualsvm import-liblinear IN MODEL          (import-libsvm for a LIBSVM model)
    dualsvm demo                               (train and evaluate on bundled data)
    dualsvm plot [-o OUT] TRACE                (convergence curves of a --trace file)
    dualsvm convert FILE... DIR [--block-mb N] [--poly2] [--keep-order]   (an on-disk dataset)
    dualsvm train DIR --memory MB [--method dcl|bm|sbm] [--checkpoint PATH [--resume]]
    dualsvm train --rank B [-t 0..3 -g -d -r] [options] FILE|DIR [MODEL]   (a low-rank kernel
                                                model: LIBLINEAR's -s 1|3 on a Nystroem map)
    dualsvm train DIR --scheduler ADDRESS | --workers N [--partitions K] [--local-epochs N] [--sigma S]
    dualsvm scale [-l L] [-u U] [-y YL YU] [-s SAVE | -r RESTORE] FILE   (svm-scale, to stdout)
    dualsvm checkdata FILE                     (every problem of a LIBSVM file, by line)
    dualsvm grid [-log2c B,E,S] [-log2g B,E,S] [-v N] [-out P] [-png P] [-resume [P]] [svm-train
                 options] FILE               (grid.py: C and gamma by cross validation)
    dualsvm easy TRAIN [TEST]                  (easy.py: scale, grid, train, predict)

One module per subcommand (:mod:`.train`, :mod:`.train_kernel` and
:mod:`.train_disk`, :mod:`.train_low_rank`, :mod:`.train_dask`, :mod:`.predict`, :mod:`.export`,
:mod:`.text_models`, :mod:`.convert`, :mod:`.plot`, :mod:`.demo`, :mod:`.scale`,
:mod:`.checkdata`, :mod:`.grid`, :mod:`.easy`), imported only by
the command that runs, to keep start-up short; :mod:`.parser` holds the options,
:mod:`.report` the one reporter of every training (messages, 'optimization
finished' lines, ``--trace``, ``--json``).

Every error is one line on stderr (``dualsvm: error: ...``, or
``dualsvm train: error: ...`` for usage) and a non-zero exit status: 2 for
usage, 1 for bad data, models or files, 130 after Ctrl-C (training stops with
the current model, which is still saved).
"""

import argparse
import importlib
import sys

from ..exceptions import one_line
from .parser import PROG, CommandError, Exit, UsageError, build_parser, expand_weights, \
    route, weight_pair

__all__ = ["main"]


def main(argv=None):
    """Run the ``dualsvm`` command line; return the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = build_parser().parse_args(expand_weights(argv))
        if args.command in ("train", "grid") and args.weights:
            for pair in args.weights:
                try:
                    weight_pair(pair)
                except argparse.ArgumentTypeError as e:
                    raise UsageError(f"{PROG} {args.command}", str(e)) from None
        module, function = route(args).split(":")
        return getattr(importlib.import_module(f".{module}", __name__), function)(args)
    except UsageError as e:
        print(f"{e.prog}: error: {e.message}", file=sys.stderr)
        return 2
    except Exit as e:
        return e.status
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # stdout's reader stopped (| head): end quietly, as C tools do
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no error at exit
        return 1
    except (CommandError, ValueError, OSError, MemoryError) as e:
        print(f"{PROG}: error: {_message(e)}", file=sys.stderr)
        return 1


def _message(error):
    if isinstance(error, MemoryError):  # NumPy's says how much it asked for
        return f"out of memory ({one_line(error)})" if str(error) else "out of memory"
    if isinstance(error, OSError) and error.strerror:
        where = f"{error.filename}: " if error.filename else ""
        return f"{where}{error.strerror}"
    return one_line(error)
