"""Adjoints of weight blocks named before a loop, accumulated into their matrix's adjoint in it.

A cell that names each gate's weights once (``Wi, Wf = W[:, :n], W[:, n:2 * n]``) gets, per
block, an accumulation in the backward sweep and a scatter after it::

    t2_bar = np.zeros(t2.shape)                      W_bar = np.zeros(W.shape)
    t4_bar = np.zeros(t4.shape)                      for ...:
    for ...:                                             ...
        ...                                  -->         W_bar[:, n:t3] += t23.T @ g2
        t4_bar = t4_bar + t23.T @ g2                     ...
        ...                                              W_bar[:, :n] += t23.T @ g1
        t2_bar = t2_bar + t23.T @ g1
    W_bar = np.zeros(W.shape)
    W_bar[:, n:t3] += t4_bar
    W_bar[:, :n] += t2_bar

which is the form a block read in place leaves (``x @ W[:, :n]``), so joined_scatters.py and
adjacent_products.py join the gates' products as they do there.  Each element of W_bar receives
the same terms in the same order (zero, then each step's term), so the sums are bitwise the
same, where:

* the blocks are pairwise disjoint: each slices one axis by bounds that are multiples ``c * n``
  of one count `n` known not to be negative (``x.shape[k]``, ``len(x)``, their ``//`` by a
  positive int; a literal int is a multiple of 1), or absent; ``min(c * n, length)`` grows with
  `c`, so intervals of `c` apart are slices apart;
* each accumulation starts as zeros of its block's shape and dtype arguments (the block bound
  to ``P[index]`` with the scatter's own index), is only added to in one loop (``A = A + e``,
  ``A += e``, or ``-``) and read only by its scatter;
* the matrix's adjoint is made, then only scattered into, right after the loops, and not named
  before; the matrix and the bounds are bound once before the loops (never written into).
"""

from __future__ import annotations

import ast
import copy
import math

from .liveness import bound_once, nodes


def sink_named_blocks(func: ast.FunctionDef) -> bool:
    """Accumulate named blocks' adjoints into their matrix's adjoint (see the module)."""
    changed = False
    while _sink_one(func):
        changed = True
    return changed


def _sink_one(func: ast.FunctionDef) -> bool:
    once = bound_once(func)
    body = func.body
    for k, stmt in enumerate(body):
        made = _zeros_of(stmt)
        if made is None:
            continue
        adjoint, matrix, extra = made
        scatters = []
        for later in body[k + 1:]:
            scatter = _scatter(later, adjoint)
            if scatter is None:
                break
            scatters.append(scatter)
        if len(scatters) < 2 or matrix not in once:
            continue
        plan = _plan(func, k, adjoint, matrix, extra, scatters, once)
        if plan is not None:
            _rewrite(func, k, len(scatters), plan)
            return True
    return False


def _zeros_of(stmt: ast.stmt):
    """``B = np.zeros(P.shape, ...)``: (B, P, the other arguments' dump)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
        return None
    call = stmt.value
    if not (isinstance(call, ast.Call) and ast.unparse(call.func) == "np.zeros" and call.args):
        return None
    shape = call.args[0]
    if isinstance(shape, ast.Attribute) and shape.attr == "shape" and isinstance(shape.value, ast.Name):
        base = shape.value.id
    elif isinstance(shape, ast.Call) and ast.unparse(shape.func) == "np.shape" and len(shape.args) == 1 \
            and isinstance(shape.args[0], ast.Name) and not shape.keywords:
        base = shape.args[0].id
    else:
        return None
    return stmt.targets[0].id, base, ast.dump(ast.Tuple(call.args[1:] + [ast.Tuple(call.keywords)]))


def _scatter(stmt: ast.stmt, adjoint: str):
    """``B[index] += A``: (index, A)."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Subscript) \
            and isinstance(stmt.target.value, ast.Name) and stmt.target.value.id == adjoint \
            and isinstance(stmt.value, ast.Name):
        return stmt.target.slice, stmt.value.id
    return None


def _plan(func, k, adjoint, matrix, extra, scatters, once):
    """Each scatter's accumulation: (its init statement, its loop's place, the index), or None."""
    stores = {}
    mentioned = {}
    for n in nodes(func):
        if isinstance(n, ast.Name):
            mentioned[n.id] = mentioned.get(n.id, 0) + 1
            if not isinstance(n.ctx, ast.Load):
                stores[n.id] = stores.get(n.id, 0) + 1
    if any(adjoint in _names(s) for s in func.body[:k]):
        return None
    intervals, plan = [], []
    for index, acc in scatters:
        axis_bounds = _axis_bounds(index)
        if axis_bounds is None:
            return None
        axis, lo, hi = axis_bounds
        found = _accumulation(func, k, acc, matrix, index, extra, once, stores, mentioned)
        if found is None:
            return None
        init, loop = found
        if any(once.get(b.id, (math.inf,))[0] >= loop for b in (lo, hi) if isinstance(b, ast.Name)):
            return None  # (a bound read in the loop: bound once before it)
        interval = [_multiple(lo, once, 0), _multiple(hi, once, math.inf)]
        if None in interval:
            return None
        intervals.append((axis, interval))
        plan.append((acc, init, loop, index))
    scales = {s for _, iv in intervals for s, c in iv if c not in (0, math.inf)}
    if len({axis for axis, _ in intervals}) != 1 or len(scales) > 1:
        return None
    # (an interval of c empty, lo >= hi, is an empty slice: it meets none)
    spans = sorted((lo[1], hi[1]) for _, (lo, hi) in intervals if lo[1] < hi[1])
    if any(a_hi > b_lo for (_, a_hi), (b_lo, _) in zip(spans, spans[1:])):
        return None
    return plan


def _axis_bounds(index: ast.expr):
    """The one sliced axis of an index of slices (``[:, lo:hi]``, ``[lo:hi]``): (axis, lo, hi)."""
    parts = index.elts if isinstance(index, ast.Tuple) else [index]
    cut = [(i, p) for i, p in enumerate(parts) if not (isinstance(p, ast.Slice) and p.lower is None
                                                      and p.upper is None and p.step is None)]
    if len(cut) != 1 or not isinstance(cut[0][1], ast.Slice) or cut[0][1].step is not None:
        return None
    axis, part = cut[0]
    return axis, part.lower, part.upper


def _accumulation(func, k, acc, matrix, index, extra, once, stores, mentioned):
    """Where `acc` is zeros of ``P[index]``'s shape made before one top loop, only added to in
    it and read by its scatter: (the init's place, the loop's place)."""
    init = next((i for i, s in enumerate(func.body[:k]) if _zeros_of(s) is not None
                 and _zeros_of(s)[0] == acc), None)
    if init is None:
        return None
    _, block, init_extra = _zeros_of(func.body[init])
    value = once.get(block, (None, None))[1]
    if init_extra != extra or not (isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name)
                                   and value.value.id == matrix and ast.dump(value.slice) == ast.dump(index)):
        return None
    loops = [i for i, s in enumerate(func.body[init + 1:k], init + 1) if acc in _names(s)]
    if len(loops) != 1 or not isinstance(func.body[loops[0]], (ast.For, ast.While)):
        return None
    loop = func.body[loops[0]]
    adds = [s for s in nodes(loop) if isinstance(s, ast.stmt) and _added(s, acc) is not None]
    inside = sum(1 for n in nodes(loop) if isinstance(n, ast.Name) and n.id == acc)
    # each add mentions acc twice (``A = A + e``) or once (``A += e``); init, scatter: once each
    if inside != sum(2 if isinstance(s, ast.Assign) else 1 for s in adds) \
            or mentioned.get(acc, 0) != inside + 2 or stores.get(acc, 0) != len(adds) + 1 \
            or any(acc in _names(_added(s, acc)[1]) for s in adds):
        return None
    return init, loops[0]


def _added(stmt: ast.stmt, name: str) -> tuple[ast.operator, ast.expr] | None:
    """``A += e``, ``A = A + e`` (or ``-``): (the operator, e)."""
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, (ast.Add, ast.Sub)) \
            and isinstance(stmt.target, ast.Name) and stmt.target.id == name:
        return stmt.op, stmt.value
    value = getattr(stmt, "value", None)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and stmt.targets[0].id == name and isinstance(value, ast.BinOp) \
            and isinstance(value.op, (ast.Add, ast.Sub)) and isinstance(value.left, ast.Name) and value.left.id == name:
        return value.op, value.right
    return None


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _multiple(bound, once, absent):
    """A bound as (scale, c): ``c * n`` of a count `n` never negative; a literal int c >= 0 is
    (None, c) and an absent bound `absent`; None when not known so."""
    if bound is None:
        return (None, absent)
    if isinstance(bound, ast.Constant) and type(bound.value) is int and bound.value >= 0:
        return (None, bound.value)
    if not isinstance(bound, ast.Name):
        return None
    if _count(bound.id, once):
        return (bound.id, 1)
    value = once.get(bound.id, (None, None))[1]
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        for c, n in ((value.left, value.right), (value.right, value.left)):
            if isinstance(c, ast.Constant) and type(c.value) is int and c.value >= 0 \
                    and isinstance(n, ast.Name) and _count(n.id, once):
                return (n.id, c.value)
    return None


def _count(name: str, once) -> bool:
    """Whether `name` is bound once to a count never negative (`_is_count`)."""
    return _is_count(once.get(name, (None, None))[1], once)


def _is_count(value: ast.expr | None, once) -> bool:
    """``x.shape[k]`` (or an item of a name bound to ``x.shape``), ``len(x)``, a name bound once to
    such a count, or such a count ``//`` a positive int: never negative."""
    if isinstance(value, ast.Name):
        return _count(value.id, once)
    if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and type(value.slice.value) is int:
        shape = value.value
        if isinstance(shape, ast.Name):
            shape = once.get(shape.id, (None, None))[1]
        return isinstance(shape, ast.Attribute) and shape.attr == "shape"
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "len":
        return True
    return isinstance(value, ast.BinOp) and isinstance(value.op, ast.FloorDiv) \
        and isinstance(value.right, ast.Constant) and type(value.right.value) is int and value.right.value > 0 \
        and _is_count(value.left, once)


def _rewrite(func: ast.FunctionDef, k: int, count: int, plan) -> None:
    body = func.body
    made = body[k]
    adjoint = made.targets[0].id
    first_loop = min(loop for _, _, loop, _ in plan)
    for acc, _, _, index in plan:
        for holder in nodes(func):
            for field in ("body", "orelse"):
                stmts = getattr(holder, field, None)
                if not isinstance(stmts, list) or holder is func:
                    continue
                for i, s in enumerate(stmts):
                    added = _added(s, acc) if isinstance(s, ast.stmt) else None
                    if added is not None:  # (``A = A - e``: ``B[index] -= e``, the same subtraction)
                        target = ast.Subscript(ast.Name(adjoint, ast.Load()), copy.deepcopy(index), ast.Store())
                        stmts[i] = ast.copy_location(ast.AugAssign(target, type(added[0])(), added[1]), s)
    inits = {init for _, init, _, _ in plan}
    kept = [s for i, s in enumerate(body) if i not in inits and not k <= i <= k + count]
    place = kept.index(body[first_loop])
    kept.insert(place, made)
    func.body[:] = kept
