"""A Python list changed in place by a method, as a statement (``rest.remove(item)``,
``order.pop(0)``, ``queue.insert(0, node)``), where the list holds no gradient: a list of indices
a ranking or a search works through.  The lowering writes the change as a new value of the name
(``rest = list_removed(rest, item)``, lower/list_edits.py), made by these helpers as Python makes
it (the first item equal to `value` removed, ValueError where none is; IndexError out of range).

The rule has no gradient, and refuses a list whose items depend on the differentiated input
(structural.LIST_EDIT's `refuses_active`): a list of numbers that carry a gradient changed this way is refused
at the user's line, with the rewrite that srcdiff differentiates."""

from __future__ import annotations


def list_removed(xs, value):
    """`xs` without its first item equal to `value` (``xs.remove(value)``), a new list."""
    out = list(xs)
    out.remove(value)
    return out


def list_popped(xs, index=-1):
    """`xs` without its item at `index` (``xs.pop(index)`` as a statement), a new list."""
    out = list(xs)
    out.pop(index)
    return out


def list_inserted(xs, index, value):
    """`xs` with `value` inserted before `index` (``xs.insert(index, value)``), a new list."""
    out = list(xs)
    out.insert(index, value)
    return out


#: method -> (the helper, the numbers of arguments the method takes)
EDITS = {"remove": (list_removed, (1,)), "pop": (list_popped, (0, 1)), "insert": (list_inserted, (2,))}

LIST_EDIT_HELPERS = {f.__name__: f for f in (list_removed, list_popped, list_inserted)}

__all__ = ["EDITS", "LIST_EDIT_HELPERS", "list_inserted", "list_popped", "list_removed"]
