"""The red team's eighth wave, continued: statistics (Bayesian logistic regression with a
Student-t prior, Weibull survival with right censoring, a zero-inflated Poisson through
logaddexp, hierarchical shrinkage over a dict, a Gaussian copula log-likelihood, a Huber
M-estimator of scale, a Poisson GLM with a log-exposure offset, leave-one-out kernel density),
library-style code (classes with __call__, inheritance with super(), @property chains, a module
of constants, generators consumed by sum(), nested dict configs, typing.NamedTuple parameters,
functools.lru_cache on pure helpers, list.append then np.array(list), np.stack of a list
comprehension, early continue in loops) and special points (ties, zeros, boundaries, float32,
one element, very large and very small magnitudes).  See redteam_wave8.py."""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
import scipy.special
import scipy.stats

# ---- statistics ---------------------------------------------------------------------------------


def bayes_logistic_t_prior(w, X, y, nu=3.0, s=2.5):
    z = X @ w
    loglik = np.sum(y * z - np.logaddexp(0.0, z))
    logprior = np.sum(-0.5 * (nu + 1) * np.log1p((w / s) ** 2 / nu))
    return -(loglik + logprior)


def weibull_right_censored(params, t, event):
    log_k, log_lam = params[0], params[1]
    k, lam = np.exp(log_k), np.exp(log_lam)
    z = (t / lam) ** k
    log_h = log_k - log_lam + (k - 1) * (np.log(t) - log_lam)
    return -np.sum(event * log_h - z)


def zip_logaddexp(params, counts):
    logit_pi, log_mu = params
    mu = np.exp(log_mu)
    log_pi = -np.logaddexp(0.0, -logit_pi)
    log_1m = -np.logaddexp(0.0, logit_pi)
    zero = np.logaddexp(log_pi, log_1m - mu)
    pos = log_1m + counts * log_mu - mu - scipy.special.gammaln(counts + 1)
    return -np.sum(np.where(counts == 0, zero, pos))


def hierarchical_shrinkage_dict(p, groups):
    mu, log_tau = p["mu"], p["log_tau"]
    tau = np.exp(log_tau)
    total = -0.5 * mu ** 2 / 100.0 - log_tau
    for name, ys in groups.items():
        theta = p["theta"][name]
        total = total - 0.5 * ((theta - mu) / tau) ** 2 - log_tau
        total = total - 0.5 * np.sum((ys - theta) ** 2)
    return -total


def gaussian_copula_loglik(rho_raw, u):
    rho = np.tanh(rho_raw)
    z = scipy.special.ndtri(u)
    a, b = z[:, 0], z[:, 1]
    one = 1.0 - rho ** 2
    return -np.sum(-0.5 * np.log(one) - (rho ** 2 * (a ** 2 + b ** 2) - 2 * rho * a * b) / (2 * one))


def huber_scale_m_estimator(log_s, r, c=1.345):
    s = np.exp(log_s)
    u = r / s
    rho = np.where(np.abs(u) <= c, 0.5 * u ** 2, c * np.abs(u) - 0.5 * c ** 2)
    return np.sum(rho) + len(r) * log_s


def poisson_glm_log_exposure(beta, X, counts, exposure):
    eta = X @ beta + np.log(exposure)
    return np.sum(np.exp(eta) - counts * eta)


def kde_loo_log_bandwidth(log_h, x):
    h = np.exp(log_h)
    d = (x[:, None] - x[None, :]) / h
    K = np.exp(-0.5 * d ** 2) / math.sqrt(2 * math.pi)
    K = K - np.diag(np.diag(K))
    dens = K.sum(axis=1) / ((len(x) - 1) * h)
    return -np.sum(np.log(dens))


def scipy_stats_norm_fit(theta, x):
    return -np.sum(scipy.stats.norm.logpdf(x, loc=theta[0], scale=np.exp(theta[1])))


# ---- library-style code -------------------------------------------------------------------------


class Polynomial:
    def __init__(self, degree):
        self.degree = degree

    def __call__(self, coef, x):
        return sum(coef[k] * x ** k for k in range(self.degree + 1))


_CUBIC = Polynomial(3)


def callable_object_fit(coef, x, y):
    return np.mean((_CUBIC(coef, x) - y) ** 2)


class Loss:
    def __init__(self, weight):
        self.weight = weight

    def penalty(self, w):
        return self.weight * np.sum(w ** 2)


class L1L2Loss(Loss):
    def __init__(self, weight, l1):
        super().__init__(weight)
        self.l1 = l1

    def penalty(self, w):
        return super().penalty(w) + self.l1 * np.sum(np.sqrt(w ** 2 + 1e-6))


_ELASTIC = L1L2Loss(0.1, 0.05)


def inherited_super_penalty(w, X, y):
    return np.mean((X @ w - y) ** 2) + _ELASTIC.penalty(w)


class Geometry:
    def __init__(self, radius):
        self.radius = radius

    @property
    def diameter(self):
        return 2.0 * self.radius

    @property
    def circumference(self):
        return math.pi * self.diameter


def property_chain(r):
    g = Geometry(r)
    return np.sum(g.circumference ** 2) + np.sum(g.diameter)


class Consts:
    GRAVITY = 9.81
    AIR_DENSITY = 1.225
    DRAG = 0.47


def module_constants_drag(v, area):
    force = 0.5 * Consts.AIR_DENSITY * Consts.DRAG * area * v ** 2
    return np.sum(force / Consts.GRAVITY)


def _residuals(w, X, y):
    for row, target in zip(X, y):
        yield np.dot(row, w) - target


def generator_function_sum(w, X, y):
    return sum(r ** 2 for r in _residuals(w, X, y))


CONFIG = {"model": {"hidden": {"act": "tanh", "scale": 0.5}, "out": {"bias": 0.1}}, "reg": {"l2": 0.01}}


def nested_dict_config(W, X, y, cfg=CONFIG):
    h = X @ W * cfg["model"]["hidden"]["scale"]
    if cfg["model"]["hidden"]["act"] == "tanh":
        h = np.tanh(h)
    else:
        h = np.maximum(h, 0.0)
    pred = h.sum(axis=1) + cfg["model"]["out"]["bias"]
    return np.mean((pred - y) ** 2) + cfg["reg"]["l2"] * np.sum(W ** 2)


class LinearParams(NamedTuple):
    w: np.ndarray
    b: float


def typed_namedtuple_params(params, X, y):
    pred = X @ params.w + params.b
    return np.mean(np.logaddexp(0.0, -y * pred))


@functools.lru_cache(maxsize=None)
def _binomial(n, k):
    return math.comb(n, k)


def lru_cache_bernstein(c, t):
    n = len(c) - 1
    out = 0.0
    for k in range(n + 1):
        out = out + c[k] * _binomial(n, k) * t ** k * (1 - t) ** (n - k)
    return np.sum(out ** 2)


def append_then_array(w, X):
    outs = []
    for row in X:
        outs.append(np.tanh(row @ w))
    arr = np.array(outs)
    return np.sum(arr ** 2) + arr[0] * arr[-1]


def stack_list_comprehension(W, X):
    cols = np.stack([np.sin(X @ W[:, j]) for j in range(W.shape[1])], axis=1)
    return np.sum(cols * cols[:, ::-1])


def early_continue_loop(x, mask):
    total = 0.0
    for i in range(len(x)):
        if not mask[i]:
            continue
        total = total + np.log1p(x[i] ** 2)
    return total


def dict_accumulated_losses(w, X, y):
    losses = {}
    r = X @ w - y
    losses["mse"] = np.mean(r ** 2)
    losses["mae_smooth"] = np.mean(np.sqrt(r ** 2 + 0.01))
    losses["l2"] = 0.1 * w @ w
    return sum(losses.values())


def tuple_return_helper_loop(x):
    def step(a, b):
        return b, a + 0.5 * np.sin(b)

    a, b = x[0], x[1]
    for _ in range(5):
        a, b = step(a, b)
    return a * b


# ---- special points -----------------------------------------------------------------------------


def relu_at_exact_zero_weights(w, X):
    # the pre-activation is exactly 0 for the first row: ReLU's subgradient there is 0
    h = np.maximum(X @ w, 0.0)
    return np.sum(h ** 2)


def argmax_ties_onehot(x):
    onehot = np.zeros_like(x)
    onehot[np.argmax(x)] = 1.0
    return np.sum(onehot * x ** 2)


def clip_at_boundary(x):
    return np.sum(np.clip(x, -1.0, 1.0) ** 2) + np.sum(x)


def sqrt_of_square_plus_tiny(x):
    return np.sum(np.sqrt(x ** 2 + 1e-300))


def one_element_matrix_inverse(a):
    return np.sum(np.linalg.inv(a)) + np.linalg.det(a) ** 2


def float32_softmax_cross_entropy(W, X, labels):
    z = X @ W
    z = z - z.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return -np.mean(logp[np.arange(len(labels)), labels])


def float32_scalar_mix(x):
    return np.float32(2.0) * np.sum(x ** 3) + np.mean(np.exp(-x)) * 0.5


def huge_exp_ratio(x):
    # exp(x) overflows; the ratio written stably stays finite
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def tiny_variance_standardise(x):
    mu = np.mean(x)
    sd = np.sqrt(np.mean((x - mu) ** 2) + 1e-12)
    return np.sum(((x - mu) / sd) ** 3)


def power_with_zero_base_int_exponent(x):
    return np.sum(x ** 3) + np.sum(np.power(x, 2)) + np.sum(x ** 0)


def abs_diff_ties(x):
    return np.sum(np.abs(x[:, None] - x[None, :])) + np.sum(x ** 2)


def log_of_zero_probability_masked(p_raw, y):
    p = scipy.special.expit(p_raw)
    return -np.sum(scipy.special.xlogy(y, p) + scipy.special.xlogy(1 - y, 1 - p))


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


STATISTICS8 = [
    ("bayes_logistic_t_prior", bayes_logistic_t_prior, lambda r: (M(r, 3), M(r, 8, 3), (M(r, 8) > 0) * 1.0), 0),
    ("weibull_right_censored", weibull_right_censored,
     lambda r: (np.array([0.3, 0.5]), 0.5 + 2 * P(r, 7), np.array([1.0, 0, 1, 1, 0, 1, 1])), 0),
    ("zip_logaddexp", zip_logaddexp, lambda r: (np.array([-0.5, 0.7]), np.array([0.0, 0, 3, 1, 0, 2, 5])), 0),
    ("hierarchical_shrinkage_dict", hierarchical_shrinkage_dict,
     lambda r: ({"mu": 0.3, "log_tau": -0.2, "theta": {"a": 0.5, "b": -0.4, "c": 1.1}},
                {"a": M(r, 3) + 0.5, "b": M(r, 4) - 0.4, "c": M(r, 2) + 1.0}), 0),
    ("gaussian_copula_loglik", gaussian_copula_loglik, lambda r: (0.4, 0.05 + 0.9 * P(r, 6, 2)), 0),
    ("huber_scale_m_estimator", huber_scale_m_estimator, lambda r: (0.1, 2 * M(r, 9)), 0),
    ("poisson_glm_log_exposure", poisson_glm_log_exposure,
     lambda r: (0.3 * M(r, 2), M(r, 6, 2), np.array([0.0, 2, 1, 4, 0, 3]), 1 + 3 * P(r, 6)), 0),
    ("kde_loo_log_bandwidth", kde_loo_log_bandwidth, lambda r: (-0.5, M(r, 7)), 0),
    ("scipy_stats_norm_fit", scipy_stats_norm_fit, lambda r: (np.array([0.2, -0.1]), M(r, 8)), 0),
]

LIBRARY_STYLE8 = [
    ("callable_object_fit", callable_object_fit, lambda r: (M(r, 4), M(r, 6), M(r, 6)), 0),
    ("inherited_super_penalty", inherited_super_penalty, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("property_chain", property_chain, lambda r: (1 + P(r, 3),), 0),
    ("module_constants_drag", module_constants_drag, lambda r: (M(r, 4), 0.5 + P(r, 4)), 0),
    ("generator_function_sum", generator_function_sum, lambda r: (M(r, 3), M(r, 4, 3), M(r, 4)), 0),
    ("nested_dict_config", nested_dict_config, lambda r: (M(r, 3, 2), M(r, 5, 3), M(r, 5)), 0),
    ("typed_namedtuple_params", typed_namedtuple_params,
     lambda r: (LinearParams(M(r, 3), 0.2), M(r, 6, 3), np.array([1.0, -1, 1, 1, -1, -1])), 0),
    ("lru_cache_bernstein", lru_cache_bernstein, lambda r: (M(r, 4), np.linspace(0.1, 0.9, 5)), 0),
    ("append_then_array", append_then_array, lambda r: (M(r, 3), M(r, 5, 3)), 0),
    ("stack_list_comprehension", stack_list_comprehension, lambda r: (M(r, 3, 3), M(r, 4, 3)), 0),
    ("early_continue_loop", early_continue_loop,
     lambda r: (M(r, 6), np.array([True, False, True, True, False, True])), 0),
    ("dict_accumulated_losses", dict_accumulated_losses, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("tuple_return_helper_loop", tuple_return_helper_loop, lambda r: (np.array([0.3, 0.8]),), 0),
]

SPECIAL8 = [
    ("relu_at_exact_zero_weights", relu_at_exact_zero_weights,
     lambda r: (np.array([1.0, -1.0]), np.array([[1.0, 1.0], [2.0, 0.5], [0.3, -1.2]])), 1),
    ("argmax_ties_onehot", argmax_ties_onehot, lambda r: (np.array([0.5, 2.0, 1.0, -3.0]),), 0),
    ("clip_at_boundary", clip_at_boundary, lambda r: (np.array([0.3, 1.5, -2.0, 0.9]),), 0),
    ("sqrt_of_square_plus_tiny", sqrt_of_square_plus_tiny, lambda r: (np.array([0.5, -2.0, 1e-3]),), 0),
    ("one_element_matrix_inverse", one_element_matrix_inverse, lambda r: (np.array([[1.7]]),), 0),
    ("float32_softmax_cross_entropy", float32_softmax_cross_entropy,
     lambda r: (M(r, 3, 4).astype(np.float32), M(r, 5, 3).astype(np.float32), np.array([0, 3, 1, 2, 2])), 0),
    ("float32_scalar_mix", float32_scalar_mix, lambda r: (M(r, 4).astype(np.float32),), 0),
    ("huge_exp_ratio", huge_exp_ratio, lambda r: (np.array([1000.0, 999.0, 990.5]),), 0),
    ("tiny_variance_standardise", tiny_variance_standardise, lambda r: (1.0 + 1e-3 * M(r, 5),), 0),
    ("power_with_zero_base_int_exponent", power_with_zero_base_int_exponent,
     lambda r: (np.array([0.0, 1.5, -0.5]),), 0),
    ("abs_diff_distinct", abs_diff_ties, lambda r: (np.array([0.1, 0.7, -0.4]),), 0),
    ("log_of_zero_probability_masked", log_of_zero_probability_masked,
     lambda r: (M(r, 5), np.array([0.0, 1.0, 1.0, 0.0, 1.0])), 0),
]

LIBRARY8 = STATISTICS8 + LIBRARY_STYLE8 + SPECIAL8
