"""Lowering of lists and tuples as values, and of comprehensions.

A list the function builds is one object (appended to in place, read by index or by
``np.stack``); a tuple is a list that never grows.  A comprehension is lowered as the loop
it stands for, appending to a new list.
"""

from __future__ import annotations

import ast

from ..ir.nodes import Const, Operand, Var, operand_ast
from ..rules.structural import STACK_LIST, list_of
from .emit import emit_rule
from .expressions import ExpressionLowerer
from .opaque import opaque
from .state import LoweringState

_NP_ASARRAY = ast.Call(ast.parse("np.asarray", mode="eval").body, [], [])  # the call expr_of spells


def lower_list(lower: ExpressionLowerer, node: ast.List, target) -> Operand:
    if _data(node) and not _grown(lower.state, target):
        out = opaque(lower, node, target)
        if isinstance(out, Var):  # a display makes a new list each time it runs: it may be written by index
            lower.state.sharing.fresh(out.name)  # (``seen = [False, False]; seen[v] = True``), as ``[0.0] * n``
            lower.state.sharing.containers.add(lower.state.sharing.owner_of(out))
        return out
    return new_list(lower, [lower.expr(e) for e in node.elts], target)


_GROWING = ("append", "extend", "insert")


def _grown(state: LoweringState, target) -> bool:
    """Whether the function grows the list it names `target` (``lx = [1.0]`` then ``lx.append(v)``,
    or ``lx = lx_grown`` of a list grown so: a list grown while read, rebuilt each iteration by
    frontend/list_joins.py), or binds the name to a list it builds (``lx = [f(v) for v in lx]``): a
    list of numbers written as a literal is then a list of its items, as ``lx = []`` is, not one
    constant value."""
    if not isinstance(target, str):
        return False
    grown, rebound = set(), {}
    for n in ast.walk(state.parsed.tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _GROWING \
                and isinstance(n.func.value, ast.Name):
            grown.add(n.func.value.id)
        elif isinstance(n, ast.Assign) and isinstance(n.value, ast.Name):
            for t in n.targets:
                if isinstance(t, ast.Name):
                    rebound.setdefault(t.id, set()).add(n.value.id)
        elif isinstance(n, ast.Assign) and _built_list(n.value):
            # ``q = [1.0, 1.0]`` then ``q = [f(v) for v in q]`` in a loop: the name holds a list of
            # items after an iteration, so it is one before (a constant first, its adjoint an array
            # the comprehension's adjoint could not pop)
            grown.update(t.id for t in n.targets if isinstance(t, ast.Name))
    seen, todo = set(), [target]
    while todo:
        name = todo.pop()
        if name in grown:
            return True
        seen.add(name)
        todo += [v for v in rebound.get(name, ()) if v not in seen]
    return False


def _built_list(node: ast.expr) -> bool:
    """A list the function builds item by item: a list comprehension, a display of computed items."""
    return isinstance(node, ast.ListComp) or isinstance(node, ast.List) and not is_literal_data(node)


def lower_tuple(lower: ExpressionLowerer, node: ast.Tuple, target) -> Operand:
    if is_literal_data(node):
        return Const(ast.literal_eval(node))  # (0, 1): a constant, usable as axis=
    if _data(node):
        return opaque(lower, node, target)
    return new_list(lower, [lower.expr(e) for e in node.elts], target, tuple_=True)


def is_literal_data(node: ast.expr) -> bool:
    """Numbers (or strings...) written as a literal, nested lists and tuples of them included."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return isinstance(node.operand, ast.Constant)
    return isinstance(node, (ast.List, ast.Tuple)) and bool(node.elts) and all(map(is_literal_data, node.elts))


def _data(node: ast.List | ast.Tuple) -> bool:
    """Numbers written as a literal, kept as one value with no gradient: a flat list of
    constants (``[1.0, 2.0]``) or a nested one (``[[1.0, -2.0], [0.5, 3.0]]``)."""
    if node.elts and all(isinstance(e, ast.Constant) for e in node.elts):
        return True
    return is_literal_data(node) and any(isinstance(e, (ast.List, ast.Tuple)) for e in node.elts)


def new_list(lower: ExpressionLowerer | LoweringState, items: list[Operand], target, tuple_=False) -> Var:
    """A new list (or tuple) of `items`, named `target` if given (`lower`: an expression lowerer, or its state)."""
    state = lower if isinstance(lower, LoweringState) else lower.state
    for item in items:
        if state.is_list(item):
            check_inner_list(state, item, state.line)
    elts = [operand_ast(v) for v in items]
    expr = ast.Tuple(elts, ast.Load()) if tuple_ else ast.List(elts, ast.Load())
    out = emit_rule(state, list_of(len(items)), tuple(items), {}, expr, target)
    state.lists.add(out.name)
    if tuple_:
        state.frozen_lists.add(out.name)  # tuples never grow
        state.tuple_items[out.name] = tuple(items)  # so ``a, b = (x, y)`` reads x and y themselves
        state.tuples.add(out.name)
    if any(state.is_list(item) for item in items):
        state.nested.add(out.name)
    for loop in state.loops:
        loop.created.add(out.name)  # a new list in every iteration
    return out


def as_array(state: LoweringState, items: Var) -> Var:
    """``np.asarray(items)`` of a list: the adjoint is the list of the result's rows."""
    return emit_rule(state, STACK_LIST, (items,), {}, None, None, expr_of=_NP_ASARRAY)


def check_inner_list(state: LoweringState, item: Var, line: int) -> None:
    """A list put into another list: its adjoint comes back as an array row when the outer
    list is stacked, which a list built by `append` cannot take (its adjoints are popped)."""
    if item.name in state.grown:
        raise state.error(line, "a list built by `append` (or by a comprehension) inside another "
                          "list is not supported",
                          "make each inner list an array first (np.array(row), or np.array([...]) "
                          "around an inner comprehension); np.array of the outer list is then "
                          "the same array")


def lower_comprehension(lower: ExpressionLowerer, node: ast.ListComp | ast.GeneratorExp, target) -> Var:
    """``[e for v in it if c]`` as a loop appending to a new list."""
    state = lower.state
    key = f"<comprehension {node.lineno}:{node.col_offset}>"
    state.temp_names[key] = target or state.namer.temp()
    out = new_list(lower, [], None)
    if id(node) in state.stacked_rows:  # np.array([[...] for ...]): each row becomes an array
        state.row_lists.add(out.name)
        if isinstance(node.elt, ast.ListComp):
            state.stacked_rows.add(id(node.elt))
    state.env[key] = out
    loop = _as_loop(lower, node, key)
    saved = {n: state.env.get(n) for n in _loop_names(node)}
    lower.lower_loop(loop)
    for name, value in saved.items():  # comprehension variables do not leak
        if value is None:
            state.env.pop(name, None)
        else:
            state.env[name] = value
    return state.env.pop(key)


def _as_loop(lower: ExpressionLowerer, node: ast.ListComp | ast.GeneratorExp, key: str) -> ast.For:
    """The comprehension as nested ``for``/``if`` statements appending to the list `key`."""
    loop = ast.For(target=None, iter=None, body=[], orelse=[])
    inner: list[ast.stmt] = [ast.Expr(ast.Call(
        ast.Attribute(ast.Name(key, ast.Load()), "append", ast.Load()), [node.elt], []))]
    for gen in reversed(node.generators):
        if gen.is_async:
            raise lower.state.unsupported(node)
        for cond in reversed(gen.ifs):
            inner = [ast.If(cond, inner, [])]
        loop = ast.For(target=gen.target, iter=gen.iter, body=inner, orelse=[])
        inner = [loop]
    stmt = ast.fix_missing_locations(ast.copy_location(loop, node))
    for n in ast.walk(stmt):
        if not hasattr(n, "lineno") or n.lineno is None:
            ast.copy_location(n, node)
    return stmt


def _loop_names(node: ast.ListComp | ast.GeneratorExp) -> set[str]:
    return {n.id for gen in node.generators for n in ast.walk(gen.target) if isinstance(n, ast.Name)}
