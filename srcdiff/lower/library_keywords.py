"""A library call that names its leading operands by the library's own keywords.

NumPy calls its first operand ``a`` (``np.median(a=x)``, ``np.sum(a=x)``, ``np.clip(a=x, a_min=0.0,
a_max=1.0)``, ``np.dot(a=x, b=y)``), SciPy ``A`` or ``a``; srcdiff's rules name theirs ``x`` and ``y``.
Such a call is the same call with those arguments written by position, which every rule binds:
`positional` rewrites it so before the call is lowered (the generated code calls the library as
the user did, by position).  Only the library's leading positional parameters whose names the
rule does not know are moved, in the library's order, while no earlier one is missing, each where
the rule has an operand of another name in that place.  NumPy 2.1's
other spellings of a keyword (``np.clip(x, min=0.0, max=1.0)``) are written with the names the rule
knows, which NumPy takes too.
"""

from __future__ import annotations

import ast
import inspect

import numpy as np

from ..frontend.depends import MISSING
from .library_calls import resolve

#: keywords NumPy takes under two names: the other name -> the one srcdiff's rule binds
RENAMED = {np.clip: {"min": "a_min", "max": "a_max"}}

_LEADING = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def positional(lower, node: ast.Call) -> ast.Call:
    """`node` with the keywords that name the library function's leading parameters by the library's
    names (not the rule's) passed by position instead; `node` itself when there are none."""
    if not node.keywords or any(k.arg is None for k in node.keywords) \
            or any(isinstance(a, ast.Starred) for a in node.args):
        return node
    func = resolve(lower, node.func, record=False)
    if func is MISSING or isinstance(func, np.ufunc) or not _library(func):
        return node
    rule = lower.state.table.lookup(func)
    if rule is None or rule.nograd or rule.variadic:  # (those take their arguments as written)
        return node
    try:
        leading = [p.name for p in inspect.signature(func).parameters.values() if p.kind in _LEADING]
    except (TypeError, ValueError):  # a builtin without a signature
        return node
    known = list(rule.signature.parameters)
    renamed = RENAMED.get(func, {})
    keywords = {}
    for k in node.keywords:
        name = renamed.get(k.arg, k.arg)
        keywords[name] = ast.copy_location(ast.keyword(name, k.value), k)
    args = list(node.args)
    for at, name in enumerate(leading[len(args):], start=len(args)):
        if name not in keywords or name in known or at >= len(known) or known[at] not in rule.params \
                or known[at] in leading:  # (only an operand the rule names otherwise, in its place)
            break
        args.append(keywords.pop(name).value)
    if len(args) == len(node.args) and not renamed.keys() & {k.arg for k in node.keywords}:
        return node
    return ast.copy_location(ast.Call(node.func, args, list(keywords.values())), node)


def _library(func) -> bool:
    module = getattr(func, "__module__", None) or ""
    return module.split(".")[0] in ("numpy", "scipy")
