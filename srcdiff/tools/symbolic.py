"""Running Python/NumPy code on sympy symbols: the user's function and srcdiff's gradient of it.

Both run unchanged, with ``np`` and ``math`` (and any NumPy/`math` function the code imported
by name) replaced by namespaces that send each function to its sympy counterpart.  Arrays of
symbols are NumPy object arrays, so indexing, broadcasting, ``@``, ``.sum()`` and ``.T`` keep
working and stay exact.

The counterparts are in `sympy_counterparts`; code that reaches a function with no
counterpart raises `NotSymbolic`: it is reported as "not symbolic", never as agreeing.
"""

from __future__ import annotations

import ast
import builtins
import math
import threading
import types

import numpy as np
import sympy as sp

from ..backend import loader as compiling
from ..driver import computed_lengths
from ..frontend import parse
from ..ir.nodes import Specialised
from ..rules import TABLE, TEMPLATE_GLOBALS
from ..rules.sympy_comparisons import COMPARE, NotSymbolic, Truth, compare, truth
from ..rules.table import qualified_name
from .symbolic_status import why_not_symbolic
from .sympy_counterparts import COUNTERPARTS, NOT_SYMBOLIC, counterpart_of

#: NumPy ufuncs that only do arithmetic, exact on object arrays as they are.
_ARITHMETIC_UFUNCS = {np.add, np.subtract, np.multiply, np.true_divide, np.negative, np.positive,
                      np.power, np.matmul}


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
        target = value.__dict__.get("_target", value.__name__)  # (a lazy module: the one it stands for)
        if value is math or target == "numpy" or target.startswith("numpy.") or target == "scipy.special":
            return SymbolicModule(value)  # scipy.special: the adjoints' digamma, polygamma...
        return value
    if isinstance(value, (types.BuiltinFunctionType, types.FunctionType, np.ufunc)) or callable(value):
        try:
            name = qualified_name(value)
        except Exception:  # objects without a __name__ are no functions we know
            return value
        found = COUNTERPARTS.get(name)
        registered = TABLE.lookup(value) if found is None else None
        if registered is not None and registered.sympy is not None:  # a rule registered since
            found = counterpart_of(registered)
        if found is not None:
            return _with_methods(value, found) if isinstance(value, np.ufunc) else found
        known = TABLE.lookup(value) is not None or name in NOT_SYMBOLIC
        is_math = getattr(value, "__module__", None) == "math" or (
            isinstance(value, np.ufunc) and value not in _ARITHMETIC_UFUNCS)
        if known or is_math:
            return _Refused(name)
        if is_user_function(value):
            return _UserFunction(value)
    return value


class _UfuncCounterpart:
    """A ufunc's counterpart that keeps the ufunc's methods with rules of their own
    (``np.maximum.accumulate``, ``np.logaddexp.reduce``): each becomes its counterpart too."""

    def __init__(self, ufunc: np.ufunc, elementwise):
        self._ufunc, self._elementwise = ufunc, elementwise

    def __call__(self, *args, **kwargs):
        return self._elementwise(*args, **kwargs)

    def __getattr__(self, attr: str):
        return substitute(getattr(self._ufunc, attr))


def _with_methods(ufunc: np.ufunc, found):
    """`found`, or it with the ufunc's methods when one of them has a rule."""
    has_methods = any(TABLE.lookup(getattr(ufunc, m)) is not None for m in ("accumulate", "reduce"))
    return _UfuncCounterpart(ufunc, found) if has_methods else found


#: How deeply calls of the user's own functions may nest while running on sympy values.
MAX_CALL_DEPTH = 50
_depth = threading.local()


def is_user_function(value) -> bool:
    """A plain Python function of the user's (not NumPy's, sympy's or srcdiff's own)."""
    module = (getattr(value, "__module__", "") or "").split(".")[0]
    return isinstance(value, types.FunctionType) and module not in _LIBRARIES


_LIBRARIES = {"numpy", "math", "srcdiff", "sympy", "mpmath"}


class _UserFunction:
    """Another function of the user's, called from code running on sympy values: it runs the
    same way, its own NumPy and `math` made symbolic (made on its first call; calls nest at
    most `MAX_CALL_DEPTH` deep)."""

    def __init__(self, func: types.FunctionType):
        self.func = func
        self.__name__ = func.__name__
        self._symbolic = None

    def __call__(self, *args, **kwargs):
        depth = getattr(_depth, "value", 0)
        if depth >= MAX_CALL_DEPTH:
            raise NotSymbolic(f"calls of your own functions nest more than {MAX_CALL_DEPTH} deep "
                              f"(at {self.func.__qualname__})")
        if self._symbolic is None:
            self._symbolic = symbolic_function(self.func)
        _depth.value = depth + 1
        try:
            return self._symbolic(*args, **kwargs)
        finally:
            _depth.value = depth

    def __repr__(self) -> str:
        return f"<{self.func.__qualname__} on sympy values>"


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
    return isinstance(value, (sp.Basic, Truth))


def _isinstance(value, classinfo):
    """isinstance() of a symbol answers for the float it stands for; a question whose answer
    differs between a Python float and np.float64 (``np.floating``) refuses."""
    if not isinstance(value, sp.Basic):
        return builtins.isinstance(value, classinfo)
    answers = {builtins.isinstance(v, classinfo) for v in (1.0, np.float64(1.0))}
    if len(answers) != 1:
        raise NotSymbolic(f"isinstance({value}, {classinfo!r}) depends on which float type the symbol stands for")
    return answers.pop()


def _extreme(python, symbolic_, name: str):
    def apply(*args, **kwargs):
        if len(args) == 2 and not kwargs and any(_is_symbolic(a) for a in args) \
                and not any(isinstance(a, np.ndarray) for a in args):
            a, b = (x.as_number() if isinstance(x, Truth) else x for x in args)
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

_COMPARE_NAME = "__srcdiff_compare__"
_TRUTH_NAME = "__srcdiff_truth__"
_CHOOSE_NAME = "__srcdiff_choose__"


def _choose(test, body, orelse):
    """``body() if test else orelse()``; a symbolic comparison chooses with a ``Piecewise``
    (the adjoint of builtin ``max`` selects: ``g if x > y else 0.0``)."""
    if isinstance(test, Truth):
        return test.select(body(), orelse())
    return body() if truth(test) else orelse()


class _ElementsAsTheyAre(ast.NodeTransformer):
    """``float(x[i])``, an element of a float64 array read as a Python float for speed
    (backend/optimize/python_floats.py), reads the element as it is: here, a symbol."""

    def visit_Call(self, node: ast.Call):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "float" and len(node.args) == 1 \
                and not node.keywords and isinstance(node.args[0], ast.Subscript):
            return node.args[0]
        return node


class _RewriteCompare(ast.NodeTransformer):
    """``x > y`` becomes ``__srcdiff_compare__('Gt', x, y)`` (chains are not generated), and
    each branch test ``t`` becomes ``__srcdiff_truth__(t)``: ``if x:`` on a symbol refuses."""

    def _test(self, node):
        self.generic_visit(node)
        node.test = ast.copy_location(ast.Call(ast.Name(_TRUTH_NAME, ast.Load()), [node.test], []), node.test)
        return node

    visit_If = visit_While = _test

    def visit_IfExp(self, node: ast.IfExp):
        self.generic_visit(node)
        lazy = [ast.Lambda(ast.arguments([], [], None, [], [], None, []), e) for e in (node.body, node.orelse)]
        return ast.copy_location(ast.Call(ast.Name(_CHOOSE_NAME, ast.Load()), [node.test, *lazy], []), node)

    def visit_Compare(self, node: ast.Compare):
        self.generic_visit(node)
        if len(node.ops) != 1 or type(node.ops[0]) not in COMPARE:
            return node
        call = ast.Call(ast.Name(_COMPARE_NAME, ast.Load()),
                        [ast.Constant(type(node.ops[0]).__name__), node.left, node.comparators[0]], [])
        return ast.copy_location(call, node)


def _rare_case(x, y, like=None) -> bool:
    """`any_equal` on symbols: the test of a tie's rare case (backend/optimize/tie_shares.py)
    is true, since that branch gives the half shares as ``Piecewise`` of ``Eq`` and is exact
    everywhere, where the other is exact only where nothing is tied."""
    return True


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


def symbolic_gradient(source: str, func: types.FunctionType, closure: dict, label: str,
                      callees: dict | None = None, defaults=None):
    """Compile generated gradient `source` so it runs on sympy values.

    `closure` is the user function's closure cells by name (``ParsedFunction.closure``);
    `callees` gives the cells of the callee adjoints the source calls (``square_vjp``).
    """
    tree = _RewriteCompare().visit(_ElementsAsTheyAre().visit(ast.parse(source)))
    text = ast.unparse(ast.fix_missing_locations(tree))
    # srcdiff's own helpers run as they are, on the symbolic stand-ins for np and math
    helpers = {name: symbolic_function(value) if isinstance(value, types.FunctionType) else substitute(value)
               for name, value in TEMPLATE_GLOBALS.items()}
    if "unbroadcast" in helpers:
        helpers["unbroadcast"] = _number_safe(helpers["unbroadcast"])
    helpers["any_equal"] = _rare_case  # (a tie's rare branch: exact everywhere, a Piecewise on symbols)
    cells = {**helpers, **{n: c.cell_contents for n, c in _cells(closure).items()}, **(callees or {}),
             _COMPARE_NAME: compare, _TRUTH_NAME: truth, _CHOOSE_NAME: _choose}
    return compiling.build_function(text, label, symbolic_globals(func.__globals__), cells, defaults=defaults)


def symbolic_adjoint(made, func: types.FunctionType, closure: dict, label: str, defaults=None, built=None):
    """srcdiff's compiled gradient `made` (a `driver.Variant`) running on sympy values,
    and with it every callee adjoint it calls (``helper_vjp(...) -> (value, pullback)``),
    each compiled from its own source once, recursive calls included."""
    built = {} if built is None else built  # id(Callee) -> the cell of its symbolic adjoint
    cells = {}
    for name, called in made.callees.items():
        cell = built.get(id(called))
        if cell is None:
            cell = built[id(called)] = types.CellType()
            callee = made.program.calls[name].func
            parsed = parse.parse_function(callee.func if isinstance(callee, Specialised) else callee)
            cell.cell_contents = symbolic_adjoint(called.variant, parsed.func, parsed.closure, f"{label}:{name}",
                                                  parsed.func.__defaults__, built)
        cells[name] = cell
    fallback = made.cells.get(computed_lengths.FALLBACK)
    if fallback is not None:  # (the code assuming no computed width is 1 tests it first, and calls this one if one is)
        cells[computed_lengths.FALLBACK] = symbolic_adjoint(fallback.variant(), func, closure, label, defaults, built)
    return symbolic_gradient(made.source, func, closure, label, cells, defaults)


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
    if isinstance(value, Truth):
        value = value.as_number()
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
