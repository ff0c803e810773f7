"""``np.add.at(a, index, v)`` and ``np.subtract.at(a, index, v)``: a scatter-add, lowered as
the functional update ``a = index_add(a, [index], v)`` (``-v`` for subtract).

NumPy changes `a` in place; the new value is the same array only as long as no other name,
and not the caller, holds `a`'s array, so the write is allowed exactly where ``a[i] = v`` is
(array_updates.writable).  `index_add` has adjoint, tangent and batching rules of its own.
"""

from __future__ import annotations

import ast

import numpy as np

from ..ir.nodes import Var
from ..rules import runtime
from .array_updates import writable
from .rule_calls import lower_rule_call
from .static_values import static_value

_HOW = ("np.add.at writes into a: make a an array this function creates (a = np.zeros(...), "
        "a = x.copy()) and nothing else holds, or write a = a + np.bincount(index, v, minlength=len(a))")


def lower_ufunc_at(lower, call: ast.Call) -> bool:
    """Lower ``np.add.at`` / ``np.subtract.at`` as a statement; False for any other call."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "at"):
        return False
    state = lower.state
    ufunc = static_value(state, func.value, record=False)
    if ufunc is not np.add and ufunc is not np.subtract:
        return False
    spelled = ast.unparse(call)
    if len(call.args) != 3 or call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        raise state.error(call, f"`{spelled}` is supported as {ufunc.__name__}.at(a, index, values)",
                          "pass the array, the index and the values, positionally")
    base, index, value = call.args
    if not isinstance(base, ast.Name) or not isinstance(state.env.get(base.id), Var):
        raise state.error(call, f"`{spelled}` writes into {ast.unparse(base)}, which is not a local array "
                          "this function creates", _HOW)
    name = base.id
    old = state.env[name]
    token = writable(state, base, name, old, _HOW)
    if ufunc is np.subtract:
        value = ast.copy_location(ast.UnaryOp(ast.USub(), value), value)
    parts = index.elts if isinstance(index, ast.Tuple) else [index]  # a[rows, cols] or a[idx]
    parts = [_as_array(p) for p in parts]
    helper = ast.Name("index_add", ast.Load())
    node = ast.copy_location(ast.Call(helper, [base, ast.List(list(parts), ast.Load()), value], []), call)
    out = lower_rule_call(lower.expressions, node, runtime.index_add, state.table.lookup(runtime.index_add),
                          helper, name)
    state.sharing.join(out.name, old)  # as in NumPy, a's own array, written (a copy here)
    for loop in state.loops:
        loop.written.update(state.sharing.tokens(token))
    state.lambdas.pop(name, None)
    state.env[name] = out
    return True


def _as_array(part: ast.expr) -> ast.expr:
    """An index part made a list when run (``list(rows)``, a comprehension) as the array NumPy
    makes of it: inside the list of index parts it would be a list in a list, which srcdiff's
    scatter does not take."""
    made = isinstance(part, ast.ListComp) or (
        isinstance(part, ast.Call) and isinstance(part.func, ast.Name) and part.func.id == "list")
    if not made:
        return part
    asarray = ast.Attribute(ast.Name("np", ast.Load()), "asarray", ast.Load())
    return ast.copy_location(ast.Call(asarray, [part], []), part)


__all__ = ["lower_ufunc_at"]
