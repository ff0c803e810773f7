"""The red team's twenty-sixth wave: physics and machine-learning models written as users write
them (test_redteam_wave26.py runs them through every transformation)."""

from __future__ import annotations

import numpy as np

from .redteam_wave26_draws import F, M, P

G = 1.0
DT = 0.05


# ---- physics ----


def spring_force(x, k):
    return -k * x


def leapfrog_step(x, v, k, dt):
    v_half = v + 0.5 * dt * spring_force(x, k)
    x_new = x + dt * v_half
    v_new = v_half + 0.5 * dt * spring_force(x_new, k)
    return x_new, v_new


def leapfrog_energy(k, x0, v0, steps=10):
    x, v = x0, v0
    for _ in range(steps):
        x, v = leapfrog_step(x, v, k, DT)
    return np.sum(0.5 * v**2 + 0.5 * k * x**2) + np.sum(x)


def leapfrog_initial(x0, v0, k=2.0):
    return leapfrog_energy(k, x0, v0, steps=6)


def verlet_pendulum(theta0, L=1.0, steps=15):
    theta_prev = theta0
    theta = theta0
    for _ in range(steps):
        theta_next = 2 * theta - theta_prev - DT**2 * 9.81 / L * np.sin(theta)
        theta_prev, theta = theta, theta_next
    return theta


def nbody_energy(pos, mass):
    d = pos[:, np.newaxis, :] - pos[np.newaxis, :, :]
    r = np.sqrt(np.sum(d**2, axis=-1) + 1e-2)
    pot = -G * mass[:, None] * mass[None, :] / r
    return 0.5 * (np.sum(pot) - np.sum(np.diag(pot)))


def _accelerations(pos, mass):
    d = pos[np.newaxis, :, :] - pos[:, np.newaxis, :]
    r3 = (np.sum(d**2, axis=2) + 0.1) ** 1.5
    return G * np.sum(mass[np.newaxis, :, np.newaxis] * d / r3[:, :, np.newaxis], axis=1)


def nbody_simulate(pos, vel, mass, steps=4):
    for _ in range(steps):
        vel = vel + DT * _accelerations(pos, mass)
        pos = pos + DT * vel
    return np.sum(pos[0] ** 2) + np.sum(vel**2)


def spring_chain(x, k=3.0, rest=1.0):
    stretch = np.diff(x) - rest
    return 0.5 * k * np.sum(stretch**2) + 0.1 * np.sum(x**2)


def spring_network(pos, edges, rest):
    e = 0.0
    for (i, j), L0 in zip(edges, rest):
        e = e + (np.linalg.norm(pos[i] - pos[j]) - L0) ** 2
    return e


def harmonic_rk4(k, y0):
    def rhs(y):
        return np.array([y[1], -k * y[0]])

    y = y0
    for _ in range(5):
        k1 = rhs(y)
        k2 = rhs(y + DT / 2 * k1)
        k3 = rhs(y + DT / 2 * k2)
        k4 = rhs(y + DT * k3)
        y = y + DT / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[0] ** 2 + y[1]


def projectile_range(angle, v0=10.0, drag=0.1):
    x, y = 0.0, 0.0
    vx, vy = v0 * np.cos(angle), v0 * np.sin(angle)
    for _ in range(20):
        speed = np.sqrt(vx * vx + vy * vy)
        vx = vx - DT * drag * speed * vx
        vy = vy - DT * (9.81 + drag * speed * vy)
        x = x + DT * vx
        y = y + DT * vy
    return x + y


def heat_equation(u0, alpha=0.2, steps=5):
    u = u0.copy()
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        u = u + alpha * lap
    return np.sum(u**2 * np.arange(len(u)))


def wave_equation_2d(u):
    lap = -4 * u[1:-1, 1:-1] + u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
    return np.sum(lap**2)


def lennard_jones(pos):
    d = pos[:, None, :] - pos[None, :, :]
    r2 = (d**2).sum(-1)
    i, j = np.triu_indices(pos.shape[0], k=1)
    inv6 = 1.0 / r2[i, j] ** 3
    return np.sum(4 * (inv6**2 - inv6))


def charged_particles_float32(q, pos):
    d = pos[:, None, :] - pos[None, :, :]
    r = np.sqrt((d * d).sum(-1) + np.float32(0.5))
    return np.sum(q[:, None] * q[None, :] / r)


# ---- machine learning ----


def masked_attention(Wq, X, Wk, mask):
    Q, K = X @ Wq, X @ Wk
    s = Q @ K.T / np.sqrt(Q.shape[1])
    s = np.where(mask, s, -1e9)
    s = s - s.max(axis=1, keepdims=True)
    a = np.exp(s)
    a = a / a.sum(axis=1, keepdims=True)
    return np.sum(a @ X * X)


def causal_attention(X, Wq):
    n = X.shape[0]
    s = (X @ Wq) @ X.T
    s = s + np.triu(np.full((n, n), -np.inf), 1)
    a = np.exp(s - s.max(-1, keepdims=True))
    a /= a.sum(-1, keepdims=True)
    return np.sum((a @ X) ** 2)


def layer_norm_loss(x, gamma, beta, eps=1e-5):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    y = gamma * (x - mu) / np.sqrt(var + eps) + beta
    return np.sum(y**2 * np.arange(1, x.shape[-1] + 1))


def rms_norm(x, g):
    return np.sum((x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g)[:, 0])


def dropout_mlp(W1, X, mask, W2):
    h = np.maximum(X @ W1, 0.0) * mask / 0.8
    return np.sum(np.tanh(h @ W2))


def cross_entropy_labels(W, X, y):
    logits = X @ W
    logits -= logits.max(axis=1, keepdims=True)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -logp[np.arange(len(y)), y].mean()


def one_hot_eye_ce(W, X, y):
    probs = np.exp(X @ W)
    probs = probs / probs.sum(1)[:, None]
    onehot = np.eye(W.shape[1])[y]
    return -np.sum(onehot * np.log(probs)) / len(y)


def label_smoothing(logits, y, eps=0.1):
    k = logits.shape[-1]
    target = np.full(logits.shape, eps / k)
    target[np.arange(len(y)), y] += 1 - eps
    logp = logits - np.log(np.sum(np.exp(logits), axis=-1, keepdims=True))
    return -np.sum(target * logp)


def gelu_mlp(params, x):
    h = x @ params["w1"] + params["b1"]
    h = 0.5 * h * (1 + np.tanh(np.sqrt(2 / np.pi) * (h + 0.044715 * h**3)))
    return np.sum((h @ params["w2"]) ** 2)


def conv1d_loop(kernel, x):
    k = len(kernel)
    out = np.array([np.dot(x[i : i + k], kernel) for i in range(len(x) - k + 1)])
    return np.sum(np.maximum(out, 0.0) ** 2 + 0.1 * out)


def conv2d_valid(K, img):
    kh, kw = K.shape
    H, W = img.shape
    out = np.zeros((H - kh + 1, W - kw + 1))
    for i in range(H - kh + 1):
        for j in range(W - kw + 1):
            out[i, j] = np.sum(img[i : i + kh, j : j + kw] * K)
    return np.sum(out**2)


def max_pool_relu(x):
    pooled = x.reshape(3, 2, 2, 2).max(axis=(1, 3))
    return np.sum(np.maximum(pooled, 0) ** 2)


def gru_cell(h, x, Wz, Wh):
    z = 1 / (1 + np.exp(-(Wz @ np.concatenate([h, x]))))
    htilde = np.tanh(Wh @ np.concatenate([h, x]))
    return (1 - z) * h + z * htilde


def gru_sequence(Wz, xs, Wh):
    h = np.zeros(2)
    for x in xs:
        h = gru_cell(h, x, Wz, Wh)
    return np.sum(h**2)


def embedding_lookup(E, tokens, w):
    v = E[tokens].mean(axis=0)
    return np.tanh(v @ w)


def contrastive_loss(Z, temp=0.5):
    Z = Z / np.linalg.norm(Z, axis=1, keepdims=True)
    S = Z @ Z.T / temp
    n = Z.shape[0] // 2
    idx = np.arange(2 * n)
    pos = S[idx, (idx + n) % (2 * n)]
    S = S - 1e9 * np.eye(2 * n)
    return np.mean(np.log(np.exp(S).sum(1)) - pos)


def batch_norm_train(x, gamma, beta):
    mu = x.mean(0)
    var = x.var(0)
    return np.sum(np.tanh(gamma * (x - mu) / np.sqrt(var + 1e-5) + beta))


def weight_decay_loss(params, X, y, lam=1e-2):
    W, b = params
    pred = X @ W + b
    reg = sum(np.sum(p**2) for p in params)
    return np.mean((pred - y) ** 2) + lam * reg


def focal_loss(logits, y, gamma=2.0):
    p = 1 / (1 + np.exp(-logits))
    pt = np.where(y == 1, p, 1 - p)
    return -np.sum((1 - pt) ** gamma * np.log(pt))


def triplet_margin(A, P_, N):
    dp = np.sum((A - P_) ** 2, axis=1)
    dn = np.sum((A - N) ** 2, axis=1)
    return np.sum(np.logaddexp(0, dp - dn + 1.0))


def mlp_float32(W, X):
    h = np.tanh(X @ W)
    return np.mean(h**2)


def mixture_of_experts(gate_W, X, experts):
    g = np.exp(X @ gate_W)
    g = g / g.sum(axis=1, keepdims=True)
    outs = np.stack([X @ e for e in experts], axis=1)
    return np.sum(g * outs)


def _mask(r):
    m = r.uniform(size=(4, 4)) > 0.3
    np.fill_diagonal(m, True)
    return m


def _gelu_params(r):
    return {"w1": M(r, 3, 4), "b1": M(r, 4), "w2": M(r, 4, 2)}


def _keep(r):
    return (r.uniform(size=(5, 4)) > 0.2) * 1.0


def _edges():
    return [(0, 1), (1, 2), (2, 0), (2, 3)]


PROGRAMS = [
    ("leapfrog_energy", leapfrog_energy, lambda r: (2.0, M(r, 3), M(r, 3)), 0),
    ("leapfrog_energy_v0", leapfrog_energy, lambda r: (2.0, M(r, 3), M(r, 3)), 2),
    ("leapfrog_initial", leapfrog_initial, lambda r: (M(r, 3), M(r, 3)), 0),
    ("verlet_pendulum", verlet_pendulum, lambda r: (0.4,), 0),
    ("verlet_pendulum_length", verlet_pendulum, lambda r: (0.4, 1.3), 1),
    ("nbody_energy", nbody_energy, lambda r: (M(r, 4, 3), P(r, 4)), 0),
    ("nbody_energy_mass", nbody_energy, lambda r: (M(r, 4, 3), P(r, 4)), 1),
    ("nbody_simulate", nbody_simulate, lambda r: (M(r, 3, 2), M(r, 3, 2) * 0.1, P(r, 3)), 0),
    ("spring_chain", spring_chain, lambda r: (np.arange(5.0) + 0.1 * M(r, 5),), 0),
    ("spring_network", spring_network, lambda r: (M(r, 4, 2), _edges(), P(r, 4)), 0),
    ("harmonic_rk4", harmonic_rk4, lambda r: (1.5, M(r, 2)), 0),
    ("harmonic_rk4_y0", harmonic_rk4, lambda r: (1.5, M(r, 2)), 1),
    ("projectile_range", projectile_range, lambda r: (0.7,), 0),
    ("heat_equation", heat_equation, lambda r: (M(r, 6),), 0),
    ("wave_equation_2d", wave_equation_2d, lambda r: (M(r, 4, 5),), 0),
    ("lennard_jones", lennard_jones, lambda r: (np.array([[0, 0], [1.1, 0.1], [0.2, 1.2], [1.3, 1.0]]),), 0),
    ("charged_particles_float32", charged_particles_float32, lambda r: (F(r, 3), F(r, 3, 2)), 1),
    ("masked_attention", masked_attention, lambda r: (M(r, 3, 3), M(r, 4, 3), M(r, 3, 3), _mask(r)), 0),
    ("causal_attention", causal_attention, lambda r: (M(r, 4, 2), M(r, 2, 2)), 0),
    ("layer_norm_loss", layer_norm_loss, lambda r: (M(r, 3, 4), P(r, 4), M(r, 4)), 0),
    ("layer_norm_gamma", layer_norm_loss, lambda r: (M(r, 3, 4), P(r, 4), M(r, 4)), 1),
    ("rms_norm", rms_norm, lambda r: (M(r, 3, 4), P(r, 4)), 0),
    ("dropout_mlp", dropout_mlp, lambda r: (M(r, 3, 4), M(r, 5, 3), _keep(r), M(r, 4, 2)), 0),
    ("cross_entropy_labels", cross_entropy_labels, lambda r: (M(r, 3, 4), M(r, 5, 3), np.array([0, 3, 1, 2, 1])), 0),
    ("one_hot_eye_ce", one_hot_eye_ce, lambda r: (M(r, 3, 4), M(r, 5, 3), np.array([0, 3, 1, 2, 1])), 0),
    ("label_smoothing", label_smoothing, lambda r: (M(r, 4, 3), np.array([0, 2, 1, 1])), 0),
    ("gelu_mlp", gelu_mlp, lambda r: (_gelu_params(r), M(r, 5, 3)), 0),
    ("conv1d_loop", conv1d_loop, lambda r: (M(r, 3), M(r, 8)), 0),
    ("conv2d_valid", conv2d_valid, lambda r: (M(r, 2, 2), M(r, 4, 4)), 0),
    ("max_pool_relu", max_pool_relu, lambda r: (M(r, 6, 4),), 0),
    ("gru_sequence", gru_sequence, lambda r: (M(r, 2, 4), M(r, 3, 2), M(r, 2, 4)), 0),
    ("embedding_lookup", embedding_lookup, lambda r: (M(r, 5, 3), np.array([1, 3, 3, 0]), M(r, 3)), 0),
    ("contrastive_loss", contrastive_loss, lambda r: (M(r, 4, 3),), 0),
    ("batch_norm_train", batch_norm_train, lambda r: (M(r, 5, 3), P(r, 3), M(r, 3)), 0),
    ("weight_decay_loss", weight_decay_loss, lambda r: ((M(r, 3), 0.5), M(r, 6, 3), M(r, 6)), 0),
    ("focal_loss", focal_loss, lambda r: (M(r, 6), np.array([1, 0, 1, 1, 0, 0])), 0),
    ("triplet_margin", triplet_margin, lambda r: (M(r, 3, 2), M(r, 3, 2), M(r, 3, 2)), 0),
    ("mlp_float32", mlp_float32, lambda r: (F(r, 3, 2), F(r, 4, 3)), 0),
    ("mixture_of_experts", mixture_of_experts, lambda r: (M(r, 3, 2), M(r, 4, 3), [M(r, 3), M(r, 3)]), 0),
    ("mixture_of_experts_list", mixture_of_experts, lambda r: (M(r, 3, 2), M(r, 4, 3), [M(r, 3), M(r, 3)]), 2),
]
