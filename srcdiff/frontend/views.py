"""A view of an array updated in place, read as the part of the array it shows (desugar.py).

``head = buf[:3]`` makes `head` a view: NumPy's ``head += x`` then changes `buf` too.  srcdiff
reads every value as a new array, so such a view is rewritten, right after parsing, as the
part of `buf` it stands for, where that is exactly what NumPy does::

    buf = np.zeros(6)                         buf = np.zeros(6)
    head = buf[:3]                  ==>
    head += x                                 buf[:3] += x
    total = np.sum(head * w)                  total = np.sum(buf[:3] * w)

The index must hold a slice, its other parts ints for sure (``buf[:3]``, ``B[:, 1]``, ``A[i, 1:]``
with ``i`` a ``range`` counter: a view of an array; ``A[i]`` alone is a view of a matrix but a
number of a vector, and ``A[idx, :]`` a copy when ``idx`` is an index array: left as written), and
the view is rewritten only when it is updated in place (``op=``) and otherwise only read, after
its assignment in the same block, while nothing rebinds the array or the index's names.  Any
other view updated in place is refused at its line, as before.
"""

from __future__ import annotations

import ast
import copy

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def substitute_views(tree: ast.FunctionDef) -> None:
    """Rewrite, in place, each view of `tree` updated in place as the part of its array."""
    counters = range_counters(tree)
    for block in statement_blocks(tree):
        k = 0
        while k < len(block):
            found = _view(block[k])
            if found is not None and all(basic_part(p, counters) for p in found[2]) \
                    and _only_read_and_updated(tree, block, k, *found[:2]):
                name, index, _ = found
                later = [_Put(name, index).visit(s) for s in block[k + 1:]]
                block[k:] = later
                continue
            k += 1
    ast.fix_missing_locations(tree)


def statement_blocks(tree: ast.FunctionDef):
    """Every statement list of the function's own scope."""
    todo = [tree]
    while todo:
        node = todo.pop()
        for field in ("body", "orelse", "finalbody"):
            value = getattr(node, field, None)
            if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
                yield value
                todo.extend(s for s in value if not isinstance(s, _SCOPES))
        todo.extend(getattr(node, "handlers", []))


def _view(stmt: ast.stmt):
    """(name, subscript) of ``name = array[... slice ...]``, else None."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    value = stmt.value
    if not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)):
        return None
    parts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
    if not any(isinstance(p, ast.Slice) or isinstance(p, ast.Constant) and p.value is Ellipsis for p in parts) \
            or any(isinstance(n, (ast.Call, ast.NamedExpr)) for n in ast.walk(value.slice)) \
            or value.value.id == stmt.targets[0].id:
        return None
    return stmt.targets[0].id, value, [p for p in parts if not isinstance(p, ast.Slice)]


def basic_part(part: ast.expr, counters: set) -> bool:
    """Whether an index part besides a slice is an int for sure (a constant, a counter of a
    ``for ... in range(...)``, or arithmetic of those) or ``...``/``None``: then the subscript
    is a view.  (A name that may hold an index array makes a copy.)"""
    if isinstance(part, ast.Constant):
        return part.value is Ellipsis or part.value is None or type(part.value) is int
    if isinstance(part, ast.Name):
        return part.id in counters
    if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.USub):
        return basic_part(part.operand, counters)
    return isinstance(part, ast.BinOp) and isinstance(part.op, (ast.Add, ast.Sub, ast.Mult)) \
        and basic_part(part.left, counters) and basic_part(part.right, counters)


def range_counters(tree: ast.FunctionDef) -> set:
    """Names assigned only as the counter of a ``for name in range(...)``: ints."""
    loops = {id(n.target) for n in ast.walk(tree) if isinstance(n, ast.For) and isinstance(n.target, ast.Name)
             and isinstance(n.iter, ast.Call) and getattr(n.iter.func, "id", None) == "range"}
    stores: dict = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            stores.setdefault(n.id, []).append(id(n) in loops)
    return {name for name, kinds in stores.items() if all(kinds)}


def _only_read_and_updated(tree, block: list, k: int, name: str, index: ast.Subscript) -> bool:
    """Whether `name` is assigned only at ``block[k]``, read only after it in `block`, updated
    in place there at least once, and nothing there rebinds the array or the index's names."""
    later = block[k + 1:]
    inside = {id(n) for s in later for n in ast.walk(s)}
    fixed = {n.id for n in ast.walk(index) if isinstance(n, ast.Name)}
    updated = False
    for node in ast.walk(tree):
        if isinstance(node, _SCOPES) and node is not tree and any(
                isinstance(n, ast.Name) and n.id == name for n in ast.walk(node)):
            return False  # a nested scope sees the name
        if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            if id(node) not in inside:
                return False
            updated = True
            continue
        if not isinstance(node, ast.Name):
            continue
        if node.id == name and isinstance(node.ctx, ast.Load) and id(node) not in inside:
            return False
        if node.id == name and not isinstance(node.ctx, ast.Load) and node is not block[k].targets[0] \
                and not _aug_target(tree, node):
            return False
        if node.id in fixed and not isinstance(node.ctx, ast.Load) and id(node) in inside:
            return False
    return updated


def _aug_target(tree, node: ast.Name) -> bool:
    return any(isinstance(a, ast.AugAssign) and a.target is node for a in ast.walk(tree))


class _Put(ast.NodeTransformer):
    """Reads of the view as (a copy of) its subscript; ``view op= v`` as ``array[...] op= v``."""

    def __init__(self, name: str, index: ast.Subscript):
        self.name, self.index = name, index

    def visit_AugAssign(self, node: ast.AugAssign):
        node.value = self.visit(node.value)
        if isinstance(node.target, ast.Name) and node.target.id == self.name:
            target = copy.deepcopy(self.index)
            target.ctx = ast.Store()
            node.target = ast.copy_location(target, node.target)
        else:
            node.target = self.visit(node.target)
        return node

    def visit_Name(self, node: ast.Name):
        if node.id == self.name and isinstance(node.ctx, ast.Load):
            return ast.copy_location(copy.deepcopy(self.index), node)
        return node


__all__ = ["basic_part", "range_counters", "statement_blocks", "substitute_views"]
