"""numba versions of ``np.rot90`` and ``np.pad`` (constant mode), which numba lacks, for
generated code: `spell` is spelling.py's rule, the helpers are written from the types.

* ``np.rot90(x, k, axes)`` with constant `k` and `axes` (the gradient's is ``np.rot90(g,
  -k, axes)``): flips along an axis and a transpose, as NumPy defines it;
* ``np.pad(x, width)`` / ``np.pad(x, width, constant_values=c)`` (or ``mode="constant"``)
  with `width` written as one width, a pair or a pair per axis (``1``, ``(1, 2)``, ``((1, 0),
  (0, 2))``), each a constant or computed (``(0, 8 - n)``, ``len(x) - 2``), and one value
  `c`: an array of `c` with `x` written into its middle.  Its gradient is a slice.  A
  negative width raises ``ValueError`` as NumPy's does.
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
        widths = width_nodes(node.args[1])
        if widths is None or isinstance(value, (ast.Tuple, ast.List)):
            return None
        before, after = widths
        return "pad_constant", [node.args[0], _nodes(before), _nodes(after), value]
    return None


def _constant(node: ast.expr):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def _tuple(values: tuple) -> ast.Tuple:
    return ast.Tuple([ast.Constant(v) for v in values], ast.Load())


def _nodes(values: list) -> ast.Tuple:
    return ast.Tuple(list(values), ast.Load())


def width_nodes(width: ast.expr) -> tuple[list, list] | None:
    """np.pad's `width` as written: (befores, afters), one of each for every axis or one for all
    axes, each a constant or an expression of the code (an integer when it runs: the helpers'
    types say so, else numba refuses the call at the line).  None where its form is not written
    out (a name bound to a tuple)."""
    def pair(w):
        return isinstance(w, (ast.Tuple, ast.List)) and len(w.elts) == 2 and not any(_nested(e) for e in w.elts)
    if isinstance(width, (ast.Tuple, ast.List)) and len(width.elts) == 1:
        width = width.elts[0]
    if isinstance(width, ast.Constant):
        return ([width], [width]) if type(width.value) is int and width.value >= 0 else None
    if _scalar(width):
        return [width], [width]
    if pair(width):
        return [width.elts[0]], [width.elts[1]]
    if isinstance(width, (ast.Tuple, ast.List)) and width.elts and all(pair(w) for w in width.elts):
        return [w.elts[0] for w in width.elts], [w.elts[1] for w in width.elts]
    return None


def _nested(node: ast.expr) -> bool:
    return isinstance(node, (ast.Tuple, ast.List, ast.Starred)) or not _scalar(node)


def _scalar(node: ast.expr) -> bool:
    """An expression of integers as written: arithmetic of names, constants, ``len(...)`` and
    ``x.shape[k]`` (a bare name may hold a tuple: then the helper's types refuse it)."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, ast.BinOp):
        return _scalar(node.left) and _scalar(node.right)
    if isinstance(node, ast.UnaryOp):
        return _scalar(node.operand)
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id in ("len", "int", "min", "max")
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
    return isinstance(node, ast.Attribute) and node.attr in ("size", "ndim")


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
    if not isinstance(x, types.Array) or not isinstance(value, (types.Number, types.Boolean)):
        return None
    if width_array(before) and before == after:  # (the width as the code computed it: an array)
        start = spread_widths(x.ndim, before.types[0])
        b, a = [f"bs[{d}]" for d in range(x.ndim)], [f"as_[{d}]" for d in range(x.ndim)]
    elif _int_tuple(before) and _int_tuple(after) and len(before) in (1, x.ndim) and len(after) == len(before):
        one = len(before) == 1
        b = [("before[0]" if one else f"before[{d}]") for d in range(x.ndim)]
        a = [("after[0]" if one else f"after[{d}]") for d in range(x.ndim)]
        start = ""
    else:
        return None
    shape = ", ".join(f"x.shape[{d}] + {b[d]} + {a[d]}" for d in range(x.ndim))
    where = ", ".join(f"{b[d]}:{b[d]} + x.shape[{d}]" for d in range(x.ndim))
    dtype = np.dtype(str(x.dtype))  # NumPy's: x's dtype, whatever the value
    negative = " or ".join(f"{w} < 0" for w in (*b, *a))
    return made(f"def impl(x, before, after, value):\n{start}"
                f"    if {negative}:\n"
                f"        raise ValueError('np.pad: index can\\'t contain negative values')\n"
                f"    out = np.full(({shape},), value, DTYPE)\n"
                f"    out[{where}] = x\n"
                f"    return out\n", DTYPE=dtype)


def width_array(t) -> bool:
    """np.pad's width as the generated code holds a computed one: a 1-tuple of an integer array
    (``np.asarray((0, 8 - n))``), of at most two axes."""
    return isinstance(t, types.BaseTuple) and len(t) == 1 and isinstance(t.types[0], types.Array) \
        and isinstance(t.types[0].dtype, types.Integer) and t.types[0].ndim <= 2


def spread_widths(ndim: int, width: types.Array) -> str:
    """Lines setting ``bs`` and ``as_`` (before and after, one of each per axis of an array of
    `ndim` axes) from the width array ``before[0]`` (of type `width`) as NumPy broadcasts it to
    (ndim, 2); a width of another shape raises ``ValueError`` as NumPy's does."""
    if width.ndim == 2:
        columns = ("    elif flat.size == 2 and w.shape[1] == 2:\n"
                   "        bs[:] = flat[0]\n"
                   "        as_[:] = flat[1]\n"
                   f"    elif w.shape[0] == {ndim} and w.shape[1] == 1:\n"
                   "        bs[:] = flat\n"
                   "        as_[:] = flat\n"
                   f"    elif w.shape[0] == {ndim} and w.shape[1] == 2:\n")
    else:
        columns = ("    elif flat.size == 2:\n"
                   "        bs[:] = flat[0]\n"
                   "        as_[:] = flat[1]\n"
                   "    elif False:\n")
    return ("    w = before[0]\n"
            "    flat = np.ravel(w)\n"
            f"    bs = np.empty({ndim}, np.int64)\n"
            f"    as_ = np.empty({ndim}, np.int64)\n"
            "    if flat.size == 1:\n"
            "        bs[:] = flat[0]\n"
            "        as_[:] = flat[0]\n" + columns +
            f"        for d in range({ndim}):\n"
            "            bs[d] = flat[2 * d]\n"
            "            as_[d] = flat[2 * d + 1]\n"
            "    else:\n"
            "        raise ValueError('np.pad: the widths do not fit the array')\n")


def _int_tuple(t) -> bool:
    """A tuple of integers (literal or not, of one type or mixed)."""
    return isinstance(t, types.BaseTuple) and all(isinstance(i, types.Integer) for i in t.types)


HELPERS = ("rot90_by", "pad_constant")
