"""A list holding an array and a number, carried through a loop: refused before numba sees it.

numba types every item of a list alike.  A list display of an array and a number (``s = [x, 1.0]``)
is a heterogeneous "literal list" to it; rebound in a loop (``s = [s[0] * 0.9 + np.sin(s[0]),
s[1] * 0.5]``), with the loop's stack of those lists in the gradient, numba's type inference did not
end (minutes of compiling, no answer).  A tuple of the same items compiles: the refusal says so, at
the user's line of the list.
"""

from __future__ import annotations

import ast

from . import kindflow, kinds

REASON = ("a list holding an array and a number is carried through a loop here (numba types a list's "
          "items alike, and its compiler does not finish on this one); write it as a tuple of the same items "
          "(`(x, 1.0)` for `[x, 1.0]`), or leave jit= out")


def carried_mixed_list(func: ast.FunctionDef, key) -> ast.stmt | None:
    """The first assignment of `func` of a list display holding an array and a number (as kinds.py
    tells them, the parameters' kinds from the signature `key`) in a loop, or to a name a loop rebinds."""
    names = [a.arg for a in func.args.args]
    env = {n: kinds.of_signature(n, k) for n, k in zip(names, key)} \
        if isinstance(key, tuple) and len(key) == len(names) else {}
    looped = {n.id for loop in ast.walk(func) if isinstance(loop, (ast.For, ast.While))
              for s in loop.body for n in ast.walk(s) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    return _scan(func.body, env, looped, False)


def _scan(stmts: list, env: dict, looped: set, in_loop: bool) -> ast.stmt | None:
    for stmt in stmts:
        found = None
        if isinstance(stmt, (ast.For, ast.While)):
            inner = dict(env)
            if isinstance(stmt, ast.For):  # (its name: a number of a range, else not known)
                counted = isinstance(stmt.iter, ast.Call) and isinstance(stmt.iter.func, ast.Name) \
                    and stmt.iter.func.id == "range" and isinstance(stmt.target, ast.Name)
                inner.update(dict.fromkeys(kindflow.bound(stmt.target), kinds.NUMBER["i8"] if counted else None))
            found = _scan(stmt.body, kindflow.loop_entry(stmt, inner), looped, True)
        elif isinstance(stmt, ast.If):
            found = _scan(stmt.body, env, looped, in_loop) or _scan(stmt.orelse, env, looped, in_loop)
        elif isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.List) \
                and (in_loop or any(n in looped for t in stmt.targets for n in kindflow.bound(t))):
            items = [kinds.of(e, env) for e in stmt.value.elts]
            if any(isinstance(k, kinds.Kind) and k.array for k in items) \
                    and any(isinstance(k, kinds.Kind) and k.ndim == kinds.SCALAR for k in items):
                found = stmt
        if found is not None:
            return found
        env = kindflow.effect(stmt, env)
    return None


__all__ = ["REASON", "carried_mixed_list"]
