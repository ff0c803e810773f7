"""float32 arguments computed in float64 where numba cannot keep them float32.

NumPy (NEP 50) computes a float32 array beside a Python float (``k * y`` of a float argument ``k =
0.7``, ``0.1 * (a @ b)``, ``s * 0.7 + 0.01 * np.sum(x)``) in float32; numba types the float as
float64 and the result float64, so a name that is float32 before a loop is float64 in it, and numba
refuses ("Cannot unify array(float32, 1d, C) and array(float64, 1d, C)"). float32_constants.py
spells the constants it can see as NumPy types them; where numba still refuses, the compiled
gradient takes its float32 arguments (and float32 globals it reads) as float64 (`widened`), and its
code's float32 fills (``dtype=np.float32``, backend/single.py) are float64 fills (`in_float64`):
every value is then float64, as the Python gradient's would be for float64 arguments, and the
results are given back in the Python gradient's dtypes (result_dtypes.py), the first call of each
kind of arguments checked against the Python gradient at float32's tolerance (first_call.py). So too
where numba's compiler fails inside on float32 (`failed_inside`: a list of float32 items unified
with one of float64 passes its typing and fails its lowering). The derivative is the same
function's, with less rounding: never a value float32's precision does not allow.
"""

from __future__ import annotations

import os
import re
import traceback
from dataclasses import replace

import numpy as np

from .float32_constants import MIXED


def wanted(refusal: str, values) -> bool:
    """Whether numba's `refusal` is a float32 value meeting a float64 one, and `values` (the
    arguments and globals) hold a float32 value to widen."""
    return bool(MIXED.search(refusal)) and any(_narrow(v) for v in values)


def failed_inside(error: BaseException, values) -> bool:
    """Whether `error` is numba's compiler failing inside while lowering (an ``AssertionError`` of
    its own: a list of float32 items unified with one of float64, which its typing allows and its
    lowering does not cast), and `values` hold a float32 value to widen: in float64 the lists agree."""
    frames = traceback.extract_tb(error.__traceback__)
    return isinstance(error, AssertionError) and bool(frames) and f"{os.sep}numba{os.sep}" in frames[-1].filename \
        and any(_narrow(v) for v in values)


def in_float64(built):
    """`built` (module.py's `NumbaModule`) with ``np.float32`` spelled ``np.float64`` (each line kept:
    the lines still name the user's)."""
    return replace(built, source=_FLOAT32.sub("np.float64", built.source))


_FLOAT32 = re.compile(r"\bnp\.float32\b")


def widened(value):
    """`value` with its float32 arrays and numbers float64; tuples and lists item by item."""
    if isinstance(value, np.ndarray) and value.dtype == np.float32:
        return value.astype(np.float64)
    if isinstance(value, np.float32):
        return float(value)
    if type(value) in (tuple, list) and any(_narrow(v) for v in value):
        return type(value)(widened(v) for v in value)
    return value


def _narrow(value) -> bool:
    if isinstance(value, (np.ndarray, np.floating)):
        return value.dtype == np.float32
    if type(value) in (tuple, list):
        return any(_narrow(v) for v in value)
    return False


__all__ = ["in_float64", "wanted", "widened"]
