"""Functional updates of an array: ``out[index] = v`` and array-API ``at(x, index).set(v)``.

Both become ``out_1 = set_item(x, index, v)``, which writes into a copy: the value before
the write stays what the backward sweep reads.  assignments.py checks that a write by
index changes no array anyone else sees; ``at(...).set(...)`` returns a new array by its
own contract (array_api_extra's ``at``, as SciPy uses it), so it needs no such check.
"""

from __future__ import annotations

import ast
import copy

import numpy as np

from ..frontend.depends import MISSING
from ..ir.nodes import Const, Operand, Var, operand_ast
from ..rules import TABLE
from ..rules.list_helpers import items_array
from ..rules.runtime import set_item, zero_item
from ..rules.structural import setitem_rule
from .decided import known_value
from .emit import emit_rule
from .expressions import ExpressionLowerer
from .lists import as_array
from .state import LoweringState, parameter_names
from .static_values import static_value
from .subscripts import index_parts


def set_item_node(lower: ExpressionLowerer, target: ast.Subscript, old: Operand, v: Operand, name) -> Var:
    """``name = old with old[target's index] = v``, as a `setitem` node."""
    state = lower.state
    spelled = ast.unparse(target)
    if isinstance(v, Var) and state.is_list(v):  # J[i] = [c, s]: NumPy writes the array the list makes
        v = as_array(state, v)
    inputs, kinds, parts = index_parts(lower, target)
    if any(kind == "newaxis" for kind, _ in kinds):
        raise state.error(target, f"writing through None in {spelled} is not supported",
                          "index the array without np.newaxis")
    ints = -1 if any(kind in ("slice", "ellipsis") for kind, _ in kinds) else len(kinds)
    text = _placeholders(parts)
    index = parts[0] if len(parts) == 1 and not isinstance(target.slice, ast.Tuple) \
        else ast.Tuple(parts, ast.Load())
    if any(isinstance(p, ast.Slice) for p in parts):
        index = ast.Subscript(ast.Attribute(ast.Name("np", ast.Load()), "s_", ast.Load()), index, ast.Load())
    expr = ast.Call(ast.Name("set_item", ast.Load()), [operand_ast(old), index, operand_ast(v)], [])
    rule = setitem_rule(len(inputs) - 1)
    return emit_rule(state, rule, (old, v) + tuple(inputs[1:]), {"index": text, "ints": ints}, expr, name)


def writable(state: LoweringState, target: ast.expr, name: str, old: Var, how: str) -> int:
    """The fresh array `name` holds, if nothing else can see it; else refuse the write."""
    spelled = ast.unparse(target)
    token = state.sharing.owner_of(old)
    if token is None:
        what = "an argument" if old.name in parameter_names(state.parsed.tree.args) else \
            "not known to be a new array"
        raise state.error(target, f"writing into {spelled} is not supported: {name} is {what}, "
                          "and an in-place write would change a value the caller or the "
                          "gradient still needs", how)
    mine = state.sharing.tokens(token)
    for key, operand in state.env.items():
        if key != name and mine & state.sharing.of(operand):
            raise state.error(target, f"writing into {spelled} is not supported: "
                              f"{state.display(key)} shares its memory with {name}, and the "
                              f"write would change {state.display(key)} too",
                              f"make {state.display(key)} a copy ({name}.copy()), or write "
                              "before it is taken")
    return token


def _check_written_alone(state: LoweringState, node: ast.Call, x: ast.expr, old: Var, target) -> None:
    """``at(x, ...).set(v)`` with copy=None writes into x's array (NumPy's arrays are
    writable): right only when no other name, and not the caller, holds that array."""
    name = x.id if isinstance(x, ast.Name) else None
    how = "pass copy=True to at(...).set(...), or set a copy: at(x.copy(), ...)"
    mine = state.sharing.of(old)
    argument = next((state.sharing.arguments[t] for t in sorted(mine) if t in state.sharing.arguments), None)
    if argument is not None:
        raise state.error(node, f"{ast.unparse(node)} writes into {argument}'s array (copy=None): "
                          f"{argument} is an argument, and the caller still holds it", how)
    other = next((state.display(k) for k, o in state.env.items()
                  if k != name and (o == old or mine & state.sharing.of(o))), None)
    if other is not None:
        raise state.error(node, f"{ast.unparse(node)} writes into the array {other} holds too (copy=None)", how)
    if name is not None and state.loops and target != name:
        raise state.error(node, f"{ast.unparse(node)} in a loop writes into {name} (copy=None)",
                          f"{how}, or assign the result to {name}")


def _placeholders(parts: list[ast.expr]) -> str:
    """The index's text with each operand it reads named i0, i1, ... in order (the static
    text of a `setitem` rule, whose parameters those are)."""
    count = iter(range(len(parts) * 3))

    class Name(ast.NodeTransformer):
        def visit_Name(self, name):
            return ast.Name(f"i{next(count)}", ast.Load())

    return ", ".join(ast.unparse(Name().visit(copy.deepcopy(p))) for p in parts)


def is_at(func) -> bool:
    """array_api_extra's ``at`` (also as SciPy vendors it)."""
    return isinstance(func, type) and func.__name__ == "at" and "array_api_extra" in (func.__module__ or "")


def at_parts(node: ast.Call, resolve) -> tuple[ast.expr, ast.expr] | None:
    """(x, index) of ``at(x, index).set(v)`` or ``at(x)[index].set(v)``; None for other calls."""
    if not (isinstance(node.func, ast.Attribute) and node.func.attr == "set"):
        return None
    owner = node.func.value
    index = None
    if isinstance(owner, ast.Subscript):
        owner, index = owner.value, owner.slice
    if not (isinstance(owner, ast.Call) and is_at(resolve(owner.func))):
        return None
    if owner.keywords or len(owner.args) != (1 if index is not None else 2):
        return None
    return owner.args[0], index if index is not None else owner.args[1]


def lower_at_set(lower: ExpressionLowerer, node: ast.Call, x: ast.expr, index: ast.expr, target) -> Var:
    """``at(x, index).set(v, copy=..., xp=...)``: a new array, x with x[index] = v."""
    state = lower.state
    keywords = {k.arg: k.value for k in node.keywords}
    if len(node.args) != 1 or set(keywords) - {"copy", "xp"} or None in keywords:
        raise state.error(node, "at(x, index).set(v) is supported with the value and copy=/xp= only",
                          "write y = x.copy(); y[index] = v")
    copied = keywords.get("copy")
    if copied is not None and known_value(lower, copied) is None:
        copied = None  # ``copy=True if b is None else None``, decided by the specialisation
    if copied is not None and known_value(lower, copied) is MISSING:
        raise state.error(node, f"copy={ast.unparse(copied)} must be a constant here (True or None): "
                          "whether x is written in place decides the code", "pass copy=True")
    if copied is not None and known_value(lower, copied) is not True:
        raise state.error(node, "at(...).set(..., copy=False) changes x in place, which srcdiff does "
                          "not differentiate", "leave copy out (or copy=True) and use the result")
    old = lower.expr(x)
    if not isinstance(old, Var):
        raise state.error(node, "at(...).set(...) of a constant is not supported", "use an array")
    if copied is None:  # NumPy writes into x itself then: no one else may see x
        _check_written_alone(state, node, x, old, target)
    v = lower.expr(node.args[0])
    slot = ast.copy_location(ast.Subscript(ast.Constant(None), index, ast.Load()), node)
    out = set_item_node(lower, slot, old, v, target)
    if copied is not None:  # copy=True: a new array, whatever x's was
        state.sharing.fresh(out.name)
    if copied is None and isinstance(x, ast.Name):  # x itself now holds the written array, as in NumPy
        state.env[x.id] = out
    return out


_ITEMS_ARRAY = ast.Call(ast.Name("items_array", ast.Load()), [], [])


def lower_helper_write(lower: ExpressionLowerer, node: ast.Call, func, target) -> Var | None:
    """``set_item(x, index, v)`` and ``zero_item(g, index)`` as srcdiff's generated code writes
    them (a gradient read back to differentiate it again): the same functional update as the
    write ``x[index] = v`` they stand for, on a copy (`zero_item` writes 0.0); the index as
    written, ``np.s_[a:b]`` read as the slice ``a:b``.  None for any other function."""
    if func is not set_item and func is not zero_item:
        return None
    state = lower.state
    arity = 3 if func is set_item else 2
    if node.keywords or len(node.args) != arity or any(isinstance(a, ast.Starred) for a in node.args):
        raise state.error(node, f"{func.__name__} takes {arity} positional arguments here")
    index = node.args[1]
    if isinstance(index, ast.Subscript) and static_value(state, index.value, record=False) is np.s_:
        index = index.slice
    old = lower.expr(node.args[0])
    if not isinstance(old, Var):
        raise state.error(node, f"{func.__name__} of a constant is not supported")
    if func is zero_item and not state.is_list(old):  # a list of numbers zero_item makes an array (runtime.py):
        old = emit_rule(state, TABLE.lookup(items_array), (old,), {}, None, None, expr_of=_ITEMS_ARRAY)  # (kept a list,
        # `+` would concatenate it)
    v = lower.expr(node.args[2]) if func is set_item else Const(0.0)
    slot = ast.copy_location(ast.Subscript(ast.Constant(None), index, ast.Load()), node)
    out = set_item_node(lower, slot, old, v, target)
    state.sharing.fresh(out.name)  # a copy: nothing else holds it
    return out
