"""The red team's twenty-sixth wave: finance, signal processing and geometry written as users
write them (test_redteam_wave26.py runs them through every transformation).

Each entry of `PROGRAMS` is ``(name, function, make(rng), wrt)``, at a point where the function
is smooth (no ties, no kinks within the differences' reach).
"""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave26_draws import F, M, P

RATE = 0.03
TAPS = np.array([0.25, 0.5, 0.25])


# ---- finance ----


def norm_cdf(z):
    return 0.5 * (1.0 + np.tanh(0.7978845608 * (z + 0.044715 * z**3)))


def black_scholes_call(sigma, S, K, T):
    d1 = (np.log(S / K) + (RATE + 0.5 * sigma**2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return np.sum(S * norm_cdf(d1) - K * np.exp(-RATE * T) * norm_cdf(d2))


def bs_math_scalar(sigma, S=100.0, K=95.0, T=0.5):
    d1 = (math.log(S / K) + (RATE + sigma * sigma / 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    cdf = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    return S * cdf(d1) - K * math.exp(-RATE * T) * cdf(d2)


def portfolio_variance(w, cov):
    w = w / np.sum(w)
    return w @ cov @ w


def portfolio_sharpe(w, mu, cov):
    ret = np.dot(w, mu)
    vol = np.sqrt(np.einsum("i,ij,j->", w, cov, w))
    return ret / vol


def softplus_barrier(w, mu, cov, budget=1.0):
    risk = 0.5 * w @ cov @ w - mu @ w
    barrier = np.sum(np.log1p(np.exp(-10.0 * w))) / 10.0
    return risk + barrier + (np.sum(w) - budget) ** 2


def log_returns_volatility(prices):
    r = np.diff(np.log(prices))
    return np.std(r) * np.sqrt(252)


def ewma_volatility(returns, lam=0.94):
    var = returns[0] ** 2
    for r in returns[1:]:
        var = lam * var + (1 - lam) * r * r
    return np.sqrt(var)


def discounted_cashflows(rate, flows):
    t = np.arange(1, len(flows) + 1)
    return np.sum(flows / (1.0 + rate) ** t)


def bond_duration(y, coupons):
    times = np.arange(1.0, coupons.size + 1.0)
    df = np.exp(-y * times)
    price = coupons @ df
    return (times * coupons) @ df / price


def binomial_tree_put(sigma, S=1.0, K=1.05, T=1.0, steps=8):
    dt = T / steps
    u = np.exp(sigma * np.sqrt(dt))
    d = 1 / u
    p = (np.exp(RATE * dt) - d) / (u - d)
    j = np.arange(steps + 1)
    prices = S * u ** (steps - j) * d**j
    values = np.log1p(np.exp(20 * (K - prices))) / 20  # a smoothed payoff
    for _ in range(steps):
        values = np.exp(-RATE * dt) * (p * values[:-1] + (1 - p) * values[1:])
    return values[0]


def mean_variance_utility(w, R, gamma=3.0):
    port = R @ w
    return np.mean(port) - gamma / 2 * np.var(port)


def max_drawdown_smooth(w, R):
    wealth = np.cumsum(R @ w)
    peak = np.maximum.accumulate(wealth)
    return np.sum((peak - wealth) ** 2)


def log_utility_float32(w, R):
    return np.mean(np.log1p(R @ w * np.float32(0.1)))


def kelly_fraction(f, p, b):
    return -(p * np.log(1 + f * b) + (1 - p) * np.log(1 - f))


def annuity_math(r, n=12, pmt=1.0):
    return pmt * (1 - math.pow(1 + r, -n)) / r


def sabr_like_smile(params, strikes):
    alpha, rho, nu = params
    z = nu / alpha * np.log(1.0 / strikes)
    x = np.log((np.sqrt(1 - 2 * rho * z + z * z) + z - rho) / (1 - rho))
    return np.sum((alpha * z / x) ** 2)


# ---- signal processing ----


def fir_filter(h, x):
    y = np.convolve(x, h, mode="valid")
    return np.sum(y**2)


def fir_same(x, h):
    return np.sum(np.convolve(x, h, mode="same") * np.linspace(-1, 1, x.size))


def fir_global_taps(x):
    return np.sum(np.convolve(x, TAPS) ** 2)


def sliding_mean(x, k=3):
    out = []
    for i in range(len(x) - k + 1):
        out.append(np.mean(x[i : i + k]))
    return np.sum(np.array(out) ** 2)


def sliding_window_view_energy(x):
    w = np.lib.stride_tricks.sliding_window_view(x, 3)
    return np.sum(w.mean(axis=1) ** 2)


def second_difference_smooth(x):
    d2 = np.diff(x, n=2)
    return np.sum(d2**2) + 0.1 * np.sum(np.diff(x) ** 2)


def diff_chain(x):
    return np.sum(np.diff(np.diff(x)) ** 2) + np.sum(np.abs(np.diff(x)) ** 3)


def cumsum_detrend(x):
    c = np.cumsum(x - x.mean())
    return np.max(c) - np.min(c) + np.sum(c**2) / len(x)


def iir_first_order(a, x):
    y = np.zeros_like(x)
    y[0] = x[0]
    for n in range(1, len(x)):
        y[n] = a * y[n - 1] + (1 - a) * x[n]
    return np.sum(y**2)


def autocorrelation_lag(x, lag=2):
    xc = x - x.mean()
    return np.sum(xc[:-lag] * xc[lag:]) / np.sum(xc**2)


def dft_power(x):
    n = len(x)
    k = np.arange(n)
    W = np.exp(-2j * np.pi * np.outer(k, k) / n)
    X = W @ x
    return np.sum(np.abs(X[1:3]) ** 2)


def dft_real_cos_sin(x):
    n = x.shape[0]
    t = np.arange(n)
    re = np.cos(2 * np.pi * t / n) @ x
    im = np.sin(2 * np.pi * t / n) @ x
    return np.hypot(re, im)


def hann_window_energy(x):
    w = np.hanning(len(x))
    return np.sum((w * x) ** 2)


def moving_average_cumsum(x, k=3):
    c = np.cumsum(np.concatenate([[0.0], x]))
    ma = (c[k:] - c[:-k]) / k
    return np.sum(ma**2)


def correlate_template(x, t):
    return np.max(np.correlate(x, t, mode="valid")) + np.sum(np.correlate(x, t, mode="valid") ** 2)


def zero_crossing_soft(x):
    return np.sum(np.tanh(5 * x[:-1]) * np.tanh(5 * x[1:]))


def upsample_repeat(x):
    y = np.repeat(x, 2)
    return np.sum(np.diff(y) ** 2) + np.sum(y * np.arange(y.size))


def filter_bank(x, H):
    total = 0.0
    for h in H:
        total = total + np.sum(np.convolve(x, h, "valid") ** 2)
    return total


def fir_float32(h, x):
    return np.sum(np.convolve(x, h, mode="valid") ** 2)


# ---- geometry ----


def pairwise_distance_energy(X):
    D = X[:, np.newaxis, :] - X[np.newaxis, :, :]
    r2 = np.sum(D**2, axis=-1) + np.eye(len(X))
    return np.sum(np.triu(1.0 / np.sqrt(r2), 1))


def pairwise_loops(X):
    e = 0.0
    n = X.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            e += 1.0 / np.linalg.norm(X[i] - X[j])
    return e


def polygon_area(P):
    x, y = P[:, 0], P[:, 1]
    return 0.5 * (np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))


def angles_arctan2(P):
    d = np.diff(P, axis=0)
    theta = np.arctan2(d[:, 1], d[:, 0])
    return np.sum(np.sin(theta) * np.cos(2 * theta))


def turning_angles(P):
    d = P[1:] - P[:-1]
    a = np.arctan2(d[:, 1], d[:, 0])
    return np.sum(np.diff(a) ** 2)


def normalise_rows(V):
    U = V / np.linalg.norm(V, axis=1, keepdims=True)
    return np.sum(U[:, 0] * U[:, 1])


def normal_of_triangle(T):
    n = np.cross(T[1] - T[0], T[2] - T[0])
    return np.linalg.norm(n) / 2


def mesh_area(V, faces):
    a = V[faces[:, 1]] - V[faces[:, 0]]
    b = V[faces[:, 2]] - V[faces[:, 0]]
    return 0.5 * np.sum(np.linalg.norm(np.cross(a, b), axis=1))


def rotation_2d(theta, pts):
    c, s = np.cos(theta), np.sin(theta)
    R = np.array([[c, -s], [s, c]])
    return np.sum((pts @ R.T - pts[::-1]) ** 2)


def quaternion_rotate(q, v):
    q = q / np.linalg.norm(q)
    w, x, y, z = q
    R = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
    return np.sum(R @ v * np.array([1.0, 2.0, 3.0]))


def point_to_segment(p, a, b):
    ab = b - a
    t = np.clip(np.dot(p - a, ab) / np.dot(ab, ab), 0.0, 1.0)
    return np.linalg.norm(p - (a + t * ab))


def curve_length(P):
    return np.sum(np.sqrt(np.sum(np.diff(P, axis=0) ** 2, axis=1)))


def dihedral(p):
    b0, b1, b2 = p[0] - p[1], p[2] - p[1], p[3] - p[2]
    n1 = np.cross(b0, b1)
    n2 = np.cross(b1, b2)
    m = np.cross(n1, b1 / np.linalg.norm(b1))
    return np.arctan2(m @ n2, n1 @ n2)


def cosine_similarity_matrix(A):
    N = A / np.sqrt((A * A).sum(-1))[:, None]
    S = N @ N.T
    return np.sum(S[np.triu_indices(len(A), 1)] ** 2)


def centroid_spread(P, w):
    c = np.average(P, axis=0, weights=w)
    return np.sum((P - c) ** 2)


def procrustes_residual(A, B):
    U, _, Vt = np.linalg.svd(A.T @ B)
    R = U @ Vt
    return np.sum((A @ R - B) ** 2)


def barycentric_float32(T, p):
    v0, v1, v2 = T[1] - T[0], T[2] - T[0], p - T[0]
    d00, d01, d11 = v0 @ v0, v0 @ v1, v1 @ v1
    d20, d21 = v2 @ v0, v2 @ v1
    den = d00 * d11 - d01 * d01
    return (d11 * d20 - d01 * d21) / den


def spherical_coords(v):
    r = np.linalg.norm(v)
    theta = np.arccos(v[2] / r)
    phi = np.arctan2(v[1], v[0])
    return r * theta + phi


def _faces():
    return np.array([[0, 1, 2], [0, 2, 3], [1, 3, 2]])


def _spd(r, n):
    A = r.standard_normal((n, n))
    return A @ A.T / n + np.eye(n)


PROGRAMS = [
    ("bs_call", black_scholes_call, lambda r: (0.2, P(r, 4) * 100, P(r, 4) * 100, 0.5), 0),
    ("bs_call_spot", black_scholes_call, lambda r: (0.25, P(r, 4) * 100, np.full(4, 100.0), 0.75), 1),
    ("bs_math_scalar", bs_math_scalar, lambda r: (0.3,), 0),
    ("portfolio_variance", portfolio_variance, lambda r: (P(r, 4), _spd(r, 4)), 0),
    ("portfolio_sharpe", portfolio_sharpe, lambda r: (P(r, 4), P(r, 4) * 0.1, _spd(r, 4)), 0),
    ("softplus_barrier", softplus_barrier, lambda r: (M(r, 4) * 0.3, M(r, 4), _spd(r, 4)), 0),
    ("log_returns_volatility", log_returns_volatility, lambda r: (100 + np.cumsum(M(r, 8)),), 0),
    ("ewma_volatility", ewma_volatility, lambda r: (M(r, 6) * 0.01,), 0),
    ("ewma_volatility_lam", ewma_volatility, lambda r: (M(r, 6) * 0.01, 0.9), 1),
    ("discounted_cashflows", discounted_cashflows, lambda r: (0.05, P(r, 5)), 0),
    ("discounted_cashflows_flows", discounted_cashflows, lambda r: (0.05, P(r, 5)), 1),
    ("bond_duration", bond_duration, lambda r: (0.04, P(r, 5)), 0),
    ("binomial_tree_put", binomial_tree_put, lambda r: (0.3,), 0),
    ("mean_variance_utility", mean_variance_utility, lambda r: (P(r, 3), M(r, 10, 3) * 0.05), 0),
    ("max_drawdown_smooth", max_drawdown_smooth, lambda r: (P(r, 3), M(r, 10, 3) * 0.05), 0),
    ("log_utility_float32", log_utility_float32, lambda r: (P(r, 3).astype(np.float32), F(r, 6, 3)), 0),
    ("kelly_fraction", kelly_fraction, lambda r: (0.2, 0.6, 1.5), 0),
    ("annuity_math", annuity_math, lambda r: (0.04,), 0),
    ("sabr_like_smile", sabr_like_smile, lambda r: (np.array([0.3, -0.2, 0.4]), P(r, 4)), 0),
    ("fir_filter", fir_filter, lambda r: (M(r, 3), M(r, 8)), 0),
    ("fir_filter_signal", fir_filter, lambda r: (M(r, 3), M(r, 8)), 1),
    ("fir_same", fir_same, lambda r: (M(r, 7), M(r, 3)), 0),
    ("fir_global_taps", fir_global_taps, lambda r: (M(r, 6),), 0),
    ("sliding_mean", sliding_mean, lambda r: (M(r, 7),), 0),
    ("sliding_window_view_energy", sliding_window_view_energy, lambda r: (M(r, 7),), 0),
    ("second_difference_smooth", second_difference_smooth, lambda r: (M(r, 7),), 0),
    ("diff_chain", diff_chain, lambda r: (M(r, 6),), 0),
    ("cumsum_detrend", cumsum_detrend, lambda r: (M(r, 6),), 0),
    ("iir_first_order", iir_first_order, lambda r: (0.6, M(r, 6)), 0),
    ("iir_first_order_x", iir_first_order, lambda r: (0.6, M(r, 6)), 1),
    ("autocorrelation_lag", autocorrelation_lag, lambda r: (M(r, 8),), 0),
    ("dft_power", dft_power, lambda r: (M(r, 6),), 0),
    ("dft_real_cos_sin", dft_real_cos_sin, lambda r: (M(r, 6),), 0),
    ("hann_window_energy", hann_window_energy, lambda r: (M(r, 6),), 0),
    ("moving_average_cumsum", moving_average_cumsum, lambda r: (M(r, 7),), 0),
    ("correlate_template", correlate_template, lambda r: (M(r, 7), M(r, 3)), 1),
    ("zero_crossing_soft", zero_crossing_soft, lambda r: (M(r, 6),), 0),
    ("upsample_repeat", upsample_repeat, lambda r: (M(r, 4),), 0),
    ("filter_bank", filter_bank, lambda r: (M(r, 7), M(r, 2, 3)), 0),
    ("filter_bank_taps", filter_bank, lambda r: (M(r, 7), M(r, 2, 3)), 1),
    ("fir_float32", fir_float32, lambda r: (F(r, 3), F(r, 8)), 0),
    ("pairwise_distance_energy", pairwise_distance_energy, lambda r: (M(r, 4, 3),), 0),
    ("pairwise_loops", pairwise_loops, lambda r: (M(r, 4, 2),), 0),
    ("polygon_area", polygon_area, lambda r: (M(r, 5, 2),), 0),
    ("angles_arctan2", angles_arctan2, lambda r: (M(r, 5, 2),), 0),
    ("turning_angles", turning_angles, lambda r: (np.cumsum(P(r, 5, 2), axis=0),), 0),
    ("normalise_rows", normalise_rows, lambda r: (M(r, 4, 3),), 0),
    ("normal_of_triangle", normal_of_triangle, lambda r: (M(r, 3, 3),), 0),
    ("mesh_area", mesh_area, lambda r: (M(r, 4, 3), _faces()), 0),
    ("rotation_2d", rotation_2d, lambda r: (0.4, M(r, 5, 2)), 0),
    ("quaternion_rotate", quaternion_rotate, lambda r: (M(r, 4), M(r, 3)), 0),
    ("point_to_segment", point_to_segment, lambda r: (np.array([0.3, 1.0]), np.zeros(2), np.array([1.0, 0.2])), 0),
    ("curve_length", curve_length, lambda r: (M(r, 5, 3),), 0),
    ("dihedral", dihedral, lambda r: (M(r, 4, 3),), 0),
    ("cosine_similarity_matrix", cosine_similarity_matrix, lambda r: (M(r, 4, 3),), 0),
    ("centroid_spread", centroid_spread, lambda r: (M(r, 5, 2), P(r, 5)), 0),
    ("centroid_spread_weights", centroid_spread, lambda r: (M(r, 5, 2), P(r, 5)), 1),
    ("procrustes_residual", procrustes_residual, lambda r: (M(r, 5, 2), M(r, 5, 2)), 0),
    ("barycentric_float32", barycentric_float32, lambda r: (F(r, 3, 2), F(r, 2)), 1),
    ("spherical_coords", spherical_coords, lambda r: (np.array([0.5, 0.7, -0.4]),), 0),
]
