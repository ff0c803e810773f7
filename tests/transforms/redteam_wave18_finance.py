"""The red team's eighteenth wave, continued: finance not written before.  A trinomial tree, Heston by Euler with
full truncation on fixed draws, Hagan's SABR formula with its at-the-money branch, Nelson-Siegel and
Svensson curves, a curve bootstrapped from par rates in a loop, Vasicek and CIR bond prices, a swap rate
from discount factors, CDS hazards bootstrapped, historical VaR / CVaR over sorted scenarios, GARCH(1,1)'s
likelihood, an EWMA volatility, Black-Litterman's posterior mean, a risk-parity objective, Margrabe's
exchange option by math.erf, a lookback option by path maxima, a digital option smoothed by a sigmoid, a
discounted cash flow with a Gordon terminal value, Merton's structural default probability, an annuity
written with ``**`` of a negative exponent, Sortino and Calmar ratios, and a mortgage schedule whose
payment is the parameter.  See redteam_wave18.py.
"""

from __future__ import annotations

import math

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


def ncdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def trinomial_call(sigma, S0=100.0, K=100.0, r=0.03, T=1.0, n=8):
    dt = T / n
    dx = sigma * math.sqrt(3 * dt)
    nu = r - 0.5 * sigma ** 2
    pu = 0.5 * ((sigma ** 2 * dt + nu ** 2 * dt ** 2) / dx ** 2 + nu * dt / dx)
    pd = 0.5 * ((sigma ** 2 * dt + nu ** 2 * dt ** 2) / dx ** 2 - nu * dt / dx)
    pm = 1.0 - pu - pd
    j = np.arange(-n, n + 1)
    V = np.maximum(S0 * np.exp(j * dx) - K, 0.0)
    disc = math.exp(-r * dt)
    for _ in range(n):
        V = disc * (pu * V[2:] + pm * V[1:-1] + pd * V[:-2])
    return V[0]


def heston_mc(params, Z1, Z2, S0=1.0, T=1.0):
    kappa, theta, xi, rho = params
    n = Z1.shape[1]
    dt = T / n
    S = np.full(Z1.shape[0], S0)
    v = np.full(Z1.shape[0], theta)
    for t in range(n):
        vp = np.maximum(v, 0.0)
        W2 = rho * Z1[:, t] + np.sqrt(1 - rho ** 2) * Z2[:, t]
        S = S * np.exp(-0.5 * vp * dt + np.sqrt(vp * dt) * Z1[:, t])
        v = v + kappa * (theta - vp) * dt + xi * np.sqrt(vp * dt) * W2
    return np.mean(np.maximum(S - 1.0, 0.0))


def sabr_vol(alpha, f=0.03, K=0.032, beta=0.5, rho=-0.3, nu=0.4, T=2.0):
    if abs(f - K) < 1e-12:
        return alpha / f ** (1 - beta) * (1 + ((1 - beta) ** 2 / 24 * alpha ** 2 / f ** (2 - 2 * beta)
                                              + rho * beta * nu * alpha / (4 * f ** (1 - beta))
                                              + (2 - 3 * rho ** 2) / 24 * nu ** 2) * T)
    logfk = math.log(f / K)
    fk = (f * K) ** ((1 - beta) / 2)
    z = nu / alpha * fk * logfk
    xz = math.log((math.sqrt(1 - 2 * rho * z + z * z) + z - rho) / (1 - rho))
    return alpha / fk * z / xz * (1 + ((1 - beta) ** 2 / 24 * alpha ** 2 / fk ** 2
                                       + rho * beta * nu * alpha / (4 * fk) + (2 - 3 * rho ** 2) / 24 * nu ** 2) * T)


def nelson_siegel(p, t, y):
    b0, b1, b2, tau = p
    x = t / tau
    f = (1 - np.exp(-x)) / x
    model = b0 + b1 * f + b2 * (f - np.exp(-x))
    return np.sum((model - y) ** 2)


def svensson(p, t):
    b0, b1, b2, b3, t1, t2 = p
    x1, x2 = t / t1, t / t2
    f1 = -np.expm1(-x1) / x1
    f2 = -np.expm1(-x2) / x2
    return np.sum(b0 + b1 * f1 + b2 * (f1 - np.exp(-x1)) + b3 * (f2 - np.exp(-x2)))


def bootstrap_par(par):
    dfs = []
    for c in par:
        annuity = sum(dfs)
        dfs.append((1 - c * annuity) / (1 + c))
    dfs = np.array(dfs)
    zeros = -np.log(dfs) / np.arange(1, len(par) + 1)
    return zeros.sum()


def vasicek_bond(p, r0=0.02, T=5.0):
    a, b, sigma = p
    B = (1 - math.exp(-a * T)) / a
    A = math.exp((b - sigma ** 2 / (2 * a * a)) * (B - T) - sigma ** 2 * B * B / (4 * a))
    return A * math.exp(-B * r0)


def cir_bond(p, r0=0.03, T=3.0):
    kappa, theta, sigma = p
    h = np.sqrt(kappa ** 2 + 2 * sigma ** 2)
    e = np.exp(h * T) - 1.0
    B = 2 * e / (2 * h + (kappa + h) * e)
    A = (2 * h * np.exp((kappa + h) * T / 2) / (2 * h + (kappa + h) * e)) ** (2 * kappa * theta / sigma ** 2)
    return A * np.exp(-B * r0)


def swap_rate(zero_rates, freq=2):
    t = np.arange(1, len(zero_rates) + 1) / freq
    df = (1 + zero_rates / freq) ** (-freq * t)
    return (1 - df[-1]) / (np.sum(df) / freq)


def cds_bootstrap(spreads, recovery=0.4):
    survival = 1.0
    total = 0.0
    hazards = []
    for s in spreads:
        lam = s / (1 - recovery)
        hazards.append(lam)
        survival *= math.exp(-lam)
        total += survival
    return total + sum(hazards)


def historical_cvar(w, scenarios, alpha=0.8):
    losses = -(scenarios @ w)
    ordered = np.sort(losses)
    k = int(alpha * len(ordered))
    return ordered[k] + ordered[k:].mean()


def garch_nll(p, r):
    omega, a, b = p
    h = np.var(r)
    nll = 0.0
    for t in range(1, len(r)):
        h = omega + a * r[t - 1] ** 2 + b * h
        nll += 0.5 * (math.log(h) + r[t] ** 2 / h)
    return nll


def ewma_vol(lam, r):
    s2 = r[0] ** 2
    for x in r[1:]:
        s2 = lam * s2 + (1 - lam) * x * x
    return math.sqrt(s2)


def black_litterman(views, Sigma, P, tau=0.05):
    pi = Sigma @ np.ones(Sigma.shape[0]) * 0.1
    Omega = np.diag(np.diag(P @ (tau * Sigma) @ P.T))
    inv = np.linalg.inv
    A = inv(inv(tau * Sigma) + P.T @ inv(Omega) @ P)
    mu = A @ (inv(tau * Sigma) @ pi + P.T @ inv(Omega) @ views)
    return np.sum(mu ** 2)


def risk_parity(w, Sigma):
    rc = w * (Sigma @ w)
    total = w @ Sigma @ w
    return np.sum((rc / total - 1.0 / len(w)) ** 2)


def margrabe(sig, S1=100.0, S2=95.0, T=1.0, rho=0.3):
    s1, s2 = sig
    s = math.sqrt(s1 ** 2 + s2 ** 2 - 2 * rho * s1 * s2)
    d1 = (math.log(S1 / S2) + 0.5 * s * s * T) / (s * math.sqrt(T))
    d2 = d1 - s * math.sqrt(T)
    return S1 * ncdf(d1) - S2 * ncdf(d2)


def lookback_call(sigma, Z, S0=1.0, dt=0.1):
    paths = S0 * np.exp(np.cumsum(-0.5 * sigma ** 2 * dt + sigma * np.sqrt(dt) * Z, axis=1))
    return np.mean(paths.max(axis=1) - paths[:, -1])


def smoothed_digital(S, K=1.0, width=0.05):
    return np.mean(1.0 / (1.0 + np.exp(-(S - K) / width)))


def dcf_value(cash, r=0.08, g=0.02):
    value = 0.0
    for t, c in enumerate(cash, start=1):
        value += c / (1 + r) ** t
    terminal = cash[-1] * (1 + g) / (r - g)
    return value + terminal / (1 + r) ** len(cash)


def merton_default(p, D=80.0, T=1.0):
    V, sigma = p
    d2 = (math.log(V / D) - 0.5 * sigma ** 2 * T) / (sigma * math.sqrt(T))
    return ncdf(-d2)


def annuity_payment(rate, P=1000.0, n=12):
    return P * rate / (1 - (1 + rate) ** -n)


def sortino(w, R, target=0.0):
    port = R @ w
    downside = np.minimum(port - target, 0.0)
    return port.mean() / np.sqrt(np.mean(downside ** 2) + 1e-8)


def calmar(w, R):
    wealth = np.cumprod(1 + R @ w)
    peak = np.maximum.accumulate(wealth)
    return (wealth[-1] - 1) / np.max(1 - wealth / peak)


def mortgage_schedule(payment, principal=100.0, rate=0.01, months=24):
    balance = principal
    interest_paid = 0.0
    for _month in range(months):
        interest = balance * rate
        interest_paid += interest
        balance = balance + interest - payment
        if balance <= 0:
            break
    return interest_paid + balance


FINANCE18 = [
    ("w18_trinomial_call", trinomial_call, lambda r: (0.25,), 0),
    ("w18_heston_mc", heston_mc,
     lambda r: (np.array([1.5, 0.04, 0.3, -0.6]), M(r, 20, 6), M(r, 20, 6)), 0),
    ("w18_sabr_vol", sabr_vol, lambda r: (0.05,), 0),
    ("w18_nelson_siegel", nelson_siegel,
     lambda r: (np.array([0.04, -0.02, 0.01, 1.5]), np.array([0.5, 1, 2, 5, 10.0]), 0.03 + 0.001 * M(r, 5)), 0),
    ("w18_svensson", svensson, lambda r: (np.array([0.04, -0.02, 0.01, 0.005, 1.5, 6.0]), np.array([0.5, 2, 7.0])), 0),
    ("w18_bootstrap_par", bootstrap_par, lambda r: (np.array([0.02, 0.025, 0.028, 0.03]),), 0),
    ("w18_vasicek_bond", vasicek_bond, lambda r: (np.array([0.3, 0.04, 0.01]),), 0),
    ("w18_cir_bond", cir_bond, lambda r: (np.array([0.5, 0.04, 0.1]),), 0),
    ("w18_swap_rate", swap_rate, lambda r: (0.03 + 0.002 * np.arange(6),), 0),
    ("w18_cds_bootstrap", cds_bootstrap, lambda r: (np.array([0.01, 0.012, 0.015]),), 0),
    ("w18_historical_cvar", historical_cvar, lambda r: (np.array([0.5, 0.3, 0.2]), 0.02 * M(r, 20, 3)), 0),
    ("w18_garch_nll", garch_nll, lambda r: (np.array([0.1, 0.1, 0.8]), M(r, 15)), 0),
    ("w18_ewma_vol", ewma_vol, lambda r: (0.94, 0.01 * M(r, 10)), 0),
    ("w18_black_litterman", black_litterman,
     lambda r: (np.array([0.05, 0.02]), _cov(r, 3), np.array([[1.0, -1.0, 0.0], [0.0, 1.0, 0.0]])), 0),
    ("w18_risk_parity", risk_parity, lambda r: (np.array([0.3, 0.3, 0.4]), _cov(r, 3)), 0),
    ("w18_margrabe", margrabe, lambda r: (np.array([0.2, 0.3]),), 0),
    ("w18_lookback_call", lookback_call, lambda r: (0.3, M(r, 16, 5)), 0),
    ("w18_smoothed_digital", smoothed_digital, lambda r: (1.0 + 0.1 * M(r, 10),), 0),
    ("w18_dcf_value", dcf_value, lambda r: (np.array([10.0, 11.0, 12.5, 13.0]),), 0),
    ("w18_merton_default", merton_default, lambda r: (np.array([100.0, 0.25]),), 0),
    ("w18_annuity_payment", annuity_payment, lambda r: (0.01,), 0),
    ("w18_sortino", sortino, lambda r: (np.array([0.5, 0.3, 0.2]), 0.01 + 0.03 * M(r, 20, 3)), 0),
    ("w18_calmar", calmar, lambda r: (np.array([0.5, 0.3, 0.2]), 0.005 + 0.03 * M(r, 20, 3)), 0),
    ("w18_mortgage_schedule", mortgage_schedule, lambda r: (3.3,), 0),
]


def _cov(r, n):
    Q = 0.1 * r.normal(size=(n, n))
    return Q @ Q.T + 0.01 * np.eye(n)
