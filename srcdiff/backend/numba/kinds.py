"""What the fusion pass (fusion.py) knows of each name of a numba module's function: a number
or an array, its dtype as numba computes it, and, where the code tells, its shape.

numba types an array expression like the scalar expression of one element: a float32 array
times a float (``x * 2.0``) is a float64 array, times an integer literal (``x * 2``) stays
float32.  `Kind.dtype` follows those rules; where they are not clear it is None, and the
fusion pass does not write an array of that value.

A shape is a tuple of symbols, one per axis: ``(token, delta)`` stands for the length of the
axis `token` (a parameter's axis, or a value made where the code does not tell) plus `delta`
(``x[1:]`` is one shorter than ``x``).  Two arrays with the same symbols have the same shape
whatever the arguments; other shapes are compared when the code runs.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass, replace

SCALAR = -1  # `Kind.ndim` of a number
LITERAL = "lit"  # the dtype of an integer written in the code: it does not widen an array

#: NumPy functions of one or two numbers that numba evaluates on numbers, element by element
UNARY = {"sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "sinh", "cosh", "arcsin", "arccos", "arctan",
         "arcsinh", "arccosh", "arctanh", "abs", "absolute", "log1p", "expm1", "exp2", "log2", "log10",
         "negative", "sign", "square", "fabs", "floor", "ceil"}
BINARY = {"maximum", "minimum", "arctan2", "hypot", "power", "logaddexp", "fmax", "fmin", "copysign"}
ALLOCATIONS = {"zeros", "empty", "ones", "zeros_like", "empty_like", "ones_like"}
REDUCTIONS = {"sum", "mean"}


@dataclass(frozen=True)
class Kind:
    ndim: int  # SCALAR for a number
    dtype: str | None  # "f8", "f4", "b", "i8", LITERAL; None: not clear
    dims: tuple | None = None  # one (token, delta) per axis; None: not known

    @property
    def array(self) -> bool:
        return self.ndim > 0


@dataclass(frozen=True)
class Items:
    """A list the code appends tuples to (a loop's stack): what one item holds."""

    item: tuple | None  # a tuple of Kinds; None: nothing appended yet


@dataclass(frozen=True)
class Numbers:
    """A list display of float64 numbers (``t9 = [t5, t8]``): what ``np.array`` of it makes."""


NUMBER = {"f8": Kind(SCALAR, "f8"), "i8": Kind(SCALAR, "i8"), "b": Kind(SCALAR, "b")}
_tokens = itertools.count()


def fresh(ndim: int) -> tuple:
    """Symbols for a shape nothing tells (each call: new tokens)."""
    return tuple((f"made{next(_tokens)}", 0) for _ in range(ndim))


def of_signature(name: str, key) -> Kind | None:
    """The kind of a parameter from its part of the variant's key (ir/shapes.py `signature`)."""
    if key is float:
        return NUMBER["f8"]
    if key is int:
        return NUMBER["i8"]
    if key is bool:
        return NUMBER["b"]
    if isinstance(key, tuple) and len(key) == 3 and isinstance(key[0], int) and key[0] > 0:
        ndim, ones, kind = key
        dtype = {"f": "f8", "f4": "f4", "b": "b"}.get(kind)
        return Kind(ndim, dtype, tuple(("one", 1) if one else (f"{name}.{axis}", 0) for axis, one in enumerate(ones)))
    return None


def promote(a: str | None, b: str | None, a_array: bool, b_array: bool) -> str | None:
    """numba's dtype of an operation on two values of dtypes `a` and `b`."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    pair = {a, b}
    if "f8" in pair:
        return "f8"
    if pair == {"f4", LITERAL} or pair == {"f4", "b"}:
        return "f4"
    if pair <= {LITERAL, "i8", "b"}:
        return "i8"
    if pair == {"f4", "i8"}:
        return "f8" if not (a_array and b_array) else None
    return None


def combine(a, b) -> Kind | None:
    """The kind of an elementwise operation of two operands (broadcast as NumPy does)."""
    if not isinstance(a, Kind) or not isinstance(b, Kind):
        return None
    dtype = promote(a.dtype, b.dtype, a.array, b.array)
    if not a.array and not b.array:
        return Kind(SCALAR, dtype)
    if a.array and b.array:
        if a.ndim != b.ndim:
            return Kind(max(a.ndim, b.ndim), dtype)
        return Kind(a.ndim, dtype, a.dims if a.dims == b.dims else None)
    arr = a if a.array else b
    return Kind(arr.ndim, dtype, arr.dims)


def numpy_name(node: ast.AST) -> str | None:
    """``f`` for ``np.f``."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("np", "numpy"):
        return node.attr
    return None


def _dtype_keyword(call: ast.Call, default: str) -> str | None:
    for keyword in call.keywords:
        if keyword.arg == "dtype":
            name = numpy_name(keyword.value) or (keyword.value.id if isinstance(keyword.value, ast.Name) else "")
            return {"float64": "f8", "float": "f8", "float32": "f4", "bool_": "b"}.get(name)
    return default


def _shape_source(node: ast.AST, env: dict) -> Kind | None:
    """The array whose shape `node` (``x.shape``) is; of a length or a tuple of lengths
    (``np.zeros(n)``, ``np.full((1,), 1.0)``), an array of that many axes whose lengths'
    relation to other arrays' is not known."""
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        found = of(node.value, env)
        return found if isinstance(found, Kind) and found.array else None
    lengths = of(node, env)
    lengths = lengths if isinstance(lengths, tuple) else (lengths,)
    if lengths and all(isinstance(k, Kind) and k.ndim == SCALAR and k.dtype in ("i8", LITERAL) for k in lengths):
        return Kind(len(lengths), None)
    return None


def of(node: ast.AST, env: dict):
    """The kind of the value of expression `node`: a Kind, a tuple of them, or None."""
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            return NUMBER["b"]
        if isinstance(node.value, int):
            return Kind(SCALAR, LITERAL)
        return NUMBER["f8"] if isinstance(node.value, float) else None
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return of(node.operand, env)
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.MatMult):
            return _matmul(of(node.left, env), of(node.right, env))
        if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.Mod, ast.FloorDiv)):
            made = combine(of(node.left, env), of(node.right, env))
            if made is not None and isinstance(node.op, ast.Div) and made.dtype in ("i8", LITERAL, "b"):
                made = replace(made, dtype="f8")
            return made
        return None
    if isinstance(node, ast.Compare) and len(node.ops) == 1:
        made = combine(of(node.left, env), of(node.comparators[0], env))
        return None if made is None else replace(made, dtype="b")
    if isinstance(node, ast.Tuple):
        return tuple(of(e, env) for e in node.elts)
    if isinstance(node, ast.List):  # (numbers of an integer literal and floats are floats, as numba makes them)
        told = [of(e, env) for e in node.elts]
        floats = [k for k in told if k == NUMBER["f8"]]
        return Numbers() if floats and all(k in (NUMBER["f8"], Kind(SCALAR, LITERAL)) for k in told) else None
    if isinstance(node, ast.Subscript):
        return _subscript(node, env)
    if isinstance(node, ast.Attribute):
        base = of(node.value, env)
        if isinstance(base, Kind) and base.array:
            if node.attr == "size":
                return NUMBER["i8"]
            if node.attr == "shape":
                return (NUMBER["i8"],) * base.ndim
            if node.attr == "T" and base.ndim == 2:
                return Kind(2, base.dtype, base.dims[::-1] if base.dims else None)
        return None
    if isinstance(node, ast.Call):
        return _call(node, env)
    return None


def _subscript(node: ast.Subscript, env: dict):
    if isinstance(node.value, ast.Attribute) and node.value.attr == "shape" and _shape_source(node.value, env):
        return NUMBER["i8"]
    base = of(node.value, env)
    if isinstance(base, tuple) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
        return base[node.slice.value] if -len(base) <= node.slice.value < len(base) else None
    if isinstance(base, Kind) and base.ndim == 1 and _integer(node.slice, None) is not None:
        return Kind(SCALAR, base.dtype)  # an element: a number of the array's dtype
    index = of(node.slice, env) if not isinstance(node.slice, (ast.Slice, ast.Tuple)) else None  # (``x[k % 3]``)
    counter = isinstance(index, Kind) and index.ndim == SCALAR and index.dtype == "i8"  # (a loop's counter)
    if isinstance(base, Kind) and base.ndim == 1 and counter:
        return Kind(SCALAR, base.dtype)  # ``x[j]``
    if isinstance(base, tuple) and base and counter and all(k == base[0] and isinstance(k, Kind) for k in base):
        return base[0]  # ``(-0.2, 0.0, 0.2)[j]``: numba's tuple of one type
    if isinstance(base, Items) and base.item is not None and (_integer(node.slice, None) is not None or (
            isinstance(index, Kind) and index.ndim == SCALAR and index.dtype in ("i8", LITERAL))):
        return base.item  # an item of a list of tuples (a table of numbers the code reads)
    if isinstance(base, Kind) and base.ndim > 1 and (_integer(node.slice, None) is not None or (
            isinstance(index, Kind) and index.ndim == SCALAR and index.dtype == "i8")):
        return Kind(base.ndim - 1, base.dtype, base.dims[1:] if base.dims else None)  # a row
    if isinstance(base, Kind) and base.array and isinstance(node.slice, ast.Tuple):
        return _new_axes(base, node.slice.elts) or _taken(base, node.slice.elts, env)
    offsets = slice_offsets(node.slice)
    if isinstance(base, Kind) and base.ndim == 1 and offsets is not None:
        start, stop = offsets
        dims = None if base.dims is None else ((base.dims[0][0], base.dims[0][1] - start + stop),)
        return Kind(1, base.dtype, dims)
    return None


def _new_axes(base: Kind, items: list) -> Kind | None:
    """``x[:, None, :]``: every axis whole, new axes of length one between."""
    dims, axes = [], iter(base.dims or ((None, 0),) * base.ndim)
    for item in items:
        if isinstance(item, ast.Constant) and item.value is None:
            dims.append(("one", 1))
        elif isinstance(item, ast.Slice) and item.lower is None and item.upper is None and item.step is None:
            dims.append(next(axes, None))
        else:
            return None
    if None in dims or len(dims) - sum(d == ("one", 1) for d in dims) != base.ndim:
        return None
    known = base.dims is not None
    return Kind(len(dims), base.dtype, tuple(dims) if known else None)


def _taken(base: Kind, items: list, env: dict) -> Kind | None:
    """``Z[:, t]``: whole axes and integer positions, one item per axis; the axes left (their
    lengths' relation to other arrays' not recorded: a column is no row)."""
    whole = [isinstance(i, ast.Slice) and i.lower is None and i.upper is None and i.step is None for i in items]
    integer = [_integer(i, None) is not None or isinstance(i, ast.Name) and of(i, env) == NUMBER["i8"]
               for i in items]
    if len(items) != base.ndim or not all(w or i for w, i in zip(whole, integer)) or not any(integer):
        return None
    left = sum(whole)
    return Kind(left, base.dtype) if left else Kind(SCALAR, base.dtype)


def slice_offsets(node: ast.AST) -> tuple[int, int] | None:
    """(start, stop) of a slice ``a:b`` with a constant start >= 0 (or none) and a constant
    stop < 0 (or none): the slice is ``x[start + i]`` for i below ``len(x) - start + stop``."""
    if not isinstance(node, ast.Slice) or node.step is not None:
        return None
    start, stop = _integer(node.lower, 0), _integer(node.upper, 0)
    if start is None or stop is None or start < 0 or stop > 0 or (node.upper is not None and stop == 0):
        return None
    return start, stop


def _integer(node, default: int) -> int | None:
    if node is None:
        return default
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        found = _integer(node.operand, None)
        return None if found is None else -found
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def is_matmul(node: ast.AST) -> bool:
    """``a @ b``, or the numba module's spelling of it, ``matmul_stacks(a, b)``."""
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult) or \
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "matmul_stacks" \
        and len(node.args) == 2 and not node.keywords


def _matmul(a, b) -> Kind | None:
    if not (isinstance(a, Kind) and isinstance(b, Kind) and a.array and b.array) or max(a.ndim, b.ndim) > 2:
        return None
    dtype = promote(a.dtype, b.dtype, True, True)
    if a.ndim == 1 and b.ndim == 1:
        return Kind(SCALAR, dtype)
    dims = []
    if a.ndim == 2:
        dims.append(a.dims[0] if a.dims else fresh(1)[0])
    if b.ndim == 2:
        dims.append(b.dims[1] if b.dims else fresh(1)[0])
    return Kind(len(dims), dtype, tuple(dims))


def _call(node: ast.Call, env: dict):
    name = numpy_name(node.func)
    args = node.args
    if is_matmul(node):  # ``@`` as the numba module spells it (missing.matmul_stacks)
        return _matmul(of(args[0], env), of(args[1], env))
    if name in UNARY and len(args) == 1 and not node.keywords:
        made = of(args[0], env)
        if isinstance(made, Kind) and made.dtype in ("i8", LITERAL, "b") and name not in ("abs", "absolute"):
            made = replace(made, dtype="f8")
        return made if isinstance(made, Kind) else None
    if name in BINARY and len(args) == 2 and not node.keywords:
        return combine(of(args[0], env), of(args[1], env))
    if name == "where" and len(args) == 3:
        made = combine(of(args[1], env), of(args[2], env))
        cond = of(args[0], env)
        return None if made is None or not isinstance(cond, Kind) else combine(made, replace(cond, dtype=made.dtype))
    if name in ALLOCATIONS and len(args) == 1:
        if name.endswith("_like"):
            like = of(args[0], env)
            if isinstance(like, Kind) and like.array:
                return Kind(like.ndim, _dtype_keyword(node, like.dtype), like.dims)
            return None
        like = _shape_source(args[0], env)
        return Kind(like.ndim, _dtype_keyword(node, "f8"), like.dims) if like else None
    if name in ("arange", "linspace") and 1 <= len(args) <= 3 and not node.keywords:  # (a new vector)
        told = [of(a, env) for a in args]
        if all(isinstance(k, Kind) and k.ndim == SCALAR and k.dtype in ("f8", "i8", LITERAL) for k in told):
            return Kind(1, "f8" if name == "linspace" or any(k.dtype == "f8" for k in told) else "i8")
    if name in ("array", "asarray") and len(args) == 1 and not node.keywords \
            and isinstance(of(args[0], env), Numbers):
        return Kind(1, "f8")
    full = name == "full" or (isinstance(node.func, ast.Name) and node.func.id == "full")
    if full and len(args) == 2:
        like, value = _shape_source(args[0], env), of(args[1], env)
        if like and isinstance(value, Kind) and not value.array:
            return Kind(like.ndim, _dtype_keyword(node, "f8" if value.dtype in ("f8", LITERAL, "i8") else None),
                        like.dims)
        return None
    if isinstance(node.func, ast.Name) and node.func.id in ("reduce_sum", "reduce_mean") and len(args) == 3 \
            and isinstance(args[1], ast.Constant) and type(args[1].value) is int \
            and isinstance(args[2], ast.Constant) and isinstance(args[2].value, bool):
        return _reduced(of(args[0], env), args[1].value, args[2].value)
    operand = reduction_operand(node)
    if operand is not None:
        made = of(operand, env)
        return NUMBER["f8"] if isinstance(made, Kind) and made.array and made.dtype == "f8" else None
    if isinstance(node.func, ast.Name) and node.func.id == "len" and len(args) == 1:
        return NUMBER["i8"]
    if isinstance(node.func, ast.Attribute) and node.func.attr == "pop" and not args \
            and isinstance(node.func.value, ast.Name):
        items = env.get(node.func.value.id)
        if isinstance(items, Items) and items.item is not None:
            return tuple(k if not isinstance(k, Kind) or not k.array else replace(k, dims=fresh(k.ndim))
                         for k in items.item)
    if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) \
            and node.func.value.id == "math" and args:
        return NUMBER["f8"]
    return None


def _reduced(kind, axis: int, keepdims: bool) -> Kind | None:
    """numba's helper ``reduce_sum(a, axis, keepdims)`` (reductions.py) of an array of `kind`."""
    if not isinstance(kind, Kind) or not kind.array or kind.dtype != "f8" or not -kind.ndim <= axis < kind.ndim:
        return None
    axis %= kind.ndim
    dims = None if kind.dims is None else \
        kind.dims[:axis] + ((("one", 1),) if keepdims else ()) + kind.dims[axis + 1:]
    ndim = kind.ndim - (not keepdims)
    return Kind(ndim, "f8", dims) if ndim else NUMBER["f8"]


def reduction_operand(node: ast.AST) -> ast.AST | None:
    """The operand of ``np.sum(e)``, ``e.sum()``, ``np.mean(e)``, ``e.mean()`` (no axis)."""
    if not isinstance(node, ast.Call) or node.keywords:
        return None
    if numpy_name(node.func) in REDUCTIONS and len(node.args) == 1:
        return node.args[0]
    if isinstance(node.func, ast.Attribute) and node.func.attr in REDUCTIONS and not node.args \
            and numpy_name(node.func) is None:
        return node.func.value
    return None
