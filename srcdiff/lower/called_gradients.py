"""A call of a srcdiff gradient inside a function srcdiff differentiates (``dloss(w, X, y)``).

A gradient object (``dloss = srcdiff.grad(loss)``, or ``srcdiff.value_and_grad(loss)``)
runs generated code that srcdiff can read back and differentiate again (driver/higher.py:
``srcdiff.grad(srcdiff.grad(f))`` differentiates the same code).  A call of one is lowered
as a call of a helper whose source is that code, for the kinds of arguments of the call
(ndim and length-one axes: the shapes lowering knows from the outer function's signature):
the generated gradient calls that helper by name in its forward sweep and its adjoint in its
backward sweep, like any helper of the user's.  A value_and_grad object is the tuple of a
call of the function and a call of that helper.

The object says what its call stands for through one method, ``called_code(args)``, given
arguments of the call's kinds (`CalledCode`); this module is the one place that asks.
"""

from __future__ import annotations

import ast
import types
from dataclasses import dataclass

import numpy as np

from ..errors import SrcDiffError
from ..frontend.callables import is_gradient_object
from ..frontend.depends import MISSING
from ..frontend.function_arguments import closure_name
from ..frontend.naming import assigned_names
from ..ir import memo, shapes
from ..ir.nodes import Const, Operand, Var
from .expressions import ExpressionLowerer
from .lists import new_list
from .static_values import constant, static_value
from .user_calls import call_with_operands


@dataclass(frozen=True)
class CalledCode:
    """What a call of a gradient object stands for, for one kind of arguments."""

    gradient: types.FunctionType  # the gradient's code as a function srcdiff reads (it returns the gradient)
    value: types.FunctionType | None  # value_and_grad's function (its value comes first); None for grad
    depends: tuple  # what lowering the gradient read statically: the caller's transform depends on it too
    statics: tuple[str, ...]  # the parameters the gradient's code was specialised on the values of


def refuse_other_transformed(state, node: ast.Call, func) -> None:
    """Refuse, at the call, a call of a function another srcdiff transformation made (a Jacobian,
    a Hessian, a gradient of a gradient, vmap, jvp_function): it runs generated code srcdiff does not
    read back as one function (``no adjoint rule`` would be the wrong advice)."""
    if not type(func).__module__.startswith("srcdiff.api.") or is_gradient_object(func):
        return
    name = getattr(func, "__qualname__", type(func).__name__)
    raise state.error(node, f"{name} is a function made by a srcdiff transformation other than grad and "
                      "value_and_grad, and srcdiff differentiates a call of a gradient object only",
                      "call srcdiff.grad(f) or srcdiff.value_and_grad(f) objects inside the function; for a second "
                      "derivative, call the gradient of a function that calls one (def slope(x): return dloss(x); "
                      "srcdiff.grad(slope)), or compute the Jacobian or Hessian outside the function")


def gradient_call(lower: ExpressionLowerer, node: ast.Call, obj, target) -> Operand:
    """``dloss(w, X, y)`` for a gradient object `obj`: see the module docstring."""
    state = lower.state
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        raise state.error(node, "*args and **kwargs in a call are not supported")
    names = list(obj.names)
    try:
        bound = obj.positional(tuple(node.args), {k.arg: k.value for k in node.keywords})
    except (TypeError, SrcDiffError) as exc:
        raise state.error(node, f"cannot call {obj.__qualname__} this way: {exc}") from None
    given = {n: a for n, a in zip(names, bound) if isinstance(a, ast.AST)}
    lowered = {n: lower.expr(a) for n, a in given.items()}  # (each argument once, in the order written)
    made_up = {n for n, v in lowered.items() if not isinstance(v, Const)}
    examples = tuple(_example(lower, lowered[n]) if n in lowered else v for n, v in zip(names, bound))
    generic = any(e is UNKNOWN for e in examples)  # (in a loop: code for any shape, compiled for the caller's)
    try:
        code = obj.called_code(None if generic else examples)
        if generic and code.statics:
            raise SrcDiffError(f"its code is specialised on the values of {', '.join(code.statics)}")
    except SrcDiffError as exc:
        if generic:
            raise state.error(node, f"srcdiff cannot tell the shape of an argument of {obj.__qualname__} here (a "
                              "value a loop changes), and its code for arguments of any shape cannot be made: "
                              f"{exc.reason}", "give the arrays a shape known from the function's arguments "
                              "(a value the loop does not change), or unroll the loop") from None
        if exc.location is not None:
            raise  # at a line of the function the gradient is of (a line of the user's)
        raise state.error(node, exc.reason, exc.hint) from None
    static = sorted(made_up & set(code.statics))
    if static:
        raise state.error(node, f"{obj.__qualname__}'s code is specialised on the value of {', '.join(static)} "
                          "(a static argument), and this call passes a value known only when it runs",
                          f"pass {static[0]} as a constant (a number written in the call, or a default)")
    state.parsed.include(code.depends)  # (a global the gradient read statically, rebound: built again)
    arg_names = tuple(names[:len(node.args)]) + tuple(k.arg for k in node.keywords)
    operands = [lowered[n] for n in arg_names]
    gradient = _call(lower, node, code.gradient, operands, arg_names, given, None if code.value else target)
    if code.value is None:
        return gradient
    value = _call(lower, node, code.value, operands, arg_names, given, None)
    return new_list(lower, [value, gradient], target, tuple_=True)


def _call(lower: ExpressionLowerer, node: ast.Call, func, operands, names, given, target) -> Operand:
    """A call of `func` at `node`, spelled by a name of the caller's closure (generated code calls it so)."""
    alias = ast.copy_location(ast.Name(_alias(lower.state.parsed, func), ast.Load()), node.func)
    spelled = ast.copy_location(ast.Call(alias, node.args, node.keywords), node)
    return call_with_operands(lower, spelled, func, operands, names, given, target)


def _alias(parsed, func) -> str:
    """The name the caller's code calls `func` by: its own name, made free in the caller (the
    same gradient called at two kinds of arguments is two functions, two names)."""
    name = func.__name__
    if parsed.resolve(name) is func and name not in assigned_names(parsed.tree):
        parsed.depend(name, func)  # value_and_grad's function, a global of the caller's too: called by its name
        return name
    for name, cell in parsed.closure.items():
        if cell.cell_contents is func:
            return name
    alias = closure_name(parsed, func.__name__)
    while alias in parsed.closure:
        alias += "_"
    parsed.closure[alias] = types.CellType(func)
    return alias


#: an argument whose kind lowering cannot tell
UNKNOWN = object()


def _example(lower: ExpressionLowerer, operand: Operand):
    """A value of the kind the call passes (its value, for a constant), UNKNOWN if lowering cannot
    tell: what the gradient's code is specialised for.  Lowering read the argument's shape, so the
    caller's transform is keyed on its signature too."""
    state = lower.state
    if isinstance(operand, Const):
        return operand.value
    shape = state.facts.shape_of(operand)
    if isinstance(operand, Var):
        state.facts.used_shapes = True
    if shape.scalar:
        return 0.5
    if shape.known and shape.shape_of is None and all(d in (shapes.ONE, shapes.MANY) for d in shape.dims):
        return np.full(tuple(1 if d == shapes.ONE else 2 for d in shape.dims), 0.5)
    return UNKNOWN


def is_maker(func) -> bool:
    """``srcdiff.grad`` or ``srcdiff.value_and_grad``: a call of it makes a gradient object."""
    return getattr(func, MAKER, False) is True


def made_gradient(state, callee: ast.Call):
    """The gradient object a call of a registered maker makes (``srcdiff.grad(loss)`` called in place,
    ``srcdiff.grad(loss)(w, X, y)``) from arguments known when lowering, else MISSING; one object per
    maker and arguments, so its code is made once."""
    maker = static_value(state, callee.func, record=False)
    if not is_maker(maker) or any(isinstance(a, ast.Starred) for a in callee.args) \
            or any(k.arg is None for k in callee.keywords):
        return MISSING
    static_value(state, callee.func)  # (the transform depends on the name keeping it)
    args = tuple(_static(state, a) for a in callee.args)
    keywords = tuple((k.arg, _static(state, k.value)) for k in callee.keywords)
    key = (maker, args, keywords)
    try:
        found = _MADE.get(key)
    except TypeError:  # wrt=[0, 1]: made again at each lowering (the same code, cached by the driver)
        key = found = None
    if found is None:
        try:
            found = maker(*args, **dict(keywords))
        except SrcDiffError as exc:
            raise exc if exc.location is not None else state.error(callee, exc.reason, exc.hint) from None
        if key is not None:
            _MADE[key] = found
    return found


def _static(state, node: ast.expr):
    """An argument of a maker: a function named statically, or a constant (refused otherwise)."""
    found = static_value(state, node)
    return found if found is not MISSING else constant(state, node)


#: the functions that make a gradient object: srcdiff.grad and srcdiff.value_and_grad (api/gradients.py adds them)
#: the attribute marking a function whose call makes a gradient object (api/gradients.py marks its own)
MAKER = "__srcdiff_makes_gradients__"
_MADE = memo.table()


__all__ = ["MAKER", "UNKNOWN", "CalledCode", "gradient_call", "is_gradient_object", "is_maker", "made_gradient",
           "refuse_other_transformed"]
