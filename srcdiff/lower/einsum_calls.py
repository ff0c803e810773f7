"""``np.einsum``'s sublist form, ``np.einsum(a, [0, 1], b, [1, 2], [0, 2])``, lowered as the
subscripts form (``np.einsum('AB,BC->AC', a, b)``), whose rule (rules/einsum_rules.py) reads
the subscripts as a static argument."""

from __future__ import annotations

import ast

from ..errors import SrcDiffError
from ..ir import shapes
from ..rules.einsum_rules import sublist_subscripts
from .static_values import StaticParameter, constant, static_parameter


def is_text(state, expr: ast.expr, second: ast.expr | None = None) -> bool:
    """Whether `expr`, einsum's first argument, is the subscripts (else the sublist form's
    first array).  A parameter holding an array is an operand; one holding a string is a
    static argument, whose value lowering asks for (`StaticParameter`).  A list written as
    the `second` argument is the first operand's sublist."""
    if isinstance(second, (ast.List, ast.Tuple)):
        return False
    name, known = static_parameter(state, expr), state.facts.param_shapes
    if name is not None and known is not None and known.get(name, shapes.UNKNOWN).known:
        state.facts.used_shapes = True  # the argument's type decides the form
        return False
    try:
        return isinstance(constant(state, expr), str)
    except StaticParameter:
        raise
    except SrcDiffError:  # an array (the sublist form's first operand)
        return False


def einsum_sublists(state, node: ast.Call, args: list) -> ast.Call:
    """``np.einsum(a, [0, 1], b, [1, 2], [0, 2])`` as ``np.einsum('AB,BC->AC', a, b)``: the
    sublists are constants (or parameters, whose values the gradient is specialised on)."""
    output = args.pop() if len(args) % 2 else None
    operands, sublists = args[0::2], args[1::2]
    try:
        text = sublist_subscripts([constant(state, s) for s in sublists],
                                  None if output is None else constant(state, output))
    except StaticParameter:  # a parameter's value: lowering asks for it, then comes back
        raise
    except SrcDiffError as exc:
        raise state.error(node, str(exc).splitlines()[0], "write the subscripts as a string") from None
    return ast.Call(node.func, [ast.Constant(text), *operands], node.keywords)
