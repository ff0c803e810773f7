"""`hvp`: the Hessian of ``f`` at `x` times `v` without forming the Hessian: forward mode
(api/forward.py) over the gradient's generated code (driver/higher.py), one sweep."""

from __future__ import annotations

import weakref

import numpy as np

from ..driver.higher import explained
from ..errors import SrcDiffError
from ..ir import memo
from .flatcall import Front
from .forward import JvpFunction
from .gradients import GradFunction
from .jitting import gradient_options
from .varkw import bound

_HVP: "weakref.WeakKeyDictionary" = memo.table(weak=True)


def hvp(f, x, v, *args, **kwargs):
    """The Hessian of ``f(x, *args, **kwargs)`` with respect to `x` times `v`, without
    forming the Hessian: forward mode over the gradient's generated code (one sweep computes
    the gradient and its derivative along `v`).  `x` may be a tree, `v` a tree like it.

    `f` may be given as its gradient, ``srcdiff.hvp(srcdiff.grad(f, jit="numba"), x, v)``: the
    product is the derivative of that gradient along `v`, made the way the gradient says:
    with ``jit="numba"`` the forward sweep over the gradient's code is compiled by numba, its
    elementwise chains fused into loops (what numba cannot compile is refused, never run
    with NumPy).  The gradient must be with respect to the first parameter, `x`."""
    jit = None
    if isinstance(f, GradFunction):
        jit = gradient_options(f, "srcdiff.hvp")
        first = f.names[0] if f.names else None
        if f.tuple_result or f.wrt != (first,):
            raise SrcDiffError(f"srcdiff.hvp: the gradient of {f.__qualname__} is with respect to "
                               f"{', '.join(f.wrt)}, and hvp differentiates with respect to x, the first parameter",
                               hint="pass srcdiff.grad(f) (wrt=0), or f itself")
        f = f.func
    f = bound(f, (x, *args), kwargs)  # def f(x, **opts): the function this call gives
    try:
        found = _HVP.get(f)
    except TypeError:
        found = None
    if found is None:
        found = (Front(f, 0, what="srcdiff.hvp"), {}, {})
        try:
            _HVP[f] = found
        except TypeError:
            pass
    front, gradients, tangents = found
    call = front.call((x, *args), kwargs)
    call.check(front.qualname)
    several = call.flat is not None or len(call.wrt) > 1
    if not several and np.shape(v) != np.shape(x):
        raise SrcDiffError(f"hvp: v has shape {np.shape(v)}, but x has shape {np.shape(x)}",
                           hint="pass a vector shaped like x")
    directions = dict(zip(call.wrt, call.leaves_of(v, 0, "v")))
    for name, direction in directions.items():
        if np.shape(direction) != np.shape(call.args[call.names.index(name)]):
            raise SrcDiffError(f"hvp: v's part for {name} has shape {np.shape(direction)}, but x's has shape "
                               f"{np.shape(call.args[call.names.index(name)])}", hint="pass a vector shaped like x")
    gradient = gradients.get(call.func)
    if gradient is None:
        gradient = gradients[call.func] = GradFunction(call.func, call.wrt if several else call.wrt[0])
    try:
        plain, _, _ = gradient.derivable(call.args)
        forward = tangents.get((plain, jit))
        if forward is None:
            forward = tangents[(plain, jit)] = JvpFunction(plain, wrt=call.wrt, with_value=False, jit=jit)
        _, product = forward(call.args, tuple(directions.get(n) for n in call.names))
    except SrcDiffError as exc:
        raise explained(exc) from None
    return call.rebuild(product if several else [product])


def hvp_source(f) -> str:
    """The generated code `hvp` ran for `f` last: forward mode over its gradient's code."""
    try:
        return list(_HVP[f][2].values())[-1].source
    except (KeyError, TypeError, IndexError):
        raise SrcDiffError("no hvp source before the first hvp call", hint="call srcdiff.hvp(f, x, v) once") from None


__all__ = ["hvp", "hvp_source"]
