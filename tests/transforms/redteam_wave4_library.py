"""The red team's fourth wave, part two: statistics (GLMs, hierarchical models through
scipy.special / scipy.stats, KDE, Gaussian processes through cholesky / solve_triangular /
slogdet, robust regression, Weibull survival, AR and Kalman filters), library-style code
(config dataclasses and namedtuples, helper classes, partials, closures, *args / **kwargs
helpers, validation, early returns, comprehensions, zip / enumerate, dict iteration) and
special points (zero initialisation, ties, one-element reductions, guarded overflow, masked
branches, a zero factor of a product, float32).  `LIBRARY4` holds ``(name, function, make,
wrt)``; redteam_wave4.WAVE4 includes it.
"""

from __future__ import annotations

import collections
import dataclasses
import functools

import numpy as np
import scipy.linalg
import scipy.special
import scipy.stats

# ---- statistics ---------------------------------------------------------------------------------


def logistic_glm_offset(beta, X, y, offset):
    eta = X @ beta + offset
    return -np.sum(y * eta - np.logaddexp(0.0, eta))


def gamma_glm_log_link(beta, X, y, shape=2.0):
    mu = np.exp(X @ beta)
    rate = shape / mu
    ll = shape * np.log(rate) + (shape - 1) * np.log(y) - rate * y - scipy.special.gammaln(shape)
    return -ll.sum()


def eight_schools_noncentered(mu, log_tau, theta_raw, y, sigma):
    tau = np.exp(log_tau)
    theta = mu + tau * theta_raw
    lp = scipy.stats.norm.logpdf(y, loc=theta, scale=sigma).sum()
    lp += scipy.stats.norm.logpdf(theta_raw).sum()
    lp += scipy.stats.norm.logpdf(mu, 0.0, 5.0) + scipy.stats.cauchy.logpdf(tau, 0.0, 5.0) + log_tau
    return -lp


def beta_binomial_hier(log_ab, k, n):
    a, b = np.exp(log_ab[0]), np.exp(log_ab[1])
    ll = scipy.special.betaln(k + a, n - k + b) - scipy.special.betaln(a, b)
    return -np.sum(ll) + 2.5 * np.log(a + b)


def kde_loo_bandwidth(log_h, x):
    h = np.exp(log_h)
    d = (x[:, None] - x[None, :]) / h
    logk = -0.5 * d ** 2 - np.log(h * np.sqrt(2 * np.pi))
    n = x.shape[0]
    logk = logk - 1e10 * np.eye(n)  # leave one out
    return -np.sum(scipy.special.logsumexp(logk, axis=1) - np.log(n - 1))


def gp_marginal_cholesky(log_params, X, y):
    ell, sf, sn = np.exp(log_params)
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = sf ** 2 * np.exp(-0.5 * d2 / ell ** 2) + (sn ** 2 + 1e-8) * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = scipy.linalg.solve_triangular(L, y, lower=True)
    return 0.5 * alpha @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(y) * np.log(2 * np.pi)


def gp_marginal_slogdet(log_ell, X, y, noise=0.1):
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = np.exp(-0.5 * d2 / np.exp(2 * log_ell)) + noise * np.eye(len(y))
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * y @ np.linalg.solve(K, y) + 0.5 * logdet


def geman_mcclure_regression(w, X, y, c=1.0):
    r = y - X @ w
    return np.sum(r ** 2 / (r ** 2 + c ** 2))


def weibull_censored(log_params, t, event):
    k, lam = np.exp(log_params)
    z = t / lam
    log_hazard = np.log(k) - np.log(lam) + (k - 1) * np.log(z)
    log_survival = -z ** k
    return -np.sum(event * log_hazard + log_survival)


def ar2_conditional(phi, y, sigma=1.0):
    resid = y[2:] - phi[0] * y[1:-1] - phi[1] * y[:-2]
    return 0.5 * np.sum(resid ** 2) / sigma ** 2 + len(resid) * np.log(sigma)


def kalman_local_trend(log_q, ys, r=0.5):
    F = np.array([[1.0, 1.0], [0.0, 1.0]])
    Q = np.diag(np.exp(log_q))
    H = np.array([1.0, 0.0])
    m, P = np.zeros(2), np.eye(2)
    ll = 0.0
    for y in ys:
        m = F @ m
        P = F @ P @ F.T + Q
        s = H @ P @ H + r
        k = P @ H / s
        v = y - H @ m
        ll += -0.5 * (np.log(2 * np.pi * s) + v ** 2 / s)
        m = m + k * v
        P = P - np.outer(k, H @ P)
    return -ll


def zero_inflated_poisson(params, y):
    logit_pi, log_mu = params
    pi = scipy.special.expit(logit_pi)
    mu = np.exp(log_mu)
    ll_zero = np.log(pi + (1 - pi) * np.exp(-mu))
    ll_pos = np.log(1 - pi) + y * np.log(mu) - mu - scipy.special.gammaln(y + 1)
    return -np.sum(np.where(y == 0, ll_zero, ll_pos))


# ---- library-style code -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    l2: float = 0.01
    loss: str = "huber"
    delta: float = 1.0


def config_dataclass_loss(w, X, y, cfg=TrainConfig()):
    r = X @ w - y
    if cfg.loss == "mse":
        data = np.mean(r ** 2)
    elif cfg.loss == "huber":
        a = np.abs(r)
        data = np.mean(np.where(a < cfg.delta, 0.5 * r ** 2, cfg.delta * (a - 0.5 * cfg.delta)))
    else:
        raise ValueError(f"unknown loss {cfg.loss!r}")
    return data + cfg.l2 * np.sum(w ** 2)


class Dense:
    def __init__(self, W, b, activation=np.tanh):
        self.W = W
        self.b = b
        self.activation = activation

    def __call__(self, x):
        return self.activation(x @ self.W + self.b)


def dense_layer_object(W, b, X):
    layer = Dense(W, b)
    return np.sum(layer(X) ** 2)


def _scaled_term(x, scale, power=2):
    return scale * np.sum(np.abs(x) ** power)


def partial_terms(x):
    terms = [functools.partial(_scaled_term, scale=s) for s in (0.5, 1.0, 2.0)]
    return sum(t(x[i:]) for i, t in enumerate(terms))


def make_objective(X, y, activation=np.tanh):
    def objective(w):
        pred = activation(X @ w)
        return np.mean((pred - y) ** 2)
    return objective


def _sum_squares(*arrays, weight=1.0):
    total = 0.0
    for a in arrays:
        total = total + np.sum(a * a)
    return weight * total


def star_args_regulariser(w, b):
    return _sum_squares(w, b, w[:2], weight=0.3) + np.sum(np.sin(w))


def _robust(pred, target, **options):
    delta = options.get("delta", 1.0)
    r = pred - target
    return np.sum(delta ** 2 * (np.sqrt(1 + (r / delta) ** 2) - 1))


def kwargs_loss(w, X, y):
    opts = {"delta": 0.7}
    return _robust(X @ w, y, **opts)


def validated_loss(x, target):
    if not isinstance(x, np.ndarray):
        x = np.asarray(x, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"expected a 2-D array, got {x.ndim} dimensions")
    if x.shape != target.shape:
        raise ValueError(f"shape mismatch: {x.shape} vs {target.shape}")
    return np.sum((x - target) ** 2) / x.shape[0]


def reduced_loss(pred, target, reduction="sum"):
    err = np.log(np.cosh(pred - target))
    if reduction == "none":
        return err
    if reduction == "sum":
        return np.sum(err)
    return np.mean(err)


def ensemble_zip(weights, X, ys):
    preds = [np.tanh(X @ w) for w in weights]
    return sum(np.mean((p - t) ** 2) for p, t in zip(preds, ys))


def dict_items_decay(params, coeffs):
    total = 0.0
    for name, w in params.items():
        total += coeffs[name] * np.sum(w ** 2)
    return total + np.sum(params["W"] @ params["b"])


Hyper = collections.namedtuple("Hyper", ["lr", "decay", "steps"])
SGD_DEFAULTS = Hyper(0.1, 0.9, 4)


def unrolled_sgd(w0, X, y, hp=SGD_DEFAULTS):
    w = w0
    for i in range(hp.steps):
        grad = X.T @ (X @ w - y) / len(y)
        w = w - hp.lr * hp.decay ** i * grad
    return 0.5 * np.sum((X @ w - y) ** 2)


class Polynomial:
    def __init__(self, coeffs):
        self.coeffs = coeffs

    def __call__(self, x):
        out = np.zeros_like(x)
        for c in self.coeffs[::-1]:
            out = out * x + c
        return out

    def roughness(self):
        k = np.arange(1, len(self.coeffs))
        return np.sum((k * self.coeffs[1:]) ** 2)


def polynomial_object_fit(coeffs, x, y):
    poly = Polynomial(coeffs)
    return np.sum((poly(x) - y) ** 2) + 0.01 * poly.roughness()


# ---- special points -----------------------------------------------------------------------------


def zero_init_mlp(W2, W1, X):
    h = np.tanh(X @ W1)
    return np.sum((h @ W2) ** 2) + np.sum(W2)


def sorted_squares_ties(x):
    return np.sum(np.sort(x) ** 2 * np.array([1.0, 1.0, 1.0, 1.0]))


def logsumexp_tied_max(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def median_with_ties(x):
    return np.median(x) + 0.1 * np.sum(x ** 2)


def one_row_std(x):
    return np.sum(np.std(x, axis=0)) + np.sum(x ** 2)


def single_element_norm(x):
    centred = x - x.mean()
    return np.linalg.norm(centred) + np.sum(np.max(x, axis=1))


def two_sided_sigmoid(x):
    pos = 1.0 / (1.0 + np.exp(-x))
    neg = np.exp(x) / (1.0 + np.exp(x))
    return np.sum(np.where(x >= 0, pos, neg))


def masked_sqrt(x, mask):
    return np.sum(np.where(mask, np.sqrt(x), 0.0))


def group_means(x, mask):
    counts = mask.sum(axis=0)
    means = np.where(counts > 0, (x * mask).sum(axis=0) / counts, 0.0)
    return np.sum(means ** 2)


def prod_with_zero(x):
    return np.prod(x) + np.sum(x)


def signed_square(x):
    return np.sum(x * np.abs(x)) + np.sum(np.abs(x) ** 3)


def float32_logistic(w, X, y):
    z = X @ w
    return np.mean(np.logaddexp(np.float32(0.0), -y * z))


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


STATISTICS4 = [
    ("logistic_glm_offset", logistic_glm_offset, lambda r: (M(r, 3), M(r, 8, 3), (M(r, 8) > 0) * 1.0, M(r, 8)), 0),
    ("gamma_glm_log_link", gamma_glm_log_link, lambda r: (0.3 * M(r, 2), M(r, 6, 2), 0.5 + P(r, 6)), 0),
    ("eight_schools_noncentered", eight_schools_noncentered,
     lambda r: (0.5, 0.3, M(r, 4), 3 * M(r, 4), 1.0 + P(r, 4)), 2),
    ("eight_schools_log_tau", eight_schools_noncentered,
     lambda r: (0.5, 0.3, M(r, 4), 3 * M(r, 4), 1.0 + P(r, 4)), 1),
    ("beta_binomial_hier", beta_binomial_hier, lambda r: (0.3 * M(r, 2), np.array([2., 5, 1, 7]), np.full(4, 9.0)), 0),
    ("kde_loo_bandwidth", kde_loo_bandwidth, lambda r: (-0.5, M(r, 6)), 0),
    ("gp_marginal_cholesky", gp_marginal_cholesky, lambda r: (0.2 * M(r, 3), M(r, 5, 2), M(r, 5)), 0),
    ("gp_marginal_slogdet", gp_marginal_slogdet, lambda r: (0.1, M(r, 5, 2), M(r, 5)), 0),
    ("geman_mcclure_regression", geman_mcclure_regression, lambda r: (M(r, 3), M(r, 7, 3), M(r, 7)), 0),
    ("weibull_censored", weibull_censored, lambda r: (0.2 * M(r, 2), 0.5 + P(r, 6), np.array([1., 0, 1, 1, 0, 1])), 0),
    ("ar2_conditional", ar2_conditional, lambda r: (np.array([0.5, -0.2]), M(r, 9)), 0),
    ("kalman_local_trend", kalman_local_trend, lambda r: (np.array([-1.0, -2.0]), np.cumsum(M(r, 6))), 0),
    ("zero_inflated_poisson", zero_inflated_poisson, lambda r: (np.array([-0.3, 0.4]), np.array([0., 2, 0, 1, 3])), 0),
]

LIBRARY_STYLE4 = [
    ("config_dataclass_loss", config_dataclass_loss, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("dense_layer_object", dense_layer_object, lambda r: (M(r, 3, 2), M(r, 2), M(r, 4, 3)), 0),
    ("partial_terms", partial_terms, lambda r: (M(r, 5),), 0),
    ("closure_objective", make_objective(np.arange(12.0).reshape(4, 3) / 10, np.array([0.1, -0.2, 0.3, 0.0])),
     lambda r: (M(r, 3),), 0),
    ("star_args_regulariser", star_args_regulariser, lambda r: (M(r, 4), M(r, 2)), 0),
    ("kwargs_loss", kwargs_loss, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("validated_loss", validated_loss, lambda r: (M(r, 3, 2), M(r, 3, 2)), 0),
    ("reduced_loss", reduced_loss, lambda r: (M(r, 5), M(r, 5)), 0),
    ("ensemble_zip", ensemble_zip, lambda r: ([M(r, 3), M(r, 3)], M(r, 4, 3), [M(r, 4), M(r, 4)]), 0),
    ("dict_items_decay", dict_items_decay, lambda r: ({"W": M(r, 2, 3), "b": M(r, 3)}, {"W": 0.1, "b": 0.01}), 0),
    ("polynomial_object_fit", polynomial_object_fit, lambda r: (M(r, 4), np.linspace(-1, 1, 7), M(r, 7)), 0),
    ("unrolled_sgd", unrolled_sgd, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
]

SPECIAL4 = [
    ("zero_init_mlp", zero_init_mlp, lambda r: (np.zeros((3, 2)), M(r, 2, 3), M(r, 4, 2)), 0),
    ("zero_init_first_layer", zero_init_mlp, lambda r: (M(r, 3, 2), np.zeros((2, 3)), M(r, 4, 2)), 1),
    ("sorted_squares_ties", sorted_squares_ties, lambda r: (np.array([0.5, 0.5, -1.0, 2.0]),), 0),
    ("logsumexp_tied_max", logsumexp_tied_max, lambda r: (np.array([2.0, 2.0, 1.0, -0.5]),), 0),
    ("median_with_ties", median_with_ties, lambda r: (np.array([1.0, 2.0, 2.0, 3.0]),), 0),
    ("one_row_std", one_row_std, lambda r: (M(r, 1, 3),), 0),
    ("single_element_norm", single_element_norm, lambda r: (M(r, 1, 1),), 0),
    ("two_sided_sigmoid", two_sided_sigmoid, lambda r: (np.array([-800.0, -3.0, 0.5, 800.0]),), 0),
    ("masked_sqrt", masked_sqrt, lambda r: (np.array([1.0, -1.0, 4.0, -2.0]), np.array([True, False, True, False])), 0),
    ("group_means", group_means, lambda r: (M(r, 4, 3), np.array([[1., 0, 0], [1, 0, 1], [0, 0, 1], [1, 0, 0]])), 0),
    ("prod_with_zero", prod_with_zero, lambda r: (np.array([0.0, 2.0, -1.5, 0.5]),), 0),
    ("signed_square", signed_square, lambda r: (np.array([0.0, 1.5, -0.5, 0.0]),), 0),
    ("float32_logistic", float32_logistic,
     lambda r: (M(r, 3).astype(np.float32), M(r, 6, 3).astype(np.float32), np.sign(M(r, 6)).astype(np.float32)), 0),
]

LIBRARY4 = STATISTICS4 + LIBRARY_STYLE4 + SPECIAL4
