"""The real and imaginary parts of the discrete Fourier transform of a REAL array: real
linear maps, so srcdiff can differentiate them without complex values
(lower/fft_parts.py lowers ``np.fft.rfft(x).real``, ``np.abs(np.fft.fft(x))`` onto them).

``Re fft(x)[k] = sum_n x[n] cos(2 pi k n / N)`` and ``Im fft(x)[k] = -sum_n x[n] sin(2 pi k n / N)``:
both matrices are symmetric, so the adjoint of a part of ``fft`` is the same part of ``fft``
of the adjoint.  ``rfft`` keeps the rows k <= N // 2: its adjoint is the same part of
``fft`` of the adjoint padded with zeros to N (`rfft_part_adjoint`).
"""

from __future__ import annotations

import numpy as np


def _real_dtype(x):
    dtype = np.asarray(x).dtype
    return dtype if dtype.kind == "f" else np.dtype(np.float64)


def _part(values, part, dtype):
    return np.asarray(values.real if part == "real" else values.imag, dtype=dtype)


def fft_part(x, kind="fft", part="real", axis=-1):
    """``np.fft.fft(x, axis=axis).real`` (`kind` "rfft": of ``np.fft.rfft``; `part` "imag": the
    imaginary part) of a real `x`, in x's floating dtype."""
    if np.iscomplexobj(x):
        raise ValueError("srcdiff differentiates the Fourier transform of a real array only")
    transform = np.fft.rfft if kind == "rfft" else np.fft.fft
    return _part(transform(x, axis=axis), part, _real_dtype(x))


def rfft_part_adjoint(a, n, part="real", axis=-1):
    """The adjoint of ``fft_part(x, "rfft", part, axis)`` for an `x` of length `n` along `axis`,
    applied to `a`: the same part of ``np.fft.fft`` of `a` padded with zeros to `n`."""
    return _part(np.fft.fft(a, n=n, axis=axis), part, _real_dtype(a))


FFT_HELPERS = {f.__name__: f for f in (fft_part, rfft_part_adjoint)}
