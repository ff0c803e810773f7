"""Batching rules of indexing at positions computed from a batched value: ``x[np.argsort(x)]``,
``x[np.argmax(x)]``, ``x[i]`` with `i` worked out of each example (ad/batching.py).

Each row is indexed by its own positions (``x[rows, i]``, NumPy's gather along a row's first axis,
`gather_rows` in ad/batching_runtime.py), and the adjoints a gradient keeps (``index_read``,
``index_add``, the scatter-add) likewise (`gather_read_rows`, `gather_add_rows`).  An index that is
not integer positions of each row (a mask picks each row's own number of items) is refused when
the code runs, and vmap then runs one example at a time; a tuple of indices made in the code, an
index of a list, and an index beside slices are refused when the code is made.  An index the
same for every example keeps its rules (ad/batching_rules.py)."""

from __future__ import annotations

import ast

from ..ir.nodes import Var
from .batching_rules import KINDS as PLAIN
from .batching_rules import call


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
    if len(index) != 1 or not _rows_of(state, index[0]) or not isinstance(expr, ast.Subscript) \
            or not isinstance(expr.slice, ast.Name) or (isinstance(x, Var) and x.name in state.containers):
        _refuse(node, state)
    return call("gather_rows", state.ref(x), state.ref(index[0]), ast.Constant(state.batched(x))), True


def index_read(node, state):
    """``index_read(a, index)`` (an adjoint's read) at each row's own positions."""
    a, index = node.inputs[:2]
    if not state.batched(index):
        return PLAIN["index_read"](node, state)
    if isinstance(a, Var) and (a.name in state.containers or a.name in state.lists):
        _refuse(node, state)
    return call("gather_read_rows", state.ref(a), state.ref(index), ast.Constant(state.batched(a))), True


def index_add(node, state):
    """``index_add(base, index, value)`` (an index's adjoint) at each row's own positions."""
    base, index, value = node.inputs[:3]
    if not state.batched(index):
        return PLAIN["index_add"](node, state)
    if any(isinstance(v, Var) and (v.name in state.containers or v.name in state.lists) for v in (base, value)):
        _refuse(node, state)
    return call("gather_add_rows", state.rows(base), state.ref(index), state.ref(value)), True


KINDS = {"getitem": getitem, "index_read": index_read, "index_add": index_add}

__all__ = ["KINDS"]
