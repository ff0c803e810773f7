"""``np.unique``'s adjoint and tangent for numba (rules/bin_helpers.py): ``unique_adjoint(g, x)`` and
``unique_gather(v, x)`` run NumPy's own code through numba's object mode (about a microsecond to
enter), on real arrays, so their NaN at equal elements is NumPy's, bit for bit.  numba compiles
``np.unique(x)`` itself.  Other forms are left to numba, which refuses them at the user's line."""

from __future__ import annotations

from numba import objmode, types

from ...rules import bin_helpers
from .naming import overload


def unique_adjoint(g, x):
    return bin_helpers.unique_adjoint(g, x)


def unique_gather(v, x):
    return bin_helpers.unique_gather(v, x)


def _floats(*values) -> bool:
    return all(isinstance(v, types.Array) and isinstance(v.dtype, types.Float) for v in values)


def _dtype(*values):
    return types.float32 if all(v.dtype == types.float32 for v in values) else types.float64


def _adjoint_of(g, x):
    return bin_helpers.unique_adjoint(g, x).copy()


def _gathered(v, x):
    return bin_helpers.unique_gather(v, x).copy()


@overload(unique_adjoint)
def _unique_adjoint(g, x):
    if not _floats(g, x):
        return None
    spec = types.Array(_dtype(g), x.ndim, "C")

    def run(g, x):
        with objmode(out=spec):
            out = _adjoint_of(g, x)
        return out
    return run


@overload(unique_gather)
def _unique_gather(v, x):
    if not _floats(v, x):
        return None
    spec = types.Array(_dtype(v), 1, "C")

    def run(v, x):
        with objmode(out=spec):
            out = _gathered(v, x)
        return out
    return run


HELPERS = ("unique_adjoint", "unique_gather")

__all__ = ["HELPERS", "unique_adjoint", "unique_gather"]
