"""A generated gradient and every callee adjoint it calls, as one module numba compiles.

numba compiles plain functions: no closures, no globals that change.  So, from the Python
listing (backend/listing.py):

* each callee adjoint ``name(args) -> (value, pullback)`` becomes two module-level
  functions: ``name(args) -> (value, saved)``, where `saved` is the tuple of forward values
  its pullback reads, and ``name_pullback(saved, adjoint)``; a call ``p(adjoint)`` of the
  pullback `p` a call returned becomes ``name_pullback(p, adjoint)``;
* the user's globals and closure variables the code reads as data (numbers, arrays...) become
  leading parameters of every function (`Env`): the caller reads their current values on each
  call, so rebinding one, or changing an array in place, is seen (not compiled in as constants);
* numba's spellings (`spelling.py`) replace what numba does not compile, and calls of
  SciPy's special functions become calls of their numba versions (`scipy_calls.py`).

Every statement keeps where it came from (`NumbaModule.lines`): numba's errors name the user's line.
"""

from __future__ import annotations

import ast
import builtins
import sys
import types
from dataclasses import dataclass, field

from ...errors import SrcDiffError
from .. import listing
from . import cached_calls, folding, recursion, scipy_calls, scope_reads, spelling, stats_calls, try_probes, value_calls
from .call_defaults import left_out, literal, passed
from .mixed_lists import callee_params, carried_mixed_list, value_kinds

PULLBACK = "_pullback"
SAVED = "__saved"
#: how backend/jit.py compiles the module's functions: a float divided by zero is inf or NaN,
#: as NumPy's numbers give, not Python's ZeroDivisionError (an untaken branch of np.where
#: computes ``np.sin(x) / x`` at x = 0 too); an integer divided by zero is 0, as NumPy's
NUMBA_OPTIONS = {"error_model": "numpy"}


@dataclass
class Env:
    """A user's global or closure variable the code reads at run time: a leading parameter."""

    param: str  # its parameter name in the module
    name: str  # the user's name
    scope: object  # a globals dict or a closure cell
    line: tuple  # (Variant, line of its source) where it is first read
    path: tuple = ()  # the items and attributes read from it (scope_reads.py): ``d["a"]``

    def current(self):
        if isinstance(self.scope, types.CellType):
            value = self.scope.cell_contents
        else:
            value = self.scope[self.name]
        return scope_reads.follow(value, self.path) if self.path else value


@dataclass
class NumbaModule:
    """The module's source, what to compile, and where each of its lines comes from."""

    source: str
    main: str  # the gradient's name
    functions: list[str]  # every function numba compiles, callees first
    env: list[Env]
    lines: dict[int, tuple] = field(default_factory=dict)  # module line -> (Variant, its source line)
    imports: dict[str, tuple] = field(default_factory=dict)  # name -> (module, attribute or None)
    #: kept in numba's on-disk cache: not with recursive functions, whose code loaded from the
    #: cache calls a symbol numba leaves unresolved (the process crashed: recursion.py)
    cached: bool = True
    #: float32 arguments computed in float64 from the start (a list of float32 and float64 arrays carried
    #: through a loop, on which numba's compiler does not finish: mixed_lists.py, widening.py)
    widen: bool = False


@dataclass
class _Part:
    name: str
    variant: object
    tree: ast.FunctionDef


def build(made, template_globals: dict, helpers: dict[str, str], refuse, constants=(), statics=None,
          key=None) -> NumbaModule:
    """The module for the Variant `made` and its callees.  `helpers` are the run-time helpers
    numba versions exist for, each with the module that holds it; `refuse(variant, line,
    reason)` raises the located refusal.
    `constants` are the dependencies (frontend/depends.py) the transform read by value, so
    guarded by the caller: written into the code as constants (an ``axis=AXIS``), as are the
    parameters the variant is specialised on (`statics`: name -> value).  `key` is the
    signature the variant is compiled for: the type tests it decides are folded (folding.py)."""
    parts = [_Part(made.name, made, _parse(made.source, made))]
    for name, (variant, source) in listing.named_callees(made).items():
        parts.append(_Part(name, variant, _parse(source, variant)))
    called, widths = callee_params(made, key), []
    for part in parts:  # (a list of an array and a number in a loop: numba's typing does not end)
        mixed = carried_mixed_list(part.tree, key if part is parts[0] else None, called.get(id(part.variant)),
                                   value_kinds(part.variant.function), widths)
        if mixed is not None:
            refuse(part.variant, mixed[0].origin[1], mixed[1])
    callees = {p.name for p in parts[1:]}
    cycles = recursion.on_cycles({p.name: p.tree for p in parts}, callees)  # (recursion.py)
    primals = recursion.primals(parts, cycles)
    imports: dict[str, tuple] = {}
    envs: dict[tuple, Env] = {}
    taken = set().union(*({n.id for n in ast.walk(p.tree) if isinstance(n, ast.Name)} for p in parts))
    fixed = {(id(d.scope), d.name): d.value for d in constants if d.by_value}
    stored = {n.id for n in ast.walk(parts[0].tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    simple = {n: v for n, v in (statics or {}).items() if literal(v) and n not in stored}
    if simple:  # the parameter stays (callers pass it); its reads are the value
        _Constants(simple).visit(parts[0].tree)
    names = [a.arg for a in parts[0].tree.args.args]
    if isinstance(key, tuple) and len(names) == len(key) and not parts[0].tree.args.vararg:
        folding.fold(parts[0].tree, dict(zip(names, key)), made.function.__globals__)
    for part in parts:
        for name, scope, stem in cached_calls.fold(part.tree, part.variant.function):  # its value at constants
            name.id = _env(envs, (id(scope.function), repr(scope.args), repr(scope.keywords)), f"{stem}_value", stem,
                           scope, (part.variant, _line_of(part.tree, name)), taken, ()).param
        for helper in scipy_calls.spell(part.tree, part.variant.function):
            imports[helper] = (scipy_calls.module_of(helper), helper)
        for helper in stats_calls.spell(part.tree, part.variant.function):
            imports[helper] = (stats_calls.module_of(helper), helper)
        _resolve(part, callees, template_globals, helpers, imports, envs, taken, refuse, fixed, primals)
    for part, call, param, value in left_out(parts, callees):  # (a default numba cannot spell: call_defaults.py)
        held = None if literal(value) else _env(envs, (id(value), param, "default"), f"{param}_default", param,
                                                {param: value}, (part.variant, _line_of(part.tree, call)), taken, ())
        passed(call, param, ast.Constant(value) if held is None else ast.Name(held.param, ast.Load()))
    env = list(envs.values())
    params = [e.param for e in env]
    functions, main = [], None
    for part in parts:
        pulls_back = any(isinstance(s, ast.FunctionDef) for s in part.tree.body)  # (a forward-mode callee: plain)
        made_here = _split(part, refuse, part.name in cycles) if part.name in callees and pulls_back \
            else [part.tree]
        for func in made_here:
            _calls(func, part, callees, params)
            func.args.args[:0] = [ast.arg(p) for p in params]
            for helper in spelling.for_numba(func):
                imports[helper] = (helpers[helper], helper)
            # numba's spellings read NumPy (``x.astype(float)`` as ``x.astype(np.float64)``) in code that may not
            if "np" not in imports and any(isinstance(n, ast.Name) and n.id == "np" for n in ast.walk(func)):
                imports["np"] = ("numpy", None)
        functions += made_here
        main = main or made_here[0]
    order = functions[1:] + functions[:1]  # callees first: numba compiles the main one last
    module = ast.Module([*order], type_ignores=[])
    source = ast.unparse(ast.fix_missing_locations(module))
    return NumbaModule(source, main.name, [f.name for f in order], env, _line_map(module, source), imports,
                       cached=not cycles and not any(value_calls.passes_compiled(e) for e in env), widen=bool(widths))


def _parse(source: str, variant) -> ast.FunctionDef:
    tree = ast.parse(source).body[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            node.origin = (variant, node.lineno)
    return tree


def _bound(tree: ast.AST) -> set[str]:
    """Names a function binds anywhere (parameters, assignments, loop targets, nested defs)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            found.add(node.id)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, ast.FunctionDef):
            found.add(node.name)
    return found


def _resolve(part: _Part, callees: set[str], template_globals: dict, helpers: dict, imports: dict,
             envs: dict, taken: set, refuse, fixed: dict, primals: dict) -> None:
    """Each free name of `part`: a template module or helper (imported), a callee (defined in
    the module), a builtin, or a user's value (an `Env` parameter, renamed in the code)."""
    function = part.variant.function
    cells = dict(zip(function.__code__.co_freevars, function.__closure__ or ()))
    bound = _bound(part.tree)
    renames, values, chained = {}, {}, {}
    for node in ast.walk(part.tree):
        if not isinstance(node, ast.Name) or node.id in bound or node.id in callees or node.id in renames \
                or node.id in values or node.id in chained:
            continue
        name, suffix = node.id, ""
        if name in cells:
            scope = cells[name]
            value = scope.cell_contents
        elif name in function.__globals__:
            scope, value = function.__globals__, function.__globals__[name]
        elif hasattr(builtins, name):
            continue
        else:
            continue  # a name nothing defines: numba reports it, at its line
        if isinstance(value, types.ModuleType) and sys.modules.get(value.__name__) is not value:
            refuse(part.variant, _line_of(part.tree, node), f"the generated code calls {name}.*, a library numba "
                   "cannot compile (numba compiles NumPy and math)")
        if name in template_globals and template_globals[name] is value or _helper(helpers, name, value):
            if isinstance(value, types.ModuleType) and "_target" in vars(value):  # SciPy, for an adjoint
                refuse(part.variant, _line_of(part.tree, node), f"the generated code calls {vars(value)['_target']}, "
                       "which numba cannot compile")
            if isinstance(value, types.ModuleType):
                imports[name] = (_module_name(value), None)
            elif name in helpers:
                imports[name] = (helpers[name], name)
            else:
                refuse(part.variant, _line_of(part.tree, node), f"the generated code uses srcdiff's run-time helper "
                       f"{name}(), which has no numba version (it is written where the arguments' shapes "
                       "were not all known)")
            continue
        if isinstance(value, types.ModuleType) and scope_reads.chains(part.tree, name, value) is None:
            imports[name] = (_module_name(value), None)  # (a module of data: its arrays read on each call, below)
            continue
        if id(value) in primals:  # a recursive helper's value, where no gradient flows through it
            recursion.call_value(part.tree, name, primals[id(value)])
            continue
        if try_probes.is_probe(value):  # a `try`'s path, decided by Python on each call (try_probes.py)
            try_probes.spell(part.tree, name)
            imports["probe_decision"] = (helpers["probe_decision"], "probe_decision")
            scope, value = {name: try_probes.register(value)}, None
        elif callable(value) and _importable(value) is None and value_calls.compiled(value, part.tree, name):
            # an argument (value_calls.py), named by its code: the module's text, and so its cache, changes with it
            suffix = f"_{value_calls.digest(value)}"
            scope, value = {name: value_calls.compiled(value, part.tree, name)}, None
        elif callable(value):
            where = _importable(value)
            if where is None:
                refuse(part.variant, _line_of(part.tree, node), f"{name} is a Python function the generated "
                       "code calls; numba compiles only the generated code, not the functions it calls")
            alias = name  # two callees may read one name bound to two functions (each object's `act`)
            while alias in imports and imports[alias] != where or alias != name and alias in taken:
                alias += "_"
            imports[alias] = where  # a NumPy or math function, an exception class: read when compiled
            if alias != name:
                taken.add(alias)
                renames[name] = alias
            continue
        key = (id(scope), name)
        if key in fixed and fixed[key] == value and type(fixed[key]) is type(value):
            values[name] = value
            continue
        reads = scope_reads.chains(part.tree, name, value)
        if reads is not None:  # a dict or an object read at constant keys: each chain a parameter
            chained[name] = reads, {path: _env(envs, (*key, path), scope_reads.spelled(name, path), name, scope,
                                               (part.variant, _line_of(part.tree, node)), taken, path).param
                                    for _, path in reads}
            continue
        if isinstance(value, dict):
            refuse(part.variant, _line_of(part.tree, node), f"the code reads the dict {name} other than at constant "
                   "keys (iterated, indexed by a variable or passed whole), and numba cannot take a Python dict")
        if key not in envs:
            param = f"{name}{suffix}_env"
            while param in taken:
                param += "_"
            taken.add(param)
            envs[key] = Env(param, name, scope, (part.variant, _line_of(part.tree, node)))
        renames[name] = envs[key].param
    for reads, params in chained.values():
        scope_reads.replace(part.tree, reads, params)
        imports.update({f: (helpers[f], f) for f in ("dict_item", "dict_has")} if scope_reads.indexed(reads) else {})
    for node in ast.walk(part.tree):
        if isinstance(node, ast.Name) and node.id in renames and node.id not in bound:
            node.id = renames[node.id]
    if values:
        _Constants(values).visit(part.tree)


def _env(envs: dict, key: tuple, stem: str, name: str, scope, line: tuple, taken: set, path: tuple) -> Env:
    """The `Env` of `key`, made once, its parameter named after `stem`."""
    if key not in envs:
        param = f"{stem}_env"
        while param in taken:
            param += "_"
        taken.add(param)
        envs[key] = Env(param, name, scope, line, path)
    return envs[key]


def _module_name(module: types.ModuleType) -> str:
    """The name `module` is imported by: a lazy stand-in (rules/lazy_modules.py, ``scipy_special``
    in generated code) names the module it stands for."""
    return module.__dict__.get("_target", module.__name__)


class _Constants(ast.NodeTransformer):
    def __init__(self, values: dict):
        self.values = values

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and node.id in self.values:
            return ast.Constant(self.values[node.id])
        return node


def _helper(helpers: dict, name: str, value) -> bool:
    """Whether `value` is the run-time helper `name` a numba version is written for, read from its
    own module (the batched code's helpers: rules/batching_helpers.py, numba/row_helpers.py)."""
    home = sys.modules.get(helpers.get(name, ""))
    return home is not None and getattr(home, name, None) is value


def _importable(value) -> tuple[str, str] | None:
    """(module, name) a NumPy, math or builtin function, or an exception class, is imported
    from; None for anything else (a Python function numba cannot call)."""
    module = getattr(value, "__module__", None) or ""
    name = getattr(value, "__name__", None)
    is_error = isinstance(value, type) and issubclass(value, BaseException)
    if not name or not (is_error or module.split(".")[0] in ("numpy", "math", "builtins")):
        return None
    found = sys.modules.get(module)
    return (module, name) if found is not None and getattr(found, name, None) is value else None


def _line_of(tree: ast.AST, target: ast.AST) -> int:
    """The source line of the statement holding `target`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.For, ast.While, ast.If)) \
                and any(n is target for n in ast.walk(node)):
            return node.origin[1]
    return tree.origin[1]


def _split(part: _Part, refuse, recursive: bool = False) -> list[ast.FunctionDef]:
    """A callee adjoint ``def f(...): ...; def f_pullback(g): ...; return value, f_pullback``
    as ``def f(...): ...; return value, saved`` and ``def f_pullback(saved, g): ...``; a
    `recursive` one saves its arguments and its pullback recomputes (recursion.py)."""
    func = part.tree
    inner = next((s for s in func.body if isinstance(s, ast.FunctionDef)), None)
    last = func.body[-1]
    if inner is None or not (isinstance(last, ast.Return) and isinstance(last.value, ast.Tuple)
                             and len(last.value.elts) == 2):
        raise SrcDiffError(f"internal: the callee adjoint {part.name} does not end with its pullback")
    forward = [s for s in func.body if s is not inner and s is not last]
    nonlocals = {n for s in inner.body if isinstance(s, ast.Nonlocal) for n in s.names}
    inner.body = [s for s in inner.body if not isinstance(s, ast.Nonlocal)]
    inner_locals = _bound(inner) - nonlocals - {inner.name}
    reads = {n.id for n in ast.walk(inner) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    outer = _bound(ast.Module(forward, [])) | {a.arg for a in func.args.args + func.args.kwonlyargs}
    saved = sorted(((reads | nonlocals) - inner_locals) & outer)
    pack = ast.Tuple([ast.Name(n, ast.Load()) for n in saved], ast.Load())
    ret = ast.Return(ast.Tuple([last.value.elts[0], pack], ast.Load()))
    ret.origin = last.origin
    fwd = ast.FunctionDef(func.name, func.args, [*forward, ret], [], None, None)
    saved_name = f"{part.name}{SAVED}"
    body = list(inner.body)
    if saved:
        unpack = ast.Assign([ast.Tuple([ast.Name(n, ast.Store()) for n in saved], ast.Store())],
                            ast.Name(saved_name, ast.Load()), lineno=0)
        unpack.origin = inner.origin
        body.insert(0, unpack)
    args = ast.arguments(posonlyargs=[], args=[ast.arg(saved_name), *inner.args.args], vararg=None,
                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    bwd = ast.FunctionDef(f"{part.name}{PULLBACK}", args, body, [], None, None)
    if recursive:
        params = {a.arg for a in func.args.args + func.args.kwonlyargs}
        write = recursion.parameter_write(forward, params)
        if write is not None:
            refuse(part.variant, write.origin[1], "a recursive function that writes into its argument: numba's "
                   "gradient recomputes each level from its arguments, which must be left unchanged")
        recursion.recompute(fwd, bwd, forward, saved_name)
    for made in (fwd, bwd):
        made.origin = func.origin
        if hasattr(ast.FunctionDef, "type_params"):
            made.type_params = []
    return [fwd, bwd]


def _calls(func: ast.FunctionDef, part: _Part, callees: set[str], params: list[str]) -> None:
    """Calls of callees get the leading parameters; a call of a pullback `p` that a callee
    `name` returned becomes ``name_pullback(p, ...)``."""
    returned = {}
    for node in ast.walk(part.tree):  # the whole original function: the pullback may be called in it
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Name) and node.value.func.id in callees \
                and isinstance(node.targets[0], ast.Tuple) and len(node.targets[0].elts) == 2:
            pullback = node.targets[0].elts[1]
            if isinstance(pullback, ast.Name):
                returned[pullback.id] = node.value.func.id
    lead = [ast.Name(p, ast.Load()) for p in params]
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            if name in callees:
                node.args[:0] = list(lead)
            elif name in returned:
                node.args[:0] = [*lead, ast.Name(name, ast.Load())]
                node.func = ast.Name(f"{returned[name]}{PULLBACK}", ast.Load())


def _line_map(module: ast.Module, source: str) -> dict[int, tuple]:
    """Module line -> (Variant, line) of each statement: the unparsed text parses back to the
    same tree, so the two walks meet statement by statement."""
    found = {}
    for old, new in zip(ast.walk(module), ast.walk(ast.parse(source))):
        origin = getattr(old, "origin", None)
        if isinstance(new, ast.stmt) and origin is not None:
            found.setdefault(new.lineno, origin)
    return found
