"""Whether a name is read after an in-place update of an array it shares (``z += 1``).

srcdiff lowers ``z += v`` as the new value ``z + v``; NumPy updates z's array in place, and
so changes every other name that shares it (``z = y``, ``z = y[:2]``, a list holding y).  The
two agree as long as none of those names is read after the update: then nothing can see the
difference.  "After" is in running order: the rest of the function, and, inside a loop, the
whole of the outermost loop (its next iteration reads what this one wrote).  A name a nested
function or lambda reads may be read whenever it is called: counted as read.
"""

from __future__ import annotations

import ast

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def read_later(tree: ast.FunctionDef, line: int, name: str, others: list[str]) -> bool:
    """Whether any of `others` may be read after the in-place update of `name` at `line`
    (True when srcdiff cannot tell: the update or a name is not found)."""
    update = next((n for n in ast.walk(tree) if isinstance(n, ast.AugAssign) and n.lineno == line
                   and isinstance(n.target, ast.Name) and n.target.id == name), None)
    if update is None or not all(o.isidentifier() for o in others):
        return True
    loops = [n for n in ast.walk(tree) if isinstance(n, (ast.For, ast.While)) and n is not tree
             and n.lineno <= line <= (n.end_lineno or n.lineno)]
    start = min(loops, key=lambda n: n.lineno) if loops else None
    after = (update.end_lineno, update.end_col_offset)
    wanted = set(others)
    for node in ast.walk(tree):
        if isinstance(node, _SCOPES) and node is not tree:
            if any(isinstance(n, ast.Name) and n.id in wanted for n in ast.walk(node)):
                return True
        if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in wanted):
            continue
        where = (node.lineno, node.col_offset)
        if where >= after or (start is not None and where >= (start.lineno, start.col_offset)):
            return True
    return False


__all__ = ["read_later"]
