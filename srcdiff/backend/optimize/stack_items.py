"""Values a loop stack keeps that its backward loop no longer reads.

The reverse pass decides what a loop pushes from what its backward statements read; the
optimizer may then read a shape from another name, or drop a value computed again only for
its shape, and some popped names are read by nothing::

    stack.append((t6, t9, u, lap))              stack.append((u, lap))
    ...                                  -->    ...
    t6, t9, u, lap = stack.pop()                u, lap = stack.pop()

A stack pushed in one place and popped in one place (into plain names) loses each item whose
popped name nothing reads: not the loop that pops it, in any iteration, nor anything after
it.  Fewer references kept per iteration, and the arrays only they held are freed early.
"""

from __future__ import annotations

import ast
from collections import Counter

from .liveness import bodies, nodes, reads, writes


def drop_unread_items(func: ast.FunctionDef) -> bool:
    """Drop the stack items described above; True if any went."""
    pushes: dict[str, list[ast.Call]] = {}
    pops: dict[str, list[ast.Assign]] = {}
    mentioned: Counter = Counter()
    for node in nodes(func):
        if isinstance(node, ast.Name):
            mentioned[node.id] += 1
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and node.func.attr == "append":
            pushes.setdefault(node.func.value.id, []).append(node)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "pop" \
                and isinstance(node.value.func.value, ast.Name) and not node.value.args:
            pops.setdefault(node.value.func.value.id, []).append(node)
    changed = False
    for stack, found in pops.items():
        if len(found) != 1 or len(pushes.get(stack, ())) != 1 or mentioned[stack] != 3:
            continue  # (made, pushed, popped: nothing else reads the list)
        changed |= _drop(func, pushes[stack][0], found[0])
    return changed


def _drop(func: ast.FunctionDef, push: ast.Call, pop: ast.Assign) -> bool:
    pushed, popped = _items(push.args[0]) if len(push.args) == 1 else None, _items(pop.targets[0])
    if pushed is None or popped is None or len(pushed) != len(popped) \
            or not all(isinstance(t, ast.Name) for t in popped):
        return False
    index = next(i for i, stmt in enumerate(func.body) if any(n is pop for n in nodes(stmt)))
    rest = ast.Module(body=func.body[index + 1:], type_ignores=[])
    live = set(reads(func.body[index])) | set(reads(rest)) \
        | {n for stmt in nodes(rest) if isinstance(stmt, ast.Delete) for n in writes(stmt)}
    keep = [i for i, target in enumerate(popped) if target.id in live]
    if len(keep) == len(popped):
        return False
    if not keep:  # nothing read back: no push, no pop (the loops count their own iterations)
        for block in bodies(func.body):
            block[:] = [stmt for stmt in block if stmt is not pop
                        and not (isinstance(stmt, ast.Expr) and stmt.value is push)]
        return True
    push.args[0] = _joined([pushed[i] for i in keep], ast.Load)
    pop.targets[0] = _joined([popped[i] for i in keep], ast.Store)
    return True


def _items(expr: ast.expr) -> list[ast.expr] | None:
    return list(expr.elts) if isinstance(expr, ast.Tuple) else [expr]


def _joined(items: list[ast.expr], ctx) -> ast.expr:
    return items[0] if len(items) == 1 else ast.Tuple(items, ctx())
