"""`srcdiff.vjp`: the value and the pullback of a function of the user's (api/pullbacks.py), of
a gradient (one whose value is a tree too: the Hessian's block by forward mode over the
gradient, which takes trees), or of a Jacobian (``vjp(jacobian(f))``: the adjoint contracted
with the Hessian of each output element, jacobian(jacobian(f))'s rows).
"""

from __future__ import annotations

import numpy as np

from ..errors import SrcDiffError
from ..frontend import trees
from ..frontend.callables import refuse_transformed
from .binding import normalize_wrt, wrt_of
from .derivatives import Derivative
from .forward import jvp, jvp_function
from .gradients import GradFunction
from .jacobians import Jacobian, NestedJacobian
from .jitting import checked
from .outer import TreeGradientError, plain_tree_gradient
from .pullbacks import Pullbacks
from .varkw import PerCall, bound
from .vjp_numba import numba_vjp


def vjp(f, *args, wrt=0, argnums=None, jit: str | None = None, **kwargs):
    """``(value, pullback)``: `f`'s value at `args` (and `kwargs`, f's keyword arguments), and the
    function that maps an adjoint of the value (same shape) to the gradient of ``sum(value *
    adjoint)`` with respect to `wrt` (a position or a parameter's name, shaped like that argument:
    a tree's gradient is a tree; a tuple `wrt` gives a tuple).
    With ``jit="numba"`` the pullback is the numba-compiled gradient of ``sum(f(*args) *
    adjoint)`` (api/vjp_numba.py): each call runs the forward computation again with it.
    `argnums` is JAX's spelling of integer `wrt` (unlike ``jax.vjp``, the pullback gives the
    gradients of `wrt` alone, by default of the first argument).  `f` may be a gradient of yours
    (``vjp(grad(f))``: Hessian-vector products) or a Jacobian (``vjp(jacobian(f))``)."""
    wrt = wrt_of(wrt, argnums)
    if isinstance(f, PerCall) and type(made := f.for_call(args, kwargs)) is Jacobian:
        f = made  # jacobian(f) of def f(*xs): the Jacobian made for this call's arguments
    if type(f) is Jacobian and not f.jit:
        return _of_a_jacobian(f, args, kwargs, wrt)
    if isinstance(f, GradFunction) and f.with_value and not (f.front.has_aux or f.options.jit or f.debug) \
            and not any(path for _, path in f.front.targets) and not checked(jit, "srcdiff.vjp"):
        return _of_value_and_grad(f, args, kwargs, wrt)
    if checked(jit, "srcdiff.vjp"):
        return numba_vjp(f, args, wrt, kwargs)
    try:
        return Pullbacks(bound(f, args, kwargs), wrt)(*args, **kwargs)  # def f(x, *args): the function this call gives
    except TreeGradientError as exc:
        found = plain_tree_gradient(exc.gradient, wrt)
        if found is None:
            raise
        positional = exc.gradient.front.binder.bind(args, kwargs)
        outer = exc.gradient if found[2] else GradFunction(exc.gradient.func, wrt)
        return exc.gradient(*positional), SymmetricPullback(outer, exc.gradient.front.names.index(found[0]), positional)


def _of_value_and_grad(f: GradFunction, args: tuple, kwargs: dict, wrt):
    """``vjp(value_and_grad(f))``: the value (f's value, its gradient) and the pullback of an adjoint
    (c, u): ``c * grad(f, wrt)`` plus the pullback of u through the gradient, ``vjp(grad(f))``'s."""
    roots = tuple(root for root, _ in f.front.targets)
    plain = GradFunction(f.func, roots if f.tuple_result else roots[0])
    _, through = vjp(plain, *args, wrt=wrt, **kwargs)
    return f(*args, **kwargs), ValueAndGradPullback(GradFunction(f.func, wrt)(*args, **kwargs), through)


class ValueAndGradPullback:
    """``(c, u) -> c * g + pullback(u)``, leaf by leaf (`g`: the value's gradient, a tree or a tuple)."""

    def __init__(self, gradient, through):
        self.gradient, self.through = gradient, through

    def __call__(self, adjoint):
        if not (isinstance(adjoint, tuple) and len(adjoint) == 2):
            raise SrcDiffError("the adjoint of value_and_grad's value is a pair (of the value, of the gradient)",
                               hint="pass (c, u): c a number, u shaped like the gradient")
        c, u = adjoint
        pulled = self.through(u)
        struct = trees.structure(pulled)
        scaled = trees.leaves(self.gradient, struct, [])
        total = [p + np.asarray(c, dtype=np.result_type(p)) * g
                 for p, g in zip(trees.leaves(pulled, struct, []), scaled)]
        return trees.unflatten(struct, iter(total))


class SymmetricPullback:
    """The pullback of a plain gradient of f with respect to A whose value is a tree (a dict, a
    dataclass of parameters), with respect to B: ``g -> H[B][A] g`` (the Hessian being symmetric,
    the transpose of the block H[A][B]), by forward mode over ``grad(f, wrt=B)`` along g at A
    (``jvp(grad(f))``, which takes trees)."""

    def __init__(self, outer: GradFunction, inner: int, positional: tuple):
        self.gradient, self.inner, self.positional = outer, inner, positional

    def __call__(self, g):
        tangents: list = [None] * len(self.positional)
        tangents[self.inner] = g
        return jvp(self.gradient, self.positional, tuple(tangents))[1]

    @property
    def source(self) -> str:
        return jvp_function(self.gradient).source_for(*self.positional)


def _of_a_jacobian(jac: Jacobian, args: tuple, kwargs: dict, wrt):
    """``vjp(jacobian(f))`` of a plain function `f` of the user's, with respect to the Jacobian's own
    parameter: for f of one value, ``vjp(grad(f))``; else (an array or a number parameter) the
    pullback of U is ``sum(U * d jacobian(f) / dx)``, the rows of ``jacobian(jacobian(f))`` (one
    Hessian per element of f's value) contracted with U."""
    func, spec = jac.pullbacks.func, jac.pullbacks.wrt_spec
    try:
        front = jac.pullbacks.front
        names, hidden = (list(front.names), front.target.hidden) if front is not None else ([], ())
        same = bool(names) and normalize_wrt(wrt, None, names, hidden) == normalize_wrt(spec, None, names, hidden)
    except SrcDiffError:
        same = False
    if isinstance(func, (GradFunction, Derivative)) or not same or isinstance(spec, (tuple, list)):
        refuse_transformed(jac, "srcdiff.vjp")  # (a mixed or tuple derivative of a Jacobian: not written)
    if np.ndim(func(*args, **kwargs)) == 0:  # f of one value: its Jacobian is its gradient (a tree's too)
        return vjp(GradFunction(func, spec), *args, wrt=wrt, **kwargs)
    value = jac(*args, **kwargs)
    if not isinstance(value, (np.ndarray, float, np.floating)):
        refuse_transformed(jac, "srcdiff.vjp")  # (the Jacobian of a tree: a tree, not written)
    try:
        nested = NestedJacobian(jac, spec)(*args, **kwargs)
    except SrcDiffError as exc:  # (said of jacobian(jacobian(f)), which the user did not write)
        raise SrcDiffError(f"vjp({jac.__qualname__}) differentiates it again: {exc.reason}", exc.location,
                           exc.hint) from None
    return value, ContractedPullback(np.shape(value), nested)


class ContractedPullback:
    """``U -> sum(U * dJ/dx)`` over J's axes, given dJ/dx (J's shape, then x's)."""

    def __init__(self, shape: tuple, nested: np.ndarray):
        self.shape, self.nested = shape, nested

    def __call__(self, g):
        if np.shape(g) != self.shape:
            raise SrcDiffError(f"the adjoint has shape {np.shape(g)}, but the value has shape {self.shape}",
                               hint="pass an adjoint shaped like the function's value")
        # float32 in, float32 out (the nested Jacobian keeps the value's floating dtype)
        out = np.tensordot(np.asarray(g, dtype=self.nested.dtype), self.nested, axes=len(self.shape))
        return out if np.ndim(out) else float(out)


__all__ = ["ContractedPullback", "SymmetricPullback", "ValueAndGradPullback", "vjp"]
