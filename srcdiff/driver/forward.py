"""The forward transform: a lowered function becomes one sweep of values and tangents.

The IR goes through ad/tangent.py (each value, then its tangent, from the node's rule);
the resulting statements are generated as ``f_jvp(*params, *tangents) -> (value, tangent)``
and optimised: expression folding only for a jvp the user reads, the statement passes too
for the code hvp runs (`Options.with_value` False: the value is not returned).
"""

from __future__ import annotations

import ast
import copy
import dataclasses

from ..ad.tangent import TangentProgram, tangent
from ..ad.tangent_vector import widen
from ..backend.codegen import backward_statements
from ..backend.optimize import liveness, logistic, memory, statements
from ..backend.optimize.dead_writes import writes_in_place
from ..backend.optimize.factor import factor_sums
from ..backend.optimize.fresh_writes import write_first_results
from ..backend.optimize.lists import lists_in_place
from ..backend.optimize.loop_copies import coalesce_loop_copies
from ..backend.optimize.optimizer import OptimizeInfo, float_names, is_scalar_expr, optimize_function, scalar_names
from ..backend.optimize.parallel_stacks import merge_parallel_stacks
from ..backend.optimize.simplify import is_float, simplify
from ..backend.optimize.unit_seeds import fold_seeds
from ..errors import SrcDiffError
from .cache import Lowered
from .lowering import describe


def transform(found: Lowered, ir, namer, shape_of: dict):
    """(the jvp's function AST, its `TangentProgram`, its name) for `found`'s inlined `ir`."""
    parsed, with_value = found.parsed, found.options.with_value
    program = tangent(ir, namer, found.wrt, shape_of, location=parsed.location)
    name = namer.fresh(f"{parsed.name}_jvp")
    func = build(program, parsed.tree, describe(parsed), name, with_value, tangents_first=found.options.pullback)
    adjoints, params = {dot: primal for primal, dot in program.tangents.items()}, list(program.params)
    copies = {p: [p] for p in params}  # each tangent parameter's names, one per direction
    if found.options.directions > 1:  # several tangents in one sweep, each under names of its own
        if program.calls or found.options.pullback:
            raise SrcDiffError(f"{parsed.name}: vector forward mode does not go through a helper's own tangent "
                               "function", hint="one sweep per direction")
        copies = widen(func, params, found.options.directions)
        adjoints = {new: adjoints[old] for old, news in copies.items() if old in adjoints for new in news}
        params = [new for p in params for new in copies[p]]
    # expression folding only (``x ** (2 - 1)`` -> ``x``): the statement passes are the
    # backward sweep's, and every statement here is one the reader can match to a line
    info = OptimizeInfo(shape_of, adjoints, frozenset(found.params) | frozenset(params), frozenset(found.wrt),
                        statements=False)
    # numba compiles the code: none of the passes for code NumPy runs (SciPy's Cholesky solves,
    # np.einsum, reversed() of a list), as for a gradient numba compiles (compile.py's _reverse)
    if found.options.jit:
        info = dataclasses.replace(info, python_loops=False)
    _copy_if_shared(func, set(params), info.is_scalar, vector=found.options.directions > 1)
    if found.options.unit_seeds:
        _fold_unit_seeds(func, program.params, copies, info)
    optimize_function(func, info)
    logistic.logistic_factors(func)  # (a written-out sigmoid's tangent: no inf / inf where it saturates)
    while not with_value and statements.remove_unread(func):  # what only the value needed
        pass
    if not with_value:  # code for hvp, not for reading: single-use values fused into their use
        optimize_function(func, dataclasses.replace(info, statements=True))
        if found.options.jit is None and factor_sums(func.body, adjoints.__contains__):  # one product fewer each
            simplify(func, float_names(func, info).__contains__, scalar_names(func, info).__contains__)
            # (a scaled array read no more goes; memory.release below frees the rest again)
            func.body[:] = [s for s in func.body if not isinstance(s, ast.Delete)]
            while statements.remove_dead(func.body) | statements.remove_unread(func):
                pass
        lists_in_place(func)  # a derivable gradient's list updates, copies no one sees
        merge_parallel_stacks(func)  # its loop stacks (one per value and direction): one list of tuples
        coalesce_loop_copies(func)  # and its loops' closing copies of the values they carry
    if writes_in_place(func.body):  # the functional index writes of lowering, where nothing sees them
        memory.first_scatter_assigns(func.body)  # (a scatter into fresh zeros is a copy)
    if not with_value and found.options.jit is None:  # (numba fuses these statements its own way)
        _write_first_results(func, info)
    memory.release(func.body, lambda n: n not in info.params and not info.is_scalar(n))  # freed as in a gradient
    return func, program, name


def _write_first_results(func: ast.FunctionDef, info: OptimizeInfo) -> None:
    """Fresh zeros written first by a ufunc's result: the result made in place (fresh_writes.py)."""
    floats = float_names(func, info)

    def ndim_of(name: str) -> int | None:
        shape = info.shape(name)
        return shape.ndim if shape.known and not shape.scalar else 0 if shape.known else None

    write_first_results(func, ndim_of, lambda e: is_float(e, floats.__contains__))


def _fold_unit_seeds(func: ast.FunctionDef, tangent_params: list[str], copies: dict, info: OptimizeInfo) -> None:
    """Direction d of the sweep is the d-th unit vector of the (scalar) parameters: their
    tangents become numbers in the code and the terms they zero go (unit_seeds.py)."""
    if len(tangent_params) != len(copies[tangent_params[0]]):
        raise SrcDiffError("unit seeds: as many directions as parameters with tangents")
    seeds = {copies[p][d]: 1.0 if d == j else 0.0 for j, p in enumerate(tangent_params)
             for d in range(len(tangent_params))}
    scalars = scalar_names(func, info)
    fold_seeds(func, seeds, float_names(func, info).__contains__, scalars.__contains__,
               lambda e: is_scalar_expr(e, scalars))


def build(program: TangentProgram, tree: ast.FunctionDef, describe_line, name: str,
          with_value: bool = True, tangents_first: bool = False) -> ast.FunctionDef:
    """``name(*params, *tangents) -> (value, tangent)`` (``(None, tangent)`` without the
    value), each block under its user line.  A called function's tangent function
    (`tangents_first`) is ``name(*tangents, *params)``: its caller passes the tangents, then
    the call's arguments as the user wrote them (keywords, defaults)."""
    body = backward_statements(program.body, describe_line, label="")
    value = program.value if with_value else ast.Constant(None)
    body.append(ast.Return(ast.Tuple([value, program.tangent], ast.Load())))
    args = tree.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names = program.params + names if tangents_first else names + program.params
    arguments = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], vararg=None, kwonlyargs=[],
                              kw_defaults=[], kwarg=None, defaults=[])
    func = ast.FunctionDef(name=name, args=arguments, body=body, decorator_list=[], returns=None, type_comment=None)
    if hasattr(ast.FunctionDef, "type_params"):
        func.type_params = []
    # a copy: the optimizer rewrites what it returns, and the IR's expressions must not change
    return ast.fix_missing_locations(copy.deepcopy(func))


def _copy_if_shared(func: ast.FunctionDef, params: set[str], is_scalar, vector: bool = False) -> None:
    """The returned tangent never is the caller's array (``return x_dot`` of ``f(x) = x + 0``)."""
    returned = func.body[-1].value.elts
    held = _may_hold(func.body, params)
    for place, out in (enumerate(returned[1].elts) if vector else [(None, returned[1])]):
        if isinstance(out, ast.Name) and not is_scalar(out.id) and out.id in held:
            copied = ast.Call(ast.Name("copy_array", ast.Load()), [out], [])
            if place is None:
                returned[1] = copied
            else:
                returned[1].elts[place] = copied


def _may_hold(body: list[ast.stmt], params: set[str]) -> set[str]:
    """The names that may share memory with a parameter (``y_dot = x_dot``, a slice of it)."""
    holders = set(params)
    for stmt in body:
        if liveness.is_compound(stmt):
            if liveness.mentions(stmt) & holders:
                holders |= {n.id for n in ast.walk(stmt) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
            continue
        name = liveness.assigned_name(stmt)
        if name is not None and memory.escaping_reads(stmt) & holders:
            holders.add(name)
    return holders



__all__ = ["build", "transform"]
