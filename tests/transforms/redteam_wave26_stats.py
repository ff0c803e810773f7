"""The red team's twenty-sixth wave: statistics and losses written as users write them
(test_redteam_wave26.py runs them through every transformation)."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

from .redteam_wave26_draws import F, M, P

LOG_2PI = math.log(2 * math.pi)


def logsumexp(a, axis=None):
    m = np.max(a, axis=axis, keepdims=True)
    return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(a - m), axis=axis))


def gmm_loglik(mu, x, log_w, sigma=1.0):
    d = x[:, None] - mu[None, :]
    logp = -0.5 * (d / sigma) ** 2 - math.log(sigma) - 0.5 * LOG_2PI + log_w
    return np.sum(logsumexp(logp, axis=1))


def gmm_weights_softmax(logits, x, mu):
    log_w = logits - np.log(np.sum(np.exp(logits)))
    return gmm_loglik(mu, x, log_w)


def student_t_nll(nu, x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return -np.sum(
        gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu * np.pi) - np.log(scale)
        - (nu + 1) / 2 * np.log1p(z**2 / nu)
    )


def student_t_loc(loc, x, nu=4.0):
    return np.sum((nu + 1) / 2 * np.log1p((x - loc) ** 2 / nu))


def huber(r, delta=1.0):
    a = np.abs(r)
    return np.sum(np.where(a <= delta, 0.5 * r**2, delta * (a - 0.5 * delta)))


def huber_regression(w, X, y, delta=0.5):
    return huber(X @ w - y, delta)


def huber_loop(r, delta=1.0):
    total = 0.0
    for ri in r:
        if abs(ri) < delta:
            total += 0.5 * ri * ri
        else:
            total += delta * (abs(ri) - delta / 2)
    return total


def pinball(q_pred, y, tau=0.3):
    e = y - q_pred
    return np.mean(np.maximum(tau * e, (tau - 1) * e))


def multi_quantile(Q, y, taus=(0.1, 0.5, 0.9)):
    loss = 0.0
    for k, tau in enumerate(taus):
        e = y - Q[:, k]
        loss = loss + np.mean(np.where(e >= 0, tau * e, (tau - 1) * e))
    return loss


def weighted_mean_var(x, w):
    m = np.sum(w * x) / np.sum(w)
    return np.sum(w * (x - m) ** 2) / np.sum(w)


def clipped_bce(logits, y, eps=1e-7):
    p = 1 / (1 + np.exp(-logits))
    p = np.clip(p, eps, 1 - eps)
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


def clipped_prob_float32(p, y):
    p = np.clip(p, 1e-6, 1.0 - 1e-6)
    return -np.mean(y * np.log(p) + (1 - y) * np.log1p(-p))


def poisson_nll(log_rate, k):
    return np.sum(np.exp(log_rate) - k * log_rate + gammaln(k + 1))


def negative_binomial(log_mu, k, alpha=0.5):
    mu = np.exp(log_mu)
    r = 1 / alpha
    return -np.sum(gammaln(k + r) - gammaln(r) + r * np.log(r / (r + mu)) + k * np.log(mu / (r + mu)))


def beta_logpdf(a, x):
    b = 2.0
    return np.sum((a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - (gammaln(a) + gammaln(b) - gammaln(a + b)))


def mahalanobis(mu, X, S):
    Sinv = np.linalg.inv(S)
    d = X - mu
    return np.sum(np.einsum("ni,ij,nj->n", d, Sinv, d))


def mvn_chol_loglik(L_flat, X):
    L = np.zeros((2, 2))
    L[0, 0] = np.exp(L_flat[0])
    L[1, 0] = L_flat[1]
    L[1, 1] = np.exp(L_flat[2])
    z = np.linalg.solve(L, X.T)
    return -0.5 * np.sum(z**2) - X.shape[0] * np.sum(np.log(np.diag(L)))


def kl_gaussians(mu, log_var):
    return -0.5 * np.sum(1 + log_var - mu**2 - np.exp(log_var))


def kl_categorical(logits_p, logits_q):
    lp = logits_p - logsumexp(logits_p)
    lq = logits_q - logsumexp(logits_q)
    return np.sum(np.exp(lp) * (lp - lq))


def entropy_of_softmax(z):
    p = np.exp(z - z.max())
    p /= p.sum()
    return -np.sum(p * np.log(p))


def zscore_then_loss(x):
    z = (x - np.mean(x)) / np.std(x, ddof=1)
    return np.sum(z**3) / len(x)


def skew_kurt(x):
    m = x.mean()
    s2 = ((x - m) ** 2).mean()
    return ((x - m) ** 3).mean() / s2**1.5 + ((x - m) ** 4).mean() / s2**2


def median_of_three_soft(x):
    return np.median(x) + np.percentile(x, 75) - np.percentile(x, 25)


def logistic_regression_ll(beta, X, y):
    eta = X @ beta
    return np.sum(y * eta - np.logaddexp(0, eta))


def probit_loglik(beta, X, y):
    from scipy.stats import norm

    p = norm.cdf(X @ beta)
    return np.sum(y * np.log(p) + (1 - y) * np.log(1 - p))


def ridge_closed_form(lam, X, y):
    A = X.T @ X + lam * np.eye(X.shape[1])
    w = np.linalg.solve(A, X.T @ y)
    return np.sum((X @ w - y) ** 2)


def ar1_loglik(phi, x):
    e = x[1:] - phi * x[:-1]
    return -0.5 * np.sum(e**2) - 0.5 * (1 - phi**2) * x[0] ** 2 + 0.5 * np.log(1 - phi**2)


def kernel_density(h, x, data):
    u = (x[:, None] - data[None, :]) / h
    return np.sum(np.log(np.mean(np.exp(-0.5 * u**2), axis=1) / h))


def cov_logdet(X):
    C = np.cov(X, rowvar=False) + 0.1 * np.eye(X.shape[1])
    sign, logdet = np.linalg.slogdet(C)
    return logdet


def corrcoef_loss(X):
    R = np.corrcoef(X.T)
    return np.sum(np.triu(R, 1) ** 2)


def dirichlet_mean_loss(alpha):
    a0 = alpha.sum()
    mean = alpha / a0
    var = alpha * (a0 - alpha) / (a0**2 * (a0 + 1))
    return np.sum(mean**2) + np.sum(var)


def gaussian_nll_float32(mu, x):
    return np.float32(0.5) * np.sum((x - mu) ** 2) + np.float32(0.5) * x.size * np.float32(LOG_2PI)


def tobit_like(beta, X, y, c=0.0):
    eta = X @ beta
    censored = y <= c
    ll = np.where(censored, np.log1p(-np.tanh(eta) * 0.5), -0.5 * (y - eta) ** 2)
    return -np.sum(ll)


def one_hot_nll(logits, labels):
    Y = np.eye(logits.shape[1])[labels]
    lse = np.log(np.exp(logits).sum(axis=1))
    return -np.sum(Y * logits) + np.sum(lse)


PROGRAMS = [
    ("gmm_loglik", gmm_loglik, lambda r: (M(r, 3), M(r, 6), np.log(np.full(3, 1 / 3))), 0),
    ("gmm_loglik_sigma", gmm_loglik, lambda r: (M(r, 3), M(r, 6), np.log(np.full(3, 1 / 3)), 1.3), 3),
    ("gmm_weights_softmax", gmm_weights_softmax, lambda r: (M(r, 3), M(r, 6), M(r, 3)), 0),
    ("student_t_nll", student_t_nll, lambda r: (4.0, M(r, 6)), 0),
    ("student_t_nll_scale", student_t_nll, lambda r: (4.0, M(r, 6), 0.1, 1.5), 3),
    ("student_t_loc", student_t_loc, lambda r: (0.2, M(r, 6)), 0),
    ("huber_regression", huber_regression, lambda r: (M(r, 3), M(r, 8, 3), M(r, 8)), 0),
    ("huber_loop", huber_loop, lambda r: (np.array([0.3, -1.7, 0.8, 2.4, -0.1]),), 0),
    ("pinball", pinball, lambda r: (M(r, 6), M(r, 6)), 0),
    ("multi_quantile", multi_quantile, lambda r: (M(r, 5, 3), M(r, 5)), 0),
    ("weighted_mean_var", weighted_mean_var, lambda r: (M(r, 5), P(r, 5)), 0),
    ("weighted_mean_var_w", weighted_mean_var, lambda r: (M(r, 5), P(r, 5)), 1),
    ("clipped_bce", clipped_bce, lambda r: (M(r, 6), (M(r, 6) > 0).astype(float)), 0),
    ("clipped_prob_float32", clipped_prob_float32,
     lambda r: (r.uniform(0.1, 0.9, 5).astype(np.float32), (M(r, 5) > 0).astype(np.float32)), 0),
    ("poisson_nll", poisson_nll, lambda r: (M(r, 5) * 0.5, np.array([0.0, 1, 3, 2, 5])), 0),
    ("negative_binomial", negative_binomial, lambda r: (M(r, 5) * 0.5, np.array([0.0, 1, 3, 2, 5])), 0),
    ("negative_binomial_alpha", negative_binomial, lambda r: (M(r, 5) * 0.5, np.array([0.0, 1, 3, 2, 5]), 0.7), 2),
    ("beta_logpdf", beta_logpdf, lambda r: (1.7, r.uniform(0.1, 0.9, 5)), 0),
    ("mahalanobis", mahalanobis, lambda r: (M(r, 2), M(r, 5, 2), np.array([[2.0, 0.3], [0.3, 1.0]])), 0),
    ("mahalanobis_cov", mahalanobis, lambda r: (M(r, 2), M(r, 5, 2), np.array([[2.0, 0.3], [0.3, 1.0]])), 2),
    ("mvn_chol_loglik", mvn_chol_loglik, lambda r: (M(r, 3) * 0.3, M(r, 5, 2)), 0),
    ("kl_gaussians", kl_gaussians, lambda r: (M(r, 4), M(r, 4) * 0.3), 1),
    ("kl_categorical", kl_categorical, lambda r: (M(r, 4), M(r, 4)), 1),
    ("entropy_of_softmax", entropy_of_softmax, lambda r: (M(r, 5),), 0),
    ("zscore_then_loss", zscore_then_loss, lambda r: (M(r, 6),), 0),
    ("skew_kurt", skew_kurt, lambda r: (M(r, 7),), 0),
    ("median_of_three_soft", median_of_three_soft, lambda r: (np.array([0.1, 2.3, -1.2, 0.7, 1.5, -0.4]),), 0),
    ("logistic_regression_ll", logistic_regression_ll, lambda r: (M(r, 3), M(r, 8, 3), (M(r, 8) > 0) * 1.0), 0),
    ("probit_loglik", probit_loglik, lambda r: (M(r, 3) * 0.3, M(r, 8, 3), (M(r, 8) > 0) * 1.0), 0),
    ("ridge_closed_form", ridge_closed_form, lambda r: (0.5, M(r, 8, 3), M(r, 8)), 0),
    ("ridge_closed_form_X", ridge_closed_form, lambda r: (0.5, M(r, 6, 2), M(r, 6)), 1),
    ("ar1_loglik", ar1_loglik, lambda r: (0.4, M(r, 8)), 0),
    ("kernel_density", kernel_density, lambda r: (0.7, M(r, 4), M(r, 6)), 0),
    ("kernel_density_data", kernel_density, lambda r: (0.7, M(r, 4), M(r, 6)), 2),
    ("cov_logdet", cov_logdet, lambda r: (M(r, 6, 3),), 0),
    ("corrcoef_loss", corrcoef_loss, lambda r: (M(r, 6, 3),), 0),
    ("dirichlet_mean_loss", dirichlet_mean_loss, lambda r: (P(r, 4),), 0),
    ("gaussian_nll_float32", gaussian_nll_float32, lambda r: (F(r, 4), F(r, 4)), 0),
    ("tobit_like", tobit_like, lambda r: (M(r, 2), M(r, 6, 2), M(r, 6)), 0),
    ("one_hot_nll", one_hot_nll, lambda r: (M(r, 5, 3), np.array([0, 2, 1, 1, 0])), 0),
]
