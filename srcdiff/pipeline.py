"""The one driver: a user function becomes a compiled gradient, stage by stage.

    parse → lower → shapes → reverse → codegen → optimize → render → load

`lowered` runs the first two stages once per function (and per value of the parameters it
uses as static arguments); `compile_variant` runs the rest once per argument signature.
`grad`, the adjoints of called user functions (`callee_cell`) and `trace` all come through
here, so every gradient is built, optimised and loaded the same way.  All mutable state
lives in one `Cache`; `CACHE.clear()` forgets every compiled gradient, callees included.
"""

from __future__ import annotations

import ast
import dataclasses
import types
import weakref
from dataclasses import dataclass, field

from .ad.inline import inline_calls, lower_helper
from .ad.reverse import reverse
from .backend import codegen, debug, guards, listing, loader, namespaces, origins, render
from .backend.optimize.optimizer import OptimizeInfo, optimize_function
from .callee_lowering import call_facts, called, static_values
from .callee_shapes import CalleeShapes, parameter_shapes
from .errors import SrcDiffError
from .frontend import depends
from .frontend import statics as static_args
from .frontend.naming import Namer, assigned_names, names_in
from .frontend.parse import ParsedFunction, parse_function, unwrap
from .ir import shapes
from .ir.nodes import Function, all_nodes, typed
from .ir.program import CallSpec, GradProgram
from .ir.shape_inference import infer_shapes
from .lower.callee_facts import analysis_error, of_function
from .lower.facts import ParamFacts, argument_facts, facts_key, same_facts
from .lower.lowerer import lower_specialised
from .lower.writes import check_in_place
from .rules import TABLE, TEMPLATE_GLOBALS
from .rules.runtime import HELPERS


@dataclass(frozen=True)
class Options:
    """What kind of gradient function to build."""

    with_value: bool = False  # return (value, gradient)
    tuple_result: bool = False  # wrt was a tuple: return a tuple of gradients
    debug: bool = False  # finiteness checks after every assignment (backend/debug.py)
    pullback: bool = False  # a callee's adjoint: ``vjp(*args) -> (value, pullback)``
    jit: str | None = None  # "numba": compiled by numba (backend/jit.py)
    inline: bool = True  # small helpers copied into the caller (ad/inline.py); trace keeps calls
    derivable: bool = False  # code srcdiff can differentiate again (higher.py): loops read stacks by position


@dataclass
class Variant:
    """One compiled gradient, for one argument signature."""

    source: str
    function: object
    name: str
    program: GradProgram = field(repr=False)
    #: the adjoints of the user functions it calls, by the name its code calls them
    callees: dict[str, Callee] = field(default_factory=dict, repr=False)
    fast: object = None  # the same code behind a signature guard, made on first use
    cells: dict = field(default_factory=dict, repr=False)  # what else its code reads (debug's checker)
    jitted: object = None  # the code compiled by numba (jit="numba"), made on first use
    derivable: tuple | None = None  # (pick, the code as a function srcdiff can parse): higher.py


@dataclass(eq=False)
class Callee:
    """A called user function's adjoint.  The cell exists before the code is compiled, so a
    recursive function's adjoint can call itself."""

    cell: types.CellType
    variant: Variant | None = None


@dataclass
class Lowered:
    """A user function parsed and lowered once; compiled into one `Variant` per signature."""

    parsed: ParsedFunction
    wrt: tuple[str, ...]
    options: Options
    ir: Function
    namer: Namer
    statics: dict  # parameter -> the value this lowering is specialised on
    depends: tuple  # the globals and closure variables lowering read (frontend/depends.py)
    variants: dict = field(default_factory=dict)  # signature key -> Variant
    facts_key: tuple = ((), None)  # the None and bool arguments, and the signature if lowering read it
    constants: dict = field(default_factory=dict)  # parameter -> its None or bool argument (lower/facts.py)

    @property
    def params(self) -> list[str]:
        return [p.name for p in self.ir.params]

    def specialised_for(self, args: tuple, names: list[str]) -> bool:
        """Whether the static parameters' values in `args` (and the facts lowering read off
        them: lower/facts.py) are the ones this is lowered for."""
        return same_facts(self.facts_key, names, args) \
            and all(typed(args[names.index(n)]) == typed(v) for n, v in self.statics.items())


@dataclass
class CacheInfo:
    """How much work the cache saved: parsed+lowered functions and compiled variants."""

    transforms: int = 0
    variants: int = 0


class Cache:
    """Every piece of state srcdiff keeps between calls."""

    def __init__(self):
        self.stats = CacheInfo()
        #: user function -> {key: Lowered}; dies with the function
        self.lowered: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        #: user function -> {key without statics: the parameters used as static arguments}
        self.static_names: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.by_signature = weakref.WeakKeyDictionary()  # function -> constants whose lowering read shapes
        #: callee adjoints by what decides their code; callees lowered for their result shapes
        self.callees: dict[tuple, Callee] = {}
        self.callee_irs: dict[tuple, object] = {}
        #: what each generated function was generated from (its errors name the user's line)
        self.origins = origins.Origins()
        self.listeners: list = []  # called on `clear` (gradient functions drop fast paths)

    def clear(self) -> None:
        self.lowered.clear()
        self.static_names.clear()
        self.by_signature.clear()
        self.callees.clear()
        self.callee_irs.clear()
        self.origins.clear()
        for listener in list(self.listeners):
            listener()


CACHE = Cache()
TABLE.listeners.append(CACHE.clear)  # a new rule changes what lowering and adjoints produce


# ---- parse and lower, once per function ----

def lowered(func, wrt: tuple[str, ...], options: Options, args: tuple | None = None) -> Lowered:
    """The lowered `func` for a call with positional `args` (None: its defaults)."""
    parsed = parse_function(func)
    cache = CACHE.lowered.setdefault(parsed.func, {})
    value_of = static_args.values_of(func, args)
    decided = facts_key(func, value_of, args, CACHE.by_signature)
    base = (parsed.func.__code__, wrt, options, TABLE.version) + decided
    static_names = CACHE.static_names.setdefault(parsed.func, {})
    key = base + (static_args.static_key(static_names.get(base, ()), value_of),)
    if key not in cache or not depends.hold(cache[key].depends):
        facts = argument_facts(func, value_of, args)
        found = _lower(parsed, wrt, options, static_args.static_values(parsed, wrt, value_of), facts)
        CACHE.stats.transforms += 1
        if facts.used_shapes:  # the signature decided some of the code: it is part of the key
            CACHE.by_signature.setdefault(parsed.func, set()).add(decided[0])
            decided = facts_key(func, value_of, args, CACHE.by_signature)
            base = base[:-2] + decided
        found.facts_key, found.constants = decided, dict(facts.constants)
        static_names[base] = tuple(found.statics)  # found by lowering: the same for all values
        key = base + (static_args.static_key(static_names[base], value_of),)
        cache[key] = found
    return cache[key]


def is_current(found: Lowered, func) -> bool:
    """Whether `found` is still what `lowered` gives for `func` (same code, rules, globals)."""
    return found.parsed.func.__code__ is unwrap(func).__code__ \
        and found in CACHE.lowered.get(found.parsed.func, {}).values() \
        and depends.hold(found.depends)


def _lower(parsed: ParsedFunction, wrt, options: Options, static_value, facts: ParamFacts | None = None) -> Lowered:
    """Lower `parsed`; `static_value(name, node)` gives (or refuses) a static parameter's value."""
    ir, namer, statics = lower_specialised(parsed, TABLE, static_value, facts)
    found = Lowered(parsed, wrt, options, ir, namer, statics, parsed.dependencies())
    _check_template_names(found)
    return found


def _inlinable(func) -> Function | None:
    """A helper's IR for inlining (ad/inline.py), or None: it keeps its own adjoint."""
    return lower_helper(func, lambda parsed, refuse: _lower(parsed, (), Options(pullback=True), refuse).ir)


def inlined(found: Lowered, namer: Namer) -> Function:
    """`found`'s IR with its calls of small helpers inlined (ad/inline.py), as gradients see it."""
    return inline_calls(found.ir, namer, _inlinable, found.parsed.func)


def _check_template_names(found: Lowered) -> None:
    """Generated code sees `np`, `math`... as srcdiff's; refuse if the user's mean else."""
    tree = found.parsed.tree
    global_reads = names_in(tree) - assigned_names(tree) - set(found.params)
    for name in sorted(global_reads & set(TEMPLATE_GLOBALS)):
        if found.parsed.resolve(name) is not TEMPLATE_GLOBALS[name]:
            raise found.parsed.error(tree, f"the name {name!r} means something else here than in "
                                     "srcdiff's generated code", f"rename your {name!r}")


# ---- shapes, reverse, codegen, optimize, render, load: once per signature ----

def variant(found: Lowered, key, args: tuple | None = None) -> Variant:
    """The compiled gradient of `found` for argument signatures `key` (None: nothing known).

    Arrays of another library than NumPy among the arguments `args` (Dask, array-API) get
    the same code with their namespace bound to ``np`` (backend/namespaces.py)."""
    made = found.variants.get(key)
    if made is None:
        params = found.params
        param_shapes = {} if key is None else {p: shapes.of_signature(s) for p, s in zip(params, key)}
        foreign = namespaces.foreign_arrays(params, key)
        if foreign and (found.options.jit or found.options.debug):
            raise SrcDiffError(f"{'jit=' + repr(found.options.jit) if found.options.jit else 'debug=True'} "
                               f"needs NumPy arrays; {', '.join(foreign)} are of another library",
                               hint="convert the arguments with np.asarray, or leave the option out")
        made = compile_variant(found, param_shapes, foreign)
        if foreign and args is not None:
            _check_portable(found, made, args)
        found.variants[key] = made
    return made


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


def compile_variant(found: Lowered, param_shapes: dict, foreign: list[str] = ()) -> Variant:
    """Every stage after lowering, for parameters of the shapes `param_shapes`; `foreign`
    names the parameters that are arrays of another library than NumPy."""
    parsed, options = found.parsed, found.options
    namer = found.namer.copy()
    # small helpers inlined (ad/inline.py): the gradient is one function, shapes seen through
    ir = inline_calls(found.ir, namer, _inlinable, parsed.func) if options.inline and not options.debug else found.ir
    shape_of = infer_shapes(ir, param_shapes, CalleeShapes(CACHE.callee_irs, TABLE))
    check_in_place(ir, shape_of, parsed.location, callee=options.pullback)
    seed = None
    if options.pullback:
        output = getattr(ir.output, "name", parsed.name)
        seed = namer.fresh(f"{output}_bar")
    program = reverse(ir, namer, found.wrt, shape_of, location=parsed.location,
                      with_value=options.with_value or options.debug, pullback=seed, derivable=options.derivable)
    suffix = "vjp" if options.pullback else "value_and_grad" if options.with_value else "grad"
    name = namer.fresh(f"{parsed.name}_{suffix}")
    info = OptimizeInfo.of(program, shape_of, found.wrt, statements=not options.debug)
    if options.jit or options.derivable:  # numba, and code srcdiff reads back: no reversed() of a list
        info = dataclasses.replace(info, python_loops=False, batch_loops=not options.derivable)
    func = codegen.build(program, parsed.tree, describe(parsed), name=name, with_value=options.with_value,
                         tuple_result=options.tuple_result, info=None if options.pullback else info)
    if not options.pullback:
        optimize_function(func, info)
    else:
        _optimize_pullback(func, info)
    helper = debug.helper_name(found.namer) if options.debug else None
    if helper:
        debug.instrument(func, program, helper)
    if foreign:
        namespaces.add_namespace_line(func, list(foreign))
    source = render.render(func)
    callees = {vjp_name: callee(spec) for vjp_name, spec in program.calls.items()}
    made = Variant(source, None, name, program, callees)
    if foreign:
        made.cells[namespaces.NAME] = namespaces.array_namespace
    if helper:
        made.cells[helper] = debug.Checker(parsed, found.ir, helper, source)
    made.function = _load(found, made, TEMPLATE_GLOBALS)
    if not options.pullback:
        CACHE.stats.variants += 1
    return made


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


def describe(parsed: ParsedFunction):
    """``line -> "file.py:12  code"``: the comment over each adjoint block."""
    def describe_line(line: int) -> str:
        loc = parsed.location(line)
        return f"{loc.short}  {loc.code.strip()}"
    return describe_line


def _load(found: Lowered, made: Variant, cells: dict, prologue=()):
    parsed = found.parsed
    cells = {**cells, **made.cells, **parsed.closure, **{name: c.cell for name, c in made.callees.items()}}
    cells[origins.ON_ERROR] = CACHE.origins.raise_located
    label = f"{parsed.location(parsed.tree).short.rsplit(':', 1)[0]}:{made.name}"
    function = loader.build_function(made.source, label, parsed.func.__globals__, cells, prologue,
                                     parsed.func.__defaults__, on_error=origins.ON_ERROR)
    nodes = all_nodes(made.program.function)
    user_line = origins.user_lines(made.source, {f"# adjoint of {describe(parsed)(n.line)}": n.line for n in nodes},
                                   {n.out.name: n.line for n in nodes}, parsed.tree.lineno)
    CACHE.origins.add(function, origins.Origin(parsed.location, made.name, user_line))
    return function


def fast_function(found: Lowered, made: Variant, slow):
    """`made` compiled again behind a guard of its signature: other calls go to `slow`."""
    if made.fast is None:
        names = found.params
        key = next(k for k, v in found.variants.items() if v is made)
        args = found.parsed.tree.args
        ir_name = {a.arg: p for a, p in zip(args.posonlyargs + args.args + args.kwonlyargs, names)}
        statics = {ir_name[n]: v for n, v in {**found.constants, **found.statics}.items()}
        prologue, guard_cells = guards.prologue(names, key, found.depends, _direct_names(found), statics)
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

def callee(spec: CallSpec) -> Callee:
    """The `Callee` whose cell holds ``vjp(*args) -> (value, pullback)`` for `spec` (compiled on first use).

    Keyed by what decides the code: the call's spec, the rules, and the current values of
    what the callee reads statically (a global axis, a helper alias)."""
    func, statics, analysis = called(spec)
    key = (spec, TABLE.version, depends.key(of_function(func, TABLE, *analysis)))
    if key in CACHE.callees:
        return CACHE.callees[key]
    found_callee = CACHE.callees[key] = Callee(types.CellType())
    try:
        options = Options(tuple_result=len(spec.wrt) > 1, pullback=True)
        parsed = parse_function(func)
        param_shapes = parameter_shapes(func, dict(spec.shapes))
        facts = call_facts(func, statics, analysis[1], param_shapes)
        found = _lower(parsed, spec.wrt, options, static_values(parsed, func, spec, statics), facts)
        found_callee.variant = compile_variant(found, param_shapes)
        found_callee.cell.cell_contents = found_callee.variant.function
    except SrcDiffError as exc:
        del CACHE.callees[key]
        first = analysis_error(func, TABLE, *analysis)
        if first is not None:
            raise first from exc  # the first thing srcdiff cannot do in it, not a consequence
        raise
    except BaseException:
        del CACHE.callees[key]
        raise
    return found_callee


def callee_sources(made: Variant) -> dict[str, str]:
    """The source of every callee adjoint `made` calls (directly or not), by its name in `listing`."""
    return listing.callee_sources(made)


def full_source(made: Variant) -> str:
    """`made`'s source followed by the adjoints it calls: one listing that defines every name."""
    return listing.listing(made)


__all__ = ["CACHE", "Cache", "CacheInfo", "Callee", "Lowered", "Options", "Variant", "callee", "callee_sources",
           "compile_variant", "describe", "full_source", "fast_function", "inlined", "is_current", "lowered", "variant"]
