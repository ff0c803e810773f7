"""Items of a module's table of integers: ``for u, v, e in EDGES`` over ``EDGES = [(0, 1, 0), ...]``.

Such a loop reads ``EDGES[i]``, a tuple of ints, and unpacks it by ``[0]``, ``[1]``...: each is an int.
Knowing so lets ``dist[v]`` of a vector be one element, a NumPy scalar rather than a view of dist, so a
later ``dist[v] = ...`` cannot change what was read (writes.py).  The table is a global srcdiff depends on
(rebinding it builds the gradient again), so its items are those of the value it holds now.
"""

from __future__ import annotations

from ..frontend.depends import MISSING
from ..ir import shapes
from ..ir.nodes import Global, Var


def note_integer_item(state, out: Var, inputs: tuple, static: dict) -> None:
    """After ``out = x[i]``: `out` is an int (a SCALAR shape) or a row of ints (`state.int_rows`) when x
    is a module's list or tuple of ints, or of rows of ints, or such a row, and i one number."""
    if state.facts.param_shapes is None or not inputs or not isinstance(inputs[0], (Var, Global)):
        return
    index = static.get("index")
    if not (isinstance(index, tuple) and len(index) == 1):
        return
    kind, at = index[0]
    if not (kind == "int" or kind == "op" and isinstance(at, int) and at < len(inputs)
            and state.facts.shape_of(inputs[at]).scalar):
        return
    x = inputs[0]
    if isinstance(x, Var) and x.name in state.int_rows:
        state.facts.shapes[out.name] = shapes.SCALAR
        return
    table = _table(state, x)
    if table is None:
        return
    if all(_integer(v) for v in table):
        state.facts.shapes[out.name] = shapes.SCALAR
    elif all(isinstance(v, (tuple, list)) and v and all(_integer(u) for u in v) for v in table):
        state.int_rows.add(out.name)


def _table(state, x):
    """The list or tuple the module (or closure) value `x` holds."""
    if not isinstance(x, Global):
        return None
    value = state.parsed.resolve(x.name)
    if value is MISSING or not isinstance(value, (tuple, list)) or not value:
        return None
    return value


def _integer(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


__all__ = ["note_integer_item"]
