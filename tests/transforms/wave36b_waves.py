"""Wave 36b: acoustics, optics and graphics, written as engineers write them (FIR filters as loops
over taps, feedback comb and all-pass sections of a Schroeder reverb, pre-emphasis, spectral losses by
the real part of np.fft.fft, log-mel energies by a filterbank matrix, ADSR envelopes; ray transfer
matrices multiplied by functools.reduce, Snell's law through layers by np.arcsin, Fresnel
reflectance, thin-film phase; Phong / Blinn shading with np.maximum(0, dot), barycentric coordinates,
soft rasterisation by sigmoid edges, gamma correction on float32 colours)
(test_wave36b.py runs them through every transformation)."""

from __future__ import annotations

import functools
import math

import numpy as np

T = np.arange(48) / 48.0
CLEAN = np.sin(2 * np.pi * 4 * T) + 0.4 * np.sin(2 * np.pi * 9 * T + 0.3)
NOISY = CLEAN + 0.25 * np.cos(2 * np.pi * 19 * T + 0.7) + 0.1 * np.sin(2 * np.pi * 13 * T)
CLEAN32 = CLEAN.astype(np.float32)
MELS = np.maximum(0.0, 1.0 - np.abs(np.arange(25)[None, :] - np.linspace(2, 22, 6)[:, None]) / 4.0)
TARGET_MEL = np.log(MELS @ (np.abs(np.fft.rfft(CLEAN)) ** 2) + 1e-3)


def fir_loop_over_taps(taps, x=NOISY, target=CLEAN):
    """y[n] = sum_k h[k] x[n - k], written as the textbook double loop."""
    n_taps = len(taps)
    err = 0.0
    for n in range(n_taps - 1, len(x)):
        acc = 0.0
        for k in range(n_taps):
            acc = acc + taps[k] * x[n - k]
        err = err + (acc - target[n]) ** 2
    return err / (len(x) - n_taps + 1)


def fir_zip_reversed(taps, x=NOISY, target=CLEAN):
    """The same filter by zip over reversed windows (a list of outputs)."""
    m = len(taps)
    out = []
    for n in range(m - 1, len(x)):
        window = x[n - m + 1:n + 1]
        out.append(sum(h * v for h, v in zip(taps, reversed(window))))
    return np.mean((np.array(out) - target[m - 1:]) ** 2)


def comb_allpass_reverb(g, x=NOISY[:32]):
    """A feedback comb then an all-pass section (Schroeder), delays in a list used as a ring."""
    fb, ap = g[0], g[1]
    delay, buf = 4, [0.0] * 4
    comb = []
    for n, v in enumerate(x):
        out = v + fb * buf[n % delay]
        buf[n % delay] = out
        comb.append(out)
    y, prev_in, prev_out = [], 0.0, 0.0
    for v in comb:
        o = -ap * v + prev_in + ap * prev_out
        y.append(o)
        prev_in, prev_out = v, o
    tail = np.array(y[16:])
    return np.sum(tail ** 2) + 0.1 * np.sum((np.array(y[:16]) - x[:16]) ** 2)


def pre_emphasis_energy(alpha, x=NOISY):
    emphasized = np.append(x[0], x[1:] - alpha[0] * x[:-1])
    frames = emphasized[:40].reshape(5, 8)
    energy = np.sum(frames ** 2, axis=1, keepdims=True)
    return float(np.sum(np.log(energy + 1e-6) * np.array([[1.0], [0.5], [0.25], [0.5], [1.0]])))


def spectral_real_part(x, target=CLEAN):
    """A spectral loss on the real and imaginary parts of np.fft.fft taken apart."""
    spec = np.fft.fft(x)
    ref = np.fft.fft(target)
    return np.sum((spec.real - ref.real) ** 2 + (spec.imag - ref.imag) ** 2) / len(x) + np.sum(x ** 4) * 1e-3


def log_mel_loss(x, mel=MELS, target=TARGET_MEL):
    power = np.abs(np.fft.rfft(x)) ** 2
    return np.mean((np.log(mel @ power + 1e-3) - target) ** 2)


def adsr_envelope(p, n=40, target=np.abs(CLEAN[:40])):  # noqa: B008
    """Attack / decay / sustain / release times as softplus parameters; an envelope by branches."""
    attack, decay, sustain, release = [math.log1p(math.exp(v)) for v in p]
    env = []
    for i in range(n):
        t = i / 10.0
        if t < attack:
            level = t / attack
        elif t < attack + decay:
            level = 1.0 - (1.0 - sustain) * (t - attack) / decay
        elif t < 3.0:
            level = sustain
        else:
            level = sustain * math.exp(-(t - 3.0) / release)
        env.append(level)
    return float(np.sum((np.array(env) - target) ** 2))


def db_loudness(gains, x=NOISY[:32]):
    """Gains in dB per band of 8 samples, loudness as 20 log10 RMS, a target level."""
    bands = x.reshape(4, 8)
    scaled = bands * (10.0 ** (gains / 20.0))[:, np.newaxis]
    rms = np.sqrt(np.mean(scaled ** 2, axis=1))
    return np.sum((20.0 * np.log10(rms) + 3.0) ** 2)


def ray_transfer_reduce(f):
    """Thin lenses and gaps as 2x2 ray matrices, multiplied by functools.reduce; focus at the image."""
    def lens(fl):
        return np.array([[1.0, 0.0], [-1.0 / fl, 1.0]])

    def gap(d):
        return np.array([[1.0, d], [0.0, 1.0]])
    elements = [gap(0.5), lens(f[0]), gap(0.3), lens(f[1]), gap(0.8)]
    system = functools.reduce(lambda acc, m: m @ acc, elements, np.eye(2))
    rays = np.array([[0.1, 0.0], [0.0, 0.05], [-0.05, 0.02]]).T
    out = system @ rays
    return np.sum(out[0] ** 2) + (system[0, 0] * system[1, 1] - system[0, 1] * system[1, 0] - 1.0) ** 2


def snell_layers(n_layers, angle=0.4):
    """A ray through stacked layers by Snell's law (np.arcsin); the lateral shift it accumulates."""
    indices = np.concatenate([[1.0], n_layers, [1.0]])
    theta = angle
    shift = 0.0
    for k in range(1, len(indices) - 1):
        theta = np.arcsin(indices[k - 1] * np.sin(theta) / indices[k])
        shift = shift + 0.2 * np.tan(theta)
    return (shift - 0.15) ** 2


def fresnel_reflectance(n2, theta=np.array([0.1, 0.5, 0.9]), n1=1.0):  # noqa: B008
    """s- and p-polarised reflectance at several angles, averaged (unpolarised light)."""
    sin_t = n1 * np.sin(theta) / n2[0]
    cos_t = np.sqrt(1.0 - sin_t ** 2)
    cos_i = np.cos(theta)
    rs = ((n1 * cos_i - n2[0] * cos_t) / (n1 * cos_i + n2[0] * cos_t)) ** 2
    rp = ((n1 * cos_t - n2[0] * cos_i) / (n1 * cos_t + n2[0] * cos_i)) ** 2
    return np.mean(0.5 * (rs + rp))


def thin_film_phase(d, n_film=1.38, wavelengths=np.array([0.45, 0.55, 0.65])):  # noqa: B008
    delta = 4 * np.pi * n_film * d[0] / wavelengths
    r1, r2 = 0.02, 0.04
    refl = (r1 + r2 + 2 * np.sqrt(r1 * r2) * np.cos(delta)) / (1 + r1 * r2 + 2 * np.sqrt(r1 * r2) * np.cos(delta))
    return np.sum(refl)


NORMALS = np.array([[0.0, 0.0, 1.0], [0.3, 0.1, 0.95], [-0.2, 0.4, 0.89], [0.5, -0.5, 0.7]])
NORMALS = NORMALS / np.linalg.norm(NORMALS, axis=1, keepdims=True)
TARGET_SHADE = np.array([0.8, 0.9, 0.5, 0.6])


def phong_shading(light, normals=NORMALS, view=np.array([0.0, 0.0, 1.0]), shininess=8.0):  # noqa: B008
    """Diffuse np.maximum(0, n.l) plus a specular term of the reflected ray, per pixel."""
    l_dir = light / np.linalg.norm(light)
    ndotl = normals @ l_dir
    diffuse = np.maximum(0.0, ndotl)
    reflected = 2.0 * ndotl[:, np.newaxis] * normals - l_dir
    spec = np.maximum(0.0, reflected @ view) ** shininess
    return np.sum((0.7 * diffuse + 0.3 * spec - TARGET_SHADE) ** 2)


def blinn_einsum(params, normals=NORMALS):
    """Blinn-Phong with the half vector, dot products by einsum strings, a light colour."""
    light, colour = params[:3], params[3:]
    view = np.array([0.0, 0.2, 1.0])
    half = light / np.linalg.norm(light) + view / np.linalg.norm(view)
    half = half / np.linalg.norm(half)
    ndoth = np.einsum("ij,j->i", normals, half)
    shade = np.einsum("i,c->ic", np.maximum(ndoth, 0.0) ** 16 + 0.2, colour)
    return np.sum((shade - 0.5) ** 2)


def barycentric_interpolation(verts, p=np.array([[0.2, 0.3], [0.5, 0.1], [0.3, 0.4]])):  # noqa: B008
    """Barycentric weights of points in a triangle (vertices differentiated), colours interpolated."""
    a, b, c = verts[0], verts[1], verts[2]
    v0, v1 = b - a, c - a
    d00, d01, d11 = v0 @ v0, v0 @ v1, v1 @ v1
    denom = d00 * d11 - d01 * d01
    colours = np.array([1.0, 0.5, 0.0])
    total = 0.0
    for q in p:
        v2 = q - a
        d20, d21 = v2 @ v0, v2 @ v1
        v = (d11 * d20 - d01 * d21) / denom
        w = (d00 * d21 - d01 * d20) / denom
        u = 1.0 - v - w
        total += (u * colours[0] + v * colours[1] + w * colours[2] - 0.6) ** 2
    return total


def soft_raster(verts, sigma=0.05):
    """Soft rasterisation: coverage of a pixel grid by sigmoid edge functions of a triangle."""
    xs, ys = np.meshgrid(np.linspace(0, 1, 6), np.linspace(0, 1, 6))
    pix = np.stack([xs.ravel(), ys.ravel()], axis=1)
    coverage = np.ones(len(pix))
    for k in range(3):
        p0, p1 = verts[k], verts[(k + 1) % 3]
        edge = (pix[:, 0] - p0[0]) * (p1[1] - p0[1]) - (pix[:, 1] - p0[1]) * (p1[0] - p0[0])
        coverage = coverage * (1.0 / (1.0 + np.exp(edge / sigma)))
    return np.sum((coverage - (pix[:, 0] + pix[:, 1] < 0.8)) ** 2)


def gamma_correct_f32(rgb, target=np.array([0.3, 0.5, 0.7, 0.2], dtype=np.float32)):  # noqa: B008
    """sRGB-like encoding with a linear toe chosen by np.where, on float32 colours."""
    lin = np.clip(rgb, 0.0, 1.0)
    encoded = np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055)
    return np.sum((encoded - target) ** 2)


def _vec(*values, dtype=float):
    return lambda rng: (np.array(values, dtype=dtype),)


WAVES = [
    ("snd_fir_loop_taps", fir_loop_over_taps, _vec(0.2, 0.3, 0.25, 0.15), 0),
    ("snd_fir_zip_reversed", fir_zip_reversed, _vec(0.25, 0.35, 0.2), 0),
    ("snd_comb_allpass", comb_allpass_reverb, _vec(0.4, 0.5), 0),
    ("snd_pre_emphasis", pre_emphasis_energy, _vec(0.9), 0),
    ("snd_spectral_real_part", spectral_real_part, lambda rng: (CLEAN + 0.1 * rng.normal(size=48),), 0),
    ("snd_log_mel", log_mel_loss, lambda rng: (CLEAN + 0.2 * rng.normal(size=48),), 0),
    ("snd_adsr_envelope", adsr_envelope, lambda rng: ([0.3, 0.1, 0.2, -0.4],), 0),
    ("snd_db_loudness", db_loudness, _vec(1.0, -2.0, 0.5, 3.0), 0),
    ("opt_ray_transfer_reduce", ray_transfer_reduce, _vec(0.6, 0.9), 0),
    ("opt_snell_layers", snell_layers, _vec(1.3, 1.5, 1.4), 0),
    ("opt_fresnel", fresnel_reflectance, _vec(1.5), 0),
    ("opt_thin_film", thin_film_phase, _vec(0.1), 0),
    ("gfx_phong", phong_shading, _vec(0.3, 0.4, 1.0), 0),
    ("gfx_blinn_einsum", blinn_einsum, _vec(0.3, 0.4, 1.0, 0.9, 0.8, 0.6), 0),
    ("gfx_barycentric", barycentric_interpolation, lambda rng: (np.array([[0.0, 0.0], [1.0, 0.1], [0.2, 0.9]]),), 0),
    ("gfx_soft_raster", soft_raster, lambda rng: (np.array([[0.1, 0.1], [0.9, 0.2], [0.3, 0.8]]),), 0),
    ("gfx_gamma_f32", gamma_correct_f32, _vec(0.2, 0.4, 0.6, 0.002, dtype=np.float32), 0),
]
