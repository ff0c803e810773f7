"""``np.fft.fft`` / ``rfft``'s parts for numba (numba has no FFT): rules/fft_helpers.py's
``fft_part(x, kind, part, axis)`` and ``rfft_part_adjoint(a, n, part, axis)`` run NumPy's own
FFT through numba's object mode (about a microsecond to enter), on a real array: the values
are NumPy's, bit for bit.  Their options are constants of the generated code, read from the
literal types; other forms are left to numba, which refuses them at the user's line.  So do
``np.fft.irfft`` and ``np.fft.hfft`` of a real array (their length n a number or None), the
inverse of imaginary parts ``irfft_imag(b, n, axis, norm)`` and their adjoint ``irfft_adjoint``."""

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


def irfft_adjoint(a, m, n=None, axis=-1, norm=None, part="real"):
    return fft_helpers.irfft_adjoint(a, m, n, axis, norm, part)


def irfft_imag(b, n=None, axis=-1, norm=None):
    return fft_helpers.irfft_imag(b, n, axis, norm)


def _none(t) -> bool:
    return t is None or isinstance(t, (types.NoneType, types.Omitted))


def _norm(t):
    """A norm= option's value from its type (None: left out or None), or False: not a constant."""
    if _none(t) or (isinstance(t, types.Omitted) and t.value is None):
        return None
    return t.literal_value if isinstance(t, types.StringLiteral) else False


def _axis(t):
    if _none(t):
        return -1
    if isinstance(t, int):  # left out: the typer's own default
        return t
    if isinstance(t, types.Omitted):
        return t.value
    return t.literal_value if isinstance(t, types.IntegerLiteral) else None


def _inverse(kind: str, x, n, axis: int, norm):
    transform = {"irfft": np.fft.irfft, "hfft": np.fft.hfft, "irfft_imag": fft_helpers.irfft_imag}[kind]
    return np.ascontiguousarray(transform(x, n=None if n is None or n < 0 else n, axis=axis, norm=norm))


def _inverse_overload(kind: str):
    def typer(a, n=None, axis=-1, norm=None, out=None):
        ax, nm = _axis(axis), _norm(norm)
        if not (isinstance(a, types.Array) and isinstance(a.dtype, types.Float)) or ax is None or nm is False \
                or not (_none(out)) or not (_none(n) or isinstance(n, types.Integer)):
            return None
        spec, given = _spec(a), not _none(n)

        def run(a, n=None, axis=-1, norm=None, out=None):
            m = n if given else -1
            with objmode(y=spec):
                y = _inverse(kind, a, m, ax, nm)
            return y
        return run
    return typer


overload(np.fft.irfft, prefer_literal=True)(_inverse_overload("irfft"))
overload(np.fft.hfft, prefer_literal=True)(_inverse_overload("hfft"))


@overload(irfft_imag, prefer_literal=True)
def _irfft_imag(b, n=None, axis=-1, norm=None):
    if _inverse_overload("irfft_imag")(b, n, axis, norm) is None:  # the same forms as irfft's
        return None
    spec, given, ax, nm = _spec(b), not _none(n), _axis(axis), _norm(norm)

    def run(b, n=None, axis=-1, norm=None):
        m = n if given else -1
        with objmode(y=spec):
            y = _inverse("irfft_imag", b, m, ax, nm)
        return y
    return run


def _adjoint_of_inverse(a, m, n, axis: int, norm, part: str):
    return np.ascontiguousarray(fft_helpers.irfft_adjoint(a, m, None if n < 0 else n, axis, norm, part))


@overload(irfft_adjoint, prefer_literal=True)
def _irfft_adjoint(a, m, n=None, axis=-1, norm=None, part="real"):
    ax, nm = _axis(axis), _norm(norm)
    pt = part if isinstance(part, str) else _literal(part, types.StringLiteral)
    if not (isinstance(a, types.Array) and isinstance(a.dtype, types.Float)) or ax is None or nm is False \
            or pt is None or not isinstance(m, types.Integer) or not (_none(n) or isinstance(n, types.Integer)):
        return None
    spec, given = _spec(a), not _none(n)

    def run(a, m, n=None, axis=-1, norm=None, part="real"):
        k = n if given else -1
        with objmode(out=spec):
            out = _adjoint_of_inverse(a, m, k, ax, nm, pt)
        return out
    return run


HELPERS = ("fft_part", "rfft_part_adjoint", "irfft_adjoint", "irfft_imag")

__all__ = ["HELPERS", "fft_part", "rfft_part_adjoint", "irfft_adjoint", "irfft_imag"]
