"""A history list read only at its last item in the loop that grows it, carried as a name of its own::

    hs = [h0]                                     hs_last = h0
                                                  hs = [hs_last]
    for x in xs:                                  for x in xs:
        hs.append(np.tanh(x @ W + hs[-1] @ U))        hs_last = np.tanh(x @ W + hs_last @ U)
                                                      hs.append(hs_last)

list_joins.py makes a list grown while read in the same loop a new list in every iteration (a copy
of the old one and the new item): O(n²) copies for n items, and a gradient that walks every copy
back (an RNN keeping its states in a list took twice its hand-written gradient at 50 steps).  When
the loop reads the list only at ``[-1]`` and grows it only by ``append`` statements of its own body,
that item is always the last value appended, or the last item of the display the list was made
from just before the loop: a name carrying it reads what Python reads at every point, and the list
is then only appended to in the loop, which lowering differentiates item by item (as a list read
after its loop).  Anything else (a read of another item or of the whole list in the loop, an append
inside a branch or a nested loop, a list made otherwise, a lambda reading it) is left to list_joins.py.
"""

from __future__ import annotations

import ast

from .naming import inner_blocks

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def carry_last_items(body: list, single: set, namer) -> None:
    """Rewrite, in place, in `body` and the blocks inside it, each list of `single` (names of one list
    each) read only at its last item in a ``for`` loop that appends to it (module docstring)."""
    k = 0
    while k < len(body):
        stmt = body[k]
        if isinstance(stmt, _SCOPES):
            k += 1
            continue
        for inner in inner_blocks(stmt):
            carry_last_items(inner, single, namer)
        if isinstance(stmt, ast.For):
            for name in sorted(single):
                made = _made_before(body, k, name)
                if made is not None and _last_read_only(stmt, name):
                    k += _carry(body, made, stmt, name, namer.fresh(f"{name}_last"))
        k += 1


def _made_before(body: list, k: int, name: str) -> int | None:
    """The place of ``name = [e1, ..., en]`` in `body`, the last statement before `k` that mentions
    `name`, when its items before the last are names or numbers (read in any order), else None."""
    for j in range(k - 1, -1, -1):
        stmt = body[j]
        if not _mentions(stmt, name):
            continue
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and stmt.targets[0].id == name and isinstance(stmt.value, ast.List) and stmt.value.elts \
                and not any(isinstance(e, ast.Starred) for e in stmt.value.elts) \
                and all(isinstance(e, (ast.Name, ast.Constant)) for e in stmt.value.elts[:-1]) \
                and not _mentions(stmt.value, name):
            return j
        return None
    return None


def _last_read_only(loop: ast.For, name: str) -> bool:
    """Whether `loop` reads `name` only at ``[-1]`` and changes it only by ``name.append(v)`` statements
    of its own body (at least one of each), with no nested scope or ``else`` reading it."""
    if _mentions(loop.target, name) or _mentions(loop.iter, name) or any(_mentions(s, name) for s in loop.orelse):
        return False
    appends = [s for s in loop.body if _append_of(s, name) is not None]
    if not appends:
        return False
    allowed = {id(s.value.func.value) for s in appends}
    lasts = 0
    for node in ast.walk(ast.Module(loop.body, [])):
        if isinstance(node, _SCOPES) and any(_mentions(n, name) for n in ast.iter_child_nodes(node)):
            return False
        if isinstance(node, ast.Subscript) and _is_name(node.value, name) and _is_last(node.slice) \
                and isinstance(node.ctx, ast.Load):
            allowed.add(id(node.value))
            lasts += 1
    used = [n for n in ast.walk(ast.Module(loop.body, [])) if isinstance(n, ast.Name) and n.id == name]
    return lasts > 0 and all(id(n) in allowed and isinstance(n.ctx, ast.Load) for n in used)


def _carry(body: list, j: int, loop: ast.For, name: str, last: str) -> int:
    """Make the rewrite; the number of statements added before the loop."""
    made = body[j]
    *first, final = made.value.elts
    bound = ast.copy_location(ast.Assign([ast.Name(last, ast.Store())], final), made)
    made.value = ast.copy_location(ast.List([*first, ast.Name(last, ast.Load())], ast.Load()), made.value)
    body.insert(j, bound)
    _ReadLast(name, last).visit(loop)
    rewritten = []
    for stmt in loop.body:
        value = _append_of(stmt, name)
        if value is None:
            rewritten.append(stmt)
            continue
        rewritten.append(ast.copy_location(ast.Assign([ast.Name(last, ast.Store())], value), stmt))
        stmt.value.args = [ast.Name(last, ast.Load())]
        rewritten.append(stmt)
    loop.body[:] = rewritten
    return 1


class _ReadLast(ast.NodeTransformer):
    def __init__(self, name: str, last: str):
        self.name, self.last = name, last

    def visit_Subscript(self, node: ast.Subscript):
        self.generic_visit(node)
        if _is_name(node.value, self.name) and _is_last(node.slice) and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Name(self.last, ast.Load()), node)
        return node


def _append_of(stmt: ast.stmt, name: str) -> ast.expr | None:
    """v of a statement ``name.append(v)``, else None."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
            and _is_name(call.func.value, name) and len(call.args) == 1 and not call.keywords \
            and not isinstance(call.args[0], ast.Starred):
        return call.args[0]
    return None


def _is_last(index: ast.expr) -> bool:
    """Whether `index` is the number -1 (``-1`` parses as a negation of 1)."""
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.USub):
        return isinstance(index.operand, ast.Constant) and type(index.operand.value) is int and index.operand.value == 1
    return isinstance(index, ast.Constant) and type(index.value) is int and index.value == -1


def _is_name(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _mentions(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


__all__ = ["carry_last_items"]
