"""Wave 33g: statistics, written the way statisticians write them: Gaussian process marginal
likelihoods by np.linalg.cholesky and scipy.linalg.cho_solve / solve_triangular (isotropic and ARD),
Cox's partial likelihood by reversed cumulative sums, a log-logistic AFT with censoring, a
discrete-time hazard, Gaussian mixtures by scipy.special.logsumexp, Bayesian logistic regression with
a gamma prior on the precision (gammaln), negative binomial and Dirichlet-multinomial likelihoods, a
zero-inflated Poisson by np.where, Student-t regression, von Mises by i0e, an ordinal probit by
ndtr, a local-level Kalman filter, an HMM forward pass, ARMA and GARCH recursions, a smoothed
pinball loss, a Poisson process by the trapezoidal rule."""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.special

RNG = np.random.default_rng(21)
X_GP = np.linspace(0.0, 3.0, 7)
Y_GP = np.sin(X_GP) + 0.1 * RNG.normal(size=7)
X_ARD = RNG.normal(size=(6, 2))
Y_ARD = X_ARD[:, 0] - 0.5 * X_ARD[:, 1] ** 2
TIMES = np.array([2.0, 3.5, 1.0, 4.2, 5.0, 0.7, 2.8])
EVENTS = np.array([1, 0, 1, 1, 0, 1, 1])
COV = RNG.normal(size=(7, 2))
COUNTS = np.array([0, 3, 1, 0, 7, 2, 0, 0, 4])
XC = RNG.normal(size=(9, 2))
ANGLES = np.array([0.1, 0.4, -0.2, 0.3, 0.05])
ORD_Y = np.array([0, 1, 2, 1, 0, 2])
ORD_X = RNG.normal(size=6)
SERIES = np.cumsum(RNG.normal(size=12))
RET = 0.01 * RNG.normal(size=15)


def gp_marginal(log_params):
    ell, sf, sn = np.exp(log_params)
    d = X_GP[:, None] - X_GP[None, :]
    k = sf ** 2 * np.exp(-0.5 * d ** 2 / ell ** 2) + (sn ** 2 + 1e-8) * np.eye(len(X_GP))
    low = np.linalg.cholesky(k)
    alpha = scipy.linalg.cho_solve((low, True), Y_GP)
    return 0.5 * Y_GP @ alpha + np.sum(np.log(np.diag(low))) + 0.5 * len(X_GP) * np.log(2 * np.pi)


def gp_ard(theta):
    ls = np.exp(theta[:2])
    sf2, sn2 = np.exp(theta[2]), np.exp(theta[3])
    z = X_ARD / ls
    sq = np.sum(z ** 2, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2 * z @ z.T
    k = sf2 * np.exp(-0.5 * np.maximum(d2, 0.0)) + sn2 * np.eye(6)
    low = np.linalg.cholesky(k)
    a = scipy.linalg.solve_triangular(low, Y_ARD, lower=True)
    return 0.5 * a @ a + np.sum(np.log(np.diag(low)))


def cox_partial(beta):
    order = np.argsort(-TIMES)
    eta = COV[order] @ beta
    ev = EVENTS[order]
    log_risk = np.log(np.cumsum(np.exp(eta)))
    return -np.sum(ev * (eta - log_risk))


def loglogistic_aft(p):
    mu = COV @ p["beta"] + p["b0"]
    s = np.exp(p["log_scale"])
    z = (np.log(TIMES) - mu) / s
    log_f = z - np.log(s) - np.log(TIMES) - 2 * np.logaddexp(0.0, z)
    log_surv = -np.logaddexp(0.0, z)
    return -np.sum(np.where(EVENTS == 1, log_f, log_surv))


def discrete_hazard(h_logits, durations=np.array([1, 3, 2, 4, 2]), events=np.array([1, 0, 1, 1, 0])):  # noqa: B008
    haz = scipy.special.expit(h_logits)
    ll = 0.0
    for d, e in zip(durations, events):
        for t in range(d - 1):
            ll += np.log(1 - haz[t])
        if e:
            ll += np.log(haz[d - 1])
        else:
            ll += np.log(1 - haz[d - 1])
    return -ll


def gmm(params, y=np.array([-1.2, -0.8, 0.1, 1.5, 2.2, 1.9])):  # noqa: B008
    logw = params["logits"] - scipy.special.logsumexp(params["logits"])
    sd = np.exp(params["log_sd"])
    z = (y[:, None] - params["mu"][None, :]) / sd
    comp = logw - np.log(sd) - 0.5 * z ** 2 - 0.5 * np.log(2 * np.pi)
    return -np.sum(scipy.special.logsumexp(comp, axis=1))


def bayes_logistic(theta, a0=2.0, b0=1.0):
    w, log_tau = theta[:2], theta[2]
    tau = np.exp(log_tau)
    z = XC @ w
    y = (COUNTS > 0).astype(float)
    ll = np.sum(y * scipy.special.log_expit(z) + (1 - y) * scipy.special.log_expit(-z))
    prior_w = 0.5 * len(w) * log_tau - 0.5 * tau * np.sum(w ** 2)
    prior_tau = a0 * np.log(b0) - scipy.special.gammaln(a0) + a0 * log_tau - b0 * tau
    return -(ll + prior_w + prior_tau)


def negbin(theta):
    mu = np.exp(XC @ theta[:2] + theta[2])
    r = np.exp(theta[3])
    ll = (scipy.special.gammaln(COUNTS + r) - scipy.special.gammaln(r) - scipy.special.gammaln(COUNTS + 1)
          + r * np.log(r / (r + mu)) + COUNTS * np.log(mu / (r + mu)))
    return -np.sum(ll)


def dirichlet_multinomial(log_alpha, counts=np.array([[3, 1, 0], [2, 2, 1], [0, 1, 4]])):  # noqa: B008
    alpha = np.exp(log_alpha)
    a0 = np.sum(alpha)
    n = counts.sum(axis=1)
    ll = scipy.special.gammaln(a0) - scipy.special.gammaln(n + a0)
    ll = ll + np.sum(scipy.special.gammaln(counts + alpha) - scipy.special.gammaln(alpha), axis=1)
    return -np.sum(ll)


def zip_poisson(theta):
    lam = np.exp(XC @ theta[:2])
    pi = scipy.special.expit(theta[2])
    zero = np.log(pi + (1 - pi) * np.exp(-lam))
    pos = np.log(1 - pi) - lam + COUNTS * np.log(lam) - scipy.special.gammaln(COUNTS + 1)
    return -np.sum(np.where(COUNTS == 0, zero, pos))


def student_t_regression(theta, nu=4.0):
    resid = COUNTS - XC @ theta[:2] - theta[2]
    s = np.exp(theta[3])
    c = scipy.special.gammaln((nu + 1) / 2) - scipy.special.gammaln(nu / 2) - 0.5 * np.log(nu * np.pi)
    return -np.sum(c - np.log(s) - (nu + 1) / 2 * np.log1p((resid / s) ** 2 / nu))


def von_mises(theta):
    mu, kappa = theta[0], np.exp(theta[1])
    log_i0 = np.log(scipy.special.i0e(kappa)) + kappa
    return -np.sum(kappa * np.cos(ANGLES - mu) - np.log(2 * np.pi) - log_i0)


def ordinal_probit(theta):
    beta = theta[0]
    cuts = np.concatenate([[theta[1]], theta[1] + np.cumsum(np.exp(theta[2:]))])
    eta = beta * ORD_X
    upper = np.concatenate([cuts, [np.inf]])
    lower = np.concatenate([[-np.inf], cuts])
    p = scipy.special.ndtr(upper[ORD_Y] - eta) - scipy.special.ndtr(lower[ORD_Y] - eta)
    return -np.sum(np.log(p))


def kalman_local_level(log_qr):
    q, r = np.exp(log_qr[0]), np.exp(log_qr[1])
    m, p = SERIES[0], 1.0
    nll = 0.0
    for y in SERIES[1:]:
        p = p + q
        s = p + r
        k = p / s
        v = y - m
        nll += 0.5 * (np.log(2 * np.pi * s) + v * v / s)
        m = m + k * v
        p = (1 - k) * p
    return nll


def hmm_forward(params, obs=(0, 1, 1, 0, 2, 1)):
    log_a = params["trans"] - scipy.special.logsumexp(params["trans"], axis=1, keepdims=True)
    log_b = params["emit"] - scipy.special.logsumexp(params["emit"], axis=1, keepdims=True)
    alpha = np.log(np.array([0.5, 0.5])) + log_b[:, obs[0]]
    for o in obs[1:]:
        alpha = scipy.special.logsumexp(alpha[:, None] + log_a, axis=0) + log_b[:, o]
    return -scipy.special.logsumexp(alpha)


def arma_css(phi_theta):
    phi, theta = phi_theta
    eps_prev = 0.0
    css = 0.0
    for t in range(1, len(SERIES)):
        e = SERIES[t] - phi * SERIES[t - 1] - theta * eps_prev
        css += e * e
        eps_prev = e
    return css


def garch(theta):
    omega, alpha, beta = np.exp(theta)
    h = np.var(RET)
    nll = 0.0
    for t in range(1, len(RET)):
        h = omega + alpha * RET[t - 1] ** 2 + beta * h
        nll = nll + 0.5 * (np.log(h) + RET[t] ** 2 / h)
    return nll


def pinball_smoothed(w, taus=(0.1, 0.5, 0.9), s=0.05):
    total = 0.0
    for i, tau in enumerate(taus):
        u = SERIES[1:] - w[i] * SERIES[:-1]
        total = total + np.sum(tau * u + s * np.logaddexp(0.0, -u / s))
    return total


def poisson_process(theta, events=np.array([0.3, 0.9, 1.1, 1.7, 2.4]), t_max=3.0):  # noqa: B008
    grid = np.linspace(0.0, t_max, 31)
    rate = np.exp(theta[0] + theta[1] * grid)
    integral = np.sum(0.5 * (rate[1:] + rate[:-1]) * np.diff(grid))
    return integral - np.sum(theta[0] + theta[1] * events)


STATS = [
    ("gp_marginal", gp_marginal, lambda r: (np.log(np.array([1.0, 1.2, 0.3])),), 0),
    ("gp_ard", gp_ard, lambda r: (np.array([0.1, -0.2, 0.3, -1.0]),), 0),
    ("gp_ard_f32", gp_ard, lambda r: (np.array([0.1, -0.2, 0.3, -1.0], dtype=np.float32),), 0),
    ("surv_cox", cox_partial, lambda r: (r.normal(size=2),), 0),
    ("surv_loglogistic", loglogistic_aft,
     lambda r: ({"beta": 0.3 * r.normal(size=2), "b0": 1.0, "log_scale": -0.5},), 0),
    ("surv_discrete_hazard", discrete_hazard, lambda r: (r.normal(size=4),), 0),
    ("mix_gmm", gmm, lambda r: ({"logits": r.normal(size=2), "mu": np.array([-1.0, 1.8]), "log_sd": np.zeros(2)},), 0),
    ("bayes_logistic_gamma", bayes_logistic, lambda r: (np.array([0.3, -0.2, 0.1]),), 0),
    ("glm_negbin", negbin, lambda r: (np.array([0.2, -0.1, 0.5, 0.3]),), 0),
    ("glm_dirichlet_multinomial", dirichlet_multinomial, lambda r: (r.normal(size=3),), 0),
    ("glm_zip", zip_poisson, lambda r: (np.array([0.3, -0.2, -0.5]),), 0),
    ("glm_student_t", student_t_regression, lambda r: (np.array([0.2, 0.1, 1.0, 0.5]),), 0),
    ("circ_von_mises", von_mises, lambda r: (np.array([0.1, 1.0]),), 0),
    ("ord_probit", ordinal_probit, lambda r: (np.array([0.4, -0.5, 0.0]),), 0),
    ("ts_kalman", kalman_local_level, lambda r: (np.array([-0.5, -1.0]),), 0),
    ("ts_hmm", hmm_forward, lambda r: ({"trans": r.normal(size=(2, 2)), "emit": r.normal(size=(2, 3))},), 0),
    ("ts_arma", arma_css, lambda r: ((0.5, 0.2),), 0),
    ("ts_garch", garch, lambda r: (np.log(np.array([1e-5, 0.1, 0.8])),), 0),
    ("ts_pinball", pinball_smoothed, lambda r: (np.array([0.8, 0.9, 1.0]),), 0),
    ("pp_poisson_process", poisson_process, lambda r: (np.array([0.1, 0.2]),), 0),
]
