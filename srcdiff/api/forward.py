"""Forward mode: `jvp(f, primals, tangents)` by source transformation.

    value, tangent = srcdiff.jvp(f, (x, y), (dx, dy))   # f(x, y) and its derivative along (dx, dy)
    print(srcdiff.jvp_function(f).source)               # the generated ``f_jvp``

The function goes through the same driver as a gradient (`driver.lowered`, `driver.variant`);
its IR then becomes one forward sweep computing each value and its tangent (ad/tangent.py),
compiled once per argument signature and cached with the lowered function.  Floats and
float arrays get tangents; any other argument (an int, a string) is passed as it is.
"""

from __future__ import annotations

import weakref
from typing import cast

import numpy as np

from .. import driver
from ..driver import CACHE, Lowered, Options, Variant
from ..driver.higher import explained
from ..errors import SrcDiffError
from ..frontend import depends, trees
from ..ir import memo, shapes
from .binding import has_tangent, not_differentiable
from .flatcall import EVERY, Front
from .gradients import GradFunction
from .jitting import checked, runner, source_of
from .varkw import bound


class JvpFunction:
    """The forward-mode derivative of a function: ``jvp_f(primals, tangents)`` returns
    ``(value, tangent)``; `.source` shows the generated code of the last call (or of
    `source_for`'s arguments).

    Primals may be trees (dict, list, tuple, namedtuple, dataclass, object), with tangents of
    the same structure (None for a part held constant); `func` may be a method, a partial or
    a srcdiff gradient (``jvp(srcdiff.grad(f), ...)``: forward over reverse).  With
    ``jit="numba"`` the forward sweep is compiled by numba (api/jitting.py)."""

    def __init__(self, func, wrt: tuple[str, ...] | None = None, with_value: bool = True, jit: str | None = None):
        self.wrt = wrt  # the parameters with tangents; None: every float argument
        self.with_value = with_value  # False: the value is not computed for itself (it comes back None)
        self.jit = checked(jit, "srcdiff.jvp")
        if not callable(func):
            raise SrcDiffError(f"srcdiff.jvp needs a function, got {type(func).__name__}")
        self.func = func
        self._gradient = func if isinstance(func, GradFunction) else None
        self._front = None if self._gradient is not None else Front(func, EVERY, what="srcdiff.jvp")
        self._binder = self._gradient.front.binder if self._gradient is not None else _front(self).binder
        self._names = list(self._binder.names)
        self._plain = self._gradient is None and not _front(self).always
        self._inner: dict = {}  # the plain function a call runs (flattened, or generated) -> its JvpFunction
        self._last: Variant | None = None
        self._fast: dict = {}  # argument signature -> (lowered, variant) of the last call like it
        _LIVE.add(self)
        self._found: Lowered | None = None  # the Lowered of the last variant made
        self.__name__ = getattr(func, "__name__", "jvp")
        self.__qualname__ = getattr(func, "__qualname__", self.__name__)

    def __call__(self, primals, tangents):
        if self._plain and type(primals) is tuple and type(tangents) is tuple \
                and len(primals) == len(tangents) == len(self._names):
            found = self._fast.get(self._key(primals, tangents))  # compiled for arguments like these
            if found is not None and found[0].parsed.func.__code__ is found[2] \
                    and (not found[0].depends or depends.hold(found[0].depends)) \
                    and found[0].specialised_for(primals, self._names):
                made, self._found = found[1], found[0]
                self._last = made
                run = runner(made, found[0], self.jit)
                return run(*primals, *[_tangent_for(primals[i], tangents[i], self._names[i]) for i in made.positions])
        primals, tangents = self._arguments(primals, tangents)
        if not self._plain or any(trees.is_tree(p, sequences=t is not None) for p, t in zip(primals, tangents)):
            return self._through(primals, tangents)
        self._check(primals, tangents)
        made = self._last = self._variant(primals, tangents)
        run = runner(made, self._found, self.jit)
        return run(*primals, *[_tangent_for(primals[i], tangents[i], self._names[i]) for i in made.positions])

    def _through(self, primals: tuple, tangents: tuple):
        """A call of trees, a method, a partial or a gradient: the jvp of the plain function
        it runs (the flattened function, or the gradient's generated code)."""
        if self._gradient is not None:
            try:
                plain, call, several = self._gradient.derivable(primals)
            except SrcDiffError as exc:
                raise explained(exc) from None
        else:
            front = _front(self)  # (a list or tuple given no tangent, pairs=((0, 1), ...): data, passed whole)
            call = front.bound_call(primals, frozenset(n for n, p, t in zip(front.names, primals, tangents)
                                                       if t is None and isinstance(p, (list, tuple))))
            several = False
            plain = call.func
        inner = self._inner.get(plain)
        if inner is None:
            inner = self._inner[plain] = JvpFunction(plain, with_value=self.with_value, jit=self.jit)
            inner._plain = True  # already flat: its arguments are leaves (never routed through a front again)
        leaf_tangents = call.tangents(tangents)
        try:
            value, tangent = inner(call.args, leaf_tangents)
        except SrcDiffError as exc:
            raise explained(exc) from None
        self._last = inner._last
        if self._gradient is None:
            return value, tangent
        if not several:
            value, tangent = (value,), (tangent,)
        return (None if value is None else call.rebuild(value)), call.rebuild(tangent)

    def _key(self, primals: tuple, tangents: tuple) -> tuple:
        """The arguments' signatures, and (unless `wrt` is fixed) which tangents are None."""
        key = tuple(map(shapes.signature, primals))
        return key if self.wrt else key + tuple(t is None for t in tangents)

    @property
    def source(self) -> str:
        """The generated source of the last call's argument signature."""
        if self._last is None:
            raise SrcDiffError(f"the jvp of {self.__qualname__} is compiled for its arguments' types "
                               "and has not been called yet", hint="call it, or use .source_for(*primals)")
        return source_of(self._last, self.jit)

    def last_compiled(self) -> tuple:
        """(the `Variant` the last call ran, the `Lowered` it was compiled from), or (None, None): the
        generated sweep `srcdiff.vmap` reads back and batches (api/vmap_forward.py)."""
        if self._gradient is None and self._plain:
            return self._last, self._found
        inner = [f for f in self._inner.values() if f._last is not None and f._last is self._last]
        return (self._last, inner[0]._found) if inner else (None, None)

    def source_for(self, *primals) -> str:
        """The generated source for primal arguments like these (without running it)."""
        bound = self._binder.bind(primals, {})
        if not self._plain or any(trees.is_tree(p) for p in bound):
            self._through(bound, tuple(p if trees.is_tree(p) or has_tangent(p) else None for p in bound))
            return cast(Variant, self._last).source  # `_through` compiled it
        return self._variant(bound).source

    def _arguments(self, primals, tangents) -> tuple[tuple, tuple]:
        if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
            raise SrcDiffError("jvp takes primals and tangents as tuples, one entry per positional parameter",
                               hint="write srcdiff.jvp(f, (x,), (v,)) for a function of one argument")
        if len(primals) != len(tangents):
            raise SrcDiffError(f"jvp got {len(primals)} primal(s) but {len(tangents)} tangent(s)",
                               hint="give one tangent per primal (None for an integer argument)")
        full = self._binder.bind(tuple(primals), {})
        tangents = tuple(tangents) + (None,) * (len(full) - len(tangents))  # defaults: held constant
        return full, tangents

    def _check(self, primals: tuple, tangents: tuple) -> None:
        for name, primal, dot in zip(self._names, primals, tangents):
            problem = not_differentiable(primal) if dot is not None else ""
            if problem:
                raise SrcDiffError(f"jvp: {name} has a tangent, but {problem}",
                                   hint=f"pass None as {name}'s tangent, or make {name} a float or a "
                                        "NumPy float array")

    def _variant(self, primals: tuple, tangents: tuple | None = None) -> Variant:
        tangents = tangents or (0.0,) * len(primals)
        wrt = self.wrt or tuple(n for n, v, t in zip(self._names, primals, tangents)
                                if has_tangent(v) and t is not None)
        options = Options(mode="forward", with_value=self.with_value, jit=self.jit)
        found = self._found = driver.lowered(self.func, wrt, options, primals)
        made = driver.variant(found, tuple(map(shapes.signature, primals)), primals)
        if not made.positions:
            made.positions = tuple(found.params.index(n) for n in found.wrt)
        self._fast[self._key(primals, tangents)] = (found, made, found.parsed.func.__code__)
        return made

    def __repr__(self) -> str:
        return f"<srcdiff jvp of {self.__qualname__}>"


def _tangent_for(primal, dot, name: str):
    """The tangent `dot` checked against its primal: same shape, floats."""
    if type(dot) is float and type(primal) is float:
        return dot
    if type(dot) is np.ndarray and type(primal) is np.ndarray and dot.dtype.kind == "f" and dot.shape == primal.shape:
        return dot
    if dot is None:
        raise SrcDiffError(f"the tangent of {name!r} is None, but {name} is a float",
                           hint="pass zeros for a direction that does not move it")
    if shapes.is_foreign_array(primal):  # Dask, array-API: a tangent of the same library and shape
        if type(dot) is not type(primal) or tuple(dot.shape) != tuple(primal.shape):
            raise SrcDiffError(f"the tangent of {name!r} is a {type(dot).__name__} of shape {np.shape(dot)}, but "
                               f"{name} is a {type(primal).__name__} of shape {tuple(primal.shape)}",
                               hint="give each tangent its primal's type and shape")
        return dot
    if isinstance(primal, np.ndarray):
        found = np.asarray(dot, dtype=float)
        if found.shape != primal.shape:
            raise SrcDiffError(f"the tangent of {name!r} has shape {found.shape}, but {name} has shape "
                               f"{primal.shape}", hint="give each tangent its primal's shape")
        return found
    if np.ndim(dot) != 0:
        raise SrcDiffError(f"the tangent of {name!r} has shape {np.shape(dot)}, but {name} is a number",
                           hint="give each tangent its primal's shape")
    return float(dot)


_FUNCTIONS: weakref.WeakKeyDictionary = memo.table(weak=True)
_LIVE: weakref.WeakSet = weakref.WeakSet()


def _forget_compiled() -> None:
    for made in list(_LIVE):
        made._fast.clear()
        made._last = None


CACHE.listeners.append(_forget_compiled)


def jvp_function(func, *, jit: str | None = None) -> JvpFunction:
    """The forward-mode derivative of `func`: call it as ``(primals, tangents)``; `.source`.
    With ``jit="numba"`` its forward sweep is compiled by numba (fused: docs/jit.md)."""
    checked(jit, "srcdiff.jvp")
    try:
        found = _FUNCTIONS.get(func)
    except TypeError:  # not weakly referable: not cached
        return JvpFunction(func, jit=jit)
    if found is None:
        found = {}
        try:
            _FUNCTIONS[func] = found
        except TypeError:
            pass
    made = found.get(jit)
    if made is None:
        made = found[jit] = JvpFunction(func, jit=jit)
    return made


def jvp(func, primals, tangents, *, jit: str | None = None):
    """``(func(*primals), J @ tangents)``: the value and the directional derivative of `func` at
    `primals` along `tangents`, by forward mode (a generated forward sweep; see `jvp_function`).

    `primals` and `tangents` are tuples with one entry per positional parameter; floats and
    float arrays get tangents of their own shape, any other argument a None.  A primal may be
    a tree (dict, list, tuple, namedtuple, dataclass, object) with a tangent of the same
    structure; `func` may be a method, a partial or a srcdiff gradient (forward over reverse:
    ``jvp(srcdiff.grad(f), (x,), (v,))`` is a Hessian-vector product).  With ``jit="numba"``
    the generated forward sweep is compiled by numba, its elementwise chains fused into loops;
    what numba cannot compile is refused at the user's line (never run with NumPy instead)."""
    return jvp_function(bound(func, tuple(primals)), jit=jit)(primals, tangents)  # def f(x, *args): per call


def _front(function: JvpFunction) -> Front:
    """The `Front` of a jvp of a function that is not a srcdiff gradient (which has one)."""
    return cast(Front, function._front)


__all__ = ["JvpFunction", "jvp", "jvp_function"]
