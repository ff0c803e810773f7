"""The red team's eighteenth wave: audio and signal processing written by hand.  A biquad in transposed direct
form II, Goertzel's recursion, a feedback comb and an all-pass reverb, an envelope follower with separate
attack and release (a branch on the signal), a soft-knee compressor, Levinson-Durbin's LPC recursion,
autocorrelation by np.correlate(mode="full"), a DFT by a cos / sin matrix, windows by their formula and by
np.hanning / np.kaiser, pre-emphasis, a triangular mel filterbank, the spectral centroid and flatness, a
zero-phase filter by reversal, Haar wavelets by reshape, upsampling by np.repeat, decimation by x[::2],
windowed-sinc interpolation, overlap-add, a phase accumulator, an AGC loop, tanh distortion, a delay line
through np.roll and a first-order PLL.  See redteam_wave18.py.
"""

from __future__ import annotations

import math

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


def biquad_df2t(b, x):
    a1, a2 = -1.2, 0.5
    z1 = z2 = 0.0
    out = np.zeros_like(x)
    for n in range(len(x)):
        y = b[0] * x[n] + z1
        z1 = b[1] * x[n] - a1 * y + z2
        z2 = b[2] * x[n] - a2 * y
        out[n] = y
    return np.sum(out ** 2)


def biquad_poles(a, x):
    y1 = y2 = 0.0
    total = 0.0
    for xn in x:
        y = xn - a[0] * y1 - a[1] * y2
        y2, y1 = y1, y
        total += y * y
    return total


def goertzel_power(x, k=3):
    N = len(x)
    w = 2.0 * math.pi * k / N
    coeff = 2.0 * math.cos(w)
    s_prev = s_prev2 = 0.0
    for n in range(N):
        s = x[n] + coeff * s_prev - s_prev2
        s_prev2 = s_prev
        s_prev = s
    return s_prev2 ** 2 + s_prev ** 2 - coeff * s_prev * s_prev2


def comb_reverb(g, x, delay=3):
    y = np.zeros(len(x))
    for n in range(len(x)):
        y[n] = x[n] + (g * y[n - delay] if n >= delay else 0.0)
    return y @ y


def allpass_chain(g, x):
    for gain in g:
        y = np.empty_like(x)
        prev_x = prev_y = 0.0
        for n, xn in enumerate(x):
            y[n] = -gain * xn + prev_x + gain * prev_y
            prev_x, prev_y = xn, y[n]
        x = y
    return np.sum(x[-4:] ** 2)


def envelope_follower(x, attack=0.3, release=0.05):
    env = 0.0
    total = 0.0
    for s in np.abs(x):
        if s > env:
            env = env + attack * (s - env)
        else:
            env = env + release * (s - env)
        total += env
    return total


def soft_knee_gain(level_db, threshold=-20.0, ratio=4.0, knee=6.0):
    over = level_db - threshold
    gain = np.where(2 * over < -knee, 0.0,
                    np.where(2 * np.abs(over) <= knee,
                             (1 / ratio - 1) * (over + knee / 2) ** 2 / (2 * knee),
                             (1 / ratio - 1) * over))
    return np.sum((level_db + gain) ** 2) / 100.0


def levinson_durbin(r, order=3):
    a = np.zeros(order + 1)
    a[0] = 1.0
    err = r[0]
    for i in range(1, order + 1):
        acc = r[i]
        for j in range(1, i):
            acc = acc + a[j] * r[i - j]
        k = -acc / err
        new = a.copy()
        for j in range(1, i):
            new[j] = a[j] + k * a[i - j]
        new[i] = k
        a = new
        err = err * (1 - k * k)
    return err + np.sum(a ** 2)


def autocorr_peak(x):
    full = np.correlate(x, x, mode="full")
    half = full[len(x) - 1:]
    return np.sum(half[1:4] / half[0])


def dft_magnitude(x):
    N = len(x)
    n = np.arange(N)
    k = n.reshape((N, 1))
    C = np.cos(2 * np.pi * k * n / N)
    S = np.sin(2 * np.pi * k * n / N)
    re = C @ x
    im = -(S @ x)
    return np.sum(np.sqrt(re[1:N // 2] ** 2 + im[1:N // 2] ** 2 + 1e-12))


def hann_energy(x):
    N = x.shape[0]
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N) / (N - 1))
    return np.dot(w * x, w * x)


def library_windows(x):
    return np.sum((np.hanning(len(x)) * x) ** 2) + np.sum(np.kaiser(len(x), 5.0) * x)


def pre_emphasis(x, alpha=0.97):
    y = np.append(x[0], x[1:] - alpha * x[:-1])
    return np.mean(y ** 2)


def mel_energies(power, n_mels=3):
    n = len(power)
    edges = np.linspace(0, n - 1, n_mels + 2)
    bins = np.arange(n)
    total = 0.0
    for m in range(1, n_mels + 1):
        left, centre, right = edges[m - 1], edges[m], edges[m + 1]
        up = (bins - left) / (centre - left)
        down = (right - bins) / (right - centre)
        tri = np.maximum(0.0, np.minimum(up, down))
        total = total + np.log(tri @ power + 1e-3)
    return total


def spectral_centroid(mag):
    freqs = np.arange(mag.size, dtype=float)
    p = mag ** 2
    return (freqs * p).sum() / p.sum()


def spectral_flatness(mag):
    p = mag ** 2 + 1e-6
    return np.exp(np.mean(np.log(p))) / np.mean(p)


def one_pole(x, a):
    y = np.zeros_like(x)
    acc = 0.0
    for i in range(x.shape[0]):
        acc = a * acc + (1 - a) * x[i]
        y[i] = acc
    return y


def zero_phase(a, x):
    forward = one_pole(x, a)
    backward = one_pole(forward[::-1], a)[::-1]
    return np.sum((backward - x) ** 2)


def haar_energy(x):
    total = 0.0
    approx = x
    while approx.size > 1:
        pairs = approx.reshape(-1, 2)
        detail = (pairs[:, 0] - pairs[:, 1]) / np.sqrt(2.0)
        approx = (pairs[:, 0] + pairs[:, 1]) / np.sqrt(2.0)
        total += np.sum(np.abs(detail) ** 1.5)
    return total + approx[0] ** 2


def upsample_smooth(x):
    up = np.repeat(x, 2)
    kernel = np.array([0.25, 0.5, 0.25])
    return np.sum(np.convolve(up, kernel, mode="same") ** 2)


def decimate_energy(x):
    smooth = 0.5 * (x[:-1] + x[1:])
    return np.sum(smooth[::2] ** 2) - np.sum(x[1::3])


def sinc_interp(samples, t):
    n = np.arange(len(samples))
    return np.sum(samples * np.sinc(t - n)) ** 2


def sinc_at_sample(t, samples):
    n = np.arange(len(samples))
    return np.sum(samples * np.sinc(t - n))


def overlap_add(x, hop=2, size=4):
    w = np.hanning(size + 2)[1:-1]
    out = np.zeros(len(x) + size)
    for start in range(0, len(x) - size + 1, hop):
        out[start:start + size] += w * x[start:start + size]
    return np.sum(out ** 2)


def phase_accumulator(freqs):
    phase = 0.0
    total = 0.0
    for f in freqs:
        phase = (phase + 2 * math.pi * f) % (2 * math.pi)
        total += math.sin(phase)
    return total


def agc_loop(gain0, x, target=1.0, rate=0.1):
    g = gain0
    i = 0
    while i < len(x):
        y = g * x[i]
        g = g + rate * (target - y * y) * g
        i += 1
    return g


def tanh_distortion(drive, x):
    y = np.tanh(drive * x) / np.tanh(drive)
    return np.mean((y - x) ** 2)


def delay_line(x, mix):
    wet = np.roll(x, 2)
    wet[:2] = 0.0
    y = (1 - mix) * x + mix * wet
    return np.sum(y * y)


def pll(freq_error, x, gain=0.2):
    phase = 0.0
    err_total = 0.0
    for sample in x:
        ref = math.sin(phase)
        err = sample * math.cos(phase)
        phase = phase + freq_error + gain * err
        err_total = err_total + err * err + 0.0 * ref
    return err_total


def fir_keywords(h, x):
    y = np.convolve(x, h, mode="valid")
    return np.square(y).mean(axis=0, keepdims=False)


SIGNAL18 = [
    ("w18_biquad_df2t", biquad_df2t, lambda r: (np.array([0.2, 0.4, 0.2]), M(r, 10)), 0),
    ("w18_biquad_poles", biquad_poles, lambda r: (np.array([-0.9, 0.4]), M(r, 10)), 0),
    ("w18_goertzel", goertzel_power, lambda r: (M(r, 12),), 0),
    ("w18_comb_reverb", comb_reverb, lambda r: (0.6, M(r, 10)), 0),
    ("w18_allpass_chain", allpass_chain, lambda r: (np.array([0.5, -0.3]), M(r, 8)), 0),
    ("w18_envelope_follower", envelope_follower, lambda r: (M(r, 10),), 0),
    ("w18_soft_knee", soft_knee_gain, lambda r: (np.array([-40.0, -22.0, -19.0, -10.0, -2.0]),), 0),
    ("w18_levinson", levinson_durbin, lambda r: (np.array([2.0, 0.9, 0.3, -0.1]),), 0),
    ("w18_autocorr_peak", autocorr_peak, lambda r: (M(r, 8),), 0),
    ("w18_dft_magnitude", dft_magnitude, lambda r: (M(r, 8),), 0),
    ("w18_hann_energy", hann_energy, lambda r: (M(r, 8),), 0),
    ("w18_library_windows", library_windows, lambda r: (M(r, 7),), 0),
    ("w18_pre_emphasis", pre_emphasis, lambda r: (M(r, 9),), 0),
    ("w18_mel_energies", mel_energies, lambda r: (r.uniform(0.5, 2.0, 11),), 0),
    ("w18_spectral_centroid", spectral_centroid, lambda r: (r.uniform(0.5, 2.0, 8),), 0),
    ("w18_spectral_flatness", spectral_flatness, lambda r: (M(r, 8),), 0),
    ("w18_zero_phase", zero_phase, lambda r: (0.6, M(r, 8)), 0),
    ("w18_zero_phase_signal", zero_phase, lambda r: (0.6, M(r, 8)), 1),
    ("w18_haar_energy", haar_energy, lambda r: (M(r, 8),), 0),
    ("w18_upsample_smooth", upsample_smooth, lambda r: (M(r, 5),), 0),
    ("w18_decimate", decimate_energy, lambda r: (M(r, 9),), 0),
    ("w18_sinc_interp", sinc_interp, lambda r: (M(r, 6), 2.3), 1),
    ("w18_sinc_at_sample", sinc_at_sample, lambda r: (2.0, M(r, 6)), 0),
    ("w18_overlap_add", overlap_add, lambda r: (M(r, 10),), 0),
    ("w18_phase_accumulator", phase_accumulator, lambda r: (np.array([0.13, 0.21, 0.37, 0.05]),), 0),
    ("w18_agc_loop", agc_loop, lambda r: (0.8, 0.5 * M(r, 8)), 0),
    ("w18_tanh_distortion", tanh_distortion, lambda r: (1.7, M(r, 8)), 0),
    ("w18_delay_line", delay_line, lambda r: (M(r, 7), 0.3), 0),
    ("w18_delay_line_mix", delay_line, lambda r: (M(r, 7), 0.3), 1),
    ("w18_pll", pll, lambda r: (0.05, np.sin(0.3 * np.arange(10))), 0),
    ("w18_fir_keywords", fir_keywords, lambda r: (M(r, 3), M(r, 9)), 0),
]
