"""The dtype of a loop's carried rows (ad/batching.py): a loop carrying a Python number into float32
values (``nll = 0.0`` then ``nll = nll + np.log(s)`` of float32 s) gives one example float32 (NumPy
converts a Python number to the array's dtype), but rows of the number broadcast before the loop are
float64, and every row would then be computed in float64.  Where one example's run (driver/batched.py's
`probe`) shows the carried value always float32 (or complex64) and its first value always a Python
number, the rows start in that dtype: the number converted as NumPy converts it."""

from __future__ import annotations

import ast

from ..ir.nodes import Const, Var, operand_ast
from .batching_rules import call

_NUMBERS = (float, int, complex)


def carried_init(state, carried) -> ast.expr:
    """The rows of the carried value `carried`'s first value (not batched itself)."""
    rows = state.rows(carried.init)
    narrow = state.narrow
    dtype = narrow.get(carried.final.name) if isinstance(carried.final, Var) else None
    if dtype in (None, "number") or narrow.get(carried.var.name) not in (None, dtype):
        return rows  # (the carried name holding other dtypes: not this class)
    number = type(carried.init.value) in _NUMBERS if isinstance(carried.init, Const) else \
        isinstance(carried.init, Var) and narrow.get(carried.init.name) == "number"
    if not number:
        return rows  # (a NumPy value keeps its own dtype, broadcast)
    return call("broadcast_rows", call(f"np.{dtype}", operand_ast(carried.init)), ast.Name(state.size, ast.Load()))


__all__ = ["carried_init"]
