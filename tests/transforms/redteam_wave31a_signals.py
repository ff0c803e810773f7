"""The red team's wave 31a: signal processing (direct-form I IIR filters with lists appended,
learnable FIR taps by np.convolve 'valid' and 'same', spectral losses by np.fft.rfft and np.abs,
irfft of a parametric spectrum, one-pole smoothers whose coefficient is a sigmoid, resonator
banks on float32 signals, alpha-beta trackers, frames by reshape, np.correlate 'full', total
variation by np.diff, least-squares smoothing by np.linalg.pinv, a Kaiser window by np.i0)."""

from __future__ import annotations

import numpy as np

T = np.arange(32) / 32.0
SIGNAL = np.sin(2 * np.pi * 3 * T) + 0.3 * np.cos(2 * np.pi * 7 * T)
NOISY = SIGNAL + 0.2 * np.random.default_rng(3).normal(size=32)
SIGNAL32 = NOISY.astype(np.float32)
TARGET_SPEC = np.abs(np.fft.rfft(SIGNAL)) ** 2


def iir_direct_form1(coef, x=NOISY, target=SIGNAL):
    b0, b1, a1 = coef
    y = []
    x_prev, y_prev = 0.0, 0.0
    for xn in x:
        yn = b0 * xn + b1 * x_prev - a1 * y_prev
        y.append(yn)
        x_prev, y_prev = xn, yn
    return np.mean((np.array(y) - target) ** 2)


def iir_biquad_indexed(coef, x=NOISY):
    b0, b1, b2, a1, a2 = coef
    n = len(x)
    y = np.zeros(n)
    for i in range(n):
        acc = b0 * x[i]
        if i >= 1:
            acc += b1 * x[i - 1] - a1 * y[i - 1]
        if i >= 2:
            acc += b2 * x[i - 2] - a2 * y[i - 2]
        y[i] = acc
    return np.sum((y - SIGNAL) ** 2)


def fir_valid(taps, x=NOISY, target=SIGNAL):
    y = np.convolve(x, taps, mode="valid")
    k = len(taps) // 2
    return np.mean((y - target[k:k + len(y)]) ** 2) + 1e-3 * np.sum(taps ** 2)


def fir_same(taps, x=NOISY, target=SIGNAL):
    return np.sum((np.convolve(x, taps, mode="same") - target) ** 2)


def spectral_loss(x, target=TARGET_SPEC):
    spec = np.abs(np.fft.rfft(x)) ** 2
    return np.sum((np.log1p(spec) - np.log1p(target)) ** 2)


def irfft_synthesis(amps, phases=np.linspace(0.0, 1.0, 5), target=SIGNAL[:16]):  # noqa: B008
    spectrum = np.zeros(9, dtype=complex)
    spectrum[1:6] = amps * np.exp(1j * phases)
    wave = np.fft.irfft(spectrum, n=16)
    return np.sum((wave - target) ** 2)


def one_pole_sigmoid(raw, x=NOISY, target=SIGNAL):
    alpha = 1.0 / (1.0 + np.exp(-raw[0]))
    gain = raw[1]
    s = x[0]
    err = 0.0
    for v in x[1:]:
        s = alpha * s + (1 - alpha) * v
        err += (gain * s - 0.9 * v) ** 2
    return err / len(x)


def resonator_bank_f32(params, x=SIGNAL32):
    r, freqs = params[0], params[1:]
    out = np.zeros(len(x))
    for f in freqs:
        c = 2 * r * np.cos(2 * np.pi * f)
        y1 = y2 = 0.0
        for i in range(len(x)):
            y0 = x[i] + c * y1 - r * r * y2
            out[i] += y0
            y1, y2 = y0, y1
    return np.mean(out ** 2)


def alpha_beta_tracker(ab, z=NOISY[:16], dt=1.0 / 16):
    alpha, beta = ab
    x, v = z[0], 0.0
    loss = 0.0
    for k in range(1, len(z)):
        x_pred = x + dt * v
        r = z[k] - x_pred
        x = x_pred + alpha * r
        v = v + beta / dt * r
        loss += r * r
    return loss


def frame_energy(x, frame=8, pre=0.95):
    emph = np.concatenate([x[:1], x[1:] - pre * x[:-1]])
    frames = emph.reshape(-1, frame)
    energy = np.log(np.sum(frames ** 2, axis=1) + 1e-3)
    return np.sum(np.diff(energy) ** 2) + np.var(energy)


def autocorrelation(x, lags=4):
    ac = np.correlate(x, x, mode="full")[len(x) - 1:len(x) - 1 + lags + 1]
    ac = ac / ac[0]
    return np.sum(ac[1:] ** 2)


def total_variation_denoise(u, y=NOISY, lam=0.3, eps=1e-3):
    tv = np.sum(np.sqrt(np.diff(u) ** 2 + eps))
    return 0.5 * np.sum((u - y) ** 2) + lam * tv


def pinv_smoother(coef, y=NOISY[:12]):
    t = np.linspace(-1, 1, len(y))
    basis = np.stack([np.ones_like(t), t, t ** 2, coef[0] * t ** 3], axis=1)
    fit = basis @ (np.linalg.pinv(basis) @ y)
    return np.sum((fit - y) ** 2) + coef[1] ** 2


def kaiser_window(beta, n=9, x=NOISY[:9]):
    k = np.arange(n)
    arg = beta[0] * np.sqrt(1.0 - (2.0 * k / (n - 1) - 1.0) ** 2 + 1e-9)
    w = np.i0(arg) / np.i0(beta[0])
    return np.sum((w * x) ** 2)


def _vec(*values):
    return lambda rng: (np.array(values, dtype=float),)


SIGNALS = [
    ("sig_iir_direct_form1", iir_direct_form1, _vec(0.3, 0.2, -0.45), 0),
    ("sig_iir_biquad_indexed", iir_biquad_indexed, _vec(0.2, 0.3, 0.1, -0.5, 0.2), 0),
    ("sig_fir_valid", fir_valid, _vec(0.1, 0.2, 0.4, 0.2, 0.1), 0),
    ("sig_fir_same", fir_same, _vec(0.15, 0.3, 0.3, 0.15), 0),
    ("sig_spectral_loss", spectral_loss, lambda rng: (SIGNAL + 0.1 * rng.normal(size=32),), 0),
    ("sig_irfft_synthesis", irfft_synthesis, _vec(1.0, 0.5, 0.2, 0.3, 0.1), 0),
    ("sig_one_pole_sigmoid", one_pole_sigmoid, _vec(0.5, 0.9), 0),
    ("sig_resonator_bank_f32", resonator_bank_f32, _vec(0.9, 0.1, 0.22), 0),
    ("sig_alpha_beta", alpha_beta_tracker, _vec(0.5, 0.2), 0),
    ("sig_frame_energy", frame_energy, lambda rng: (SIGNAL + 0.1 * rng.normal(size=32),), 0),
    ("sig_autocorrelation", autocorrelation, lambda rng: (SIGNAL + 0.1 * rng.normal(size=32),), 0),
    ("sig_total_variation", total_variation_denoise, lambda rng: (SIGNAL[:16] + 0.05 * rng.normal(size=16),
                                                                  NOISY[:16]), 0),
    ("sig_pinv_smoother", pinv_smoother, _vec(1.1, 0.2), 0),
    ("sig_kaiser_window", kaiser_window, _vec(3.0), 0),
]
