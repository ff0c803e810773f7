"""The red team's wave 31a: option prices whose Hessians are the Greeks (Black-Scholes of a vector
of market inputs by math.erf and scipy.special.ndtr / scipy.stats.norm, Bachelier, Black-76, a
digital smoothed by a sigmoid, an implied volatility by Newton steps, Merton's jump series with
math.factorial, pathwise Monte Carlo with fixed draws, a down-and-out barrier) and portfolios with
penalties for their constraints (budget, long-only by np.minimum, turnover smoothed by sqrt,
softmax weights, the Sharpe ratio, log barriers, tracking error on float32 returns, a CVaR by
softplus, Black-Litterman, Kelly)."""

from __future__ import annotations

import math

import numpy as np
import scipy.special
from scipy.stats import norm

STRIKES = np.array([80.0, 90.0, 100.0, 110.0, 120.0])
QUOTES = np.array([22.5, 14.1, 7.6, 3.5, 1.4])
MU = np.array([0.08, 0.05, 0.11, 0.03])
COV = np.array([[0.04, 0.01, 0.012, 0.002], [0.01, 0.02, 0.006, 0.001],
                [0.012, 0.006, 0.09, 0.003], [0.002, 0.001, 0.003, 0.01]])
W_OLD = np.array([0.3, 0.3, 0.2, 0.2])
RETURNS32 = (np.random.default_rng(5).normal(0.004, 0.03, size=(24, 4))).astype(np.float32)
BENCH32 = RETURNS32.mean(axis=1).astype(np.float32)
Z_DRAWS = np.random.default_rng(7).normal(size=64)


def _phi(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def bs_call_market(m):
    """The price of a call as a function of (spot, vol, rate, maturity): its Hessian holds gamma, vanna, vomma."""
    s, sigma, r, t = m[0], m[1], m[2], m[3]
    k = 100.0
    d1 = (math.log(s / k) + (r + 0.5 * sigma ** 2) * t) / (sigma * math.sqrt(t))
    d2 = d1 - sigma * math.sqrt(t)
    return s * _phi(d1) - k * math.exp(-r * t) * _phi(d2)


def bs_put_ndtr(m, k=STRIKES):
    s, sigma, r, t = m
    sq = sigma * np.sqrt(t)
    d1 = (np.log(s / k) + (r + 0.5 * sigma ** 2) * t) / sq
    d2 = d1 - sq
    put = k * np.exp(-r * t) * scipy.special.ndtr(-d2) - s * scipy.special.ndtr(-d1)
    return np.sum(put)


def bs_smile_fit(vols, s=100.0, r=0.01, t=0.5, k=STRIKES, quotes=QUOTES):
    """One volatility per strike fitted to quotes by scipy.stats.norm.cdf."""
    d1 = (np.log(s / k) + (r + 0.5 * vols ** 2) * t) / (vols * np.sqrt(t))
    d2 = d1 - vols * np.sqrt(t)
    price = s * norm.cdf(d1) - k * np.exp(-r * t) * norm.cdf(d2)
    smooth = np.sum(np.diff(vols) ** 2)
    return np.sum((price - quotes) ** 2) + 10.0 * smooth


def bachelier(m, k=STRIKES):
    f, sigma_n, t = m
    sd = sigma_n * np.sqrt(t)
    d = (f - k) / sd
    price = (f - k) * norm.cdf(d) + sd * norm.pdf(d)
    return np.sum(price)


def black76(m, k=STRIKES, df=0.97):
    f, sigma, t = m[0], m[1], m[2]
    total = 0.0
    for strike in k:
        d1 = (np.log(f / strike) + 0.5 * sigma * sigma * t) / (sigma * np.sqrt(t))
        d2 = d1 - sigma * np.sqrt(t)
        total = total + df * (f * scipy.special.ndtr(d1) - strike * scipy.special.ndtr(d2))
    return total


def digital_smoothed(m, k=100.0, width=2.0, z=Z_DRAWS):
    s0, sigma, t = m
    st = s0 * np.exp((-0.5 * sigma ** 2) * t + sigma * np.sqrt(t) * z)
    return np.mean(1.0 / (1.0 + np.exp(-(st - k) / width)))


def implied_vol(price, s=100.0, k=105.0, t=0.75, r=0.02, steps=6):
    """Newton steps from a guess: d(iv)/d(price) is 1 / vega at the root."""
    sigma = 0.3
    for _ in range(steps):
        d1 = (math.log(s / k) + (r + 0.5 * sigma ** 2) * t) / (sigma * math.sqrt(t))
        d2 = d1 - sigma * math.sqrt(t)
        model = s * _phi(d1) - k * math.exp(-r * t) * _phi(d2)
        vega = s * math.exp(-0.5 * d1 * d1) / math.sqrt(2 * math.pi) * math.sqrt(t)
        sigma = sigma - (model - price) / vega
    return sigma


def merton_jumps(m, s=100.0, k=100.0, t=1.0, r=0.02, n_terms=12):
    sigma, lam, mu_j, delta = m
    kappa = math.exp(mu_j + 0.5 * delta ** 2) - 1.0
    lam_p = lam * (1 + kappa)
    price = 0.0
    for n in range(n_terms):
        sig_n = math.sqrt(sigma ** 2 + n * delta ** 2 / t)
        r_n = r - lam * kappa + n * math.log(1 + kappa) / t
        d1 = (math.log(s / k) + (r_n + 0.5 * sig_n ** 2) * t) / (sig_n * math.sqrt(t))
        d2 = d1 - sig_n * math.sqrt(t)
        bs = s * _phi(d1) - k * math.exp(-r_n * t) * _phi(d2)
        price += math.exp(-lam_p * t) * (lam_p * t) ** n / math.factorial(n) * bs
    return price


def pathwise_asian(m, z=Z_DRAWS.reshape(16, 4), k=100.0):  # noqa: B008
    s0, sigma, r = m
    dt = 0.25
    log_s = np.log(s0) + np.cumsum((r - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * z, axis=1)
    avg = np.exp(log_s).mean(axis=1)
    payoff = np.log1p(np.exp((avg - k) / 5.0)) * 5.0  # a softplus for a call
    return math.exp(-r) * np.mean(payoff)


def down_and_out(m, k=100.0, b=85.0, t=1.0, r=0.01):
    s, sigma = m[0], m[1]
    lam = (r + 0.5 * sigma ** 2) / sigma ** 2
    y = np.log(b * b / (s * k)) / (sigma * np.sqrt(t)) + lam * sigma * np.sqrt(t)
    d1 = (np.log(s / k) + (r + 0.5 * sigma ** 2) * t) / (sigma * np.sqrt(t))
    d2 = d1 - sigma * np.sqrt(t)
    call = s * norm.cdf(d1) - k * np.exp(-r * t) * norm.cdf(d2)
    down_in = s * (b / s) ** (2 * lam) * norm.cdf(y) - k * np.exp(-r * t) * (b / s) ** (2 * lam - 2) * norm.cdf(
        y - sigma * np.sqrt(t))
    return call - down_in


# ---- portfolios ----

def mean_variance_penalised(w, mu=MU, cov=COV, risk_aversion=3.0, penalty=50.0):
    ret = mu @ w
    var = w @ cov @ w
    budget = (np.sum(w) - 1.0) ** 2
    short = np.sum(np.minimum(w, 0.0) ** 2)
    return -ret + 0.5 * risk_aversion * var + penalty * (budget + short)


def turnover_smoothed(w, w_old=W_OLD, cov=COV, eps=1e-4):
    trade = np.sqrt((w - w_old) ** 2 + eps)
    return w @ cov @ w + 0.01 * np.sum(trade) + 10 * (w.sum() - 1) ** 2


def softmax_weights(z, mu=MU, cov=COV):
    e = np.exp(z - np.max(z))
    w = e / e.sum()
    return 0.5 * 4.0 * w.dot(cov.dot(w)) - mu.dot(w)


def max_sharpe(w, mu=MU, cov=COV, rf=0.02):
    excess = np.dot(mu - rf, w)
    vol = np.sqrt(np.dot(w, np.dot(cov, w)))
    return -excess / vol


def risk_parity_log_barrier(y, cov=COV, budget=np.array([0.25, 0.25, 0.25, 0.25])):  # noqa: B008
    return 0.5 * y @ cov @ y - np.sum(budget * np.log(y))


def tracking_error_f32(w, r=RETURNS32, bench=BENCH32):
    active = r @ w - bench
    te = np.std(active)
    return te + 5.0 * (np.sum(w) - 1.0) ** 2


def cvar_softplus(params, r=RETURNS32.astype(np.float64), alpha=0.9):  # noqa: B008
    w, var_level = params[:-1], params[-1]
    loss = -(r @ w)
    excess = np.logaddexp(0.0, (loss - var_level) * 50.0) / 50.0
    return var_level + np.mean(excess) / (1.0 - alpha) + 20.0 * (np.sum(w) - 1.0) ** 2


def black_litterman(pi, cov=COV, p=np.array([[1.0, -1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]]),  # noqa: B008
                    q=np.array([0.02, 0.1]), tau=0.05):  # noqa: B008
    omega = np.diag(np.diag(p @ (tau * cov) @ p.T))
    a = np.linalg.inv(tau * cov) + p.T @ np.linalg.inv(omega) @ p
    b = np.linalg.inv(tau * cov) @ pi + p.T @ np.linalg.solve(omega, q)
    posterior = np.linalg.solve(a, b)
    w = np.linalg.solve(2.5 * cov, posterior)
    return np.sum(w ** 2)


def kelly(w, r=RETURNS32.astype(np.float64) * 3):  # noqa: B008
    growth = np.log(1.0 + r @ w)
    return -np.mean(growth)


def cds_hazard(h, spreads=np.array([0.008, 0.011, 0.013]), recovery=0.4, dt=0.25):  # noqa: B008
    """Piecewise hazards per year, a CDS's premium and protection legs by quarterly steps."""
    loss = 0.0
    for j in range(len(spreads)):
        surv, prem, prot = 1.0, 0.0, 0.0
        for q in range(4 * (j + 1)):
            year = q // 4
            new = surv * np.exp(-h[year] * dt)
            df = np.exp(-0.02 * (q + 1) * dt)
            prem += dt * new * df
            prot += (1 - recovery) * (surv - new) * df
            surv = new
        loss += (prot / prem - spreads[j]) ** 2 * 1e4
    return loss


def _vec(*values):
    return lambda rng: (np.array(values, dtype=float),)


FINANCE = [
    ("opt_bs_call_market", bs_call_market, _vec(100.0, 0.25, 0.02, 0.8), 0),
    ("opt_bs_put_ndtr", bs_put_ndtr, _vec(100.0, 0.2, 0.01, 0.5), 0),
    ("opt_bs_smile_fit", bs_smile_fit, _vec(0.3, 0.26, 0.22, 0.21, 0.22), 0),
    ("opt_bachelier", bachelier, _vec(100.0, 12.0, 0.5), 0),
    ("opt_black76", black76, _vec(101.0, 0.22, 0.75), 0),
    ("opt_digital_smoothed", digital_smoothed, _vec(100.0, 0.2, 0.5), 0),
    ("opt_implied_vol", implied_vol, lambda rng: (7.5,), 0),
    ("opt_merton_jumps", merton_jumps, _vec(0.2, 0.5, -0.1, 0.15), 0),
    ("opt_pathwise_asian", pathwise_asian, _vec(100.0, 0.25, 0.02), 0),
    ("opt_down_and_out", down_and_out, _vec(100.0, 0.25), 0),
    ("pf_mean_variance_penalised", mean_variance_penalised, _vec(0.3, -0.1, 0.5, 0.2), 0),
    ("pf_turnover_smoothed", turnover_smoothed, _vec(0.25, 0.35, 0.1, 0.3), 0),
    ("pf_softmax_weights", softmax_weights, _vec(0.1, -0.3, 0.4, 0.0), 0),
    ("pf_max_sharpe", max_sharpe, _vec(0.2, 0.3, 0.3, 0.2), 0),
    ("pf_risk_parity_barrier", risk_parity_log_barrier, _vec(1.2, 1.8, 0.9, 2.5), 0),
    ("pf_tracking_error_f32", tracking_error_f32, _vec(0.2, 0.3, 0.25, 0.25), 0),
    ("pf_cvar_softplus", cvar_softplus, _vec(0.25, 0.25, 0.25, 0.25, 0.02), 0),
    ("pf_black_litterman", black_litterman, _vec(0.05, 0.04, 0.07, 0.02), 0),
    ("pf_kelly", kelly, _vec(0.3, 0.2, 0.1, 0.3), 0),
    ("credit_cds_hazard", cds_hazard, _vec(0.013, 0.02, 0.024), 0),
]
