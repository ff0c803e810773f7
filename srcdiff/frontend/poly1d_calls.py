"""``np.poly1d(c)`` called as a function, rewritten right after parsing (idiom_calls.py calls it):

- ``np.poly1d(c)(t)``: ``np.polyval(c, t)``, the Horner sum ``poly1d.__call__`` evaluates, whose rule
  differentiates the coefficients and the point;
- ``p = np.poly1d(c)``, then only ``p(t)``: ``p = np.array(c)`` (the coefficients as they are when the
  poly1d is made, as it keeps them) and ``np.polyval(p, t)``.

A poly1d used any other way (``p.coeffs``, ``p.deriv()``, ``p * q``, passed on), a name assigned it
and anything else, or a call with keywords, is left as written: lowering refuses it at its line.
"""

from __future__ import annotations

import ast
import copy

import numpy as np

from .naming import own_nodes


def _poly1d(node, names) -> bool:
    """Whether `node` is ``np.poly1d(c)`` with one positional argument (NumPy named as the user names it)."""
    return isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
        and not isinstance(node.args[0], ast.Starred) and isinstance(node.func, ast.Attribute) \
        and names.resolve(node.func) is np.poly1d


def _called_once(node) -> bool:
    return isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords \
        and not isinstance(node.args[0], ast.Starred)


def _numpy(poly1d: ast.Call, attr: str, *args: ast.expr) -> ast.Call:
    """``np.<attr>(*args)``, NumPy spelled as in the call `poly1d` of ``np.poly1d``."""
    module = copy.deepcopy(poly1d.func.value)
    return ast.Call(ast.Attribute(module, attr, ast.Load()), list(args), [])


def rewrite_poly1d_calls(tree: ast.FunctionDef, names) -> None:
    """Rewrite, in place, the poly1d calls of the module doc in `tree`'s own statements."""
    nodes = list(own_nodes(tree))
    stores: dict[str, list] = {}
    for n in nodes:
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            stores.setdefault(n.id, []).append(n)
    made = {s.targets[0].id: s for s in nodes if isinstance(s, ast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], ast.Name) and _poly1d(s.value, names)
            and len(stores.get(s.targets[0].id, ())) == 1}
    calls = {id(n.func) for n in nodes if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id in made and _called_once(n)}
    for name in list(made):
        reads = [n for n in nodes if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
        if any(id(r) not in calls for r in reads):
            del made[name]  # used as an object: left as written
    for n in nodes:
        if isinstance(n, ast.Call) and _called_once(n) and (_poly1d(n.func, names) or isinstance(n.func, ast.Name)
                                                             and n.func.id in made):
            poly1d = n.func if isinstance(n.func, ast.Call) else made[n.func.id].value
            coefficients = n.func.args[0] if isinstance(n.func, ast.Call) else ast.Name(n.func.id, ast.Load())
            n.args = [coefficients, n.args[0]]
            n.func = _numpy(poly1d, "polyval").func
    for stmt in made.values():
        stmt.value = ast.copy_location(_numpy(stmt.value, "array", stmt.value.args[0]), stmt.value)
    ast.fix_missing_locations(tree)


__all__ = ["rewrite_poly1d_calls"]
