"""Calls of ``scipy.stats.norm``'s methods spelled as numba functions (stats_laws.py):
``norm.cdf(x, loc, scale)`` becomes ``stats_norm_cdf(x, loc, scale)``, however the method
was reached (``scipy.stats.norm.cdf``, ``from scipy.stats import norm``, ``Phi = norm.cdf``).

numba compiles no SciPy; the normal law's functions are SciPy's special functions of
``z = (x - loc) / scale`` (``ndtr``, ``log_ndtr``, ``ndtri``: special.py), so they compile.
A call with other keywords, or of another law, is left as it is: numba refuses it at the
user's line.  This module imports no SciPy: it reads what the code's names are.
"""

from __future__ import annotations

import ast
import sys

from .scipy_calls import scope_of, value_of

MODULE = "srcdiff.backend.numba.stats_laws"
#: the methods stats_laws.py has, with their parameters (SciPy's names and defaults)
METHODS = {name: (("x", None), ("loc", 0.0), ("scale", 1.0))
           for name in ("pdf", "logpdf", "cdf", "logcdf", "sf", "logsf")}
METHODS["ppf"] = (("q", None), ("loc", 0.0), ("scale", 1.0))


def spell(tree: ast.FunctionDef, function) -> set[str]:
    """Rewrite, in place, the calls in `tree` (the source of the generated `function`) of
    ``scipy.stats.norm``'s methods; the numba functions the new calls name."""
    stats = sys.modules.get("scipy.stats")
    if stats is None:  # nothing in the program reached scipy.stats
        return set()
    law = stats.norm
    scope = scope_of(function)
    local = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    local |= {a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)}
    used = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args):
            continue
        method = _method(node.func, scope, local, law)
        if method is None:
            continue
        args = _bound(node, METHODS[method])
        if args is not None:
            helper = f"stats_norm_{method}"
            node.func, node.args, node.keywords = ast.Name(helper, ast.Load()), args, []
            used.add(helper)
    return used


def _method(func: ast.expr, scope: dict, local: set, law) -> str | None:
    """The method of `law` that `func` names (``norm.cdf``, or a name bound to it), or None."""
    if isinstance(func, ast.Attribute) and func.attr in METHODS:
        owner = func.value.id if isinstance(func.value, ast.Name) and func.value.id not in local else None
        value = scope.get(owner) if owner is not None else value_of(func.value, scope, local)
        return func.attr if value is law else None
    value = value_of(func, scope, local)
    if value is None:
        return None
    return next((name for name in METHODS if _same(value, getattr(law, name))), None)


def _same(value, method) -> bool:
    try:
        return bool(value == method)
    except Exception:  # noqa: BLE001  an array, or an object whose == raises: not the method
        return False


def _bound(node: ast.Call, params: tuple) -> list | None:
    """The call's arguments by position, defaults where left out; None if they do not bind."""
    names = [p for p, _ in params]
    given = dict(zip(names, node.args))
    for k in node.keywords:
        if k.arg is None or k.arg not in names or k.arg in given:
            return None
        given[k.arg] = k.value
    if len(node.args) > len(names) or names[0] not in given:
        return None
    return [given.get(p, ast.Constant(default)) for p, default in params]
