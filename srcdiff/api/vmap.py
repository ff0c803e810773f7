"""`vmap`: a function run over a leading batch axis of some of its arguments in one call
(JAX's meaning), by the batching transform (driver/batched.py, ad/batching.py).

``vmap(f, in_axes=(None, 0, 0))(w, X, Y)`` is ``np.stack([f(w, X[i], Y[i]) for i ...])``
computed by one batched function whose source `.source` prints; values that do not depend
on a batched argument are computed once.  ``vmap(grad(loss), in_axes=(None, 0, 0))`` batches
the gradient's generated code: per-example gradients.
"""

from __future__ import annotations

import dataclasses
import inspect
import types
from typing import Callable, cast

import numpy as np

from ..driver.cache import Options
from ..driver.compile import variant
from ..driver.higher import explained
from ..driver.lowering import lowered
from ..errors import SrcDiffError
from ..frontend.callables import refuse_transformed, resolve
from ..frontend.parse import parse_function
from ..ir import shapes
from .gradients import GradFunction
from .jitting import checked, runner, source_of
from .plans import Plan, lowered_of, plan_for

BATCHED = Options(mode="batched")


def row_of(value):
    """One example of a batched argument: its first row (a Python float for a vector of floats)."""
    row = value[0]
    if isinstance(row, np.floating) and type(row) is np.float64:
        return float(row)
    return row


def batched_variant(func, names: tuple[str, ...], row: tuple):
    """The batched code of plain `func` over the parameters `names`, compiled for one example
    `row` of the positional arguments (cached per signature, as every variant is)."""
    return batched_code(func, names, row)[1]


def batched_code(func, names: tuple[str, ...], row: tuple, jit: str | None = None):
    """(the `Lowered` batched function, its `Variant` for `row`): `batched_variant` with what
    it was compiled from (a `Plan` checks it is still current); `jit` as `Options.jit`."""
    found = lowered(func, names, BATCHED if jit is None else Options(mode="batched", jit=jit), row)
    static = [n for n in names if n in found.statics or n in found.constants]
    if static:  # the code is specialised on one example's value: it would be every example's
        raise SrcDiffError(f"{func.__qualname__}: {', '.join(static)} decides the code's structure (a loop count, "
                           "a shape, a flag), so it must be the same for every example",
                           found.parsed.location(found.parsed.tree), "pass it with in_axes None")
    return found, variant(found, tuple(map(shapes.signature, row)), row)


def parameter_names(func) -> list[str]:
    tree = parse_function(func).tree
    return [a.arg for a in tree.args.posonlyargs + tree.args.args]


def with_defaults(func, args: list) -> list:
    """`args` followed by the defaults of the positional parameters after them: the batched code
    is made for every parameter, and one left to its default is the same for every example."""
    if isinstance(func, GradFunction):
        return list(func.front.binder.bind(tuple(args), {}))
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return list(args)
    out = list(args)
    for p in params[len(args):]:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.default is p.empty:
            break
        out.append(p.default)
    return out


def bound_parts(f, args: list, axes: list):
    """A partial, a method or a callable instance (``vmap(partial(loss, power=3))``, ``vmap(model.loss)``)
    as its function, with what it binds passed as arguments of their own, the same for every example
    (in_axes None), as grad reads them (frontend/callables.py); anything else as it is."""
    if isinstance(f, GradFunction) or callable(getattr(type(f), "srcdiff_function", None)):
        return f, args, axes
    target = resolve(f)
    if not target.prefix and not target.keywords:
        return f, args, axes
    try:
        params = list(inspect.signature(cast(Callable, target.func)).parameters.values())
    except (TypeError, ValueError):
        return f, args, axes
    plain = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if set(target.keywords) - {p.name for p in plain}:
        return f, args, axes  # a keyword-only parameter: the call is refused as it was
    given = list(zip(args, axes))
    out, out_axes = list(target.prefix), [None] * len(target.prefix)
    for p in plain[len(target.prefix):]:
        if p.name in target.keywords:
            out.append(target.keywords[p.name])
            out_axes.append(None)
        elif given:
            value, axis = given.pop(0)
            out.append(value)
            out_axes.append(axis)
        elif p.default is not p.empty and any(q.name in target.keywords for q in plain[len(out):]):
            out.append(p.default)  # a default before a parameter the partial gives
            out_axes.append(None)
        else:
            break
    if given:
        return f, args, axes  # more arguments than the function takes: Python's own error, as before
    return target.func, out, out_axes


def _holds_arrays(value) -> bool:
    """Whether a list or tuple holds arrays (at any depth): a tree of them, not one array's rows."""
    return isinstance(value, (list, tuple)) and \
        any((isinstance(item, np.ndarray) and item.ndim > 0) or _holds_arrays(item) for item in value)


class VmapFunction:
    """`f` over a leading batch axis: ``in_axes`` an int or None, or one per positional argument."""

    def __init__(self, f, in_axes=0, out_axes=0, jit: str | None = None):
        self.jit = checked(jit, "srcdiff.vmap")
        if not callable(f):
            raise SrcDiffError(f"srcdiff.vmap needs a function, got {type(f).__name__}")
        refuse_transformed(f, "srcdiff.vmap")
        if out_axes != 0:
            raise SrcDiffError(f"srcdiff.vmap: out_axes={out_axes!r} is not supported",
                               hint="use out_axes=0 and np.moveaxis the result")
        if not (in_axes is None or isinstance(in_axes, int) or
                (isinstance(in_axes, (tuple, list)) and all(a is None or isinstance(a, int) for a in in_axes))):
            raise SrcDiffError(f"srcdiff.vmap: in_axes must be an int, None or a tuple of them, got {in_axes!r}")
        self.func, self.in_axes = f, in_axes
        self._last = None
        self._plan: Plan | None = None  # the last call's batched code, for calls like it
        name = getattr(f, "__qualname__", getattr(f, "__name__", "f"))
        self.__name__ = self.__qualname__ = f"vmap({name})"

    def _axes(self, args: tuple) -> list:
        if isinstance(self.in_axes, (tuple, list)):
            if len(self.in_axes) != len(args):
                raise SrcDiffError(f"{self.__qualname__}: in_axes has {len(self.in_axes)} entries for "
                                   f"{len(args)} arguments", hint="give one axis (or None) per argument")
            return list(self.in_axes)
        return [self.in_axes] * len(args)

    def _batched_array(self, value, axis: int) -> np.ndarray:
        """`value`, batched along `axis`, as an array; a tree (a dict, a list or tuple of arrays) is
        refused: JAX maps the axis of each of its leaves, where np.asarray would stack the leaves and
        map over them (a tuple ``(W, b)`` of one shape batched over W and b: silently another map)."""
        try:
            array = np.asarray(value)
        except ValueError:
            array = None
        if isinstance(value, dict) or array is None or array.dtype == object or _holds_arrays(value):
            message = (f"{self.__qualname__}: in_axes {axis} of a {type(value).__name__} argument: vmap batches "
                       "arrays (and lists of numbers), not trees of them")
            self._refuse_at_def(message, "pass the arrays as parameters of their own, each with its in_axes")
        return array

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise SrcDiffError(f"{self.__qualname__}: pass the arguments by position",
                               hint="in_axes gives one axis per positional argument")
        axes = self._axes(args)
        self._refuse_trees(args)
        if all(a is None for a in axes):
            raise SrcDiffError(f"{self.__qualname__}: no argument has a batch axis", hint="set in_axes")
        moved, sizes = [], set()
        for value, axis in zip(args, axes):
            if axis is not None:
                value = self._batched_array(value, axis)
                if not -value.ndim <= axis < value.ndim:
                    raise SrcDiffError(f"{self.__qualname__}: in_axes {axis} of an argument of shape {value.shape}")
                value = np.moveaxis(value, axis, 0) if axis not in (0, -value.ndim) else value
                sizes.add(value.shape[0])
            moved.append(value)
        if len(sizes) > 1:
            raise SrcDiffError(f"{self.__qualname__}: the batched arguments have different sizes {sorted(sizes)}",
                               hint="give every batched argument the same length along its batch axis")
        if 0 in sizes:
            raise SrcDiffError(f"{self.__qualname__}: a batch of no examples", hint="pass at least one example")
        func, moved, axes = bound_parts(self.func, moved, list(axes))
        full = with_defaults(func, moved)  # the defaults the call leaves out, passed on unbatched
        moved, axes = full, list(axes) + [None] * (len(full) - len(moved))
        plan = self._plan
        if plan is not None and plan.matches(moved):
            return plan.run(*moved)
        row = tuple(row_of(v) if a is not None else v for v, a in zip(moved, axes))
        lowereds = []
        try:
            if isinstance(func, GradFunction):
                func, call, _ = func.derivable(row, batching=True)
                if call.flat is not None:  # named at the user's def line: which function, and why
                    user = self.func.front.target.func
                    raise parse_function(user).error(
                        parse_function(user).tree, f"{self.__qualname__}: the gradient of a function taking a tree "
                        "(a dict, list, tuple or dataclass argument), a method or a partial cannot be batched yet",
                        "pass the arrays as parameters of their own")
                lowereds.append(lowered_of(func))
            names = parameter_names(func)
            batched = tuple(n for n, a in zip(names, axes) if a is not None)
            found, made = batched_code(func, batched, row, jit=self.jit)
            self._last = made
            run = runner(made, found, self.jit)
            result = run(*moved)  # (with jit: numba compiles it here, or refuses it at its line)
        except SrcDiffError as exc:
            raise explained(exc, batching=isinstance(self.func, GradFunction)) from None
        self._plan = plan_for(moved, [*lowereds, found], run)
        return result

    def _refuse_trees(self, args: tuple) -> None:
        """A dict, namedtuple or dataclass argument (a tree of parameters, which grad takes) is
        refused by name, whatever its in_axes: the batched code takes arrays and numbers (and
        lists of them), and would otherwise refuse the first line that reads the tree."""
        for position, value in enumerate(args):
            if isinstance(value, dict) or (isinstance(value, tuple) and hasattr(value, "_fields")) or (
                    dataclasses.is_dataclass(value) and not isinstance(value, type)) or (
                    hasattr(value, "__dict__") and not callable(value) and not isinstance(value, types.ModuleType)
                    and not isinstance(value, (np.ndarray, np.generic))):
                message = (f"{self.__qualname__}: argument {position} is a {type(value).__name__} (a tree of "
                           "parameters, an object); vmap takes arrays and numbers, not trees or objects, yet")
                self._refuse_at_def(message, "pass the arrays (and numbers) it holds as parameters of their own")

    def _refuse_at_def(self, message: str, hint: str) -> None:
        """Raise `message` at the def line of the function mapped (without a line where it has none)."""
        try:
            user = self.func.front.target.func if isinstance(self.func, GradFunction) else resolve(self.func).func
            parsed = parse_function(user)
        except SrcDiffError:  # a builtin, a partial, a callable object: no line to name
            raise SrcDiffError(message, hint=hint) from None
        raise parsed.error(parsed.tree, message, hint)

    @property
    def source(self) -> str:
        """The batched code the last call ran."""
        if self._last is None:
            raise SrcDiffError("no source before the first call: the code depends on the arguments' shapes",
                               hint="call it once first")
        return source_of(self._last, self.jit)


def vmap(f, in_axes=0, out_axes=0, *, jit: str | None = None) -> VmapFunction:
    """`f` mapped over a leading axis of the arguments `in_axes` marks (0, another int moved
    to the front, or None for an argument shared by every example), in one call of batched
    code (JAX's ``vmap``).  Results have the batch axis first.  ``vmap(srcdiff.grad(loss),
    in_axes=(None, 0, 0))`` gives per-example gradients.  A batched argument is an array (or a list
    of numbers); a tree of arrays (a dict, a list or tuple of them) is refused, where JAX would map
    each leaf.  A function with an operation that
    has no batching rule is refused at its line.  With ``jit="numba"`` the batched code is
    compiled by numba (what numba cannot compile, such as a row helper without a numba
    version, is refused at its line, never run with NumPy)."""
    return VmapFunction(f, in_axes, out_axes, jit)


__all__ = ["VmapFunction", "batched_code", "batched_variant", "parameter_names", "row_of", "vmap"]
