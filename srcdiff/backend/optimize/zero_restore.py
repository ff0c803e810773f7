"""Positions of an adjoint zeroed, then given back their own values.

The adjoint of a write ``u[1:-1] = u[1:-1] + d`` zeroes the written positions of the result's
adjoint (a copy: `zero_item`) and sends those positions to the value written; that value's
adjoint is the read ``u[1:-1]``'s, which adds them back where they were::

    u_2_bar = u_1_bar                               u_2_bar = u_1_bar
    u_1_bar = zero_item(u_2_bar, np.s_[1:-1])       u_1_bar = u_2_bar.copy()
    t8_bar = u_2_bar[1:-1]                  -->     t8_bar = u_2_bar[1:-1]
    lap_bar = t8_bar * kappa                        lap_bar = t8_bar * kappa
    u_1_bar = copy_array(u_1_bar)
    u_1_bar[1:-1] += t8_bar

The copy is the adjoint itself (``0.0 + p`` is ``p``, but for the sign of a zero), where
nothing reads the copy in between, or writes into it but by adding terms (added to the values
given back instead of to zeros: the same sum in another order), the positions are spelled
alike, the piece was read from the array zeroed, and in between names are only bound to pure
values.  A copy of a copy no other name holds is that copy
(`drop_copies_of_copies`).
"""

from __future__ import annotations

import ast

from .liveness import assigned_name, bodies, is_comment, is_compound, is_pure, mentions, reads, writes
from .memory import escapes
from .reassembly import zeros_dtype
from .writes import unwrapped_index


def restore_zeroed(func: ast.FunctionDef, is_array, is_float) -> bool:
    """Rewrite each zeroing undone as above, of an array of floats (`zero_item` copies into a
    floating dtype, ``.copy()`` into the array's); True if any."""
    changed = False
    for block in bodies(func.body):
        for index, stmt in enumerate(block):
            call = getattr(stmt, "value", None)
            if assigned_name(stmt) is not None and isinstance(call, ast.Call) and isinstance(call.func, ast.Name) \
                    and call.func.id == "zero_item" and len(call.args) == 2 and not call.keywords \
                    and isinstance(call.args[0], ast.Name) and is_array(call.args[0].id) and is_float(call.args[0].id):
                changed |= _restore(block, index)
    return changed


def _restore(block: list[ast.stmt], index: int) -> bool:
    made = block[index]
    name, (source, where) = assigned_name(made), made.value.args
    spelled = ast.dump(unwrapped_index(where))
    pieces: set[str] = set()  # names bound to ``source[where]`` since the zeroing
    arrays = _aliases(block[:index], source.id) | ({source.id} - {name})  # names of the array zeroed
    for later in block[index + 1:]:
        if is_comment(later) or _self_copy(later, name):
            continue
        target = later.target if isinstance(later, ast.AugAssign) else None
        if isinstance(later, ast.AugAssign) and isinstance(later.op, ast.Add) and isinstance(target, ast.Subscript) \
                and isinstance(target.value, ast.Name) and target.value.id == name \
                and ast.dump(target.slice) == spelled and isinstance(later.value, ast.Name) \
                and later.value.id in pieces:
            made.value = ast.Call(ast.Attribute(ast.Name(source.id, ast.Load()), "copy", ast.Load()), [], [])
            block.remove(later)
            return True
        if isinstance(later, ast.AugAssign) and isinstance(later.op, (ast.Add, ast.Sub)) \
                and isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                and target.value.id == name and name not in mentions(later.value) | mentions(target.slice) \
                and is_pure(later.value):
            continue  # another term added into the copy: added to the values given back instead (rounding)
        if not (isinstance(later, ast.Assign) and all(isinstance(t, ast.Name) for t in later.targets)
                and is_pure(later.value)) or name in mentions(later):
            return False
        arrays -= writes(later)
        value = later.value
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and value.value.id in arrays \
                and ast.dump(value.slice) == spelled:
            pieces |= {t.id for t in later.targets}
        elif isinstance(value, ast.Name) and value.id in pieces:
            pieces |= {t.id for t in later.targets}
        else:
            pieces -= writes(later)
    return False


def _aliases(before: list[ast.stmt], source: str) -> set[str]:
    """Names bound to `source`'s array (``u_2_bar = u_1_bar``) by the statements `before` a
    zeroing and not bound again since."""
    found: set[str] = set()
    for position in range(len(before) - 1, -1, -1):
        stmt = before[position]
        if source in writes(stmt):
            break
        name, value = assigned_name(stmt), getattr(stmt, "value", None)
        if name is not None and isinstance(value, ast.Name) and value.id == source \
                and not any(name in writes(s) for s in before[position + 1:]):
            found.add(name)
    return found


def _self_copy(stmt: ast.stmt, name: str) -> bool:
    """``name = copy_array(name)`` or ``name = name.copy()``: the same values."""
    value = getattr(stmt, "value", None)
    if assigned_name(stmt) != name or not isinstance(value, ast.Call) or value.keywords:
        return False
    if isinstance(value.func, ast.Name):
        return value.func.id == "copy_array" and len(value.args) == 1 and isinstance(value.args[0], ast.Name) \
            and value.args[0].id == name
    return isinstance(value.func, ast.Attribute) and value.func.attr == "copy" and not value.args \
        and isinstance(value.func.value, ast.Name) and value.func.value.id == name


def drop_copies_of_copies(func: ast.FunctionDef) -> bool:
    """``y = copy_array(y)`` (``y.copy()``) where the last statement of its run binding `y` made it
    a copy (``g.copy()``, ``copy_array(g)``, `zero_item`) and nothing between let another name
    hold it: only writes into `y` and statements not mentioning it."""
    changed = False
    for block in bodies(func.body):
        kept: list[ast.stmt] = []
        for stmt in block:
            name = assigned_name(stmt)
            if name is not None and _self_copy(stmt, name) and _private_copy(kept, name):
                changed = True
                continue
            kept.append(stmt)
        block[:] = kept
    return changed


def _private_copy(before: list[ast.stmt], name: str) -> bool:
    for stmt in reversed(before):
        if assigned_name(stmt) == name:
            value = stmt.value
            return isinstance(value, ast.Call) and not value.keywords and (
                isinstance(value.func, ast.Name) and value.func.id in ("copy_array", "zero_item")
                or isinstance(value.func, ast.Attribute) and value.func.attr == "copy" and not value.args)
        written = isinstance(stmt, (ast.Assign, ast.AugAssign)) and all(
            isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name
            and name not in mentions(stmt.value) and all(name not in mentions(p) for p in [t.slice])
            for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]))
        if not written and (name in mentions(stmt) or not isinstance(stmt, (ast.Assign, ast.AugAssign, ast.Expr))):
            return False
    return False


def fold_zero_sums(func: ast.FunctionDef, classes, copy_keyword: bool = True) -> bool:
    """``y = np.zeros(s)``, writes ``y[i] = e`` (the first; then ``+=``, ``-=``), then ``y = y + z``
    where `z` is a new array of `y`'s class no other name holds, read nowhere else: ``z[i] += e``
    (the terms added to `z`'s values instead of zeros: the same sum in another order) and
    ``y = z.astype(d, copy=False)`` (`d` the zeros' dtype: a float32 `z` is promoted as the sum
    did; without `copy_keyword`, for numba, which takes none: a copy).  The copy's adjoint added
    to a slice's: its zeroed positions get the slice's values, and `restore_zeroed` sees them
    given back."""
    changed = False
    everywhere = None  # (read once a zero array is found)
    for block in bodies(func.body):
        for index in range(len(block) - 1, -1, -1):
            dtype = zeros_dtype(block[index])
            if dtype is not None:
                everywhere = reads(func) if everywhere is None else everywhere
                changed |= _fold(block, index, dtype, classes, everywhere, copy_keyword)
    return changed


def _fold(block: list[ast.stmt], index: int, dtype: ast.expr, classes, everywhere, copy_keyword: bool) -> bool:
    made = block[index]
    name = assigned_name(made)
    found, total, partner = [], None, None  # the writes into the zeros; the sum; what it adds
    for later in block[index + 1:]:
        if is_comment(later):
            continue
        if _written_once(later, name) and (not found or isinstance(later, ast.AugAssign)):
            found.append(later)  # (only the first may be ``=``: later ones add to it)
            continue
        partner = _sum_with(later, name)
        if found and partner is not None:
            total = later
            break
        if name in mentions(later) or not (isinstance(later, ast.Assign) and is_pure(later.value)):
            return False
    if total is None or classes.of(ast.Name(partner, ast.Load())) in (None, "scalar") \
            or classes.of(ast.Name(partner, ast.Load())) != classes.of(made.value) \
            or not _private(block[:index], partner) or everywhere[partner] != 1:
        return False  # (nothing but the sum reads the partner: it may take the writes early)
    for write in found:
        target = _target_of(write)
        target.value = ast.Name(partner, ast.Load())
        op = write.op if isinstance(write, ast.AugAssign) else ast.Add()
        block[block.index(write)] = ast.copy_location(ast.AugAssign(target, op, write.value), write)
    total.value = ast.Call(ast.Attribute(ast.Name(partner, ast.Load()), "astype", ast.Load()), [dtype],
                           [ast.keyword("copy", ast.Constant(False))] if copy_keyword else [])
    block.remove(made)
    return True


def _written_once(stmt: ast.stmt, name: str) -> bool:
    """``name[i] = e``, ``name[i] += e`` or ``name[i] -= e``, `e` and `i` not reading `name`."""
    target = _target_of(stmt)
    return isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name \
        and (isinstance(stmt, ast.Assign) or isinstance(stmt.op, (ast.Add, ast.Sub))) \
        and name not in mentions(stmt.value) and name not in mentions(target.slice)


def _target_of(stmt: ast.stmt):
    if isinstance(stmt, ast.AugAssign):
        return stmt.target
    return stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None


def _sum_with(stmt: ast.stmt, name: str) -> str | None:
    """`z` when `stmt` is ``name = name + z`` or ``name = z + name``."""
    value = getattr(stmt, "value", None)
    if assigned_name(stmt) != name or not isinstance(value, ast.BinOp) or not isinstance(value.op, ast.Add):
        return None
    sides = [value.left, value.right]
    if all(isinstance(s, ast.Name) for s in sides) and [s.id for s in sides].count(name) == 1:
        return next(s.id for s in sides if s.id != name)
    return None


def _private(before: list[ast.stmt], name: str) -> bool:
    """Whether the statements `before` made `name` a new array (a copy, a zeroed copy) that none of
    them since let another name hold."""
    for stmt in reversed(before):
        if assigned_name(stmt) == name:
            value = stmt.value
            return isinstance(value, ast.Call) and (
                isinstance(value.func, ast.Name) and value.func.id in ("copy_array", "zero_item")
                or isinstance(value.func, ast.Attribute) and value.func.attr == "copy" and not value.args)
        if is_compound(stmt) or name in writes(stmt) or escapes(stmt, name):
            return False
    return False
