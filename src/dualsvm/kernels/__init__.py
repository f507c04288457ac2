"""Kernels and the Q-matrix provider for the kernel solvers.

Contract (kept stable for every kernel solver):

* :func:`make_kernel` (name, gamma, degree, coef0 as LIBSVM/scikit-learn name
  them; gamma 'scale'/'auto' resolved on the data) -> a frozen :class:`Kernel`;
  ``kernel(X, Z)`` is the kernel matrix by BLAS (dense or CSR), ``kernel.params``
  the tuple compiled code receives. A user's kernel function is trained as
  'precomputed' on :func:`callable_matrix`.
* :class:`QMatrix` (``X, y, kernel, cache_size`` MB): Q_ij = y_i y_j K(x_i, x_j),
  its diagonal ``diag``, columns for compiled loops through
  ``q_column(qm.data, qm.cache, j, active, m)`` in compiled code (float32 view valid at
  ``active[:m]``, LRU-cached; by slot in a solver's step: ``cached_slot``, ``column_slot``,
  ``column_store``), batched BLAS access ``block``/``columns``/``matrix``,
  counters ``kernel_evaluations``, ``cache_hits``, ``cache_misses``; with ``row_of``,
  several variables a training row (SVR's a_i, a*_i) served by one cached kernel
  column of the row. See
  :mod:`dualsvm.kernels.qmatrix` for how a solver gets columns and shrinks.
* The dual problem around it is :class:`dualsvm.problems.kernel.KernelDualProblem`.
* Kernel codes (LIBSVM's ``-t`` numbers) are in :mod:`dualsvm.constants`.
"""

from .functions import Kernel, callable_matrix, make_kernel, n_samples, squared_row_norms
from .values import kernel_from_dot, kernel_from_dots

#: Imported on first use: :mod:`.qmatrix` compiles (or loads) its parallel column fill
#: when imported, which the kernel functions' users (linear training, model files) skip.
_QMATRIX_NAMES = ("MIN_SLOTS", "QMatrix", "claim_slot", "new_generation", "q_column")


def __getattr__(name):
    if name in _QMATRIX_NAMES:
        from . import qmatrix

        return getattr(qmatrix, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["MIN_SLOTS", "Kernel", "QMatrix", "callable_matrix", "claim_slot", "kernel_from_dot",
           "kernel_from_dots", "make_kernel", "n_samples", "new_generation", "q_column",
           "squared_row_norms"]
