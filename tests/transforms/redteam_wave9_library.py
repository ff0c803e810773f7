"""The red team's ninth wave, continued: statistics (a Student-t regression through
scipy.stats.t, a logistic GLM by a few Newton/IRLS steps with np.linalg.solve, a multivariate
Kalman filter with slogdet, an HMM forward pass with np.logaddexp.reduce, a GP marginal likelihood
through scipy.linalg.cho_factor/cho_solve, a Tweedie deviance, an AR(2) fit over
sliding_window_view, a negative binomial through scipy.stats.nbinom), library-style code (a
decorator of the user's own with functools.wraps, itertools.pairwise and accumulate, try/except
around a Cholesky, assertions with f-strings, a match statement on an activation name, the
walrus operator, ``**cfg`` splatted into a helper, Optional mask defaults, *args penalties, a
return inside a loop, lambdas in a dict, chained comparisons, math.fsum/prod/hypot, bisection
with a tolerance) and special points (||x||**2 at the origin, np.sinc at 0, x*|x| at 0, float
powers of negative bases, a branch at its boundary, float32 Black-Scholes).  See redteam_wave9.py.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Optional

import numpy as np
import scipy.linalg
import scipy.special
import scipy.stats

# ---- statistics ---------------------------------------------------------------------------------


def student_t_scipy_regression(beta, X, y, df=4.0):
    resid = y - X @ beta[:-1]
    return -np.sum(scipy.stats.t.logpdf(resid, df, loc=0.0, scale=np.exp(beta[-1])))


def logistic_irls_steps(w0, X, y, steps=3, l2=1.0):
    w = w0
    for _ in range(steps):
        p = scipy.special.expit(X @ w)
        H = X.T @ (X * (p * (1 - p))[:, None]) + l2 * np.eye(len(w))
        g = X.T @ (p - y) + l2 * w
        w = w - np.linalg.solve(H, g)
    return np.sum(w ** 2)


def kalman_multivariate_slogdet(log_q, ys, r=0.5):
    F = np.array([[1.0, 1.0], [0.0, 1.0]])
    Hm = np.array([[1.0, 0.0]])
    Q = np.diag(np.exp(log_q))
    x, P = np.zeros(2), np.eye(2)
    ll = 0.0
    for y in ys:
        x, P = F @ x, F @ P @ F.T + Q
        S = Hm @ P @ Hm.T + r
        K = P @ Hm.T @ np.linalg.inv(S)
        v = y - Hm @ x
        sign, logdet = np.linalg.slogdet(S)
        ll = ll - 0.5 * (logdet + v @ np.linalg.solve(S, v))
        x = x + K @ v
        P = (np.eye(2) - K @ Hm) @ P
    return -ll


def hmm_logaddexp_reduce(log_emit, log_A, log_pi):
    alpha = log_pi + log_emit[0]
    for t in range(1, log_emit.shape[0]):
        alpha = np.logaddexp.reduce(alpha[:, None] + log_A, axis=0) + log_emit[t]
    return -np.logaddexp.reduce(alpha)


def gp_cho_solve(log_params, X, y):
    ell, sf, sn = np.exp(log_params)
    d2 = (X[:, None] - X[None, :]) ** 2
    K = sf ** 2 * np.exp(-0.5 * d2 / ell ** 2) + sn ** 2 * np.eye(len(X))
    c, low = scipy.linalg.cho_factor(K, lower=True)
    alpha = scipy.linalg.cho_solve((c, low), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(c)))


def tweedie_deviance(beta, X, y, p=1.5):
    mu = np.exp(X @ beta)
    dev = 2 * (np.power(y, 2 - p) / ((1 - p) * (2 - p)) - y * mu ** (1 - p) / (1 - p) + mu ** (2 - p) / (2 - p))
    return np.sum(dev)


def ar2_sliding_window(phi, series):
    windows = np.lib.stride_tricks.sliding_window_view(series, 3)
    pred = windows[:, 1] * phi[0] + windows[:, 0] * phi[1]
    return np.mean((windows[:, 2] - pred) ** 2)


def nbinom_scipy_logpmf(params, counts):
    log_mu, log_r = params
    mu, r = np.exp(log_mu), np.exp(log_r)
    return -np.sum(scipy.stats.nbinom.logpmf(counts, r, r / (r + mu)))


# ---- library-style code ---------------------------------------------------------------------------


def scaled(factor):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return factor * fn(*args, **kwargs)
        return wrapper
    return decorate


@scaled(0.5)
def decorated_wraps_loss(w, X, y):
    return np.sum((X @ w - y) ** 2)


def pairwise_path_energy(pts):
    return sum(np.sum((b - a) ** 2) for a, b in itertools.pairwise(pts))


def accumulate_discounted(rewards_w, gamma=0.9):
    returns = list(itertools.accumulate(rewards_w[::-1], lambda acc, r: r + gamma * acc))
    return np.sum(np.array(returns) ** 2)


def try_cholesky_fallback(A_raw, b):
    A = A_raw @ A_raw.T + 0.5 * np.eye(A_raw.shape[0])
    try:
        L = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        L = np.linalg.cholesky(A + 1e-3 * np.eye(A.shape[0]))
    z = np.linalg.solve(L, b)
    return z @ z + 2 * np.sum(np.log(np.diag(L)))


def asserted_shapes(W, X):
    assert W.ndim == 2, f"W must be a matrix, got shape {W.shape}"
    assert X.shape[1] == W.shape[0], f"{X.shape} does not match {W.shape}"
    return np.sum(np.sin(X @ W))


def activate(z, name: str):
    match name:
        case "relu":
            return np.maximum(z, 0.0)
        case "tanh":
            return np.tanh(z)
        case "softplus":
            return np.logaddexp(0.0, z)
        case _:
            raise ValueError(f"unknown activation {name!r}")


def match_activation(W, X, name="softplus"):
    return np.sum(activate(X @ W, name) ** 2)


def walrus_penalty(w, X):
    if (n := np.sum(w ** 2)) > 1.0:
        return np.sum(np.tanh(X @ w)) + 0.1 * n
    return np.sum(np.tanh(X @ w))


def _penalised(w, *, l1=0.0, l2=0.0, smooth=1e-3):
    return l1 * np.sum(np.sqrt(w ** 2 + smooth)) + l2 * np.sum(w ** 2)


def splatted_config(w, X, y, cfg={"l1": 0.1, "l2": 0.05}):  # noqa: B006  read, never written
    return np.mean((X @ w - y) ** 2) + _penalised(w, **cfg)


def optional_mask(x, target, mask: Optional[np.ndarray] = None):
    if mask is None:
        mask = np.ones_like(x)
    return np.sum(mask * (x - target) ** 2) / np.sum(mask)


def star_penalties(w, X, y):
    def total(*terms):
        return sum(terms)
    return total(np.mean((X @ w - y) ** 2), 0.1 * np.sum(w ** 2), 0.01 * np.sum(w ** 4))


def return_inside_loop(w, thresholds=(0.5, 2.0, 10.0)):
    s = np.sum(w ** 2)
    for i, t in enumerate(thresholds):
        if s < t:
            return (i + 1) * s + np.sum(np.sin(w))
    return s


ACTIVATIONS = {"swish": lambda z: z * scipy.special.expit(z), "sq": lambda z: z ** 2}


def lambda_dict_activation(W, X, act="swish"):
    return np.sum(ACTIVATIONS[act](X @ W))


def chained_comparison_branch(x):
    total = 0.0
    for v in x:
        if -1.0 < v < 1.0:
            total += v ** 3
        else:
            total += 3.0 * v - 2.0 * np.sign(v)
    return total


def math_fsum_prod_hypot(p):
    a, b, c = float(p[0]), float(p[1]), float(p[2])
    return math.fsum([a * a, b * c, math.hypot(a, b, c)]) + math.prod([a, b, c])


def bisection_root(k, tol=1e-12):
    lo, hi = 0.0, 2.0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if mid ** 3 + k * mid - 1.0 > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


# ---- special points -----------------------------------------------------------------------------


def norm_squared_at_origin(x):
    return np.linalg.norm(x) ** 2 + np.sum(x)


def sinc_at_zero(x):
    return np.sum(np.sinc(x))


def x_abs_x_at_zero(x):
    return np.sum(x * np.abs(x)) + np.sum(x)


def float_power_negative_base(x):
    return np.sum(x ** 2.0) + np.sum(np.power(x, 3.0))


def where_branch_at_boundary(x):
    return np.sum(np.where(x >= 0.0, x ** 2, 0.0) + x)


def sqrt_sum_squares_cubed(x):
    return np.sqrt(np.sum(x ** 2)) ** 3


K32, SIGMA32, T32 = np.float32(1.0), np.float32(0.2), np.float32(0.5)


def float32_black_scholes(S, K=K32, sigma=SIGMA32, T=T32):
    d1 = (np.log(S / K) + 0.5 * sigma ** 2 * T) / (sigma * np.sqrt(T))
    return np.sum(S * scipy.special.ndtr(d1) - K * scipy.special.ndtr(d1 - sigma * np.sqrt(T)))


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


def _log_probs(rng, *shape):
    x = rng.uniform(0.1, 1.0, size=shape)
    return np.log(x / x.sum(axis=-1, keepdims=True))


STATISTICS9 = [
    ("w9_student_t_scipy_regression", student_t_scipy_regression,
     lambda r: (np.array([0.3, -0.2, 0.1]), M(r, 7, 2), M(r, 7)), 0),
    ("w9_logistic_irls_steps", logistic_irls_steps, lambda r: (0.1 * M(r, 3), M(r, 8, 3), (M(r, 8) > 0) * 1.0), 0),
    ("w9_logistic_irls_data", logistic_irls_steps, lambda r: (0.1 * M(r, 3), M(r, 8, 3), (M(r, 8) > 0) * 1.0), 1),
    ("w9_kalman_multivariate_slogdet", kalman_multivariate_slogdet, lambda r: (np.array([-1.0, -2.0]), M(r, 6)), 0),
    ("w9_hmm_logaddexp_reduce", hmm_logaddexp_reduce,
     lambda r: (_log_probs(r, 5, 3), _log_probs(r, 3, 3), _log_probs(r, 3)), 0),
    ("w9_hmm_logaddexp_transitions", hmm_logaddexp_reduce,
     lambda r: (_log_probs(r, 5, 3), _log_probs(r, 3, 3), _log_probs(r, 3)), 1),
    ("w9_gp_cho_solve", gp_cho_solve, lambda r: (np.array([0.1, 0.2, -1.0]), np.linspace(0, 3, 6), M(r, 6)), 0),
    ("w9_tweedie_deviance", tweedie_deviance,
     lambda r: (0.2 * M(r, 2), M(r, 6, 2), np.array([0.0, 1.5, 0.2, 3.0, 0.0, 0.7])), 0),
    ("w9_ar2_sliding_window", ar2_sliding_window, lambda r: (np.array([0.5, -0.2]), M(r, 9)), 0),
    ("w9_nbinom_scipy_logpmf", nbinom_scipy_logpmf, lambda r: (np.array([0.8, 0.3]), np.array([0, 3, 1, 5, 2, 0])), 0),
]

LIBRARY_STYLE9 = [
    ("w9_decorated_wraps_loss", decorated_wraps_loss, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("w9_pairwise_path_energy", pairwise_path_energy, lambda r: (M(r, 5, 2),), 0),
    ("w9_accumulate_discounted", accumulate_discounted, lambda r: (M(r, 5),), 0),
    ("w9_try_cholesky_fallback", try_cholesky_fallback, lambda r: (M(r, 3, 3), M(r, 3)), 0),
    ("w9_asserted_shapes", asserted_shapes, lambda r: (M(r, 3, 2), M(r, 4, 3)), 0),
    ("w9_match_activation", match_activation, lambda r: (M(r, 3, 2), M(r, 4, 3)), 0),
    ("w9_match_activation_tanh", match_activation, lambda r: (M(r, 3, 2), M(r, 4, 3), "tanh"), 0),
    ("w9_walrus_penalty", walrus_penalty, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("w9_splatted_config", splatted_config, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("w9_optional_mask", optional_mask, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w9_optional_mask_given", optional_mask, lambda r: (M(r, 4), M(r, 4), np.array([1.0, 0, 1, 1])), 0),
    ("w9_star_penalties", star_penalties, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("w9_return_inside_loop", return_inside_loop, lambda r: (np.array([0.6, -0.9]),), 0),
    ("w9_lambda_dict_activation", lambda_dict_activation, lambda r: (M(r, 3, 2), M(r, 4, 3)), 0),
    ("w9_chained_comparison_branch", chained_comparison_branch, lambda r: (np.array([0.3, -2.0, 1.7, -0.4]),), 0),
    ("w9_math_fsum_prod_hypot", math_fsum_prod_hypot, lambda r: (np.array([0.7, -1.2, 2.0]),), 0),
    ("w9_bisection_root", bisection_root, lambda r: (0.7,), 0),
]

SPECIAL9 = [
    ("w9_norm_squared_at_origin", norm_squared_at_origin, lambda r: (np.zeros(3),), 0),
    ("w9_sinc_at_zero", sinc_at_zero, lambda r: (np.array([0.0, 0.5, -1.3]),), 0),
    ("w9_x_abs_x_at_zero", x_abs_x_at_zero, lambda r: (np.array([0.0, 0.5, -1.3]),), 0),
    ("w9_float_power_negative_base", float_power_negative_base, lambda r: (np.array([-1.5, 0.0, 2.0]),), 0),
    ("w9_where_branch_at_boundary", where_branch_at_boundary, lambda r: (np.array([0.0, 0.5, -1.3]),), 0),
    ("w9_sqrt_sum_squares_cubed", sqrt_sum_squares_cubed, lambda r: (np.zeros(2),), 0),
    ("w9_float32_black_scholes", float32_black_scholes, lambda r: (np.array([0.9, 1.0, 1.2], dtype=np.float32),), 0),
]

LIBRARY9 = STATISTICS9 + LIBRARY_STYLE9 + SPECIAL9
