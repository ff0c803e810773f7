"""An array taken apart and put back together at the same places is a copy of it.

The adjoint of a join cuts the result's adjoint into the operands' pieces, and the adjoint of
each slice adds its piece into a new zero array at the slice's place; where the operands
are the pieces of one array (``u = np.concatenate([u[:1], u[1:-1] + d, u[-1:]])``), the new
array is the old adjoint again::

    t6_bar = u_bar[:1]                          t6_bar = u_bar[:1]
    t9_bar = u_bar[1:-1]                        t9_bar = u_bar[1:-1]
    t10_bar = u_bar[-1:]                        t10_bar = u_bar[-1:]
    u_bar = np.zeros(u.shape)           -->     u_bar = u_bar.astype(np.float64)
    u_bar[-1:] = t10_bar                        lap_bar = t9_bar * kappa
    lap_bar = t9_bar * kappa
    u_bar[1:-1] += t9_bar
    u_bar[:1] += t6_bar

The zero array and the array cut have one class of shape (shape_classes.py), the pieces are
read and written at textually equal slices that take every position of the first axis once
for every length it may have (`shape_pieces.partition`), and nothing else reads or writes
either array in between.  ``astype`` copies into the zero array's dtype, so later in-place
additions round as before; each element is its piece's (``0.0 + p`` is ``p``, but for the
sign of a zero).
"""

from __future__ import annotations

import ast

from .liveness import assigned_name, bodies, is_comment, is_compound, is_fresh, is_pure, mentions, nodes, reads, writes
from .memory import escapes
from .row_writes import row_copy
from .shape_classes import SCALAR, ShapeClasses
from .shape_pieces import partition


def reassemble(func: ast.FunctionDef, classes: ShapeClasses) -> bool:
    """Rewrite each zero array rebuilt from the pieces of another, as above; True if any."""
    changed = False
    for block in bodies(func.body):
        for index, stmt in enumerate(block):
            dtype = zeros_dtype(stmt)
            if dtype is not None:
                changed |= _rebuild(block, index, dtype, classes)
    return changed


def copy_before_loops(func: ast.FunctionDef, rows: bool = False) -> bool:
    """``y = y.astype(d)`` (`reassemble`'s copy, or another of y) in a loop's body, where the loop binds
    `y` nowhere else, reads it only as pieces (``p = y[1:-1]``, views read before the body
    first writes into `y`) or by value, and writes into it in place: copied once, before the
    loop.  Each iteration then writes into the array the last one left, which no other name
    holds when it does: the pieces of the old array are spent by then, as in::

        for lap in reversed(stack):             u_bar = u_bar.astype(np.float64)
            t9_bar = u_bar[1:-1]                for lap in reversed(stack):
            u_bar = u_bar.astype(np.float64)        t9_bar = u_bar[1:-1]
            lap_bar = t9_bar * kappa    -->         lap_bar = t9_bar * kappa
            u_bar[2:] += lap_bar                    u_bar[2:] += lap_bar

    With `rows` (not in code srcdiff reads back, whose lowering refuses a write into an array a view
    holds), also where the views are rows the loop never writes again (row_writes.py).
    """
    changed = False
    for block in bodies(func.body):
        for index in range(len(block) - 1, -1, -1):
            loop = block[index]
            if isinstance(loop, (ast.For, ast.While)) and not loop.orelse:
                found = _hoistable(func, loop) or (row_copy(func, block, index) if rows else None)
                if found is not None:
                    loop.body.remove(found)
                    if not _copied_already(block[:index], found):
                        block.insert(index, found)
                    changed = True
    return changed


def _copied_already(before: list[ast.stmt], copy_stmt: ast.Assign) -> bool:
    """Whether the array `copy_stmt` copies (not into another dtype) is a copy or a new array no other
    name holds: ``y = copy_array(t8_bar)`` (``y = 2.0 * u``) then only statements not mentioning `y`."""
    name = copy_stmt.targets[0].id
    if getattr(copy_stmt.value.func, "attr", None) == "astype":
        return False
    for stmt in reversed(before):
        if assigned_name(stmt) == name:  # a copy, or a new array (``u_bar = 2.0 * u``)
            return _self_copy(stmt) or is_fresh(stmt.value) or (
                isinstance(stmt.value, ast.Call) and getattr(stmt.value.func, "id", None) == "copy_array")
        if is_compound(stmt) or name in mentions(stmt):
            return False
    return False


def sink_copies(func: ast.FunctionDef) -> bool:
    """``c = y.copy()`` moved down to just before the first statement that mentions `c`, over
    names bound to pure values (nothing written in place: `y` keeps its values); there, with
    ``y = c.astype(d, copy=False)`` next and `c` read nowhere else, the two are ``y = y.astype(d)``
    (a copy in dtype `d`), which `copy_before_loops` may move before a loop."""
    changed = False
    counts = None  # (read when a copy is found)
    for block in bodies(func.body):
        for index in range(len(block) - 1, -1, -1):
            stmt = block[index]
            made, source = assigned_name(stmt), _copied_name(getattr(stmt, "value", None))
            if made is None or source is None:
                continue
            counts = reads(func) if counts is None else counts
            end = index + 1
            while end < len(block) and made not in mentions(block[end]) and source not in writes(block[end]) \
                    and isinstance(block[end], ast.Assign) and is_pure(block[end].value) \
                    and all(isinstance(t, ast.Name) for t in block[end].targets):
                end += 1
            if end > index + 1 and end < len(block):
                block.insert(end - 1, block.pop(index))
                changed = True
            after = block[end] if end < len(block) else ast.Pass()
            value = getattr(after, "value", None) if assigned_name(after) == source else None
            converted = _converted(value, made) or _is_astype(value) and isinstance(value.func.value, ast.Name) \
                and value.func.value.id == made
            if converted and counts[made] == 1:
                after.value = ast.Call(ast.Attribute(ast.Name(source, ast.Load()), "astype", ast.Load()),
                                       after.value.args, [])
                block.remove(stmt)
                changed = True
            elif _written_then_carried(block, block.index(stmt), made, source, counts):
                changed = True
    for node in nodes(func):  # ``y.copy().astype(d, copy=False)`` (the copy moved into its use)
        if isinstance(node, ast.Call) and _copied_name(getattr(node.func, "value", None)) is not None \
                and (_converted(node, None) or _is_astype(node)):
            node.func.value = node.func.value.func.value
            node.keywords = []
            changed = True
    return changed


def _written_then_carried(block: list[ast.stmt], index: int, made: str, source: str, counts) -> bool:
    """``c = y.copy()``, statements writing into `c` (and others mentioning neither), then
    ``y = c.astype(d, copy=False)``: the copy made under `y`'s own name (``y = y.copy()``, written
    into, ``y = y.astype(d, copy=False)``), which `copy_before_loops` may move before a loop.
    Nothing between reads `y` (it would see the writes), nothing after reads `c`."""
    for end in range(index + 1, len(block)):
        later = block[end]
        value = getattr(later, "value", None)
        if assigned_name(later) == source and _converted(value, made):
            between = block[index + 1:end]
            if counts[made] != 1 + sum(reads(s)[made] for s in between):
                return False
            for s in between:
                for n in nodes(s):
                    if isinstance(n, ast.Name) and n.id == made:
                        n.id = source
            block[index].targets[0].id = source
            value.func.value = ast.Name(source, ast.Load())
            return True
        if is_compound(later) or source in mentions(later) or made in mentions(later) and made in writes(later) \
                and assigned_name(later) == made:
            return False
    return False


def _copied_name(value) -> str | None:
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "copy" \
            and not value.args and not value.keywords and isinstance(value.func.value, ast.Name):
        return value.func.value.id
    return None


def _is_astype(value) -> bool:
    """``e.astype(d)``: a copy in dtype `d`."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "astype" \
        and len(value.args) == 1 and not value.keywords


def _converted(value, name: str | None) -> bool:
    """``name.astype(d, copy=False)`` (of anything, with `name` None)."""
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "astype" \
        and (name is None or isinstance(value.func.value, ast.Name) and value.func.value.id == name) \
        and len(value.args) == 1 and [(k.arg, getattr(k.value, "value", None)) for k in value.keywords] \
        == [("copy", False)]


def _hoistable(func: ast.FunctionDef, loop: ast.For | ast.While) -> ast.stmt | None:
    """The statement ``y = y.astype(d)`` of `loop`'s body `copy_before_loops` may move, or None."""
    copies = [stmt for stmt in loop.body if _self_copy(stmt)]
    if len(copies) != 1:
        return None
    copy_stmt = copies[0]
    name = copy_stmt.targets[0].id
    # ``y = y.astype(d, copy=False)`` binds y to itself (or, in another dtype, to a new array): no other name
    converted = [stmt for stmt in loop.body if assigned_name(stmt) == name and _converted(stmt.value, name)]
    rebinds = [n for n in nodes(loop) if isinstance(n, ast.Name) and n.id == name
               and isinstance(n.ctx, ast.Store) and not _is_base(loop, n)]
    if len(rebinds) != 1 + len(converted):
        return None
    header = [loop.test] if isinstance(loop, ast.While) else [loop.target, loop.iter]
    if any(name in mentions(h) for h in header):
        return None  # (a ``for`` over the array iterates the object it started with)
    pieces: set[str] = set()
    seen: set[str] = set()  # the names the body's statements so far mention
    written = copied = False  # past the copy; past the first write into `name` after it
    everywhere = reads(func)
    for stmt in loop.body:
        if stmt is copy_stmt:
            copied = True
            continue
        if any(stmt is c for c in converted):
            continue
        mentioned = mentions(stmt)
        seen_before, seen = seen, seen | mentioned
        if is_compound(stmt):
            if ({name} | pieces) & mentioned:
                return None
            continue
        if written and pieces & mentioned:
            return None  # a piece of the old array read once it is written into
        target = _target(stmt) if isinstance(stmt, (ast.Assign, ast.AugAssign)) else None
        if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name:
            if pieces & mentioned or not copied:
                return None
            written = True
            continue
        piece = assigned_name(stmt)
        cut = stmt.value.value if piece is not None and isinstance(stmt.value, ast.Subscript) else getattr(
            stmt, "value", None)  # a piece ``p = y[1:-1]``, or the array under another name ``p = y``
        if piece is not None and not copied and isinstance(cut, ast.Name) and cut.id == name:
            if reads(loop)[piece] != everywhere[piece] or piece in seen_before \
                    or any(piece in mentions(h) for h in header):
                return None  # read outside the loop, or before it is cut (the last iteration's)
            pieces.add(piece)
            continue
        if escapes(stmt, name) or (pieces | {name}) & writes(stmt):
            return None
    return copy_stmt if copied else None


def _self_copy(stmt: ast.stmt) -> bool:
    """``y = y.astype(d)``, ``y = y.copy()`` or ``y = copy_array(y)``."""
    name = assigned_name(stmt)
    value = getattr(stmt, "value", None)
    if name is None or not isinstance(value, ast.Call) or value.keywords:
        return False
    if isinstance(value.func, ast.Name):
        return value.func.id == "copy_array" and len(value.args) == 1 and isinstance(value.args[0], ast.Name) \
            and value.args[0].id == name
    return isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Name) \
        and value.func.value.id == name and (value.func.attr, len(value.args)) in (("astype", 1), ("copy", 0))


def _is_base(tree: ast.AST, name_node: ast.Name) -> bool:
    """Whether `name_node` is the array of a subscript written into (``y[i] += v``)."""
    return any(isinstance(n, ast.Subscript) and n.value is name_node for n in nodes(tree))


def zeros_dtype(stmt: ast.stmt) -> ast.expr | None:
    """The dtype of ``y = np.zeros(shape)`` (``dtype=d`` too), else None."""
    value = getattr(stmt, "value", None)
    if assigned_name(stmt) is None or not isinstance(value, ast.Call) or len(value.args) != 1 \
            or not isinstance(value.func, ast.Attribute) or value.func.attr != "zeros" \
            or not isinstance(value.func.value, ast.Name) or value.func.value.id != "np":
        return None
    if not value.keywords:
        return ast.Attribute(ast.Name("np", ast.Load()), "float64", ast.Load())
    if [k.arg for k in value.keywords] == ["dtype"]:
        return value.keywords[0].value
    return None


def _rebuild(block: list[ast.stmt], index: int, dtype: ast.expr, classes: ShapeClasses) -> bool:
    made = block[index]
    name, key = assigned_name(made), classes.of(made.value)
    dims = classes.dims(key) if key not in (None, SCALAR) else None
    if not dims:
        return False
    source, writes_found, pieces = None, [], set()
    for later in block[index + 1:]:
        if is_comment(later):
            continue
        piece = _piece_write(later, name, block[:index])
        if piece is not None and (source is None or piece[0] == source) and piece[1] not in pieces:
            source = piece[0]
            pieces.add(piece[1])
            writes_found.append(later)
            if partition([_target(w).slice for w in writes_found], dims[0]):
                break
            continue
        # in between: names bound to pure values only (nothing written in place, no call with
        # an effect), neither array read
        if not (isinstance(later, ast.Assign) and all(isinstance(t, ast.Name) for t in later.targets)
                and is_pure(later.value)) or {name, source} & mentions(later) or pieces & writes(later):
            return False
    else:
        return False
    if classes.of(ast.Name(source, ast.Load())) != classes.find(key):
        return False
    made.value = ast.Call(ast.Attribute(ast.Name(source, ast.Load()), "astype", ast.Load()), [dtype], [])
    block[:] = [stmt for stmt in block if not any(stmt is w for w in writes_found)]
    return True


def _piece_write(stmt: ast.stmt, name: str, before: list[ast.stmt]) -> tuple[str, str] | None:
    """(the array cut, the piece) when `stmt` is ``name[s] += p`` or ``name[s] = p`` and `p` was
    defined by ``p = g[s]`` in `before`, with neither `g` nor `p` written since."""
    if not (isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add)
            or isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
        return None
    target, value = _target(stmt), stmt.value
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name
            and isinstance(value, ast.Name)):
        return None
    for position in range(len(before) - 1, -1, -1):
        earlier = before[position]
        if assigned_name(earlier) == value.id:
            cut = earlier.value
            if not (isinstance(cut, ast.Subscript) and isinstance(cut.value, ast.Name)
                    and ast.dump(cut.slice) == ast.dump(target.slice)):
                return None
            source = cut.value.id
            if any({source, value.id} & writes(s) for s in before[position + 1:]):
                return None
            return source, value.id
        if value.id in writes(earlier) or is_compound(earlier):
            return None
    return None


def _target(stmt: ast.stmt) -> ast.expr:
    return stmt.target if isinstance(stmt, ast.AugAssign) else stmt.targets[0]
