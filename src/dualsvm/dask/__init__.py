"""Training across machines on a Dask cluster (the ``dualsvm[dask]`` extra).

:class:`LinearSVC` (CoCoA+, :mod:`.cocoa`) and :class:`SVC` (a kernel working-set
solver, :mod:`.kernel_solver`) train on a dask array chunked by rows, or on a block
directory written by ``dualsvm convert``; the rows stay on the workers.
"""

__all__ = ["LinearSVC", "SVC"]


def __getattr__(name):
    # scikit-learn and distributed are imported on first use only
    if name == "LinearSVC":
        from .estimator import LinearSVC

        return LinearSVC
    if name == "SVC":
        from .svc import SVC

        return SVC
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
