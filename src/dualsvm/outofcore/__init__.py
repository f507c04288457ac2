"""Training on data larger than memory: an on-disk block format and streaming solvers.

* :class:`DiskDataset`, :func:`convert`: the format and its streaming converter
  (:mod:`.format`, :mod:`.convert`).
* :func:`fit`: block minimization, selective block minimization and dual
  cached loops under a memory budget (:mod:`.solvers`, :mod:`.training`).
* :func:`fit_low_rank`: :class:`dualsvm.LowRankSVC`'s model, the same solvers on the
  Nystroem map of each block as it is read (:mod:`.low_rank`).
"""

from .convert import convert
from .format import DiskDataset
from .low_rank import fit_low_rank
from .training import fit

__all__ = ["DiskDataset", "convert", "fit", "fit_low_rank"]
