"""``np.where(c, a, b)`` of three numbers as a number, where numba refuses to join its result
with a number.

numba's ``np.where`` of numbers gives a 0-d array; NumPy's does too, but NumPy's 0-d arrays
and numbers mix freely, and numba types each variable once: an adjoint that is ``0.0``
before a loop and ``np.where(not b, 0.0, g * b)`` in it is refused ("Cannot unify float64
and array(float64, 0d, C)").  On that refusal (`retried`) the module's ``np.where`` calls are
spelled ``where_of``: ``a if c else b`` for three numbers (the same value, as a number),
numba's ``np.where`` for anything else.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace

import numpy as np
from numba import types

from .naming import overload

#: numba's refusal to mix a number and a 0-d array: in a join, in an operator (``x += np.where(...)``) or
#: appended to a list of numbers
ZERO_D = re.compile(r"Cannot unify .*array\(\w+, 0d, \w+\)|\w+\(\w+, array\(\w+, 0d, \w+\)\)"
                    r"|list\.append for list\(\w+\).* with parameters \(array\(\w+, 0d, \w+\)\)")


def retried(built, refusal: str):
    """`built` (module.py's `NumbaModule`) with its ``np.where`` calls spelled ``where_of``
    if numba's `refusal` is a number meeting a 0-d array; None otherwise (or if they are)."""
    if not ZERO_D.search(refusal) or "where_of" in built.imports:
        return None
    lines = built.source.splitlines(keepends=True)
    calls = sorted(((node.lineno, node.col_offset) for node in ast.walk(ast.parse(built.source))
                    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "where"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "np"
                    and len(node.args) == 3 and not node.keywords), reverse=True)
    changed = False
    for lineno, col in calls:  # from the end of each line: earlier offsets stay right
        line = lines[lineno - 1]
        if line.isascii() and line[col:col + 9] == "np.where(":
            lines[lineno - 1] = f"{line[:col]}where_of({line[col + 9:]}"
            changed = True
    if not changed:
        return None
    return replace(built, source="".join(lines), imports={**built.imports, "where_of": (__name__, "where_of")})


def where_of(c, a, b):
    return a if c else b


def _is_number(t) -> bool:
    return isinstance(t, (types.Number, types.Boolean))


@overload(where_of)
def _where_of(c, a, b):
    if _is_number(c) and _is_number(a) and _is_number(b):
        return lambda c, a, b: a if c else b
    return lambda c, a, b: np.where(c, a, b)
