"""What a fit reads of its estimator's parameters, as one typed record.

The estimators, the command line and the Dask trainers hand :func:`~.kernel.fit_kernel`
(and :func:`dualsvm.dask.kernel_solver.fit_pairs`), :func:`~.linear.fit_linear` and its
relatives a parameter dict, the estimator's ``get_params()``, which the fitted model
keeps as it is (model files record it). Training reads it once, into a
:class:`KernelTraining` or a :class:`LinearTraining`: a misspelt field is an
``AttributeError`` where it is read, and a missing required one a ``TypeError`` where
the record is made, not a ``KeyError`` deep in a solver.
"""

from dataclasses import dataclass, fields
from typing import Any, Callable


class _Record:
    @classmethod
    def of(cls, params):
        """The record of a parameter dict (its keys that are not fields are ignored)."""
        names = {field.name for field in fields(cls)}
        return cls(**{name: value for name, value in params.items() if name in names})


@dataclass(frozen=True)
class KernelTraining(_Record):
    """The parameters a kernel fit reads (those of :class:`dualsvm.SVC` and its family).

    The kernel (``kernel``, ``gamma``, ``degree``, ``coef0``), the stopping rule and
    limits (``tol``, ``max_iter``, ``time_limit``), the column cache (``cache_size``,
    MB) and the progress (``verbose``, ``callback``) are required; the others have the
    defaults of the estimators that lack them (``shrinking``: the Dask solver has none
    to turn off; ``loss`` and ``solver`` are C-SVC's, ``nu`` the nu-models', ``epsilon``
    SVR's, the ``dc_*`` and ``early_stop_level`` divide and conquer's, ``working_set``
    the Dask solver's).
    """

    kernel: Any
    gamma: Any
    degree: int
    coef0: float
    tol: float
    cache_size: float
    max_iter: int
    time_limit: float | None
    verbose: int
    callback: Callable | None
    shrinking: bool = True
    loss: str = "hinge"
    solver: str | None = None
    probability: bool = False
    random_state: Any = None
    nu: float = 0.5
    epsilon: float = 0.1
    dc_clusters: Any = "auto"
    dc_levels: int = 1
    dc_sample_size: Any = "auto"
    early_stop_level: int | None = None
    working_set: Any = None

    def __post_init__(self):
        check_divide_and_conquer(self.solver, self.probability, self.divide_and_conquer)

    @property
    def monitored(self):
        """Whether every epoch of the fit is certified: when something reads it
        (``verbose``, a ``callback``); else only the last epoch's record has the
        objectives and gap."""
        return bool(self.verbose) or self.callback is not None

    @property
    def divide_and_conquer(self):
        """Divide and conquer's parameters, by name (those of :data:`DC_PARAMETERS`)."""
        return {name: getattr(self, name) for name in DC_PARAMETERS}


#: SVC's parameters of divide and conquer, with their defaults.
DC_PARAMETERS = {field.name: field.default for field in fields(KernelTraining)
                 if field.name.startswith("dc_") or field.name == "early_stop_level"}


def check_divide_and_conquer(solver, probability, dc):
    """ValueError for divide and conquer's parameters (``dc``, by name) set with a
    solver other than 'dc', and for ``early_stop_level`` with ``probability`` (the
    folds' models would not be the early ones) or above ``dc_levels``."""
    if solver != "dc":
        given = [f"{name}={dc[name]!r}" for name, default in DC_PARAMETERS.items()
                 if dc[name] != default]
        if given:
            raise ValueError(f"{', '.join(given)}: divide and conquer's parameters apply to "
                             f"solver='dc' only, got solver={solver!r}")
        return
    stop, levels = dc["early_stop_level"], dc["dc_levels"]
    if stop is not None and probability:
        raise ValueError("early_stop_level does not combine with probability=True: the "
                         "probability model is fitted on models of the whole problem, not on "
                         "early prediction's per-cluster models")
    if stop is not None and stop > levels:
        raise ValueError(f"early_stop_level={stop} is above dc_levels={levels}: the levels "
                         f"run are {levels} down to 1")


@dataclass(frozen=True)
class LinearTraining(_Record):
    """The parameters a linear fit reads (those of :class:`dualsvm.LinearSVC`,
    ``LinearSVR`` and ``LinearOneClassSVM``), with LinearSVC's defaults: what a model
    file of an older version that lacks one was trained with (``epsilon`` is
    LinearSVR's, ``nu`` LinearOneClassSVM's)."""

    loss: str = "squared_hinge"
    penalty: str = "l2"
    dual: Any = "auto"
    multi_class: str = "ovr"
    solver: str = "dcd"
    fit_intercept: bool = True
    intercept_mode: str = "augmented"
    intercept_scaling: float = 1.0
    tol: float = 1e-4
    gap_tol: float | None = None
    max_iter: int = 1000
    time_limit: float | None = None
    shrinking: bool = True
    shuffle: bool = True
    batch_size: int = 1
    random_state: Any = None
    callback: Callable | None = None
    verbose: int = 0
    monitor: bool | None = None
    epsilon: float = 0.0
    nu: float = 0.5

    @property
    def bias_mode(self):
        """The :mod:`dualsvm.problems` bias mode: ``intercept_mode``, or 'none'."""
        return self.intercept_mode if self.fit_intercept else "none"

    @property
    def monitored(self):
        """Whether to certify every epoch: ``monitor``, or None: when something reads every
        epoch's certificate (a ``gap_tol`` alone is checked on a schedule, see
        :data:`dualsvm.solvers._driver.GAP_CHECK_PASSES`)."""
        if self.monitor is not None:
            return self.monitor
        return bool(self.verbose) or self.callback is not None
