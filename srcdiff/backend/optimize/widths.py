"""Whether generated code may hold values of two float widths: float64 arguments meeting a float32 value
made inside (``np.float32(0.3)``, ``r.astype(np.float32)``, ``dtype="float32"``).

NumPy promotes a sum of a float32 array and a float64 one to float64, but ``x += c`` writes it into x's
float32 buffer, and a selection by a float64 mask widens what it selects where one by a condition does
not: rewrites that are exact for values of one width are not for these (masks.py, the in-place sums of
memory.py, zero_restore.py).
"""

from __future__ import annotations

import ast

from .liveness import nodes

#: what makes a value narrower than float64
NARROW = frozenset({"float32", "float16", "half", "single", "csingle", "complex64", "f4", "f2", "<f4", "<f2"})


def narrows(func: ast.FunctionDef) -> bool:
    """Whether `func` names a dtype narrower than float64 anywhere (a name the function binds, a parameter
    ``half`` or a value ``single = ...``, is the user's number, not NumPy's dtype)."""
    bound = {a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs} | {
        n.id for n in nodes(func) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    for node in nodes(func):
        text = node.id if isinstance(node, ast.Name) and node.id not in bound else node.attr \
            if isinstance(node, ast.Attribute) else node.value if isinstance(node, ast.Constant) \
            and isinstance(node.value, str) else None
        if text in NARROW:
            return True
    return False


__all__ = ["NARROW", "narrows"]
