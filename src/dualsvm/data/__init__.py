"""Layer 2, data: what every way of training reads and checks.

:mod:`.svmlight` (the svmlight/LIBSVM reader and its diagnosis of bad lines, with its
compiled parser :mod:`._svmlight_jit`), :mod:`.validation` (data checks, costs, class
weights, the seed), :mod:`.rows` (row access for compiled code: one interface for dense
and CSR rows), :mod:`.scaling` (svm-scale's feature scaling and its range files) and
:mod:`.atomic_files` (a file is replaced only once its new content is complete).
"""

from .svmlight import read_svmlight

__all__ = ["read_svmlight"]
