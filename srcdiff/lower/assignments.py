"""Lowering of assignments: to names, by unpacking, by index, in place, and ``xs.append``.

Assigning a name rebinds it in `env` to the new value (SSA: nothing is overwritten).  A
write by index (``out[i] = v``) and an in-place operator (``y += v``) are lowered as new
values too, which is Python's meaning only when no one else sees the old array: writes.py
keeps the bookkeeping that decides it.
"""

from __future__ import annotations

import ast
import operator

from ..ir.nodes import Const, Var, operand_ast
from ..rules.structural import APPEND
from .alias_reads import read_later
from .array_updates import set_item_node, writable
from .effects import is_effect_call, is_refusal_call, lower_effect, lower_raise
from .emit import emit_rule, note_list_read
from .in_place_calls import lower_in_place_call
from .list_edits import lower_list_edit
from .lists import as_array, check_inner_list
from .mutations import refuse_expression_statement
from .nested import remember
from .state import LoweringState
from .statements import StatementLowerer
from .subscripts import generated_code, unpack
from .table_keys import bound_function
from .ufunc_at import lower_ufunc_at
from .writes import InPlaceUpdate

_AUGMENTED = {ast.Add: (operator.add, "+="), ast.Sub: (operator.sub, "-="),
              ast.Mult: (operator.mul, "*="), ast.Div: (operator.truediv, "/="),
              ast.Pow: (operator.pow, "**="), ast.MatMult: (operator.matmul, "@=")}
_HOW_TO_WRITE = ("create the array in this function (np.zeros(...), np.empty_like(x), x.copy()) "
                 "and write into that, or collect the values in a list and use np.stack")


def lower_assign(lower: StatementLowerer, stmt: ast.Assign) -> None:
    state = lower.state
    if isinstance(stmt.value, ast.Lambda):
        if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
            raise state.error(stmt, "a lambda can only be assigned to one plain name")
        remember(state, stmt, stmt.targets[0].id, stmt.value)
        return
    first, *others = stmt.targets
    if not others and bound_function(state, first, stmt.value):
        return  # act = ACTS[name]: the function itself (table_keys.py)
    assign(lower, first, stmt.value)
    # `a = b = np.zeros(3)` evaluates the value once: b is a's array (a write into one is seen
    # through the other), not a second array made by evaluating the value again
    again = ast.copy_location(ast.Name(first.id, ast.Load()), first) if isinstance(first, ast.Name) else stmt.value
    for target in others:
        assign(lower, target, again)


def lower_annassign(lower: StatementLowerer, stmt: ast.AnnAssign) -> None:
    if stmt.value is not None:
        assign(lower, stmt.target, stmt.value)


def lower_augassign(lower: StatementLowerer, stmt: ast.AugAssign) -> None:
    state = lower.state
    if isinstance(stmt.target, ast.Subscript) and isinstance(stmt.target.value, ast.Name):
        read = ast.copy_location(ast.Subscript(stmt.target.value, stmt.target.slice, ast.Load()), stmt.target)
        value = ast.copy_location(ast.BinOp(read, stmt.op, stmt.value), stmt)
        assign(lower, stmt.target, value)  # out[i] += v is out[i] = out[i] + v
        return
    if not isinstance(stmt.target, ast.Name):
        raise state.error(stmt, f"in-place update of {ast.unparse(stmt.target)} is not "
                          "supported: it would overwrite a value the gradient needs",
                          "build the result in a new variable, or collect values in a "
                          "list and use np.stack")
    load = ast.copy_location(ast.Name(stmt.target.id, ast.Load()), stmt.target)
    value = ast.copy_location(ast.BinOp(load, stmt.op, stmt.value), stmt)
    if type(stmt.op) not in _AUGMENTED:
        assign(lower, stmt.target, value)  # refused there, as any such operator is
        return
    # lowered as the new value `name op v`; where NumPy would instead update an array
    # others see, the node says who, and is refused per signature (writes.py)
    name = stmt.target.id
    func, spelled = _AUGMENTED[type(stmt.op)]
    shared_with, argument, sharers = seen_elsewhere(state, name, state.sharing.of(state.env.get(name, Const(None))),
                                                    stmt.lineno)
    x, y = lower.expressions.expr(load), lower.expressions.expr(stmt.value)
    expr = ast.BinOp(operand_ast(x), stmt.op, operand_ast(y))
    state.lambdas.pop(name, None)
    state.env[name] = emit_rule(state, state.table.lookup(func), (x, y), {}, expr, name,
                                kind=InPlaceUpdate, name=name, op=spelled,
                                shared_with=shared_with, argument=argument, sharers=sharers)
    for loop in state.loops:
        loop.in_place.append(state.nodes[-1])


def seen_elsewhere(state: LoweringState, name: str, mine: frozenset[int],
                   line: int | None = None) -> tuple[str | None, str | None, tuple[str, ...] | None]:
    """Who else may see `name`'s array (whose memory is `mine`): another name sharing it
    (an alias, a view, a list holding it) that is read after the update at `line` (any, when
    None: alias_reads.py), the parameter whose array it may be, and the values of all the names
    sharing it (None where one is not a value: a list, a tree)."""
    value = state.env.get(name)
    others = [key for key, other in state.env.items() if key != name and (
        isinstance(value, Var) and other == value or mine & state.sharing.of(other))]
    argument = next((state.sharing.arguments[t] for t in sorted(mine) if t in state.sharing.arguments), None)
    if others and line is not None and not read_later(state.parsed.tree, line, name, others):
        # no one here reads them again: the update changes nothing this function sees.  An argument's
        # array is still the caller's: `argument` says so, and a helper's update of it is refused
        # unless its caller reads it nowhere else (writes.py, ad/in_place_args.py, ad/inline_copy.py),
        # as the function's own ``x0 += v`` is
        others = []
    shared_with = state.display(others[0]) if others else None
    values = [state.env[key] for key in others]
    sharers = tuple(v.name for v in values) if all(isinstance(v, Var) for v in values) else None
    return shared_with, argument, sharers


def lower_expression_statement(lower: StatementLowerer, stmt: ast.Expr) -> None:
    value = stmt.value
    if isinstance(value, (ast.Constant, ast.JoinedStr)):
        return  # a docstring, or a placeholder (...)
    if isinstance(value, ast.Tuple) and value.elts and all(isinstance(e, ast.Call) for e in value.elts):
        for call in value.elts:  # ``xs.append(a), ys.append(b)``: the calls in order, the tuple thrown away
            lower_expression_statement(lower, ast.copy_location(ast.Expr(call), stmt))
        return
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
            and value.func.attr == "append" and isinstance(value.func.value, ast.Name):
        _append(lower, value)
        return
    if is_refusal_call(lower.state, value):  # a generated gradient's deferred refusal: raised where taken
        lower_raise(lower.state, stmt)
        return
    if is_effect_call(lower.state, value):  # print, logging, warnings: run as written
        lower_effect(lower.state, stmt)
        return
    if isinstance(value, ast.Call) and lower_ufunc_at(lower, value):  # np.add.at(a, i, v): a = index_add(...)
        return
    if isinstance(value, ast.Call) and lower_in_place_call(lower.expressions, value):  # np.fill_diagonal, np.putmask
        return
    if isinstance(value, ast.Call) and lower_list_edit(lower, value):  # rest.remove(item) of a list of indices
        return
    raise refuse_expression_statement(lower.state, stmt)


def assign(lower: StatementLowerer, target: ast.expr, value: ast.expr) -> None:
    state, expressions = lower.state, lower.expressions
    if isinstance(target, ast.Name):
        state.lambdas.pop(target.id, None)
        state.env[target.id] = expressions.expr(value, target=target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        if any(isinstance(t, ast.Starred) for t in target.elts):
            raise state.error(target, "starred assignment is not supported", "unpack by index")
        if isinstance(value, (ast.Tuple, ast.List)):
            if len(target.elts) != len(value.elts):
                raise state.error(target, "cannot unpack: the two sides have different lengths")
            operands = [expressions.expr(v) for v in value.elts]  # all right-hand sides first
        else:
            operands = unpack(expressions, value, len(target.elts),
                              [t.id if isinstance(t, ast.Name) else None for t in target.elts])
        for t, operand in zip(target.elts, operands):
            if isinstance(t, ast.Subscript) and isinstance(value, (ast.Tuple, ast.List)):
                _assign_swapped_item(lower, t, operand)
                continue
            if isinstance(t, (ast.Tuple, ast.List)):  # v, (gw, gb) = vg(w, b, x): the item unpacked in turn
                _assign_nested(lower, t, operand)
                continue
            if not isinstance(t, ast.Name):
                raise state.error(t, f"assignment to {ast.unparse(t)} is not supported",
                                  "unpack into plain local names")
            state.lambdas.pop(t.id, None)
            state.env[t.id] = operand
    elif isinstance(target, ast.Subscript):
        _assign_item(lower, target, value)
    else:
        raise state.error(target, f"assignment to {ast.unparse(target)} is not supported",
                          "assign to a plain local name")


def _assign_nested(lower: StatementLowerer, target: ast.Tuple | ast.List, operand) -> None:
    """``(gw, gb) = <an item already computed>``: unpacked as ``(gw, gb) = name`` of a name bound to
    it, held in `env` while it is read under a key no identifier can spell."""
    key = f"<item unpacked at line {target.lineno}:{target.col_offset}>"
    lower.state.env[key] = operand
    try:
        assign(lower, target, ast.copy_location(ast.Name(key, ast.Load()), target))
    finally:
        lower.state.env.pop(key, None)


def _append(lower: StatementLowerer, call: ast.Call) -> None:
    """``xs.append(v)`` on a list built in this function: the list keeps its name."""
    state = lower.state
    name = call.func.value.id
    lst = state.env.get(name)
    if not (isinstance(lst, Var) and lst.name in state.lists):
        raise state.error(call, f"{name}.append(...) works only on a list this function builds "
                          "(xs = [] ...)", "build a new list in the function")
    if len(call.args) != 1 or call.keywords:
        raise state.error(call, "append takes one value")
    if lst.name in state.frozen_lists:
        raise state.error(call, f"appending to {name} after it was read is not supported",
                          "finish building the list before using it")
    for loop in state.loops:
        loop.appended.add(lst.name)
    value = lower.expressions.expr(call.args[0])
    static: dict = {}
    if state.is_list(value):
        if lst.name in state.row_lists:  # a row of np.array([[...] for ...]): an array already
            value = as_array(state, value)
        elif generated_code(state):  # a gradient's stack of lists: items refused where their adjoint is needed
            static["nested"] = True
            state.nested.add(lst.name)
        else:
            check_inner_list(state, value, call.lineno)
            note_list_read(state, value)  # the outer list holds it: it may not grow any more
            state.nested.add(lst.name)
    expr = ast.Call(ast.Attribute(ast.Name(lst.name, ast.Load()), "append", ast.Load()),
                    [operand_ast(value)], [])
    emit_rule(state, APPEND, (lst, value), static, expr, None, out=lst)
    state.grown.add(lst.name)


def _assign_swapped_item(lower: StatementLowerer, target: ast.Subscript, operand) -> None:
    """``a[0], a[1] = a[1], a[0]``: every right-hand side was computed first, as Python does; each
    item is then written in order.  A number is a copy in NumPy too; an array (a row of a matrix) is
    a view NumPy would read after the first write changed it, so it is refused."""
    state = lower.state
    shape = state.facts.shape_of(operand)
    if not (isinstance(operand, Const) and isinstance(operand.value, (int, float))) \
            and not (shape.known and shape.scalar):
        raise state.error(target, f"assignment to {ast.unparse(target)} in a tuple is supported where the "
                          "right-hand sides are known to be numbers: a row read on the right is a view, which "
                          "NumPy reads after the first write changed it (both rows end up equal)",
                          "swap rows with fancy indexing (A[[0, 1]] = A[[1, 0]]) or copy them first")
    _assign_item(lower, target, None, operand)


def _assign_item(lower: StatementLowerer, target: ast.Subscript, value: ast.expr | None, v=None) -> None:
    """``out[index] = value`` into a fresh array: ``out_1 = set_item(out, index, value)`` (`v`: the
    value already computed)."""
    state = lower.state
    base = target.value
    spelled = ast.unparse(target)
    if not isinstance(base, ast.Name) or not isinstance(state.env.get(base.id), Var):
        raise state.error(target, f"writing into {spelled} is not supported: only a local "
                          "array this function creates can be written by index", _HOW_TO_WRITE)
    name, v = base.id, lower.expressions.expr(value) if v is None else v
    old = state.env[name]
    token = writable(state, target, name, old, _HOW_TO_WRITE)
    out = set_item_node(lower.expressions, target, old, v, name)
    for loop in state.loops:
        loop.written.update(state.sharing.tokens(token))
    state.env[name] = out
