"""A list of fixed length carried through a loop, holding arrays and numbers, as a tuple.

numba types a list's items alike, and its compiler does not finish on a list display of an array
and a number rebound in a loop (``state = [x, np.dot(x, x)]``, then ``state = [state[0] * 0.9 +
np.sin(state[0]), state[1] * 0.5]``: mixed_lists.py).  The gradient of the same code written with
tuples is the same code but for those displays, and compiles.  So where every name the list
reaches (the names it is assigned to, the loop's stack that saves it and the names that read it back)
is only read by a constant index, ``len``, a rename or a save on the stack, never written into,
appended to, iterated over, passed on or returned, its displays are tuples: the same items, read
the same ways, giving the same values.  The list's adjoint (``state_bar = [0.0] * len(state)``,
written item by item) stays a list.
"""

from __future__ import annotations

import ast

from . import kindflow


def as_tuples(func: ast.FunctionDef, display: ast.Assign) -> bool:
    """Spell, in place, the list displays of the names `display` (an assignment of a list display)
    reaches as tuples, where every use of those names reads them only; whether it did."""
    names = _reached(func, {t.id for t in display.targets if isinstance(t, ast.Name)})
    if not names:
        return False
    parents = {id(child): node for node in ast.walk(func) for child in ast.iter_child_nodes(node)}
    displays = []
    for node in ast.walk(func):
        if isinstance(node, ast.Name) and node.id in names:
            parent = parents.get(id(node))
            if isinstance(node.ctx, ast.Load) and not _read(node, parent, parents):
                return False
            if isinstance(node.ctx, ast.Store) and isinstance(parent, ast.Assign) \
                    and isinstance(parent.value, ast.List):
                if any(isinstance(e, (ast.Starred, ast.List)) for e in parent.value.elts):
                    return False
                displays.append(parent)
            elif isinstance(node.ctx, ast.Store) and not _bound(node, parent, parents):
                return False
    for assign in displays:
        assign.value = ast.copy_location(ast.Tuple(assign.value.elts, ast.Load()), assign.value)
    return bool(displays)


def _reached(func: ast.FunctionDef, names: set) -> set:
    """`names` and every name a value of theirs reaches: by ``a = b``, and through a loop's stack
    (the position of a tuple appended to a list, read back by unpacking an item of it)."""
    names = set(names)
    while True:
        grown, piled = set(names), set()
        for node in ast.walk(func):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                    and isinstance(node.func.value, ast.Name) and len(node.args) == 1 \
                    and isinstance(node.args[0], ast.Tuple):
                piled.update((node.func.value.id, i) for i, e in enumerate(node.args[0].elts)
                             if isinstance(e, ast.Name) and e.id in names)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                    and isinstance(node.func.value, ast.Name) and len(node.args) == 1 \
                    and isinstance(node.args[0], ast.Name) and node.args[0].id in names:
                piled.add((node.func.value.id, None))  # (a stack of its own: forward mode's)
        for node in ast.walk(func):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
                if isinstance(target, ast.Name) and isinstance(value, ast.Name) and \
                        (value.id in names or target.id in names):
                    grown.update((target.id, value.id))
                elif isinstance(target, ast.Name) and (kindflow.stack_of(value), None) in piled:
                    grown.add(target.id)
                elif isinstance(target, ast.Tuple):
                    stack = kindflow.stack_of(value)
                    grown.update(e.id for i, e in enumerate(target.elts) if isinstance(e, ast.Name)
                                 and (stack, i) in piled)
            elif isinstance(node, ast.For) and isinstance(node.target, ast.Tuple) and _reversed_stack(node.iter):
                stack = _reversed_stack(node.iter)
                grown.update(e.id for i, e in enumerate(node.target.elts) if isinstance(e, ast.Name)
                             and (stack, i) in piled)
        if grown == names:
            return names
        names = grown


def _reversed_stack(it: ast.expr) -> str | None:
    """The list ``reversed(stack)`` (or ``stack``) iterates over, else None."""
    if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "reversed" and len(it.args) == 1:
        it = it.args[0]
    return it.id if isinstance(it, ast.Name) else None


def _read(node: ast.Name, parent: ast.AST, parents: dict) -> bool:
    """Whether the load `node` reads the list only: a constant index, ``len``, a rename, an item of
    a tuple saved on a stack."""
    if isinstance(parent, ast.Subscript) and parent.value is node and isinstance(parent.ctx, ast.Load):
        return isinstance(parent.slice, ast.Constant) and type(parent.slice.value) is int
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.args == [node] \
            and parent.func.id in ("len", "zeros_list", "zeros_like"):
        return True  # (the zeros of each item: a tuple of them, runtime.py's)
    if isinstance(parent, ast.Assign) and parent.value is node and \
            all(isinstance(t, ast.Name) for t in parent.targets):
        return True
    if isinstance(parent, ast.Tuple):
        parent = parents.get(id(parent))
    return isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr == "append"


def _bound(node: ast.Name, parent: ast.AST, parents: dict) -> bool:
    """Whether the store `node` binds the name to a value the list gives (a rename, an item of a
    stack unpacked) or removes it (``del``)."""
    if isinstance(parent, ast.Assign) and (isinstance(parent.value, ast.Name) or kindflow.stack_of(parent.value)):
        return True
    if isinstance(parent, ast.Tuple):
        holder = parents.get(id(parent))
        return isinstance(holder, ast.Assign) and kindflow.stack_of(holder.value) is not None or \
            isinstance(holder, ast.For) and holder.target is parent
    return isinstance(node.ctx, ast.Del)
