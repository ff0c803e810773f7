"""The red team's fourth wave (issues 23 and 24): sixty more programs written the way users
write them, through every transformation.  Machine learning (attention with causal and padding
masks, GRU / LSTM cells in loops, mixture density nets, a VAE's ELBO, InfoNCE, policy
gradients, tied autoencoders, dropout masks) and physics (N-body leapfrog, spring chains, 2-D
heat and wave steps, RK4 with helpers returning tuples, Newton with a tolerance and an
iteration cap, projectile with drag until the ground, pendulums) are here; statistics,
library-style code and special points are in redteam_wave4_library.py.

`WAVE4` holds both: ``(name, function, make, wrt)`` as in redteam_programs.py.
"""

from __future__ import annotations

import math

import numpy as np

# ---- machine learning ---------------------------------------------------------------------------


def _softmax(z, axis=-1):
    z = z - np.max(z, axis=axis, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=axis, keepdims=True)


def causal_attention(Wq, X, Wk, Wv):
    T, d = X.shape
    q, k, v = X @ Wq, X @ Wk, X @ Wv
    scores = q @ k.T / math.sqrt(d)
    causal = np.tril(np.ones((T, T), dtype=bool))
    scores = np.where(causal, scores, -1e9)
    out = _softmax(scores) @ v
    return np.mean(out ** 2)


def padded_attention(Wq, X, key_mask):
    # padded keys get -inf, the way most tutorials write it
    q = X @ Wq
    scores = q @ X.T / np.sqrt(X.shape[1])
    scores = np.where(key_mask[None, :], scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = weights / weights.sum(axis=1, keepdims=True)
    return np.sum((weights @ X) * q)


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _gru_cell(h, x, Wz, Wr, Wh):
    hx = np.concatenate([h, x])
    z = _sigmoid(Wz @ hx)
    r = _sigmoid(Wr @ hx)
    h_tilde = np.tanh(Wh @ np.concatenate([r * h, x]))
    return (1 - z) * h + z * h_tilde


def gru_sequence(Wz, Wr, Wh, xs):
    h = np.zeros(Wz.shape[0])
    for x in xs:
        h = _gru_cell(h, x, Wz, Wr, Wh)
    return np.sum(h ** 2)


def _lstm_cell(x, state, W, b):
    h, c = state
    gates = W @ np.concatenate([x, h]) + b
    n = h.shape[0]
    i, f, o = _sigmoid(gates[:n]), _sigmoid(gates[n:2 * n]), _sigmoid(gates[2 * n:3 * n])
    g = np.tanh(gates[3 * n:])
    c = f * c + i * g
    h = o * np.tanh(c)
    return h, c


def lstm_last_hidden(W, b, xs, target):
    n = b.shape[0] // 4
    state = (np.zeros(n), np.zeros(n))
    for t in range(xs.shape[0]):
        state = _lstm_cell(xs[t], state, W, b)
    h, _ = state
    return 0.5 * np.sum((h - target) ** 2)


def mixture_density_nll(W, X, y):
    out = X @ W
    K = W.shape[1] // 3
    logits, mu, log_sigma = out[:, :K], out[:, K:2 * K], out[:, 2 * K:]
    log_pi = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    z = (y[:, None] - mu) / np.exp(log_sigma)
    log_comp = -0.5 * z ** 2 - log_sigma - 0.5 * np.log(2 * np.pi)
    a = log_pi + log_comp
    amax = a.max(axis=1)
    return -np.mean(amax + np.log(np.exp(a - amax[:, None]).sum(axis=1)))


def vae_elbo(W_enc, W_dec, x, eps):
    h = x @ W_enc
    d = eps.shape[0]
    mu, logvar = h[:d], h[d:]
    z = mu + np.exp(0.5 * logvar) * eps  # reparameterised, noise passed in
    logits = W_dec @ z
    recon = np.sum(x * logits - np.logaddexp(0.0, logits))  # Bernoulli log-likelihood
    kl = -0.5 * np.sum(1 + logvar - mu ** 2 - np.exp(logvar))
    return -(recon - kl)


def info_nce(Z1, Z2, temperature=0.5):
    a = Z1 / np.linalg.norm(Z1, axis=1, keepdims=True)
    b = Z2 / np.linalg.norm(Z2, axis=1, keepdims=True)
    logits = a @ b.T / temperature
    logz = np.log(np.sum(np.exp(logits), axis=1))
    return np.mean(logz - np.diag(logits))


def smoothed_targets_ce(logits, labels, eps=0.1):
    n, k = logits.shape
    target = np.full_like(logits, eps / (k - 1))
    target[np.arange(n), labels] = 1.0 - eps
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -(target * logp).sum() / n


def multiclass_focal(logits, labels, gamma=2.0):
    p = _softmax(logits, axis=1)
    pt = p[np.arange(len(labels)), labels]
    return np.mean(-((1 - pt) ** gamma) * np.log(pt))


def reinforce_with_baseline(theta, features, actions, returns):
    logits = features @ theta
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    chosen = logp[np.arange(actions.shape[0]), actions]
    baseline = returns.mean()
    advantage = returns - baseline
    entropy = -np.sum(np.exp(logp) * logp, axis=1)
    return -np.mean(chosen * advantage) - 0.01 * np.mean(entropy)


def tied_autoencoder(W, X, b_hidden, b_out):
    h = _sigmoid(X @ W + b_hidden)
    recon = h @ W.T + b_out
    return np.mean(np.sum((recon - X) ** 2, axis=1))


def dropout_mlp(W1, W2, X, masks, keep=0.8):
    h = np.maximum(X @ W1, 0.0)
    h = h * masks[0] / keep
    out = np.tanh(h @ W2) * masks[1] / keep
    return np.sum(out ** 2)


# ---- physics and simulation ---------------------------------------------------------------------


def _accelerations(pos, masses, softening):
    diff = pos[None, :, :] - pos[:, None, :]
    dist2 = np.sum(diff ** 2, axis=-1) + softening ** 2
    inv3 = dist2 ** -1.5
    np.fill_diagonal(inv3, 0.0)
    return np.sum(diff * (inv3 * masses[None, :])[:, :, None], axis=1)


def nbody_leapfrog(pos, vel, masses, dt=0.01, steps=5):
    acc = _accelerations(pos, masses, 0.1)
    for _ in range(steps):
        vel = vel + 0.5 * dt * acc
        pos = pos + dt * vel
        acc = _accelerations(pos, masses, 0.1)
        vel = vel + 0.5 * dt * acc
    return np.sum(pos[:, 0]) + 0.5 * np.sum(masses[:, None] * vel ** 2)


def mass_chain_dynamics(k, x0, steps=20, dt=0.05):
    x = x0.copy()
    v = np.zeros_like(x0)
    rest = 1.0
    for _ in range(steps):
        stretch = np.diff(np.concatenate([[0.0], x])) - rest
        tension = k * stretch
        force = tension - np.append(tension[1:], 0.0)
        v = v + dt * force
        x = x + dt * v
    return np.sum(x ** 2)


def heat_2d(u0, alpha=0.1, steps=4):
    u = u0.copy()
    for _ in range(steps):
        lap = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * lap
    return np.sum(u ** 2)


def wave_fixed_ends(c, u0, steps=6):
    u_prev = u0.copy()
    u = u0.copy()
    for _ in range(steps):
        u_next = np.zeros_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c ** 2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_prev, u = u, u_next
    return np.sum(u ** 2) + np.sum((u - u_prev) ** 2)


def _anharmonic_force(x, k):
    return -k * x - 0.1 * x ** 3


def _verlet_step(x, v, k, dt):
    a = _anharmonic_force(x, k)
    x_new = x + v * dt + 0.5 * a * dt ** 2
    v_new = v + 0.5 * (a + _anharmonic_force(x_new, k)) * dt
    return x_new, v_new


def anharmonic_verlet(k, x0, v0):
    x, v = x0, v0
    for _ in range(10):
        x, v = _verlet_step(x, v, k, 0.1)
    return np.sum(0.5 * v ** 2 + 0.5 * k * x ** 2)


def _van_der_pol(t, y, mu):
    return np.array([y[1], mu * (1 - y[0] ** 2) * y[1] - y[0]])


def _rk4_step(f, t, y, h, mu):
    k1 = f(t, y, mu)
    k2 = f(t + h / 2, y + h / 2 * k1, mu)
    k3 = f(t + h / 2, y + h / 2 * k2, mu)
    k4 = f(t + h, y + h * k3, mu)
    return t + h, y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def van_der_pol_rk4(mu, y0):
    t, y = 0.0, y0
    for _ in range(8):
        t, y = _rk4_step(_van_der_pol, t, y, 0.1, mu)
    return y[0] ** 2 + y[1]


def implicit_euler_newton(k, y0, h=0.2, tol=1e-12):
    # one backward-Euler step of y' = -k y^3, solved by Newton with a tolerance and a cap
    y = y0
    err = 1.0
    it = 0
    while err > tol and it < 50:
        residual = y - y0 + h * k * y ** 3
        step = residual / (1.0 + 3.0 * h * k * y ** 2)
        y = y - step
        err = np.max(np.abs(step))
        it += 1
    return np.sum(y ** 2)


def drag_range(v0, angle, k=0.05, dt=0.01):
    x, y = 0.0, 0.0
    vx, vy = v0 * math.cos(angle), v0 * math.sin(angle)
    while y >= 0.0:
        speed = math.sqrt(vx * vx + vy * vy)
        vx, vy = vx - k * speed * vx * dt, vy - (9.81 + k * speed * vy) * dt
        x_prev, y_prev = x, y
        x, y = x + vx * dt, y + vy * dt
    # interpolate to the ground between the last two points
    return x_prev + (x - x_prev) * y_prev / (y_prev - y)


def pendulum_energy_drift(theta0, length, steps=30, dt=0.05):
    g = 9.81
    theta, omega = theta0, 0.0
    e0 = g * length * (1 - np.cos(theta0))
    for _ in range(steps):
        omega = omega - g / length * np.sin(theta) * dt
        theta = theta + omega * dt
    e = 0.5 * length ** 2 * omega ** 2 + g * length * (1 - np.cos(theta))
    return (e - e0) ** 2


def double_pendulum_lagrangian(q, qdot, m1=1.0, m2=0.5, l1=1.0, l2=0.7, g=9.81):
    t1, t2 = q
    w1, w2 = qdot
    kinetic = 0.5 * (m1 + m2) * l1 ** 2 * w1 ** 2 + 0.5 * m2 * l2 ** 2 * w2 ** 2 \
        + m2 * l1 * l2 * w1 * w2 * np.cos(t1 - t2)
    potential = -(m1 + m2) * g * l1 * np.cos(t1) - m2 * g * l2 * np.cos(t2)
    return kinetic - potential


def lj_with_cutoff(pos, cutoff=1.5):
    i, j = np.triu_indices(pos.shape[0], k=1)
    r = np.linalg.norm(pos[i] - pos[j], axis=1)
    sr6 = (1.0 / r) ** 6
    e = 4 * (sr6 ** 2 - sr6)
    return np.sum(np.where(r < cutoff, e, 0.0))


def radiative_equilibrium(q, h=2.0, t_air=1.0, sigma=0.5):
    # sigma T^4 + h (T - t_air) = q, solved for T per element with Newton
    T = np.ones_like(q)
    for _ in range(50):
        f = sigma * T ** 4 + h * (T - t_air) - q
        dT = f / (4 * sigma * T ** 3 + h)
        T = T - dT
        if np.all(np.abs(dT) < 1e-13):
            break
    return np.sum(T ** 2)


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


def _mask(T):
    m = np.ones(T, dtype=bool)
    m[-2:] = False
    return m


ML4 = [
    ("causal_attention", causal_attention, lambda r: (M(r, 3, 3), M(r, 5, 3), M(r, 3, 3), M(r, 3, 3)), 0),
    ("padded_attention", padded_attention, lambda r: (M(r, 3, 3), M(r, 5, 3), _mask(5)), 0),
    ("gru_sequence", gru_sequence, lambda r: (0.5 * M(r, 3, 5), 0.5 * M(r, 3, 5), 0.5 * M(r, 3, 5), M(r, 4, 2)), 0),
    ("lstm_last_hidden", lstm_last_hidden, lambda r: (0.4 * M(r, 8, 4), 0.1 * M(r, 8), M(r, 3, 2), M(r, 2)), 0),
    ("mixture_density_nll", mixture_density_nll, lambda r: (0.3 * M(r, 3, 6), M(r, 7, 3), M(r, 7)), 0),
    ("vae_elbo", vae_elbo, lambda r: (0.3 * M(r, 5, 4), 0.3 * M(r, 5, 2), (M(r, 5) > 0).astype(float), M(r, 2)), 0),
    ("info_nce", info_nce, lambda r: (M(r, 4, 3), M(r, 4, 3)), 0),
    ("smoothed_targets_ce", smoothed_targets_ce, lambda r: (M(r, 4, 3), np.array([0, 2, 1, 2])), 0),
    ("multiclass_focal", multiclass_focal, lambda r: (M(r, 5, 3), np.array([0, 2, 1, 1, 0])), 0),
    ("reinforce_with_baseline", reinforce_with_baseline,
     lambda r: (0.5 * M(r, 3, 4), M(r, 6, 3), np.array([0, 3, 1, 2, 2, 0]), M(r, 6)), 0),
    ("tied_autoencoder", tied_autoencoder, lambda r: (0.5 * M(r, 4, 2), M(r, 5, 4), M(r, 2), M(r, 4)), 0),
    ("dropout_mlp", dropout_mlp,
     lambda r: (M(r, 3, 4), M(r, 4, 2), M(r, 5, 3), [(P(r, 5, 4) > 0.4).astype(float), np.array([1.0, 0.0])]), 0),
]

PHYSICS4 = [
    ("nbody_leapfrog", nbody_leapfrog, lambda r: (2 * M(r, 3, 2), 0.1 * M(r, 3, 2), 1.0 + P(r, 3)), 0),
    ("mass_chain_dynamics", mass_chain_dynamics, lambda r: (2.0, np.cumsum(1.0 + 0.1 * M(r, 4))), 1),
    ("heat_2d", heat_2d, lambda r: (M(r, 4, 5),), 0),
    ("wave_fixed_ends", wave_fixed_ends, lambda r: (0.5, M(r, 7)), 0),
    ("anharmonic_verlet", anharmonic_verlet, lambda r: (1.3, M(r, 3), M(r, 3)), 1),
    ("van_der_pol_rk4", van_der_pol_rk4, lambda r: (1.5, np.array([1.0, 0.5])), 0),
    ("implicit_euler_newton", implicit_euler_newton, lambda r: (1.5, 1.0 + P(r, 3)), 0),
    ("drag_range", drag_range, lambda r: (10.0, 0.7), 0),
    ("pendulum_energy_drift", pendulum_energy_drift, lambda r: (0.8, 1.2), 1),
    ("double_pendulum_lagrangian", double_pendulum_lagrangian, lambda r: (M(r, 2), M(r, 2)), 0),
    ("lj_with_cutoff", lj_with_cutoff, lambda r: (np.array([[0., 0], [1.1, 0.1], [0.2, 1.2], [1.3, 1.4]]),), 0),
    ("radiative_equilibrium", radiative_equilibrium, lambda r: (1.0 + 3 * P(r, 4),), 0),
]


def _with_library():
    from .redteam_wave4_library import LIBRARY4
    return ML4 + PHYSICS4 + LIBRARY4


WAVE4 = _with_library()
