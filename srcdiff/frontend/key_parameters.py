"""Parameters a function taking trees iterates to make keys: their values are read when the rewrite is
built (flatten.py takes each as a constant, a "key" structure), as a module constant would be:

    for i in range(n): h = np.tanh(params[f"w{i}"] * h)      # n an int parameter (or n_layers + 1)
    {k: x[k - 1] ** k for k in range(1, n + 1)}               # a dict keyed by a range of one
    [{"w": x[2 * i], "b": x[2 * i + 1]} for i in range(n)]   # a list of dicts
    for lab, v in zip(labels, x): d[lab] = v ** 2             # labels=("a", "b", "c"), strings
    sum(params[lab] for lab in labels)

The gradient is then specialised on the value (each n, each tuple of labels, its own rewrite and
gradient; api/flatcall.py keys its structures on it), so it is never a key of another call's.
"""

from __future__ import annotations

import ast
import inspect
import types
import weakref

import numpy as np

from ..errors import SrcDiffError
from .parse import parse_function


def _loop_iterables(tree: ast.AST):
    """The expressions `for` statements and comprehensions iterate, with zip's and enumerate's arguments."""
    for node in ast.walk(tree):
        found = [node.iter] if isinstance(node, ast.For) else \
            [g.iter for g in node.generators] if isinstance(node, (ast.ListComp, ast.DictComp, ast.GeneratorExp,
                                                                    ast.SetComp)) else []
        while found:
            it = found.pop()
            yield it
            if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id in ("zip", "enumerate"):
                found += it.args


def _passed(tree: ast.AST, resolve, seen: frozenset):
    """(name, callee's parameter) of each name a call of a user function in `tree` passes it, with the
    callee's own (counted, iterated) names."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Name):
            func = resolve(node.func.id)
        elif isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):  # model.loss(p, n)
            module = resolve(node.func.value.id)
            func = getattr(module, node.func.attr, None) if isinstance(module, types.ModuleType) else None
        else:
            continue
        if not isinstance(func, types.FunctionType) or func in seen:
            continue
        try:
            params = list(inspect.signature(func).parameters)
            inner = _iterated(parse_function(func), seen | {func})
        except (SrcDiffError, TypeError, ValueError):
            continue
        given = list(zip(params, node.args)) + [(k.arg, k.value) for k in node.keywords if k.arg in params]
        for param, arg in given:
            if isinstance(arg, ast.Name):
                yield arg.id, param, inner


def _iterated(parsed, seen: frozenset = frozenset()) -> tuple[frozenset, frozenset]:
    """(the names a ``range(...)`` a loop iterates reads, the names a loop iterates directly), in the
    function or in a function of the user's it passes them to (``helper(params, n)``)."""
    found = _FOUND.get(parsed.func)
    if found is not None and found[0] is parsed.tree:
        return found[1]
    counted, iterated = set(), set()
    for it in _loop_iterables(parsed.tree):
        if isinstance(it, ast.Name):
            iterated.add(it.id)
        elif isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range":
            counted |= {n.id for a in it.args for n in ast.walk(a) if isinstance(n, ast.Name)}
    if len(seen) < _DEPTH:
        for name, param, (inner_counted, inner_iterated) in _passed(parsed.tree, parsed.resolve, seen):
            counted |= {name} if param in inner_counted else set()
            iterated |= {name} if param in inner_iterated else set()
    found = (frozenset(counted), frozenset(iterated))
    _FOUND[parsed.func] = (parsed.tree, found)
    return found


_FOUND: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # function -> (its AST, _iterated's answer)
_DEPTH = 4  # functions followed through calls


def key_value(name: str, value, parsed):
    """`value` as the constant a "key" structure holds when parameter `name` (given `value`) is iterated
    to make keys in `parsed` (the function, or a function of the user's it passes `name` to): an int a
    ``range`` reads, or a tuple (a list made a tuple) of strings a loop iterates; None otherwise."""
    counted, iterated = _iterated(parsed)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and name in counted:
        return int(value)  # (n = x.shape[0] * 2 is a NumPy integer)
    if isinstance(value, (tuple, list)) and value and all(type(v) is str for v in value) and name in iterated:
        return tuple(value)
    return None


__all__ = ["key_value"]
