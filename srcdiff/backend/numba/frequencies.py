"""numba's versions of NumPy's constant-making calls of ints that numba's NumPy lacks:

* ``np.fft.fftfreq(n, d=1.0)`` and ``np.fft.rfftfreq(n, d=1.0)`` (a spectral centroid's frequency
  axis, a band mask) become ``fft_frequencies(n, d)`` / ``rfft_frequencies(n, d)``, computed as
  NumPy computes them (integer positions times ``1.0 / (n * d)``): the same values, bit for bit;
* ``np.diag_indices(n)`` / ``np.diag_indices(n, ndim)`` with a constant ndim becomes
  ``diagonal_indices(n, ndim)``, the tuple of ndim ``np.arange(n)``.

Their values depend on ints (a length, a spacing), never on a differentiated argument.  Any other
form (``device=``, a ndim that is not a constant) is left as written, and numba refuses it at its line.
"""

from __future__ import annotations

import ast

import numpy as np
from numba import types

from .naming import made, overload

_FFT = {"fftfreq": "fft_frequencies", "rfftfreq": "rfft_frequencies"}


def _numpy_call(node: ast.Call, module: str | None) -> str | None:
    """The name of the function `node` calls in ``np.<module>`` (or ``np`` itself), or None."""
    func = node.func
    if not isinstance(func, ast.Attribute) or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    owner = func.value
    if module is not None:
        if not (isinstance(owner, ast.Attribute) and owner.attr == module):
            return None
        owner = owner.value
    return func.attr if isinstance(owner, ast.Name) and owner.id in ("np", "numpy") else None


def _arguments(node: ast.Call, names: tuple[str, ...], defaults: tuple) -> list | None:
    """The call's arguments bound to `names` (positional or by keyword), `defaults` filling the rest
    from the end; None when a name is given twice, unknown, or missing."""
    keywords = {k.arg: k.value for k in node.keywords}
    if None in keywords or set(keywords) - set(names) or len(node.args) > len(names):
        return None
    bound = list(node.args)
    for k, name in enumerate(names[len(node.args):], start=len(node.args)):
        default = defaults[k - (len(names) - len(defaults))] if k >= len(names) - len(defaults) else None
        value = keywords.pop(name, None if default is None else ast.Constant(default))
        if value is None:
            return None
        bound.append(value)
    return None if keywords else bound


def spell(node: ast.Call) -> tuple[str, list] | None:
    """(helper, arguments) for ``np.fft.fftfreq`` / ``rfftfreq`` / ``np.diag_indices``, or None."""
    name = _numpy_call(node, "fft")
    if name in _FFT:
        bound = _arguments(node, ("n", "d"), (1.0,))
        return None if bound is None else (_FFT[name], bound)
    if _numpy_call(node, None) == "diag_indices":
        bound = _arguments(node, ("n", "ndim"), (2,))
        if bound is None or not (isinstance(bound[1], ast.Constant) and type(bound[1].value) is int
                                 and bound[1].value >= 1):
            return None
        return "diagonal_indices", bound
    return None


def fft_frequencies(n, d):
    return np.fft.fftfreq(n, d)


def rfft_frequencies(n, d):
    return np.fft.rfftfreq(n, d)


def diagonal_indices(n, ndim):
    return np.diag_indices(n, ndim)


def _ints_and_spacing(n, d) -> bool:
    return isinstance(n, types.Integer) and isinstance(d, (types.Integer, types.Float))


@overload(fft_frequencies)
def _fft_frequencies(n, d):
    if not _ints_and_spacing(n, d):
        return None

    def frequencies(n, d):
        val = 1.0 / (n * d)
        results = np.empty(n, np.int64)
        half = (n - 1) // 2 + 1
        results[:half] = np.arange(0, half)
        results[half:] = np.arange(-(n // 2), 0)
        return results * val
    return frequencies


@overload(rfft_frequencies)
def _rfft_frequencies(n, d):
    if not _ints_and_spacing(n, d):
        return None

    def frequencies(n, d):
        val = 1.0 / (n * d)
        return np.arange(0, n // 2 + 1) * val
    return frequencies


@overload(diagonal_indices, prefer_literal=True)
def _diagonal_indices(n, ndim):
    if not (isinstance(n, types.Integer) and isinstance(ndim, types.IntegerLiteral)):
        return None
    parts = "".join("idx, " for _ in range(ndim.literal_value))
    return made(f"def impl(n, ndim):\n    idx = np.arange(n)\n    return ({parts})\n")


HELPERS = ("fft_frequencies", "rfft_frequencies", "diagonal_indices")

__all__ = ["HELPERS", "diagonal_indices", "fft_frequencies", "rfft_frequencies", "spell"]
