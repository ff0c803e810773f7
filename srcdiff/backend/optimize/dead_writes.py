"""Writes into arrays nothing reads afterwards, made in place: ``y = set_item(x, index, v)``
(a write into a copy of `x`, the form lowering gives every index write) becomes
``x[index] = v`` then ``y = x``, where that cannot be seen.  Unlike `writes.write_in_place`,
`x` may have been read before the write, through views too (forward-mode code reads the old
array, then writes the sum back):

* `x` is a float array this function made with ``np.zeros``/``np.ones``/``np.empty`` (no
  dtype), or a write already made in place into one;
* no statement after the write mentions `x`, nor a name that may share its memory (a
  slice of it, say: `memory.escaping_reads`); reading its shape is fine;
* the index is basic and written literally (slices and integers, ``np.s_[1:]``), so no
  position repeats and nothing is truncated: `set_item`'s run-time checks could not fire.

``y = index_add(x, index, v)`` (the scatter-add of an adjoint, and of its tangent in forward
mode) becomes ``x[index] += v`` then ``y = x`` under the same conditions, its index a tuple
of literal ``slice(...)`` parts or integers (written inline, or named by earlier statements:
those are dropped once nothing else reads them).

Top-level statements only, like the other memory passes.
"""

from __future__ import annotations

import ast
import copy

from .liveness import assigned_name, is_compound, mentions, nodes
from .memory import escaping_reads

_MAKERS = ("zeros", "ones", "empty")
_QUERIES = ("shape", "ndim", "size", "dtype")


def writes_in_place(body: list[ast.stmt]) -> bool:
    made: set[str] = set()  # names holding a float array of this function's own
    holders: dict[str, set[str]] = {}  # name -> the names that may share its memory
    indices: dict[str, ast.expr] = {}  # name -> the basic index (or part of one) it holds
    inlined: set[str] = set()  # names of indices: dropped at the end where nothing reads them
    changed = False
    for index, stmt in enumerate(body):
        if is_compound(stmt):  # what a loop or branch does with an array is not followed
            made -= mentions(stmt)
            for written in mentions(stmt):
                indices.pop(written, None)
            continue
        name = assigned_name(stmt)
        value = getattr(stmt, "value", None)
        write = None if name is None else _write(value) or _scatter(value, indices)
        if name is not None:
            indices.pop(name, None)
            part = _basic_part(value, indices)
            if part is not None:
                indices[name] = part
                inlined.add(name)  # dropped at the end if nothing reads it
        if write is not None and isinstance(write[0], ast.Call):
            # into a new array: make it, then write
            body[index] = ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], write[0]), stmt)
            body.insert(index + 1, ast.copy_location(_store(name, *write[1:]), stmt))
            made.add(name)
            changed = True
            continue
        if write is not None and write[0] in made and not _seen_later(write[0], holders, body[index + 1:]):
            target = write[0]
            body[index] = ast.copy_location(_store(*write), stmt)
            body.insert(index + 1, ast.copy_location(ast.Assign([ast.Name(name, ast.Store())],
                                                               ast.Name(target, ast.Load())), stmt))
            made.add(name)
            changed = True
            continue  # the next statement, ``name = target``, records that name holds it
        for read in escaping_reads(stmt):
            for root in [read, *[r for r, names in holders.items() if read in names]]:
                holders.setdefault(root, set()).add(name or "")
        if name is not None and (_makes_float_array(value) or (write is not None and write[0] in made)):
            made.add(name)  # (set_item writes into a copy: of a float array of ours, one too)
    if inlined:
        _drop_unread(body, inlined)
    return changed


def _store(target: str, where: ast.expr, item: ast.expr, add: bool = False) -> ast.stmt:
    """``target[where] = item``, or ``target[where] += item`` for a scatter-add."""
    store = ast.Subscript(ast.Name(target, ast.Load()), where, ast.Store())
    return ast.AugAssign(store, ast.Add(), item) if add else ast.Assign([store], item)


def _scatter(value, indices: dict[str, ast.expr]):
    """(x, index, v, True) of ``index_add(x, index, v)`` whose index is a tuple of basic parts
    (literal, or names `indices` knows): no position repeats, so adding in place is
    ``np.add.at``'s sum.  x a name, or the call making a new float array; else None."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "index_add"
            and len(value.args) == 3 and not value.keywords):
        return None
    array, where, item = value.args
    if not (isinstance(array, ast.Name) or _makes_float_array(array)):
        return None
    parts = _basic_part(where, indices)
    # a one-element tuple (t,) indexes x[t]; a longer one indexes x[t0, t1, ...]
    if not (isinstance(parts, ast.Tuple) and parts.elts):
        return None
    where = copy.deepcopy(parts.elts[0] if len(parts.elts) == 1 else parts)
    return (array.id if isinstance(array, ast.Name) else array), where, item, True


def _basic_part(value, indices: dict[str, ast.expr]):
    """The index `value` stands for, written out (``slice(None, -1, None)`` as ``:-1``), when it
    is an integer literal, a slice of integer literals or a tuple of those (or names of them)."""
    if isinstance(value, ast.Name):
        return indices.get(value.id)
    if _integer_literal(value):
        return value
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "slice" \
            and not value.keywords and len(value.args) == 3 \
            and all(_integer_literal(a) or (isinstance(a, ast.Constant) and a.value is None) for a in value.args):
        bounds = [None if isinstance(a, ast.Constant) and a.value is None else a for a in value.args]
        return ast.Slice(*bounds)
    if isinstance(value, ast.Tuple) and isinstance(value.ctx, ast.Load):
        parts = [_basic_part(e, indices) for e in value.elts]
        if all(p is not None and not isinstance(p, ast.Tuple) for p in parts):
            return ast.Tuple(parts, ast.Load())
    return None


def _drop_unread(body: list[ast.stmt], names: set[str]) -> None:
    """Drop the assignments of `names` (index values written out where they were used) that no
    statement reads any more, and their ``del``s; again for the names those read."""
    while True:
        read = set()
        for stmt in body:
            if not isinstance(stmt, ast.Delete):
                read |= {n.id for n in nodes(stmt) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)}
        unread = {n for n in names if n not in read and any(assigned_name(s) == n for s in body)}
        if not unread:
            return
        kept = []
        for stmt in body:
            if assigned_name(stmt) in unread:
                continue
            if isinstance(stmt, ast.Delete):
                stmt.targets = [t for t in stmt.targets if not (isinstance(t, ast.Name) and t.id in unread)]
                if not stmt.targets:
                    continue
            kept.append(stmt)
        body[:] = kept


def _seen_later(target: str, holders: dict[str, set[str]], rest: list[ast.stmt]) -> bool:
    """Whether a statement of `rest` reads `target`'s values, or mentions a name that may share them."""
    watched = {target} | holders.get(target, set())
    return any(watched & _value_reads(stmt) for stmt in rest)


def _value_reads(stmt: ast.stmt) -> set[str]:
    """The names `stmt` mentions, but for reads of their shape alone (``np.shape(x)``,
    ``x.shape``), which a write into `x` does not change."""
    parents = {child: node for node in nodes(stmt) for child in ast.iter_child_nodes(node)}
    found = set()
    for node in nodes(stmt):
        if not isinstance(node, ast.Name) or isinstance(node.ctx, ast.Del):  # a del reads nothing
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.Attribute) and parent.attr in _QUERIES:
            continue
        if isinstance(parent, ast.Call) and ast.unparse(parent.func) in ("np.shape", "np.ndim", "len") \
                and len(parent.args) == 1:
            continue
        found.add(node.id)
    return found


def _makes_float_array(value) -> bool:
    return isinstance(value, ast.Call) and not value.keywords and len(value.args) == 1 \
        and isinstance(value.func, ast.Attribute) and value.func.attr in _MAKERS \
        and isinstance(value.func.value, ast.Name) and value.func.value.id == "np"


def _write(value):
    """(x, index, v) of ``set_item(x, np.s_[index], v)`` with a basic literal index, x a name
    (or the call making a new float array); else None."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "set_item"
            and len(value.args) == 3 and not value.keywords):
        return None
    array = value.args[0]
    if not (isinstance(array, ast.Name) or _makes_float_array(array)):
        return None
    index = value.args[1]
    if not (isinstance(index, ast.Subscript) and ast.unparse(index.value) == "np.s_"):
        return None
    parts = index.slice.elts if isinstance(index.slice, ast.Tuple) else [index.slice]
    for part in parts:
        bounds = [part.lower, part.upper, part.step] if isinstance(part, ast.Slice) else [part]
        if not all(b is None or _integer_literal(b) for b in bounds):
            return None
    return (array.id if isinstance(array, ast.Name) else array), index.slice, value.args[2]


def _integer_literal(node) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) is int
