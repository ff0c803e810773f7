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

Top-level statements only, like the other memory passes.
"""

from __future__ import annotations

import ast

from .liveness import assigned_name, is_compound, mentions, nodes
from .memory import escaping_reads

_MAKERS = ("zeros", "ones", "empty")
_QUERIES = ("shape", "ndim", "size", "dtype")


def writes_in_place(body: list[ast.stmt]) -> bool:
    made: set[str] = set()  # names holding a float array of this function's own
    holders: dict[str, set[str]] = {}  # name -> the names that may share its memory
    changed = False
    for index, stmt in enumerate(body):
        if is_compound(stmt):  # what a loop or branch does with an array is not followed
            made -= mentions(stmt)
            continue
        name = assigned_name(stmt)
        value = getattr(stmt, "value", None)
        write = _write(value) if name is not None else None
        if write is not None and isinstance(write[0], ast.Call):  # into a new array: make it, then write
            body[index] = ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], write[0]), stmt)
            store = ast.Subscript(ast.Name(name, ast.Load()), write[1], ast.Store())
            body.insert(index + 1, ast.copy_location(ast.Assign([store], write[2]), stmt))
            made.add(name)
            changed = True
            continue
        if write is not None and write[0] in made and not _seen_later(write[0], holders, body[index + 1:]):
            target, where, item = write
            store = ast.Subscript(ast.Name(target, ast.Load()), where, ast.Store())
            body[index] = ast.copy_location(ast.Assign([store], item), stmt)
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
    return changed


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
