"""A loop over a dict of the module (or of a closure): ``for k in RATES``, ``RATES.keys()``,
``RATES.values()``, ``RATES.items()``, alone or in ``zip``/``enumerate``, comprehensions too.

Python iterates a dict's keys.  The loop over any other value (``range(len(it))``, ``it[i]``)
would read ``RATES[0]``, ``RATES[1]``...: a KeyError, or, for a dict keyed 0, 1, ..., its values
taken for its keys, a silently wrong gradient.  So the iterable is replaced by a tuple display of
what the dict iterates now (its keys, values or pairs: numbers, strings and tuples of them), and
the gradient depends on the dict still iterating the same (built again when it does not, as for
a rebound name).  Values that are arrays or objects are refused at the user's line.
"""

from __future__ import annotations

import ast
import builtins

from ..frontend.depends import MISSING, Dependency, is_simple
from ..ir.nodes import Const
from .state import LoweringState
from .static_values import static_value
from .table_keys import table_keys

_VIEWS = {"keys": lambda d: tuple(d), "values": lambda d: tuple(d.values()), "items": lambda d: tuple(d.items())}
_WRAPPERS = (builtins.zip, builtins.enumerate, builtins.reversed, builtins.sorted)


class _Iterated:
    """A dependency's scope: ``get(view)`` is what the dict iterates now by that view."""

    def __init__(self, d: dict):
        self.d = d

    def get(self, view, default=None):
        return _VIEWS[view](self.d)


def module_dict(state: LoweringState, node: ast.expr):
    """The dict a Name/Attribute chain of the module names (not a local or a parameter), or a dict such a
    dict holds at a key known now (``TABLE[i]``, i a constant or an unrolled loop's key), else None."""
    if isinstance(node, ast.Subscript):
        outer = module_dict(state, node.value)
        key = _known_key(state, node.slice)
        if outer is None or key is MISSING:
            return None
        inner = outer.get(key, MISSING) if is_simple(key) else MISSING
        return inner if isinstance(inner, dict) else None
    if isinstance(node, ast.Name) and (node.id in state.env or node.id in state.locals):
        return None
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return None
    value = static_value(state, node, record=False)
    return value if isinstance(value, dict) and value is not MISSING else None


def _known_key(state: LoweringState, node: ast.expr):
    """The key `node` spells when it is known now (a constant, or a name an unrolled loop binds), else MISSING."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and isinstance(bound := state.env.get(node.id), Const):
        return bound.value
    return MISSING


def _nested(d: dict) -> bool:
    """Whether `d`'s values are numbers and the like, or dicts of them (a table of tables)."""
    return all(is_simple(v) or isinstance(v, dict) and is_simple(tuple(v.items())) for v in d.values())


def _view(state: LoweringState, node: ast.expr) -> tuple | None:
    """(the dict, the view) `node` iterates: ``D`` its keys, ``D.keys()``, ``D.values()``, ``D.items()``."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _VIEWS \
            and not node.args and not node.keywords:
        d = module_dict(state, node.func.value)
        return (d, node.func.attr, node.func.value) if d is not None else None
    d = module_dict(state, node)
    return (d, "keys", node) if d is not None else None


def dict_iterables(state: LoweringState, it: ast.expr) -> ast.expr:
    """`it` (a loop's iterable) with each dict of the module it iterates, itself or in zip /
    enumerate / reversed / sorted, written as the tuple of what it iterates now."""
    if isinstance(it, ast.Call) and not it.keywords and isinstance(it.func, (ast.Name, ast.Attribute)) \
            and static_value(state, it.func, record=False) in _WRAPPERS:
        args = [dict_iterables(state, a) for a in it.args]
        if all(a is b for a, b in zip(args, it.args)):
            return it
        func = static_value(state, it.func, record=False)
        if func in (builtins.sorted, builtins.reversed) and len(args) == 1:  # ordered now, as Python would
            return ast.copy_location(ast.Constant(tuple(func(args[0].value))), it)
        return ast.copy_location(ast.Call(it.func, args, []), it)
    found = _view(state, it)
    if found is None:
        inner = it.value if isinstance(it, ast.Subscript) else None
        outer = None if inner is None else module_dict(state, inner)
        if outer is not None and any(isinstance(v, dict) for v in outer.values()):
            # (a loop over a value iterates it by position: a dict's values taken for its keys)
            raise state.error(it, f"looping over {ast.unparse(it)}, a dict the module's dict {ast.unparse(inner)} "
                              "holds, at a key the code computes, is not supported",
                              f"loop over the keys of {ast.unparse(inner)} itself (for k in {ast.unparse(inner)}: "
                              f"for j in {ast.unparse(inner)}[k]: ...), at most {UNROLLED_KEYS} of them, with no "
                              "break or return in the loop")
        return it
    d, view, named = found
    items = _VIEWS[view](d)
    if not is_simple(items):
        keyed = not is_simple(tuple(d))  # (Enum members: the tuple of them is spelled by the user)
        what = "keyed by Enum members or other objects" if keyed else "holding arrays or objects"
        raise state.error(it, f"looping over {ast.unparse(it)}, a dict of the module {what}, is not supported",
                          f"loop over its keys and read the values: for k in "
                          f"{'(Term.A, Term.B)' if keyed else ast.unparse(named)}: v = {ast.unparse(named)}[k]")
    static_value(state, named)  # (rebinding the name builds the gradient again)
    state.parsed.include([Dependency(_Iterated(d), view, items)])
    return ast.copy_location(ast.Constant(items), it)


#: a dict of the module iterated and read at its keys is unrolled up to this many keys (a configuration's
#: few entries; past it the loop stays a loop, which jit="numba" refuses: numba takes no Python dict)
UNROLLED_KEYS = 32


def unrolled_keys(state: LoweringState, stmt: ast.For) -> tuple | None:
    """The keys (or items) of a module's dict of numbers `stmt` iterates, alone, when its body reads
    the dict at the loop's key (``for lag in LAGS: LAGS[lag] * x[lag]``): each key is then a constant,
    which jit="numba" can read (it takes no Python dict); the strings of a loop picking functions from a
    table by them (table_keys.py); else None."""
    found = _view(state, stmt.iter)
    if found is None:
        return table_keys(state, stmt)  # for name in names: ACTS[name](h), names strings known now
    d, view, named = found
    simple = is_simple(tuple(d.items())) or view == "keys" and _nested(d)  # (TABLE[i][j]: i a constant)
    if view == "values" or not 0 < len(d) <= UNROLLED_KEYS or not simple or any(
            isinstance(n, (ast.Break, ast.Continue, ast.Return)) for s in stmt.body for n in ast.walk(s)):
        return None
    key = stmt.target if view == "keys" else stmt.target.elts[0] if isinstance(stmt.target, ast.Tuple) else None
    if not isinstance(key, ast.Name):
        return None
    spelled = ast.dump(named)
    if not any(isinstance(n, ast.Subscript) and ast.dump(n.value) == spelled and isinstance(n.slice, ast.Name)
               and n.slice.id == key.id for s in stmt.body for n in ast.walk(s)):
        return None
    items = _VIEWS[view](d)
    if not is_simple(items):
        return None
    static_value(state, named)  # (rebinding the name builds the gradient again)
    state.parsed.include([Dependency(_Iterated(d), view, items)])
    return items
