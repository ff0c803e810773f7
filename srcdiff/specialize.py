"""Stage 3: from the arguments' signatures, the `Shape` of every value in the graph.

The shapes decide how each adjoint is summed back after broadcasting (or that nothing needs
summing), and let rules pick the `math` path for Python floats.  Unknown stays unknown: the
generated code then asks at run time instead of guessing.
"""

from __future__ import annotations

from . import shapes
from .ir import Const, Function, Operand, Var
from .shapes import Shape


def infer_shapes(function: Function, param_shapes: dict[str, Shape]) -> dict[str, Shape]:
    """The Shape of every `Var` in `function`, keyed by name."""
    known: dict[str, Shape] = {p.name: param_shapes.get(p.name, shapes.UNKNOWN) for p in function.params}

    def shape_of(operand: Operand) -> Shape:
        if isinstance(operand, Var):
            return known[operand.name]
        if isinstance(operand, Const):
            return shapes.of_constant(operand.value)
        return shapes.UNKNOWN  # a global may change between calls

    for node in function.body.nodes:
        operands = [shape_of(v) for v in node.inputs]
        try:
            known[node.out.name] = node.rule.result_shape(node.static, operands)
        except Exception:  # e.g. an axis out of range: the forward pass will say so itself
            known[node.out.name] = shapes.UNKNOWN
    return known
