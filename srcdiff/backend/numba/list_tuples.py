"""List displays spelled as tuples for numba, where every use of the list only reads it.

numba types a list's items alike.  A list display of items of two kinds (``[np.sum(v), v]``, ``[x,
np.dot(x, x)]``) it types as a "literal list" item by item, but not everywhere: saved whole in a tuple
for a pullback its compiler failed inside ("unhashable type: 'list'"), and rebound in a loop (``state =
[state[0] * 0.9 + np.sin(state[0]), state[1] * 0.5]``, with the loop's stack of those lists in the
gradient: mixed_lists.py) its compiler did not finish.  A tuple of the same items it types item by
item, and the same code written with tuples compiles.  So a list display becomes a tuple where every
name its value reaches (the names it is assigned to, by a rename, and through a loop's stack: the
position of a tuple appended to the stack, read back by unpacking an item of it) is only read: at a
constant index, by ``len``, ``zeros_list``, ``zeros_like``, ``sum_items`` or ``list_repeat`` (which take
either: runtime.py, list_adjoints.py, list_sums.py), as the parts of an index (``index_add(K, [rows, cols],
v)`` and its adjoint's ``index_read``: ``np.add.at(K, (rows, cols), v)``, numba's overloads take a tuple of
index arrays, one per axis), by a rename, or saved whole as an item of a tuple;
and is only bound to such displays (no starred or list items, all of one length), renames, an item of
a stack, or ``del``.
It is never written into, appended to, iterated over, passed on otherwise or returned, so the tuple
gives the same values read the same ways.  A list's adjoint (``state_bar = [0.0] * len(state)``,
written item by item) stays a list.
"""

from __future__ import annotations

import ast

from . import kindflow

#: calls a list may be passed to and still be a tuple (they take either)
_TAKE_TUPLES = {"len", "zeros_list", "zeros_like", "sum_items", "list_repeat"}
#: calls whose second argument is the parts of an index (``index_add(K, [rows, cols], v)``: NumPy's
#: ``np.add.at(K, (rows, cols), v)``): a list or a tuple of them means the same (rules/runtime.py)
_INDEX_PARTS = {"index_add", "index_read"}


def as_tuples(func: ast.FunctionDef, display: ast.Assign | None = None) -> bool:
    """Spell, in place, as tuples the list displays reached by `display` (an assignment of a list
    display of `func`), or with None by each list display assigned to a name in `func`, where every use
    of the names reached only reads them (the module's docstring); whether any was."""
    parents = {id(child): node for node in ast.walk(func) for child in ast.iter_child_nodes(node)}
    starts = [display] if display is not None else \
        [n for n in ast.walk(func) if isinstance(n, ast.Assign) and isinstance(n.value, ast.List) and n.value.elts]
    spelled = False
    for start in starts:
        if isinstance(start.value, ast.List):
            spelled = _spell(func, start, parents) or spelled
    return spelled


def _spell(func: ast.FunctionDef, display: ast.Assign, parents: dict) -> bool:
    """The displays `display` reaches as tuples, if every use of the names reached only reads them."""
    names = _reached(func, {t.id for t in display.targets if isinstance(t, ast.Name)})
    if not names:
        return False
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
    if len({len(a.value.elts) for a in displays}) > 1:
        return False  # (a tuple's length is part of its type: numba gives a name one type, a list any length)
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
    """Whether the load `node` reads the list only: a constant index, a call that takes a tuple too,
    a rename, an item of a tuple (saved whole: on a stack, a pullback's saved values)."""
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return isinstance(parent.ctx, ast.Load) and isinstance(parent.slice, ast.Constant) \
            and type(parent.slice.value) is int
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in _TAKE_TUPLES:
        return any(a is node for a in parent.args)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in _INDEX_PARTS:
        return len(parent.args) >= 2 and parent.args[1] is node
    if isinstance(parent, ast.Assign) and parent.value is node and \
            all(isinstance(t, ast.Name) for t in parent.targets):
        return True
    return isinstance(parent, ast.Tuple) and isinstance(parent.ctx, ast.Load)


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
