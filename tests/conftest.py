"""Where the tests find their data.

The default run reads only the small sets shipped in tests/data. Benchmark-sized sets come
from the directory in DUALSVM_DATA and only slow tests may ask for them: when one is
missing, the test fails if the environment variable CI is set and is skipped otherwise.
"""

import importlib.util
import os
import re
import sys
from pathlib import Path

import pytest
from sklearn.datasets import load_svmlight_file

# GNU OpenMP's threads (Numba's 'omp' threading layer) spin after each parallel region,
# waiting for the next: beside pytest-xdist's other workers on every core, a spinning
# thread takes the core another process, or its own main thread, needs, and the tests'
# many small parallel regions cost several times their work (test_ws_smo.py and
# test_kernel_solvers.py in one process on a loaded machine: 130 s of CPU, 16 s
# passive). Set before any parallel region runs; the workers and the subprocesses
# (command lines, Dask workers) inherit it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

SHIPPED_DATA = Path(__file__).resolve().parent / "data"
BENCHMARK_DATA = Path(os.environ.get("DUALSVM_DATA",
                                     Path(__file__).resolve().parents[1] / ".." / "shared" / "data"))
BENCHMARK_FIXTURES = {"benchmark_file", "load_benchmark"}


def pytest_collection_modifyitems(items):
    for item in items:
        if BENCHMARK_FIXTURES & set(item.fixturenames) and not item.get_closest_marker("slow"):
            raise pytest.UsageError(f"{item.nodeid} reads benchmark data but is not marked slow; "
                                    "ship its data in tests/data or mark it slow")


def pytest_configure(config):
    """pytest-xdist's controller compiles what most test files run (numba_warmup.py,
    in two processes) before the workers start: in a fresh clone they would each
    compile it, at the same time (not when the package's cache holds anything)."""
    if (getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput")
            and not any(Path(importlib.util.find_spec("dualsvm").origin).parent.rglob("*.nbi"))):
        import subprocess

        script = Path(__file__).resolve().parent / "numba_warmup.py"
        parts = [subprocess.Popen([sys.executable, str(script), part])
                 for part in ("kernel", "other")]
        for part in parts:
            part.wait()


def _in_ci():
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


_cache = {}


def _loaded(path, n_features):
    key = (path, n_features)
    if key not in _cache:
        _cache[key] = load_svmlight_file(str(path), n_features=n_features)
    return _cache[key]


@pytest.fixture(scope="session")
def data_dir():
    """The data shipped with the tests (tests/data)."""
    return SHIPPED_DATA


@pytest.fixture(scope="session")
def load():
    """load(name, n_features=None) -> (X, y) of a shipped file, cached for the session."""
    return lambda name, n_features=None: _loaded(SHIPPED_DATA / name, n_features)


@pytest.fixture(scope="session")
def benchmark_file():
    """benchmark_file(name) -> Path: the shipped copy, else the one in DUALSVM_DATA."""
    def _path(name):
        for directory in (SHIPPED_DATA, BENCHMARK_DATA):
            if (directory / name).is_file():
                return directory / name
        message = f"benchmark data {name} not found in {BENCHMARK_DATA}; set DUALSVM_DATA"
        if _in_ci():
            pytest.fail(message)
        pytest.skip(message)
    return _path


@pytest.fixture(scope="session")
def load_benchmark(benchmark_file):
    """load_benchmark(name, n_features=None) -> (X, y), cached; see benchmark_file."""
    return lambda name, n_features=None: _loaded(benchmark_file(name), n_features)


def bad_parameter(estimator, name, value):
    """The regular expression of scikit-learn's refusal of ``name=value`` (its parameter
    validation), which names the estimator, the parameter, what it accepts and the value."""
    return (rf"^The '{name}' parameter of {estimator} must be .+\. "
            rf"Got {re.escape(repr(value))} instead\.$")


def refuses_bad_dask_arrays(estimator, dense, y):
    """What every dask estimator refuses in its dask-array input, with the message
    naming it: ``dense`` is heart_scale's rows (270 x 13), ``y`` its labels."""
    import dask.array as da
    import numpy as np

    with pytest.raises(ValueError, match="chunked along its columns"):
        estimator().fit(da.from_array(dense, chunks=(90, 5)), y)
    with pytest.raises(ValueError, match="X has 270 rows but y has 269 labels"):
        estimator().fit(da.from_array(dense, chunks=(90, 13)), y[:-1])
    with pytest.raises(ValueError, match="only one class"):
        estimator().fit(da.from_array(dense, chunks=(90, 13)), np.ones(len(y)))
    bad = dense.copy()
    bad[100, 2] = np.nan
    with pytest.raises(ValueError, match="partition 1: X contains NaN"):
        estimator().fit(da.from_array(bad, chunks=(90, 13)), y)


def pytest_sessionfinish(session):
    """A pytest-xdist worker hands its part of the robustness tally to the controller."""
    robustness = sys.modules.get("robustness")
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None and robustness is not None:
        workeroutput["robustness_tally"] = [[*key, n] for key, n in robustness.TALLY.items()]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """The controller adds up the workers' tallies (pytest-xdist's hook)."""
    tally = getattr(node, "workeroutput", {}).get("robustness_tally")
    if tally:
        import robustness

        for section, target, outcome, n in tally:
            robustness.TALLY[(section, target, outcome)] += n


def pytest_terminal_summary(terminalreporter):
    """The robustness battery's tally (tests/robustness.py), when it ran."""
    import json

    robustness = sys.modules.get("robustness")
    if robustness is None or not robustness.TALLY:
        return
    rows = sorted(robustness.TALLY.items())
    terminalreporter.section(f"robustness battery (profile {robustness.PROFILE})")
    for (section, target, outcome), n in rows:
        terminalreporter.write_line(f"{section:12s} {target:40s} {outcome:28s} {n:7d}")
    report = os.environ.get("DUALSVM_ROBUSTNESS_REPORT")
    if report:
        with open(report, "w", encoding="utf-8") as f:
            json.dump({"profile": robustness.PROFILE,
                       "tally": [[*key, n] for key, n in rows]}, f, indent=1)


@pytest.fixture(scope="module")
def client():
    """A Dask LocalCluster of two one-thread worker processes (as CI runs Dask), one a test
    file."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()
