"""Forward mode: `jvp(f, primals, tangents)` by source transformation.

    value, tangent = srcdiff.jvp(f, (x, y), (dx, dy))   # f(x, y) and its derivative along (dx, dy)
    print(srcdiff.jvp_function(f).source)               # the generated ``f_jvp``

The function goes through the same driver as a gradient (`driver.lowered`, `driver.variant`);
its IR then becomes one forward sweep computing each value and its tangent (ad/tangent.py),
compiled once per argument signature and cached with the lowered function.  Floats and
float arrays get tangents; any other argument (an int, a string) is passed as it is.
"""

from __future__ import annotations

import inspect
import weakref

import numpy as np

from .. import driver
from ..driver import CACHE, Options, Variant
from ..errors import SrcDiffError
from ..frontend import depends
from ..ir import shapes


class JvpFunction:
    """The forward-mode derivative of a function: ``jvp_f(primals, tangents)`` returns
    ``(value, tangent)``; `.source` shows the generated code of the last call (or of
    `source_for`'s arguments)."""

    def __init__(self, func, wrt: tuple[str, ...] | None = None, with_value: bool = True):
        self.wrt = wrt  # the parameters with tangents; None: every float argument
        self.with_value = with_value  # False: the value is not computed for itself (it comes back None)
        if not callable(func):
            raise SrcDiffError(f"srcdiff.jvp needs a function, got {type(func).__name__}")
        self.func = func
        try:
            self._signature = inspect.signature(func)
        except (TypeError, ValueError) as exc:
            raise SrcDiffError(f"cannot read the parameters of {func!r}: {exc}") from None
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in self._signature.parameters.values()):
            raise SrcDiffError(f"{func.__qualname__} takes *args or **kwargs: srcdiff needs named parameters",
                               hint="list every parameter by name")
        self._names = list(self._signature.parameters)
        self._last: Variant | None = None
        self._fast: dict = {}  # argument signature -> (lowered, variant) of the last call like it
        _LIVE.add(self)
        self.__name__ = getattr(func, "__name__", "jvp")
        self.__qualname__ = getattr(func, "__qualname__", self.__name__)

    def __call__(self, primals, tangents):
        if type(primals) is tuple and type(tangents) is tuple and len(primals) == len(tangents) == len(self._names):
            found = self._fast.get(self._key(primals, tangents))  # compiled for arguments like these
            if found is not None and found[0].parsed.func.__code__ is found[2] \
                    and (not found[0].depends or depends.hold(found[0].depends)) \
                    and (not found[0].statics or found[0].specialised_for(primals, self._names)):
                made = self._last = found[1]
                return made.function(*primals, *[_tangent_for(primals[i], tangents[i], self._names[i])
                                                  for i in made.positions])
        primals, tangents = self._arguments(primals, tangents)
        made = self._last = self._variant(primals, tangents)
        return made.function(*primals, *[_tangent_for(primals[i], tangents[i], self._names[i])
                                         for i in made.positions])

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
        return self._last.source

    def source_for(self, *primals) -> str:
        """The generated source for primal arguments like these (without running it)."""
        return self._variant(self._bound(primals)).source

    def _bound(self, primals) -> tuple:
        try:
            bound = self._signature.bind(*primals)
        except TypeError as exc:
            raise TypeError(f"{self.__qualname__}(): {exc}") from None
        bound.apply_defaults()
        return tuple(bound.arguments.values())

    def _arguments(self, primals, tangents) -> tuple[tuple, tuple]:
        if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
            raise SrcDiffError("jvp takes primals and tangents as tuples, one entry per positional parameter",
                               hint="write srcdiff.jvp(f, (x,), (v,)) for a function of one argument")
        if len(primals) != len(tangents):
            raise SrcDiffError(f"jvp got {len(primals)} primal(s) but {len(tangents)} tangent(s)",
                               hint="give one tangent per primal (None for an integer argument)")
        full = self._bound(tuple(primals))
        tangents = tuple(tangents) + (None,) * (len(full) - len(tangents))  # defaults: held constant
        for name, primal, dot in zip(self._names, full, tangents):
            if dot is not None and not _has_tangent(primal):
                raise SrcDiffError(f"jvp: {name} has a tangent, but {_not_differentiable(primal)}",
                                   hint=f"pass None as {name}'s tangent, or make {name} a float or a "
                                        "NumPy float array")
        return full, tangents

    def _variant(self, primals: tuple, tangents: tuple | None = None) -> Variant:
        tangents = tangents or (0.0,) * len(primals)
        wrt = self.wrt or tuple(n for n, v, t in zip(self._names, primals, tangents)
                                if _has_tangent(v) and t is not None)
        found = driver.lowered(self.func, wrt, Options(mode="forward", with_value=self.with_value), primals)
        made = driver.variant(found, tuple(map(shapes.signature, primals)))
        if not made.positions:
            made.positions = tuple(found.params.index(n) for n in found.wrt)
        self._fast[self._key(primals, tangents)] = (found, made, found.parsed.func.__code__)
        return made

    def __repr__(self) -> str:
        return f"<srcdiff jvp of {self.__qualname__}>"


def _has_tangent(value) -> bool:
    """Floats and float arrays carry tangents; ints, bools and anything else do not."""
    if isinstance(value, np.ndarray):
        return value.dtype.kind == "f"
    return isinstance(value, (float, np.floating))


def _not_differentiable(value) -> str:
    """Why `value` takes no tangent (an integer would be truncated; other libraries' arrays
    and trees are not what jvp's generated code takes)."""
    if isinstance(value, (bool, int, np.integer, np.bool_)) or (
            isinstance(value, np.ndarray) and value.dtype.kind in "biu"):
        return f"it holds integers ({type(value).__name__}): their derivative would be silently truncated"
    if isinstance(value, (complex, np.complexfloating)) or (isinstance(value, np.ndarray) and value.dtype.kind == "c"):
        return "it is complex: srcdiff differentiates real functions"
    if isinstance(value, (dict, list, tuple)) or hasattr(value, "__dict__") and not hasattr(value, "shape"):
        return f"it is a {type(value).__name__}: jvp takes floats and NumPy arrays, not trees or objects"
    return (f"it is a {type(value).__module__}.{type(value).__name__}: jvp takes floats and NumPy arrays "
            "(srcdiff.grad takes Dask and array-API arrays)")


def _tangent_for(primal, dot, name: str):
    """The tangent `dot` checked against its primal: same shape, floats."""
    if type(dot) is float and type(primal) is float:
        return dot
    if type(dot) is np.ndarray and type(primal) is np.ndarray and dot.dtype.kind == "f" and dot.shape == primal.shape:
        return dot
    if dot is None:
        raise SrcDiffError(f"the tangent of {name!r} is None, but {name} is a float",
                           hint="pass zeros for a direction that does not move it")
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


_FUNCTIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_LIVE: weakref.WeakSet = weakref.WeakSet()


def _forget_compiled() -> None:
    for made in list(_LIVE):
        made._fast.clear()
        made._last = None


CACHE.listeners.append(_forget_compiled)


def jvp_function(func) -> JvpFunction:
    """The forward-mode derivative of `func`: call it as ``(primals, tangents)``; `.source`."""
    try:
        found = _FUNCTIONS.get(func)
    except TypeError:  # not weakly referable: not cached
        return JvpFunction(func)
    if found is None:
        found = JvpFunction(func)
        try:
            _FUNCTIONS[func] = found
        except TypeError:
            pass
    return found


def jvp(func, primals, tangents):
    """``(func(*primals), J @ tangents)``: the value and the directional derivative of `func` at
    `primals` along `tangents`, by forward mode (a generated forward sweep; see `jvp_function`).

    `primals` and `tangents` are tuples with one entry per positional parameter; floats and
    float arrays get tangents of their own shape, any other argument a None."""
    return jvp_function(func)(primals, tangents)


__all__ = ["JvpFunction", "jvp", "jvp_function"]
