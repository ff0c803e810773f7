"""The refusal of an operand a rule gives no derivative, worded for why it has none here.

A rule whose templates depend on its operands' number of axes (``np.average``'s weights, the
stats laws, the linear-algebra rules) gives no template when one of them has a shape srcdiff
could not tell when it built the code (``np.average(x, axis=0, weights=w)`` with ``w`` made by
a call it knows nothing of the shape of).  Saying "not differentiable with respect to x" there
sends the user after the wrong operand; the message names the operands of unknown shape.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import SrcDiffError
from ..ir.shapes import Shape


def not_differentiable(rule, param: str, operand_shapes: Mapping[str, Shape], where) -> SrcDiffError:
    """The error for `rule`'s operand `param`, which carries a derivative the rule has no template
    for (`operand_shapes`: each parameter's shape where the call is; `where`: its location)."""
    unknown = [p for p, s in operand_shapes.items() if not s.known and not s.none and p not in rule.shape_only]
    if unknown and (callable(rule.templates) or callable(rule.tangents)):
        named = ", ".join(repr(p) for p in unknown)
        return SrcDiffError(
            f"{rule.name} has no derivative with respect to its argument {param!r} here: srcdiff "
            f"cannot tell the number of axes of {named} when it builds the code, and the "
            "derivative's form depends on it",
            where,
            "make that operand an argument of the function, or build it with a literal shape or "
            "from an argument's shape (np.ones(x.shape[0]), np.arange(3.0))",
        )
    return SrcDiffError(
        f"{rule.name} is not differentiable with respect to its argument {param!r}",
        where,
        "pass a value that does not depend on the differentiated inputs",
    )
