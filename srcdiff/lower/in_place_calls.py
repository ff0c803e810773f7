"""NumPy calls that write into a local array, lowered as the functional updates they are:

* ``np.fill_diagonal(a, v)`` (a matrix) is the index write ``a[k, k] = v`` with ``k =
  np.arange(min(rows, columns))`` (``wrap=True``: the flat positions ``0, m + 1, 2 (m + 1)...``
  of NumPy's definition, as rows and columns), so it has the write's adjoint, tangent and
  numba spelling;
* ``np.putmask(a, mask, values)`` is ``a = np.where(mask, values, a)``;
* ``np.put(a, ind, v)`` of a vector is NumPy's ``a.flat[ind] = v``, the index write ``a[ind] = v`` (`ind` an int
  or a list of ints, negative ones counting from the end as NumPy's default mode does); of an array of
  more axes, or of one whose axes are not known, it is refused at the line;
* ``np.put_along_axis(a, indices, values, axis=k)`` is NumPy's own definition, the index write
  ``a[i0, ..., indices, ...] = values`` with ``i_d`` the positions along each other axis
  (``np.arange(np.shape(a)[d])`` shaped to broadcast), when the numbers of axes of `a` and of
  `indices` are known and equal and `k` is a number written in the code.

* ``z.sort(axis=k)`` of an array is ``z = np.sort(z, axis=k)`` (the method's default axis, -1,
  is the function's): a sort's value is the same array sorted, its gradient ``np.sort``'s.

NumPy repeats a `v` (`values`) that has fewer elements than the places written, in flat
order; a number is written as it is, anything else through that cyclic repetition
(``np.ravel(v)[np.arange(count) % np.size(v)]``), so every length NumPy accepts means
what it means in NumPy.  As with ``a[i] = v`` (array_updates.writable), `a` must be an
array the function made and that nothing else holds: the new value is then the same array.
"""

from __future__ import annotations

import ast

import numpy as np

from ..frontend.depends import MISSING
from ..ir.nodes import Const, Operand, Var
from ..rules.write_helpers import along_axis_indices, diagonal_range
from .array_updates import set_item_node, writable
from .expressions import ExpressionLowerer
from .rule_calls import lower_rule_call
from .static_values import constant, static_value

_HOW = {np.fill_diagonal: "make a an array this function creates (a = np.zeros(...), a = x.copy()) and nothing "
                          "else holds, or write a = a * (1.0 - np.eye(n)) + v * np.eye(n)",
        np.putmask: "make a an array this function creates and nothing else holds, or write "
                    "a = np.where(mask, values, a)",
        np.put_along_axis: "make a an array this function creates and nothing else holds, or write the index "
                           "a[np.arange(n)[:, None], indices] = values",
        np.put: "make a a vector this function creates (a = x.copy(), a = np.zeros(n)) and nothing else holds, or "
                "write the index a[ind] = v"}
_ARITY = {np.fill_diagonal: 2, np.putmask: 3, np.put_along_axis: 4, np.put: 3}


def lower_in_place_call(lower: ExpressionLowerer, call: ast.Call) -> bool:
    """Lower ``np.fill_diagonal`` / ``np.putmask`` / ``np.put_along_axis`` / ``np.put`` / an array's ``.sort()``
    as a statement; False for any other call."""
    state = lower.state
    if _sorts_an_array(lower, call):
        return True
    func = static_value(state, call.func, record=False)
    if func not in _ARITY:
        return False
    name = f"np.{func.__name__}"
    arity = _ARITY[func]
    if func is np.put_along_axis and len(call.args) == 3 and [k.arg for k in call.keywords] == ["axis"]:
        call = ast.copy_location(ast.Call(call.func, [*call.args, call.keywords[0].value], []), call)
    keywords = [k for k in call.keywords if not (func is np.fill_diagonal and k.arg == "wrap")]
    if len(call.args) != arity or keywords or any(isinstance(a, ast.Starred) for a in call.args):
        spelled = {2: "a, v[, wrap=...]", 3: "a, mask, values", 4: "a, indices, values, axis"}[arity]
        raise state.error(call, f"`{ast.unparse(call)}` is supported as {name}({spelled})",
                          "pass the array and the values positionally")
    if not isinstance(call.func, ast.Attribute):
        raise state.error(call, f"`{ast.unparse(call)}`: srcdiff writes {name} through NumPy's module",
                          f"call it as {name}(...) with `import numpy as np`")
    base = call.args[0]
    if not isinstance(base, ast.Name) or not isinstance(state.env.get(base.id), Var):
        raise state.error(call, f"`{ast.unparse(call)}` writes into {ast.unparse(base)}, which is not a local "
                          "array this function creates", _HOW[func])
    old = state.env[base.id]
    token = writable(state, base, base.id, old, _HOW[func])
    numpy = call.func.value  # the user's own name of NumPy
    if func is np.fill_diagonal:
        out = _fill_diagonal(lower, call, numpy, old)
    elif func is np.put_along_axis:
        out = _put_along_axis(lower, call, numpy, old)
    elif func is np.put:
        out = _put(lower, call, numpy, old)
    else:
        out = _putmask(lower, call, numpy)
    for loop in state.loops if func is not np.putmask else ():  # (putmask's value is a new array, np.where's)
        loop.written.update(state.sharing.tokens(token))
    state.lambdas.pop(base.id, None)
    state.env[base.id] = out
    return True


_SORT_HOW = "sort a copy: z = np.sort(z) (or z = x.copy(); z.sort())"


def _sorts_an_array(lower: ExpressionLowerer, call: ast.Call) -> bool:
    """``z.sort(...)`` of a local array nothing else holds, lowered as ``z = np.sort(z, ...)``."""
    state = lower.state
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "sort" and isinstance(call.func.value, ast.Name)
            and isinstance(state.env.get(call.func.value.id), Var)):
        return False
    base, old = call.func.value, state.env[call.func.value.id]
    shape = state.facts.shape_of(old)
    if state.is_list(old) or (shape.known and (shape.scalar or not shape.ndim)):
        return False  # a list's sort (or a number's): refused as a change in place
    if call.args or {k.arg for k in call.keywords} - {"axis", "kind"}:
        raise state.error(call, f"`{ast.unparse(call)}`: srcdiff sorts an array in place with axis= and kind= only",
                          "write z = np.sort(z, axis=...)")
    keywords = [k for k in call.keywords if k.arg == "axis"]
    if keywords and not isinstance(constant(state, keywords[0].value), int):  # NumPy's method takes no None
        raise state.error(call, f"`{ast.unparse(call)}`: an array's .sort() takes an integer axis",
                          "write z = np.sort(z, axis=...) with the axis you mean")
    writable(state, base, base.id, old, _SORT_HOW)
    sort = ast.copy_location(ast.Call(ast.Attribute(ast.Name("np", ast.Load()), "sort", ast.Load()),
                                      [ast.Name(base.id, ast.Load())], keywords), call)
    spelled = ast.Attribute(ast.Name("np", ast.Load()), "sort", ast.Load())
    out = lower_rule_call(lower, ast.fix_missing_locations(sort), np.sort, state.table.lookup(np.sort), spelled, None)
    state.lambdas.pop(base.id, None)
    state.env[base.id] = out
    return True


def _np(numpy: ast.expr, attr: str, *args: ast.expr) -> ast.Call:
    return ast.Call(ast.Attribute(numpy, attr, ast.Load()), list(args), [])


def _number(lower: ExpressionLowerer, value: Operand) -> bool:
    """`value` is one number (it is written as it is, without repeating it)."""
    if isinstance(value, Const):
        return isinstance(value.value, (int, float)) and not isinstance(value.value, bool)
    shape = lower.state.facts.shape_of(value)
    return shape.known and shape.scalar


def _cyclic(numpy: ast.expr, v: ast.expr, count: ast.expr) -> ast.expr:
    """`v` flattened and repeated to `count` elements, as NumPy fills the places it writes."""
    positions = ast.BinOp(_np(numpy, "arange", count), ast.Mod(), _np(numpy, "size", v))
    return ast.Subscript(_np(numpy, "ravel", v), positions, ast.Load())


def _fill_diagonal(lower: ExpressionLowerer, call: ast.Call, numpy: ast.expr, old: Var) -> Var:
    state = lower.state
    ndim = state.facts.ndim(old)
    if ndim is not MISSING and ndim != 2:  # else diagonal_range refuses it when it runs
        raise state.error(call, f"`{ast.unparse(call)}` of a {ndim}-D array: srcdiff lowers np.fill_diagonal "
                          "of a matrix", "write the diagonal by index: k = np.arange(n); a[k, k, k] = v")
    wrap = next((k.value for k in call.keywords if k.arg == "wrap"), None)
    wrap = False if wrap is None else constant(state, wrap)
    if not isinstance(wrap, bool):
        raise state.error(call, f"`{ast.unparse(call)}`: wrap must be True or False, written in the code")
    a, v = call.args
    # diagonal_range checks that a is a matrix when it runs (a helper's shapes are not known before)
    helper = ast.Name("diagonal_range", ast.Load())
    found = ast.copy_location(ast.Call(helper, [a], [ast.keyword("wrap", ast.Constant(True))] if wrap else []), call)
    positions = lower_rule_call(lower, found, diagonal_range, state.table.lookup(diagonal_range), helper, None)
    bound = {positions.name: positions}  # read by name in the index (names lowering binds for this write only)
    p = ast.Name(positions.name, ast.Load())
    if wrap:  # NumPy's flat positions 0, m + 1, 2 (m + 1), ... to the end of the array: rows and columns
        columns = ast.Subscript(_np(numpy, "shape", a), ast.Constant(1), ast.Load())
        index = [ast.BinOp(p, ast.FloorDiv(), columns), ast.BinOp(p, ast.Mod(), columns)]
    else:
        index = [p, p]
    clashes = set(bound) & set(state.env)
    if clashes:  # never: lowering's temporaries are not the function's names
        raise state.error(call, f"`{ast.unparse(call)}`: cannot name the diagonal's positions {sorted(clashes)}")
    state.env.update(bound)
    try:
        value = lower.expr(v)
        if not _number(lower, value):
            value = lower.expr(ast.fix_missing_locations(ast.copy_location(_cyclic(numpy, v, _np(numpy, "size", p)),
                                                                           call)))
        target = ast.copy_location(ast.Subscript(a, ast.Tuple(index, ast.Load()), ast.Store()), call)
        return set_item_node(lower, ast.fix_missing_locations(target), old, value, a.id)
    finally:
        for key in bound:
            state.env.pop(key, None)


def _putmask(lower: ExpressionLowerer, call: ast.Call, numpy: ast.expr) -> Operand:
    a, mask, values = call.args
    if not _number(lower, lower.expr(values)):
        repeated = _cyclic(numpy, values, _np(numpy, "size", a))
        values = _np(numpy, "reshape", repeated, _np(numpy, "shape", a))
    where = _np(numpy, "where", mask, values, a)
    return lower.expr(ast.fix_missing_locations(ast.copy_location(where, call)), a.id)


def _put(lower: ExpressionLowerer, call: ast.Call, numpy: ast.expr, old: Var) -> Var:
    """``np.put(a, ind, v)`` of a vector: ``a[ind] = v``, `v` repeated to as many values as `ind` has, as
    NumPy fills them (a flat position of an array of more axes is not its index: refused)."""
    state = lower.state
    a, ind, v = call.args
    if state.facts.ndim(old) != 1:
        raise state.error(call, f"`{ast.unparse(call)}`: srcdiff writes np.put into a vector (a 1-D array whose "
                          "axes the arguments tell)", "write the index: a[np.unravel_index(ind, a.shape)] = v, "
                          "or a = a.ravel() first")
    value = lower.expr(v)
    if not _number(lower, value):
        value = lower.expr(ast.fix_missing_locations(ast.copy_location(_cyclic(numpy, v, _np(numpy, "size", ind)),
                                                                       call)))
    target = ast.copy_location(ast.Subscript(a, ind, ast.Store()), call)
    return set_item_node(lower, ast.fix_missing_locations(target), old, value, a.id)


def _put_along_axis(lower: ExpressionLowerer, call: ast.Call, numpy: ast.expr, old: Var) -> Var:
    state = lower.state
    a, indices, values, axis = call.args
    ndims = {state.facts.ndim(old), state.facts.ndim(lower.expr(indices))} - {MISSING}
    axis = constant(state, axis)
    if len(ndims) != 1:
        raise state.error(call, f"`{ast.unparse(call)}`: srcdiff writes along an axis when the number of axes of "
                          f"{ast.unparse(a)} or of the indices is known (and the two agree)", _HOW[np.put_along_axis])
    ndim = ndims.pop()
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < ndim:
        raise state.error(call, f"`{ast.unparse(call)}`: the axis must be a number of an axis of "
                          f"{ast.unparse(a)}, written in the code", "write axis=1 (axis=None is not supported)")
    axis %= ndim
    bound = {}
    if state.facts.ndim(old) is MISSING or state.facts.ndim(lower.expr(indices)) is MISSING:
        helper = ast.Name("along_axis_indices", ast.Load())  # NumPy's test of the number of axes, when run
        checked = ast.copy_location(ast.Call(helper, [indices, a], []), call)
        found = lower_rule_call(lower, checked, along_axis_indices, state.table.lookup(along_axis_indices), helper,
                                None)
        bound = {found.name: found}
        indices = ast.Name(found.name, ast.Load())
    index = []
    for d in range(ndim):
        if d == axis:
            index.append(indices)
            continue
        spread = [ast.Slice() if e == d else ast.Constant(None) for e in range(ndim)]
        positions = _np(numpy, "arange", ast.Subscript(_np(numpy, "shape", a), ast.Constant(d), ast.Load()))
        index.append(ast.Subscript(positions, ast.Tuple(spread, ast.Load()), ast.Load()))
    target = ast.copy_location(ast.Subscript(a, ast.Tuple(index, ast.Load()), ast.Store()), call)
    state.env.update(bound)  # (lowering's own temporary, read by name in the index: never a user's name)
    try:
        return set_item_node(lower, ast.fix_missing_locations(target), old, lower.expr(values), a.id)
    finally:
        for key in bound:
            state.env.pop(key, None)


__all__ = ["lower_in_place_call"]
