"""The red team's seventh wave (issue 23, closure): sixty more programs written the way users
write them, through every transformation.  Machine learning (a transformer block's pieces:
layer norm, residual, GELU, multi-head attention with reshapes; CLIP-style symmetric InfoNCE,
focal loss with clipping, batch-hard triplet mining, weight decay over a dict of parameters,
an input-gradient penalty written by hand, mixture density networks, GLU gates, list-of-dict
layers, a cosine learning-rate schedule unrolled with math.cos) and scientific code (explicit
heat steps written into slices, Allen-Cahn on a 2-D grid through np.roll, softened N-body
potentials over np.triu_indices, RK2 chemical kinetics with a helper returning a tuple, a
cantilever solved by finite differences, an ARD Gaussian process through cholesky and solve,
upwind advection, Arrhenius rates with math.exp, quadratic drag with np.hypot) are here;
statistics, library-style code and special points are in redteam_wave7_library.py.

`WAVE7` holds both: ``(name, function, make, wrt)`` as in redteam_programs.py.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special

# ---- machine learning ---------------------------------------------------------------------------


def _layer_norm(h, gamma, beta, eps=1e-5):
    mu = h.mean(axis=-1, keepdims=True)
    var = ((h - mu) ** 2).mean(axis=-1, keepdims=True)
    return gamma * (h - mu) / np.sqrt(var + eps) + beta


def _gelu(u):
    return 0.5 * u * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (u + 0.044715 * u ** 3)))


def transformer_ffn_block(W1, X, W2, gamma, beta):
    h = _layer_norm(X, gamma, beta)
    out = X + _gelu(h @ W1) @ W2
    return np.mean(out ** 2)


def multihead_reshape_attention(Wqkv, X, n_heads=2):
    T, D = X.shape
    qkv = X @ Wqkv
    q, k, v = np.split(qkv, 3, axis=1)
    hd = D // n_heads
    q = q.reshape(T, n_heads, hd).transpose(1, 0, 2)
    k = k.reshape(T, n_heads, hd).transpose(1, 0, 2)
    v = v.reshape(T, n_heads, hd).transpose(1, 0, 2)
    s = q @ k.transpose(0, 2, 1) / np.sqrt(hd)
    s = s - s.max(axis=-1, keepdims=True)
    a = np.exp(s)
    a = a / a.sum(axis=-1, keepdims=True)
    o = (a @ v).transpose(1, 0, 2).reshape(T, D)
    return np.sum(np.tanh(o))


def clip_symmetric_infonce(W_img, img, txt, temperature=0.5):
    zi = img @ W_img
    zi = zi / np.linalg.norm(zi, axis=1, keepdims=True)
    zt = txt / np.linalg.norm(txt, axis=1, keepdims=True)
    logits = zi @ zt.T / temperature
    n = logits.shape[0]
    diag = logits[np.arange(n), np.arange(n)]
    rows = scipy.special.logsumexp(logits, axis=1)
    cols = scipy.special.logsumexp(logits, axis=0)
    return 0.5 * np.mean(rows - diag) + 0.5 * np.mean(cols - diag)


def clipped_focal_linear(w, X, y, gamma=2.0, alpha=0.25):
    p = 1.0 / (1.0 + np.exp(-(X @ w)))
    p = np.clip(p, 1e-7, 1 - 1e-7)
    pt = np.where(y == 1, p, 1 - p)
    at = np.where(y == 1, alpha, 1 - alpha)
    return -np.sum(at * (1 - pt) ** gamma * np.log(pt))


def batch_hard_triplet(emb, labels, margin=0.3):
    sq = np.sum(emb ** 2, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2 * emb @ emb.T
    d = np.sqrt(np.maximum(d2, 1e-12))
    same = labels[:, None] == labels[None, :]
    hardest_pos = np.max(np.where(same, d, 0.0), axis=1)
    hardest_neg = np.min(np.where(same, np.inf, d), axis=1)
    return np.mean(np.maximum(hardest_pos - hardest_neg + margin, 0.0))


def dict_weight_decay_mlp(params, X, y, decay=1e-2):
    h = np.tanh(X @ params["W1"] + params["b1"])
    pred = h @ params["W2"] + params["b2"]
    loss = np.mean((pred - y) ** 2)
    for name, value in params.items():
        if name.startswith("W"):
            loss = loss + decay * np.sum(value ** 2)
    return loss


def input_gradient_penalty(W, X, v):
    # d/dx of sum(tanh(x W) v) written by hand, as WGAN-GP style code does
    h = np.tanh(X @ W)
    out = h @ v
    dx = ((1 - h ** 2) * v) @ W.T
    gnorm = np.sqrt(np.sum(dx ** 2, axis=1) + 1e-12)
    return np.mean(out) + 10.0 * np.mean((gnorm - 1.0) ** 2)


def mdn_heteroscedastic_nll(W, X, y, K=3):
    out = X @ W
    pi_logits, mu, log_sigma = out[:, :K], out[:, K:2 * K], out[:, 2 * K:]
    log_pi = pi_logits - scipy.special.logsumexp(pi_logits, axis=1, keepdims=True)
    z = (y[:, None] - mu) / np.exp(log_sigma)
    log_comp = -0.5 * z ** 2 - log_sigma - 0.5 * np.log(2 * np.pi)
    return -np.mean(scipy.special.logsumexp(log_pi + log_comp, axis=1))


def glu_gated_layer(W, X, V):
    a = X @ W
    b = X @ V
    gate = scipy.special.expit(b)
    return np.sum((a * gate) ** 2) / X.shape[0]


def list_of_dict_layers(layers, X, y):
    h = X
    for i, layer in enumerate(layers):
        h = h @ layer["W"] + layer["b"]
        if i < len(layers) - 1:
            h = np.maximum(h, 0.01 * h)
    return np.mean((h[:, 0] - y) ** 2)


def cosine_schedule_unrolled(w0, X, y, steps=5, lr_max=0.2):
    w = w0
    for t in range(steps):
        lr = 0.5 * lr_max * (1 + math.cos(math.pi * t / steps))
        g = X.T @ (X @ w - y) / len(y)
        w = w - lr * g
    return float(np.mean((X @ w - y) ** 2))


def prenorm_causal_attention_inf(Wq, X):
    T = X.shape[0]
    h = (X - X.mean(axis=1, keepdims=True)) / X.std(axis=1, keepdims=True)
    q = h @ Wq
    s = q @ h.T
    s = np.where(np.triu(np.ones((T, T)), k=1) > 0, -np.inf, s)
    a = np.exp(s - s.max(axis=1, keepdims=True))
    a = a / a.sum(axis=1, keepdims=True)
    return np.sum((X + a @ h) ** 2)


def range_indexed_cross_entropy(W, X, labels):
    z = X @ W
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -np.mean(logp[range(len(labels)), labels])


def silu_residual_stack(Ws, X):
    h = X
    for W in Ws:
        u = h @ W
        h = h + u * scipy.special.expit(u)
    return np.sum(h ** 2) / h.size


def logit_adjusted_ce(W, X, labels, priors):
    z = X @ W + np.log(priors)
    lse = np.log(np.sum(np.exp(z - z.max(axis=1, keepdims=True)), axis=1)) + z.max(axis=1)
    return np.mean(lse - np.take_along_axis(z, labels[:, None], axis=1)[:, 0])


# ---- scientific ---------------------------------------------------------------------------------


def heat_inplace_neumann(u0, r=0.2, steps=6):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] = u[1:-1] + r * (u[2:] - 2 * u[1:-1] + u[:-2])
        u[0] = u[1]
        u[-1] = u[-2]
    return np.sum(u ** 2)


def heat_diffusivity_field(kappa, u0, dt=0.05, steps=5):
    u = u0
    for _ in range(steps):
        flux = kappa * np.diff(u)
        u = u + dt * np.concatenate(([flux[0]], np.diff(flux), [-flux[-1]]))
    return np.sum(u * np.linspace(0.0, 1.0, u.size))


def allen_cahn_roll(u0, dt=0.02, steps=4, eps2=0.5):
    u = u0
    for _ in range(steps):
        lap = (np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0) + np.roll(u, 1, axis=1)
               + np.roll(u, -1, axis=1) - 4 * u)
        u = u + dt * (eps2 * lap + u - u ** 3)
    return np.mean(u ** 2)


def nbody_softened_triu(masses, pos, soft=0.1):
    i, j = np.triu_indices(len(masses), k=1)
    d = pos[i] - pos[j]
    r = np.sqrt(np.sum(d * d, axis=1) + soft ** 2)
    return -np.sum(masses[i] * masses[j] / r)


def _rates(a, b, c, k1, k2):
    r1 = k1 * a * b
    r2 = k2 * c
    return -r1 + r2, -r1 + r2, r1 - r2


def kinetics_rk2_tuple(k, a0=1.0, b0=0.8, c0=0.0, dt=0.1, steps=8):
    a, b, c = a0, b0, c0
    for _ in range(steps):
        da, db, dc = _rates(a, b, c, k[0], k[1])
        am, bm, cm = a + 0.5 * dt * da, b + 0.5 * dt * db, c + 0.5 * dt * dc
        da, db, dc = _rates(am, bm, cm, k[0], k[1])
        a, b, c = a + dt * da, b + dt * db, c + dt * dc
    return (c - 0.4) ** 2 + 0.1 * a


def cantilever_fd_tip(EI, q, L=1.0):
    n = EI.size
    h = L / n
    D2 = (np.diag(-2.0 * np.ones(n)) + np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1)) / h ** 2
    D2[0, 0] = -1.0 / h ** 2
    moment = np.linalg.solve(D2, q)
    curvature = moment / EI
    w = np.linalg.solve(D2, curvature)
    return w[-1] ** 2 + 0.01 * np.sum(EI)


def gp_ard_cholesky(log_ell, X, y, noise=0.1):
    Z = X / np.exp(log_ell)
    sq = np.sum(Z ** 2, axis=1)
    K = np.exp(-0.5 * (sq[:, None] + sq[None, :] - 2 * Z @ Z.T)) + noise * np.eye(len(y))
    L = np.linalg.cholesky(K)
    a = np.linalg.solve(L, y)
    return 0.5 * a @ a + np.sum(np.log(np.diag(L))) + 0.5 * len(y) * np.log(2 * np.pi)


def upwind_advection(c0, vel, dx=0.1, dt=0.02, steps=5):
    c = c0
    for _ in range(steps):
        back = c - np.roll(c, 1)
        fwd = np.roll(c, -1) - c
        c = c - dt / dx * np.where(vel > 0, vel * back, vel * fwd)
    return np.sum(c ** 2)


def arrhenius_fit(params, T, k_obs):
    log_A, Ea = params
    R = 8.314
    k_pred = np.array([math.exp(log_A - Ea / (R * t)) for t in T])
    return np.sum((np.log(k_pred) - np.log(k_obs)) ** 2)


def quadratic_drag_range(v0, angle=0.7, k=0.05, dt=0.01, g=9.81):
    vx, vy = v0 * np.cos(angle), v0 * np.sin(angle)
    x, y = 0.0, 0.0
    for _ in range(200):
        speed = np.hypot(vx, vy)
        vx, vy = vx - dt * k * speed * vx, vy - dt * (g + k * speed * vy)
        x, y = x + dt * vx, y + dt * vy
        if y < 0.0:
            break
    return x


def gray_scott_1d_pad(u0, v0, Du=0.2, Dv=0.1, F=0.04, kk=0.06, dt=0.5, steps=4):
    u, v = u0, v0
    for _ in range(steps):
        up, vp = np.pad(u, 1, mode="edge"), np.pad(v, 1, mode="edge")
        lu = up[2:] - 2 * u + up[:-2]
        lv = vp[2:] - 2 * v + vp[:-2]
        uvv = u * v * v
        u = u + dt * (Du * lu - uvv + F * (1 - u))
        v = v + dt * (Dv * lv + uvv - (F + kk) * v)
    return np.sum(v)


def damped_pendulum_until(theta0, omega0=0.0, b=0.3, dt=0.05, T=2.0):
    theta, omega, t = theta0, omega0, 0.0
    while True:
        omega = omega - dt * (math.sin(theta) + b * omega)
        theta = theta + dt * omega
        t += dt
        if t >= T:
            break
    return theta ** 2 + omega ** 2


def planck_band_power(log_T, lam):
    T = math.exp(log_T)
    c2 = 1.4388e-2
    B = 1.0 / lam ** 5 / np.expm1(c2 / (lam * T))
    return np.log(np.sum(0.5 * (B[1:] + B[:-1]) * np.diff(lam)))


def spring_lattice_2d(u):
    dx = np.roll(u, -1, axis=1) - u
    dy = np.roll(u, -1, axis=0) - u
    stretch = np.sqrt((1.0 + dx[..., 0]) ** 2 + dx[..., 1] ** 2) - 1.0
    shear = np.sqrt(dy[..., 0] ** 2 + (1.0 + dy[..., 1]) ** 2) - 1.0
    return 0.5 * np.sum(stretch ** 2 + shear ** 2)


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


def _mlp_dict(r):
    return {"W1": M(r, 3, 4), "b1": M(r, 4), "W2": M(r, 4, 2), "b2": M(r, 2)}


ML7 = [
    ("transformer_ffn_block", transformer_ffn_block,
     lambda r: (0.5 * M(r, 4, 6), M(r, 3, 4), 0.5 * M(r, 6, 4), 1 + 0.1 * M(r, 4), 0.1 * M(r, 4)), 0),
    ("transformer_ffn_gamma", transformer_ffn_block,
     lambda r: (0.5 * M(r, 4, 6), M(r, 3, 4), 0.5 * M(r, 6, 4), 1 + 0.1 * M(r, 4), 0.1 * M(r, 4)), 3),
    ("multihead_reshape_attention", multihead_reshape_attention, lambda r: (0.4 * M(r, 4, 12), M(r, 3, 4)), 0),
    ("clip_symmetric_infonce", clip_symmetric_infonce, lambda r: (M(r, 3, 3), M(r, 4, 3), M(r, 4, 3)), 0),
    ("clipped_focal_linear", clipped_focal_linear,
     lambda r: (0.5 * M(r, 3), M(r, 6, 3), np.array([1, 0, 0, 1, 1, 0])), 0),
    ("batch_hard_triplet", batch_hard_triplet, lambda r: (M(r, 6, 3), np.array([0, 0, 1, 1, 2, 2])), 0),
    ("dict_weight_decay_mlp", dict_weight_decay_mlp, lambda r: (_mlp_dict(r), M(r, 5, 3), M(r, 5, 2)), 0),
    ("input_gradient_penalty", input_gradient_penalty, lambda r: (M(r, 3, 4), M(r, 5, 3), M(r, 4)), 0),
    ("mdn_heteroscedastic_nll", mdn_heteroscedastic_nll, lambda r: (0.3 * M(r, 2, 9), M(r, 6, 2), M(r, 6)), 0),
    ("glu_gated_layer", glu_gated_layer, lambda r: (M(r, 3, 4), M(r, 5, 3), M(r, 3, 4)), 0),
    ("list_of_dict_layers", list_of_dict_layers,
     lambda r: ([{"W": M(r, 3, 4), "b": M(r, 4)}, {"W": M(r, 4, 1), "b": M(r, 1)}], M(r, 5, 3), M(r, 5)), 0),
    ("cosine_schedule_unrolled", cosine_schedule_unrolled, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("prenorm_causal_attention_inf", prenorm_causal_attention_inf, lambda r: (0.5 * M(r, 3, 3), M(r, 4, 3)), 0),
    ("range_indexed_cross_entropy", range_indexed_cross_entropy,
     lambda r: (M(r, 3, 4), M(r, 5, 3), np.array([0, 3, 1, 1, 2])), 0),
    ("silu_residual_stack", silu_residual_stack, lambda r: ([0.5 * M(r, 3, 3), 0.5 * M(r, 3, 3)], M(r, 4, 3)), 0),
    ("logit_adjusted_ce", logit_adjusted_ce,
     lambda r: (M(r, 3, 4), M(r, 6, 3), np.array([0, 1, 2, 3, 0, 0]), np.array([0.4, 0.3, 0.2, 0.1])), 0),
]

SCIENCE7 = [
    ("heat_inplace_neumann", heat_inplace_neumann, lambda r: (M(r, 8),), 0),
    ("heat_inplace_rate", heat_inplace_neumann, lambda r: (M(r, 8), 0.2), 1),
    ("heat_diffusivity_field", heat_diffusivity_field, lambda r: (0.5 + P(r, 5), M(r, 6)), 0),
    ("allen_cahn_roll", allen_cahn_roll, lambda r: (0.5 * M(r, 4, 5),), 0),
    ("nbody_softened_masses", nbody_softened_triu, lambda r: (1 + P(r, 4), M(r, 4, 3)), 0),
    ("nbody_softened_positions", nbody_softened_triu, lambda r: (1 + P(r, 4), M(r, 4, 3)), 1),
    ("kinetics_rk2_tuple", kinetics_rk2_tuple, lambda r: (np.array([1.2, 0.3]),), 0),
    ("cantilever_fd_tip", cantilever_fd_tip, lambda r: (1 + P(r, 5), M(r, 5)), 0),
    ("gp_ard_cholesky", gp_ard_cholesky, lambda r: (0.2 * M(r, 2), M(r, 5, 2), M(r, 5)), 0),
    ("upwind_advection", upwind_advection, lambda r: (M(r, 6), np.array([1.0, -0.5, 0.8, -1.2, 0.3, 0.6])), 0),
    ("upwind_advection_velocity", upwind_advection,
     lambda r: (M(r, 6), np.array([1.0, -0.5, 0.8, -1.2, 0.3, 0.6])), 1),
    ("arrhenius_fit", arrhenius_fit,
     lambda r: (np.array([10.0, 5.0e4]), np.array([300.0, 320, 340, 360]), np.array([3e-5, 1e-4, 5e-4, 1e-3])), 0),
    ("quadratic_drag_range", quadratic_drag_range, lambda r: (8.0,), 0),
    ("gray_scott_1d_pad", gray_scott_1d_pad, lambda r: (1 - 0.1 * P(r, 6), 0.2 * P(r, 6)), 1),
    ("damped_pendulum_until", damped_pendulum_until, lambda r: (0.6,), 0),
    ("planck_band_power", planck_band_power, lambda r: (math.log(3000.0), np.linspace(0.5e-6, 3e-6, 9)), 0),
    ("spring_lattice_2d", spring_lattice_2d, lambda r: (0.1 * M(r, 3, 3, 2),), 0),
]


def _with_library():
    from .redteam_wave7_library import LIBRARY7
    return ML7 + SCIENCE7 + LIBRARY7


WAVE7 = _with_library()
