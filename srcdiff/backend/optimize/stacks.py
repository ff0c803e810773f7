"""A loop stack read by iterating over it, not popped one value at a time.

The backward sweep of a loop that is not inside another loop pops its stack once per
iteration, as many times as the forward sweep pushed::

    for _ in reversed(range(n)):        for t2, s in reversed(stack):
        t2, s = stack.pop()      -->        ...
        ...

When the loop's own variable is not read and the stack is popped nowhere else, the values
come straight from the list's reversed iterator: no range object, no method call per
iteration.  The stack is deleted after the loop as before (`memory.release`).
"""

from __future__ import annotations

import ast

from .liveness import mentions, nodes


def iterate_stacks(func: ast.FunctionDef) -> bool:
    """Rewrite the loops described above; True if any changed."""
    pops: dict[str, int] = {}
    for node in nodes(func):
        stack = _popped(node)
        if stack is not None:
            pops[stack] = pops.get(stack, 0) + 1
    changed = False
    for stmt in _outer_loops(func.body):
        if not (isinstance(stmt, ast.For) and not stmt.orelse and stmt.body and _counts(stmt)):
            continue
        first = stmt.body[0]
        if not (isinstance(first, ast.Assign) and len(first.targets) == 1):
            continue
        stack = _popped(first.value)
        if stack is None or pops.get(stack) != 1:
            continue
        if mentions(stmt.target) & set().union(*(mentions(s) for s in stmt.body)):
            continue
        stmt.target = _store(first.targets[0])
        stmt.iter = ast.Call(ast.Name("reversed", ast.Load()), [ast.Name(stack, ast.Load())], [])
        del stmt.body[0]
        if not stmt.body:
            stmt.body.append(ast.Pass())
        changed = True
    return changed


def _outer_loops(body: list[ast.stmt]):
    """The loops of `body` not nested in another loop (those in branches included)."""
    for stmt in body:
        if isinstance(stmt, (ast.For, ast.While)):
            yield stmt
        elif isinstance(stmt, ast.If):
            yield from _outer_loops(stmt.body)
            yield from _outer_loops(stmt.orelse)


def _counts(loop: ast.For) -> bool:
    """``for _ in reversed(range(...))`` or ``for _ in range(count)``, target a plain name."""
    it = loop.iter
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed" and len(it.args) == 1:
        it = it.args[0]
    return isinstance(loop.target, ast.Name) and isinstance(it, ast.Call) \
        and isinstance(it.func, ast.Name) and it.func.id == "range" and not it.keywords


def _popped(node: ast.AST) -> str | None:
    """`s` when `node` is ``s.pop()``."""
    if isinstance(node, ast.Call) and not node.args and not node.keywords \
            and isinstance(node.func, ast.Attribute) and node.func.attr == "pop" \
            and isinstance(node.func.value, ast.Name):
        return node.func.value.id
    return None


def _store(target: ast.expr) -> ast.expr:
    if isinstance(target, ast.Name):
        return ast.Name(target.id, ast.Store())
    if isinstance(target, ast.Tuple):
        return ast.Tuple([_store(e) for e in target.elts], ast.Store())
    return target


__all__ = ["iterate_stacks"]
