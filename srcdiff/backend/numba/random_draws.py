"""numba's ``random_open(seed)`` and ``random_draw(rng, method, size, params)`` (random_calls.py):
NumPy's generator, run through numba's object mode.

``random_open`` makes ``np.random.default_rng(seed)`` and gives back its key in `GENERATORS`;
``random_draw`` calls the generator's method with the parameters and ``size`` the code gave
and gives back NumPy's draws (an array of as many axes as `size` says, or as the parameters
broadcast to; a number for neither).  A call of the function opens a new generator, as the
function does: its draws are the same on every call.  The table keeps the `KEPT` generators
opened last (a call reads its own while it runs).
"""

from __future__ import annotations

import itertools
from collections import OrderedDict

import numpy as np
from numba import objmode, types

from .naming import overload
from .random_calls import INTEGER_DRAWS

GENERATORS: OrderedDict = OrderedDict()
KEPT = 1024
_keys = itertools.count(1)


def open_generator(seed) -> int:
    key = next(_keys)
    GENERATORS[key] = np.random.default_rng(seed)
    while len(GENERATORS) > KEPT:
        GENERATORS.popitem(last=False)
    return key


def run_draw(key, method, size, params, dtype):
    found = _drawn(GENERATORS[key], method, size, params)
    return np.ascontiguousarray(found, dtype) if np.ndim(found) else dtype(found)


def random_open(seed):
    return open_generator(seed)


def random_draw(key, method, size, params):
    return _drawn(GENERATORS[key], method, size, params)


def _drawn(generator, method, size, params):
    if method == "choice":  # (a, replace, p): random_calls.py's CHOICE_AFTER after ``size``
        return generator.choice(params[0], size=size, replace=params[1], p=params[2])
    return getattr(generator, method)(*params, size=size)


@overload(random_open)
def _random_open(seed):
    def opened(seed):
        with objmode(key="int64"):
            key = open_generator(seed)
        return key
    return opened


def _ndim(size, params) -> int | None:
    """How many axes the draws have: `size`'s count, else the parameters' broadcast."""
    if isinstance(size, types.Integer):
        return 1
    if isinstance(size, types.BaseTuple) and all(isinstance(t, types.Integer) for t in size.types):
        return len(size.types)
    if isinstance(size, (types.NoneType, types.Omitted)):
        kinds = params.types if isinstance(params, types.BaseTuple) else ()
        if not all(isinstance(t, (types.Number, types.Array)) for t in kinds):
            return None
        return max([t.ndim for t in kinds if isinstance(t, types.Array)], default=0)
    return None


def _drawer(spec, name: str, dtype):
    def draw(key, method, size, params):
        with objmode(out=spec):  # (the method's name from the closure: numba passes no string in)
            out = run_draw(key, name, size, params, dtype)
        return out
    return draw


@overload(random_draw, prefer_literal=True)
def _random_draw(key, method, size, params):
    if not isinstance(method, types.StringLiteral):
        return None
    if method.literal_value == "choice":
        return _choice(size, params)
    ndim = _ndim(size, params)
    if ndim is None:
        return None
    integer = method.literal_value in INTEGER_DRAWS
    kind = types.int64 if integer else types.float64
    spec = kind if ndim == 0 else types.Array(kind, ndim, "C")
    return _drawer(spec, method.literal_value, np.int64 if integer else np.float64)


def _choice(size, params):
    """``rng.choice(a, size, replace, p)``: integers below `a`, or items of the 1-d array `a`."""
    a = params.types[0] if isinstance(params, types.BaseTuple) and params.types else None
    if isinstance(a, types.Integer):
        kind, dtype = types.int64, np.int64
    elif isinstance(a, types.Array) and a.ndim == 1 and \
            (isinstance(a.dtype, types.Integer) or a.dtype == types.float64):
        kind = types.int64 if isinstance(a.dtype, types.Integer) else types.float64
        dtype = np.int64 if isinstance(a.dtype, types.Integer) else np.float64
    else:
        return None
    ndim = 0 if isinstance(size, (types.NoneType, types.Omitted)) else _ndim(size, ())
    if ndim is None:
        return None
    return _drawer(kind if ndim == 0 else types.Array(kind, ndim, "C"), "choice", dtype)


HELPERS = ("random_open", "random_draw")

__all__ = [*HELPERS]
