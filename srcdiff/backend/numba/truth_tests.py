"""Python's ``any(items)`` and ``all(items)`` for numba, which has neither builtin
(spelling.py's rewriter asks `spell`).

srcdiff makes ``any(v > 0 for v in x)`` a loop before this point; what reaches here is
``any(np.isnan(x))`` or ``all(flags)`` of a vector, a list or a tuple of one type, which become
``any_of(items)`` / ``all_of(items)``: a loop over the items, each taken as Python's ``bool``
takes it (a NaN is true, as ``bool(nan)`` is).  A matrix (Python takes each row's truth, which
raises for a row of several elements), a tuple of several types and any other value are left
to numba, which refuses them at the user's line.
"""

from __future__ import annotations

import ast

from numba import types

from .naming import overload

_SPELLED = {"any": "any_of", "all": "all_of"}


def spell(node: ast.Call) -> tuple[str, list] | None:
    """(helper, arguments) the call `node` becomes, or None to keep it."""
    func = node.func
    if isinstance(func, ast.Name) and func.id in _SPELLED and len(node.args) == 1 and not node.keywords \
            and not isinstance(node.args[0], ast.GeneratorExp):
        return _SPELLED[func.id], list(node.args)
    return None


def _items(t) -> bool:
    """A value whose items a loop reads one by one as the same type."""
    return isinstance(t, types.Array) and t.ndim == 1 or isinstance(t, (types.List, types.UniTuple))


def any_of(items):
    return any(items)


@overload(any_of)
def _any_of(items):
    if not _items(items):
        return None

    def impl(items):
        for item in items:
            if item:
                return True
        return False
    return impl


def all_of(items):
    return all(items)


@overload(all_of)
def _all_of(items):
    if not _items(items):
        return None

    def impl(items):
        for item in items:
            if not item:
                return False
        return True
    return impl


HELPERS = ("any_of", "all_of")

__all__ = ["HELPERS", "all_of", "any_of", "spell"]
