"""``:=`` (an assignment expression) as the assignment just before its statement.

Where Python always evaluates it, and before anything else in the statement reads its name,
``(n := e)`` computes ``e``, names it and gives its value; so does ``n = e`` written just before
the statement, which then reads ``n``::

    if (n := np.sum(w ** 2)) > 0.5:          n = np.sum(w ** 2)
        return np.sum(np.tanh(X @ w)) + n    if n > 0.5:
                                                 return np.sum(np.tanh(X @ w)) + n

It is rewritten so in an assignment, ``return``, expression statement, an ``if``/``elif``'s
test and a ``for``'s iterable.  One in a ``while`` test (evaluated again each time round),
after the first operand of ``and``/``or``, in a branch of a conditional expression, or in a
comprehension or lambda may not run, or run again: it is left as written, and lowering
refuses it at its line.
"""

from __future__ import annotations

import ast

from .desugar_reduce import HIDDEN, SIMPLE, replace_node
from .naming import inner_blocks


def has_named_values(tree: ast.FunctionDef) -> bool:
    return any(isinstance(n, ast.NamedExpr) for n in ast.walk(tree))


def hoist_named_values(tree: ast.FunctionDef) -> None:
    """Rewrite, in place, each ``:=`` of `tree`'s own statements that always runs."""
    _block(tree.body)


def _block(body: list) -> None:
    k = 0
    while k < len(body):
        stmt = body[k]
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            k += 1
            continue
        for inner in inner_blocks(stmt):
            _block(inner)
        part = stmt.test if isinstance(stmt, ast.If) else stmt.iter if isinstance(stmt, ast.For) \
            else stmt if isinstance(stmt, SIMPLE) else None
        before = []
        while part is not None:
            named = _first_named(part)
            if named is None:
                break
            before.append(ast.copy_location(ast.Assign([ast.Name(named.target.id, ast.Store())], named.value),
                                            named))
            new = ast.copy_location(ast.Name(named.target.id, ast.Load()), named)
            if part is named:
                part = new
                setattr(stmt, "test" if isinstance(stmt, ast.If) else "iter", new)
            else:
                replace_node(part, named, new)
        body[k:k] = before
        k += len(before) + 1


def _first_named(part: ast.AST) -> ast.NamedExpr | None:
    """The first ``:=`` Python evaluates in `part`, if it always runs there and no read of its
    name comes before it; else None."""
    order: list[ast.AST] = []  # nodes in the order Python evaluates them (close enough: see _evaluated)
    unsure: set[int] = set()

    def walk(node, hidden):
        for child in _evaluated(node):
            inner = hidden or isinstance(child, HIDDEN) or _conditional(node, child)
            if inner:
                unsure.add(id(child))
            walk(child, inner)
            order.append(child)
    walk(part, False)
    if isinstance(part, ast.NamedExpr):
        order.append(part)
    for k, node in enumerate(order):
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            if id(node) in unsure:
                return None
            name = node.target.id
            if any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id == name
                   for n in order[:k] if not _inside(n, node)):
                return None  # read before it: the hoisted value would be read there too early
            return node
    return None


def _inside(node: ast.AST, named: ast.NamedExpr) -> bool:
    return any(n is node for n in ast.walk(named.value))


def _conditional(parent: ast.AST, child: ast.AST) -> bool:
    """Whether `child` of `parent` may not be evaluated (or be evaluated more than once)."""
    if isinstance(parent, ast.BoolOp):
        return child is not parent.values[0]
    if isinstance(parent, ast.IfExp):
        return child is not parent.test
    return False


def _evaluated(node: ast.AST) -> list:
    """`node`'s children in the order Python evaluates them: an assignment's value before its
    targets, an ``AugAssign``'s target read first; otherwise the order of the fields."""
    if isinstance(node, ast.Assign):
        return [node.value, *node.targets]
    if isinstance(node, ast.AnnAssign):
        return [n for n in (node.value, node.target) if n is not None]
    return list(ast.iter_child_nodes(node))


__all__ = ["has_named_values", "hoist_named_values"]
