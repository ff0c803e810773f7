"""SciPy's 1-D ``scipy.signal.convolve`` and ``correlate`` for numba (scipy_calls.py spells
the calls, the user's and the adjoints' ``scipy_signal.correlate(...)``, as these).

The full convolution ``out[i + j] += in1[i] * in2[j]``, and of it the part SciPy returns:
``same`` is in1's length centred on the full result (from ``(len(in2) - 1) // 2``), ``valid``
the positions where one operand covers the other.  The correlation is the convolution with
in2 reversed.  The ``method`` (direct or FFT) only changes rounding: it is not passed.  A mode
other than a constant 'full', 'same' or 'valid', or operands other than 1-D real arrays, are
refused at the line.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.core.errors import TypingError

from .naming import overload


def signal_convolve(in1, in2, mode):
    import scipy.signal
    return scipy.signal.convolve(in1, in2, mode=mode)


def signal_correlate(in1, in2, mode):
    import scipy.signal
    return scipy.signal.correlate(in1, in2, mode=mode)


@njit(cache=True)
def _full(a, v):
    n, m = a.shape[0], v.shape[0]
    out = np.zeros(n + m - 1)
    for i in range(n):
        for j in range(m):
            out[i + j] += a[i] * v[j]
    return out


@njit(cache=True)
def _part(full, n, m, mode):
    if mode == 0:  # full
        return full
    if mode == 1:  # same: in1's length
        start = (m - 1) // 2
        return full[start:start + n].copy()
    start = min(n, m) - 1  # valid
    return full[start:start + abs(n - m) + 1].copy()


MODES = {"full": 0, "same": 1, "valid": 2}


def _typer(reverse: bool):
    def typer(in1, in2, mode):
        if not (isinstance(in1, types.Array) and in1.ndim == 1 and isinstance(in2, types.Array) and in2.ndim == 1
                and isinstance(in1.dtype, (types.Float, types.Integer))
                and isinstance(in2.dtype, (types.Float, types.Integer))):
            return None
        name = getattr(mode, "literal_value", None)
        if name not in MODES:
            raise TypingError("srcdiff's numba convolution takes mode 'full', 'same' or 'valid', written in the call")
        code = MODES[name]
        dtype = np.float32 if in1.dtype == in2.dtype == types.float32 else np.float64

        def impl(in1, in2, mode):
            a = in1.astype(np.float64)
            v = in2.astype(np.float64)
            full = _full(a, v[::-1].copy() if reverse else v)
            return _part(full, a.shape[0], v.shape[0], code).astype(dtype)
        return impl
    return typer


overload(signal_convolve, prefer_literal=True)(_typer(False))
overload(signal_correlate, prefer_literal=True)(_typer(True))

HELPERS = ("signal_convolve", "signal_correlate")
