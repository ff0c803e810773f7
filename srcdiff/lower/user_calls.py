"""Calls of the user's own code: another function (a `UserCall`); local ones are in nested.py.

A called user function is differentiated through its own transform, generated from its
own source; the caller's lowering only needs what the callee reads statically and which of
its parameters it uses as static arguments (`state.callee_facts`).
"""

from __future__ import annotations

import ast
import inspect
import types

from ..errors import SrcDiffError
from ..frontend import depends
from ..frontend.cholesky_factors import left_as_written
from ..frontend.depends import MISSING
from ..frontend.function_arguments import binds, closure_name, is_passed_function, with_functions
from ..frontend.installed import at_users_line, library_name
from ..frontend.parse import parse_function
from ..frontend.varargs import bound_function, takes_varargs
from ..ir.nodes import Const, Operand, Specialised, UserCall, Var, operand_ast
from ..rules.structural import user_rule
from .emit import emit_rule
from .expressions import ExpressionLowerer
from .facts import NOT_NONE, is_constant_argument, none_tested
from .measure_guards import guard_call
from .star_arguments import spread_starred
from .static_values import constant, static_value

#: Packages of NumPy written in plain Python on top of the functions srcdiff has rules for:
#: their functions are differentiated through their own source, like the user's.
READABLE_NUMPY = ("numpy.polynomial",)


def is_user_function(func) -> bool:
    """A plain Python function srcdiff can read (not a builtin, NumPy, or srcdiff itself)."""
    module = getattr(func, "__module__", "") or ""
    if module.startswith(READABLE_NUMPY):
        return isinstance(func, types.FunctionType)
    return isinstance(func, types.FunctionType) and module.split(".")[0] not in ("numpy", "srcdiff", "math")


def user_call(lower: ExpressionLowerer, node: ast.Call, func, target) -> Operand:
    """A call to another user function: differentiated through its own transform.  A refusal
    met inside an installed library's function (scipy's own decorator around cho_factor) is
    named at this call: the library's line is not one the user can change."""
    try:
        return _user_call(lower, node, func, target)
    except SrcDiffError as exc:
        # (a subclass is a signal a caller acts on, such as a parameter to specialise: kept as it is)
        name = library_name(func)
        named = at_users_line(exc, lower.state.parsed.location(node), name)
        if named is None:
            raise  # not in a library, or a library calling itself: its caller, the user's, names the call
        raise named from None


def _user_call(lower: ExpressionLowerer, node: ast.Call, func, target) -> Operand:
    state = lower.state
    if any(isinstance(a, ast.Starred) for a in node.args) and not takes_varargs(func):
        node = spread_starred(lower, node, func) or node  # rot(*angles): rot(angles[0], angles[1], angles[2])
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        raise state.error(node, "*args and **kwargs in a call are not supported",
                          "pass the items one by one (f(x[0], x[1])), or give the callee no defaults for them")
    unread = left_as_written(func, node)  # SciPy's Cholesky calls the frontend's rewrite left (its source: a wrapper)
    if unread is not None:
        raise state.error(node, *unread)
    if takes_varargs(func):  # bound to this call's arguments: a function of plain parameters
        func = bound_function(func, len(node.args), tuple(k.arg for k in node.keywords))
    func, node = _passed_functions(lower, node, func)
    sig = inspect.signature(func)
    try:
        bound = sig.bind(*node.args, **{k.arg: k.value for k in node.keywords})
    except TypeError as exc:
        raise state.error(node, f"cannot call {func.__name__} this way: {exc}") from None
    by_node = {id(v): k for k, v in bound.arguments.items()}
    operands = [lower.expr(a) for a in node.args] + [lower.expr(k.value) for k in node.keywords]
    names = tuple(by_node[id(a)] for a in node.args) + tuple(k.arg for k in node.keywords)
    return call_with_operands(lower, node, func, operands, names, dict(bound.arguments), target)


def call_with_operands(lower: ExpressionLowerer, node: ast.Call, func, operands: list, names: tuple,
                       given: dict, target) -> Operand:
    """`func` called at `node` (spelled ``node.func``) with its arguments lowered to `operands`
    for its parameters `names` (``node.args`` first, then ``node.keywords``); `given` maps
    each parameter passed to the expression that passes it (static arguments are read from it)."""
    state = lower.state
    sig = inspect.signature(func)
    keywords = (None,) * len(node.args) + tuple(k.arg for k in node.keywords)
    args = [operand_ast(o) for o, k in zip(operands, keywords) if k is None]
    kws = [ast.keyword(k, operand_ast(o)) for o, k in zip(operands, keywords) if k is not None]
    expr = ast.Call(node.func, args, kws)
    constants = _constants(lower, func, dict(zip(names, operands)))
    known = tuple((n, state.facts.shape_of(v)) for n, v in zip(names, operands) if state.facts.shape_of(v).known)
    facts = state.callee_facts(func, state.table, constants, tuple(names), known)
    # the callee's adjoint is built from its own source: what it reads statically counts too
    state.parsed.include(facts.depends)
    callee = _specialised_callee(lower, node, func, facts.static_parameters, sig, given,
                                 tuple((n, v) for n, v in constants if n not in facts.static_parameters))
    out = emit_rule(state, user_rule(func, tuple(sig.parameters)), tuple(operands), {}, expr,
                    target, kind=UserCall, callee=callee, arg_names=names, keywords=keywords)
    out = guard_call(lower, func, names, operands, out)  # a helper testing the norm it is given
    if facts.nograd_items:  # ``max_, mask = helper(x)``: the mask is read with no gradient
        state.nograd_items[out.name] = facts.nograd_items
    if facts.fresh_items:  # ... and max_ is a new array, which a later write cannot reach through x
        state.fresh_items[out.name] = facts.fresh_items
    if facts.returned and isinstance(out, Var):  # m = moments(x), a list of 4: m[1:3] is [m[1], m[2]]
        state.returned_displays[out.name] = facts.returned
    if facts.fresh_value and isinstance(out, Var):  # A = adjacency(): a new array the caller may write into
        state.sharing.fresh(out.name)
    return out


def _passed_functions(lower: ExpressionLowerer, node: ast.Call, func):
    """``rk4_step(rhs, t, y)``: the helper bound to the functions the call passes (its
    parameters become closure names, frontend/function_arguments.py), and the call without them."""
    try:
        bound = inspect.signature(func).bind(*node.args, **{k.arg: k.value for k in node.keywords})
    except TypeError:
        return func, node  # (reported with the call's own words below)
    passed = {}
    for name, given in bound.arguments.items():
        if isinstance(given, (ast.Name, ast.Attribute)):
            value = static_value(lower.state, given, record=False)
            if value is not MISSING and is_passed_function(value):
                passed[name] = value
    for name, p in inspect.signature(func).parameters.items():  # ``def layer(h, *, act=np.tanh)``, act left
        if name not in bound.arguments and p.default is not p.empty and is_passed_function(p.default):
            passed[name] = p.default  # out: bound to its default, as a function passed (numba takes no object)
    if not passed or not binds(func, tuple(passed)):
        return func, node
    for name in passed:  # the gradient depends on each name keeping its function
        if name in bound.arguments:
            static_value(lower.state, bound.arguments[name])
    kept = {id(v) for n, v in bound.arguments.items() if n not in passed}
    made = with_functions(func, passed)
    # generated code calls it by a name of the caller's closure (and reads it back so at higher order)
    given = "_".join(getattr(v, "__name__", "function") for v in passed.values())
    alias = closure_name(lower.state.parsed, f"{func.__name__}_with_{given}")
    lower.state.parsed.closure[alias] = types.CellType(made)
    call = ast.Call(ast.copy_location(ast.Name(alias, ast.Load()), node.func), [a for a in node.args if id(a) in kept],
                    [k for k in node.keywords if id(k.value) in kept])
    return made, ast.copy_location(call, node)


def _constants(lower: ExpressionLowerer, func, operands: dict) -> tuple:
    """``((name, value), ...)``: the None, bool and namespace constants a call passes, and
    `NOT_NONE` for an array passed where the callee tests ``b is None`` (lower/facts.py: the
    callee is lowered with them, so its tests are decided)."""
    constants = [(name, operand.value) for name, operand in operands.items()
                 if isinstance(operand, Const) and is_constant_argument(operand.value)]
    tested = none_tested(parse_function(func).tree)
    constants += [(name, NOT_NONE) for name, operand in operands.items() if name in tested
                  and isinstance(operand, Var) and lower.state.facts.shape_of(operand).known]
    return tuple(constants)


def _specialised_callee(lower: ExpressionLowerer, node: ast.Call, func, names: tuple[str, ...], sig, given: dict,
                        constants: tuple):
    """`func`, or `Specialised` on the values this call gives `names`, the parameters it uses
    as static arguments (a constant, or this function's own static parameter), and on the
    `constants` it passes (`_constants`)."""
    constants = list(constants)
    if not names and not constants:
        return func
    statics = []
    for name in names:
        passed = given.get(name)
        value = sig.parameters[name].default if passed is None else constant(lower.state, passed)
        if not depends.static_ok(value):
            raise lower.state.error(node, f"{func.__name__} uses its parameter {name} as a static "
                                    f"argument, and {name}={value!r} here is not a constant srcdiff can "
                                    "specialise on (None, a number, a bool, a string, or a tuple of them)",
                                    f"pass {name} as a Python int or tuple")
        statics.append((name, value))
    return Specialised(func, tuple(statics + constants))
