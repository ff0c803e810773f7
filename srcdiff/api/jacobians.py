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
from .flatcall import Front, unchanged
from .forward import JvpFunction
from .gradients import GradFunction, grad
from .hessian_columns import JitColumns
from .hessian_forward import VectorForward, widths
from .jitting import checked, refused
from .plans import Plan, lowered_of, plan_for
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
        plan = self._plan
        if plan is not None and not kwargs and plan.matches(args):
            found = plan.run(args)
            if found is not None:
                return found
        call = self.pullbacks.target(args, kwargs)
        # (with jit the rows are the compiled form: trees, flattened, and keywords, bound, batched too)
        if self.jit or call.flat is None and not kwargs:
            value = call.value(self.pullbacks.func, args, kwargs)
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
        or the forward code and pullback it runs once per row."""
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


class Hessian(Composite):
    """The Hessian of a scalar `f`: per differentiated leaf, the Jacobian of its gradient's
    generated code with respect to every leaf (a dict of dicts, a tuple of tuples)."""

    def __init__(self, f, wrt=0, jit: str | None = None):
        self.front = Front(f, wrt, what="srcdiff.hessian")
        self.jit = jit
        self._refusal: SrcDiffError | None = None  # why forward mode over the gradient's code was refused
        self._gradients: dict = {}  # plain function -> its GradFunction
        self._pullbacks: dict = {}  # generated gradient -> its Pullbacks
        # generated gradient -> its JvpFunction (forward over reverse); (gradient, width) -> its
        # VectorForward (hessian_forward.py), False where vector forward mode refused it
        self._forwards: dict = {}
        self._last: JitColumns | VectorForward | JvpFunction | None = None
        self._plan: Plan | None = None  # the last call's batched code, for calls like it
        self.batched = Batched(seeded, jit)
        self.__name__ = self.__qualname__ = f"hessian({self.front.qualname})"

    def __call__(self, *args, **kwargs):
        plan = self._plan
        if plan is not None and not kwargs and plan.matches(args):
            return plan.run(args)
        call = self.front.call(args, kwargs)
        call.check(self.front.qualname)
        gradient = self._gradients.get(call.func)
        if gradient is None:
            several = call.flat is not None or call.tuple_result or len(call.wrt) > 1
            gradient = self._gradients[call.func] = GradFunction(call.func, call.wrt if several else call.wrt[0])
        rows, batched, lowereds, missing = [], [], [], []
        columns = self._forward(gradient, call) if self.jit else None  # numba: its loop over the columns
        if self.jit and columns is None:
            raise self._jit_refusal()
        for i in range(len(call.wrt)):
            if columns is not None:
                rows.append(None)
                missing.append(i)
                continue
            plain, _, _ = gradient.derivable(call.args, pick=i)
            leaf = np.asarray(call.args[call.names.index(call.wrt[i])])
            like = np.zeros(leaf.shape, dtype=leaf.dtype if leaf.dtype.kind == "f" else float)
            like = like if leaf.ndim else float(like)
            code, found = self.batched.code(plain, call.args, call.wrt, like), None
            try:  # (an error: the columns below compute it again, and raise f's own error at its line)
                found = code and self.batched.compute(self.batched.run_of(code), call.args, call.names, call.wrt, like)
            except SrcDiffError as exc:
                self.batched.refuse(plain, call.args, call.wrt, exc)
            if found is not None:  # all rows in one batched call
                self._last = self.batched
                rows.append(call.rebuild(found))
                batched.append((self.batched.run_of(code), call.names.index(call.wrt[i])))
                lowereds += [lowered_of(plain), *code[1]]
                continue
            rows.append(None)
            missing.append(i)
        if missing and columns is None and not self.jit:
            columns = self._forward(gradient, call)
        for i in missing:
            if columns is not None:
                rows[i] = call.rebuild(columns[i])
                continue
            plain, _, _ = gradient.derivable(call.args, pick=i)
            pullbacks = self._pullbacks.get(plain)
            if pullbacks is None:
                pullbacks = self._pullbacks[plain] = Pullbacks(plain, call.wrt, repeated=True)
            self._last = pullbacks
            value, pullback = pullbacks(*call.args)
            rows[i] = call.rebuild(jacobian_leaves(value, pullback))
        same = call.flat is None and len(args) == len(call.args) and all(a is b for a, b in zip(args, call.args))
        if len(batched) == len(call.wrt) and same:
            self._plan = plan_for(args, lowereds, self._replay(call, batched))
        elif not batched and columns is not None and isinstance(self._last, (VectorForward, JitColumns)) and same:
            plain, _, several = gradient.derivable(call.args)  # (what `_forward` ran: all columns in a few sweeps)
            self._plan = plan_for(args, [lowered_of(plain), self._last.lowered],
                                  self._replay_forward(call, self._last, several))
        return call.rebuild(rows)

    def _jit_refusal(self) -> SrcDiffError:
        """jit's refusal of a Hessian whose rows neither batching nor forward mode make."""
        why = explained(self._refusal) if self._refusal is not None else None
        if why is None:
            return refused(self.__qualname__, "forward mode over its gradient's code does not take this function")
        return refused(self.__qualname__, f"forward mode over its gradient's code, compiled, refuses it: {why.reason}",
                       why.location)

    def _forward(self, gradient: GradFunction, call) -> list | None:
        """Where batching refuses the gradient's code (a loop keeps a stack, lists): the
        Hessian's columns by forward mode over that code, one sweep per differentiated element
        (it computes the gradient and its derivative along the element at once), as
        ``blocks[i][j]`` of shape ``leaf_i.shape + leaf_j.shape``; None where forward mode
        refuses it too (then one pullback per row)."""
        leaves = [np.asarray(call.args[call.names.index(n)]) for n in call.wrt]
        dtypes = [leaf.dtype if leaf.dtype.kind == "f" else np.dtype(float) for leaf in leaves]
        zeros = {n: np.zeros(leaf.shape, dtype=d) if leaf.ndim else 0.0 for n, leaf, d in zip(call.wrt, leaves, dtypes)}
        try:
            plain, _, several = gradient.derivable(call.args)
            if self.jit and all(d == np.float64 for d in dtypes):  # numba: every column in one compiled loop
                compiled = self._forwards.get(("columns", plain))
                if compiled is None:
                    compiled = self._forwards[("columns", plain)] = JitColumns(plain, call.wrt, call.names)
                found = compiled.blocks(call.args, leaves, dtypes, several)
                self._last = compiled
                return found
            if all(d == np.float64 for d in dtypes):  # all columns in a few sweeps (float32: one per column)
                width, _ = widths(sum(leaf.size for leaf in leaves))
                # numbers all in one sweep: its unit seeds folded into its code
                folded = not self.jit and width == len(leaves) and not any(leaf.ndim for leaf in leaves)
                vector = self._forwards.get((plain, width, folded))
                if vector is None:
                    vector = self._forwards[(plain, width, folded)] = VectorForward(plain, call.wrt, call.names,
                                                                                    width, self.jit, folded)
                try:
                    if vector is False:
                        raise SrcDiffError("refused before")
                    found = vector.blocks(call.args, leaves, dtypes, several)
                except SrcDiffError as exc:
                    self._forwards[(plain, width, folded)] = False  # one sweep per column, below
                    self._refusal = exc
                else:
                    self._last = vector
                    return found
            forward = self._forwards.get(plain)
            if forward is None:
                forward = self._forwards[plain] = JvpFunction(plain, wrt=call.wrt, with_value=False, jit=self.jit)
            blocks: list = [[None] * len(leaves) for _ in leaves]
            for j, name in enumerate(call.wrt):
                columns = []
                for e in range(leaves[j].size):
                    unit: np.ndarray | float = 1.0
                    if leaves[j].ndim:
                        unit = np.zeros(leaves[j].shape, dtype=dtypes[j])
                        unit.flat[e] = 1.0
                    tangents = tuple(unit if n == name else zeros.get(n) for n in call.names)
                    _, product = forward(call.args, tangents)
                    columns.append(product if several else (product,))
                for i, leaf in enumerate(leaves):
                    stacked = np.stack([np.asarray(c[i], dtype=dtypes[i]) for c in columns], axis=-1)
                    blocks[i][j] = stacked.reshape(leaf.shape + leaves[j].shape)
        except SrcDiffError as exc:
            self._refusal = exc
            return None
        self._last = forward
        return blocks

    def _replay(self, call, batched: list):
        """The batched calls of a Hessian again, for other arguments like `call`'s."""
        names, wrt, compute, rebuild = call.names, call.wrt, self.batched.compute, call.rebuild

        def run(args):
            rows = []
            for made, index in batched:
                leaf = args[index]  # a float array (or a float): the signature says so
                # (compute reads the shape, size and dtype of `like`: a float array is its own)
                like = leaf if type(leaf) is np.ndarray and leaf.ndim else np.zeros(np.shape(leaf), dtype=leaf.dtype) \
                    if np.ndim(leaf) else 0.0
                rows.append(rebuild(compute(made, args, names, wrt, like)))
            return rebuild(rows)
        return run

    @staticmethod
    def _replay_forward(call, vector: VectorForward | JitColumns, several: bool):
        """The vector forward sweeps of a Hessian again, for other arguments like `call`'s."""
        indices, rebuild = [call.names.index(n) for n in call.wrt], call.rebuild
        dtypes = [np.dtype(float)] * len(indices)  # (float64 leaves: the only ones it takes)

        compute = vector.again if isinstance(vector, JitColumns) else vector.blocks

        def run(args):
            blocks = compute(args, [np.asarray(args[i]) for i in indices], dtypes, several)
            return rebuild([rebuild(row) for row in blocks])
        return run

    @property
    def source(self) -> str:
        """The generated code the last row of the Hessian ran (the gradient's, differentiated)."""
        if self._last is None:
            raise SrcDiffError("no source before the first call: the code depends on the arguments' shapes",
                               hint="call it once first")
        return self._last.source


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
        value = np.asarray(func(*args, **kwargs), dtype=float)
        seed, rows = np.zeros(value.shape), []
        hessian = Hessian(contracted(func), self.wrt)
        for i in range(value.size):
            seed.flat[i] = 1.0
            rows.append(np.asarray(hessian(*contracted_arguments(func, args, kwargs, seed.copy())), dtype=float))
            seed.flat[i] = 0.0
        return np.stack(rows).reshape(value.shape + rows[0].shape)


__all__ = ["Hessian", "Jacobian", "NestedJacobian", "hessian", "jacobian", "jacobian_leaves"]
