"""numba versions of the run-time helpers of a join whose operands are a list when the code
runs (rules/join_helpers.py): ``join_adjoint(g, xs, kind, axis)``, the adjoint cut into one
piece per operand, and ``column_join(xs)`` (``np.c_[...]``).

numba's lists hold items of one type, so every operand has one ndim, and the rank each takes
in the join and the axis it runs along (join_helpers.promoted) are known from the types: the
code is written for them (`_width` gives an operand's length along that axis).
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types

from ...rules import join_helpers
from .naming import made, overload
from .runtime import concat_list


def spell(node: ast.Call) -> tuple[str, list] | None:
    """``np.column_stack(xs)`` of a list not written in the call as ``column_stack_list(xs)``."""
    func = node.func
    if isinstance(func, ast.Attribute) and func.attr == "column_stack" and isinstance(func.value, ast.Name) \
            and func.value.id == "np" and len(node.args) == 1 and not node.keywords \
            and not isinstance(node.args[0], (ast.Tuple, ast.List)):
        return "column_stack_list", list(node.args)
    return None


def column_stack_list(xs):
    return np.column_stack(xs)


def join_adjoint(g, xs, kind, axis):
    return join_helpers.join_adjoint(g, xs, kind, axis)


def column_join(xs):
    return join_helpers.column_join(xs)


def _items(xs):
    if isinstance(xs, (types.List, types.UniTuple)) and isinstance(xs.dtype, types.Array):
        return xs.dtype
    return None


def _width(kind: str, axis, ndim: int) -> tuple[str, int] | None:
    """(an operand `x`'s length along the join's axis, as code; that axis in the result)."""
    if kind == "concatenate":
        if axis is None:
            return "x.size", 0
        return f"x.shape[{axis % ndim}]", axis % ndim
    if kind == "stack":
        return "1", axis % (ndim + 1)
    if kind in ("hstack", "r_"):
        if ndim == 0:
            return "1", 0
        along = 0 if kind == "r_" or ndim == 1 else 1
        return f"x.shape[{along}]", along
    if kind == "vstack":
        return ("1" if ndim <= 1 else "x.shape[0]"), 0
    if kind == "dstack":
        return ("1" if ndim <= 2 else "x.shape[2]"), 2
    if kind in ("column_stack", "c_"):
        if ndim <= 1:
            return "1", 1
        return (f"x.shape[{ndim - 1}]", ndim - 1) if kind == "c_" else ("x.shape[1]", 1)
    return None


@overload(join_adjoint, prefer_literal=True)
def _join_adjoint(g, xs, kind, axis):
    item = _items(xs)
    if item is None or not isinstance(g, types.Array) or not isinstance(kind, types.StringLiteral):
        return None
    if isinstance(axis, (types.NoneType, types.Omitted)):
        constant = None
    elif isinstance(axis, types.IntegerLiteral):
        constant = axis.literal_value
    else:
        return None
    if constant is None and kind.literal_value in ("stack",):
        return None
    found = _width(kind.literal_value, constant, item.ndim)
    if found is None:
        return None
    width, along = found
    flat = kind.literal_value == "concatenate" and constant is None
    if not flat and along >= g.ndim:
        return None
    cut = "start:start + n" if flat else ", ".join([":"] * along + ["start:start + n"])
    source = "np.ascontiguousarray(g).reshape(-1)" if flat else "g"
    return made("def impl(g, xs, kind, axis):\n"
                "    pieces = []\n"
                "    start = 0\n"
                "    for x in xs:\n"
                f"        n = {width}\n"
                f"        pieces.append(np.ascontiguousarray({source}[{cut}]).reshape(x.shape))\n"
                "        start += n\n"
                f"    if start != {'g.size' if flat else f'g.shape[{along}]'}:\n"
                "        raise ValueError('join_adjoint: the pieces do not fill the gradient')\n"
                "    return pieces\n")


def _columns(xs, last: bool):
    """The operands, 1-D ones as columns, joined along the last axis (`last`, ``np.c_``) or
    along axis 1 (``np.column_stack``)."""
    item = _items(xs)
    if item is None or item.ndim == 0:
        return None
    if item.ndim == 1:
        return made("def impl(xs):\n"
                    "    return concat_list([x.reshape((x.shape[0], 1)) for x in xs], 1)\n",
                    concat_list=concat_list)
    return made(f"def impl(xs):\n    return concat_list([x for x in xs], {item.ndim - 1 if last else 1})\n",
                concat_list=concat_list)


@overload(column_join)
def _column_join(xs):
    return _columns(xs, True)


@overload(column_stack_list)
def _column_stack_list(xs):
    return _columns(xs, False)


HELPERS = ("join_adjoint", "column_join", "column_stack_list")
