"""Training across machines: CoCoA+ on a Dask cluster (the ``dualsvm[dask]`` extra).

:class:`LinearSVC` trains on a dask array chunked by rows, or on a block
directory written by ``dualsvm convert``; :mod:`.cocoa` is the algorithm.
"""

__all__ = ["LinearSVC"]


def __getattr__(name):
    # scikit-learn and distributed are imported on first use only
    if name == "LinearSVC":
        from .estimator import LinearSVC

        return LinearSVC
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
