"""The red team's fifth wave (issues 23 and 24): sixty more programs written the way users
write them, through every transformation.  Machine learning (multi-head attention with
reshapes and transposes, pre-norm residual blocks, RMSNorm + SwiGLU, GRU with a dict of
weights, LSTM through np.split, soft triplet / supervised contrastive / distillation / binary
focal losses, GP predictive likelihood, EM free energy, Gaussian-decoder VAE, 2-D convolution
with loops, top-1 mixture of experts, negative sampling) and physics (pairwise energies over
itertools.combinations, spring networks from edge lists, implicit heat steps, leapfrog with a
dict state, a smooth Ising energy through np.roll, a while-loop over time, a Boris pusher,
Morse chains, upwind Burgers, minimum-image Lennard-Jones, a rigid rotor) are here;
statistics, library-style code and special points are in redteam_wave5_library.py.

`WAVE5` holds both: ``(name, function, make, wrt)`` as in redteam_programs.py.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import scipy.special

# ---- machine learning ---------------------------------------------------------------------------


def multihead_self_attention(Wqkv, X, Wo, heads=2):
    T, d = X.shape
    qkv = X @ Wqkv  # (T, 3d)
    q, k, v = np.split(qkv, 3, axis=1)
    dh = d // heads
    q = q.reshape(T, heads, dh).transpose(1, 0, 2)
    k = k.reshape(T, heads, dh).transpose(1, 0, 2)
    v = v.reshape(T, heads, dh).transpose(1, 0, 2)
    att = q @ k.transpose(0, 2, 1) / np.sqrt(dh)
    att = np.exp(att - att.max(axis=-1, keepdims=True))
    att /= att.sum(axis=-1, keepdims=True)
    out = (att @ v).transpose(1, 0, 2).reshape(T, d)
    return np.mean((out @ Wo) ** 2)


def _layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def prenorm_residual_block(W1, X, W2, gamma, beta):
    h = _layer_norm(X, gamma, beta)
    h = np.maximum(h @ W1, 0.0) @ W2
    y = X + h
    return np.sum(y ** 2) / X.shape[0]


def rmsnorm_swiglu(W_gate, X, W_up, W_down, g):
    x = X / np.sqrt(np.mean(X ** 2, axis=1, keepdims=True) + 1e-6) * g
    a = x @ W_gate
    swish = a * scipy.special.expit(a)
    return np.sum(((swish * (x @ W_up)) @ W_down) ** 2)


def gru_dict_weights(params, xs):
    h = np.zeros(params["Uz"].shape[0])
    for x in xs:
        z = 1.0 / (1.0 + np.exp(-(params["Wz"] @ x + params["Uz"] @ h)))
        r = 1.0 / (1.0 + np.exp(-(params["Wr"] @ x + params["Ur"] @ h)))
        n = np.tanh(params["Wn"] @ x + params["Un"] @ (r * h))
        h = (1.0 - z) * n + z * h
    return np.sum(h) + 0.5 * np.sum(h ** 2)


def lstm_split_gates(W, xs, h0):
    n = h0.shape[0]
    h, c = h0, np.zeros(n)
    outputs = []
    for t in range(len(xs)):
        z = W @ np.concatenate([xs[t], h, [1.0]])
        i, f, g, o = np.split(z, 4)
        c = scipy.special.expit(f) * c + scipy.special.expit(i) * np.tanh(g)
        h = scipy.special.expit(o) * np.tanh(c)
        outputs.append(h)
    H = np.stack(outputs)
    return np.sum(H[-1] ** 2) + 0.1 * np.sum(H)


def soft_triplet(anchor, positive, negative):
    d_pos = np.linalg.norm(anchor - positive, axis=1)
    d_neg = np.linalg.norm(anchor - negative, axis=1)
    return np.mean(np.log1p(np.exp(d_pos - d_neg)))


def supervised_contrastive(Z, labels, tau=0.2):
    Z = Z / np.linalg.norm(Z, axis=1, keepdims=True)
    sim = Z @ Z.T / tau
    n = Z.shape[0]
    self_mask = np.eye(n, dtype=bool)
    sim = np.where(self_mask, -1e9, sim)
    log_prob = sim - scipy.special.logsumexp(sim, axis=1, keepdims=True)
    positives = (labels[:, None] == labels[None, :]) & ~self_mask
    per_anchor = np.sum(np.where(positives, log_prob, 0.0), axis=1) / np.maximum(positives.sum(axis=1), 1)
    return -np.mean(per_anchor)


def distillation_kl(student_logits, teacher_logits, T=3.0):
    s = student_logits / T
    t = teacher_logits / T
    log_ps = s - scipy.special.logsumexp(s, axis=1, keepdims=True)
    pt = scipy.special.softmax(t, axis=1)
    return T * T * np.sum(pt * (np.log(pt) - log_ps)) / s.shape[0]


def binary_focal_alpha(logits, y, alpha=0.25, gamma=2.0):
    p = 1.0 / (1.0 + np.exp(-logits))
    p = np.clip(p, 1e-7, 1 - 1e-7)
    pt = np.where(y == 1, p, 1 - p)
    at = np.where(y == 1, alpha, 1 - alpha)
    return -np.sum(at * (1 - pt) ** gamma * np.log(pt))


def gp_predictive_nll(log_ell, X, y, Xs, ys, noise=0.05):
    def kern(A, B):
        d2 = np.sum(A ** 2, 1)[:, None] + np.sum(B ** 2, 1)[None, :] - 2 * A @ B.T
        return np.exp(-0.5 * d2 / np.exp(2 * log_ell))
    K = kern(X, X) + noise * np.eye(len(X))
    Ks = kern(Xs, X)
    mean = Ks @ np.linalg.solve(K, y)
    var = 1.0 + noise - np.sum(Ks * np.linalg.solve(K, Ks.T).T, axis=1)
    return np.sum(0.5 * np.log(2 * np.pi * var) + 0.5 * (ys - mean) ** 2 / var)


def em_free_energy(means, x, log_w, log_s):
    w = np.exp(log_w - scipy.special.logsumexp(log_w))
    s = np.exp(log_s)
    log_joint = np.log(w)[None, :] - 0.5 * ((x[:, None] - means[None, :]) / s[None, :]) ** 2 \
        - np.log(s)[None, :] - 0.5 * np.log(2 * np.pi)
    resp = np.exp(log_joint - scipy.special.logsumexp(log_joint, axis=1, keepdims=True))
    resp = resp.copy()  # held fixed, as the E step does
    return -np.sum(resp * log_joint) + np.sum(scipy.special.xlogy(resp, resp))


def vae_gaussian_decoder(W_enc, x, W_dec, eps):
    h = np.tanh(W_enc @ x)
    mu, logvar = np.split(h, 2)
    logvar = np.clip(logvar, -4.0, 4.0)
    z = mu + np.exp(0.5 * logvar) * eps
    x_hat = W_dec @ z
    rec = 0.5 * np.sum((x - x_hat) ** 2) + 0.5 * len(x) * math.log(2 * math.pi)
    kl = 0.5 * np.sum(np.exp(logvar) + mu ** 2 - 1.0 - logvar)
    return rec + kl


def conv2d_relu_pool(kernel, image):
    kh, kw = kernel.shape
    H, W = image.shape
    out = np.zeros((H - kh + 1, W - kw + 1))
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = np.sum(image[i:i + kh, j:j + kw] * kernel)
    out = np.maximum(out, 0.0)
    pooled = out.reshape(out.shape[0] // 2, 2, out.shape[1] // 2, 2).max(axis=(1, 3))
    return np.sum(pooled ** 2)


def top1_mixture_of_experts(W_gate, X, experts):
    logits = X @ W_gate
    gates = np.exp(logits - logits.max(axis=1, keepdims=True))
    gates = gates / gates.sum(axis=1, keepdims=True)
    choice = np.argmax(gates, axis=1)
    total = 0.0
    for n in range(X.shape[0]):
        e = choice[n]
        total = total + gates[n, e] * np.sum(np.tanh(X[n] @ experts[e]))
    return total


def negative_sampling(E, C, center, context, negatives):
    v = E[center]
    pos = np.log(scipy.special.expit(np.sum(v * C[context], axis=1)))
    neg = np.log(scipy.special.expit(-np.einsum("bd,bkd->bk", v, C[negatives]))).sum(axis=1)
    return -np.mean(pos + neg)


# ---- physics and simulation ---------------------------------------------------------------------


def pair_energy_combinations(pos, charges):
    energy = 0.0
    for i, j in itertools.combinations(range(len(charges)), 2):
        r = math.sqrt(sum((pos[i, k] - pos[j, k]) ** 2 for k in range(pos.shape[1])))
        energy += charges[i] * charges[j] / r + 0.1 / r ** 6
    return energy


EDGES = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)]


def spring_network(flat_pos, stiffness, rest=1.0):
    pos = flat_pos.reshape(-1, 2)
    e = 0.0
    for (a, b), k in zip(EDGES, stiffness):
        length = np.linalg.norm(pos[a] - pos[b])
        e = e + 0.5 * k * (length - rest) ** 2
    return e


def implicit_heat(u0, alpha=0.4, steps=3):
    n = u0.shape[0]
    L = -2 * np.eye(n) + np.eye(n, k=1) + np.eye(n, k=-1)
    A = np.eye(n) - alpha * L
    u = u0
    for _ in range(steps):
        u = np.linalg.solve(A, u)
    return np.sum(u ** 4)


def _kinetic_grad(p, m):
    return p / m


def _potential_grad(q, k):
    return k * q + 0.3 * q ** 3


def leapfrog_dict_state(q0, p0, k=1.0, m=2.0, dt=0.05, steps=12):
    state = {"q": q0, "p": p0}
    for _ in range(steps):
        state["p"] = state["p"] - 0.5 * dt * _potential_grad(state["q"], k)
        state["q"] = state["q"] + dt * _kinetic_grad(state["p"], m)
        state["p"] = state["p"] - 0.5 * dt * _potential_grad(state["q"], k)
    return np.sum(state["q"] ** 2) + np.sum(state["p"] ** 2) / m


def smooth_ising(field, J=0.7, beta=1.5):
    s = np.tanh(beta * field)
    neighbours = np.roll(s, 1, axis=0) + np.roll(s, -1, axis=0) + np.roll(s, 1, axis=1) + np.roll(s, -1, axis=1)
    entropy = np.sum(np.log(np.cosh(beta * field)))
    return -J * np.sum(s * neighbours) / 2 - np.sum(field * s) + entropy / beta


def oscillator_until_time(omega, x0=1.0, v0=0.0, T=1.0, dt=0.01):
    t, x, v = 0.0, x0, v0
    energy = 0.0
    while t < T - 1e-12:
        a = -omega ** 2 * x - 0.1 * v
        v = v + dt * a
        x = x + dt * v
        energy += dt * (0.5 * v * v + 0.5 * omega ** 2 * x * x)
        t += dt
    return energy


def boris_pusher(v0, B, E, q_m=1.0, dt=0.1, steps=8):
    v = v0.copy()
    x = np.zeros(3)
    for _ in range(steps):
        v_minus = v + 0.5 * q_m * dt * E
        t = 0.5 * q_m * dt * B
        s = 2 * t / (1 + np.dot(t, t))
        v_prime = v_minus + np.cross(v_minus, t)
        v_plus = v_minus + np.cross(v_prime, s)
        v = v_plus + 0.5 * q_m * dt * E
        x = x + dt * v
    return np.sum(x ** 2)


def morse_chain(x, D=1.0, a=1.5, r0=1.0):
    r = np.diff(x)
    return np.sum(D * (1 - np.exp(-a * (r - r0))) ** 2)


def upwind_burgers(u0, dt=0.02, dx=0.1, steps=5):
    u = u0.copy()
    for _ in range(steps):
        back = (u - np.roll(u, 1)) / dx
        fwd = (np.roll(u, -1) - u) / dx
        u = u - dt * u * np.where(u > 0, back, fwd)
    return np.sum(u ** 2)


def lj_minimum_image(pos, box=3.0):
    n = pos.shape[0]
    e = 0.0
    for i in range(n - 1):
        d = pos[i + 1:] - pos[i]
        d = d - box * np.round(d / box)
        r2 = np.sum(d * d, axis=1)
        inv6 = 1.0 / r2 ** 3
        e += np.sum(4.0 * (inv6 ** 2 - inv6))
    return e


def rigid_rotor_energy(omega, inertia_diag, torque, dt=0.05, steps=6):
    I = np.diag(inertia_diag)
    I_inv = np.diag(1.0 / inertia_diag)
    w = omega
    for _ in range(steps):
        L = I @ w
        w = w + dt * I_inv @ (torque - np.cross(w, L))
    return 0.5 * w @ I @ w


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


ML5 = [
    ("multihead_self_attention", multihead_self_attention, lambda r: (0.5 * M(r, 4, 12), M(r, 3, 4), M(r, 4, 2)), 0),
    ("prenorm_residual_block", prenorm_residual_block,
     lambda r: (M(r, 3, 4), M(r, 4, 3), M(r, 4, 3), 1.0 + 0.1 * M(r, 3), 0.1 * M(r, 3)), 0),
    ("rmsnorm_swiglu", rmsnorm_swiglu,
     lambda r: (M(r, 3, 4), M(r, 2, 3), M(r, 3, 4), M(r, 4, 2), 1.0 + 0.1 * M(r, 3)), 0),
    ("gru_dict_weights", gru_dict_weights,
     lambda r: ({k: 0.5 * M(r, 2, 2) for k in ("Wz", "Uz", "Wr", "Ur", "Wn", "Un")}, M(r, 3, 2)), 0),
    ("lstm_split_gates", lstm_split_gates, lambda r: (0.4 * M(r, 8, 5), M(r, 3, 2), 0.1 * M(r, 2)), 0),
    ("soft_triplet", soft_triplet, lambda r: (M(r, 4, 3), M(r, 4, 3), M(r, 4, 3)), 0),
    ("supervised_contrastive", supervised_contrastive, lambda r: (M(r, 5, 3), np.array([0, 1, 0, 1, 2])), 0),
    ("distillation_kl", distillation_kl, lambda r: (M(r, 3, 4), 2 * M(r, 3, 4)), 0),
    ("binary_focal_alpha", binary_focal_alpha, lambda r: (M(r, 6), np.array([1, 0, 0, 1, 1, 0])), 0),
    ("gp_predictive_nll", gp_predictive_nll, lambda r: (0.1, M(r, 5, 2), M(r, 5), M(r, 3, 2), M(r, 3)), 0),
    ("em_free_energy", em_free_energy, lambda r: (M(r, 3), M(r, 8), 0.2 * M(r, 3), 0.2 * M(r, 3)), 0),
    ("vae_gaussian_decoder", vae_gaussian_decoder, lambda r: (0.5 * M(r, 4, 3), M(r, 3), M(r, 3, 2), M(r, 2)), 0),
    ("conv2d_relu_pool", conv2d_relu_pool, lambda r: (M(r, 2, 2), M(r, 5, 5)), 0),
    ("top1_mixture_of_experts", top1_mixture_of_experts, lambda r: (M(r, 3, 2), M(r, 4, 3), M(r, 2, 3, 2)), 0),
    ("negative_sampling", negative_sampling,
     lambda r: (0.5 * M(r, 5, 3), 0.5 * M(r, 5, 3), np.array([0, 3]), np.array([1, 2]), np.array([[4, 2], [0, 1]])), 0),
]

PHYSICS5 = [
    ("pair_energy_combinations", pair_energy_combinations,
     lambda r: (np.array([[0.0, 0.0], [1.2, 0.1], [0.3, 1.1], [1.4, 1.3]]), np.array([1.0, -1.0, 0.5, -0.5])), 0),
    ("spring_network", spring_network,
     lambda r: (np.array([0., 0, 1.1, 0, 1, 0.9, -0.1, 1.2]) + 0.05 * M(r, 8), 1.0 + P(r, 5)), 0),
    ("spring_network_stiffness", spring_network,
     lambda r: (np.array([0., 0, 1.1, 0, 1, 0.9, -0.1, 1.2]), 1.0 + P(r, 5)), 1),
    ("implicit_heat", implicit_heat, lambda r: (M(r, 6),), 0),
    ("leapfrog_dict_state", leapfrog_dict_state, lambda r: (M(r, 3), M(r, 3)), 0),
    ("smooth_ising", smooth_ising, lambda r: (0.5 * M(r, 3, 4),), 0),
    ("oscillator_until_time", oscillator_until_time, lambda r: (1.7,), 0),
    ("boris_pusher", boris_pusher, lambda r: (M(r, 3), M(r, 3), 0.3 * M(r, 3)), 1),
    ("morse_chain", morse_chain, lambda r: (np.cumsum(1.0 + 0.2 * M(r, 5)),), 0),
    ("upwind_burgers", upwind_burgers, lambda r: (np.sin(np.linspace(0, 2 * np.pi, 8, endpoint=False)) + 0.05,), 0),
    ("lj_minimum_image", lj_minimum_image, lambda r: (np.array([[0.1, 0.2], [1.3, 0.1], [0.4, 1.4], [2.6, 2.5]]),), 0),
    ("rigid_rotor_energy", rigid_rotor_energy, lambda r: (M(r, 3), 1.0 + P(r, 3), 0.2 * M(r, 3)), 0),
]


def _with_library():
    from .redteam_wave5_library import LIBRARY5
    return ML5 + PHYSICS5 + LIBRARY5


WAVE5 = _with_library()
