"""dualsvm: Support Vector Machines trained in the dual.

The public API is what this module exports (the estimators, ``c_path``, the searches,
model files), with :mod:`dualsvm.outofcore`, :mod:`dualsvm.dask`,
:mod:`dualsvm.plotting` and :mod:`dualsvm.exceptions`.

Architecture
------------
One folder a layer, top to bottom; a module imports only from its own layer and the
layers below it, never upward, and there is no import cycle
(``tests/test_architecture.py`` checks both, and that a name another module uses is
public). An import inside a function only defers a heavy module (scikit-learn, the
kernel layer) to the code that needs it. The docs' "Architecture" page draws them.

8. :mod:`dualsvm.cli`: the command line, one module per subcommand.
7. :mod:`dualsvm.estimators`: the scikit-learn estimators, ``c_path``, the
   searches, their model files; :mod:`dualsvm.plotting`; the Dask estimators
   (:mod:`dualsvm.dask.estimator`).
6. :mod:`dualsvm.persistence`: model files (ours, LIBLINEAR's, LIBSVM's) from and
   into fitted models.
5. :mod:`dualsvm.training` (in memory: data in, fitted models out),
   :mod:`dualsvm.outofcore` (data on disk), :mod:`dualsvm.dask.cocoa` (a cluster).
4. :mod:`dualsvm.solvers`: compiled epochs and their Python drivers.
3. :mod:`dualsvm.kernels` (kernel functions, Q columns and their cache), then
   :mod:`dualsvm.problems` (the dual problems, defined once).
2. :mod:`dualsvm.data.svmlight`: the svmlight reader, data checks and costs, row access for
   compiled code, atomic file writes.
1. :mod:`dualsvm.exceptions`, :mod:`dualsvm.constants`.

Only the estimators import scikit-learn (a slow import): the command line trains,
saves and reports without it. The exported names are imported on first use.
"""

from .constants import VERSION as __version__

__all__ = ["SVC", "SVCCV", "SVR", "SVRCV", "LinearOneClassSVM", "LinearSVC", "LinearSVCCV",
           "LinearSVR", "LinearSVRCV", "LowRankSVC", "NuSVC", "NuSVR", "NuSVRCV", "OneClassSVM",
           "SVMScaler", "c_path",
           "export_liblinear", "export_libsvm", "from_sklearn", "import_liblinear", "import_libsvm",
           "load_model", "save_model", "__version__"]

_LAZY = {"LinearSVC": "linear_svc", "LinearSVR": "linear_svr",
         "LinearOneClassSVM": "linear_one_class", "SVC": "svc", "NuSVC": "svc",
         "SVR": "svr", "NuSVR": "svr", "OneClassSVM": "one_class", "LowRankSVC": "low_rank",
         "c_path": "regularization_path", "SVMScaler": "scaling",
         "LinearSVCCV": "model_selection", "LinearSVRCV": "model_selection",
         "SVCCV": "model_selection", "SVRCV": "model_selection", "NuSVRCV": "model_selection",
         **dict.fromkeys(["save_model", "load_model", "export_liblinear", "import_liblinear",
                          "export_libsvm", "import_libsvm", "from_sklearn"], "model_io")}


def __getattr__(name):
    # The estimators import scikit-learn (a slow import); the command line and the
    # compiled solvers do not need it, so it is imported on first use only.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".estimators.{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
