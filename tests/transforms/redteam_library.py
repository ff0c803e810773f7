"""The red team's statistics and library-style programs (see redteam_programs.py)."""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
from scipy.special import betaln, gammaln, logsumexp

# ---- statistics ------------------------------------------------------------------------------


def student_t_loglik(mu, x, log_sigma, nu=4.0):
    sigma = np.exp(log_sigma)
    z = (x - mu) / sigma
    n = x.shape[0]
    const = gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu * np.pi)
    return n * (const - log_sigma) - (nu + 1) / 2 * np.sum(np.log1p(z ** 2 / nu))


def negbin_loglik(log_r, counts, log_mu):
    r = np.exp(log_r)
    mu = np.exp(log_mu)
    ll = gammaln(counts + r) - gammaln(r) - gammaln(counts + 1) + r * np.log(r / (r + mu)) \
        + counts * np.log(mu / (r + mu))
    return np.sum(ll)


def negbin_in_mu(log_mu, counts, log_r):
    return negbin_loglik(log_r, counts, log_mu)


def mixture_logsumexp(locs, x):
    comps = -0.5 * (x[:, None] - locs[None, :]) ** 2
    return np.sum(logsumexp(comps, axis=1))


def kalman_1d(q, observations, r=0.5):
    m, P = 0.0, 1.0
    nll = 0.0
    for y in observations:
        P = P + q
        S = P + r
        K = P / S
        innovation = y - m
        nll = nll + 0.5 * (np.log(2 * np.pi * S) + innovation ** 2 / S)
        m = m + K * innovation
        P = (1.0 - K) * P
    return nll


def poisson_regression(beta, X, counts):
    eta = X @ beta
    return np.sum(np.exp(eta) - counts * eta)


def gaussian_cholesky_loglik(L_raw, X):
    L = np.tril(L_raw) + 3.0 * np.eye(L_raw.shape[0])
    cov = L @ L.T
    sign, logdet = np.linalg.slogdet(cov)
    sol = np.linalg.solve(cov, X.T)
    return -0.5 * (X.shape[0] * logdet + np.sum(X.T * sol))


def beta_logpdf(a, x, b=2.0):
    return np.sum((a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - betaln(a, b))


def ar1_loglik(phi, series, sigma=0.7):
    resid = series[1:] - phi * series[:-1]
    return -0.5 * np.sum(resid ** 2) / sigma ** 2


def two_gaussians(mu, x):
    l1 = -0.5 * (x - mu[0]) ** 2
    l2 = -0.5 * (x - mu[1]) ** 2 + np.log(0.3)
    return -np.sum(np.logaddexp(l1, l2))


def weighted_least_squares(w, X, y):
    W = np.diag(w)
    beta = np.linalg.solve(X.T @ W @ X, X.T @ W @ y)
    return np.sum((X @ beta - y) ** 2)


def evidence(log_alpha, X, y, beta=4.0):
    alpha = np.exp(log_alpha)
    A = alpha * np.eye(X.shape[1]) + beta * X.T @ X
    m = beta * np.linalg.solve(A, X.T @ y)
    _, logdet = np.linalg.slogdet(A)
    return alpha / 2 * (m @ m) + beta / 2 * np.sum((y - X @ m) ** 2) + 0.5 * logdet - X.shape[1] / 2 * log_alpha


def entropy_at_temperature(logits, temperature):
    z = logits / temperature
    p = np.exp(z - logsumexp(z))
    return -np.sum(p * np.log(p))


def cauchy_nll(loc, x, scale=1.5):
    return np.sum(np.log(np.pi * scale * (1.0 + ((x - loc) / scale) ** 2)))


# ---- library-style code ----------------------------------------------------------------------


def _validated_norm(x, p=2):
    """Like scipy's helpers: check the input, then compute."""
    x = np.asarray(x)
    if x.ndim != 1:
        raise ValueError(f"x must be 1-D, got {x.ndim}-D")
    if p <= 0:
        raise ValueError("p must be positive")
    return np.sum(np.abs(x) ** p) ** (1.0 / p)


def validated_distance(u, v):
    return _validated_norm(u - v, p=3)


class Model:
    def __init__(self, scale):
        self.scale = scale

    def __call__(self, w, X):
        return np.sum(np.tanh(X @ w) * self.scale)


MODEL = Model(1.7)


def call_a_model(w, X):
    return MODEL(w, X) + 0.5 * np.sum(w ** 2)


@dataclasses.dataclass
class Config:
    l2: float = 0.1
    power: float = 3.0


def loss_with_config(w, cfg):
    return np.sum(np.abs(w) ** cfg.power) + cfg.l2 * np.sum(w ** 2)


def scaled_cube(x, scale, shift=0.0):
    return np.sum((scale * x - shift) ** 3)


partial_cube = functools.partial(scaled_cube, scale=2.0, shift=0.5)


def newton_sqrt(a, tol=1e-12, max_iter=50):
    y = a
    it = 0
    while True:
        y_new = 0.5 * (y + a / y)
        it += 1
        if abs(y_new - y) < tol or it >= max_iter:
            break
        y = y_new
    return y_new * a


def fixed_point_cos(theta):
    x = 0.5
    for _ in range(100):
        x_new = math.cos(theta * x)
        if abs(x_new - x) < 1e-13:
            break
        x = x_new
    return x_new


def early_return(x):
    if np.all(x > 0):
        return np.sum(np.log(x))
    return np.sum(x ** 2)


def _power(x, n):
    if n == 0:
        return 1.0
    return x * _power(x, n - 1)


def recursive_power(x):
    return _power(x, 4) + _power(x, 1)


@functools.lru_cache(maxsize=None)
def _difference_matrix(n):
    return np.eye(n)[1:] - np.eye(n)[:-1]


def smoothness_penalty(x):
    D = _difference_matrix(x.shape[0])
    return np.sum((D @ x) ** 2)


def horner(coeffs, t):
    acc = 0.0
    for c in reversed(coeffs):
        acc = acc * t + c
    return acc


def trapezoid(y, dx=0.1):
    return dx * (np.sum(y[1:-1]) + 0.5 * (y[0] + y[-1]))


def interpolated(yp, x):
    return np.sum(np.interp(x, np.linspace(0.0, 1.0, yp.shape[0]), yp) ** 2)


def trimmed_mean(x):
    s = np.sort(x)
    return np.mean(s[1:-1] ** 2)


def cumulative(x):
    return np.sum(np.cumsum(x) ** 2) + np.prod(1.0 + 0.1 * x)


def row_norms(X):
    return np.sum(np.linalg.norm(X, axis=1) ** 3)


def scalar_math(x, y):
    total = 0.0
    for k in range(1, 5):
        total += math.exp(-k * x) * math.sqrt(y + k) / math.log(k + 1.5)
    return total


class Regressor:
    def __init__(self, X, y):
        self.X, self.y = X, y

    def loss(self, w):
        r = self.X @ w - self.y
        return r @ r / len(self.y)


def _closure_loss(w, X):
    def act(z):
        return z / (1.0 + np.abs(z))
    return np.sum(act(X @ w) ** 2)


def enumerate_rows(W, x):
    total = 0.0
    for i, row in enumerate(W):
        total = total + (i + 1) * np.tanh(row @ x)
    return total


def comprehension_terms(x):
    return sum([np.sin(x[i]) * x[i + 1] for i in range(len(x) - 1)])


def clipped(x):
    return np.sum(np.clip(x, -1.0, 1.0) ** 2 + 0.1 * x)


def einsum_bilinear(A, u, v):
    return np.einsum("i,ij,j->", u, A, v) ** 2


def _bad_input(x):
    if x.shape[0] < 2:
        raise ValueError(f"need at least 2 values, got {x.shape[0]} ({x!r})")
    return x


def fstring_guard(x):
    x = _bad_input(x)
    return np.sum(x[1:] * x[:-1])


SCALES = np.array([1.0, 2.0, 0.5, 1.5])


def global_weights(x):
    return np.sum(SCALES * x ** 2)


def M(rng, *shape):
    return rng.normal(size=shape)


REGRESSOR = Regressor(np.arange(12.0).reshape(4, 3) / 10.0, np.array([0.3, -0.2, 0.5, 1.0]))

LIBRARY_STATISTICS = [
    ("student_t_loglik", student_t_loglik, lambda r: (0.2, M(r, 7), 0.1), 0),
    ("student_t_scale", student_t_loglik, lambda r: (0.2, M(r, 7), 0.1), 2),
    ("negbin_loglik", negbin_loglik, lambda r: (0.3, np.array([0.0, 3.0, 1.0, 7.0, 2.0]), M(r, 5)), 0),
    ("negbin_in_mu", negbin_in_mu, lambda r: (M(r, 5), np.array([0.0, 3.0, 1.0, 7.0, 2.0]), 0.3), 0),
    ("mixture_logsumexp", mixture_logsumexp, lambda r: (M(r, 3), M(r, 6)), 0),
    ("kalman_1d", kalman_1d, lambda r: (0.3, M(r, 6)), 0),
    ("poisson_regression", poisson_regression, lambda r: (0.3 * M(r, 3), M(r, 6, 3), np.array([0., 1, 2, 0, 4, 1])), 0),
    ("gaussian_cholesky_loglik", gaussian_cholesky_loglik, lambda r: (0.3 * M(r, 3, 3), M(r, 5, 3)), 0),
    ("beta_logpdf", beta_logpdf, lambda r: (1.7, r.uniform(0.1, 0.9, size=5)), 0),
    ("ar1_loglik", ar1_loglik, lambda r: (0.6, M(r, 9)), 0),
    ("two_gaussians", two_gaussians, lambda r: (np.array([-0.5, 1.0]), M(r, 7)), 0),
    ("weighted_least_squares", weighted_least_squares, lambda r: (r.uniform(0.5, 2.0, size=6), M(r, 6, 2),
                                                                  M(r, 6)), 0),
    ("evidence", evidence, lambda r: (0.2, M(r, 6, 2), M(r, 6)), 0),
    ("entropy_at_temperature", entropy_at_temperature, lambda r: (M(r, 5), 1.3), 1),
    ("cauchy_nll", cauchy_nll, lambda r: (0.1, M(r, 6)), 0),
    ("validated_distance", validated_distance, lambda r: (M(r, 4), 3.0 + M(r, 4)), 0),
    ("call_a_model", call_a_model, lambda r: (M(r, 3), M(r, 5, 3)), 0),
    ("loss_with_config", loss_with_config, lambda r: (M(r, 4), Config()), 0),
    ("partial_cube", partial_cube, lambda r: (M(r, 4),), 0),
    ("newton_sqrt", newton_sqrt, lambda r: (2.7,), 0),
    ("fixed_point_cos", fixed_point_cos, lambda r: (0.8,), 0),
    ("early_return", early_return, lambda r: (r.uniform(0.5, 2.0, size=4),), 0),
    ("early_return_other", early_return, lambda r: (M(r, 4) - 3.0,), 0),
    ("recursive_power", recursive_power, lambda r: (1.3,), 0),
    ("smoothness_penalty", smoothness_penalty, lambda r: (M(r, 6),), 0),
    ("horner", horner, lambda r: (M(r, 4), 0.7), 0),
    ("horner_point", horner, lambda r: (M(r, 4), 0.7), 1),
    ("trapezoid", trapezoid, lambda r: (M(r, 7),), 0),
    ("interpolated", interpolated, lambda r: (M(r, 5), np.array([0.1, 0.33, 0.6, 0.9])), 0),
    ("trimmed_mean", trimmed_mean, lambda r: (M(r, 6),), 0),
    ("cumulative", cumulative, lambda r: (M(r, 5),), 0),
    ("row_norms", row_norms, lambda r: (M(r, 3, 4),), 0),
    ("scalar_math", scalar_math, lambda r: (0.4, 1.2), 0),
    ("regressor_method", REGRESSOR.loss, lambda r: (M(r, 3),), 0),
    ("closure_loss", _closure_loss, lambda r: (M(r, 3), M(r, 5, 3)), 0),
    ("enumerate_rows", enumerate_rows, lambda r: (M(r, 4, 3), M(r, 3)), 0),
    ("comprehension_terms", comprehension_terms, lambda r: (M(r, 5),), 0),
    ("clipped", clipped, lambda r: (np.array([-1.7, -0.4, 0.3, 0.8, 1.6]),), 0),
    ("einsum_bilinear", einsum_bilinear, lambda r: (M(r, 3, 3), M(r, 3), M(r, 3)), 0),
    ("fstring_guard", fstring_guard, lambda r: (M(r, 5),), 0),
    ("global_weights", global_weights, lambda r: (M(r, 4),), 0),
]
