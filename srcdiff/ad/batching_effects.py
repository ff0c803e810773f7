"""Statements run for their effect in batched code (ad/batching.py): a print, an assert, a dtype guard,
a gradient's check that f returns a number, as written where they read no batched value."""

from __future__ import annotations

import ast
import copy

_ROW_FACTS = {"dtype", "ndim", "shape"}  # asked of the first row: the shape checks of pruned statements too


def effect_statement(item, state) -> ast.stmt:
    """A statement run for its effect (a print, an assert, a dtype guard) as written.  One
    that asks a batched value only its dtype or ndim asks the first row; one that reads a
    batched value otherwise is refused (it would see the whole batch)."""
    batched = {v.name for v in item.inputs if state.batched(v)}
    if not batched:
        return item.stmt
    call_ = item.stmt.value if isinstance(item.stmt, ast.Expr) else None
    if isinstance(call_, ast.Call) and isinstance(call_.func, ast.Name) and call_.args \
            and isinstance(call_.args[0], ast.Name) and call_.args[0].id in batched:
        if call_.func.id == "computed_for_errors":  # computed (so that f's error is raised), nothing read
            return item.stmt
        if call_.func.id == "ensure_scalar":  # a gradient's check that f returns a number: asked of a row
            stmt = copy.deepcopy(item.stmt)
            stmt.value.args[0] = ast.Subscript(stmt.value.args[0], ast.Constant(0), ast.Load())
            return stmt
    facts = {id(n.value) for n in ast.walk(item.stmt) if isinstance(n, ast.Attribute) and n.attr in _ROW_FACTS}
    facts |= {id(n.args[0]) for n in ast.walk(item.stmt) if _length_of_name(n)}
    if any(isinstance(n, ast.Name) and n.id in batched and id(n) not in facts for n in ast.walk(item.stmt)):
        state.refuse(item, "a statement run for its effect (print, assert, a check) reads a batched value",
                     "check the whole batch outside the function, or call it once per example")
    stmt = copy.deepcopy(item.stmt)
    for n in ast.walk(stmt):
        if isinstance(n, ast.Attribute) and n.attr in _ROW_FACTS and isinstance(n.value, ast.Name) \
                and n.value.id in batched:
            n.value = ast.Subscript(ast.Name(n.value.id, ast.Load()), ast.Constant(0), ast.Load())
        if _length_of_name(n) and n.args[0].id in batched and n.args[0].id not in state.containers \
                and n.args[0].id not in state.lists:  # len(x) of a row (a count guard of an unpacking): of the first
            n.args[0] = ast.Subscript(ast.Name(n.args[0].id, ast.Load()), ast.Constant(0), ast.Load())
    return stmt


def _length_of_name(node) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" \
        and len(node.args) == 1 and isinstance(node.args[0], ast.Name)


__all__ = ["effect_statement"]
