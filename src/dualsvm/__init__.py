"""dualsvm: Support Vector Machines trained in the dual.

Architecture
------------
Layers, top to bottom; a module imports only from the layers below it and from
the modules listed before it in its own layer, never upward, so there is no
import cycle (``tests/test_architecture.py`` checks it, and that a name another
module uses is public). An import inside a function only defers a heavy module
(scikit-learn, compiled code) to the command that needs it.

8. Command line: :mod:`dualsvm.cli` (``__init__``: ``main``; ``parser``; one module
   per subcommand; ``report``: the one reporter of traces and summaries).
7. Estimators (scikit-learn): :mod:`~dualsvm.base` (what they share: ``from_fit``),
   :mod:`~dualsvm.linear_svc` (``LinearSVC``), :mod:`~dualsvm.linear_svr`
   (``LinearSVR``), :mod:`~dualsvm.linear_one_class` (``LinearOneClassSVM``),
   :mod:`~dualsvm.svc` (``SVC``), :mod:`~dualsvm.family` (``NuSVC``,
   ``OneClassSVM``, ``SVR``, ``NuSVR``), each with ``from_fit`` / ``to_fit``;
   :mod:`~dualsvm.paths` (``c_path``: warm-started paths over C);
   :mod:`~dualsvm.selection` (``LinearSVCCV``, ``LinearSVRCV``, ``SVCCV``, ``SVRCV``,
   ``NuSVRCV``: C and gamma by cross-validation over those paths);
   :mod:`~dualsvm.models` (``save_model``, ``load_model``, LIBLINEAR and LIBSVM
   import/export of estimators); :mod:`~dualsvm.plotting`; :mod:`dualsvm.dask.estimator`
   (``dualsvm.dask.LinearSVC``).
6. Model files: :mod:`dualsvm.persistence` (``container``: the zip/npy/JSON file;
   ``linear``, ``kernel``: one module per model kind; ``liblinear``, ``libsvm``:
   LIBLINEAR's and LIBSVM's text models, ``text``: what they share; ``model_file``:
   any of them), on fit objects only.
5. Training, producing fit objects: :mod:`~dualsvm.multiclass` (the one
   one-vs-rest / one-vs-one driver), :mod:`~dualsvm.linear_training`
   (``fit_linear``), :mod:`~dualsvm.kernel_training` (``fit_kernel``);
   :mod:`dualsvm.outofcore` (on-disk datasets and ``outofcore.fit``, its own entry
   point); :mod:`dualsvm.dask.cocoa` (CoCoA+ on a Dask cluster).
4. Solvers: :mod:`dualsvm.solvers` (compiled epochs and their Python drivers,
   ``run_epochs`` / ``Stopping``).
3. Problems: :mod:`~dualsvm._random` (the seeded generator of compiled code),
   :mod:`~dualsvm._rows` (row access for compiled code), :mod:`dualsvm.kernels`
   (kernels, Q columns and their cache), :mod:`~dualsvm.problem` (the dual
   problems, defined once).
2. Data and shared rules: :mod:`~dualsvm.data` (the svmlight reader and its
   diagnosis; :mod:`~dualsvm._svmlight`, its compiled parser),
   :mod:`~dualsvm.probability` (Platt's sigmoid, pairwise coupling, one-class
   density marks),
   :mod:`~dualsvm.fits` (``LinearFit``, ``LinearSVRFit``, ``LinearOneClassFit``,
   ``KernelFit``: plain fitted models),
   :mod:`~dualsvm.validation` (data checks, costs, class weights, the seed).
1. Foundations: :mod:`~dualsvm.exceptions`, :mod:`~dualsvm.constants` (kernel
   codes, statuses, TAU, defaults), :mod:`~dualsvm.files` (atomic writes).

Only the estimators and ``models`` import scikit-learn (about 1.5 s); the command
line trains, saves and reports without it, and imports each subcommand's module
only when that command runs. ``dualsvm.LinearSVC``, ``dualsvm.LinearSVR``,
``dualsvm.LinearOneClassSVM``, ``dualsvm.SVC``,
``dualsvm.save_model``, ``dualsvm.load_model``, ``dualsvm.c_path``,
``dualsvm.LinearSVCCV``, ``dualsvm.LinearSVRCV``, ``dualsvm.SVCCV``, ``dualsvm.SVRCV``
and ``dualsvm.NuSVRCV`` are imported on first use.
"""

from .constants import VERSION as __version__

__all__ = ["SVC", "SVCCV", "SVR", "SVRCV", "LinearOneClassSVM", "LinearSVC", "LinearSVCCV",
           "LinearSVR", "LinearSVRCV", "NuSVC", "NuSVR", "NuSVRCV", "OneClassSVM", "c_path",
           "load_model", "save_model", "__version__"]

_LAZY = {"LinearSVC": "linear_svc", "LinearSVR": "linear_svr", "SVC": "svc",
         "LinearOneClassSVM": "linear_one_class",
         "save_model": "models", "load_model": "models",
         "NuSVC": "family", "NuSVR": "family", "OneClassSVM": "family", "SVR": "family",
         "c_path": "paths", "LinearSVCCV": "selection", "LinearSVRCV": "selection",
         "SVCCV": "selection", "SVRCV": "selection", "NuSVRCV": "selection"}


def __getattr__(name):
    # The estimators import scikit-learn (about 1.5 s); the command line and the
    # compiled solvers do not need it, so it is imported on first use only.
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
