"""The sums over rows of adjacent column blocks, taken of their join where it is made anyway.

A gate's bias read by blocks (``b[:n]``, ``b[n:]``) gets, in each step of the backward sweep, one
sum per block, beside the product that joins the blocks' adjoints (joined_scatters.py)::

    b_bar[n:] += np.sum(g2, axis=0)             j = np.concatenate([g1, g2], axis=-1)
    ...                                 -->     W_bar[:, :] += x.T @ j
    b_bar[:n] += np.sum(g1, axis=0)             b_bar[:] += np.sum(j, axis=0)
    W_bar[:, :] += x.T @ np.concatenate([g1, g2], axis=-1)

one sum where there were two, as a hand writes it: a column's sum is its own either way (a sum
over the rows adds each column's elements in the same order whatever the columns beside it, where
each block has more than one column).
Where: the sums' targets are adjacent blocks of one vector, in the join's order (bounds compared
as adjacent_products.py compares them), each summing a part of the join by its text; the sums
move to the join: nothing between reads or writes the vector, or writes what a part reads; one
straight run.  A join already named (``t9_joined = np.concatenate(...)``) is read by its name.
"""

from __future__ import annotations

import ast
import copy

from ...ir.shapes import MANY
from .adjacent_products import same_bound
from .liveness import fresh_name, is_compound, mentions, writes, written_into


def join_sums(body: list[ast.stmt], definitions: dict, taken: set[str], viewed: set[str], shape_of) -> bool:
    """Join the row sums of the parts of one join in `body` (see the module), into a vector no
    name may view (`viewed`), each part known (`shape_of`) to have more than one column; whether it did."""
    for j, stmt in enumerate(body):
        join = _join_in(stmt)
        if join is None or not all(_columns(p, definitions, shape_of) for p in join.args[0].elts):
            continue
        parts = [ast.dump(p) for p in join.args[0].elts]
        sums = _sums_of(body, parts, definitions)
        if sums is None or sums[0][1][0] in viewed \
                or not all(_movable(body, m, j, mentions(body[m].value), {k for k, _ in sums}) for m, _ in sums):
            continue
        target, lo, hi = sums[0][1][0], sums[0][1][1], sums[-1][1][2]
        name = stmt.targets[0].id if isinstance(stmt, ast.Assign) and stmt.value is join else None
        added = []
        if name is None:
            name = fresh_name("joined", taken)
            added.append(ast.Assign([ast.Name(name, ast.Store())], copy.deepcopy(join)))
            _replace(stmt, join, ast.Name(name, ast.Load()))
        total = ast.parse(f"{target}[{ast.unparse(ast.Slice(lo, hi))}] += np.sum({name}, axis=0)").body[0]
        places = {m for m, _ in sums}
        rest = [s for i, s in enumerate(body) if i not in places]
        at = rest.index(stmt)
        rest[at:at + 1] = [*added, stmt, total]
        body[:] = [ast.fix_missing_locations(s) for s in rest]
        return True
    return False


def _columns(e: ast.expr, definitions: dict, shape_of, depth: int = 4) -> bool:
    """Whether `e`'s last axis is known to be longer than one: a name's (or its definition's), or an
    operand's of arithmetic, a comparison or a selection of such (a broadcast that succeeded keeps
    the longer axis).  (A lone column NumPy sums pairwise, not row by row: the join would round it
    otherwise.)"""
    if isinstance(e, ast.Name):
        shape = shape_of(e.id)
        if shape.known and not shape.scalar and shape.dims and shape.dims[-1] == MANY:
            return True
        e = definitions.get(e.id)
    if not depth or e is None:
        return False
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
        sides = [e.left, e.right]
    elif isinstance(e, ast.UnaryOp):
        sides = [e.operand]
    elif isinstance(e, ast.Compare):
        sides = [e.left, *e.comparators]
    elif isinstance(e, ast.Call) and ast.unparse(e.func) in ("keep_where", "np.where") and not e.keywords:
        sides = e.args
    else:
        return False
    return any(_columns(side, definitions, shape_of, depth - 1) for side in sides)


def _join_in(stmt: ast.stmt) -> ast.Call | None:
    """The ``np.concatenate([...], axis=-1)`` `stmt` assigns, or multiplies in ``X += H.T @ join``."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        value = stmt.value
    elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.value, ast.BinOp) \
            and isinstance(stmt.value.op, ast.MatMult):
        value = stmt.value.right
    else:
        return None
    joined = isinstance(value, ast.Call) and ast.unparse(value.func) == "np.concatenate" and len(value.args) == 1 \
        and isinstance(value.args[0], ast.List) and len(value.args[0].elts) > 1 \
        and [ast.unparse(k) for k in value.keywords] == ["axis=-1"]
    return value if joined else None


def _sums_of(body, parts: list[str], definitions: dict):
    """[(index, (vector, lo, hi))] of ``vector[lo:hi] += np.sum(part, axis=0)``, one per part in
    order, the blocks adjacent; None where there are not all of them."""
    found: dict[str, tuple] = {}
    for m, stmt in enumerate(body):
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Subscript) \
                and isinstance(stmt.target.value, ast.Name) and isinstance(stmt.target.slice, ast.Slice) \
                and stmt.target.slice.step is None and isinstance(stmt.value, ast.Call) \
                and ast.unparse(stmt.value.func) == "np.sum" and len(stmt.value.args) == 1 \
                and [ast.unparse(k) for k in stmt.value.keywords] == ["axis=0"]:
            key = ast.dump(stmt.value.args[0])
            if key in parts and key not in found:
                cut = stmt.target.slice
                found[key] = (m, (stmt.target.value.id, cut.lower, cut.upper))
    if len(found) != len(parts):
        return None
    sums = [found[p] for p in parts]
    if len({target for _, (target, _, _) in sums}) != 1:
        return None
    for (_, (_, _, hi)), (_, (_, lo, _)) in zip(sums, sums[1:]):
        if hi is None or lo is None or not same_bound(hi, lo, definitions):
            return None
    return sums


def _movable(body, m: int, j: int, read: set[str], moved: set[int]) -> bool:
    """The sum at m can move to the join at j: straight code between, nothing there (but the sums
    `moved` with it) reading or writing its vector or writing what it reads."""
    target = body[m].target.value.id
    between = [k for k in (range(m + 1, j) if m < j else range(j + 1, m)) if k not in moved]
    return target not in mentions(body[j]) and not any(
        is_compound(body[k]) or target in mentions(body[k])
        or (read - {target}) & (writes(body[k]) | written_into(body[k])) for k in between) \
        and (m > j or not (read & (writes(body[j]) | written_into(body[j]))))


def _replace(stmt: ast.stmt, old: ast.expr, new: ast.expr) -> None:
    if isinstance(stmt, ast.AugAssign) and stmt.value.right is old:
        stmt.value.right = new
