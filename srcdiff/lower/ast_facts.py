"""What a statement list can do, read off its AST before it is lowered.

Control flow is lowered without jumps, so lowering has to know ahead which statements may
leave a block early (the rest of the block then moves into the side that falls through)
and which names a loop body rebinds (those become values carried across iterations).
"""

from __future__ import annotations

import ast

from ..rules.list_edits import EDITS


def _walk_no_scopes(stmts, into_loops=True):
    """Statements and expressions of `stmts`, not entering functions or (optionally) loops."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if not into_loops and isinstance(node, (ast.For, ast.While)):
            continue
        stack.extend(ast.iter_child_nodes(node))


def may_exit(stmts) -> bool:
    """Can control leave `stmts` early (break/continue of this loop, or return)?"""
    if any(isinstance(n, (ast.Break, ast.Continue)) for n in _walk_no_scopes(stmts, into_loops=False)):
        return True
    return may_return(stmts)


def may_return(stmts) -> bool:
    return any(isinstance(n, ast.Return) for n in _walk_no_scopes(stmts))


def always_exits(stmts) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Break, ast.Continue, ast.Return)):
        return True
    return isinstance(last, ast.If) and always_exits(last.body) and always_exits(last.orelse)


#: NumPy's functions that write into their first argument, lowered as a new value of it (in_place_calls.py;
#: a loop whose body calls one carries the array, as for ``a[i] = v``)
_WRITERS = {"fill_diagonal", "putmask", "put_along_axis", "put"}


def stores_in(stmts) -> list[str]:
    """Names a loop body (re)binds, in first-seen order; ``xs.append`` rebinds xs, and so
    do ``np.add.at(xs, ...)``, ``np.putmask(xs, ...)`` (_WRITERS), ``xs.sort()`` and the statements
    ``xs.remove(v)`` / ``xs.pop()`` / ``xs.insert(i, v)``."""
    found = {}
    for node in _walk_no_scopes(stmts):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found[node.id] = None
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) \
                and isinstance(node.value, ast.Name):  # out[i] = v makes a new version of out
            found[node.value.id] = None
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append" \
                and isinstance(node.func.value, ast.Name) and len(node.args) == 1 and not node.keywords:
            found[node.func.value.id] = None  # one argument: list.append, not np.append(arr, values)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "at" \
                and node.args and isinstance(node.args[0], ast.Name):  # np.add.at(a, i, v) makes a new a
            found[node.args[0].id] = None
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in EDITS \
                and isinstance(node.value.func.value, ast.Name):  # rest.remove(item) makes a new rest (list_edits.py)
            found[node.value.func.value.id] = None
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) and node.value.func.attr in _WRITERS \
                and node.value.args and isinstance(node.value.args[0], ast.Name):
            found[node.value.args[0].id] = None  # np.putmask(a, m, v) makes a new a (in_place_calls.py)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "sort" \
                and isinstance(node.value.func.value, ast.Name):  # z.sort() of an array: z = np.sort(z)
            found[node.value.func.value.id] = None
    return list(found)


def read_before_write(stmts, name: str) -> bool:
    """Does the body read `name` before it assigns it (so the value comes from last time)?"""
    return _first_use(stmts, name) == "read"


def _first_use(stmts, name: str) -> str | None:
    """How `stmts` first use `name`: "read" when some path may read it before assigning it, "write"
    when every path assigns it first, None when neither is known."""
    for stmt in stmts:
        reads = [n for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id == name]
        loads = any(isinstance(n.ctx, ast.Load) for n in reads)
        if isinstance(stmt, ast.If) and loads:
            # (an `if` assigning the name on each side before reading it: ``if c: s = (a, b) else: ...``)
            if any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(stmt.test)):
                return "read"
            sides = _first_use(stmt.body, name), _first_use(stmt.orelse, name)
            if "read" in sides:
                return "read"
            if sides == ("write", "write"):
                return "write"
            continue
        if isinstance(stmt, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            if any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id == name
                   for t in targets):
                return "read"  # a write by index updates the value from before
            value_loads = stmt.value is not None and any(
                isinstance(n, ast.Name) and n.id == name for n in ast.walk(stmt.value))
            if value_loads or isinstance(stmt, ast.AugAssign) and any(n.id == name for n in reads):
                return "read"
            if reads:
                return "write"
        elif loads:
            return "read"
        elif reads and not isinstance(stmt, (ast.If, ast.For, ast.While)):
            return "write"
    return None
