"""A loop's writes into the array it carries, made in place.

Lowering spells every index write as a write into a copy (``y_2 = set_item(y_1, i, v)``, the
form the reverse pass differentiates).  Once the backward loop no longer reads the carried
array's old values (stack_items.py), the forward loop can write into one array::

    u_1 = u0.copy()                                 u_1 = u0.copy()
    for _ in range(steps):                          for _ in range(steps):
        lap = u_1[:-2] - 2.0 * u_1[1:-1] + u_1[2:]      lap = u_1[:-2] - 2.0 * u_1[1:-1] + u_1[2:]
        u_2 = set_item(u_1, np.s_[1:-1], e)     -->     u_1[1:-1] = e
        stack.append(lap)                               stack.append(lap)
        u_1 = u_2

In two steps: ``y_2 = set_item(y_1, i, v)`` is ``y_2 = y_1.copy()`` then ``y_2[i] = v``
(``set_item(x.copy(), i, v)`` writes into that copy), where the index is written literally
(slices and numbers: no position repeats) and `y_1` holds floats (set_item refuses nothing);
then a copy the loop's closing ``y_1 = y_2`` carries is made under `y_1`'s own name
(``y_1 = y_1.copy()``), where nothing reads `y_1` between, and reassembly.copy_before_loops
moves that copy before the loop where the loop leaves no other name holding the array.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable

from .liveness import assigned_name, bodies, is_compound, mentions, nodes, restored, writes
from .memory import escapes
from .simplify import is_float, numeric_ufunc
from .writes import plain_index


def writes_into_copies(func: ast.FunctionDef, is_scalar: Callable[[str], bool],
                       float_names: Callable[[str], bool], is_array: Callable[[str], bool]) -> bool:
    """``y = set_item(x, i, v)`` -> ``y = x.copy()`` and ``y[i] = v`` in a loop's body where `x`
    is a carried float array or a copy of one (``set_item(u.copy(), ...)``): see the module's
    docstring.  True if any changed."""
    floats = counts = None  # (made when a loop writes into a copy)
    changed = False
    for block in bodies(func.body):
        for loop in [s for s in block if isinstance(s, (ast.For, ast.While))]:
            for stmt in list(loop.body):
                call = getattr(stmt, "value", None)
                if assigned_name(stmt) is None or not _is_set_item(call):
                    continue
                if floats is None:
                    floats = float_arrays(func, lambda e: is_float(e, float_names))
                    counts = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name))
                source, where, value = call.args
                copied = _copy_of(source)
                index = plain_index(where, is_scalar)
                array = source.id if isinstance(source, ast.Name) else copied
                if index is None or array is None or array not in floats or not is_array(array):
                    continue
                if copied is None and _private_copy(loop.body[:loop.body.index(stmt)], source.id, counts):
                    copied = source.id  # ``new = u.copy()`` read only here: written into itself
                made = source if copied is not None else ast.Call(ast.Attribute(source, "copy", ast.Load()), [], [])
                stmt.value = made
                target = ast.Subscript(ast.Name(assigned_name(stmt), ast.Load()), index, ast.Store())
                loop.body.insert(loop.body.index(stmt) + 1, ast.copy_location(ast.Assign([target], value), stmt))
                changed = True
    return changed


def carry_copies(func: ast.FunctionDef) -> bool:
    """``y_2 = y_1.copy()``, ``y_2[i] = v``..., ``y_1 = y_2`` (the loop's last use of `y_2`) ->
    ``y_1 = y_1.copy()``, ``y_1[i] = v``..., where nothing between reads `y_1`."""
    changed = False
    counts = None  # (counted once a copy is found)
    for block in bodies(func.body):
        for loop in [s for s in block if isinstance(s, (ast.For, ast.While))]:
            body = loop.body
            for index, stmt in enumerate(body):
                new, old = assigned_name(stmt), _copy_of(getattr(stmt, "value", None))
                if new is None or old is None:
                    continue
                if counts is None:
                    counts = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name))
                carry = next((i for i in range(index + 1, len(body)) if assigned_name(body[i]) == old
                              and isinstance(body[i].value, ast.Name) and body[i].value.id == new), None)
                between = body[index + 1:carry] if carry is not None else None
                if between is None or not _unread(between, old, new) \
                        or counts[new] != 2 + sum(_occurrences(s, new) for s in between) \
                        or any(new in writes(s) and assigned_name(s) == new for s in between):
                    continue
                for s in between:
                    _rename(s, new, old)
                stmt.targets[0].id = old
                del body[carry]
                changed = True
                break
    return changed


def add_in_place(func: ast.FunctionDef) -> bool:
    """``y[i] = y[i] + e`` -> ``y[i] += e`` where `e` reads `y` only into arithmetic (a new array,
    computed before the sum): the same sum, written where it is computed instead of through a
    new array.  ``y[i]`` may be a name bound to that view earlier in the body (``t1 = u[1:-1]``),
    `y` neither bound again nor written into since: the view sees the write either way."""
    changed = False
    for block in bodies(func.body):
        for index, stmt in enumerate(block):
            target = stmt.targets[0] if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 else None
            value = getattr(stmt, "value", None)
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) \
                    and isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add) \
                    and _spelled(_view(value.left, block[:index], target.value.id)) == _spelled(target) \
                    and not escapes(ast.Expr(value.right), target.value.id) \
                    and target.value.id not in mentions(target.slice):
                block[index] = ast.copy_location(ast.AugAssign(target, ast.Add(), value.right), stmt)
                changed = True
    return changed


def _spelled(expr: ast.expr) -> str:
    return ast.dump(expr, annotate_fields=False).replace("Store()", "Load()")


def _view(expr: ast.expr, before: list[ast.stmt], array: str) -> ast.expr:
    """What a name `expr` was bound to, if that is a subscript of `array` and nothing since bound
    or wrote either; else `expr`."""
    if not isinstance(expr, ast.Name):
        return expr
    for position in range(len(before) - 1, -1, -1):
        stmt = before[position]
        if assigned_name(stmt) == expr.id:
            value = stmt.value
            quiet = not any({array, expr.id} & writes(s) or is_compound(s) for s in before[position + 1:])
            return value if quiet and isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) \
                and value.value.id == array else expr
        if expr.id in writes(stmt):
            return expr
    return expr


def _private_copy(before: list[ast.stmt], name: str, counts: Counter) -> bool:
    """Whether `name` was made a copy by one of the statements `before` (``new = u.copy()``) and
    is mentioned nowhere else but in the write into it that follows."""
    made = [s for s in before if assigned_name(s) == name]
    return len(made) == 1 and _copy_of(made[0].value) is not None and counts[name] == 2


def _unread(between: list[ast.stmt], old: str, new: str) -> bool:
    """Whether `old` may be read as `new` in `between`: nowhere after the first write into `new`,
    and before it only into arithmetic (the copy has the same values until then, and no
    view of `old` outlives the statement)."""
    written = False
    for stmt in between:
        if is_compound(stmt):
            return False
        if old in mentions(stmt) and (written or escapes(stmt, old) or old in writes(stmt)):
            return False
        written = written or new in writes(stmt) or new in mentions(stmt)
    return True


def float_arrays(func: ast.FunctionDef, is_float: Callable[[ast.expr], bool]) -> set[str]:
    """Names every assignment of which holds floats (or complex numbers: a floating dtype
    NumPy's promotion keeps): a float value, a copy of one or a slice, a ``set_item`` into one
    (a copy of it, in its dtype), arithmetic with one (whatever the other operand), a join of
    pieces one of which is one, a NumPy function of one number of one, another such name."""
    values: dict[str, list[ast.expr]] = {}
    for n in nodes(func):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            values.setdefault(n.targets[0].id, []).append(n.value)
    stores = Counter(n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    stores.subtract(restored(func))  # (a value pushed onto a loop stack, popped back: one it had)
    found = {name for name, found in values.items() if stores[name] == len(found)}  # (then pruned)
    while True:
        kept = {name for name in found if all(_float_array(v, found, is_float) for v in values[name])}
        if kept == found:
            return found
        found = kept


def _float_array(value: ast.expr, names: set[str], is_float) -> bool:
    if isinstance(value, ast.Name):
        return value.id in names or is_float(value)
    copied = _copy_of(value)
    if copied is not None:
        return copied in names or is_float(ast.Name(copied, ast.Load()))
    if _is_set_item(value):
        return _float_array(value.args[0], names, is_float)
    if isinstance(value, ast.Subscript):
        return _float_array(value.value, names, is_float)
    if isinstance(value, ast.BinOp) and not isinstance(value.op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift,
                                                                   ast.RShift)):
        return _float_array(value.left, names, is_float) or _float_array(value.right, names, is_float)
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        return _float_array(value.operand, names, is_float)
    if isinstance(value, ast.Call) and ast.unparse(value.func) == "np.concatenate" and len(value.args) == 1 \
            and not value.keywords and isinstance(value.args[0], (ast.List, ast.Tuple)):
        return any(_float_array(e, names, is_float) for e in value.args[0].elts)
    if numeric_ufunc(value) and len(value.args) == 1:
        return _float_array(value.args[0], names, is_float)
    return False


def _is_set_item(call) -> bool:
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "set_item" \
        and len(call.args) == 3 and not call.keywords


def _copy_of(expr) -> str | None:
    """`x` when `expr` is ``x.copy()`` or ``copy_array(x)``."""
    if isinstance(expr, ast.Call) and not expr.keywords:
        if isinstance(expr.func, ast.Attribute) and expr.func.attr == "copy" and not expr.args \
                and isinstance(expr.func.value, ast.Name):
            return expr.func.value.id
        if isinstance(expr.func, ast.Name) and expr.func.id == "copy_array" and len(expr.args) == 1 \
                and isinstance(expr.args[0], ast.Name):
            return expr.args[0].id
    return None


def _occurrences(stmt: ast.stmt, name: str) -> int:
    return sum(isinstance(n, ast.Name) and n.id == name for n in nodes(stmt))


def _rename(stmt: ast.stmt, old: str, new: str) -> None:
    for n in nodes(stmt):
        if isinstance(n, ast.Name) and n.id == old:
            n.id = new
