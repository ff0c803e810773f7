"""Reverse mode for any output: `vjp`, and the pullbacks `jacobian` and `hessian` run.

A pullback is generated code: for a call's arguments, the function's forward code followed
by a closure that maps an adjoint of the output (any shape) to the gradient
(`driver.Options(pullback=True)`, the form user helpers' adjoints take).  Arguments may be
trees, and the function a method or a partial (api/flatcall.py): the pullback of the
flattened function gives one gradient per leaf, built back into the arguments' structure.
"""

from __future__ import annotations

import ast
import types
from typing import Any, Callable, cast

import numpy as np

from .. import driver
from ..driver.higher import explained
from ..errors import Location, SrcDiffError
from ..frontend.callables import refuse_transformed
from ..frontend.parse import parse_function
from ..ir import shapes
from .derivatives import Composite, Derivative
from .flatcall import FlatCall, Front
from .gradients import GradFunction
from .outer import outer_call


class Pullbacks:
    """The pullback code of `func` with respect to `wrt`, compiled once per argument signature."""

    def __init__(self, func, wrt=0, repeated: bool = False, what: str = "srcdiff.vjp"):
        #: `repeated`: the caller runs the code more than once a call (a Jacobian's value, then its
        #: rows), so a draw from a stream the process shares is refused (driver.refuse_shared_draws)
        self.func, self.wrt_spec, self.repeated = func, wrt, repeated
        refuse_transformed(func, what)  # (`what`: the public function the caller is)
        self._last: driver.Variant | None = None
        self._compiled: dict = {}  # (function, wrt, signature) -> (Lowered, Variant): the fast way back
        if isinstance(func, Composite) or not callable(func):
            raise SrcDiffError(f"jacobian, hessian and vjp take a function (or its srcdiff.grad), got "
                               f"{getattr(func, '__qualname__', type(func).__name__)}",
                               hint="differentiate the function itself: srcdiff.hessian(f), srcdiff.jacobian(f)")
        self._front = None if isinstance(func, (GradFunction, Derivative)) else Front(func, wrt, what="srcdiff.vjp")

    @property
    def front(self) -> Front | None:
        """The user's function and its `wrt` targets (None for a srcdiff gradient)."""
        return self._front

    def target(self, args: tuple, kwargs: dict) -> FlatCall:
        """The plain call that computes ``func(*args, **kwargs)`` (jacobian's batched rows run it)."""
        return self._target(args, kwargs)

    def _target(self, args: tuple, kwargs: dict) -> FlatCall:
        """The plain call that computes ``func(*args, **kwargs)``: a function and its arguments."""
        func = self.func
        if self._front is not None:
            target = self._front.target.func
            if not isinstance(target, (types.FunctionType, type)):
                parse_function(target)  # a ufunc or a builtin: refused as grad refuses it, before f runs
            call = self._front.call(args, kwargs)
            call.check(self._front.qualname)
            return call
        call, _, _ = outer_call(func, func.positional(args, kwargs), self.wrt_spec, func.__qualname__)
        call.check(func.__qualname__)
        return call

    def variant(self, args: tuple, kwargs: dict | None = None) -> tuple[driver.Variant, FlatCall]:
        call = self._target(args, kwargs or {})
        several = call.flat is not None or call.tuple_result or len(call.wrt) > 1
        key = tuple(map(shapes.signature, call.args))
        hit = self._compiled.get((call.func, call.wrt, key))
        if hit is not None and driver.is_current(hit[0], call.func) \
                and hit[0].specialised_for(call.args, hit[0].params):
            self._last = hit[1]
            return hit[1], call
        options = driver.Options(pullback=True, tuple_result=several)
        try:
            found = driver.lowered(call.func, call.wrt, options, call.args)
            if self.repeated:
                driver.refuse_shared_draws(found)
            made = self._last = driver.variant(found, key)
        except SrcDiffError as exc:
            raise explained(exc) from None
        self._compiled[(call.func, call.wrt, key)] = (found, made)
        return made, call

    def __call__(self, *args, **kwargs):
        """``(value, pullback)`` for these arguments.  The pullback may be called many times;
        it keeps what it needs of the arguments (changing them afterwards changes nothing)."""
        made, call = self.variant(args, kwargs)
        values = tuple(np.array(a) if isinstance(a, np.ndarray) else a for a in call.args)
        try:
            value, pullback = made.function(*values)
        except SrcDiffError as exc:  # (a refusal the generated code meets as it runs: at the user's line)
            raise explained(exc) from None
        return value, Pullback(made, values, pullback, value_shape(value, self.func), call)

    @property
    def source(self) -> str:
        if self._last is None:
            raise SrcDiffError("no source before the first call: the code depends on the arguments' shapes",
                               hint="call it once first")
        return driver.full_source(self._last)


class Pullback:
    """Maps an adjoint of the value (same shape) to the gradient, shaped like the `wrt`
    targets (trees included); `.source` is its code."""

    def __init__(self, made: driver.Variant, args: tuple, pullback, shape: tuple, call: FlatCall):
        self._made, self._args, self._pullback, self._calls = made, args, pullback, 0
        # its backward loops pop what the forward saved, its own or a called helper adjoint's
        self._again = ".pop()" in driver.full_source(made)
        self.shape = shape  # the value's, which the adjoint must have
        self.call = call
        self._several = call.flat is not None or call.tuple_result or len(call.wrt) > 1

    def leaves(self, g) -> list:
        """The gradient of ``sum(value * g)``, one entry per differentiated leaf."""
        if np.shape(g) != self.shape:
            raise SrcDiffError(f"the adjoint has shape {np.shape(g)}, but the value has shape {self.shape}",
                               hint="pass an adjoint shaped like the function's value")
        self._calls += 1
        if self._calls > 1 and self._again:  # the stacks are used up: run the forward sweep again
            self._pullback = cast(Callable[..., Any], self._made.function)(*self._args)[1]
        try:
            found = self._pullback(g)
        except SrcDiffError as exc:
            raise explained(exc) from None
        except Exception as exc:  # noqa: BLE001  the closure runs outside the forward's try: located here
            driver.CACHE.origins.raise_located(exc)
            raise
        return list(found) if self._several else [found]

    def __call__(self, g):
        return self.call.rebuild(self.leaves(g))

    @property
    def source(self) -> str:
        """The generated code: the forward computation, then this pullback as a closure."""
        return driver.full_source(self._made)


def jacobian_leaves(value, pullback: Pullback) -> list:
    """One ``value.shape + leaf.shape`` array per differentiated leaf: one backward pass per
    output element."""
    value = np.asarray(value)  # float32 in, float32 out: seeds and rows keep the floating dtype
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


def value_shape(value, func) -> tuple:
    """The shape of `func`'s value as vjp and jacobian read it: a tuple of values of one shape
    stacks (``(2,) + shape``); one of values of different shapes is refused at func's def line
    (NumPy cannot stack it)."""
    if isinstance(value, (tuple, list)) and len({np.shape(v) for v in value}) > 1:
        code = getattr(getattr(func, "__wrapped__", func), "__code__", None)
        where = Location(code.co_filename, code.co_firstlineno) if code is not None else None
        raise SrcDiffError(f"the function returns a tuple of values of different shapes "
                           f"({', '.join(str(np.shape(v)) for v in value)}): vjp and jacobian take one array, "
                           "or a tuple of values of one shape", where,
                           "differentiate each output on its own (a function returning one of them), or return "
                           "np.concatenate([np.ravel(a), np.ravel(b)]); jvp takes the tuple as it is")
    return np.shape(value)


def returned_at(func) -> Location | None:
    """The line of `func`'s last ``return`` (its ``def`` where it has none or has no source)."""
    try:
        parsed = parse_function(func)
    except SrcDiffError:
        return None
    stack, returns = list(parsed.tree.body), []
    while stack:  # (not into nested functions: their returns are theirs)
        node = stack.pop()
        if isinstance(node, ast.Return):
            returns.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    return parsed.location(max(returns, key=lambda r: r.lineno) if returns else parsed.tree)


__all__ = ["Pullback", "Pullbacks", "returned_at", "value_shape"]
