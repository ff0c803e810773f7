"""NumPy's own loops for transcendental functions of large arrays, called from numba code.

numba computes ``np.tanh(a)`` one element at a time with the C library's ``tanh`` (about
14 ns an element here); NumPy's loops use the CPU's vector instructions (about 1.3 ns).  On
an RNN's 32×128 states that is the difference between numba being slower and faster than
NumPy.  So a transcendental ufunc of one float64 array that fusion left as a call
(fusion.py turns elementwise chains into loops and keeps calls it does not fuse) becomes a
helper that fills a new array with NumPy's loop, through numba's object mode (about 1 µs to
enter) when the array is large enough to pay for that; smaller arrays, scalars and other
dtypes stay numba's own.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
from numba import objmode, types
from numba.extending import overload

#: the ufuncs whose NumPy loops are vectorised (and numba's are not)
NAMES = ("tanh", "exp", "log", "sin", "cos", "expm1", "log1p")
#: elements from which one object-mode call (~1 µs) costs less than numba's element loop
THRESHOLD = 512
PREFIX = "vector_"


def _helper(name: str):
    ufunc = getattr(np, name)

    def helper(x):
        return ufunc(x)

    helper.__name__ = helper.__qualname__ = PREFIX + name

    @overload(helper)
    def _typed(x):
        if not (isinstance(x, types.Array) and x.dtype == types.float64 and x.ndim >= 1):
            return lambda x: ufunc(x)

        def impl(x):
            if x.size < THRESHOLD:
                return ufunc(x)
            out = np.empty(x.shape)
            with objmode():
                ufunc(x, out=out)
            return out
        return impl

    return helper


vector_tanh, vector_exp, vector_log = _helper("tanh"), _helper("exp"), _helper("log")
vector_sin, vector_cos, vector_expm1, vector_log1p = _helper("sin"), _helper("cos"), _helper("expm1"), _helper("log1p")
HELPERS = tuple(PREFIX + n for n in NAMES)
_CALL = re.compile(r"\bnp\.(" + "|".join(NAMES) + r")\(")


def vectorised(built):
    """The numba module `built` (module.py's `NumbaModule`) with its ``np.<name>(`` calls of
    the ufuncs above spelled as the helpers (a text rewrite that keeps every line where it
    is: `built.lines` maps them to the user's); fused loops call ``math.<name>`` on elements
    and are left alone."""
    source, count = _CALL.subn(lambda m: f"{PREFIX}{m.group(1)}(", built.source)
    if not count:
        return built
    used = {PREFIX + n for n in NAMES if f"{PREFIX}{n}(" in source}
    imports = {**built.imports, **{name: (__name__, name) for name in used}}
    return replace(built, source=source, imports=imports)


__all__ = ["HELPERS", "NAMES", "THRESHOLD", "vector_cos", "vector_exp", "vector_expm1", "vector_log", "vector_log1p",
           "vector_sin", "vector_tanh", "vectorised"]
