"""``math.factorial`` and ``math.comb`` for numba (spelling.py spells the calls as these).

Python's integers have no limit; numba's are 64-bit and wrap around silently.  So each
product checks before it multiplies, and a value past int64 raises OverflowError: the
compiled gradient's caller then refuses the program at the user's line (backend/jit.py),
where a wrapped-around number would have been a silently wrong gradient.
"""

from __future__ import annotations

import math

from numba import types

from .naming import overload

INT64_MAX = 2 ** 63 - 1


def int_factorial(n):
    return math.factorial(n)


def int_comb(n, k):
    return math.comb(n, k)


@overload(int_factorial)
def _factorial(n):
    if not isinstance(n, types.Integer):
        return None

    def product(n):
        if n < 0:
            raise ValueError("factorial() not defined for negative values")
        out = 1
        for k in range(2, n + 1):
            if out > INT64_MAX // k:
                raise OverflowError("factorial() past 20! does not fit in a 64-bit integer")
            out *= k
        return out
    return product


@overload(int_comb)
def _comb(n, k):
    if not (isinstance(n, types.Integer) and isinstance(k, types.Integer)):
        return None

    def binomial(n, k):
        if n < 0 or k < 0:
            raise ValueError("n and k must be non-negative integers")
        if k > n:
            return 0
        k = min(k, n - k)
        out = 1
        for i in range(k):  # C(n, i + 1) = C(n, i) (n - i) / (i + 1), each factor divided first
            a, b = out, i + 1
            while b:  # g = gcd(out, i + 1): then (i + 1) / g divides n - i
                a, b = b, a % b
            factor = (n - i) // ((i + 1) // a)
            out //= a
            if out > INT64_MAX // factor:
                raise OverflowError("comb() does not fit in a 64-bit integer")
            out *= factor
        return out
    return binomial


HELPERS = ("int_factorial", "int_comb")
