"""``vjp(f, *args, jit="numba")``: the pullback as the gradient of ``sum(f(x) * cotangent)``
(api/contract.py), compiled by numba like any ``grad(..., jit="numba")``.

numba compiles plain functions, not the closure a NumPy pullback is, so each call of this
pullback runs the compiled gradient of the contracted function: the forward computation
again, then the backward sweep, in one call.  Trees, methods and partials go through the
gradient's own flattening, as for `grad`; what numba cannot compile is refused at the
user's line on the pullback's first call.
"""

from __future__ import annotations

import numpy as np

from ..errors import SrcDiffError
from ..ir import memo
from .contract import contracted, contracted_arguments
from .derivatives import Composite, Derivative
from .gradients import GradFunction
from .jitting import refused

_GRADIENTS: dict = memo.table()  # (contracted function, wrt) -> its numba GradFunction


class NumbaPullback:
    """``pullback(g)``: the gradient of ``sum(f(*args) * g)`` with respect to `wrt`, by the
    numba-compiled gradient of the contracted function."""

    def __init__(self, gradient: GradFunction, args: tuple, shape: tuple):
        self.gradient, self.args, self.shape = gradient, args, shape

    def __call__(self, g):
        if np.shape(g) != self.shape:
            raise SrcDiffError(f"the adjoint has shape {np.shape(g)}, but the value has shape {self.shape}",
                               hint="pass an adjoint shaped like the function's value")
        if not self.shape:
            g = float(g)
        return self.gradient(*self.args, g)

    @property
    def source(self) -> str:
        """The module numba compiled (after the first call), else the gradient's NumPy code."""
        return self.gradient.source


def numba_vjp(f, args: tuple, wrt, kwargs: dict | None = None):
    """``(f(*args, **kwargs), pullback)`` with the pullback compiled by numba."""
    if isinstance(f, (GradFunction, Derivative, Composite)):
        raise refused("srcdiff.vjp", f"{getattr(f, '__qualname__', 'f')} is a srcdiff derivative; jit compiles "
                      "the pullback of a function of your own")
    dot = contracted(f)
    key = (dot, repr(wrt))
    gradient = _GRADIENTS.get(key)
    if gradient is None:
        gradient = _GRADIENTS[key] = GradFunction(dot, wrt, jit="numba")
    value = f(*args, **(kwargs or {}))
    # (the contracted function has no defaults: f's, filled in)
    args = contracted_arguments(f, args, kwargs or {}, None)[:-1]
    if not (isinstance(value, (float, np.floating)) or (isinstance(value, np.ndarray) and value.dtype.kind == "f")):
        raise refused("srcdiff.vjp", f"the value of {f.__qualname__} is a {type(value).__name__}; the numba "
                      "pullback takes functions whose value is a float or a float array")
    return value, NumbaPullback(gradient, args, np.shape(value))


__all__ = ["NumbaPullback", "numba_vjp"]
