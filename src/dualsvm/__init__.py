"""dualsvm: Support Vector Machines trained in the dual."""

__version__ = "0.1.0"
__all__ = ["LinearSVC", "__version__"]


def __getattr__(name):
    # The estimators import scikit-learn (about 1.5 s); the command line and the
    # compiled solvers do not need it, so it is imported on first use only.
    if name == "LinearSVC":
        from .estimators import LinearSVC

        return LinearSVC
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
