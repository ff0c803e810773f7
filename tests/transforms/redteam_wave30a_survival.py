"""The red team's wave 30a, survival, reliability and measurement: Cox partial likelihoods (Breslow
and Efron ties, strata, time-varying weights), Weibull and log-logistic accelerated failure times
with censoring, piecewise-exponential hazards, cure and competing-risk models, discrete-time
hazards, life tables and annuities, item-response models, Bradley-Terry and Hawkes processes
(test_redteam_wave30a.py runs them through every transformation)."""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave29a_robotics import M, P

TIMES = np.array([2.0, 3.0, 3.0, 5.0, 7.0, 8.0, 8.0, 11.0, 13.0, 17.0])
EVENTS = np.array([1, 1, 0, 1, 0, 1, 1, 1, 0, 1])
COVARS = np.array([[0.5, -1.0], [1.2, 0.3], [-0.4, 0.8], [0.0, 0.1], [0.9, -0.6],
                   [-1.1, 0.4], [0.3, 0.3], [0.7, -0.2], [-0.5, -0.9], [0.2, 1.1]])
STRATA = np.array([0, 0, 1, 0, 1, 1, 0, 1, 0, 1])
CUTS = (0.0, 4.0, 9.0, 14.0)


def cox_breslow(beta, X=COVARS, times=TIMES, events=EVENTS):
    """Negative log partial likelihood, Breslow's ties, risk sets by a mask per event."""
    eta = X @ beta
    nll = 0.0
    for i in range(len(times)):
        if events[i] == 1:
            at_risk = times >= times[i]
            nll -= eta[i] - np.log(np.sum(np.exp(eta) * at_risk))
    return nll


def cox_breslow_sorted(beta):
    """Sorted by descending time; the risk set's sum is a running cumulative sum."""
    order = np.argsort(-TIMES, kind="stable")
    eta = COVARS[order] @ beta
    ev = EVENTS[order]
    log_risk = np.log(np.cumsum(np.exp(eta)))
    return -np.sum((eta - log_risk) * ev)


def cox_efron(beta, X=COVARS, times=TIMES, events=EVENTS):
    """Efron's ties: each distinct event time handled with its tied deaths."""
    eta = X @ beta
    risk = np.exp(eta)
    ll = 0.0
    for t in np.unique(times[events == 1]):
        dead = (times == t) & (events == 1)
        d = int(dead.sum())
        tied = np.sum(risk[dead])
        total = np.sum(risk[times >= t])
        ll += np.sum(eta[dead])
        for k in range(d):
            ll -= np.log(total - k / d * tied)
    return -ll


def cox_stratified(beta):
    """Strata each with its own baseline: the partial likelihoods summed over a dict of groups."""
    groups = {}
    for idx, s in enumerate(STRATA):
        groups.setdefault(int(s), []).append(idx)
    total = 0.0
    for members in groups.values():
        rows = np.array(members)
        total = total + cox_breslow(beta, X=COVARS[rows], times=TIMES[rows], events=EVENTS[rows])
    return total


def cox_ridge(beta, lam=0.1):
    return cox_breslow(beta) + 0.5 * lam * beta @ beta


def weibull_aft_nll(theta, t=TIMES, delta=EVENTS, X=COVARS):
    """log T = X b + sigma W, W extreme-value; censored rows contribute the survival."""
    b, log_sigma = theta[:2], theta[2]
    sigma = np.exp(log_sigma)
    z = (np.log(t) - X @ b) / sigma
    log_f = z - np.exp(z) - log_sigma - np.log(t)
    log_s = -np.exp(z)
    return -np.sum(np.where(delta == 1, log_f, log_s))


def loglogistic_nll(params):
    alpha, beta = np.exp(params[0]), np.exp(params[1])
    ll = 0.0
    for ti, di in zip(TIMES, EVENTS):
        u = (ti / alpha) ** beta
        log_s = -math.log1p(u) if isinstance(u, float) else -np.log1p(u)
        if di:
            ll += np.log(beta / alpha) + (beta - 1) * np.log(ti / alpha) + 2 * log_s
        else:
            ll += log_s
    return -ll


def piecewise_exponential(log_h, cuts=CUTS):
    """A constant hazard on each interval: exposure by clipping the times at the cuts."""
    h = np.exp(log_h)
    edges = list(cuts) + [np.inf]
    nll = 0.0
    for j in range(len(h)):
        lo, hi = edges[j], edges[j + 1]
        exposure = np.clip(TIMES, lo, hi) - lo
        died_here = (TIMES > lo) & (TIMES <= hi) & (EVENTS == 1)
        nll += h[j] * exposure.sum() - died_here.sum() * log_h[j]
    return nll


def cure_model(params):
    """A mixture cure model: pi cured, the others exponential."""
    pi = 1.0 / (1.0 + np.exp(-params[0]))
    lam = np.exp(params[1])
    surv = np.exp(-lam * TIMES)
    dens = lam * surv
    like = np.where(EVENTS == 1, (1 - pi) * dens, pi + (1 - pi) * surv)
    return -np.log(like).sum()


def competing_risks(log_rates, causes=(1, 2, 1, 0, 2, 1, 1, 2, 0, 1)):
    """Cause-specific constant hazards; cause 0 is censoring."""
    rates = {c: np.exp(log_rates[c - 1]) for c in (1, 2)}
    total = rates[1] + rates[2]
    nll = 0.0
    for t, c in zip(TIMES, causes):
        nll = nll + total * t
        if c:
            nll = nll - np.log(rates[c])
    return nll


def discrete_hazard(coef, periods=6):
    """A person-period logistic hazard: each subject at risk until its event or censoring."""
    nll = 0.0
    for i in range(len(TIMES)):
        last = min(int(TIMES[i] // 3), periods - 1)
        for p in range(last + 1):
            logit = coef[0] + coef[1] * p + coef[2] * COVARS[i, 0]
            y = 1.0 if (p == last and EVENTS[i] == 1) else 0.0
            nll += np.log1p(np.exp(logit)) - y * logit
    return nll


def gompertz_makeham_life_table(params, ages=np.arange(30, 91, 5)):  # noqa: B008
    """Survival from the cumulative hazard, then a life annuity's value at 3%."""
    a, b, c = np.exp(params)
    H = c * (ages - 30) + a / b * (np.exp(b * (ages - 30)) - 1)
    survival = np.exp(-H)
    discount = 1.03 ** -(ages - 30)
    return np.sum(survival * discount) * 5.0


def life_table_expectancy(qx_logit, width=5.0):
    qx = 1 / (1 + np.exp(-qx_logit))
    lx = [1.0]
    for q in qx:
        lx.append(lx[-1] * (1 - q))
    lx = np.array(lx)
    Lx = width * (lx[:-1] + lx[1:]) / 2
    return Lx.sum() / lx[0]


def irt_2pl(params, responses=np.array([[1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 0]])):  # noqa: B008
    """Two-parameter logistic items: discriminations a, difficulties b, abilities fixed."""
    a, b = params[:4], params[4:]
    theta = np.array([0.5, -0.8, 1.2])
    logits = a[None, :] * (theta[:, None] - b[None, :])
    p = 1 / (1 + np.exp(-logits))
    return -np.sum(responses * np.log(p) + (1 - responses) * np.log(1 - p))


def irt_3pl(b, a=1.3, c=0.2):
    theta = np.linspace(-2, 2, 7)
    p = c + (1 - c) / (1 + np.exp(-a * (theta[:, None] - b)))
    info = a ** 2 * (p - c) ** 2 * (1 - p) / ((1 - c) ** 2 * p)
    return info.sum(axis=0).prod() ** (1 / len(b))


def bradley_terry(strength, games=((0, 1, 1), (1, 2, 0), (0, 2, 1), (2, 3, 1), (3, 0, 0), (1, 3, 1))):
    """(i, j, i won): log-strengths, one pinned at zero."""
    s = np.concatenate([[0.0], strength])
    nll = 0.0
    for i, j, won in games:
        d = s[i] - s[j]
        nll += np.logaddexp(0.0, -d) if won else np.logaddexp(0.0, d)
    return nll + 0.01 * np.sum(strength ** 2)


def hawkes_loglik(params, events=np.array([0.3, 0.9, 1.1, 2.5, 2.6, 2.8, 4.0])):  # noqa: B008
    """An exponential-kernel Hawkes process: intensity by the recursion A_i = e^{-b dt}(1 + A_{i-1})."""
    mu, alpha, beta = np.exp(params)
    T = 5.0
    A = 0.0
    ll = np.log(mu)
    for k in range(1, len(events)):
        A = np.exp(-beta * (events[k] - events[k - 1])) * (1 + A)
        ll += np.log(mu + alpha * A)
    compensator = mu * T + alpha / beta * np.sum(1 - np.exp(-beta * (T - events)))
    return compensator - ll


def kaplan_meier_smooth(log_h):
    """The product-limit estimate with hazards as parameters: S(t) as a running product."""
    hazards = 1 / (1 + np.exp(-log_h))
    surv = np.cumprod(1 - hazards)
    median_gap = (surv - 0.5) ** 2
    return median_gap.sum() + surv[-1]


def reliability_series_parallel(log_rates, t=2.0):
    """Two parallel pairs in series: R = (1 - (1-R1)(1-R2)) (1 - (1-R3)(1-R4))."""
    R = np.exp(-np.exp(log_rates) * t)
    pair = lambda a, b: 1 - (1 - a) * (1 - b)  # noqa: E731
    return -np.log(pair(R[0], R[1]) * pair(R[2], R[3]))


def frailty_nll(params, clusters=((0, 1, 2), (3, 4), (5, 6, 7, 8, 9))):
    """Gamma frailty shared within a cluster, exponential baseline: the marginal likelihood."""
    lam, theta = np.exp(params[0]), np.exp(params[1])
    nll = 0.0
    for members in clusters:
        rows = list(members)
        d = EVENTS[rows].sum()
        H = lam * TIMES[rows].sum()
        nll -= d * np.log(lam) + math.lgamma(1 / 1.0) * 0
        nll -= np.sum([np.log(1 + k * theta) for k in range(int(d))])
        nll += (1 / theta + d) * np.log(1 + theta * H)
    return nll


def accelerated_degradation(params, stress=np.array([1.0, 1.5, 2.0]), tt=np.array([1.0, 2.0, 4.0])):  # noqa: B008
    """Degradation paths D = exp(a + b*stress) * t^c against readings, squared error."""
    readings = np.array([[0.2, 0.41, 0.8], [0.35, 0.7, 1.45], [0.6, 1.2, 2.5]])
    a, b, c = params
    pred = np.exp(a + b * stress)[:, None] * tt[None, :] ** c
    return np.mean((np.log(pred) - np.log(readings)) ** 2)


SURVIVAL = [
    ("su_cox_breslow", cox_breslow, lambda r: (0.3 * M(r, 2),), 0),
    ("su_cox_breslow_sorted", cox_breslow_sorted, lambda r: (0.3 * M(r, 2),), 0),
    ("su_cox_efron", cox_efron, lambda r: (0.3 * M(r, 2),), 0),
    ("su_cox_stratified", cox_stratified, lambda r: (0.3 * M(r, 2),), 0),
    ("su_cox_ridge", cox_ridge, lambda r: (0.3 * M(r, 2),), 0),
    ("su_weibull_aft_nll", weibull_aft_nll, lambda r: (np.array([1.8, 0.1, -0.3]) + 0.05 * M(r, 3),), 0),
    ("su_loglogistic_nll", loglogistic_nll, lambda r: (np.array([2.0, 0.4]),), 0),
    ("su_piecewise_exponential", piecewise_exponential, lambda r: (-2.0 + 0.2 * M(r, 4),), 0),
    ("su_cure_model", cure_model, lambda r: (np.array([-0.5, -2.0]),), 0),
    ("su_competing_risks", competing_risks, lambda r: (np.array([-2.5, -3.0]),), 0),
    ("su_discrete_hazard", discrete_hazard, lambda r: (np.array([-1.5, 0.2, 0.3]),), 0),
    ("su_gompertz_makeham_life_table", gompertz_makeham_life_table, lambda r: (np.log([1e-3, 0.08, 5e-4]),), 0),
    ("su_life_table_expectancy", life_table_expectancy, lambda r: (-3.0 + 0.3 * np.arange(8) + 0.1 * M(r, 8),), 0),
    ("su_irt_2pl", irt_2pl, lambda r: (np.concatenate([P(r, 4), 0.3 * M(r, 4)]),), 0),
    ("su_irt_3pl", irt_3pl, lambda r: (0.5 * M(r, 3),), 0),
    ("su_bradley_terry", bradley_terry, lambda r: (0.3 * M(r, 3),), 0),
    ("su_hawkes_loglik", hawkes_loglik, lambda r: (np.log([0.8, 0.5, 1.5]),), 0),
    ("su_kaplan_meier_smooth", kaplan_meier_smooth, lambda r: (-2.0 + 0.3 * M(r, 6),), 0),
    ("su_reliability_series_parallel", reliability_series_parallel, lambda r: (-1.5 + 0.3 * M(r, 4),), 0),
    ("su_frailty_nll", frailty_nll, lambda r: (np.array([-2.0, -0.5]),), 0),
    ("su_accelerated_degradation", accelerated_degradation, lambda r: (np.array([-2.0, 0.9, 1.0]),), 0),
]
