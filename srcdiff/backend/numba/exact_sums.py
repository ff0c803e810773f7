"""``math.fsum`` in numba (numba has no ``math.fsum``): ``exact_sum(items)``, the sum of a list,
tuple or vector of numbers rounded once, as CPython's ``math.fsum`` computes it (Shewchuk's
partial sums, then CPython's last rounding half to even), so the compiled value is Python's
bit for bit.  Infinities and NaN give what ``math.fsum`` gives; ``inf + -inf`` and a finite
sum that overflows raise, as there (the Python gradient then raises with the user's line).
"""

from __future__ import annotations

import ast
import math

import numpy as np
from numba import njit, types

from .naming import made, overload


def spell(node: ast.Call) -> tuple[str, list] | None:
    """``math.fsum(items)``: ``exact_sum(items)``."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "fsum" and isinstance(func.value, ast.Name) \
            and func.value.id == "math" and len(node.args) == 1 and not node.keywords:
        return "exact_sum", [node.args[0]]
    return None


def exact_sum(items):
    return math.fsum(items)


@njit(cache=True)
def _exact_sum(values):
    partials = np.empty(values.shape[0] + 1)
    count = 0
    special = 0.0
    infinities = 0.0
    for k in range(values.shape[0]):
        x = values[k]
        if not math.isfinite(x):
            if math.isinf(x):
                infinities += x
            special += x
            continue
        i = 0
        for j in range(count):
            y = partials[j]
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo != 0.0:
                partials[i] = lo
                i += 1
            x = hi
        if not math.isfinite(x):
            raise OverflowError("intermediate overflow in fsum")
        partials[i] = x
        count = i + 1
    if special != 0.0 or math.isnan(special):
        if math.isnan(infinities):
            raise ValueError("-inf + inf in fsum")
        return special
    hi = 0.0
    n = count
    if n > 0:
        n -= 1
        hi = partials[n]
        lo = 0.0
        while n > 0:
            x = hi
            n -= 1
            y = partials[n]
            hi = x + y
            lo = y - (hi - x)
            if lo != 0.0:
                break
        # round half to even where the rest of the partials lean the same way (CPython's step)
        if n > 0 and (lo < 0.0 and partials[n - 1] < 0.0 or lo > 0.0 and partials[n - 1] > 0.0):
            y = lo * 2.0
            x = hi + y
            if y == x - hi:
                hi = x
    return hi


@overload(exact_sum)
def _exact_sum_of(items):
    if isinstance(items, types.Array) and items.ndim == 1:
        return lambda items: _exact_sum(items.astype(np.float64))
    if isinstance(items, (types.List, types.UniTuple)) and isinstance(items.dtype, (types.Number, types.Boolean)):
        def of_items(items):
            values = np.empty(len(items))
            for k, item in enumerate(items):
                values[k] = item
            return _exact_sum(values)
        return of_items
    if isinstance(items, types.BaseTuple) and all(isinstance(t, (types.Number, types.Boolean)) for t in items.types):
        count = len(items.types)  # (a tuple of two kinds of numbers: read at constant positions)
        return made("def impl(items):\n"
                    f"    values = np.empty({count})\n" +
                    "".join(f"    values[{k}] = items[{k}]\n" for k in range(count)) +
                    "    return exact(values)\n", exact=_exact_sum)
    return None


HELPERS = ("exact_sum",)

__all__ = ["HELPERS", "exact_sum", "spell"]
