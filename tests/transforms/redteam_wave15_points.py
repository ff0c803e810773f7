"""The red team's fifteenth wave, continued: programs at special points where the function is still
smooth (np.vander and np.polyval at a zero abscissa, a power of an exponent array at a zero base, a
Huber loss with a residual exactly at delta, ELU and a C1 squared hinge at 0, a log-sum-exp over a
mask of -np.inf, a softplus of a large logit through an untaken overflow, the sigmoid written as
1 / (1 + exp(-x)) far in its tail, the determinant of a singular matrix, np.prod of a vector with a
zero, a distance's square root of a sum at a coincident pair, a float exponent 3.0 of negatives, an
untaken log of a negative, GELU and smooth-abs at 0, np.clip of data touching a bound with a
differentiated scale, np.clip with equal bounds (a frozen coordinate) at the bound, a masked
division by zero, the L2 penalty at a zero initialisation, a max of equal logits in a stable
softmax) and float32 arguments through attention, a GRU step, a Black-Scholes price and a spring
chain.  See redteam_wave15.py.
"""

from __future__ import annotations

import numpy as np
import scipy.special


def M(rng, *shape):
    return rng.normal(size=shape)


def vander_fit(c, x, y):
    V = np.vander(x, len(c), increasing=True)
    return np.sum((V @ c - y) ** 2)


def vander_abscissa(x, c):
    V = np.vander(x, len(c), increasing=True)
    return np.sum(V @ c)


def polyval_at_zero(x, coeffs):
    return np.sum(np.polyval(coeffs, x) ** 2)


def power_exponent_array(x):
    k = np.arange(4)
    return np.sum(x[:, None] ** k[None, :] / (1.0 + k))


def huber_at_delta(beta, X, y, delta=1.0):
    r = y - X @ beta
    return np.sum(np.where(np.abs(r) <= delta, 0.5 * r ** 2, delta * (np.abs(r) - 0.5 * delta)))


def elu_at_zero(x, alpha=1.0):
    return np.sum(np.where(x > 0, x, alpha * np.expm1(x)) * np.arange(1.0, len(x) + 1))


def squared_hinge_at_margin(w, X, y):
    m = 1.0 - y * (X @ w)
    return np.sum(np.maximum(m, 0.0) ** 2)


def masked_logsumexp(z, mask):
    zm = np.where(mask, z, -np.inf)
    m = np.max(zm)
    return m + np.log(np.sum(np.exp(zm - m)))


def masked_softmax_ce(z, mask, target):
    zm = np.where(mask, z, -np.inf)
    logp = zm - scipy.special.logsumexp(zm)
    return -np.sum(np.where(mask, target * logp, 0.0))


def softplus_overflow_guard(x):
    return np.sum(np.where(x > 30.0, x, np.log1p(np.exp(x))))


def naive_sigmoid_tail(x):
    return np.sum(1.0 / (1.0 + np.exp(-x)))


def det_singular(A):
    return np.linalg.det(A)


def det_singular_loss(A, B):
    return np.linalg.det(A @ B) + np.sum(A ** 2)


def prod_with_zero(x):
    return np.prod(x)


def prod_geometric(x, w):
    return np.prod(1.0 + x) * np.sum(w * x)


def pair_distance_square(X):
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    return np.sum(np.exp(-d2))


def cube_float_exponent(x):
    return np.sum(x ** 3.0 - 2.0 * x ** 2.0)


def untaken_log_negative(x):
    return np.sum(np.where(x > 0, x * np.log(x), -x ** 2))


def gelu_at_zero(x):
    return np.sum(x * 0.5 * (1.0 + scipy.special.erf(x / np.sqrt(2.0))))


def smooth_abs_zero(x, eps=1e-2):
    return np.sum(np.sqrt(x * x + eps * eps) - eps)


def clip_scaled_data(s, data):
    return np.sum(np.clip(s * data, -1.0, 1.0) ** 2)


def masked_ratio(x, counts):
    safe = np.where(counts > 0, counts, 1.0)
    return np.sum(np.where(counts > 0, x ** 2 / safe, 0.0))


def l2_at_zero_init(w, X, y, lam=0.1):
    return np.mean((X @ w - y) ** 2) + lam * np.linalg.norm(w) ** 2


def stable_softmax_tie(z, y):
    z = z - z.max()
    p = np.exp(z) / np.exp(z).sum()
    return -np.log(p[y])


def sqrt_sum_plus_eps(X):
    d = np.sqrt(np.sum(X ** 2, axis=1) + 1e-12)
    return np.sum(d ** 2)


def log_abs_det_zero_offdiag(L):
    return np.sum(np.log(np.abs(np.diag(L)))) + np.sum(np.tril(L, -1) ** 2)


def xlogx_zero_entries(p):
    return np.sum(scipy.special.xlogy(p ** 2, p ** 2))


def relu_difference(x):
    return np.sum(np.maximum(x, 0.0) - np.maximum(-x, 0.0))


def min_max_sum(x, y):
    return np.sum(np.minimum(x, y) + np.maximum(x, y))


def frozen_bounds(w_raw, X, y, lower, upper):
    w = np.clip(w_raw, lower, upper)
    return np.mean((X @ w - y) ** 2)


def cumsum_power_zero(x):
    c = np.cumsum(x)
    return np.sum(c ** 0 + c ** 1 + c ** 2)


# ---- float32 -------------------------------------------------------------------------------------------


def f32_attention(Wq, X):
    q = X @ Wq
    s = q @ X.T / np.sqrt(np.float32(X.shape[1]))
    s = s - s.max(axis=1, keepdims=True)
    a = np.exp(s)
    a = a / a.sum(axis=1, keepdims=True)
    return np.sum((a @ X) ** 2)


def f32_gru_step(W, h, x):
    n = h.shape[0]
    hx = np.concatenate([h, x])
    z = 1 / (1 + np.exp(-(W[:n] @ hx)))
    r = 1 / (1 + np.exp(-(W[n:2 * n] @ hx)))
    cand = np.tanh(W[2 * n:] @ np.concatenate([r * h, x]))
    h_new = (1 - z) * h + z * cand
    return np.sum(h_new ** 2)


def f32_black_scholes(S, K, sigma, T=1.0):
    d1 = (np.log(S / K) + 0.5 * sigma ** 2 * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return np.sum(S * scipy.special.ndtr(d1) - K * scipy.special.ndtr(d2))


def f32_spring_chain(x, k=2.0, rest=1.0):
    d = np.diff(x)
    return np.float32(0.5) * k * np.sum((d - rest) ** 2)


def f32_layer_norm(X, gamma):
    mu = X.mean(axis=1, keepdims=True)
    var = X.var(axis=1, keepdims=True)
    return np.sum(gamma * (X - mu) / np.sqrt(var + np.float32(1e-5)))


def _singular(r):
    a, b = M(r, 3), M(r, 3)
    return np.stack([a, b, a + 2 * b])


def f32(a):
    return np.asarray(a, dtype=np.float32)


POINTS15 = [
    ("w15_vander_fit", vander_fit, lambda r: (M(r, 4), np.array([0.0, 0.5, -1.0, 2.0, 0.0]), M(r, 5)), 0),
    ("w15_vander_abscissa_zero", vander_abscissa, lambda r: (np.array([0.0, 0.5, -1.0]), M(r, 4)), 0),
    ("w15_polyval_at_zero", polyval_at_zero, lambda r: (np.array([0.0, 1.0, -0.5]), M(r, 4)), 0),
    ("w15_power_exponent_array_zero", power_exponent_array, lambda r: (np.array([0.0, 1.5, -0.7]),), 0),
    ("w15_huber_at_delta", huber_at_delta, lambda r: (np.zeros(2), np.eye(2), np.array([1.0, -0.3])), 0),
    ("w15_elu_at_zero", elu_at_zero, lambda r: (np.array([0.0, 0.7, -0.4]),), 0),
    ("w15_squared_hinge_at_margin", squared_hinge_at_margin,
     lambda r: (np.array([1.0, 0.0]), np.array([[1.0, 0.3], [0.5, 2.0], [-1.0, 1.0]]), np.array([1.0, -1.0, 1.0])), 0),
    ("w15_masked_logsumexp", masked_logsumexp, lambda r: (M(r, 5), np.array([True, False, True, True, False])), 0),
    ("w15_masked_softmax_ce", masked_softmax_ce, lambda r: (M(r, 4), np.array([True, True, False, True]),
                                                            np.array([0.2, 0.5, 0.0, 0.3])), 0),
    ("w15_softplus_overflow_guard", softplus_overflow_guard, lambda r: (np.array([800.0, 0.3, -2.0, 40.0]),), 0),
    ("w15_naive_sigmoid_tail", naive_sigmoid_tail, lambda r: (np.array([-800.0, 0.5, 3.0]),), 0),
    ("w15_det_singular", det_singular, lambda r: (_singular(r),), 0),
    ("w15_det_singular_loss", det_singular_loss, lambda r: (_singular(r), M(r, 3, 3)), 0),
    ("w15_prod_with_zero", prod_with_zero, lambda r: (np.array([0.0, 1.5, -2.0, 0.7]),), 0),
    ("w15_prod_two_zeros", prod_with_zero, lambda r: (np.array([0.0, 1.5, 0.0, 0.7]),), 0),
    ("w15_prod_geometric_zero", prod_geometric, lambda r: (np.array([-1.0, 0.5, 0.2]), M(r, 3)), 0),
    ("w15_pair_distance_square", pair_distance_square, lambda r: (np.array([[0.0, 1.0], [0.0, 1.0], [0.5, -0.3]]),), 0),
    ("w15_cube_float_exponent", cube_float_exponent, lambda r: (np.array([-1.5, 0.0, 2.0]),), 0),
    ("w15_untaken_log_negative", untaken_log_negative, lambda r: (np.array([-1.0, -0.5, 2.0]),), 0),
    ("w15_gelu_at_zero", gelu_at_zero, lambda r: (np.array([0.0, 1.0, -2.0]),), 0),
    ("w15_smooth_abs_zero", smooth_abs_zero, lambda r: (np.array([0.0, 0.3, -0.01]),), 0),
    ("w15_clip_scaled_data", clip_scaled_data, lambda r: (0.5, np.array([2.0, 0.4, -1.0, 0.0])), 0),
    ("w15_masked_ratio", masked_ratio, lambda r: (M(r, 4), np.array([2.0, 0.0, 1.0, 0.0])), 0),
    ("w15_l2_at_zero_init", l2_at_zero_init, lambda r: (np.zeros(3), M(r, 5, 3), M(r, 5)), 0),
    ("w15_stable_softmax_tie", stable_softmax_tie, lambda r: (np.array([1.0, 1.0, 0.2]), 1), 0),
    ("w15_sqrt_sum_plus_eps_zero_row", sqrt_sum_plus_eps, lambda r: (np.array([[0.0, 0.0], [1.0, 2.0]]),), 0),
    ("w15_log_abs_det_zero_offdiag", log_abs_det_zero_offdiag, lambda r: (np.diag([1.5, -0.5, 2.0]),), 0),
    ("w15_xlogx_zero_entries", xlogx_zero_entries, lambda r: (np.array([0.0, 0.5, 0.3]),), 0),
    ("w15_relu_difference_zero", relu_difference, lambda r: (np.array([0.0, 1.0, -1.0]),), 0),
    ("w15_min_max_sum_tie", min_max_sum, lambda r: (np.array([0.5, 1.0]), np.array([0.5, -1.0])), 0),
    ("w15_frozen_bounds", frozen_bounds, lambda r: (np.array([0.5, 1.0, -0.3]), M(r, 5, 3), M(r, 5),
                                                    np.array([-1.0, 1.0, -1.0]), np.array([1.0, 1.0, 1.0])), 0),
    ("w15_cumsum_power_zero", cumsum_power_zero, lambda r: (np.array([1.0, -1.0, 0.5]),), 0),
    ("w15_f32_attention", f32_attention, lambda r: (f32(0.5 * M(r, 4, 4)), f32(M(r, 3, 4))), 0),
    ("w15_f32_gru_step", f32_gru_step, lambda r: (f32(0.4 * M(r, 9, 5)), f32(M(r, 3)), f32(M(r, 2))), 0),
    ("w15_f32_black_scholes", f32_black_scholes, lambda r: (f32([100.0, 90.0]), f32([95.0, 95.0]),
                                                            f32([0.2, 0.3])), 2),
    ("w15_f32_spring_chain", f32_spring_chain, lambda r: (f32(np.cumsum(1.0 + 0.2 * M(r, 5))),), 0),
    ("w15_f32_layer_norm", f32_layer_norm, lambda r: (f32(M(r, 3, 4)), f32(1.0 + 0.1 * M(r, 4))), 0),
]
