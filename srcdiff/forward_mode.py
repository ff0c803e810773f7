"""Forward mode: `jvp(f, primals, tangents)` by source transformation.

    value, tangent = srcdiff.jvp(f, (x, y), (dx, dy))   # f(x, y) and its derivative along (dx, dy)
    print(srcdiff.jvp_function(f).source)               # the generated ``f_jvp``

The function goes through the same parse and lowering as for a gradient (`pipeline.lowered`);
its IR then becomes one forward sweep computing each value and its tangent (ad/tangent.py),
compiled once per argument signature and cached with the lowered function.  Floats and
float arrays get tangents; any other argument (an int, a string) is passed as it is.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import weakref
from dataclasses import dataclass, field

import numpy as np

from . import pipeline
from .ad.tangent import TangentProgram, tangent
from .backend import loader, origins, render
from .backend.codegen import backward_statements
from .backend.optimize import liveness, memory, statements
from .backend.optimize.dead_writes import writes_in_place
from .backend.optimize.optimizer import OptimizeInfo, optimize_function
from .callee_shapes import CalleeShapes
from .errors import SrcDiffError
from .frontend import depends
from .ir import shapes
from .ir.nodes import all_nodes
from .ir.shape_inference import infer_shapes
from .lower.writes import check_in_place
from .pipeline import CACHE, Lowered, Options
from .rules import TABLE, TEMPLATE_GLOBALS

_OPTIONS = Options()
_JVP = "jvp"  # marks a forward-mode variant among a lowered function's variants


@dataclass
class JvpVariant:
    """One compiled jvp, for one argument signature."""

    source: str
    function: object
    name: str
    program: TangentProgram = field(repr=False)
    wrt: tuple[str, ...] = ()
    positions: tuple[int, ...] = ()  # where the parameters with tangents are among the arguments


class JvpFunction:
    """The forward-mode derivative of a function: ``jvp_f(primals, tangents)`` returns
    ``(value, tangent)``; `.source` shows the generated code of the last call (or of
    `source_for`'s arguments)."""

    def __init__(self, func, wrt: tuple[str, ...] | None = None, with_value: bool = True):
        self.wrt = wrt  # the parameters with tangents; None: every float argument
        self.with_value = with_value  # False: the value is not computed for itself (it comes back None)
        if not callable(func):
            raise SrcDiffError(f"srcdiff.jvp needs a function, got {type(func).__name__}")
        self.func = func
        try:
            self._signature = inspect.signature(func)
        except (TypeError, ValueError) as exc:
            raise SrcDiffError(f"cannot read the parameters of {func!r}: {exc}") from None
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in self._signature.parameters.values()):
            raise SrcDiffError(f"{func.__qualname__} takes *args or **kwargs: srcdiff needs named parameters",
                               hint="list every parameter by name")
        self._names = list(self._signature.parameters)
        self._last: JvpVariant | None = None
        self._fast: dict = {}  # argument signature -> (lowered, variant) of the last call like it
        _LIVE.add(self)
        self.__name__ = getattr(func, "__name__", "jvp")
        self.__qualname__ = getattr(func, "__qualname__", self.__name__)

    def __call__(self, primals, tangents):
        if type(primals) is tuple and type(tangents) is tuple and len(primals) == len(tangents) == len(self._names):
            found = self._fast.get(self._key(primals, tangents))  # compiled for arguments like these
            if found is not None and found[0].parsed.func.__code__ is found[2] \
                    and (not found[0].depends or depends.hold(found[0].depends)) \
                    and (not found[0].statics or found[0].specialised_for(primals, self._names)):
                made = self._last = found[1]
                return made.function(*primals, *[_tangent_for(primals[i], tangents[i], self._names[i])
                                                  for i in made.positions])
        primals, tangents = self._arguments(primals, tangents)
        made = self._last = self._variant(primals, tangents)
        return made.function(*primals, *[_tangent_for(primals[i], tangents[i], self._names[i])
                                         for i in made.positions])

    def _key(self, primals: tuple, tangents: tuple) -> tuple:
        """The arguments' signatures, and (unless `wrt` is fixed) which tangents are None."""
        key = tuple(map(shapes.signature, primals))
        return key if self.wrt else key + tuple(t is None for t in tangents)

    @property
    def source(self) -> str:
        """The generated source of the last call's argument signature."""
        if self._last is None:
            raise SrcDiffError(f"the jvp of {self.__qualname__} is compiled for its arguments' types "
                               "and has not been called yet", hint="call it, or use .source_for(*primals)")
        return self._last.source

    def source_for(self, *primals) -> str:
        """The generated source for primal arguments like these (without running it)."""
        return self._variant(self._bound(primals)).source

    def _bound(self, primals) -> tuple:
        try:
            bound = self._signature.bind(*primals)
        except TypeError as exc:
            raise TypeError(f"{self.__qualname__}(): {exc}") from None
        bound.apply_defaults()
        return tuple(bound.arguments.values())

    def _arguments(self, primals, tangents) -> tuple[tuple, tuple]:
        if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
            raise SrcDiffError("jvp takes primals and tangents as tuples, one entry per positional parameter",
                               hint="write srcdiff.jvp(f, (x,), (v,)) for a function of one argument")
        if len(primals) != len(tangents):
            raise SrcDiffError(f"jvp got {len(primals)} primal(s) but {len(tangents)} tangent(s)",
                               hint="give one tangent per primal (None for an integer argument)")
        full = self._bound(tuple(primals))
        tangents = tuple(tangents) + (None,) * (len(full) - len(tangents))  # defaults: held constant
        for name, primal, dot in zip(self._names, full, tangents):
            if dot is not None and not _has_tangent(primal):
                raise SrcDiffError(f"jvp: {name} has a tangent, but {_not_differentiable(primal)}",
                                   hint=f"pass None as {name}'s tangent, or make {name} a float or a "
                                        "NumPy float array")
        return full, tangents

    def _variant(self, primals: tuple, tangents: tuple | None = None) -> JvpVariant:
        tangents = tangents or (0.0,) * len(primals)
        wrt = self.wrt or tuple(n for n, v, t in zip(self._names, primals, tangents)
                                if _has_tangent(v) and t is not None)
        found = pipeline.lowered(self.func, wrt, _OPTIONS, primals)
        key = (_JVP, self.with_value) + tuple(map(shapes.signature, primals))
        made = found.variants.get(key)
        if made is None:
            param_shapes = {p: shapes.of_signature(shapes.signature(v)) for p, v in zip(found.params, primals)}
            made = found.variants[key] = compile_jvp(found, param_shapes, self.with_value)
            made.positions = tuple(found.params.index(n) for n in made.wrt)
        self._fast[self._key(primals, tangents)] = (found, made, found.parsed.func.__code__)
        return made

    def __repr__(self) -> str:
        return f"<srcdiff jvp of {self.__qualname__}>"


def compile_jvp(found: Lowered, param_shapes: dict, with_value: bool = True) -> JvpVariant:
    """Every stage after lowering, for forward mode, for parameters of the shapes `param_shapes`."""
    parsed = found.parsed
    namer = found.namer.copy()
    ir = pipeline.inlined(found, namer)
    shape_of = infer_shapes(ir, param_shapes, CalleeShapes(CACHE.callee_irs, TABLE))
    check_in_place(ir, shape_of, parsed.location, callee=False)
    program = tangent(ir, namer, found.wrt, shape_of, location=parsed.location)
    name = namer.fresh(f"{parsed.name}_jvp")
    func = build(program, parsed.tree, pipeline.describe(parsed), name, with_value)
    # expression folding only (``x ** (2 - 1)`` -> ``x``): the statement passes are the
    # backward sweep's, and every statement here is one the reader can match to a line
    tangent_params = {primal: dot for primal, dot in program.tangents.items()}
    info = OptimizeInfo(shape_of, {dot: primal for primal, dot in tangent_params.items()},
                        frozenset(found.params) | frozenset(program.params), frozenset(found.wrt), statements=False)
    _copy_if_shared(func, set(program.params), info.is_scalar)
    optimize_function(func, info)
    while not with_value and statements.remove_unread(func):  # what only the value needed
        pass
    if not with_value:  # code for hvp, not for reading: single-use values fused into their use
        optimize_function(func, dataclasses.replace(info, statements=True))
    writes_in_place(func.body)  # the functional index writes of lowering, where nothing sees them
    memory.release(func.body, lambda n: n not in info.params and not info.is_scalar(n))  # freed as in a gradient
    source = render.render(func)
    label = f"{parsed.location(parsed.tree).short.rsplit(':', 1)[0]}:{name}"
    cells = {**TEMPLATE_GLOBALS, **parsed.closure, origins.ON_ERROR: CACHE.origins.raise_located}
    function = loader.build_function(source, label, parsed.func.__globals__, cells, on_error=origins.ON_ERROR)
    # an error in the generated code names the user's line whose value (or tangent) it computes
    computes = {n.out.name: n.line for n in all_nodes(ir)}
    computes.update({program.tangents[v]: line for v, line in list(computes.items()) if v in program.tangents})
    user_line = origins.user_lines(source, {}, computes, parsed.tree.lineno)
    CACHE.origins.add(function, origins.Origin(parsed.location, name, user_line))
    return JvpVariant(source, function, name, program, found.wrt)


def build(program: TangentProgram, tree: ast.FunctionDef, describe_line, name: str,
          with_value: bool = True) -> ast.FunctionDef:
    """``name(*params, *tangents) -> (value, tangent)`` (``(None, tangent)`` without the
    value), each block under its user line."""
    body = backward_statements(program.body, describe_line, label="")
    value = program.value if with_value else ast.Constant(None)
    body.append(ast.Return(ast.Tuple([value, program.tangent], ast.Load())))
    args = tree.args
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs] + program.params
    arguments = ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], vararg=None, kwonlyargs=[],
                              kw_defaults=[], kwarg=None, defaults=[])
    func = ast.FunctionDef(name=name, args=arguments, body=body, decorator_list=[], returns=None, type_comment=None)
    if hasattr(ast.FunctionDef, "type_params"):
        func.type_params = []
    return ast.fix_missing_locations(func)


def _has_tangent(value) -> bool:
    """Floats and float arrays carry tangents; ints, bools and anything else do not."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    return isinstance(value, (float, np.floating))


def _copy_if_shared(func: ast.FunctionDef, params: set[str], is_scalar) -> None:
    """The returned tangent never is the caller's array (``return x_dot`` of ``f(x) = x + 0``)."""
    returned = func.body[-1].value.elts
    tangent = returned[1]
    if isinstance(tangent, ast.Name) and not is_scalar(tangent.id) and tangent.id in _may_hold(func.body, params):
        returned[1] = ast.Call(ast.Name("copy_array", ast.Load()), [tangent], [])


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


def _not_differentiable(value) -> str:
    """Why `value` takes no tangent (an integer would be truncated; other libraries' arrays
    and trees are not what jvp's generated code takes)."""
    if isinstance(value, (bool, int, np.integer, np.bool_)) or (
            isinstance(value, np.ndarray) and value.dtype.kind in "biu"):
        return f"it holds integers ({type(value).__name__}): their derivative would be silently truncated"
    if isinstance(value, (complex, np.complexfloating)) or (isinstance(value, np.ndarray) and value.dtype.kind == "c"):
        return "it is complex: srcdiff differentiates real functions"
    if isinstance(value, (dict, list, tuple)) or hasattr(value, "__dict__") and not hasattr(value, "shape"):
        return f"it is a {type(value).__name__}: jvp takes floats and NumPy arrays, not trees or objects"
    return (f"it is a {type(value).__module__}.{type(value).__name__}: jvp takes floats and NumPy arrays "
            "(srcdiff.grad takes Dask and array-API arrays)")


def _tangent_for(primal, dot, name: str):
    """The tangent `dot` checked against its primal: same shape, floats."""
    if type(dot) is float and type(primal) is float:
        return dot
    if type(dot) is np.ndarray and type(primal) is np.ndarray and dot.dtype.kind == "f" and dot.shape == primal.shape:
        return dot
    if dot is None:
        raise SrcDiffError(f"the tangent of {name!r} is None, but {name} is a float",
                           hint="pass zeros for a direction that does not move it")
    if isinstance(primal, np.ndarray):
        found = np.asarray(dot, dtype=float)
        if found.shape != primal.shape:
            raise SrcDiffError(f"the tangent of {name!r} has shape {found.shape}, but {name} has shape "
                               f"{primal.shape}", hint="give each tangent its primal's shape")
        return found
    if np.ndim(dot) != 0:
        raise SrcDiffError(f"the tangent of {name!r} has shape {np.shape(dot)}, but {name} is a number",
                           hint="give each tangent its primal's shape")
    return float(dot)


_FUNCTIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LIVE: weakref.WeakSet = weakref.WeakSet()


def _forget_compiled() -> None:
    for made in list(_LIVE):
        made._fast.clear()
        made._last = None


CACHE.listeners.append(_forget_compiled)


def jvp_function(func) -> JvpFunction:
    """The forward-mode derivative of `func`: call it as ``(primals, tangents)``; `.source`."""
    try:
        found = _FUNCTIONS.get(func)
    except TypeError:  # not weakly referable: not cached
        return JvpFunction(func)
    if found is None:
        found = JvpFunction(func)
        try:
            _FUNCTIONS[func] = found
        except TypeError:
            pass
    return found


def jvp(func, primals, tangents):
    """``(func(*primals), J @ tangents)``: the value and the directional derivative of `func` at
    `primals` along `tangents`, by forward mode (a generated forward sweep; see `jvp_function`).

    `primals` and `tangents` are tuples with one entry per positional parameter; floats and
    float arrays get tangents of their own shape, any other argument a None."""
    return jvp_function(func)(primals, tangents)


__all__ = ["JvpFunction", "JvpVariant", "build", "compile_jvp", "jvp", "jvp_function"]
