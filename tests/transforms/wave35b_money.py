"""Wave 35b: finance, written the way its users write it: an American put by a binomial tree with a
backward loop over an array and over a Python list with max(), a trinomial tree, a bond's yield by
Newton's method from its price, duration and convexity over a list of cash flows, a bootstrapped
discount curve, CVaR by np.sort, Black-Scholes by scipy.special.ndtr and by math.erf, an Asian
option over fixed draws, a Sharpe ratio with ddof=1, a maximum drawdown by np.maximum.accumulate, a
CDS spread from hazard rates by np.cumsum, Almgren-Chriss execution, Kelly growth, a risk-parity
objective, a mean-variance portfolio over a dict of assets and a GBM path with antithetic draws."""

from __future__ import annotations

import math

import numpy as np
import scipy.special as sc

CASHFLOWS = [(0.5, 2.0), (1.0, 2.0), (1.5, 2.0), (2.0, 102.0)]
PAR_RATES = [0.02, 0.022, 0.025, 0.027, 0.03]
DRAWS = np.random.default_rng(7).normal(size=(16, 6))
SCEN = np.random.default_rng(8).normal(0.01, 0.05, size=(40, 3))
ASSETS = {"stock": (0.08, 0.2), "bond": (0.03, 0.05), "gold": (0.05, 0.15)}
CORR = np.array([[1.0, -0.2, 0.1], [-0.2, 1.0, 0.0], [0.1, 0.0, 1.0]])
COV = np.array([[0.04, 0.006, 0.002], [0.006, 0.01, 0.001], [0.002, 0.001, 0.02]])


def american_put(sigma, s0=100.0, strike=105.0, r=0.03, t=1.0, n=25):
    dt = t / n
    u = np.exp(sigma * np.sqrt(dt))
    d = 1.0 / u
    p = (np.exp(r * dt) - d) / (u - d)
    disc = np.exp(-r * dt)
    prices = s0 * u ** np.arange(n, -1, -1) * d ** np.arange(0, n + 1)
    values = np.maximum(strike - prices, 0.0)
    for step in range(n - 1, -1, -1):  # noqa: B007
        prices = prices[:-1] / u
        values = disc * (p * values[:-1] + (1 - p) * values[1:])
        values = np.maximum(values, strike - prices)
    return values[0]


def american_call_list(params, n=20):
    s0, sigma = params[0], params[1]
    dt, r, strike = 1.0 / n, 0.02, 100.0
    u = math.exp(sigma * math.sqrt(dt))
    d = 1 / u
    q = (math.exp(r * dt) - d) / (u - d)
    vals = [max(s0 * u ** j * d ** (n - j) - strike, 0.0) for j in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1):
            cont = math.exp(-r * dt) * (q * vals[j + 1] + (1 - q) * vals[j])
            vals[j] = max(cont, s0 * u ** j * d ** (i - j) - strike)
    return vals[0]


def trinomial_european(sigma, s0=50.0, strike=52.0, r=0.05, n=15):
    dt = 0.5 / n
    dx = sigma * np.sqrt(3 * dt)
    nu = r - 0.5 * sigma ** 2
    pu = 0.5 * ((sigma ** 2 * dt + nu ** 2 * dt ** 2) / dx ** 2 + nu * dt / dx)
    pd = 0.5 * ((sigma ** 2 * dt + nu ** 2 * dt ** 2) / dx ** 2 - nu * dt / dx)
    pm = 1 - pu - pd
    j = np.arange(-n, n + 1)
    v = np.maximum(s0 * np.exp(j * dx) - strike, 0.0)
    for _ in range(n):
        v = np.exp(-r * dt) * (pu * v[2:] + pm * v[1:-1] + pd * v[:-2])
    return float(v[0])


def bond_yield_newton(price):
    y = 0.05
    for _ in range(20):
        pv = sum(c * math.exp(-y * t) for t, c in CASHFLOWS)
        dpv = sum(-t * c * math.exp(-y * t) for t, c in CASHFLOWS)
        y -= (pv - price) / dpv
    return y


def duration_convexity(y):
    pv = dur = conv = 0.0
    for t, c in CASHFLOWS:
        df = (1 + y / 2) ** (-2 * t)
        pv += c * df
        dur += t * c * df
        conv += t * (t + 0.5) * c * df
    dur /= pv
    conv /= pv * (1 + y / 2) ** 2
    return dur + 0.5 * conv * 0.01 ** 2


def bootstrap_curve(shift, rates=PAR_RATES):
    dfs = []
    for k, rate in enumerate(rates):
        par = rate + shift[k]
        annuity = sum(dfs)
        dfs.append((1 - par * annuity) / (1 + par))
    zero = [-math.log(df) / (i + 1) for i, df in enumerate(dfs)]
    return sum((z - 0.03) ** 2 for z in zero)


def cvar_sort(w, alpha=0.9):
    losses = -(SCEN @ w)
    srt = np.sort(losses)
    k = int(alpha * len(srt))
    var = srt[k]
    return var + np.mean(np.maximum(srt[k:] - var, 0.0)) + srt[k:].mean()


def black_scholes_ndtr(sigma, s=np.array([90.0, 100.0, 110.0]), k=100.0, r=0.01, t=0.5):  # noqa: B008
    d1 = (np.log(s / k) + (r + 0.5 * sigma ** 2) * t) / (sigma * np.sqrt(t))
    d2 = d1 - sigma * np.sqrt(t)
    call = s * sc.ndtr(d1) - k * np.exp(-r * t) * sc.ndtr(d2)
    return np.sum((call - np.array([2.0, 6.5, 13.0])) ** 2)


def _phi(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def black_scholes_erf(params):
    s, sigma = params
    k, r, t = 100.0, 0.02, 1.0
    d1 = (math.log(s / k) + (r + sigma * sigma / 2) * t) / (sigma * math.sqrt(t))
    d2 = d1 - sigma * math.sqrt(t)
    return k * math.exp(-r * t) * _phi(-d2) - s * _phi(-d1)


def asian_option(sigma, s0=100.0, strike=100.0, r=0.01, dt=1 / 6):
    log_s = np.log(s0) + np.cumsum((r - 0.5 * sigma ** 2) * dt + sigma * np.sqrt(dt) * DRAWS, axis=1)
    avg = np.exp(log_s).mean(axis=1)
    return math.exp(-r) * np.mean(np.maximum(avg - strike, 0.0))


def sharpe(w):
    w = w / np.sum(w)
    rets = SCEN @ w
    return -np.mean(rets) / np.std(rets, ddof=1)


def max_drawdown(w):
    wealth = np.cumprod(1.0 + SCEN @ w)
    peak = np.maximum.accumulate(wealth)
    dd = (peak - wealth) / peak
    return float(np.max(dd)) + 0.1 * float(np.sum(dd))


def cds_spread(hazard, recovery=0.4, r=0.02):
    t = np.arange(1, len(hazard) + 1, dtype=float)
    surv = np.exp(-np.cumsum(hazard))
    df = np.exp(-r * t)
    prev = np.concatenate(([1.0], surv[:-1]))
    protection = (1 - recovery) * np.sum(df * (prev - surv))
    premium = np.sum(df * surv)
    return (protection / premium - 0.012) ** 2


def almgren_chriss(trades, eta=0.05, gamma=0.01, lam=0.001, sigma=0.3, total=100.0):
    holdings = total
    cost, risk = 0.0, 0.0
    for n in trades:
        holdings -= n
        cost += eta * n * n + gamma * n * holdings
        risk += sigma ** 2 * holdings ** 2
    return cost + lam * risk + 10.0 * holdings ** 2


def kelly(f, p=np.array([0.55, 0.6, 0.52]), b=np.array([1.0, 0.8, 1.5])):  # noqa: B008
    growth = p * np.log1p(f * b) + (1 - p) * np.log1p(-f)
    return -growth.sum()


def risk_parity(w):
    w = np.abs(w)
    port_var = w @ COV @ w
    contrib = w * (COV @ w) / port_var
    return float(np.sum((contrib - 1 / 3) ** 2))


def mean_variance_dict(logits, risk_aversion=3.0):
    names = list(ASSETS)
    ex = np.exp(logits - logits.max())
    w = ex / ex.sum()
    mu = np.array([ASSETS[n][0] for n in names])
    vol = np.array([ASSETS[n][1] for n in names])
    cov = CORR * np.outer(vol, vol)
    return -(w @ mu) + 0.5 * risk_aversion * w @ cov @ w


def gbm_antithetic(params, s0=1.0, n=6):
    mu, sigma = params[0], params[1]
    z = DRAWS[:8, :n]
    paths = []
    for sign in (1.0, -1.0):
        s = np.full(z.shape[0], s0)
        for t in range(n):
            s = s * np.exp((mu - 0.5 * sigma ** 2) / n + sigma * sign * z[:, t] / np.sqrt(n))
        paths.append(s)
    terminal = 0.5 * (paths[0] + paths[1])
    return float(np.mean((terminal - 1.05) ** 2))


MONEY = [
    ("fin_american_put_array", american_put, lambda r: (0.25,), 0),
    ("fin_american_call_list", american_call_list, lambda r: (np.array([98.0, 0.3]),), 0),
    ("fin_trinomial", trinomial_european, lambda r: (0.3,), 0),
    ("fin_bond_yield_newton", bond_yield_newton, lambda r: (101.5,), 0),
    ("fin_duration_convexity", duration_convexity, lambda r: (0.04,), 0),
    ("fin_bootstrap_curve", bootstrap_curve, lambda r: (r.normal(0, 0.001, 5),), 0),
    ("fin_cvar_sort", cvar_sort, lambda r: (np.array([0.5, 0.3, 0.2]),), 0),
    ("fin_bs_ndtr", black_scholes_ndtr, lambda r: (0.2,), 0),
    ("fin_bs_erf", black_scholes_erf, lambda r: (np.array([95.0, 0.25]),), 0),
    ("fin_asian_mc", asian_option, lambda r: (0.3,), 0),
    ("fin_sharpe_ddof", sharpe, lambda r: (np.array([0.4, 0.35, 0.25]),), 0),
    ("fin_max_drawdown", max_drawdown, lambda r: (np.array([0.5, 0.3, 0.2]),), 0),
    ("fin_cds_hazard", cds_spread, lambda r: (np.array([0.01, 0.015, 0.02, 0.025]),), 0),
    ("fin_almgren_chriss", almgren_chriss, lambda r: (np.array([30.0, 25.0, 20.0, 15.0]),), 0),
    ("fin_kelly", kelly, lambda r: (np.array([0.1, 0.15, 0.05]),), 0),
    ("fin_risk_parity_abs", risk_parity, lambda r: (np.array([0.3, 0.5, 0.4]),), 0),
    ("fin_mean_variance_dict", mean_variance_dict, lambda r: (r.normal(size=3),), 0),
    ("fin_gbm_antithetic", gbm_antithetic, lambda r: (np.array([0.05, 0.2]),), 0),
]
