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
from ..frontend.function_arguments import closure_name
from ..ir import shapes
from ..ir.nodes import Const, Operand, Var
from .expressions import ExpressionLowerer
from .lists import new_list
from .user_calls import call_with_operands


@dataclass(frozen=True)
class CalledCode:
    """What a call of a gradient object stands for, for one kind of arguments."""

    gradient: types.FunctionType  # the gradient's code as a function srcdiff reads (it returns the gradient)
    value: types.FunctionType | None  # value_and_grad's function (its value comes first); None for grad
    depends: tuple  # what lowering the gradient read statically: the caller's transform depends on it too
    statics: tuple[str, ...]  # the parameters the gradient's code was specialised on the values of


def is_gradient_object(func) -> bool:
    """A srcdiff gradient (or value_and_grad) object: it says what a call of it stands for."""
    return callable(getattr(type(func), "called_code", None))


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
    made_up = set()
    examples = []
    for name, value in zip(names, bound):
        if name not in lowered:
            examples.append(value)  # a default
            continue
        example = _example(lower, node, obj, name, lowered[name])
        if not isinstance(lowered[name], Const):
            made_up.add(name)
        examples.append(example)
    try:
        code = obj.called_code(tuple(examples))
    except SrcDiffError as exc:
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
    for name, cell in parsed.closure.items():
        if cell.cell_contents is func:
            return name
    alias = closure_name(parsed, func.__name__)
    while alias in parsed.closure:
        alias += "_"
    parsed.closure[alias] = types.CellType(func)
    return alias


def _example(lower: ExpressionLowerer, node: ast.Call, obj, name: str, operand: Operand):
    """A value of the kind the call passes `name` (its value, for a constant): what the
    gradient's code is specialised for.  Lowering read the argument's shape, so the caller's
    transform is keyed on its signature too."""
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
    if state.facts.param_shapes is None:
        raise state.error(node, f"{obj.__qualname__} is called here, and its code depends on the kinds of its "
                          "arguments, which are known once the function is called",
                          "call the gradient once (or use .source_for(*args)) before reading its source")
    raise state.error(node, f"srcdiff cannot tell the shape (ndim and length-one axes) of {name} here, and "
                      f"{obj.__qualname__}'s code depends on it", f"give {name} a shape known from the "
                      "function's arguments (np.reshape it, or pass it as a parameter)")


__all__ = ["CalledCode", "gradient_call", "is_gradient_object"]
