"""The public entry points: `grad`, `value_and_grad`, and the gradient functions they return.

A `GradFunction` transforms its function lazily (on the first call or `.source`), once per
argument signature (types; for arrays ndim, dtype kind and which axes have length one), and
caches the compiled result: later calls with the same kind of arguments go straight to it.
A function that passes a parameter as a static argument (``np.max(x, axis=axis)``) is
transformed once per value of that parameter (`Transform.statics`).
"""

from __future__ import annotations

import inspect
import weakref
from dataclasses import dataclass, field

import numpy as np

from . import callees
from .ad.reverse import reverse
from .backend import codegen, debug, guards
from .backend import loader as compiling
from .backend.optimize.optimizer import OptimizeInfo, optimize
from .errors import SrcDiffError
from .frontend import depends
from .frontend.naming import Namer, assigned_names, names_in
from .frontend.parse import ParsedFunction, parse_function, unwrap
from .ir import shapes
from .ir.nodes import typed
from .ir.shape_inference import infer_shapes
from .lower.lowerer import lower_specialised
from .rules import TABLE, TEMPLATE_GLOBALS


@dataclass
class CacheInfo:
    """How much work the cache saved: parsed+lowered functions and compiled variants."""

    transforms: int = 0
    variants: int = 0


STATS = CacheInfo()
_TRANSFORMS: "weakref.WeakKeyDictionary[object, dict]" = weakref.WeakKeyDictionary()


def cache_info() -> CacheInfo:
    """A copy of the counters of transforms and compiled variants made so far."""
    return CacheInfo(STATS.transforms, STATS.variants)


@dataclass
class Variant:
    """One compiled gradient, for one argument signature."""

    source: str
    function: object
    name: str = ""
    fast: object = None  # the same code behind a signature guard, made on first use


@dataclass
class Transform:
    """A function parsed and lowered once; compiled into one `Variant` per signature."""

    parsed: ParsedFunction
    wrt: tuple[str, ...]
    with_value: bool
    tuple_result: bool
    debug: bool = False  # finiteness checks after every assignment (srcdiff/debug.py)
    ir: object = None
    namer: Namer = None
    variants: dict = field(default_factory=dict)
    #: parameter name -> its value in the call being transformed (`_NO_VALUE` if unknown)
    value_of: object = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        #: the parameters used as static arguments, and the values this transform is for
        self.ir, self.namer, self.statics = lower_specialised(self.parsed, TABLE, self._static_value)
        self.value_of = None  # holds no reference to the call's arguments
        #: the globals/closure variables lowering read statically (srcdiff/depends.py)
        self.depends = self.parsed.dependencies()
        self._check_template_names()
        STATS.transforms += 1

    def variant(self, key) -> Variant:
        """The compiled gradient for argument signatures `key` (None: nothing known)."""
        found = self.variants.get(key)
        if found is None:
            found = self.variants[key] = self._compile(key)
        return found

    def _compile(self, key) -> Variant:
        params = [p.name for p in self.ir.params]
        param_shapes = {} if key is None else {p: shapes.of_signature(s) for p, s in zip(params, key)}
        shape_of = infer_shapes(self.ir, param_shapes)
        namer = self.namer.copy()
        program = reverse(self.ir, namer, self.wrt, shape_of, location=self.parsed.location,
                          with_value=self.with_value or self.debug)
        optimize(program)
        suffix = "value_and_grad" if self.with_value else "grad"
        name = namer.fresh(f"{self.parsed.name}_{suffix}")
        source = codegen.generate(program, self.parsed.tree, self._describe, name=name,
                                  with_value=self.with_value, tuple_result=self.tuple_result,
                                  info=OptimizeInfo.of(program, shape_of, self.wrt, statements=not self.debug))
        if self.debug:
            source = debug.instrument(source, program, debug.helper_name(self.namer))
        STATS.variants += 1
        callees.register(source, program)  # the callee adjoints it calls (srcdiff/callees.py)
        return Variant(source, self._build(source, name), name)

    def _static_value(self, name: str, node) -> object:
        """The value of parameter `name`, used as a static argument at `node`, for lowering."""
        if name in self.wrt:
            raise self.parsed.error(node, f"{name} is differentiated, but is used here as a static "
                                    "argument, whose value decides the code",
                                    f"differentiate with respect to other parameters than {name}")
        value = _NO_VALUE if self.value_of is None else self.value_of(name)
        if value is _NO_VALUE:
            raise self.parsed.error(node, f"the gradient depends on the value of {name} (a static "
                                    "argument here), and it has none yet",
                                    "call the gradient, or use .source_for(...) with example arguments")
        if not _static_ok(value):
            raise self.parsed.error(node, f"{name}={value!r} is used as a static argument here: srcdiff "
                                    "specialises the gradient on its value, which must be None, a "
                                    "number, a bool, a string, or a tuple of them",
                                    f"pass {name} as a Python int or tuple, e.g. {name}=1")
        return value

    def specialised_for(self, args: tuple, names: list[str]) -> bool:
        """Whether the static parameters' values in `args` are the ones this transform is for."""
        return all(typed(args[names.index(n)]) == typed(v) for n, v in self.statics.items())

    def fast(self, variant: Variant, slow) -> object:
        """`variant` compiled again behind a guard: other signatures go to `slow`."""
        if variant.fast is None:
            names = [p.name for p in self.ir.params]
            key = next(k for k, v in self.variants.items() if v is variant)
            args = self.parsed.tree.args
            ir_name = {a.arg: p for a, p in zip(args.posonlyargs + args.args + args.kwonlyargs, names)}
            statics = {ir_name[n]: v for n, v in self.statics.items()}
            prologue, cells = guards.prologue(names, key, self.depends, self._direct_names(), statics)
            variant.fast = self._build(variant.source, variant.name, {**cells, guards.SLOW: slow},
                                       prologue, self.parsed.func.__defaults__)
        return variant.fast

    def _build(self, source: str, name: str, extra_cells=None, prologue=(), defaults=None):
        cells = {**TEMPLATE_GLOBALS, **self.parsed.closure, **callees.cells_for(source), **(extra_cells or {})}
        if self.debug:
            cells.update(debug.helper_cells(self.parsed, self.ir, self.namer))
        label = f"{self.parsed.location(self.parsed.tree).short.rsplit(':', 1)[0]}:{name}"
        return compiling.build_function(source, label, self.parsed.func.__globals__, cells, prologue, defaults)

    def _direct_names(self) -> set[str]:
        """Dependencies the generated code can read by name: the user function's own free
        names (the namer never reuses them) that mean there what they mean to the user."""
        tree = self.parsed.tree
        free = names_in(tree) - assigned_names(tree) - self.ir_param_names()
        direct = set()
        for d in self.depends:
            own = self.parsed.closure.get(d.name, self.parsed.globals)
            if d.name in free and d.scope is own and d.name not in TEMPLATE_GLOBALS:
                direct.add(d.name)
        return direct

    def _describe(self, line: int) -> str:
        loc = self.parsed.location(line)
        return f"{loc.short}  {loc.code.strip()}"

    def _check_template_names(self):
        """Generated code sees `np`, `math`... as srcdiff's; refuse if the user's mean else."""
        tree = self.parsed.tree
        global_reads = names_in(tree) - assigned_names(tree) - self.ir_param_names()
        for name in sorted(global_reads & set(TEMPLATE_GLOBALS)):
            if self.parsed.resolve(name) is not TEMPLATE_GLOBALS[name]:
                raise self.parsed.error(
                    self.parsed.tree, f"the name {name!r} means something else here than in "
                    "srcdiff's generated code", f"rename your {name!r}")

    def ir_param_names(self) -> set[str]:
        return {p.name for p in self.ir.params}


_NO_VALUE = object()  # a static parameter's value when no call is known
#: per function and transform key: the parameters its transform is specialised on
_STATIC_NAMES: "weakref.WeakKeyDictionary[object, dict]" = weakref.WeakKeyDictionary()


def _transform(func, wrt, with_value: bool, tuple_result: bool, debug: bool = False, args=None) -> Transform:
    """The transform of `func` for a call with positional `args` (None: the defaults')."""
    parsed = parse_function(func)
    cache = _TRANSFORMS.setdefault(parsed.func, {})
    base = (parsed.func.__code__, wrt, with_value, tuple_result, TABLE.version, debug)
    value_of = _values(func, args)
    static_names = _STATIC_NAMES.setdefault(parsed.func, {})
    key = base + (_static_key(static_names.get(base, ()), value_of),)
    if key not in cache or not depends.hold(cache[key].depends):
        transform = Transform(parsed, wrt, with_value, tuple_result, debug, value_of=value_of)
        static_names[base] = tuple(transform.statics)  # found by lowering: the same for all values
        key = base + (_static_key(static_names[base], value_of),)
        cache[key] = transform
    return cache[key]


def _values(func, args):
    """``value_of(name)``: the argument bound to parameter `name` (or its default)."""
    parameters = inspect.signature(func).parameters
    names = list(parameters)

    def value_of(name):
        if args is not None:
            return args[names.index(name)]
        default = parameters[name].default
        return _NO_VALUE if default is inspect.Parameter.empty else default
    return value_of


def _static_key(names: tuple, value_of) -> tuple | None:
    """The static parameters' values as part of a cache key; None for values srcdiff refuses."""
    values = [value_of(n) for n in names]
    if not all(_static_ok(v) for v in values):
        return None
    return names, tuple(typed(v) for v in values)


def _static_ok(value) -> bool:
    """None, numbers (not NaN), bools, strings and tuples of them: compared and hashed by value."""
    return value is not _NO_VALUE and depends.static_ok(value)


class GradFunction:
    """The gradient of a function: call it like the function; `.source` shows its code.

    Calls go straight to the compiled variant of the last argument signature seen: its code
    starts with a guard on the arguments' types, and only a call whose signature differs
    takes the slow path that finds (or compiles) the right variant.
    """

    def __init__(self, func, wrt=0, *, with_value: bool = False, debug: bool = False):
        if isinstance(func, GradFunction):
            raise SrcDiffError("differentiating a srcdiff gradient (higher derivatives) is not "
                               "supported yet", hint="write the derivative you need as a function")
        self.func = func
        self._signature = _signature(func)
        self._names = list(self._signature.parameters)
        self.wrt = _normalize_wrt(wrt, self._signature, func)
        self.tuple_result = isinstance(wrt, (tuple, list))
        self.with_value = with_value
        self.debug = debug
        self._transform = None
        self._last = None
        self.__name__ = getattr(func, "__name__", "gradient")
        self.__qualname__ = getattr(func, "__qualname__", self.__name__)
        self.__doc__ = f"Gradient of {self.__qualname__} with respect to {', '.join(self.wrt)}."
        # A class of its own, so that `__call__` can be pointed at the current compiled variant.
        self.__class__ = type("GradFunction", (GradFunction,), {"__slots__": ()})
        _LIVE.add(self)

    @property
    def transform(self) -> Transform:
        """The transform of the last call (or, before any, of the parameters' defaults)."""
        if self._transform is None or _stale(self._transform, self.func):
            self._transform = _transform(self.func, self.wrt, self.with_value, self.tuple_result, self.debug)
        return self._transform

    def _transform_for(self, args: tuple) -> Transform:
        found = self._transform
        if found is None or _stale(found, self.func) or not found.specialised_for(args, self._names):
            found = self._transform = _transform(self.func, self.wrt, self.with_value, self.tuple_result,
                                                 self.debug, args)
        return found

    @property
    def source(self) -> str:
        """The generated gradient source: of the last call's signature, else shape-generic."""
        return (self._last or self.transform.variant(None)).source

    def source_for(self, *args, **kwargs) -> str:
        """The generated source for arguments like these (without running it)."""
        args = self._positional(args, kwargs)
        return self._variant(args).source

    def __call__(self, *args, **kwargs):
        return self._slow(*self._positional(args, kwargs))

    def _slow(self, *args):
        """Find or compile the variant for these arguments, make it the fast path, run it."""
        variant = self._variant(args)
        self._last = variant
        if self._fast_ok():
            type(self).__call__ = staticmethod(self._transform.fast(variant, self._slow))
        return variant.function(*args)

    def _fast_ok(self) -> bool:
        """Whether the compiled code can take calls directly (it binds arguments like Python)."""
        kinds = {p.kind for p in self._signature.parameters.values()}
        return kinds <= {inspect.Parameter.POSITIONAL_OR_KEYWORD}

    def _reset(self) -> None:
        """Forget compiled code (after the rule table changed)."""
        self._transform = self._last = None
        type(self).__call__ = GradFunction.__call__

    def _variant(self, args) -> Variant:
        key = tuple(map(shapes.signature, args))
        transform = self._transform_for(args)
        found = transform.variants.get(key)
        if found is None:
            self._check_differentiable(args)
            found = transform.variant(key)
        return found

    def _positional(self, args, kwargs) -> tuple:
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self.__qualname__}(): {exc}") from None
        bound.apply_defaults()
        return tuple(bound.arguments.values())

    def _check_differentiable(self, args) -> None:
        for name in self.wrt:
            value = args[self._names.index(name)]
            problem = _not_differentiable(value)
            if problem:
                raise SrcDiffError(
                    f"cannot differentiate {self.__qualname__} with respect to {name!r}: {problem}",
                    hint="pass a float or a float array, e.g. 3.0 or x.astype(float)",
                )

    def __repr__(self) -> str:
        return f"<srcdiff gradient of {self.__qualname__} wrt {', '.join(self.wrt)}>"


_LIVE: "weakref.WeakSet[GradFunction]" = weakref.WeakSet()


def _rules_changed() -> None:
    for gradient in list(_LIVE):
        gradient._reset()


def clear_cache() -> None:
    """Forget every transform and compiled gradient: the next call of each gradient
    parses, transforms and compiles again (the `cache_info` counters keep counting)."""
    _TRANSFORMS.clear()
    _rules_changed()


TABLE.listeners.append(_rules_changed)


def _stale(transform: Transform, func) -> bool:
    return transform.parsed.func.__code__ is not unwrap(func).__code__ \
        or transform not in _TRANSFORMS.get(transform.parsed.func, {}).values() \
        or not depends.hold(transform.depends)


def _not_differentiable(value) -> str:
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer))):
        return f"it is an integer ({value!r}); its gradient would be silently truncated"
    if isinstance(value, np.ndarray):
        if value.dtype.kind != "f":
            return f"it is an array of dtype {value.dtype}, not a floating-point array"
        return ""
    if isinstance(value, (float, np.floating)):
        return ""
    return f"it is a {type(value).__name__}, not a float or a NumPy array"


def _signature(func) -> inspect.Signature:
    if not callable(func):
        raise SrcDiffError(f"srcdiff.grad needs a function, got {type(func).__name__}")
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise SrcDiffError(f"cannot read the parameters of {func!r}: {exc}") from None
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise SrcDiffError(f"{func.__qualname__} takes *{p.name}: srcdiff needs named parameters",
                               hint="list every parameter by name")
    return sig


def _normalize_wrt(wrt, sig: inspect.Signature, func) -> tuple[str, ...]:
    names = list(sig.parameters)
    items = wrt if isinstance(wrt, (tuple, list)) else (wrt,)
    if not items:
        raise SrcDiffError("wrt is empty: name at least one parameter to differentiate")
    out = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise SrcDiffError(f"wrt entries are parameter indices or names, got {item!r}")
        if isinstance(item, int):
            if not -len(names) <= item < len(names):
                raise SrcDiffError(f"wrt={item} is out of range: {func.__qualname__} has "
                                   f"{len(names)} parameter(s) {names}")
            item = names[item]
        elif item not in names:
            raise SrcDiffError(f"wrt={item!r} is not a parameter of {func.__qualname__}; "
                               f"its parameters are {names}")
        if item in out:
            raise SrcDiffError(f"wrt names {item!r} twice")
        out.append(item)
    return tuple(out)


def grad(func=None, wrt=0, *, debug: bool = False):
    """The gradient of `func` with respect to parameter(s) `wrt`.

    Use as ``@srcdiff.grad``, ``@srcdiff.grad(wrt="w")`` or ``srcdiff.grad(f, wrt=(0, "y"))``.
    `wrt` is an index, a parameter name, or a tuple of them (then a tuple is returned).
    The result is called like `func` and returns the gradient, shaped like the parameter.
    """
    if func is None:
        return lambda f: GradFunction(f, wrt, debug=debug)
    return GradFunction(func, wrt, debug=debug)


def value_and_grad(func=None, wrt=0, *, debug: bool = False):
    """Like `grad`, but the result returns ``(value, gradient)`` from one pass."""
    if func is None:
        return lambda f: GradFunction(f, wrt, with_value=True, debug=debug)
    return GradFunction(func, wrt, with_value=True, debug=debug)
