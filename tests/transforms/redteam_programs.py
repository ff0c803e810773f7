"""The red team's programs: ML and physics code written the way users write it (not in the
suite's style), run through the transformation matrix.  Statistics and library-style code
are in redteam_library.py, special points and static arguments in redteam_special.py, the third wave in
redteam_wave3.py, issue 25's statistics, signal and geometry in redteam_reach.py, the fourth wave in
redteam_wave4.py, the fifth in redteam_wave5.py, the sixth in redteam_wave6.py; `PROGRAMS` holds all
eight.

Each entry is ``(name, function, make, wrt)``: `make(rng)` gives the arguments (at a point
where the function is smooth: no ties, no kinks), `wrt` the differentiated parameter.
"""

from __future__ import annotations

import numpy as np

# ---- machine learning ---------------------------------------------------------------------


def softmax_cross_entropy(logits, labels):
    shifted = logits - np.max(logits, axis=1, keepdims=True)
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    n = logits.shape[0]
    return -np.mean(log_probs[np.arange(n), labels])


def linear_softmax_loss(W, X, labels):
    logits = X @ W
    logits = logits - logits.max(axis=-1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=-1, keepdims=True)
    return -np.log(p[np.arange(len(labels)), labels]).sum() / len(labels)


def mlp_dict(params, X, y):
    h = np.tanh(X @ params["W1"] + params["b1"])
    out = h @ params["W2"] + params["b2"]
    return 0.5 * np.mean((out[:, 0] - y) ** 2)


def mlp_layers(layers, X):
    h = X
    for i, (W, b) in enumerate(layers):
        h = h @ W + b
        if i < len(layers) - 1:
            h = np.maximum(h, 0.0) + 0.01 * np.minimum(h, 0.0)  # leaky relu
    return np.sum(h ** 2)


def attention(Wq, X, Wk, Wv):
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return np.sum((weights @ V) ** 2)


def layer_norm(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + 1e-5) * gamma + beta
    return np.sum(np.sin(y))


def gmm_loglik(means, X, log_weights, log_scales):
    diff = X[:, None, :] - means[None, :, :]
    scales = np.exp(log_scales)
    sq = np.sum((diff / scales[None, :, None]) ** 2, axis=-1)
    d = X.shape[1]
    comp = -0.5 * sq - d * log_scales[None, :] - 0.5 * d * np.log(2 * np.pi)
    logw = log_weights - np.log(np.sum(np.exp(log_weights)))
    a = comp + logw[None, :]
    m = np.max(a, axis=1)
    return np.sum(m + np.log(np.sum(np.exp(a - m[:, None]), axis=1)))


def logistic_l2(w, X, y, lam=0.1):
    z = X @ w
    return np.mean(np.logaddexp(0.0, -y * z)) + lam * (w @ w)


def huber(residual_scale, pred, target):
    r = (pred - target) * residual_scale
    a = np.abs(r)
    return np.sum(np.where(a < 1.0, 0.5 * r ** 2, a - 0.5))


def hinge_svm(w, X, y):
    margins = 1.0 - y * (X @ w)
    return np.sum(np.maximum(margins, 0.0)) + 0.5 * np.dot(w, w)


def batch_norm_net(W, X):
    h = X @ W
    h = (h - h.mean(axis=0)) / h.std(axis=0)
    return np.sum(np.tanh(h) * np.arange(1.0, h.shape[1] + 1.0))


def rnn_loss(Wh, xs, Wx):
    h = np.zeros(Wh.shape[0])
    states = []
    for t in range(xs.shape[0]):
        h = np.tanh(Wh @ h + Wx @ xs[t])
        states.append(h)
    return sum(np.sum(s ** 2) for s in states) / len(states)


def embedding_bag(E, idx, w):
    vecs = E[idx]
    pooled = vecs.mean(axis=0)
    return np.log1p(np.exp(pooled @ w))


def cosine_loss(a, b):
    cos = np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))
    return 1.0 - cos


def focal_loss(logits, targets, gamma=2.0):
    p = 1.0 / (1.0 + np.exp(-logits))
    pt = np.where(targets > 0.5, p, 1.0 - p)
    return -np.sum((1.0 - pt) ** gamma * np.log(pt))


def triplet(anchor, positive, negative, margin=0.5):
    dp = np.sqrt(np.sum((anchor - positive) ** 2, axis=1))
    dn = np.sqrt(np.sum((anchor - negative) ** 2, axis=1))
    return np.mean(np.maximum(dp - dn + margin, 0.0))


def one_hot_ce(W, X, Y):
    logits = X @ W
    lse = np.log(np.sum(np.exp(logits), axis=1))
    return np.sum(lse - np.sum(Y * logits, axis=1))


def conv1d_loss(kernel, signal):
    k = kernel.shape[0]
    out = np.array([np.dot(signal[i:i + k], kernel) for i in range(signal.shape[0] - k + 1)])
    return np.sum(out ** 2)


def kl_gaussians(mu, log_sigma):
    sigma2 = np.exp(2 * log_sigma)
    return 0.5 * np.sum(sigma2 + mu ** 2 - 1.0 - 2 * log_sigma)


def two_tower(u, V, ratings):
    pred = V @ u
    err = pred - ratings
    return err @ err + 0.01 * np.linalg.norm(u) ** 2


# ---- physics ---------------------------------------------------------------------------------


def _oscillator(state, k):
    x, v = state[0], state[1]
    return np.array([v, -k * x - 0.1 * v])


def rk4_oscillator(k, state0, dt=0.05, steps=20):
    state = state0
    for _ in range(steps):
        k1 = _oscillator(state, k)
        k2 = _oscillator(state + 0.5 * dt * k1, k)
        k3 = _oscillator(state + 0.5 * dt * k2, k)
        k4 = _oscillator(state + dt * k3, k)
        state = state + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return state[0] ** 2 + state[1]


def pendulum_fit(params, data):
    length, damping = params[0], params[1]
    theta, omega, dt = 0.5, 0.0, 0.05
    loss = 0.0
    for t in range(data.shape[0]):
        alpha = -9.81 / length * np.sin(theta) - damping * omega
        omega = omega + dt * alpha
        theta = theta + dt * omega
        loss = loss + (theta - data[t]) ** 2
    return loss


def nbody_energy(pos, masses):
    diff = pos[:, None, :] - pos[None, :, :]
    n = pos.shape[0]
    dist = np.sqrt(np.sum(diff ** 2, axis=-1) + np.eye(n))
    pair = masses[:, None] * masses[None, :] / dist
    return -0.5 * np.sum(pair * (1.0 - np.eye(n)))


def heat_equation(u0, alpha=0.2, steps=10):
    u = u0.copy()
    for _ in range(steps):
        lap = u[:-2] - 2 * u[1:-1] + u[2:]
        u[1:-1] = u[1:-1] + alpha * lap
    return np.sum(u ** 2)


def heat_concatenate(u0, alpha=0.2, steps=8):
    u = u0
    for _ in range(steps):
        inner = u[1:-1] + alpha * (u[:-2] - 2 * u[1:-1] + u[2:])
        u = np.concatenate([u[:1], inner, u[-1:]])
    return np.sum(u ** 3)


def spring_chain(x, k=3.0, rest=1.0):
    stretch = np.diff(x) - rest
    return 0.5 * k * np.sum(stretch ** 2)


def projectile(v0, drag=0.1, dt=0.01):
    x, y = 0.0, 0.0
    vx, vy = v0[0], v0[1]
    steps = 0
    while y >= 0.0 and steps < 1000:
        speed = np.sqrt(vx * vx + vy * vy)
        vx = vx - dt * drag * speed * vx
        vy = vy - dt * (9.81 + drag * speed * vy)
        x, y = x + dt * vx, y + dt * vy
        steps += 1
    return x


def lennard_jones(r):
    inv6 = (1.0 / r) ** 6
    return np.sum(4.0 * (inv6 ** 2 - inv6))


def verlet(q0, p0, dt=0.1, steps=15):
    q, p = q0, p0
    for _ in range(steps):
        p_half = p - 0.5 * dt * np.sin(q)
        q = q + dt * p_half
        p = p_half - 0.5 * dt * np.sin(q)
    return np.sum(q) + 0.5 * np.sum(p ** 2)


def laplacian_roll(u):
    lap = np.roll(u, 1, axis=0) + np.roll(u, -1, axis=0) + np.roll(u, 1, axis=1) + np.roll(u, -1, axis=1) - 4 * u
    return np.sum(lap ** 2)


def _lotka(x, y, a, b):
    return a * x - b * x * y, b * x * y - a * y


def lotka_volterra(theta, x0=1.0, y0=0.5, dt=0.02, steps=25):
    a, b = theta[0], theta[1]
    x, y = x0, y0
    for _ in range(steps):
        dx, dy = _lotka(x, y, a, b)
        x, y = x + dt * dx, y + dt * dy
    return x * y


def _stiffness(n, k):
    K = np.zeros((n, n))
    for i in range(n):
        K[i, i] = 2 * k
        if i > 0:
            K[i, i - 1] = -k
            K[i - 1, i] = -k
    return K


def static_displacement(loads, k=2.0):
    K = _stiffness(loads.shape[0], k)
    u = np.linalg.solve(K, loads)
    return 0.5 * u @ K @ u


def M(rng, *shape):
    return rng.normal(size=shape)


ML_PHYSICS = [
    ("softmax_cross_entropy", softmax_cross_entropy, lambda r: (M(r, 6, 4), np.array([0, 3, 1, 2, 3, 0])), 0),
    ("linear_softmax_loss", linear_softmax_loss, lambda r: (M(r, 3, 4), M(r, 5, 3), np.array([1, 0, 3, 2, 1])), 0),
    ("mlp_dict", mlp_dict, lambda r: ({"W1": M(r, 3, 4), "b1": M(r, 4), "W2": M(r, 4, 1), "b2": M(r, 1)},
                                      M(r, 5, 3), M(r, 5)), 0),
    ("mlp_dict_inputs", mlp_dict, lambda r: ({"W1": M(r, 3, 4), "b1": M(r, 4), "W2": M(r, 4, 1), "b2": M(r, 1)},
                                             M(r, 5, 3), M(r, 5)), 1),
    ("mlp_layers", mlp_layers, lambda r: ([(M(r, 3, 4), M(r, 4)), (M(r, 4, 2), M(r, 2))], M(r, 5, 3)), 0),
    ("attention", attention, lambda r: (M(r, 4, 3), M(r, 5, 4), M(r, 4, 3), M(r, 4, 3)), 0),
    ("attention_values", attention, lambda r: (M(r, 4, 3), M(r, 5, 4), M(r, 4, 3), M(r, 4, 3)), 3),
    ("layer_norm", layer_norm, lambda r: (M(r, 3, 5), 1.0 + 0.1 * M(r, 5), M(r, 5)), 0),
    ("layer_norm_gain", layer_norm, lambda r: (M(r, 3, 5), 1.0 + 0.1 * M(r, 5), M(r, 5)), 1),
    ("gmm_loglik", gmm_loglik, lambda r: (M(r, 3, 2), M(r, 8, 2), M(r, 3), 0.2 * M(r, 3)), 0),
    ("gmm_scales", gmm_loglik, lambda r: (M(r, 3, 2), M(r, 8, 2), M(r, 3), 0.2 * M(r, 3)), 3),
    ("logistic_l2", logistic_l2, lambda r: (M(r, 3), M(r, 7, 3), np.sign(M(r, 7))), 0),
    ("huber", huber, lambda r: (1.3, M(r, 6), M(r, 6)), 0),
    ("hinge_svm", hinge_svm, lambda r: (M(r, 3), M(r, 6, 3), np.sign(M(r, 6))), 0),
    ("batch_norm_net", batch_norm_net, lambda r: (M(r, 3, 4), M(r, 6, 3)), 0),
    ("rnn_loss", rnn_loss, lambda r: (0.5 * M(r, 3, 3), M(r, 4, 2), M(r, 3, 2)), 0),
    ("embedding_bag", embedding_bag, lambda r: (M(r, 6, 3), np.array([1, 4, 4, 0]), M(r, 3)), 0),
    ("cosine_loss", cosine_loss, lambda r: (M(r, 4), M(r, 4)), 0),
    ("focal_loss", focal_loss, lambda r: (M(r, 6), (M(r, 6) > 0).astype(float)), 0),
    ("triplet", triplet, lambda r: (M(r, 4, 3), M(r, 4, 3), 3.0 + M(r, 4, 3)), 0),
    ("one_hot_ce", one_hot_ce, lambda r: (M(r, 3, 4), M(r, 5, 3), np.eye(4)[[0, 2, 1, 3, 2]]), 0),
    ("conv1d_loss", conv1d_loss, lambda r: (M(r, 3), M(r, 8)), 0),
    ("kl_gaussians", kl_gaussians, lambda r: (M(r, 4), 0.3 * M(r, 4)), 1),
    ("two_tower", two_tower, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("rk4_oscillator", rk4_oscillator, lambda r: (2.0, np.array([1.0, 0.0])), 0),
    ("rk4_oscillator_state", rk4_oscillator, lambda r: (2.0, np.array([1.0, 0.3])), 1),
    ("pendulum_fit", pendulum_fit, lambda r: (np.array([1.2, 0.3]), 0.4 * np.cos(np.arange(12) * 0.2)), 0),
    ("nbody_energy", nbody_energy, lambda r: (M(r, 4, 3), 1.0 + r.uniform(size=4)), 0),
    ("heat_equation", heat_equation, lambda r: (M(r, 8),), 0),
    ("heat_concatenate", heat_concatenate, lambda r: (M(r, 7),), 0),
    ("spring_chain", spring_chain, lambda r: (np.cumsum(1.0 + 0.2 * M(r, 5)),), 0),
    ("projectile", projectile, lambda r: (np.array([3.0, 4.0]),), 0),
    ("lennard_jones", lennard_jones, lambda r: (r.uniform(0.9, 1.6, size=5),), 0),
    ("verlet", verlet, lambda r: (M(r, 3), M(r, 3)), 0),
    ("laplacian_roll", laplacian_roll, lambda r: (M(r, 4, 5),), 0),
    ("lotka_volterra", lotka_volterra, lambda r: (np.array([1.1, 0.4]),), 0),
    ("static_displacement", static_displacement, lambda r: (M(r, 5),), 0),
]


def _programs():
    from .redteam_library import LIBRARY_STATISTICS
    from .redteam_reach import REACH
    from .redteam_special import SPECIAL
    from .redteam_wave3 import WAVE3
    from .redteam_wave4 import WAVE4
    from .redteam_wave5 import WAVE5
    from .redteam_wave6 import WAVE6
    from .redteam_wave7 import WAVE7
    from .redteam_wave8 import WAVE8
    from .redteam_wave9 import WAVE9
    from .redteam_wave10 import WAVE10
    from .redteam_wave11 import WAVE11
    from .redteam_wave12 import WAVE12
    from .redteam_wave13 import WAVE13
    from .redteam_wave14 import WAVE14
    from .redteam_wave15 import WAVE15
    from .redteam_wave16 import WAVE16
    from .redteam_wave17 import WAVE17
    from .redteam_wave18 import WAVE18
    return (ML_PHYSICS + LIBRARY_STATISTICS + SPECIAL + WAVE3 + REACH + WAVE4 + WAVE5 + WAVE6 + WAVE7 + WAVE8
            + WAVE9 + WAVE10 + WAVE11 + WAVE12 + WAVE13 + WAVE14 + WAVE15 + WAVE16
            + WAVE17 + WAVE18)


PROGRAMS = _programs()
