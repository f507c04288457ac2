"""A pytest plugin that runs scikit-learn's own SVM tests against dualsvm.

Loaded with ``-p plugin`` (``tests/test_sklearn_svm.py`` shows the command), it puts
dualsvm's estimators in place of scikit-learn's in the module ``sklearn.svm`` when
pytest starts, before any test module is imported, so that both ``svm.SVC(...)`` and
``from sklearn.svm import SVR`` in the test files bind ours. The test files
themselves run unchanged from the installed scikit-learn.

``--fast-subset`` leaves out most cases of the slowest test (``test_sparse.py::test_svc``,
64 fits with probability=True, about 90 s): the default test run keeps its
CSR-matrix cases on the two small data sets.
"""

import sys

#: The estimators of sklearn.svm that dualsvm's of the same name replace.
SUBSTITUTED = ("SVC", "NuSVC", "SVR", "NuSVR", "OneClassSVM", "LinearSVC", "LinearSVR")


def pytest_addoption(parser):
    parser.addoption("--fast-subset", action="store_true",
                     help="leave out most cases of test_sparse.py::test_svc (the slow one)")


def pytest_configure(config):
    import sklearn.svm

    import dualsvm

    stale = [m for m in ("sklearn.svm.tests.test_svm", "sklearn.svm.tests.test_sparse")
             if m in sys.modules]
    if stale:  # they would keep scikit-learn's classes
        raise RuntimeError(f"imported before the substitution: {stale}")
    for name in SUBSTITUTED:
        setattr(sklearn.svm, name, getattr(dualsvm, name))


def fast_subset(nodeid):
    """Whether a test case belongs to the fast subset."""
    if "test_sparse.py::test_svc[" not in nodeid:
        return True
    return "[csr_matrix-" in nodeid and ("-X_train0-" in nodeid or "-X_train1-" in nodeid)


def pytest_collection_modifyitems(config, items):
    if not config.getoption("--fast-subset"):
        return
    kept = [item for item in items if fast_subset(item.nodeid)]
    config.hook.pytest_deselected(items=[item for item in items if item not in kept])
    items[:] = kept


def pytest_report_header(config):
    import dualsvm

    return f"sklearn.svm's {', '.join(SUBSTITUTED)} replaced by dualsvm's ({dualsvm.__file__})"
