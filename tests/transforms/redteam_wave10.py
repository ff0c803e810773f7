"""The red team's tenth wave: seventy more programs written the way users write them, in idioms the
earlier waves did not use, through every transformation.  Machine learning (a residual stack
updated with ``h += ...``, batched matmuls through np.einsum "bij,bjk->bik", Ellipsis indexing,
np.linalg.multi_dot, functools.reduce(np.matmul, ...), gradient clipping by a global norm, a
straight-through one-hot, pairs from np.triu_indices, a Gram trace, weight tying through ``W.T``,
a classifier chain over reversed(range(n))), physics (forces scattered with np.add.at, SPH
densities with a cutoff np.where, a 2-D heat step written into ``u[1:-1, 1:-1]``, a brachistochrone
time, a grid potential from np.meshgrid, a catenary energy with np.diff(prepend=...)),
optimisation inner loops (log-domain Sinkhorn, power iteration, a few conjugate-gradient steps,
mirror descent on the simplex, ISTA, unrolled gradient descent whose inner gradient is written
out by hand) are here; statistics, signal processing and library-style code are in
redteam_wave10_library.py, special points, in-place updates, aliasing and early exits in
redteam_wave10_points.py.

`WAVE10` holds all three: ``(name, function, make, wrt)`` as in redteam_programs.py, every name
``w10_…``.
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.special

# ---- machine learning ---------------------------------------------------------------------------


def residual_stack_iadd(Ws, x):
    h = x.copy()
    for W in Ws:
        h += np.tanh(h @ W)
    return np.sum(h ** 2)


def batched_einsum_bmm(A, B):
    C = np.einsum("bij,bjk->bik", A, B)
    return np.sum(np.sin(C)) + np.sum(C[..., 0] ** 2)


def ellipsis_features(W, X):
    z = X[..., None] * W[None, ...]  # (n, d, 1) * (1, d, k)
    return np.sum(np.tanh(z.sum(axis=1)) ** 2)


def multi_dot_chain(A, B, C, v):
    return float(np.linalg.multi_dot([A, B, C]) @ v @ v)


def reduce_matmul(mats, v):
    P = functools.reduce(np.matmul, mats)
    return np.sum((P @ v) ** 2)


def clip_by_global_norm(g, w, max_norm=1.0):
    norm = np.sqrt(np.sum(g ** 2))
    scale = np.minimum(1.0, max_norm / norm)
    w_new = w - 0.1 * g * scale
    return np.sum(w_new ** 2 * np.arange(1.0, w.size + 1))


def straight_through_onehot(logits, values):
    p = np.exp(logits - logits.max())
    p = p / p.sum()
    hard = np.zeros_like(p)
    hard[np.argmax(p)] = 1.0
    st = hard + p - p  # user's straight-through without stop_gradient: the gradient of p - p is 0
    return np.sum(st * values) + np.sum(p * values)


def triu_pairs_contrastive(Z, margin=1.0):
    i, j = np.triu_indices(Z.shape[0], k=1)
    d2 = np.sum((Z[i] - Z[j]) ** 2, axis=1)
    return np.sum(np.exp(-d2)) + 0.1 * np.sum(d2)


def gram_trace_penalty(W, X):
    H = np.tanh(X @ W)
    G = H.T @ H
    return np.trace(G) - np.trace(G @ G) / np.trace(G) ** 2


def tied_weights_transpose(W, X):
    code = np.tanh(X @ W)
    recon = code @ W.T
    return np.mean((recon - X) ** 2)


def classifier_chain_reversed(W, x):
    preds = [0.0] * W.shape[0]
    carry = 0.0
    for k in reversed(range(W.shape[0])):
        preds[k] = scipy.special.expit(W[k] @ x + carry)
        carry = carry + preds[k]
    return sum(p * p for p in preds)


def dict_params_list_of_blocks(params, X):
    h = X
    for block in params["blocks"]:
        h = h + np.tanh(h @ block["W"] + block["b"])
    return np.sum(h @ params["head"])


def tensordot_layer(W, X):
    Y = np.tensordot(X, W, axes=([1, 2], [0, 1]))
    return np.sum(np.log1p(Y ** 2))


# ---- physics ------------------------------------------------------------------------------------


def spring_forces_add_at(x, edges, k=2.0, dt=0.05, steps=4):
    v = np.zeros_like(x)
    for _ in range(steps):
        d = x[edges[:, 1]] - x[edges[:, 0]]
        f = np.zeros_like(x)
        np.add.at(f, edges[:, 0], k * d)
        np.add.at(f, edges[:, 1], -k * d)
        v = v + dt * f
        x = x + dt * v
    return np.sum(x ** 2)


def sph_density_cutoff(pos, h=1.5):
    r2 = np.sum((pos[:, None, :] - pos[None, :, :]) ** 2, axis=-1)
    w = np.where(r2 < h * h, (h * h - r2) ** 3, 0.0)
    rho = w.sum(axis=1)
    return np.sum((rho - 1.0) ** 2)


def heat_2d_interior_write(u0, alpha=0.2, steps=3):
    u = u0.copy()
    for _ in range(steps):
        lap = u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2] - 4 * u[1:-1, 1:-1]
        u[1:-1, 1:-1] = u[1:-1, 1:-1] + alpha * lap
    return np.sum(u ** 2)


def brachistochrone_time(y_inner, x_end=1.0, g=9.81):
    y = np.concatenate([[0.0], y_inner, [-1.0]])
    x = np.linspace(0.0, x_end, y.size)
    ds = np.sqrt(np.diff(x) ** 2 + np.diff(y) ** 2)
    v_mid = np.sqrt(-2 * g * 0.5 * (y[1:] + y[:-1]))
    return np.sum(ds / v_mid)


def meshgrid_potential(centres, n=5):
    gx, gy = np.meshgrid(np.linspace(-1, 1, n), np.linspace(-1, 1, n))
    phi = np.zeros_like(gx)
    for c in centres:
        phi = phi + np.exp(-((gx - c[0]) ** 2 + (gy - c[1]) ** 2))
    return np.sum(phi ** 2)


def catenary_prepend(y_inner, length_penalty=10.0):
    y = np.concatenate([y_inner, [0.0]])
    dy = np.diff(y, prepend=0.0)
    seg = np.sqrt(0.01 + dy ** 2)
    return np.sum(seg * y) + length_penalty * (np.sum(seg) - 1.5) ** 2


def damped_oscillator_while(k, c=0.3, dt=0.02, t_end=0.5):
    x, v, t = 1.0, 0.0, 0.0
    while True:
        a = -k * x - c * v
        v += dt * a
        x += dt * v
        t += dt
        if t >= t_end - 1e-12:
            break
    return x * x + 0.5 * v * v


def orbit_stack_history(v0, dt=0.05, steps=8):
    r = np.array([1.0, 0.0])
    v = np.asarray(v0, dtype=float)
    traj = []
    for _ in range(steps):
        a = -r / np.linalg.norm(r) ** 3
        v = v + dt * a
        r = r + dt * v
        traj.append(r)
    path = np.stack(traj)
    return np.sum(path[:, 1] ** 2) + np.sum(np.linalg.norm(path, axis=1))


# ---- optimisation inner loops -------------------------------------------------------------------


def sinkhorn_log_domain(C, a, b, eps=0.5, iters=10):
    f, g = np.zeros_like(a), np.zeros_like(b)
    for _ in range(iters):
        f = eps * np.log(a) - eps * scipy.special.logsumexp((g[None, :] - C) / eps, axis=1)
        g = eps * np.log(b) - eps * scipy.special.logsumexp((f[:, None] - C) / eps, axis=0)
    P = np.exp((f[:, None] + g[None, :] - C) / eps)
    return np.sum(P * C)


def power_iteration(A, iters=12):
    S = A @ A.T
    v = np.ones(S.shape[0]) / np.sqrt(S.shape[0])
    for _ in range(iters):
        v = S @ v
        v /= np.linalg.norm(v)
    return v @ S @ v


def conjugate_gradient_steps(L, b, steps=3):
    A = L @ L.T + np.eye(L.shape[0])
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    for _ in range(steps):
        Ap = A @ p
        alpha = (r @ r) / (p @ Ap)
        x = x + alpha * p
        r_new = r - alpha * Ap
        beta = (r_new @ r_new) / (r @ r)
        p = r_new + beta * p
        r = r_new
    return np.sum(x ** 2)


def mirror_descent_simplex(c, steps=6, lr=0.5):
    w = np.full(c.shape[0], 1.0 / c.shape[0])
    for _ in range(steps):
        grad = c + np.log(w) + 1.0
        w = w * np.exp(-lr * grad)
        w = w / w.sum()
    return w @ c + np.sum(w * np.log(w))


def ista_lasso(X, y, lam=0.3, steps=8, lr=0.05):
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        z = w - lr * X.T @ (X @ w - y)
        w = np.sign(z) * np.maximum(np.abs(z) - lr * lam, 0.0)
    return np.sum((X @ w - y) ** 2)


def unrolled_handwritten_gd(lam, X, y, steps=4, lr=0.1):
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        g = X.T @ (X @ w - y) / len(y) + np.exp(lam) * w
        w = w - lr * g
    return np.mean((X @ w - y) ** 2)


def newton_scalar_inner(theta, target=0.4, iters=6):
    z = 0.0
    for _ in range(iters):
        f = np.tanh(theta * z) + z - target
        df = theta * (1 - np.tanh(theta * z) ** 2) + 1.0
        z = z - f / df
    return z ** 2 + theta * z


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


EDGES = np.array([[0, 1], [1, 2], [2, 0], [1, 3], [3, 0]])


def _blocks(r):
    return {"blocks": [{"W": 0.4 * M(r, 3, 3), "b": M(r, 3)} for _ in range(2)], "head": M(r, 3)}


def _cost(r):
    x = np.linspace(0, 1, 4)
    return (x[:, None] - np.linspace(0, 1, 3)[None, :] - 0.1 * M(r, 4, 3)) ** 2


ML10 = [
    ("w10_residual_stack_iadd", residual_stack_iadd, lambda r: ([0.3 * M(r, 3, 3), 0.3 * M(r, 3, 3)], M(r, 4, 3)), 0),
    ("w10_residual_stack_input", residual_stack_iadd, lambda r: ([0.3 * M(r, 3, 3), 0.3 * M(r, 3, 3)], M(r, 4, 3)), 1),
    ("w10_batched_einsum_bmm", batched_einsum_bmm, lambda r: (M(r, 2, 3, 2), M(r, 2, 2, 3)), 0),
    ("w10_ellipsis_features", ellipsis_features, lambda r: (M(r, 3, 2), M(r, 4, 3)), 0),
    ("w10_multi_dot_chain", multi_dot_chain, lambda r: (M(r, 3, 2), M(r, 2, 4), M(r, 4, 3), M(r, 3)), 1),
    ("w10_reduce_matmul", reduce_matmul, lambda r: ([M(r, 2, 2), M(r, 2, 2), M(r, 2, 2)], M(r, 2)), 0),
    ("w10_clip_by_global_norm", clip_by_global_norm, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w10_clip_by_global_norm_small", clip_by_global_norm, lambda r: (0.1 * M(r, 4), M(r, 4)), 0),
    ("w10_straight_through_onehot", straight_through_onehot, lambda r: (M(r, 5), M(r, 5)), 0),
    ("w10_triu_pairs_contrastive", triu_pairs_contrastive, lambda r: (M(r, 4, 2),), 0),
    ("w10_gram_trace_penalty", gram_trace_penalty, lambda r: (M(r, 3, 2), M(r, 5, 3)), 0),
    ("w10_tied_weights_transpose", tied_weights_transpose, lambda r: (0.5 * M(r, 4, 2), M(r, 5, 4)), 0),
    ("w10_classifier_chain_reversed", classifier_chain_reversed, lambda r: (M(r, 3, 2), M(r, 2)), 0),
    ("w10_dict_params_list_of_blocks", dict_params_list_of_blocks, lambda r: (_blocks(r), M(r, 4, 3)), 0),
    ("w10_tensordot_layer", tensordot_layer, lambda r: (M(r, 2, 3, 2), M(r, 4, 2, 3)), 0),
]

PHYSICS10 = [
    ("w10_spring_forces_add_at", spring_forces_add_at, lambda r: (M(r, 4, 2), EDGES), 0),
    ("w10_sph_density_cutoff", sph_density_cutoff,
     lambda r: (np.array([[0.0, 0], [0.7, 0.2], [3.0, 0.5], [0.2, 1.1]]),), 0),
    ("w10_heat_2d_interior_write", heat_2d_interior_write, lambda r: (M(r, 4, 5),), 0),
    ("w10_brachistochrone_time", brachistochrone_time, lambda r: (np.array([-0.5, -0.8, -0.95]),), 0),
    ("w10_meshgrid_potential", meshgrid_potential, lambda r: (0.5 * M(r, 2, 2),), 0),
    ("w10_catenary_prepend", catenary_prepend, lambda r: (np.array([-0.2, -0.3, -0.25, -0.1]),), 0),
    ("w10_damped_oscillator_while", damped_oscillator_while, lambda r: (3.0,), 0),
    ("w10_orbit_stack_history", orbit_stack_history, lambda r: (np.array([0.1, 1.05]),), 0),
]

OPTIMISATION10 = [
    ("w10_sinkhorn_log_domain", sinkhorn_log_domain, lambda r: (_cost(r), np.full(4, 0.25), np.full(3, 1 / 3)), 0),
    ("w10_sinkhorn_marginal", sinkhorn_log_domain, lambda r: (_cost(r), P(r, 4) / 2.2, np.full(3, 1 / 3)), 1),
    ("w10_power_iteration", power_iteration, lambda r: (M(r, 3, 3),), 0),
    ("w10_conjugate_gradient_steps", conjugate_gradient_steps, lambda r: (0.5 * M(r, 3, 3), M(r, 3)), 0),
    ("w10_conjugate_gradient_rhs", conjugate_gradient_steps, lambda r: (0.5 * M(r, 3, 3), M(r, 3)), 1),
    ("w10_mirror_descent_simplex", mirror_descent_simplex, lambda r: (M(r, 4),), 0),
    ("w10_ista_lasso", ista_lasso, lambda r: (M(r, 6, 3), M(r, 6)), 1),
    ("w10_unrolled_handwritten_gd", unrolled_handwritten_gd, lambda r: (-1.0, M(r, 6, 3), M(r, 6)), 0),
    ("w10_newton_scalar_inner", newton_scalar_inner, lambda r: (1.3,), 0),
]


def _with_library():
    from .redteam_wave10_library import LIBRARY10
    from .redteam_wave10_points import POINTS10
    return ML10 + PHYSICS10 + OPTIMISATION10 + LIBRARY10 + POINTS10


WAVE10 = _with_library()
