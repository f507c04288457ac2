"""``dualsvm easy TRAIN [TEST]``: LIBSVM's easy.py, the practical guide's steps.

Each step is the dualsvm command easy.py's step runs as a LIBSVM tool, with easy.py's
files (in the working directory, named after the basenames) and messages:

1. ``dualsvm scale -s TRAIN.range TRAIN > TRAIN.scale`` (features to [-1, 1]);
2. ``dualsvm grid --kernel-solver ws TRAIN.scale`` (5-fold, log2 C from -5 to 15 and
   log2 gamma from 3 to -15 by 2: TRAIN.scale.out, and TRAIN.scale.png in place of
   gnuplot's plot), whose lines easy.py does not show, then
   ``Best c=C, g=GAMMA CV rate=RATE``;
3. ``dualsvm train --kernel-solver ws -c C -g GAMMA TRAIN.scale TRAIN.model`` (an RBF
   C-SVC, quiet);
4. with TEST: ``dualsvm scale -r TRAIN.range TEST > TEST.scale`` and
   ``dualsvm predict TEST.scale TRAIN.model TEST.predict`` (its accuracy line).

The working-set solver (``ws``) trains every model: along the grid's paths, at large C,
it takes a fraction of SMO's time (``benchmarks/results/libsvm_tools.md``), and the model
is then trained as the search assessed it. A failing step stops easy with that step's
error line and exit status.
"""

import os
import sys
from contextlib import redirect_stdout

from . import main
from .grid import find_parameters
from .output_files import check_writable
from .parser import CommandError, build_parser

#: The kernel solver of easy's search and model (see the module docstring).
SOLVER = "ws"


def run(args):
    for path, what in ((args.train, "training"), (args.test, "testing")):
        if path is not None and not os.path.isfile(path):
            raise CommandError(f"{path}: {what} file not found")
    name = os.path.basename(args.train)
    scaled, model, range_file = f"{name}.scale", f"{name}.model", f"{name}.range"
    outputs = [scaled, model, range_file, f"{scaled}.out", f"{scaled}.png"]
    if args.test is not None:
        test_name = os.path.basename(args.test)
        scaled_test, predictions = f"{test_name}.scale", f"{test_name}.predict"
        outputs += [scaled_test, predictions]
    for path in outputs:
        check_writable(path, "output file")

    say("Scaling training data...")
    status = _to_file(scaled, ["scale", "-s", range_file, args.train])
    if status:
        return status
    say("Cross validation...")
    grid = build_parser().parse_args(["grid", "--kernel-solver", SOLVER,
                                      "--workers", str(args.workers), scaled])
    status, best = find_parameters(grid, echo=False)
    if status:
        return status
    C, gamma = best.values()
    say(f"Best c={C}, g={gamma} CV rate={best.rate}")
    say("Training...")
    status = main(["train", "-q", "--kernel-solver", SOLVER, "-c", repr(C), "-g", repr(gamma),
                   scaled, model])
    if status:
        return status
    say(f"Output model: {model}")
    if args.test is None:
        return 0
    say("Scaling testing data...")
    status = _to_file(scaled_test, ["scale", "-r", range_file, args.test])
    if status:
        return status
    say("Testing...")
    status = main(["predict", scaled_test, model, predictions])
    if status:
        return status
    say(f"Output prediction: {predictions}")
    return 0


def say(text):
    """A line of easy.py's, shown at once (before the messages of the step it names)."""
    print(text, flush=True)


def _to_file(path, argv):
    """Run the dualsvm command ``argv`` with its standard output written to ``path``."""
    with open(path, "w", encoding="ascii") as f, redirect_stdout(f):
        status = main(argv)
    sys.stdout.flush()
    return status
