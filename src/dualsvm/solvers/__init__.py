"""Solvers: compiled epoch kernels and the Python drivers around them.

The kernel solvers (``dualsvm.solvers.smo``, ...) are imported from their modules:
they load the kernel layer, which the linear command line does not need.
"""

from ._driver import Result, Stopping, run_epochs
from .dcd import DualCD, PairCD
from .primal import ImplicitSGD, Pegasos

__all__ = ["DualCD", "ImplicitSGD", "PairCD", "Pegasos", "Result", "Stopping", "run_epochs"]
