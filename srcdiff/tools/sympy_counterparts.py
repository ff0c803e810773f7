"""The table of sympy counterparts: what each rule of srcdiff's table computes on symbols.

`COUNTERPARTS` maps a rule's canonical name (`Rule.name`: ``numpy.sin``, ``math.exp``,
``operator.mul``) to its sympy counterpart; `NOT_SYMBOLIC` lists the rules that have none,
with the reason.  Every rule of the table is in one of the two (a test checks it).  Arrays
of symbols are NumPy object arrays, so NumPy's own functions that only move, copy or add up
values are their own counterparts; the others apply a sympy function element by element.
"""

from __future__ import annotations

import operator

import numpy as np
import sympy as sp

from ..rules import join_helpers, runtime
from .sympy_comparisons import NotSymbolic, Truth, compare_one


def elementwise(func, name: str):
    """`func` (a sympy function of numbers) applied element by element to arrays."""
    def apply(*args):
        if any(isinstance(a, np.ndarray) for a in args):
            return np.frompyfunc(func, len(args), 1)(*args)
        return func(*args)

    apply.__name__ = name
    return apply


def _reduction(func, name: str):
    """A NumPy reduction or product; on object arrays NumPy's own is exact already."""
    def apply(*args, **kwargs):
        if not any(isinstance(a, np.ndarray) for a in args):  # sum/mean of a sympy scalar
            args = tuple(np.asarray(a, dtype=object) for a in args)
        out = func(*args, **kwargs)
        return out[()] if isinstance(out, np.ndarray) and out.ndim == 0 else out

    apply.__name__ = name
    return apply


def _transpose(x):
    return x.T if isinstance(x, np.ndarray) else x


def _extremum(pick, name: str):
    """np.max / np.min over object arrays: sympy's Max/Min folded along the axes."""
    fold = np.frompyfunc(pick, 2, 1)

    def apply(x, axis=None, keepdims=False):
        x = np.asarray(x, dtype=object)
        if axis is None:
            out = fold.reduce(x.reshape(-1), axis=0)
            return np.full((1,) * x.ndim, out, dtype=object) if keepdims else out
        axes = axis if isinstance(axis, tuple) else (axis,)
        for a in sorted({a % x.ndim for a in axes}, reverse=True):  # highest first: indices stay valid
            x = fold.reduce(x, axis=a, keepdims=keepdims)
        return x

    apply.__name__ = name
    return apply


def _std(x, axis=None, keepdims=False, ddof=0):
    return elementwise(sp.sqrt, "sqrt")(_reduction(np.var, "var")(x, axis=axis, keepdims=keepdims, ddof=ddof))


def _norm(x, ord=None, axis=None, keepdims=False):
    if ord not in (None, 2, "fro") or (ord == 2 and np.ndim(x) != 1 and axis is None):
        raise NotSymbolic(f"numpy.linalg.norm with ord={ord!r} has no sympy counterpart here")
    x = np.asarray(x, dtype=object)
    return elementwise(sp.sqrt, "sqrt")(_reduction(np.sum, "sum")(x * x, axis=axis, keepdims=keepdims))


def _matrix(x) -> sp.Matrix:
    if np.ndim(x) != 2:
        raise NotSymbolic("sympy's linear algebra is for 2-D matrices; this one has "
                          f"{np.ndim(x)} dimension(s)")
    return sp.Matrix(np.asarray(x, dtype=object).tolist())


def _array(m: sp.Matrix, shape) -> np.ndarray:
    return np.array(m.tolist(), dtype=object).reshape(shape)


def _inv(x):
    return _array(_matrix(x).inv(), np.shape(x))


def _det(x):
    return _matrix(x).det()


def _slogdet(x):
    d = _matrix(x).det()
    return sp.sign(d), sp.log(sp.Abs(d))


def _solve(a, b):
    column = np.reshape(np.asarray(b, dtype=object), (np.shape(b)[0], -1))
    return _array(_matrix(a).LUsolve(sp.Matrix(column.tolist())), np.shape(b))


def _convert(func):
    """np.asarray(x, dtype=float) and kin: symbols stay symbols (the rule allows float dtypes only)."""
    def apply(x, dtype=None, **kwargs):
        out = func(x, **kwargs)
        numbers = isinstance(out, np.ndarray) and out.dtype.kind in "iub"
        return out.astype(dtype) if dtype is not None and numbers else out

    apply.__name__ = getattr(func, "__name__", "convert")
    return apply


def _never(value):
    """isnan/isinf of a real symbol: False (the derivative is taken where values are finite)."""
    return False


def _always(value):
    return True


def _clip(x, a_min, a_max):
    return sp.Min(sp.Max(x, a_min), a_max) if a_max is not None else sp.Max(x, a_min)


def _comparison(op, name: str):
    def compare_elements(a, b):
        return compare_one(op, a, b)

    return elementwise(compare_elements, name)


def _holding_symbols(func):
    """A NumPy constructor whose float arrays are object arrays of the same values, so that
    symbols can be written into them (``y = np.zeros(3); y[0] = x``, and the scatter-adds
    of generated gradients); other dtypes (``dtype=int``, ``dtype=bool``) are NumPy's own."""
    def apply(*args, **kwargs):
        out = func(*args, **kwargs)
        return out.astype(object) if isinstance(out, np.ndarray) and out.dtype.kind == "f" else out

    apply.__name__ = func.__name__
    return apply


def _uninitialised(func):
    """np.empty / np.empty_like: an object array of None, so reading an element before
    writing it fails loudly (NumPy's own would hold arbitrary floats)."""
    def apply(*args, **kwargs):
        out = func(*args, **kwargs)
        if isinstance(out, np.ndarray) and out.dtype.kind == "f":
            return np.full(out.shape, None, dtype=object)
        return out

    apply.__name__ = func.__name__
    return apply


#: Constructors: float arrays become object arrays of the same values (see `_holding_symbols`).
_CONSTRUCTORS = {
    **{name: _holding_symbols(getattr(np, name)) for name in [
        "zeros", "ones", "full", "eye", "identity", "arange", "linspace",
        "zeros_like", "ones_like", "full_like"]},
    "empty": _uninitialised(np.empty),
    "empty_like": _uninitialised(np.empty_like),
}

def _where_one(condition, x, y):
    if isinstance(condition, Truth):  # a symbolic comparison: both sides, as a Piecewise
        return sp.Piecewise((x, condition.relation), (y, True))
    return x if condition else y


_WHERE = np.frompyfunc(_where_one, 3, 1)


def _where(condition, x, y):
    """np.where on symbols: a symbolic condition selects with a ``Piecewise`` (the adjoints
    of ``np.maximum`` and ``clip`` select rather than multiply by a mask)."""
    out = _WHERE(condition, x, y)
    return out if isinstance(out, np.ndarray) else out


#: NumPy functions that only move, copy or add up values: exact on object arrays.
_NUMPY_OWN = [
    "add", "subtract", "multiply", "divide", "negative", "positive", "power", "matmul",
    "copy", "issubdtype",
    "result_type", "cumsum", "trace", "diag", "inner", "outer", "tensordot", "einsum",
    "reshape", "ravel", "expand_dims", "squeeze", "atleast_1d", "atleast_2d", "atleast_3d",
    "transpose", "swapaxes", "moveaxis", "flip",
    "broadcast_to", "tile", "repeat", "concatenate", "stack", "hstack", "vstack", "split",
]

#: Splits, rolls, padding and joins: NumPy's own, exact on object arrays.
_SHAPES_OWN = ["array_split", "hsplit", "vsplit", "dsplit", "roll", "rot90", "pad", "append", "column_stack",
               "dstack", "row_stack"]

#: Rule name -> sympy counterpart, by the same banners as the rule modules.
COUNTERPARTS = {
    # ---- Python operators: sympy expressions and object arrays implement them exactly ----
    "operator.add":     operator.add,
    "operator.sub":     operator.sub,
    "operator.mul":     operator.mul,
    "operator.truediv": operator.truediv,
    "operator.pow":     operator.pow,
    "operator.neg":     operator.neg,
    "operator.pos":     operator.pos,
    "operator.matmul":  operator.matmul,
    "ndarray.T":        _transpose,
    "ndarray.shape":    lambda a: np.shape(np.asarray(a, dtype=object)),
    "ndarray.ndim":     lambda a: np.ndim(np.asarray(a, dtype=object)),
    "ndarray.size":     lambda a: np.size(np.asarray(a, dtype=object)),
    "ndarray.astype":   lambda x, dtype=None: _convert(np.asarray)(x, dtype),
    "numpy.astype":     lambda x, dtype=None, **_: _convert(np.asarray)(x, dtype),
    # ---- math ----
    "math.sin":   sp.sin,
    "math.cos":   sp.cos,
    "math.tan":   sp.tan,
    "math.exp":   sp.exp,
    "math.log":   sp.log,
    "math.sqrt":  sp.sqrt,
    "math.tanh":  sp.tanh,
    "math.sinh":  sp.sinh,
    "math.cosh":  sp.cosh,
    "math.asin":  sp.asin,
    "math.acos":  sp.acos,
    "math.atan":  sp.atan,
    "math.atan2": sp.atan2,
    "math.hypot": lambda x, y: sp.sqrt(x * x + y * y),
    "math.log1p": lambda x: sp.log(1 + x),
    "math.expm1": lambda x: sp.exp(x) - 1,
    "math.fabs":  sp.Abs,
    "math.asinh": sp.asinh,
    "math.acosh": sp.acosh,
    "math.atanh": sp.atanh,
    "math.log2":  lambda x: sp.log(x) / sp.log(2),
    "math.log10": lambda x: sp.log(x) / sp.log(10),
    "math.erf":   sp.erf,
    "math.erfc":  sp.erfc,
    "math.degrees": lambda x: x * 180 / sp.pi,
    "math.radians": lambda x: x * sp.pi / 180,
    "math.pow":   operator.pow,
    # ---- numpy, elementwise ----
    "numpy.sin":        elementwise(sp.sin, "sin"),
    "numpy.cos":        elementwise(sp.cos, "cos"),
    "numpy.tan":        elementwise(sp.tan, "tan"),
    "numpy.arcsin":     elementwise(sp.asin, "arcsin"),
    "numpy.arccos":     elementwise(sp.acos, "arccos"),
    "numpy.arctan":     elementwise(sp.atan, "arctan"),
    "numpy.arctan2":    elementwise(sp.atan2, "arctan2"),
    "numpy.hypot":      elementwise(lambda x, y: sp.sqrt(x * x + y * y), "hypot"),
    "numpy.sinh":       elementwise(sp.sinh, "sinh"),
    "numpy.cosh":       elementwise(sp.cosh, "cosh"),
    "numpy.tanh":       elementwise(sp.tanh, "tanh"),
    "numpy.arcsinh":    elementwise(sp.asinh, "arcsinh"),
    "numpy.arccosh":    elementwise(sp.acosh, "arccosh"),
    "numpy.arctanh":    elementwise(sp.atanh, "arctanh"),
    "numpy.exp":        elementwise(sp.exp, "exp"),
    "numpy.exp2":       elementwise(lambda x: 2 ** x, "exp2"),
    "numpy.expm1":      elementwise(lambda x: sp.exp(x) - 1, "expm1"),
    "numpy.log":        elementwise(sp.log, "log"),
    "numpy.log2":       elementwise(lambda x: sp.log(x) / sp.log(2), "log2"),
    "numpy.log10":      elementwise(lambda x: sp.log(x) / sp.log(10), "log10"),
    "numpy.log1p":      elementwise(lambda x: sp.log(1 + x), "log1p"),
    "numpy.logaddexp":  elementwise(lambda x, y: sp.log(sp.exp(x) + sp.exp(y)), "logaddexp"),
    "numpy.sqrt":       elementwise(sp.sqrt, "sqrt"),
    "numpy.cbrt":       elementwise(sp.cbrt, "cbrt"),
    "numpy.square":     elementwise(lambda x: x * x, "square"),
    "numpy.reciprocal": elementwise(lambda x: 1 / x, "reciprocal"),
    "numpy.absolute":   elementwise(sp.Abs, "absolute"),
    "numpy.real":       elementwise(sp.re, "real"),
    "numpy.sign":       elementwise(sp.sign, "sign"),
    "numpy.maximum":    elementwise(sp.Max, "maximum"),
    "numpy.minimum":    elementwise(sp.Min, "minimum"),
    "numpy.fmax":       elementwise(sp.Max, "fmax"),
    "numpy.fmin":       elementwise(sp.Min, "fmin"),
    "numpy.clip":       elementwise(_clip, "clip"),
    "numpy.isnan":      elementwise(_never, "isnan"),
    "numpy.isinf":      elementwise(_never, "isinf"),
    "numpy.isfinite":   elementwise(_always, "isfinite"),
    "numpy.greater":       _comparison(operator.gt, "greater"),
    "numpy.greater_equal": _comparison(operator.ge, "greater_equal"),
    "numpy.less":          _comparison(operator.lt, "less"),
    "numpy.less_equal":    _comparison(operator.le, "less_equal"),
    # ---- numpy, reductions and products ----
    "numpy.sum":  _reduction(np.sum, "sum"),
    "numpy.mean": _reduction(np.mean, "mean"),
    "numpy.prod": _reduction(np.prod, "prod"),
    "numpy.var":  _reduction(np.var, "var"),
    "numpy.std":  _std,
    "numpy.dot":  _reduction(np.dot, "dot"),
    "numpy.max":  _extremum(sp.Max, "max"),
    "numpy.min":  _extremum(sp.Min, "min"),
    "numpy.amax": _extremum(sp.Max, "amax"),
    "numpy.amin": _extremum(sp.Min, "amin"),
    # ---- numpy.linalg, through sympy matrices ----
    "numpy.linalg.norm":  _norm,
    "numpy.linalg.inv":   _inv,
    "numpy.linalg.det":   _det,
    "numpy.linalg.slogdet": _slogdet,
    "numpy.linalg.solve": _solve,
    "numpy.asarray":            _convert(np.asarray),
    "numpy.array":              _convert(np.array),
    "numpy.asanyarray":         _convert(np.asanyarray),
    "numpy.ascontiguousarray":  _convert(np.ascontiguousarray),
    "numpy.shape":              lambda a: np.shape(np.asarray(a, dtype=object)),  # sympy numbers have no .shape
    "numpy.ndim":               lambda a: np.ndim(np.asarray(a, dtype=object)),
    "numpy.size":               lambda a, axis=None: np.size(np.asarray(a, dtype=object), axis),
    # ---- numpy's own: shapes, copies, linear maps; constructors that hold symbols ----
    **{f"numpy.{name}": getattr(np, name) for name in _NUMPY_OWN},
    "numpy.where": _where,
    **{f"numpy.{name}": func for name, func in _CONSTRUCTORS.items()},
    # ---- srcdiff's own helpers: sums, selections and copies, exact on object arrays ----
    **{f"srcdiff.rules.runtime.{name}": getattr(runtime, name)
       for name in ("unbroadcast", "select", "select_whole", "copy_array", "zeros_like", "index_add",
                    "index_read")},
    "builtins.slice": slice,
    # ---- splits, rolls, padding and joins of lists (rules/numpy_split.py, numpy_pad.py, numpy_joins.py) ----
    **{f"numpy.{name}": getattr(np, name) for name in _SHAPES_OWN if hasattr(np, name)},
    "srcdiff.rules.join_helpers.column_join": join_helpers.column_join,
}

#: Rule name -> why it has no sympy counterpart (such functions are reported "not symbolic").
NOT_SYMBOLIC: dict[str, str] = {
    "srcdiff.rules.kinks.kink": "its derivative is NaN at a kink by definition (no second derivative there): "
                                  "sympy has no counterpart",
    "srcdiff.rules.kinks.kink_nan": "NaN or 0 by definition (the derivative at a kink): sympy has no counterpart",
    "srcdiff.rules.runtime.stop_gradient": "its derivative is zero by definition, the identity's is one: "
                                           "sympy has no counterpart",
    "numpy.floor": "sympy leaves the derivative of floor unevaluated",
    "numpy.ceil": "sympy leaves the derivative of ceiling unevaluated",
    "numpy.rint": "sympy has no round-half-to-even",
    "numpy.equal": "equality of symbols is not a number",
    "numpy.not_equal": "equality of symbols is not a number",
    "numpy.logical_and": "boolean logic on symbolic comparisons",
    "numpy.logical_or": "boolean logic on symbolic comparisons",
    "numpy.logical_not": "boolean logic on symbolic comparisons",
    "ndarray.dtype": "symbols have no floating-point dtype",
    "numpy.argmax": "an index chosen by comparing symbols",
    "numpy.argmin": "an index chosen by comparing symbols",
    "numpy.argsort": "an order chosen by comparing symbols",
    "numpy.linalg.cholesky": "its adjoint needs triangular solves on numbers",
    # the adjoints a gradient's code calls where shapes are known only when run: their rules
    # move a second derivative; each is checked against central differences by its spec
    **{f"srcdiff.rules.runtime.{name}": "a helper of generated gradients (numbers only), checked numerically"
       for name in ("matmul_adjoint_x", "matmul_adjoint_y", "dot_adjoint_x", "dot_adjoint_y", "solve_adjoint_x",
                    "solve_adjoint_y", "prod_adjoint", "cholesky_adjoint")},
    # a derivable gradient's list adjoints (rules/list_helpers.py): lists, not arrays of symbols
    **{f"srcdiff.rules.list_helpers.{name}": "a helper of generated gradients moving lists, checked numerically"
       for name in ("zeros_list", "list_add", "lists_add", "list_rows", "rows_adjoint", "list_repeat", "list_total",
                    "list_drop", "list_grow", "split_like")},
    "srcdiff.rules.runtime.split_adjoint": "a helper of generated gradients moving lists, checked numerically",
    **{f"srcdiff.rules.join_helpers.{name}": "a helper of generated gradients moving lists, checked numerically"
       for name in ("join_adjoint", "join_like")},
}


def counterpart(name: str):
    """The sympy counterpart of the function or rule named `name`, or None."""
    return COUNTERPARTS.get(name)


def _add_optional_rules() -> None:
    """SciPy's rules, when SciPy is installed: an elementwise one runs its `Rule.sympy`
    counterpart element by element; the others (reductions, distributions) are not symbolic."""
    try:
        from ..rules.builtin import lazy_sections
        sections = lazy_sections("scipy")
    except ImportError:
        return
    for rules in sections.values():
        for r in rules:
            if r.sympy is not None and r.elementwise:
                COUNTERPARTS[r.name] = elementwise(r.sympy_function(), r.name.rpartition(".")[2])
            else:
                NOT_SYMBOLIC[r.name] = "a SciPy function checked against central differences only"


_add_optional_rules()


def _add_more_numpy() -> None:
    """rules/numpy_more.py: checked against central differences; not run on sympy values yet."""
    from ..rules import numpy_more
    for r in numpy_more.RULES:
        NOT_SYMBOLIC.setdefault(r.name, "not yet run on sympy values (checked against central differences)")


_add_more_numpy()
