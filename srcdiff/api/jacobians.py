"""Vector-valued functions and second derivatives: `jacobian`, `hessian`, `hvp`.

A Jacobian is the gradient of ``sum(f(x) * cotangent)`` batched over every basis cotangent
(`Batched`: driver/batched.py), one call for all rows; where batching refuses the code, the
pullback (api/pullbacks.py) runs once per output element.  A Hessian is the Jacobian of the
gradient, whose code srcdiff generated and differentiates again (driver/higher.py).  A
Hessian-vector product is forward mode over the gradient's code (api/hvp.py), one sweep.
Arguments may be trees, with JAX's structure conventions: the Jacobian with respect to a dict
is a dict of ``value.shape + leaf.shape`` arrays, the Hessian a dict of dicts (a tuple of
tuples for ``wrt=(0, 1)``), `hvp`'s product shaped like `x`.
"""

from __future__ import annotations

from typing import Any, Callable, overload

import numpy as np

from ..driver.higher import explained
from ..driver.seeded import seeded
from ..errors import SrcDiffError
from ..ir import shapes
from .batched_rows import Batched
from .binding import wrt_of
from .contract import contracted, contracted_arguments
from .derivatives import Composite, Derivative
from .flatcall import unchanged
from .gradients import GradFunction, grad
from .hessian_columns import JitColumns
from .hessians import Hessian
from .jitting import checked, refused
from .mixed_blocks import MixedBlock
from .outer import TreeGradientError, plain_tree_gradient
from .plans import Plan, plan_for
from .pullbacks import Pullbacks, jacobian_leaves, returned_at, value_shape
from .varkw import PerCall, per_call


class Jacobian(Composite):
    """The Jacobian of `f` with respect to `wrt`: shape ``value.shape + wrt.shape`` (per leaf
    for a tree, a tuple for a tuple `wrt`)."""

    def __init__(self, f, wrt=0, kind="jacobian", jit: str | None = None):
        self.pullbacks = Pullbacks(f, wrt, repeated=True, what=f"srcdiff.{kind}")
        self.jit = jit
        self.batched = Batched(seeded if isinstance(f, (GradFunction, Derivative)) else contracted, jit)
        self._forward_columns: dict = {}  # plain function -> its JitColumns (jit, where batching refuses)
        self._last_columns: JitColumns | None = None
        self._plan: Plan | None = None  # the last batched call, for calls like it
        self._hessian: Hessian | MixedBlock | None = None  # jacobian(grad(f)) of a tree (TreeGradientError)
        name = getattr(f, "__qualname__", getattr(f, "__name__", "f"))
        self.__name__ = self.__qualname__ = f"{kind}({name})"

    def _replay(self, call, made, lowereds, value):
        """The batched call of `made` again for other arguments like `call`'s; None (then the
        full path) when the value's signature differs from the one the code was made for."""
        func, names, wrt, like = call.func, call.names, call.wrt, shapes.signature(np.asarray(value))

        def run(args):
            value = func(*unchanged(args))
            if shapes.signature(np.asarray(value)) != like:
                return None
            found = self.batched.compute(run_batched, args, names, wrt, value)
            return None if found is None or not self._exact(found) else call.rebuild(found)
        run_batched = self.batched.run_of((made, lowereds))
        return run

    def __call__(self, *args, **kwargs):
        if self._hessian is not None:
            return self._hessian(*args, **kwargs)
        try:
            return self._call(args, kwargs)
        except TreeGradientError as exc:  # jacobian(grad(f)) of a tree, with respect to its own parameter
            found = plain_tree_gradient(exc.gradient, self.pullbacks.wrt_spec)
            if found is None or not found[2] and any(path for _, path in found[1][0]):
                raise  # (a mixed block with respect to a path into a tree: refused as before)
            if found[2]:
                self._hessian = Hessian(exc.gradient.func, self.pullbacks.wrt_spec, self.jit)
            else:  # with respect to other parameters: the Hessian's mixed block (api/mixed_blocks.py)
                roots = tuple(root for root, _ in found[1][0])
                self._hessian = MixedBlock(exc.gradient, found[0], roots, found[1][1], self.jit)
            return self._hessian(*args, **kwargs)

    def _call(self, args: tuple, kwargs: dict):
        plan = self._plan
        if plan is not None and not kwargs and plan.matches(args):
            found = plan.run(args)
            if found is not None:
                return found
        call = self.pullbacks.target(args, kwargs)
        # (with jit the rows are the compiled form: trees, flattened, and keywords, bound, batched too)
        if self.jit or call.flat is None and not kwargs:
            try:
                value = call.value(self.pullbacks.func, args, kwargs)
            except SrcDiffError:
                raise
            except Exception:  # noqa: BLE001  (generated code run as it is: f itself says where, at its line)
                self.pullbacks.func(*args, **kwargs)
                raise
            value_shape(value, self.pullbacks.func)
            code = self.batched.code(call.func, call.args, call.wrt, value)
            if code is not None:
                made, lowereds = code
                try:
                    found = self.batched.compute(self.batched.run_of(code), call.args, call.names, call.wrt, value)
                except SrcDiffError as exc:  # row by row computes it again, and raises f's own error at its line
                    self.batched.refuse(call.func, call.args, call.wrt, exc)  # (numba: forward mode's columns)
                    found = None
                if found is not None and not self._exact(found):
                    return self._first_order(call, args, kwargs, found)
                elif found is not None:
                    self._last_columns = None
                    if all(a is b for a, b in zip(args, call.args)) and len(args) == len(call.args):
                        self._plan = plan_for(args, lowereds, self._replay(call, made, lowereds, value))
                    return call.rebuild(found)
        return self._row_by_row(call, args, kwargs)

    def _row_by_row(self, call, args, kwargs):
        """The rows by first-order code: one pullback per row, or with jit (where one pullback per
        row would run NumPy) forward mode's columns, compiled, or refused."""
        if self.jit:
            return self._columns(call, call.value(self.pullbacks.func, args, kwargs))
        value, pullback = self.pullbacks(*args, **kwargs)
        return pullback.call.rebuild(jacobian_leaves(value, pullback))

    def _exact(self, found: list) -> bool:
        """Whether batched rows of `f` (not of a gradient) are all finite.  The code batching reads
        back is the form srcdiff differentiates again, which gives up the exact 0 of a zero
        adjoint at a point of infinite slope (``np.sqrt(x @ x) ** 2`` at 0: ``0 / 0``,
        ad/zero_factors.py); grad, vjp and jvp keep it, and so must a Jacobian."""
        return self.batched.seeder is not contracted or all(np.isfinite(np.sum(leaf)) for leaf in found)

    def _first_order(self, call, args, kwargs, found):
        """The rows again by first-order code where the batched ones are not finite: one pullback
        per row (with jit, forward mode's compiled columns); the batched rows where that refuses."""
        try:
            return self._row_by_row(call, args, kwargs)
        except SrcDiffError:
            return call.rebuild(found)

    def _columns(self, call, raw):
        """With jit, where the rows cannot be batched: the columns by forward mode over `f`'s
        code, compiled with the loop over them (api/hessian_columns.py); else refused.  `raw`: f's value."""
        leaves = [np.asarray(call.args[call.names.index(n)]) for n in call.wrt]
        if any(leaf.dtype.kind != "f" for leaf in leaves):
            raise self._refusal(call)
        if isinstance(raw, (tuple, list)):  # (the columns' loop stores one array: NumPy's path stacks the values)
            raise SrcDiffError(f"{self.__qualname__} with jit='numba': the function returns a {type(raw).__name__} "
                               "of values, and the compiled columns take one array", returned_at(call.func),
                               "return np.array([...]) (or np.stack) of the values, or leave jit out")
        value = np.asarray(raw)
        if value.dtype.kind != "f":
            raise self._refusal(call)
        columns = self._forward_columns.get(call.func)
        if columns is None:
            columns = self._forward_columns[call.func] = JitColumns(call.func, call.wrt, call.names)
        blocks = columns.blocks(call.args, leaves, [leaf.dtype for leaf in leaves], False, [value.shape])
        self._last_columns = columns
        return call.rebuild(blocks[0])

    def _refusal(self, call) -> SrcDiffError:
        """Why the batched code, the one form jit compiles, cannot run this call."""
        why = self.batched.refusal(call.func, call.args, call.wrt)
        if why is None:
            return refused(self.__qualname__, "the function's value must be a non-empty float array or a float")
        why = explained(why)
        return refused(self.__qualname__, f"its rows cannot be batched: {why.reason}", why.location)

    @property
    def source(self) -> str:
        """The generated code the Jacobian ran last: the batched pullback over a batch of seeds,
        or the forward code and pullback it runs once per row (the Hessian's, for a tree's gradient)."""
        if self._hessian is not None:
            return self._hessian.source
        if self._last_columns is not None:
            return self._last_columns.source
        if self.batched.last is not None:
            return self.batched.source
        return self.pullbacks.source


@overload  # a Jacobian is also a callable: the first signature that matches applies
def jacobian(f: Jacobian, wrt: Any = 0, *, argnums: Any = None, jit: str | None = None) -> NestedJacobian: ...  # type: ignore[overload-overlap]
@overload
def jacobian(f: Callable[..., Any], wrt: Any = 0, *, argnums: Any = None, jit: str | None = None) -> Jacobian: ...
def jacobian(f, wrt=0, *, argnums=None, jit: str | None = None) -> Jacobian | NestedJacobian:
    """The Jacobian of a vector-valued `f`: all rows in one batched call of the pullback (one
    pullback per output element where batching refuses the code).  With ``jit="numba"`` the
    batched code is compiled by numba; a function whose rows cannot be batched is refused
    at its line (never run with NumPy instead).  `argnums` is JAX's spelling of integer `wrt`."""
    jit, wrt = checked(jit, "srcdiff.jacobian"), wrt_of(wrt, argnums)
    if isinstance(f, Jacobian):
        if jit:
            raise refused("jacobian(jacobian(f))", "not compiled yet", None)
        return NestedJacobian(f, wrt)
    if isinstance(f, PerCall):
        return per_call(f, lambda g: jacobian(g, wrt, jit=jit))  # of grad(f) for f taking **opts: per call
    return per_call(f, lambda plain: Jacobian(plain, wrt, jit=jit))


def hessian(f, wrt=0, *, argnums=None, jit: str | None = None):
    """The Hessian of a scalar `f`: the Jacobian of its gradient, whose code srcdiff
    differentiates again.  With respect to a tree it is a tree of trees (JAX's convention:
    ``H[k1][k2]`` has shape ``leaf1.shape + leaf2.shape``); ``wrt=(0, 1)`` gives a tuple of tuples.
    With ``jit="numba"`` the code that makes the rows (the batched gradient of the gradient,
    else the forward sweeps over the gradient's code) is compiled by numba; what numba or
    those transforms cannot take is refused at the user's line (never run with NumPy).
    `argnums` is JAX's spelling of integer `wrt`."""
    jit, wrt = checked(jit, "srcdiff.hessian"), wrt_of(wrt, argnums)
    if isinstance(f, Composite):
        raise SrcDiffError(f"hessian takes a function of its own, not {f.__qualname__}",
                           hint="differentiate the function itself: srcdiff.hessian(f)")
    if isinstance(f, (GradFunction, Derivative)):  # a third derivative: the Jacobian of grad(grad(f))
        return Jacobian(grad(f, wrt), wrt, kind="hessian", jit=jit)
    if isinstance(f, PerCall):
        return f.then(lambda g: hessian(g, wrt, jit=jit))
    return per_call(f, lambda plain: Hessian(plain, wrt, jit))  # def f(x, **opts): one per call


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
        value = np.asarray(func(*args, **kwargs))
        dtype = value.dtype if value.dtype.kind == "f" else np.dtype(float)  # float32 in, float32 out
        seed, rows = np.zeros(value.shape, dtype=dtype), []
        hessian = Hessian(contracted(func), self.wrt)
        for i in range(value.size):
            seed.flat[i] = 1.0
            rows.append(np.asarray(hessian(*contracted_arguments(func, args, kwargs, seed.copy())), dtype=dtype))
            seed.flat[i] = 0.0
        return np.stack(rows).reshape(value.shape + rows[0].shape)


__all__ = ["Hessian", "Jacobian", "NestedJacobian", "hessian", "jacobian", "jacobian_leaves"]
