"""Atomic file writes: a file is replaced only once its new content is complete."""

import contextlib
import os
import signal
import tempfile


def atomic_write(path, write):
    """Write a file through a temporary file in its directory and os.replace.

    ``write(fileobj)`` receives a binary file object. On any failure (including
    KeyboardInterrupt) the temporary file is removed and ``path`` is untouched.
    """
    path = os.fspath(path)
    if os.path.isdir(path):
        raise IsADirectoryError(21, "Is a directory", path)
    directory = os.path.dirname(os.path.abspath(path))
    tmp = None
    try:
        # Ctrl-C between creating the temporary file and knowing its name would leave it behind
        with _sigint_deferred():
            fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                                       dir=directory)
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, new_file_mode(path))
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise


@contextlib.contextmanager
def _sigint_deferred():
    """Hold SIGINT back (delivered on exit) where the platform allows it."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def new_file_mode(path):
    """Keep an existing file's mode; otherwise 0o666 minus the umask, like open()."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
