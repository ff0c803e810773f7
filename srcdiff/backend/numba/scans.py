"""numba versions of running scans along an axis and of their gradients' helpers:

* ``np.cumprod(x, axis=1)`` (numba's takes no ``axis``) is spelled ``cumprod_axis(x, 1)``: the
  axis moved last, a running product per row, moved back; its adjoint and tangent
  (rules/calculus_helpers.py's ``cumprod_adjoint``, ``cumprod_tangent``) work the same way, a
  row at a time, with the products of the other factors where a row holds a zero (exact there,
  as the Python helpers are);
* running extrema, ``np.maximum.accumulate(x)`` / ``np.minimum.accumulate(x, axis=k)`` (numba
  has no ufunc methods), are spelled ``extremum_scan(x, k, "max")``, and the helpers of their
  gradients (rules/scan_helpers.py's ``extremum_scan_adjoint`` and ``extremum_scan_tangent``:
  tied holders of a running extremum share its gradient equally) run a row at a time in
  extremum_rows.py.
"""

from __future__ import annotations

import ast

import numpy as np
from numba import njit, types
from numba.np.numpy_support import as_dtype

from ...rules import calculus_helpers
from .decompositions import cumprod_adjoint, cumprod_adjoint_row
from .naming import made, overload
from .reductions import axes

#: ufuncs whose running scan is an extremum -> the kind scan_helpers.py's helpers take
EXTREMA = {"maximum": "max", "fmax": "max", "minimum": "min", "fmin": "min"}


def spell(node: ast.Call) -> tuple[str, list] | None:
    """``np.cumprod(x, axis)`` / ``np.cumprod(x, axis=k)`` with an axis: ``cumprod_axis(x, k)``;
    ``np.maximum.accumulate(x[, axis])``: ``extremum_scan(x, axis, "max")``."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "accumulate" and isinstance(func.value, ast.Attribute) \
            and func.value.attr in ("maximum", "minimum") and isinstance(func.value.value, ast.Name) \
            and func.value.value.id == "np" and len(node.args) in (1, 2) and len(node.args) + len(node.keywords) <= 2 \
            and all(k.arg == "axis" for k in node.keywords):
        axis = node.args[1] if len(node.args) == 2 else node.keywords[0].value if node.keywords else ast.Constant(0)
        return "extremum_scan", [node.args[0], axis, ast.Constant(EXTREMA[func.value.attr])]
    if not (isinstance(func, ast.Attribute) and func.attr == "cumprod" and isinstance(func.value, ast.Name)
            and func.value.id == "np" and node.args):
        return None
    keywords = {k.arg: k.value for k in node.keywords}
    axis = node.args[1] if len(node.args) == 2 else keywords.get("axis")
    if axis is None or len(node.args) + len(keywords) != 2 or isinstance(axis, ast.Constant) and axis.value is None:
        return None
    return "cumprod_axis", [node.args[0], axis]


def cumprod_axis(a, axis):
    return np.cumprod(a, axis)


def cumprod_tangent(x_dot, x, axis):
    return calculus_helpers.cumprod_tangent(x_dot, x, axis)


def rows(a_ndim: int, axis) -> tuple[tuple, tuple]:
    """The transpose that moves `axis` last, and the one that moves it back."""
    (along,) = axes(axis, a_ndim)
    perm = tuple(d for d in range(a_ndim) if d != along) + (along,)
    return perm, tuple(perm.index(d) for d in range(a_ndim))


def result_dtype(*ts):
    return np.result_type(*[as_dtype(t.dtype) if isinstance(t, types.Array) else as_dtype(t) for t in ts], 0.0)


@overload(cumprod_axis, prefer_literal=True)
def _cumprod_axis(a, axis):
    if not isinstance(a, types.Array) or isinstance(axis, (types.NoneType, types.Omitted)):
        return None
    perm, back = rows(a.ndim, axis)
    dtype = as_dtype(a.dtype) if isinstance(a.dtype, types.Float) else np.int64
    return made("def impl(a, axis):\n"
                f"    moved = np.ascontiguousarray(a.transpose({perm}))\n"
                "    m = moved.reshape((-1, moved.shape[-1]))\n"
                "    out = np.empty(m.shape, DTYPE)\n"
                "    for i in range(m.shape[0]):\n"
                "        out[i] = np.cumprod(m[i])\n"
                f"    return np.ascontiguousarray(out.reshape(moved.shape).transpose({back}))\n", DTYPE=dtype)


def by_rows(helper, first: str, dtype, perm: tuple, back: tuple, more: str = ""):
    """A function of (first, x, axis) that runs `helper(first_row, x_row)` on each row of the
    two moved so that `axis` is last (`first` broadcast to x's shape first); `more`: text of
    further parameters the function takes and does not use (``, kind``)."""
    return made(f"def impl(FIRST, x, axis{more}):\n"
                "    xs = x.astype(np.float64)\n"
                "    fs = np.broadcast_to(np.asarray(FIRST).astype(np.float64), xs.shape)\n"
                f"    xm = np.ascontiguousarray(xs.transpose({perm}))\n"
                f"    fm = np.ascontiguousarray(fs.transpose({perm}))\n"
                "    shape = xm.shape\n"
                "    xr, fr = xm.reshape((-1, shape[-1])), fm.reshape((-1, shape[-1]))\n"
                "    out = np.empty(xr.shape)\n"
                "    for i in range(xr.shape[0]):\n"
                "        out[i] = helper(fr[i], xr[i])\n"
                f"    return np.ascontiguousarray(out.reshape(shape).transpose({back})).astype(DTYPE)\n"
                .replace("FIRST", first), helper=helper, DTYPE=dtype)


@overload(cumprod_adjoint, prefer_literal=True)
def _cumprod_adjoint_rows(g, x, axis):
    if not (isinstance(x, types.Array) and x.ndim >= 2 and isinstance(axis, (types.Integer, types.IntegerLiteral))):
        return None
    return by_rows(cumprod_adjoint_row, "g", result_dtype(x, g), *rows(x.ndim, axis))


@njit(cache=True)
def _cumprod_tangent(x_dot, x):
    """``sum over i <= j of x_dot[i] * prod over k <= j, k != i of x[k]``: exact with zeros."""
    n = x.shape[0]
    out = np.zeros(n)
    before = 1.0
    for i in range(n):
        running = before
        for j in range(i, n):
            if j > i:
                running *= x[j]
            out[j] += x_dot[i] * running
        before *= x[i]
    return out


@overload(cumprod_tangent, prefer_literal=True)
def _cumprod_tangent_rows(x_dot, x, axis):
    if not (isinstance(x, types.Array) and isinstance(axis, (types.Integer, types.IntegerLiteral))):
        return None
    if x.ndim == 1:
        dtype = result_dtype(x, x_dot)

        def one(x_dot, x, axis):
            xs = x.astype(np.float64)
            ds = np.broadcast_to(np.asarray(x_dot).astype(np.float64), xs.shape)
            return _cumprod_tangent(np.ascontiguousarray(ds), xs).astype(dtype)
        return one
    return by_rows(_cumprod_tangent, "x_dot", result_dtype(x, x_dot), *rows(x.ndim, axis))


def cumprod_curvature(a, x, v, axis):
    return calculus_helpers.cumprod_curvature(a, x, v, axis)


@njit(cache=True)
def _cumprod_curvature(a, x, v):
    """``out[i] = sum over j >= i of a[j] times the tangent along v of the running product with
    x[i] held at 1`` (v[i] at 0): exact with zeros, as the Python helper's second path."""
    n = x.shape[0]
    out = np.zeros(n)
    others, held = x.copy(), v.copy()
    for i in range(n):
        others[i], held[i] = 1.0, 0.0
        moved = _cumprod_tangent(held, others)
        total = 0.0
        for j in range(i, n):
            total += a[j] * moved[j]
        out[i] = total
        others[i], held[i] = x[i], v[i]
    return out


@overload(cumprod_curvature, prefer_literal=True)
def _cumprod_curvature_rows(a, x, v, axis):
    """The Hessian's helper of ``np.cumprod``, a row at a time with `axis` last."""
    if not (isinstance(x, types.Array) and isinstance(axis, (types.Integer, types.IntegerLiteral))):
        return None
    perm, back = rows(x.ndim, axis)
    return made("def impl(a, x, v, axis):\n"
                "    xs = x.astype(np.float64)\n"
                "    parts = []\n"
                "    for part in (a, v):\n"
                "        wide = np.broadcast_to(np.asarray(part).astype(np.float64), xs.shape)\n"
                f"        parts.append(np.ascontiguousarray(wide.transpose({perm})))\n"
                f"    xm = np.ascontiguousarray(xs.transpose({perm}))\n"
                "    shape = xm.shape\n"
                "    xr = xm.reshape((-1, shape[-1]))\n"
                "    ar, vr = parts[0].reshape(xr.shape), parts[1].reshape(xr.shape)\n"
                "    out = np.empty(xr.shape)\n"
                "    for i in range(xr.shape[0]):\n"
                "        out[i] = helper(ar[i], xr[i], vr[i])\n"
                f"    return np.ascontiguousarray(out.reshape(shape).transpose({back})).astype(DTYPE)\n",
                helper=_cumprod_curvature, DTYPE=result_dtype(x, a, v))


HELPERS = ("cumprod_axis", "cumprod_tangent", "cumprod_curvature")

__all__ = ["HELPERS", "cumprod_axis", "cumprod_curvature", "cumprod_tangent", "spell"]
