"""A small seeded generator for compiled kernels.

Kernels take their random state as a one-element uint64 array, so every call is
reproducible from the estimator's ``random_state`` and each thread can own its
own state (Numba's global ``np.random`` state is per thread and cannot be seeded
from outside a kernel).

Draws are splitmix64 outputs mapped to [0, bound) by Lemire's multiply-shift,
the high 64 bits of the 128-bit product ``z * bound``: no division, and the same
bias as ``z % bound`` (below bound / 2**64).
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic


def new_state(random_state):
    """Seed a kernel state from a NumPy ``Generator``."""
    return np.array([random_state.integers(1, 2**63, dtype=np.uint64)], dtype=np.uint64)


@intrinsic
def _mul_high(typingctx, a, b):
    """The high 64 bits of the 128-bit product of two uint64."""
    if a != types.uint64 or b != types.uint64:
        return None

    def codegen(context, builder, signature, args):
        i128 = ir.IntType(128)
        product = builder.mul(builder.zext(args[0], i128), builder.zext(args[1], i128))
        return builder.trunc(builder.lshr(product, ir.Constant(i128, 64)), ir.IntType(64))

    return types.uint64(types.uint64, types.uint64), codegen


@njit(cache=True, nogil=True)
def next_below(state, bound):
    """A uniform integer in [0, bound), 0 < bound < 2**63."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(_mul_high(z, np.uint64(bound)))


@njit(cache=True, nogil=True)
def shuffle_prefix(index, length, state):
    """Fisher-Yates shuffle of index[:length] in place."""
    for k in range(length - 1):
        j = k + next_below(state, length - k)
        index[k], index[j] = index[j], index[k]
