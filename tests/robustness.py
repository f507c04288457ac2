"""The robustness battery's shared parts: Hypothesis profiles, the tally of what the
battery did, and the lists of targets.

Targets: a new model file format or a new estimator joins the battery with one line
here. ``MODEL_FILES`` (name, write(path), load(path)) feeds the corruption fuzzing of
model files (``test_fuzz_files.py``) and the kill/full-disk/concurrent-save tests
(``test_faults.py``, ``test_concurrency.py``); ``ESTIMATORS`` (name, factory) feeds the
thread tests and the numerical edge cases (``test_edge_cases.py``).

Profiles (environment variable ``DUALSVM_FUZZ``): ``ci`` (the default) runs every
Hypothesis test on its bounded number of examples, derandomized so that every run
tries the same ones; ``long`` runs 40 times as many, random each run, and repeats the
fault injections 10 times as often::

    DUALSVM_FUZZ=long pytest tests/test_fuzz_data.py tests/test_fuzz_files.py \\
        tests/test_faults.py tests/test_concurrency.py tests/test_edge_cases.py

After a run that used the battery, pytest prints its tally (examples per target,
faults per kind, outcomes); ``DUALSVM_ROBUSTNESS_REPORT=FILE`` also writes it as JSON.
"""

import collections
import os

import numpy as np
from hypothesis import HealthCheck, settings

PROFILE = os.environ.get("DUALSVM_FUZZ", "ci")
_SCALE = {"ci": 1, "long": 40}
_FAULT_SCALE = {"ci": 1, "long": 10}
if PROFILE not in _SCALE:
    raise ValueError(f"DUALSVM_FUZZ must be one of {sorted(_SCALE)}, got {PROFILE!r}")

_COMMON = dict(deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                      HealthCheck.function_scoped_fixture])
settings.register_profile("ci", derandomize=True, database=None, **_COMMON)
settings.register_profile("long", **_COMMON)
settings.load_profile(PROFILE)


def examples(n):
    """Examples of a Hypothesis test in the current profile (``n`` in ``ci``)."""
    return n * _SCALE[PROFILE]


def faults(n):
    """Repetitions of a fault injection in the current profile (``n`` in ``ci``)."""
    return n * _FAULT_SCALE[PROFILE]


#: (section, target, outcome) -> count, printed at the end of the run (conftest.py).
TALLY = collections.Counter()


def count(section, target, outcome):
    TALLY[(section, target, outcome)] += 1


# ------------------------------------------------------------------- model files

def _data():
    from dualsvm.data.svmlight import read_svmlight

    from conftest import SHIPPED_DATA

    X, y = read_svmlight(SHIPPED_DATA / "heart_scale")
    return X[:120], y[:120]


def _write_linear(path):
    from dualsvm import LinearSVC, save_model

    X, y = _data()
    save_model(LinearSVC(C=0.5, tol=1e-3).fit(X, y), path)


def _write_linear_multiclass(path):
    from dualsvm import LinearSVC, save_model

    X, y = _data()
    labels = np.array(["a", "b", "c"])[np.arange(len(y)) % 3]
    save_model(LinearSVC(C=0.5, tol=1e-3).fit(X, labels), path)


def _write_kernel(path, dense):
    from dualsvm import SVC, save_model

    X, y = _data()
    save_model(SVC(C=2.0, gamma=0.1).fit(X.toarray() if dense else X, y), path)


def _write_liblinear_export(path):
    from dualsvm import LinearSVC
    from dualsvm.estimators.model_io import export_liblinear

    X, y = _data()
    export_liblinear(LinearSVC(C=0.5, tol=1e-3, intercept_scaling=1.0).fit(X, y), path)


def _write_liblinear_official(path):
    from liblinear import liblinearutil as ll

    X, y = _data()
    ll.save_model(os.fspath(path), ll.train(y, X, "-q -s 1 -B 1"))


def load_any(path):
    from dualsvm.estimators.model_io import load_any_model

    return load_any_model(path)


#: Model files of every format: (name, write(path), load(path) -> fitted estimator).
#: Add a format with one line (e.g. a LIBSVM text model and its loader).
MODEL_FILES = [
    ("linear", _write_linear, load_any),
    ("linear-3-classes", _write_linear_multiclass, load_any),
    ("kernel-dense", lambda path: _write_kernel(path, True), load_any),
    ("kernel-sparse", lambda path: _write_kernel(path, False), load_any),
    ("liblinear-export", _write_liblinear_export, load_any),
    ("liblinear-official", _write_liblinear_official, load_any),
]


# -------------------------------------------------------------------- estimators

def _linear_svc(**params):
    from dualsvm import LinearSVC

    return LinearSVC(**params)


def _svc(**params):
    from dualsvm import SVC

    return SVC(**params)


def _nu_svc(**params):
    from dualsvm import NuSVC

    return NuSVC(**params)


#: Estimators: (name, factory(**params) -> unfitted estimator). Add one with one line.
ESTIMATORS = [
    ("LinearSVC-dcd-l2", lambda **p: _linear_svc(loss="squared_hinge", **p)),
    ("LinearSVC-dcd-l1", lambda **p: _linear_svc(loss="hinge", **p)),
    ("LinearSVC-exact-bias", lambda **p: _linear_svc(loss="hinge", intercept_mode="exact", **p)),
    ("LinearSVC-pegasos", lambda **p: _linear_svc(solver="pegasos", **p)),
    ("SVC-smo", lambda **p: _svc(**p)),
    ("SVC-cgd", lambda **p: _svc(solver="cgd", **p)),
    ("SVC-dcd", lambda **p: _svc(solver="dcd", **p)),
    # nu replaces C: the C cases are those of nu = 0.5
    ("NuSVC", lambda C=None, **p: _nu_svc(**p)),
]


def same_fitted_attributes(a, b):
    """Whether two fitted estimators hold bit-identical fitted attributes."""
    import scipy.sparse as sp

    for name, value in vars(a).items():
        if not name.endswith("_") or name.startswith("_") or name == "history_":
            continue
        other = vars(b).get(name)
        if sp.issparse(value):
            if not (sp.issparse(other) and value.shape == other.shape
                    and (value != other).nnz == 0):
                return False
        elif isinstance(value, np.ndarray):
            if not (isinstance(other, np.ndarray) and value.shape == other.shape
                    and value.dtype == other.dtype
                    and np.array_equal(value, other, equal_nan=value.dtype.kind == "f")):
                return False
        elif isinstance(value, float) and np.isnan(value):
            if not (isinstance(other, float) and np.isnan(other)):
                return False
        elif value != other:
            return False
    return True
