"""The red team's eleventh wave, the rest: a transformer decoder with a KV cache kept in lists, a
sliding-window attention mask from np.tril / np.triu, an RTS smoother's backward pass, a
systematic resampler through np.searchsorted on a cumsum, a segment softmax through
np.maximum.at, a secant shooting method for a boundary value problem, a log-logistic AFT model,
expectile regression, a rod's bending energy through np.cross, a soft rank from pairwise sigmoids
and a CIR bond price written with math.sinh / cosh.  See redteam_wave11.py."""

from __future__ import annotations

import math

import numpy as np
import scipy.special


def kv_cache_decoding(Wq, X, Wk, Wv):
    keys, values = [], []
    out = 0.0
    for t in range(X.shape[0]):
        keys.append(X[t] @ Wk)
        values.append(X[t] @ Wv)
        K, V = np.stack(keys), np.stack(values)
        s = K @ (X[t] @ Wq)
        p = np.exp(s - s.max())
        out = out + np.sum((p / p.sum()) @ V)
    return out


def sliding_window_attention(W, X, window=2):
    n = X.shape[0]
    mask = np.tril(np.ones((n, n)), 0) * np.triu(np.ones((n, n)), -window)
    s = (X @ W) @ X.T
    s = np.where(mask > 0, s, -1e9)
    p = scipy.special.softmax(s, axis=-1)
    return np.sum((p @ X) ** 2)


def rts_smoother(log_q, ys, r=0.5, a=0.9):
    q = np.exp(log_q)
    ms, Ps, mp, Pp = [], [], [], []
    m, P = 0.0, 1.0
    for y in ys:
        m_pred, P_pred = a * m, a * a * P + q
        K = P_pred / (P_pred + r)
        m, P = m_pred + K * (y - m_pred), (1 - K) * P_pred
        ms.append(m), Ps.append(P), mp.append(m_pred), Pp.append(P_pred)
    sm = ms[-1]
    total = sm ** 2
    for t in range(len(ys) - 2, -1, -1):
        G = Ps[t] * a / Pp[t + 1]
        sm = ms[t] + G * (sm - mp[t + 1])
        total = total + sm ** 2
    return total


def systematic_resampling(x, logw, u0=0.37):
    w = np.exp(logw - scipy.special.logsumexp(logw))
    c = np.cumsum(w)
    pos = (np.arange(len(w)) + u0) / len(w)
    idx = np.minimum(np.searchsorted(c, pos), len(w) - 1)
    return np.sum(x[idx] ** 2) + np.sum(w * x)


def segment_softmax(scores, seg, n_seg=3):
    mx = np.full(n_seg, -np.inf)
    np.maximum.at(mx, seg, scores)
    e = np.exp(scores - mx[seg])
    den = np.zeros(n_seg)
    np.add.at(den, seg, e)
    p = e / den[seg]
    return np.sum(p * np.arange(1.0, len(scores) + 1))


def secant_shooting_bvp(k, target=1.0, n=20, iters=3):
    def shoot(slope):
        y, v, h = 0.0, slope, 1.0 / n
        for _ in range(n):
            v = v - h * k * np.sin(y)
            y = y + h * v
        return y - target
    s0, s1 = 0.5, 1.5
    f0, f1 = shoot(s0), shoot(s1)
    for _ in range(iters):
        s0, s1 = s1, s1 - f1 * (s1 - s0) / (f1 - f0)
        f0, f1 = f1, shoot(s1)
    return s1


def loglogistic_aft(params, X, t, event):
    w, log_s = params
    s = np.exp(log_s)
    z = (np.log(t) - X @ w) / s
    log_f = z - np.log(s) - np.log(t) - 2 * np.log1p(np.exp(z))
    log_S = -np.log1p(np.exp(z))
    return -np.sum(np.where(event, log_f, log_S))


def expectile_regression(w, X, y, tau=0.8):
    r = y - X @ w
    weight = np.where(r >= 0, tau, 1 - tau)
    return np.mean(weight * r ** 2)


def rod_bending_cross(x):
    e = np.diff(x, axis=0)
    c = np.cross(e[:-1], e[1:])
    d = np.sum(e[:-1] * e[1:], axis=1)
    kappa = 2 * np.linalg.norm(c, axis=1) / (np.linalg.norm(e[:-1], axis=1) * np.linalg.norm(e[1:], axis=1) + d)
    return np.sum(kappa ** 2) + np.sum((np.linalg.norm(e, axis=1) - 1.0) ** 2)


def soft_rank_pairwise(x, temp=0.3):
    diff = x[:, None] - x[None, :]
    rank = 0.5 + np.sum(scipy.special.expit(diff / temp), axis=1)
    return np.sum((rank - np.arange(1.0, len(x) + 1)) ** 2)


def cir_bond_price(params, T=2.0, r0=0.03):
    kappa, theta, sigma = params
    g = math.sqrt(kappa ** 2 + 2 * sigma ** 2)
    denom = (kappa + g) * math.sinh(g * T / 2) + g * math.cosh(g * T / 2)
    B = 2 * math.sinh(g * T / 2) / denom
    A = (g * math.exp(kappa * T / 2) / denom) ** (2 * kappa * theta / sigma ** 2)
    return A * math.exp(-B * r0)


def M(rng, *shape):
    return rng.normal(size=shape)


MORE11 = [
    ("w11_kv_cache_decoding", kv_cache_decoding,
     lambda r: (0.5 * M(r, 3, 2), M(r, 4, 3), 0.5 * M(r, 3, 2), 0.5 * M(r, 3, 2)), 0),
    ("w11_kv_cache_decoding_input", kv_cache_decoding,
     lambda r: (0.5 * M(r, 3, 2), M(r, 4, 3), 0.5 * M(r, 3, 2), 0.5 * M(r, 3, 2)), 1),
    ("w11_sliding_window_attention", sliding_window_attention, lambda r: (0.5 * M(r, 3, 3), M(r, 5, 3)), 0),
    ("w11_rts_smoother", rts_smoother, lambda r: (-1.0, M(r, 5)), 0),
    ("w11_rts_smoother_data", rts_smoother, lambda r: (-1.0, M(r, 5)), 1),
    ("w11_systematic_resampling", systematic_resampling, lambda r: (M(r, 5), 0.5 * M(r, 5)), 0),
    ("w11_systematic_resampling_weights", systematic_resampling, lambda r: (M(r, 5), 0.5 * M(r, 5)), 1),
    ("w11_segment_softmax", segment_softmax, lambda r: (M(r, 6), np.array([0, 1, 0, 2, 1, 2])), 0),
    ("w11_secant_shooting_bvp", secant_shooting_bvp, lambda r: (2.0,), 0),
    ("w11_loglogistic_aft", loglogistic_aft,
     lambda r: ((0.3 * M(r, 2), -0.2), M(r, 6, 2), np.exp(0.5 * M(r, 6)),
                np.array([True, False, True, True, False, True])), 0),
    ("w11_expectile_regression", expectile_regression, lambda r: (M(r, 3), M(r, 8, 3), M(r, 8)), 0),
    ("w11_rod_bending_cross", rod_bending_cross,
     lambda r: (np.cumsum(np.ones((5, 3)) * 0.6, axis=0) + 0.2 * M(r, 5, 3),), 0),
    ("w11_soft_rank_pairwise", soft_rank_pairwise, lambda r: (M(r, 5),), 0),
    ("w11_cir_bond_price", cir_bond_price, lambda r: ((0.8, 0.05, 0.2),), 0),
]
