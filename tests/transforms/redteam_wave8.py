"""The red team's eighth wave (issue 23, closure on unseen programs): sixty more programs
written the way users write them, through every transformation.  Machine learning (a VAE ELBO
with the reparameterisation trick on fixed noise, mixture of experts with softmax gates, a
linear-chain CRF's forward algorithm, WGAN critic losses with weight clipping, knowledge
distillation with a temperature, a sparse autoencoder's KL penalty, Gumbel-softmax on fixed
noise, attention with ALiBi biases and with rotary embeddings, a 2-D convolution written as
explicit loops, a GRU cell unrolled) and scientific code (an Ising/XY energy, 1-D shallow water
with Lax-Friedrichs, a two-compartment pharmacokinetic model by Euler, a Michaelis-Menten fit,
paraxial ray tracing through lenses with ABCD matrices, a Hohmann transfer, a counterflow heat
exchanger by NTU, Hodgkin-Huxley steps, Catmull-Rom spline evaluation, Savitzky-Golay smoothing
by fixed weights) are here; statistics, library-style code and special points are in
redteam_wave8_library.py.

`WAVE8` holds both: ``(name, function, make, wrt)`` as in redteam_programs.py.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special

# ---- machine learning ---------------------------------------------------------------------------


def vae_elbo_fixed_noise(enc_W, X, dec_W, eps):
    stats = X @ enc_W
    d = stats.shape[1] // 2
    mu, logvar = stats[:, :d], stats[:, d:]
    z = mu + np.exp(0.5 * logvar) * eps
    recon = np.tanh(z @ dec_W)
    rec = np.sum((recon - X) ** 2, axis=1)
    kl = -0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar), axis=1)
    return np.mean(rec + kl)


def mixture_of_experts_soft(G, X, experts, y):
    gates = np.exp(X @ G)
    gates = gates / gates.sum(axis=1, keepdims=True)
    outs = np.stack([X @ E for E in experts], axis=1)  # (n, k)
    pred = np.sum(gates * outs, axis=1)
    return np.mean((pred - y) ** 2) + 0.01 * np.sum(gates.mean(axis=0) ** 2)


def crf_forward_log_partition(trans, emissions):
    alpha = emissions[0]
    for t in range(1, emissions.shape[0]):
        scores = alpha[:, None] + trans + emissions[t][None, :]
        alpha = scipy.special.logsumexp(scores, axis=0)
    return scipy.special.logsumexp(alpha)


def crf_nll_gold_path(trans, emissions, tags):
    gold = emissions[0, tags[0]]
    for t in range(1, len(tags)):
        gold = gold + trans[tags[t - 1], tags[t]] + emissions[t, tags[t]]
    return crf_forward_log_partition(trans, emissions) - gold


def wgan_critic_clipped(W, real, fake, c=0.5):
    Wc = np.clip(W, -c, c)
    critic_real = np.tanh(real @ Wc).sum(axis=1)
    critic_fake = np.tanh(fake @ Wc).sum(axis=1)
    return np.mean(critic_fake) - np.mean(critic_real)


def distillation_temperature(W, X, teacher_logits, labels, T=3.0, alpha=0.7):
    s = X @ W
    s_t = s / T
    log_ps = s_t - scipy.special.logsumexp(s_t, axis=1, keepdims=True)
    pt = scipy.special.softmax(teacher_logits / T, axis=1)
    soft = np.sum(pt * (np.log(pt) - log_ps), axis=1).mean() * T * T
    log_p = s - scipy.special.logsumexp(s, axis=1, keepdims=True)
    hard = -np.mean(log_p[np.arange(len(labels)), labels])
    return alpha * soft + (1 - alpha) * hard


def sparse_autoencoder_kl(W, X, rho=0.05, beta=3.0):
    h = scipy.special.expit(X @ W)
    rho_hat = h.mean(axis=0)
    kl = rho * np.log(rho / rho_hat) + (1 - rho) * np.log((1 - rho) / (1 - rho_hat))
    recon = h @ W.T
    return 0.5 * np.sum((recon - X) ** 2) / X.shape[0] + beta * np.sum(kl)


def gumbel_softmax_fixed(logits, gumbel, values, tau=0.5):
    y = (logits + gumbel) / tau
    y = y - np.max(y, axis=-1, keepdims=True)
    soft = np.exp(y) / np.sum(np.exp(y), axis=-1, keepdims=True)
    return np.sum(soft @ values)


def alibi_attention(Wq, X, slope=0.5):
    T = X.shape[0]
    q = X @ Wq
    pos = np.arange(T)
    bias = -slope * np.abs(pos[:, None] - pos[None, :])
    s = q @ X.T / math.sqrt(X.shape[1]) + bias
    a = np.exp(s - s.max(axis=1, keepdims=True))
    a /= a.sum(axis=1, keepdims=True)
    return np.sum((a @ X) * X)


def _rotate_half(x):
    half = x.shape[-1] // 2
    return np.concatenate([-x[..., half:], x[..., :half]], axis=-1)


def rotary_attention(Wq, X, base=100.0):
    T, D = X.shape
    inv = 1.0 / base ** (np.arange(0, D, 2) / D)
    ang = np.outer(np.arange(T), inv)
    cos = np.concatenate([np.cos(ang), np.cos(ang)], axis=1)
    sin = np.concatenate([np.sin(ang), np.sin(ang)], axis=1)
    q = X @ Wq
    q_rot = q * cos + _rotate_half(q) * sin
    k_rot = X * cos + _rotate_half(X) * sin
    s = q_rot @ k_rot.T
    return np.sum(scipy.special.softmax(s, axis=1) * s)


def conv2d_explicit_loops(kernel, image):
    kh, kw = kernel.shape
    H, W = image.shape
    out = np.zeros((H - kh + 1, W - kw + 1))
    for i in range(H - kh + 1):
        for j in range(W - kw + 1):
            out[i, j] = np.sum(image[i:i + kh, j:j + kw] * kernel)
    return np.sum(np.maximum(out, 0.0) ** 2)


def conv2d_strided_sum(kernel, image, stride=2):
    kh, kw = kernel.shape
    acc = 0.0
    for i in range(0, image.shape[0] - kh + 1, stride):
        for j in range(0, image.shape[1] - kw + 1, stride):
            patch = image[i:i + kh, j:j + kw]
            acc += np.tanh(np.sum(patch * kernel))
    return acc


def gru_unrolled(Wz, Wr, Wh, xs, h0):
    h = h0
    for x in xs:
        xh = np.concatenate([x, h])
        zg = scipy.special.expit(Wz @ xh)
        rg = scipy.special.expit(Wr @ xh)
        cand = np.tanh(Wh @ np.concatenate([x, rg * h]))
        h = (1 - zg) * h + zg * cand
    return np.sum(h ** 2)


def label_noise_symmetric_ce(W, X, labels, noise=0.1):
    z = X @ W
    p = np.exp(z - scipy.special.logsumexp(z, axis=1, keepdims=True))
    k = W.shape[1]
    target = np.full(p.shape, noise / (k - 1))
    target[np.arange(len(labels)), labels] = 1 - noise
    ce = -np.sum(target * np.log(p), axis=1)
    rce = -np.sum(p * np.log(np.clip(target, 1e-4, 1.0)), axis=1)
    return np.mean(ce + 0.5 * rce)


def hinge_gan_generator(theta, noise, Wd):
    fake = np.tanh(noise * theta[0] + theta[1])
    d_fake = fake @ Wd
    return -np.mean(d_fake) + 0.1 * np.mean(np.maximum(0.0, 1.0 - d_fake))


# ---- scientific ---------------------------------------------------------------------------------


def xy_model_energy(theta, J=1.0, h=0.3):
    right = np.cos(theta - np.roll(theta, -1, axis=1))
    down = np.cos(theta - np.roll(theta, -1, axis=0))
    return -J * np.sum(right + down) - h * np.sum(np.cos(theta))


def ising_mean_field_free_energy(m, J, beta=2.0):
    m = np.tanh(m)
    energy = -0.5 * m @ J @ m
    p, q = (1 + m) / 2, (1 - m) / 2
    entropy = -np.sum(p * np.log(p) + q * np.log(q))
    return energy - entropy / beta


def shallow_water_lax_friedrichs(h0, dx=0.1, dt=0.01, g=9.81, steps=4):
    h = h0.copy()
    hu = np.zeros_like(h0)
    for _ in range(steps):
        u = hu / h
        F1, F2 = hu, hu * u + 0.5 * g * h * h
        hp, hm = np.roll(h, -1), np.roll(h, 1)
        hup, hum = np.roll(hu, -1), np.roll(hu, 1)
        h = 0.5 * (hp + hm) - dt / (2 * dx) * (np.roll(F1, -1) - np.roll(F1, 1))
        hu = 0.5 * (hup + hum) - dt / (2 * dx) * (np.roll(F2, -1) - np.roll(F2, 1))
    return np.sum(h ** 2) + np.sum(hu ** 2)


def pk_two_compartment(k, dose=100.0, dt=0.1, steps=30, t_obs=(5, 12, 25), c_obs=(4.0, 3.1, 1.2)):
    ka, k12, k21, ke = np.exp(k)
    gut, central, periph = dose, 0.0, 0.0
    sse = 0.0
    for s in range(steps):
        d_gut = -ka * gut
        d_c = ka * gut - (k12 + ke) * central + k21 * periph
        d_p = k12 * central - k21 * periph
        gut, central, periph = gut + dt * d_gut, central + dt * d_c, periph + dt * d_p
        if s in t_obs:
            sse = sse + (central / 20.0 - c_obs[t_obs.index(s)]) ** 2
    return sse


def michaelis_menten_fit(params, S, v):
    Vmax, Km = np.exp(params)
    pred = Vmax * S / (Km + S)
    return np.sum((pred - v) ** 2) / len(S)


def _thin_lens(f):
    return np.array([[1.0, 0.0], [-1.0 / f, 1.0]])


def _gap(d):
    return np.array([[1.0, d], [0.0, 1.0]])


def ray_trace_two_lenses(focals, rays, d=0.3, screen=1.0):
    M = _gap(screen) @ _thin_lens(focals[1]) @ _gap(d) @ _thin_lens(focals[0])
    out = rays @ M.T
    return np.sum(out[:, 0] ** 2)


def snell_refraction_path(y_mid, n1=1.0, n2=1.5):
    # Fermat: optical length of a ray through the interface points y_mid
    a = np.array([0.0, 1.0])
    b = np.array([2.0, -1.0])
    xs = np.linspace(0.5, 1.5, y_mid.size)
    d1 = np.sqrt((xs - a[0]) ** 2 + (y_mid * 0 + a[1]) ** 2)
    d2 = np.sqrt((b[0] - xs) ** 2 + (b[1]) ** 2)
    return np.sum(n1 * d1 + n2 * d2 + 0.5 * (y_mid - 0.1) ** 2)


def hohmann_delta_v(radii, mu=398600.0):
    r1, r2 = radii[0], radii[1]
    a = 0.5 * (r1 + r2)
    v1 = math.sqrt(mu / r1)
    v2 = math.sqrt(mu / r2)
    vp = math.sqrt(mu * (2 / r1 - 1 / a))
    va = math.sqrt(mu * (2 / r2 - 1 / a))
    return abs(vp - v1) + abs(v2 - va)


def counterflow_exchanger_ntu(UA, C_hot=2.0, C_cold=3.0, T_hot=90.0, T_cold=20.0):
    c_min, c_max = min(C_hot, C_cold), max(C_hot, C_cold)
    cr = c_min / c_max
    ntu = UA / c_min
    e = np.exp(-ntu * (1 - cr))
    eff = (1 - e) / (1 - cr * e)
    q = eff * c_min * (T_hot - T_cold)
    return -np.sum(q) + 0.05 * np.sum(UA ** 2)


def hodgkin_huxley_steps(g, V0=-65.0, I_ext=10.0, dt=0.01, steps=20):
    gNa, gK, gL = g
    V, m, h, n = V0, 0.05, 0.6, 0.32
    for _ in range(steps):
        am = 0.1 * (V + 40.0) / (1.0 - np.exp(-(V + 40.0) / 10.0))
        bm = 4.0 * np.exp(-(V + 65.0) / 18.0)
        ah = 0.07 * np.exp(-(V + 65.0) / 20.0)
        bh = 1.0 / (1.0 + np.exp(-(V + 35.0) / 10.0))
        an = 0.01 * (V + 55.0) / (1.0 - np.exp(-(V + 55.0) / 10.0))
        bn = 0.125 * np.exp(-(V + 65.0) / 80.0)
        I_ion = gNa * m ** 3 * h * (V - 50.0) + gK * n ** 4 * (V + 77.0) + gL * (V + 54.4)
        V = V + dt * (I_ext - I_ion)
        m = m + dt * (am * (1 - m) - bm * m)
        h = h + dt * (ah * (1 - h) - bh * h)
        n = n + dt * (an * (1 - n) - bn * n)
    return V


def catmull_rom_length(ctrl, samples=8):
    total = 0.0
    for seg in range(1, ctrl.shape[0] - 2):
        p0, p1, p2, p3 = ctrl[seg - 1], ctrl[seg], ctrl[seg + 1], ctrl[seg + 2]
        prev = p1
        for s in range(1, samples + 1):
            t = s / samples
            pt = 0.5 * (2 * p1 + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t ** 2
                        + (-p0 + 3 * p1 - 3 * p2 + p3) * t ** 3)
            total = total + np.sqrt(np.sum((pt - prev) ** 2))
            prev = pt
    return total


SG5 = np.array([-3.0, 12.0, 17.0, 12.0, -3.0]) / 35.0


def savitzky_golay_fixed(y, target):
    smooth = np.convolve(y, SG5, mode="valid")
    return np.sum((smooth - target) ** 2) + 0.1 * np.sum(np.diff(y) ** 2)


def cubic_bezier_area(ctrl):
    t = np.linspace(0.0, 1.0, 21)[:, None]
    pts = ((1 - t) ** 3 * ctrl[0] + 3 * (1 - t) ** 2 * t * ctrl[1] + 3 * (1 - t) * t ** 2 * ctrl[2]
           + t ** 3 * ctrl[3])
    x, y = pts[:, 0], pts[:, 1]
    return 0.5 * abs(np.sum(x[:-1] * y[1:] - x[1:] * y[:-1]))


def radioactive_chain_euler(lams, n0=1000.0, dt=0.05, steps=15):
    N = np.array([n0, 0.0, 0.0])
    for _ in range(steps):
        decay = lams * N
        gain = np.concatenate(([0.0], decay[:-1]))
        N = N + dt * (gain - decay)
    return N[-1]


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


ML8 = [
    ("vae_elbo_fixed_noise", vae_elbo_fixed_noise,
     lambda r: (0.3 * M(r, 4, 4), M(r, 5, 4), 0.5 * M(r, 2, 4), M(r, 5, 2)), 0),
    ("vae_elbo_decoder", vae_elbo_fixed_noise,
     lambda r: (0.3 * M(r, 4, 4), M(r, 5, 4), 0.5 * M(r, 2, 4), M(r, 5, 2)), 2),
    ("mixture_of_experts_soft", mixture_of_experts_soft,
     lambda r: (M(r, 3, 2), M(r, 6, 3), [M(r, 3), M(r, 3)], M(r, 6)), 0),
    ("crf_forward_log_partition", crf_forward_log_partition, lambda r: (M(r, 3, 3), M(r, 5, 3)), 0),
    ("crf_nll_gold_path", crf_nll_gold_path, lambda r: (M(r, 3, 3), M(r, 5, 3), np.array([0, 2, 1, 1, 0])), 0),
    ("crf_nll_emissions", crf_nll_gold_path, lambda r: (M(r, 3, 3), M(r, 5, 3), np.array([0, 2, 1, 1, 0])), 1),
    ("wgan_critic_clipped", wgan_critic_clipped, lambda r: (0.3 * M(r, 3, 2), M(r, 5, 3), M(r, 5, 3)), 0),
    ("distillation_temperature", distillation_temperature,
     lambda r: (M(r, 3, 4), M(r, 5, 3), M(r, 5, 4), np.array([0, 1, 3, 2, 1])), 0),
    ("sparse_autoencoder_kl", sparse_autoencoder_kl, lambda r: (0.3 * M(r, 4, 3), M(r, 6, 4)), 0),
    ("gumbel_softmax_fixed", gumbel_softmax_fixed, lambda r: (M(r, 3, 4), M(r, 3, 4), M(r, 4, 2)), 0),
    ("alibi_attention", alibi_attention, lambda r: (0.5 * M(r, 3, 3), M(r, 4, 3)), 0),
    ("rotary_attention", rotary_attention, lambda r: (0.4 * M(r, 4, 4), M(r, 3, 4)), 0),
    ("conv2d_explicit_loops", conv2d_explicit_loops, lambda r: (M(r, 2, 2), M(r, 4, 5)), 0),
    ("conv2d_strided_sum", conv2d_strided_sum, lambda r: (M(r, 2, 2), M(r, 5, 5)), 0),
    ("gru_unrolled", gru_unrolled,
     lambda r: (0.4 * M(r, 2, 4), 0.4 * M(r, 2, 4), 0.4 * M(r, 2, 4), list(M(r, 3, 2)), M(r, 2)), 0),
    ("label_noise_symmetric_ce", label_noise_symmetric_ce,
     lambda r: (M(r, 3, 4), M(r, 5, 3), np.array([0, 3, 1, 2, 2])), 0),
    ("hinge_gan_generator", hinge_gan_generator, lambda r: (np.array([0.8, 0.1]), M(r, 6, 3), M(r, 3)), 0),
]

SCIENCE8 = [
    ("xy_model_energy", xy_model_energy, lambda r: (M(r, 3, 4),), 0),
    ("ising_mean_field_free_energy", ising_mean_field_free_energy,
     lambda r: (0.5 * M(r, 4), (lambda a: a + a.T)(0.3 * M(r, 4, 4))), 0),
    ("shallow_water_lax_friedrichs", shallow_water_lax_friedrichs, lambda r: (1.0 + 0.1 * M(r, 6),), 0),
    ("pk_two_compartment", pk_two_compartment, lambda r: (np.log(np.array([1.0, 0.3, 0.2, 0.15])),), 0),
    ("michaelis_menten_fit", michaelis_menten_fit,
     lambda r: (np.array([1.0, 0.2]), np.array([0.5, 1.0, 2.0, 4.0, 8.0]), np.array([0.9, 1.4, 1.9, 2.3, 2.6])), 0),
    ("ray_trace_two_lenses", ray_trace_two_lenses, lambda r: (np.array([0.5, -0.8]), M(r, 4, 2)), 0),
    ("snell_refraction_path", snell_refraction_path, lambda r: (0.2 * M(r, 4),), 0),
    ("hohmann_delta_v", hohmann_delta_v, lambda r: (np.array([6678.0, 42164.0]),), 0),
    ("counterflow_exchanger_ntu", counterflow_exchanger_ntu, lambda r: (1.0 + P(r, 3),), 0),
    ("hodgkin_huxley_steps", hodgkin_huxley_steps, lambda r: (np.array([120.0, 36.0, 0.3]),), 0),
    ("catmull_rom_length", catmull_rom_length, lambda r: (M(r, 5, 2),), 0),
    ("savitzky_golay_fixed", savitzky_golay_fixed, lambda r: (M(r, 9), M(r, 5)), 0),
    ("cubic_bezier_area", cubic_bezier_area,
     lambda r: (np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 2.0], [4.0, 0.2]]),), 0),
    ("radioactive_chain_euler", radioactive_chain_euler, lambda r: (np.array([0.5, 0.2, 0.0]),), 0),
]


def _with_library():
    from .redteam_wave8_library import LIBRARY8
    return ML8 + SCIENCE8 + LIBRARY8


WAVE8 = _with_library()
