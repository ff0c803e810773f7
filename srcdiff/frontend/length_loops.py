"""A ``while`` loop that grows a list until it is long enough, rewritten (desugar.py, right after
parsing) as the ``for`` loop it is::

    while len(history) < n:                     for _ in range(len(history), n):
        history.append(f(history[-1]))              history.append(f(history[-1]))

Each iteration appends exactly one item (one ``append`` at the top level of the body, nothing
else changes the list, no ``break``, ``continue`` or ``return``) and nothing in the body changes
`n`, so the loop runs ``n - len(history)`` times (none when the list is long enough already), as
``range`` counts.  A ``for`` loop then carries the list as any other (list_joins.py grows it while
it is read); lowering refuses a ``while`` loop carrying a list it rebuilds.  ``<=`` (and the
comparison turned round, ``n > len(history)``) count one more.
"""

from __future__ import annotations

import ast

from .naming import FreeNames, assigned_names

_EXITS = (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom, ast.Raise, ast.Try)


def has_length_loops(tree: ast.FunctionDef) -> bool:
    """A cheap test: a ``while`` whose test is a comparison with ``len(...)``."""
    return any(isinstance(n, ast.While) and _counted(n.test) is not None for n in ast.walk(tree))


def rewrite_length_loops(tree: ast.FunctionDef, names: FreeNames) -> None:
    """Rewrite, in place, the loops of the module's doc."""

    class Loops(ast.NodeTransformer):
        def visit_FunctionDef(self, node):
            return node if node is not tree else self.generic_visit(node)

        def visit_While(self, node):
            self.generic_visit(node)
            found = _counted(node.test)
            if found is None or node.orelse or names.resolve(ast.Name("len", ast.Load())) is not len:
                return node
            name, bound, inclusive = found
            if not _grows_by_one(node.body, name) or assigned_names(ast.Module(node.body, [])) & _names(bound):
                return node
            stop = ast.BinOp(bound, ast.Add(), ast.Constant(1)) if inclusive else bound
            length = ast.Call(ast.Name("len", ast.Load()), [ast.Name(name, ast.Load())], [])
            counter = ast.Name(names.namer.fresh("appended"), ast.Store())
            loop = ast.For(counter, ast.Call(ast.Name("range", ast.Load()), [length, stop], []), node.body, [], None)
            return ast.fix_missing_locations(ast.copy_location(loop, node))

    Loops().visit(tree)


def _counted(test: ast.expr) -> tuple[str, ast.expr, bool] | None:
    """(the list, the bound, whether the bound is reached too) of ``len(xs) < n`` / ``<=``, or of
    ``n > len(xs)`` / ``>=``; None for any other test."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(op, (ast.Gt, ast.GtE)):
        left, right, op = right, left, ast.Lt() if isinstance(op, ast.Gt) else ast.LtE()
    if not isinstance(op, (ast.Lt, ast.LtE)) or not (
            isinstance(left, ast.Call) and isinstance(left.func, ast.Name) and left.func.id == "len"
            and len(left.args) == 1 and not left.keywords and isinstance(left.args[0], ast.Name)):
        return None
    return left.args[0].id, right, isinstance(op, ast.LtE)


def _names(node: ast.expr) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _grows_by_one(body: list, name: str) -> bool:
    """Whether `body` appends one item to list `name` each time it runs, and changes it no other way."""
    appends = [s for s in body if isinstance(s, ast.Expr) and _appends(s.value, name)]
    if len(appends) != 1:
        return False
    for node in ast.walk(ast.Module(body, [])):
        if isinstance(node, _EXITS) or isinstance(node, (ast.FunctionDef, ast.Lambda, ast.ClassDef)):
            return False  # (a nested function may change the list when it is called)
        if isinstance(node, ast.Call) and node is not appends[0].value and any(
                a is not None and isinstance(a, ast.Name) and a.id == name for a in (*node.args, _owner(node))):
            return False  # the list passed to a call, or another of its methods (pop, extend, clear)
        if isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            return False
        if isinstance(node, (ast.Subscript, ast.Attribute)) and not isinstance(node.ctx, ast.Load) \
                and isinstance(node.value, ast.Name) and node.value.id == name:
            return False
    return True


def _appends(call: ast.expr, name: str) -> bool:
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
        and isinstance(call.func.value, ast.Name) and call.func.value.id == name and len(call.args) == 1 \
        and not call.keywords


def _owner(call: ast.Call) -> ast.expr | None:
    """The object a method call is made on (``xs`` of ``xs.pop()``), else None."""
    return call.func.value if isinstance(call.func, ast.Attribute) else None


__all__ = ["has_length_loops", "rewrite_length_loops"]
