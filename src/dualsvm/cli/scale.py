"""``dualsvm scale``: LIBSVM's svm-scale (``-l -u -y -s -r``), the scaled data on stdout.

The numbers, the range files and the data lines are svm-scale's (3.24), byte for byte;
its warnings go to stderr. Where svm-scale silently lets the range file of ``-r``
override ``-l``, ``-u`` or ``-y``, a value that differs from the file's is refused.
"""

import sys

from ..data.scaling import apply_ranges, compute_ranges, differing_limits, \
    read_range_file, unseen_features, write_range_file, write_scaled
from ..data.svmlight import read_svmlight
from .output_files import check_writable, write_error
from .parser import PROG, UsageError

#: svm-scale's default interval of the features.
DEFAULT_LOWER, DEFAULT_UPPER = -1.0, 1.0
#: The options of the limits (:func:`differing_limits`' names).
LIMIT_FLAGS = {"lower": "-l", "upper": "-u", "y_lower": "-y", "y_upper": "-y"}


def run(args):
    usage = f"{PROG} scale"
    if args.save and args.restore:
        raise UsageError(usage, "cannot use -r and -s together (-s saves the ranges of FILE, "
                                "-r scales FILE by saved ones)")
    lower = DEFAULT_LOWER if args.lower is None else args.lower
    upper = DEFAULT_UPPER if args.upper is None else args.upper
    if not upper > lower:
        raise UsageError(usage, f"inconsistent lower/upper specification: -u {upper:g} is "
                                f"not above -l {lower:g}")
    if args.y_range is not None and not args.y_range[1] > args.y_range[0]:
        raise UsageError(usage, f"inconsistent lower/upper specification: -y "
                                f"{args.y_range[0]:g} {args.y_range[1]:g} (y_upper must be "
                                "above y_lower)")
    if args.restore:
        ranges = read_range_file(args.restore)
        _check_restored_limits(usage, args, ranges)
    elif args.save:
        check_writable(args.save, "range file")
    X, y = read_svmlight(args.file)
    if args.restore:
        for index in unseen_features(ranges, X):
            _warn(f"feature index {index} appeared in file {args.file} was not seen in "
                  f"the scaling factor file {args.restore}; it is scaled to 0")
    else:
        ranges = compute_ranges(X, y, lower=lower, upper=upper, y_range=args.y_range)
        if args.save:
            try:
                write_range_file(ranges, args.save)
            except OSError as e:
                raise write_error(args.save, "range file", e) from None
    X_scaled, y_scaled = apply_ranges(ranges, X, y)
    write_scaled(sys.stdout, X_scaled, y_scaled)
    sys.stdout.flush()
    if X_scaled.nnz > X.nnz:
        _warn(f"original #nonzeros {X.nnz} < new #nonzeros {X_scaled.nnz}: if feature "
              "values are non-negative and sparse, use -l 0 rather than the default -l -1")
    return 0


def _warn(text):
    # the reporter's format; imported only to warn (its imports are slow)
    from .report import Reporter

    Reporter(quiet=False).warn(text)


def _check_restored_limits(usage, args, ranges):
    """-l, -u and -y given with -r must be the range file's (svm-scale uses the file's)."""
    y_lower, y_upper = (None, None) if args.y_range is None else args.y_range
    if args.y_range is not None and not ranges.scales_y:
        raise UsageError(usage, f"-y: the range file {args.restore} scales no labels "
                                "(it was saved without -y)")
    differing = differing_limits(ranges, lower=args.lower, upper=args.upper,
                                 y_lower=y_lower, y_upper=y_upper)
    if differing:
        name, value, saved = differing[0]
        flag = LIMIT_FLAGS[name]
        raise UsageError(usage, f"{flag} {value:g} differs from the range file's {saved:g} "
                                f"({args.restore}); -r scales by the file's limits, drop "
                                f"{flag}")
