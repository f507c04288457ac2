"""Solvers: compiled epoch kernels and the Python drivers around them."""

from ._driver import Result, Stopping, run_epochs
from .dcd import DualCD, PairCD
from .primal import ImplicitSGD, Pegasos
from .smo import SMO

__all__ = ["SMO", "DualCD", "ImplicitSGD", "PairCD", "Pegasos", "Result", "Stopping",
           "run_epochs"]
