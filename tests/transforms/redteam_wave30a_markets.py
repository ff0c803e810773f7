"""The red team's wave 30a, markets and risk: Black-Scholes prices and Greeks built from math.erf,
put-call parity, CRR binomial trees as lists, Merton's credit model, Vasicek and Nelson-Siegel
curves, bonds from dicts of cash flows, Markowitz portfolios with penalties, risk parity, CVaR with a
smooth tail, Kelly growth, GARCH(1,1), GJR and EWMA recursions, Almgren-Chriss execution costs,
insurance premiums (test_redteam_wave30a.py runs them through every transformation)."""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave29a_robotics import M, P

RATE = 0.03
RETURNS = np.array([[0.010, -0.004, 0.006], [-0.012, 0.008, 0.001], [0.004, 0.002, -0.007],
                    [0.015, -0.010, 0.012], [-0.003, 0.006, 0.002], [0.007, 0.001, -0.004],
                    [-0.009, -0.002, 0.005], [0.011, 0.004, 0.009]])
SQRT2 = math.sqrt(2.0)


def norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / SQRT2))


def norm_pdf(x):
    return math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def d1_d2(S, K, T, r, sigma):
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
    return d1, d1 - sigma * math.sqrt(T)


def bs_call(S, K=100.0, T=1.0, r=RATE, sigma=0.2):
    d1, d2 = d1_d2(S, K, T, r, sigma)
    return S * norm_cdf(d1) - K * math.exp(-r * T) * norm_cdf(d2)


def bs_put_by_parity(sigma, S=95.0, K=100.0, T=0.5):
    return bs_call(S, K, T, sigma=sigma) - S + K * math.exp(-RATE * T)


def bs_vega_weighted_book(vols):
    """A book of calls at several strikes: value plus a vega-weighted penalty."""
    strikes = [90.0, 100.0, 110.0]
    total = 0.0
    for K, sigma in zip(strikes, vols):
        d1, _ = d1_d2(100.0, K, 1.0, RATE, sigma)
        vega = 100.0 * norm_pdf(d1)
        total += bs_call(100.0, K=K, sigma=sigma) + 0.01 * vega
    return total


def bs_vectorised(sigmas, S=np.array([90.0, 100.0, 110.0]), K=100.0, T=0.75):  # noqa: B008
    """Black-Scholes over arrays, the normal cdf written with np.tanh's logistic approximation."""
    d1 = (np.log(S / K) + (RATE + 0.5 * sigmas ** 2) * T) / (sigmas * np.sqrt(T))
    d2 = d1 - sigmas * np.sqrt(T)
    Phi = lambda x: 0.5 * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))  # noqa: E731
    return np.sum(S * Phi(d1) - K * np.exp(-RATE * T) * Phi(d2))


def crr_binomial(sigma, S0=100.0, K=100.0, T=1.0, steps=12, american=False):
    """A Cox-Ross-Rubinstein tree: leaves as a list, rolled back step by step."""
    dt = T / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1 / u
    p = (math.exp(RATE * dt) - d) / (u - d)
    disc = math.exp(-RATE * dt)
    values = [max(K - S0 * u ** j * d ** (steps - j), 0.0) for j in range(steps + 1)]
    for n in range(steps - 1, -1, -1):
        values = [disc * (p * values[j + 1] + (1 - p) * values[j]) for j in range(n + 1)]
    return values[0]


def merton_default(params, debt=80.0, T=1.0):
    """Equity as a call on the firm's assets; default probability N(-d2)."""
    V, sigma_v = math.exp(params[0]), math.exp(params[1])
    d1, d2 = d1_d2(V, debt, T, RATE, sigma_v)
    equity = V * norm_cdf(d1) - debt * math.exp(-RATE * T) * norm_cdf(d2)
    pd = norm_cdf(-d2)
    return (equity - 30.0) ** 2 + 100.0 * pd


def vasicek_bond(params, maturities=(1.0, 2.0, 5.0, 10.0)):
    a, b, sigma = params
    r0 = 0.02
    prices = []
    for T in maturities:
        B = (1 - math.exp(-a * T)) / a
        A = (b - sigma ** 2 / (2 * a ** 2)) * (B - T) - sigma ** 2 * B ** 2 / (4 * a)
        prices.append(math.exp(A - B * r0))
    yields = [-math.log(p) / T for p, T in zip(prices, maturities)]
    return sum((y - 0.03) ** 2 for y in yields)


def nelson_siegel_fit(beta, tau=1.5):
    m = np.array([0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0])
    observed = np.array([0.045, 0.046, 0.044, 0.041, 0.039, 0.040, 0.042])
    x = m / tau
    loading = (1 - np.exp(-x)) / x
    fitted = beta[0] + beta[1] * loading + beta[2] * (loading - np.exp(-x))
    return np.sum((fitted - observed) ** 2) * 1e4


def bond_from_cashflows(y, bond={"coupon": 0.05, "face": 100.0, "years": 6, "freq": 2}):  # noqa: B006
    """Price, duration and convexity from a dict describing the bond."""
    n = bond["years"] * bond["freq"]
    c = bond["coupon"] * bond["face"] / bond["freq"]
    flows = {k: c for k in range(1, n + 1)}
    flows[n] += bond["face"]
    price = 0.0
    duration = 0.0
    for k, cf in flows.items():
        pv = cf / (1 + y / bond["freq"]) ** k
        price += pv
        duration += k / bond["freq"] * pv
    return price + duration / price


def markowitz_penalised(w, gamma=5.0, budget_weight=10.0):
    mu = RETURNS.mean(axis=0)
    cov = np.cov(RETURNS, rowvar=False)
    ret = w @ mu
    var = w @ cov @ w
    return -ret + gamma / 2 * var * 1e3 + budget_weight * (np.sum(w) - 1.0) ** 2


def risk_parity(log_w):
    """Equal risk contributions: w_i (Σw)_i all alike, weights by a softmax."""
    w = np.exp(log_w) / np.sum(np.exp(log_w))
    cov = np.cov(RETURNS.T) * 1e4
    marginal = cov @ w
    contrib = w * marginal
    target = contrib.sum() / len(w)
    return np.sum((contrib - target) ** 2)


def smooth_cvar(w, alpha=0.75, temp=0.002):
    """Rockafellar-Uryasev CVaR with the hinge smoothed by softplus; VaR as the last weight."""
    weights, var = w[:-1], w[-1]
    losses = -RETURNS @ weights
    excess = temp * np.logaddexp(0.0, (losses - var) / temp)
    return var + excess.mean() / (1 - alpha)


def kelly_growth(fractions):
    growth = np.log1p(RETURNS @ fractions * 10.0)
    return -growth.mean() + 0.5 * np.sum(fractions ** 2)


def garch_nll(params, r=RETURNS[:, 0] * 10):
    """GARCH(1,1): variances by the recursion, a list of them kept."""
    omega, alpha, beta = np.exp(params)
    sig2 = [np.var(r)]
    for t in range(1, len(r)):
        sig2.append(omega + alpha * r[t - 1] ** 2 + beta * sig2[-1])
    sig2 = np.array(sig2)
    return 0.5 * np.sum(np.log(sig2) + r ** 2 / sig2)


def gjr_garch_nll(params, r=RETURNS[:, 1] * 10):
    """GJR: the leverage term by np.where on the sign of the last return."""
    omega, alpha, gamma, beta = params
    h = np.var(r)
    nll = 0.0
    for t in range(1, len(r)):
        shock = r[t - 1] ** 2
        h = omega + (alpha + gamma * np.where(r[t - 1] < 0, 1.0, 0.0)) * shock + beta * h
        nll = nll + 0.5 * (np.log(h) + r[t] ** 2 / h)
    return nll


def ewma_vol_tracking(lam):
    r = RETURNS[:, 2]
    v = r[0] ** 2
    path = []
    for x in r[1:]:
        v = lam * v + (1 - lam) * x ** 2
        path.append(math.sqrt(v))
    return sum(path) * 100


def almgren_chriss(trades, X=1.0, eta=0.1, gamma_perm=0.05, lam=0.5, sigma=0.3):
    """Execution cost of a schedule plus risk: holdings by a cumulative sum of the trades."""
    trades = np.append(trades, X - np.sum(trades))
    holdings = X - np.cumsum(trades)
    impact = eta * np.sum(trades ** 2) + 0.5 * gamma_perm * X ** 2
    risk = lam * sigma ** 2 * np.sum(holdings ** 2)
    return impact + risk


def insurance_premium(log_lambda, deductible=2.0, limit=10.0):
    """An exponential severity with a deductible and limit; frequency Poisson."""
    lam = np.exp(log_lambda[0])
    theta = np.exp(log_lambda[1])
    layer = theta * (np.exp(-deductible / theta) - np.exp(-limit / theta))
    loading = {"expense": 0.15, "profit": 0.05}
    return lam * layer * (1 + loading["expense"] + loading["profit"])


def asian_option_paths(sigma, Z=np.linspace(-1.5, 1.5, 24).reshape(4, 6), S0=100.0, K=100.0):  # noqa: B008
    """An arithmetic Asian call on fixed normal shocks, the payoff smoothed by softplus."""
    dt = 1 / 6
    log_paths = np.cumsum((RATE - 0.5 * sigma ** 2) * dt + sigma * math.sqrt(dt) * Z, axis=1)
    avg = S0 * np.exp(log_paths).mean(axis=1)
    payoff = 2.0 * np.logaddexp(0.0, (avg - K) / 2.0)
    return math.exp(-RATE) * payoff.mean()


def portfolio_drawdown_soft(w, temp=0.01):
    """A smooth maximum drawdown: soft running maximum of the wealth curve."""
    wealth = np.cumprod(1 + RETURNS @ w)
    peaks = []
    peak = wealth[0]
    for v in wealth:
        peak = temp * np.logaddexp(peak / temp, v / temp)
        peaks.append(peak)
    dd = 1 - wealth / np.array(peaks)
    return temp * np.log(np.sum(np.exp(dd / temp)))


def sharpe_ratio(w, rf=0.0):
    port = RETURNS @ w
    excess = port - rf
    return -excess.mean() / np.sqrt(excess.var(ddof=1))


MARKETS = [
    ("mk_bs_call", bs_call, lambda r: (103.0,), 0),
    ("mk_bs_put_by_parity", bs_put_by_parity, lambda r: (0.25,), 0),
    ("mk_bs_vega_weighted_book", bs_vega_weighted_book, lambda r: (np.array([0.22, 0.2, 0.18]),), 0),
    ("mk_bs_vectorised", bs_vectorised, lambda r: (np.array([0.3, 0.2, 0.25]),), 0),
    ("mk_crr_binomial", crr_binomial, lambda r: (0.23,), 0),
    ("mk_merton_default", merton_default, lambda r: (np.array([math.log(110.0), math.log(0.25)]),), 0),
    ("mk_vasicek_bond", vasicek_bond, lambda r: (np.array([0.3, 0.04, 0.01]),), 0),
    ("mk_nelson_siegel_fit", nelson_siegel_fit, lambda r: (np.array([0.04, 0.005, -0.01]),), 0),
    ("mk_bond_from_cashflows", bond_from_cashflows, lambda r: (0.045,), 0),
    ("mk_markowitz_penalised", markowitz_penalised, lambda r: (np.array([0.3, 0.4, 0.3]) + 0.05 * M(r, 3),), 0),
    ("mk_risk_parity", risk_parity, lambda r: (0.3 * M(r, 3),), 0),
    ("mk_smooth_cvar", smooth_cvar, lambda r: (np.array([0.3, 0.3, 0.4, 0.002]),), 0),
    ("mk_kelly_growth", kelly_growth, lambda r: (0.2 * P(r, 3),), 0),
    ("mk_garch_nll", garch_nll, lambda r: (np.log([0.02, 0.1, 0.8]),), 0),
    ("mk_gjr_garch_nll", gjr_garch_nll, lambda r: (np.array([0.02, 0.08, 0.05, 0.8]),), 0),
    ("mk_ewma_vol_tracking", ewma_vol_tracking, lambda r: (0.94,), 0),
    ("mk_almgren_chriss", almgren_chriss, lambda r: (np.array([0.3, 0.25, 0.2]),), 0),
    ("mk_insurance_premium", insurance_premium, lambda r: (np.array([0.5, 1.0]),), 0),
    ("mk_asian_option_paths", asian_option_paths, lambda r: (0.25,), 0),
    ("mk_portfolio_drawdown_soft", portfolio_drawdown_soft, lambda r: (np.array([0.4, 0.3, 0.3]),), 0),
    ("mk_sharpe_ratio", sharpe_ratio, lambda r: (np.array([0.4, 0.3, 0.3]) + 0.05 * M(r, 3),), 0),
]
