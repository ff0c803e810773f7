"""The red team's wave 28a, finance: option pricing (Black-Scholes, binomial trees, Monte Carlo
with fixed draws), portfolio variance and risk measures, discounting loops, cumulative returns by
np.cumprod, bond pricing and yield by a few Newton steps."""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave28a_signal import M, P


def norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def black_scholes_call(S, K=1.0, T=0.5, r=0.02, sigma=0.3):
    d1 = (math.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    return S * norm_cdf(d1) - K * math.exp(-r * T) * norm_cdf(d2)


def bs_vol_sensitivity(sigma, S=1.1):
    return black_scholes_call(S, sigma=sigma)


def bs_vectorised(S, K, T=1.0, r=0.01, sigma=0.25):
    from scipy.special import ndtr
    d1 = (np.log(S / K) + (r + 0.5 * sigma**2) * T) / (sigma * np.sqrt(T))
    d2 = d1 - sigma * np.sqrt(T)
    return np.sum(S * ndtr(d1) - K * np.exp(-r * T) * ndtr(d2))


def binomial_tree(S0, K=1.0, r=0.03, sigma=0.2, T=1.0, steps=5):
    dt = T / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    values = [max(S0 * u**j * d ** (steps - j) - K, 0.0) for j in range(steps + 1)]
    for i in range(steps, 0, -1):
        values = [disc * (p * values[j + 1] + (1 - p) * values[j]) for j in range(i)]
    return values[0]


def binomial_tree_numpy(sigma, S0=1.0, K=0.95, r=0.02, steps=6):
    dt = 1.0 / steps
    u = np.exp(sigma * np.sqrt(dt))
    d = 1.0 / u
    p = (np.exp(r * dt) - d) / (u - d)
    j = np.arange(steps + 1)
    v = np.maximum(S0 * u**j * d ** (steps - j) - K, 0.0)
    while v.shape[0] > 1:
        v = np.exp(-r * dt) * (p * v[1:] + (1.0 - p) * v[:-1])
    return v[0]


def mc_call_fixed_draws(sigma, z, S0=1.0, K=1.0, r=0.01, T=1.0):
    ST = S0 * np.exp((r - 0.5 * sigma**2) * T + sigma * math.sqrt(T) * z)
    payoff = np.log1p(np.exp(10.0 * (ST - K))) / 10.0  # a smoothed max(ST - K, 0)
    return math.exp(-r * T) * np.mean(payoff)


def portfolio_variance(w, cov):
    return w @ cov @ w


def mean_variance_utility(w, mu, cov, risk_aversion=3.0):
    w = w / np.sum(w)
    return w @ mu - 0.5 * risk_aversion * (w @ cov @ w)


def sharpe_ratio(w, returns):
    port = returns @ w
    return np.mean(port) / np.std(port)


def discount_loop(rate, cashflows):
    pv = 0.0
    for t, cf in enumerate(cashflows, start=1):
        pv += cf / (1.0 + rate) ** t
    return pv


def bond_price_continuous(y, coupon=0.05, maturity=5):
    times = np.arange(1, maturity + 1)
    cfs = np.full(maturity, coupon)
    cfs[-1] += 1.0
    return np.sum(cfs * np.exp(-y * times))


def ytm_newton(price, coupon=0.04, n=4):
    """Yield to maturity by a few Newton steps, unrolled: the gradient flows through them."""
    y = 0.05
    for _ in range(6):
        f = -price
        df = 0.0
        for t in range(1, n + 1):
            cf = coupon + (1.0 if t == n else 0.0)
            f += cf * math.exp(-y * t)
            df -= t * cf * math.exp(-y * t)
        y = y - f / df
    return y


def cumulative_returns(r):
    wealth = np.cumprod(1.0 + r)
    return wealth[-1] - np.max(wealth) * 0.1


def drawdown_soft(r, k=20.0):
    wealth = np.cumprod(1.0 + r)
    peak = np.maximum.accumulate(wealth)
    dd = 1.0 - wealth / peak
    return np.log(np.sum(np.exp(k * dd))) / k


def log_returns_vol(prices):
    lr = np.diff(np.log(prices))
    return math.sqrt(252.0) * np.std(lr, ddof=1)


def ewma_volatility(lam, r):
    var = r[0] ** 2
    for t in range(1, len(r)):
        var = lam * var + (1 - lam) * r[t] ** 2
    return var**0.5


def garch_loglik(params, r):
    omega, alpha, beta = params
    sigma2 = np.var(r)
    ll = 0.0
    for t in range(len(r)):
        ll += -0.5 * (math.log(2 * math.pi) + np.log(sigma2) + r[t] ** 2 / sigma2)
        sigma2 = omega + alpha * r[t] ** 2 + beta * sigma2
    return ll


def cvar_smoothed(w, scenarios, alpha=0.8, temp=0.1):
    losses = -(scenarios @ w)
    var = np.quantile(losses, alpha)
    excess = temp * np.logaddexp(0.0, (losses - var) / temp)
    return var + np.mean(excess) / (1.0 - alpha)


def annuity_while(rate, payment=1.0, years=8):
    pv = 0.0
    t = 1
    while t <= years:
        pv = pv + payment * (1.0 + rate) ** (-t)
        t += 1
    return pv


def forward_rates(zero_rates):
    t = np.arange(1, len(zero_rates) + 1, dtype=float)
    growth = np.exp(zero_rates * t)
    fwd = np.log(growth[1:] / growth[:-1])
    return np.sum(fwd**2)


def risk_parity_objective(w, cov):
    port_var = w @ cov @ w
    contrib = w * (cov @ w) / port_var
    target = np.ones_like(w) / len(w)
    return np.sum((contrib - target) ** 2)


def heston_euler_paths(kappa, z, v0=0.04, theta=0.04, xi=0.3, dt=0.05):
    v = np.full(z.shape[1], v0)
    logS = np.zeros(z.shape[1])
    for step in z:
        v_pos = np.maximum(v, 1e-8)
        logS = logS - 0.5 * v_pos * dt + np.sqrt(v_pos * dt) * step
        v = v + kappa * (theta - v_pos) * dt + xi * np.sqrt(v_pos * dt) * step * 0.5
    return np.mean(np.exp(logS))


def duration_convexity(y, cfs=(0.03, 0.03, 0.03, 1.03)):
    pv = [cf * math.exp(-y * (t + 1)) for t, cf in enumerate(cfs)]
    price = sum(pv)
    duration = sum((t + 1) * v for t, v in enumerate(pv)) / price
    convexity = sum((t + 1) ** 2 * v for t, v in enumerate(pv)) / price
    return duration + 0.5 * convexity


def kelly_growth(f, outcomes, probs):
    return np.sum(probs * np.log1p(f * outcomes))


def asian_option_mc(sigma, z, S0=1.0, K=1.0, dt=0.1):
    paths = S0 * np.exp(np.cumsum(-0.5 * sigma**2 * dt + sigma * math.sqrt(dt) * z, axis=1))
    avg = np.mean(paths, axis=1)
    return np.mean(np.logaddexp(0.0, 8.0 * (avg - K)) / 8.0)


def loan_amortisation(rate, principal=100.0, n=12):
    payment = principal * rate / (1.0 - (1.0 + rate) ** (-n))
    balance = principal
    interest_paid = 0.0
    for _ in range(n):
        interest = balance * rate
        interest_paid += interest
        balance = balance - (payment - interest)
    return interest_paid + balance**2


def nelson_siegel(beta, t):
    b0, b1, b2, tau = beta[0], beta[1], beta[2], beta[3]
    x = t / tau
    f = (1.0 - np.exp(-x)) / x
    return np.sum((b0 + b1 * f + b2 * (f - np.exp(-x))) ** 2)


FINANCE = [
    ("black_scholes_call", black_scholes_call, lambda r: (1.1,), 0),
    ("bs_vol_sensitivity", bs_vol_sensitivity, lambda r: (0.25,), 0),
    ("bs_vectorised", bs_vectorised, lambda r: (P(r, 4), P(r, 4)), 0),
    ("bs_vectorised_K", bs_vectorised, lambda r: (P(r, 4), P(r, 4)), 1),
    ("binomial_tree", binomial_tree, lambda r: (1.05,), 0),
    ("binomial_tree_numpy", binomial_tree_numpy, lambda r: (0.25,), 0),
    ("mc_call_fixed_draws", mc_call_fixed_draws, lambda r: (0.3, M(r, 16)), 0),
    ("portfolio_variance", portfolio_variance, lambda r: (P(r, 3), np.cov(M(r, 3, 10))), 0),
    ("mean_variance_utility", mean_variance_utility, lambda r: (P(r, 3), 0.1 * M(r, 3), np.cov(M(r, 3, 10))), 0),
    ("sharpe_ratio", sharpe_ratio, lambda r: (P(r, 3), 0.02 + 0.1 * M(r, 12, 3)), 0),
    ("discount_loop", discount_loop, lambda r: (0.05, [1.0, 2.0, 3.0, 104.0]), 0),
    ("discount_loop_cf", discount_loop, lambda r: (0.05, P(r, 4)), 1),
    ("bond_price_continuous", bond_price_continuous, lambda r: (0.04,), 0),
    ("ytm_newton", ytm_newton, lambda r: (0.98,), 0),
    ("cumulative_returns", cumulative_returns, lambda r: (0.05 * M(r, 6),), 0),
    ("drawdown_soft", drawdown_soft, lambda r: (0.05 * M(r, 6),), 0),
    ("log_returns_vol", log_returns_vol, lambda r: (P(r, 7) + 1.0,), 0),
    ("ewma_volatility", ewma_volatility, lambda r: (0.9, 0.02 * M(r, 8)), 0),
    ("ewma_volatility_r", ewma_volatility, lambda r: (0.9, 0.02 * M(r, 8)), 1),
    ("garch_loglik", garch_loglik, lambda r: (np.array([0.1, 0.1, 0.8]), M(r, 8)), 0),
    ("cvar_smoothed", cvar_smoothed, lambda r: (P(r, 3), M(r, 9, 3)), 0),
    ("annuity_while", annuity_while, lambda r: (0.04,), 0),
    ("forward_rates", forward_rates, lambda r: (0.02 + 0.01 * P(r, 5),), 0),
    ("risk_parity_objective", risk_parity_objective, lambda r: (P(r, 3), np.cov(M(r, 3, 10))), 0),
    ("heston_euler_paths", heston_euler_paths, lambda r: (1.5, M(r, 5, 4)), 0),
    ("duration_convexity", duration_convexity, lambda r: (0.03,), 0),
    ("kelly_growth", kelly_growth, lambda r: (0.2, np.array([1.0, -0.5, 0.3]), np.array([0.3, 0.3, 0.4])), 0),
    ("asian_option_mc", asian_option_mc, lambda r: (0.3, M(r, 6, 5)), 0),
    ("loan_amortisation", loan_amortisation, lambda r: (0.01,), 0),
    ("nelson_siegel", nelson_siegel, lambda r: (np.array([0.03, -0.02, 0.01, 1.5]), np.arange(1.0, 6.0)), 0),
]
