"""Whether a function given float32 arguments computes every differentiated value in float32.

A variant compiled for float32 arguments writes its derivative's fills (``np.zeros(shape)``,
the seed ``np.full(shape, 1.0)``) as float32 (backend/single.py), so that adjoints keep the
dtype of their values.  That is right only while the values are float32: a float64 array made
inside the function (``np.linspace``, ``np.zeros(n)``, a module-level array, ``x.astype(float)``),
an integer array meeting a float32 one, or a NumPy float64 number (``np.exp(2.0)``) makes the
values it meets float64 by NumPy's promotion rules, and a float32 adjoint of a float64 value
rounds it to float32 (a relative error of 1e-7 in a gradient of float64 values).

`stays_single` follows NumPy's promotion (NEP 50: a Python number has no dtype of its own)
through the IR with a small lattice per value, and answers False wherever a value a derivative
may reach could be wider than float32, or is of a kind it does not know: the fills are then
left float64, and the gradient is rounded to its argument's dtype once, at the end.
"""

from __future__ import annotations

import ast

import numpy as np

from .nodes import Branch, Const, Function, Global, Loop, Operand, UserCall, Var

#: a value's dtype class: a Python int (or bool) / a Python float (weak: they take the dtype
#: of the arrays they meet), NumPy bools, NumPy integers, float32, wider (float64: NumPy's
#: promotion says so), and not known (a rule whose dtypes are not listed here, a helper's result)
WINT, WFLOAT, BOOL, INT, F32, WIDE, UNKNOWN = "wint", "wfloat", "bool", "int", "f32", "wide", "unknown"
NEUTRAL = "neutral"  # not a number: a string (einsum's subscripts), None, a slice, a dtype

_OPERATORS = frozenset({"operator.add", "operator.sub", "operator.mul", "operator.mod", "operator.neg",
                        "operator.pos", "operator.pow", "operator.matmul", "operator.truediv"})
#: rules whose value has the dtype of their first operand, an array (the others index it, shape it
#: or are written into it: ``x[idx]``, ``np.reshape(x, shape)``, ``x[i] = v``, ``np.pad(x, 1)``)
_FIRST = frozenset({
    "getitem", "setitem", "copy", "ndarray.T", "numpy.transpose", "numpy.reshape", "numpy.ravel", "numpy.squeeze",
    "numpy.expand_dims", "numpy.flip", "numpy.fliplr", "numpy.flipud", "numpy.roll", "numpy.moveaxis",
    "numpy.swapaxes", "numpy.rollaxis", "numpy.rot90", "numpy.tile", "numpy.repeat", "numpy.split",
    "numpy.array_split", "numpy.hsplit", "numpy.vsplit", "numpy.dsplit", "numpy.diag", "numpy.diagonal",
    "numpy.triu", "numpy.tril", "numpy.pad", "numpy.take", "numpy.take_along_axis", "numpy.sort", "numpy.delete",
    "numpy.insert", "numpy.unique", "numpy.atleast_1d", "numpy.atleast_2d", "numpy.atleast_3d", "numpy.copy",
    "numpy.broadcast_to", "numpy.partition", "numpy.fft.irfft", "numpy.fft.hfft",
    "srcdiff.rules.list_helpers.list_rows", "srcdiff.rules.runtime.stop_gradient", "abs",
})
#: rules whose value has the promoted dtype of their operands (NumPy float32 in, float32 out)
_PROMOTING = frozenset({
    "list", "list.append", "sum(list)", "stack(list)", "max", "min", "sum", "numpy.concatenate", "numpy.stack",
    "numpy.hstack", "numpy.vstack", "numpy.dstack", "numpy.column_stack", "numpy.row_stack", "numpy.append",
    "numpy.sum", "numpy.prod", "numpy.max", "numpy.min", "numpy.amax", "numpy.amin", "numpy.cumsum",
    "numpy.cumprod", "numpy.ptp", "numpy.nansum", "numpy.diff", "numpy.ediff1d", "numpy.trace",
    "numpy.maximum.accumulate", "numpy.minimum.accumulate", "numpy.matmul", "numpy.dot", "numpy.inner",
    "numpy.outer", "numpy.kron", "numpy.cross", "numpy.tensordot", "numpy.einsum", "numpy.where",
    "numpy.polyval",
})
#: rules of floating results: float32 operands give float32, integer ones float64
_FLOATING = frozenset({
    "numpy.mean", "numpy.std", "numpy.var", "numpy.median", "numpy.nanmean", "numpy.nanmedian",
    "numpy.linalg.norm", "numpy.linalg.inv", "numpy.linalg.solve", "numpy.linalg.det", "numpy.linalg.slogdet",
    "numpy.linalg.cholesky", "numpy.linalg.pinv", "numpy.linalg.eigh", "numpy.linalg.eigvalsh",
    "numpy.linalg.matrix_power", "numpy.convolve", "numpy.correlate", "numpy.gradient", "numpy.trapezoid",
    "numpy.logaddexp.reduce", "numpy.percentile", "numpy.quantile", "numpy.nanpercentile", "numpy.nanquantile",
    "numpy.average", "numpy.linalg.eig", "numpy.linalg.eigvals", "numpy.linalg.svd", "numpy.linalg.qr",
    "numpy.linalg.lstsq",
})
#: NumPy functions of no floating operand that make float64 arrays unless told a dtype
_MADE_WIDE = frozenset({"numpy.zeros", "numpy.ones", "numpy.empty", "numpy.eye", "numpy.identity",
                        "numpy.linspace", "numpy.geomspace"})
_LIKE = frozenset({"numpy.zeros_like", "numpy.ones_like", "numpy.empty_like", "numpy.full_like"})
_INDICES = frozenset({"numpy.argmax", "numpy.argmin", "numpy.argsort", "numpy.argpartition", "numpy.shape",
                      "numpy.size", "numpy.ndim"})
#: NumPy functions of one array, of its dtype (with no gradient: lowering marks them nograd)
_ROUNDING = frozenset({"numpy.sign", "numpy.floor", "numpy.ceil", "numpy.round", "numpy.around", "numpy.rint",
                       "numpy.trunc", "numpy.fix"})
_RANK = {WINT: 0, WFLOAT: 1, BOOL: 2, INT: 3, F32: 4, UNKNOWN: 5, WIDE: 6}


def promote(classes) -> str:
    """The class of a value NumPy computes from values of `classes` (NEP 50)."""
    found = set(classes) - {NEUTRAL}
    if not found:
        return UNKNOWN
    if WIDE in found or F32 in found and INT in found:
        return WIDE
    if UNKNOWN in found:
        return UNKNOWN
    if F32 in found:
        return F32
    if INT in found or BOOL in found:
        if WFLOAT in found:
            return WIDE  # an integer or bool array times a Python float: float64
        return INT if INT in found or WINT in found else BOOL
    return WFLOAT if WFLOAT in found else WINT


def of_value(value) -> str:
    """The class of a Python or NumPy value."""
    if value is None or value is Ellipsis or isinstance(value, (str, slice, type, np.dtype)):
        return NEUTRAL
    if isinstance(value, (bool, int)):
        return WINT
    if isinstance(value, float):
        return WFLOAT
    dtype = getattr(value, "dtype", None)
    if isinstance(value, (np.ndarray, np.generic)) and dtype is not None:
        return of_dtype(dtype)
    if isinstance(value, (list, tuple)):
        return promote(of_value(v) for v in value) if value else WINT
    return UNKNOWN


def of_dtype(dtype) -> str:
    try:
        dtype = np.dtype(dtype)
    except TypeError:
        return UNKNOWN
    if dtype.kind == "b":
        return BOOL
    if dtype.kind in "iu":
        return INT
    if dtype.kind == "f" and dtype.itemsize <= 4:
        return F32
    return WIDE


def of_signature(sig) -> str:
    """The class of an argument of signature `sig` (ir/shapes.py `signature`)."""
    if isinstance(sig, tuple):
        return {"b": BOOL, "i": INT, "u": INT}.get(sig[-1], F32 if sig[-1] in ("f4", "f2") else WIDE)
    if sig in (int, bool):
        return WINT
    if sig is float:
        return WFLOAT
    if isinstance(sig, type) and issubclass(sig, np.generic):
        return of_dtype(sig)
    return UNKNOWN


def stays_single(function: Function, params: dict[str, str], resolve, proved: bool = False) -> bool:
    """Whether every value `function` computes by a differentiable rule is float32 (or a Python
    number) given its parameters' classes `params` (name -> class); `resolve(name)` is the
    value a global name holds.  False where anything is wider or not known; with `proved`,
    only where something is known to be wider (a jvp's tangent keeps a float32 value's dtype
    where the rules' dtypes are not known, as it did)."""
    return _none_of(function, params, resolve, {WIDE} if proved else {WIDE, UNKNOWN})


def makes_single(function: Function, params: dict[str, str], resolve) -> bool:
    """Whether `function`, given parameters of the classes `params`, computes a differentiable
    value known to be float32 (``np.float32(x)``, ``x.astype(np.float32)``, a float32 global):
    the adjoints that flow through it are float32, and a gradient of a float64 argument would
    come back float32, rounded, unless it is converted back at the end."""
    return not _none_of(function, params, resolve, {F32})


def _none_of(function: Function, params: dict[str, str], resolve, failing: set) -> bool:
    """Whether no value `function` computes by a differentiable rule has a class in `failing`
    (and its loops' classes settle)."""
    known: dict[str, str] = dict(params)

    def of(operand: Operand) -> str:
        if isinstance(operand, Var):
            return known.get(operand.name, UNKNOWN)
        if isinstance(operand, Const):
            return of_value(operand.value)
        if isinstance(operand, Global):
            return of_value(resolve(operand.name))
        return UNKNOWN

    def block(b) -> bool:
        for item in b.nodes:
            if isinstance(item, Branch):  # a value either side assigns: either side's class
                if not block(item.body):
                    return False
                sides = {m.out.name: [known.get(m.out.name)] for m in item.merges}
                if not block(item.orelse):
                    return False
                for m in item.merges:
                    found = sides[m.out.name] + [known.get(m.out.name)] + [
                        of(v) for v in (m.body, m.orelse) if not isinstance(v, Var) or v.name in known]
                    known[m.out.name] = promote(c for c in found if c is not None)
            elif isinstance(item, Loop):
                if not loop(item):
                    return False
            else:
                found = UNKNOWN if isinstance(item, UserCall) else _of_node(item, [of(v) for v in item.inputs])
                if found in failing and not item.rule.nograd:
                    return False
                known[item.out.name] = found
        return True

    def loop(item: Loop) -> bool:
        if item.target is not None:
            known[item.target.name] = WINT
        for c in item.carried:
            known[c.var.name] = of(c.init)
        for _ in range(len(_RANK) * (len(item.carried) + 1)):  # a class only widens: this settles
            if not block(item.body):
                return False
            changed = False
            for c in item.carried:
                joined = promote([known[c.var.name], of(c.final)])
                if joined != known[c.var.name]:
                    known[c.var.name], changed = joined, True
            if not changed:
                return True
        return False

    return block(function.body)


def _of_node(node, classes: list[str]) -> str:
    name = (getattr(node.rule, "name", None) or "").split(" (")[0]  # ("numpy.reshape (shape computed when run)")
    if name in _FIRST:
        return classes[0] if classes else UNKNOWN
    if name == "list" and not classes:
        return WINT  # an empty list: its items' classes join it as they are appended
    if getattr(node.rule, "float_result", False) or name in ("float", "ndarray.item", "ndarray.tolist"):
        return WFLOAT
    if name == "compare" or name in ("numpy.isfinite", "numpy.isnan", "numpy.isinf", "numpy.logical_and",
                                     "numpy.logical_or", "numpy.logical_not", "numpy.equal", "numpy.not_equal",
                                     "numpy.less", "numpy.less_equal", "numpy.greater", "numpy.greater_equal"):
        return BOOL
    if name == "nograd":
        return _of_nograd(node.expr)
    if name in _INDICES:
        return WINT if name in ("numpy.shape", "numpy.size", "numpy.ndim") else INT
    told = _told_dtype(node.expr)
    if name in _MADE_WIDE or name == "numpy.full":
        if told is not None:
            return told
        return promote(classes[1:]) if name == "numpy.full" and classes[1:] and classes[-1] in (F32, INT, BOOL) \
            else WIDE
    if name in _LIKE or name in ("numpy.array", "numpy.asarray", "numpy.asanyarray", "numpy.ascontiguousarray"):
        if told is not None:
            return told
        made = promote(classes[:1] + classes[1:] if name == "numpy.full_like" else classes[:1])
        return WIDE if made == WFLOAT else INT if made == WINT else made
    if name in ("ndarray.astype", "numpy.astype", "numpy.float32", "numpy.float64"):
        return F32 if name == "numpy.float32" else WIDE if name == "numpy.float64" else (told or WIDE)
    if name == "numpy.arange":
        return INT if all(c in (WINT, INT) for c in classes) and told is None else (told or WIDE)
    if name in _OPERATORS:
        made = promote(classes)
        return (WFLOAT if made == WINT else WIDE) if name == "operator.truediv" and made in (WINT, INT, BOOL) \
            else made
    if name in _ROUNDING or getattr(node.rule, "elementwise", False) and name.startswith("numpy."):
        made = promote(classes)
        return WIDE if made in (WINT, WFLOAT, INT, BOOL) else made  # NumPy numbers, float64 for integers
    if name in _PROMOTING or getattr(node.rule, "elementwise", False):  # (operators, srcdiff's own)
        return promote(classes)
    if name in _FLOATING:
        made = promote(classes)
        return made if made in (F32, UNKNOWN) else WIDE
    return UNKNOWN


def _of_nograd(expr: ast.expr) -> str:
    """A value with no gradient, from how it was written: sizes and shapes are Python ints, a
    list of numbers holds Python numbers; anything else is not known."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id in ("len", "int", "range"):
        return WINT
    if isinstance(expr, (ast.Compare, ast.BoolOp)) or isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
        return BOOL
    if isinstance(expr, ast.Attribute) and expr.attr in ("shape", "size", "ndim"):
        return WINT
    if isinstance(expr, (ast.List, ast.Tuple)):
        return promote(_of_nograd(e) for e in expr.elts) if expr.elts else WINT
    if isinstance(expr, ast.Constant):
        return of_value(expr.value)
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.operand, ast.Constant):
        return of_value(expr.operand.value)
    return UNKNOWN


def _told_dtype(expr: ast.expr) -> str | None:
    """The class of a dtype written in a call (``dtype=np.float32``, ``.astype(np.float32)``),
    WIDE where one is written that is not plainly float32, None where none is."""
    if not isinstance(expr, ast.Call):
        return None
    written = [k.value for k in expr.keywords if k.arg == "dtype"]
    if not written and isinstance(expr.func, ast.Attribute) and expr.func.attr == "astype" and expr.args:
        written = expr.args[:1]
    if not written:
        return None
    text = ast.unparse(written[0]).rpartition(".")[2].strip("'\"")
    if text in ("float32", "single", "f4"):
        return F32
    if text in ("float16", "half", "f2"):
        return F32
    return WIDE
