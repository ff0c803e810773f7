"""Every stage after lowering, once per argument signature: the one compile path.

    lowered IR ──inline → shapes → transform → codegen → optimize → render → load──▶ Variant

The transform is the variant's `Options.mode`: "reverse" (a gradient, a value and gradient,
or a callee's pullback), "forward" (a jvp, driver/forward.py) or "batched" (the function
over a leading batch axis of the parameters `wrt` names, driver/batched.py).  The adjoints of called
user functions (`callee`) come through here too, so every generated function is built,
optimised and loaded the same way.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import types

import numpy as np

from ..ad.activity import refuse_complex
from ..ad.held_shifts import hold_shifts
from ..ad.in_place_args import mark_spent
from ..ad.inline import inline_calls
from ..ad.reverse import reverse
from ..ad.searches import refuse_comparison_only
from ..ad.squeeze_axes import squeeze_axes
from ..backend import code_swaps, codegen, debug, guards, listing, loader, namespaces, origins, render
from ..backend.optimize import logistic, tidy, widths
from ..backend.optimize.optimizer import OptimizeInfo, optimize_function
from ..backend.optimize.python_floats import python_floats
from ..backend.single import keep_dtypes, keep_single
from ..errors import SrcDiffError
from ..frontend import depends
from ..frontend.installed import at_users_line, installed, library_name
from ..frontend.naming import assigned_names, names_in
from ..frontend.parse import parse_function
from ..ir import shapes
from ..ir.dtype_inference import makes_single, stays_single
from ..ir.dtype_inference import of_signature as dtype_of
from ..ir.nodes import UserCall, all_nodes, while_lines
from ..ir.program import CallSpec
from ..lower.callee_facts import analysis_error, of_function
from ..lower.writes import check_in_place
from ..rules import TABLE, TEMPLATE_GLOBALS
from ..rules.runtime import HELPERS
from . import batched, computed_lengths, forward
from .cache import CACHE, Callee, Lowered, Options, Variant, serialized
from .callee_lowering import call_facts, called, generated_defaults, static_values
from .callee_shapes import CalleeShapes, parameter_shapes
from .lowering import describe, inlinable, lower_parsed
from .python_float_args import plain_global, python_float_arrays

# ---- shapes, reverse, codegen, optimize, render, load: once per signature ----

@serialized
def variant(found: Lowered, key, args: tuple | None = None) -> Variant:
    """The compiled gradient of `found` for argument signatures `key` (None: nothing known).

    Arrays of another library than NumPy among the arguments `args` (Dask, array-API) get
    the same code with their namespace bound to ``np`` (backend/namespaces.py)."""
    made = found.variants.get(key)
    if made is None:
        params = found.params
        _refuse_subclasses(found, params, key)
        param_shapes = {} if key is None else {p: shapes.of_signature(s) for p, s in zip(params, key)}
        foreign = namespaces.foreign_arrays(params, key)
        if foreign and (found.options.jit or found.options.debug):
            raise SrcDiffError(f"{'jit=' + repr(found.options.jit) if found.options.jit else 'debug=True'} "
                               f"needs NumPy arrays; {', '.join(foreign)} are of another library",
                               hint="convert the arguments with np.asarray, or leave the option out")
        complex_params = frozenset(p for p, s in zip(params, key or ()) if shapes.is_complex_signature(s))
        narrow = _narrow_arguments(found, key)
        made = compile_variant(found, param_shapes, foreign, args, single=shapes.is_single(key),
                               complex_params=complex_params, narrow=narrow, key=key)
        if foreign and args is not None:
            _check_portable(found, made, args)
        found.variants[key] = made
    return made


def _narrow_arguments(found: Lowered, key) -> dict:
    """The `wrt` parameters whose arguments are float32 or float16 (arrays or NumPy numbers):
    name -> (dtype name, whether a number).  numba has no float16 arithmetic: refused."""
    sigs = dict(zip(found.params, key or ()))
    narrow = {p: (shapes.narrow_dtype(sigs[p]), isinstance(sigs[p], type)) for p in found.wrt
              if p in sigs and shapes.narrow_dtype(sigs[p])}
    if any(shapes.narrow_dtype(s) for s in sigs.values()):  # a Python float next to float32 values
        narrow.update({p: ("float64", True) for p in found.wrt if sigs.get(p) is float})  # keeps float64
    if found.options.jit and any(isinstance(s, tuple) and s[-1] == shapes.HALF for s in sigs.values()):
        raise SrcDiffError(f"{found.parsed.location(found.parsed.tree)}: jit={found.options.jit!r} cannot compile "
                           f"{found.parsed.name} for float16 arrays (numba has no float16 arithmetic)",
                           hint="pass x.astype(np.float32) with jit, or leave jit out for float16")
    return narrow


def _wide_arguments(found: Lowered, key) -> dict:
    """The `wrt` parameters whose arguments are float64 (arrays, NumPy or Python numbers): name ->
    ("float64", whether a number), as `_narrow_arguments` gives the narrow ones."""
    sigs = dict(zip(found.params, key or ()))
    return {p: ("float64", isinstance(sigs[p], type)) for p in found.wrt
            if p in sigs and (sigs[p] in (float, np.float64) or isinstance(sigs[p], tuple) and sigs[p][-1] == "f")}


def _refuse_subclasses(found: Lowered, params, key) -> None:
    """NumPy array subclasses (``np.matrix``, masked arrays) change what operators mean
    (``*`` is a matrix product for ``np.matrix``, masked elements drop out of sums): the
    generated code, written for ndarrays, would differentiate another function.  Refused."""
    for param, sig in zip(params, key or ()):
        if isinstance(sig, type) and issubclass(sig, np.ndarray) and sig is not np.ndarray:
            raise SrcDiffError(f"{found.parsed.name}: argument {param!r} is a {sig.__module__}.{sig.__name__}, "
                               "a NumPy array subclass whose operators srcdiff does not model",
                               hint=f"pass np.asarray({param}) (for np.matrix, write matrix products with @; "
                                    "for a masked array, np.ma.filled or .compressed() first)")


def _check_portable(found: Lowered, made: Variant, args: tuple) -> None:
    """Refuse a variant for another array library whose code that library cannot run."""
    if made.callees:
        raise SrcDiffError(f"{found.parsed.name} calls user functions ({', '.join(made.callees)}) whose adjoints "
                           "are compiled for NumPy arrays, and its arguments are arrays of another library",
                           hint="write the called function's body into the function, or pass NumPy arrays")
    foreign = [a for a in args if shapes.is_foreign_array(a)]
    namespace = namespaces.array_namespace(*foreign)
    numpy_args = [p for p, a in zip(found.params, args) if type(a).__module__ == "numpy" and hasattr(a, "shape")]
    if numpy_args and not namespaces.takes_numpy(namespace):
        raise SrcDiffError(f"{', '.join(numpy_args)} are NumPy arrays and other arguments are arrays of "
                           f"{namespace.__name__}, which does not mix the two",
                           hint=f"convert them with {namespace.__name__}.asarray")
    origin = CACHE.origins.by_file[made.function.__code__.co_filename]
    namespaces.check_portable(made.source, namespace,
                              list(dict.fromkeys(type(a) for a in foreign)), HELPERS,
                              namespaces.located(origin.user_line, found.parsed.location))


def compile_variant(found: Lowered, param_shapes: dict, foreign: list[str] = (), args: tuple | None = None,
                    single: bool = False, complex_params: frozenset = frozenset(), narrow: dict | None = None,
                    for_helper: bool = False, key=None, spent: tuple = (), speculate: bool = True) -> Variant:
    """Every stage after lowering, for parameters of the shapes `param_shapes`; `foreign`
    names the parameters that are arrays of another library than NumPy.  A batched variant
    is compiled for one example's arguments `args` (driver/batched.py); `single`: the
    arguments are float32 (the derivative's fills are too, backend/single.py); `complex_params`
    name the parameters whose arguments are complex (a differentiated value meeting one is
    refused at its line, whatever transformation this is); `narrow`: the `wrt` parameters
    whose gradients are returned in float32 or float16 (`_narrow_arguments`); `for_helper`: a user
    helper's adjoint, whose in-place update of a parameter would change its caller's array;
    `key`: the arguments' signatures (elements of float64 arrays read as Python floats); `spent`: the
    helper's parameters whose operands its caller reads nowhere else (ad/in_place_args.py); `speculate`:
    widths computed from shapes compiled as not 1, tested when it runs (driver/computed_lengths.py)."""
    parsed, options = found.parsed, found.options
    again = functools.partial(compile_variant, found, param_shapes, foreign, args, single, complex_params, narrow,
                              for_helper, key, spent, speculate=False)
    namer = found.namer.copy()
    # small helpers inlined (ad/inline.py): the gradient is one function, shapes seen through
    inline = options.inline and not options.debug
    ir = inline_calls(found.ir, namer, inlinable, parsed.func, parsed) if inline else found.ir
    if complex_params:
        refuse_complex(ir, set(found.wrt), parsed.location, complex_params)
    if not getattr(parsed.func, "__srcdiff_generated__", False):  # (second order: the user's code was checked)
        refuse_comparison_only(ir, set(found.wrt), parsed.location)
    shape_of, lengths = computed_lengths.infer(ir, param_shapes, CalleeShapes(CACHE.callee_irs, TABLE),
                                               options if speculate else None, foreign)  # (widths: not 1)
    classes = {p: dtype_of(s) for p, s in zip(found.params, key or ())}
    if single and not stays_single(ir, classes, parsed.resolve,
                                   proved=options.mode == "forward"):
        single = False  # a value made float64 inside: its adjoint too (the gradient is rounded at the end)
    if options.mode != "batched":  # a softmax's max shift held constant (its derivative is 0)
        ir = hold_shifts(ir, shape_of)
    if options.mode != "batched":  # the axes np.squeeze removes, known (numba types each name's ndim once)
        ir = squeeze_axes(ir, shape_of)
    ir = mark_spent(ir, spent if for_helper else None)  # calls kept: operands no one reads again (in_place_args.py)
    check_in_place(ir, shape_of, parsed.location, callee=for_helper, spent=spent)
    if options.mode == "batched":
        func, program, name = batched.transform(found, ir, namer, shape_of, args)
    else:
        if options.mode == "forward":
            func, program, name = forward.transform(found, ir, namer, shape_of)
        else:  # (the arguments that are Python numbers: they change no array's floating dtype)
            weak = frozenset(p for p, s in zip(found.params, key or ()) if s in (float, int, bool))
            func, program, name = _reverse(found, ir, namer, shape_of, weak, portable=bool(foreign),
                                           double=_double(key) and not (single or narrow or complex_params),
                                           mixed=not single and any(map(shapes.narrow_dtype, key or ())))
    arrays = python_float_arrays(found, key) if not (single or narrow or foreign or complex_params) else None
    if arrays:  # ``float(observed[i])`` where that changes no result (backend/optimize/python_floats.py)
        python_floats(func, arrays, lambda name: plain_global(parsed, name, getattr(program, "calls", {})))
    if single:
        keep_single(func, set(program.tangents.values()) if options.mode == "forward" else None)
    if not narrow and options.mode == "reverse" and makes_single(ir, classes, parsed.resolve):
        narrow = _wide_arguments(found, key)  # float64 ones, where the code makes float32 values: rounded back up
    if narrow and options.mode == "reverse":  # a gradient has its argument's dtype (issue 24)
        keep_dtypes(func, [narrow.get(w, (None,))[0] for w in found.wrt], [narrow.get(w, (0, 0))[1] for w in found.wrt],
                    with_value=options.with_value, tuple_result=options.tuple_result,
                    pullback=bool(options.pullback) and not options.derivable)
    helper = debug.helper_name(found.namer) if options.debug else None
    if helper:
        debug.instrument(func, program, helper)
    if foreign:
        namespaces.add_namespace_line(func, list(foreign))
    if lengths and (getattr(program, "calls", None) or not computed_lengths.guard(func, found.params, lengths)):
        return again()  # (a width the optimizer moved: the code assuming nothing)
    source = render.render(func)
    callees = {vjp_name: _callee_at(found, ir, spec) for vjp_name, spec in getattr(program, "calls", {}).items()}
    made = Variant(source, None, name, program, callees)
    made.cells.update({computed_lengths.FALLBACK: computed_lengths.Fallback(again)} if lengths else {})
    if options.mode == "batched":  # helpers for rows whose shapes are known when it runs
        made.cells.update(batched.HELPERS)
    if foreign:
        made.cells[namespaces.NAME] = namespaces.array_namespace
    if helper:
        made.cells[helper] = debug.Checker(parsed, found.ir, helper, source)
    made.function = _load(found, made, TEMPLATE_GLOBALS)
    if options.mode == "reverse" and not options.pullback:
        CACHE.stats.variants += 1
    return made


def _double(key) -> bool:
    """Whether the argument signatures `key` are all float64 (or wider) arrays and NumPy float64
    or Python numbers: no value the function is given is narrower than float64."""
    return key is not None and all(s in (float, int, bool, np.float64) or (
        isinstance(s, tuple) and len(s) == 3 and s[-1] == "f") for s in key)


def _reverse(found: Lowered, ir, namer, shape_of: dict, weak: frozenset = frozenset(), portable: bool = False,
             double: bool = False, mixed: bool = False):
    """The reverse transform: (the gradient's function AST, its program, its name); `weak` names
    the parameters whose arguments are Python numbers; `portable`: for arrays of another library
    (only functions of the array API in the optimised code); `double`: every argument is float64
    or a Python number; `mixed`: float32 arguments meet float64 values."""
    parsed, options = found.parsed, found.options
    seed = None
    if options.pullback:
        output = getattr(ir.output, "name", parsed.name)
        seed = namer.fresh(f"{output}_bar")
    program = reverse(ir, namer, found.wrt, shape_of, location=parsed.location,
                      with_value=options.with_value or options.debug, pullback=seed, derivable=options.derivable,
                      checkpoint=options.checkpoint, once=options.once)
    suffix = "vjp" if options.pullback else "value_and_grad" if options.with_value else "grad"
    name = namer.fresh(f"{parsed.name}_{suffix}")
    info = dataclasses.replace(OptimizeInfo.of(program, shape_of, found.wrt, statements=not options.debug),
                               weak=weak, portable=portable, double=double, mixed=mixed)
    if options.jit or options.derivable:  # numba, and code srcdiff reads back: no reversed() of a list
        info = dataclasses.replace(info, python_loops=False, batch_loops=not options.derivable,
                                   derivable=options.derivable)
    seeded = options.pullback and options.derivable  # a callee's gradient srcdiff differentiates again
    func = codegen.build(program, parsed.tree, describe(parsed), name=name, with_value=options.with_value,
                         tuple_result=options.tuple_result, info=None if options.pullback and not seeded else info,
                         seeded=seeded)
    if widths.narrows(func):  # a float32 value made inside (a pullback's forward sweep is outside it)
        info = dataclasses.replace(info, double=False, mixed=True)
    if not options.pullback or seeded:
        optimize_function(func, info)
    else:
        _optimize_pullback(func, info)
        if not options.derivable:
            tidy.drop_point_guards(func)  # (its forward sweep, outside the pullback optimised above)
    return func, program, name


def _optimize_pullback(func: ast.FunctionDef, info: OptimizeInfo) -> None:
    """Optimise a callee adjoint's pullback (the backward sweep) as a function of its own.

    The names it reads from the forward sweep are its inputs, like parameters: nothing
    moves across the closure boundary.  A pullback that rebinds forward names (``nonlocal``,
    for loops that restore values) is left as generated."""
    inner = next((s for s in func.body if isinstance(s, ast.FunctionDef)), None)
    if inner is None or any(isinstance(s, ast.Nonlocal) for s in ast.walk(inner)):
        return
    outer = {a.arg for a in func.args.args} | {n.id for s in func.body if s is not inner
                                               for n in ast.walk(s) if isinstance(n, ast.Name)}
    params = frozenset(outer | {a.arg for a in inner.args.args})
    optimize_function(inner, dataclasses.replace(info, params=params))
    if info.statements:  # a sigmoid's ``d = 1.0 + e`` is the forward sweep's, which the inner pass cannot see
        logistic.logistic_factors(func)


def _load(found: Lowered, made: Variant, cells: dict, prologue=()):
    parsed = found.parsed
    cells = {**cells, **made.cells, **parsed.closure, **{name: c.cell for name, c in made.callees.items()}}
    cells[origins.ON_ERROR] = CACHE.origins.raise_located
    label = f"{parsed.location(parsed.tree).short.rsplit(':', 1)[0]}:{made.name}"
    forward_mode = found.options.mode == "forward"  # (params, tangents): no defaults to apply
    # (tangents, params): none; else the function's, keyword-only ones included
    defaults = None if forward_mode and not found.options.pullback else generated_defaults(parsed.func)
    function = loader.build_function(made.source, label, parsed.func.__globals__, cells, prologue,
                                     defaults, on_error=origins.ON_ERROR)
    nodes = all_nodes(made.program.function)
    computes: dict[str, tuple] = {}
    for n in nodes:  # (a value both sides of a branch assign: computed on two lines)
        computes[n.out.name] = computes.get(n.out.name, ()) + (n.line,)
    if forward_mode:  # an error names the user's line whose value or tangent it computes
        computes.update({made.program.tangents[v]: lines for v, lines in list(computes.items())
                         if v in made.program.tangents})
    comments = {} if forward_mode else {f"# adjoint of {describe(parsed)(n.line)}": n.line for n in nodes}
    user_line = origins.user_lines(made.source, comments, computes, parsed.tree.lineno,
                                   while_lines(made.program.function))
    CACHE.origins.add(function, origins.Origin(parsed.location, made.name, user_line))
    return function


@serialized
def fast_function(found: Lowered, made: Variant, slow):
    """`made` compiled again behind a guard of its signature: other calls go to `slow`.  Whoever
    calls it watches the function's ``__code__`` (backend/code_swaps.py) where `code_swaps.WATCHING`."""
    if made.fast is None:
        names = found.params
        key = next(k for k, v in found.variants.items() if v is made)
        args = found.parsed.tree.args
        ir_name = {a.arg: p for a, p in zip(args.posonlyargs + args.args + args.kwonlyargs, names)}
        statics = {ir_name[n]: v for n, v in {**found.constants, **found.statics}.items()}
        owner = None if code_swaps.WATCHING else (found.parsed.func, found.parsed.code)  # (code_swaps.watch)
        prologue, guard_cells = guards.prologue(names, key, found.depends, _direct_names(found), statics, owner)
        made.fast = _load(found, made, {**TEMPLATE_GLOBALS, **guard_cells, guards.SLOW: slow}, prologue)
    return made.fast


def _direct_names(found: Lowered) -> set[str]:
    """Dependencies the generated code can read by name: the user function's own free
    names (the namer never reuses them) that mean there what they mean to the user."""
    tree = found.parsed.tree
    free = names_in(tree) - assigned_names(tree) - set(found.params)
    direct = set()
    for d in found.depends:
        own = found.parsed.closure.get(d.name, found.parsed.globals)
        if d.name in free and d.scope is own and d.name not in TEMPLATE_GLOBALS:
            direct.add(d.name)
    return direct


# ---- the adjoints of called user functions ----

@serialized
def callee(spec: CallSpec) -> Callee:
    """The `Callee` whose cell holds ``vjp(*args) -> (value, pullback)`` for `spec` (compiled on first use).

    Keyed by what decides the code: the call's spec, the rules, and the current values of
    what the callee reads statically (a global axis, a helper alias)."""
    func, statics, analysis = called(spec)
    # (its defaults too: a parameter not passed takes the default the function has now)
    key = (spec, TABLE.version, depends.key(of_function(func, TABLE, *analysis)), depends.state_of(func))
    if key in CACHE.callees:
        return CACHE.callees[key]
    found_callee = CACHE.callees[key] = Callee(types.CellType())
    try:
        if spec.mode == "forward":  # a tangent function: ``helper_jvp(*tangents, *args) -> (value, tangent)``
            options = Options(mode="forward", pullback=True, with_value=True)
        else:  # a pullback; "seeded": ``helper_vjp(seed, *args) -> gradient``, read back by srcdiff
            options = Options(tuple_result=len(spec.wrt) > 1, pullback=True, derivable=spec.mode == "seeded")
        parsed = parse_function(func)
        param_shapes = parameter_shapes(func, dict(spec.shapes))
        facts = call_facts(func, statics, analysis[1], param_shapes)
        found = lower_parsed(parsed, spec.wrt, options, static_values(parsed, func, spec, statics), facts)
        found_callee.variant = compile_variant(found, param_shapes, for_helper=True, spent=spec.spent)
        found_callee.cell.cell_contents = found_callee.variant.function
    except SrcDiffError as exc:
        del CACHE.callees[key]
        first = analysis_error(func, TABLE, *analysis)
        if first is not None and not _named_at_users_line(exc, first):
            raise first from exc  # the first thing srcdiff cannot do in it, not a consequence
        raise
    except BaseException:
        del CACHE.callees[key]
        raise
    return found_callee


def _named_at_users_line(exc: SrcDiffError, first: SrcDiffError) -> bool:
    """Whether `exc` is `first`, met in a library's code, already named at the user's line."""
    return first.location is not None and installed(first.location.filename) and exc.location is not None \
        and not installed(exc.location.filename) and f"({first.location})" in exc.reason


def _callee_at(found: Lowered, ir, spec):
    """`callee(spec)`; a refusal met in an installed library's code (scipy's own wrappers around
    a function it calls) is named at the user's line that calls into it (in `ir`, where helpers
    of the same file are inlined with their own lines)."""
    try:
        return callee(spec)
    except SrcDiffError as exc:
        func = getattr(spec.func, "func", spec.func)  # a Specialised callee: its function
        line = next((n.line for n in all_nodes(ir) if isinstance(n, UserCall)
                     and getattr(n.callee, "func", n.callee) is func), None)
        name = library_name(func)
        named = at_users_line(exc, found.parsed.location(line) if line else None, name)
        if named is None:
            raise
        raise named from None


def callee_sources(made: Variant) -> dict[str, str]:
    """The source of every callee adjoint `made` calls (directly or not), by its name in `listing`."""
    return listing.callee_sources(made)


def full_source(made: Variant) -> str:
    """`made`'s source followed by the adjoints it calls: one listing that defines every name."""
    return computed_lengths.listed(made, listing.listing)


__all__ = ["callee", "callee_sources", "compile_variant", "fast_function", "full_source", "variant"]
