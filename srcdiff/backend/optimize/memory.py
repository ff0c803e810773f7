"""Statement passes of the optimizer about memory, run once the values are final:
``x = x + c`` accumulated in place where no other name can hold `x`, the first scatter-add
into a fresh zero array made an assignment, and ``del`` of each array right after its last
use.  Top-level straight-line runs only (see `liveness`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from .liveness import assigned_name, bodies, is_comment, is_compound, is_fresh, is_fresh_method, mentions, nodes, writes


def escaping_reads(stmt: ast.stmt) -> set[str]:
    """Names `stmt` reads in a way that may let another name hold their object.

    Operands of arithmetic, comparisons, reductions and other calls that make a new object
    cannot; anything else (a plain copy, a list, a call that may return a view) may.
    """
    parents = {child: node for node in nodes(stmt) for child in ast.iter_child_nodes(node)}
    found = set()
    for node in nodes(stmt):
        if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
            continue
        parent = parents.get(node)
        if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare)):
            continue
        if isinstance(parent, ast.Call) and node in parent.args and is_fresh(parent):
            continue
        if isinstance(parent, ast.Attribute) and is_fresh_method(parent.attr) \
                and isinstance(parents.get(parent), ast.Call) and is_fresh(parents[parent]):
            continue
        found.add(node.id)
    return found


def escapes(stmt: ast.stmt, name: str) -> bool:
    """Whether `stmt` may let another name hold `name`'s array (`escaping_reads`), where a view
    read straight into arithmetic or a call making a new array (``u[:-2] - 2.0 * u[1:-1]``)
    does not: only a new array comes of it."""
    if name not in escaping_reads(stmt):
        return False
    parents = {child: node for node in nodes(stmt) for child in ast.iter_child_nodes(node)}
    for node in nodes(stmt):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)):
            continue
        view = node
        while isinstance(parents.get(view), ast.Subscript) and parents[view].value is view:
            view = parents[view]
        parent = parents.get(view)
        if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.Compare)) \
                or isinstance(parent, ast.Call) and view in parent.args and is_fresh(parent):
            continue
        if view is node and isinstance(parent, ast.Attribute) and is_fresh_method(parent.attr) \
                and isinstance(parents.get(parent), ast.Call) and is_fresh(parents[parent]):
            continue
        return True
    return False


def accumulate_in_place(body: list[ast.stmt], is_array: Callable[[str], bool],
                        loops: Callable[[str], bool] | None = None) -> bool:
    """``x = x + c`` becomes ``x += c`` (and ``-`` alike) where `x` is an array this function
    made itself (arithmetic, a ufunc, a reduction...) and no other name can hold it.

    Top-level runs; with `loops` (which names may be: adjoints, whose contributions come
    summed to their shape), also the body of a top-level ``for`` loop that mentions an owned
    `x` only in such accumulations (a weight gradient summed over the steps of an RNN: one
    array for all steps instead of a new one per step).  Every other name a compound
    statement mentions loses its ownership.
    """
    owned: set[str] = set()
    changed = False
    for index, stmt in enumerate(body):
        if is_compound(stmt):
            kept = _accumulated_in_loop(stmt, {n for n in owned if is_array(n) and loops(n)}) if loops else set()
            changed |= bool(kept)
            owned -= mentions(stmt) - kept
            continue
        name = assigned_name(stmt)
        value = getattr(stmt, "value", None)
        if name in owned and is_array(name) and isinstance(value, ast.BinOp) \
                and isinstance(value.op, (ast.Add, ast.Sub)) \
                and isinstance(value.left, ast.Name) and value.left.id == name:
            body[index] = ast.copy_location(ast.AugAssign(ast.Name(name, ast.Store()), value.op, value.right), stmt)
            owned -= escaping_reads(body[index]) - {name}
            changed = True
            continue
        owned -= escaping_reads(stmt)
        owned -= writes(stmt)
        if name is not None and is_fresh(value):
            owned.add(name)
    return changed


def _accumulated_in_loop(loop: ast.stmt, owned: set[str]) -> set[str]:
    """The owned arrays `loop` (a ``for``) mentions only as ``x = x + c`` / ``x = x - c`` /
    ``x += c`` statements of its own body, with `c` not reading `x`: those become ``x += c``
    (the same ufunc on the same operands, written into x's buffer, which nothing else holds)."""
    if not isinstance(loop, ast.For) or loop.orelse:
        return set()
    candidates = owned & mentions(loop) - mentions(loop.target) - mentions(loop.iter)
    sites: dict[str, list[int]] = {name: [] for name in candidates}
    for index, stmt in enumerate(loop.body):
        found = mentions(stmt) & candidates
        if not found:
            continue
        name, term = _accumulation(stmt)
        if name is None or found != {name} or name in mentions(term):
            candidates -= found
            continue
        sites[name].append(index)
    for name in candidates:
        for index in sites[name]:
            stmt = loop.body[index]
            if isinstance(stmt, ast.Assign):
                loop.body[index] = ast.copy_location(
                    ast.AugAssign(ast.Name(name, ast.Store()), stmt.value.op, stmt.value.right), stmt)
    return candidates


def _accumulation(stmt: ast.stmt) -> tuple[str | None, ast.expr | None]:
    """(x, c) for ``x = x + c``, ``x = x - c``, ``x += c`` or ``x -= c``; else (None, None)."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) \
            and isinstance(stmt.op, (ast.Add, ast.Sub)):
        return stmt.target.id, stmt.value
    name, value = assigned_name(stmt), getattr(stmt, "value", None)
    if name is not None and isinstance(value, ast.BinOp) and isinstance(value.op, (ast.Add, ast.Sub)) \
            and isinstance(value.left, ast.Name) and value.left.id == name:
        return name, value.right
    return None, None


def release(body: list[ast.stmt], releasable: Callable[[str], bool]) -> bool:
    """``del`` each array the top level assigns, right after the statement that last mentions it.

    Memory then peaks like a hand-written gradient's: a forward temporary goes as soon as
    the forward sweep is past it, an adjoint as soon as its contributions have been passed on.
    """
    assigned, last, deleted = set(), {}, set()
    for node in nodes(ast.Module(body=body, type_ignores=[])):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            deleted |= mentions(node)  # a closure reads its cells when it runs, later
    for index, stmt in enumerate(body):
        for name in mentions(stmt):
            last[name] = index
        name = assigned_name(stmt)
        if name is not None:
            assigned.add(name)
        deleted |= {n.id for n in nodes(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Del)}
    after: dict[int, list[str]] = {}
    for name in sorted(assigned - deleted):
        index = last[name]
        if releasable(name) and not isinstance(body[index], ast.Return):
            after.setdefault(index, []).append(name)
    if not after:
        return False
    out = []
    for index, stmt in enumerate(body):
        out.append(stmt)
        if index in after:
            targets = [ast.Name(n, ast.Del()) for n in sorted(after[index], key=lambda n: (len(n), n))]
            out.append(ast.copy_location(ast.Delete(targets), stmt))
    body[:] = out
    return True


def first_scatter_assigns(func_body: list[ast.stmt]) -> bool:
    """``x = np.zeros(...)`` then ``x[i] += e`` (nothing reading `x` between) becomes
    ``x[i] = e``: the part is still zero, so adding is copying (one ufunc call fewer)."""
    changed = False
    for body in bodies(func_body):
        zeroed: set[str] = set()
        for index, stmt in enumerate(body):
            target = stmt.target if isinstance(stmt, ast.AugAssign) else None
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                    and isinstance(stmt.op, ast.Add) and target.value.id in zeroed \
                    and target.value.id not in mentions(target.slice) | mentions(stmt.value):
                body[index] = ast.copy_location(ast.Assign([target], stmt.value), stmt)
                zeroed.discard(target.value.id)
                changed = True
                continue
            if is_comment(stmt):
                continue
            if isinstance(stmt, ast.Delete):
                zeroed -= mentions(stmt)
                continue
            zeroed -= mentions(stmt)
            name = assigned_name(stmt)
            if name is not None and _is_zeros(stmt.value):
                zeroed.add(name)
    return changed


def _is_zeros(expr: ast.expr) -> bool:
    """``np.zeros(shape)`` (float64, a new array)."""
    return isinstance(expr, ast.Call) and isinstance(expr.func, ast.Attribute) and expr.func.attr == "zeros" \
        and isinstance(expr.func.value, ast.Name) and expr.func.value.id == "np" \
        and len(expr.args) == 1 and not expr.keywords
