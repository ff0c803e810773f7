"""Wave 32h: geostatistics, epidemiology, chemistry and ecology as scientists write them: ordinary
kriging by an augmented solve, spherical variograms, GP marginal likelihoods by Cholesky, inverse
distance weights; SIR / SEIR by Euler steps with dicts of rates and lists of states, renewal
equations, age-structured contacts; Lennard-Jones and Morse over pair loops, bond angles by arccos,
torsions by arctan2, switched Coulomb; Newton's pH; Lotka-Volterra midpoint steps, Leslie power
iteration, harvest with ``break``, competitive equilibria, Beverton-Holt."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

RNG = np.random.default_rng(323)
SITES = RNG.uniform(0, 10, size=(7, 2))
Z = np.sin(SITES[:, 0] / 3) + 0.1 * SITES[:, 1]
TARGET_SITE = np.array([5.0, 5.0])


def _dists(a, b):
    return np.sqrt(np.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=-1))


def kriging(log_params, sites=SITES, z=Z, x0=TARGET_SITE):
    sill, rng_ = np.exp(log_params[0]), np.exp(log_params[1])
    n = len(z)
    C = sill * np.exp(-_dists(sites, sites) / rng_)
    A = np.ones((n + 1, n + 1))
    A[:n, :n] = C
    A[n, n] = 0.0
    c0 = np.ones(n + 1)
    c0[:n] = sill * np.exp(-np.sqrt(np.sum((sites - x0) ** 2, axis=1)) / rng_)
    w = np.linalg.solve(A, c0)
    pred = w[:n] @ z
    var = sill - w @ c0
    return (pred - 1.0) ** 2 + var


H = np.array([0.5, 1.5, 2.5, 3.5, 4.5, 6.0, 8.0])
GAMMA_HAT = np.array([0.2, 0.5, 0.8, 0.95, 1.0, 1.02, 0.98])
NPAIRS = np.array([10, 20, 25, 30, 28, 22, 15])


def spherical_variogram(params, h=H, g=GAMMA_HAT, npairs=NPAIRS):
    nugget, sill, a = params
    r = h / a
    model = np.where(h < a, nugget + sill * (1.5 * r - 0.5 * r ** 3), nugget + sill)
    return np.sum(npairs * (g / model - 1) ** 2)


def gp_marginal(log_theta, x=SITES[:, 0], y=Z):
    ell, sf, sn = np.exp(log_theta)
    K = sf ** 2 * np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / ell ** 2) + sn ** 2 * np.eye(len(x))
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L))) + 0.5 * len(x) * math.log(2 * math.pi)


def idw(p, sites=SITES, z=Z, queries=RNG.uniform(1, 9, size=(4, 2)), truth=np.array([0.5, 1.0, 0.2, 0.8])):  # noqa: B008
    total = 0.0
    for q, t in zip(queries, truth):
        d = np.sqrt(np.sum((sites - q) ** 2, axis=1))
        w = 1.0 / d ** p
        total += (np.sum(w * z) / np.sum(w) - t) ** 2
    return total


CASES = np.array([3, 5, 9, 14, 20, 26, 30, 29, 24, 18], dtype=float)


def sir_dict(rates, cases=CASES, n=1000.0, i0=3.0, dt=0.5):
    s, i, r = n - i0, i0, 0.0
    nll = 0.0
    for obs in cases:
        for _ in range(2):
            new_inf = rates["beta"] * s * i / n * dt
            new_rec = rates["gamma"] * i * dt
            s, i, r = s - new_inf, i + new_inf - new_rec, r + new_rec
        nll += i - obs * math.log(i)
    return nll


def seir_vaccination(theta, days=30, n=1e4, dt=0.25):
    beta, sigma, gamma, nu = np.exp(theta)
    state = [n - 10.0, 5.0, 5.0, 0.0]
    history = []
    for _ in range(int(days / dt)):
        s, e, i, r = state
        ds = -beta * s * i / n - nu * s
        de = beta * s * i / n - sigma * e
        di = sigma * e - gamma * i
        dr = gamma * i + nu * s
        state = [s + dt * ds, e + dt * de, i + dt * di, r + dt * dr]
        history.append(state[2])
    curve = np.array(history)
    return np.max(curve) / n + np.sum(curve) * dt / n


SERIAL = np.array([0.2, 0.4, 0.25, 0.15])
INCIDENCE = np.array([5, 7, 9, 12, 15, 14, 18, 22, 20, 25, 27, 30], dtype=float)


def renewal(log_rt, w=SERIAL, inc=INCIDENCE):
    rt = np.exp(log_rt)
    ll = 0.0
    for t in range(len(w), len(inc)):
        lam = rt[t - len(w)] * np.sum(w * inc[t - len(w):t][::-1])
        ll += inc[t] * np.log(lam) - lam - gammaln(inc[t] + 1)
    return -ll + 10 * np.sum(np.diff(log_rt) ** 2)


CONTACT = np.array([[3.0, 1.0, 0.5], [1.0, 2.0, 0.8], [0.5, 0.8, 1.5]])
POP = np.array([300.0, 500.0, 200.0])


def age_sir(beta, contact=CONTACT, pop=POP, steps=40, dt=0.2, gamma=0.3):
    s = pop - 1.0
    i = np.ones(3)
    attack = np.zeros(3)
    for _ in range(steps):
        force = beta * (contact @ (i / pop))
        inf = force * s * dt
        s = s - inf
        i = i + inf - gamma * i * dt
        attack += inf
    return np.sum((attack / pop - np.array([0.3, 0.25, 0.2])) ** 2)


def lennard_jones(pos, eps=1.0, sigma=1.0):
    n = len(pos)
    energy = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r2 = np.sum((pos[i] - pos[j]) ** 2)
            s6 = (sigma * sigma / r2) ** 3
            energy += 4 * eps * (s6 * s6 - s6)
    return energy


BONDS = [(0, 1), (1, 2), (2, 3)]
R0 = [1.0, 1.2, 0.9]


def morse_chain(pos, bonds=BONDS, r0s=R0, d=2.0, a=1.5):
    e = 0.0
    for (i, j), r0 in zip(bonds, r0s):
        r = np.linalg.norm(pos[i] - pos[j])
        e += d * (1 - np.exp(-a * (r - r0))) ** 2
    return e


def bond_angles(pos, theta0=1.9, k=5.0):
    e = 0.0
    for a, b, c in [(0, 1, 2), (1, 2, 3)]:
        u, v = pos[a] - pos[b], pos[c] - pos[b]
        cos_t = np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))
        e += 0.5 * k * (np.arccos(np.clip(cos_t, -1.0, 1.0)) - theta0) ** 2
    return e


def torsion(pos, k=(1.0, 0.5, 0.2)):
    b1, b2, b3 = pos[1] - pos[0], pos[2] - pos[1], pos[3] - pos[2]
    n1, n2 = np.cross(b1, b2), np.cross(b2, b3)
    m1 = np.cross(n1, b2 / np.linalg.norm(b2))
    phi = np.arctan2(np.dot(m1, n2), np.dot(n1, n2))
    return sum(kn * (1 + math.cos(0.0) * np.cos((n + 1) * phi)) for n, kn in enumerate(k))


def switched_coulomb(q, pos=RNG.normal(size=(5, 3)) * 1.5, r_on=1.5, r_off=3.0):  # noqa: B008
    e = 0.0
    for i in range(len(q)):
        for j in range(i):
            r = np.linalg.norm(pos[i] - pos[j])
            x = (r - r_on) / (r_off - r_on)
            s = np.select([r < r_on, r < r_off], [1.0, 1 - 3 * x ** 2 + 2 * x ** 3], 0.0)
            e += q[i] * q[j] / r * s
    return e + np.sum(q) ** 2


def ph_newton(log_ka, c=0.1, kw=1e-14, iters=30):
    ka = 10.0 ** log_ka
    h = 1e-3
    for _ in range(iters):
        f = h - ka * c / (ka + h) - kw / h
        df = 1 + ka * c / (ka + h) ** 2 + kw / h ** 2
        h = h - f / df
    return -math.log10(h)


def lv_midpoint(theta, x0=(10.0, 5.0), dt=0.05, steps=60):
    a, b, c, d = theta

    def rhs(x, y):
        return a * x - b * x * y, -c * y + d * x * y
    x, y = x0
    for _ in range(steps):
        fx, fy = rhs(x, y)
        mx, my = rhs(x + 0.5 * dt * fx, y + 0.5 * dt * fy)
        x, y = x + dt * mx, y + dt * my
    return (x - 8.0) ** 2 + (y - 6.0) ** 2


def leslie_growth(rates, iters=40):
    fec, surv = rates[:3], rates[3:]
    L = np.zeros((3, 3))
    L[0, :] = fec
    L[1, 0], L[2, 1] = surv[0], surv[1]
    v = np.ones(3) / 3
    for _ in range(iters):
        v = L @ v
        v = v / np.sum(v)
    lam = np.sum(L @ v)
    return (lam - 1.05) ** 2


def harvest(params, n0=50.0, years=40):
    r, K, h = params["r"], params["K"], params["h"]
    n = n0
    total = 0.0
    for _ in range(years):
        n = n + r * n * (1 - n / K) - h * n
        total += h * n
        if n < 1.0:
            break
    return -total


def competition(alpha_off, r=np.array([1.0, 0.8, 1.2]), K=np.array([100.0, 80.0, 120.0])):  # noqa: B008
    A = np.eye(3)
    A[0, 1:] = alpha_off[:2]
    A[1, [0, 2]] = alpha_off[2:4]
    A[2, :2] = alpha_off[4:]
    n_star = np.linalg.solve(A, K)
    return -np.sum(np.log(n_star)) + 0.01 * np.sum(r * n_star)


SPAWN = np.array([20.0, 35.0, 50.0, 65.0, 80.0, 95.0])
RECRUIT = np.array([40.0, 55.0, 62.0, 70.0, 71.0, 75.0])


def beverton_holt(theta, s=SPAWN, r=RECRUIT):
    alpha, log_beta, log_sd = theta
    pred = alpha * s / (1 + np.exp(log_beta) * s)
    resid = np.log(r) - np.log(pred)
    sd = np.exp(log_sd)
    return np.sum(0.5 * (resid / sd) ** 2 + log_sd)


SCIENCE = [
    ("geo_kriging_augmented", kriging, lambda rng: (np.array([0.0, 1.0]),), 0),
    ("geo_spherical_variogram_tuple", spherical_variogram, lambda rng: ((0.15, 0.85, 5.2),), 0),
    ("geo_gp_cholesky", gp_marginal, lambda rng: (np.array([0.5, 0.0, -1.0]),), 0),
    ("geo_idw_zip", idw, lambda rng: (2.0,), 0),
    ("epi_sir_dict_floats", sir_dict, lambda rng: ({"beta": 0.6, "gamma": 0.2},), 0),
    ("epi_seir_list_states", seir_vaccination, lambda rng: (np.log(np.array([0.5, 0.3, 0.2, 0.01])),), 0),
    ("epi_renewal_gammaln", renewal, lambda rng: (0.1 * rng.normal(size=8),), 0),
    ("epi_age_contacts", age_sir, lambda rng: (0.15,), 0),
    ("chem_lj_pair_loops", lennard_jones,
     lambda rng: (np.array([[0, 0, 0], [1.1, 0, 0], [0.5, 1.0, 0], [0.5, 0.4, 0.9]])
                  + 0.02 * rng.normal(size=(4, 3)),), 0),
    ("chem_morse_zip_bonds", morse_chain,
     lambda rng: (np.cumsum(np.full((4, 3), 0.6), axis=0) + 0.1 * rng.normal(size=(4, 3)),), 0),
    ("chem_bond_angles_arccos", bond_angles,
     lambda rng: (np.array([[0, 0, 0], [1.0, 0, 0], [1.5, 0.9, 0], [2.5, 1.0, 0.4]])
                  + 0.05 * rng.normal(size=(4, 3)),), 0),
    ("chem_torsion_arctan2", torsion,
     lambda rng: (np.array([[0, 1.0, 0], [0, 0, 0], [1.0, 0, 0], [1.2, 0.5, 0.8]])
                  + 0.05 * rng.normal(size=(4, 3)),), 0),
    ("chem_switched_coulomb_select", switched_coulomb, lambda rng: (rng.normal(size=5),), 0),
    ("chem_ph_newton", ph_newton, lambda rng: (-4.7,), 0),
    ("eco_lv_midpoint_helper", lv_midpoint, lambda rng: (np.array([1.0, 0.1, 1.5, 0.075]),), 0),
    ("eco_leslie_power", leslie_growth, lambda rng: (np.array([0.0, 1.2, 0.9, 0.6, 0.7]),), 0),
    ("eco_harvest_break", harvest, lambda rng: ({"r": 0.6, "K": 200.0, "h": 0.15},), 0),
    ("eco_competition_solve", competition, lambda rng: (np.array([0.3, 0.2, 0.25, 0.1, 0.15, 0.35]),), 0),
    ("eco_beverton_holt", beverton_holt, lambda rng: (np.array([2.5, -3.9, -1.0]),), 0),
]
