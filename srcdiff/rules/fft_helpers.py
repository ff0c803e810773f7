"""The real and imaginary parts of the discrete Fourier transform of a REAL array: real
linear maps, so srcdiff can differentiate them without complex values
(lower/fft_parts.py lowers ``np.fft.rfft(x).real``, ``np.abs(np.fft.fft(x))`` onto them).

``Re fft(x)[k] = sum_n x[n] cos(2 pi k n / N)`` and ``Im fft(x)[k] = -sum_n x[n] sin(2 pi k n / N)``:
both matrices are symmetric, so the adjoint of a part of ``fft`` is the same part of ``fft``
of the adjoint.  ``rfft`` keeps the rows k <= N // 2: its adjoint is the same part of
``fft`` of the adjoint padded with zeros to N (`rfft_part_adjoint`).

``np.fft.irfft(x, n)`` of a real spectrum x is real and linear too: with the scale s of `norm`
(1/n, 1/sqrt(n) or 1) ``y[t] = s sum_k c_k x[k] cos(2 pi k t / n)`` over k <= n // 2, where c_k is 1
for the mean and (n even) the last term, 2 for the others, a missing x[k] is 0 (zero padding) and
x's terms past n // 2 are left out.  Its adjoint is ``s c_k Re rfft(g)[k]``, cut or padded to x's
length (`irfft_adjoint`); the transpose of that is irfft again.
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


_SCALES = {None: "backward", "backward": "backward", "ortho": "ortho", "forward": "forward"}


def irfft_imag(b, n=None, axis=-1, norm=None):
    """``np.fft.irfft(1j * b, n, axis, norm)`` of a real `b`: the part of a complex spectrum's inverse
    transform its imaginary parts make, ``-s sum_k c_k b[k] sin(2 pi k t / n)`` (real and linear in b)."""
    b = np.asarray(b)
    return np.asarray(np.fft.irfft(1j * b, n=n, axis=axis, norm=norm), dtype=_real_dtype(b))


def irfft_adjoint(a, m, n=None, axis=-1, norm=None, part="real"):
    """The adjoint of ``np.fft.irfft(x, n, axis, norm)`` for a real `x` of length `m` along `axis`,
    applied to `a` (of length n along it): each term's weight c_k (1 or 2) times the scale, times
    the real part of ``np.fft.rfft(a)``, cut or padded with zeros to m.  With `part` "imag", the
    adjoint of `irfft_imag`: the same with the imaginary part (0 at the terms irfft reads real)."""
    a = np.asarray(a)
    n = np.shape(a)[axis]
    spectrum = np.moveaxis(_part(np.fft.rfft(a, axis=axis), part, _real_dtype(a)), axis, -1)
    weights = np.full(n // 2 + 1, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    scale = {"backward": 1.0 / n, "ortho": 1.0 / np.sqrt(n), "forward": 1.0}[_SCALES[norm]]
    out = spectrum * (weights * scale)
    keep = min(m, n // 2 + 1)
    out = np.concatenate([out[..., :keep], np.zeros(out.shape[:-1] + (m - keep,))], axis=-1)
    return np.asarray(np.moveaxis(out, -1, axis), dtype=_real_dtype(a))


FFT_HELPERS = {f.__name__: f for f in (fft_part, rfft_part_adjoint, irfft_adjoint, irfft_imag)}
