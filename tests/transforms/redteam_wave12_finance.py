"""The red team's twelfth wave, continued: finance (Bachelier, SABR at the money guarded by np.where,
Margrabe, Garman-Kohlhagen, drawdown through np.maximum.accumulate, expected exposure, lookback by Monte
Carlo with fixed normals), constrained physics (a pendulum's Lagrange multiplier, position-based
dynamics) and PDEs (Crank-Nicolson through np.diag, a wave equation through np.roll, upwind Burgers).
See redteam_wave12.py."""

from __future__ import annotations

import math

import numpy as np
import scipy.stats

# ---- finance ------------------------------------------------------------------------------------


def bachelier_call(sigma, F=100.0, K=101.0, T=0.5):
    sd = sigma * math.sqrt(T)
    d = (F - K) / sd
    return (F - K) * scipy.stats.norm.cdf(d) + sd * scipy.stats.norm.pdf(d)


def sabr_hagan(p, F=0.03, K=0.03, T=2.0, beta=0.5):
    """At the money z = 0 and z / x(z) is 0/0: the user guards it with np.where, the untaken side NaN."""
    alpha, rho, nu = p
    fk = (F * K) ** ((1 - beta) / 2)
    logfk = np.log(F / K)
    z = nu / alpha * fk * logfk
    xz = np.log((np.sqrt(1 - 2 * rho * z + z * z) + z - rho) / (1 - rho))
    ratio = np.where(np.abs(z) < 1e-12, 1.0, z / xz)
    corr = 1 + ((1 - beta) ** 2 / 24 * alpha ** 2 / fk ** 2 + rho * beta * nu * alpha / (4 * fk)
                + (2 - 3 * rho ** 2) / 24 * nu ** 2) * T
    return alpha / fk * ratio * corr


def margrabe(vols, S1=100.0, S2=95.0, T=1.0, rho=0.3):
    s1, s2 = vols
    sig = math.sqrt(s1 ** 2 + s2 ** 2 - 2 * rho * s1 * s2)
    d1 = (math.log(S1 / S2) + 0.5 * sig ** 2 * T) / (sig * math.sqrt(T))
    d2 = d1 - sig * math.sqrt(T)
    return S1 * scipy.stats.norm.cdf(d1) - S2 * scipy.stats.norm.cdf(d2)


def garman_kohlhagen(S, K=1.1, T=0.75, rd=0.03, rf=0.01, vol=0.12):
    d1 = (np.log(S / K) + (rd - rf + 0.5 * vol ** 2) * T) / (vol * np.sqrt(T))
    d2 = d1 - vol * np.sqrt(T)
    N = scipy.stats.norm.cdf
    return np.sum(S * np.exp(-rf * T) * N(d1) - K * np.exp(-rd * T) * N(d2))


def max_drawdown_softened(w, R):
    wealth = np.cumprod(1.0 + R @ w)
    peak = np.maximum.accumulate(wealth)
    dd = 1.0 - wealth / peak
    return np.sum(dd ** 2) - 0.1 * np.log(wealth[-1])


def expected_exposure(sigma, Z, K=1.0, dt=0.25):
    paths = K * np.exp(np.cumsum(sigma * math.sqrt(dt) * Z - 0.5 * sigma ** 2 * dt, axis=1))
    V = paths - K
    return np.mean(np.maximum(V, 0.0)) + 0.5 * np.mean(np.maximum(-V, 0.0))


def lookback_mc(sigma, Z, dt=0.1):
    logS = np.cumsum(sigma * math.sqrt(dt) * Z - 0.5 * sigma ** 2 * dt, axis=1)
    S = np.exp(logS)
    return np.mean(S.max(axis=1) - S[:, -1])


# ---- constrained physics and PDEs ---------------------------------------------------------------


def pendulum_lagrange(q0, steps=20, dt=0.02, g=9.81):
    """A point mass on a rod: each step solves for the multiplier that keeps |q| constant."""
    q = q0.copy()
    v = np.array([0.0, 0.0])
    for _ in range(steps):
        lam = (v @ v - g * q[1] * -1.0) / (q @ q)
        a = np.array([0.0, -g]) - lam * q
        v = v + dt * a
        q = q + dt * v
    return q[0] ** 2 + 0.1 * (v @ v)


def position_based_dynamics(x, rest, iters=4):
    p = x.reshape(-1, 2).copy()
    for _ in range(iters):
        for i in range(p.shape[0] - 1):
            d = p[i + 1] - p[i]
            L = np.linalg.norm(d)
            corr = 0.5 * (L - rest[i]) * d / L
            p[i] = p[i] + corr
            p[i + 1] = p[i + 1] - corr
    return np.sum(p[:, 1]) + 0.1 * np.sum(p[:, 0] ** 2)


def crank_nicolson(kappa, u0, steps=4, dt=0.1, dx=0.25):
    n = u0.shape[0]
    r = kappa * dt / dx ** 2
    L = np.diag(-2.0 * np.ones(n)) + np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1)
    A = np.eye(n) - 0.5 * r * L
    B = np.eye(n) + 0.5 * r * L
    u = u0
    for _ in range(steps):
        u = np.linalg.solve(A, B @ u)
    return np.sum(u ** 2)


def wave_leapfrog_roll(c, u0, steps=6, dt=0.1):
    u_prev, u = u0, u0
    for _ in range(steps):
        lap = np.roll(u, 1) - 2 * u + np.roll(u, -1)
        u_prev, u = u, 2 * u - u_prev + (c * dt) ** 2 * lap
    return np.sum(u ** 2) + np.sum((u - u_prev) ** 2)


def burgers_upwind(u0, steps=5, dt=0.05, dx=0.2):
    u = u0.copy()
    for _ in range(steps):
        back = (u - np.roll(u, 1)) / dx
        fwd = (np.roll(u, -1) - u) / dx
        u = u - dt * u * np.where(u > 0, back, fwd)
    return np.sum(u ** 2)


def M(rng, *shape):
    return rng.normal(size=shape)


FINANCE12 = [
    ("w12_bachelier_call", bachelier_call, lambda r: (8.0,), 0),
    ("w12_sabr_hagan_atm", sabr_hagan, lambda r: (np.array([0.04, -0.3, 0.5]),), 0),
    ("w12_margrabe", margrabe, lambda r: ((0.25, 0.2),), 0),
    ("w12_garman_kohlhagen", garman_kohlhagen, lambda r: (np.array([1.05, 1.1, 1.2]),), 0),
    ("w12_max_drawdown", max_drawdown_softened, lambda r: (np.array([0.5, 0.3, 0.2]), 0.05 * M(r, 10, 3)), 0),
    ("w12_expected_exposure", expected_exposure, lambda r: (0.3, M(r, 6, 5)), 0),
    ("w12_lookback_mc", lookback_mc, lambda r: (0.25, M(r, 6, 8)), 0),
    ("w12_pendulum_lagrange", pendulum_lagrange, lambda r: (np.array([0.6, -0.8]),), 0),
    ("w12_position_based_dynamics", position_based_dynamics,
     lambda r: (np.array([0.0, 0.0, 1.1, 0.1, 1.9, -0.2, 3.2, 0.3]), np.array([1.0, 1.0, 1.0])), 0),
    ("w12_crank_nicolson", crank_nicolson, lambda r: (0.3, M(r, 6)), 0),
    ("w12_wave_leapfrog_roll", wave_leapfrog_roll, lambda r: (1.2, M(r, 8)), 0),
    ("w12_burgers_upwind", burgers_upwind, lambda r: (np.array([0.5, 0.8, -0.6, -0.3, 0.4, 0.9]),), 0),
]
