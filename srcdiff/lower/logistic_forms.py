"""A sigmoid written out, lowered as one node of srcdiff's logistic function (rules/logistic.py):

    1.0 / (1.0 + np.exp(-z)),  1 / (np.exp(-z) + 1)       ->  logistic(z)
    1.0 / (1.0 + np.exp(-a * z)),  1.0 / (1.0 + np.exp(u)) ->  logistic(a * z),  logistic(-u)
    np.exp(z) / (1.0 + np.exp(z)),  e / (e + 1.0)          ->  logistic(z)       (e = np.exp(z))
    c / (1.0 + np.exp(-z)),  (1.0 + np.exp(-z)) ** -1       ->  c * logistic(z),  logistic(z)

Lowered as written, its derivatives go through ``np.exp(-z)``, which overflows to inf where the
sigmoid saturates (``z < -709``, -88 in float32, ``z = -inf``): ``s / d * e`` is ``0 * inf``, and a
Hessian's ``(1 - 1 / d) / d`` differentiated is ``inf / inf``, NaN where the derivatives are 0.
`logistic`'s rule, ``g * ans * (1.0 - ans)``, is finite everywhere and exact at every order, in every
transformation.  The parts are read from the nodes this block computed (`producer`), so the sum or
the exponential may be named on lines of their own; their nodes stay for other reads (else dead
code).  The node is printed ``1.0 / (1.0 + np.exp(-z))`` (no helper in generated code; read back, it
is this node again).  Only NumPy's ``np.exp`` (not ``math.exp``, whose float stays a float and raises
where it overflows), of real values (``surely_real``), and the constant 1 (``1`` or ``1.0``).  The
value is the first spelling's; the second's differs by rounding, and by 1 for ``z > 709``, where
``inf / inf`` was NaN.
"""

from __future__ import annotations

import ast
import operator

import numpy as np

from ..ir.nodes import Const, Node, Operand, operand_ast
from ..rules.logistic import logistic
from .emit import emit
from .expressions import ExpressionLowerer
from .smooth_squares import producer, surely_real


def _one(v: Operand) -> bool:
    return isinstance(v, Const) and type(v.value) in (int, float) and v.value == 1


def _made_by(lower: ExpressionLowerer, v: Operand, func) -> Node | None:
    node = producer(lower, v)
    return node if node is not None and getattr(node.rule, "func", None) is func else None


def _exponent(lower: ExpressionLowerer, v: Operand) -> Operand | None:
    """u where `v` is ``np.exp(u)`` computed in this block, else None."""
    node = _made_by(lower, v, np.exp)
    return node.inputs[0] if node is not None and len(node.inputs) == 1 and not node.static else None


def _negated(lower: ExpressionLowerer, u: Operand) -> Operand:
    """-u: the operand of a negation computed in this block, else a new negation."""
    node = _made_by(lower, u, operator.neg)
    if node is not None:
        return node.inputs[0]
    return emit(lower.state, operator.neg, (u,), {}, ast.UnaryOp(ast.USub(), operand_ast(u)), None)


def logistic_quotient(lower: ExpressionLowerer, numerator: Operand, denominator: Operand, target) -> Operand | None:
    """``numerator / denominator`` as ``logistic(z)`` when it is a sigmoid written out (module doc),
    else None."""
    total = _made_by(lower, denominator, operator.add)
    if total is None or len(total.inputs) != 2:
        return None
    a, b = total.inputs
    e = b if _one(a) else a if _one(b) else None
    u = _exponent(lower, e) if e is not None else None
    if u is None or not surely_real(lower, u):
        return None
    scale = None
    if numerator == e or _exponent(lower, numerator) == u:
        z = u
    else:  # c / (1 + exp(-z)) is c * logistic(z): its derivatives through exp overflow as the sigmoid's do
        z, scale = _negated(lower, u), None if _one(numerator) else numerator
    # printed as the first spelling (no helper in the generated code; read back, it is this call again)
    expr = ast.BinOp(ast.Constant(1.0), ast.Div(), ast.BinOp(ast.Constant(1.0), ast.Add(), ast.Call(
        ast.Attribute(ast.Name("np", ast.Load()), "exp", ast.Load()), [ast.UnaryOp(ast.USub(), operand_ast(z))], [])))
    if scale is None:
        return emit(lower.state, logistic, (z,), {}, expr, target)
    s = emit(lower.state, logistic, (z,), {}, expr, None)
    product = ast.BinOp(operand_ast(scale), ast.Mult(), operand_ast(s))
    return emit(lower.state, operator.mul, (scale, s), {}, product, target)
