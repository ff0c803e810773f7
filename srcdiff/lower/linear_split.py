"""A tangent expression split into one term per tangent, and which terms are elementwise.

A custom_jvp rule returns one tangent expression in all the tangents, ``a * x_dot + b *
y_dot``.  Forward mode adds one contribution per operand that has a tangent, so the
expression is split: `only(expr, "x_dot")` keeps the part that reads ``x_dot`` (``a *
x_dot``), which is exact because the expression is linear in the tangents — checked here,
operation by operation, and refused (`NotLinear`) where it is not (a product of two
tangents, a tangent in a denominator or under ``np.sin``).

Reverse mode needs the transpose of each term.  Where the term is elementwise (sums,
products and quotients by primal values, negation, ``np.where``), its transpose is the
term itself with the cotangent ``g`` in the tangent's place, summed back to the argument's
shape; `is_elementwise` says why not otherwise.
"""

from __future__ import annotations

import ast
import copy

#: NumPy functions linear in their first argument (the others are not tangents)
_LINEAR_FIRST = {"sum", "mean", "cumsum", "transpose", "reshape", "ravel", "squeeze", "expand_dims",
                 "diff", "flip", "real", "conj", "trace", "diagonal", "negative", "positive",
                 "asarray", "array", "broadcast_to", "moveaxis", "swapaxes", "roll", "tile", "repeat"}
#: NumPy functions linear in each argument separately (bilinear): one side a tangent
_BILINEAR = {"dot", "matmul", "multiply", "outer", "inner", "vdot", "tensordot", "kron", "cross", "einsum"}
_ELEMENTWISE_CALLS = {"where", "multiply", "negative", "positive"}


class NotLinear(Exception):
    """The tangent is not linear in the tangents at `node`."""

    def __init__(self, node: ast.AST, reason: str):
        super().__init__(reason)
        self.node, self.reason = node, reason


def _names(e: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(e) if isinstance(n, ast.Name)}


def _np_function(func: ast.expr) -> str | None:
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "np":
        return func.attr
    return None


def only(expr: ast.expr, dot: str, tangents: set[str]) -> ast.expr | None:
    """The part of `expr` (linear in the names `tangents`) that reads `dot`; None if none."""
    if dot not in _names(expr):
        return None
    if isinstance(expr, ast.Name):
        return copy.deepcopy(expr)
    if isinstance(expr, ast.BinOp):
        left, right = expr.left, expr.right
        lt, rt = _names(left) & tangents, _names(right) & tangents
        if isinstance(expr.op, (ast.Add, ast.Sub)):
            a, b = only(left, dot, tangents), only(right, dot, tangents)
            if b is None:
                return a
            if a is None:
                return b if isinstance(expr.op, ast.Add) else ast.UnaryOp(ast.USub(), b)
            return ast.BinOp(a, expr.op, b)
        if isinstance(expr.op, (ast.Mult, ast.MatMult)):
            if lt and rt:
                raise NotLinear(expr, "a product of two tangents")
            if lt:
                return ast.BinOp(only(left, dot, tangents), expr.op, copy.deepcopy(right))
            return ast.BinOp(copy.deepcopy(left), expr.op, only(right, dot, tangents))
        if isinstance(expr.op, ast.Div):
            if rt:
                raise NotLinear(expr, "a tangent in a denominator")
            return ast.BinOp(only(left, dot, tangents), expr.op, copy.deepcopy(right))
        raise NotLinear(expr, f"the operator {type(expr.op).__name__} applied to a tangent")
    if isinstance(expr, ast.UnaryOp) and isinstance(expr.op, (ast.USub, ast.UAdd)):
        return ast.UnaryOp(expr.op, only(expr.operand, dot, tangents))
    if isinstance(expr, ast.IfExp):
        if _names(expr.test) & tangents:
            raise NotLinear(expr, "a condition on a tangent")
        return ast.IfExp(copy.deepcopy(expr.test), _or_zero(only(expr.body, dot, tangents)),
                         _or_zero(only(expr.orelse, dot, tangents)))
    if isinstance(expr, ast.Subscript):
        if _names(expr.slice) & tangents:
            raise NotLinear(expr, "a tangent used as an index")
        return ast.Subscript(only(expr.value, dot, tangents), copy.deepcopy(expr.slice), ast.Load())
    if isinstance(expr, ast.Attribute) and expr.attr in ("T", "real"):
        return ast.Attribute(only(expr.value, dot, tangents), expr.attr, ast.Load())
    if isinstance(expr, ast.Call):
        return _call(expr, dot, tangents)
    raise NotLinear(expr, f"{type(expr).__name__} of a tangent")


def _or_zero(e: ast.expr | None) -> ast.expr:
    return e if e is not None else ast.Constant(0.0)


def _call(expr: ast.Call, dot: str, tangents: set[str]) -> ast.expr:
    name = _np_function(expr.func)
    if any(_names(k.value) & tangents for k in expr.keywords):
        raise NotLinear(expr, "a tangent passed by keyword")
    args = expr.args
    reading = [i for i, a in enumerate(args) if _names(a) & tangents]
    keywords = copy.deepcopy(expr.keywords)
    if name == "where":
        if len(args) != 3 or 0 in reading:
            raise NotLinear(expr, "np.where with a tangent in its condition")
        parts = [copy.deepcopy(args[0])] + [_or_zero(only(a, dot, tangents)) for a in args[1:]]
        return ast.Call(copy.deepcopy(expr.func), parts, keywords)
    if name in _LINEAR_FIRST and reading == [0]:
        return ast.Call(copy.deepcopy(expr.func), [only(args[0], dot, tangents), *copy.deepcopy(args[1:])], keywords)
    if name in _BILINEAR and len(reading) == 1:
        i = reading[0]
        parts = [only(a, dot, tangents) if j == i else copy.deepcopy(a) for j, a in enumerate(args)]
        return ast.Call(copy.deepcopy(expr.func), parts, keywords)
    spelled = ast.unparse(expr.func)
    raise NotLinear(expr, f"{spelled}() of a tangent, which srcdiff does not know to be linear")


def is_elementwise(term: ast.expr, dot: str) -> str | None:
    """None when the term's transpose is the term with ``g`` for `dot` (elementwise), else why not."""
    for n in ast.walk(term):
        if not any(isinstance(c, ast.Name) and c.id == dot for c in ast.walk(n)):
            continue  # a primal part: anything goes
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.MatMult):
            return "a matrix product"
        if isinstance(n, (ast.Subscript, ast.Attribute)):
            return "an index or attribute of a tangent"
        if isinstance(n, ast.Call) and _np_function(n.func) not in _ELEMENTWISE_CALLS:
            return f"{ast.unparse(n.func)}() of a tangent"
    return None


__all__ = ["NotLinear", "is_elementwise", "only"]
