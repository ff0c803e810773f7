"""Stage 3: from the arguments' signatures, the `Shape` of every value in the graph.

The shapes decide how each adjoint is summed back after broadcasting (or that nothing needs
summing), and let rules pick the `math` path for Python floats.  Unknown stays unknown: the
generated code then asks at run time instead of guessing.  A loop-carried value keeps its
shape only when every iteration gives it the same one; a value both sides of a branch
assign keeps a shape only when they agree.
"""

from __future__ import annotations

import ast

from . import shapes
from .nodes import Branch, Const, Function, Loop, Operand, UserCall, Var
from .shapes import Shape


def infer_shapes(function: Function, param_shapes: dict[str, Shape], call_shape=None) -> dict[str, Shape]:
    """The Shape of every `Var` in `function`, keyed by name.

    `call_shape(node, operand_shapes)` gives the shape a call of another user function
    returns (the driver infers it from the callee's own lowering); without it, unknown."""
    known: dict[str, Shape] = {p.name: param_shapes.get(p.name, shapes.UNKNOWN) for p in function.params}

    def shape_of(operand: Operand) -> Shape:
        if isinstance(operand, Var):
            return known.get(operand.name, shapes.UNKNOWN)
        if isinstance(operand, Const):
            return shapes.of_constant(operand.value)
        return shapes.UNKNOWN  # a global may change between calls

    def assign(name: str, shape: Shape, seen: set[str]) -> None:
        if name in seen and known.get(name) != shape:
            shape = shapes.UNKNOWN  # assigned on two paths, with different shapes
        seen.add(name)
        known[name] = shape

    def block(b, seen: set[str]) -> None:
        for item in b.nodes:
            if isinstance(item, Branch):
                block(item.body, seen)
                block(item.orelse, seen)
            elif isinstance(item, Loop):
                loop(item, seen)
            else:
                operands = [shape_of(v) for v in item.inputs]
                try:
                    if isinstance(item, UserCall):
                        shape = call_shape(item, operands) if call_shape else shapes.UNKNOWN
                    else:
                        shape = _of_shape_tuple(item, operands) or item.rule.result_shape(item.static, operands)
                except Exception:  # e.g. an axis out of range: the forward pass will say so itself
                    shape = shapes.UNKNOWN
                assign(item.out.name, shape, seen)

    def loop(item: Loop, seen: set[str]) -> None:
        if item.target is not None:
            known[item.target.name] = shapes.SCALAR  # range() gives Python ints
        for c in item.carried:
            known[c.var.name] = shape_of(c.init)
        for _ in range(3):  # carried shapes only ever widen to UNKNOWN, so this settles
            block(item.body, set())
            changed = False
            for c in item.carried:
                if shape_of(c.final) != known[c.var.name] and known[c.var.name] != shapes.UNKNOWN:
                    known[c.var.name] = shapes.UNKNOWN
                    changed = True
            if not changed:
                break
        seen.update(c.var.name for c in item.carried)

    block(function.body, set())
    return known


_FROM_SHAPE = ("numpy.zeros", "numpy.ones", "numpy.empty")


def _of_shape_tuple(item, operands: list[Shape]) -> Shape | None:
    """Shapes through ``x.shape``: the tuple itself, an item of it (an int), and an array
    made from it (``np.zeros(x.shape)`` has x's dims)."""
    expr, name = item.expr, item.rule.name
    if name == "nograd" and isinstance(expr, ast.Attribute) and expr.attr == "shape" and len(operands) == 1 \
            and operands[0].known and not operands[0].scalar:
        return Shape(None, shape_of=operands[0].dims)
    if not operands or operands[0].shape_of is None:
        return None
    if name == "getitem" and [kind for kind, _ in item.static.get("index", ())] == ["int"]:
        return shapes.SCALAR
    if name in _FROM_SHAPE and len(operands) == 1 and isinstance(expr, ast.Call) and not expr.keywords:
        return Shape(operands[0].shape_of)
    return None
