"""Vector-valued functions and second derivatives: `jacobian`, `hessian`, `hvp`.

A Jacobian runs the pullback (api/pullbacks.py) once per output element.  A Hessian is the
Jacobian of the gradient, whose code srcdiff generated and differentiates again
(driver/higher.py).  A Hessian-vector product is forward mode over the gradient's code
(api/forward.py): one sweep computes the gradient and its derivative along the vector.
Arguments may be trees, with JAX's structure conventions: the Jacobian with respect to a dict
is a dict of ``value.shape + leaf.shape`` arrays, the Hessian a dict of dicts, the Hessian
for ``wrt=(0, 1)`` a tuple of tuples, `hvp`'s product shaped like `x`.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, overload

import numpy as np

from ..driver.higher import explained
from ..errors import SrcDiffError
from .contract import contracted
from .derivatives import Composite, Derivative
from .flatcall import Front
from .forward import JvpFunction
from .gradients import GradFunction, grad
from .pullbacks import Pullback, Pullbacks


def jacobian_leaves(value, pullback: Pullback) -> list:
    """One ``value.shape + leaf.shape`` array per differentiated leaf: one backward pass per
    output element."""
    value = np.asarray(value)
    # float32 in, float32 out: the seeds and rows keep the floating dtype the code computes in
    value = value if value.dtype.kind == "f" else value.astype(float)
    seed = np.zeros(value.shape, dtype=value.dtype)
    rows = []
    for i in range(value.size):
        seed.flat[i] = 1.0
        rows.append(pullback.leaves(seed.copy() if seed.ndim else float(seed) if value.dtype == float else seed[()]))
        seed.flat[i] = 0.0
    if not rows:
        return [np.zeros(value.shape + np.shape(pullback.call.args[pullback.call.names.index(n)]), dtype=value.dtype)
                for n in pullback.call.wrt]
    out = []
    for j in range(len(rows[0])):
        column = [np.asarray(r[j]) for r in rows]
        column = [c if c.dtype.kind == "f" else c.astype(float) for c in column]
        out.append(np.stack(column).reshape(value.shape + column[0].shape))
    return out


class Jacobian(Composite):
    """The Jacobian of `f` with respect to `wrt`: shape ``value.shape + wrt.shape`` (per leaf
    for a tree, a tuple for a tuple `wrt`)."""

    def __init__(self, f, wrt=0, kind="jacobian"):
        self.pullbacks = Pullbacks(f, wrt)
        name = getattr(f, "__qualname__", getattr(f, "__name__", "f"))
        self.__name__ = self.__qualname__ = f"{kind}({name})"

    def __call__(self, *args, **kwargs):
        value, pullback = self.pullbacks(*args, **kwargs)
        return pullback.call.rebuild(jacobian_leaves(value, pullback))

    @property
    def source(self) -> str:
        """The generated forward code and pullback the Jacobian runs (last call's signature)."""
        return self.pullbacks.source


@overload  # a Jacobian is also a callable: the first signature that matches applies
def jacobian(f: Jacobian, wrt: Any = 0) -> NestedJacobian: ...  # type: ignore[overload-overlap]
@overload
def jacobian(f: Callable[..., Any], wrt: Any = 0) -> Jacobian: ...
def jacobian(f, wrt=0) -> Jacobian | NestedJacobian:
    """The Jacobian of a vector-valued `f` (reverse mode, one pullback per output element)."""
    if isinstance(f, Jacobian):
        return NestedJacobian(f, wrt)
    return Jacobian(f, wrt)


class Hessian(Composite):
    """The Hessian of a scalar `f`: per differentiated leaf, the Jacobian of its gradient's
    generated code with respect to every leaf (a dict of dicts, a tuple of tuples)."""

    def __init__(self, f, wrt=0):
        self.front = Front(f, wrt, what="srcdiff.hessian")
        self._gradients: dict = {}  # plain function -> its GradFunction
        self._pullbacks: dict = {}  # generated gradient -> its Pullbacks
        self._last = None
        self.__name__ = self.__qualname__ = f"hessian({self.front.qualname})"

    def __call__(self, *args, **kwargs):
        call = self.front.call(args, kwargs)
        call.check(self.front.qualname)
        gradient = self._gradients.get(call.func)
        if gradient is None:
            several = call.flat is not None or call.tuple_result or len(call.wrt) > 1
            gradient = self._gradients[call.func] = GradFunction(call.func, call.wrt if several else call.wrt[0])
        rows = []
        for i in range(len(call.wrt)):
            plain, _, _ = gradient.derivable(call.args, pick=i)
            pullbacks = self._pullbacks.get(plain)
            if pullbacks is None:
                pullbacks = self._pullbacks[plain] = Pullbacks(plain, call.wrt)
            self._last = pullbacks
            value, pullback = pullbacks(*call.args)
            rows.append(call.rebuild(jacobian_leaves(value, pullback)))
        return call.rebuild(rows)

    @property
    def source(self) -> str:
        """The generated code the last row of the Hessian ran (the gradient's, differentiated)."""
        if self._last is None:
            raise SrcDiffError("no source before the first call: the code depends on the arguments' shapes",
                               hint="call it once first")
        return self._last.source


def hessian(f, wrt=0):
    """The Hessian of a scalar `f`: the Jacobian of its gradient, whose code srcdiff
    differentiates again.  With respect to a tree it is a tree of trees (JAX's convention:
    ``H[k1][k2]`` has shape ``leaf1.shape + leaf2.shape``); ``wrt=(0, 1)`` gives a tuple of tuples."""
    if isinstance(f, Composite):
        raise SrcDiffError(f"hessian takes a function of its own, not {f.__qualname__}",
                           hint="differentiate the function itself: srcdiff.hessian(f)")
    if isinstance(f, (GradFunction, Derivative)):  # a third derivative: the Jacobian of grad(grad(f))
        return Jacobian(grad(f, wrt), wrt, kind="hessian")
    return Hessian(f, wrt)


class NestedJacobian(Composite):
    """``jacobian(jacobian(f))``: per output element i, the Hessian of ``f(x)[i]``, built as the
    Jacobian of the gradient of ``sum(f(x) * e_i)`` (generated code, differentiated again)."""

    def __init__(self, inner: Jacobian, wrt=0):
        if isinstance(wrt, (tuple, list)) or isinstance(inner.pullbacks.wrt_spec, (tuple, list)):
            raise SrcDiffError("jacobian(jacobian(f)) takes one wrt parameter",
                               hint="ask for one parameter at a time")
        self.inner, self.wrt = inner, wrt
        self.__name__ = self.__qualname__ = f"jacobian({inner.__qualname__})"

    def __call__(self, *args, **kwargs):
        func = self.inner.pullbacks.func
        value = np.asarray(func(*args, **kwargs), dtype=float)
        seed, rows = np.zeros(value.shape), []
        hessian = Hessian(contracted(func), self.wrt)
        for i in range(value.size):
            seed.flat[i] = 1.0
            rows.append(np.asarray(hessian(*args, seed.copy(), **kwargs), dtype=float))
            seed.flat[i] = 0.0
        return np.stack(rows).reshape(value.shape + rows[0].shape)


_HVP: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def hvp(f, x, v, *args, **kwargs):
    """The Hessian of ``f(x, *args, **kwargs)`` with respect to `x` times `v`, without
    forming the Hessian: forward mode over the gradient's generated code (one sweep computes
    the gradient and its derivative along `v`).  `x` may be a tree, `v` a tree like it."""
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
        forward = tangents.get(plain)
        if forward is None:
            forward = tangents[plain] = JvpFunction(plain, wrt=call.wrt, with_value=False)
        _, product = forward(call.args, tuple(directions.get(n) for n in call.names))
    except SrcDiffError as exc:
        raise explained(exc) from None
    return call.rebuild(product if several else [product])


__all__ = ["Hessian", "Jacobian", "NestedJacobian", "hessian", "hvp", "jacobian", "jacobian_leaves"]
