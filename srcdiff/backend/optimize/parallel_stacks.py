"""Loop stacks pushed side by side kept as one stack of tuples.

Code srcdiff reads back (a derivable gradient, driver/higher.py) keeps one list per value a
loop saves, and forward mode over it adds one per value and direction: a pendulum fit's
Hessian sweep appended to 36 lists per step and read each back by index.  Lists that one
loop appends to once per iteration (at the top of its body, no ``break``/``continue``) and
that are otherwise only read by index, measured (``len``) or deleted have the same length
and the same positions, so they become one list of tuples::

    s.append(a)                          s.append((a, b))
    s_dot.append(b)           -->        ...
    ...                                  s_item, s_dot_item = s[k]
    x = s[k] * s_dot[k]                  x = s_item * s_dot_item

A read by an index that another statement of its block computes is made once per block (the
tuple unpacked before the first statement that reads it); other reads become ``s[k][j]``.
"""

from __future__ import annotations

import ast
from collections import defaultdict

from .liveness import nodes


def merge_parallel_stacks(func: ast.FunctionDef) -> bool:
    """Merge the lists described above; True if any changed."""
    parents = {id(child): node for node in nodes(func) for child in ast.iter_child_nodes(node)}
    stacks = _candidates(func, parents)
    groups: dict[tuple, list[str]] = defaultdict(list)
    for name, (loop, _, reads) in stacks.items():
        groups[(id(loop), frozenset((id(body), index) for body, index, _ in reads))].append(name)
    taken = {n.id for n in nodes(func) if isinstance(n, ast.Name)}
    changed = False
    for members in groups.values():
        if len(members) > 1 and _merge(func, members, stacks, taken, parents):
            changed = True
            parents = {id(child): node for node in nodes(func) for child in ast.iter_child_nodes(node)}
    return changed


def _candidates(func: ast.FunctionDef, parents: dict) -> dict:
    """name -> (its loop, its append statement, its reads as (block, index name, Subscript))."""
    inits = {}
    for stmt in func.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, ast.List) and not stmt.value.elts:
            inits.setdefault(stmt.targets[0].id, []).append(stmt)
    found: dict = {}
    bad: set[str] = {name for name, made in inits.items() if len(made) > 1}
    for node in nodes(func):
        if not (isinstance(node, ast.Name) and node.id in inits) or node.id in bad:
            continue
        name, parent = node.id, parents.get(id(node))
        entry = found.setdefault(name, [None, None, []])
        if isinstance(node.ctx, ast.Store):
            if not (isinstance(parent, ast.Assign) and parent in inits[name]):
                bad.add(name)
        elif isinstance(node.ctx, ast.Del):
            if not isinstance(parent, ast.Delete):
                bad.add(name)
        elif isinstance(parent, ast.Attribute) and parent.attr == "append":
            call, stmt = parents.get(id(parent)), None
            if isinstance(call, ast.Call) and len(call.args) == 1 and not call.keywords:
                stmt = parents.get(id(call))
            loop = parents.get(id(stmt))
            if entry[0] is not None or not (isinstance(stmt, ast.Expr) and isinstance(loop, ast.For)
                                            and stmt in loop.body and _simple(call.args[0])
                                            and not any(isinstance(n, (ast.Break, ast.Continue)) for n in nodes(loop))):
                bad.add(name)
            else:
                entry[0], entry[1] = loop, stmt
        elif isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load) \
                and isinstance(parent.slice, ast.Name):
            stmt = parent
            while not isinstance(stmt, ast.stmt):
                stmt = parents[id(stmt)]
            block = parents.get(id(stmt))
            body = getattr(block, "body", None)
            if body is not None and stmt in body and not _compound(stmt):
                entry[2].append((block, parent.slice.id, parent))
            else:
                entry[2].append((None, parent.slice.id, parent))
        elif isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len" \
                and len(parent.args) == 1 and parent.args[0] is node:
            pass  # (all the merged lists have one length: the first one's is read)
        else:
            bad.add(name)
    return {name: tuple(entry) for name, entry in found.items() if name not in bad and entry[0] is not None}


def _simple(value: ast.expr) -> bool:
    return isinstance(value, (ast.Name, ast.Constant))


def _compound(stmt: ast.stmt) -> bool:
    return not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr, ast.Return))


def _stores(stmts: list[ast.stmt]) -> set[str]:
    return {n.id for s in stmts for n in nodes(s) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}


def _merge(func: ast.FunctionDef, members: list[str], stacks: dict, taken: set[str], parents: dict) -> bool:
    loop = stacks[members[0]][0]
    members = sorted(members, key=lambda m: loop.body.index(stacks[m][1]))  # in the order pushed
    appends = [stacks[m][1] for m in members]
    positions = [loop.body.index(a) for a in appends]
    last = max(positions)
    for member, position in zip(members, positions):  # each value unchanged until the merged append
        value = stacks[member][1].value.args[0]
        if isinstance(value, ast.Name) and value.id in _stores(loop.body[position + 1:last + 1]):
            return False
    head = members[0]
    merged = ast.Expr(ast.Call(ast.Attribute(ast.Name(head, ast.Load()), "append", ast.Load()),
                               [ast.Tuple([stacks[m][1].value.args[0] for m in members], ast.Load())], []))
    # reads by blocks: one unpacking before the first statement of a block that reads the stacks
    items = {m: _fresh(f"{m}_item", taken) for m in members}
    by_block: dict = defaultdict(list)
    for m in members:
        for block, index, read in stacks[m][2]:
            by_block[(id(block), index)].append((block, m, read))
    unpack: list = []
    for (_, index), reads in by_block.items():
        block = reads[0][0]
        if block is not None:
            stmts = [s for s in block.body if any(_inside(r, s) for _, _, r in reads)]
            first, end = block.body.index(stmts[0]), block.body.index(stmts[-1])
            if index not in _stores(block.body[first:end + 1]) and not any(
                    _inside(a, s) for a in appends for s in block.body[first:end + 1]):
                unpack.append((block, stmts[0], index, reads))
                continue
        for _, m, read in reads:
            row = ast.Subscript(ast.Name(head, ast.Load()), ast.Name(index, ast.Load()), ast.Load())
            _replace(parents, read, ast.Subscript(row, ast.Constant(members.index(m)), ast.Load()))
    for block, anchor, index, reads in unpack:
        targets = [ast.Name(items[m], ast.Store()) for m in members]
        row = ast.Assign([ast.Tuple(targets, ast.Store())],
                         ast.Subscript(ast.Name(head, ast.Load()), ast.Name(index, ast.Load()), ast.Load()))
        block.body.insert(block.body.index(anchor), row)
        for _, m, read in reads:
            copied = parents[id(read)]  # ``t3 = s[k]``, the member's one read here: unpacked into t3
            if isinstance(copied, ast.Assign) and len(copied.targets) == 1 and copied.value is read \
                    and isinstance(copied.targets[0], ast.Name) and copied in block.body \
                    and sum(n == m for _, n, _ in reads) == 1 and copied.targets[0].id not in _mentioned(
                        block.body[block.body.index(row) + 1:block.body.index(copied)]):
                targets[members.index(m)] = ast.Name(copied.targets[0].id, ast.Store())
                block.body.remove(copied)
            else:
                _replace(parents, read, ast.Name(items[m], ast.Load()))
    for node in nodes(func):  # ``len(s_dot)`` -> ``len(s)``
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
                and len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id in members:
            node.args[0] = ast.Name(head, ast.Load())
    loop.body.insert(loop.body.index(appends[positions.index(last)]) + 1, merged)
    for a in appends:
        loop.body.remove(a)
    _drop_names(func, set(members[1:]))
    ast.fix_missing_locations(func)
    return True


def _mentioned(stmts: list[ast.stmt]) -> set[str]:
    return {n.id for s in stmts for n in nodes(s) if isinstance(n, ast.Name)}


def _inside(node: ast.AST, stmt: ast.stmt) -> bool:
    return any(n is node for n in nodes(stmt))


def _replace(parents: dict, old: ast.expr, new: ast.expr) -> None:
    """Put `new` where `old` is in its parent."""
    parent = parents[id(old)]
    for field, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
        elif isinstance(value, list):
            value[:] = [new if v is old else v for v in value]


def _fresh(name: str, taken: set[str]) -> str:
    k, found = 1, name
    while found in taken:
        found, k = f"{name}_{k}", k + 1
    taken.add(found)
    return found


def _drop_names(func: ast.FunctionDef, names: set[str]) -> None:
    """Drop the merged lists' ``name = []`` and their names from ``del`` statements."""
    def clean(body: list[ast.stmt]) -> list[ast.stmt]:
        out = []
        for stmt in body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                    and stmt.targets[0].id in names:
                continue
            if isinstance(stmt, ast.Delete):
                stmt.targets = [t for t in stmt.targets if not (isinstance(t, ast.Name) and t.id in names)]
                if not stmt.targets:
                    continue
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(stmt, field, None), list) and getattr(stmt, field):
                    setattr(stmt, field, clean(getattr(stmt, field)) or [ast.Pass()])
            out.append(stmt)
        return out
    func.body = clean(func.body)


__all__ = ["merge_parallel_stacks"]
