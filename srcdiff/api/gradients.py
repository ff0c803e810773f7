"""The public entry points: `grad`, `value_and_grad`, and the gradient functions they return.

A `GradFunction` transforms its function lazily (on the first call or `.source`), once per
argument signature (types; for arrays ndim, dtype kind and which axes have length one), and
caches the compiled result: later calls with the same kind of arguments go straight to it.
A function that passes a parameter as a static argument (``np.max(x, axis=axis)``) is
lowered once per value of that parameter.  The stages themselves run in the driver (driver/).
"""

from __future__ import annotations

import dataclasses
import weakref
from typing import Any, Callable, cast

from .. import driver
from ..backend import code_swaps, jit
from ..driver import CACHE, CacheInfo, Lowered, Options, Variant, higher
from ..errors import SrcDiffError
from ..frontend.parse import parse_function
from ..ir import shapes
from ..lower.called_gradients import MAKER, CalledCode
from ..rules import TEMPLATE_GLOBALS
from .binding import not_differentiable, refuse
from .derivatives import Composite, Derivative, derivative_of
from .flatcall import Front
from .outer import refuse_composite
from .single_output import check_single_output
from .source_html import source_html
from .trees import TreeCaller
from .varkw import per_call


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
                 jit: str | None = None, argnums=None, checkpoint: int | None = None):
        self.func = func
        self.front = Front(func, wrt, argnums, has_aux=has_aux)
        self._signature = self.front.binder.signature
        self._names = list(self.front.names)
        self.wrt = self.front.wrt
        self.tuple_result = self.front.tuple_result
        if jit not in (None, "numba"):
            raise SrcDiffError(f"jit={jit!r} is not supported", hint='use jit="numba" or leave jit out')
        if jit and debug:
            raise SrcDiffError("jit='numba' and debug=True cannot be combined",
                               hint="debug the gradient without jit first")
        if not has_aux:
            check_single_output(func, self.front.target.func)
        if checkpoint is not None and (type(checkpoint) is not int or checkpoint < 1):
            raise SrcDiffError(f"checkpoint={checkpoint!r}: give the number of loop iterations between saved states",
                               hint="a positive int, about the square root of the number of iterations")
        self.options = Options(with_value=with_value, tuple_result=self.tuple_result, debug=debug, jit=jit,
                               checkpoint=checkpoint)
        self._trees = TreeCaller(self.front, self._inner, with_value, debug)
        self._always_trees = self.front.always
        self._tree_roots = [i for i, n in enumerate(self._names) if n in self.wrt]
        self._lowered: Lowered | None = None
        self._last: Variant | None = None
        self._derivables: dict = {}  # signature -> (Lowered, Variant) of the derivable form (driver/higher.py)
        self._picked: dict = {}  # (signature, pick) -> (Variant, its code as a function srcdiff parses)
        self.__name__ = getattr(func, "__name__", "gradient")
        self.__qualname__ = getattr(func, "__qualname__", self.__name__)
        self.__doc__ = f"Gradient of {self.__qualname__} with respect to {', '.join(self.wrt)}."
        self.__class__ = type("GradFunction", (GradFunction,), {"__slots__": ()})  # (its own `__call__`, pointed)
        _LIVE.add(self)

    def _inner(self, flat_func, wrt: tuple) -> "GradFunction":
        inner = GradFunction(flat_func, wrt, with_value=self.options.with_value,
                             debug=self.options.debug, jit=self.options.jit, checkpoint=self.options.checkpoint)
        inner._flat = True  # already rewritten: its arguments are leaves
        return inner

    _flat = False

    def _uses_trees(self, args) -> bool:
        if self._flat:
            return False
        return self.front.uses_trees(args)

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
        """The generated source (the last call's, else shape-generic), callees' adjoints after it."""
        if self._trees.last is not None or self._always_trees and self._last is None and self._trees.generic():
            return (self._trees.last or self._trees.generic()).source  # (before a call: TreeCaller.generic)
        if self.options.jit and self._last is not None and self._last.jitted is not None:
            return cast(Any, self._last.jitted).source  # jit="numba", once called: the module numba compiles, fused
        return driver.full_source(self._last or driver.variant(self.lowered, None))

    @property
    def callee_sources(self) -> dict[str, str]:
        """The generated adjoints of the user functions the gradient calls, by their names in `source`."""
        return driver.callee_sources(self._last or driver.variant(self.lowered, None))

    def source_for(self, *args, **kwargs) -> str:
        """The generated source for arguments like these (without running it), callees included."""
        positional = self._positional(args, kwargs)
        if self._uses_trees(positional):
            return self._trees.source_for(positional)
        return driver.full_source(self._variant(positional))

    def tree_parts(self, *args, **kwargs) -> tuple | None:
        """The parameters' names, then `TreeCaller.parts`, for a call with trees (else None)."""
        positional = self._positional(args, kwargs)
        if not self._uses_trees(positional):
            return None
        return (self._trees.names, *self._trees.parts(positional))

    def variant_for(self, *args, **kwargs) -> Variant:
        """The compiled variant for arguments like these (its code, program and callees)."""
        return self._variant(self._positional(args, kwargs))

    def __call__(self, *args, **kwargs):
        positional = self._positional(args, kwargs)
        if self._uses_trees(positional):
            return self._trees(positional, args, kwargs)
        return self._slow(*positional)

    def _slow(self, *args):
        """Find or compile the variant for these arguments, make it the fast path, run it."""
        if self._uses_trees(args):
            return self._trees(args, args, {})
        with CACHE.lock:  # (another thread's first call may set `_lowered` between these lines)
            variant = self._variant(args)
            lowered = cast(Lowered, self._lowered)  # `_variant` set it for these arguments
            self._last = variant
            if self.options.jit and variant.jitted is None:
                variant.jitted = jit.numba_function(variant, lowered, TEMPLATE_GLOBALS, CACHE.origins)
            elif not self.options.jit and self._fast_ok():
                _point_call(self, staticmethod(_with_defaults(driver.fast_function(lowered, variant, self._slow),
                                                              self.front.target.func)))
                code_swaps.watch(lowered.parsed.func, self, lowered.parsed.code)  # (__code__ replaced: _reset)
        return self._jitted(variant, lowered, args) if self.options.jit else variant.function(*args)

    def _jitted(self, variant: Variant, lowered: Lowered, args: tuple):
        """Run the numba-compiled `variant`; later calls of the same signature go straight to it."""
        run = cast(Callable[..., Any], variant.jitted)
        result = run(*args)
        if self._fast_ok() and not lowered.statics and not lowered.constants:
            _point_call(self, staticmethod(jit.fast_call(run, tuple(map(shapes.signature, args)), lowered,
                                                         self._slow, self._positional)))
            code_swaps.watch(lowered.parsed.func, self, lowered.parsed.code)
        return result

    def _fast_ok(self) -> bool:
        """Whether the compiled code can take calls directly (it binds arguments like Python)."""
        return self.front.binder.plain_parameters

    def _reset(self) -> None:
        """Forget compiled code (after the rule table changed)."""
        self._lowered = self._last = None
        self._derivables.clear()
        self._trees.cache.clear()  # its inner gradients are of rewritten functions the cache held
        _point_call(self, GradFunction.__call__)

    def _variant(self, args) -> Variant:
        key = tuple(map(shapes.signature, args))
        lowered = self._lowered_for(args)
        found = lowered.variants.get(key)
        if found is None:
            self._check_differentiable(args)
            found = driver.variant(lowered, key, args)
        return found

    def derivable(self, positional: tuple, pick: int | None = None, batching: bool = False):
        """The code a call with (bound) `positional` arguments runs, as a function srcdiff can
        differentiate again (driver/higher.py), and the `FlatCall` whose arguments it takes.

        For trees, methods and partials the function takes the leaves and returns one
        gradient per differentiated leaf; `pick` selects one of several gradients (None: all,
        as a tuple); the last of the three values says whether it returns a tuple."""
        valued = batching and self.options.with_value  # (code returning the value too: one batched call)
        if (self.options.with_value and not valued) or (self.front.has_aux and not batching) or self.options.jit \
                or self.options.debug:  # (has_aux batched: the loss's gradient, vmap adds the aux, api/vmap_aux.py)
            refuse_composite(self, batching)
        func, call, several, _ = self._derivable_function(positional, pick, valued, once=batching)
        return func, call, several

    def _derivable_function(self, positional: tuple, pick: int | None, valued: bool = False, once: bool = False):
        """`derivable`'s three values, and the `Lowered` its code was compiled from (`valued`: with the value)."""
        call = self.front.bound_call(positional) if positional is not None else None
        gradient = self._trees.gradient_of(call) if call is not None and call.flat is not None else self
        several = gradient.tuple_result or len(gradient.wrt) > 1
        if not several:
            pick = None
        found, made = gradient._derivable(call.args if call is not None else None, pick, valued, once)
        key = (id(made), pick)
        hit = self._picked.get(key)
        if hit is None or hit[0] is not made:
            func = higher.generated_function(made, location=found.parsed.location)
            hit = self._picked[key] = (made, func)
        return hit[1], call, several and pick is None, found

    def called_code(self, positional: tuple | None) -> CalledCode:
        """What a call of this gradient (or value_and_grad) with (bound) arguments of the kinds
        of `positional` (None: not known, code for any) stands for inside a function srcdiff
        differentiates: the gradient's code
        as a function srcdiff reads (driver/higher.py), and for value_and_grad the function
        itself (lower/called_gradients.py lowers the call as calls of these)."""
        why = "has_aux=True" if self.front.has_aux else "debug=True" if self.options.debug else None
        if why is not None:
            raise SrcDiffError(f"{self.__qualname__} is a gradient with {why}, and srcdiff differentiates a "
                               "call of a plain gradient (or value_and_grad) only",
                               hint="call srcdiff.grad(loss) of the loss alone inside the function "
                               "(without has_aux or debug), and compute the aux outside it")
        if not self.front.target.plain or positional is not None and self._uses_trees(positional):
            raise SrcDiffError(f"{self.__qualname__}: srcdiff differentiates a call of a gradient whose "
                               "arguments are arrays and numbers, not trees, methods or partials",
                               hint="pass the arrays as parameters of a plain function, or differentiate "
                               "one leaf at a time (wrt=\"params['W']\")")
        func, _, _, found = self._derivable_function(positional, None)
        value = self.front.target.func if self.options.with_value else None
        return CalledCode(func, value, found.depends, tuple(found.statics))

    def tree_gradient(self, structs: tuple) -> tuple:
        """What a call with trees of `structs` stands for inside a differentiated function (api/trees.py)."""
        return self._trees.tree_gradient(structs)

    def plain_call(self, positional: tuple):
        """The `FlatCall` of a call with (bound) `positional` arguments, and its plain function's gradient (a tuple)."""
        call = self.front.bound_call(positional)
        return call, self._trees.gradient_of(call) if call.flat is not None else GradFunction(call.func, call.wrt)

    def generated_for(self, args: tuple):
        """The code a call with positional `args` runs, as a function srcdiff can differentiate
        again (driver/higher.py): it returns this gradient for arguments of this signature."""
        if len(self.wrt) > 1 or self.tuple_result:
            raise SrcDiffError(f"{self.__qualname__} returns a tuple of gradients: differentiate one "
                               "gradient at a time", hint="use srcdiff.grad(f, wrt=...) with one parameter")
        func, call, _ = self.derivable(args, pick=0)
        if call.flat is not None and (any(s is not None for s in call.structs) or self.front.target.hidden):
            parsed = parse_function(self.front.target.func)  # at the def line: no line of the user's is at fault
            raise parsed.error(parsed.tree, f"{self.__qualname__}: its gradient of a tree, method or partial takes "
                               "leaves, not the function's own arguments", "use srcdiff.hessian(f) or "
                               "srcdiff.hvp(f, x, v), which take trees, or pass the arrays as parameters")
        return func

    def _derivable(self, args: tuple, pick: int | None = None, valued: bool = False, once: bool = False):
        """The variant for `args` in the form srcdiff differentiates again (`Options.derivable`): gradient number
        `pick` of `wrt` only (None: all); `valued`: ``(value, gradient)``; `once`: vmap's (Options.once)."""
        signature = None if args is None else tuple(map(shapes.signature, args))
        hit = self._derivables.get((signature, pick, valued, once))
        if hit is None or not driver.is_current(hit[0], self.func) \
                or args is not None and not hit[0].specialised_for(args, self._names):
            if args is not None:
                self._check_differentiable(args)
            wrt = self.wrt if pick is None else (self.wrt[pick],)
            # a picked gradient is returned as itself (not a 1-tuple): the function differentiated again
            several = pick is None and (self.tuple_result or len(wrt) > 1)
            options = dataclasses.replace(self.options, derivable=True, tuple_result=several, with_value=valued,
                                          jit=None, once=once)  # (jit changes how the code is run, not the code)
            found = driver.lowered(self.func, wrt, options, args)
            hit = self._derivables[(signature, pick, valued, once)] = (found, driver.variant(found, signature))
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
        return self.front.binder.bind(args, kwargs)

    def _check_differentiable(self, args) -> None:
        for name in self.wrt:
            problem = not_differentiable(args[self._names.index(name)])
            if problem:
                raise refuse(self.__qualname__, name, problem)

    def _repr_html_(self) -> str:
        """In a notebook: the generated source, coloured (api/source_html.py)."""
        return source_html(repr(self), self.source)

    def __repr__(self) -> str:
        return f"<srcdiff gradient of {self.__qualname__} wrt {', '.join(self.wrt)}>"


_LIVE: "weakref.WeakSet[GradFunction]" = weakref.WeakSet()


def _forget_compiled() -> None:
    for gradient in list(_LIVE):
        gradient._reset()


CACHE.listeners.append(_forget_compiled)


def clear_cache() -> None:
    """Forget every transform and compiled gradient, callee adjoints included: the next call of
    each gradient parses, transforms and compiles again (the `cache_info` counters go on)."""
    CACHE.clear()


def _point_call(gradient: GradFunction, call) -> None:
    """Make `call` what calling `gradient` runs (each instance has a class of its own)."""
    cls: Any = type(gradient)
    cls.__call__ = call


def _with_defaults(fast, user):
    """`fast`, or a call of it giving it `user`'s defaults of now (``f.__defaults__ = (5.0,)`` is honoured)."""
    if not getattr(user, "__defaults__", None):
        return fast

    def call(*args, **kwargs):
        if fast.__defaults__ is not user.__defaults__:
            fast.__defaults__ = user.__defaults__
        return fast(*args, **kwargs)
    return call


def grad(func=None, wrt=0, *, argnums=None, has_aux: bool = False, debug: bool = False, jit: str | None = None,
         checkpoint: int | None = None):
    """The gradient of `func` with respect to parameter(s) `wrt`.

    Use as ``@srcdiff.grad``, ``@srcdiff.grad(wrt="w")`` or ``srcdiff.grad(f, wrt=(0, "y"))``.
    `wrt` is an index, a parameter name, a path into a tree argument (``"params['W1']"``), or
    a tuple of them (then a tuple is returned); `argnums` is JAX's spelling of integer `wrt`.
    The result is called like `func` and returns the gradient, shaped like the parameter.
    With ``has_aux=True`` `func` returns ``(loss, aux)`` and the result ``(gradient, aux)``.
    With ``jit="numba"`` the generated gradient is compiled by numba (``srcdiff[numba]``).
    With ``checkpoint=k`` loops keep their state every k iterations and recompute the ones
    between in the backward sweep (memory O(n/k + k)).  A `func` taking ``**opts`` gets one
    gradient per call shape (varkw.py)."""
    if func is None:
        return lambda f: grad(f, wrt, argnums=argnums, has_aux=has_aux, debug=debug, jit=jit, checkpoint=checkpoint)
    return per_call(func, lambda f: _gradient(f, wrt, argnums, has_aux, debug, jit, checkpoint))


def _gradient(func, wrt, argnums, has_aux, debug, jit, checkpoint):  # grad, once the function is plain
    if isinstance(func, Composite):
        raise SrcDiffError(f"srcdiff cannot differentiate {func.__qualname__} again: it runs generated "
                           "code once per output element", hint="differentiate the function itself "
                           "(srcdiff.hessian(f), srcdiff.jacobian(srcdiff.grad(f)))")
    if isinstance(func, (GradFunction, Derivative)):
        return derivative_of(func, wrt, argnums, has_aux, lambda f, w: GradFunction(f, w, debug=debug, jit=jit))
    return GradFunction(func, wrt, debug=debug, has_aux=has_aux, jit=jit, argnums=argnums, checkpoint=checkpoint)


def value_and_grad(func=None, wrt=0, *, argnums=None, debug: bool = False, has_aux: bool = False,
                   jit: str | None = None, checkpoint: int | None = None):
    """Like `grad`, but the result returns ``(value, gradient)`` from one pass.

    With ``has_aux=True`` the function returns ``(loss, aux)``; the result is
    ``((loss, aux), gradient)``, as in JAX (aux comes from one more call of the function)."""
    if func is None:
        return lambda f: value_and_grad(f, wrt, argnums=argnums, debug=debug, has_aux=has_aux, jit=jit,
                                        checkpoint=checkpoint)
    return per_call(func, lambda f: derivative_of(f, wrt, argnums, has_aux, lambda g, w: GradFunction(
        g, w, with_value=True, debug=debug, jit=jit), with_value=True) if isinstance(f, (GradFunction, Derivative))
        else GradFunction(f, wrt, with_value=True, debug=debug, has_aux=has_aux, jit=jit, argnums=argnums,
                          checkpoint=checkpoint))


# srcdiff.grad(loss)(w, X, y) called inside a differentiated function: made when lowering (lower/called_gradients.py)
setattr(grad, MAKER, True)
setattr(value_and_grad, MAKER, True)
