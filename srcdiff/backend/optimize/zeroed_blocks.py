"""A copy of an adjoint with one block zeroed, read only in the other block: read the adjoint.

A cell writing its pre-activations slice by slice (``pre[:, :n] = ...``, ``pre[:, n:] = ...``)
gets in the backward sweep, per step, a copy of the array's adjoint with the block the later write
overwrote set to zero, read only in the block the earlier one wrote::

    pre_1_bar = zero_item(pre_2_bar, np.s_[:, n:])        (a copy: a pass over the whole array)
    t11_bar = unbroadcast(pre_1_bar[:, :n], t11)    -->   t11_bar = unbroadcast(pre_2_bar[:, :n], t11)

``x[:, :n]`` and ``x[:, n:]`` are disjoint for every value of `n` (both bounds are normalised
alike against the axis's length), so the block read holds the adjoint's own elements, in its
dtype (``zero_item`` keeps a floating adjoint's).  Where (writes.py's `read_around_zeroed` does
constant positions at the top level):

* the copy is assigned once, read only by index (complementary cuts of one axis by one bound,
  every other axis whole) in the statements after it in its block;
* between the copy and its last read nothing rebinds or changes in place the adjoint or the
  bound.
"""

from __future__ import annotations

import ast

from .liveness import assigned_name, bodies, nodes, writes
from .statements import mutated


def read_around_zeroed_blocks(func: ast.FunctionDef) -> bool:
    """Read the adjoint itself where a zeroed copy is read only outside its zeroed block (see the module)."""
    changed = False
    for body in list(bodies(func.body)):
        i = 0
        while i < len(body):
            if _rewrite_at(func, body, i):
                changed = True
            else:
                i += 1
    return changed


def _rewrite_at(func: ast.FunctionDef, body: list[ast.stmt], i: int) -> bool:
    stmt = body[i]
    name = assigned_name(stmt)
    call = getattr(stmt, "value", None)
    if name is None or not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                            and call.func.id == "zero_item" and len(call.args) == 2 and not call.keywords
                            and isinstance(call.args[0], ast.Name)):
        return False
    g, zeroed = call.args[0].id, _cut(_unwrapped(call.args[1]))
    if zeroed is None or g == name:
        return False
    names = [n for n in nodes(func) if isinstance(n, ast.Name) and n.id == name]
    reads = [n for n in nodes(func) if isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Load)
             and isinstance(n.value, ast.Name) and n.value.id == name]
    if not reads or len(names) != len(reads) + 1:  # (the copy's one store, and reads by index alone)
        return False
    later = body[i + 1:]
    where = {id(n): j for j, s in enumerate(later) for n in nodes(s)}
    if any(id(r) not in where for r in reads) or not all(_opposite(_cut(r.slice), zeroed) for r in reads):
        return False
    segment = later[:max(where[id(r)] for r in reads) + 1]
    bound = zeroed[3]
    rebound = set().union(*(writes(s) for s in segment))  # (an int bound is never changed in place)
    if g in rebound | mutated(segment) or bound in rebound:
        return False
    for r in reads:
        r.value = ast.Name(g, ast.Load())
    del body[i]
    return True


def _unwrapped(where: ast.expr) -> ast.expr:
    """``np.s_[:, n:]`` is ``:, n:``."""
    if isinstance(where, ast.Subscript) and ast.unparse(where.value) == "np.s_":
        return where.slice
    return where


def _cut(index: ast.expr):
    """An index of whole axes but one, cut on one side by a name or an int (``[:, n:]``, ``[:k]``):
    (the number of parts, the axis, the side, the bound's name or None, the bound's dump); else None."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    if not all(isinstance(p, ast.Slice) and p.step is None for p in parts):
        return None
    cut = [(axis, p) for axis, p in enumerate(parts) if p.lower is not None or p.upper is not None]
    if len(cut) != 1:
        return None
    axis, part = cut[0]
    if (part.lower is None) == (part.upper is None):
        return None
    side, bound = ("from", part.lower) if part.lower is not None else ("to", part.upper)
    if isinstance(bound, ast.Name):
        return len(parts), axis, side, bound.id, ast.dump(bound)
    if isinstance(bound, ast.Constant) and type(bound.value) is int:
        return len(parts), axis, side, None, ast.dump(bound)
    return None


def _opposite(read, zeroed) -> bool:
    """``[:, :n]`` against ``[:, n:]``: one axis, one bound, the other side (disjoint blocks)."""
    return read is not None and read[:2] == zeroed[:2] and read[2] != zeroed[2] and read[4] == zeroed[4]
