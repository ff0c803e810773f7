"""numba's refusals in the user's words: what numba says of the generated code's names
(``Cannot unify float64 and array(float64, 1d, C) for 't1.2'``) said of the user's line.

The generated code names values the user never wrote (``t1``, ``out_bar``, ``y_1``).  A
refusal to join two types is said of the user's name where the line spells it (``out``, whose
adjoint ``out_bar`` or copy ``out_1`` numba named), else of "a value this line computes", with
the two types in words and what to do.
"""

from __future__ import annotations

import re

from .joins import JOIN

JOIN_HINT = (
    "numba gives each name one type: make every path give an array (`np.full(shape, v)`, "
    "`v * np.ones(n)`) or every path a number, or leave jit= out"
)
#: a float32 argument's derivative meeting float64 values in a loop: a name of two types
MIXED_TYPES = re.compile(r"Cannot unify array\(float32.*float64|Cannot unify array\(float64.*float32")
MIXED = (
    "the function computes in float64 from float32 arguments (a float64 constant, global or "
    "conversion), and numba needs one dtype per name in a loop: pass float64 arguments with jit, "
    "keep the function in float32, or leave jit out"
)
#: an item of another type given to a list (``parts.append(np.dot(x, x))`` to a list of arrays): numba
#: types a list's items alike; mixed_lists.py refuses what it can tell before numba, this the rest
LIST_ITEM = re.compile(r"BoundFunction\(list\.(append|insert) for (?:reflected )?list\((.+?)\)(?:<iv=[^>]*>)?\) "
                       r"with parameters \((?:(?:u?int\d+|Literal\[int\]\(-?\d+\)), )?(.+)\)")
LIST_ITEM_HINT = ("numba types a list's items alike: keep the numbers and the arrays in two lists, make the "
                  "numbers arrays (`np.array([v])`) or the arrays numbers, or leave jit= out")
#: a helper's value and what its pullback saves, of two kinds on two paths (``return 0.0`` at a
#: recursion's base case, an array at the other return): numba names the call's result ``$...call``
CALL_RESULTS = re.compile(r"Cannot unify Tuple\((.+?) and Tuple\((.+?) for '\$\w*call[\w.]*'")
CALL_HINT = ("numba gives a function's result one type: return an array on every path (`np.zeros_like(v)` "
             "for `0.0`) or a number on every path, or leave jit= out")
_GENERATED = re.compile(r"(_bar|_dot|_\d+|_at\d+|_i)+$")
_ARRAY = re.compile(r"^array\((\w+), (\d+)d, \w+\)$")


def readable(reason: str, code: str, rows: bool = False) -> tuple[str, str | None]:
    """(numba's `reason` said of the user's line `code`, the hint it calls for; None: the usual one).
    `rows`: the code is srcdiff.vmap's, each value with a batch axis first, which the words leave out."""
    item = LIST_ITEM.search(reason)
    if item is not None:
        held, given = _words(item.group(2), rows), _words(item.group(3), rows)
        if held != given:
            return f"this gives {given} to a list of {_plural(held)}", LIST_ITEM_HINT
    found = JOIN.search(reason)
    if not found:
        return _call_results(reason, rows)
    first, second, name = found.group(1), found.group(2), found.group(3)
    arrays = _ARRAY.match(first), _ARRAY.match(second)
    if all(arrays) and arrays[0].group(2) == arrays[1].group(2):
        return reason, None  # two dtypes of one array (a float32 value meeting a float64 one): the usual words
    base = _GENERATED.sub("", name) or name
    spelled = re.search(rf"(?<![\w.]){re.escape(base)}(?!\w)", code) is not None
    who = f"`{base}`" if spelled else "a value this line computes"
    return f"{who} is {_words(first, rows)} on one path and {_words(second, rows)} on another", JOIN_HINT


def _call_results(reason: str, rows: bool) -> tuple[str, str | None]:
    """A helper called here whose results are of two kinds (CALL_RESULTS), in words; else `reason`."""
    found = CALL_RESULTS.search(reason)
    if not found:
        return reason, None
    kinds = [_words(_first_item(part), rows) for part in found.groups()]
    if kinds[0] == kinds[1]:
        return reason, None
    return f"the function this line calls returns {kinds[0]} on one path and {kinds[1]} on another", CALL_HINT


def _first_item(items: str) -> str:
    """The first of the comma-separated numba types `items` (commas inside parentheses kept)."""
    depth = 0
    for k, char in enumerate(items):
        depth += char in "([" and 1 or char in ")]" and -1 or 0
        if depth < 0 or char == "," and depth == 0:
            return items[:k]
    return items


def _plural(words: str) -> str:
    """"arrays (float64, 1 axis)" for "an array (float64, 1 axis)", "numbers" for "a number"."""
    if words.startswith("an array"):
        return "arrays" + words[len("an array"):]
    return words[2:] + "s" if words.startswith("a ") else words


def _words(numba_type: str, rows: bool = False) -> str:
    array = _ARRAY.match(numba_type)
    if array:
        axes = int(array.group(2)) - rows  # (a batch axis of rows: not the user's)
        if axes == 0:
            return "a number"
        return f"an array ({array.group(1)}, {axes} axis{'' if axes == 1 else 'es'})"
    if re.match(r"^(Literal\[\w+\]\(.*\)|float\d+|int\d+|bool|uint\d+)$", numba_type):
        return "a number"
    if numba_type.startswith(("UniTuple", "Tuple")):
        return "a tuple"
    if numba_type.startswith(("list", "reflected list", "ListType")):
        return "a list"
    if numba_type == "none" or numba_type.startswith("Optional"):
        return "None"
    return numba_type


__all__ = ["JOIN_HINT", "LIST_ITEM_HINT", "MIXED", "MIXED_TYPES", "readable"]
