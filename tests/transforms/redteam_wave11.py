"""The red team's eleventh wave: ninety more programs written the way users write them, in domains
the earlier waves did not touch.  Optimal control (single and multiple shooting, an LQR rollout
under a feedback gain, a hand-written ODE adjoint whose gradient is differentiated again),
filtering (a constant-velocity Kalman filter in Joseph form, a bootstrap particle filter with fixed
noise, an unscented transform), GP marginal likelihoods (a periodic kernel through np.linalg.solve,
a Nyström low-rank one), normalising flows (planar, radial, an affine coupling), transformer blocks
(cross-attention, a relative-position bias through an index array), finite elements (1-D
assembly by np.add.at into a matrix, 2-D triangles in a Python loop), finance (a binomial tree
with early exercise, Monte Carlo with fixed normals and a barrier, an Asian option, Merton jumps
through math.factorial) are here; robust losses, survival, mixtures, reinforcement learning,
constrained physics and sparse code are in redteam_wave11_models.py, Python idioms and special
points in redteam_wave11_idioms.py.

`WAVE11` holds all three: ``(name, function, make, wrt)`` as in redteam_programs.py, every name
``w11_…``.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.special

# ---- optimal control ----------------------------------------------------------------------------


def single_shooting_double_integrator(u, dt=0.2, target=1.0):
    pos, vel = 0.0, 0.0
    cost = 0.0
    for k in range(u.shape[0]):
        vel = vel + dt * u[k]
        pos = pos + dt * vel
        cost += 0.5 * dt * u[k] ** 2
    return cost + 10.0 * (pos - target) ** 2 + 10.0 * vel ** 2


def multiple_shooting_defects(z, dt=0.1, n_seg=3, sub=4):
    states = z.reshape(n_seg + 1, 2)
    defect = 0.0
    for s in range(n_seg):
        x = states[s].copy()
        for _ in range(sub):
            x = x + dt * np.array([x[1], -np.sin(x[0])])
        defect = defect + np.sum((x - states[s + 1]) ** 2)
    return defect + np.sum((states[0] - np.array([1.0, 0.0])) ** 2)


def lqr_rollout_gain(K, A, B, x0, steps=6):
    Q, R = np.eye(A.shape[0]), 0.1 * np.eye(B.shape[1])
    x, J = x0, 0.0
    for _ in range(steps):
        u = -K @ x
        J = J + x @ Q @ x + u @ R @ u
        x = A @ x + B @ u
    return J


def hand_adjoint_decay(k, y0=1.0, dt=0.1, steps=8):
    """The gradient of y(T)**2 w.r.t. k by a hand-written discrete adjoint; its derivative is second order."""
    ys = [y0]
    for _ in range(steps):
        ys.append(ys[-1] - dt * k * ys[-1] ** 2)
    lam = 2.0 * ys[-1]
    dk = 0.0
    for n in reversed(range(steps)):
        dk = dk - lam * dt * ys[n] ** 2
        lam = lam * (1.0 - 2.0 * dt * k * ys[n])
    return dk + ys[-1] ** 2


def bang_bang_smoothed(theta, steps=10, dt=0.1):
    x = np.array([1.0, 0.0])
    cost = 0.0
    for _ in range(steps):
        u = np.tanh(5.0 * (theta[0] * x[0] + theta[1] * x[1]))
        x = x + dt * np.array([x[1], u])
        cost = cost + dt * (x[0] ** 2 + 0.01 * u ** 2)
    return cost


# ---- filtering ----------------------------------------------------------------------------------


def kalman_cv_joseph(log_q, ys, dt=0.5, r=0.3):
    F = np.array([[1.0, dt], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    Q = np.exp(log_q) * np.array([[dt ** 3 / 3, dt ** 2 / 2], [dt ** 2 / 2, dt]])
    m, P = np.zeros(2), np.eye(2)
    nll = 0.0
    for y in ys:
        m = F @ m
        P = F @ P @ F.T + Q
        S = (H @ P @ H.T)[0, 0] + r
        K = (P @ H.T / S)[:, 0]
        v = y - m[0]
        nll += 0.5 * (np.log(2 * np.pi * S) + v * v / S)
        m = m + K * v
        IKH = np.eye(2) - np.outer(K, H[0])
        P = IKH @ P @ IKH.T + r * np.outer(K, K)
    return nll


def particle_filter_fixed_noise(a, ys, eps, sigma=0.5):
    n = eps.shape[1]
    x = eps[0]
    loglik = 0.0
    for t in range(len(ys)):
        x = a * x + 0.3 * eps[t + 1]
        logw = -0.5 * ((ys[t] - x) / sigma) ** 2
        loglik = loglik + scipy.special.logsumexp(logw) - np.log(n)
        w = np.exp(logw - logw.max())
        x = np.full(n, np.sum(w * x) / np.sum(w))  # deterministic "resampling" to the weighted mean
    return loglik


def unscented_transform(mu, L_raw, kappa=1.0):
    n = mu.shape[0]
    L = np.tril(L_raw)
    P = L @ L.T + 0.1 * np.eye(n)
    S = np.linalg.cholesky((n + kappa) * P)
    sigmas = [mu] + [mu + S[:, i] for i in range(n)] + [mu - S[:, i] for i in range(n)]
    w0 = kappa / (n + kappa)
    wi = 1.0 / (2 * (n + kappa))
    ys = [np.array([np.sin(s[0]) * s[1], s[0] ** 2]) for s in sigmas]
    mean = w0 * ys[0] + wi * sum(ys[1:])
    return np.sum(mean ** 2)


# ---- Gaussian processes -------------------------------------------------------------------------


def gp_periodic_solve(theta, x, y):
    ell, period, sf = np.exp(theta)
    d = np.abs(x[:, None] - x[None, :])
    K = sf ** 2 * np.exp(-2.0 * np.sin(np.pi * d / period) ** 2 / ell ** 2) + 0.1 * np.eye(len(x))
    alpha = np.linalg.solve(K, y)
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ alpha + 0.5 * logdet


def gp_nystrom_woodbury(log_ell, x, z, y, noise=0.2):
    ell = np.exp(log_ell)
    Kxz = np.exp(-0.5 * (x[:, None] - z[None, :]) ** 2 / ell ** 2)
    Kzz = np.exp(-0.5 * (z[:, None] - z[None, :]) ** 2 / ell ** 2) + 1e-3 * np.eye(len(z))
    A = Kzz + Kxz.T @ Kxz / noise
    b = Kxz.T @ y / noise
    quad = y @ y / noise - b @ np.linalg.solve(A, b)
    logdet = np.linalg.slogdet(A)[1] - np.linalg.slogdet(Kzz)[1] + len(x) * np.log(noise)
    return 0.5 * (quad + logdet)


# ---- normalising flows --------------------------------------------------------------------------


def planar_flow_logdet(params, z):
    u, w, b = params["u"], params["w"], params["b"]
    a = z @ w + b
    h = np.tanh(a)
    z_new = z + np.outer(h, u)
    psi = np.outer(1 - h ** 2, w)
    logdet = np.log(np.abs(1 + psi @ u))
    return np.mean(0.5 * np.sum(z_new ** 2, axis=1) - logdet)


def radial_flow(params, z):
    z0, log_alpha, beta_raw = params
    alpha = np.exp(log_alpha)
    beta = -alpha + np.log1p(np.exp(beta_raw))
    diff = z - z0
    r = np.sqrt(np.sum(diff ** 2, axis=1))
    h = 1.0 / (alpha + r)
    z_new = z + beta * h[:, None] * diff
    d = z.shape[1]
    logdet = (d - 1) * np.log1p(beta * h) + np.log1p(beta * h - beta * r * h ** 2)
    return np.mean(np.sum(z_new ** 2, axis=1) - logdet)


def affine_coupling(W, x):
    x1, x2 = x[:, :2], x[:, 2:]
    st = np.tanh(x1 @ W)
    s, t = st[:, :2], st[:, 2:]
    y2 = x2 * np.exp(s) + t
    y = np.concatenate([x1, y2], axis=1)
    return np.mean(0.5 * np.sum(y ** 2, axis=1) - np.sum(s, axis=1))


# ---- transformer blocks -------------------------------------------------------------------------


def cross_attention(Wq, X, M, Wk, Wv):
    q, k, v = X @ Wq, M @ Wk, M @ Wv
    s = q @ k.T / np.sqrt(q.shape[1])
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=-1, keepdims=True)
    out = p @ v
    return np.sum((out + X) ** 2)


def relative_position_bias(bias, X, W):
    n = X.shape[0]
    idx = np.arange(n)[:, None] - np.arange(n)[None, :] + n - 1
    s = (X @ W) @ X.T + bias[idx]
    p = scipy.special.softmax(s, axis=1)
    return np.sum(p @ X * X)


# ---- finite elements ----------------------------------------------------------------------------


def fem_1d_poisson_add_at(log_k, n=5, f=1.0):
    k = np.exp(log_k)
    h = 1.0 / n
    K = np.zeros((n + 1, n + 1))
    F = np.zeros(n + 1)
    for e in range(n):
        ids = np.array([e, e + 1])
        ke = k[e] / h * np.array([[1.0, -1.0], [-1.0, 1.0]])
        np.add.at(K, (ids[:, None], ids[None, :]), ke)
        F[ids] += f * h / 2
    u = np.linalg.solve(K[1:, 1:], F[1:])
    return F[1:] @ u


def fem_triangles_loop(coords, tris, kappa=1.0):
    n = coords.shape[0]
    K = np.zeros((n, n))
    for t in tris:
        p = coords[t]
        B = np.array([p[1] - p[0], p[2] - p[0]]).T
        area = 0.5 * abs(np.linalg.det(B))
        G = np.linalg.inv(B).T @ np.array([[-1.0, 1.0, 0.0], [-1.0, 0.0, 1.0]])
        ke = kappa * area * G.T @ G
        for a in range(3):
            for b in range(3):
                K[t[a], t[b]] += ke[a, b]
    u = np.array([1.0, 0.0, -1.0, 0.5])
    return u @ K @ u


# ---- finance ------------------------------------------------------------------------------------


def binomial_tree_american(sigma, S0=1.0, K=1.05, r=0.02, T=1.0, n=6):
    dt = T / n
    u = np.exp(sigma * np.sqrt(dt))
    d = 1.0 / u
    p = (np.exp(r * dt) - d) / (u - d)
    disc = np.exp(-r * dt)
    S = S0 * u ** np.arange(n, -1, -1) * d ** np.arange(0, n + 1)
    V = np.maximum(K - S, 0.0)
    for _ in range(n - 1, -1, -1):
        S = S[:-1] / u
        V = np.maximum(disc * (p * V[:-1] + (1 - p) * V[1:]), K - S)
    return V[0]


def mc_barrier_pathwise(sigma, Z, S0=1.0, K=1.0, B=1.4, r=0.01, dt=0.1):
    logS = np.log(S0) + np.cumsum((r - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * Z, axis=1)
    S = np.exp(logS)
    alive = np.all(S < B, axis=1)
    payoff = np.where(alive, np.maximum(S[:, -1] - K, 0.0), 0.0)
    return np.exp(-r * dt * Z.shape[1]) * payoff.mean()


def asian_arithmetic(params, Z, K=1.0, dt=0.25):
    sigma, r = params
    S = 1.0
    total = np.zeros(Z.shape[0])
    for t in range(Z.shape[1]):
        S = S * np.exp((r - 0.5 * sigma * sigma) * dt + sigma * math.sqrt(dt) * Z[:, t])
        total = total + S
    avg = total / Z.shape[1]
    return math.exp(-r * dt * Z.shape[1]) * np.mean(np.maximum(avg - K, 0.0))


def merton_jump_call(sigma, S=1.0, K=1.0, T=0.5, r=0.03, lam=0.8, mu_j=-0.1, delta=0.2, terms=8):
    k = math.exp(mu_j + 0.5 * delta ** 2) - 1
    price = 0.0
    for n in range(terms):
        sig_n = math.sqrt(sigma ** 2 + n * delta ** 2 / T)
        r_n = r - lam * k + n * math.log(1 + k) / T
        d1 = (math.log(S / K) + (r_n + 0.5 * sig_n ** 2) * T) / (sig_n * math.sqrt(T))
        d2 = d1 - sig_n * math.sqrt(T)
        bs = S * scipy.special.ndtr(d1) - K * math.exp(-r_n * T) * scipy.special.ndtr(d2)
        weight = math.exp(-lam * (1 + k) * T) * (lam * (1 + k) * T) ** n / math.factorial(n)
        price += weight * bs
    return price


def heston_cf_real(params, u=1.3, T=0.5):
    """Re and Im of Heston's log characteristic function written out in real arithmetic (a, b pairs)."""
    kappa, theta, xi, rho = params
    # d = sqrt((rho xi i u - kappa)^2 + xi^2 (i u + u^2)), complex numbers as (re, im)
    ar, ai = -kappa, rho * xi * u
    sq_r, sq_i = ar * ar - ai * ai + xi * xi * u * u, 2 * ar * ai + xi * xi * u
    mod = math.hypot(sq_r, sq_i)
    dr, di = math.sqrt(0.5 * (mod + sq_r)), math.copysign(math.sqrt(0.5 * (mod - sq_r)), sq_i)
    # b - d with b = kappa - rho xi i u
    br, bi = kappa - dr, -rho * xi * u - di
    decay = math.exp(-dr * T)
    c_r, c_i = decay * math.cos(di * T), -decay * math.sin(di * T)
    return kappa * theta / xi ** 2 * (br * T) + (c_r - 1.0) ** 2 + c_i ** 2 + 0.1 * bi


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


TRIS = np.array([[0, 1, 2], [1, 3, 2]])


def _flow(r):
    return {"u": 0.3 * M(r, 2), "w": M(r, 2), "b": 0.1}


CONTROL11 = [
    ("w11_single_shooting", single_shooting_double_integrator, lambda r: (0.5 * M(r, 6),), 0),
    ("w11_multiple_shooting", multiple_shooting_defects, lambda r: (0.5 * M(r, 8),), 0),
    ("w11_lqr_rollout_gain", lqr_rollout_gain,
     lambda r: (0.3 * M(r, 1, 2), np.array([[1.0, 0.1], [0.0, 1.0]]), np.array([[0.0], [0.1]]), M(r, 2)), 0),
    ("w11_lqr_rollout_x0", lqr_rollout_gain,
     lambda r: (0.3 * M(r, 1, 2), np.array([[1.0, 0.1], [0.0, 1.0]]), np.array([[0.0], [0.1]]), M(r, 2)), 3),
    ("w11_hand_adjoint_decay", hand_adjoint_decay, lambda r: (0.7,), 0),
    ("w11_bang_bang_smoothed", bang_bang_smoothed, lambda r: (np.array([-0.8, -0.5]),), 0),
]

FILTERS11 = [
    ("w11_kalman_cv_joseph", kalman_cv_joseph, lambda r: (-1.0, np.array([0.1, 0.5, 0.8, 1.4, 1.9])), 0),
    ("w11_particle_filter_fixed_noise", particle_filter_fixed_noise,
     lambda r: (0.8, np.array([0.2, -0.1, 0.4]), M(r, 4, 6)), 0),
    ("w11_unscented_transform", unscented_transform, lambda r: (M(r, 2), 0.5 * M(r, 2, 2)), 0),
    ("w11_unscented_transform_cov", unscented_transform, lambda r: (M(r, 2), 0.5 * M(r, 2, 2)), 1),
    ("w11_gp_periodic_solve", gp_periodic_solve,
     lambda r: (np.array([0.0, 0.5, -0.2]), np.linspace(0, 3, 5), M(r, 5)), 0),
    ("w11_gp_nystrom_woodbury", gp_nystrom_woodbury,
     lambda r: (0.1, np.linspace(-1, 1, 6), np.array([-0.5, 0.5]), M(r, 6)), 0),
]

FLOWS11 = [
    ("w11_planar_flow_logdet", planar_flow_logdet, lambda r: (_flow(r), M(r, 5, 2)), 0),
    ("w11_radial_flow", radial_flow, lambda r: ((M(r, 2), 0.1, 0.3), M(r, 4, 2)), 0),
    ("w11_affine_coupling", affine_coupling, lambda r: (0.5 * M(r, 2, 4), M(r, 5, 4)), 0),
    ("w11_cross_attention", cross_attention,
     lambda r: (0.5 * M(r, 3, 2), M(r, 4, 3), M(r, 5, 3), 0.5 * M(r, 3, 2), 0.5 * M(r, 3, 3)), 0),
    ("w11_cross_attention_memory", cross_attention,
     lambda r: (0.5 * M(r, 3, 2), M(r, 4, 3), M(r, 5, 3), 0.5 * M(r, 3, 2), 0.5 * M(r, 3, 3)), 2),
    ("w11_relative_position_bias", relative_position_bias, lambda r: (M(r, 7), M(r, 4, 3), 0.3 * M(r, 3, 3)), 0),
]

FEM_FINANCE11 = [
    ("w11_fem_1d_poisson_add_at", fem_1d_poisson_add_at, lambda r: (0.3 * M(r, 5),), 0),
    ("w11_fem_triangles_loop", fem_triangles_loop,
     lambda r: (np.array([[0.0, 0.0], [1.0, 0.1], [0.1, 1.0], [1.2, 1.1]]) + 0.05 * M(r, 4, 2), TRIS), 0),
    ("w11_binomial_tree_american", binomial_tree_american, lambda r: (0.3,), 0),
    ("w11_mc_barrier_pathwise", mc_barrier_pathwise, lambda r: (0.25, M(r, 8, 5)), 0),
    ("w11_asian_arithmetic", asian_arithmetic, lambda r: ((0.3, 0.02), M(r, 6, 4)), 0),
    ("w11_merton_jump_call", merton_jump_call, lambda r: (0.25,), 0),
    ("w11_heston_cf_real", heston_cf_real, lambda r: ((1.5, 0.04, 0.5, -0.6),), 0),
]


def _with_rest():
    from .redteam_wave11_idioms import IDIOMS11
    from .redteam_wave11_models import MODELS11
    from .redteam_wave11_more import MORE11
    return CONTROL11 + FILTERS11 + FLOWS11 + FEM_FINANCE11 + MODELS11 + MORE11 + IDIOMS11


WAVE11 = _with_rest()
