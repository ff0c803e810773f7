"""numba versions of ``np.rot90`` and ``np.pad`` (constant mode), which numba lacks, for
generated code: `spell` is spelling.py's rule, the helpers are written from the types.

* ``np.rot90(x, k, axes)`` with constant `k` and `axes` (the gradient's is ``np.rot90(g,
  -k, axes)``): flips along an axis and a transpose, as NumPy defines it;
* ``np.pad(x, width)`` / ``np.pad(x, width, constant_values=c)`` (or ``mode="constant"``)
  with `width` written as constants (``1``, ``(1, 2)``, ``((1, 0), (0, 2))``) and one value
  `c`: an array of `c` with `x` written into its middle.  Its gradient is a slice.
Other forms are left to numba, which refuses them at the user's line.
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types

from .naming import made, overload


def spell(node: ast.Call) -> tuple[str, list] | None:
    func = node.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np"):
        return None
    keywords = {k.arg: k.value for k in node.keywords}
    if func.attr == "rot90" and 1 <= len(node.args) <= 3 and set(keywords) <= {"k", "axes"}:
        k = node.args[1] if len(node.args) > 1 else keywords.get("k", ast.Constant(1))
        axes = node.args[2] if len(node.args) > 2 else keywords.get("axes", ast.Constant((0, 1)))
        k, axes = _constant(k), _constant(axes)
        if type(k) is int and isinstance(axes, tuple) and len(axes) == 2 and all(type(a) is int for a in axes):
            return "rot90_by", [node.args[0], ast.Constant(k), _tuple(axes)]
        return None
    if func.attr == "pad" and len(node.args) == 2 and set(keywords) <= {"mode", "constant_values"}:
        mode = keywords.get("mode")
        if mode is not None and _constant(mode) != "constant":
            return None
        value = keywords.get("constant_values", ast.Constant(0.0))
        widths = _widths(_constant(node.args[1]))
        if widths is None or isinstance(value, (ast.Tuple, ast.List)):
            return None
        before, after = widths
        return "pad_constant", [node.args[0], _tuple(before), _tuple(after), value]
    return None


def _constant(node: ast.expr):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def _tuple(values: tuple) -> ast.Tuple:
    return ast.Tuple([ast.Constant(v) for v in values], ast.Load())


def _widths(width) -> tuple | None:
    """(befores, afters): one of each for every axis, or one for all axes."""
    if type(width) is int:
        return (width,), (width,)
    if isinstance(width, (tuple, list)) and len(width) == 1:
        width = width[0]
        if type(width) is int:
            return (width,), (width,)
    if isinstance(width, (tuple, list)) and len(width) == 2 and all(type(w) is int for w in width):
        return (width[0],), (width[1],)
    if isinstance(width, (tuple, list)) and width and all(
            isinstance(w, (tuple, list)) and len(w) == 2 and all(type(n) is int and n >= 0 for n in w) for w in width):
        return tuple(w[0] for w in width), tuple(w[1] for w in width)
    return None


def _literal_ints(t) -> tuple | None:
    items = t.types if isinstance(t, types.BaseTuple) else (t,)
    if not all(isinstance(i, types.IntegerLiteral) for i in items):
        return None
    return tuple(i.literal_value for i in items)


def rot90_by(x, k, axes):
    return np.rot90(x, k, axes)


@overload(rot90_by, prefer_literal=True)
def _rot90_by(x, k, axes):
    found, pair = _literal_ints(k), _literal_ints(axes)
    if not isinstance(x, types.Array) or found is None or pair is None or len(pair) != 2 or x.ndim < 2:
        return None
    first, second = (a % x.ndim for a in pair)
    if first == second:
        return None
    turns = found[0] % 4
    perm = list(range(x.ndim))
    perm[first], perm[second] = perm[second], perm[first]

    def flip(name: str, axis: int) -> str:
        return f"{name}[{', '.join('::-1' if d == axis else ':' for d in range(x.ndim))}]"
    if turns == 0:
        body = "x.copy()"
    elif turns == 2:
        body = flip(flip("x", first), second)
    elif turns == 1:
        body = f"{flip('x', second)}.transpose({tuple(perm)})"
    else:
        body = flip(f"x.transpose({tuple(perm)})", second)
    return made(f"def impl(x, k, axes):\n    return np.ascontiguousarray({body})\n")


def pad_constant(x, before, after, value):
    return np.pad(x, list(zip(before, after)) if len(before) > 1 else (before[0], after[0]),
                  constant_values=value)


@overload(pad_constant)
def _pad_constant(x, before, after, value):
    if not isinstance(x, types.Array) or not isinstance(value, (types.Number, types.Boolean)) \
            or not isinstance(before, types.UniTuple) or not isinstance(after, types.UniTuple) \
            or before.count not in (1, x.ndim) or after.count != before.count:
        return None
    one = before.count == 1
    b = [("before[0]" if one else f"before[{d}]") for d in range(x.ndim)]
    a = [("after[0]" if one else f"after[{d}]") for d in range(x.ndim)]
    shape = ", ".join(f"x.shape[{d}] + {b[d]} + {a[d]}" for d in range(x.ndim))
    where = ", ".join(f"{b[d]}:{b[d]} + x.shape[{d}]" for d in range(x.ndim))
    dtype = np.dtype(str(x.dtype))  # NumPy's: x's dtype, whatever the value
    return made(f"def impl(x, before, after, value):\n"
                f"    out = np.full(({shape},), value, DTYPE)\n"
                f"    out[{where}] = x\n"
                f"    return out\n", DTYPE=dtype)


HELPERS = ("rot90_by", "pad_constant")
