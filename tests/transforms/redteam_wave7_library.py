"""The red team's seventh wave, continued: statistics (Student-t with a learned degree of
freedom, probit ordinal regression with cumsum cutpoints, Cox partial likelihood, multi-quantile
regression, EM responsibilities, log-normal AFT survival, Laplace evidence through slogdet,
ARMA(1,1), stick-breaking weights through cumprod, Holt's trend smoothing), library-style code
(properties and staticmethods, keyword calls of helpers with defaults, while loops with break,
nested functions, functools.reduce, sum() of generators, early returns in helpers, math.* mixed
with np.*, sorted dict keys, star unpacking) and special points (0 under power/abs/sqrt,
ties in sort and max, empty loops, one-element arrays, float32, huge and tiny magnitudes).
See redteam_wave7.py."""

from __future__ import annotations

import functools
import math

import numpy as np
import scipy.special

# ---- statistics ---------------------------------------------------------------------------------


def student_t_learned_df(theta, x):
    loc, log_scale, log_nu = theta[0], theta[1], theta[2]
    scale, nu = np.exp(log_scale), np.exp(log_nu)
    z = (x - loc) / scale
    ll = (scipy.special.gammaln((nu + 1) / 2) - scipy.special.gammaln(nu / 2) - 0.5 * np.log(nu * np.pi)
          - log_scale - (nu + 1) / 2 * np.log1p(z ** 2 / nu))
    return -np.sum(ll)


def probit_ordinal_cumsum(params, X, y):
    beta, c0, log_gaps = params[:2], params[2], params[3:]
    cuts = np.cumsum(np.concatenate(([c0], np.exp(log_gaps))))
    eta = X @ beta
    upper = np.concatenate((cuts, [np.inf]))
    lower = np.concatenate(([-np.inf], cuts))
    p = scipy.special.ndtr(upper[y] - eta) - scipy.special.ndtr(lower[y] - eta)
    return -np.sum(np.log(p))


def cox_partial_likelihood(beta, X, times, events):
    order = np.argsort(-times)
    eta = X[order] @ beta
    log_risk = np.log(np.cumsum(np.exp(eta)))
    return -np.sum((eta - log_risk) * events[order])


def multi_quantile_regression(B, X, y, taus=(0.1, 0.5, 0.9)):
    total = 0.0
    for j, tau in enumerate(taus):
        r = y - X @ B[:, j]
        total = total + np.sum(np.where(r >= 0, tau * r, (tau - 1) * r))
    return total / len(y)


_EVEN = np.log(np.array([0.5, 0.5]))


def em_responsibilities_q(means, x, log_w=_EVEN, sigma=1.0):
    log_p = log_w - 0.5 * ((x[:, None] - means[None, :]) / sigma) ** 2
    resp = np.exp(log_p - scipy.special.logsumexp(log_p, axis=1, keepdims=True))
    return -np.sum(resp * log_p)


def lognormal_aft_censored(beta, X, log_t, observed, sigma=0.8):
    z = (log_t - X @ beta) / sigma
    ll_obs = -0.5 * z ** 2 - np.log(sigma)
    ll_cen = scipy.special.log_ndtr(-z)
    return -np.sum(observed * ll_obs + (1 - observed) * ll_cen)


def laplace_evidence_slogdet(w, X, y, alpha=1.0):
    z = X @ w
    p = scipy.special.expit(z)
    loglik = np.sum(y * z - np.logaddexp(0.0, z))
    H = X.T @ (X * (p * (1 - p))[:, None]) + alpha * np.eye(len(w))
    sign, logdet = np.linalg.slogdet(H)
    return -(loglik - 0.5 * alpha * w @ w) + 0.5 * logdet


def arma11_conditional(params, y):
    phi, theta, log_s = params
    e_prev, total = 0.0, 0.0
    for t in range(1, len(y)):
        e = y[t] - phi * y[t - 1] - theta * e_prev
        total = total + e ** 2
        e_prev = e
    s2 = np.exp(2 * log_s)
    return 0.5 * total / s2 + (len(y) - 1) * log_s


def stick_breaking_weights(logit_v, counts):
    v = scipy.special.expit(logit_v)
    remaining = np.cumprod(1 - v)
    w = v * np.concatenate(([1.0], remaining[:-1]))
    return -np.sum(counts * np.log(w)) + np.sum(np.log1p(-v))


def holt_linear_trend(params, y):
    alpha, beta = scipy.special.expit(params[0]), scipy.special.expit(params[1])
    level, trend = y[0], y[1] - y[0]
    sse = 0.0
    for t in range(1, len(y)):
        pred = level + trend
        sse += (y[t] - pred) ** 2
        new_level = alpha * y[t] + (1 - alpha) * pred
        trend = beta * (new_level - level) + (1 - beta) * trend
        level = new_level
    return sse


# ---- library-style code -------------------------------------------------------------------------


class Standardised:
    def __init__(self, centre, spread):
        self.centre = centre
        self.spread = spread

    @property
    def inverse_spread(self):
        return 1.0 / self.spread

    @staticmethod
    def smooth_abs(u, delta=0.5):
        return np.sqrt(u * u + delta * delta) - delta

    def loss(self, w, X, y):
        z = (X - self.centre) * self.inverse_spread
        return np.mean(self.smooth_abs(z @ w - y))


_SCALER = Standardised(np.array([0.1, -0.2, 0.3]), np.array([1.5, 0.5, 2.0]))


def property_staticmethod_loss(w, X, y):
    return _SCALER.loss(w, X, y)


def _penalised(r, *, scale=1.0, power=2, offset=0.0):
    return scale * np.sum(np.abs(r + offset) ** power)


def keyword_calls_defaults(w, X, y):
    r = X @ w - y
    return _penalised(r) + _penalised(w, scale=0.1) + _penalised(r, power=4, scale=0.01, offset=0.05)


def while_break_bisection_free(a, tol=1e-10):
    # a fixed point x = cos(a x), iterated until it stops moving (a break, not a condition)
    x = 0.5
    it = 0
    while True:
        x_new = np.cos(a * x)
        it += 1
        if abs(x_new - x) < tol or it > 200:
            x = x_new
            break
        x = x_new
    return x ** 2


def nested_function_closure(w, X, y, reg=0.1):
    def predict(v):
        return np.tanh(X @ v)

    def penalty():
        return reg * np.sum(w ** 2)

    return np.mean((predict(w) - y) ** 2) + penalty()


def reduce_product_of_terms(x):
    terms = [1.0 + 0.1 * xi ** 2 for xi in x]
    return math.log(functools.reduce(lambda a, b: a * b, terms))


def sum_of_generator(w, rows, targets):
    return sum((np.dot(row, w) - t) ** 2 for row, t in zip(rows, targets)) / len(targets)


def _guarded_ratio(a, b, eps=1e-8):
    if b < eps:
        return 0.0
    return a / b


def early_return_helper(x):
    total = 0.0
    for i in range(len(x) - 1):
        total = total + _guarded_ratio(x[i] ** 2, 1.0 + x[i + 1] ** 2)
    return total


def math_mixed_numpy(theta, r):
    c, s = math.cos(theta[0]), math.sin(theta[0])
    R = np.array([[c, -s], [s, c]])
    scale = math.exp(theta[1])
    moved = scale * r @ R.T
    return float(np.sum(moved ** 2)) + math.hypot(theta[0], theta[1])


def sorted_dict_keys(params, x):
    out = 0.0
    for k in sorted(params):
        out = out + np.sum(np.sin(params[k] * x[: params[k].size]))
    return out


def star_unpacking_helper(theta, X):
    first, *rest = theta
    base = first * np.ones(X.shape[0])
    for j, coef in enumerate(rest):
        base = base + coef * X[:, j]
    return np.sum(np.logaddexp(0.0, base))


def dict_get_defaults(params, x):
    w = params["w"]
    b = params.get("b", 0.0)
    scale = params.get("scale", 1.0)
    return np.sum((scale * (w * x + b)) ** 2)


def builtin_max_min_abs(p):
    a, b = float(p[0]), float(p[1])
    hi = max(a * a, b + 1.0)
    lo = min(abs(a), abs(b))
    return hi + lo ** 2


# ---- special points -----------------------------------------------------------------------------


def box_cox_power_at_zero(lam, x):
    # d/dlam of x ** lam at x = 0 is 0 (0 ** lam is 0 for lam > 0)
    return np.sum(x ** lam) + np.sum(np.log1p(x)) * lam


def abs_squared_hessian(z):
    return np.sum(np.abs(z) ** 2) + np.sum(z)


def norm_cubed_at_origin(x):
    return np.sum(x ** 2) ** 1.5 + np.sum(x)


def topk_sum_ties(x):
    return np.sum(np.sort(x)[-2:] ** 2)


def empty_loops(x, extra):
    total = np.sum(x ** 2)
    for e in extra:
        total = total + np.sum(e * x)
    for i in range(len(x), len(x)):
        total = total + x[i]
    k = 0
    while k < 0:
        total = total * 2.0
        k += 1
    return total


def one_element_softmax_var(x):
    # one column: the softmax is 1 and the variance 0 whatever x is
    p = np.exp(x) / np.sum(np.exp(x), axis=1, keepdims=True)
    v = np.var(x, axis=1)
    c = np.cumsum(x, axis=1)
    return np.sum(p * x) + np.sum(v) + np.sum(c ** 2)


def float32_cholesky_logdet(a):
    A = a @ a.T + np.eye(a.shape[0], dtype=np.float32)
    L = np.linalg.cholesky(A)
    return np.sum(np.log(np.diag(L))) + np.float32(0.5) * np.sum(a ** 2)


def float32_math_scalars(w, X):
    s = math.exp(0.1) * np.sum(np.tanh(X @ w))
    return s + math.sqrt(2.0) * np.sum(w ** 2)


def softplus_huge_logaddexp(x):
    return np.sum(np.logaddexp(0.0, x)) + np.sum(np.logaddexp(x, -x))


def tiny_magnitudes_log1p_expm1(x):
    return np.sum(np.log1p(x) + np.expm1(x) + np.sinc(x) + np.log(np.cosh(x)))


def huge_scaled_residual(w, X, y):
    r = X @ w - y
    return np.sum(r ** 2) * 1e-150 + np.log(np.sum(np.exp(1e-3 * r)))


def sqrt_zero_in_masked_norm(x):
    # rows of zeros: the row norm has no derivative there, but it is multiplied by a zero weight
    n = np.sqrt(np.sum(x ** 2, axis=1))
    wts = np.array([1.0, 0.0, 2.0])
    return np.sum(wts * n) + np.sum(x ** 2)


def maximum_tie_symmetric(x, y):
    # max + min = x + y even where x == y
    return np.sum(np.maximum(x, y) + np.minimum(x, y))


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


STATISTICS7 = [
    ("student_t_learned_df", student_t_learned_df, lambda r: (np.array([0.2, -0.1, 1.2]), M(r, 8)), 0),
    ("probit_ordinal_cumsum", probit_ordinal_cumsum,
     lambda r: (np.array([0.4, -0.3, -0.5, 0.1, -0.2]), M(r, 7, 2), np.array([0, 1, 2, 3, 1, 2, 0])), 0),
    ("cox_partial_likelihood", cox_partial_likelihood,
     lambda r: (0.3 * M(r, 3), M(r, 7, 3), np.array([5.0, 2.0, 7.5, 1.0, 3.3, 9.0, 4.1]),
                np.array([1.0, 1, 0, 1, 0, 1, 1])), 0),
    ("multi_quantile_regression", multi_quantile_regression, lambda r: (M(r, 2, 3), M(r, 9, 2), M(r, 9)), 0),
    ("em_responsibilities_q", em_responsibilities_q,
     lambda r: (np.array([-1.0, 1.5]), np.concatenate([M(r, 4) - 1, M(r, 4) + 1.5])), 0),
    ("lognormal_aft_censored", lognormal_aft_censored,
     lambda r: (M(r, 2), M(r, 7, 2), M(r, 7), np.array([1.0, 0, 1, 1, 0, 1, 0])), 0),
    ("laplace_evidence_slogdet", laplace_evidence_slogdet,
     lambda r: (0.3 * M(r, 3), M(r, 8, 3), (M(r, 8) > 0) * 1.0), 0),
    ("arma11_conditional", arma11_conditional, lambda r: (np.array([0.5, 0.2, -0.3]), np.cumsum(M(r, 9)) * 0.3), 0),
    ("stick_breaking_weights", stick_breaking_weights, lambda r: (M(r, 4), np.array([5.0, 3, 1, 2])), 0),
    ("holt_linear_trend", holt_linear_trend, lambda r: (np.array([0.3, -0.5]), np.cumsum(1 + 0.3 * M(r, 8))), 0),
]

LIBRARY_STYLE7 = [
    ("property_staticmethod_loss", property_staticmethod_loss, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("keyword_calls_defaults", keyword_calls_defaults, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("while_break_fixed_point", while_break_bisection_free, lambda r: (0.8,), 0),
    ("nested_function_closure", nested_function_closure, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("reduce_product_of_terms", reduce_product_of_terms, lambda r: (M(r, 4),), 0),
    ("sum_of_generator", sum_of_generator, lambda r: (M(r, 3), list(M(r, 4, 3)), list(M(r, 4))), 0),
    ("early_return_helper", early_return_helper, lambda r: (M(r, 5),), 0),
    ("math_mixed_numpy", math_mixed_numpy, lambda r: (np.array([0.4, -0.2]), M(r, 5, 2)), 0),
    ("sorted_dict_keys", sorted_dict_keys, lambda r: ({"b": M(r, 2), "a": M(r, 3)}, M(r, 4)), 0),
    ("star_unpacking_helper", star_unpacking_helper, lambda r: (M(r, 3), M(r, 6, 2)), 0),
    ("dict_get_defaults", dict_get_defaults, lambda r: ({"w": M(r, 3), "scale": 1.5}, M(r, 3)), 0),
    ("builtin_max_min_abs", builtin_max_min_abs, lambda r: (np.array([1.3, -0.4]),), 0),
]

SPECIAL7 = [
    ("box_cox_power_at_zero", box_cox_power_at_zero, lambda r: (1.7, np.array([0.0, 0.5, 2.0, 0.0])), 0),
    ("abs_squared_hessian", abs_squared_hessian, lambda r: (np.array([0.0, 1.5, -0.7]),), 0),
    ("norm_cubed_at_origin", norm_cubed_at_origin, lambda r: (np.zeros(3),), 0),
    ("topk_sum_ties", topk_sum_ties, lambda r: (np.array([1.0, 3.0, 3.0, 0.0]),), 0),
    ("empty_loops", empty_loops, lambda r: (M(r, 3), []), 0),
    ("one_element_softmax_var", one_element_softmax_var, lambda r: (M(r, 4, 1),), 0),
    ("float32_cholesky_logdet", float32_cholesky_logdet, lambda r: (M(r, 3, 3).astype(np.float32),), 0),
    ("float32_math_scalars", float32_math_scalars,
     lambda r: (M(r, 3).astype(np.float32), M(r, 4, 3).astype(np.float32)), 0),
    ("softplus_huge_logaddexp", softplus_huge_logaddexp, lambda r: (np.array([800.0, -800.0, 0.5, 40.0]),), 0),
    ("tiny_magnitudes_log1p_expm1", tiny_magnitudes_log1p_expm1, lambda r: (np.array([1e-20, -1e-18, 3e-17]),), 0),
    ("huge_scaled_residual", huge_scaled_residual, lambda r: (M(r, 3), 1e3 * M(r, 5, 3), 1e3 * M(r, 5)), 0),
    ("sqrt_zero_in_masked_norm", sqrt_zero_in_masked_norm,
     lambda r: (np.array([[1.0, 2.0], [0.0, 0.0], [-1.0, 0.5]]),), 0),
    ("maximum_tie_symmetric", maximum_tie_symmetric,
     lambda r: (np.array([1.0, 2.0, -0.5]), np.array([1.0, 0.5, -0.5])), 0),
]

LIBRARY7 = STATISTICS7 + LIBRARY_STYLE7 + SPECIAL7
