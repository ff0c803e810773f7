"""The optimizer's last passes: loops and branches the others emptied, and comments left with
no code under them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .liveness import bodies, is_comment, is_compound, is_pure, reads


def drop_empty(func: ast.FunctionDef) -> None:
    """Loops and branches the other passes emptied: ``for i in range(n)`` with nothing left
    in it (its target read nowhere) and ``if`` without bodies go; any other empty body gets
    a ``pass`` (a loop of the backward sweep whose adjoints all folded away, say)."""
    loads = reads(func)
    for block in reversed(list(bodies(func.body))):  # inner blocks first: emptying one may empty its loop
        kept = []
        for stmt in block:
            if is_compound(stmt) and not any(_empty(b) is False for b in _own_bodies(stmt)):
                if isinstance(stmt, ast.For) and _counts(stmt.iter) and isinstance(stmt.target, ast.Name) \
                        and not loads[stmt.target.id] or isinstance(stmt, ast.If) and is_pure(stmt.test):
                    continue
            for field in ("body", "orelse"):
                inner = getattr(stmt, field, None)
                if field == "body" and isinstance(inner, list) and _empty(inner):
                    inner[:] = [s for s in inner if not is_comment(s)] + [ast.Pass()]
                elif field == "orelse" and isinstance(inner, list) and inner and _empty(inner):
                    inner[:] = []
            kept.append(stmt)
        block[:] = kept


def _own_bodies(stmt: ast.stmt) -> list[list[ast.stmt]]:
    return [b for b in (getattr(stmt, "body", None), getattr(stmt, "orelse", None)) if isinstance(b, list)]


def _empty(block: list[ast.stmt]) -> bool:
    return all(is_comment(s) or isinstance(s, ast.Pass) for s in block)


def _counts(expr: ast.expr) -> bool:
    """``range(...)`` or ``reversed(range(...))`` over pure bounds: iterating has no effect."""
    if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "reversed" \
            and len(expr.args) == 1:
        expr = expr.args[0]
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name) and expr.func.id == "range" \
        and not expr.keywords and all(is_pure(a) for a in expr.args)


def tidy_comments(body: list[ast.stmt], is_header: Callable[[ast.stmt], bool]) -> None:
    """Drop comment lines left with nothing under them (an adjoint block that was folded away).

    A header (``# forward``, ``# backward``) stays while any statement follows before the
    next header; any other comment needs a statement before the next comment.
    """
    for block in bodies(body):
        kept: list[ast.stmt] = []
        for index, stmt in enumerate(block):
            if is_comment(stmt):
                rest = block[index + 1:]
                stop = (lambda s: is_comment(s) and is_header(s)) if is_header(stmt) else is_comment
                section = []
                for s in rest:
                    if stop(s):
                        break
                    section.append(s)
                if not any(not is_comment(s) and not isinstance(s, ast.Return) for s in section):
                    continue
            kept.append(stmt)
        block[:] = kept


def method_sums(func: ast.FunctionDef, is_array: Callable[[str], bool]) -> None:
    """``np.sum(a)`` of a whole array becomes ``a.sum()``: the same reduction without NumPy's
    function dispatch (a microsecond, much of a small gradient's time).  Code for another
    array library spells it back (`namespaces.function_sums`): the array API has no methods."""
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "np.sum" and len(node.args) == 1 \
                and not node.keywords and _certainly_array(node.args[0], is_array):
            node.func = ast.Attribute(node.args[0], "sum", ast.Load())
            node.args = []


def _certainly_array(expr: ast.expr, is_array: Callable[[str], bool]) -> bool:
    """A name of an array, or arithmetic with one (``np.sum(t9_bar * lap)``: an array too)."""
    if isinstance(expr, ast.Name):
        return is_array(expr.id)
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
        return _certainly_array(expr.left, is_array) or _certainly_array(expr.right, is_array)
    return isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.USub) and _certainly_array(expr.operand, is_array)


class _Unguarded(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and (node.func.id, len(node.args)) in (("point_guard", 3),
                                                                                   ("measure_guard", 4)):
            return node.args[0]
        return node


def drop_point_guards(func: ast.FunctionDef) -> None:
    """``point_guard(v, u, c)`` (and ``measure_guard(v, bad, d, every)``) is `v`: the guard
    matters to the code that differentiates it (its adjoint or tangent, already emitted), not to
    a value, so code that will not be differentiated again reads `v` itself (rules/point_guards.py)."""
    _Unguarded().visit(func)
