"""Saving and loading estimators: dualsvm model files, LIBLINEAR and LIBSVM text models,
and scikit-learn's fitted SVMs (:func:`from_sklearn`).

The formats live in :mod:`dualsvm.persistence`, which reads and writes fit
objects; this module converts between them and the estimators
(``estimator.to_fit()``, ``LinearSVC.from_fit`` / ``SVC.from_fit``).
"""

import os

from sklearn.exceptions import NotFittedError

from ..exceptions import ModelError, one_line
from ..persistence.liblinear import export_liblinear as _export_fit
from ..persistence.liblinear import import_liblinear as _import_fit
from ..persistence.libsvm import export_libsvm as _export_kernel_fit
from ..persistence.libsvm import import_libsvm as _import_kernel_fit
from ..persistence.model_file import load_any_fit, load_fit, save_fit
from ..training.fitted import KernelFit, LinearFit, LinearOneClassFit, LinearSVRFit
from ..training.low_rank import LowRankFit
from .linear_one_class import LinearOneClassSVM
from .linear_svc import LinearSVC
from .linear_svr import LinearSVR
from .low_rank import LowRankSVC
from .one_class import OneClassSVM
from .sklearn_export import sklearn_fit
from .svc import NuSVC
from .svc import SVC
from .svr import NuSVR, SVR

__all__ = ["KERNEL_ESTIMATORS", "export_liblinear", "export_libsvm", "from_sklearn",
           "import_liblinear", "import_libsvm", "load_any_model", "load_model", "save_model"]


#: The estimator of each kind of kernel model (:data:`dualsvm.constants.SVM_TYPES`).
KERNEL_ESTIMATORS = {"c_svc": SVC, "nu_svc": NuSVC, "one_class": OneClassSVM,
                     "epsilon_svr": SVR, "nu_svr": NuSVR}


def _as_fit(model):
    """The fit object of a fitted estimator that has a model file format (or the fit
    object itself)."""
    if isinstance(model, (LinearFit, LinearSVRFit, LinearOneClassFit, KernelFit, LowRankFit)):
        return model
    if not isinstance(model, (LinearSVC, LinearSVR, LinearOneClassSVM, SVC, LowRankSVC,
                              *KERNEL_ESTIMATORS.values())):
        raise ModelError(f"cannot save a {type(model).__name__}; only dualsvm.LinearSVC, "
                         "dualsvm.LinearSVR, dualsvm.LinearOneClassSVM, dualsvm.LowRankSVC and "
                         "the kernel models (SVC, NuSVC, OneClassSVM, SVR, "
                         "NuSVR) have a model file format")
    try:
        return model.to_fit()
    except NotFittedError:
        raise ModelError("the model is not fitted; call fit() before saving it") from None


def _estimator_class(fit):
    """The estimator class of a fit object."""
    if isinstance(fit, KernelFit):
        return KERNEL_ESTIMATORS[fit.kind]
    return {LinearSVRFit: LinearSVR, LinearOneClassFit: LinearOneClassSVM,
            LowRankFit: LowRankSVC}.get(type(fit), LinearSVC)


def _estimator(fit, path):
    """The fitted estimator of a fit object read from ``path``."""
    try:
        return _estimator_class(fit).from_fit(fit)
    except (TypeError, ValueError) as e:
        raise ModelError(f"{os.fspath(path)}: invalid model file (parameters: {one_line(e)})") from None


def save_model(model, path):
    """Save a fitted :class:`~dualsvm.LinearSVC`, :class:`~dualsvm.LinearSVR`,
    :class:`~dualsvm.SVC` or :class:`~dualsvm.LowRankSVC` (or a fit
    object) as a dualsvm model file (see :mod:`dualsvm.persistence.container`).

    The write is atomic: an existing file at ``path`` is replaced only once the
    new one is complete.

    Raises
    ------
    ModelError
        Not a fitted dualsvm model, or labels or coefficients that cannot be stored.
    OSError
        The file cannot be written.
    """
    save_fit(_as_fit(model), path)


def load_model(path):
    """Load a dualsvm model file written by :func:`save_model`.

    Returns
    -------
    LinearSVC, LinearSVR, LinearOneClassSVM, SVC, NuSVC, OneClassSVM, SVR, NuSVR or LowRankSVC
        Fitted: ``predict`` and ``score`` work (and ``decision_function`` where the
        model has one); the training certificate (``status_``, ``n_iter_``, ``primal_``, ``dual_``,
        ``gap_``) is restored when the file has it.

    Raises
    ------
    ModelError
        Anything but a valid dualsvm model file (never unpickles).
    """
    return _estimator(load_fit(path), path)


def load_any_model(path):
    """Load a dualsvm model file, a LIBLINEAR or a LIBSVM text model, detected by content."""
    return _estimator(load_any_fit(path), path)


def export_liblinear(model, path):
    """Write a fitted LinearSVC, LinearSVR or LinearOneClassSVM (or its fit) as a
    LIBLINEAR 2.50 text model file.

    LIBLINEAR's ``predict`` gives the same labels (values) as ``model.predict``.
    """
    fit = _as_fit(model)
    if not isinstance(fit, (LinearFit, LinearSVRFit, LinearOneClassFit)):
        raise ModelError("only linear models have a LIBLINEAR format; this is a kernel model")
    _export_fit(fit, path)


def import_liblinear(path):
    """Read a LIBLINEAR text model of a classifier as a fitted LinearSVC, of a
    regression (``-s 11, 12, 13``) as a fitted LinearSVR, or of the one-class SVM
    (``-s 21``) as a fitted LinearOneClassSVM.

    Labels become float64 ``classes_`` (sorted, as scikit-learn keeps them);
    ``coef_`` and ``intercept_`` are arranged so that ``predict`` gives
    LIBLINEAR's labels. The training certificate is unknown and not set.
    """
    return _estimator(_import_fit(path), path)


def export_libsvm(model, path):
    """Write a fitted kernel model (SVC, NuSVC, OneClassSVM, SVR, NuSVR, or its fit) as a
    LIBSVM 3.37 text model file (:mod:`dualsvm.persistence.libsvm`).

    LIBSVM's ``svm-predict`` gives the same labels (values) as ``model.predict``, and
    with ``-b 1`` the probabilities of a model trained with ``probability=True``
    (classes in the order of LIBSVM's model: first appearance in the training data).
    """
    fit = _as_fit(model)
    if not isinstance(fit, KernelFit):
        raise ModelError("only kernel models have a LIBSVM format; this is a linear model "
                         "(export_liblinear writes LIBLINEAR's)")
    _export_kernel_fit(fit, path)


def import_libsvm(path):
    """Read a LIBSVM text model as the fitted estimator of its svm_type (SVC, NuSVC,
    OneClassSVM, SVR, NuSVR), with ``probability=True`` when the file has probability
    information. Labels become float64 ``classes_`` (sorted); ``predict`` gives
    LIBSVM's labels. The training certificate is unknown and not set, and
    ``support_`` holds the support vectors' positions in the file (LIBSVM's files do
    not record their training rows; for a precomputed kernel, the rows they name).
    """
    return _estimator(_import_kernel_fit(path), path)


def from_sklearn(estimator):
    """The fitted dualsvm estimator of a fitted scikit-learn SVM (the reverse of
    ``to_sklearn``): ``LinearSVC``, ``LinearSVR``, ``SVC``, ``NuSVC``, ``SVR``, ``NuSVR``
    or ``OneClassSVM`` of :mod:`sklearn.svm` becomes dualsvm's class of the same name,
    with the parameters both have, predicting the same values.

    For comparison (dualsvm's model files, LIBSVM/LIBLINEAR exports and ONNX of a
    scikit-learn model) and warm starts: a ``LinearSVC`` continues from the converted
    ``coef_`` with ``warm_start=True`` where its solver starts from weights
    (``dual=False``, ``solver='pegasos'`` or ``'implicit'``; the dual solvers start
    from dual variables, which scikit-learn's models do not keep). The training
    certificate is unknown and not set.

    Raises
    ------
    ModelError
        Another kind of estimator, a callable kernel, or an unsupported scikit-learn version.
    sklearn.exceptions.NotFittedError
        The estimator is not fitted.
    """
    fit = sklearn_fit(estimator)
    try:
        return _estimator_class(fit).from_fit(fit)
    except (TypeError, ValueError) as e:
        raise ModelError(f"the parameters of scikit-learn's {type(estimator).__name__} are "
                         f"not dualsvm's: {one_line(e)}") from None
