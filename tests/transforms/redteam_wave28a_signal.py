"""The red team's wave 28a, signal processing: FIR and IIR filters written as loops, np.convolve,
windows, moving averages, spectra by np.fft, envelopes and energies, written the way an engineer
writes them (test_redteam_wave28a.py runs them through every transformation)."""

from __future__ import annotations

import math

import numpy as np


def M(r, *shape):
    """Standard normal float64 numbers."""
    return r.standard_normal(shape)


def P(r, *shape):
    """Positive float64 numbers in [0.5, 1.5)."""
    return r.uniform(0.5, 1.5, shape)


def F(r, *shape):
    """Standard normal float32 numbers."""
    return r.standard_normal(shape).astype(np.float32)


TAPS = np.array([0.25, 0.5, 0.25])


def fir_loop(h, x):
    """y[n] = sum_k h[k] x[n-k], written as the textbook double loop."""
    n_out = len(x) - len(h) + 1
    y = np.zeros(n_out)
    for n in range(n_out):
        acc = 0.0
        for k in range(len(h)):
            acc += h[k] * x[n + len(h) - 1 - k]
        y[n] = acc
    return np.sum(y**2)


def fir_convolve(h, x):
    y = np.convolve(x, h, mode="valid")
    return np.sum(y**2) / len(y)


def fir_convolve_same(x, h=TAPS):
    y = np.convolve(x, h, mode="same")
    return np.sum((y - x) ** 2)


def iir_first_order(a, x):
    """y[n] = a y[n-1] + (1 - a) x[n], a one-pole smoother."""
    y_prev = 0.0
    out = []
    for xn in x:
        y_prev = a * y_prev + (1.0 - a) * xn
        out.append(y_prev)
    y = np.array(out)
    return np.sum((y - x) ** 2)


def biquad(coeffs, x):
    """Direct form I biquad: b0, b1, b2, a1, a2."""
    b0, b1, b2, a1, a2 = coeffs
    x1 = x2 = y1 = y2 = 0.0
    energy = 0.0
    for n in range(len(x)):
        yn = b0 * x[n] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2, x1 = x1, x[n]
        y2, y1 = y1, yn
        energy = energy + yn * yn
    return energy


def hann_window(n):
    k = np.arange(n)
    return 0.5 - 0.5 * np.cos(2.0 * np.pi * k / (n - 1))


def windowed_power(x):
    w = hann_window(len(x))
    xw = x * w
    return np.sum(xw**2) / np.sum(w**2)


def rfft_power(x):
    X = np.fft.rfft(x)
    return np.sum(np.abs(X) ** 2) / len(x)


def spectral_centroid(x):
    mag = np.abs(np.fft.rfft(x * hann_window(len(x))))
    freqs = np.arange(len(mag))
    return np.sum(freqs * mag) / (np.sum(mag) + 1e-9)


def lowpass_fft(x, cutoff=3):
    X = np.fft.rfft(x)
    mask = np.arange(len(X)) < cutoff
    y = np.fft.irfft(X * mask, n=len(x))
    return np.sum(y**2)


def moving_average_loop(x, width=3):
    out = []
    for i in range(len(x) - width + 1):
        out.append(np.mean(x[i:i + width]))
    return np.sum(np.stack(out) ** 2)


def moving_average_cumsum(x, width=3):
    c = np.cumsum(np.concatenate([[0.0], x]))
    ma = (c[width:] - c[:-width]) / width
    return np.sum(ma * np.arange(len(ma)))


def exponential_smoothing_while(alpha, x):
    s = x[0]
    i = 1
    sse = 0.0
    while i < len(x):
        sse += (x[i] - s) ** 2
        s = alpha * x[i] + (1 - alpha) * s
        i += 1
    return sse


def autocorrelation(x, max_lag=3):
    xc = x - np.mean(x)
    denom = np.sum(xc**2)
    r = [np.sum(xc[:len(x) - k] * xc[k:]) / denom for k in range(1, max_lag + 1)]
    return sum(v**2 for v in r)


def envelope_rms(x, frame=4):
    frames = [x[i:i + frame] for i in range(0, len(x) - frame + 1, frame)]
    rms = np.array([math.sqrt(np.mean(f**2) + 1e-12) for f in frames])
    return np.sum(np.log(rms))


def matched_filter_peak(template, signal):
    corr = np.correlate(signal, template, mode="valid")
    soft = np.exp(corr - np.max(corr))
    return np.log(np.sum(soft)) + np.max(corr)


def pre_emphasis(x, coef=0.97):
    y = np.empty_like(x)
    y[0] = x[0]
    y[1:] = x[1:] - coef * x[:-1]
    return np.sum(y**2)


def dc_blocker(x, R=0.95):
    y = np.zeros_like(x)
    prev_x = 0.0
    prev_y = 0.0
    for n in range(x.shape[0]):
        y[n] = x[n] - prev_x + R * prev_y
        prev_x = x[n]
        prev_y = y[n]
    return np.sum(y**2)


def soft_clip_distortion(x, gain=2.0):
    y = np.tanh(gain * x) / math.tanh(gain)
    return np.sum(np.where(np.abs(y) > 0.5, y**2, 0.5 * y**2))


def quantization_noise_float32(x):
    y = np.clip(x * np.float32(0.5), -1.0, 1.0)
    return np.sum((y - np.float32(0.25) * x) ** 2)


def goertzel_power(x, k=2):
    n = len(x)
    w = 2.0 * math.pi * k / n
    coeff = 2.0 * math.cos(w)
    s_prev, s_prev2 = 0.0, 0.0
    for sample in x:
        s = sample + coeff * s_prev - s_prev2
        s_prev2 = s_prev
        s_prev = s
    return s_prev2**2 + s_prev**2 - coeff * s_prev * s_prev2


def lms_adaptive(w0, x, d, mu=0.05):
    """A few steps of the LMS adaptive filter, unrolled."""
    w = w0.copy()
    err_total = 0.0
    for n in range(len(w), len(x)):
        u = x[n - len(w):n][::-1]
        e = d[n] - np.dot(w, u)
        w = w + mu * e * u
        err_total += e**2
    return err_total


def dft_matrix_power(x):
    n = len(x)
    k = np.arange(n)
    angle = 2.0 * np.pi * np.outer(k, k) / n
    re = np.cos(angle) @ x
    im = -np.sin(angle) @ x
    return np.sum(re[1:4] ** 2 + im[1:4] ** 2)


def zero_crossing_soft(x, sharp=5.0):
    s = 1.0 / (1.0 + np.exp(-sharp * x))
    return np.sum(np.abs(np.diff(s)) ** 2)


def delay_line_echo(x, delay=2, feedback=0.4):
    buf = [0.0] * delay
    out = 0.0
    for n in range(len(x)):
        echoed = x[n] + feedback * buf[0]
        buf = buf[1:] + [echoed]
        out += echoed**2
    return out


def cascade_sections(x, sections=((0.5, 0.2), (0.3, -0.1))):
    y = x
    for a, b in sections:
        z = np.zeros_like(y)
        z[0] = y[0]
        for n in range(1, len(y)):
            z[n] = y[n] + a * z[n - 1] + b * y[n - 1]
        y = z
    return np.sum(y**2)


def snr_db(signal, noise):
    ps = np.mean(signal**2)
    pn = np.mean(noise**2)
    return 10.0 * math.log10(ps / pn)


def band_energy_slices(x):
    X = np.abs(np.fft.fft(x)) ** 2
    half = X[: len(x) // 2]
    low, high = half[:2], half[2:]
    return np.log(np.sum(low) + 1.0) - np.log(np.sum(high) + 1.0)


def savgol_like(x):
    kernel = np.array([-3.0, 12.0, 17.0, 12.0, -3.0]) / 35.0
    smooth = np.convolve(x, kernel, mode="valid")
    return np.sum(np.diff(smooth) ** 2)


def hilbert_envelope_fft(x):
    n = len(x)
    X = np.fft.fft(x)
    h = np.zeros(n)
    h[0] = 1.0
    h[1:n // 2] = 2.0
    h[n // 2] = 1.0
    analytic = np.fft.ifft(X * h)
    return np.sum(np.abs(analytic))


def pll_phase_error(theta0, x):
    """A phase-locked loop's phase error over a few samples."""
    theta = theta0
    err = 0.0
    for n in range(len(x)):
        e = x[n] * -math.sin(theta)
        theta = theta + 0.3 + 0.2 * e
        err += e * e
    return err


SIGNAL = [
    ("fir_loop", fir_loop, lambda r: (M(r, 3), M(r, 8)), 0),
    ("fir_loop_x", fir_loop, lambda r: (M(r, 3), M(r, 8)), 1),
    ("fir_convolve", fir_convolve, lambda r: (M(r, 3), M(r, 8)), 0),
    ("fir_convolve_x", fir_convolve, lambda r: (M(r, 3), M(r, 8)), 1),
    ("fir_convolve_same", fir_convolve_same, lambda r: (M(r, 7),), 0),
    ("iir_first_order", iir_first_order, lambda r: (0.6, M(r, 6)), 0),
    ("iir_first_order_x", iir_first_order, lambda r: (0.6, M(r, 6)), 1),
    ("biquad", biquad, lambda r: (np.array([0.2, 0.4, 0.2, -0.3, 0.1]), M(r, 7)), 0),
    ("biquad_x", biquad, lambda r: (np.array([0.2, 0.4, 0.2, -0.3, 0.1]), M(r, 7)), 1),
    ("windowed_power", windowed_power, lambda r: (M(r, 8),), 0),
    ("rfft_power", rfft_power, lambda r: (M(r, 8),), 0),
    ("spectral_centroid", spectral_centroid, lambda r: (M(r, 8),), 0),
    ("lowpass_fft", lowpass_fft, lambda r: (M(r, 8),), 0),
    ("moving_average_loop", moving_average_loop, lambda r: (M(r, 7),), 0),
    ("moving_average_cumsum", moving_average_cumsum, lambda r: (M(r, 7),), 0),
    ("exponential_smoothing_while", exponential_smoothing_while, lambda r: (0.3, M(r, 7)), 0),
    ("exponential_smoothing_while_x", exponential_smoothing_while, lambda r: (0.3, M(r, 7)), 1),
    ("autocorrelation", autocorrelation, lambda r: (M(r, 8),), 0),
    ("envelope_rms", envelope_rms, lambda r: (M(r, 8),), 0),
    ("matched_filter_peak", matched_filter_peak, lambda r: (M(r, 3), M(r, 9)), 0),
    ("pre_emphasis", pre_emphasis, lambda r: (M(r, 6),), 0),
    ("dc_blocker", dc_blocker, lambda r: (M(r, 6),), 0),
    ("soft_clip_distortion", soft_clip_distortion, lambda r: (M(r, 6),), 0),
    ("quantization_noise_float32", quantization_noise_float32, lambda r: (F(r, 5),), 0),
    ("goertzel_power", goertzel_power, lambda r: (M(r, 8),), 0),
    ("lms_adaptive", lms_adaptive, lambda r: (0.1 * M(r, 3), M(r, 8), M(r, 8)), 0),
    ("lms_adaptive_d", lms_adaptive, lambda r: (0.1 * M(r, 3), M(r, 8), M(r, 8)), 2),
    ("dft_matrix_power", dft_matrix_power, lambda r: (M(r, 8),), 0),
    ("zero_crossing_soft", zero_crossing_soft, lambda r: (M(r, 6),), 0),
    ("delay_line_echo", delay_line_echo, lambda r: (M(r, 6),), 0),
    ("cascade_sections", cascade_sections, lambda r: (M(r, 6),), 0),
    ("snr_db", snr_db, lambda r: (M(r, 6), M(r, 6)), 0),
    ("snr_db_noise", snr_db, lambda r: (M(r, 6), M(r, 6)), 1),
    ("band_energy_slices", band_energy_slices, lambda r: (M(r, 8),), 0),
    ("savgol_like", savgol_like, lambda r: (M(r, 9),), 0),
    ("hilbert_envelope_fft", hilbert_envelope_fft, lambda r: (M(r, 8) + 2.0,), 0),
    ("pll_phase_error", pll_phase_error, lambda r: (0.2, M(r, 6)), 0),
    ("pll_phase_error_x", pll_phase_error, lambda r: (0.2, M(r, 6)), 1),
]
