"""Vector-valued functions and second derivatives: `vjp`, `jacobian`, `hessian`, `hvp`.

`vjp`, `jacobian` and `hessian` run one generated *pullback*: for a call's arguments, the
function's forward code followed by a closure that maps an adjoint of the output (any shape)
to the gradient (`driver.Options(pullback=True)`, the form user helpers' adjoints take).
A Jacobian runs the pullback once per output element; a Hessian is the Jacobian of the
gradient, whose code srcdiff generated and differentiates again (driver/higher.py).  A
Hessian-vector product is forward mode over the gradient's code (api/forward.py, driver/forward.py): one
sweep computes the gradient and its derivative along the vector.
"""

from __future__ import annotations

import inspect
import weakref

import numpy as np

from .. import driver
from ..driver.higher import explained
from ..errors import SrcDiffError
from ..ir import shapes
from .derivatives import Composite, Derivative
from .forward import JvpFunction
from .gradients import GradFunction, grad


class Pullbacks:
    """The pullback code of `func` with respect to `wrt`, compiled once per argument signature."""

    def __init__(self, func, wrt=0):
        self.func, self.wrt_spec = func, wrt
        self._last: driver.Variant | None = None
        self._compiled: dict = {}  # (function, signature) -> (Lowered, Variant): the fast way back

    def _target(self, args: tuple, kwargs: dict):
        """The plain function to differentiate for these arguments, and them in order."""
        func = self.func
        if isinstance(func, (GradFunction, Derivative)):
            args = func.positional(args, kwargs)
            return func.generated_for(args), args
        if isinstance(func, Composite) or not inspect.isfunction(func):
            raise SrcDiffError(f"jacobian, hessian and vjp take a function defined with def (or its "
                               f"srcdiff.grad), got {type(func).__name__}",
                               hint="differentiate the function itself: srcdiff.hessian(f), srcdiff.jacobian(f)")
        try:
            bound = inspect.signature(func).bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{func.__qualname__}(): {exc}") from None
        bound.apply_defaults()
        return func, tuple(bound.arguments.values())

    def variant(self, args: tuple, kwargs: dict | None = None) -> tuple[driver.Variant, tuple]:
        func, args = self._target(args, kwargs or {})
        key = tuple(map(shapes.signature, args))
        hit = self._compiled.get((func, key))
        if hit is not None and driver.is_current(hit[0], func) and hit[0].specialised_for(args, hit[0].params):
            self._last = hit[1]
            return hit[1], args
        names = list(inspect.signature(func).parameters)
        wrt = _wrt_names(self.wrt_spec, names)
        for name in wrt:
            value = args[names.index(name)]
            if not (isinstance(value, float) or (isinstance(value, np.ndarray) and value.dtype.kind == "f")
                    or isinstance(value, np.floating)):
                raise SrcDiffError(f"cannot differentiate with respect to {name!r}: it is a "
                                   f"{type(value).__name__}, not a float or a float array",
                                   hint="pass a float or a float array, e.g. 3.0 or x.astype(float)")
        options = driver.Options(pullback=True, tuple_result=isinstance(self.wrt_spec, (tuple, list)))
        try:
            found = driver.lowered(func, wrt, options, args)
            made = self._last = driver.variant(found, key)
        except SrcDiffError as exc:
            raise explained(exc) from None
        self._compiled[(func, key)] = (found, made)
        return made, args

    def __call__(self, *args, **kwargs):
        """``(value, pullback)`` for these arguments.  The pullback may be called many times;
        it keeps what it needs of the arguments (changing them afterwards changes nothing)."""
        made, args = self.variant(args, kwargs)
        args = tuple(np.array(a) if isinstance(a, np.ndarray) else a for a in args)
        value, pullback = made.function(*args)
        return value, Pullback(made, args, pullback, np.shape(value))

    @property
    def source(self) -> str:
        if self._last is None:
            raise SrcDiffError("no source before the first call: the code depends on the arguments' shapes",
                               hint="call it once first")
        return driver.full_source(self._last)


class Pullback:
    """Maps an adjoint of the value (same shape) to the gradient; `.source` is its code."""

    def __init__(self, made: driver.Variant, args: tuple, pullback, shape: tuple):
        self._made, self._args, self._pullback, self._calls = made, args, pullback, 0
        self._again = ".pop()" in made.source  # its backward loops pop what the forward saved
        self.shape = shape  # the value's, which the adjoint must have

    def __call__(self, g):
        if np.shape(g) != self.shape:
            raise SrcDiffError(f"the adjoint has shape {np.shape(g)}, but the value has shape {self.shape}",
                               hint="pass an adjoint shaped like the function's value")
        self._calls += 1
        if self._calls > 1 and self._again:  # the stacks are used up: run the forward sweep again
            self._pullback = self._made.function(*self._args)[1]
        return self._pullback(g)

    @property
    def source(self) -> str:
        """The generated code: the forward computation, then this pullback as a closure."""
        return driver.full_source(self._made)


def _wrt_names(wrt, names: list[str]) -> tuple[str, ...]:
    out = []
    for item in wrt if isinstance(wrt, (tuple, list)) else (wrt,):
        if isinstance(item, int) and not isinstance(item, bool) and -len(names) <= item < len(names):
            out.append(names[item])
        elif isinstance(item, str) and item in names:
            out.append(item)
        else:
            raise SrcDiffError(f"wrt={item!r} names no parameter of {names}")
    return tuple(out)


def vjp(f, *args, wrt=0):
    """``(value, pullback)``: `f`'s value at `args`, and the function that maps an adjoint of
    the value (same shape) to the gradient of ``sum(value * adjoint)`` with respect to `wrt`."""
    return Pullbacks(f, wrt)(*args)


class Jacobian(Composite):
    """The Jacobian of `f` with respect to `wrt`: shape ``value.shape + wrt.shape``."""

    def __init__(self, f, wrt=0, kind="jacobian"):
        self.pullbacks = Pullbacks(f, wrt)
        if isinstance(wrt, (tuple, list)):
            raise SrcDiffError(f"{kind} takes one wrt parameter", hint=f"ask for one {kind} per parameter")
        name = getattr(f, "__qualname__", getattr(f, "__name__", "f"))
        self.__name__ = self.__qualname__ = f"{kind}({name})"

    def __call__(self, *args, **kwargs):
        value, pullback = self.pullbacks(*args, **kwargs)
        value = np.asarray(value)
        # float32 in, float32 out: the seeds and rows keep the floating dtype the code computes in
        value = value if value.dtype.kind == "f" else value.astype(float)
        seed = np.zeros(value.shape, dtype=value.dtype)
        rows = []
        for i in range(value.size):  # one backward pass per output element
            seed.flat[i] = 1.0
            row = np.array(pullback(seed.copy() if seed.ndim else seed[()] if value.dtype != float else float(seed)))
            rows.append(row if row.dtype.kind == "f" else row.astype(float))
            seed.flat[i] = 0.0
        return np.stack(rows).reshape(value.shape + rows[0].shape) if rows else np.zeros(value.shape)

    @property
    def source(self) -> str:
        """The generated forward code and pullback the Jacobian runs (last call's signature)."""
        return self.pullbacks.source


def jacobian(f, wrt=0) -> Jacobian:
    """The Jacobian of a vector-valued `f` (reverse mode, one pullback per output element)."""
    return Jacobian(f, wrt)


def hessian(f, wrt=0) -> Jacobian:
    """The Hessian of a scalar `f`: the Jacobian of its gradient, whose code srcdiff
    differentiates again."""
    if isinstance(f, Composite):
        raise SrcDiffError(f"hessian takes a function of its own, not {f.__qualname__}",
                           hint="differentiate the function itself: srcdiff.hessian(f)")
    hessian = Jacobian(grad(f, wrt), wrt, kind="hessian")
    hessian.__name__ = hessian.__qualname__ = f"hessian({getattr(f, '__qualname__', 'f')})"
    return hessian


_HVP_GRADIENTS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def hvp(f, x, v, *args, **kwargs):
    """The Hessian of ``f(x, *args, **kwargs)`` with respect to `x` times `v`, without
    forming the Hessian: forward mode over the gradient's generated code (one sweep computes
    the gradient and its derivative along `v`)."""
    if np.shape(v) != np.shape(x):
        raise SrcDiffError(f"hvp: v has shape {np.shape(v)}, but x has shape {np.shape(x)}",
                           hint="pass a vector shaped like x")
    found = _HVP_GRADIENTS.get(f)
    if found is None:
        found = _HVP_GRADIENTS[f] = (grad(f, 0), {})
    gradient, tangents = found
    positional = gradient.positional((x, *args), kwargs)
    try:
        plain = gradient.generated_for(positional)
        forward = tangents.get(plain)
        if forward is None:
            forward = tangents[plain] = JvpFunction(plain, wrt=gradient.wrt_names, with_value=False)
        _, product = forward(positional, (v,) + (None,) * (len(positional) - 1))
    except SrcDiffError as exc:
        raise explained(exc) from None
    return product


__all__ = ["Jacobian", "Pullbacks", "hessian", "hvp", "jacobian", "vjp"]
