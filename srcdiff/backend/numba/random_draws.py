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
    found = getattr(GENERATORS[key], method)(*params, size=size)
    return np.ascontiguousarray(found, dtype) if np.ndim(found) else dtype(found)


def random_open(seed):
    return open_generator(seed)


def random_draw(key, method, size, params):
    return getattr(GENERATORS[key], method)(*params, size=size)


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
    ndim = _ndim(size, params)
    if not isinstance(method, types.StringLiteral) or ndim is None:
        return None
    integer = method.literal_value in INTEGER_DRAWS
    kind = types.int64 if integer else types.float64
    spec = kind if ndim == 0 else types.Array(kind, ndim, "C")
    return _drawer(spec, method.literal_value, np.int64 if integer else np.float64)


HELPERS = ("random_open", "random_draw")

__all__ = [*HELPERS]
