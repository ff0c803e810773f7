"""The red team's seventeenth wave, continued: log-likelihoods written out by hand from a textbook's
density rather than called from scipy.stats (a Student-t with its gammaln constant and a learned
degrees of freedom, a negative binomial in the (mu, alpha) parametrisation, von Mises through
np.log(np.i0), a zero-inflated Poisson whose zero and non-zero cases are picked by np.where on the data,
a hurdle lognormal, ordinal logistic regression with cutpoints kept ordered by a cumsum of exps, a
Dirichlet, a beta regression, a Tobit model with a censored tail through log_ndtr, a Weibull with right
censoring, a Skellam-free Poisson difference by a truncated sum, a two-component mixture by
np.logaddexp in a loop, a Laplace, a log-normal, a Gumbel, a Pareto tail above a threshold, a
generalised Poisson), and estimators differentiated through (the MLE of a Gaussian by its closed form,
a method-of-moments gamma, a kernel density's leave-one-out log score, an empirical Bayes shrinkage).
See redteam_wave17.py.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import digamma, gammaln, i0e, log_ndtr, logsumexp


def M(rng, *shape):
    return rng.normal(size=shape)


LOG_2PI = math.log(2 * math.pi)


def student_t_nll(params, x):
    mu, log_sigma, log_nu = params
    sigma, nu = np.exp(log_sigma), np.exp(log_nu)
    z = (x - mu) / sigma
    logpdf = (gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu * np.pi) - log_sigma
              - (nu + 1) / 2 * np.log1p(z ** 2 / nu))
    return -np.sum(logpdf)


def negbin_mu_alpha(params, y):
    log_mu, log_alpha = params
    mu, alpha = np.exp(log_mu), np.exp(log_alpha)
    r = 1.0 / alpha
    ll = (gammaln(y + r) - gammaln(r) - gammaln(y + 1) + r * np.log(r / (r + mu)) + y * np.log(mu / (r + mu)))
    return -ll.sum()


def von_mises_nll(params, theta):
    mu, log_kappa = params
    kappa = np.exp(log_kappa)
    return -np.sum(kappa * np.cos(theta - mu) - np.log(2 * np.pi * np.i0(kappa)))


def von_mises_i0e(params, theta):
    mu, log_kappa = params
    kappa = np.exp(log_kappa)
    log_i0 = np.log(i0e(kappa)) + kappa
    return -np.sum(kappa * np.cos(theta - mu) - np.log(2 * np.pi) - log_i0)


def zip_nll(params, y):
    logit_pi, log_lam = params
    pi = 1 / (1 + np.exp(-logit_pi))
    lam = np.exp(log_lam)
    ll_zero = np.log(pi + (1 - pi) * np.exp(-lam))
    ll_pos = np.log(1 - pi) - lam + y * log_lam - gammaln(y + 1)
    return -np.sum(np.where(y == 0, ll_zero, ll_pos))


def hurdle_lognormal(params, y):
    logit_p, mu, log_s = params
    p = 1 / (1 + np.exp(-logit_p))
    pos = y > 0
    s = np.exp(log_s)
    ly = np.log(y[pos])
    ll = np.sum(~pos) * np.log(1 - p) + np.sum(pos) * np.log(p)
    ll += np.sum(-ly - log_s - 0.5 * LOG_2PI - 0.5 * ((ly - mu) / s) ** 2)
    return -ll


def ordinal_logistic(params, X, y, n_classes=4):
    w = params[:X.shape[1]]
    raw = params[X.shape[1]:]
    cuts = np.cumsum(np.concatenate([raw[:1], np.exp(raw[1:])]))
    eta = X @ w
    total = 0.0
    for i in range(len(y)):
        k = y[i]
        upper = 1.0 if k == n_classes - 1 else 1 / (1 + np.exp(-(cuts[k] - eta[i])))
        lower = 0.0 if k == 0 else 1 / (1 + np.exp(-(cuts[k - 1] - eta[i])))
        total -= np.log(upper - lower)
    return total


def dirichlet_nll(log_alpha, P):
    alpha = np.exp(log_alpha)
    n = P.shape[0]
    return -(n * (gammaln(alpha.sum()) - gammaln(alpha).sum()) + np.sum((alpha - 1) * np.log(P)))


def beta_regression(params, X, y):
    w, log_phi = params[:-1], params[-1]
    mu = 1 / (1 + np.exp(-(X @ w)))
    phi = np.exp(log_phi)
    a, b = mu * phi, (1 - mu) * phi
    ll = gammaln(phi) - gammaln(a) - gammaln(b) + (a - 1) * np.log(y) + (b - 1) * np.log1p(-y)
    return -ll.sum()


def tobit_nll(params, X, y, lower=0.0):
    w, log_s = params[:-1], params[-1]
    s = np.exp(log_s)
    mu = X @ w
    censored = y <= lower
    ll_c = log_ndtr((lower - mu[censored]) / s)
    z = (y[~censored] - mu[~censored]) / s
    ll_o = -0.5 * z ** 2 - 0.5 * LOG_2PI - log_s
    return -(ll_c.sum() + ll_o.sum())


def weibull_censored(params, t, event):
    log_k, log_lam = params
    k, lam = np.exp(log_k), np.exp(log_lam)
    z = (t / lam) ** k
    ll = event * (log_k - log_lam + (k - 1) * (np.log(t) - log_lam)) - z
    return -np.sum(ll)


def poisson_difference(params, d, terms=30):
    lam1, lam2 = np.exp(params)
    total = 0.0
    for di in d:
        s = 0.0
        for k in range(max(0, -di), max(0, -di) + terms):
            s += math.exp((k + di) * math.log(lam1) + k * math.log(lam2) - math.lgamma(k + di + 1)
                          - math.lgamma(k + 1))
        total += -(lam1 + lam2) + math.log(s)
    return -total


def mixture_logaddexp(params, x):
    w_logit, m1, m2, log_s1, log_s2 = params
    log_w = -np.logaddexp(0.0, -w_logit)
    log_1mw = -np.logaddexp(0.0, w_logit)
    total = 0.0
    for xi in x:
        a = log_w - log_s1 - 0.5 * LOG_2PI - 0.5 * ((xi - m1) / np.exp(log_s1)) ** 2
        b = log_1mw - log_s2 - 0.5 * LOG_2PI - 0.5 * ((xi - m2) / np.exp(log_s2)) ** 2
        total += np.logaddexp(a, b)
    return -total


def laplace_lognormal_gumbel(params, x, y, z):
    m, log_b, mu, log_s, loc, log_beta = params
    b, s, beta = np.exp(log_b), np.exp(log_s), np.exp(log_beta)
    laplace = -np.log(2 * b) - np.abs(x - m) / b
    lognormal = -np.log(y) - log_s - 0.5 * LOG_2PI - (np.log(y) - mu) ** 2 / (2 * s * s)
    g = (z - loc) / beta
    gumbel = -log_beta - (g + np.exp(-g))
    return -(laplace.sum() + lognormal.sum() + gumbel.sum())


def pareto_tail(params, x, threshold=1.0):
    log_alpha = params[0]
    alpha = np.exp(log_alpha)
    tail = x[x > threshold]
    return -np.sum(log_alpha + alpha * np.log(threshold) - (alpha + 1) * np.log(tail))


def generalized_poisson(params, y):
    log_theta, lam = params
    theta = np.exp(log_theta)
    ll = log_theta + (y - 1) * np.log(theta + lam * y) - theta - lam * y - gammaln(y + 1)
    return -np.sum(ll)


# ---- estimators differentiated through ------------------------------------------------------------------


def gaussian_mle_plugin(x, y):
    mu = x.mean()
    var = ((x - mu) ** 2).mean()
    return np.sum(-0.5 * np.log(2 * np.pi * var) - (y - mu) ** 2 / (2 * var))


def gamma_moments(x):
    m, v = np.mean(x), np.var(x)
    shape, scale = m * m / v, v / m
    return np.sum((shape - 1) * np.log(x) - x / scale) - len(x) * (gammaln(shape) + shape * np.log(scale))


def kde_leave_one_out(log_h, x):
    h = np.exp(log_h)
    d = (x[:, None] - x[None, :]) / h
    K = np.exp(-0.5 * d ** 2) / (h * math.sqrt(2 * math.pi))
    n = len(x)
    loo = (K.sum(axis=1) - np.diag(K)) / (n - 1)
    return -np.sum(np.log(loo))


def empirical_bayes_shrinkage(y, sigma2):
    tau2 = max(np.var(y) - np.mean(sigma2), 0.05)
    shrink = sigma2 / (sigma2 + tau2)
    post = (1 - shrink) * y + shrink * np.mean(y)
    return np.sum(post ** 2)


def gamma_digamma_score(log_a, x):
    a = np.exp(log_a)
    b = a / np.mean(x)
    score = np.log(b) - digamma(a) + np.mean(np.log(x))
    return score ** 2 + logsumexp(-x * b)


STATS17 = [
    ("w17_student_t_nll", student_t_nll, lambda r: (np.array([0.1, -0.2, 1.2]), r.standard_t(4, size=8)), 0),
    ("w17_negbin_mu_alpha", negbin_mu_alpha, lambda r: (np.array([1.0, -0.5]), r.poisson(3.0, 10).astype(float)), 0),
    ("w17_von_mises_nll", von_mises_nll, lambda r: (np.array([0.3, 0.5]), r.vonmises(0.2, 2.0, 8)), 0),
    ("w17_von_mises_i0e", von_mises_i0e, lambda r: (np.array([0.3, 2.5]), r.vonmises(0.2, 8.0, 8)), 0),
    ("w17_zip_nll", zip_nll, lambda r: (np.array([-0.5, 0.8]), np.array([0.0, 0, 1, 3, 0, 2, 5, 0, 1])), 0),
    ("w17_hurdle_lognormal", hurdle_lognormal,
     lambda r: (np.array([0.3, 0.1, -0.2]), np.array([0.0, 1.3, 0.0, 2.2, 0.4, 0.0, 3.1])), 0),
    ("w17_ordinal_logistic", ordinal_logistic,
     lambda r: (np.array([0.5, -0.3, -1.0, 0.2, 0.4]), M(r, 8, 2), [0, 1, 3, 2, 2, 1, 0, 3]), 0),
    ("w17_dirichlet_nll", dirichlet_nll, lambda r: (np.array([0.2, 0.5, -0.1]), r.dirichlet([2.0, 3.0, 1.5], 6)), 0),
    ("w17_beta_regression", beta_regression,
     lambda r: (np.array([0.3, -0.2, 1.5]), M(r, 7, 2), r.uniform(0.1, 0.9, 7)), 0),
    ("w17_tobit_nll", tobit_nll,
     lambda r: (np.array([0.5, 0.2, -0.3]), M(r, 8, 2), np.maximum(M(r, 8), 0.0)), 0),
    ("w17_weibull_censored", weibull_censored,
     lambda r: (np.array([0.3, 0.5]), r.uniform(0.2, 3.0, 8), np.array([1, 1, 0, 1, 0, 1, 1, 0.0])), 0),
    ("w17_poisson_difference", poisson_difference, lambda r: (np.array([0.8, 0.3]), [2, -1, 0, 3]), 0),
    ("w17_mixture_logaddexp", mixture_logaddexp,
     lambda r: (np.array([0.2, -1.0, 1.5, -0.3, 0.1]), np.concatenate([M(r, 4) - 1, M(r, 4) + 1.5])), 0),
    ("w17_laplace_lognormal_gumbel", laplace_lognormal_gumbel,
     lambda r: (np.array([0.1, -0.2, 0.3, 0.1, 0.0, 0.2]), M(r, 5), r.lognormal(size=5), r.gumbel(size=5)), 0),
    ("w17_pareto_tail", pareto_tail, lambda r: (np.array([0.7]), r.pareto(2.0, 12) + 0.5), 0),
    ("w17_generalized_poisson", generalized_poisson,
     lambda r: (np.array([0.8, 0.1]), np.array([0.0, 1, 2, 2, 4, 1, 3])), 0),
    ("w17_gaussian_mle_plugin", gaussian_mle_plugin, lambda r: (M(r, 6), M(r, 4)), 0),
    ("w17_gamma_moments", gamma_moments, lambda r: (r.gamma(3.0, 1.0, 7),), 0),
    ("w17_kde_leave_one_out", kde_leave_one_out, lambda r: (np.array(-0.5), M(r, 7)), 0),
    ("w17_kde_points", kde_leave_one_out, lambda r: (np.array(-0.5), M(r, 7)), 1),
    ("w17_empirical_bayes_shrinkage", empirical_bayes_shrinkage, lambda r: (2 * M(r, 6), r.uniform(0.2, 1, 6)), 0),
    ("w17_gamma_digamma_score", gamma_digamma_score, lambda r: (np.array(0.6), r.gamma(2.0, 1.0, 6)), 0),
]
