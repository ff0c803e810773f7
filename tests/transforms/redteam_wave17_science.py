"""The red team's seventeenth wave, continued: the life and chemical sciences as their papers' supplements
write them.  Epidemic compartments (SIR and SEIR by Euler steps in a ``for`` loop, a fit of an SIR curve to
counts by a Poisson log-likelihood), pharmacokinetics (a one-compartment oral dose, two compartments by
an RK2 helper, repeated doses by superposition in a loop), ecology (Ricker and Beverton-Holt maps, a Leslie
matrix projected by a loop of matmuls, a harvested logistic), kinetics (Arrhenius rates, Michaelis-Menten
integrated by a ``while t < T`` loop, a chain of first-order decays, an equilibrium found by Newton on
one unknown), enzyme and dose-response curves (Hill, four-parameter logistic), molecular potentials
(Morse, Buckingham, a harmonic bond-angle energy through arccos), a FitzHugh-Nagumo neuron and a
Hodgkin-Huxley gate, and population genetics (Wright-Fisher selection recursions).  See redteam_wave17.py.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln


def M(rng, *shape):
    return rng.normal(size=shape)


# ---- epidemics ------------------------------------------------------------------------------------------


def sir_final_infected(params, days=40, dt=0.5):
    beta, gamma = params[0], params[1]
    S, I, R = 0.99, 0.01, 0.0
    for _ in range(int(days / dt)):
        new_inf = beta * S * I * dt
        new_rec = gamma * I * dt
        S = S - new_inf
        I = I + new_inf - new_rec
        R = R + new_rec
    return R + 0.5 * I


def seir_peak(params, n_steps=120):
    beta, sigma, gamma = params
    state = np.array([0.999, 0.0, 0.001, 0.0])
    peak = 0.0
    for _ in range(n_steps):
        S, E, I, R = state
        dS = -beta * S * I
        dE = beta * S * I - sigma * E
        dI = sigma * E - gamma * I
        dR = gamma * I
        state = state + 0.25 * np.array([dS, dE, dI, dR])
        peak = max(peak, state[2])
    return peak + state[3]


def sir_poisson_fit(log_params, counts, population=1000.0):
    beta, gamma = np.exp(log_params)
    S, I = population - 5.0, 5.0
    loglik = 0.0
    for c in counts:
        new_cases = beta * S * I / population
        S, I = S - new_cases, I + new_cases - gamma * I
        loglik += c * np.log(new_cases) - new_cases - gammaln(c + 1.0)
    return -loglik


# ---- pharmacokinetics -----------------------------------------------------------------------------------


def one_compartment_oral(theta, times, conc):
    ka, ke, V = np.exp(theta)
    dose = 100.0
    pred = dose * ka / (V * (ka - ke)) * (np.exp(-ke * times) - np.exp(-ka * times))
    return np.sum((np.log(pred) - np.log(conc)) ** 2)


def _two_comp_rhs(a, k12, k21, k10):
    return np.array([-(k12 + k10) * a[0] + k21 * a[1], k12 * a[0] - k21 * a[1]])


def two_compartment_rk2(k, dt=0.1, steps=50):
    a = np.array([10.0, 0.0])
    auc = 0.0
    for _ in range(steps):
        k1 = _two_comp_rhs(a, k[0], k[1], k[2])
        k2 = _two_comp_rhs(a + dt * k1, k[0], k[1], k[2])
        a = a + 0.5 * dt * (k1 + k2)
        auc += a[0] * dt
    return auc


def repeated_doses(ke, dose_times, t_obs):
    total = np.zeros_like(t_obs)
    for td in dose_times:
        elapsed = t_obs - td
        total = total + np.where(elapsed >= 0, 50.0 * np.exp(-ke * np.maximum(elapsed, 0.0)), 0.0)
    return np.sum(total ** 2) / len(t_obs)


# ---- ecology --------------------------------------------------------------------------------------------


def ricker_map(r, n0=0.5, years=25):
    n = n0
    traj = []
    for _ in range(years):
        n = n * math.exp(r * (1.0 - n))
        traj.append(n)
    return sum(traj) / len(traj)


def beverton_holt_fit(params, observed):
    R, K = params
    n = observed[0]
    sse = 0.0
    for obs in observed[1:]:
        n = R * n / (1.0 + (R - 1.0) * n / K)
        sse += (n - obs) ** 2
    return sse


def leslie_growth(fecundity, survival, n0, years=10):
    k = len(fecundity)
    L = np.zeros((k, k))
    L[0, :] = fecundity
    for i in range(k - 1):
        L[i + 1, i] = survival[i]
    n = n0
    for _ in range(years):
        n = L @ n
    return np.log(np.sum(n))


def harvested_logistic(h, r=0.8, K=10.0, x0=4.0, dt=0.05, steps=200):
    x = x0
    harvest = 0.0
    for _ in range(steps):
        catch = h * x
        x = x + dt * (r * x * (1.0 - x / K) - catch)
        harvest += catch * dt
    return -harvest


# ---- kinetics and chemistry -----------------------------------------------------------------------------


def arrhenius_fit(p, temps, rates):
    logA, Ea = p
    R = 8.314
    pred = logA - Ea * 1000.0 / (R * temps)
    return np.mean((pred - np.log(rates)) ** 2)


def michaelis_menten_while(params, S0=5.0, T=4.0, dt=0.05):
    vmax, km = params
    S, t, product = S0, 0.0, 0.0
    while t < T:
        v = vmax * S / (km + S)
        S -= v * dt
        product += v * dt
        t += dt
    return product


def decay_chain(lams, t=2.0):
    # Bateman's solution for three members, written as a student would
    l1, l2, l3 = lams[0], lams[1], lams[2]
    n1 = math.exp(-l1 * t)
    n2 = l1 / (l2 - l1) * (math.exp(-l1 * t) - math.exp(-l2 * t))
    n3 = l1 * l2 * (math.exp(-l1 * t) / ((l2 - l1) * (l3 - l1)) + math.exp(-l2 * t) / ((l1 - l2) * (l3 - l2))
                    + math.exp(-l3 * t) / ((l1 - l3) * (l2 - l3)))
    return n1 + 2 * n2 + 3 * n3


def equilibrium_newton(K, c0=1.0):
    # A + B <-> C with K = x / ((c0 - x)^2): solve for x by Newton, then use it
    x = 0.5 * c0
    for _ in range(30):
        g = x - K * (c0 - x) ** 2
        dg = 1.0 + 2.0 * K * (c0 - x)
        x = x - g / dg
    return x ** 2 + math.log(K)


def hill_dose_response(p, dose, response):
    bottom, top, logec50, n = p
    pred = bottom + (top - bottom) / (1.0 + (np.exp(logec50) / dose) ** n)
    return np.sum((pred - response) ** 2)


def four_pl_weighted(p, log_dose, response, weights):
    a, b, c, d = p
    pred = d + (a - d) / (1.0 + np.exp(b * (log_dose - c)))
    return weights @ (pred - response) ** 2


# ---- molecular potentials -------------------------------------------------------------------------------


def morse_chain(x, De=1.0, a=1.5, re=1.0):
    bonds = np.diff(x)
    return np.sum(De * (1.0 - np.exp(-a * (bonds - re))) ** 2)


def buckingham_pairs(pos):
    n = pos.shape[0]
    energy = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r = np.linalg.norm(pos[i] - pos[j])
            energy += 1000.0 * np.exp(-r / 0.3) - 2.0 / r ** 6
    return energy


def bond_angle_energy(coords, theta0=1.9):
    total = 0.0
    for i in range(1, len(coords) - 1):
        u = coords[i - 1] - coords[i]
        v = coords[i + 1] - coords[i]
        cos_t = u @ v / (np.linalg.norm(u) * np.linalg.norm(v))
        theta = np.arccos(cos_t)
        total += 0.5 * 50.0 * (theta - theta0) ** 2
    return total


# ---- neurons and genetics -------------------------------------------------------------------------------


def fitzhugh_nagumo(params, steps=300, dt=0.05):
    a, b, tau = params
    v, w = -1.0, 1.0
    vs = np.zeros(steps)
    for k in range(steps):
        dv = v - v ** 3 / 3.0 - w + 0.5
        dw = (v + a - b * w) / tau
        v, w = v + dt * dv, w + dt * dw
        vs[k] = v
    return np.mean(vs ** 2)


def hh_gate(V, alpha_scale):
    alpha = alpha_scale * 0.1 * (V + 40.0) / (1.0 - np.exp(-(V + 40.0) / 10.0))
    beta = 4.0 * np.exp(-(V + 65.0) / 18.0)
    m_inf = alpha / (alpha + beta)
    return np.sum(m_inf ** 3)


def wright_fisher_selection(s, p0=0.1, generations=30):
    p = p0
    for _ in range(generations):
        w_bar = p * (1.0 + s) + (1.0 - p)
        p = p * (1.0 + s) / w_bar
    return p * (1.0 - p)


def hardy_weinberg_loglik(p, counts):
    q = 1.0 - p
    probs = [p * p, 2 * p * q, q * q]
    return -sum(n * math.log(pr) for n, pr in zip(counts, probs))


def _times(r):
    return np.linspace(0.5, 12.0, 8)


SCIENCE17 = [
    ("w17_sir_final_infected", sir_final_infected, lambda r: (np.array([0.6, 0.2]),), 0),
    ("w17_seir_peak", seir_peak, lambda r: (np.array([0.9, 0.3, 0.2]),), 0),
    ("w17_sir_poisson_fit", sir_poisson_fit,
     lambda r: (np.log(np.array([0.5, 0.2])), np.array([3.0, 4.0, 6.0, 8.0, 11.0, 14.0])), 0),
    ("w17_one_compartment_oral", one_compartment_oral,
     lambda r: (np.log(np.array([1.2, 0.2, 20.0])), _times(r), r.uniform(0.5, 3.0, 8)), 0),
    ("w17_two_compartment_rk2", two_compartment_rk2, lambda r: (np.array([0.3, 0.2, 0.15]),), 0),
    ("w17_repeated_doses", repeated_doses, lambda r: (0.3, [0.0, 6.0, 12.0], np.linspace(1.0, 20.0, 9)), 0),
    ("w17_ricker_map", ricker_map, lambda r: (1.3,), 0),
    ("w17_beverton_holt_fit", beverton_holt_fit,
     lambda r: (np.array([1.8, 50.0]), np.array([5.0, 9.0, 15.0, 22.0, 29.0, 34.0, 38.0])), 0),
    ("w17_leslie_growth", leslie_growth,
     lambda r: (np.array([0.0, 1.2, 0.9]), np.array([0.6, 0.4]), np.array([10.0, 5.0, 2.0])), 0),
    ("w17_leslie_survival", leslie_growth,
     lambda r: (np.array([0.0, 1.2, 0.9]), np.array([0.6, 0.4]), np.array([10.0, 5.0, 2.0])), 1),
    ("w17_harvested_logistic", harvested_logistic, lambda r: (0.3,), 0),
    ("w17_arrhenius_fit", arrhenius_fit,
     lambda r: (np.array([20.0, 50.0]), np.linspace(290.0, 350.0, 6), np.exp(r.uniform(-2.0, 1.0, 6))), 0),
    ("w17_michaelis_menten_while", michaelis_menten_while, lambda r: (np.array([1.5, 2.0]),), 0),
    ("w17_decay_chain", decay_chain, lambda r: (np.array([0.5, 0.9, 1.4]),), 0),
    ("w17_equilibrium_newton", equilibrium_newton, lambda r: (2.5,), 0),
    ("w17_hill_dose_response", hill_dose_response,
     lambda r: (np.array([0.1, 1.0, 0.2, 1.5]), np.logspace(-1, 1, 7), r.uniform(0, 1, 7)), 0),
    ("w17_four_pl_weighted", four_pl_weighted,
     lambda r: (np.array([1.0, 1.2, 0.1, 0.05]), np.linspace(-2, 2, 6), r.uniform(0, 1, 6), r.uniform(0.5, 2, 6)), 0),
    ("w17_morse_chain", morse_chain, lambda r: (np.cumsum(r.uniform(0.8, 1.3, 5)),), 0),
    ("w17_buckingham_pairs", buckingham_pairs, lambda r: (np.array([[0.0, 0, 0], [1.1, 0.1, 0], [0.2, 1.2, 0.1],
                                                                     [1.0, 1.0, 0.9]]),), 0),
    ("w17_bond_angle_energy", bond_angle_energy,
     lambda r: (np.cumsum(np.vstack([np.zeros(3), r.uniform(0.5, 1.0, (4, 3))]), axis=0),), 0),
    ("w17_fitzhugh_nagumo", fitzhugh_nagumo, lambda r: (np.array([0.7, 0.8, 12.5]),), 0),
    ("w17_hh_gate", hh_gate, lambda r: (np.array([-60.0, -45.0, -30.0, -10.0]), 1.1), 0),
    ("w17_hh_gate_scale", hh_gate, lambda r: (np.array([-60.0, -45.0, -30.0, -10.0]), 1.1), 1),
    ("w17_wright_fisher_selection", wright_fisher_selection, lambda r: (0.08,), 0),
    ("w17_hardy_weinberg_loglik", hardy_weinberg_loglik, lambda r: (0.35, [30, 45, 25]), 0),
]
