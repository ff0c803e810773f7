"""``np.fft.fft`` / ``rfft``'s parts for numba (numba has no FFT): rules/fft_helpers.py's
``fft_part(x, kind, part, axis)`` and ``rfft_part_adjoint(a, n, part, axis)`` run NumPy's own
FFT through numba's object mode (about a microsecond to enter), on a real array: the values
are NumPy's, bit for bit.  Their options are constants of the generated code, read from the
literal types; other forms are left to numba, which refuses them at the user's line."""

from __future__ import annotations

import numpy as np
from numba import objmode, types

from ...rules import fft_helpers
from .naming import overload


def fft_part(x, kind="fft", part="real", axis=-1):
    return fft_helpers.fft_part(x, kind, part, axis)


def rfft_part_adjoint(a, n, part="real", axis=-1):
    return fft_helpers.rfft_part_adjoint(a, n, part, axis)


def _literal(t, kind):
    return t.literal_value if isinstance(t, kind) else None


def _spec(x):
    dtype = types.float32 if x.dtype == types.float32 else types.float64
    return types.Array(dtype, x.ndim, "C")


def _part_of(x, kind: str, part: str, axis: int):
    return np.ascontiguousarray(fft_helpers.fft_part(x, kind, part, axis))


def _adjoint_of(a, n, part: str, axis: int):
    return np.ascontiguousarray(fft_helpers.rfft_part_adjoint(a, n, part, axis))


@overload(fft_part, prefer_literal=True)
def _fft_part(x, kind="fft", part="real", axis=-1):
    names = (_literal(kind, types.StringLiteral), _literal(part, types.StringLiteral),
             _literal(axis, types.IntegerLiteral))
    if not (isinstance(x, types.Array) and isinstance(x.dtype, types.Float)) or None in names:
        return None
    spec, (k, p, ax) = _spec(x), names

    def run(x, kind="fft", part="real", axis=-1):
        with objmode(out=spec):  # (the options from the closure: numba passes no string in)
            out = _part_of(x, k, p, ax)
        return out
    return run


@overload(rfft_part_adjoint, prefer_literal=True)
def _rfft_part_adjoint(a, n, part="real", axis=-1):
    names = (_literal(part, types.StringLiteral), _literal(axis, types.IntegerLiteral))
    if not (isinstance(a, types.Array) and isinstance(a.dtype, types.Float)) or None in names:
        return None
    spec, (p, ax) = _spec(a), names

    def run(a, n, part="real", axis=-1):
        with objmode(out=spec):
            out = _adjoint_of(a, n, p, ax)
        return out
    return run


HELPERS = ("fft_part", "rfft_part_adjoint")

__all__ = ["HELPERS", "fft_part", "rfft_part_adjoint"]
