"""Exact rewrites of the squares of functions with a kink at 0 (``np.linalg.norm(x) ** 2``).

The 2-norm, ``hypot`` and ``std`` have no derivative at 0, their squares are smooth
everywhere: ``norm(x) ** 2`` is ``np.sum(x * x)`` at every order (the first-order rules'
subgradient 0 at 0 is right, but differentiating it again gives 0 where the truth is 2).
Lowering ``f(...) ** 2`` as the algebraic identity is exact at every order, and cheaper:

    np.linalg.norm(x, axis=a, keepdims=k) ** 2   ->  np.sum(x * x, axis=a, keepdims=k)
    np.hypot(a, b) ** 2, math.hypot(a, b) ** 2   ->  a * a + b * b
    np.std(x, axis=a, ddof=d, keepdims=k) ** 2   ->  np.var(x, axis=a, ddof=d, keepdims=k)
    np.abs(x) ** 2, abs(x) ** 2, np.fabs(x) ** 2  ->  x * x      (and ** 4, ** 6, ...: x ** 4)

(``|x| ** 2``'s second derivative through ``sign(x) ** 2`` would be 0 at 0, the truth is 2.)

``n * n`` and ``np.square(n)`` of such a value ``n`` are the same square.  Only a square whose base was computed
by such a call in the same block is rewritten; the call itself stays for any other use of
its value.
"""

from __future__ import annotations

import ast
import builtins
import math
import operator

import numpy as np

from ..frontend.complex_split import may_be_complex
from ..ir.nodes import Const, Global, Node, Operand, Var, operand_ast
from .emit import emit
from .expressions import ExpressionLowerer


def _np(name: str) -> ast.expr:
    return ast.Attribute(ast.Name("np", ast.Load()), name, ast.Load())


def _keywords(static: dict, names: tuple[str, ...], defaults: dict) -> list[ast.keyword]:
    return [ast.keyword(n, ast.Constant(static[n])) for n in names if static.get(n, defaults[n]) != defaults[n]]


#: |x|: an even power of it is the same power of x, for real x (`surely_real`)
ABSOLUTE = (np.absolute, np.fabs, builtins.abs, math.fabs)
#: functions whose value is real whatever their operand
_REAL_VALUED = (np.absolute, builtins.abs, np.real, np.imag, np.angle, np.linalg.norm, np.hypot)


def is_square(exponent: Operand) -> bool:
    return isinstance(exponent, Const) and type(exponent.value) in (int, float) and exponent.value == 2


def producer(lower: ExpressionLowerer, base: Operand) -> Node | None:
    """The node of the block being lowered that computed `base`, if it is a plain call."""
    if not isinstance(base, Var):
        return None
    for node in reversed(lower.state.nodes):
        if type(node) is Node and node.out == base:
            return node
    return None


def square(lower: ExpressionLowerer, base: Operand, target) -> Operand | None:
    """``base ** 2`` as its smooth identity when `base` is a norm, hypot or std; else None.

    (Not ``np.sqrt(s) ** 2``: ``s`` differs from it where ``s < 0``, where the function is NaN.)"""
    node = producer(lower, base)
    if node is None:
        return None
    func, state = node.rule.func, lower.state
    mul = _multiply(lower)
    if func in (np.linalg.norm, *ABSOLUTE) and not surely_real(lower, node.inputs[0]):
        return None
    if func is np.linalg.norm and _is_2_norm(lower, node):
        squares = mul(node.inputs[0], None)
        expr = ast.Call(_np("sum"), [operand_ast(squares)], _keywords(node.static, ("axis", "keepdims"),
                                                                       {"axis": None, "keepdims": False}))
        return emit(state, np.sum, (squares,), {"axis": node.static.get("axis"),
                                                "keepdims": node.static.get("keepdims", False)}, expr, target)
    if func in (np.hypot, math.hypot):
        # (math.hypot(a, b, c) is nested, frontend/call_spellings.py: each part squared smoothly too)
        a, b = ((square(lower, v, None) or mul(v, None)) for v in node.inputs[:2])
        return emit(state, operator.add, (a, b), {}, ast.BinOp(operand_ast(a), ast.Add(), operand_ast(b)), target)
    if func in ABSOLUTE:
        return mul(node.inputs[0], target)
    if func is np.std:
        x = node.inputs[0]
        keywords = _keywords(node.static, ("axis", "ddof", "keepdims"), {"axis": None, "ddof": 0, "keepdims": False})
        return emit(state, np.var, (x,), dict(node.static), ast.Call(_np("var"), [operand_ast(x)], keywords), target)
    return None


def surely_real(lower: ExpressionLowerer, v: Operand, depth: int = 0) -> bool:
    """Whether `v` holds real numbers: |z| ** 2 is z * z for real z only (for a complex z it is
    z * conj(z)), and a complex value srcdiff does not differentiate (``1 / (1 + 1j * w)`` of data)
    still reaches the value, vmap's batched code and the value of value_and_grad.  Not a complex
    constant or global, nor computed in this block from one; a parameter is real here (a complex
    argument is refused where it meets a differentiated value: ad/activity.py); another value is
    real when the function writes no complex number and calls no FFT."""
    if isinstance(v, Const):
        return not isinstance(v.value, (complex, np.complexfloating)) and np.asarray(v.value).dtype.kind != "c" \
            if not isinstance(v.value, (list, tuple)) else not any(isinstance(e, complex) for e in v.value)
    if isinstance(v, Global):
        return not v.complex
    if not isinstance(v, Var) or any(v == p for p in lower.state.params):
        return True
    node = producer(lower, v) if depth < 50 else None
    if node is None:
        return not may_be_complex(lower.state.parsed.tree)
    if getattr(node.rule, "func", None) in _REAL_VALUED:
        return True
    return all(surely_real(lower, u, depth + 1) for u in node.inputs)


def _multiply(lower: ExpressionLowerer):
    def mul(v: Operand, target) -> Operand:
        return emit(lower.state, operator.mul, (v, v), {}, ast.BinOp(operand_ast(v), ast.Mult(), operand_ast(v)),
                    target)
    return mul


def _is_2_norm(lower: ExpressionLowerer, node: Node) -> bool:
    """Whether the norm is the square root of the sum of squares (2-norm of vectors, Frobenius)."""
    order, axis = node.static.get("ord"), node.static.get("axis")
    if order in (None, "fro"):
        return True
    if order != 2:
        return False
    if isinstance(axis, int):
        return True
    shape = lower.state.facts.shape_of(node.inputs[0])
    return axis is None and shape.known and shape.ndim == 1


def even_power(lower: ExpressionLowerer, base: Operand, exponent: Operand, target) -> Operand | None:
    """``abs(x) ** k`` for an even integer k > 2 as ``x ** k`` (smooth at 0 at every order); else None."""
    if not (isinstance(exponent, Const) and type(exponent.value) in (int, float) and exponent.value > 2
            and exponent.value % 2 == 0):
        return None
    node = producer(lower, base)
    if node is None or node.rule.func not in ABSOLUTE or not surely_real(lower, node.inputs[0]):
        return None
    x = node.inputs[0]
    return emit(lower.state, operator.pow, (x, exponent), {},
                ast.BinOp(operand_ast(x), ast.Pow(), operand_ast(exponent)), target)
