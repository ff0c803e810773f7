"""``np.tanh`` of float64 for numba code, in arithmetic the compiler can vectorise.

numba computes ``np.tanh`` with the C library's scalar ``tanh``, a call per element (about
30 ns an element on a CPU without AVX-512, where NumPy's own float64 loop is no faster).  A
tanh RNN spends half its forward pass there.  `tanh` below is branch-free arithmetic (every
``a if c else b`` picks between values already computed, no table), so a loop over it
becomes vector instructions: about 3-4 times faster than the C library's, within 2 units
in the last place of ``np.tanh`` (tests/transforms/test_tanh_kernel.py), and exact at 0, -0,
tiny numbers (tanh x = x), NaN and the infinities.

* ``|x| < 0.625``: ``x + x s P(s) / Q(s)``, ``s = x*x`` (Cephes' rational approximation);
* ``|x| >= 0.625``: ``1 - 2 / (e**(2|x|) + 1)`` with ``e**y = 2**k (D + p) / (D - p)``
  (Cephes' Padé form of exp on ``|r| <= ln 2 / 2``, ``y = k ln 2 + r``), ``|x|`` capped at
  20, where tanh is 1 to the last bit; the two fractions are one division;
* the sign of x is put back at the end (tanh is odd).

The array loop is compiled with contraction (``fastmath={"contract"}``: a product and a sum
become one fused multiply-add where the CPU has it, about 20% faster, rounding once instead
of twice); the numbers of a fused loop are computed without it.  The 2 ulp bound holds for
both (the test checks both).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

# Cephes tanh: |x| < 0.625
P0, P1, P2 = -9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3
Q0, Q1, Q2 = 1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3
# Cephes exp: e**r = (D + p) / (D - p) on |r| <= ln 2 / 2
EP0, EP1, EP2 = 1.26177193074810590878e-4, 3.02994407707441961300e-2, 9.99999999999999999910e-1
EQ0, EQ1, EQ2, EQ3 = 3.00198505138664455042e-6, 2.52448340349684104192e-3, 2.27265548208155028766e-1, 2.0
LOG2E = 1.4426950408889634
LN2_HI, LN2_LO = 6.93147180369123816490e-01, 1.90821492927058770002e-10  # k * LN2_HI is exact
SMALL, TINY, CAP = 0.625, 1e-9, 20.0


@njit(inline="always", error_model="numpy", cache=True)
def tanh(x):
    """tanh of the float64 `x`, within 2 ulp of NumPy's."""
    a = abs(x)
    s = x * x
    small_num = x * s * ((P0 * s + P1) * s + P2)
    small_den = ((s + Q0) * s + Q1) * s + Q2
    y = 2.0 * (a if a < CAP else CAP)  # (NaN and inf: CAP; they take the other branch or saturate)
    k = np.floor(y * LOG2E + 0.5)  # 0 .. 58
    r = (y - k * LN2_HI) - k * LN2_LO
    rr = r * r
    p = r * ((EP0 * rr + EP1) * rr + EP2)
    d = ((EQ0 * rr + EQ1) * rr + EQ2) * rr + EQ3
    scale = _two_to(k)
    m = d - p
    big = a >= SMALL
    # 1 - 2 / (2**k (d + p) / m + 1) = 1 - 2 m / (2**k (d + p) + m): one division for both sides
    q = (-2.0 * m if big else small_num) / ((d + p) * scale + m if big else small_den)
    one = 1.0 if x >= 0.0 else -1.0
    signed_q = q if x >= 0.0 else -q
    t = one + signed_q if big else x + q
    return x if a < TINY else t  # (keeps -0.0, and tanh x = x to the last bit below TINY)


@intrinsic
def _float_of_bits(typingctx, bits):
    """The float64 whose IEEE bits are the int64 `bits` (a bitcast, no conversion)."""
    if bits != types.int64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float64))

    return types.float64(types.int64), codegen


@njit(inline="always", error_model="numpy", cache=True)
def _two_to(k):
    """2**k for a whole float 0 <= k < 64: its exponent bits.  (A table lookup, or a
    conversion through int64, would keep the loop from vectorising; through int32 it does not.)"""
    return _float_of_bits((np.int64(np.int32(k)) + 1023) << 52)


@njit(error_model="numpy", cache=True, fastmath={"contract"})
def tanh_array(x):
    """A new C-ordered array: `tanh` of every element of the float64 array `x`."""
    out = np.empty(x.shape)
    flat, into = x.ravel(), out.ravel()
    for i in range(flat.size):
        into[i] = tanh(flat[i])
    return out


__all__ = ["tanh", "tanh_array"]
