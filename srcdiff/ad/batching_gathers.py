"""Batching rules of indexing at positions computed from a batched value: ``x[np.argsort(x)]``,
``x[np.argmax(x)]``, ``x[i]`` with `i` worked out of each example (ad/batching.py).

Each row is indexed by its own positions (``x[rows, i]``, NumPy's gather along a row's first axis,
`gather_rows` in rules/batching_helpers.py), and the adjoints a gradient keeps (``index_read``,
``index_add``, the scatter-add) likewise (`gather_read_rows`, `gather_add_rows`).  An index that is
not integer positions of each row (a mask picks each row's own number of items) is refused when
the code runs, and vmap then runs one example at a time; an index of a list is refused when the code
is made.  Positions beside slices (``x[idx, 1:]``, ``x[:, idx]``) gather each row's own likewise,
the index's parts and which of them have a batch axis handed to the helper
(rules/batching_gather_helpers.py); a gradient's index tuple of them (``t8 = idx, t7`` with ``t7 =
slice(1, None, None)``) stays a plain tuple (`index_tuple`, `Batching.index_rows`), read only by the
index's adjoints.  An index the same for every example keeps its rules (ad/batching_rules.py)."""

from __future__ import annotations

import ast

from ..ir.nodes import Const, Var
from ..ir.program import Assign
from .batching_rules import KINDS as PLAIN
from .batching_rules import call, index_value, literal


def _refuse(node, state):
    state.refuse(node, "an index computed from a batched value cannot be batched here (only integer positions "
                       "`x[i]`, one index of an array)", "index with values that are the same for every example")


def _rows_of(state, operand) -> bool:
    return isinstance(operand, Var) and operand.name in state.have and operand.name not in state.containers \
        and operand.name not in state.lists


def getitem(node, state):
    """``x[i]``: `i` with a batch axis gathers each row's own items; otherwise the plain rule."""
    index = node.inputs[1:]
    if not any(state.batched(v) for v in index):
        return PLAIN["getitem"](node, state)
    x, expr = node.inputs[0], node.expr
    if not isinstance(expr, ast.Subscript) or (isinstance(x, Var) and (x.name in state.containers
                                                                        or x.name in state.lists)):
        _refuse(node, state)
    if isinstance(expr.slice, ast.Tuple):
        return _beside_slices(node, state, expr.slice.elts)
    if len(index) != 1 or not _rows_of(state, index[0]) or not isinstance(expr.slice, ast.Name):
        _refuse(node, state)
    return call("gather_rows", state.ref(x), state.ref(index[0]), ast.Constant(state.batched(x))), True


def _beside_slices(node, state, elts):
    """``x[idx, 1:]``: each part as a value (a slice written ``slice(1, None, None)``), with whether it
    has a batch axis (integer positions of each row), for `gather_slices_rows`."""
    batched = {v.name for v in node.inputs[1:] if isinstance(v, Var) and state.batched(v)}
    parts, flags = [], []
    for elt in elts:
        reads = {n.id for n in ast.walk(elt) if isinstance(n, ast.Name)} & batched
        if isinstance(elt, ast.Name) and reads:
            if not _rows_of(state, Var(elt.id)):
                _refuse(node, state)
            parts.append(elt)
            flags.append(True)
            continue
        if reads:  # a slice's bound, or an expression, of a batched value
            _refuse(node, state)
        parts.append(index_value(elt))
        flags.append(False)
    x = node.inputs[0]
    return call("gather_slices_rows", state.ref(x), ast.Tuple(parts, ast.Load()),
                literal(tuple(flags)), ast.Constant(state.batched(x))), True


def index_tuple(node, state) -> list | None:
    """The statement of ``t8 = idx, t7`` where some parts are positions with a batch axis and some
    slices known when the code is made (a gradient's index of ``x[idx, 1:]``): the tuple as it is,
    its flags noted in `state.index_rows` (None for any other tuple: its parts made rows)."""
    inputs = node.inputs
    if not isinstance(node.expr, ast.Tuple) or not any(_rows_of(state, v) for v in inputs):
        return None
    if not any(isinstance(state.statics.get(v.name) if isinstance(v, Var) else None, ast.Slice)
               or isinstance(v, Const) and type(v.value) is slice for v in inputs):
        return None
    if any(state.batched(v) and not _rows_of(state, v) for v in inputs):
        _refuse(node, state)
    state.index_rows[node.out.name] = tuple(state.batched(v) for v in inputs)
    return [Assign([node.out.name], node.expr, node.line)]


def index_read(node, state):
    """``index_read(a, index)`` (an adjoint's read) at each row's own positions."""
    a, index = node.inputs[:2]
    if not state.batched(index):
        return PLAIN["index_read"](node, state)
    if isinstance(a, Var) and (a.name in state.containers or a.name in state.lists):
        _refuse(node, state)
    if isinstance(index, Var) and index.name in state.index_rows:
        return call("gather_slices_rows", state.ref(a), state.ref(index), literal(state.index_rows[index.name]),
                    ast.Constant(state.batched(a))), True
    return call("gather_read_rows", state.ref(a), state.ref(index), ast.Constant(state.batched(a))), True


def index_add(node, state):
    """``index_add(base, index, value)`` (an index's adjoint) at each row's own positions."""
    base, index, value = node.inputs[:3]
    if not state.batched(index):
        return PLAIN["index_add"](node, state)
    if any(isinstance(v, Var) and (v.name in state.containers or v.name in state.lists) for v in (base, value)):
        _refuse(node, state)
    if isinstance(index, Var) and index.name in state.index_rows:
        return call("gather_slices_add_rows", state.rows(base), state.ref(index),
                    literal(state.index_rows[index.name]), state.ref(value),
                    ast.Constant(state.batched(value))), True
    return call("gather_add_rows", state.rows(base), state.ref(index), state.ref(value)), True


KINDS = {"getitem": getitem, "index_read": index_read, "index_add": index_add}

__all__ = ["KINDS", "index_tuple"]
