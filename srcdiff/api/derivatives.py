"""Derivatives of srcdiff's own derivatives: `Derivative` (``grad(grad(f))``) and `Composite`.

`Derivative` differentiates, per argument signature, the code the inner gradient runs
(driver/higher.py makes it a function srcdiff can parse), with an ordinary gradient.
"""

from __future__ import annotations

import numpy as np

from ..driver.higher import explained
from ..errors import SrcDiffError
from .outer import outer_call, refuse_composite


class Composite:
    """A derivative srcdiff computes by running generated code several times (a Jacobian, a
    Hessian): not one function srcdiff can differentiate again."""

    __qualname__: str  # each subclass names the function it differentiates


class Derivative:
    """The gradient of a srcdiff gradient (``srcdiff.grad(srcdiff.grad(f))``), called like it.

    Each argument signature gets the inner gradient's code as a function
    (`generated_function`) and an ordinary gradient of that, made by `make(func, wrt)`."""

    def __init__(self, inner, wrt, make, with_value: bool = False):
        self.inner, self.wrt, self._make, self.with_value = inner, wrt, make, with_value
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

    def call_for(self, args: tuple):
        """The plain call this differentiates for positional `args` (api/outer.py): the inner
        gradient's code, its arguments (leaves, for a call with trees), the leaves it is
        differentiated with respect to; and the inner call of trees (None: none)."""
        call, inner, value = outer_call(self.inner, args, self.wrt, self.__qualname__)
        if np.ndim(value) > 0:
            name = self.inner.wrt_names[0]
            raise SrcDiffError(f"{self.__qualname__}: the gradient of {self.inner.__qualname__} with respect to "
                               f"{name} is an array, and grad differentiates a function with one number as "
                               "its value", hint="use srcdiff.hessian(f) for the matrix of second "
                               "derivatives, or srcdiff.hvp(f, x, v) for its product with a vector")
        return call, inner

    def plain_for(self, args: tuple):
        """The inner gradient's code for `args` as a function: the function this differentiates."""
        return self.call_for(args)[0].func

    def outer_for(self, args: tuple):
        """The gradient (a `GradFunction`) that a call with positional `args` runs."""
        return self._outer_of(self.call_for(args)[0])

    def _outer_of(self, call):
        wrt = call.wrt if call.tuple_result or len(call.wrt) > 1 else call.wrt[0]
        found = self._outer.get((call.func, wrt))
        if found is None:
            found = self._outer[(call.func, wrt)] = self._make(call.func, wrt)
        self._last = found
        return found

    def positional(self, args: tuple, kwargs: dict) -> tuple:
        return self.inner.positional(args, kwargs)

    def generated_for(self, args: tuple):
        return self.leaf_code(args)[0]

    def leaf_code(self, args: tuple):
        """This derivative's code for `args` as a function srcdiff differentiates again, the
        inner call of trees whose leaves it takes (None: it takes `args`), and the argument its
        value is shaped like (api/outer.py)."""
        if self.with_value:
            refuse_composite(self)
        call, inner = self.call_for(args)
        outer = self._outer_of(call)
        if inner is None:
            return outer.generated_for(args), None, args[self.names.index(self.wrt_names[0])]
        return outer.generated_for(call.args), inner, call.args[call.names.index(call.wrt[0])]

    def __call__(self, *args, **kwargs):
        positional = self.positional(args, kwargs)
        call, _ = self.call_for(positional)
        outer = self._outer_of(call)
        try:
            found = outer(*call.args)
        except SrcDiffError as exc:
            raise explained(exc) from None
        value, found = found if self.with_value else (None, found)
        found = call.rebuild(found if call.tuple_result or len(call.wrt) > 1 else [found])
        return (value, found) if self.with_value else found

    def source_for(self, *args, **kwargs) -> str:
        call, _ = self.call_for(self.positional(args, kwargs))
        return self._outer_of(call).source_for(*call.args)

    @property
    def source(self) -> str:
        """The generated source of the last call's signature."""
        if self._last is None:
            raise SrcDiffError(f"{self.__qualname__} has no source before its first call: its code "
                               "depends on the arguments' shapes", hint="call it once, or use .source_for(*args)")
        return self._last.source

    def __repr__(self) -> str:
        return f"<srcdiff gradient of {self.__qualname__[5:-1]}'s gradient>"



def derivative_of(inner, wrt, argnums, has_aux: bool, make, with_value: bool = False) -> Derivative:
    """The gradient (or, `with_value`, value and gradient) of a srcdiff gradient `inner`;
    `argnums` is JAX's spelling of an integer `wrt`."""
    if has_aux:
        raise SrcDiffError("the gradient of a srcdiff gradient has no aux: the gradient is its value",
                           hint="leave has_aux out; differentiate a function returning (loss, aux) as "
                           "srcdiff.grad(srcdiff.grad(loss)) of its loss alone")
    if argnums is not None:
        if wrt not in (0, None) or isinstance(argnums, bool) or not isinstance(argnums, int):
            raise SrcDiffError("the gradient of a srcdiff gradient takes one integer argnums, or wrt=",
                               hint="differentiate with respect to one parameter: argnums=0")
        wrt = argnums
    return Derivative(inner, wrt, make, with_value)


__all__ = ["Composite", "Derivative", "derivative_of"]
