"""Compile what most test files run, once, before pytest-xdist's workers start.

In a fresh clone Numba's cache is empty and each worker (and each command line or
Dask worker a test starts) compiles the solvers it calls, the same ones at the same
time. ``python tests/numba_warmup.py PART`` fits the estimators of PART on small
dense and sparse data, writing the cache the workers then load; conftest.py runs the
two parts side by side.
"""

import sys
import warnings

import numpy as np
import scipy.sparse as sp


def main(part):
    warnings.simplefilter("ignore")
    import dualsvm

    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 4))
    y = np.repeat([0, 1, 2], 20)
    if part == "kernel":
        estimators = [dualsvm.SVC(), dualsvm.SVC(solver="ws"), dualsvm.NuSVC(), dualsvm.SVR()]
    else:
        estimators = [dualsvm.NuSVR(), dualsvm.OneClassSVM(), dualsvm.LinearSVC(),
                      dualsvm.LinearSVC(loss="hinge"), dualsvm.LinearSVR(),
                      dualsvm.LinearOneClassSVM()]
    for data in (X, sp.csr_matrix(X)):
        for estimator in estimators:
            estimator.fit(data, y).predict(data)


if __name__ == "__main__":
    main(sys.argv[1])
