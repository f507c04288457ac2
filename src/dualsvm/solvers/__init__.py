"""Solvers: compiled epoch kernels and the Python drivers around them."""

from ._driver import Result, Stopping, run_epochs
from .dcd import DualCD, PairCD
from .primal import ImplicitSGD, Pegasos

__all__ = ["DualCD", "ImplicitSGD", "PairCD", "Pegasos", "Result", "Stopping", "run_epochs"]
