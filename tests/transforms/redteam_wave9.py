"""The red team's ninth wave: sixty more programs written the way users write them, in idioms the
earlier waves did not use, through every transformation.  Machine learning (NT-Xent with
np.fill_diagonal, layer norm with keyword-only eps, an LSTM cell unpacked from a reshape, a
mixture density network through scipy.stats.norm, label smoothing with np.put_along_axis, focal
loss with np.take_along_axis, dropout from a seeded generator inside the function, attention over
a batch with np.swapaxes, cosine embedding through an einsum), physics (N-body with softening and
an infinite diagonal, a spring mesh from an edge array, an implicit heat step with np.diag
offsets, an adaptive-step integrator with a tolerance, a symplectic Euler over a dataclass state,
Rodrigues rotations with np.cross), finance (Black-Scholes through scipy.stats.norm and through
math.erf, portfolio variance with np.cov, a bond price over enumerate(start=1), implied volatility
by Newton with a tolerance) and geometry (quaternion products, Euler-angle matrices built from
nested lists, smooth-min signed distances, triangle normals) are here; statistics, library-style
code and special points are in redteam_wave9_library.py, NumPy idioms in redteam_wave9_idioms.py.

`WAVE9` holds both: ``(name, function, make, wrt)`` as in redteam_programs.py, every name ``w9_…``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import scipy.special
import scipy.stats

# ---- machine learning ---------------------------------------------------------------------------


def nt_xent_fill_diagonal(W, X1, X2, tau=0.5):
    z = np.concatenate([X1 @ W, X2 @ W], axis=0)
    z = z / np.linalg.norm(z, axis=1, keepdims=True)
    sim = z @ z.T / tau
    np.fill_diagonal(sim, -1e9)
    n = X1.shape[0]
    pos = np.concatenate([np.arange(n, 2 * n), np.arange(n)])
    logp = sim - scipy.special.logsumexp(sim, axis=1, keepdims=True)
    return -np.mean(logp[np.arange(2 * n), pos])


def layer_norm_kwonly(x, gamma, beta, *, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(var + eps) + beta


def layer_norm_loss(gamma, X, beta, target):
    y = layer_norm_kwonly(X, gamma, beta, eps=1e-6)
    return np.mean((y - target) ** 2)


def lstm_cell_reshape(W, x, h, c):
    gates = W @ np.concatenate([x, h, [1.0]])
    i, f, g, o = gates.reshape(4, -1)
    i, f, o = scipy.special.expit(i), scipy.special.expit(f), scipy.special.expit(o)
    c = f * c + i * np.tanh(g)
    h = o * np.tanh(c)
    return np.sum(h ** 2) + 0.1 * np.sum(c)


def mdn_scipy_norm(W, X, y, k=3):
    out = X @ W
    logits, mu, log_s = out[:, :k], out[:, k:2 * k], out[:, 2 * k:]
    log_pi = logits - scipy.special.logsumexp(logits, axis=1, keepdims=True)
    comp = scipy.stats.norm.logpdf(y[:, None], loc=mu, scale=np.exp(log_s))
    return -np.sum(scipy.special.logsumexp(log_pi + comp, axis=1))


def label_smoothing_put_along_axis(W, X, labels, eps=0.1):
    logits = X @ W
    k = logits.shape[1]
    target = np.full_like(logits, eps / k)
    np.put_along_axis(target, labels[:, None], 1.0 - eps + eps / k, axis=1)
    logp = logits - scipy.special.logsumexp(logits, axis=1, keepdims=True)
    return -np.sum(target * logp) / len(labels)


def focal_take_along_axis(W, X, labels, gamma=2.0):
    z = X @ W
    p = np.exp(z - scipy.special.logsumexp(z, axis=1, keepdims=True))
    pt = np.take_along_axis(p, labels[:, None], axis=1)[:, 0]
    return -np.mean((1.0 - pt) ** gamma * np.log(pt))


def dropout_seeded_inside(W, X, y, rate=0.3):
    rng = np.random.default_rng(0)
    mask = rng.random((X.shape[0], W.shape[1])) > rate
    h = np.maximum(X @ W, 0.0) * mask / (1.0 - rate)
    return np.mean((h.sum(axis=1) - y) ** 2)


def batched_attention_swapaxes(Wq, X):
    q = X @ Wq  # (b, t, d)
    s = q @ np.swapaxes(X, 1, 2) / np.sqrt(X.shape[-1])
    a = scipy.special.softmax(s, axis=-1)
    return np.sum((a @ X) ** 2)


def cosine_embedding_einsum(W, A, B, y, margin=0.2):
    u, v = A @ W, B @ W
    cos = np.einsum("ij,ij->i", u, v) / (np.linalg.norm(u, axis=1) * np.linalg.norm(v, axis=1))
    return np.mean(np.where(y > 0, 1.0 - cos, np.maximum(0.0, cos - margin)))


def mish_mlp(W1, X, w2, y):
    z = X @ W1
    h = z * np.tanh(np.log1p(np.exp(z)))
    return np.mean((h @ w2 - y) ** 2)


def python_max_hinge_loop(w, X, y, margin=1.0):
    total = 0.0
    for xi, yi in zip(X, y):
        total += max(0.0, margin - yi * float(xi @ w))
    return total / len(y) + 0.01 * float(w @ w)


def mean_of_list_of_losses(W, batches):
    return np.mean([np.sum(np.tanh(xb @ W) ** 2) for xb in batches])


def gru_cell_dot_methods(U, x, h):
    zr = scipy.special.expit(U[:2].dot(np.append(x, h)))
    cand = np.tanh(U[2].dot(np.append(x, zr[1] * h)))
    h_new = (1 - zr[0]) * h + zr[0] * cand
    return h_new ** 2 + h_new


def float32_attention_block(Wq, X):
    s = (X @ Wq) @ X.T * np.float32(1 / math.sqrt(X.shape[1]))
    a = np.exp(s - s.max(axis=1, keepdims=True))
    a = a / a.sum(axis=1, keepdims=True)
    return np.sum(np.tanh(a @ X))


# ---- physics ------------------------------------------------------------------------------------


def nbody_fill_inf(pos, masses, soft=0.1):
    d = pos[:, None, :] - pos[None, :, :]
    r2 = np.sum(d ** 2, axis=-1) + soft ** 2
    np.fill_diagonal(r2, np.inf)
    return -0.5 * np.sum(masses[:, None] * masses[None, :] / np.sqrt(r2))


def spring_mesh_edges(x, edges, rest, k=10.0):
    d = x[edges[:, 0]] - x[edges[:, 1]]
    length = np.linalg.norm(d, axis=1)
    return 0.5 * k * np.sum((length - rest) ** 2)


def implicit_heat_diag(u0, alpha=0.4, steps=3):
    n = u0.size
    A = np.diag(np.full(n, 1 + 2 * alpha)) + np.diag(np.full(n - 1, -alpha), k=1) \
        + np.diag(np.full(n - 1, -alpha), k=-1)
    u = u0
    for _ in range(steps):
        u = np.linalg.solve(A, u)
    return np.sum(u ** 2)


def adaptive_euler_heun(k, y0=1.0, t_end=1.0, tol=1e-4):
    t, y, h = 0.0, y0, 0.1
    while t < t_end - 1e-12:
        h = min(h, t_end - t)
        f0 = -k * y
        y_euler = y + h * f0
        y_heun = y + 0.5 * h * (f0 - k * y_euler)
        err = abs(y_heun - y_euler)
        if err > tol:
            h = 0.5 * h
            continue
        t, y = t + h, y_heun
        h = 1.5 * h
    return y


@dataclasses.dataclass
class PhaseState:
    q: np.ndarray
    p: np.ndarray


def symplectic_euler_dataclass(q0, omega=1.3, dt=0.05, steps=20):
    s = PhaseState(q0, np.zeros_like(q0))
    for _ in range(steps):
        p = s.p - dt * omega ** 2 * np.sin(s.q)
        s = PhaseState(s.q + dt * p, p)
    return np.sum(0.5 * s.p ** 2 + omega ** 2 * (1 - np.cos(s.q)))


def rodrigues_cross(axis_angle, points):
    theta = np.linalg.norm(axis_angle)
    k = axis_angle / theta
    c, s = np.cos(theta), np.sin(theta)
    rotated = points * c + np.cross(k, points) * s + np.outer(points @ k, k) * (1 - c)
    return np.sum((rotated - points[::-1]) ** 2)


def langevin_fixed_noise(x0, noise, dt=0.01, gamma=0.5):
    x = x0
    for xi in noise:
        force = -4 * x ** 3 + 4 * x
        x = x + dt * force - gamma * dt * x + math.sqrt(2 * dt) * 0.1 * xi
    return np.sum(x ** 2)


# ---- finance ------------------------------------------------------------------------------------


def black_scholes_call(params, K=1.0, r=0.02):
    S, sigma, T = params
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return S * scipy.stats.norm.cdf(d1) - K * np.exp(-r * T) * scipy.stats.norm.cdf(d2)


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def black_scholes_math_erf(S, K=100.0, r=0.01, sigma=0.25, T=0.5):
    d1 = (math.log(S / K) + (r + sigma * sigma / 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    return S * _phi(d1) - K * math.exp(-r * T) * _phi(d2)


def portfolio_np_cov(w_raw, returns, risk_aversion=3.0):
    w = np.exp(w_raw) / np.sum(np.exp(w_raw))
    sigma = np.cov(returns, rowvar=False)
    mean = returns.mean(axis=0)
    return risk_aversion * w @ sigma @ w - w @ mean


def bond_price_enumerate(y, cash_flows=(5.0, 5.0, 5.0, 105.0), price=98.0):
    pv = sum(cf / (1 + y) ** t for t, cf in enumerate(cash_flows, start=1))
    return (pv - price) ** 2


def implied_vol_newton(price, S=1.0, K=1.0, T=1.0, tol=1e-12):
    sigma = 0.3
    diff = 1.0
    while abs(diff) > tol:
        d1 = (np.log(S / K) + 0.5 * sigma ** 2 * T) / (sigma * np.sqrt(T))
        model = S * scipy.stats.norm.cdf(d1) - K * scipy.stats.norm.cdf(d1 - sigma * np.sqrt(T))
        vega = S * scipy.stats.norm.pdf(d1) * np.sqrt(T)
        diff = (model - price) / vega
        sigma = sigma - diff
    return sigma


def sharpe_ratio(w, returns, rf=0.001):
    port = returns @ w
    return -(port.mean() - rf) / port.std(ddof=1)


# ---- geometry -----------------------------------------------------------------------------------


def quat_mul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def quaternion_sandwich(q, points):
    q = q / np.linalg.norm(q)
    conj = q * np.array([1.0, -1.0, -1.0, -1.0])
    total = 0.0
    for p in points:
        r = quat_mul(quat_mul(q, np.concatenate([[0.0], p])), conj)
        total = total + np.sum((r[1:] - p[::-1]) ** 2)
    return total


def euler_nested_lists(angles, points):
    a, b, c = angles
    Rz = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    Ry = np.array([[np.cos(b), 0.0, np.sin(b)], [0.0, 1.0, 0.0], [-np.sin(b), 0.0, np.cos(b)]])
    Rx = np.array([[1, 0, 0], [0, np.cos(c), -np.sin(c)], [0, np.sin(c), np.cos(c)]])
    return np.sum((points @ (Rz @ Ry @ Rx).T - points[:, ::-1]) ** 2)


def smooth_min_sdf(p, k=0.3):
    d_sphere = np.linalg.norm(p - np.array([0.5, 0.0]), axis=1) - 0.4
    q = np.abs(p + np.array([0.4, 0.1])) - np.array([0.3, 0.2])
    d_box = np.linalg.norm(np.maximum(q, 0.0), axis=1) + np.minimum(np.max(q, axis=1), 0.0)
    h = np.clip(0.5 + 0.5 * (d_box - d_sphere) / k, 0.0, 1.0)
    d = d_box * (1 - h) + d_sphere * h - k * h * (1 - h)
    return np.sum(d ** 2)


def triangle_normals_area(verts, faces):
    a, b, c = verts[faces[:, 0]], verts[faces[:, 1]], verts[faces[:, 2]]
    n = np.cross(b - a, c - a)
    area = 0.5 * np.linalg.norm(n, axis=1)
    unit = n / (2 * area[:, None])
    return np.sum(area) + np.sum((unit[:, 2] - 1.0) ** 2)


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


LABELS = np.array([0, 2, 1, 3, 2])
EDGES = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]])
FACES = np.array([[0, 1, 2], [0, 2, 3], [1, 3, 2]])

ML9 = [
    ("w9_nt_xent_fill_diagonal", nt_xent_fill_diagonal, lambda r: (M(r, 3, 2), M(r, 3, 3), M(r, 3, 3)), 0),
    ("w9_layer_norm_kwonly", layer_norm_loss, lambda r: (1 + 0.1 * M(r, 4), M(r, 3, 4), M(r, 4), M(r, 3, 4)), 0),
    ("w9_lstm_cell_reshape", lstm_cell_reshape, lambda r: (0.4 * M(r, 8, 5), M(r, 2), M(r, 2), M(r, 2)), 0),
    ("w9_mdn_scipy_norm", mdn_scipy_norm, lambda r: (0.3 * M(r, 2, 9), M(r, 5, 2), M(r, 5)), 0),
    ("w9_label_smoothing_put_along_axis", label_smoothing_put_along_axis,
     lambda r: (M(r, 3, 4), M(r, 5, 3), LABELS), 0),
    ("w9_focal_take_along_axis", focal_take_along_axis, lambda r: (M(r, 3, 4), M(r, 5, 3), LABELS), 0),
    ("w9_dropout_seeded_inside", dropout_seeded_inside, lambda r: (M(r, 3, 4), M(r, 5, 3), M(r, 5)), 0),
    ("w9_batched_attention_swapaxes", batched_attention_swapaxes, lambda r: (0.5 * M(r, 3, 3), M(r, 2, 4, 3)), 0),
    ("w9_cosine_embedding_einsum", cosine_embedding_einsum,
     lambda r: (M(r, 3, 3), M(r, 4, 3), M(r, 4, 3), np.array([1, -1, 1, -1])), 0),
    ("w9_mish_mlp", mish_mlp, lambda r: (M(r, 3, 4), M(r, 5, 3), M(r, 4), M(r, 5)), 0),
    ("w9_python_max_hinge_loop", python_max_hinge_loop,
     lambda r: (np.array([0.3, -0.2, 0.5]), M(r, 6, 3), np.array([1.0, -1, 1, -1, 1, 1])), 0),
    ("w9_mean_of_list_of_losses", mean_of_list_of_losses, lambda r: (M(r, 3, 2), [M(r, 2, 3), M(r, 4, 3)]), 0),
    ("w9_gru_cell_dot_methods", gru_cell_dot_methods, lambda r: (0.5 * M(r, 3, 2), 0.7, -0.3), 0),
    ("w9_gru_cell_dot_state", gru_cell_dot_methods, lambda r: (0.5 * M(r, 3, 2), 0.7, -0.3), 2),
    ("w9_float32_attention_block", float32_attention_block,
     lambda r: (0.5 * M(r, 3, 3).astype(np.float32), M(r, 4, 3).astype(np.float32)), 0),
]

PHYSICS9 = [
    ("w9_nbody_fill_inf", nbody_fill_inf, lambda r: (M(r, 4, 2), 1 + P(r, 4)), 0),
    ("w9_spring_mesh_edges", spring_mesh_edges, lambda r: (np.array([[0.0, 0], [1, 0.1], [1.1, 1], [0, 0.9]])
                                                          + 0.05 * M(r, 4, 2), EDGES, 1 + 0.2 * P(r, 5)), 0),
    ("w9_implicit_heat_diag", implicit_heat_diag, lambda r: (M(r, 6),), 0),
    ("w9_adaptive_euler_heun", adaptive_euler_heun, lambda r: (2.0,), 0),
    ("w9_symplectic_euler_dataclass", symplectic_euler_dataclass, lambda r: (np.array([0.4, -1.1, 2.0]),), 0),
    ("w9_rodrigues_cross", rodrigues_cross, lambda r: (np.array([0.3, -0.5, 0.8]), M(r, 4, 3)), 0),
    ("w9_langevin_fixed_noise", langevin_fixed_noise, lambda r: (0.5 * M(r, 3), M(r, 10, 3)), 0),
]

FINANCE9 = [
    ("w9_black_scholes_call", black_scholes_call, lambda r: (np.array([1.1, 0.25, 0.75]),), 0),
    ("w9_black_scholes_atm", black_scholes_call, lambda r: (np.array([1.0, 0.2, 1.0]), 1.0, 0.0), 0),
    ("w9_black_scholes_math_erf", black_scholes_math_erf, lambda r: (103.0,), 0),
    ("w9_portfolio_np_cov", portfolio_np_cov, lambda r: (0.3 * M(r, 4), 0.01 + 0.02 * M(r, 12, 4)), 0),
    ("w9_bond_price_enumerate", bond_price_enumerate, lambda r: (0.06,), 0),
    ("w9_implied_vol_newton", implied_vol_newton, lambda r: (0.12,), 0),
    ("w9_sharpe_ratio", sharpe_ratio, lambda r: (np.array([0.4, 0.35, 0.25]), 0.01 + 0.02 * M(r, 10, 3)), 0),
]

GEOMETRY9 = [
    ("w9_quaternion_sandwich", quaternion_sandwich, lambda r: (np.array([0.9, 0.1, -0.3, 0.2]), M(r, 3, 3)), 0),
    ("w9_euler_nested_lists", euler_nested_lists, lambda r: (np.array([0.3, -0.7, 1.1]), M(r, 4, 3)), 0),
    ("w9_smooth_min_sdf", smooth_min_sdf, lambda r: (np.array([[0.1, 0.2], [0.9, -0.3], [-0.2, 0.5]]),), 0),
    ("w9_triangle_normals_area", triangle_normals_area,
     lambda r: (np.array([[0.0, 0, 0], [1, 0, 0.1], [1, 1, 0.2], [0, 1, -0.1]]), FACES), 0),
]


def _with_library():
    from .redteam_wave9_idioms import IDIOMS9
    from .redteam_wave9_library import LIBRARY9
    return ML9 + PHYSICS9 + FINANCE9 + GEOMETRY9 + LIBRARY9 + IDIOMS9


WAVE9 = _with_library()
