"""Kernel values from dot products and squared norms: every kernel, in one place.

Every kernel is a function of the dot product x'z and the squared norms ||x||^2,
||z||^2 (``||x - z||^2 = ||x||^2 + ||z||^2 - 2 x'z``), so one dot product per pair
serves all of them (``params``: ``Kernel.params``, a :class:`KernelParams` of the
kernel's own class)::

    linear   x'z
    poly     (gamma x'z + coef0)^degree     (:func:`powi`, LIBSVM's repeated squaring)
    rbf      exp(-gamma max(||x||^2 + ||z||^2 - 2 x'z, 0))
    sigmoid  tanh(gamma x'z + coef0)

Three shapes of the same formulas:

* :func:`kernel_from_dot`: one value, in compiled loops that make one dot product at a
  time (libm's exp and tanh: such a loop cannot vectorise);
* :func:`kernel_values`: a row of dot products turned into values in place, by loops
  that vectorise (the exponential by :func:`vexp`, within 2 ulp of libm's; tanh(x) =
  2 / (1 + exp(-2x)) - 1), for the tiles of :mod:`.blocks`;
* :func:`kernel_from_dots`: a NumPy block of dot products (BLAS products), in place.

The first two are for compiled code only, where they are chosen by the class of
``params`` (:data:`PARAMS`: one class a kernel): a compiled function is compiled for
the kernel it is given, without the others' formulas (an RBF fit compiles no power or
tanh loop: on the first SVC fit, the final certificate's tile driver compiles in about
0.6 s less, the whole fit about 7% faster).
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit
from numba.extending import overload

from ..constants import LINEAR, POLY, PRECOMPUTED, RBF, SIGMOID

class KernelParams(NamedTuple):
    """A kernel as compiled code reads it: ``code`` (:data:`dualsvm.constants.KERNELS`)
    and its parameters as floats; an instance is of its kernel's subclass
    (:data:`PARAMS`), which selects the formulas where compiled code is compiled."""

    code: np.int64
    gamma: float
    coef0: float
    degree: float


class LinearParams(KernelParams):
    pass


class PolyParams(KernelParams):
    pass


class RbfParams(KernelParams):
    pass


class SigmoidParams(KernelParams):
    pass


class PrecomputedParams(KernelParams):
    pass


#: The KernelParams class of each kernel code.
PARAMS = {LINEAR: LinearParams, POLY: PolyParams, RBF: RbfParams, SIGMOID: SigmoidParams,
          PRECOMPUTED: PrecomputedParams}


#: The fast-math flags of the vectorised loops (reassociation lets them vectorise).
FAST_MATH = {"reassoc", "contract", "nsz", "arcp", "afn"}

# exp(x) = 2^k exp(r), k = round(x / ln 2), |r| <= ln 2 / 2: 2^k from a table (a
# vectorised gather), exp(r) by its Taylor polynomial of degree 13 (truncation
# below 4e-18 relative). x is clipped to [-745, 709], exp's float64 range.
_LN2_HI, _LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10
_LOG2E = 1.4426950408889634
_K_MIN, _K_MAX = -1080, 1023
_POW2 = np.ldexp(1.0, np.arange(_K_MIN, _K_MAX + 1)).astype(np.float64)
_TAYLOR = tuple(1.0 / math.factorial(k) for k in range(14))


@njit(cache=True, nogil=True, inline="always", fastmath={"contract", "nsz"})
def vexp(x):
    """exp(x) for float64 x, written so that a loop of it vectorises (no libm call)."""
    x = min(max(x, -745.0), 709.0)
    k = np.floor(x * _LOG2E + 0.5)
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = _TAYLOR[13]
    p = p * r + _TAYLOR[12]
    p = p * r + _TAYLOR[11]
    p = p * r + _TAYLOR[10]
    p = p * r + _TAYLOR[9]
    p = p * r + _TAYLOR[8]
    p = p * r + _TAYLOR[7]
    p = p * r + _TAYLOR[6]
    p = p * r + _TAYLOR[5]
    p = p * r + _TAYLOR[4]
    p = p * r + _TAYLOR[3]
    p = p * r + _TAYLOR[2]
    p = p * r + 1.0
    p = p * r + 1.0
    return p * _POW2[np.int64(k) - _K_MIN]


@njit(cache=True, nogil=True, inline="always")
def powi(base, degree):
    """base^degree for an integer degree >= 0 by repeated squaring (LIBSVM's powi)."""
    result = 1.0
    k = int(degree)
    while k > 0:
        if k & 1:
            result *= base
        base *= base
        k >>= 1
    return result


def kernel_from_dot(params, dot, sq_i, sq_j):
    """K from x_i'x_j and the squared norms (compiled code only); ``params``: a
    :class:`KernelParams`. The exponential and tanh are libm's: measured faster per
    column than inlined polynomials, which cannot vectorise here (one entry per dot
    product). A precomputed kernel's entries are not made here: ``dot``."""
    raise NotImplementedError("only callable from compiled code")


@overload(kernel_from_dot, jit_options={"cache": True, "nogil": True}, inline="always")
def _kernel_from_dot_for(params, dot, sq_i, sq_j):
    kind = params.instance_class
    if kind is RbfParams:
        return lambda params, dot, sq_i, sq_j: math.exp(
            -params.gamma * max(sq_i + sq_j - 2.0 * dot, 0.0))
    if kind is PolyParams:
        return lambda params, dot, sq_i, sq_j: powi(params.gamma * dot + params.coef0,
                                                     params.degree)
    if kind is SigmoidParams:
        return lambda params, dot, sq_i, sq_j: math.tanh(params.gamma * dot + params.coef0)
    return lambda params, dot, sq_i, sq_j: dot


def kernel_values(params, sq_i, sq_cols, out):
    """out (dot products of x_i with the columns, whose squared norms are sq_cols) ->
    kernel values, in place, by loops that vectorise (compiled code only)."""
    raise NotImplementedError("only callable from compiled code")


def _poly_values(params, sq_i, sq_cols, out):
    for k in range(len(out)):
        out[k] = powi(params.gamma * out[k] + params.coef0, params.degree)


def _rbf_values(params, sq_i, sq_cols, out):
    gamma = params.gamma
    for k in range(len(out)):
        out[k] = -gamma * max(sq_i + sq_cols[k] - 2.0 * out[k], 0.0)
    for k in range(len(out)):
        out[k] = vexp(out[k])


def _sigmoid_values(params, sq_i, sq_cols, out):
    # tanh(x) = 2 / (1 + exp(-2x)) - 1: its absolute error (about 1e-16) is far below
    # the float32 of the cached columns
    gamma, coef0 = params.gamma, params.coef0
    for k in range(len(out)):
        out[k] = -2.0 * (gamma * out[k] + coef0)
    for k in range(len(out)):
        out[k] = vexp(out[k])
    for k in range(len(out)):
        out[k] = 2.0 / (1.0 + out[k]) - 1.0


def _dot_values(params, sq_i, sq_cols, out):
    pass


@overload(kernel_values, jit_options={"cache": True, "nogil": True, "fastmath": FAST_MATH},
          inline="always")
def _kernel_values_for(params, sq_i, sq_cols, out):
    return {RbfParams: _rbf_values, PolyParams: _poly_values,
            SigmoidParams: _sigmoid_values}.get(params.instance_class, _dot_values)


def kernel_from_dots(kernel, dots, sq_rows=None, sq_cols=None, out=None):
    """Turn a block of dot products into kernel values (in place when out is dots).

    ``sq_rows``/``sq_cols`` are the squared norms of the block's rows and columns
    (RBF only).
    """
    out = dots if out is None else out
    code = kernel.code
    if code == RBF:
        np.multiply(dots, -2.0, out=out)
        out += sq_rows[:, None]
        out += sq_cols[None, :]
        np.maximum(out, 0.0, out=out)  # rounding can make ||x - x||^2 slightly negative
        out *= -kernel.gamma
        np.exp(out, out=out)
    elif code == POLY:
        np.multiply(dots, kernel.gamma, out=out)
        out += kernel.coef0
        np.power(out, kernel.degree, out=out)
    elif code == SIGMOID:
        np.multiply(dots, kernel.gamma, out=out)
        out += kernel.coef0
        np.tanh(out, out=out)
    elif out is not dots:
        out[...] = dots
    return out
