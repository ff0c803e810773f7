"""The red team's sixth wave, continued: statistics (GLMs with offsets, a hierarchical model
with dict parameters, truncated normals and Tobit through scipy.special, an HMM forward
algorithm with logsumexp, a 2-D Kalman filter, GARCH), library-style code (dataclass parameters
with defaults, methods calling methods, closures over arrays, functools.partial with keywords,
*args/**kwargs helpers, early returns, while loops with a tolerance, enumerate/zip and
comprehensions, tuple unpacking, properties) and special points (zeros, ties, one-element
reductions, masked branches, float32, large magnitudes).  See redteam_wave6.py."""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import scipy.special

# ---- statistics ---------------------------------------------------------------------------------


def poisson_glm_exposure(beta, X, counts, exposure):
    eta = X @ beta + np.log(exposure)
    return np.sum(np.exp(eta) - counts * eta)


def negbin2_log_alpha(log_alpha, mu, y):
    alpha = np.exp(log_alpha)
    r = 1.0 / alpha
    ll = (scipy.special.gammaln(y + r) - scipy.special.gammaln(r) - scipy.special.gammaln(y + 1)
          + r * np.log(r / (r + mu)) + y * np.log(mu / (r + mu)))
    return -np.sum(ll)


def hierarchical_normal_dict(params, y, sigma):
    mu, tau = params["mu"], np.exp(params["log_tau"])
    theta = params["theta"]
    lp = -0.5 * np.sum((y - theta) ** 2 / sigma ** 2)
    lp += -0.5 * np.sum((theta - mu) ** 2) / tau ** 2 - len(theta) * np.log(tau)
    lp += -0.5 * mu ** 2 / 25.0
    return -lp


def truncated_normal_nll(mu_logsig, x, lo=-1.0, hi=2.0):
    mu, sigma = mu_logsig[0], np.exp(mu_logsig[1])
    z = (x - mu) / sigma
    mass = scipy.special.ndtr((hi - mu) / sigma) - scipy.special.ndtr((lo - mu) / sigma)
    return np.sum(0.5 * z ** 2 + np.log(sigma)) + len(x) * np.log(mass)


def tobit_censored(beta, X, y, limit=0.0, sigma=1.0):
    mu = X @ beta
    censored = y <= limit
    ll_obs = -0.5 * ((y - mu) / sigma) ** 2 - np.log(sigma)
    ll_cens = scipy.special.log_ndtr((limit - mu) / sigma)
    return -np.sum(np.where(censored, ll_cens, ll_obs))


def hmm_forward_logsumexp(trans_logits, log_emis, log_init):
    log_A = trans_logits - scipy.special.logsumexp(trans_logits, axis=1, keepdims=True)
    alpha = log_init + log_emis[0]
    for t in range(1, log_emis.shape[0]):
        alpha = scipy.special.logsumexp(alpha[:, None] + log_A, axis=0) + log_emis[t]
    return -scipy.special.logsumexp(alpha)


def kalman_2d_loglik(log_q, ys, dt=0.5, r=0.3):
    F = np.array([[1.0, dt], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    Q = np.diag(np.exp(log_q))
    m, P = np.zeros(2), np.eye(2)
    ll = 0.0
    for y in ys:
        m = F @ m
        P = F @ P @ F.T + Q
        S = (H @ P @ H.T)[0, 0] + r
        K = (P @ H.T)[:, 0] / S
        innov = y - m[0]
        ll += -0.5 * (np.log(2 * np.pi * S) + innov ** 2 / S)
        m = m + K * innov
        P = P - np.outer(K, H @ P)
    return -ll


def logistic_offset_prior(beta, X, y, offset, prior_sd=2.0):
    eta = X @ beta + offset
    return np.sum(np.logaddexp(0.0, eta) - y * eta) + 0.5 * np.sum(beta ** 2) / prior_sd ** 2


def zero_truncated_poisson(log_lam, y):
    lam = np.exp(log_lam)
    return -np.sum(y * log_lam - lam - np.log(-np.expm1(-lam)) - scipy.special.gammaln(y + 1))


def garch11_nll(params, r):
    omega, a, b = np.exp(params[0]), scipy.special.expit(params[1]), scipy.special.expit(params[2])
    s2 = np.var(r)
    nll = 0.0
    for t in range(1, len(r)):
        s2 = omega + a * r[t - 1] ** 2 + b * s2
        nll += 0.5 * (np.log(s2) + r[t] ** 2 / s2)
    return nll


# ---- library-style code ---------------------------------------------------------------------


@dataclasses.dataclass
class RidgeModel:
    w: np.ndarray
    l2: float = 0.1
    intercept: float = 0.5

    def predict(self, X):
        return X @ self.w + self.intercept

    def penalty(self):
        return self.l2 * np.sum(self.w ** 2)

    def loss(self, X, y):
        return np.mean((self.predict(X) - y) ** 2) + self.penalty()


def dataclass_defaults_loss(w, X, y):
    return RidgeModel(w).loss(X, y)


class TwoLayer:
    def __init__(self, W1, W2):
        self.W1, self.W2 = W1, W2

    def hidden(self, X):
        return np.tanh(X @ self.W1)

    def forward(self, X):
        return self.hidden(X) @ self.W2

    def loss(self, X, y):
        return 0.5 * np.sum((self.forward(X)[:, 0] - y) ** 2)


def methods_calling_methods(W1, X, y, W2):
    return TwoLayer(W1, W2).loss(X, y)


def make_closure_loss(X, y, weights):
    def loss(w):
        r = X @ w - y
        return np.sum(weights * r ** 2) + np.sum(np.log1p(w ** 2))
    return loss


def _scaled_residual(w, X, y, *, scale=1.0, reg=0.0):
    return np.sum(((X @ w - y) / scale) ** 2) + reg * np.sum(w ** 4)


def _sum_of(*terms, weight=1.0, **extra):
    total = 0.0
    for t in terms:
        total = total + weight * np.sum(t ** 2)
    for value in extra.values():
        total = total + np.sum(value)
    return total


def star_args_kwargs(w, X):
    h = np.sin(X @ w)
    return _sum_of(h, w, 0.5 * X @ w, weight=0.3, bias=np.cos(w))


def early_return_guards(x, threshold=3.0):
    n = np.sqrt(np.sum(x ** 2))
    if n > threshold:
        return threshold * np.log(n)
    if np.all(x > 0):
        return np.sum(np.log(x))
    return n ** 2


def while_newton_implicit(a, x=2.0, tol=1e-12):
    y = x
    step, it = 1.0, 0
    while abs(step) > tol and it < 50:
        step = (a * y ** 3 + y - x) / (3 * a * y ** 2 + 1)
        y = y - step
        it += 1
    return y ** 2


def enumerate_zip_terms(w, xs, ys):
    total = 0.0
    for i, (x, y) in enumerate(zip(xs, ys)):
        total += (i + 1) * (np.dot(w, x) - y) ** 2
    reg = sum([wi ** 2 for wi in w])
    return total + 0.1 * reg


def tuple_unpacking_recurrence(ab, n=6):
    a, b = ab[0], ab[1]
    for _ in range(n):
        a, b = b, 0.5 * a + 0.3 * b + 0.1 * a * b
    return a + b ** 2


def _affine(x, scale=2.0, *, shift=0.0):
    return scale * x + shift


def helper_defaults_keywords(x, y):
    return np.sum(np.tanh(_affine(x)) * _affine(y, shift=0.5) + _affine(x, 0.5, shift=-1.0) ** 2)


class Softplus:
    def __init__(self, raw):
        self.raw = raw

    @property
    def positive(self):
        return np.log1p(np.exp(self.raw))

    def energy(self, x):
        return np.sum(self.positive * x ** 2)


def property_params(raw, x):
    return Softplus(raw).energy(x) + np.sum(Softplus(raw).positive)


def dict_of_lists_params(params, X):
    h = X
    for W, b in zip(params["weights"], params["biases"]):
        h = np.tanh(h @ W + b)
    return np.sum(h ** 2)


# ---- special points -------------------------------------------------------------------------


def abs_times_x_at_zero(x):
    return np.sum(np.abs(x) * x) + np.sum(x * np.abs(x) ** 2)


def one_element_axes(x):
    A = x.reshape(1, -1)
    return np.sum(np.max(A, axis=0) ** 2) + np.sum(np.std(A, axis=0)) + np.sum(scipy.special.logsumexp(A, axis=0))


def masked_normalise_zero_rows(X):
    n = np.linalg.norm(X, axis=1, keepdims=True)
    safe = np.where(n > 0, n, 0.0)
    return np.sum(safe ** 3) + np.sum(np.where(n > 0, X / np.where(n > 0, n, 1.0), 0.0) * n ** 2)


def float32_attention(Q, K):
    s = Q @ K.T / np.float32(np.sqrt(Q.shape[1]))
    w = np.exp(s - s.max(axis=1, keepdims=True))
    w = w / w.sum(axis=1, keepdims=True)
    return np.sum(w * s)


def large_logits_logsumexp(z):
    return np.sum(scipy.special.logsumexp(z, axis=1)) - np.sum(z[:, 0])


def sqrt_where_guard(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0)) + np.sum(np.where(x > 0, np.log(x), x))


def sorted_symmetric_ties(x):
    s = np.sort(x)
    return np.sum(s ** 2) + np.linalg.norm(s) + np.sum(np.exp(s) * s)


def exp_clamped_large(x):
    return np.sum(np.exp(np.minimum(x, 10.0))) + np.sum(np.where(x > 10.0, x ** 2, 0.0))


def prod_rows_with_zeros(x):
    A = x.reshape(3, 2)
    return np.sum(np.prod(A, axis=1)) + np.sum(x ** 2)


def float32_large_values(x, w):
    return np.sum(np.log(np.cosh(x * w / np.float32(1e3)))) + np.sum(x ** 2) * np.float32(1e-6)


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


STATISTICS6 = [
    ("poisson_glm_exposure", poisson_glm_exposure,
     lambda r: (0.3 * M(r, 3), M(r, 7, 3), np.array([0., 2, 1, 4, 0, 3, 1]), 1 + 3 * P(r, 7)), 0),
    ("negbin2_log_alpha", negbin2_log_alpha, lambda r: (-0.7, 1 + 2 * P(r, 6), np.array([0., 3, 1, 7, 2, 0])), 0),
    ("hierarchical_normal_dict", hierarchical_normal_dict,
     lambda r: ({"mu": 0.4, "log_tau": 0.2, "theta": M(r, 5)}, 2 * M(r, 5), 1 + P(r, 5)), 0),
    ("truncated_normal_nll", truncated_normal_nll,
     lambda r: (np.array([0.3, -0.2]), np.array([-0.5, 0.1, 1.3, 0.7, -0.9])), 0),
    ("tobit_censored", tobit_censored,
     lambda r: (M(r, 2), M(r, 7, 2), np.array([0.0, 1.2, -0.3, 0.8, 0.0, 2.1, -1.0])), 0),
    ("hmm_forward_logsumexp", hmm_forward_logsumexp, lambda r: (M(r, 3, 3), M(r, 5, 3), np.log(np.ones(3) / 3)), 0),
    ("hmm_forward_emissions", hmm_forward_logsumexp, lambda r: (M(r, 3, 3), M(r, 5, 3), np.log(np.ones(3) / 3)), 1),
    ("kalman_2d_loglik", kalman_2d_loglik, lambda r: (np.array([-1.0, -2.0]), list(np.cumsum(M(r, 6)))), 0),
    ("logistic_offset_prior", logistic_offset_prior,
     lambda r: (M(r, 3), M(r, 8, 3), (M(r, 8) > 0) * 1.0, 0.3 * M(r, 8)), 0),
    ("zero_truncated_poisson", zero_truncated_poisson, lambda r: (0.3 * M(r, 5), np.array([1., 2, 1, 4, 3])), 0),
    ("garch11_nll", garch11_nll, lambda r: (np.array([-2.0, -1.5, 1.0]), 0.3 * M(r, 8)), 0),
]

LIBRARY_STYLE6 = [
    ("dataclass_defaults_loss", dataclass_defaults_loss, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("methods_calling_methods", methods_calling_methods, lambda r: (M(r, 3, 4), M(r, 5, 3), M(r, 5), M(r, 4, 1)), 0),
    ("closure_over_arrays", make_closure_loss(np.arange(12.0).reshape(4, 3) / 5 - 1, np.array([1., -1, 0.5, 2]),
                                              np.array([1.0, 0.5, 2.0, 1.5])), lambda r: (M(r, 3),), 0),
    ("partial_with_keywords", functools.partial(_scaled_residual, scale=2.0, reg=0.1),
     lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("star_args_kwargs", star_args_kwargs, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("early_return_norm", early_return_guards, lambda r: (np.array([2.0, 3.0, -1.0]),), 0),
    ("early_return_positive", early_return_guards, lambda r: (P(r, 3),), 0),
    ("early_return_mixed", early_return_guards, lambda r: (np.array([0.5, -0.4, 0.3]),), 0),
    ("while_newton_implicit", while_newton_implicit, lambda r: (0.7,), 0),
    ("enumerate_zip_terms", enumerate_zip_terms, lambda r: (M(r, 3), list(M(r, 4, 3)), list(M(r, 4))), 0),
    ("tuple_unpacking_recurrence", tuple_unpacking_recurrence, lambda r: (np.array([0.4, -0.3]),), 0),
    ("helper_defaults_keywords", helper_defaults_keywords, lambda r: (M(r, 4), M(r, 4)), 0),
    ("property_params", property_params, lambda r: (M(r, 3), M(r, 3)), 0),
    ("dict_of_lists_params", dict_of_lists_params,
     lambda r: ({"weights": [M(r, 3, 4), M(r, 4, 2)], "biases": [M(r, 4), M(r, 2)]}, M(r, 5, 3)), 0),
]

SPECIAL6 = [
    ("abs_times_x_at_zero", abs_times_x_at_zero, lambda r: (np.array([0.0, 1.5, -2.0, 0.0]),), 0),
    ("one_element_axes", one_element_axes, lambda r: (np.array([0.5, -1.0, 2.0]),), 0),
    ("masked_normalise_zero_rows", masked_normalise_zero_rows,
     lambda r: (np.vstack([M(r, 2, 3), np.zeros((1, 3))]),), 0),
    ("float32_attention", float32_attention,
     lambda r: (M(r, 3, 4).astype(np.float32), M(r, 5, 4).astype(np.float32)), 0),
    ("large_logits_logsumexp", large_logits_logsumexp,
     lambda r: (1e3 * np.array([[1.0, 1.001, 0.999], [-2, -2.002, -1.998]]),), 0),
    ("sqrt_where_guard", sqrt_where_guard, lambda r: (np.array([-0.3, -1.0, 2.0, 0.5]),), 0),
    ("sorted_symmetric_ties", sorted_symmetric_ties, lambda r: (np.array([1.0, 3.0, 1.0, -2.0, 3.0]),), 0),
    ("exp_clamped_large", exp_clamped_large, lambda r: (np.array([800.0, 1.0, -3.0]),), 0),
    ("prod_rows_with_zeros", prod_rows_with_zeros, lambda r: (np.array([0.0, 2.0, 0.0, 0.0, 1.5, -1.0]),), 0),
    ("float32_large_values", float32_large_values,
     lambda r: ((1e3 * M(r, 4)).astype(np.float32), M(r, 4).astype(np.float32)), 0),
]

LIBRARY6 = STATISTICS6 + LIBRARY_STYLE6 + SPECIAL6
