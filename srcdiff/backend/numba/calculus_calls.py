"""numba's spellings of NumPy's numerical-calculus calls its NumPy lacks or takes otherwise,
with their helpers (spelling.py's rewriter asks `spell`):

* ``np.gradient(x, h, edge_order=k)`` of a 1-D array: ``gradient_values(x, h, k)``;
* ``np.diff(x, n, prepend=p, append=a)`` of a 1-D array: ``diff_padded(x, n, p, a)``; with an
  ``axis`` (a matrix's rows closed into a loop, ``np.diff(P, axis=0, append=P[:1])``):
  ``diff_padded_axis(x, n, p, a, axis)``, a number padding as NumPy broadcasts it;
* ``np.take(a, indices, axis=k)`` of a 1-D array: ``a[indices]``; one index of N-D along its
  first, second or last axis: that slice, copied; a 1-D integer array along any axis of N-D:
  numba's one index array;
* ``np.argsort(x, axis=-1, kind='stable')`` of a 1-D array (the adjoint of ``np.sort``): numba's
  merge sort, which is stable; without ``kind``, numba's own;
* ``np.polyval(p, x)``: Horner's scheme, ``polyval_of(p, x)``;
* ``np.linspace(a, b, n, endpoint=...)``: numba's (which has no ``endpoint``), or ``b`` left out;
* ``np.linalg.svd(x, compute_uv=False)``: the singular values of numba's SVD;
* ``np.linalg.eigh(x, UPLO)`` / ``eigvalsh``: numba's of the symmetric matrix the named triangle
  of x holds (numba's take no ``UPLO``);
* ``np.clip`` of a number (numba's takes arrays): ``clip_number(x, lo, hi)``; of an array between
  array bounds, NumPy's minimum of a maximum (numba's does not broadcast x against its bounds).

(Python's types as dtypes, ``dtype=bool``, are spelled NumPy's in spelling.py, for any call.)

Any other form is left alone, and numba refuses it at the user's line.
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types

from .naming import compiled, made, overload


def _is_np(func: ast.expr, name: str) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == name and isinstance(func.value, ast.Name) \
        and func.value.id == "np"


def _constant(node, default=None):
    if node is None:
        return default
    try:
        return ast.literal_eval(node)
    except ValueError:
        return _constant  # (a marker: not a constant)


def spell(node: ast.Call) -> tuple[str, list] | None:
    """(helper, arguments) the call `node` becomes, or None to keep it."""
    func, args, keywords = node.func, list(node.args), {k.arg: k.value for k in node.keywords}
    if isinstance(func, ast.Attribute) and func.attr in ("eigh", "eigvalsh") and _is_np(func.value, "linalg") \
            and len(args) + len(keywords) == 2 and set(keywords) <= {"UPLO"}:
        uplo = _constant(args[1] if len(args) == 2 else keywords["UPLO"])
        if uplo in ("L", "U"):
            return f"{func.attr}_from", [args[0], ast.Constant(uplo == "L")]
    if _is_np(func, "clip") and len(args) == 3 and not keywords:
        return "clip_number", args
    if _is_np(func, "gradient") and 1 <= len(args) <= 2 and set(keywords) <= {"edge_order", "axis"} \
            and _constant(keywords.get("axis")) in (None, 0, -1):
        spacing = args[1] if len(args) == 2 else ast.Constant(1.0)
        return "gradient_values", [args[0], spacing, keywords.get("edge_order", ast.Constant(1))]
    if _is_np(func, "diff") and set(keywords) & {"prepend", "append"} and len(args) <= 2 \
            and set(keywords) <= {"n", "prepend", "append", "axis"} \
            and type(_constant(keywords.get("axis"), -1)) is int:
        n = args[1] if len(args) == 2 else keywords.get("n", ast.Constant(1))
        pads = [keywords.get("prepend", ast.Constant(None)), keywords.get("append", ast.Constant(None))]
        if "axis" not in keywords:  # (the last axis: a 1-D array's only one; N-D is refused by the helper)
            return "diff_padded", [args[0], n, *pads]
        return "diff_padded_axis", [args[0], n, *pads, ast.Constant(_constant(keywords["axis"]))]
    if _is_np(func, "take") and len(args) + len(keywords) == 3 and set(keywords) <= {"axis"} \
            and type(_constant(args[2] if len(args) == 3 else keywords["axis"])) is int:
        return "take_along_line", [*args[:2], ast.Constant(_constant(args[2] if len(args) == 3 else keywords["axis"]))]
    if _is_np(func, "argsort") and len(args) == 1 and set(keywords) <= {"axis", "kind"} \
            and _constant(keywords.get("axis"), -1) in (0, -1):
        kind = _constant(keywords.get("kind"))
        if kind == "stable":
            return "argsort_stable", args
        if kind is None:
            return "np.argsort", args  # numba's, along the only axis
    if _is_np(func, "polyval") and len(args) == 2 and not keywords:
        return "polyval_of", args
    if _is_np(func, "linspace") and len(args) == 3 and set(keywords) <= {"endpoint"}:
        endpoint = _constant(keywords.get("endpoint"), True)
        if endpoint is True:
            return "np.linspace", args
        if endpoint is False:
            return "linspace_open", args
    if isinstance(func, ast.Attribute) and func.attr == "svd" and _is_np(func.value, "linalg") and len(args) == 1 \
            and _constant(keywords.get("compute_uv")) is False and set(keywords) <= {"compute_uv", "full_matrices"}:
        return "singular_values", args
    return None


def _vector(t) -> bool:
    return isinstance(t, types.Array) and t.ndim == 1


def gradient_values(x, spacing, edge_order):
    return np.gradient(x, spacing, edge_order=edge_order)


@overload(gradient_values)
def _gradient_values(x, spacing, edge_order):
    if not _vector(x):
        return None

    def impl(x, spacing, edge_order):
        n, h = x.shape[0], float(spacing)
        out = np.empty(n)
        for i in range(1, n - 1):
            out[i] = (x[i + 1] - x[i - 1]) / (2.0 * h)
        if edge_order == 1:
            out[0] = (x[1] - x[0]) / h
            out[n - 1] = (x[n - 1] - x[n - 2]) / h
        else:
            out[0] = (-1.5 * x[0] + 2.0 * x[1] - 0.5 * x[2]) / h
            out[n - 1] = (1.5 * x[n - 1] - 2.0 * x[n - 2] + 0.5 * x[n - 3]) / h
        return out
    return impl


def diff_padded(x, n, prepend, append):
    return np.diff(x, n, prepend=prepend, append=append)


def _piece(t):
    """A prepend/append operand as a 1-D array (None: nothing)."""
    if isinstance(t, (types.NoneType, types.Omitted)) or t is None:
        return lambda v: np.empty(0)
    if isinstance(t, (types.Float, types.Integer)):
        return lambda v: np.array([float(v)])
    if isinstance(t, types.Array) and t.ndim <= 1:
        return lambda v: np.asarray(v).astype(np.float64).reshape(-1)
    return None


@overload(diff_padded)
def _diff_padded(x, n, prepend, append):
    before, after = _piece(prepend), _piece(append)
    if not _vector(x) or before is None or after is None:
        return None
    before, after = compiled(before), compiled(after)

    def impl(x, n, prepend, append):
        return np.diff(np.concatenate((before(prepend), x.astype(np.float64), after(append))), n)
    return impl


def diff_padded_axis(x, n, prepend, append, axis):
    return np.diff(x, n, axis=axis, prepend=prepend, append=append)


def _padding(t, ndim: int, along: int, name: str) -> str | None:
    """The text of the array a prepend/append operand `name` of type `t` joins to x as: a
    number (or a 0-d array: a tangent's) broadcast to x's shape with one element along the axis (NumPy's broadcast), an
    array of x's axes as it is; None: a form NumPy refuses too (fewer axes)."""
    if isinstance(t, (types.NoneType, types.Omitted)) or t is None:
        shape = "".join("0, " if d == along else f"x.shape[{d}], " for d in range(ndim))
        return f"np.empty(({shape}))"
    if isinstance(t, (types.Float, types.Integer)) or isinstance(t, types.Array) and t.ndim == 0:
        shape = "".join("1, " if d == along else f"x.shape[{d}], " for d in range(ndim))
        value = f"float({name})" if not isinstance(t, types.Array) else f"float({name}.ravel()[0])"
        return f"np.full(({shape}), {value})"
    if isinstance(t, types.Array) and t.ndim == ndim:
        return f"np.ascontiguousarray({name}).astype(np.float64)"
    return None


@overload(diff_padded_axis, prefer_literal=True)
def _diff_padded_axis(x, n, prepend, append, axis):
    """n differences along a constant axis of x with its padding joined at both ends."""
    along = getattr(axis, "literal_value", None)
    if not (isinstance(x, types.Array) and isinstance(n, types.Integer) and type(along) is int
            and -x.ndim <= along < x.ndim):
        return None
    along %= x.ndim
    before, after = _padding(prepend, x.ndim, along, "prepend"), _padding(append, x.ndim, along, "append")
    if before is None or after is None:
        return None
    cut = ":, " * along
    return made("def impl(x, n, prepend, append, axis):\n"
                "    if n < 0:\n"
                "        raise ValueError('order must be non-negative')\n"
                f"    out = np.concatenate(({before}, np.ascontiguousarray(x).astype(np.float64), {after}), "
                f"axis={along})\n"
                "    for _ in range(n):\n"
                f"        out = np.ascontiguousarray(out[{cut}1:] - out[{cut}:-1])\n"
                "    return out\n")


def take_along_line(a, indices, axis):
    return np.take(a, indices, axis=axis)


@overload(take_along_line)
def _take_along_line(a, indices, axis):
    axis = getattr(axis, "literal_value", None)
    if _vector(a) and axis in (0, -1):
        return lambda a, indices, axis: a[indices]
    if not (isinstance(a, types.Array) and type(axis) is int and -a.ndim <= axis < a.ndim):
        return None
    if isinstance(indices, types.Array) and indices.ndim == 1 and isinstance(indices.dtype, types.Integer):
        # positions along an axis of N-D (the adjoint of a padded np.diff): numba's one index array
        cut = ":, " * (axis % a.ndim)
        return made(f"def impl(a, indices, axis):\n    return np.ascontiguousarray(a[{cut}indices])\n")
    if not isinstance(indices, types.Integer):
        return None
    axis %= a.ndim  # one index along an axis of N-D (the adjoint of np.stack): a new array, as np.take's
    if axis == 0:
        return lambda a, indices, axis: a[indices].copy()
    if axis == a.ndim - 1:
        return lambda a, indices, axis: a[..., indices].copy()
    if axis == 1:
        return lambda a, indices, axis: a[:, indices].copy()
    return None


def argsort_stable(x):
    return np.argsort(x, kind="stable")


@overload(argsort_stable)
def _argsort_stable(x):
    if not _vector(x):
        return None
    return lambda x: np.argsort(x, kind="mergesort")


def polyval_of(p, x):
    return np.polyval(p, x)


@overload(polyval_of)
def _polyval_of(p, x):
    if not _vector(p):
        return None
    if isinstance(x, (types.Float, types.Integer)):
        def number(p, x):
            out = 0.0
            for c in p:
                out = out * x + c
            return out
        return number
    if not isinstance(x, types.Array):
        return None

    def each(p, x):
        out = np.zeros(x.shape)
        for c in p:
            out = out * x + c
        return out
    return each


def linspace_open(start, stop, num):
    return np.linspace(start, stop, num, endpoint=False)


@overload(linspace_open)
def _linspace_open(start, stop, num):
    return lambda start, stop, num: start + (stop - start) * (np.arange(num) / num)


def singular_values(x):
    return np.linalg.svd(x, compute_uv=False)


@overload(singular_values)
def _singular_values(x):
    if not (isinstance(x, types.Array) and x.ndim == 2):
        return None
    return lambda x: np.linalg.svd(x, False)[1]


def clip_number(x, lo, hi):
    return np.clip(x, lo, hi)


def _bound(t):
    return isinstance(t, (types.Float, types.Integer, types.NoneType, types.Omitted)) or t is None


@overload(clip_number)
def _clip_number(x, lo, hi):
    given = all(t is not None and not isinstance(t, (types.NoneType, types.Omitted)) for t in (lo, hi))
    if isinstance(x, types.Array) and given and (isinstance(lo, types.Array) or isinstance(hi, types.Array)):
        # numba's np.clip gives x's shape where array bounds broadcast x wider (x[:, None] against
        # a row of bounds): NumPy's own definition of clip, which broadcasts
        return lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi)
    if isinstance(x, types.Array):
        return lambda x, lo, hi: np.clip(x, lo, hi)  # numba's
    if not (isinstance(x, (types.Float, types.Integer)) and _bound(lo) and _bound(hi)):
        return None
    low = not isinstance(lo, (types.NoneType, types.Omitted)) and lo is not None
    high = not isinstance(hi, (types.NoneType, types.Omitted)) and hi is not None

    def impl(x, lo, hi):  # NumPy's order: the lower bound first, then the upper one wins; NaN stays
        out = float(x)
        if low and out < lo:
            out = float(lo)
        if high and out > hi:
            out = float(hi)
        return out
    return impl


def eigh_from(x, lower):
    return np.linalg.eigh(x, "L" if lower else "U")


def eigvalsh_from(x, lower):
    return np.linalg.eigvalsh(x, "L" if lower else "U")


def _triangle(x, lower):
    return np.tril(x) + np.tril(x, -1).T if lower else np.triu(x) + np.triu(x, 1).T


@overload(_triangle)
def _triangle_impl(x, lower):
    return lambda x, lower: np.tril(x) + np.tril(x, -1).T if lower else np.triu(x) + np.triu(x, 1).T


@overload(eigh_from)
def _eigh_from(x, lower):
    if not (isinstance(x, types.Array) and x.ndim == 2):
        return None
    return lambda x, lower: np.linalg.eigh(np.ascontiguousarray(_triangle(x, lower)))


@overload(eigvalsh_from)
def _eigvalsh_from(x, lower):
    if not (isinstance(x, types.Array) and x.ndim == 2):
        return None
    return lambda x, lower: np.linalg.eigvalsh(np.ascontiguousarray(_triangle(x, lower)))


HELPERS = ("eigh_from", "eigvalsh_from", "clip_number", "gradient_values", "diff_padded", "diff_padded_axis",
           "take_along_line", "argsort_stable", "polyval_of", "linspace_open", "singular_values")
