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


def literal_tuples(loop, state) -> dict:
    """The carried values entering `loop` as a tuple of numbers written out and rebound to a tuple in it
    (``state = (0.99, 0.01)``, ``state = step(state, beta)``), by name, each with its numbers: a list (its
    items rows, from the first iteration on), not the tuple broadcast into an array of rows."""
    literal = {c.var.name: c.init.value for c in loop.carried if isinstance(c.init, Const)
               and type(c.init.value) is tuple and isinstance(c.final, Var) and c.final.name in state.lists}
    state.lists |= set(literal)
    return literal


def carried_init(state, carried, literal=()) -> ast.expr:
    """The rows of the carried value `carried`'s first value (not batched itself); of one of `literal`
    (literal_tuples), the tuple of its numbers' rows."""
    if carried.var.name in literal:
        return ast.Tuple([call("broadcast_rows", ast.Constant(v), ast.Name(state.size, ast.Load()))
                          for v in literal[carried.var.name]], ast.Load())
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


__all__ = ["carried_init", "literal_tuples"]
