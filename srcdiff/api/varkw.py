"""A function taking ``*args`` / ``**opts`` given to a transformation: bound to each call.

``srcdiff.grad(f)`` of ``def f(x, **opts)`` differentiates, for a call ``g(x, weight=2.0)``,
the function ``f`` is for that call, ``def f(x, weight)`` (frontend/varargs.py, as for a
helper taking ``**opts``): one transformation per number of positional arguments and set of
keywords, built on the first call like it.  ``opts.get("weight", 1.0)`` is then read off the
call; any other use of ``opts`` is refused at its line.
"""

from __future__ import annotations

import types

from ..errors import SrcDiffError
from ..frontend.varargs import bound_function, takes_varargs


def varargs_function(func) -> bool:
    """Whether `func` is a plain Python function with a ``*args`` or ``**kwargs`` parameter."""
    try:
        return isinstance(func, types.FunctionType) and takes_varargs(func)
    except (TypeError, ValueError):
        return False


def bound(func, args: tuple, kwargs: dict | tuple = ()):
    """`func` as a function of plain parameters for a call giving `args` and `kwargs` (names);
    a `PerCall` (``grad(f)`` of such a function) as its transformation for that call."""
    if isinstance(func, PerCall):
        return func.for_call(args, dict.fromkeys(kwargs))
    return bound_function(func, len(args), tuple(kwargs)) if varargs_function(func) else func


class PerCall:
    """A transformation (``make(plain function)``) of a function taking ``*args``/``**opts``,
    made once per call shape; `source` and the other attributes are the last call's."""

    def __init__(self, func, make):
        self.func, self.make = func, make
        self._made: dict = {}  # bound function -> its transformation
        self.last = None
        self.__name__ = getattr(func, "__name__", "function")
        self.__qualname__ = getattr(func, "__qualname__", self.__name__)
        self.__doc__ = getattr(func, "__doc__", None)

    def then(self, transform) -> "PerCall":
        """``transform(this transformation)``, made per call too (``grad(grad(f))``)."""
        return PerCall(self.func, lambda plain: transform(self.make(plain)))

    def for_call(self, args: tuple, kwargs: dict):
        """The transformation of `func` for a call with these arguments."""
        plain = bound(self.func, args, kwargs)
        found = self._made.get(plain)
        if found is None:
            found = self._made[plain] = self.make(plain)
        self.last = found
        return found

    def __call__(self, *args, **kwargs):
        return self.for_call(args, kwargs)(*args, **kwargs)

    def source_for(self, *args, **kwargs) -> str:
        """The generated source for a call with arguments like these."""
        return self.for_call(args, kwargs).source_for(*args, **kwargs)

    @property
    def source(self) -> str:
        """The generated source of the last call."""
        if self.last is None:
            raise SrcDiffError(f"{self.__qualname__} takes *args or **kwargs: its code is made per call, "
                               "and there is no source before the first call", hint="call it once first, "
                               "or use .source_for(*args, **kwargs)")
        return self.last.source

    def __getattr__(self, name):
        if name.startswith("__") or self.__dict__.get("last") is None:
            raise AttributeError(f"{name}: {self.__dict__.get('__qualname__', 'this')} takes *args or **kwargs; "
                                 "its transformation is made per call (call it first)")
        return getattr(self.last, name)


def per_call(func, make):
    """`make(func)`, or a `PerCall` of it when `func` takes ``*args``/``**opts`` (or is the
    `PerCall` of such a function: `make` applies to each call's transformation)."""
    if isinstance(func, PerCall):
        return func.then(make)
    return PerCall(func, make) if varargs_function(func) else make(func)


__all__ = ["PerCall", "bound", "per_call", "varargs_function"]
