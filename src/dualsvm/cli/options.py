"""What ``dualsvm train``'s options mean, shared by training from a file and from a
dataset directory: LIBLINEAR's defaults, the -w weights, the model path, the bias,
and the flags a kind of training refuses."""

import os

from ..constants import LIBLINEAR_TOL
from .parser import KERNEL_OPTIONS, LIBLINEAR_REGRESSIONS, LIBLINEAR_SOLVER_PARAMS, PROG, \
    UsageError, refuse, weight_pair

#: The early-stop warning's advice.
ADVICE = "Increase --max-iter or --time-limit, or loosen -e."
#: Flags that only training on a dataset directory uses (destination, flag).
DIRECTORY_FLAGS = (("memory", "--memory"), ("method", "--method"),
                   ("checkpoint", "--checkpoint"), ("resume", "--resume"))
#: The search for C (LIBLINEAR's -C), for linear models trained from a file only.
SEARCH_FLAGS = (("find_C", "-C"), ("c_grid", "--c-grid"))


def given(args, dest):
    """Whether the option stored in ``dest`` was given (its default is None or False)."""
    return getattr(args, dest) not in (None, False)


def refuse_given(args, flags, why):
    """A usage error naming the first of ``flags`` (destination, flag) that was given."""
    for dest, flag in flags:
        if given(args, dest):
            raise refuse(flag, why)


def refuse_kernel_options(args, why):
    refuse_given(args, KERNEL_OPTIONS.items(), why)


def linear_defaults(args):
    """LIBLINEAR's train defaults for what was not given: -s 1, -e 0.1, 1000 epochs."""
    for name, default in (("solver", 1), ("tol", LIBLINEAR_TOL), ("max_iter", 1000)):
        if getattr(args, name) is None:
            setattr(args, name, default)


def model_path(args):
    """MODEL, or LIBLINEAR's default: FILE's basename + '.model'."""
    return args.model or os.path.basename(os.path.normpath(args.file)) + ".model"


def augmented_bias(args):
    """(fit_intercept, intercept_scaling) of LIBLINEAR's -B (B > 0: a feature of value B)."""
    bias = -1.0 if args.bias is None else args.bias
    return bias > 0, bias if bias > 0 else 1.0


def refuse_exact_and_augmented_bias(args):
    """A usage error for --exact-bias with -B B >= 0."""
    if args.exact_bias and args.bias is not None and args.bias >= 0:
        raise UsageError(f"{PROG} train", "-B and --exact-bias are exclusive: the exact bias "
                         "has no augmented feature")


def class_weight(args, labels, say):
    """The -w weights as a class_weight dict for the labels present (None without any);
    a label that is not in the data is ignored with a warning."""
    weights = {}
    for pair in args.weights:
        label, weight = weight_pair(pair)
        if label in labels:
            weights[label] = weight
        else:
            say.warn(f"class label {pair[0]} given with -w is not in {args.file}; ignored")
    return weights or None


def refuse_regression(args, why):
    """A usage error when LIBLINEAR's regression (-s 12, -s 13 or -p) is asked for by a
    kind of training that has none."""
    if args.solver in LIBLINEAR_REGRESSIONS:
        raise refuse(f"-s {args.solver}", why)
    if args.epsilon is not None:
        raise refuse("-p", why)


def refuse_in_memory_solvers(args, why):
    """A usage error when -s 4 (Crammer-Singer) or -s 5 (L1-regularized) is asked for by
    a kind of training that has neither (out of core, on a cluster)."""
    if args.solver in LIBLINEAR_SOLVER_PARAMS:
        raise refuse(f"-s {args.solver}", why)
