"""A ``for`` over a tuple of items known when the gradient is built that no generated code could hold:
enum members and functions (``for a in acts`` with ``acts=(Act.TANH, Act.SOFTPLUS)``, a default or a
module-level tuple, ``for f in (np.tanh, np.sin)``, ``for i, f in enumerate(FS)``, ``for c, f in zip(cs, FS)``).

Such an item is static (``ACTS[a](h)`` is a call of the function the dict holds at that member; ``if a is
Act.TANH:`` is decided), so the loop is unrolled: its body lowered once per item with the name bound to it,
as Python runs it.  A parameter is read as a static argument (the gradient specialised on its value, each
call checked) only when its default is such a tuple.  A ``break``, ``continue`` or ``return`` in the body,
or an ``else``, is refused at the loop's line.
"""

from __future__ import annotations

import ast
import builtins
import copy
import dataclasses
import enum
import inspect
import itertools

import numpy as np

from ..errors import SrcDiffError
from ..frontend.depends import MISSING
from ..ir.nodes import Const, Var
from .facts import constant_dict
from .static_values import StaticParameter, constant, static_parameter, static_value


def static_items(state, it: ast.expr) -> tuple | None:
    """The items of `it` when it is a tuple (or list) of enum members or functions known now, else None."""
    grouped = _grouped(state, it)
    if grouped is not None:
        return grouped
    counted = _enumerated(state, it)
    if counted is not None:
        return counted
    zipped = _zipped(state, it)
    if zipped is not None:
        return zipped
    if isinstance(it, (ast.Tuple, ast.List)):
        items = tuple(static_value(state, e) if isinstance(e, (ast.Name, ast.Attribute)) else MISSING
                      for e in it.elts)
    elif isinstance(it, ast.Name) and it.id in state.env:
        parameter = static_parameter(state, it)
        if parameter is None or not _static_default(state, parameter):
            return None
        items = constant(state, it)  # (a parameter: asked for as a static argument)
    elif isinstance(it, (ast.Name, ast.Attribute)):
        items = static_value(state, it)  # a module-level tuple: rebinding it builds the gradient again
    else:
        return None
    if not isinstance(items, (tuple, list)) or not items or not all(_static_item(v) for v in items):
        return None
    return tuple(constant_dict(v) if isinstance(v, dict) else v for v in items)


@dataclasses.dataclass(frozen=True)
class Indexed:
    """Item `k` of the sequence `name` holds (``c`` of ``zip(c, FS)``), read where its iteration is lowered."""
    name: str
    k: int


def _zipped(state, it: ast.expr) -> tuple | None:
    """``zip(c, FS)`` of tuples `static_items` takes and names of the function (not rebound in the loop): its
    items, the names' as `Indexed` (Python stops at the shortest: a name's at least as long, guarded); else None."""
    if not (isinstance(it, ast.Call) and isinstance(it.func, (ast.Name, ast.Attribute))
            and static_value(state, it.func, record=False) is zip) or not it.args or it.keywords \
            or any(isinstance(a, ast.Starred) for a in it.args):
        return None
    columns, functions = [], 0
    for arg in it.args:
        items = static_items(state, arg)
        functions += items is not None
        if items is None:
            items = _numbers(state, arg)  # zip(WEIGHTS, FS): a module list of numbers, each a constant
        if items is None and not (isinstance(arg, ast.Name) and isinstance(state.env.get(arg.id), Var)):
            return None
        columns.append(items if items is not None else arg.id)
    known = [c for c in columns if isinstance(c, tuple)]
    if not functions or functions == len(columns):
        return None
    count = min(len(c) for c in known)
    return tuple(tuple(c[k] if isinstance(c, tuple) else Indexed(c, k) for c in columns) for k in range(count))


def _numbers(state, arg: ast.expr) -> tuple | None:
    """The numbers of a module-level (or class) tuple or list of numbers `arg` names, else None (reading
    it records it: changed, in place too, the gradient is built again)."""
    if isinstance(arg, (ast.List, ast.Tuple)):  # zip(ARCH, [1.0, 2.0]): a display of numbers written out
        values = tuple(e.value if isinstance(e, ast.Constant) else None for e in arg.elts)
        return values if values and all(type(v) in (int, float) for v in values) else None
    if isinstance(arg, ast.Name) and (arg.id in state.env or arg.id in state.locals) \
            or not isinstance(arg, (ast.Name, ast.Attribute)):
        return None
    value = static_value(state, arg, record=False)
    if not isinstance(value, (tuple, list)) or not value or not all(type(v) in (int, float) for v in value):
        return None
    return tuple(static_value(state, arg))


def _enumerated(state, it: ast.expr) -> tuple | None:
    """``enumerate(fs)`` (``start`` a constant) of a tuple `static_items` takes: ``(i, f)`` pairs, the
    counts constants too (``c[i] * f(t)``); else None."""
    if not (isinstance(it, ast.Call) and isinstance(it.func, (ast.Name, ast.Attribute))
            and static_value(state, it.func, record=False) is enumerate) or not 1 <= len(it.args) <= 2 \
            or any(isinstance(a, ast.Starred) for a in it.args) or any(k.arg != "start" for k in it.keywords):
        return None
    items = static_items(state, it.args[0])
    if items is None:
        return None
    start = it.args[1] if len(it.args) > 1 else next((k.value for k in it.keywords), ast.Constant(0))
    first = constant(state, start) if isinstance(start, ast.Name) else getattr(start, "value", MISSING)
    return tuple(enumerate(items, first)) if type(first) is int else None


def _grouped(state, it: ast.expr) -> tuple | None:
    """``itertools.groupby(seq, key=lambda i: groups[i])`` of a sequence and a key known when the gradient is
    built (``range`` of constants, a static tuple; a lambda or a function of the module reading constants
    and static arguments): its groups, ``(key, members)`` with the members a tuple, computed now; else None."""
    if not (isinstance(it, ast.Call) and isinstance(it.func, (ast.Name, ast.Attribute))
            and static_value(state, it.func, record=False) is itertools.groupby) or not it.args \
            or any(isinstance(a, ast.Starred) for a in it.args) or any(k.arg != "key" for k in it.keywords):
        return None
    key_node = it.args[1] if len(it.args) > 1 else next((k.value for k in it.keywords), None)
    try:
        items = _static_sequence(state, it.args[0])
        key = None if key_node is None else _static_function(state, key_node)
    except StaticParameter:
        raise
    except (SrcDiffError, TypeError, ValueError):  # (a value not known now, or not a sequence: left as written)
        return None
    if items is None or key is MISSING:
        return None
    try:
        return tuple((k, tuple(members)) for k, members in itertools.groupby(items, key))
    except Exception:  # noqa: BLE001  (the key raises: the loop is left as written, and refused)
        return None


def _static_sequence(state, node: ast.expr):
    """``range(...)`` of constants, or a constant tuple or list: its items; else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords \
            and static_value(state, node.func, record=False) is range:
        return tuple(range(*(_static_number(state, a) for a in node.args)))
    value = constant(state, node)
    return tuple(value) if isinstance(value, (tuple, list)) else None


def _static_number(state, node: ast.expr):
    """A constant, or ``len`` of one (``range(len(groups))`` of a static tuple)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1 and not node.keywords \
            and static_value(state, node.func, record=False) is len:
        return len(constant(state, node.args[0]))
    return constant(state, node)


def _static_function(state, node: ast.expr):
    """The function `node` is, made now: a lambda whose free names are constants or static arguments, or a
    function of the module; else MISSING."""
    if not isinstance(node, ast.Lambda):
        found = static_value(state, node) if isinstance(node, (ast.Name, ast.Attribute)) else MISSING
        return found if callable(found) else MISSING
    params = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
    names = {}
    for n in ast.walk(node.body):
        if isinstance(n, ast.Name) and n.id not in params and n.id not in names:
            names[n.id] = constant(state, n) if n.id in state.env else static_value(state, n)
            if names[n.id] is MISSING:
                return MISSING
    if any(isinstance(n, (ast.Lambda, ast.NamedExpr, ast.Yield, ast.Await)) for n in ast.walk(node.body)):
        return MISSING
    made = ast.fix_missing_locations(ast.Expression(copy.deepcopy(node)))
    return eval(compile(made, "<key>", "eval"), {"__builtins__": builtins, **names})  # (its own names only)


def _static_item(value) -> bool:
    """An enum member, a function, or a dict of constants (a layer's configuration: ``{"act": "tanh"}``)."""
    return isinstance(value, enum.Enum) or callable(value) and not isinstance(value, (type, np.ndarray)) \
        or isinstance(value, dict) and constant_dict(value) is not None


def _static_default(state, parameter: str) -> bool:
    try:
        default = inspect.signature(state.parsed.func).parameters[parameter].default
    except (KeyError, TypeError, ValueError):
        return False
    return isinstance(default, (tuple, list)) and bool(default) and all(_static_item(v) for v in default)


def lower_static_loop(lower, stmt: ast.For, items: tuple) -> None:
    """The body of `stmt` lowered once per item, its target bound to the item."""
    state = lower.state
    if stmt.orelse or not all(_fits(stmt.target, i) for i in items) or not _read_once(state, stmt) or any(
            isinstance(n, (ast.Break, ast.Continue, ast.Return)) for s in stmt.body for n in ast.walk(s)):
        raise state.error(stmt, f"this loop over {ast.unparse(stmt.iter)} (items known when the gradient is "
                          "built) is unrolled by srcdiff, and a `break`, `continue`, `return` or `else` in it, a "
                          "target that does not fit its items, or a group of itertools.groupby read other than "
                          "once whole (list(members)), is not supported",
                          "compute a flag in the loop and test it after; read a group once: idx = list(members)")
    read = sorted({v.name for item in items if isinstance(item, tuple) for v in item if isinstance(v, Indexed)})
    if read and ({n.id for s in stmt.body for n in ast.walk(s) if isinstance(n, ast.Name)
                  and not isinstance(n.ctx, ast.Load)} & set(read)):
        raise state.error(stmt, f"this loop over {ast.unparse(stmt.iter)} is unrolled by srcdiff (items known when "
                          f"the gradient is built), and rebinding {', '.join(read)} in it is not supported",
                          "give the new value another name")
    for name in read:  # Python stops at the shortest; the unrolled loop reads len(items) items of each name
        lower.statements([_located(stmt, f"if len({name}) < {len(items)}: raise ValueError('zip: srcdiff unrolls "
                                   f"this loop over {len(items)} items; {name} holds fewer')")])
    for item in items:
        _bind(lower, stmt, stmt.target, item)
        lower.statements(stmt.body)


def _located(stmt: ast.stmt, code: str) -> ast.stmt:
    made = ast.parse(code).body[0]
    for n in ast.walk(made):
        ast.copy_location(n, stmt)
    return made


def _bind(lower, stmt: ast.For, target: ast.expr, item) -> None:
    if isinstance(item, Indexed):  # ``ci = c[k]``, lowered as the user's assignment
        lower.statements([_located(stmt, f"{ast.unparse(target)} = {item.name}[{item.k}]")])
        return
    if isinstance(target, ast.Name):
        lower.state.env[target.id] = Const(item)
        return
    for t, v in zip(target.elts, item):
        _bind(lower, stmt, t, v)


def _fits(target: ast.expr, item) -> bool:
    """Whether `item` unpacks into `target` (a name, or a tuple of names of its length)."""
    if isinstance(target, ast.Name) or isinstance(item, Indexed):
        return True
    return isinstance(target, ast.Tuple) and isinstance(item, tuple) and len(item) == len(target.elts) \
        and all(_fits(t, v) for t, v in zip(target.elts, item))


def _read_once(state, stmt: ast.For) -> bool:
    """A groupby loop (``for k, members in groupby(...)``): `members`, an iterator Python exhausts, is read
    once, whole (``list(members)``, ``tuple``, ``sorted``, ``sum``, a loop over it)."""
    if not (isinstance(stmt.iter, ast.Call) and isinstance(stmt.target, ast.Tuple) and len(stmt.target.elts) == 2
            and isinstance(stmt.target.elts[1], ast.Name)) \
            or static_value(state, stmt.iter.func, record=False) is not itertools.groupby:
        return True
    name = stmt.target.elts[1].id
    parents = {c: n for s in stmt.body for n in ast.walk(s) for c in ast.iter_child_nodes(n)}
    reads = [n for s in stmt.body for n in ast.walk(s) if isinstance(n, ast.Name) and n.id == name]
    if len(reads) != 1:
        return not reads
    parent = parents.get(reads[0])
    return isinstance(parent, ast.Call) and parent.args == [reads[0]] and isinstance(parent.func, ast.Name) \
        and parent.func.id in ("list", "tuple", "sorted", "sum") or isinstance(parent, (ast.For, ast.comprehension))


__all__ = ["lower_static_loop", "static_items"]
