"""A loop writing row ``t + 1`` of an array it carries, keeping views of row ``t``: one array, no copy a step.

A state written into a preallocated array, ``H[t + 1] = f(xs[t] @ W + H[t] @ U)``, is lowered as a
write into a copy; carried_writes.py writes in place into a copy made each step (``H = H.copy()``),
which reassembly.copy_before_loops moves before the loop only where nothing keeps a view of the old
array.  Here the loop keeps the row it read on its stack for the backward sweep (``t10 = H[t]``), so
the whole array was copied every step: a step's cost grew with the number of steps (quadratic in
them), where a hand writes into one array::

    for t in range(T):                          H = H.copy()
        t10 = H[t]                              for t in range(T):
        t13 = np.tanh(t9 + t10 @ U)                 t10 = H[t]
        H = H.copy()                    -->         t13 = np.tanh(t9 + t10 @ U)
        H[t + 1] = t13                              H[t + 1] = t13
        stack.append((t13, t10))                    stack.append((t13, t10))

(`reassembly` then drops the copy of a new array.)  The views read rows ``t + a`` and the writes
fill rows ``t + b`` with ``a < b`` of a counter counting up from a number s not negative, ``s + a >= 0``
(no row counted from the end): a row read in step t is written only in earlier steps (``t' + b = t + a``
needs ``t' < t``), so every view keeps the values it had when it was cut, whether it views the copy of
that step or the one array; a read of the whole array by value (``np.sum(H)``) reads its current values,
the same in both.
Where: a ``for`` over ``range(stop)`` or ``range(start, stop)`` (start a number not negative); the
body copies the array once (``y = y.copy()``), binds it nowhere else, and mentions it only there,
in reads by value, in views ``p = y[r]`` and in writes ``y[r] = v`` (``r`` the counter plus a number, or a name bound
to that in the body), none in a nested statement; nothing writes into the array outside the loop
but before it, nor into a view anywhere.
"""

from __future__ import annotations

import ast

from .liveness import assigned_name, bodies, is_comment, is_compound, is_fresh, mentions, nodes, written_into
from .long_axes import target_names
from .memory import escapes
from .writes import unwrapped_index


def row_copy(func: ast.FunctionDef, block: list[ast.stmt], index: int) -> ast.stmt | None:
    """The copy statement of the loop ``block[index]`` that may move before it (see the module), else None."""
    loop = block[index]
    start = _counting_up(loop)
    if start is None:
        return None
    counter = loop.target.id
    if any(counter in _bound_names(n) for n in nodes(ast.Module(loop.body, [])) if isinstance(n, ast.stmt)):
        return None  # (the counter rebound in the body: its rows are not t + k)
    copies = [s for s in loop.body if _self_copy(s)]
    if len(copies) != 1:
        return None
    copy_stmt = copies[0]
    name = copy_stmt.targets[0].id
    if name in mentions(loop.iter):
        return None
    names = _counter_names(loop.body, counter)
    offsets: dict[str, int] = {}  # (the counter's names bound so far in the body: a use reads this step's)
    read, written, pieces = [], [], set()
    for stmt in loop.body:
        if assigned_name(stmt) in names:
            offsets[assigned_name(stmt)] = names[assigned_name(stmt)]
        if stmt is copy_stmt or name not in mentions(stmt):
            continue
        if is_compound(stmt):
            return None
        if not escapes(stmt, name) and name not in written_into(stmt) | _bound_names(stmt):
            continue  # (read by value: the array's current values, the same in one array)
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            return None
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name \
                and name not in mentions(value) and target.slice is not None:
            row = _row(target.slice, offsets, counter)
            if row is None:
                return None
            written.append(row)
        elif isinstance(target, ast.Name) and isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) \
                and value.value.id == name:
            row = _row(value.slice, offsets, counter)
            if row is None:
                return None
            read.append(row)
            pieces.add(target.id)
        else:
            return None
    if not written or min(written) <= max(read, default=-1) or start + min(read + written) < 0:
        return None
    if not _untouched_elsewhere(func, block, index, name, pieces, loop):
        return None
    return copy_stmt


def _counting_up(loop: ast.stmt) -> int | None:
    """The first value of a ``for`` counter over ``range(stop)`` or ``range(start, stop)``, start a
    number not negative; else None."""
    if not (isinstance(loop, ast.For) and not loop.orelse and isinstance(loop.target, ast.Name)
            and isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name)
            and loop.iter.func.id == "range" and not loop.iter.keywords and 1 <= len(loop.iter.args) <= 2):
        return None
    if len(loop.iter.args) == 1:
        return 0
    first = loop.iter.args[0]
    return first.value if isinstance(first, ast.Constant) and type(first.value) is int and first.value >= 0 else None


def _self_copy(stmt: ast.stmt) -> bool:
    """``y = y.copy()`` or ``y = copy_array(y)``."""
    name, value = assigned_name(stmt), getattr(stmt, "value", None)
    if name is None or not isinstance(value, ast.Call) or value.keywords:
        return False
    if isinstance(value.func, ast.Name):
        return value.func.id == "copy_array" and [ast.unparse(a) for a in value.args] == [name]
    return isinstance(value.func, ast.Attribute) and value.func.attr == "copy" and not value.args \
        and isinstance(value.func.value, ast.Name) and value.func.value.id == name


def _counter_names(body: list[ast.stmt], counter: str) -> dict[str, int]:
    """Names the body binds once, at its top level, to the counter plus a number (``t14 = t + 1``)."""
    bound: dict[str, list] = {}
    for n in nodes(ast.Module(body, [])):
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            bound.setdefault(n.id, []).append(n)
    found = {}
    for stmt in body:
        name = assigned_name(stmt)
        if name is not None and len(bound.get(name, ())) == 1:
            offset = _offset(stmt.value, counter)
            if offset is not None:
                found[name] = offset
    return found


def _offset(e: ast.expr, counter: str) -> int | None:
    """k of ``t``, ``t + k``, ``k + t``, -k of ``t - k`` (k an int), else None."""
    if isinstance(e, ast.Name) and e.id == counter:
        return 0
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Sub) and isinstance(e.left, ast.Name) \
            and e.left.id == counter and isinstance(e.right, ast.Constant) and type(e.right.value) is int:
        return -e.right.value
    if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
        for a, b in ((e.left, e.right), (e.right, e.left)):
            if isinstance(a, ast.Name) and a.id == counter and isinstance(b, ast.Constant) and type(b.value) is int:
                return b.value
    return None


def _row(index: ast.expr, offsets: dict[str, int], counter: str) -> int | None:
    """The offset from the counter of a row index (``y[t]``, ``y[t14]``), else None."""
    if isinstance(index, ast.Name) and index.id in offsets:
        return offsets[index.id]
    return _offset(index, counter)


def _appended_to(stmt: ast.stmt) -> set[str]:
    """The list ``s.append(e)`` writes into (not e: a loop's stack keeps the view itself), else an empty set."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append" \
            and isinstance(call.func.value, ast.Name) and len(call.args) == 1 and not call.keywords:
        return {call.func.value.id}
    return set()


def _untouched_elsewhere(func, block, index, name, pieces, loop) -> bool:
    """Nothing outside the loop but before it writes into the array, nothing anywhere into a view."""
    inside = {id(n) for n in nodes(loop)}
    before = {id(n) for s in block[:index] for n in nodes(s)}
    for n in nodes(func):
        if not isinstance(n, ast.stmt) or is_compound(n):
            continue
        changed = _appended_to(n) or written_into(n)
        if changed & pieces:
            return False
        if name in changed and id(n) not in inside and id(n) not in before:
            return False
    return True


def zero_after_reads(func: ast.FunctionDef, is_array) -> bool:
    """``a = g; g = zero_item(g, i)`` then statements reading `a` (into new values) and not `g`: those
    statements first, reading `g`, then ``g[i] = 0.0`` in place, no copy (the adjoint of a write
    ``H[t + 1] = v``: the step's row of the state's adjoint read, then zeroed).  Where `g` is an array
    no other name holds (each binding of it a new array or such a zeroing; each read of it into a new
    value, or this one alias `a`), `a` is read only in those statements, none writing into it, nor
    rebinding what the index reads."""
    changed = False
    for body in list(bodies(func.body)):
        i = 1
        while i < len(body):
            changed |= _zero_after(func, body, i, is_array)
            i += 1
    return changed


def _zero_after(func, body, i, is_array) -> bool:
    j = i - 1
    while j > 0 and is_comment(body[j]):
        j -= 1
    stmt, alias = body[i], body[j]
    g, a = assigned_name(stmt), assigned_name(alias)
    call = getattr(stmt, "value", None)
    if g is None or a is None or not isinstance(alias.value, ast.Name) or alias.value.id != g or not is_array(g) \
            or not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "zero_item"
                    and len(call.args) == 2 and not call.keywords and isinstance(call.args[0], ast.Name)
                    and call.args[0].id in (a, g)):
        return False
    where = call.args[1]
    reading = [k for k in range(i + 1, len(body)) if a in mentions(body[k])]
    if not reading:
        return False
    moved = body[i + 1:reading[-1] + 1]
    loads = sum(1 for n in nodes(func) if isinstance(n, ast.Name) and n.id == a and isinstance(n.ctx, ast.Load))
    if loads != sum(1 for s in moved for n in nodes(s) if isinstance(n, ast.Name) and n.id == a) + (
            call.args[0].id == a):
        return False  # (read elsewhere: another step, or after)
    if any(mentions(where) & (written_into(s) | _bound_names(s)) or a in written_into(s) | _bound_names(s)
           or is_compound(s) for s in moved) or not _unshared(func, g, alias, stmt):
        return False
    if any(g in mentions(s) or escapes(s, a) for s in moved):
        return _row_saved(body, j, i, moved, a, g, where)
    for s in moved:
        for n in nodes(s):
            if isinstance(n, ast.Name) and n.id == a:
                n.id = g
    zero = ast.Assign([ast.Subscript(ast.Name(g, ast.Load()), unwrapped_index(where), ast.Store())], ast.Constant(0.0))
    body[j:reading[-1] + 1] = [*body[j + 1:i], *moved, ast.fix_missing_locations(ast.copy_location(zero, stmt))]
    return True


def _row_saved(body, j: int, i: int, moved: list[ast.stmt], a: str, g: str, where: ast.expr) -> bool:
    """Where the statements reading `a` also read `g` or keep a view of `a`, but read `a` only at the
    zeroed index: ``a = g[i].copy()`` (that row alone) before ``g[i] = 0.0``, each ``a[i]`` then `a`."""
    index = ast.dump(unwrapped_index(where))
    reads = [n for s in moved for n in nodes(s) if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)
             and n.value.id == a]
    count = sum(1 for s in moved for n in nodes(s) if isinstance(n, ast.Name) and n.id == a)
    if count != len(reads) or any(ast.dump(r.slice) != index or not isinstance(r.ctx, ast.Load) for r in reads):
        return False
    for s in moved:
        for parent in nodes(s):
            for field, value in ast.iter_fields(parent):
                if isinstance(value, list):  # (a call's arguments: ``unbroadcast(a[i, :], t6)``)
                    value[:] = [ast.Name(a, ast.Load()) if any(v is r for r in reads) else v for v in value]
                elif any(value is r for r in reads):
                    setattr(parent, field, ast.Name(a, ast.Load()))
    row = ast.Subscript(ast.Name(g, ast.Load()), unwrapped_index(where), ast.Load())
    body[j].value = ast.Call(ast.Attribute(row, "copy", ast.Load()), [], [])
    zero = ast.Assign([ast.Subscript(ast.Name(g, ast.Load()), unwrapped_index(where), ast.Store())], ast.Constant(0.0))
    body[i] = ast.fix_missing_locations(ast.copy_location(zero, body[i]))
    ast.fix_missing_locations(body[j])
    return True


def _bound_names(stmt: ast.stmt) -> set[str]:
    """The names `stmt` binds (not the arrays its subscripts write into)."""
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target] \
        if isinstance(stmt, (ast.AugAssign, ast.AnnAssign, ast.For)) else []
    return {name for t in targets for name in target_names(t)}


def _unshared(func, g: str, alias: ast.stmt, zeroing: ast.stmt) -> bool:
    """Whether no name but `g` may hold `g`'s array: each binding of `g` a new array (or `zeroing`),
    each other read of it into a new value (`alias` aside)."""
    for s in nodes(func):
        if not isinstance(s, ast.stmt) or is_compound(s) or s is alias or s is zeroing or g not in mentions(s):
            continue
        if isinstance(s, ast.Delete):
            continue
        if g in _bound_names(s) and not (assigned_name(s) == g and is_fresh(s.value)):
            return False
        if escapes(s, g):
            return False
    return True
