"""An array of zeros written slice by slice until every position is written: one join.

The adjoint of a value read by slices (a gated cell's pre-activations, ``a[:, :n]`` and ``a[:, n:]``)
is made in each step as zeros, then each slice's adjoint written or added at its place::

    a_bar = np.zeros(a.shape)                   ...
    a_bar[:, n:] = t14_bar              -->     a_bar = np.concatenate([t10_bar, t14_bar], axis=1)
    ...
    a_bar[:, :n] += t10_bar

Three passes over the array (the zeros, a write, an addition to zeros) where the hand-written
gradient makes one.  Here, in one block, the zeros' statement is followed by writes (``=`` or
``+=``) of whole slices along one axis whose slices tile the axis, with nothing
else reading or writing the array in between (two slices ``[:e]`` and ``[e:]``, which take every
place once whatever e is; more may overlap); each written value has its slice's shape (its
shape class is that of the array's value sliced so: shape_classes.py) and is a name neither
assigned nor written into before the last write.  The join then takes the last write's place.
Where those shapes are not proved, the writes still cover every place: ``np.empty`` instead of
the zeros, and each ``+=`` an ``=``.  An element is its piece's (``0.0 + p`` is ``p`` but for the
sign of a zero, as zero_restore.py allows).  Only where every value has one float width (a float32
piece would make the join float32 where the zeros were float64): the optimizer runs it where
``one_width`` holds, on NumPy code.
"""

from __future__ import annotations

import ast

from .liveness import assigned_name, bodies, is_pure, mentions, single_definitions, written_into
from .repeated_solves import fixed_names
from .shape_classes import SCALAR, ShapeClasses


def _zeros_of(stmt: ast.stmt) -> tuple[str, str] | None:
    """(x, a) of ``x = np.zeros(a.shape)``."""
    value = getattr(stmt, "value", None)
    if isinstance(stmt, ast.Assign) and assigned_name(stmt) and isinstance(value, ast.Call) \
            and ast.unparse(value.func) == "np.zeros" and len(value.args) == 1 and not value.keywords \
            and isinstance(value.args[0], ast.Attribute) and value.args[0].attr == "shape" \
            and isinstance(value.args[0].value, ast.Name):
        return assigned_name(stmt), value.args[0].value.id
    return None


def _slice_write(stmt: ast.stmt, name: str) -> tuple[int, ast.Slice, str] | None:
    """(axis, slice, v) of ``name[:, ..., s] = v`` or ``+= v`` (full slices before `s`)."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = stmt.targets[0]
    elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add):
        target = stmt.target
    else:
        return None
    if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == name
            and name not in mentions(stmt.value)):
        return None
    items = target.slice.elts if isinstance(target.slice, ast.Tuple) else [target.slice]
    if not all(isinstance(i, ast.Slice) for i in items) or any(i.step is not None for i in items):
        return None
    whole = [i.lower is None and i.upper is None for i in items]
    if whole.count(False) != 1 or not all(whole[:whole.index(False)]) or not all(whole[whole.index(False) + 1:]):
        return None
    axis = whole.index(False)
    return axis, items[axis], stmt.value


def _tiling(pieces: list[ast.Slice], key) -> list[int] | None:
    """The order of `pieces` from the axis' start to its end where they are ``[:e]`` and ``[e:]`` (the
    same bound, as written): a partition of the axis whatever e is; else None."""
    if len(pieces) != 2:  # (three or more may overlap for some values of their bounds: [:5], [5:3], [3:])
        return None
    order, bound, left = [], None, list(range(len(pieces)))
    while left:
        nxt = [i for i in left if (pieces[i].lower is None if bound is None
                                   else pieces[i].lower is not None and key(pieces[i].lower) in (bound,))]
        if len(nxt) != 1:
            return None
        order.append(nxt[0])
        left.remove(nxt[0])
        upper = pieces[nxt[0]].upper
        if upper is None:
            return order if not left else None
        bound = key(upper)
        if bound is None:
            return None
    return None


def join_slice_writes(func: ast.FunctionDef, classes: ShapeClasses) -> bool:
    """Rewrite each run of zeros and slice writes described above; True if any."""
    changed = False
    slices: dict[str, list[ast.Name]] = {}  # a slice of a name, as written -> the names assigned it
    for stmt in ast.walk(func):
        if isinstance(stmt, ast.Assign) and assigned_name(stmt) and isinstance(stmt.value, ast.Subscript):
            slices.setdefault(ast.dump(stmt.value), []).append(ast.Name(assigned_name(stmt), ast.Load()))
    defs, fixed = single_definitions(func), fixed_names(func)

    def bound_key(bound: ast.expr, depth: int = 0) -> str | None:
        """The bound as written, names defined once by pure expressions written out (``t11 = 2 * n``);
        None where it reads a name that may change."""
        if isinstance(bound, ast.Name):
            value = defs.get(bound.id)
            if value is not None and depth < 8 and is_pure(value):
                return bound_key(value, depth + 1)
            return ast.dump(bound) if bound.id in fixed else None
        parts = [bound_key(n, depth + 1) for n in ast.iter_child_nodes(bound) if isinstance(n, ast.expr)]
        if None in parts:
            return None
        return f"{type(bound).__name__}({ast.dump(getattr(bound, 'op', None)) if hasattr(bound, 'op') else ''}" \
               f"{getattr(bound, 'value', '') if isinstance(bound, ast.Constant) else ''};{'|'.join(parts)})"

    for block in bodies(func.body):
        index = 0
        while index < len(block):
            if _join_at(block, index, classes, slices, bound_key):
                changed = True
            index += 1
    return changed


def _join_at(block: list[ast.stmt], index: int, classes: ShapeClasses, slices: dict, bound_key) -> bool:
    found = _zeros_of(block[index])
    if found is None:
        return False
    name, primal = found
    writes, seen_axis = [], None
    for later in range(index + 1, len(block)):
        stmt = block[later]
        if name not in mentions(stmt):
            continue
        write = _slice_write(stmt, name)
        if write is None or (seen_axis is not None and write[0] != seen_axis):
            return False
        seen_axis = write[0]
        writes.append((later, write))
        order = _tiling([w[1] for _, w in writes], bound_key)
        if order is not None:
            return _rewrite(block, index, writes, order, primal, classes, slices)
    return False


def _rewrite(block, index, writes, order, primal, classes: ShapeClasses, slices: dict) -> bool:
    last = writes[-1][0]
    if any(primal in written_into(s) or assigned_name(s) == primal for s in block[index:last + 1]):
        return False
    bounds = {n.id for _, (_, s, _) in writes for n in ast.walk(s) if isinstance(n, ast.Name)}
    values = [w[2] for _, w in writes]
    if any(bounds & (written_into(s) | {assigned_name(s)}) for s in block[index + 1:last + 1]):
        return False
    name = assigned_name(block[index])
    if all(_joinable(block, at, last, axis, piece, value, primal, classes, slices)
           for at, (axis, piece, value) in writes):
        join = ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "concatenate", ast.Load()),
                        [ast.List([values[i] for i in order], ast.Load())],
                        [ast.keyword("axis", ast.Constant(writes[0][1][0]))])
        block[last] = ast.fix_missing_locations(ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], join),
                                                                  block[last]))
        for at, _ in reversed(writes[:-1]):
            del block[at]
        del block[index]
        return True
    # shapes not proved: every place is written all the same, so no zeros under them, and no additions to zeros
    block[index].value.func.attr = "empty"
    for at, _ in writes:
        if isinstance(block[at], ast.AugAssign):
            block[at] = ast.fix_missing_locations(ast.copy_location(
                ast.Assign([_stored(block[at].target)], block[at].value), block[at]))
    return True


def _stored(target: ast.Subscript) -> ast.Subscript:
    return ast.Subscript(target.value, target.slice, ast.Store())


def _joinable(block, at, last, axis, piece, value, primal, classes: ShapeClasses, slices: dict) -> bool:
    """Whether `value`, written at `at`, has the shape of `primal` sliced so (shape_classes.py, or a
    name assigned that slice) and holds it still at the join's place, `last`."""
    place = ast.Subscript(ast.Name(primal, ast.Load()), ast.Tuple(
        [ast.Slice() for _ in range(axis)] + [piece], ast.Load()) if axis else piece, ast.Load())
    if not isinstance(value, ast.Name):
        return False
    key = classes.of(value)
    if key in (None, SCALAR) or key not in {classes.of(p) for p in [place, *slices.get(ast.dump(place), [])]}:
        return False
    return not any(value.id in written_into(s) or assigned_name(s) == value.id for s in block[at + 1:last + 1])
