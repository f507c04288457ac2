"""Atomic file writes: a file is replaced only once its new content is complete."""

import contextlib
import os
import signal
import tempfile
import threading


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
        # Ctrl-C between creating the temporary file and knowing its name would leave it
        # behind (and between opening and wrapping its descriptor, leave that open)
        with sigint_deferred():
            fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp",
                                       dir=directory)
            f = os.fdopen(fd, "wb")
        with f:
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
def sigint_deferred():
    """Hold Ctrl-C back (delivered on exit): wrap the creation of a temporary file or
    directory and the statement that records its name, so that cleanup knows it.

    A Python-level handler, not a blocked signal mask: the kernel may deliver SIGINT
    to any thread of the process (BLAS and Numba threads do not block it), and
    Python then raises KeyboardInterrupt in the main thread all the same. Python
    runs signal handlers in the main thread only, so elsewhere nothing needs holding.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: received.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received:
            if callable(previous):
                previous(signal.SIGINT, None)
            elif previous == signal.SIG_DFL:
                os.kill(os.getpid(), signal.SIGINT)


def new_file_mode(path):
    """Keep an existing file's mode; otherwise 0o666 minus the umask, like open()."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
