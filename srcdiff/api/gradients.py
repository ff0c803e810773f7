"""The public entry points: `grad`, `value_and_grad`, and the gradient functions they return.

A `GradFunction` transforms its function lazily (on the first call or `.source`), once per
argument signature (types; for arrays ndim, dtype kind and which axes have length one), and
caches the compiled result: later calls with the same kind of arguments go straight to it.
A function that passes a parameter as a static argument (``np.max(x, axis=axis)``) is
lowered once per value of that parameter.  The stages themselves run in the driver (driver/).
"""

from __future__ import annotations

import dataclasses
import inspect
import weakref

import numpy as np

from .. import driver
from ..backend import jit
from ..driver import CACHE, CacheInfo, Lowered, Options, Variant, higher
from ..errors import SrcDiffError
from ..frontend import callables, trees
from ..frontend.parse import parse_function
from ..frontend.rewrites import needs_rewrite
from ..frontend.trees import is_tree
from ..ir import shapes
from ..rules import TEMPLATE_GLOBALS
from .derivatives import Composite, Derivative
from .trees import TreeCaller


def cache_info() -> CacheInfo:
    """A copy of the counters of transforms and compiled variants made so far."""
    return CacheInfo(CACHE.stats.transforms, CACHE.stats.variants)


class GradFunction:
    """The gradient of a function: call it like the function; `.source` shows its code.

    Calls go straight to the compiled variant of the last argument signature seen: its code
    starts with a guard on the arguments' types, and only a call whose signature differs
    takes the slow path that finds (or compiles) the right variant.
    """

    def __init__(self, func, wrt=0, *, with_value: bool = False, debug: bool = False, has_aux: bool = False,
                 jit: str | None = None):
        self.func = func
        target = callables.resolve(func)
        self._signature = _signature(func)
        self._names = list(self._signature.parameters)
        targets = _normalize_wrt(wrt, self._signature, func, target.hidden)
        self.wrt = tuple(dict.fromkeys(root for root, _ in targets))
        self.tuple_result = isinstance(wrt, (tuple, list))
        if jit not in (None, "numba"):
            raise SrcDiffError(f"jit={jit!r} is not supported", hint='use jit="numba" or leave jit out')
        if jit and debug:
            raise SrcDiffError("jit='numba' and debug=True cannot be combined",
                               hint="debug the gradient without jit first")
        self.options = Options(with_value=with_value, tuple_result=self.tuple_result, debug=debug, jit=jit)
        self._trees = TreeCaller(target, targets, self._inner, with_value or has_aux, has_aux, debug, func)
        self._trees.tuple_result = self.tuple_result
        self._always_trees = (not target.plain or has_aux or any(path for _, path in targets)
                              or target.func is not func or needs_rewrite(target.func))
        self._tree_roots = [i for i, n in enumerate(self._names) if n in self.wrt]
        self._lowered = None
        self._last = None
        self._derivables: dict = {}  # signature -> (Lowered, Variant) of the derivable form (driver/higher.py)
        self.__name__ = getattr(func, "__name__", "gradient")
        self.__qualname__ = getattr(func, "__qualname__", self.__name__)
        self.__doc__ = f"Gradient of {self.__qualname__} with respect to {', '.join(self.wrt)}."
        # A class of its own, so that `__call__` can be pointed at the current compiled variant.
        self.__class__ = type("GradFunction", (GradFunction,), {"__slots__": ()})
        _LIVE.add(self)

    def _inner(self, flat_func, wrt: tuple) -> "GradFunction":
        inner = GradFunction(flat_func, wrt, with_value=self.options.with_value or self._trees.has_aux,
                             debug=self.options.debug, jit=self.options.jit)  # jit too: never dropped silently
        inner._flat = True  # already rewritten: its arguments are leaves
        return inner

    _flat = False

    def _uses_trees(self, args) -> bool:
        if self._flat:
            return False
        return self._always_trees or any(is_tree(a, sequences=i in self._tree_roots) for i, a in enumerate(args))

    @property
    def with_value(self) -> bool:
        return self.options.with_value

    @property
    def debug(self) -> bool:
        return self.options.debug

    @property
    def lowered(self) -> Lowered:
        """The lowered function of the last call (or, before any, of the parameters' defaults)."""
        if self._lowered is None or not driver.is_current(self._lowered, self.func):
            self._lowered = driver.lowered(self.func, self.wrt, self.options)
        return self._lowered

    def _lowered_for(self, args: tuple) -> Lowered:
        found = self._lowered
        if found is None or not driver.is_current(found, self.func) or not found.specialised_for(args, self._names):
            found = self._lowered = driver.lowered(self.func, self.wrt, self.options, args)
        return found

    @property
    def source(self) -> str:
        """The generated gradient source: of the last call's signature, else shape-generic;
        followed by the adjoints of the user functions it calls (one listing)."""
        if self._trees.last is not None:
            return self._trees.last.source
        return driver.full_source(self._last or driver.variant(self.lowered, None))

    @property
    def callee_sources(self) -> dict[str, str]:
        """The generated adjoints of the user functions the gradient calls, by their names in `source`."""
        return driver.callee_sources(self._last or driver.variant(self.lowered, None))

    def source_for(self, *args, **kwargs) -> str:
        """The generated source for arguments like these (without running it), callees included."""
        positional = self._positional(args, kwargs)
        if self._uses_trees(positional):
            return self._trees.source_for(dict(zip(self._names, positional)))
        return driver.full_source(self._variant(positional))

    def tree_parts(self, *args, **kwargs) -> tuple | None:
        """For a call with parameter trees (or of a method or partial): the parameters' names,
        then what `TreeCaller.parts` gives; None for a call of plain values."""
        positional = self._positional(args, kwargs)
        if not self._uses_trees(positional):
            return None
        return (self._trees.names, *self._trees.parts(dict(zip(self._names, positional))))

    def variant_for(self, *args, **kwargs) -> Variant:
        """The compiled variant for arguments like these (its code, program and callees)."""
        return self._variant(self._positional(args, kwargs))

    def __call__(self, *args, **kwargs):
        positional = self._positional(args, kwargs)
        if self._uses_trees(positional):
            return self._trees(dict(zip(self._names, positional)), args, kwargs)
        return self._slow(*positional)

    def _slow(self, *args):
        """Find or compile the variant for these arguments, make it the fast path, run it."""
        if self._uses_trees(args):
            return self._trees(dict(zip(self._names, args)), args, {})
        variant = self._variant(args)
        self._last = variant
        if self.options.jit:
            return self._jitted(variant, args)
        if self._fast_ok():
            type(self).__call__ = staticmethod(driver.fast_function(self._lowered, variant, self._slow))
        return variant.function(*args)

    def _jitted(self, variant: Variant, args: tuple):
        """Run the numba-compiled `variant`; later calls of the same signature go straight to it."""
        if variant.jitted is None:
            variant.jitted = jit.numba_function(variant, self._lowered, TEMPLATE_GLOBALS, CACHE.origins)
        result = variant.jitted(*args)
        if self._fast_ok() and not self._lowered.statics and not self._lowered.constants:
            key = tuple(map(shapes.signature, args))
            fast = jit.fast_call(variant.jitted, key, self._lowered.depends, self._slow, self._positional)
            type(self).__call__ = staticmethod(fast)
        return result

    def _fast_ok(self) -> bool:
        """Whether the compiled code can take calls directly (it binds arguments like Python)."""
        kinds = {p.kind for p in self._signature.parameters.values()}
        return kinds <= {inspect.Parameter.POSITIONAL_OR_KEYWORD}

    def _reset(self) -> None:
        """Forget compiled code (after the rule table changed)."""
        self._lowered = self._last = None
        self._derivables.clear()
        type(self).__call__ = GradFunction.__call__

    def _variant(self, args) -> Variant:
        key = tuple(map(shapes.signature, args))
        lowered = self._lowered_for(args)
        found = lowered.variants.get(key)
        if found is None:
            self._check_differentiable(args)
            found = driver.variant(lowered, key, args)
        return found

    def generated_for(self, args: tuple):
        """The code a call with positional `args` runs, as a function srcdiff can differentiate
        again (driver/higher.py): it returns this gradient for arguments of this signature."""
        if self.options.with_value or self._trees.has_aux or self.options.jit or self.options.debug:
            raise SrcDiffError(f"{self.__qualname__}: only a plain gradient (not value_and_grad, has_aux, "
                               "jit or debug) can be differentiated again", hint="differentiate srcdiff.grad(f)")
        if len(self.wrt) > 1 or self.tuple_result:
            raise SrcDiffError(f"{self.__qualname__} returns a tuple of gradients: differentiate one "
                               "gradient at a time", hint="use srcdiff.grad(f, wrt=...) with one parameter")
        if not self._uses_trees(args):
            found, made = self._derivable(args)
            return higher.generated_function(made, location=found.parsed.location)
        values = callables.full_arguments(self._trees.target, self._trees.names, dict(zip(self._names, args)))
        structs = self._trees.structures(values)
        if any(s is not None for s in structs) or self._trees.target.hidden:
            raise SrcDiffError(f"{self.__qualname__}: higher derivatives take float and array arguments, "
                               "not trees, methods or partials", hint="pass the arrays as parameters")
        _, flat, _ = self._trees.prepared(structs)
        found, made = flat._derivable(tuple(values))
        return higher.generated_function(made, pick=0, location=found.parsed.location)

    def _derivable(self, args: tuple) -> tuple[Lowered, Variant]:
        """The variant for `args` in the form srcdiff differentiates again (`Options.derivable`)."""
        key = tuple(map(shapes.signature, args))
        hit = self._derivables.get(key)
        if hit is None or not driver.is_current(hit[0], self.func) or not hit[0].specialised_for(args, self._names):
            self._check_differentiable(args)
            found = driver.lowered(self.func, self.wrt, dataclasses.replace(self.options, derivable=True), args)
            hit = self._derivables[key] = (found, driver.variant(found, key))
        return hit

    @property
    def names(self) -> list[str]:
        """The function's parameter names, in order."""
        return list(self._names)

    @property
    def wrt_names(self) -> tuple[str, ...]:
        return self.wrt

    def positional(self, args: tuple, kwargs: dict) -> tuple:
        """`args` and `kwargs` bound to the function's parameters, defaults applied, in order."""
        return self._positional(args, kwargs)

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

    def _repr_html_(self) -> str:
        """In a notebook: the generated source, keywords, numbers, strings and comments coloured.

        (Written here, not in tools/: the package layers keep api below the tools.)"""
        import html
        import io
        import keyword
        import tokenize

        colours = {tokenize.NUMBER: "#b35c00", tokenize.STRING: "#2e7d32", tokenize.COMMENT: "#7a7a7a"}
        starts, out, end = [0, 0], [], 0
        for line in self.source.splitlines(keepends=True):
            starts.append(starts[-1] + len(line))
        for tok in tokenize.generate_tokens(io.StringIO(self.source).readline):
            start = starts[min(tok.start[0], len(starts) - 1)] + tok.start[1]
            out.append(html.escape(self.source[end:start]))
            colour = "#8b2fc9" if tok.type == tokenize.NAME and keyword.iskeyword(tok.string) else colours.get(tok.type)
            text = html.escape(tok.string)
            out.append(f'<span style="color:{colour}">{text}</span>' if colour else text)
            end = starts[min(tok.end[0], len(starts) - 1)] + tok.end[1]
        return (f'<div class="srcdiff-grad"><div style="color:#555">{html.escape(repr(self))}</div><pre '
                f'style="background:#fafafa;padding:8px;border-radius:6px">{"".join(out)}</pre></div>')

    def __repr__(self) -> str:
        return f"<srcdiff gradient of {self.__qualname__} wrt {', '.join(self.wrt)}>"


_LIVE: "weakref.WeakSet[GradFunction]" = weakref.WeakSet()


def _forget_compiled() -> None:
    for gradient in list(_LIVE):
        gradient._reset()


CACHE.listeners.append(_forget_compiled)


def clear_cache() -> None:
    """Forget every transform and compiled gradient, callee adjoints included: the next call
    of each gradient parses, transforms and compiles again (the `cache_info` counters keep
    counting)."""
    CACHE.clear()


def _not_differentiable(value) -> str:
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer))):
        return f"it is an integer ({value!r}); its gradient would be silently truncated"
    if isinstance(value, np.ndarray):
        if value.dtype.kind != "f":
            return f"it is an array of dtype {value.dtype}, not a floating-point array"
        return ""
    if isinstance(value, (float, np.floating)):
        return ""
    if shapes.is_foreign_array(value):  # Dask, array-API: the same code in its namespace
        kind = shapes.dtype_kind(value.dtype)
        return "" if kind == "f" else f"it is an array of dtype {value.dtype}, not a floating-point array"
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
            stars = "*" if p.kind == p.VAR_POSITIONAL else "**"
            message = f"{func.__qualname__} takes {stars}{p.name}: srcdiff needs named parameters"
            try:
                parsed = parse_function(callables.resolve(func).func)
            except SrcDiffError:
                raise SrcDiffError(message, hint="list every parameter by name") from None
            raise parsed.error(parsed.tree, message, "list every parameter by name (a function that takes "
                               f"{stars}{p.name} can be called by one that names them)")
    return sig


def _normalize_wrt(wrt, sig: inspect.Signature, func, hidden: tuple = ()) -> tuple[tuple[str, tuple], ...]:
    """(parameter, path inside it) for each `wrt` entry: an index, a name, or a path into a
    tree (``"self.w"``, ``"params['W1']"``)."""
    names = list(sig.parameters)
    qualname = getattr(func, "__qualname__", type(func).__name__)
    items = wrt if isinstance(wrt, (tuple, list)) else (wrt,)
    if not items:
        raise SrcDiffError("wrt is empty: name at least one parameter to differentiate")
    out = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise SrcDiffError(f"wrt entries are parameter indices or names, got {item!r}")
        path = ()
        if isinstance(item, int):
            if not -len(names) <= item < len(names):
                raise SrcDiffError(f"wrt={item} is out of range: {qualname} has "
                                   f"{len(names)} parameter(s) {names}")
            item = names[item]
        else:
            try:
                root, path = trees.parse_path(item)
            except ValueError:
                root = item
            if root not in names and root not in hidden:
                raise SrcDiffError(f"wrt={item!r} is not a parameter of {qualname}; "
                                   f"its parameters are {list(hidden) + names}")
            item = root
        if (item, path) in out:
            raise SrcDiffError(f"wrt names {item!r} twice")
        out.append((item, path))
    return tuple(out)


def grad(func=None, wrt=0, *, debug: bool = False, jit: str | None = None):
    """The gradient of `func` with respect to parameter(s) `wrt`.

    Use as ``@srcdiff.grad``, ``@srcdiff.grad(wrt="w")`` or ``srcdiff.grad(f, wrt=(0, "y"))``.
    `wrt` is an index, a parameter name, or a tuple of them (then a tuple is returned).
    The result is called like `func` and returns the gradient, shaped like the parameter.
    With ``jit="numba"`` the generated gradient is compiled by numba (``srcdiff[numba]``).
    """
    if func is None:
        return lambda f: grad(f, wrt, debug=debug, jit=jit)
    if isinstance(func, Composite):
        raise SrcDiffError(f"srcdiff cannot differentiate {func.__qualname__} again: it runs generated "
                           "code once per output element", hint="differentiate the function itself "
                           "(srcdiff.hessian(f), srcdiff.jacobian(srcdiff.grad(f)))")
    if isinstance(func, (GradFunction, Derivative)):
        return Derivative(func, wrt, lambda f, w: GradFunction(f, w, debug=debug, jit=jit))
    return GradFunction(func, wrt, debug=debug, jit=jit)


def value_and_grad(func=None, wrt=0, *, debug: bool = False, has_aux: bool = False, jit: str | None = None):
    """Like `grad`, but the result returns ``(value, gradient)`` from one pass.

    With ``has_aux=True`` the function returns ``(loss, aux)``; the result is
    ``((loss, aux), gradient)``, as in JAX (aux comes from one more call of the function)."""
    if func is None:
        return lambda f: GradFunction(f, wrt, with_value=True, debug=debug, has_aux=has_aux, jit=jit)
    return GradFunction(func, wrt, with_value=True, debug=debug, has_aux=has_aux, jit=jit)
