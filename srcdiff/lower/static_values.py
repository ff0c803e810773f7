"""What lowering knows before the function runs: the objects names refer to, and constants.

A callee (``np.sum``), a static argument (``axis=0``) or a module constant is read when the
function is lowered, and the transform is then built on it: the names read are recorded as
dependencies (frontend/depends.py).  A parameter used as a static argument (``axis=axis``)
takes its value for the variant being lowered (`lowerer.lower_specialised`).
"""

from __future__ import annotations

import ast
import builtins
import copy
import enum

import numpy as np

from ..errors import SrcDiffError
from ..frontend.class_methods import bound_classmethod
from ..frontend.depends import MISSING, Dependency, class_dependency
from ..frontend.global_objects import user_class
from ..ir.nodes import Const, Var, operand_ast
from .state import LoweringState


class StaticParameter(SrcDiffError):
    """A parameter is used as a static argument (``axis=axis``) and lowering lacks its value."""

    def __init__(self, name: str, node: ast.expr, error: SrcDiffError):
        super().__init__(error.reason, error.location, error.hint)
        self.name, self.node = name, node


def static_value(state: LoweringState, node: ast.expr, record: bool = True):
    """The object a Name/Attribute chain names without running user code, or MISSING.

    The transform then depends on the chain's root name keeping its value (it is
    recorded, frontend/depends.py); `record=False` for a probe whose answer changes
    nothing but whether the expression is kept as written."""
    if isinstance(node, ast.Name):
        if node.id in state.env:
            bound = state.env[node.id]  # an array namespace (``xp = array_namespace(x)``) is NumPy; a function
            # of a loop over a tuple of them (lower/static_loops.py) is that function
            return bound.value if isinstance(bound, Const) and (isinstance(bound.value, type(ast)) or callable(
                bound.value) and not isinstance(bound.value, type)) else MISSING
        if node.id in state.lambdas:
            return MISSING  # a nested def or lambda of the function shadows the module's name
        value = state.parsed.resolve(node.id)
        if record:
            state.parsed.depend(node.id, value)
        return value
    if isinstance(node, ast.Attribute):
        base = static_value(state, node.value, record)
        if base is not MISSING and (isinstance(base, type(ast)) or _is_distribution(base)):
            return getattr(base, node.attr, MISSING)
        if isinstance(base, np.ufunc) and node.attr in ("accumulate", "reduce", "reduceat") \
                and state.table.lookup(getattr(base, node.attr)) is not None:
            return getattr(base, node.attr)  # np.maximum.accumulate: a method with a rule of its own
        if base is not MISSING and isinstance(found := static_method(base, node.attr), staticmethod):
            if record:  # (rebound on the class, or its code replaced: built again)
                cls = base if isinstance(base, type) else type(base)
                state.parsed.include(class_dependency(cls, node.attr, found))
            return getattr(base, node.attr)  # ``Model.scale(x)`` / ``model.scale(x)``: a plain function
        bound = _classmethod(state, base, node.attr, record) if base is not MISSING else MISSING
        if bound is not MISSING:
            return bound  # ``Filter.smooth(x)``: the method with its ``cls`` bound (frontend/class_methods.py)
        if isinstance(base, enum.EnumMeta) and isinstance(getattr(base, node.attr, None), base):
            return getattr(base, node.attr)  # ``Act.TANH``: a member, static (enum_members.py)
        if isinstance(base, type) and base.__module__.split(".")[0] not in ("numpy", "builtins", "scipy"):
            return class_number(state, base, node.attr)  # ``Physics.G``: a number of a class, as written
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        return _function_item(state, node, record)
    if isinstance(node, ast.Call) and len(node.args) == 2 and not node.keywords:
        return _module_function(state, node, record)
    return MISSING


def _classmethod(state: LoweringState, base, name: str, record: bool):
    """A classmethod of a user class (`base`, or an instance of one) as a plain function, else MISSING."""
    cls = base if isinstance(base, type) else type(base)
    owner = next((k for k in cls.__mro__ if name in vars(k)), None) if user_class(cls) else None
    found = vars(owner)[name] if owner is not None else None
    if not isinstance(found, classmethod) or not isinstance(found.__func__, type(_classmethod)):
        return MISSING
    made = bound_classmethod(found.__func__, cls)
    if made is None:
        return MISSING
    if record:  # (the method rebound, or an attribute its body read as a value: built again)
        state.parsed.include(class_dependency(cls, name, found))
        for attr, value in made[1].items():
            state.parsed.include(class_dependency(cls, attr, value))
    return made[0]


def _module_function(state: LoweringState, node: ast.Call, record: bool):
    """``getattr(np, name)``: the function a module holds under a constant name (or a static
    parameter's value, the gradient specialised on it), else MISSING."""
    if static_value(state, node.func, record) is not builtins.getattr:
        return MISSING
    base = static_value(state, node.args[0], record)
    if not isinstance(base, type(ast)):
        return MISSING
    try:
        value = getattr(base, constant(state, node.args[1]), MISSING)
    except StaticParameter:
        raise
    except (SrcDiffError, TypeError):
        if state.facts.statics_known or static_parameter(state, node.args[1]) is None:
            return MISSING
        value = getattr(base, "negative", MISSING)  # (learning which parameters are static: any function)
    return value if callable(value) and not isinstance(value, type) else MISSING


def _function_item(state: LoweringState, node: ast.Subscript, record: bool):
    """``ACTIVATIONS[act]``: the function a module-level dict, list or tuple holds at a constant
    key (or at a static parameter's value), else MISSING.  The transform depends on the item."""
    base = static_value(state, node.value, record)
    if not isinstance(base, (dict, list, tuple)):
        return MISSING
    try:
        key = constant(state, node.slice)
        value = base[key]
    except StaticParameter:
        raise
    except (SrcDiffError, LookupError, TypeError):
        if state.facts.statics_known or static_parameter(state, node.slice) is None:
            return MISSING
        # an analysis learning which parameters are static (the key's value stands in for any):
        # any function of the table lets it go on
        key, value = next(iter(base.items() if isinstance(base, dict) else enumerate(base)), (None, MISSING))
    if not callable(value) or isinstance(value, type):
        return MISSING
    if record:
        scope = base if isinstance(base, dict) else dict(enumerate(base)) if isinstance(base, tuple) else None
        state.parsed.include([Dependency(scope if scope is not None else _Items(base), key, value)])
    return value


class _Items:
    """A list as a dependency's scope: ``get(i)`` is its item ``i``."""

    def __init__(self, items):
        self.items = items

    def get(self, key, default=None):
        return self.items[key] if -len(self.items) <= key < len(self.items) else default


def class_number(state: LoweringState, cls: type, name: str):
    """A number a user class holds as `name` (``Physics.G``), or a tuple or list of numbers (``Cfg.SIZES``,
    read as a tuple), else MISSING.  The transform depends on it keeping its value (rebinding
    ``Physics.G``, or changing the list in place, builds the gradient again)."""
    owner = next((k for k in cls.__mro__ if name in vars(k)), None)
    value = vars(owner)[name] if owner is not None else MISSING
    if type(value) not in (int, float, bool) and not numbers(value):
        return MISSING
    state.parsed.include(class_dependency(cls, name, value))
    return as_tuple(value)


def numbers(value) -> bool:
    """A non-empty tuple or list of numbers (not bools), or of such tuples and lists."""
    return isinstance(value, (tuple, list)) and bool(value) and all(
        type(v) in (int, float) or numbers(v) for v in value)


def as_tuple(value):
    """`value` with its lists made tuples (a class's numbers read as a constant of the code)."""
    return tuple(as_tuple(v) for v in value) if isinstance(value, (tuple, list)) else value


def static_method(owner, name: str):
    """The `staticmethod` object `owner` (a class, or an instance of one) has as `name`, else None."""
    cls = owner if isinstance(owner, type) else type(owner)
    found = next((vars(k)[name] for k in cls.__mro__ if name in vars(k)), None)
    return found if isinstance(found, staticmethod) and (owner is cls or name not in getattr(owner, "__dict__", {})) \
        else None


def _is_distribution(value) -> bool:
    """``scipy.stats.norm``: an object whose methods (``norm.logpdf``) have rules.  Told by
    its class's module, so SciPy is never imported to ask."""
    return type(value).__module__.startswith("scipy.stats.")


def constant(state: LoweringState, node: ast.expr):
    """A static argument's value (axis=0, keepdims=True), known at transform time.

    A parameter of the function (``axis=axis``) takes its value for this variant."""
    parameter = static_parameter(state, node)
    if parameter is not None:
        if state.statics is None or parameter not in state.statics:
            raise StaticParameter(parameter, node, state.error(
                node, f"{parameter} must be a constant here",
                f"pass a constant, or differentiate through srcdiff.grad, which specialises "
                f"the gradient on the value of {parameter}"))
        return state.statics[parameter]
    if isinstance(node, ast.Name) and isinstance(state.env.get(node.id), Const):
        return state.env[node.id].value  # a name bound to a constant (a None argument, ``ax = 1``)
    items = constant_items(state, node)
    if items is not None:
        return items  # ``ax = (0, 1)``
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)) \
            and not isinstance(node.operand, ast.Constant):  # ``ord=-np.inf``
        value = constant(state, node.operand)
        if isinstance(value, (int, float, np.number)) and not isinstance(value, bool):
            return -value if isinstance(node.op, ast.USub) else value
    levels = _array_of_literals(state, node)
    if levels is not None:
        return levels  # ``q=np.array([0.25, 0.75])``: the numbers, as a list
    try:
        return ast.literal_eval(node)
    except ValueError:
        value = static_value(state, node)
        if value is MISSING:
            value = arithmetic_of_literals(node)
        if value is MISSING:
            value = _arithmetic_of_parameters(state, node)
        if value is MISSING or (callable(value) and not _is_dtype(value)):
            raise state.error(node, f"{ast.unparse(node)} must be a constant here", _what_to_do(state, node)) from None
        return value


def _array_of_literals(state: LoweringState, node: ast.expr) -> list | None:
    """The numbers of ``np.array([...])`` / ``np.asarray([...])`` of a flat literal list, else None."""
    if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords
            and isinstance(node.args[0], (ast.List, ast.Tuple))):
        return None
    if static_value(state, node.func) not in (np.array, np.asarray):
        return None
    try:
        items = ast.literal_eval(node.args[0])
    except ValueError:
        return None
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items)
    return list(items) if numbers else None


def read_when_run(state: LoweringState, node: ast.expr) -> str | None:
    """What of a static argument is known only when the function runs, or None: a length read
    from a value (``len(y)``, ``y.shape[0]``, ``y.size``) or a name computed in the function
    (``n = len(y)``).  A gradient is compiled per number of axes, not per length."""
    if any((isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len")
           or (isinstance(n, ast.Attribute) and n.attr in ("shape", "size")) for n in ast.walk(node)):
        return "a length read from an argument"
    computed = sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(state.env.get(n.id), Var)
                       and static_parameter(state, n) is None})
    return f"{', '.join(computed)} (computed when the function runs)" if computed else None


def _what_to_do(state: LoweringState, node: ast.expr) -> str:
    what = read_when_run(state, node)
    if what is None:
        return "write a number, or pass it as an argument of its own (the gradient is specialised on its value)"
    return (f"{what} is not known when srcdiff builds the gradient (it is compiled per number of axes, "
            "not per length): pass the length as an argument of its own, e.g. f(x, y, n=len(y)) "
            "(the gradient is then specialised on its value), or in a reshape write that axis as -1")


_ARITHMETIC = (ast.Constant, ast.BinOp, ast.UnaryOp, ast.Tuple, ast.List, ast.operator, ast.unaryop, ast.Load)


def arithmetic_of_literals(node: ast.expr):
    """The value of arithmetic on numbers written in the code (``(5 * 4, 6)``), or MISSING."""
    if not all(isinstance(n, _ARITHMETIC) for n in ast.walk(node)) \
            or not all(isinstance(n.value, (int, float)) for n in ast.walk(node) if isinstance(n, ast.Constant)) \
            or any(isinstance(n, ast.Pow) for n in ast.walk(node)):  # no 9 ** 9 ** 9 at transform time
        return MISSING
    try:
        tree = ast.fix_missing_locations(ast.Expression(ast.parse(ast.unparse(node), mode="eval").body))
        return eval(compile(tree, "<constant>", "eval"), {"__builtins__": {}})  # numbers only
    except (ArithmeticError, TypeError, ValueError):
        return MISSING


def _arithmetic_of_parameters(state: LoweringState, node: ast.expr):
    """``keep - 1``, ``2 * k + 1``, ``(D_MODEL, 3 * D_MODEL)``: arithmetic on numbers, static
    parameters (each asked for as a bare one is: `StaticParameter`), names bound to a constant and
    numbers of the module (its constants, on whose values the gradient then depends, as on a bare
    one's), evaluated with their values; else MISSING."""
    names = [n for n in ast.walk(node) if isinstance(n, ast.Name)]
    if not names or not all(isinstance(n, (*_ARITHMETIC, ast.Name)) for n in ast.walk(node)):
        return MISSING
    values = {}
    for n in names:
        if static_parameter(state, n) is not None or isinstance(state.env.get(n.id), Const):
            values[n.id] = constant(state, n)  # raises StaticParameter for one not known yet
        elif n.id not in state.env and n.id not in state.locals:
            values[n.id] = static_value(state, n)  # a module's number (MISSING for anything else)
        else:
            return MISSING
    if not all(type(v) in (int, float) for v in values.values()):
        return MISSING

    class _Substitute(ast.NodeTransformer):
        def visit_Name(self, name):
            return ast.copy_location(ast.Constant(values[name.id]), name)

    return arithmetic_of_literals(_Substitute().visit(copy.deepcopy(node)))


def _is_dtype(value) -> bool:
    """``float``, ``np.float64``, ``np.dtype("f8")``: a dtype argument (``dtype=float``)."""
    return isinstance(value, type) and (issubclass(value, np.generic) or value in (float, int, complex, bool))


def constant_items(state: LoweringState, node: ast.expr) -> tuple | None:
    """The value of a name bound to a tuple of constants built in the function, or None."""
    bound = state.env.get(node.id) if isinstance(node, ast.Name) else None
    items = state.tuple_items.get(bound.name) if isinstance(bound, Var) else None
    if items is None or not all(isinstance(v, Const) for v in items):
        return None
    return tuple(v.value for v in items)


def static_parameter(state: LoweringState, node: ast.expr) -> str | None:
    """The parameter `node` names, unchanged since the call, or None.  A name bound to a
    parameter (``name = names_0``, a loop over a flattened tuple) gives that parameter's name:
    the value is looked up by it."""
    if isinstance(node, ast.Name):
        bound = state.env.get(node.id)
        return next((p.name for p in state.params if bound is p), None)
    return None


def as_written(state: LoweringState, node: ast.expr) -> ast.expr:
    """A static argument in the forward code: a parameter spelled as its value, and a name
    bound to a constant (``ax = 1``, a None argument) as that constant."""
    if isinstance(node, ast.Name) and isinstance(state.env.get(node.id), Const):
        return ast.copy_location(operand_ast(state.env[node.id]), node)  # the name is not in the code
    items = constant_items(state, node)
    if items is not None:
        return ast.copy_location(operand_ast(Const(items)), node)
    parameter = static_parameter(state, node)
    if isinstance(node, ast.Attribute) and isinstance(static_value(state, node.value, record=False), type):
        value = static_value(state, node)  # Cfg.SIZES: a class's numbers, as their values (numba reads no class)
        if type(value) not in (int, float, bool) and not numbers(value):
            return node
    elif parameter is None or state.statics is None or parameter not in state.statics:
        return node
    else:
        value = state.statics[parameter]
    try:
        literal = ast.parse(repr(value), mode="eval").body
        same = ast.literal_eval(literal) == value
    except (SyntaxError, ValueError):
        same = False
    return literal if same else node  # inf and nan stay spelled as the parameter
