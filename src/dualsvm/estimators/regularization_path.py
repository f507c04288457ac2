"""Regularisation paths: one model per C, each fit started from the one before.

``c_path(estimator, X, y, Cs)`` fits an increasing grid of C. Every fit after the
first starts from the previous dual variables scaled to the new bounds
(alpha * C_new / C_old: the hinge loss's box [0, C_i] scales with C, and so
does the squared hinge's optimum at fixed margins), projected into the box
(and for the exact bias onto y'a = 0) by the solver; linear models may start
instead, or as well, from the dual point of the previous w (``start``); kernel
models keep their Q-column caches across the path, since Q does not depend on
C. Each returned model is a fitted clone with its own certificate
(``primal_``, ``dual_``, ``gap_``), as a cold fit at that C would have.

The training is in :func:`dualsvm.training.linear.linear_path` and
:func:`dualsvm.training.kernel.kernel_path`; the estimator-level generators in
:mod:`dualsvm.estimators.linear_svc`, :mod:`dualsvm.estimators.linear_svr` and :mod:`dualsvm.estimators.svc`.
"""

from ..data.validation import check_grid
from .linear_svc import LinearSVC, linear_svc_path
from .linear_svr import LinearSVR, linear_svr_path
from .svc import SVC, kernel_path_models
from .svr import SVR, NuSVR

#: The kernel models with a C (NuSVC and OneClassSVM have none).
_KERNEL_MODELS = (SVR, NuSVR, SVC)

__all__ = ["c_path", "iter_c_path"]


def iter_c_path(estimator, X, y, Cs, *, sample_weight=None, start="dual"):
    """:func:`c_path` as a generator: each fitted model as soon as it is trained."""
    Cs = check_grid(Cs)
    if isinstance(estimator, LinearSVC):
        return linear_svc_path(estimator, X, y, Cs, sample_weight=sample_weight, start=start)
    kernel_model = isinstance(estimator, _KERNEL_MODELS) and "C" in estimator.get_params()
    if not (kernel_model or isinstance(estimator, LinearSVR)):
        raise TypeError(f"c_path takes a dualsvm LinearSVC, LinearSVR, SVC, SVR or NuSVR, got "
                        f"{type(estimator).__name__}")
    if start != "dual":
        raise ValueError(f"start={start!r} is for LinearSVC (a primal w); the other models "
                         "start from the previous dual variables (start='dual')")
    if isinstance(estimator, LinearSVR):
        return linear_svr_path(estimator, X, y, Cs, sample_weight=sample_weight)
    return kernel_path_models(estimator, X, y, Cs, sample_weight=sample_weight)


def c_path(estimator, X, y, Cs, *, sample_weight=None, start="dual"):
    """Fit ``estimator`` at every C of an increasing grid, warm-starting along it.

    Parameters
    ----------
    estimator : LinearSVC, LinearSVR, SVC, SVR or NuSVR
        The model to fit (unchanged; its ``C`` is replaced by each value).
        Every solver is supported: 'dcd' with any bias mode, the primal solvers
        of LinearSVC (which continue from the previous w and step count), its
        Crammer-Singer and L1-penalty solvers, LinearSVR's two losses, all of
        SVC's kernel solvers, and SMO for SVR and NuSVR (NuSVC and OneClassSVM
        have no C: they are refused).
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    Cs : array-like of shape (n_Cs,)
        Strictly increasing values of C, > 0.
    sample_weight : array-like of shape (n_samples,), default=None
    start : {'dual', 'primal', 'best'}, default='dual'
        How LinearSVC's 'dcd' starts each fit: from the previous dual variables
        scaled by C_new / C_old; from the dual point of the previous w
        (:meth:`dualsvm.problems.linear.DualProblem.dual_point`; not with the exact
        intercept); or from whichever of the two has the larger dual objective.
        Kernel models take 'dual' only.

    Returns
    -------
    list of estimators
        Fitted clones of ``estimator``, one per C, in the order of ``Cs``. A
        ``ConvergenceWarning`` is raised for each fit that stopped early; after
        Ctrl-C the list ends with the interrupted model.
    """
    return list(iter_c_path(estimator, X, y, Cs, sample_weight=sample_weight, start=start))
