"""Solvers: compiled epoch kernels and the Python drivers around them."""

from ._driver import Result, Stopping, run_epochs
from .dcd import DualCD, PairCD
from .smo import SMO

__all__ = ["SMO", "DualCD", "PairCD", "Result", "Stopping", "run_epochs"]
