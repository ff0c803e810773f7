"""Lowering of arithmetic operators and attribute reads (``x * y``, ``-x``, ``x.T``, ``np.pi``)."""

from __future__ import annotations

import ast
import enum
import operator

from .. import rules
from ..frontend.depends import MISSING
from ..ir.nodes import Const, Node, Operand, Var, operand_ast
from ..rules.numpy_decompositions import NAMED_FIELDS
from .emit import emit
from .enum_members import member_attribute
from .expressions import ExpressionLowerer
from .fft_parts import fft_attribute
from .logistic_forms import logistic_quotient
from .module_arrays import module_array
from .opaque import is_dtype_object, opaque, text
from .smooth_squares import even_power, is_square, square
from .static_values import numbers, static_value
from .subscripts import subscript

BINARY_OPERATORS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow, ast.MatMult: operator.matmul, ast.Mod: operator.mod,
}
UNARY_OPERATORS = {ast.USub: operator.neg, ast.UAdd: operator.pos}
#: Operators whose value is piecewise constant in their operands (``i // 2``, ``mask & other``):
#: no gradient flows through them, as through ``np.floor`` or a comparison.
STEP_OPERATORS = (ast.FloorDiv, ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)
SHAPE_ATTRIBUTES = ("shape", "ndim", "size", "dtype")  # queries: no gradient flows through them


def lower_binop(lower: ExpressionLowerer, node: ast.BinOp, target) -> Operand:
    func = BINARY_OPERATORS.get(type(node.op))
    if isinstance(node.op, STEP_OPERATORS):
        return opaque(lower, node, target)
    if func is None:
        raise lower.state.error(node, f"the operator {type(node.op).__name__} is not differentiable",
                                "rewrite it with + - * / ** or @")
    if isinstance(node.op, ast.Mod) and _is_text(lower, node.left):
        return text(lower, node, target)  # "%f" % x formats text: not a remainder
    x, y = lower.expr(node.left), lower.expr(node.right)
    if (isinstance(node.op, ast.Pow) and is_square(y)) or (isinstance(node.op, ast.Mult) and x == y):
        smooth = square(lower, x, target)  # norm(x) ** 2 -> np.sum(x * x): exact at every order
        if smooth is not None:
            return smooth
    if isinstance(node.op, ast.Div):
        smooth = logistic_quotient(lower, x, y, target)  # 1 / (1 + np.exp(-z)) -> logistic(z): exact at every order
        if smooth is not None:
            return smooth
    if isinstance(node.op, ast.Pow) and isinstance(y, Const) and type(y.value) in (int, float) and y.value == -1:
        smooth = logistic_quotient(lower, Const(1.0), x, target)  # (1 + np.exp(-z)) ** -1: logistic(z), as above
        if smooth is not None:
            return smooth
    if isinstance(node.op, ast.Pow):
        smooth = even_power(lower, x, y, target)  # abs(x) ** 4 -> x ** 4: exact at every order
        if smooth is not None:
            return smooth
    expr = ast.BinOp(operand_ast(x), node.op, operand_ast(y))
    return emit(lower.state, func, (x, y), {}, expr, target)


def _is_text(lower: ExpressionLowerer, node: ast.expr) -> bool:
    """Whether `node` is a string: a literal, an f-string, or a name that holds one."""
    if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
        return True
    return isinstance(node, (ast.Name, ast.Attribute)) and isinstance(static_value(lower.state, node), str)


def lower_unaryop(lower: ExpressionLowerer, node: ast.UnaryOp, target) -> Operand:
    func = UNARY_OPERATORS.get(type(node.op))
    if isinstance(node.op, (ast.Invert, ast.Not)):
        return opaque(lower, node, target)  # ~mask, not ok: a value with no gradient
    if func is None:
        raise lower.state.unsupported(node)
    x = lower.expr(node.operand)
    if isinstance(x, Const):
        return Const(func(x.value))
    return emit(lower.state, func, (x,), {}, ast.UnaryOp(node.op, operand_ast(x)), target)


def lower_attribute(lower: ExpressionLowerer, node: ast.Attribute, target) -> Operand:
    state = lower.state
    value = static_value(state, node)
    if value is not MISSING:
        if isinstance(value, (int, float, complex, enum.Enum)) or numbers(value):
            return Const(value)  # np.pi, math.e; Act.TANH, a member (static: enum_members.py); Cfg.SIZES
        if is_dtype_object(value):  # utype = np.float64: a value with no gradient
            return opaque(lower, node, target)
        if callable(value):  # a function kept as a value that function_lists.py did not unroll
            raise state.error(node, f"{ast.unparse(node)} is a function kept as a value here, which srcdiff "
                              "reads only in a list, tuple or dict the function builds once and then calls "
                              "in a loop over it, its enumerate or a range of its length, or by a constant key",
                              "build the list once and loop over it as built (`for f in fs:`), or call "
                              "the functions by name")
        module = static_value(state, node.value, False) if isinstance(node.value, ast.Name) else None
        read = module_array(state, node, module, value)
        if read is not None:  # data.X: an array another module holds, read when run (module_arrays.py)
            return read
        if isinstance(module, type(ast)):
            raise state.error(node, f"{ast.unparse(node)} is a {type(value).__name__} another module holds: srcdiff "
                              "reads such data by a name of the function's own module",
                              f"import the name (from {module.__name__} import {node.attr}), or pass it as an argument")
        raise state.error(node, f"{ast.unparse(node)} is not a number")
    parts = fft_attribute(lower, node, target)  # np.fft.rfft(x).real: a real linear map of a real x
    if parts is not None:
        return parts
    if node.attr == "ndim":
        ndim = state.facts.ndim(lower.expr(node.value))
        if ndim is not MISSING:
            return Const(ndim)  # decided by the signature the gradient is specialised for
    if node.attr in SHAPE_ATTRIBUTES:
        return opaque(lower, node, target)
    fixed = member_attribute(state, node)  # ``mode.value`` of an enum member: static, like the member
    if fixed is not MISSING:
        return Const(fixed)
    func = rules.ATTRIBUTES.get(node.attr)
    if func is None:
        field = _named_field(lower, node)
        if field is not None:
            return subscript(lower, field[0], Const(field[1]), target)
        raise state.error(node, f"the attribute .{node.attr} is not supported",
                          "use the equivalent NumPy function")
    x = lower.expr(node.value)
    return emit(state, func, (x,), {}, ast.Attribute(operand_ast(x), node.attr, ast.Load()), target)


def _named_field(lower: ExpressionLowerer, node: ast.Attribute):
    """``np.linalg.eigh(x).eigenvalues``, ``r.S`` of ``r = np.linalg.svd(x)`` in this block: the
    tuple and the index of the named field NumPy's result type gives it, or None."""
    value = lower.expr(node.value)
    if not isinstance(value, Var):
        return None
    made = next((n for n in reversed(lower.state.nodes) if isinstance(n, Node) and n.out == value), None)
    fields = NAMED_FIELDS.get(made.rule.name, ()) if made is not None else ()
    return (value, fields.index(node.attr)) if node.attr in fields else None

