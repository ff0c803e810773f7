"""The floating dtypes of a numba-compiled result, made those of the NumPy code's.

numba types a Python float (a constant, ``float(x)``) as float64 and computes a float32 array
times it in float64, where NumPy (NEP 50) keeps float32; it also gives Python floats where the
NumPy code gives NumPy float64 numbers.  A derivative has the dtype NumPy's promotion gives
it: a gradient its argument's (`in_argument_dtypes`), a tangent, a Jacobian or a Hessian the
dtype of the NumPy code's own result, which the first call of each kind of arguments computes
anyway to check numba's (first_call.py).  `following` records those dtypes from that call,
`conformed` gives later results the same: a float64 tangent of float64 values is never
rounded to the float32 of an argument it came from, and a float32 one stays float32.
"""

from __future__ import annotations

import numpy as np


def in_argument_dtypes(result, args: tuple, positions: list[int], options):
    """`result` (a gradient's) with each gradient in its argument's floating dtype: numba computes
    a Python float times a float32 array in float64 (NumPy keeps float32), and a gradient has its
    argument's dtype, as the NumPy code's has."""
    narrow = [getattr(args[i], "dtype", None) if i < len(args) else None for i in positions]
    if all(d is None or d == np.float64 or d.kind != "f" for d in narrow):
        return result
    value, grads = result if options.with_value else (None, result)
    parts = list(grads) if options.tuple_result else [grads]
    parts = [g if d is None or d.kind != "f" or getattr(g, "dtype", None) == d else
             d.type(g) if np.ndim(g) == 0 else np.asarray(g).astype(d) for g, d in zip(parts, narrow)]
    grads = tuple(parts) if options.tuple_result else parts[0]
    return (value, grads) if options.with_value else grads


def following(got, want):
    """What `conformed` needs to give results like `got` (numba's) the floating dtypes of `want`
    (the NumPy code's, for the same arguments); None where they have them already."""
    plan = _plan(got, want)
    return None if plan is _SAME else plan


def conformed(got, plan):
    """`got` with the floating dtypes `following` recorded (None: as it is)."""
    if plan is None or plan is _SAME:
        return got
    if isinstance(plan, np.dtype):
        return plan.type(got) if np.ndim(got) == 0 and not isinstance(got, np.ndarray) else \
            np.asarray(got).astype(plan, copy=False)
    parts = [conformed(g, p) for g, p in zip(got, plan)]
    return tuple(parts) if isinstance(got, tuple) else parts


_SAME = "same"


def _dtype(value):
    if isinstance(value, float):
        return np.dtype(np.float64)
    return getattr(value, "dtype", None) if isinstance(value, (np.ndarray, np.generic)) else None


def _plan(got, want):
    """_SAME, a dtype to cast a leaf to, or a list of plans of a tuple's or list's items."""
    if isinstance(got, (tuple, list)) and isinstance(want, (tuple, list)) and len(got) == len(want):
        plans = [_plan(g, w) for g, w in zip(got, want)]
        return _SAME if all(p is _SAME for p in plans) else plans
    mine, theirs = _dtype(got), _dtype(want)
    if mine is None or theirs is None or mine == theirs or mine.kind != "f" or theirs.kind != "f":
        return _SAME
    return theirs


__all__ = ["conformed", "following", "in_argument_dtypes"]
