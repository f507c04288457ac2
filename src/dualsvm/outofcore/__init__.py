"""Training on data larger than memory: an on-disk block format and streaming solvers.

* :class:`DiskDataset`, :func:`convert`: the format and its streaming converter
  (:mod:`.format`, :mod:`.convert`).
* :func:`fit`: block minimization, selective block minimization and dual
  cached loops under a memory budget (:mod:`.solvers`, :mod:`.training`).
"""

from .convert import convert
from .format import DiskDataset
from .training import fit

__all__ = ["DiskDataset", "convert", "fit"]
