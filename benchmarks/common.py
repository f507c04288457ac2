"""What every benchmark shares: the data, the clock, best-of-N, threads, the peers' fits,
the machine and the results files.

The rules these helpers carry out (benchmarks/README.md states them):

* the data directory is ``DUALSVM_DATA``, by default ``../shared/data`` beside the
  repository: no machine paths in the scripts; :func:`load` reads a public set by name,
  its training or test rows, with the set's number of features;
* :class:`Clock` measures wall and process CPU seconds of the same span, so a
  table can state how many cores a solver kept busy (CPU / wall) beside the
  threads it was given (:func:`thread_pools`);
* :func:`best_of` runs every solver the same number of times, interleaved
  (a, b, c, a, b, c, ...) so that load from other processes hits all alike;
* the peers are called one way everywhere: :func:`fit_libsvm`, :func:`fit_liblinear`,
  :func:`fit_thundersvm`, :func:`fit_onedal`, and :func:`timed_fit` for any
  scikit-learn-style estimator (dualsvm's, scikit-learn's, oneDAL's);
* every results page starts with the same header (:func:`page`: the command, date,
  machine, versions, git commit, load average) and is written with its JSON record by
  :func:`write_results`; :func:`merge` keeps the results of earlier runs that a run
  made in parts (one data set per run) does not measure again.
"""

import ctypes
import gc
import json
import os
import platform
import re
import resource
import shlex
import subprocess
import sys
import tempfile
import time
import warnings
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
from sklearn.exceptions import ConvergenceWarning

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("DUALSVM_DATA", REPO.parent / "shared" / "data"))
RESULTS_DIR = REPO / "benchmarks" / "results"

# ---------------------------------------------------------------------------- data

#: The public sets: training file, test file (None: the set has none), number of
#: features (fixed, so that a test file without the last feature, a9a.t's 123,
#: parses to the same columns).
DATASETS = {
    "a9a": ("a9a.bz2", "a9a.t.bz2", 123),
    "w7a": ("w7a.bz2", "w7a.t.bz2", 300),
    "w8a": ("w8a.bz2", None, 300),
    "ijcnn1": ("ijcnn1.bz2", "ijcnn1.t.bz2", 22),
    "reuters": ("reuters.trn.bz2", "reuters.tst.bz2", 8315),
    "heart_scale": ("heart_scale", None, 13),
    "housing_scale": ("housing_scale", None, 13),
}


def data_file(name, split="train"):
    """The path of a public set's ``"train"`` or ``"test"`` file."""
    train, test, _ = DATASETS[name]
    file = train if split == "train" else test
    if file is None:
        raise ValueError(f"{name} has no test file")
    return DATA_DIR / file


def load(name, split="train"):
    """A public set's ``"train"`` or ``"test"`` rows: (X, y), labels as in the file.

    X is CSR float64 with sorted int32 indices (scikit-learn's LIBSVM and LIBLINEAR
    wrappers take 32-bit indices only) and the set's number of features.
    """
    X, y = load_svmlight_file(str(data_file(name, split)), n_features=DATASETS[name][2])
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sum_duplicates()
    X.sort_indices()
    X.indices = X.indices.astype(np.int32)
    X.indptr = X.indptr.astype(np.int32)
    return X, y


def plus_minus(y):
    """Two-class labels as -1.0 / +1.0, the larger label +1 (LIBSVM's and scikit-learn's
    convention for the sign of dual_coef_)."""
    classes = np.unique(y)
    if len(classes) != 2:
        raise ValueError(f"expected 2 classes, found {classes}")
    return np.where(y == classes[1], 1.0, -1.0)


# ------------------------------------------------------------------- clock, best of

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


def best_of(repeats, fits, log=None, once_above=None):
    """Run every ``fits[name]()`` ``repeats`` times, interleaved across names, the order
    reversed every other round: a fit follows only its neighbours in ``fits`` or itself,
    so no solver runs after the same peer every round (the first fit in this process
    after a ThunderSVM process was measured 10% slower: w8a, sigmoid, SVC(solver="ws")).

    Each fit returns a dict with at least ``seconds`` (and usually ``cpu_seconds``).
    Returns {name: the fastest run's dict, plus ``all_seconds``}; a solver that
    raises is recorded as {"error": message} and not run again, nor one whose run
    took more than ``once_above`` seconds (its ``all_seconds`` says how often it ran).
    """
    best, times, errors = {}, {name: [] for name in fits}, {}
    for round_ in range(repeats):
        for name, fit in list(fits.items())[::-1 if round_ % 2 else 1]:
            if name in errors or (once_above and times[name] and times[name][0] > once_above):
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


def log(text):
    """A progress line on stderr, at once."""
    print(text, file=sys.stderr, flush=True)


def threads_environment(threads):
    """Re-execute this script with OpenMP's, Numba's and OpenBLAS's pools at ``threads``
    threads (they are read at start-up), unless they are already so."""
    wanted = {name: str(threads) for name in
              ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    if all(os.environ.get(k) == v for k, v in wanted.items()):
        return
    os.environ.update(wanted)
    os.execv(sys.executable, [sys.executable, *sys.argv])


# --------------------------------------------------------------------------- fits

def timed_fit(model, X, y=None):
    """``model.fit`` timed, for any scikit-learn-style estimator (dualsvm's, scikit-learn's,
    oneDAL's); ``converged`` is False when the fit warned that it did not converge."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        with Clock() as clock:
            model.fit(X) if y is None else model.fit(X, y)
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return {**clock.timing, "model": model, "converged": converged}


def fit_libsvm(y, X, options, convert_in_clock=False):
    """LIBSVM 3.37 (``libsvm-official``): ``svm_train`` with its command-line ``options``.

    ``svm_problem`` (LIBSVM's copy of the data) is built before the clock starts, or
    timed with the training when ``convert_in_clock``. Its output is read for every
    training it ran (several with ``-b 1``): ``iterations`` (#iter) and ``objectives``
    (LIBSVM's minimised dual f(a), as it prints it).
    """
    from libsvm import svmutil

    with Clock() as setup:
        problem = svmutil.svm_problem(y, X)
    with CapturedStdout() as out:
        with Clock() as clock:
            model = svmutil.svm_train(problem, svmutil.svm_parameter(options))
    timing = clock.timing
    if convert_in_clock:
        timing = {key: timing[key] + setup.timing[key] for key in timing}
    return {**timing, "setup_seconds": setup.seconds, "model": model, "options": options,
            "iterations": [int(v) for v in re.findall(r"#iter = (\d+)", out.text)],
            "objectives": [float(v) for v in re.findall(r"obj = (-?[\d.e+-]+)", out.text)],
            "n_support": int(model.get_nr_sv())}


def fit_liblinear(y, X, options):
    """LIBLINEAR 2.50 (``liblinear-official``): ``problem`` + ``train`` timed together
    (``setup_seconds``: the conversion alone), with its command-line ``options``.

    It runs non-quietly with its C-level stdout captured (a few lines, inside the
    clock): ``output``, ``iterations`` (its last ``#iter = N``, None if it printed
    none) and ``max_iter_reached``.
    """
    from liblinear import liblinearutil as ll

    param = ll.parameter(options)
    with CapturedStdout() as out:
        with Clock() as clock:
            with Clock() as setup:
                problem = ll.problem(y, X)
            model = ll.train(problem, param)
    iterations = re.findall(r"#iter = (\d+)", out.text)
    return {**clock.timing, "setup_seconds": setup.seconds, "model": model,
            "output": out.text, "iterations": int(iterations[-1]) if iterations else None,
            "max_iter_reached": "reaching max number of iterations" in out.text}


def thundersvm_binary():
    """ThunderSVM's CPU thundersvm-train: THUNDERSVM_TRAIN, else where
    ``../shared/peers/build-thundersvm`` builds it; None if it is not there."""
    path = os.environ.get("THUNDERSVM_TRAIN") or str(
        Path(tempfile.gettempdir()) / "thundersvm-cpu/thundersvm/build/bin/thundersvm-train")
    return path if Path(path).is_file() and os.access(path, os.X_OK) else None


def fit_thundersvm(binary, options, path, n_features):
    """thundersvm-train with its command-line ``options`` on the svmlight file ``path``.

    The seconds are its own ``all training time`` (reading the file excluded);
    ``cpu_seconds``: the process's CPU seconds scaled to that span. The model file is
    read back (:func:`read_thundersvm_model`) and deleted.
    """
    model_path = f"{path}.model"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with Clock() as clock:
        done = subprocess.run([binary, *options, path, model_path], capture_output=True,
                              text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    child_cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    log = done.stdout + done.stderr
    seconds = float(re.findall(r"all training time = ([\d.e+-]+)", log)[-1])
    iterations = re.findall(r"total local iter = (\d+)", log)
    outer = re.findall(r"global iter = (\d+)", log)
    model = read_thundersvm_model(model_path, n_features)
    os.unlink(model_path)
    return {"seconds": seconds, "process_seconds": clock.seconds,
            "cpu_seconds": child_cpu * seconds / clock.seconds, "options": " ".join(options),
            "iterations": int(iterations[-1]) if iterations else None,
            "outer_iterations": int(outer[-1]) if outer else None, "model": model,
            "n_support": int(model["sv"].shape[0])}


def read_thundersvm_model(path, n_features):
    """(support vectors CSR, coefficients, rho, labels) of a binary LIBSVM-format model."""
    header = {}
    with open(path) as f:
        for line in f:
            if line.strip() == "SV":
                break
            key, *values = line.split()
            header[key] = values
        rows = f.read()
    with tempfile.NamedTemporaryFile("w", suffix=".svm", delete=False) as out:
        out.write(rows)
    try:
        # one-based, as its input was written (the 'auto' guess of the base shifts
        # every feature when no support vector holds feature 0)
        sv, coef = load_svmlight_file(out.name, n_features=n_features, zero_based=False)
    finally:
        os.unlink(out.name)
    return {"sv": sp.csr_matrix(sv), "coef": coef, "rho": float(header["rho"][0]),
            "labels": [float(v) for v in header["label"]]}


def fit_onedal(X, y, **params):
    """oneDAL's SVC (``sklearnex.svm.SVC``, scikit-learn-intelex) with ``params``, timed.

    sklearnex falls back to scikit-learn's SVC, silently, for what oneDAL does not
    support; a fit that oneDAL did not run (no ``_onedal_estimator``) raises.
    Threads: oneDAL's default (every core, TBB).
    """
    from sklearnex.svm import SVC

    run = timed_fit(SVC(**params), X, y)
    model = run["model"]
    if getattr(model, "_onedal_estimator", None) is None:
        raise RuntimeError(f"sklearnex fell back to scikit-learn's SVC for {params}")
    return {**run, "iterations": int(np.sum(model.n_iter_)),
            "n_support": int(len(model.support_))}


def onedal_threads():
    """The threads oneDAL computes with (daal4py's count)."""
    import daal4py

    return daal4py.num_threads()


# --------------------------------------------------------------------------- results

#: The fields that say where and when one run was made.
RUN_FIELDS = ("command", "date", "machine", "load_average_at_end")
#: The packages whose versions a page states, and how it names them.
VERSIONS = {"scipy": "SciPy", "numba": "Numba", "scikit-learn": "scikit-learn",
            "liblinear-official": "liblinear-official", "libsvm-official": "libsvm-official",
            "scikit-learn-intelex": "scikit-learn-intelex"}


def load_average():
    return [round(x, 2) for x in os.getloadavg()]


#: The CPU flags a results header names: those that decide which vector code runs.
SIMD_FLAGS = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512dq", "avx512bw", "avx512vl",
              "avx512_vnni", "avx512_bf16", "amx_tile")


def machine():
    """CPU (model and vector flags), versions and git commit of this run, and the load average now."""
    import dualsvm

    cpu = platform.processor() or "unknown"
    flags = []
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
            elif line.startswith("flags"):
                flags = [f for f in line.split(":", 1)[1].split() if f in SIMD_FLAGS]
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
    for package in VERSIONS:
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = "not installed"
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "cpu_flags": flags,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        **versions,
        "dualsvm": dualsvm.__version__,
        "git": commit,
        "load_average_at_start": load_average(),
    }


def new_record(argv=None):
    """The start of a run's results record: the command, the date (UTC), the machine."""
    return {"command": command_line(argv),
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": machine()}


def machine_lines(m):
    """The Markdown lines that say on what machine and with what versions a run was made."""
    return [
        f"Machine: {m['nproc']} CPUs, {m['cpu']}"
        + (f" ({' '.join(m['cpu_flags'])})" if m.get("cpu_flags") else "")
        + f", {m['platform']}  ",
        f"Versions: Python {m['python']}, NumPy {m['numpy']}, "
        + ", ".join(f"{label} {m.get(package, 'n/a')}" for package, label in VERSIONS.items())
        + f", dualsvm {m['dualsvm']} (git {m['git']})  ",
    ]


def page(title, record, body):
    """A results page: the title, the header (command, date, machine, versions, git
    commit, load average at start and end; every part's, for a merged record), ``body``
    (a list of lines)."""
    record.setdefault("load_average_at_end", load_average())
    parts = record.get("parts") or [{field: record[field] for field in RUN_FIELDS}]
    lines = [f"# {title}", ""]
    if len(parts) == 1:
        run = parts[0]
        lines += [f"Command: `{run['command']}`  ", f"Date: {run['date']}  ",
                  *machine_lines(run["machine"]),
                  f"Load average (1, 5, 15 min) at start: "
                  f"{run['machine']['load_average_at_start']}, at end: "
                  f"{run['load_average_at_end']}  "]
    else:
        lines += [f"Made in {len(parts)} runs, merged (`--merge`; each result's `run` in "
                  "the JSON and the table's run column, where it has one, number them):", ""]
        lines += [f"{i}. `{run['command']}`, {run['date']}, git {run['machine']['git']}, "
                  f"load average at start {run['machine']['load_average_at_start']}, at end "
                  f"{run['load_average_at_end']}" for i, run in enumerate(parts)]
        lines += ["", *machine_lines(parts[-1]["machine"])]
    return "\n".join(lines + ["", *body]).rstrip("\n") + "\n"


def merge(path, record, key, keep=None):
    """``record`` with the results of the record at ``path`` that it does not measure again.

    Results are matched by ``key(result)``; ``keep(result)``, if given, says which old
    results can be carried over at all (e.g. those with the fields the page needs).
    ``parts`` lists the runs that made the merged results, and every result gets
    ``run``, its run's index there: a table made in parts (one data set per run) keeps
    each part's command, date and load.
    """
    record.setdefault("load_average_at_end", load_average())
    parts, results = [], []
    if path.exists():
        old = json.loads(path.read_text())
        old_parts = old.get("parts") or [{field: old.get(field) for field in RUN_FIELDS}]
        again = {key(result) for result in record["results"]}
        for result in old["results"]:
            if key(result) in again or (keep is not None and not keep(result)):
                continue
            part = old_parts[result.get("run", 0)]
            if part not in parts:
                parts.append(part)
            results.append({**result, "run": parts.index(part)})
    parts.append({field: record[field] for field in RUN_FIELDS})
    results += [{**result, "run": len(parts) - 1} for result in record["results"]]
    return {**record, "parts": parts, "results": results}


def _plain(value):
    """NumPy scalars and arrays as JSON numbers and lists."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def write_results(out_dir, name, record, text=None):
    """``out_dir/name.json`` (the record) and ``out_dir/name.md`` (the page ``text``, if any)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{name}.json").write_text(json.dumps(record, indent=1, default=_plain) + "\n")
    if text is not None:
        (out_dir / f"{name}.md").write_text(text)
    print(f"wrote {out_dir / name}.json" + (" and .md" if text is not None else ""),
          file=sys.stderr)
