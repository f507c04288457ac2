"""What every benchmark shares: where the data is, the clock, best-of-N, threads, the machine.

The rules these helpers carry out (benchmarks/README.md states them):

* the data directory is ``DUALSVM_DATA``, by default ``../shared/data`` beside the
  repository: no machine paths in the scripts;
* :class:`Clock` measures wall and process CPU seconds of the same span, so a
  table can state how many cores a solver kept busy (CPU / wall) beside the
  threads it was given (:func:`thread_pools`);
* :func:`best_of` runs every solver the same number of times, interleaved
  (a, b, c, a, b, c, ...) so that load from other processes hits all alike.
"""

import ctypes
import gc
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("DUALSVM_DATA", REPO.parent / "shared" / "data"))
RESULTS_DIR = REPO / "benchmarks" / "results"


def command_line(argv=None):
    """The command that reproduces this run, from the repository root."""
    script = os.path.relpath(os.path.abspath(sys.argv[0]), REPO)
    return shlex.join(["python", script] + (sys.argv[1:] if argv is None else list(argv)))


class Clock:
    """Wall (``seconds``) and process CPU (``cpu_seconds``, all threads) time of a span."""

    def __enter__(self):
        self._wall = time.perf_counter()
        self._cpu = time.process_time()
        return self

    def __exit__(self, *exc):
        self.seconds = time.perf_counter() - self._wall
        self.cpu_seconds = time.process_time() - self._cpu

    @property
    def timing(self):
        return {"seconds": self.seconds, "cpu_seconds": self.cpu_seconds}


def best_of(repeats, fits, log=None):
    """Run every ``fits[name]()`` ``repeats`` times, interleaved across names.

    Each fit returns a dict with at least ``seconds`` (and usually ``cpu_seconds``).
    Returns {name: the fastest run's dict, plus ``all_seconds``}; a solver that
    raises is recorded as {"error": message} and not run again.
    """
    best, times, errors = {}, {name: [] for name in fits}, {}
    for _ in range(repeats):
        for name, fit in fits.items():
            if name in errors:
                continue
            gc.collect()
            try:
                run = fit()
            except Exception as exc:  # noqa: BLE001 - reported in the results
                errors[name] = f"{type(exc).__name__}: {exc}"
                if log is not None:
                    log(f"  {name} failed: {errors[name]}")
                continue
            times[name].append(run["seconds"])
            if name not in best or run["seconds"] < best[name]["seconds"]:
                best[name] = run
    return {name: {"error": errors[name]} if name in errors
            else {**best[name], "all_seconds": times[name]} for name in fits}


def cores_busy(run):
    """CPU / wall seconds of a run: the cores it kept busy on average."""
    return run["cpu_seconds"] / run["seconds"] if run.get("seconds") else None


def thread_pools():
    """Threads each pool in this process may use: Numba, BLAS, OpenMP (when loaded).

    Call after the peers are imported: LIBSVM's wheel loads libgomp (OpenMP).
    """
    import numba
    from threadpoolctl import threadpool_info

    pools = {"numba": numba.get_num_threads()}
    for info in threadpool_info():
        pools.setdefault(info["user_api"], info["num_threads"])  # "blas", "openmp"
    return pools


class CapturedStdout:
    """Redirect C-level stdout (file descriptor 1) to a temp file; ``.text`` after exit."""

    _libc = ctypes.CDLL(None)

    def __enter__(self):
        sys.stdout.flush()
        self._file = tempfile.TemporaryFile(mode="w+")
        self._saved = os.dup(1)
        os.dup2(self._file.fileno(), 1)
        return self

    def __exit__(self, *exc):
        self._libc.fflush(None)
        os.dup2(self._saved, 1)
        os.close(self._saved)
        self._file.seek(0)
        self.text = self._file.read()
        self._file.close()


def machine():
    """CPU, versions and git commit of this run."""
    import dualsvm

    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "src"],
                               capture_output=True, text=True, check=True).stdout.strip()
        commit += " (src/ modified)" if dirty else ""
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    versions = {}
    for package in ("scipy", "numba", "scikit-learn", "liblinear-official", "libsvm-official"):
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = "not installed"
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        **versions,
        "dualsvm": dualsvm.__version__,
        "git": commit,
        "load_average_at_start": [round(x, 2) for x in os.getloadavg()],
    }


def machine_lines(m, load_at_end=None):
    """The Markdown header lines that say where and with what a table was made."""
    load = f"Load average (1, 5, 15 min) at start: {m['load_average_at_start']}"
    if load_at_end is not None:
        load += f", at end: {load_at_end}"
    return [
        f"Machine: {m['nproc']} CPUs, {m['cpu']}, {m['platform']}  ",
        f"Versions: Python {m['python']}, NumPy {m['numpy']}, SciPy {m['scipy']}, "
        f"Numba {m['numba']}, scikit-learn {m['scikit-learn']}, "
        f"liblinear-official {m['liblinear-official']}, libsvm-official {m['libsvm-official']}, "
        f"dualsvm {m['dualsvm']} (git {m['git']})  ",
        load + "  ",
    ]
