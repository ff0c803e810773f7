"""The red team's fifth wave, part two: statistics (Student-t and beta MLE through
scipy.stats, gamma MLE through xlogy, probit through log_ndtr, von Mises through i0e, ordinal
logistic cut points, pinball and Cauchy losses, a Cholesky factor from a vector, a scalar
Kalman filter with math.log, a Poisson mixture through logsumexp's b=), library-style code
(dataclass configs, keyword-only helpers, partials of losses, closures, early returns,
while loops with a tolerance, try/except around cholesky, dict comprehensions, recursion,
activations chosen from a dict, classmethods and properties, leaky ReLU by masked writes,
missing data through nansum) and special points (max + min at a tie, softplus spelled with
maximum and abs at 0, the squared norm at zero, one-element var / median / prod, masked
reciprocals and logs, float32 layer norm, softmax rows with tied logits, huge and tiny
magnitudes).  `LIBRARY5` holds ``(name, function, make, wrt)``; redteam_wave5.WAVE5 includes it.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np
import scipy.linalg
import scipy.special
import scipy.stats

# ---- statistics ---------------------------------------------------------------------------------


def student_t_location_scale(params, x):
    loc, log_scale, log_df = params
    return -np.sum(scipy.stats.t.logpdf(x, np.exp(log_df), loc=loc, scale=np.exp(log_scale)))


def beta_mle(log_ab, x):
    a, b = np.exp(log_ab)
    return -np.sum(scipy.stats.beta.logpdf(x, a, b))


def gamma_mle_xlogy(log_k, log_theta, x):
    k, theta = np.exp(log_k), np.exp(log_theta)
    ll = scipy.special.xlogy(k - 1, x) - x / theta - scipy.special.gammaln(k) - k * np.log(theta)
    return -np.mean(ll)


def probit_regression(beta, X, y):
    eta = X @ beta
    return -np.sum(y * scipy.special.log_ndtr(eta) + (1 - y) * scipy.special.log_ndtr(-eta))


def von_mises_nll(params, theta):
    mu, log_kappa = params[0], params[1]
    kappa = np.exp(log_kappa)
    # log I0(kappa) = log(i0e(kappa)) + kappa
    return -np.sum(kappa * np.cos(theta - mu)) + len(theta) * (np.log(2 * np.pi * scipy.special.i0e(kappa)) + kappa)


def ordinal_logistic(raw_cuts, X, w, y):
    cuts = np.cumsum(np.concatenate([raw_cuts[:1], np.exp(raw_cuts[1:])]))
    eta = X @ w
    upper = np.append(cuts, np.inf)[y]
    lower = np.insert(cuts, 0, -np.inf)[y]
    p = scipy.special.expit(upper - eta) - scipy.special.expit(lower - eta)
    return -np.sum(np.log(p))


def pinball_quantiles(W, X, y, taus=(0.1, 0.5, 0.9)):
    total = 0.0
    for k, tau in enumerate(taus):
        r = y - X @ W[:, k]
        total += np.sum(np.maximum(tau * r, (tau - 1) * r))
    return total


def cauchy_robust_regression(w, X, y, c=0.5):
    r = (y - X @ w) / c
    return np.sum(np.log1p(r * r)) * c ** 2 / 2


def mvn_from_cholesky_vector(l_flat, X):
    d = X.shape[1]
    L = np.zeros((d, d))
    L[np.tril_indices(d)] = l_flat
    L[np.diag_indices(d)] = np.exp(np.diag(L))
    z = scipy.linalg.solve_triangular(L, X.T, lower=True)
    return 0.5 * np.sum(z ** 2) + X.shape[0] * np.sum(np.log(np.diag(L)))


def scalar_kalman_loglik(params, ys):
    phi, log_q, log_r = params
    q, r = math.exp(log_q), math.exp(log_r)
    m, P = 0.0, 1.0
    ll = 0.0
    for y in ys:
        m, P = phi * m, phi * phi * P + q
        S = P + r
        ll -= 0.5 * (math.log(2 * math.pi * S) + (y - m) ** 2 / S)
        K = P / S
        m, P = m + K * (y - m), (1 - K) * P
    return -ll


def poisson_mixture(log_rates, logit_w, k):
    w = scipy.special.softmax(logit_w)
    rates = np.exp(log_rates)
    logp = k[:, None] * np.log(rates)[None, :] - rates[None, :] - scipy.special.gammaln(k + 1)[:, None]
    return -np.sum(scipy.special.logsumexp(logp, b=w[None, :], axis=1))


# ---- library-style code -------------------------------------------------------------------------


@dataclasses.dataclass
class Regulariser:
    l1: float = 0.0
    l2: float = 1e-2
    smooth_eps: float = 1e-3

    def __call__(self, w):
        return self.l1 * np.sum(np.sqrt(w ** 2 + self.smooth_eps)) + self.l2 * np.sum(w ** 2)


L1_REGULARISER = Regulariser(l1=0.1)


def dataclass_regulariser(w, X, y, reg=L1_REGULARISER):
    return np.mean((X @ w - y) ** 2) + reg(w)


def _penalty(w, *, kind="l2", strength=1e-2):
    if kind == "l2":
        return strength * np.sum(w ** 2)
    if kind == "l1_smooth":
        return strength * np.sum(np.sqrt(w ** 2 + 1e-6))
    raise ValueError(kind)


def keyword_only_penalty(w, X, y):
    r = X @ w - y
    return 0.5 * r @ r + _penalty(w, kind="l1_smooth", strength=0.3) + _penalty(w)


def _squared_error(pred, target, weights=None):
    err = (pred - target) ** 2
    if weights is not None:
        err = err * weights
    return np.sum(err)


def partial_loss_in_loop(w, X, ys):
    losses = [functools.partial(_squared_error, target=t) for t in ys]
    pred = np.tanh(X @ w)
    return sum(loss(pred) for loss in losses)


def make_regularised_loss(X, y, lam):
    def penalty(w):
        return lam * np.sum(w ** 2)

    def loss(w):
        return np.mean(np.logaddexp(0.0, -y * (X @ w))) + penalty(w)
    return loss


def early_return_branches(x, threshold=10.0):
    s = np.sum(x ** 2)
    if s > threshold:
        return np.sqrt(s)
    if np.all(x > 0):
        return s + np.sum(np.log(x))
    return s


def fixed_point_tolerance(a, x0=0.5, tol=1e-13, max_iter=200):
    x = x0
    for _ in range(max_iter):
        x_new = np.cos(a * x)
        if abs(x_new - x) < tol:
            x = x_new
            break
        x = x_new
    return x ** 2


def cholesky_with_jitter(log_ell, X, y):
    d2 = np.sum((X[:, None] - X[None, :]) ** 2, axis=-1)
    K = np.exp(-d2 / (2 * np.exp(2 * log_ell)))
    try:
        L = np.linalg.cholesky(K + 1e-6 * np.eye(len(y)))
    except np.linalg.LinAlgError:
        L = np.linalg.cholesky(K + 1e-3 * np.eye(len(y)))
    a = np.linalg.solve(L, y)
    return a @ a + 2 * np.sum(np.log(np.diag(L)))


def dict_comprehension_params(params, X):
    scaled = {name: 2.0 * value for name, value in params.items() if name != "bias"}
    h = np.tanh(X @ scaled["W1"]) @ scaled["W2"] + params["bias"]
    return np.sum(h ** 2) + sum(np.sum(v ** 2) for v in scaled.values())


def _pairwise_sum(x, lo, hi):
    if hi - lo == 1:
        return x[lo] ** 2
    mid = (lo + hi) // 2
    return _pairwise_sum(x, lo, mid) + _pairwise_sum(x, mid, hi)


def recursive_pairwise(x):
    return _pairwise_sum(x, 0, len(x)) + np.sum(np.sin(x))


ACTIVATIONS = {
    "relu": lambda z: np.maximum(z, 0.0),
    "gelu": lambda z: 0.5 * z * (1 + np.tanh(0.7978845608 * (z + 0.044715 * z ** 3))),
    "softplus": lambda z: np.logaddexp(0.0, z),
}


def activation_by_name(W, X, act="gelu"):
    return np.sum(ACTIVATIONS[act](X @ W) ** 2)


class Scaler:
    def __init__(self, mean, scale):
        self.mean = mean
        self.scale = scale

    @classmethod
    def fit(cls, X):
        return cls(X.mean(axis=0), X.std(axis=0) + 1e-8)

    @property
    def inverse_scale(self):
        return 1.0 / self.scale

    def transform(self, X):
        return (X - self.mean) * self.inverse_scale


def classmethod_scaler(X, w):
    Z = Scaler.fit(X).transform(X)
    return np.sum(np.tanh(Z @ w) ** 2)


def leaky_relu_masked_write(W, X, slope=0.1):
    h = X @ W
    h = h.copy()
    h[h < 0] *= slope
    return np.sum(h ** 2)


def nan_aware_loss(pred, y):
    # missing targets are NaN: they must not contribute, nor poison the gradient
    err = pred - y
    return np.nansum(err ** 2) / np.sum(~np.isnan(y)) + 0.01 * np.nanmean(np.abs(err) ** 3)


# ---- special points -----------------------------------------------------------------------------


def max_plus_min_tie(x):
    # max + min of two numbers is their sum: smooth at the tie
    return np.max(x) + np.min(x) + 0.1 * np.sum(x ** 2)


def softplus_max_abs(x):
    # the stable softplus spelled with maximum and abs: smooth at 0, derivative 1/2
    return np.sum(np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x))))


def squared_norm_at_zero(W, X, y):
    return np.mean((X @ W - y) ** 2) + 0.1 * np.linalg.norm(W) ** 2


def one_element_reductions(x):
    return np.var(x[:1]) + np.median(x[1:2]) + np.prod(x[2:3]) + np.max(x[3:]) * np.min(x[3:])


def masked_reciprocal(d, w):
    inv = np.where(d != 0, 1.0 / np.where(d != 0, d, 1.0), 0.0)
    return np.sum(w * inv) + np.sum(np.where(d > 0, np.log(np.abs(d) + 1e-300), 0.0))


def float32_layer_norm(x, gamma):
    mu = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + np.float32(1e-5)) * gamma
    return np.sum(y[:, 0] * np.float32(2.0)) + np.sum(y ** 3)


def softmax_tied_rows(logits, labels):
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p = p / p.sum(axis=1, keepdims=True)
    return -np.sum(np.log(p[np.arange(len(labels)), labels]))


def huge_and_tiny_magnitudes(x, scale):
    big = np.logaddexp(0.0, x * scale)  # softplus at +-1e3
    tiny = np.sqrt(x ** 2 * 1e-20 + 1e-30)
    return np.sum(big) + 1e10 * np.sum(tiny)


def hypot_at_origin(x):
    # |v|^2 through hypot and a square: smooth everywhere, gradient 2x
    return np.hypot(x[0], x[1]) ** 2 + np.sum(x ** 2)


def zero_rows_cosine(A, B, eps=1e-8):
    num = np.sum(A * B, axis=1)
    den = np.maximum(np.linalg.norm(A, axis=1) * np.linalg.norm(B, axis=1), eps)
    return np.sum(num / den)


def relu_squared_at_zero(x):
    return np.sum(np.maximum(x, 0.0) ** 2) + np.sum(np.minimum(x, 0.0) ** 3)


def clip_inside_bounds(x):
    # a clip that does not bind anywhere near the point: the identity
    return np.sum(np.clip(x, -10.0, 10.0) ** 3) + np.sum(np.abs(x) ** 2.5)


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


STATISTICS5 = [
    ("student_t_location_scale", student_t_location_scale, lambda r: (np.array([0.1, 0.2, 1.0]), 2 * M(r, 7)), 0),
    ("beta_mle", beta_mle, lambda r: (0.3 * M(r, 2), P(r, 6)), 0),
    ("gamma_mle_xlogy", gamma_mle_xlogy, lambda r: (0.4, -0.2, 0.5 + 2 * P(r, 6)), 0),
    ("gamma_mle_xlogy_theta", gamma_mle_xlogy, lambda r: (0.4, -0.2, 0.5 + 2 * P(r, 6)), 1),
    ("probit_regression", probit_regression, lambda r: (M(r, 3), M(r, 8, 3), (M(r, 8) > 0) * 1.0), 0),
    ("von_mises_nll", von_mises_nll, lambda r: (np.array([0.3, 0.5]), 0.5 + M(r, 6)), 0),
    ("ordinal_logistic", ordinal_logistic, lambda r: (np.array([-0.5, 0.0, -0.3]), M(r, 6, 2), M(r, 2),
                                                     np.array([0, 1, 2, 3, 1, 2])), 0),
    ("pinball_quantiles", pinball_quantiles, lambda r: (M(r, 2, 3), M(r, 6, 2), M(r, 6)), 0),
    ("cauchy_robust_regression", cauchy_robust_regression, lambda r: (M(r, 3), M(r, 7, 3), M(r, 7)), 0),
    ("mvn_from_cholesky_vector", mvn_from_cholesky_vector, lambda r: (0.3 * M(r, 6), M(r, 5, 3)), 0),
    ("scalar_kalman_loglik", scalar_kalman_loglik, lambda r: (np.array([0.8, -1.0, -0.5]), list(M(r, 6))), 0),
    ("poisson_mixture", poisson_mixture, lambda r: (np.array([0.0, 1.5]), np.array([0.2, -0.1]),
                                                   np.array([0., 1, 3, 5, 2, 7])), 0),
]

LIBRARY_STYLE5 = [
    ("dataclass_regulariser", dataclass_regulariser, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("keyword_only_penalty", keyword_only_penalty, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("partial_loss_in_loop", partial_loss_in_loop, lambda r: (M(r, 3), M(r, 5, 3), [M(r, 5), M(r, 5)]), 0),
    ("make_regularised_loss", make_regularised_loss(np.arange(12.0).reshape(4, 3) / 7 - 0.5,
                                                    np.array([1.0, -1.0, 1.0, 1.0]), 0.05),
     lambda r: (M(r, 3),), 0),
    ("early_return_branches", early_return_branches, lambda r: (P(r, 4),), 0),
    ("early_return_large", early_return_branches, lambda r: (2 + P(r, 4),), 0),
    ("fixed_point_tolerance", fixed_point_tolerance, lambda r: (0.9,), 0),
    ("cholesky_with_jitter", cholesky_with_jitter, lambda r: (0.2, M(r, 5, 2), M(r, 5)), 0),
    ("dict_comprehension_params", dict_comprehension_params,
     lambda r: ({"W1": M(r, 3, 2), "W2": M(r, 2, 2), "bias": M(r, 2)}, M(r, 4, 3)), 0),
    ("recursive_pairwise", recursive_pairwise, lambda r: (M(r, 5),), 0),
    ("activation_by_name", activation_by_name, lambda r: (M(r, 3, 2), M(r, 4, 3)), 0),
    ("classmethod_scaler", classmethod_scaler, lambda r: (M(r, 5, 3), M(r, 3)), 0),
    ("leaky_relu_masked_write", leaky_relu_masked_write, lambda r: (M(r, 3, 4), M(r, 5, 3)), 0),
    ("nan_aware_loss", nan_aware_loss, lambda r: (M(r, 6), np.array([0.5, np.nan, -1.0, 2.0, np.nan, 0.0])), 0),
]

SPECIAL5 = [
    ("max_plus_min_tie", max_plus_min_tie, lambda r: (np.array([1.5, 1.5]),), 0),
    ("softplus_max_abs", softplus_max_abs, lambda r: (np.array([0.0, 1.0, -2.0, 0.0]),), 0),
    ("squared_norm_at_zero", squared_norm_at_zero, lambda r: (np.zeros(3), M(r, 5, 3), M(r, 5)), 0),
    ("one_element_reductions", one_element_reductions, lambda r: (np.array([0.7, -1.2, 2.5, 0.4]),), 0),
    ("masked_reciprocal", masked_reciprocal, lambda r: (np.array([0.0, 2.0, -0.5, 0.0]), M(r, 4)), 0),
    ("float32_layer_norm", float32_layer_norm,
     lambda r: (M(r, 3, 4).astype(np.float32), (1.0 + 0.1 * M(r, 4)).astype(np.float32)), 0),
    ("softmax_tied_rows", softmax_tied_rows,
     lambda r: (np.array([[1.0, 1.0, 0.0], [2.0, 2.0, 2.0]]), np.array([0, 2])), 0),
    ("huge_and_tiny_magnitudes", huge_and_tiny_magnitudes, lambda r: (np.array([1.0, -1.0, 0.5]), 1e3), 0),
    ("hypot_at_origin", hypot_at_origin, lambda r: (np.array([0.0, 0.0]),), 0),
    ("zero_rows_cosine", zero_rows_cosine, lambda r: (np.vstack([M(r, 2, 3), np.zeros((1, 3))]), M(r, 3, 3)), 0),
    ("relu_squared_at_zero", relu_squared_at_zero, lambda r: (np.array([0.0, 1.0, -1.0, 0.0]),), 0),
    ("clip_inside_bounds", clip_inside_bounds, lambda r: (np.array([0.0, 1.0, -2.0]),), 0),
]

LIBRARY5 = STATISTICS5 + LIBRARY_STYLE5 + SPECIAL5
