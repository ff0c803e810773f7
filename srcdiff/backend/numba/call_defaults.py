"""The defaults of a callee's parameters that a call leaves out, passed by the call.

A gradient's Python code calls a helper's adjoint with the arguments the user's call gave and
the compiled adjoint takes the rest from its defaults, the values the user's ``def`` made
(``def planar_fk(q, lengths=LINKS)``, called as ``planar_fk(q)``).  numba compiles the module's
functions from their text, where a default that is not a literal has no spelling: its calls
pass them instead, each a value the caller reads when the gradient is called (an `Env`, as a
global: module.py), a literal written in."""

from __future__ import annotations

import ast


def left_out(parts, callees: set[str]):
    """``(part, call, parameter name, default value)`` of every argument a call of a callee adjoint of
    `parts` leaves to the callee's defaults (its compiled function's ``__defaults__``, which apply
    to its last parameters, as in Python), in order, after those the call gives by position or keyword;
    calls with ``*args`` or ``**kwargs`` are left as they are (the caller binds those itself)."""
    by_name = {p.name: p for p in parts if p.name in callees}
    found = []
    for part in parts:
        for node in ast.walk(part.tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in by_name):
                continue
            callee = by_name[node.func.id]
            params = [a.arg for a in callee.tree.args.args]
            defaults = getattr(callee.variant.function, "__defaults__", None) or ()
            first = len(params) - len(defaults)
            given = {k.arg for k in node.keywords}  # (``_unit_vjp(x, shift=0.5)`` of ``def _unit(h, *, scale=1.0,
            # shift=0.0)``: its keyword-only parameters are its last positional ones there, scale left out)
            if callee.tree.args.vararg or None in given or any(isinstance(a, ast.Starred) for a in node.args) \
                    or not all(p in given for p in params[len(node.args):first]) or len(node.args) >= len(params):
                continue
            found += [(part, node, params[i], defaults[i - first])
                      for i in range(max(len(node.args), first), len(params)) if params[i] not in given]
    return found


def passed(call: ast.Call, param: str, spelled: ast.expr) -> None:
    """`call` given `spelled` for `param`, a parameter it left to its default (`left_out`): by position, or
    by name after a keyword (a later parameter may be the one the keyword gives)."""
    if call.keywords:
        call.keywords.append(ast.keyword(param, spelled))
    else:
        call.args.append(spelled)


def literal(value) -> bool:
    """Whether `value` is written as a literal in the module's code (a number, a string, None, a
    tuple of them)."""
    if isinstance(value, tuple):
        return all(literal(v) for v in value)
    return value is None or type(value) in (int, float, bool, str)
