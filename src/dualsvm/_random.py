"""A small seeded generator for compiled kernels.

Kernels take their random state as a one-element uint64 array, so every call is
reproducible from the estimator's ``random_state`` and each thread can own its
own state (Numba's global ``np.random`` state is per thread and cannot be seeded
from outside a kernel).
"""

import numpy as np
from numba import njit


def new_state(random_state):
    """Seed a kernel state from a NumPy ``Generator``."""
    return np.array([random_state.integers(1, 2**63, dtype=np.uint64)], dtype=np.uint64)


@njit(cache=True, nogil=True)
def next_below(state, bound):
    """A uniform integer in [0, bound) (splitmix64)."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z % np.uint64(bound))


@njit(cache=True, nogil=True)
def shuffle_prefix(index, length, state):
    """Fisher-Yates shuffle of index[:length] in place."""
    for k in range(length - 1):
        j = k + next_below(state, length - k)
        index[k], index[j] = index[j], index[k]
