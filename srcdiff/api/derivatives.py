"""Derivatives of srcdiff's own derivatives: `Derivative` (``grad(grad(f))``) and `Composite`.

`Derivative` differentiates, per argument signature, the code the inner gradient runs
(driver/higher.py makes it a function srcdiff can parse), with an ordinary gradient.
"""

from __future__ import annotations

import numpy as np

from ..driver.higher import explained
from ..errors import SrcDiffError


class Composite:
    """A derivative srcdiff computes by running generated code several times (a Jacobian, a
    Hessian): not one function srcdiff can differentiate again."""

    __qualname__: str  # each subclass names the function it differentiates


class Derivative:
    """The gradient of a srcdiff gradient (``srcdiff.grad(srcdiff.grad(f))``), called like it.

    Each argument signature gets the inner gradient's code as a function
    (`generated_function`) and an ordinary gradient of that, made by `make(func, wrt)`."""

    def __init__(self, inner, wrt, make):
        self.inner, self.wrt, self._make = inner, wrt, make
        self._outer: dict = {}  # the inner's code as a function -> its gradient
        self._last = None
        self.__name__ = f"{getattr(inner, '__name__', 'gradient')}_grad"
        inner_name = getattr(inner, "__qualname__", self.__name__)
        self.__qualname__ = f"grad({inner_name})" if isinstance(inner, Derivative) else f"grad(grad({inner_name}))"

    @property
    def names(self) -> list[str]:
        return self.inner.names

    @property
    def wrt_names(self) -> tuple[str, ...]:
        wrt = self.wrt[0] if isinstance(self.wrt, (tuple, list)) and len(self.wrt) == 1 else self.wrt
        return (self.names[wrt] if isinstance(wrt, int) else wrt,)

    def plain_for(self, args: tuple):
        """The inner gradient's code for `args` as a function: the function this differentiates."""
        name = self.inner.wrt_names[0]
        if len(self.inner.wrt_names) == 1 and np.ndim(args[self.names.index(name)]) > 0:
            raise SrcDiffError(f"{self.__qualname__}: the gradient of {self.inner.__qualname__} with respect to "
                               f"{name} is an array, and grad differentiates a function with one number as "
                               "its value", hint="use srcdiff.hessian(f) for the matrix of second "
                               "derivatives, or srcdiff.hvp(f, x, v) for its product with a vector")
        return self.inner.generated_for(args)

    def outer_for(self, args: tuple):
        """The gradient (a `GradFunction`) that a call with positional `args` runs."""
        func = self.plain_for(args)
        found = self._outer.get(func)
        if found is None:
            found = self._outer[func] = self._make(func, self.wrt)
        self._last = found
        return found

    def positional(self, args: tuple, kwargs: dict) -> tuple:
        return self.inner.positional(args, kwargs)

    def generated_for(self, args: tuple):
        return self.outer_for(args).generated_for(args)

    def __call__(self, *args, **kwargs):
        positional = self.positional(args, kwargs)
        outer = self.outer_for(positional)
        try:
            return outer(*positional)
        except SrcDiffError as exc:
            raise explained(exc) from None

    def source_for(self, *args, **kwargs) -> str:
        positional = self.positional(args, kwargs)
        return self.outer_for(positional).source_for(*positional)

    @property
    def source(self) -> str:
        """The generated source of the last call's signature."""
        if self._last is None:
            raise SrcDiffError(f"{self.__qualname__} has no source before its first call: its code "
                               "depends on the arguments' shapes", hint="call it once, or use .source_for(*args)")
        return self._last.source

    def __repr__(self) -> str:
        return f"<srcdiff gradient of {self.__qualname__[5:-1]}'s gradient>"



__all__ = ["Composite", "Derivative"]
