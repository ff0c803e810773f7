"""The one front every transformation binds its arguments with.

`Binder` binds a call's arguments to a callable's parameters (its defaults read at each call,
so ``f.__defaults__ = (5.0,)`` is honoured); `normalize_wrt` turns ``wrt=`` / ``argnums=``
(an index, a name, a path into a tree such as ``"params['W1']"``, or a tuple of them) into
(parameter, path) targets; `not_differentiable` says why a value takes no derivative (the
same answer for `grad`, `jvp`, `vjp`, `jacobian`, `hessian` and `hvp`).
"""

from __future__ import annotations

import inspect

import numpy as np

from ..errors import Location, SrcDiffError
from ..frontend import callables, trees
from ..frontend.generators import generator_error
from ..frontend.parse import parse_function
from ..ir import shapes


def signature(func, what: str = "srcdiff.grad") -> inspect.Signature:
    """`func`'s signature; a function taking ``*args`` or ``**kwargs`` is refused at its line."""
    if not callable(func):
        raise SrcDiffError(f"{what} needs a function, got {type(func).__name__}")
    callables.refuse_transformed(func, what)
    if inspect.isgeneratorfunction(func):  # (a helper's generator is read as the list it yields)
        code = func.__code__
        raise generator_error(func, Location(code.co_filename, code.co_firstlineno))
    try:
        sig = inspect.signature(func)
    except (TypeError, ValueError) as exc:
        raise SrcDiffError(f"cannot read the parameters of {func!r}: {exc}") from None
    for p in sig.parameters.values():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            stars = "*" if p.kind == p.VAR_POSITIONAL else "**"
            qualname = getattr(func, "__qualname__", type(func).__name__)
            message = f"{qualname} takes {stars}{p.name}: srcdiff needs named parameters"
            try:
                parsed = parse_function(callables.resolve(func).func)
            except SrcDiffError:
                raise SrcDiffError(message, hint="list every parameter by name") from None
            raise parsed.error(parsed.tree, message, "list every parameter by name (a function that takes "
                               f"{stars}{p.name} can be called by one that names them)")
    return sig


def _defaults_of(func) -> tuple:
    """What decides `func`'s defaults: its own (and a partial's keywords), by identity and value."""
    parts = []
    while True:
        if hasattr(func, "keywords") and hasattr(func, "func"):  # functools.partial
            parts.append(tuple(func.keywords.items()))
            func = func.func
        elif hasattr(func, "__func__"):  # a bound method
            func = func.__func__
        else:
            break
    kw = getattr(func, "__kwdefaults__", None)
    parts.append((getattr(func, "__defaults__", None), tuple(kw.items()) if kw else None))
    return tuple(parts)


class Binder:
    """A callable's parameters: binds a call's arguments to them, defaults applied."""

    def __init__(self, func, what: str = "srcdiff.grad"):
        self.func, self.what = func, what
        self.signature = signature(func, what)
        self.names = list(self.signature.parameters)
        self.qualname = getattr(func, "__qualname__", getattr(func, "__name__", type(func).__name__))
        self._defaults = _defaults_of(func)
        self._positional = len(self.names) if self.plain_parameters else -1

    def current(self) -> inspect.Signature:
        """The signature with the defaults the function has now."""
        now = _defaults_of(self.func)
        if not _same(now, self._defaults):
            self.signature, self._defaults = inspect.signature(self.func), now
        return self.signature

    def bind(self, args: tuple, kwargs: dict) -> tuple:
        """`args` and `kwargs` bound to the parameters, defaults applied, in order."""
        if not kwargs and len(args) == self._positional:  # every parameter given by position
            return tuple(args)
        try:
            bound = self.current().bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{self.qualname}(): {exc}") from None
        bound.apply_defaults()
        return tuple(bound.arguments.values())

    @property
    def plain_parameters(self) -> bool:
        """Whether every parameter is positional-or-keyword (compiled code binds them like Python)."""
        return all(p.kind == p.POSITIONAL_OR_KEYWORD for p in self.signature.parameters.values())


def _same(a, b) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is y:
            continue
        try:
            if not (type(x) is type(y) and bool(x == y)):
                return False
        except Exception:  # arrays in defaults: compared by identity only
            return False
    return True


def wrt_of(wrt, argnums):
    """`wrt` as given, or JAX's `argnums` (parameter indices only) as the same `wrt`."""
    if argnums is None:
        return wrt
    if wrt not in (0, None):
        raise SrcDiffError("give wrt= or argnums=, not both", hint="argnums=1 means wrt=1")
    items = argnums if isinstance(argnums, (tuple, list)) else (argnums,)
    if any(isinstance(i, bool) or not isinstance(i, (int, np.integer)) for i in items):
        raise SrcDiffError(f"argnums takes parameter indices, got {argnums!r}",
                           hint="use wrt= to name parameters or paths inside them")
    return tuple(int(i) for i in argnums) if isinstance(argnums, (tuple, list)) else int(argnums)


def normalize_wrt(wrt, argnums, names: list, hidden: tuple = (), qualname: str = "f"):
    """``((parameter, path), ...)`` for `wrt` (or JAX's `argnums`, integers only), and whether
    the caller asked for a tuple of results (a tuple or list was given)."""
    wrt = wrt_of(wrt, argnums)
    if wrt is None:
        wrt = 0
    items = wrt if isinstance(wrt, (tuple, list)) else (wrt,)
    if not items:
        raise SrcDiffError("wrt is empty: name at least one parameter to differentiate")
    out = []
    for item in items:
        if isinstance(item, np.integer):
            item = int(item)
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise SrcDiffError(f"wrt entries are parameter indices or names, got {item!r}")
        path = ()
        if isinstance(item, int):
            if not -len(names) <= item < len(names):
                raise SrcDiffError(f"wrt={item} is out of range: {qualname} has {len(names)} parameter(s) {names}")
            item = names[item]
        else:
            try:
                root, path = trees.parse_path(item)
            except ValueError:
                root = item
            if root not in names and root not in hidden:
                raise SrcDiffError(f"wrt={item!r} is not a parameter of {qualname}; "
                                   f"its parameters are {list(hidden) + names}")
            item = root
        if (item, path) in out:
            raise SrcDiffError(f"wrt names {item!r} twice")
        out.append((item, path))
    return tuple(out), isinstance(wrt, (tuple, list))


def not_differentiable(value) -> str:
    """Why `value` takes no derivative ("" when it does): floats, float arrays (NumPy, Dask,
    array-API) do; integers would be silently truncated; complex numbers are not real."""
    if isinstance(value, (bool, np.bool_)) or isinstance(value, (int, np.integer)):
        return f"it is an integer ({value!r}); its gradient would be silently truncated"
    if isinstance(value, (float, np.floating)):
        return ""
    if isinstance(value, (complex, np.complexfloating)):
        return "it is complex: srcdiff differentiates real functions"
    if isinstance(value, np.ndarray) or shapes.is_foreign_array(value):
        if isinstance(value, np.matrix):  # ``*`` and ``**`` are matrix products there
            return "it is a np.matrix, whose * and ** are not elementwise: pass np.asarray(x)"
        kind = value.dtype.kind if isinstance(value, np.ndarray) else shapes.dtype_kind(value.dtype)
        if kind == "f":
            return ""
        if kind == "c":
            return "it is a complex array: srcdiff differentiates real functions"
        return f"it is an array of dtype {value.dtype}, not a floating-point array"
    return f"it is a {type(value).__name__}, not a float or a float array"


def has_tangent(value) -> bool:
    """Whether `value` is a float or a float array (it takes a derivative)."""
    return not not_differentiable(value)


def refuse(qualname: str, name: str, problem: str) -> SrcDiffError:
    """The error for differentiating `qualname` with respect to `name`, which `problem` says why not."""
    return SrcDiffError(f"cannot differentiate {qualname} with respect to {name!r}: {problem}",
                        hint="pass a float or a float array, e.g. 3.0 or x.astype(float)")


__all__ = ["Binder", "has_tangent", "normalize_wrt", "not_differentiable", "refuse", "signature", "wrt_of"]
