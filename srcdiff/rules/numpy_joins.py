"""Joins of a list of arrays the function builds (``np.hstack(rows)`` of a list made by
``append``, a comprehension, a variable holding a list, the rows of an array), and the joins
whose operands are always taken as one list: ``np.column_stack``, ``np.row_stack``,
``np.dstack`` and ``np.c_[...]``.

The adjoint of a join cuts the result's adjoint back into the operands' pieces
(`join_helpers.join_adjoint`, a list); the adjoint of that helper is the join again
(`join_helpers.join_like`), so a gradient that calls them can be differentiated again.
Joins of a list written in the call (``np.concatenate([a, b])``) keep their own rules
(rules/numpy_shape.py), whose adjoints are plain subscripts.
"""

from __future__ import annotations

import numpy as np

from . import join_helpers
from .table import LINEAR, Rule, qualified_name, rule

#: Why the adjoints of joins have no sympy counterpart.
LISTS = "a helper of generated gradients moving lists, checked numerically"

#: The facts of a function whose value is a new array (a copy), whatever its operands.
NEW_ARRAY = {"fresh": True, "array_result": True}


def _joined(func, kind: str, static: dict | None = None, name: str | None = None) -> Rule:
    """The rule of ``func(arrays, **static)`` joining the list (or array rows) `arrays`."""
    axis = "axis" if static and "axis" in static else "None"
    return rule(func, ("arrays",), {"arrays": f"join_adjoint(g, arrays, {kind!r}, {axis})"}, name=name,
                static=static or {}, tangents=LINEAR, sympy=qualified_name(func), **NEW_ARRAY)  # its own code


#: np.row_stack, np.vstack under the name NumPy 2 deprecates (and may drop): looked up as itself
ROW_STACK = getattr(np, "row_stack", None)

#: The rules of joins of a list lowering finds only when it runs (not written in the call):
#: by the function called, looked up by lowering (lower/joins.py), not in the table.
LIST_JOINS = {
    func: _joined(func, kind, static, name=f"numpy.{kind} (of a list)")
    for func, kind, static in ((np.concatenate, "concatenate", {"axis": 0}), (np.stack, "stack", {"axis": 0}),
                               (np.hstack, "hstack", None), (np.vstack, "vstack", None))
}


def _join_adjoint_tangent(static, operand_shapes):
    return {"a": "join_adjoint(a_dot, xs, kind, axis)"}


STATIC = {"kind": "concatenate", "axis": 0}

RULES = [
    # ---- joins that take their operands as one list (written in the call or not) ----
    _joined(np.column_stack, "column_stack"),
    _joined(np.dstack, "dstack"),
    *([_joined(ROW_STACK, "vstack", name="numpy.row_stack")] if ROW_STACK is not None else []),
    # np.c_[a, b] as generated code spells it (lower/joins.py)
    _joined(join_helpers.column_join, "c_"),
    # ---- the adjoints of joins of lists, each the other's adjoint (linear in a / h) ----
    rule(join_helpers.join_adjoint, ("a", "xs"), {"a": "join_like(g, xs, kind, axis)"}, static=STATIC,
         shape_only=("xs",), tuple_result=True, tangents=_join_adjoint_tangent, not_symbolic=LISTS),
    rule(join_helpers.join_like, ("h", "xs"), {"h": "join_adjoint(g, xs, kind, axis)"}, static=STATIC,
         shape_only=("xs",), tangents={"h": "join_like(h_dot, xs, kind, axis)"}, not_symbolic=LISTS, **NEW_ARRAY),
]

#: The rules that take a list operand (lower/emit.py lets them; not np.concatenate's rule
#: for a list written in the call, whose operands are the items).
TAKE_LISTS = frozenset({*LIST_JOINS.values(), *RULES})
#: The joins among their functions: an array passed as their operand is the list of its rows.
JOINS = frozenset(r.func for r in RULES) - {join_helpers.join_adjoint, join_helpers.join_like}
