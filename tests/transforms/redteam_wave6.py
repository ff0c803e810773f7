"""The red team's sixth wave (issues 23 and 24, closure): sixty more programs written the way
users write them, through every transformation.  Machine learning (attention with causal and
padding masks, RMSNorm stacks, top-2 mixture-of-experts gating, label smoothing through an
identity row lookup, masked sequence losses, Poisson rate networks, RankNet / ListNet / margin
ranking, weight normalisation, temperature scaling, centre loss, unrolled SGD) and physics /
engineering (1-D FEM stiffness assembly, spring-mass chains through np.roll, Lennard-Jones with
a np.where cutoff, RK4 and Euler integrators with helpers and loops, orbital energy and Kepler
leapfrog, beam bending, Newton steady states) are here; statistics, library-style code and
special points are in redteam_wave6_library.py.

`WAVE6` holds both: ``(name, function, make, wrt)`` as in redteam_programs.py.
"""

from __future__ import annotations

import numpy as np
import scipy.special

# ---- machine learning ---------------------------------------------------------------------------


def masked_causal_attention(Wq, X, Wk, Wv, lengths):
    T = X.shape[0]
    q, k, v = X @ Wq, X @ Wk, X @ Wv
    scores = q @ k.T / np.sqrt(q.shape[1])
    causal = np.tril(np.ones((T, T), dtype=bool))
    keep = causal & (np.arange(T)[None, :] < lengths)
    scores = np.where(keep, scores, -1e9)
    w = np.exp(scores - scores.max(axis=1, keepdims=True))
    w = w / w.sum(axis=1, keepdims=True)
    return np.sum((w @ v) ** 2)


def rmsnorm_layer_stack(gains, X, Ws):
    h = X
    for g, W in zip(gains, Ws):
        rms = np.sqrt(np.mean(h * h, axis=-1, keepdims=True) + 1e-6)
        h = h + np.tanh((h / rms * g) @ W)
    return np.mean(h ** 2)


def top2_moe_gating(Wg, X, experts):
    logits = X @ Wg
    order = np.argsort(logits, axis=1)
    top = order[:, -2:]
    rows = np.arange(X.shape[0])[:, None]
    chosen = logits[rows, top]
    gates = np.exp(chosen - chosen.max(axis=1, keepdims=True))
    gates = gates / gates.sum(axis=1, keepdims=True)
    out = np.zeros((X.shape[0], experts.shape[2]))
    for j in range(2):
        e = experts[top[:, j]]
        out = out + gates[:, j:j + 1] * np.einsum("nd,ndk->nk", X, e)
    return np.sum(out ** 2) + 0.01 * np.sum(logits ** 2)


def label_smoothing_eye(logits, labels, eps=0.1):
    C = logits.shape[1]
    targets = np.eye(C)[labels] * (1 - eps) + eps / C
    logp = scipy.special.log_softmax(logits, axis=1)
    return -np.sum(targets * logp) / logits.shape[0]


def masked_sequence_nll(logits, tokens, lengths):
    B, T, V = logits.shape
    logp = logits - scipy.special.logsumexp(logits, axis=2, keepdims=True)
    picked = np.take_along_axis(logp, tokens[:, :, None], axis=2)[:, :, 0]
    mask = np.arange(T)[None, :] < lengths[:, None]
    return -np.sum(picked * mask) / np.sum(mask)


def poisson_rate_network(W, X, counts):
    rate = np.logaddexp(0.0, X @ W) + 1e-3
    return np.mean(rate - counts * np.log(rate) + scipy.special.gammaln(counts + 1))


def ranknet_pairs(w, X, relevance):
    s = X @ w
    diff = s[:, None] - s[None, :]
    better = relevance[:, None] > relevance[None, :]
    return np.sum(np.where(better, np.logaddexp(0.0, -diff), 0.0)) / max(int(better.sum()), 1)


def listnet_top1(w, X, relevance):
    s = X @ w
    p_true = np.exp(relevance) / np.sum(np.exp(relevance))
    log_p = s - np.log(np.sum(np.exp(s - s.max()))) - s.max()
    return -np.sum(p_true * log_p)


def margin_ranking(w, X_pos, X_neg, margin=1.0):
    gaps = X_pos @ w - X_neg @ w
    return np.mean(np.maximum(0.0, margin - gaps) ** 2)


def weight_norm_layer(v, X, g):
    W = g * v / np.linalg.norm(v, axis=0, keepdims=True)
    return np.sum(np.tanh(X @ W) ** 2)


def temperature_scaling(log_T, logits, labels):
    T = np.exp(log_T)
    z = logits / T
    lse = scipy.special.logsumexp(z, axis=1)
    return np.mean(lse - z[np.arange(len(labels)), labels])


def centre_loss(centres, feats, labels, lam=0.5):
    diffs = feats - centres[labels]
    spread = np.sum(centres ** 2, axis=1)
    return 0.5 * np.sum(diffs ** 2) / len(labels) + lam * np.mean(spread)


def unrolled_sgd_ridge(w0, X, y, lr=0.05, steps=4):
    w = w0.copy()
    for _ in range(steps):
        r = X @ w - y
        w = w - lr * (X.T @ r / len(y) + 0.1 * w)
    return 0.5 * np.mean((X @ w - y) ** 2)


def gelu_erf_mlp(W1, X, W2):
    a = X @ W1
    h = 0.5 * a * (1.0 + scipy.special.erf(a / np.sqrt(2.0)))
    return np.sum((h @ W2) ** 2) / X.shape[0]


def fixed_dropout_l1(W, X, mask, y):
    h = np.tanh(X @ W) * mask / 0.8
    return np.mean((h.sum(axis=1) - y) ** 2) + 1e-2 * np.sum(np.abs(W))


# ---- physics and engineering ----------------------------------------------------------------


def fem_bar_compliance(k, f):
    n = len(k)
    K = np.zeros((n, n))
    for e in range(n):
        K[e, e] += k[e]
        if e + 1 < n:
            K[e, e] += k[e + 1]
            K[e, e + 1] -= k[e + 1]
            K[e + 1, e] -= k[e + 1]
    u = np.linalg.solve(K, f)
    return f @ u


def fem_element_matrices(E, lengths, load):
    n = len(lengths)
    K = np.zeros((n + 1, n + 1))
    ke = np.array([[1.0, -1.0], [-1.0, 1.0]])
    for i in range(n):
        K[i:i + 2, i:i + 2] += E[i] / lengths[i] * ke
    Kr = K[1:, 1:]
    u = np.linalg.solve(Kr, load)
    return 0.5 * u @ Kr @ u


def ring_chain_energy(x, k=2.0, rest=1.0, L=6.0):
    d = np.roll(x, -1) - x
    d = d - L * np.round(d / L)
    return 0.5 * k * np.sum((d - rest) ** 2)


def roll_chain_dynamics(x0, v0, dt=0.05, steps=6):
    x, v = x0, v0
    for _ in range(steps):
        force = np.roll(x, 1) + np.roll(x, -1) - 2.0 * x - 0.1 * x ** 3
        v = v + dt * force
        x = x + dt * v
    return np.sum(x ** 2) + 0.5 * np.sum(v ** 2)


def lj_cutoff_where(pos, rc=2.5):
    n = pos.shape[0]
    d = pos[:, None, :] - pos[None, :, :]
    r2 = np.sum(d ** 2, axis=-1) + np.eye(n)
    inv6 = 1.0 / r2 ** 3
    e = 4.0 * (inv6 ** 2 - inv6)
    inside = (r2 < rc * rc) & ~np.eye(n, dtype=bool)
    return 0.5 * np.sum(np.where(inside, e, 0.0))


def lj_shifted_pairs(pos, rc=1.8):
    i, j = np.triu_indices(pos.shape[0], k=1)
    r = np.linalg.norm(pos[i] - pos[j], axis=1)
    shift = 4.0 * (rc ** -12 - rc ** -6)
    e = np.where(r < rc, 4.0 * (r ** -12 - r ** -6) - shift, 0.0)
    return np.sum(e)


def _pendulum_rhs(y, damping):
    theta, omega = y[0], y[1]
    return np.array([omega, -np.sin(theta) - damping * omega])


def rk4_pendulum(damping, y0, dt=0.1, steps=8):
    y = y0
    for _ in range(steps):
        k1 = _pendulum_rhs(y, damping)
        k2 = _pendulum_rhs(y + 0.5 * dt * k1, damping)
        k3 = _pendulum_rhs(y + 0.5 * dt * k2, damping)
        k4 = _pendulum_rhs(y + dt * k3, damping)
        y = y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[0] ** 2 + y[1] ** 2


def euler_until_time(y0, rate, T=1.0, dt=0.13):
    t, y = 0.0, y0
    while t < T:
        y = y + dt * (-rate * y + np.sin(y))
        t += dt
    return np.sum(y ** 2)


def orbital_energy_momentum(r, v, mu=1.0):
    speed2 = v @ v
    rn = np.sqrt(r @ r)
    h = np.cross(r, v)
    energy = 0.5 * speed2 - mu / rn
    return energy + 0.1 * (h @ h)


def _gravity(r, mu):
    return -mu * r / np.linalg.norm(r) ** 3


def kepler_leapfrog(r0, v0, mu=1.0, dt=0.05, steps=10):
    r, v = r0.copy(), v0.copy()
    a = _gravity(r, mu)
    for _ in range(steps):
        v = v + 0.5 * dt * a
        r = r + dt * v
        a = _gravity(r, mu)
        v = v + 0.5 * dt * a
    return 0.5 * v @ v - mu / np.linalg.norm(r)


def beam_deflection(EI, q, L=1.0):
    n = len(EI)
    h = L / (n + 1)
    D2 = (np.diag(-2.0 * np.ones(n)) + np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1)) / h ** 2
    M = np.linalg.solve(D2, q)
    w = np.linalg.solve(D2, M / EI)
    return 1e4 * np.sum(w ** 2) * h


def newton_steady_rod(k, source, iters=6):
    n = len(source)
    T = np.ones(n)
    for _ in range(iters):
        lap = np.roll(T, 1) + np.roll(T, -1) - 2 * T
        F = k * lap - 0.1 * T ** 4 + source
        J = k * (np.diag(-2.0 * np.ones(n)) + np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1))
        J[0, -1] += k
        J[-1, 0] += k
        J = J - np.diag(0.4 * T ** 3)
        T = T - np.linalg.solve(J, F)
    return np.sum(T ** 2)


def damped_rk2_tuple_state(params, x0=1.0, v0=0.0, dt=0.1, steps=12):
    omega, zeta = params[0], params[1]
    x, v = x0, v0
    for _ in range(steps):
        ax = -2 * zeta * omega * v - omega ** 2 * x
        xm, vm = x + 0.5 * dt * v, v + 0.5 * dt * ax
        am = -2 * zeta * omega * vm - omega ** 2 * xm
        x, v = x + dt * vm, v + dt * am
    return x ** 2 + v ** 2


def softened_coulomb_charges(q, pos, soft=0.1):
    d = pos[:, None, :] - pos[None, :, :]
    r = np.sqrt(np.sum(d ** 2, axis=-1) + soft ** 2)
    E = q[:, None] * q[None, :] / r
    return 0.5 * (np.sum(E) - np.sum(np.diag(E)))


def projectile_peak(v0, angle=0.8, g=9.81, drag=0.1, dt=0.02, steps=60):
    vx, vy = v0 * np.cos(angle), v0 * np.sin(angle)
    y, heights = 0.0, []
    for _ in range(steps):
        vx = vx - dt * drag * vx
        vy = vy - dt * (g + drag * vy)
        y = y + dt * vy
        heights.append(y)
    return np.max(np.array(heights))


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


ML6 = [
    ("masked_causal_attention", masked_causal_attention,
     lambda r: (M(r, 3, 2), M(r, 4, 3), M(r, 3, 2), M(r, 3, 2), 3), 0),
    ("rmsnorm_layer_stack", rmsnorm_layer_stack,
     lambda r: ([1 + 0.1 * M(r, 3), 1 + 0.1 * M(r, 3)], M(r, 4, 3), [M(r, 3, 3), M(r, 3, 3)]), 0),
    ("top2_moe_gating", top2_moe_gating, lambda r: (M(r, 3, 4), M(r, 5, 3), M(r, 4, 3, 2)), 0),
    ("label_smoothing_eye", label_smoothing_eye, lambda r: (M(r, 4, 3), np.array([0, 2, 1, 2])), 0),
    ("masked_sequence_nll", masked_sequence_nll,
     lambda r: (M(r, 2, 4, 3), np.array([[0, 1, 2, 1], [2, 2, 0, 0]]), np.array([4, 2])), 0),
    ("poisson_rate_network", poisson_rate_network,
     lambda r: (0.5 * M(r, 3), M(r, 6, 3), np.array([0., 1, 3, 0, 2, 5])), 0),
    ("ranknet_pairs", ranknet_pairs, lambda r: (M(r, 3), M(r, 5, 3), np.array([2, 0, 1, 2, 0])), 0),
    ("listnet_top1", listnet_top1, lambda r: (M(r, 3), M(r, 5, 3), np.array([2., 0, 1, 3, 0])), 0),
    ("margin_ranking", margin_ranking, lambda r: (0.3 * M(r, 3), M(r, 6, 3), M(r, 6, 3)), 0),
    ("weight_norm_layer", weight_norm_layer, lambda r: (M(r, 3, 2), M(r, 5, 3), 1 + P(r, 2)), 0),
    ("temperature_scaling", temperature_scaling, lambda r: (0.3, 3 * M(r, 5, 4), np.array([0, 1, 3, 2, 0])), 0),
    ("centre_loss", centre_loss, lambda r: (M(r, 3, 2), M(r, 6, 2), np.array([0, 1, 2, 0, 0, 1])), 0),
    ("unrolled_sgd_ridge", unrolled_sgd_ridge, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("gelu_erf_mlp", gelu_erf_mlp, lambda r: (M(r, 3, 4), M(r, 5, 3), M(r, 4, 2)), 0),
    ("fixed_dropout_l1", fixed_dropout_l1,
     lambda r: (M(r, 3, 4), M(r, 5, 3), (P(r, 5, 4) > 0.4) * 1.0, M(r, 5)), 0),
]

PHYSICS6 = [
    ("fem_bar_compliance", fem_bar_compliance, lambda r: (1 + P(r, 4), M(r, 4)), 0),
    ("fem_element_matrices", fem_element_matrices, lambda r: (1 + P(r, 4), 0.5 + P(r, 4), M(r, 4)), 0),
    ("fem_element_lengths", fem_element_matrices, lambda r: (1 + P(r, 4), 0.5 + P(r, 4), M(r, 4)), 1),
    ("ring_chain_energy", ring_chain_energy, lambda r: (np.arange(6.0) + 0.1 * M(r, 6),), 0),
    ("roll_chain_dynamics", roll_chain_dynamics, lambda r: (0.5 * M(r, 5), 0.2 * M(r, 5)), 0),
    ("lj_cutoff_where", lj_cutoff_where,
     lambda r: (np.array([[0.0, 0.0], [1.1, 0.1], [0.2, 1.2], [3.5, 3.1]]) + 0.02 * M(r, 4, 2),), 0),
    ("lj_shifted_pairs", lj_shifted_pairs,
     lambda r: (np.array([[0.0, 0.0], [1.1, 0.1], [0.3, 1.2], [3.1, 2.9]]) + 0.02 * M(r, 4, 2),), 0),
    ("rk4_pendulum", rk4_pendulum, lambda r: (0.3, np.array([1.0, 0.2])), 0),
    ("rk4_pendulum_initial", rk4_pendulum, lambda r: (0.3, np.array([1.0, 0.2])), 1),
    ("euler_until_time", euler_until_time, lambda r: (M(r, 3), 0.7), 0),
    ("orbital_energy_momentum", orbital_energy_momentum,
     lambda r: (np.array([1.0, 0.2, 0.1]), np.array([0.1, 0.9, 0.2])), 0),
    ("kepler_leapfrog", kepler_leapfrog, lambda r: (np.array([1.0, 0.0]), np.array([0.0, 1.1])), 1),
    ("beam_deflection", beam_deflection, lambda r: (1 + P(r, 5), M(r, 5)), 0),
    ("newton_steady_rod", newton_steady_rod, lambda r: (0.8, 0.5 + P(r, 5)), 1),
    ("damped_rk2_tuple_state", damped_rk2_tuple_state, lambda r: (np.array([2.0, 0.2]),), 0),
    ("softened_coulomb_charges", softened_coulomb_charges, lambda r: (M(r, 4), M(r, 4, 3)), 0),
    ("projectile_peak", projectile_peak, lambda r: (12.0,), 0),
]


def _with_library():
    from .redteam_wave6_library import LIBRARY6
    return ML6 + PHYSICS6 + LIBRARY6


WAVE6 = _with_library()
