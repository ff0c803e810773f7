"""Which parameters of the function being compiled a helper may update in place unseen.

``def wrapped(params, y): return target(params["x"], y)`` where ``target`` does ``x -= x.mean()``:
NumPy changes the caller's array ``params["x"]`` (``params_x`` once the tree is flattened), and
the copy of ``target`` in the caller (inline.py) marks the update as shared with it, which
lower/writes.py refuses.  When the caller's parameter is read by that one call and nowhere else
(not by a later line, not in a loop that calls again, not returned), no value the function computes
can see the change: the update is then the new value ``x - x.mean()``, as it is for the function's
own parameter (``grad(target)`` takes it).  The user's array is not changed by the gradient, as
for the function's own parameter.  A helper compiled for a caller of its own (lower/writes.py's
``callee``) still refuses: its parameter is its caller's array.  A helper that stays a call (its
module's names differ from its caller's, it is recursive, too large) is told the same by its call
(`mark_spent`), and its adjoint is compiled for that.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import types

from ..frontend.parse import parse_function
from ..ir.nodes import Block, Branch, Function, Loop, UserCall, Var, all_nodes


def read_by_one_call(function: Function) -> dict[str, int]:
    """``{parameter: id of the one call reading it}`` for the parameters read only as an operand
    of one user call, outside loops."""
    params = {p.name for p in function.params}
    reads: dict[str, list] = {p: [] for p in params}
    _collect(function.body, params, reads, in_loop=False)
    for name in _names(function.output):
        reads.get(name, []).append(None)
    return {p: found[0] for p, found in reads.items() if len(found) == 1 and found[0] is not None}


def _collect(block: Block, params: set, reads: dict, in_loop: bool) -> None:
    for item in block.nodes:
        if isinstance(item, Branch):
            for name in _names(item.test):
                reads[name].append(None) if name in reads else None
            _collect(item.body, params, reads, in_loop)
            _collect(item.orelse, params, reads, in_loop)
            for name in _names(item.merges):
                reads[name].append(None) if name in reads else None
            continue
        if isinstance(item, Loop):
            for field in dataclasses.fields(item):
                if field.name != "body":
                    for name in _names(getattr(item, field.name)):
                        reads[name].append(None) if name in reads else None
            _collect(item.body, params, reads, in_loop=True)
            continue
        mine = isinstance(item, UserCall) and not in_loop
        for field in dataclasses.fields(item):
            if field.name in ("out", "users"):
                continue
            for name in _names(getattr(item, field.name)):
                if name in reads:
                    reads[name].append(item.id if mine and field.name == "inputs" else None)


def _names(value, depth: int = 0) -> list[str]:
    """The names of every `Var` inside `value` (operands, tuples, lists, dicts, dataclasses)."""
    if depth > 6:
        return []
    if isinstance(value, Var):
        return [value.name]
    if isinstance(value, (list, tuple, set, frozenset)):
        return [n for v in value for n in _names(v, depth + 1)]
    if isinstance(value, dict):
        return [n for v in value.values() for n in _names(v, depth + 1)]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [n for f in dataclasses.fields(value) for n in _names(getattr(value, f.name), depth + 1)]
    return []


def mark_spent(function: Function, only: tuple | None = None) -> Function:
    """`function` with each user call that stays a call told which of its parameters it is given
    operands no one reads again (`UserCall.spent`): the helper compiled for it may update those in
    place (lower/writes.py).  In a helper, `only` its own parameters its caller spent count.  The
    mark depends on the code and `only` alone, so setting it on a shared IR is the same every time."""
    spent = {k: v for k, v in read_by_one_call(function).items() if only is None or k in only}
    for node in all_nodes(function):
        if isinstance(node, UserCall):
            func = getattr(node.callee, "func", node.callee)  # (a Specialised callee's function)
            updated = updates_in_place(func) if spent else set()
            node.spent = tuple(name for name, v in zip(node.arg_names, node.inputs)
                               if isinstance(v, Var) and spent.get(v.name) == node.id and name in updated)
    return function


def updates_in_place(func, depth: int = 0) -> set:
    """The parameters of user function `func` it may update in place (``x -= ...``), itself or by
    passing them to a helper that does: only calls of those get a mark (others keep one adjoint)."""
    try:
        parsed = parse_function(func)
    except Exception:  # noqa: BLE001  not readable here: no mark, the call is compiled as before
        return set()
    tree = parsed.tree
    params = [a.arg for a in tree.args.posonlyargs + tree.args.args]
    aliases = _aliases(tree, params)
    found = {aliases[n.target.id] for n in ast.walk(tree) if isinstance(n, ast.AugAssign)
             and isinstance(n.target, ast.Name) and n.target.id in aliases}
    if depth >= 4:
        return found
    for n in ast.walk(tree):
        if not (isinstance(n, ast.Call) and isinstance(n.func, ast.Name)):
            continue
        callee = parsed.resolve(n.func.id)
        if not isinstance(callee, types.FunctionType) or callee is func:
            continue
        inner = _positional(callee)
        passed = {inner[i]: a.id for i, a in enumerate(n.args[:len(inner)]) if isinstance(a, ast.Name)}
        passed.update({k.arg: k.value.id for k in n.keywords if isinstance(k.value, ast.Name)})
        deeper = updates_in_place(callee, depth + 1) if set(passed.values()) & set(params) else set()
        found |= {mine for theirs, mine in passed.items() if theirs in deeper and mine in params}
    return found


def _aliases(tree: ast.FunctionDef, params: list[str]) -> dict[str, str]:
    """``{name: parameter}`` for the parameters and the names assigned one plainly or a part of it
    (``x = x0``, ``x, v = x0, 0.0``, ``s = X[0]``), whose ``x += v`` may update the parameter's array (more names than
    that may be: a mark where none is needed costs a variant, never a wrong value)."""
    aliases = {p: p for p in params}
    for _ in range(2):  # (an alias of an alias written before it in the walk's order)
        for n in ast.walk(tree):
            if not isinstance(n, ast.Assign):
                continue
            for target in n.targets:
                both = isinstance(target, ast.Tuple) and isinstance(n.value, ast.Tuple)
                pairs = zip(target.elts, n.value.elts) if both and len(target.elts) == len(n.value.elts) \
                    else [(target, n.value)]
                for t, v in pairs:
                    v = v.value if isinstance(v, ast.Subscript) else v  # (a view: s = X[0])
                    if isinstance(t, ast.Name) and isinstance(v, ast.Name) and v.id in aliases:
                        aliases[t.id] = aliases[v.id]
    return aliases


def _positional(func) -> list[str]:
    try:
        parameters = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
