"""Output files of the command line: checked before the work, one-line errors after."""

import os

from .parser import CommandError


def check_writable(path, what):
    """Fail before the work, not after it, on an output path that cannot be written."""
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise CommandError(f"cannot write {what} {path}: it is a directory")
    if not os.path.isdir(directory):
        raise CommandError(f"cannot write {what} {path}: no such directory {directory}")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise CommandError(f"cannot write {what} {path}: permission denied")


def write_error(path, what, error):
    """The CommandError for an output file that could not be written."""
    return CommandError(f"cannot write {what} {path}: {error.strerror or error}")
