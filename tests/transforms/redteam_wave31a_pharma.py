"""The red team's wave 31a: pharmacokinetics and pharmacodynamics (one and two compartments, oral
doses, superposition of repeated doses, infusions by Euler steps, Michaelis-Menten elimination,
Hill / Emax curves, indirect responses, random effects) and ecology (Lotka-Volterra by RK4 with a
helper building ``np.array`` of computed entries, competition matrices, Holling type II, Ricker,
Nicholson-Bailey, Levins metapopulations), written the way modellers write them."""

from __future__ import annotations

import math

import numpy as np

T_OBS = np.array([0.5, 1.0, 2.0, 4.0, 6.0, 8.0, 12.0])
C_OBS = np.array([1.8, 2.9, 3.4, 2.6, 1.9, 1.3, 0.6])
T_DOSES = np.array([1.0, 3.0, 7.0, 13.0, 14.0, 20.0, 26.0, 30.0])
C_DOSES = np.array([2.0, 1.5, 1.2, 2.4, 2.1, 1.9, 2.6, 1.9])
CONC = np.array([0.1, 0.3, 1.0, 3.0, 10.0, 30.0])
EFFECT = np.array([5.2, 7.9, 16.0, 30.1, 44.2, 50.3])
DOSE = 100.0


def one_compartment_oral(theta, t=T_OBS, c_obs=C_OBS):
    ka, ke, v = np.exp(theta)
    c = DOSE * ka / (v * (ka - ke)) * (np.exp(-ke * t) - np.exp(-ka * t))
    return np.sum((np.log(c) - np.log(c_obs)) ** 2)


def two_compartment_biexp(theta, t=T_OBS, y=C_OBS):
    a, alpha, b, beta = np.exp(theta)
    c = a * np.exp(-alpha * t) + b * np.exp(-beta * t)
    sigma = 0.1 * c + 0.05  # proportional plus additive error
    return np.sum(np.log(sigma) + 0.5 * ((y - c) / sigma) ** 2)


def multiple_doses(theta, t=T_DOSES, y=C_DOSES, dose_times=(0.0, 12.0, 24.0)):
    ka, ke, v = np.exp(theta)
    c = np.zeros_like(t)
    for td in dose_times:
        dt = t - td
        given = dt > 0
        dt_pos = np.where(given, dt, 0.0)
        c = c + np.where(given, DOSE / v * ka / (ka - ke) * (np.exp(-ke * dt_pos) - np.exp(-ka * dt_pos)), 0.0)
    return 0.5 * np.sum((c - y) ** 2)


def infusion_euler(params, obs=C_OBS[:5], dt=0.25, n_steps=40, t_inf=2.0):
    cl = params["cl"]
    v = params["v"]
    rate = params["rate"]
    c = 0.0
    trace = []
    for i in range(n_steps):
        inp = rate if i * dt < t_inf else 0.0
        c = c + dt * (inp / v - cl / v * c)
        if (i + 1) % 8 == 0:
            trace.append(c)
    pred = np.array(trace)
    return np.sum((pred - obs) ** 2)


def michaelis_menten_elimination(theta, obs=C_OBS[2:], c0=5.0, dt=0.1):
    vmax, km = math.exp(theta[0]), math.exp(theta[1])
    c = c0
    loss = 0.0
    k = 0
    for step in range(50):
        c = c - dt * vmax * c / (km + c)
        if step % 10 == 9:
            loss += (c - obs[k]) ** 2
            k += 1
    return loss


def emax_hill(theta, conc=CONC, effect=EFFECT):
    e0, emax, ec50, hill = theta
    ch = conc ** hill
    pred = e0 + emax * ch / (ec50 ** hill + ch)
    return np.mean((pred - effect) ** 2)


def _turnover(state, c, kin, kout, imax, ic50):
    r = state
    inhibition = 1.0 - imax * c / (ic50 + c)
    return kin * inhibition - kout * r


def indirect_response(theta, obs=EFFECT[:4] / 10.0, dt=0.2):
    ke, kin, kout, imax, ic50 = np.exp(theta)
    c, r = 3.0, kin / kout
    out = []
    for i in range(20):
        dr = _turnover(r, c, kin, kout, imax, ic50)
        c, r = c - dt * ke * c, r + dt * dr
        if i % 5 == 4:
            out.append(r)
    return np.sum((np.array(out) - obs) ** 2)


def population_random_effects(theta, eta, t=T_OBS[:5], y=None, omega=0.3):
    y = np.array([[2.0, 3.1, 3.3, 2.4, 1.6], [1.5, 2.2, 2.9, 2.6, 1.9], [2.4, 3.5, 3.1, 1.8, 1.0]]) if y is None else y
    nll = 0.0
    for i in range(y.shape[0]):
        ka = np.exp(theta[0] + eta[i, 0])
        ke = np.exp(theta[1] + eta[i, 1])
        c = 6.0 * ka / (ka - ke) * (np.exp(-ke * t) - np.exp(-ka * t))
        nll += 0.5 * np.sum((y[i] - c) ** 2) / 0.04
    nll += 0.5 * np.sum(eta ** 2) / omega ** 2
    return nll


def population_random_effects_eta(eta, theta=np.array([0.2, -1.4])):  # noqa: B008
    return population_random_effects(theta, eta)


# ---- ecology ----

LV_OBS = np.array([[10.0, 5.0], [6.3, 6.9], [4.5, 6.2], [4.6, 4.6], [6.1, 3.6]])


def lv_rhs(z, a, b, c, d):
    prey, pred = z[0], z[1]
    return np.array([a * prey - b * prey * pred, c * prey * pred - d * pred])


def lotka_volterra_rk4(theta, obs=LV_OBS, h=0.1, per=5):
    a, b, c, d = np.exp(theta)
    z = obs[0].copy()
    loss = 0.0
    for k in range(1, obs.shape[0]):
        for _ in range(per):
            k1 = lv_rhs(z, a, b, c, d)
            k2 = lv_rhs(z + 0.5 * h * k1, a, b, c, d)
            k3 = lv_rhs(z + 0.5 * h * k2, a, b, c, d)
            k4 = lv_rhs(z + h * k3, a, b, c, d)
            z = z + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        loss = loss + np.sum((np.log(z) - np.log(obs[k])) ** 2)
    return loss


def competition_matrix(a_flat, log_r=np.array([0.3, 0.1, -0.2]), n0=np.array([1.0, 0.8, 0.5]), dt=0.1):  # noqa: B008
    a = a_flat.reshape(3, 3)
    r = np.exp(log_r)
    n = n0
    for _ in range(30):
        n = n + dt * n * (r + a @ n)
    return np.sum((n - np.array([0.9, 0.7, 0.4])) ** 2)


def holling_type2(theta, prey=np.array([2.0, 5.0, 10.0, 20.0, 40.0]), kills=np.array([3.0, 6.0, 9.0, 11.0, 12.0])):  # noqa: B008
    a, h = np.exp(theta[0]), np.exp(theta[1])
    lam = a * prey / (1.0 + a * h * prey) * 2.0
    return -np.sum(kills * np.log(lam) - lam - np.array([math.lgamma(k + 1) for k in kills]))


def ricker(theta, s=np.array([12.0, 30.0, 55.0, 80.0, 120.0]), r=np.array([40.0, 70.0, 85.0, 82.0, 70.0])):  # noqa: B008
    log_alpha, beta, log_sigma = theta
    mu = log_alpha + np.log(s) - beta * s
    sigma = np.exp(log_sigma)
    return np.sum(np.log(sigma) + 0.5 * ((np.log(r) - mu) / sigma) ** 2)


def nicholson_bailey(theta, h0=10.0, p0=2.0, obs=np.array([[12.0, 3.1], [11.0, 4.9], [8.2, 6.3]])):  # noqa: B008
    lam, a, c = np.exp(theta)
    h, p = h0, p0
    loss = 0.0
    for t in range(obs.shape[0]):
        escape = np.exp(-a * p)
        h, p = lam * h * escape, c * h * (1.0 - escape)
        loss += (math.log(h) - math.log(obs[t, 0])) ** 2 + (np.log(p) - np.log(obs[t, 1])) ** 2
    return loss


def levins_metapopulation(theta, p0=np.array([0.2, 0.5, 0.7]), coupling=np.array([[0, 0.3, 0.1], [0.3, 0, 0.2],  # noqa: B008
                                                                                     [0.1, 0.2, 0]])):
    col, ext = np.exp(theta[0]), np.exp(theta[1])
    p = p0
    for _ in range(25):
        rain = p + coupling @ p
        p = p + 0.1 * (col * rain * (1.0 - p) - ext * p)
    return np.sum(p * np.log(p) + (1 - p) * np.log(1 - p))


def logistic_harvest(theta, years=12, obs=np.array([50.0, 58.0, 63.0, 64.0])):  # noqa: B008
    r, k, q = theta[0], math.exp(theta[1]), theta[2]
    n = 40.0
    traj = []
    for yr in range(years):
        n = n + r * n * (1 - n / k) - q * n
        if n <= 0:
            return 1e6  # collapsed: an early return on a value
        if yr % 3 == 2:
            traj.append(n)
    return sum((a - b) ** 2 for a, b in zip(traj, obs))


def _pos(*values):
    return lambda rng: (np.array(values, dtype=float),)


PHARMA = [
    ("pk_one_compartment_oral", one_compartment_oral, _pos(0.3, -1.6, 3.3), 0),
    ("pk_two_compartment_biexp", two_compartment_biexp, _pos(1.0, -0.2, 0.5, -2.0), 0),
    ("pk_multiple_doses", multiple_doses, _pos(0.1, -1.8, 3.6), 0),
    ("pk_infusion_euler", infusion_euler, lambda rng: ({"cl": 1.2, "v": 4.0, "rate": 5.0},), 0),
    ("pk_michaelis_menten", michaelis_menten_elimination, _pos(0.7, 0.4), 0),
    ("pd_emax_hill", emax_hill, _pos(4.0, 50.0, 2.5, 1.2), 0),
    ("pd_indirect_response", indirect_response, _pos(-1.0, 0.5, -0.5, -0.7, 0.0), 0),
    ("pk_population_theta", population_random_effects,
     lambda rng: (np.array([0.2, -1.4]), 0.1 * rng.normal(size=(3, 2))), 0),
    ("pk_population_eta", population_random_effects_eta, lambda rng: (0.1 * rng.normal(size=(3, 2)),), 0),
    ("eco_lotka_volterra_rk4", lotka_volterra_rk4, _pos(0.0, -2.0, -2.3, -0.4), 0),
    ("eco_competition_matrix", competition_matrix,
     lambda rng: (np.array([-1.0, -0.2, -0.1, -0.3, -1.2, 0.1, -0.1, -0.2, -0.9]),), 0),
    ("eco_holling_type2", holling_type2, _pos(-0.5, -2.0), 0),
    ("eco_ricker", ricker, _pos(1.4, 0.01, -1.0), 0),
    ("eco_nicholson_bailey", nicholson_bailey, _pos(0.2, -1.5, -0.5), 0),
    ("eco_levins", levins_metapopulation, _pos(-1.0, -1.5), 0),
    ("eco_logistic_harvest", logistic_harvest, _pos(0.4, 4.3, 0.05), 0),
]
