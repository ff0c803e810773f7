"""numba's spellings of NumPy calls along an axis that numba's NumPy takes without one, and of
``np.heaviside``, which numba lacks (spelling.py's rewriter asks `spell`):

* ``np.trapezoid(y, x, dx=..., axis=k)`` (``np.trapz`` too) with a constant axis:
  ``trapezoid_along(y, x, dx, k)``, the axis moved last and each row integrated (numba's own
  takes no axis);
* ``np.quantile(a, q, axis=k)`` and ``np.percentile(a, p, axis=k)`` (NumPy's default method,
  "linear"): ``quantile_along(a, q, k)``, numba's quantile of each row, ``q`` a number, a list
  or a 1-D array (``p / 100`` for a percentile, as NumPy divides it);
* ``np.median(a, axis=k)`` and ``np.nanmedian(a, axis=k)`` with a constant axis: ``median_along(a, k)``
  / ``nanmedian_along(a, k)``, numba's median of each row (numba's own takes no axis);
* ``np.cross(a, b, axisa, axisb, axisc, axis)`` with constant axes other than the last (the
  adjoint of a cross product along given axes passes them by position):
  ``cross_axes(a, b, axisa, axisb, axisc)``, numba's cross product of the moved operands, its
  vector axis moved to ``axisc``;
* ``np.heaviside(x, h)``: ``heaviside_of(x, h)``, numbers or arrays broadcast together,
  NaN where x is NaN, as NumPy's ufunc.

Results keep NumPy's dtypes (a float32 array stays float32 beside a Python number), so a
float32 loop does not meet a float64 value here.  Any other form (``keepdims=``, ``method=``,
``x`` sample points of y's shape) is left alone, and numba refuses it at the user's line.
"""

from __future__ import annotations

import ast

import numpy as np
from numba import njit, types
from numba.core.errors import TypingError
from numba.np.numpy_support import as_dtype

from .naming import made, overload


def _is_np(func: ast.expr, *names: str) -> bool:
    return isinstance(func, ast.Attribute) and func.attr in names and isinstance(func.value, ast.Name) \
        and func.value.id in ("np", "numpy")


def _constant(node):
    """The value of a constant argument, or `_constant` itself (a marker: not a constant)."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        return _constant


def _constant_axis(node) -> bool:
    return type(_constant(node)) is int


CROSS_AXES = ("axisa", "axisb", "axisc", "axis")


def spell(node: ast.Call) -> tuple[str, list] | None:
    """(helper, arguments) the call `node` becomes, or None to keep it."""
    func, args, keywords = node.func, list(node.args), {k.arg: k.value for k in node.keywords}
    if _is_np(func, "trapezoid", "trapz") and 1 <= len(args) <= 4 and set(keywords) <= {"x", "dx", "axis"}:
        named = dict(zip(("y", "x", "dx", "axis"), args)) | keywords
        if "axis" in named and _constant_axis(named["axis"]):
            return "trapezoid_along", [named["y"], named.get("x", ast.Constant(None)),
                                       named.get("dx", ast.Constant(1.0)), named["axis"]]
    if _is_np(func, "quantile", "percentile") and 2 <= len(args) <= 3 and set(keywords) <= {"axis"}:
        axis = args[2] if len(args) == 3 else keywords.get("axis")
        if axis is not None and _constant_axis(axis):
            q = args[1]
            if func.attr == "percentile":  # NumPy's own step: the percentages divided by 100
                if not isinstance(_constant(q), (int, float)):  # (a list: as an array; a number stays one)
                    q = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "asarray", ast.Load()), [q], [])
                q = ast.BinOp(q, ast.Div(), ast.Constant(100.0))
            return "quantile_along", [args[0], q, axis]
    if _is_np(func, "median", "nanmedian") and 1 <= len(args) <= 2 and set(keywords) <= {"axis"}:
        axis = args[1] if len(args) == 2 else keywords.get("axis")
        if axis is not None and _constant_axis(axis):
            return f"{func.attr}_along", [args[0], axis]
    if _is_np(func, "cross") and 2 <= len(args) <= 6 and set(keywords) <= set(CROSS_AXES):
        named = dict(zip(CROSS_AXES, args[2:])) | keywords
        values = {k: _constant(v) for k, v in named.items()}
        if all(v is None or type(v) is int for v in values.values()) \
                and any(v not in (None, -1) for v in values.values()):
            if values.get("axis") is not None:
                chosen = (values["axis"],) * 3
            else:
                chosen = tuple(-1 if values.get(k) is None else values[k] for k in CROSS_AXES[:3])
            return "cross_axes", [args[0], args[1], *(ast.Constant(a) for a in chosen)]
    if _is_np(func, "heaviside") and len(args) == 2 and not keywords:
        return "heaviside_of", args
    return None


def _floating(*dtypes) -> np.dtype:
    """NumPy's result dtype of arithmetic on these dtypes, float64 if that is not floating."""
    found = np.result_type(*dtypes)
    return found if np.issubdtype(found, np.floating) else np.dtype(np.float64)


def _literal(t, name: str) -> int:
    if not isinstance(t, types.IntegerLiteral):
        raise TypingError(f"srcdiff's numba {name} takes its axes as constants")
    return t.literal_value


def _moved_last(ndim: int, axis: int) -> tuple:
    """The permutation that moves `axis` of an array of `ndim` axes last."""
    axis %= ndim
    return tuple(d for d in range(ndim) if d != axis) + (axis,)


def trapezoid_along(y, x, dx, axis):
    return np.trapezoid(y, x, dx, axis)


@overload(trapezoid_along, prefer_literal=True)
def _trapezoid_along(y, x, dx, axis):
    """NumPy's trapezoid rule along `axis`: sample points `x` (None: `dx` apart) of the axis."""
    if not isinstance(y, types.Array):
        return None
    spaced = isinstance(x, (types.NoneType, types.Omitted))
    if not spaced and not (isinstance(x, types.Array) and x.ndim == 1):
        return None  # (points of y's shape: numba refuses the call)
    along = _literal(axis, "trapezoid") % y.ndim
    perm = _moved_last(y.ndim, along)
    dtype = _floating(as_dtype(y.dtype)) if spaced else _floating(as_dtype(y.dtype), as_dtype(x.dtype))
    step = "dx" if spaced else "(x[j + 1] - x[j])"
    check = "" if spaced else ("    if x.shape[0] != n:\n"
                               "        raise ValueError('trapezoid: x and y differ in length along the axis')\n")
    text = ("def impl(y, x, dx, axis):\n"
            f"    moved = np.ascontiguousarray(y.transpose({perm}))\n"
            "    n = moved.shape[-1]\n"
            + check +
            "    rows = moved.reshape((-1, n))\n"
            "    out = np.empty(rows.shape[0], DTYPE)\n"
            "    for i in range(rows.shape[0]):\n"
            "        total = 0.0\n"
            "        for j in range(n - 1):\n"
            f"            total += {step} * (rows[i, j + 1] + rows[i, j]) / 2.0\n"
            "        out[i] = total\n")
    if y.ndim == 1:
        return made(text + "    return out[0]\n", DTYPE=dtype)
    return made(text + "    return out.reshape(moved.shape[:-1])\n", DTYPE=dtype)


def quantile_along(a, q, axis):
    return np.quantile(a, q, axis=axis)


@overload(quantile_along, prefer_literal=True)
def _quantile_along(a, q, axis):
    """NumPy's quantiles ("linear") of the rows along `axis`: the quantile axis first when `q`
    holds several, as NumPy puts it."""
    if not isinstance(a, types.Array):
        return None
    many = isinstance(q, (types.Array, types.List, types.BaseTuple))
    if isinstance(q, types.Array) and q.ndim != 1 or not many and not isinstance(q, types.Number):
        return None
    along = _literal(axis, "quantile") % a.ndim
    perm = _moved_last(a.ndim, along)
    dtype = _floating(as_dtype(a.dtype))
    kept = "moved.shape[:-1]"
    text = ("def impl(a, q, axis):\n"
            f"    moved = np.ascontiguousarray(a.transpose({perm}))\n"
            "    rows = moved.reshape((-1, moved.shape[-1]))\n")
    if many:
        text += ("    qs = np.asarray(q, dtype=np.float64)\n"
                 "    out = np.empty((qs.shape[0], rows.shape[0]), DTYPE)\n"
                 "    for i in range(rows.shape[0]):\n"
                 "        out[:, i] = np.quantile(rows[i], qs)\n"
                 f"    return out.reshape((qs.shape[0],) + {kept})\n")
    else:
        text += ("    out = np.empty(rows.shape[0], DTYPE)\n"
                 "    for i in range(rows.shape[0]):\n"
                 "        out[i] = np.quantile(rows[i], q)\n")
        text += "    return out[0]\n" if a.ndim == 1 else f"    return out.reshape({kept})\n"
    return made(text, DTYPE=dtype)


def median_along(a, axis):
    return np.median(a, axis=axis)


def nanmedian_along(a, axis):
    return np.nanmedian(a, axis=axis)


def _rows_of(a, axis, name: str, reduce: str):
    """The text of an impl applying numba's `reduce` (``np.median``) to each row of `a` along `axis`."""
    if not isinstance(a, types.Array):
        return None
    perm = _moved_last(a.ndim, _literal(axis, name) % a.ndim)
    text = ("def impl(a, axis):\n"
            f"    moved = np.ascontiguousarray(a.transpose({perm}))\n"
            "    rows = moved.reshape((-1, moved.shape[-1]))\n"
            "    out = np.empty(rows.shape[0], DTYPE)\n"
            "    for i in range(rows.shape[0]):\n"
            f"        out[i] = {reduce}(rows[i])\n")
    text += "    return out[0]\n" if a.ndim == 1 else "    return out.reshape(moved.shape[:-1])\n"
    return made(text, DTYPE=_floating(as_dtype(a.dtype)))


@overload(median_along, prefer_literal=True)
def _median_along(a, axis):
    """NumPy's median of the rows along `axis`."""
    return _rows_of(a, axis, "median", "np.median")


@overload(nanmedian_along, prefer_literal=True)
def _nanmedian_along(a, axis):
    """NumPy's nanmedian of the rows along `axis`."""
    return _rows_of(a, axis, "nanmedian", "np.nanmedian")


def cross_axes(a, b, axisa, axisb, axisc):
    return np.cross(a, b, axisa, axisb, axisc)


@overload(cross_axes, prefer_literal=True)
def _cross_axes(a, b, axisa, axisb, axisc):
    """``np.cross`` of the vectors along `axisa` of a and `axisb` of b: both moved last, numba's
    cross product (which broadcasts the rest), its vector axis moved to `axisc`."""
    if not (isinstance(a, types.Array) and isinstance(b, types.Array)):
        return None
    first = _moved_last(a.ndim, _literal(axisa, "cross"))
    second = _moved_last(b.ndim, _literal(axisb, "cross"))
    ndim = max(a.ndim, b.ndim)
    c = _literal(axisc, "cross")
    if not -ndim <= c < ndim:
        raise TypingError(f"axisc {c} is out of bounds for a cross product of dimension {ndim}")
    c %= ndim
    back = tuple(range(ndim - 1))
    back = back[:c] + (ndim - 1,) + back[c:]
    return made("def impl(a, b, axisa, axisb, axisc):\n"
                f"    out = np.cross(np.ascontiguousarray(a.transpose({first})),\n"
                f"                   np.ascontiguousarray(b.transpose({second})))\n"
                f"    return np.ascontiguousarray(out.transpose({back}))\n")


@njit(cache=True)
def _step(v, at):
    """One element of np.heaviside: NaN stays NaN."""
    if v != v:
        return v
    return 0.0 if v < 0 else (1.0 if v > 0 else at)


def heaviside_of(x, h):
    return np.heaviside(x, h)


@overload(heaviside_of)
def _heaviside_of(x, h):
    """0 where x < 0, 1 where x > 0, h where x == 0, NaN where x is NaN; a number beside an
    array takes the array's dtype (NumPy's rule for a Python number)."""
    arrays = [t for t in (x, h) if isinstance(t, types.Array)]
    if not all(isinstance(t, (types.Array, types.Number, types.Boolean)) for t in (x, h)):
        return None
    if not arrays:
        dtype = _floating(as_dtype(x), as_dtype(h))
        return made("def impl(x, h):\n    return DTYPE(step(x, h))\n", DTYPE=dtype.type, step=_step)
    dtype = _floating(*(as_dtype(t.dtype) for t in arrays))
    if len(arrays) == 2:
        shape = "np.broadcast_shapes(x.shape, h.shape)"
    else:
        shape = "x.shape" if isinstance(x, types.Array) else "h.shape"
    flat = {name: f"np.broadcast_to({name}, shape).ravel()" if isinstance(t, types.Array) else name
            for name, t in (("x", x), ("h", h))}
    item = {name: f"{name}s[k]" if isinstance(t, types.Array) else name for name, t in (("x", x), ("h", h))}
    return made("def impl(x, h):\n"
                f"    shape = {shape}\n"
                f"    xs = {flat['x']}\n"
                f"    hs = {flat['h']}\n"
                "    size = 1\n"
                "    for extent in shape:\n"
                "        size *= extent\n"
                "    out = np.empty(size, DTYPE)\n"
                "    for k in range(size):\n"
                f"        out[k] = step({item['x']}, {item['h']})\n"
                "    return out.reshape(shape)\n", DTYPE=dtype, step=_step)


HELPERS = ("trapezoid_along", "quantile_along", "median_along", "nanmedian_along", "cross_axes", "heaviside_of")

__all__ = ["HELPERS", "cross_axes", "heaviside_of", "median_along", "nanmedian_along", "quantile_along", "spell",
           "trapezoid_along"]
