"""The shape a call of a user function returns, from the callee's own lowering.

Shape inference (ir/shape_inference.py) knows every primitive's result shape from its rule;
a call of another user function has no rule, so the driver hands it `CalleeShapes`: it
lowers the callee once (per static values, rules and dependencies), infers the callee's
shapes from the call's argument shapes, and gives the shape of what the callee returns.
With it the caller knows the shapes after the call (no run-time `unbroadcast`, no
`ensure_scalar`), and the callee's adjoint is compiled for known shapes too.
"""

from __future__ import annotations

import inspect

from ..frontend import depends
from ..frontend.parse import parse_function
from ..ir import shapes
from ..ir.nodes import Const, Specialised, Var
from ..ir.shape_inference import infer_shapes
from ..ir.shapes import Shape
from ..lower.callee_facts import of_function
from ..lower.facts import callee_facts, is_constant_argument
from ..lower.lowerer import lower_specialised


class CalleeShapes:
    """``shapes(call_node, operand_shapes) -> Shape``; lowered callees kept in `lowered`
    (a dict the driver's cache owns and clears)."""

    def __init__(self, lowered: dict, table):
        self.lowered, self.table = lowered, table
        self.active: set = set()  # (callee, argument shapes) being inferred: recursion is unknown

    def __call__(self, node, operands: list[Shape]) -> Shape:
        func, statics = (node.callee.func, dict(node.callee.statics)) if isinstance(node.callee, Specialised) \
            else (node.callee, {})
        given = dict(zip(node.arg_names, operands))
        key = (node.callee, tuple(sorted(given.items())))
        if key in self.active:
            return shapes.UNKNOWN
        ir = self._lowered(node.callee, func, statics, frozenset(node.arg_names))
        if ir is None:
            return shapes.UNKNOWN
        param_shapes = parameter_shapes(func, given)
        self.active.add(key)
        try:
            found = infer_shapes(ir, param_shapes, self)
        finally:
            self.active.discard(key)
        if isinstance(ir.output, Var):
            return found.get(ir.output.name, shapes.UNKNOWN)
        return shapes.of_constant(ir.output.value) if isinstance(ir.output, Const) else shapes.UNKNOWN

    def _lowered(self, callee, func, statics, passed: frozenset):
        constants = tuple((n, v) for n, v in statics.items() if is_constant_argument(v))
        key = (callee, passed, self.table.version,
               depends.key(of_function(func, self.table, constants, tuple(sorted(passed)))))
        if key not in self.lowered:
            defaults = {n: p.default for n, p in inspect.signature(func).parameters.items()
                        if p.default is not inspect.Parameter.empty and depends.static_ok(p.default)
                        and n not in passed}

            def static_value(name, node):
                if name not in statics and name in defaults:
                    return defaults[name]  # not passed: its default, as the callee's adjoint has it
                return statics[name]  # a KeyError: not a constant here, so no shape
            try:
                self.lowered[key] = lower_specialised(parse_function(func), self.table, static_value,
                                                      callee_facts(func, statics, passed))[0]
            except Exception:  # the callee's own transform reports what is wrong with it
                self.lowered[key] = None
        return self.lowered[key]


def parameter_shapes(func, given: dict) -> dict[str, Shape]:
    """The shapes of a callee's parameters: those a call site gives, else their defaults'."""
    found = {}
    for name, param in inspect.signature(func).parameters.items():
        if name in given:
            found[name] = given[name]
        elif param.default is not inspect.Parameter.empty:
            found[name] = shapes.of_constant(param.default)
    return found
