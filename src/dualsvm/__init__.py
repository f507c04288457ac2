"""dualsvm: Support Vector Machines trained in the dual."""

from .estimators import LinearSVC

__version__ = "0.1.0"
__all__ = ["LinearSVC", "__version__"]
