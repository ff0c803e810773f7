"""NumPy's own loops for transcendental functions of large arrays, called from numba code.

numba computes ``np.tanh(a)`` one element at a time with the C library's ``tanh`` (about
14 ns an element here); NumPy's loops use the CPU's vector instructions (about 1.3 ns).  On
an RNN's 32×128 states that is the difference between numba being slower and faster than
NumPy.  So a transcendental ufunc of one float64 array that fusion left as a call
(fusion.py turns elementwise chains into loops and keeps calls it does not fuse) becomes a
helper that fills a new array with NumPy's loop, through numba's object mode (about 1 µs to
enter) when the array is large enough to pay for that; smaller arrays, scalars and other
dtypes stay numba's own.

``tanh`` of float64 is tanh_kernel.py's instead, arrays of any size and numbers (the
elements of a fused loop): NumPy's float64 tanh is vectorised only with AVX-512, and where it
is not it is no faster than the C library's (about 30 ns an element); the kernel's
arithmetic vectorises on any x86-64 (3-4 times faster), within 2 ulp of NumPy's.
"""

from __future__ import annotations

import ast
from dataclasses import replace

import numpy as np
from numba import objmode, types

from . import tanh_kernel
from .naming import overload

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
        if name == "tanh" and x == types.float64:
            return lambda x: tanh_kernel.tanh(x)
        if name == "tanh" and isinstance(x, types.Array) and x.dtype == types.float64 and x.ndim >= 1:
            return lambda x: tanh_kernel.tanh_array(x)
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


def vectorised(built):
    """The numba module `built` (module.py's `NumbaModule`) with its one-argument calls
    ``np.<name>(a)`` of the ufuncs above spelled as the helpers: the text is rewritten in
    place, so every line stays where it is (`built.lines` maps them to the user's lines)."""
    lines = built.source.splitlines(keepends=True)
    calls = sorted(((node.lineno, node.col_offset, node.func.attr) for node in ast.walk(ast.parse(built.source))
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in NAMES and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "np" and len(node.args) == 1 and not node.keywords
                    and not isinstance(node.args[0], ast.Starred)), reverse=True)
    used = set()
    for lineno, col, name in calls:  # from the end of each line: earlier offsets stay right
        line = lines[lineno - 1]
        if not line.isascii() or line[col:col + len(name) + 4] != f"np.{name}(":
            continue
        lines[lineno - 1] = f"{line[:col]}{PREFIX}{name}({line[col + len(name) + 4:]}"
        used.add(PREFIX + name)
    if not used:
        return built
    imports = {**built.imports, **{name: (__name__, name) for name in sorted(used)}}
    return replace(built, source="".join(lines), imports=imports)


__all__ = ["HELPERS", "NAMES", "THRESHOLD", "vector_cos", "vector_exp", "vector_expm1", "vector_log", "vector_log1p",
           "vector_sin", "vector_tanh", "vectorised"]
