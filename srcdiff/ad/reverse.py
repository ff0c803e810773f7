"""Stage 4: the IR becomes a gradient program: forward sweep, then adjoints in reverse.

Walking each block's items in reverse order, each node's rule turns the adjoint of its
output into a contribution for every *active* input (one that depends on a `wrt` parameter
and reaches the output).  The first contribution to an adjoint is assigned; later ones are
added into a new value (``x_bar = x_bar + c``), never in place, so no array is ever shared
by two adjoints that are still being accumulated.  One node's adjoint is built by
adjoints.py, branches, loops and calls by regions.py; the forward sweep (what runs, what
loops save) by forward.py.
"""

from __future__ import annotations

import ast
from collections import Counter

from ..errors import SrcDiffError
from ..frontend.naming import Namer
from ..ir import shapes
from ..ir.nodes import Function, UserCall, Var, all_nodes
from ..ir.program import GradProgram
from ..ir.shapes import Shape
from ..rules.structural import APPEND
from .activity import active_values, refuse_complex, refuse_value_dependent
from .adjoints import Fills, call, method
from .flat_ties import flat_tie_values
from .forward import build_forward
from .invariants import hoist_invariants
from .powers import find_powers
from .regions import reverse_block
from .roots import find_roots
from .shape_sources import shape_sources
from .still_adjoints import still_adjoints
from .sweep import Sweep, operand_shape
from .unbounded_values import unbounded_values
from .unused_elements import held_values, use_masks
from .zero_factors import kinked_adjoints, non_finite_adjoints, vanishing_adjoints


def reverse(function: Function, namer: Namer, wrt: tuple[str, ...], shape_of: dict[str, Shape],
            *, location, with_value: bool = False, pullback: str | None = None,
            derivable: bool = False, checkpoint: int | None = None, once: bool = False) -> GradProgram:
    """Build the gradient program of `function` with respect to the parameters `wrt`.

    With `pullback` (the name of the output's adjoint parameter), the program is a callee's:
    its output may be an array and its backward sweep starts from that parameter.  With
    `derivable`, loops save values in the form srcdiff differentiates again (`Sweep.derivable`).
    """
    function = hoist_invariants(function, shape_of)
    kinked = kinked_adjoints(function)
    active = active_values(function, set(wrt))
    sweep = Sweep(namer, shape_of, active, function.lists, location,
                  shape_sources=(shape_sources(function, shape_of), {p.name for p in function.params}),
                  fills=Fills(_fill_producers(function)), derivable=derivable, checkpoint=checkpoint, once=once,
                  non_finite=non_finite_adjoints(function, shape_of, derivable) | kinked, kinked=kinked,
                  vanishing=vanishing_adjoints(function),
                  still=still_adjoints(function, shape_of, active, derivable, held := held_values(function)),
                  used=use_masks(function, shape_of, active, pullback if not derivable else None), held=held,
                  unbounded=unbounded_values(function) if derivable or pullback else frozenset(),
                  powers=find_powers(function), roots=find_roots(function, shape_of))
    sweep.flat = flat_tie_values(function, sweep.powers) if derivable else frozenset()
    refuse_value_dependent(function, set(wrt), location)
    refuse_complex(function, set(wrt), location)
    output = function.output
    out_shape = operand_shape(output, shape_of)
    if pullback is None and out_shape.known and out_shape.ndim > 0:
        raise SrcDiffError(
            f"the function returns an array with {out_shape.ndim} dimension(s), but a gradient "
            "needs a scalar output", location(function.return_line),
            "reduce it to a scalar (e.g. .sum() or .mean()), or differentiate one element",
        )
    if isinstance(output, Var) and output.name in sweep.active:
        seed = ast.Name(pullback, ast.Load()) if pullback else ast.Constant(1.0)
        if pullback and output.name in function.lists and not derivable and any(
                getattr(n, "rule", None) is APPEND and n.inputs[0] == output for n in all_nodes(function)):
            seed = call("list_rows", seed)  # a list returned: its adjoint may come as the rows of an array (np.stack)
        sweep.contribute(output.name, seed, None)
        if pullback is None:  # the output's adjoint is the unit seed: no hold for its being 0
            sweep.vanishing = sweep.vanishing - {output.name}
    reverse_block(function.body, sweep)
    returns = _returns(wrt, sweep)
    with_output = with_value or pullback is not None or not out_shape.known
    forward = build_forward(function, sweep, returns, with_output)
    check = None if out_shape.known or pullback is not None else str(location(function.return_line).short)
    return GradProgram(function, forward, sweep.stmts, returns, check, sweep.adjoint, sweep.calls, pullback)


def _fill_producers(function: Function) -> dict:
    """Results of primitive nodes assigned once (not lists, calls or region values), by
    name, with their node: only that node's adjoint reads their adjoint (adjoints.Fills)."""
    nodes = all_nodes(function)
    count = Counter(n.out.name for n in nodes)
    return {n.out.name: n for n in nodes if count[n.out.name] == 1 and not isinstance(n, UserCall)
            and n.out.name not in function.lists}


def _returns(wrt: tuple[str, ...], sweep: Sweep) -> list[ast.expr]:
    """One gradient per `wrt` parameter; zeros for a parameter the output ignores."""
    returns, roots = [], set()
    for name in wrt:
        if name not in sweep.defined:
            shape = sweep.shapes.get(name, shapes.UNKNOWN)
            if shape.scalar:
                returns.append(ast.Constant(0.0))
            else:
                returns.append(call("zeros_like", ast.Name(name, ast.Load())))
            continue
        adjoint = sweep.name(name)
        root = sweep.alias.get(adjoint, adjoint)
        value = ast.Name(adjoint, ast.Load())
        shape = sweep.shapes.get(name, shapes.UNKNOWN)
        if name in sweep.popped and not shape.scalar:
            # an item of a list's adjoint no contribution reached is its 0.0: the gradient of an
            # array parameter (a tree's leaf zipped with a shorter list) has the array's shape
            value = ast.BinOp(call("zeros_like", ast.Name(name, ast.Load())), ast.Add(), value)
        elif root in roots and not shape.scalar:  # two gradients must not be one array
            value = method(value, "copy") if shape.known else call("copy_array", value)
        roots.add(root)
        returns.append(value)
    return returns
