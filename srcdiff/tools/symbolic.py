"""Running Python/NumPy code on sympy symbols: the user's function and srcdiff's gradient of it.

Both run unchanged, with ``np`` and ``math`` (and any NumPy/`math` function the code imported
by name) replaced by namespaces that send each function to its sympy counterpart.  Arrays of
symbols are NumPy object arrays, so indexing, broadcasting, ``@``, ``.sum()`` and ``.T`` keep
working and stay exact.

`COUNTERPARTS` maps a rule's canonical name (`Rule.name`: ``numpy.sin``, ``math.exp``,
``operator.mul``) to its sympy counterpart; `NOT_SYMBOLIC` lists the rules that have none,
with the reason.  Every rule of the table is in one of the two (a test checks it), and code
that reaches a function with no counterpart raises `NotSymbolic`: it is reported as "not
symbolic", never as agreeing.
"""

from __future__ import annotations

import ast
import builtins
import math
import operator
import types
from dataclasses import dataclass

import numpy as np
import sympy as sp

from ..backend import loader as compiling
from ..ir.nodes import UserCall
from ..rules import TABLE, TEMPLATE_GLOBALS, structural
from ..rules.table import qualified_name


class NotSymbolic(Exception):
    """The code reached something sympy cannot evaluate; the message says what."""


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
        return _compare_one(op, a, b)

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

#: NumPy functions that only move, copy or add up values: exact on object arrays.
_NUMPY_OWN = [
    "add", "subtract", "multiply", "divide", "negative", "positive", "power", "matmul",
    "copy", "issubdtype",
    "result_type", "where", "cumsum", "trace", "diag", "inner", "outer", "tensordot", "einsum",
    "reshape", "ravel", "expand_dims", "squeeze", "transpose", "swapaxes", "moveaxis", "flip",
    "broadcast_to", "tile", "repeat", "concatenate", "stack", "hstack", "vstack", "split",
]

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
    **{f"numpy.{name}": func for name, func in _CONSTRUCTORS.items()},
}

#: Rule name -> why it has no sympy counterpart (such functions are reported "not symbolic").
NOT_SYMBOLIC: dict[str, str] = {
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
}

#: The primitives lowering introduces itself (`srcdiff.structural`), by name: why the user's
#: code for them and srcdiff's adjoint code run exactly on sympy values.  They are recognised
#: by identity (`structural_name`), never by name alone: a user function may be called ``copy``.
STRUCTURAL: dict[str, str] = {
    "copy": "y = x names the same value",
    "nograd": "the user's own expression (len, .shape, a literal, a comparison) runs as written; "
              "a branch on a comparison of symbols refuses (`_Truth`, `truth`)",
    "compare": "a comparison of names and constants runs as written, like nograd's expressions",
    "getitem": "indexing and slicing select the same elements of an object array or a list; "
               "the adjoint's scatter-adds write into object arrays (`_CONSTRUCTORS`)",
    "setitem": "set_item and zero_item copy object arrays as they are",
    "list": "a list of values is a list of sympy values",
    "list.append": "appending to and popping from Python lists",
    "sum(list)": "Python's sum adds sympy values exactly",
    "sum": "Python's sum over the rows of an object array adds them exactly",
    "stack(list)": "np.stack / np.array of a list of sympy values is an object array",
    "float": "float() of a number is Python's; of a symbol sympy refuses (TypeError), so that "
             "function is reported not symbolic",
    "abs": "abs() of a symbol is sympy's Abs",
    "max": "max() of two symbols is sympy's Max: the same value, ties included",
    "min": "min() of two symbols is sympy's Min: the same value, ties included",
}

#: Structural primitives that are not symbolic, and why.
STRUCTURAL_NOT_SYMBOLIC: dict[str, str] = {
    "user function": "check does not follow a call into another user function (its NumPy "
                     "calls would run on symbols unsubstituted)",
}

#: NumPy ufuncs that only do arithmetic, exact on object arrays as they are.
_ARITHMETIC_UFUNCS = {np.add, np.subtract, np.multiply, np.true_divide, np.negative, np.positive,
                      np.power, np.matmul}


def counterpart(name: str):
    """The sympy counterpart of the function or rule named `name`, or None."""
    return COUNTERPARTS.get(name)


def rule_status(name: str) -> str:
    """'symbolic', 'not symbolic' (listed in NOT_SYMBOLIC) or 'unknown' for a rule name."""
    if name in COUNTERPARTS:
        return "symbolic"
    return "not symbolic" if name in NOT_SYMBOLIC else "unknown"


def why_not_symbolic(name: str) -> str:
    reason = NOT_SYMBOLIC.get(name)
    return f"{name} has no sympy counterpart" + (f" ({reason})" if reason else "")


_FIXED_STRUCTURAL = (structural.COPY, structural.NOGRAD, structural.COMPARE, structural.GETITEM, structural.APPEND,
                     structural.SUM_LIST, structural.SUM_ROWS, structural.STACK_LIST,
                     structural.FLOAT, structural.ABS, structural.MAX, structural.MIN)


def structural_name(node) -> str | None:
    """The `STRUCTURAL` key of a lowered node whose rule lowering made, else None."""
    if isinstance(node, UserCall):
        return "user function"
    rule = node.rule
    if any(rule is r for r in _FIXED_STRUCTURAL):
        return rule.name
    if structural.is_setitem(rule):
        return "setitem"
    if rule.name == "list" and rule is structural.list_of(len(rule.params)):
        return "list"
    return None


def node_status(node) -> tuple[str, str]:
    """A lowered node's status ('symbolic', 'not symbolic', 'unknown') and, when it is not
    symbolic, why."""
    key = structural_name(node)
    if key is None:
        name = getattr(node.rule, "name", "?")
        status = rule_status(name)
        return status, "" if status == "symbolic" else why_not_symbolic(name)
    if key in STRUCTURAL:
        return "symbolic", ""
    callee = getattr(node, "callee", None)
    what = f"the call to {getattr(callee, '__qualname__', key)}" if callee is not None else key
    reason = STRUCTURAL_NOT_SYMBOLIC.get(key)
    return ("not symbolic", f"{what}: {reason}") if reason else ("unknown", f"{what} has no sympy counterpart")


class _Refused:
    """Stands for a function with no sympy counterpart; calling it raises `NotSymbolic`."""

    def __init__(self, name: str):
        self.name = name

    def __call__(self, *args, **kwargs):
        raise NotSymbolic(why_not_symbolic(self.name))

    def __getattr__(self, attr):
        raise NotSymbolic(why_not_symbolic(self.name))


def substitute(value):
    """What `value` (a global the code reads) becomes when the code runs on sympy values."""
    if isinstance(value, types.ModuleType):
        if value is math or value.__name__ == "numpy" or value.__name__.startswith("numpy."):
            return SymbolicModule(value)
        return value
    if isinstance(value, (types.BuiltinFunctionType, types.FunctionType, np.ufunc)) or callable(value):
        try:
            name = qualified_name(value)
        except Exception:  # objects without a __name__ are no functions we know
            return value
        found = COUNTERPARTS.get(name)
        if found is not None:
            return found
        known = TABLE.lookup(value) is not None or name in NOT_SYMBOLIC
        is_math = getattr(value, "__module__", None) == "math" or (
            isinstance(value, np.ufunc) and value not in _ARITHMETIC_UFUNCS)
        if known or is_math:
            return _Refused(name)
    return value


class SymbolicModule:
    """`np` or `math` (or a NumPy submodule) for code running on sympy values.

    Functions with a counterpart become it; math functions without one refuse; everything
    else (``np.full``, ``np.shape``, ``np.pi``...) is NumPy's own, which is exact on object
    arrays or fails loudly.
    """

    def __init__(self, module: types.ModuleType):
        self._module = module

    def __getattr__(self, attr: str):
        return substitute(getattr(self._module, attr))

    def __repr__(self) -> str:
        return f"<sympy stand-in for {self._module.__name__}>"


# ---- builtins on sympy values ----

def _is_symbolic(value) -> bool:
    return isinstance(value, (sp.Basic, _Truth))


def _isinstance(value, classinfo):
    """isinstance() of a symbol answers for the float it stands for; a question whose answer
    differs between a Python float and np.float64 (``np.floating``) refuses."""
    if not isinstance(value, sp.Basic):
        return builtins.isinstance(value, classinfo)
    answers = {builtins.isinstance(v, classinfo) for v in (1.0, np.float64(1.0))}
    if len(answers) != 1:
        raise NotSymbolic(f"isinstance({value}, {classinfo!r}) depends on which float type the symbol stands for")
    return answers.pop()


def truth(value=False):
    """The truth of a branch test; a symbolic one (``if x:``, ``bool(x > y)``) refuses."""
    if isinstance(value, np.ndarray) and value.dtype == object and value.size == 1:
        return truth(value.reshape(-1)[0])
    if isinstance(value, _Truth):
        return bool(value)  # raises NotSymbolic
    if isinstance(value, sp.Basic) and not isinstance(value, sp.logic.boolalg.BooleanAtom) \
            and not value.is_number:
        raise NotSymbolic(f"a branch depends on the truth of the symbolic value {value}")
    return builtins.bool(value)


def _extreme(python, symbolic_, name: str):
    def apply(*args, **kwargs):
        if len(args) == 2 and not kwargs and any(_is_symbolic(a) for a in args) \
                and not any(isinstance(a, np.ndarray) for a in args):
            a, b = (x._number() if isinstance(x, _Truth) else x for x in args)
            return symbolic_(a, b)
        return python(*args, **kwargs)

    apply.__name__ = name
    return apply


#: Python's builtins for code running on sympy values (the user's function, srcdiff's
#: gradient and its helpers): where a builtin would fail on a symbol, or answer for the
#: symbol rather than for the float it stands for, these answer as for the float or refuse.
SYMBOLIC_BUILTINS = {
    **vars(builtins),  # float stays Python's: NumPy needs it as a dtype, and a symbol refuses it
    "bool": truth,
    "isinstance": _isinstance,
    "max": _extreme(builtins.max, sp.Max, "max"),
    "min": _extreme(builtins.min, sp.Min, "min"),
}


def symbolic_globals(globals_: dict) -> dict:
    """A copy of a module's globals with every NumPy/`math` reference made symbolic."""
    out = {name: substitute(value) for name, value in globals_.items() if not name.startswith("__")}
    out["__builtins__"] = SYMBOLIC_BUILTINS
    out["__name__"] = globals_.get("__name__", "__srcdiff_symbolic__")
    return out


def _cells(closure: dict) -> dict:
    out = {}
    for name, cell in closure.items():
        try:
            out[name] = types.CellType(substitute(cell.cell_contents))
        except ValueError:  # an empty cell stays empty
            out[name] = types.CellType()
    return out


def symbolic_function(func: types.FunctionType) -> types.FunctionType:
    """`func` itself (same code object) reading symbolic stand-ins for NumPy and `math`."""
    closure = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    cells = _cells(closure)
    new = types.FunctionType(func.__code__, symbolic_globals(func.__globals__), func.__name__,
                             func.__defaults__, tuple(cells[n] for n in func.__code__.co_freevars))
    new.__kwdefaults__ = func.__kwdefaults__
    return new


# ---- srcdiff's generated gradient on symbols ----

@dataclass
class _Truth:
    """A comparison of sympy values: 1 or 0 in arithmetic, but it has no truth value."""

    relation: object

    def _number(self):
        return sp.Piecewise((1, self.relation), (0, True))

    def __bool__(self):
        raise NotSymbolic(f"a branch depends on the symbolic comparison {self.relation}")

    def __mul__(self, other):
        return self._number() * other

    def __rmul__(self, other):
        return other * self._number()

    def __add__(self, other):
        return self._number() + other

    def __radd__(self, other):
        return other + self._number()

    def __sub__(self, other):
        return self._number() - other

    def __rsub__(self, other):
        return other - self._number()

    def __truediv__(self, other):
        return self._number() / other

    def __neg__(self):
        return -self._number()

    # ---- logic between comparisons (``(x > y) | np.isnan(y)``) stays a comparison ----

    def __and__(self, other):
        return _Truth(sp.And(self.relation, _relation(other)))

    __rand__ = __and__

    def __or__(self, other):
        return _Truth(sp.Or(self.relation, _relation(other)))

    __ror__ = __or__

    def __invert__(self):
        return _Truth(sp.Not(self.relation))


def _relation(value):
    return value.relation if isinstance(value, _Truth) else sp.sympify(bool(value))


# `==` on sympy values compares structure (x == Max(x, y) is False): Eq/Ne compare values.
_COMPARE = {ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Eq: sp.Eq, ast.NotEq: sp.Ne}
_COMPARE_NAME = "__srcdiff_compare__"


def _compare_one(op, a, b):
    result = op(a, b)
    if isinstance(result, sp.logic.boolalg.BooleanAtom):
        return bool(result)
    if isinstance(result, sp.Basic):
        return _Truth(result)
    return result


def compare(name: str, a, b):
    """``a <op> b`` for generated code: elementwise on object arrays, `_Truth` when symbolic."""
    op = _COMPARE[getattr(ast, name)]
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.frompyfunc(lambda p, q: _compare_one(op, p, q), 2, 1)(a, b)
    return _compare_one(op, a, b)


_TRUTH_NAME = "__srcdiff_truth__"


class _RewriteCompare(ast.NodeTransformer):
    """``x > y`` becomes ``__srcdiff_compare__('Gt', x, y)`` (chains are not generated), and
    each branch test ``t`` becomes ``__srcdiff_truth__(t)``: ``if x:`` on a symbol refuses."""

    def _test(self, node):
        self.generic_visit(node)
        node.test = ast.copy_location(ast.Call(ast.Name(_TRUTH_NAME, ast.Load()), [node.test], []), node.test)
        return node

    visit_If = visit_While = visit_IfExp = _test

    def visit_Compare(self, node: ast.Compare):
        self.generic_visit(node)
        if len(node.ops) != 1 or type(node.ops[0]) not in _COMPARE:
            return node
        call = ast.Call(ast.Name(_COMPARE_NAME, ast.Load()),
                        [ast.Constant(type(node.ops[0]).__name__), node.left, node.comparators[0]], [])
        return ast.copy_location(call, node)


def _number_safe(unbroadcast):
    """runtime.unbroadcast for object arrays: there a sum over every axis is the element
    itself rather than a NumPy scalar, so ``g[()]`` for a number operand is taken here."""
    def apply(g, x):
        if isinstance(x, np.ndarray):
            return unbroadcast(g, x)
        out = unbroadcast(g, np.empty(np.shape(np.asarray(x, dtype=object))))
        return out[()] if isinstance(out, np.ndarray) else out

    apply.__name__ = "unbroadcast"
    return apply


def symbolic_gradient(source: str, func: types.FunctionType, closure: dict, label: str):
    """Compile generated gradient `source` so it runs on sympy values.

    `closure` is the user function's closure cells by name (``ParsedFunction.closure``).
    """
    tree = _RewriteCompare().visit(ast.parse(source))
    text = ast.unparse(ast.fix_missing_locations(tree))
    # srcdiff's own helpers run as they are, on the symbolic stand-ins for np and math
    helpers = {name: symbolic_function(value) if isinstance(value, types.FunctionType) else substitute(value)
               for name, value in TEMPLATE_GLOBALS.items()}
    if "unbroadcast" in helpers:
        helpers["unbroadcast"] = _number_safe(helpers["unbroadcast"])
    cells = {**helpers, **{n: c.cell_contents for n, c in _cells(closure).items()},
             _COMPARE_NAME: compare, _TRUTH_NAME: truth}
    # check passes every argument, so the gradient needs none of the user's defaults
    return compiling.build_function(text, label, symbolic_globals(func.__globals__), cells)


# ---- symbols for arguments ----

def symbols_like(name: str, value):
    """A real sympy symbol for a number, or an object array of them shaped like `value`."""
    if isinstance(value, np.ndarray):
        out = np.empty(value.shape, dtype=object)
        for index in np.ndindex(value.shape):
            label = ",".join(map(str, index))
            out[index] = sp.Symbol(f"{name}[{label}]" if label else name, real=True)
        return out
    return sp.Symbol(name, real=True)


def as_expr(value):
    """A sympy expression from a number, a sympy value or a 0-d object array."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, _Truth):
        value = value._number()
    return sp.sympify(value)


def exact(expr):
    """`expr` with each float that is a short binary fraction (1.0, 0.5, 0.375) made exact.

    Those rational values are what the floats store, so a proof over them is a proof; other
    floats (``np.log(2.0)``) stay floats, since their exact rationals are huge and make
    sympy's simplification crawl (they then leave the decision to the numeric comparison).
    """
    floats = expr.atoms(sp.Float)
    short = {f: q for f, q in ((f, sp.Rational(f)) for f in floats) if q.q <= 2 ** 16 and abs(q.p) <= 2 ** 40}
    return expr.xreplace(short) if short else expr
