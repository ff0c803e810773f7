"""The red team's wave 29a, epidemiology and ecology: SIR and SEIR models stepped by Euler and RK4
helpers, age-structured contacts, Lotka-Volterra and competition models, logistic and Gompertz
growth fits, Ricker and Beverton-Holt maps, Leslie matrices, mark-recapture likelihoods
(test_redteam_wave29a.py runs them through every transformation)."""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave29a_robotics import M, P

CASES = np.array([3.0, 7.0, 15.0, 30.0, 52.0, 80.0, 101.0, 110.0])


def sir_rhs(s, i, r, beta, gamma):
    inf = beta * s * i
    rec = gamma * i
    return -inf, inf - rec, rec


def sir_euler(params, dt=0.5, steps=16):
    beta, gamma = params[0], params[1]
    s, i, r = 0.99, 0.01, 0.0
    for _ in range(steps):
        ds, di, dr = sir_rhs(s, i, r, beta, gamma)
        s, i, r = s + dt * ds, i + dt * di, r + dt * dr
    return r


def sir_rk4_fit(params, dt=1.0):
    """Fit prevalence to case counts; RK4 written on a state array."""
    beta, gamma = params

    def f(y):
        return np.array([-beta * y[0] * y[1], beta * y[0] * y[1] - gamma * y[1], gamma * y[1]])

    y = np.array([0.999, 0.001, 0.0])
    preds = []
    for _ in range(len(CASES)):
        k1 = f(y)
        k2 = f(y + 0.5 * dt * k1)
        k3 = f(y + 0.5 * dt * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        preds.append(1000.0 * y[1])
    preds = np.array(preds)
    return np.sum((np.log(preds) - np.log(CASES)) ** 2)


def seir_states(theta, steps=30, dt=0.5):
    """SEIR, the trajectory kept as a list of state tuples."""
    beta, sigma, gamma = np.exp(theta)
    states = [(0.99, 0.005, 0.005, 0.0)]
    for _ in range(steps):
        s, e, i, r = states[-1]
        new_e = beta * s * i
        states.append((s - dt * new_e, e + dt * (new_e - sigma * e), i + dt * (sigma * e - gamma * i),
                       r + dt * gamma * i))
    peak = max(st[2] for st in states)
    return peak + states[-1][3]


def seir_poisson_nll(log_beta, obs=np.array([2.0, 4.0, 9.0, 14.0, 22.0, 31.0])):  # noqa: B008
    beta = np.exp(log_beta)
    y = np.array([0.999, 0.0, 0.001, 0.0])
    nll = 0.0
    for t in range(len(obs)):
        for _ in range(4):
            s, e, i, r = y
            y = y + 0.25 * np.array([-beta * s * i, beta * s * i - 0.5 * e, 0.5 * e - 0.3 * i, 0.3 * i])
        lam = 5000.0 * 0.5 * y[1]
        nll += lam - obs[t] * np.log(lam)
    return nll


def age_structured_sir(contacts, steps=12, dt=0.5):
    """contacts: a 3 x 3 contact matrix; force of infection by a matrix product."""
    S = np.array([0.3, 0.5, 0.19])
    I = np.array([0.0, 0.005, 0.005])  # noqa: E741
    for _ in range(steps):
        lam = 0.4 * contacts @ I
        S, I = S - dt * lam * S, I + dt * (lam * S - 0.2 * I)  # noqa: E741
    return np.sum(I)


def sir_vaccination(rate, steps=20):
    s, i, r, v = 0.95, 0.05, 0.0, 0.0
    total_inf = 0.0
    for t in range(steps):
        vac = rate * s if t >= 3 else 0.0
        inf = 0.5 * s * i
        s, i, r, v = s - inf - vac, i + inf - 0.2 * i, r + 0.2 * i, v + vac
        total_inf += inf
    return total_inf + 0.5 * rate**2


def r0_next_generation(params):
    """R0 as the spectral radius of a next-generation matrix, by power iteration."""
    b11, b12, b21, b22 = params
    K = np.array([[b11, b12], [b21, b22]]) / 0.25
    v = np.ones(2)
    for _ in range(50):
        w = K @ v
        v = w / np.linalg.norm(w)
    return v @ K @ v


def lotka_volterra_rk2(params, steps=40, dt=0.05):
    a, b, c, d = params
    x, y = 1.0, 0.5
    traj = np.zeros((steps, 2))
    for t in range(steps):
        dx, dy = a * x - b * x * y, d * x * y - c * y
        xm, ym = x + 0.5 * dt * dx, y + 0.5 * dt * dy
        x, y = x + dt * (a * xm - b * xm * ym), y + dt * (d * xm * ym - c * ym)
        traj[t] = x, y
    return np.sum((traj[:, 0] - 1.2) ** 2) + np.sum(traj[:, 1] ** 2)


def lotka_volterra_log(log_params):
    p = dict(zip(("alpha", "beta", "gamma", "delta"), np.exp(log_params)))
    u, v = math.log(1.0), math.log(0.5)  # log-populations keep them positive
    out = 0.0
    for _ in range(30):
        du = p["alpha"] - p["beta"] * math.exp(v)
        dv = p["delta"] * math.exp(u) - p["gamma"]
        u, v = u + 0.05 * du, v + 0.05 * dv
        out += math.exp(u) + math.exp(v)
    return out


def competition_equilibrium(alpha):
    """Two-species competition: the coexistence point by np.linalg.solve."""
    Am = np.array([[1.0, alpha[0]], [alpha[1], 1.0]])
    K = np.array([100.0, 80.0])
    n_star = np.linalg.solve(Am, K)
    return np.sum(np.log(n_star))


def logistic_fit(params, t=np.arange(8.0), y=CASES):  # noqa: B008
    r, K, n0 = params
    pred = K / (1.0 + (K / n0 - 1.0) * np.exp(-r * t))
    return np.mean((pred - y) ** 2)


def gompertz_fit(params, t=np.arange(8.0)):  # noqa: B008
    a, b, c = params
    pred = a * np.exp(-b * np.exp(-c * t))
    return np.sum((np.log(pred) - np.log(CASES)) ** 2)


def logistic_growth_euler(r, K=100.0, n0=2.0):
    n = n0
    history = [n]
    while len(history) < 25:
        n = n + 0.2 * r * n * (1 - n / K)
        history.append(n)
    return np.sum((np.array(history[::3]) - 40.0) ** 2)


def ricker_map(params, n0=5.0, years=12):
    r, K = params
    n = n0
    ll = 0.0
    obs = [6.0, 9.0, 14.0, 20.0, 25.0, 28.0, 30.0, 29.0, 31.0, 30.0, 30.0, 29.0]
    for t in range(years):
        n = n * math.exp(r * (1.0 - n / K))
        ll += (math.log(obs[t]) - math.log(n)) ** 2
    return ll


def beverton_holt_nll(params, spawners=np.array([10.0, 25.0, 40.0, 60.0, 80.0]),  # noqa: B008
                      recruits=np.array([18.0, 35.0, 44.0, 52.0, 55.0])):  # noqa: B008
    a, b = np.exp(params[0]), np.exp(params[1])
    pred = a * spawners / (1.0 + b * spawners)
    sigma = 0.2
    return np.sum(0.5 * ((np.log(recruits) - np.log(pred)) / sigma) ** 2)


def leslie_growth(fecundity, survival=np.array([0.5, 0.7, 0.3])):  # noqa: B008
    n = len(fecundity)
    L = np.zeros((n, n))
    L[0, :] = fecundity
    L[np.arange(1, n), np.arange(n - 1)] = survival[: n - 1]
    pop = np.ones(n)
    for _ in range(10):
        pop = L @ pop
    return math.log(np.sum(pop))


def leslie_dominant_eig(fecundity):
    L = np.diag(np.array([0.5, 0.7]), k=-1)
    L[0] = fecundity
    w = np.linalg.eigvals(L)
    return np.max(np.real(w))


def mark_recapture_nll(logit_p, captures=np.array([12, 9, 14, 10])):  # noqa: B008
    p = 1.0 / (1.0 + np.exp(-logit_p))
    N = 60.0
    ll = np.sum(captures * np.log(p) + (N - captures) * np.log1p(-p))
    return -ll


def metapopulation(colonise, extinct=0.3, patches=np.array([0.2, 0.5, 0.8, 0.4])):  # noqa: B008
    occ = patches.copy()
    D = np.array([[0.0, 1.0, 2.0, 1.5], [1.0, 0.0, 1.0, 2.0], [2.0, 1.0, 0.0, 1.0], [1.5, 2.0, 1.0, 0.0]])
    conn = np.exp(-D)
    np.fill_diagonal(conn, 0.0)
    for _ in range(10):
        c = 1.0 - np.exp(-colonise * conn @ occ)
        occ = occ + c * (1 - occ) - extinct * occ
    return np.sum(occ)


def predator_prey_holling(params):
    """Holling type II functional response, stepped with np.array states and an explicit dict."""
    p = {"r": params[0], "K": 50.0, "a": params[1], "h": 0.1, "e": 0.5, "m": 0.3}
    N, Pp = 20.0, 5.0
    out = []
    for _ in range(30):
        fr = p["a"] * N / (1.0 + p["a"] * p["h"] * N)
        N, Pp = N + 0.1 * (p["r"] * N * (1 - N / p["K"]) - fr * Pp), Pp + 0.1 * (p["e"] * fr * Pp - p["m"] * Pp)
        out.append(Pp)
    return np.mean(out)


def species_distribution(beta, env):
    """A logistic species distribution model with a quadratic niche, by np.logaddexp."""
    eta = beta[0] + beta[1] * env[:, 0] + beta[2] * env[:, 0] ** 2 + beta[3] * env[:, 1]
    presence = (np.arange(env.shape[0]) % 3 == 0).astype(float)
    return np.sum(np.logaddexp(0.0, eta) - presence * eta)


def renewal_equation(log_r, si=np.array([0.2, 0.4, 0.3, 0.1])):  # noqa: B008
    """Incidence by the renewal equation (a convolution with the serial interval), list-built."""
    incidence = [1.0, 2.0, 3.0, 4.0]
    Rt = np.exp(log_r)
    for t in range(len(Rt)):
        recent = incidence[-len(si):][::-1]
        incidence.append(Rt[t] * sum(w * x for w, x in zip(si, recent)))
    return math.log(incidence[-1])


def sir_float32(params):
    beta, gamma = params[0], params[1]
    s, i = np.float32(0.99), np.float32(0.01)
    for _ in range(10):
        s, i = s - np.float32(0.5) * beta * s * i, i + np.float32(0.5) * (beta * s * i - gamma * i)
    return i


ECOLOGY = [
    ("ec_sir_euler", sir_euler, lambda r: (np.array([0.6, 0.2]) + 0.02 * M(r, 2),), 0),
    ("ec_sir_rk4_fit", sir_rk4_fit, lambda r: (np.array([0.9, 0.2]) + 0.02 * M(r, 2),), 0),
    ("ec_seir_states", seir_states, lambda r: (np.log([0.8, 0.3, 0.2]) + 0.02 * M(r, 3),), 0),
    ("ec_seir_poisson_nll", seir_poisson_nll, lambda r: (0.0,), 0),
    ("ec_age_structured_sir", age_structured_sir, lambda r: (P(r, 3, 3),), 0),
    ("ec_sir_vaccination", sir_vaccination, lambda r: (0.05,), 0),
    ("ec_r0_next_generation", r0_next_generation, lambda r: (P(r, 4) * 0.2,), 0),
    ("ec_lotka_volterra_rk2", lotka_volterra_rk2, lambda r: (np.array([1.0, 0.5, 0.8, 0.4]) + 0.02 * M(r, 4),), 0),
    ("ec_lotka_volterra_log", lotka_volterra_log, lambda r: (0.1 * M(r, 4),), 0),
    ("ec_competition_equilibrium", competition_equilibrium, lambda r: (np.array([0.4, 0.5]) + 0.05 * M(r, 2),), 0),
    ("ec_logistic_fit", logistic_fit, lambda r: (np.array([0.9, 115.0, 3.0]),), 0),
    ("ec_gompertz_fit", gompertz_fit, lambda r: (np.array([120.0, 4.0, 0.5]),), 0),
    ("ec_logistic_growth_euler", logistic_growth_euler, lambda r: (0.8,), 0),
    ("ec_ricker_map", ricker_map, lambda r: (np.array([0.4, 30.0]),), 0),
    ("ec_beverton_holt_nll", beverton_holt_nll, lambda r: (np.array([0.7, -3.5]),), 0),
    ("ec_leslie_growth", leslie_growth, lambda r: (np.array([0.0, 1.2, 1.5, 0.8]),), 0),
    ("ec_leslie_dominant_eig", leslie_dominant_eig, lambda r: (np.array([0.2, 1.3, 1.1]),), 0),
    ("ec_mark_recapture_nll", mark_recapture_nll, lambda r: (0.3 * M(r, 4),), 0),
    ("ec_metapopulation", metapopulation, lambda r: (1.2,), 0),
    ("ec_predator_prey_holling", predator_prey_holling, lambda r: (np.array([1.0, 0.2]),), 0),
    ("ec_species_distribution", species_distribution, lambda r: (0.3 * M(r, 4), M(r, 9, 2)), 0),
    ("ec_renewal_equation", renewal_equation, lambda r: (0.1 * M(r, 6),), 0),
    ("ec_sir_float32", sir_float32, lambda r: (np.array([0.6, 0.2], dtype=np.float32),), 0),
]
