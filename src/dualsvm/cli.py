"""The ``dualsvm`` command line: LIBLINEAR's train/predict, plus model conversion.

::

    dualsvm train [options] FILE [MODEL]       (LIBLINEAR's -s 1|3 -c -e -B -wi -v -q)
    dualsvm train -t K [options] FILE [MODEL]  (a kernel SVM: LIBSVM's -t -g -d -r -c -e -m -h -wi)
    dualsvm predict [-q] TEST MODEL OUTPUT     (a dualsvm or a LIBLINEAR model file)
    dualsvm export-liblinear MODEL OUT
    dualsvm import-liblinear IN MODEL
    dualsvm demo                               (train and evaluate on bundled data)
    dualsvm plot [-o OUT] TRACE                (convergence curves of a --trace file)
    dualsvm convert FILE... DIR [--block-mb N] [--poly2] [--shuffle]   (an on-disk dataset)
    dualsvm train DIR --memory MB [--method dcl|bm|sbm] [--checkpoint PATH [--resume]]

Every error is one line on stderr (``dualsvm: error: ...``, or
``dualsvm train: error: ...`` for usage) and a non-zero exit status: 2 for
usage, 1 for bad data, models or files, 130 after Ctrl-C (training stops with
the current model, which is still saved). Heavy modules are imported only by
the command that needs them, to keep start-up short.
"""

import argparse
import json
import math
import os
import re
import sys
import time

PROG = "dualsvm"

#: LIBLINEAR -s values this tool trains, with their loss.
SOLVERS = {1: "squared_hinge", 3: "hinge"}
_SOLVER_NAMES = "1 (L2-loss SVC, dual) and 3 (L1-loss SVC, dual)"


class _UsageError(Exception):
    def __init__(self, prog, message):
        super().__init__(message)
        self.prog = prog
        self.message = message


class _Exit(Exception):
    def __init__(self, status):
        super().__init__(status)
        self.status = status


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors raised to main() instead of sys.exit."""

    def error(self, message):
        raise _UsageError(self.prog, " ".join(message.split()))

    def exit(self, status=0, message=None):
        if message:
            sys.stderr.write(message)
        raise _Exit(status)


# ----------------------------------------------------------- argument types


def _number(kind, name, low=None, low_open=False):
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


def _solver(text):
    try:
        value = int(text)
    except ValueError:
        value = None
    if value not in SOLVERS:
        raise argparse.ArgumentTypeError(
            f"unsupported solver type {text!r}; dualsvm trains -s {_SOLVER_NAMES}")
    return value


#: LIBSVM's -t values.
KERNEL_TYPES = {"linear": 0, "poly": 1, "rbf": 2, "sigmoid": 3, "precomputed": 4}
_KERNEL_OPTIONS = ("kernel_type", "kernel_name", "gamma", "degree", "coef0", "cache_size",
                   "shrinking")


def _kernel_type(text):
    names = {v: k for k, v in KERNEL_TYPES.items()}
    try:
        return names[int(text)]
    except (ValueError, KeyError):
        raise argparse.ArgumentTypeError(
            f"unknown kernel type {text!r}; -t takes 0 (linear), 1 (polynomial), 2 (RBF), "
            "3 (sigmoid) or 4 (precomputed)") from None


def _zero_one(text):
    if text not in ("0", "1"):
        raise argparse.ArgumentTypeError(f"-h takes 0 or 1, got {text!r}")
    return text == "1"


def _weight_pair(values):
    label, weight = values
    try:
        label_value = float(label)
    except ValueError:
        label_value = math.nan
    if not math.isfinite(label_value):
        raise argparse.ArgumentTypeError(f"-w{label}: the class label must be a number")
    weight_value = _number(float, f"weight of class {label}", 0.0)(weight)
    return label_value, weight_value


def _expand_weights(argv):
    """LIBLINEAR's ``-wLABEL WEIGHT`` tokens -> ``--weight LABEL WEIGHT``."""
    if not argv or argv[0] != "train":
        return argv
    out = []
    for position, token in enumerate(argv):
        if token == "--":
            return out + argv[position:]
        match = re.fullmatch(r"-w(\S+)", token)
        if match:
            following = argv[position + 1] if position + 1 < len(argv) else ""
            try:
                float(following)
            except ValueError:
                raise _UsageError(f"{PROG} train", f"{token} needs a weight after it, "
                                  f"e.g. {token} 2") from None
            out.extend(["--weight", match.group(1)])
        else:
            out.append(token)
    return out


def _build_parser():
    parser = _Parser(prog=PROG, allow_abbrev=False,
                     description="Support Vector Machines trained in the dual.")
    from . import __version__

    parser.add_argument("--version", action="version", version=f"dualsvm {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    train = commands.add_parser(
        "train", allow_abbrev=False, add_help=False,  # -h is LIBSVM's shrinking flag
        help="train a linear SVM (LIBLINEAR's train) or a kernel SVM (LIBSVM's svm-train)",
        description="Train a linear SVM on an svmlight/LIBSVM file, like LIBLINEAR's train; "
                    "any of LIBSVM's kernel options (-t -g -d -r -m -h) or --kernel trains a "
                    "kernel SVM (C-SVC, exact bias), like LIBSVM's svm-train.",
        epilog="-wLABEL WEIGHT (e.g. -w1 2 -w-1 0.5) multiplies C for that class; repeatable.")
    train.add_argument("--help", action="help", help="show this help message and exit")
    train.add_argument("-s", dest="solver", type=_solver, default=None, metavar="TYPE",
                       help="solver type: 1 = L2-loss SVC, dual (default); 3 = L1-loss SVC, dual")
    train.add_argument("-c", dest="C", type=_number(float, "C", 0.0, True), default=1.0,
                       help="cost C > 0 (default 1)")
    train.add_argument("-e", dest="tol", type=_number(float, "epsilon", 0.0, True), default=None,
                       help="stopping tolerance (LIBLINEAR's -e; default 0.1)")
    train.add_argument("-B", dest="bias", type=_number(float, "bias"), default=None,
                       help="bias: B > 0 appends a feature of value B; -1 = no bias (default)")
    train.add_argument("--weight", dest="weights", nargs=2, action="append", default=[],
                       metavar=("LABEL", "WEIGHT"), help=argparse.SUPPRESS)
    train.add_argument("-v", dest="folds", type=_number(int, "the number of folds", 2),
                       metavar="N", help="N-fold cross validation; writes no model")
    train.add_argument("-q", dest="quiet", action="store_true", help="quiet mode")
    train.add_argument("--exact-bias", action="store_true",
                       help="unregularised bias (the constraint y'a = 0); not with -B")
    train.add_argument("--max-iter", type=_number(int, "max-iter", 1), default=None,
                       metavar="N", help="maximum number of epochs (default 1000)")
    train.add_argument("--time-limit", type=_number(float, "time-limit", 0.0, True),
                       metavar="SECONDS", help="stop training after this time, keeping the model")
    train.add_argument("--gap-tol", type=_number(float, "gap-tol", 0.0, True), metavar="GAP",
                       help="also stop once the relative duality gap is at most GAP")
    train.add_argument("--seed", type=_number(int, "seed", 0), default=0,
                       help="seed of the epoch order (default 0)")
    train.add_argument("--no-shrinking", action="store_true", help="do not shrink")
    kernel = train.add_argument_group(
        "kernel SVM (LIBSVM's options; any of them selects a kernel model)")
    kernel.add_argument("-t", dest="kernel_type", type=_kernel_type, metavar="KERNEL",
                        help="0 linear, 1 polynomial, 2 RBF (default), 3 sigmoid, 4 precomputed")
    kernel.add_argument("--kernel", dest="kernel_name", choices=list(KERNEL_TYPES),
                        help="the kernel by name (same as -t)")
    kernel.add_argument("-g", dest="gamma", type=_number(float, "gamma", 0.0, True),
                        help="gamma of poly/rbf/sigmoid (default 1/num_features)")
    kernel.add_argument("-d", dest="degree", type=_number(int, "degree", 0),
                        help="degree of poly (default 3)")
    kernel.add_argument("-r", dest="coef0", type=_number(float, "coef0"),
                        help="coef0 of poly/sigmoid (default 0)")
    kernel.add_argument("-m", dest="cache_size", type=_number(float, "cache size", 0.0, True),
                        metavar="MB", help="kernel cache size in MB (default 100)")
    kernel.add_argument("-h", dest="shrinking", type=_zero_one, metavar="0|1",
                        help="shrinking heuristics (default 1)")
    train.add_argument("--cyclic", action="store_true",
                       help="visit variables in order instead of a random permutation")
    train.add_argument("--json", action="store_true",
                       help="print a JSON summary on stdout (messages go to stderr)")
    train.add_argument("--trace", metavar="FILE",
                       help="write the per-epoch history as JSON lines")
    train.add_argument("--memory", type=_number(float, "memory", 0.0, True), metavar="MB",
                       help="a dataset directory (dualsvm convert) is trained out of core "
                            "with rows in memory bounded by MB (default 1024)")
    train.add_argument("--method", choices=("dcl", "bm", "sbm"), default="dcl",
                       help="out-of-core method: dual cached loops (default), block "
                            "minimization, selective block minimization")
    train.add_argument("--checkpoint", metavar="PATH",
                       help="out of core: save alpha and w to PATH after every pass")
    train.add_argument("--resume", action="store_true",
                       help="out of core: continue from --checkpoint after a kill")
    train.add_argument("file", metavar="FILE",
                       help="training data (svmlight/LIBSVM, .gz, .bz2), or a dataset "
                            "directory written by dualsvm convert")
    train.add_argument("model", metavar="MODEL", nargs="?",
                       help="model file (default: FILE's basename + '.model')")
    train.set_defaults(run=_train)

    convert = commands.add_parser(
        "convert", allow_abbrev=False, help="write svmlight files as an on-disk dataset",
        description="Convert svmlight/LIBSVM files (concatenated) into a directory of "
                    "compressed blocks for out-of-core training (dualsvm train DIR --memory MB).")
    convert.add_argument("inputs", metavar="FILE", nargs="+")
    convert.add_argument("directory", metavar="DIR", help="the dataset directory to create")
    convert.add_argument("--block-mb", type=_number(float, "block-mb", 0.0, True), default=64.0,
                         metavar="N", help="in-memory size of a block in MB (default 64)")
    convert.add_argument("--poly2", action="store_true",
                         help="write the degree-2 polynomial expansion of the rows")
    convert.add_argument("--replicas", type=_number(int, "replicas", 1), default=1, metavar="R",
                         help="write R copies (copies 1.. with --perturbation noise)")
    convert.add_argument("--perturbation", type=_number(float, "perturbation", 0.0), default=0.0,
                         metavar="S", help="relative noise of the copies (x * (1 + S z))")
    convert.add_argument("--shuffle", action="store_true",
                         help="write the rows in a random order (two passes, bounded memory)")
    convert.add_argument("--seed", type=_number(int, "seed", 0), default=0)
    convert.add_argument("--n-features", type=_number(int, "n-features", 1), metavar="D",
                         help="width of the input rows (default: the largest index)")
    convert.add_argument("-q", dest="quiet", action="store_true", help="quiet mode")
    convert.set_defaults(run=_convert)

    predict = commands.add_parser(
        "predict", allow_abbrev=False, help="predict with a model (LIBLINEAR's predict)",
        description="Predict labels of an svmlight/LIBSVM file with a dualsvm or LIBLINEAR model.")
    predict.add_argument("-q", dest="quiet", action="store_true", help="quiet mode")
    predict.add_argument("test", metavar="TEST")
    predict.add_argument("model", metavar="MODEL")
    predict.add_argument("output", metavar="OUTPUT")
    predict.set_defaults(run=_predict)

    export = commands.add_parser("export-liblinear", allow_abbrev=False,
                                 help="write a model as a LIBLINEAR text model")
    export.add_argument("model", metavar="MODEL")
    export.add_argument("out", metavar="OUT")
    export.set_defaults(run=_export)

    imp = commands.add_parser("import-liblinear", allow_abbrev=False,
                              help="read a LIBLINEAR text model into a dualsvm model file")
    imp.add_argument("source", metavar="IN")
    imp.add_argument("model", metavar="MODEL")
    imp.set_defaults(run=_import)

    demo = commands.add_parser("demo", allow_abbrev=False,
                               help="train and evaluate on the breast-cancer data (no download)")
    demo.set_defaults(run=_demo)

    plot = commands.add_parser(
        "plot", allow_abbrev=False, help="draw convergence curves from a training trace",
        description="Draw the convergence curves of a 'dualsvm train --trace' file "
                    "(needs matplotlib: pip install 'dualsvm[plot]').")
    plot.add_argument("trace", metavar="TRACE", help="a trace file of 'dualsvm train --trace'")
    plot.add_argument("-o", dest="out", metavar="OUT",
                      help="image file, format by extension (default: TRACE + '.png')")
    plot.add_argument("--x", dest="x", choices=("seconds", "epoch"), default="epoch",
                      help="horizontal axis (default epoch)")
    plot.add_argument("--y", dest="y", choices=("gap", "suboptimality", "primal"), default="gap",
                      help="vertical axis: relative duality gap (default), relative "
                           "suboptimality (P - P*)/P*, or the primal objective")
    plot.add_argument("--optimum", type=_number(float, "optimum"), metavar="P*",
                      help="P* for --y suboptimality (default: the lowest primal in the trace)")
    plot.set_defaults(run=_plot)
    return parser


# ------------------------------------------------------------------- helpers


class CommandError(Exception):
    """A one-line error message for the user."""


def _check_writable(path, what):
    """Fail before the work, not after it, on an output path that cannot be written."""
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise CommandError(f"cannot write {what} {path}: it is a directory")
    if not os.path.isdir(directory):
        raise CommandError(f"cannot write {what} {path}: no such directory {directory}")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise CommandError(f"cannot write {what} {path}: permission denied")


def _write_error(path, what, error):
    return CommandError(f"cannot write {what} {path}: {error.strerror or error}")


def _label_json(label):
    from .io import format_label

    if isinstance(label, str):
        return label
    text = format_label(label)
    try:
        return int(text)
    except ValueError:
        return float(label)


def _finite(x):
    x = float(x)
    return x if math.isfinite(x) else None


def _overall_status(statuses):
    for status in ("interrupted", "time_limit", "max_iter", "callback", "gap"):
        if status in statuses:
            return status
    return "converged"


# --------------------------------------------------------------------- train


def _train(args):
    if any(getattr(args, name) is not None for name in _KERNEL_OPTIONS):
        return _train_kernel(args)
    for name, default in (("solver", 1), ("tol", 0.1), ("max_iter", 1000)):
        if getattr(args, name) is None:
            setattr(args, name, default)
    import numpy as np

    from .io import read_svmlight
    from .training import fit_linear

    if args.exact_bias and args.bias is not None and args.bias >= 0:
        raise _UsageError(f"{PROG} train", "-B and --exact-bias are exclusive: the exact bias "
                          "has no augmented feature")
    say = _Say(quiet=args.quiet, to_stderr=args.json)
    model_path = None
    if args.folds is None:
        model_path = args.model or os.path.basename(os.path.normpath(args.file)) + ".model"
        _check_writable(model_path, "model file")
    if args.trace:
        _check_writable(args.trace, "trace file")
    if os.path.isdir(args.file):
        return _train_on_disk(args, say, model_path)
    if args.memory is not None or args.checkpoint or args.resume:
        raise _UsageError(f"{PROG} train", "--memory, --checkpoint and --resume apply to a "
                          "dataset directory (dualsvm convert), not to a file")

    X, y = read_svmlight(args.file)
    classes = np.unique(y)
    if len(classes) < 2:
        from .io import format_label

        raise CommandError(f"{args.file}: all {len(y)} samples have the label "
                           f"{format_label(classes[0])}; training needs at least two classes")
    class_weight = _class_weight(args, classes, say)

    bias = -1.0 if args.bias is None else args.bias
    params = dict(
        C=args.C, loss=SOLVERS[args.solver], fit_intercept=args.exact_bias or bias > 0,
        intercept_mode="exact" if args.exact_bias else "augmented",
        intercept_scaling=bias if bias > 0 else 1.0, tol=args.tol, gap_tol=args.gap_tol,
        max_iter=args.max_iter, time_limit=args.time_limit, shrinking=not args.no_shrinking,
        shuffle=not args.cyclic, random_state=args.seed, class_weight=class_weight,
        warm_start=False, callback=None, verbose=0 if args.quiet or args.folds else 2,
        monitor=True if args.trace else None)
    solver = "pair-dcd" if args.exact_bias else "dcd-l1" if args.solver == 3 else "dcd-l2"

    if args.folds is not None:
        return _cross_validate(args, params, X, y, solver, say)

    weights = np.ones(len(classes)) if class_weight is None else np.array(
        [class_weight.get(c, 1.0) for c in classes])
    cost = args.C * weights[np.searchsorted(classes, y)]
    start = time.perf_counter()
    model = fit_linear(X, y, cost, params)
    seconds = time.perf_counter() - start
    interrupted = "interrupted" in model.status_
    if model.early_stop() and not interrupted:
        say.warn(f"{model.early_stop()} Increase --max-iter or --time-limit, or loosen -e.")
    n_problems = len(model.status_)
    for k in range(n_problems):
        prefix = f"class {_label_json(model.classes_[k])}: " if n_problems > 1 else ""
        status = model.status_[k]
        say(f"{prefix}optimization finished, #iter = {len(model.history_[k])}, "
            f"primal = {model.primal_[k]:.10g}, dual = {model.dual_[k]:.10g}, "
            f"gap = {model.gap_[k]:.3e}"
            + ("" if status in ("converged", "gap") else f" (stopped: {status})"))
    _save(args, model, model_path, interrupted)
    if args.json:
        print(json.dumps(_summary(args, model, X, solver, seconds, model_path)))
    return 130 if interrupted else 0


def _save(args, model, model_path, interrupted=False, trace_labels=None):
    """Save the model (also after Ctrl-C, saying so) and the trace."""
    from .io import save_model

    if interrupted:
        print(f"{PROG}: training was interrupted; saving the current model to {model_path} "
              f"(relative duality gap {max(model.gap_):.3g})", file=sys.stderr)
    try:
        save_model(model, model_path)
    except OSError as e:
        raise _write_error(model_path, "model file", e) from None
    if args.trace:
        _write_trace(args.trace, model, trace_labels)


def _class_weight(args, classes, say):
    """The -w weights as a class_weight dict (None without any), for labels in classes."""
    class_weight = {}
    for pair in args.weights:
        label, weight = _weight_pair(pair)
        if label in classes:
            class_weight[label] = weight
        else:
            say.warn(f"class label {pair[0]} given with -w is not in {args.file}; ignored")
    return class_weight or None


def _train_on_disk(args, say, model_path):
    """dualsvm train DIR: out-of-core training, a progress line per pass."""
    from .outofcore import DiskDataset, fit_linear_disk

    if args.folds is not None or args.exact_bias:
        raise _UsageError(f"{PROG} train", "-v and --exact-bias do not apply to a dataset directory")
    dataset = DiskDataset(args.file)

    def progress(record):
        say(f"pass {record['epoch']}: {record['passes']:.1f} passes over the disk, cache "
            f"{record['cache_size']} rows, primal {record['primal']:.10g}, "
            f"gap {record['gap']:.3e}, {record['seconds']:.1f} s")

    class_weight = _class_weight(args, dataset.labels, say)
    bias = -1.0 if args.bias is None else args.bias
    params = dict(
        C=args.C, loss=SOLVERS[args.solver], fit_intercept=bias > 0, intercept_mode="augmented",
        intercept_scaling=bias if bias > 0 else 1.0, tol=args.tol, gap_tol=args.gap_tol,
        max_iter=args.max_iter, time_limit=args.time_limit, shrinking=True, shuffle=True,
        random_state=args.seed, class_weight=class_weight, warm_start=False, callback=progress,
        verbose=0, monitor=True)
    say(f"{dataset}: {args.method} with {args.memory or 1024:g} MB for rows")
    start = time.perf_counter()
    model = fit_linear_disk(dataset, params, method=args.method, memory=args.memory or 1024.0,
                            checkpoint=args.checkpoint, resume=args.resume)
    model.params["callback"] = None
    seconds = time.perf_counter() - start
    status = model.status_[0]
    say(f"optimization finished, #passes = {model.n_iter_}, primal = {model.primal_[0]:.10g}, "
        f"dual = {model.dual_[0]:.10g}, gap = {model.gap_[0]:.3e}, {seconds:.1f} s"
        + ("" if status in ("converged", "gap") else f" (stopped: {status})"))
    _save(args, model, model_path, status == "interrupted")
    return 130 if status == "interrupted" else 0


def _train_kernel(args):
    """LIBSVM's svm-train (C-SVC): the same data and model checks as the linear path."""
    import numpy as np

    from .io import _with_width, read_svmlight
    from .kernel_training import fit_kernel

    usage = f"{PROG} train"
    if args.bias is not None:
        raise _UsageError(usage, "-B is for linear models; a kernel model has the exact "
                          "(unregularised) bias")
    if args.folds is not None:
        raise _UsageError(usage, "-v (cross validation) is not available for kernel models")
    if args.kernel_type and args.kernel_name and args.kernel_type != args.kernel_name:
        raise _UsageError(usage, f"-t and --kernel disagree ({args.kernel_type} and "
                          f"{args.kernel_name})")
    if args.no_shrinking and args.shrinking:
        raise _UsageError(usage, "-h 1 and --no-shrinking disagree")
    say = _Say(quiet=args.quiet, to_stderr=args.json)
    model_path = args.model or os.path.basename(args.file) + ".model"
    _check_writable(model_path, "model file")
    if args.trace:
        _check_writable(args.trace, "trace file")

    kernel = args.kernel_type or args.kernel_name or "rbf"
    X, y = read_svmlight(args.file, precomputed=kernel == "precomputed")
    if kernel == "precomputed":
        if X.shape[1] > X.shape[0]:
            raise CommandError(f"{args.file}: a precomputed kernel file of {X.shape[0]} samples "
                               f"has {X.shape[1]} kernel columns")
        X = np.ascontiguousarray(_with_width(X, X.shape[0]).toarray())
    classes = np.unique(y)
    if len(classes) < 2:
        from .io import format_label

        raise CommandError(f"{args.file}: all {len(y)} samples have the label "
                           f"{format_label(classes[0])}; training needs at least two classes")
    weights = np.ones(len(classes))
    for pair in args.weights:
        label, weight = _weight_pair(pair)
        if label in classes:
            weights[np.searchsorted(classes, label)] = weight
        else:
            say.warn(f"class label {pair[0]} given with -w is not in {args.file}; ignored")
    params = dict(
        C=args.C, kernel=kernel, degree=3 if args.degree is None else args.degree,
        gamma="auto" if args.gamma is None else args.gamma,
        coef0=0.0 if args.coef0 is None else args.coef0,
        loss="squared_hinge" if args.solver == 1 else "hinge", solver="smo",
        tol=1e-3 if args.tol is None else args.tol,
        cache_size=100.0 if args.cache_size is None else args.cache_size,
        shrinking=not args.no_shrinking and args.shrinking is not False,
        class_weight=None, max_iter=-1 if args.max_iter is None else args.max_iter,
        time_limit=args.time_limit, callback=None, verbose=0 if args.quiet else 2,
        decision_function_shape="ovr", random_state=args.seed)
    cost = args.C * weights[np.searchsorted(classes, y)]
    if not (cost > 0).any():
        raise CommandError("every class has weight 0 (-w): nothing to train")
    start = time.perf_counter()
    model = fit_kernel(X, y, cost, params)
    seconds = time.perf_counter() - start
    interrupted = "interrupted" in model.status_
    if model.early_stop() and not interrupted:
        say.warn(f"{model.early_stop()} Increase --max-iter or --time-limit, or loosen -e.")
    from .kernel_training import class_pairs

    for p, (i, j) in enumerate(class_pairs(len(classes))):
        prefix = (f"classes {_label_json(classes[i])} vs {_label_json(classes[j])}: "
                  if len(classes) > 2 else "")
        status = model.status_[p]
        say(f"{prefix}optimization finished, #iter = {model.n_iter_[p]}, "
            f"primal = {model.primal_[p]:.10g}, dual = {model.dual_[p]:.10g}, "
            f"gap = {model.gap_[p]:.3e}, b = {model.intercept_[p]:.10g}"
            + ("" if status in ("converged", "gap") else f" (stopped: {status})"))
    say(f"Total nSV = {len(model.support_)}")
    _save(args, model, model_path, interrupted,
          [f"{_label_json(classes[i])} vs {_label_json(classes[j])}"
           for i, j in class_pairs(len(classes))])
    if args.json:
        primal, dual = float(sum(model.primal_)), float(sum(model.dual_))
        print(json.dumps({
            "command": "train", "data": args.file, "model": model_path, "solver": "smo",
            "kernel": model.kernel.to_dict(), "loss": params["loss"], "C": args.C,
            "bias": "exact", "n_samples": int(X.shape[0]), "n_features": int(X.shape[1]),
            "classes": [_label_json(c) for c in classes],
            "status": _overall_status(model.status_), "iterations": int(sum(model.n_iter_)),
            "seconds": seconds, "primal": _finite(primal), "dual": _finite(dual),
            "gap": _finite((primal - dual) / max(abs(primal), sys.float_info.min)),
            "n_support": int(len(model.support_))}))
    return 130 if interrupted else 0
def _convert(args):
    from .outofcore import convert

    if os.path.exists(args.directory) and not (os.path.isdir(args.directory)
                                               and not os.listdir(args.directory)):
        raise CommandError(f"{args.directory}: exists and is not an empty directory")
    say = _Say(quiet=args.quiet, to_stderr=False)
    dataset = convert(args.inputs, args.directory, block_mb=args.block_mb, poly2=args.poly2,
                      replicas=args.replicas, perturbation=args.perturbation,
                      shuffle=args.shuffle, seed=args.seed,
                      n_features=args.n_features, progress=None if args.quiet else say)
    say(f"{dataset}: {dataset.disk_nbytes / 2**20:.1f} MB on disk, "
        f"{dataset.nbytes / 2**20:.1f} MB in memory")
    return 0


class _Say:
    """Messages: stdout like LIBLINEAR, or stderr when stdout carries JSON."""

    def __init__(self, quiet, to_stderr):
        self.quiet = quiet
        self.stream = sys.stderr if to_stderr else sys.stdout

    def __call__(self, text):
        if not self.quiet:
            print(text, file=self.stream)

    def warn(self, text):
        if not self.quiet:
            print(f"{PROG}: warning: {' '.join(text.split())}", file=sys.stderr)


def _write_trace(path, model, labels=None):
    try:
        with open(path, "w", encoding="utf-8") as f:
            for k, history in enumerate(model.history_):
                label = (labels[k] if labels is not None else _label_json(model.classes_[k])
                         if len(model.history_) > 1 else _label_json(model.classes_[1]))
                for record in history:
                    record = {key: _finite(v) if isinstance(v, float) else v
                              for key, v in record.items()}
                    f.write(json.dumps({"problem": k, "class": label, **record}) + "\n")
    except OSError as e:
        raise _write_error(path, "trace file", e) from None


def _summary(args, model, X, solver, seconds, model_path):
    primal = float(sum(model.primal_))
    dual = float(sum(model.dual_))
    gap = (primal - dual) / max(abs(primal), sys.float_info.min)
    targets = (model.classes_[1:] if len(model.classes_) == 2
               else model.classes_)
    return {
        "command": "train",
        "data": args.file,
        "model": model_path,
        "solver": solver,
        "loss": model.params["loss"],
        "C": model.params["C"],
        "bias": "exact" if args.exact_bias else (-1.0 if args.bias is None else args.bias),
        "n_samples": int(X.shape[0]),
        "n_features": int(X.shape[1]),
        "classes": [_label_json(c) for c in model.classes_],
        "status": _overall_status(model.status_),
        "iterations": int(model.n_iter_),
        "seconds": seconds,
        "primal": _finite(primal),
        "dual": _finite(dual),
        "gap": _finite(gap),
        "problems": [
            {"class": _label_json(target), "status": model.status_[k],
             "iterations": len(model.history_[k]), "primal": _finite(model.primal_[k]),
             "dual": _finite(model.dual_[k]), "gap": _finite(model.gap_[k])}
            for k, target in enumerate(targets)
        ],
    }


def _cross_validate(args, params, X, y, solver, say):
    import warnings

    import numpy as np

    from .estimators import LinearSVC

    n = X.shape[0]
    folds = args.folds
    if folds > n:
        say.warn(f"{folds} folds > {n} samples; using {n} folds (leave-one-out)")
        folds = n
    order = np.random.default_rng(args.seed).permutation(n)
    predicted = np.empty_like(y)
    start = time.perf_counter()
    interrupted = False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for fold, test in enumerate(np.array_split(order, folds), start=1):
            train = np.ones(n, dtype=bool)
            train[test] = False
            model = LinearSVC(**params)
            try:
                model.fit(X[train], y[train])
            except ValueError as e:
                raise CommandError(f"cross validation fold {fold}: {e}") from None
            predicted[test] = model.predict(X[test])
            if "interrupted" in model.status_:
                interrupted = True
                break
    if interrupted:
        print(f"{PROG}: cross validation was interrupted", file=sys.stderr)
        return 130
    for message in {str(w.message) for w in caught}:
        say.warn(message)
    accuracy = 100.0 * float(np.mean(predicted == y))
    seconds = time.perf_counter() - start
    if args.json:
        print(json.dumps({"command": "train", "data": args.file, "solver": solver,
                          "cross_validation_folds": folds, "cross_validation_accuracy": accuracy,
                          "n_samples": int(n), "n_features": int(X.shape[1]),
                          "seconds": seconds}))
    else:
        print("Cross Validation Accuracy = %g%%" % accuracy)
    return 0


# ------------------------------------------------------------------- predict


def _predict(args):
    import numpy as np

    from .io import _atomic_write, format_label, load_any_model, read_svmlight

    _check_writable(args.output, "output file")
    estimator = load_any_model(args.model)
    # a precomputed kernel: column 0 of LIBSVM's format holds the row ids
    precomputed = getattr(estimator, "kernel", None) == "precomputed"
    X, y = read_svmlight(args.test, n_features=estimator.n_features_in_, precomputed=precomputed)
    predicted = estimator.predict(X)
    classes = estimator.classes_
    names = np.array([format_label(c) for c in classes], dtype=object)
    index = np.searchsorted(classes, predicted)
    lines = names[index]
    text = "\n".join(lines) + "\n"
    try:
        _atomic_write(args.output, lambda f: f.write(text.encode("utf-8")))
    except OSError as e:
        raise _write_error(args.output, "output file", e) from None
    if classes.dtype.kind in "biuf":
        correct = int(np.count_nonzero(predicted == y))
    else:
        truth = np.array([format_label(t) for t in y], dtype=object)
        correct = int(np.count_nonzero(lines == truth))
    total = len(y)
    if not args.quiet:
        print("Accuracy = %g%% (%d/%d)" % (float(correct) / total * 100, correct, total))
    return 0


# ---------------------------------------------------------------- conversion


def _export(args):
    from .io import export_liblinear, load_any_model

    _check_writable(args.out, "LIBLINEAR model file")
    estimator = load_any_model(args.model)
    try:
        export_liblinear(estimator, args.out)
    except OSError as e:
        raise _write_error(args.out, "LIBLINEAR model file", e) from None
    return 0


def _import(args):
    from .io import import_liblinear, save_model

    _check_writable(args.model, "model file")
    estimator = import_liblinear(args.source)
    try:
        save_model(estimator, args.model)
    except OSError as e:
        raise _write_error(args.model, "model file", e) from None
    return 0


def _demo(args):
    from .demo import main as demo

    return demo([])


def _plot(args):
    out = args.out or args.trace + ".png"
    _check_writable(out, "image file")
    try:
        import matplotlib
    except ImportError:
        raise CommandError("plot needs matplotlib: pip install 'dualsvm[plot]'") from None
    matplotlib.use("Agg")  # a file, never a window
    import matplotlib.pyplot as plt

    from .plotting import plot_convergence, read_trace

    ax = plot_convergence(read_trace(args.trace), x=args.x, y=args.y, optimum=args.optimum)
    ax.set_title(os.path.basename(args.trace), fontsize="medium")
    try:
        ax.figure.savefig(out, dpi=100)
    except OSError as e:
        raise _write_error(out, "image file", e) from None
    finally:
        plt.close(ax.figure)
    return 0


# ---------------------------------------------------------------------- main


def main(argv=None):
    """Run the ``dualsvm`` command line; return the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = _build_parser()
        args = parser.parse_args(_expand_weights(argv))
        if args.command == "train" and args.weights:
            for pair in args.weights:
                try:
                    _weight_pair(pair)
                except argparse.ArgumentTypeError as e:
                    raise _UsageError(f"{PROG} train", str(e)) from None
        return args.run(args)
    except _UsageError as e:
        print(f"{e.prog}: error: {e.message}", file=sys.stderr)
        return 2
    except _Exit as e:
        return e.status
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except (CommandError, ValueError, OSError, MemoryError) as e:
        print(f"{PROG}: error: {_message(e)}", file=sys.stderr)
        return 1


def _message(error):
    if isinstance(error, MemoryError):
        return "out of memory"
    if isinstance(error, OSError) and error.strerror:
        where = f"{error.filename}: " if error.filename else ""
        return f"{where}{error.strerror}"
    return " ".join(str(error).split()) or type(error).__name__


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
