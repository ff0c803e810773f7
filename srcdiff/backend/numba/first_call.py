"""The first call of a compiled gradient, checked against the Python gradient.

numba compiles the generated code with its own semantics where they differ from Python's:
integers are 64-bit and wrap around silently (``m = m * k`` past 2**63), where Python's have
no limit.  No rewrite can see every such place, so the first call for each kind of arguments
also runs the Python gradient and compares: a compiled gradient that disagrees is refused,
never returned.  Agreement is to a relative 1e-6 of the largest element (1e-3 for float32
arguments; a gradient that is 0 is given the scale 1e-8): numba sums in another order than NumPy,
which changes the last digits only.
"""

from __future__ import annotations

import traceback

import numpy as np


def signature(args: tuple) -> tuple:
    """What numba compiles one version for: each argument's type, dtype and number of axes."""
    return tuple((type(a), getattr(a, "dtype", None), np.ndim(a) if isinstance(a, np.ndarray) else None)
                 for a in args)


#: the smallest scale differences are measured against (a gradient that is 0 has no scale of its own)
_TINY = 1e-8


def difference(got, want, args: tuple) -> str:
    """'' where the compiled result `got` agrees with the Python gradient's `want`; else what
    differs."""
    mine, theirs = _leaves(got), _leaves(want)
    if mine is None or theirs is None:
        return ""  # a value that is not numbers (a pullback): nothing to compare here
    if len(mine) != len(theirs):
        return f"{len(mine)} results where the Python gradient gives {len(theirs)}"
    narrow = any(getattr(a, "dtype", None) in (np.float32, np.float16) for a in args)
    rtol = 1e-3 if narrow else 1e-6
    for a, b in zip(mine, theirs):
        if a.shape != b.shape:
            return f"a result of shape {a.shape} where the Python gradient's has shape {b.shape}"
        finite = np.abs(b[np.isfinite(b)])
        scale = float(finite.max()) if finite.size else 0.0
        # a gradient that is exactly 0 in Python may be rounding away from it in numba (8.9e-16):
        # the scale is at least that of a tiny gradient, 1e-8
        if not np.allclose(a, b, rtol=rtol, atol=rtol * max(scale, _TINY), equal_nan=True):
            if not np.array_equal(np.isnan(a), np.isnan(b)):  # (a value of np.empty read before it is written?)
                return f"NaN in {int(np.sum(np.isnan(a) != np.isnan(b)))} places where the Python gradient's " \
                       "differs"
            error = np.nanmax(np.abs(a - b)) if a.size else 0.0
            return f"values that differ from the Python gradient's by up to {error:.3g} (largest {scale:.3g})"
    return ""


def _leaves(value) -> list[np.ndarray] | None:
    """The numbers of a result (a number, an array, tuples/lists/dicts of them) as float
    arrays, in order; None if it holds anything else."""
    if isinstance(value, dict):
        value = [value[k] for k in sorted(value, key=repr)]
    if isinstance(value, (tuple, list)):
        found = [_leaves(v) for v in value]
        return None if any(f is None for f in found) else [leaf for f in found for leaf in f]
    if isinstance(value, (int, float, complex, np.number, np.ndarray)) and not isinstance(value, bool):
        array = np.asarray(value)
        return [array.astype(np.float64)] if array.dtype.kind in "fiu" else None
    return None


def failure(exc: Exception) -> str:
    """What an exception of a numba gradient's call (not numba's refusal to type it) says, where
    the Python gradient raised nothing: numba's compiler failing inside (an internal error, such as
    an AttributeError on a recursion over nested tuples of several types: the gradient never ran),
    or the compiled code raising."""
    what = f"{type(exc).__name__}: {exc}"
    if any(frame.filename.endswith("compiler_machinery.py") for frame in traceback.extract_tb(exc.__traceback__)):
        return (f"numba cannot compile this gradient: its compiler failed inside ({what}), a limit of numba's; "
                "the Python gradient runs")
    return f"the compiled gradient raised {what}, and the Python gradient does not"
