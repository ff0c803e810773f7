"""Adjoints of the user functions a differentiated function calls.

A call ``y = helper(a, b)`` whose arguments are active becomes, in the forward sweep,
``y, y_pullback = helper_vjp(a, b)``, and in the backward sweep ``a_bar = y_pullback(y_bar)``.
``helper_vjp`` is generated from helper's own source by the same pipeline (parse, lower,
shapes, reverse, codegen) with the output's adjoint as the pullback's parameter:

    def helper_vjp(a, b):
        # forward ...
        def helper_vjp_pullback(helper_bar): ...; return a_bar
        return helper, helper_vjp_pullback

It is cached per (function, differentiated parameters, argument shapes), separately from
the caller, and bound into the caller's code as a closure cell.  The cell exists before the
callee is compiled, so a recursive function's adjoint calls itself.  A callee that passes a
parameter as a static argument (``np.max(x, axis=axis)``) is a `Specialised` callee: its
adjoint is built for the value the call site gives that parameter.
"""

from __future__ import annotations

import inspect
import types

from .backend import codegen
from .backend import loader as compiling
from .frontend import depends
from .ir import shapes
from .ir.nodes import Specialised
from .ir.program import CallSpec, GradProgram

_CELLS: dict[tuple, types.CellType] = {}
#: generated source of every callee adjoint, by the name it was compiled under
SOURCES: dict[str, str] = {}
_BY_SOURCE: dict[str, dict] = {}


def link(program: GradProgram) -> dict[str, types.CellType]:
    """The closure cells a program's code needs for the callee adjoints it calls."""
    return {name: vjp_cell(spec) for name, spec in program.calls.items()}


def register(source: str, program: GradProgram) -> None:
    """Remember the callee cells of `source`, for every later compilation of it."""
    if program.calls:
        _BY_SOURCE[source] = link(program)


def cells_for(source: str) -> dict:
    return _BY_SOURCE.get(source, {})


def vjp_cell(spec: CallSpec) -> types.CellType:
    """A cell holding ``vjp(*args) -> (value, pullback)`` for `spec` (compiled on first use)."""
    from .ad.reverse import reverse
    from .api import _TRANSFORMS  # noqa: F401  (the API module owns the pipeline's imports)
    from .backend.optimize.optimizer import optimize
    from .frontend.parse import parse_function
    from .ir.shape_inference import infer_shapes
    from .lower.callee_facts import of_function
    from .lower.lowerer import lower_specialised
    from .rules import TABLE, TEMPLATE_GLOBALS

    # what the callee read statically (a global axis, a helper alias) is part of its adjoint
    func, statics = (spec.func.func, dict(spec.func.statics)) if isinstance(spec.func, Specialised) \
        else (spec.func, {})
    key = (spec, TABLE.version, depends.key(of_function(func, TABLE)))
    if key in _CELLS:
        return _CELLS[key]
    cell = _CELLS[key] = types.CellType()
    try:
        parsed = parse_function(func)

        def static_value(name, node):
            if name not in statics or name in spec.wrt:  # the caller checked: not expected
                raise parsed.error(node, f"{name} must be a constant here",
                                   f"call {parsed.name} with a constant {name}")
            return statics[name]

        function, namer, _statics = lower_specialised(parsed, TABLE, static_value)
        given = dict(spec.shapes)
        param_shapes = {}
        for name, param in inspect.signature(func).parameters.items():
            if name in given:
                param_shapes[name] = given[name]
            elif param.default is not inspect.Parameter.empty:
                param_shapes[name] = shapes.of_constant(param.default)
        shape_of = infer_shapes(function, param_shapes)
        namer = namer.copy()
        output = getattr(function.output, "name", parsed.name)
        seed = namer.fresh(f"{output}_bar")
        program = reverse(function, namer, spec.wrt, shape_of, location=parsed.location, pullback=seed)
        optimize(program)
        name = namer.fresh(f"{parsed.name}_vjp")

        def describe(line: int) -> str:
            loc = parsed.location(line)
            return f"{loc.short}  {loc.code.strip()}"

        source = codegen.generate(program, parsed.tree, describe, name=name, with_value=False,
                                  tuple_result=len(spec.wrt) > 1)
        SOURCES[name] = source
        cells = {**TEMPLATE_GLOBALS, **parsed.closure, **link(program)}
        label = f"{parsed.location(parsed.tree).short.rsplit(':', 1)[0]}:{name}"
        cell.cell_contents = compiling.build_function(source, label, parsed.func.__globals__, cells,
                                                      (), parsed.func.__defaults__)
    except BaseException:
        del _CELLS[key]
        raise
    return cell
