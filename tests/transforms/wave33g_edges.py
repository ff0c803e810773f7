"""Wave 33g: the same domains, written with the constructs most likely to go wrong: an argument's copy
written in place with ``+=``, a view of a copy scaled in place, a running maximum (drawdown) by
np.maximum.accumulate, a trimmed mean and a CVaR by np.sort, a log-determinant by np.linalg.slogdet,
attention by np.einsum, a dict comprehension of parameters, rows appended in a loop and stacked, an
early return inside a helper's loop, a float32 image with Python-float constants."""

from __future__ import annotations

import numpy as np

PRICES = np.array([100.0, 103.0, 99.0, 105.0, 101.0, 108.0, 104.0])
X_ATT = np.random.default_rng(51).normal(size=(3, 4, 2))


def inplace_copy(w):
    v = w.copy()
    v[0] += 2.0 * v[1]
    v[1:] *= 0.5
    v[-1] -= v[0] ** 2
    return np.sum(v ** 2)


def view_scaled(w):
    v = w.copy()
    tail = v[2:]
    tail *= 3.0
    return np.sum(np.sin(v)) + v[3] * v[0]


def drawdown(weights):
    value = PRICES[:, None] * weights[None, :]
    wealth = np.sum(value, axis=1)
    peak = np.maximum.accumulate(wealth)
    return np.mean((peak - wealth) / peak) + 0.1 * (np.sum(weights) - 1.0) ** 2


def trimmed_mean(x, k=2):
    s = np.sort(x)
    return np.mean(s[k:-k] ** 2)


def cvar_sorted(w, alpha=0.25):
    losses = -(X_ATT.reshape(12, 2) @ w)
    s = np.sort(losses)[::-1]
    n = int(np.ceil(alpha * s.shape[0]))
    return np.mean(s[:n])


def gp_slogdet(log_ell, x=np.linspace(0, 1, 5), y=np.array([0.1, 0.3, 0.2, -0.1, 0.0])):  # noqa: B008
    ell = np.exp(log_ell)
    k = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / ell ** 2) + 0.1 * np.eye(5)
    sign, logdet = np.linalg.slogdet(k)
    return 0.5 * y @ np.linalg.solve(k, y) + 0.5 * logdet


def einsum_attention(wq):
    q = np.einsum("btd,de->bte", X_ATT, wq)
    s = np.einsum("bte,bse->bts", q, X_ATT)
    s = s - s.max(axis=-1, keepdims=True)
    a = np.exp(s) / np.exp(s).sum(axis=-1, keepdims=True)
    return np.sum(np.einsum("bts,bsd->btd", a, X_ATT) ** 2)


def dict_comprehension(theta):
    p = {name: theta[i] for i, name in enumerate(("a", "b", "c"))}
    return p["a"] ** 2 + np.exp(p["b"]) * p["c"] + np.sin(p["a"] * p["c"])


def rows_stacked(w):
    rows = []
    for t in range(4):
        rows.append(np.tanh(w * (t + 1)) - 0.1 * t)
    m = np.stack(rows)
    return np.sum(m @ m.T)


def _first_crossing(path, level):
    for t in range(path.shape[0]):
        if path[t] > level:
            return path[t] * (t + 1)
    return path[-1]


def early_return_helper(drift, level=1.0):
    path = np.cumsum(np.full(6, drift) + np.array([0.1, -0.2, 0.3, 0.0, 0.2, -0.1]))
    return _first_crossing(path, level) ** 2


def float32_image(img):
    d = img[1:, :] - img[:-1, :]
    return np.sum(np.sqrt(d * d + 1e-3)) * 0.5 + 0.1 * np.sum(img ** 2)


EDGES = [
    ("edge_inplace_copy", inplace_copy, lambda r: (r.normal(size=4),), 0),
    ("edge_view_scaled", view_scaled, lambda r: (r.normal(size=5),), 0),
    ("edge_drawdown", drawdown, lambda r: (np.array([0.5, 0.3]),), 0),
    ("edge_trimmed_mean", trimmed_mean, lambda r: (r.normal(size=8),), 0),
    ("edge_cvar_sorted", cvar_sorted, lambda r: (r.normal(size=2),), 0),
    ("edge_gp_slogdet", gp_slogdet, lambda r: (-0.7,), 0),
    ("edge_einsum_attention", einsum_attention, lambda r: (0.5 * r.normal(size=(2, 2)),), 0),
    ("edge_dict_comprehension", dict_comprehension, lambda r: (r.normal(size=3),), 0),
    ("edge_rows_stacked", rows_stacked, lambda r: (r.normal(size=3),), 0),
    ("edge_early_return_helper", early_return_helper, lambda r: (0.25,), 0),
    ("edge_float32_image", float32_image, lambda r: (r.uniform(size=(4, 4)).astype(np.float32),), 0),
]
