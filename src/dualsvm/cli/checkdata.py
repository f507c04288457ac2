"""``dualsvm checkdata FILE``: every problem of a LIBSVM data file, as LIBSVM's checkdata.py.

One ``line N: problem`` on stdout for every bad token of every line (the label, each
``index:value`` pair, indices in increasing order and not repeated, the final newline),
then ``Found K lines with error.`` and exit status 1, or ``No error.`` and 0. The checks
are the readers' own (:func:`dualsvm.data.svmlight.line_problems`) in LIBSVM's grammar.
"""

import os
import sys
import zlib

from ..data.svmlight import line_problems, open_data
from ..exceptions import one_line
from .parser import CommandError


def run(args):
    path = args.file
    if not os.path.exists(path):
        raise CommandError(f"{path}: no such file")
    if os.path.isdir(path):
        raise CommandError(f"{path}: is a directory, not a data file")
    bad_lines = 0
    report = []
    try:
        with open_data(path) as f:
            for number, raw in enumerate(f, 1):
                problems = line_problems(raw, libsvm=True)
                if problems:
                    bad_lines += 1
                    report += [f"line {number}: {problem}" for problem in problems]
                if len(report) > 10000:  # keep the memory of a bad file's report bounded
                    print("\n".join(report))
                    report = []
    except (EOFError, zlib.error) as e:
        raise CommandError(f"{path}: truncated or corrupt compressed file "
                           f"({one_line(e)})") from None
    except OSError as e:
        if e.filename is None and path.endswith((".gz", ".bz2")):
            raise CommandError(f"{path}: truncated or corrupt compressed file "
                               f"({one_line(e)})") from None
        raise CommandError(f"{path}: cannot read ({e.strerror or one_line(e)})") from None
    report.append(f"Found {bad_lines} lines with error." if bad_lines else "No error.")
    print("\n".join(report))
    sys.stdout.flush()
    return 1 if bad_lines else 0
