"""The red team's wave 31a: Bayesian log posteriors with priors and transforms (softplus scales,
logit probabilities with their log-Jacobians, log-sigmoid written by np.logaddexp, non-centred
hierarchies, stick-breaking, Student-t with nu > 2, beta-binomial by scipy.special.betaln, an
ELBO by fixed draws), mixtures by scipy.special.logsumexp and by hand, mixtures of experts,
interval-censored Weibull, piecewise hazards by np.searchsorted, ordinal cutpoints by np.cumsum,
gamma GLMs, soft changepoints, and ranking losses (RankNet by broadcasting, ListMLE by a reversed
cumulative logsumexp, squared hinge margins, DCG weights, triplets)."""

from __future__ import annotations

import math

import numpy as np
import scipy.special
from scipy.special import betaln, gammaln, logsumexp

RNG = np.random.default_rng(31)
X = RNG.normal(size=(12, 3))
Y_BIN = (X @ np.array([1.0, -0.5, 0.3]) + 0.2 * RNG.normal(size=12) > 0).astype(float)
Y_REAL = X @ np.array([0.5, -1.0, 2.0]) + 0.3 * RNG.standard_t(3, size=12)
GROUPS = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3])
DATA_1D = np.concatenate([RNG.normal(-1.0, 0.5, 8), RNG.normal(2.0, 0.8, 8)])
EPS = RNG.normal(size=(6, 3))


def softplus(z):
    return np.logaddexp(0.0, z)


def log_sigmoid(z):
    return -np.logaddexp(0.0, -z)


def logistic_posterior(beta, x=X, y=Y_BIN, prior_scale=2.0):
    z = x @ beta
    loglik = np.sum(y * log_sigmoid(z) + (1 - y) * log_sigmoid(-z))
    logprior = -0.5 * np.sum(beta ** 2) / prior_scale ** 2
    return -(loglik + logprior)


def regression_softplus_scale(theta, x=X, y=Y_REAL):
    beta, raw = theta[:3], theta[3]
    sigma = softplus(raw)
    resid = y - x @ beta
    n = len(y)
    log_jac = log_sigmoid(raw)  # d softplus / d raw = sigmoid
    return n * np.log(sigma) + 0.5 * np.sum(resid ** 2) / sigma ** 2 - log_jac + 0.5 * sigma ** 2


def noncentred_hierarchy(theta, y=Y_REAL, groups=GROUPS):
    mu, log_tau = theta[0], theta[1]
    eta = theta[2:6]
    tau = np.exp(log_tau)
    alpha = mu + tau * eta
    pred = alpha[groups]
    lp = -0.5 * np.sum((y - pred) ** 2)
    lp += -0.5 * np.sum(eta ** 2) - 0.5 * mu ** 2 / 10.0
    lp += -tau + log_tau  # exponential prior on tau and its log-Jacobian
    return -lp


def logit_binomial(z, k=np.array([3, 7, 12, 1]), n=np.array([10, 10, 20, 5])):  # noqa: B008
    p = scipy.special.expit(z)
    loglik = np.sum(k * np.log(p) + (n - k) * np.log1p(-p))
    log_jac = np.sum(np.log(p) + np.log(1 - p))  # a Beta(1, 1) prior on p, moved to logit scale
    return -(loglik + log_jac)


def beta_binomial(theta, k=np.array([3.0, 7.0, 12.0, 1.0]), n=np.array([10.0, 10.0, 20.0, 5.0])):  # noqa: B008
    a, b = np.exp(theta)
    ll = gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1) + betaln(k + a, n - k + b) - betaln(a, b)
    return -np.sum(ll)


def stick_breaking(v_logit, counts=np.array([5.0, 3.0, 8.0, 2.0, 1.0])):  # noqa: B008
    v = 1.0 / (1.0 + np.exp(-v_logit))
    weights = []
    remaining = 1.0
    for k in range(len(v_logit)):
        weights.append(v[k] * remaining)
        remaining = remaining * (1.0 - v[k])
    weights.append(remaining)
    w = np.array(weights)
    return -np.sum(counts * np.log(w))


def student_t_regression(theta, x=X, y=Y_REAL):
    beta = theta[:3]
    sigma = np.exp(theta[3])
    nu = 2.0 + softplus(theta[4])
    r = (y - x @ beta) / sigma
    ll = (gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu * np.pi) - np.log(sigma)
          - (nu + 1) / 2 * np.log1p(r ** 2 / nu))
    return -np.sum(ll)


def gmm_logsumexp(params, x=DATA_1D):
    logits, mu, log_sd = params["logits"], params["mu"], params["log_sd"]
    log_w = logits - logsumexp(logits)
    sd = np.exp(log_sd)
    comp = -0.5 * ((x[:, None] - mu[None, :]) / sd) ** 2 - log_sd - 0.5 * np.log(2 * np.pi)
    return -np.sum(logsumexp(comp + log_w, axis=1))


def gmm_by_hand(theta, x=DATA_1D, k=2):
    mu, log_sd, logit = theta[:k], theta[k:2 * k], theta[2 * k:]
    log_w = logit - np.log(np.sum(np.exp(logit)))
    total = 0.0
    for xi in x:
        terms = log_w - 0.5 * ((xi - mu) / np.exp(log_sd)) ** 2 - log_sd
        m = np.max(terms)
        total += m + np.log(np.sum(np.exp(terms - m)))
    return -total


def mixture_of_experts(w, x=X, y=Y_REAL):
    w_gate = w[:6].reshape(3, 2)
    w_exp = w[6:].reshape(3, 2)
    gate = scipy.special.softmax(x @ w_gate, axis=1)
    pred = np.sum(gate * (x @ w_exp), axis=1)
    return np.mean((pred - y) ** 2)


def weibull_interval_censored(theta, left=np.array([1.0, 2.0, 0.5, 3.0, 1.5]),  # noqa: B008
                              right=np.array([2.0, 3.5, 1.0, 6.0, 2.5])):  # noqa: B008
    k, lam = np.exp(theta)
    s_left = np.exp(-(left / lam) ** k)
    s_right = np.exp(-(right / lam) ** k)
    return -np.sum(np.log(s_left - s_right))


def piecewise_hazard(log_h, times=np.array([0.3, 1.2, 2.5, 0.8, 3.1]), events=np.array([1, 0, 1, 1, 0]),  # noqa: B008
                     cuts=np.array([0.0, 1.0, 2.0])):  # noqa: B008
    h = np.exp(log_h)
    widths = np.diff(np.append(cuts, np.inf))
    nll = 0.0
    for t, d in zip(times, events):
        j = np.searchsorted(cuts, t, side="right") - 1
        exposure = np.minimum(np.maximum(t - cuts, 0.0), widths)
        nll += np.sum(h * exposure) - d * log_h[j]
    return nll


def ordinal_cutpoints(theta, x=X, y=np.array([0, 1, 2, 1, 0, 2, 2, 1, 0, 1, 2, 0])):  # noqa: B008
    beta, raw = theta[:3], theta[3:]
    cuts = np.cumsum(np.concatenate([[raw[0]], np.exp(raw[1:])]))
    eta = x @ beta
    cdf = scipy.special.expit(cuts[None, :] - eta[:, None])
    cdf = np.hstack([np.zeros((len(y), 1)), cdf, np.ones((len(y), 1))])
    probs = cdf[np.arange(len(y)), y + 1] - cdf[np.arange(len(y)), y]
    return -np.sum(np.log(probs))


def gamma_glm(theta, x=X, y=np.exp(0.3 * X[:, 0]) + 0.5):  # noqa: B008
    beta, log_shape = theta[:3], theta[3]
    mu = np.exp(x @ beta)
    shape = np.exp(log_shape)
    ll = shape * np.log(shape / mu) + (shape - 1) * np.log(y) - shape * y / mu - gammaln(shape)
    return -ll.sum()


def soft_changepoint(theta, y=np.array([0.1, 0.0, 0.2, 0.1, 1.1, 0.9, 1.2, 1.0]), width=0.5):  # noqa: B008
    tau, m1, m2 = theta
    t = np.arange(len(y), dtype=float)
    s = 1.0 / (1.0 + np.exp(-(t - tau) / width))
    mean = (1 - s) * m1 + s * m2
    return np.sum((y - mean) ** 2)


def elbo(var_params, x=X, y=Y_BIN, eps=EPS):
    mu, log_s = var_params[:3], var_params[3:]
    total = 0.0
    for e in eps:
        beta = mu + np.exp(log_s) * e
        z = x @ beta
        total += np.sum(y * z - softplus(z)) - 0.5 * beta @ beta
    entropy = np.sum(log_s)
    return -(total / len(eps) + entropy)


# ---- ranking ----

REL = np.array([3.0, 2.0, 2.0, 1.0, 0.0, 0.0])


def ranknet(s, rel=REL):
    diff = s[:, None] - s[None, :]
    better = (rel[:, None] > rel[None, :]).astype(float)
    return np.sum(better * softplus(-diff)) / np.sum(better)


def listmle(s, order=np.array([0, 1, 2, 3, 4, 5])):  # noqa: B008
    ordered = s[order]
    loss = 0.0
    for i in range(len(ordered)):
        loss += logsumexp(ordered[i:]) - ordered[i]
    return loss


def listmle_accumulate(s, order=np.array([0, 2, 1, 3, 5, 4])):  # noqa: B008
    ordered = s[order]
    rev_lse = np.logaddexp.accumulate(ordered[::-1])[::-1]
    return np.sum(rev_lse - ordered)


def squared_hinge_pairs(s, pos=np.array([0, 1, 2]), neg=np.array([3, 4, 5]), margin=1.0):  # noqa: B008
    gaps = s[pos][:, None] - s[neg][None, :]
    return np.mean(np.maximum(0.0, margin - gaps) ** 2)


def lambda_weights(s, rel=REL):
    gains = 2.0 ** rel - 1.0
    discounts = 1.0 / np.log2(2.0 + np.arange(len(s)))
    loss = 0.0
    for i in range(len(s)):
        for j in range(len(s)):
            if rel[i] <= rel[j]:
                continue
            delta = abs((gains[i] - gains[j]) * (discounts[i] - discounts[j]))
            loss += delta * math.log1p(math.exp(-(s[i] - s[j])))
    return loss


def triplet(emb, anchor=(0, 1), positive=(2, 3), negative=(4, 5), margin=0.5):
    e = emb.reshape(6, 2)
    loss = 0.0
    for a, p, n in zip(anchor, positive, negative):
        d_ap = np.sum((e[a] - e[p]) ** 2)
        d_an = np.sum((e[a] - e[n]) ** 2)
        loss = loss + softplus(d_ap - d_an + margin)
    return loss


def _vec(*values):
    return lambda rng: (np.array(values, dtype=float),)


STATS = [
    ("bayes_logistic_posterior", logistic_posterior, _vec(0.5, -0.2, 0.1), 0),
    ("bayes_softplus_scale", regression_softplus_scale, _vec(0.4, -0.8, 1.7, 0.3), 0),
    ("bayes_noncentred", noncentred_hierarchy, _vec(0.2, -0.3, 0.5, -0.4, 0.1, 0.8), 0),
    ("bayes_logit_binomial", logit_binomial, _vec(-0.8, 0.5, 0.3, -1.2), 0),
    ("bayes_beta_binomial", beta_binomial, _vec(0.5, 0.8), 0),
    ("bayes_stick_breaking", stick_breaking, _vec(0.2, -0.3, 0.8, 0.1), 0),
    ("bayes_student_t", student_t_regression, _vec(0.4, -0.9, 1.8, -0.5, 1.0), 0),
    ("mix_gmm_logsumexp", gmm_logsumexp, lambda rng: ({"logits": np.array([0.1, -0.2]), "mu": np.array([-0.8, 1.9]),
                                                      "log_sd": np.array([-0.5, -0.1])},), 0),
    ("mix_gmm_by_hand", gmm_by_hand, _vec(-0.8, 1.9, -0.5, -0.1, 0.1, -0.2), 0),
    ("mix_experts", mixture_of_experts, lambda rng: (0.3 * rng.normal(size=12),), 0),
    ("surv_weibull_interval", weibull_interval_censored, _vec(0.3, 0.9), 0),
    ("surv_piecewise_hazard", piecewise_hazard, _vec(-0.5, -0.2, 0.1), 0),
    ("glm_ordinal_cutpoints", ordinal_cutpoints, _vec(0.3, -0.2, 0.1, -0.5, 0.2), 0),
    ("glm_gamma", gamma_glm, _vec(0.2, 0.0, 0.1, 1.0), 0),
    ("ts_soft_changepoint", soft_changepoint, _vec(3.4, 0.1, 1.0), 0),
    ("vi_elbo", elbo, _vec(0.5, -0.3, 0.2, -1.0, -0.8, -1.2), 0),
    ("rank_ranknet", ranknet, _vec(1.0, 0.5, 0.8, -0.2, 0.1, -0.5), 0),
    ("rank_listmle", listmle, _vec(1.0, 0.5, 0.8, -0.2, 0.1, -0.5), 0),
    ("rank_listmle_accumulate", listmle_accumulate, _vec(1.0, 0.5, 0.8, -0.2, 0.1, -0.5), 0),
    ("rank_squared_hinge", squared_hinge_pairs, _vec(1.0, 0.5, 0.8, -0.2, 0.1, 0.6), 0),
    ("rank_lambda_weights", lambda_weights, _vec(1.0, 0.5, 0.8, -0.2, 0.1, -0.5), 0),
    ("rank_triplet", triplet, _vec(0, 0, 1, 1, 0.2, 0.1, 0.9, 1.2, 0.5, 0.4, 0.3, 1.5), 0),
]
