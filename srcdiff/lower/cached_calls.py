"""A helper cached with ``functools.lru_cache`` / ``functools.cache``, called with constants (numbers
written in the code, static arguments): its value, computed when the gradient is built.

The cache makes the value of a call depend on its arguments alone -- Python answers every later call
with the first one's value -- so computing it once, when the gradient is built, is what Python does.
A value that is a number, a bool, a string, None or a tuple of them is then a constant of the gradient
(``w = _binomial_weights(4)``, a tuple of weights: numba compiles the generated code without calling
Python).  The gradient depends on the helper (rebinding it builds the gradient again) and on the value
the call gives: each call of the gradient asks the helper again (a hit of its cache), so that after
``helper.cache_clear()`` with what the helper reads changed, the gradient is built again from the new
value, as Python would compute it (never the value of before the clear).  A call with other arguments,
or whose value is another kind (an array) or raises, is left as it is.
"""

from __future__ import annotations

import ast

from ..errors import SrcDiffError
from ..frontend.depends import MISSING, Dependency, is_simple
from .static_values import StaticParameter, constant


def cached_value(state, node: ast.Call, func):
    """The value of ``helper(constants)`` of a cached helper, else MISSING."""
    if type(func).__name__ != "_lru_cache_wrapper" or not callable(getattr(func, "__wrapped__", None)) \
            or any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return MISSING
    try:
        args = [constant(state, a) for a in node.args]
        keywords = {k.arg: constant(state, k.value) for k in node.keywords}
    except StaticParameter:
        raise
    except SrcDiffError:
        return MISSING
    try:
        value = func(*args, **keywords)
    except Exception:  # noqa: BLE001  (the user's helper raises: the call is kept, and raises when it runs)
        return MISSING
    if not is_simple(value):
        return MISSING
    state.parsed.include([Dependency(_Called(func, args, keywords), "value", value)])
    return value


class _Called:
    """A dependency's scope: ``get(...)`` is what the cached helper gives now for the call's arguments
    (its cache's value, or the helper run again after ``cache_clear()``); MISSING where it raises."""

    def __init__(self, func, args: list, keywords: dict):
        self.func, self.args, self.keywords = func, args, keywords

    def get(self, name, default=MISSING):
        try:
            return self.func(*self.args, **self.keywords)
        except Exception:  # noqa: BLE001  (raising now: the dependency no longer holds, the gradient is built again)
            return default
