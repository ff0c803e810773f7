"""The red team's wave 28a, econometrics and statistics: GLMs, AR(p) likelihoods, Kalman filters,
logsumexp and softplus by hand, mixtures; and optimisers' inner loops (a few gradient steps
unrolled inside the function) with Python idioms: while counters, early returns, defaults,
keyword arguments, comprehensions, x**0 at 0."""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave28a_signal import F, M, P


def softplus(z):
    return np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z)))


def logsumexp(a, axis=None):
    m = np.max(a, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True))
    return np.squeeze(out) if axis is None else np.squeeze(out, axis=axis)


def logistic_glm(beta, X, y, l2=0.1):
    eta = X @ beta
    return np.sum(softplus(eta) - y * eta) + 0.5 * l2 * beta @ beta


def logistic_glm_strong(beta, X, y):
    return logistic_glm(beta, X, y, l2=0.5)


def poisson_glm_offset(beta, X, counts, exposure):
    eta = X @ beta + np.log(exposure)
    return np.sum(np.exp(eta) - counts * eta)


def gamma_glm(beta, X, y, shape=2.0):
    mu = np.exp(X @ beta)
    return np.sum(shape * (y / mu + np.log(mu)))


def negative_binomial_ll(params, y):
    mu, alpha = math.exp(params[0]), math.exp(params[1])
    r = 1.0 / alpha
    from scipy.special import gammaln
    ll = gammaln(y + r) - gammaln(r) - gammaln(y + 1) + r * np.log(r / (r + mu)) + y * np.log(mu / (r + mu))
    return -np.sum(ll)


def ar_p_loglik(phi, x, sigma=1.0):
    p = len(phi)
    resid = []
    for t in range(p, len(x)):
        pred = sum(phi[k] * x[t - k - 1] for k in range(p))
        resid.append(x[t] - pred)
    e = np.array(resid)
    return -0.5 * np.sum(e**2) / sigma**2 - len(e) * math.log(sigma)


def ar_p_lagmatrix(phi, x):
    p = phi.shape[0]
    lags = np.column_stack([x[p - k - 1:len(x) - k - 1] for k in range(p)])
    e = x[p:] - lags @ phi
    return 0.5 * np.sum(e**2)


def ma1_loglik(theta, x):
    eps_prev = 0.0
    ll = 0.0
    for xt in x:
        eps = xt - theta * eps_prev
        ll -= 0.5 * eps**2
        eps_prev = eps
    return ll


def kalman_filter_2d(q, ys):
    F_ = np.array([[1.0, 1.0], [0.0, 1.0]])
    H = np.array([1.0, 0.0])
    Q = q * np.eye(2)
    m = np.zeros(2)
    Pm = np.eye(2)
    ll = 0.0
    for y in ys:
        m = F_ @ m
        Pm = F_ @ Pm @ F_.T + Q
        S = H @ Pm @ H + 0.5
        K = Pm @ H / S
        v = y - H @ m
        m = m + K * v
        Pm = Pm - np.outer(K, H @ Pm)
        ll += -0.5 * (math.log(2 * math.pi * S) + v * v / S)
    return ll


def kalman_smoother_rts(r_noise, ys, q=0.1):
    ms, ps = [], []
    m, p = 0.0, 1.0
    for y in ys:
        p = p + q
        k = p / (p + r_noise)
        m = m + k * (y - m)
        p = (1 - k) * p
        ms.append(m)
        ps.append(p)
    sm = ms[-1]
    total = sm**2
    for t in range(len(ys) - 2, -1, -1):
        g = ps[t] / (ps[t] + q)
        sm = ms[t] + g * (sm - ms[t])
        total += sm**2
    return total


def gaussian_mixture_ll(params, x):
    w_logit, mu1, mu2, log_s = params
    w = 1.0 / (1.0 + math.exp(-w_logit))
    s = math.exp(log_s)
    comps = np.stack([math.log(w) - 0.5 * ((x - mu1) / s) ** 2,
                      math.log(1.0 - w) - 0.5 * ((x - mu2) / s) ** 2])
    return np.sum(logsumexp(comps, axis=0)) - len(x) * log_s


def mixture_k_components(logits, means, x):
    logw = logits - logsumexp(logits)
    ll = logw[:, None] - 0.5 * (x[None, :] - means[:, None]) ** 2
    return -np.sum(logsumexp(ll, axis=0))


def zero_inflated_poisson(params, y):
    pi = 1.0 / (1.0 + np.exp(-params[0]))
    lam = np.exp(params[1])
    ll_zero = np.log(pi + (1 - pi) * np.exp(-lam))
    ll_pos = np.log(1 - pi) - lam + y * np.log(lam)
    return -np.sum(np.where(y == 0, ll_zero, ll_pos))


def ordinal_probit_like(cuts, eta):
    from scipy.special import expit
    c = np.cumsum(np.concatenate([cuts[:1], np.exp(cuts[1:])]))
    cdf = expit(c[None, :] - eta[:, None])
    probs = np.diff(np.concatenate([np.zeros((len(eta), 1)), cdf, np.ones((len(eta), 1))], axis=1), axis=1)
    return np.sum(np.log(probs[:, 1]))


def huberised_ols_while(beta0, X, y, lr=0.05, steps=4):
    beta = beta0
    k = 0
    while k < steps:
        r = y - X @ beta
        psi = np.clip(r, -1.0, 1.0)
        beta = beta + lr * X.T @ psi
        k += 1
    return np.sum((y - X @ beta) ** 2)


def newton_logistic_two_steps(beta, X, y):
    for _ in range(2):
        p = 1.0 / (1.0 + np.exp(-(X @ beta)))
        g = X.T @ (p - y)
        H = X.T @ (X * (p * (1 - p))[:, None]) + 0.1 * np.eye(len(beta))
        beta = beta - np.linalg.solve(H, g)
    return np.sum(beta**2)


def ridge_gd_unrolled(lam, X, y, lr=0.05):
    w = np.zeros(X.shape[1])
    for _ in range(5):
        grad = X.T @ (X @ w - y) + lam * w
        w = w - lr * grad
    return np.sum((X @ w - y) ** 2)


def rmsprop_steps(x0, decay=0.9, lr=0.05):
    x = x0
    s = np.zeros_like(x0)
    for _ in range(4):
        g = 2 * x + np.cos(x)
        s = decay * s + (1 - decay) * g**2
        x = x - lr * g / (np.sqrt(s) + 1e-8)
    return np.sum(x**2 + np.sin(x))


def early_stop_descent(x0, tol=1e-12):
    x = x0
    for _ in range(6):
        g = 4 * x**3 - 2 * x
        if np.max(np.abs(g)) < tol:
            return np.sum(x**4 - x**2)
        x = x - 0.05 * g
    return np.sum(x**4 - x**2)


def variance_components(params, y, groups):
    sigma_b, sigma_e = math.exp(params[0]), math.exp(params[1])
    ll = 0.0
    for g in sorted(set(groups)):
        yg = np.array([yi for yi, gi in zip(y, groups) if gi == g])
        n = len(yg)
        V = sigma_e**2 * np.eye(n) + sigma_b**2 * np.ones((n, n))
        sign, logdet = np.linalg.slogdet(V)
        ll += -0.5 * (logdet + yg @ np.linalg.solve(V, yg))
    return ll


def probit_ll_erf(beta, X, y):
    z = X @ beta
    cdf = np.array([0.5 * (1.0 + math.erf(zi / math.sqrt(2.0))) for zi in z])
    cdf = np.clip(cdf, 1e-10, 1 - 1e-10)
    return -np.sum(y * np.log(cdf) + (1 - y) * np.log(1 - cdf))


def polynomial_power_zero(c, x):
    """sum_k c_k x**k with x**0 at x = 0 (the constant term's derivative must stay 0)."""
    return sum(c[k] * x**k for k in range(len(c)))


def powers_at_zero(x):
    return np.sum(x**0 * 3.0 + x**1 + x**2)


def student_t_regression(beta, X, y, nu=4.0):
    r = y - X @ beta
    return np.sum((nu + 1) / 2 * np.log1p(r**2 / nu))


def softmax_regression_float32(W, X, labels):
    logits = X @ W
    logits = logits - np.max(logits, axis=1, keepdims=True)
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(len(labels)), labels])


def tobit_ll(beta, X, y, c=0.0):
    from scipy.stats import norm
    mu = X @ beta
    censored = y <= c
    ll = np.where(censored, norm.logcdf((c - mu)), norm.logpdf(y - mu))
    return np.sum(ll)


def hazard_weibull(params, t, event):
    k, lam = np.exp(params[0]), np.exp(params[1])
    log_h = np.log(k / lam) + (k - 1) * np.log(t / lam)
    cum_h = (t / lam) ** k
    return np.sum(event * log_h - cum_h)


def em_two_steps(mu, x):
    """Two EM steps of a two-component mixture with unit variances, unrolled."""
    m1, m2 = mu[0], mu[1]
    for _ in range(2):
        a = np.exp(-0.5 * (x - m1) ** 2)
        b = np.exp(-0.5 * (x - m2) ** 2)
        resp = a / (a + b)
        m1 = np.sum(resp * x) / np.sum(resp)
        m2 = np.sum((1 - resp) * x) / np.sum(1 - resp)
    return m1 * m2


def design(r, n=6, k=3):
    return M(r, n, k)


def two_clusters(r):
    return np.concatenate([M(r, 4) - 2, M(r, 4) + 2])


def coins(r, n):
    return (r.random(n) > 0.5).astype(float)


STATS = [
    ("logistic_glm", logistic_glm, lambda r: (M(r, 3), design(r), coins(r, 6)), 0),
    ("logistic_glm_strong", logistic_glm_strong, lambda r: (M(r, 3), design(r), coins(r, 6)), 0),
    ("poisson_glm_offset", poisson_glm_offset, lambda r: (0.2 * M(r, 3), design(r), r.poisson(2, 6) * 1.0, P(r, 6)), 0),
    ("gamma_glm", gamma_glm, lambda r: (0.2 * M(r, 3), design(r), P(r, 6)), 0),
    ("negative_binomial_ll", negative_binomial_ll, lambda r: (np.array([0.5, -0.5]), r.poisson(2, 8) * 1.0), 0),
    ("ar_p_loglik", ar_p_loglik, lambda r: (np.array([0.5, -0.2]), M(r, 8)), 0),
    ("ar_p_loglik_x", ar_p_loglik, lambda r: (np.array([0.5, -0.2]), M(r, 8)), 1),
    ("ar_p_lagmatrix", ar_p_lagmatrix, lambda r: (np.array([0.5, -0.2, 0.1]), M(r, 9)), 0),
    ("ma1_loglik", ma1_loglik, lambda r: (0.4, M(r, 7)), 0),
    ("kalman_filter_2d", kalman_filter_2d, lambda r: (0.2, M(r, 6)), 0),
    ("kalman_filter_2d_ys", kalman_filter_2d, lambda r: (0.2, M(r, 6)), 1),
    ("kalman_smoother_rts", kalman_smoother_rts, lambda r: (0.5, M(r, 5)), 0),
    ("kalman_smoother_rts_ys", kalman_smoother_rts, lambda r: (0.5, M(r, 5)), 1),
    ("gaussian_mixture_ll", gaussian_mixture_ll, lambda r: ((0.2, -1.0, 1.0, 0.1), 1.5 * M(r, 8)), 0),
    ("mixture_k_components", mixture_k_components, lambda r: (M(r, 3), M(r, 3), M(r, 7)), 0),
    ("mixture_k_components_means", mixture_k_components, lambda r: (M(r, 3), M(r, 3), M(r, 7)), 1),
    ("zero_inflated_poisson", zero_inflated_poisson,
     lambda r: (np.array([-0.5, 0.4]), np.array([0, 1, 0, 3, 2, 0.0])), 0),
    ("ordinal_probit_like", ordinal_probit_like, lambda r: (np.array([-0.5, 0.2]), 0.5 * M(r, 5)), 0),
    ("huberised_ols_while", huberised_ols_while, lambda r: (0.1 * M(r, 3), design(r), M(r, 6)), 0),
    ("newton_logistic_two_steps", newton_logistic_two_steps, lambda r: (0.1 * M(r, 3), design(r), coins(r, 6)), 0),
    ("ridge_gd_unrolled", ridge_gd_unrolled, lambda r: (0.3, design(r), M(r, 6)), 0),
    ("ridge_gd_unrolled_y", ridge_gd_unrolled, lambda r: (0.3, design(r), M(r, 6)), 2),
    ("rmsprop_steps", rmsprop_steps, lambda r: (M(r, 3),), 0),
    ("early_stop_descent", early_stop_descent, lambda r: (M(r, 3),), 0),
    ("variance_components", variance_components, lambda r: (np.array([0.1, -0.2]), M(r, 6), [0, 0, 1, 1, 1, 2]), 0),
    ("probit_ll_erf", probit_ll_erf, lambda r: (0.5 * M(r, 3), design(r), coins(r, 6)), 0),
    ("polynomial_power_zero", polynomial_power_zero, lambda r: (M(r, 4), 0.0), 0),
    ("polynomial_power_zero_x", polynomial_power_zero, lambda r: (M(r, 4), 0.0), 1),
    ("powers_at_zero", powers_at_zero, lambda r: (np.array([0.0, 0.5, -1.0]),), 0),
    ("student_t_regression", student_t_regression, lambda r: (M(r, 3), design(r), M(r, 6)), 0),
    ("softmax_regression_float32", softmax_regression_float32,
     lambda r: (F(r, 3, 4), F(r, 5, 3), r.integers(0, 4, 5)), 0),
    ("tobit_ll", tobit_ll, lambda r: (M(r, 3), design(r), np.maximum(M(r, 6), 0.0)), 0),
    ("hazard_weibull", hazard_weibull, lambda r: (np.array([0.2, 0.1]), P(r, 6), coins(r, 6)), 0),
    ("em_two_steps", em_two_steps, lambda r: (np.array([-1.0, 1.0]), two_clusters(r)), 0),
    ("em_two_steps_x", em_two_steps, lambda r: (np.array([-1.0, 1.0]), two_clusters(r)), 1),
]
