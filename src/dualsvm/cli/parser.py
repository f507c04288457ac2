"""The command line's parser: subcommands, options and their value types.

Every subcommand names the module that runs it (``run="module:function"``,
imported only when that command runs, so start-up stays short).
"""

import argparse
import math
import os
import re
import sys

from ..constants import KERNELS, VERSION

PROG = "dualsvm"

#: LIBLINEAR's -s values this tool trains, with their loss.
LIBLINEAR_TYPES = {1: "squared_hinge", 3: "hinge", 12: "squared_epsilon_insensitive",
                   13: "epsilon_insensitive", 4: "squared_hinge", 5: "squared_hinge"}
#: -s 4 (Crammer and Singer's multi-class SVM) and -s 5 (L1-regularised L2-loss SVC):
#: the LinearSVC parameters that select them.
LIBLINEAR_SOLVER_PARAMS = {4: {"multi_class": "crammer_singer"},
                           5: {"penalty": "l1", "dual": False}}
#: Those that are regressions (support vector regression, dual).
LIBLINEAR_REGRESSIONS = (12, 13)
_TYPE_NAMES = ("1 (L2-loss SVC, dual), 3 (L1-loss SVC, dual), 4 (Crammer-Singer multi-class, "
               "dual), 5 (L1-regularized L2-loss SVC, primal), 12 (L2-loss SVR, dual), "
               "13 (L1-loss SVR, dual) and 21 (one-class SVM, dual)")
#: LIBLINEAR's one-class SVM (-s 21, with -n nu), trained by :mod:`.train_one_class`.
LIBLINEAR_ONE_CLASS = 21


class UsageError(Exception):
    """A command line that is not valid: exit status 2, ``PROG COMMAND: error: ...``."""

    def __init__(self, prog, message):
        super().__init__(message)
        self.prog = prog
        self.message = message


class CommandError(Exception):
    """A one-line error message for the user (exit status 1)."""


class Exit(Exception):
    """argparse's exit (``--help``, ``--version``) with its status."""

    def __init__(self, status):
        super().__init__(status)
        self.status = status


#: The options of training on a Dask cluster (``train_dask``; all but --partitions
#: CoCoA+'s own), refused by every other kind of training.
COCOA_FLAGS = (("partitions", "--partitions"), ("local_epochs", "--local-epochs"),
               ("local_time", "--local-time"), ("sigma", "--sigma"))


def cocoa_sigma(text):
    """--sigma: 'K', 'adaptive' or a number >= 1 (dualsvm.dask.LinearSVC's sigma)."""
    if text in ("K", "adaptive"):
        return text
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value >= 1):
        raise argparse.ArgumentTypeError(f"--sigma must be K, adaptive or a number >= 1, "
                                         f"got {text!r}")
    return value


def refuse(flag, why):
    """The usage error of ``dualsvm train`` for a flag that does not apply."""
    return UsageError(f"{PROG} train", f"{flag} {why}")


class _Given(argparse.Action):
    """Store the value and record that the option was given (``given_<dest>``): an
    option whose default is a value (``-c``) can still be refused where it does not apply."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        setattr(namespace, f"given_{self.dest}", True)


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors raised to main() instead of sys.exit."""

    def error(self, message):
        raise UsageError(self.prog, " ".join(message.split()))

    def exit(self, status=0, message=None):
        if message:
            sys.stderr.write(message)
        raise Exit(status)


# ----------------------------------------------------------- argument types


def number(kind, name, low=None, low_open=False):
    def convert(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {text!r}") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{name} must be finite, got {text!r}")
        if low is not None and (value <= low if low_open else value < low):
            raise argparse.ArgumentTypeError(
                f"{name} must be {'>' if low_open else '>='} {low}, got {text!r}")
        return value

    return convert


#: LIBSVM's svm_type numbers (-s with a kernel option): C-SVC, nu-SVC, one-class,
#: epsilon-SVR, nu-SVR.
LIBSVM_TYPES = {0: "c_svc", 1: "nu_svc", 2: "one_class", 3: "epsilon_svr", 4: "nu_svr"}


def _solver(text):
    # LIBLINEAR's types for linear models, LIBSVM's for kernel ones: which applies is
    # known once all options are read (see route)
    try:
        value = int(text)
    except ValueError:
        value = None
    if value not in LIBLINEAR_TYPES and value not in LIBSVM_TYPES and value != LIBLINEAR_ONE_CLASS:
        raise argparse.ArgumentTypeError(
            f"unsupported solver type {text!r}; dualsvm trains -s {_TYPE_NAMES} (linear) "
            "and, with a kernel option, LIBSVM's -s 0 to 4")
    return value


#: Divide and conquer's options (``--kernel-solver dc``), with their flags.
DC_OPTIONS = {"dc_clusters": "--dc-clusters", "dc_levels": "--dc-levels",
              "dc_sample_size": "--dc-sample-size", "early_stop_level": "--early-stop-level"}
#: The options that select a kernel model (LIBSVM's and the kernel solver's), with their flags.
KERNEL_OPTIONS = {"kernel_type": "-t", "kernel_name": "--kernel", "gamma": "-g", "degree": "-d",
                  "coef0": "-r", "cache_size": "-m", "shrinking": "-h",
                  "kernel_solver": "--kernel-solver", **DC_OPTIONS}


def _kernel_type(text):
    names = {v: k for k, v in KERNELS.items()}
    try:
        return names[int(text)]
    except (ValueError, KeyError):
        raise argparse.ArgumentTypeError(
            f"unknown kernel type {text!r}; -t takes 0 (linear), 1 (polynomial), 2 (RBF), "
            "3 (sigmoid) or 4 (precomputed)") from None


def _zero_one(text, flag="-h"):
    if text not in ("0", "1"):
        raise argparse.ArgumentTypeError(f"{flag} takes 0 or 1, got {text!r}")
    return text == "1"


def _probability(text):
    return _zero_one(text, "-b")


def weight_pair(values):
    """(label, weight) of one -wLABEL WEIGHT option, both checked numbers."""
    label, weight = values
    try:
        label_value = float(label)
    except ValueError:
        label_value = math.nan
    if not math.isfinite(label_value):
        raise argparse.ArgumentTypeError(f"-w{label}: the class label must be a number")
    weight_value = number(float, f"weight of class {label}", 0.0)(weight)
    return label_value, weight_value


#: grid's options whose value may begin with '-' (a range of log2 values, -5,15,2),
#: which argparse would take for an option: joined to it (-log2c=-5,15,2) beforehand.
GRID_RANGE_FLAGS = ("-log2c", "-log2g")


def expand_weights(argv):
    """LIBLINEAR's ``-wLABEL WEIGHT`` tokens -> ``--weight LABEL WEIGHT`` (train and
    grid); grid's ``-log2c VALUE`` -> ``-log2c=VALUE`` (``GRID_RANGE_FLAGS``)."""
    if not argv or argv[0] not in ("train", "grid"):
        return argv
    out = []
    for position, token in enumerate(argv):
        if token == "--":
            return out + argv[position:]
        match = re.fullmatch(r"-w(\S+)", token)
        if argv[0] == "grid" and out and out[-1] in GRID_RANGE_FLAGS:
            out[-1] = f"{out[-1]}={token}"
        elif match:
            following = argv[position + 1] if position + 1 < len(argv) else ""
            try:
                float(following)
            except ValueError:
                raise UsageError(f"{PROG} {argv[0]}", f"{token} needs a weight after it, "
                                 f"e.g. {token} 2") from None
            out.extend(["--weight", match.group(1)])
        else:
            out.append(token)
    return out


def build_parser():
    """The ``dualsvm`` parser; each subcommand's ``run`` is "module:function" in this package."""
    parser = _Parser(prog=PROG, allow_abbrev=False,
                     description="Support Vector Machines trained in the dual.")
    parser.add_argument("--version", action="version", version=f"dualsvm {VERSION}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_train(commands)
    _add_convert(commands)
    _add_predict(commands)
    _add_export(commands)
    _add_text_model_commands(commands)
    _add_demo(commands)
    _add_plot(commands)
    _add_scale(commands)
    _add_checkdata(commands)
    _add_grid(commands)
    _add_easy(commands)
    return parser


def _add_train(commands):
    """``dualsvm train``: LIBLINEAR's and LIBSVM's options, then dualsvm's own."""
    train = commands.add_parser(
        "train", allow_abbrev=False, add_help=False,  # -h is LIBSVM's shrinking flag
        help="train a linear SVM (LIBLINEAR's train) or a kernel SVM (LIBSVM's svm-train)",
        description="Train a linear SVM on an svmlight/LIBSVM file, like LIBLINEAR's train; "
                    "any of LIBSVM's kernel options (-t -g -d -r -m -h) or --kernel trains a "
                    "kernel SVM like LIBSVM's svm-train (-s 0 C-SVC, 1 nu-SVC, 2 one-class, "
                    "3 epsilon-SVR, 4 nu-SVR).",
        epilog="-wLABEL WEIGHT (e.g. -w1 2 -w-1 0.5) multiplies C for that class; repeatable.")
    train.add_argument("--help", action="help", help="show this help message and exit")
    _training_options(train)
    kernel = train.add_argument_group(
        "kernel SVM (LIBSVM's options; any of them selects a kernel model)")
    _kernel_options(kernel)
    kernel.add_argument("--rank", type=number(int, "rank", 1), metavar="B",
                        help="a low-rank kernel model (dualsvm.LowRankSVC): LIBLINEAR's dual "
                             "(-s 1 default, -s 3) on the Nystroem map of B training rows "
                             "drawn at random (--seed), with -t 0 to 3, -g, -d, -r; a bias "
                             "of 1 unless -B; a dataset directory is trained out of core "
                             "(--memory, --method), each block mapped as it is read")
    _output_options(train)
    _disk_and_cluster_options(train)
    train.add_argument("file", metavar="FILE",
                       help="training data (svmlight/LIBSVM, .gz, .bz2), or a dataset "
                            "directory written by dualsvm convert")
    train.add_argument("model", metavar="MODEL", nargs="?",
                       help="model file (default: FILE's basename + '.model')")
    train.set_defaults(run="train:run", given_C=False)


def _training_options(train):
    """LIBLINEAR's options of ``train`` (and those shared with LIBSVM), and the stopping rule."""
    train.add_argument("-s", dest="solver", type=_solver, default=None, metavar="TYPE",
                       help="solver type: 1 = L2-loss SVC, dual (default); 3 = L1-loss SVC, "
                            "dual; 4 = Crammer-Singer multi-class SVC, dual; 5 = "
                            "L1-regularized L2-loss SVC, primal; 12 = L2-loss SVR, dual; 13 = "
                            "L1-loss SVR, dual; 21 = one-class SVM, dual (with -n nu); with a "
                            "kernel option LIBSVM's svm_type: 0 = C-SVC (default), 1 = nu-SVC, "
                            "2 = one-class SVM, 3 = epsilon-SVR, 4 = nu-SVR")
    # one -p for both tools: LIBLINEAR's (-s 12, 13) and LIBSVM's (-s 3 with a kernel
    # option); each training path refuses it where its -s has no epsilon
    train.add_argument("-p", dest="epsilon", type=number(float, "epsilon (-p)", 0.0),
                       default=None, metavar="EPSILON",
                       help="epsilon of the epsilon-insensitive loss: -s 12 and -s 13 "
                            "(linear), or -s 3 with a kernel option (default 0.1)")
    train.add_argument("-c", dest="C", type=number(float, "C", 0.0, True), default=1.0,
                       action=_Given, help="cost C > 0 (default 1); with -C: the first C tried")
    train.add_argument("-C", dest="find_C", action="store_true",
                       help="find the best C by cross validation over a warm-started path "
                            "(-v folds, default 5), like LIBLINEAR's -C, for every linear "
                            "solver (-s 1, 3, 4, 5: accuracy; -s 12, 13: mean squared error "
                            "at the -p given); writes no model")
    train.add_argument("--c-grid", nargs=3, metavar=("START", "END", "STEPS"),
                       type=number(float, "--c-grid value", 0.0, True),
                       help="-C: STEPS values of C log-spaced from START to END (default: "
                            "LIBLINEAR's, powers of 2 from a data-dependent start up to 1024; "
                            "2^20 for regression)")
    train.add_argument("-e", dest="tol", type=number(float, "epsilon", 0.0, True), default=None,
                       help="stopping tolerance (LIBLINEAR's -e; default 0.1)")
    train.add_argument("-B", dest="bias", type=number(float, "bias"), default=None,
                       help="bias: B > 0 appends a feature of value B; -1 = no bias (default)")
    train.add_argument("--weight", dest="weights", nargs=2, action="append", default=[],
                       metavar=("LABEL", "WEIGHT"), help=argparse.SUPPRESS)
    train.add_argument("-v", dest="folds", type=number(int, "the number of folds", 2),
                       metavar="N", help="N-fold cross validation; writes no model")
    train.add_argument("-q", dest="quiet", action="store_true", help="quiet mode")
    train.add_argument("--exact-bias", action="store_true",
                       help="unregularised bias (the constraint y'a = 0); not with -B")
    train.add_argument("--max-iter", type=number(int, "max-iter", 1), default=None,
                       metavar="N", help="maximum number of epochs (default 1000)")
    train.add_argument("--time-limit", type=number(float, "time-limit", 0.0, True),
                       metavar="SECONDS", help="stop training after this time, keeping the model")
    train.add_argument("--gap-tol", type=number(float, "gap-tol", 0.0, True), metavar="GAP",
                       help="also stop once the relative duality gap is at most GAP")
    train.add_argument("--seed", type=number(int, "seed", 0), default=0,
                       help="seed of the epoch order (default 0)")
    train.add_argument("--no-shrinking", action="store_true", help="do not shrink")
    train.add_argument("--cyclic", action="store_true",
                       help="visit variables in order instead of a random permutation")


def _kernel_options(group):
    """LIBSVM's kernel options, divide and conquer's, nu and -b; any of them selects a
    kernel model (see :func:`route`)."""
    group.add_argument("-t", dest="kernel_type", type=_kernel_type, metavar="KERNEL",
                       help="0 linear, 1 polynomial, 2 RBF (default), 3 sigmoid, 4 precomputed")
    group.add_argument("--kernel", dest="kernel_name", choices=list(KERNELS),
                       help="the kernel by name (same as -t)")
    group.add_argument("-g", dest="gamma", type=number(float, "gamma", 0.0, True),
                       help="gamma of poly/rbf/sigmoid (default 1/num_features)")
    group.add_argument("-d", dest="degree", type=number(int, "degree", 0),
                       help="degree of poly (default 3)")
    group.add_argument("-r", dest="coef0", type=number(float, "coef0"),
                       help="coef0 of poly/sigmoid (default 0)")
    group.add_argument("-m", dest="cache_size", type=number(float, "cache size", 0.0, True),
                       metavar="MB", help="kernel cache size in MB (default 100)")
    group.add_argument("-h", dest="shrinking", type=_zero_one, metavar="0|1",
                       help="shrinking heuristics (default 1)")
    group.add_argument("--kernel-solver", metavar="NAME",
                       help="the solver of -s 0 (C-SVC), as SVC's solver: auto (default), smo, "
                            "ws, cgd, dcd (no bias), pgd, or dc (divide and conquer)")
    group.add_argument("--dc-clusters", type=number(int, "dc-clusters", 2), metavar="K",
                       help="dc: level l splits the rows into K**l clusters (default: the K "
                            "that makes the parts of level L hold about 2000 rows)")
    group.add_argument("--dc-levels", type=number(int, "dc-levels", 1), metavar="L",
                       help="dc: levels L, L-1, .., 1 (default 1)")
    group.add_argument("--dc-sample-size", type=number(int, "dc-sample-size", 2), metavar="M",
                       help="dc: rows kernel k-means clusters at each level (default 2000, 500 "
                            "with --early-stop-level)")
    group.add_argument("--early-stop-level", type=number(int, "early-stop-level", 1),
                       metavar="L", help="dc: stop after level L and predict each row by the "
                                         "model of its nearest cluster (early prediction)")
    group.add_argument("-n", dest="nu", type=number(float, "nu", 0.0, True),
                       help="nu of nu-SVC, one-class SVM and nu-SVR (-s 1, 2, 4; default "
                            "0.5); of LIBLINEAR's linear one-class SVM (-s 21)")
    group.add_argument("-b", dest="probability", type=_probability, metavar="0|1",
                       help="1: train for probability estimates (-s 0 and 1: Platt's "
                            "sigmoid on 5-fold cross-validated decision values; -s 2: the "
                            "density marks of the training decision values; -s 3 and 4: "
                            "the sigma of a Laplace model of the error), as LIBSVM's -b")


def _output_options(train):
    """What ``train`` prints and writes besides the model."""
    train.add_argument("--json", action="store_true",
                       help="print a JSON summary on stdout (messages go to stderr)")
    train.add_argument("--trace", metavar="FILE",
                       help="write the per-epoch history as JSON lines (with -C: the CV "
                            "accuracy and fit time of every C, for dualsvm plot)")


def _disk_and_cluster_options(train):
    """Training a dataset directory out of core, or on a Dask cluster (CoCoA+)."""
    train.add_argument("--memory", type=number(float, "memory", 0.0, True), metavar="MB",
                       help="a dataset directory (dualsvm convert) is trained out of core "
                            "with rows in memory bounded by MB (default 1024); with "
                            "--workers or --scheduler: MB per partition, its blocks on disk")
    train.add_argument("--method", choices=("dcl", "bm", "sbm"),
                       help="out-of-core method: dual cached loops (default), block "
                            "minimization, selective block minimization")
    train.add_argument("--checkpoint", metavar="PATH",
                       help="out of core: save alpha and w to PATH after every pass")
    train.add_argument("--resume", action="store_true",
                       help="out of core: continue from --checkpoint after a kill")
    train.add_argument("--scheduler", metavar="ADDRESS",
                       help="train a dataset directory on this Dask cluster, by CoCoA+ or, "
                            "with a kernel option, LIBSVM's C-SVC by working sets (e.g. "
                            "tcp://host:8786; every worker reads its share of the blocks)")
    train.add_argument("--workers", type=number(int, "workers", 1), metavar="N",
                       help="the same on a local Dask cluster of N worker processes")
    train.add_argument("--partitions", type=number(int, "partitions", 1), metavar="K",
                       help="on a Dask cluster: partitions of the rows (default: one per "
                            "worker)")
    train.add_argument("--local-epochs", type=number(int, "local-epochs", 1), metavar="N",
                       help="CoCoA+: DCD epochs on every partition per round (default: as "
                            "long as a round's communication)")
    train.add_argument("--local-time", type=number(float, "local-time", 0.0, True),
                       metavar="SECONDS",
                       help="CoCoA+: seconds of local epochs per round on each partition")
    train.add_argument("--sigma", type=cocoa_sigma, metavar="K|adaptive|S",
                       help="CoCoA+: sigma' of the local sub-problems: K (the partitions, "
                            "the default), adaptive (1 while the partitions' steps do not "
                            "overlap, else K), or a number >= 1")


def _add_convert(commands):
    convert = commands.add_parser(
        "convert", allow_abbrev=False, help="write svmlight files as an on-disk dataset",
        description="Convert svmlight/LIBSVM files (concatenated) into a directory of "
                    "compressed blocks for out-of-core training (dualsvm train DIR --memory MB).")
    convert.add_argument("inputs", metavar="FILE", nargs="+")
    convert.add_argument("directory", metavar="DIR", help="the dataset directory to create")
    convert.add_argument("--block-mb", type=number(float, "block-mb", 0.0, True), default=8.0,
                         metavar="N", help="in-memory size of a block in MB (default 8); at most "
                                           "1/16 of the --memory you will train with")
    convert.add_argument("--poly2", action="store_true",
                         help="write the degree-2 polynomial expansion of the rows")
    convert.add_argument("--replicas", type=number(int, "replicas", 1), default=1, metavar="R",
                         help="write R copies (copies 1.. with --perturbation noise)")
    convert.add_argument("--perturbation", type=number(float, "perturbation", 0.0), default=0.0,
                         metavar="S", help="relative noise of the copies (x * (1 + S z))")
    convert.add_argument("--keep-order", dest="shuffle", action="store_false",
                         help="keep the rows in file order (by default they are written in a "
                              "random order, by two passes in bounded memory)")
    convert.add_argument("--seed", type=number(int, "seed", 0), default=0)
    convert.add_argument("--n-features", type=number(int, "n-features", 1), metavar="D",
                         help="width of the input rows (default: the largest index)")
    convert.add_argument("-q", dest="quiet", action="store_true", help="quiet mode")
    convert.set_defaults(run="convert:run")


def _add_predict(commands):
    predict = commands.add_parser(
        "predict", allow_abbrev=False, help="predict with a model (LIBLINEAR's predict, LIBSVM's svm-predict)",
        description="Predict labels of an svmlight/LIBSVM file with a dualsvm, LIBLINEAR or "
                    "LIBSVM model.")
    predict.add_argument("-q", dest="quiet", action="store_true", help="quiet mode")
    predict.add_argument("-b", dest="probability", type=_probability, default=False,
                         metavar="0|1", help="1: write probability estimates (a kernel model "
                                             "trained with -b 1), as LIBSVM's svm-predict -b 1")
    predict.add_argument("test", metavar="TEST")
    predict.add_argument("model", metavar="MODEL")
    predict.add_argument("output", metavar="OUTPUT")
    predict.set_defaults(run="predict:run")


def _add_export(commands):
    export = commands.add_parser(
        "export", allow_abbrev=False,
        help="write a model as ONNX, a scikit-learn object, or LIBSVM's / LIBLINEAR's text model",
        description="Write a model file (dualsvm's, LIBLINEAR's or LIBSVM's) in another format: "
                    "onnx (for ONNX Runtime), sklearn (the fitted scikit-learn estimator, "
                    "pickled), libsvm (a kernel model) or liblinear (a linear model).")
    export.add_argument("model", metavar="MODEL")
    export.add_argument("--format", required=True,
                        choices=("onnx", "sklearn", "libsvm", "liblinear"))
    export.add_argument("output", metavar="OUTPUT")
    export.add_argument("--dtype", choices=("float32", "float64"),
                        help="onnx: the input's dtype and the precision the graph computes in "
                             "(default float32; float64 gives dualsvm's decision values)")
    export.add_argument("--no-probability", action="store_true",
                        help="sklearn: leave the probability model out (scikit-learn computes "
                             "two-class and one-class probabilities otherwise than dualsvm)")
    export.set_defaults(run="export:run")


def _add_text_model_commands(commands):
    """``export-liblinear``, ``export-libsvm``, ``import-liblinear``, ``import-libsvm``."""
    for tool, models in (("LIBLINEAR", "a linear model"), ("LIBSVM", "a kernel model")):
        name = tool.lower()
        export = commands.add_parser(f"export-{name}", allow_abbrev=False,
                                     help=f"write {models} as a {tool} text model "
                                          f"(export --format {name})")
        export.add_argument("model", metavar="MODEL")
        export.add_argument("output", metavar="OUT")
        export.set_defaults(run="export:run", format=name, dtype=None, no_probability=False)

        imp = commands.add_parser(f"import-{name}", allow_abbrev=False,
                                  help=f"read a {tool} text model into a dualsvm model file")
        imp.add_argument("source", metavar="IN")
        imp.add_argument("model", metavar="MODEL")
        imp.set_defaults(run="text_models:run_import", tool=tool)


def _add_demo(commands):
    demo = commands.add_parser("demo", allow_abbrev=False,
                               help="train and evaluate on the breast-cancer data (no download)")
    demo.set_defaults(run="demo:run")


def _add_plot(commands):
    plot = commands.add_parser(
        "plot", allow_abbrev=False,
        help="draw convergence curves, or CV accuracy and fit time against C",
        description="Draw the convergence curves of a 'dualsvm train --trace' file, or the "
                    "cross-validation accuracy and fit time against C of a 'dualsvm train -C "
                    "--trace' file (needs matplotlib: pip install 'dualsvm[plot]').")
    plot.add_argument("trace", metavar="TRACE",
                      help="a trace file of 'dualsvm train --trace' or 'dualsvm train -C --trace'")
    plot.add_argument("-o", dest="out", metavar="OUT",
                      help="image file, format by extension (default: TRACE + '.png')")
    plot.add_argument("--x", dest="x", choices=("seconds", "epoch"), default=None,
                      help="horizontal axis (default epoch)")
    plot.add_argument("--y", dest="y", choices=("gap", "suboptimality", "primal"), default=None,
                      help="vertical axis: relative duality gap (default), relative "
                           "suboptimality (P - P*)/P*, or the primal objective")
    plot.add_argument("--optimum", type=number(float, "optimum"), metavar="P*",
                      help="P* for --y suboptimality (default: the lowest primal in the trace)")
    plot.set_defaults(run="plot:run")


def _add_scale(commands):
    scale = commands.add_parser(
        "scale", allow_abbrev=False,
        help="scale the features of a data file to [-1, 1] (LIBSVM's svm-scale)",
        description="Scale each feature of an svmlight/LIBSVM file linearly to [lower, upper] "
                    "and print the scaled data on stdout, as LIBSVM's svm-scale (its numbers, "
                    "range files and output lines). Scale test data with the ranges of the "
                    "training data: -s RANGE on the training file, -r RANGE on the test file.")
    scale.add_argument("-l", dest="lower", type=number(float, "lower (-l)"), metavar="LOWER",
                       help="x scaling lower limit (default -1)")
    scale.add_argument("-u", dest="upper", type=number(float, "upper (-u)"), metavar="UPPER",
                       help="x scaling upper limit (default +1)")
    scale.add_argument("-y", dest="y_range", nargs=2, type=number(float, "-y limit"),
                       metavar=("Y_LOWER", "Y_UPPER"),
                       help="also scale the labels to [Y_LOWER, Y_UPPER] (default: no y scaling)")
    scale.add_argument("-s", dest="save", metavar="SAVE_FILE",
                       help="save the scaling parameters (svm-scale's range file) to SAVE_FILE")
    scale.add_argument("-r", dest="restore", metavar="RESTORE_FILE",
                       help="scale by the parameters of RESTORE_FILE (a range file of -s or "
                            "svm-scale); features it has no range for are scaled to 0")
    scale.add_argument("file", metavar="FILE", help="data (svmlight/LIBSVM, .gz, .bz2)")
    scale.set_defaults(run="scale:run")


def _add_checkdata(commands):
    checkdata = commands.add_parser(
        "checkdata", allow_abbrev=False,
        help="report every problem of a LIBSVM data file, by line (LIBSVM's checkdata.py)",
        description="Check a LIBSVM-format file as LIBSVM's checkdata.py (svm-checkdata) does: "
                    "one 'line N: problem' for every bad label, index:value pair, index order "
                    "or duplicate index, a missing final newline, then 'Found K lines with "
                    "error.' (exit status 1) or 'No error.'.")
    checkdata.add_argument("file", metavar="FILE", help="data (LIBSVM format, .gz, .bz2)")
    checkdata.set_defaults(run="checkdata:run")


def grid_range(flag):
    """-log2c / -log2g: ``BEGIN,END,STEP`` (three numbers, read as grid.py reads them:
    floats) or ``null`` (None: that parameter is not searched)."""
    def convert(text):
        if text == "null":
            return None
        try:
            values = tuple(float(part) for part in text.split(","))
        except ValueError:
            values = ()
        if len(values) != 3 or not all(map(math.isfinite, values)) or values[2] == 0:
            raise argparse.ArgumentTypeError(f"{flag} takes BEGIN,END,STEP (three numbers, "
                                             f"STEP not 0) or null, got {text!r}")
        return values

    return convert


def _add_grid(commands):
    """``dualsvm grid``: LIBSVM's grid.py options, then the svm-train options it passes on."""
    grid = commands.add_parser(
        "grid", allow_abbrev=False, add_help=False,  # -h is LIBSVM's shrinking flag
        help="search C and gamma by cross validation (LIBSVM's grid.py)",
        description="Cross-validate a C-SVC at every point of a grid of (log2 C, log2 gamma), "
                    "as LIBSVM's grid.py, over warm-started paths of C (one per gamma and "
                    "fold, in --workers threads); print each point's rate, and last the best "
                    "'C gamma rate'. A rate is dualsvm train -c C -g GAMMA -v N's.",
        epilog="-wLABEL WEIGHT multiplies C for that class, as in train. -svmtrain PATH is "
               "accepted and ignored (dualsvm trains in-process), as is -gnuplot PATH (the "
               "plot is drawn by matplotlib); -gnuplot null draws no plot.")
    grid.add_argument("--help", action="help", help="show this help message and exit")
    search = grid.add_argument_group("grid.py's options")
    search.add_argument("-log2c", type=grid_range("-log2c"), default=(-5, 15, 2),
                        metavar="BEGIN,END,STEP|null",
                        help="C = 2^BEGIN, 2^(BEGIN+STEP), ... up to 2^END (default -5,15,2); "
                             "null: C = 1 only")
    search.add_argument("-log2g", type=grid_range("-log2g"), default=(3, -15, -2),
                        metavar="BEGIN,END,STEP|null",
                        help="gamma likewise (default 3,-15,-2); null: gamma = 1/num_features "
                             "only")
    search.add_argument("-v", dest="folds", type=number(int, "the number of folds", 2),
                        default=5, metavar="N", help="N-fold cross validation (default 5)")
    search.add_argument("-out", metavar="PATH|null",
                        help="the out file, a line 'log2c=.. log2g=.. rate=..' per point "
                             "(default: FILE's basename + '.out'); null: none")
    search.add_argument("-png", metavar="PATH|null",
                        help="the contour plot of the rates, drawn by matplotlib (default: "
                             "FILE's basename + '.png'); null: none")
    search.add_argument("-resume", nargs="?", const="", metavar="PATH",
                        help="do not compute again the points of PATH, an out file of the "
                             "same data and options (default: FILE's basename + '.out'); "
                             "the new points are appended to -out")
    search.add_argument("-svmtrain", metavar="PATH", help=argparse.SUPPRESS)
    search.add_argument("-gnuplot", metavar="PATH|null", help=argparse.SUPPRESS)
    search.add_argument("--workers", type=number(int, "workers", 1), default=2, metavar="N",
                        help="paths (one per gamma and fold) trained at once, in threads "
                             "(grid.py's nr_local_worker; default 2)")
    search.add_argument("--seed", type=number(int, "seed", 0), default=0,
                        help="seed of the folds (default 0, as dualsvm train -v's)")
    svm = grid.add_argument_group("svm-train's options (of every cross validation)")
    svm.add_argument("-s", dest="solver", type=number(int, "svm_type (-s)"), default=0,
                     metavar="TYPE", help="0 = C-SVC (the only one searched)")
    svm.add_argument("-c", dest="grid_C", help=argparse.SUPPRESS)
    svm.add_argument("-e", dest="tol", type=number(float, "epsilon", 0.0, True), default=None,
                     help="stopping tolerance (LIBSVM's -e; default 0.001)")
    svm.add_argument("-q", dest="quiet", action="store_true",
                     help="accepted (grid prints no training output)")
    svm.add_argument("--weight", dest="weights", nargs=2, action="append", default=[],
                     metavar=("LABEL", "WEIGHT"), help=argparse.SUPPRESS)
    _kernel_options(svm)
    grid.add_argument("file", metavar="FILE", nargs="?",
                      help="training data (svmlight/LIBSVM, .gz, .bz2), usually scaled "
                           "(dualsvm scale)")
    grid.set_defaults(run="grid:run", C=1.0, epsilon=None, max_iter=None, time_limit=None)


def _add_easy(commands):
    easy = commands.add_parser(
        "easy", allow_abbrev=False,
        help="scale, search C and gamma, train and test (LIBSVM's easy.py)",
        description="LIBSVM's easy.py: scale TRAIN to [-1, 1] (TRAIN.scale, TRAIN.range), "
                    "search C and gamma by 5-fold cross validation (dualsvm grid: "
                    "TRAIN.scale.out, TRAIN.scale.png), train an RBF C-SVC at the best "
                    "(TRAIN.model); with TEST, scale it by TRAIN.range (TEST.scale) and "
                    "predict it (TEST.predict). Files are written in the working directory.")
    easy.add_argument("train", metavar="TRAIN", help="training data (svmlight/LIBSVM)")
    easy.add_argument("test", metavar="TEST", nargs="?", help="test data (svmlight/LIBSVM)")
    easy.add_argument("--workers", type=number(int, "workers", 1), default=2, metavar="N",
                      help="the grid search's threads (default 2)")
    easy.set_defaults(run="easy:run")


def route(args):
    """"module:function" of this package that runs the parsed command: ``train``
    goes to ``train_low_rank`` with ``--rank``, to ``train_kernel`` when a kernel option
    is given (a dataset directory is then loaded into memory), else to ``train_disk``
    for a dataset directory."""
    if args.command == "train":
        if args.rank is not None:  # a low-rank model: it refuses what does not apply
            return "train_low_rank:run"
        kernel = any(getattr(args, dest) is not None for dest in KERNEL_OPTIONS)
        if args.scheduler is None and args.workers is None:
            for dest, flag in COCOA_FLAGS:
                if getattr(args, dest) is not None:
                    raise refuse(flag, "applies to training on a Dask cluster (with "
                                       "--workers or --scheduler)")
        if not kernel and args.solver == LIBLINEAR_ONE_CLASS:
            return "train_one_class:run"
        if not kernel and args.solver is not None and args.solver not in LIBLINEAR_TYPES:
            raise UsageError(f"{PROG} train", f"unsupported solver type {args.solver} for a "
                             f"linear model; dualsvm trains -s {_TYPE_NAMES} (LIBSVM's -s 0 "
                             "to 4 need a kernel option, e.g. -t 2)")
        # -p is also LIBLINEAR's (-s 12, 13): the linear paths refuse it elsewhere
        if not kernel and args.nu is not None:
            raise UsageError(f"{PROG} train", "-n is LIBSVM's, for kernel models "
                             "(-s 1, 2 and 4 with a kernel option, e.g. -t 2), and "
                             "LIBLINEAR's for -s 21 (linear one-class SVM)")
        if not kernel and args.probability is not None:
            raise UsageError(f"{PROG} train", "-b (probability estimates) is LIBSVM's, for "
                             "kernel models (-s 0 to 4 with a kernel option, e.g. -t 2)")
        if args.scheduler is not None or args.workers is not None:
            return "train_dask:run"
        if kernel:  # from a file, or a dataset directory loaded into memory
            return "train_kernel:run"
        if os.path.isdir(args.file):
            return "train_disk:run"
    return args.run
