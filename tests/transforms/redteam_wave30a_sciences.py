"""The red team's wave 30a, sciences: pharmacokinetics (one- and two-compartment models, Emax and
Hill curves, multiple dosing by a dict of doses), neurons (leaky integrate-and-fire with a soft
threshold, Hodgkin-Huxley by Euler steps, Wilson-Cowan rates), Kepler's equation by Newton steps,
energy-balance climate models, DC power flow and economic dispatch, population genetics, graph
Laplacians (heat diffusion, label propagation, Dirichlet energies), Heun and RK4 integrators
returning tuples, Gaussian processes with ARD and periodic kernels, unbalanced entropic transport
(test_redteam_wave30a.py runs them through every transformation)."""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave29a_robotics import M, P

SAMPLE_TIMES = np.array([0.5, 1.0, 2.0, 4.0, 6.0, 8.0, 12.0])
CONC = np.array([4.1, 6.0, 6.3, 4.6, 3.1, 2.0, 0.9])
DOSES = {0.0: 100.0, 12.0: 100.0, 24.0: 50.0}
EDGES = [(0, 1, 1.0), (1, 2, 0.5), (2, 3, 2.0), (3, 0, 1.0), (1, 3, 0.7), (3, 4, 1.2)]
GP_X = np.array([[0.0, 0.1], [0.4, -0.3], [0.9, 0.5], [1.3, 0.2], [1.8, -0.6], [2.4, 0.0]])
GP_Y = np.array([0.1, 0.5, 0.9, 0.8, 0.2, -0.4])


def one_compartment(log_params, dose=320.0):
    """Oral absorption: the Bateman function, fitted on log concentrations."""
    ka, ke, V = np.exp(log_params)
    c = dose * ka / (V * (ka - ke)) * (np.exp(-ke * SAMPLE_TIMES) - np.exp(-ka * SAMPLE_TIMES))
    return np.sum((np.log(c) - np.log(CONC)) ** 2)


def multiple_dosing(log_ke, V=20.0, t_obs=np.array([6.0, 18.0, 30.0])):  # noqa: B008
    """Superposition over a dict of dose times: IV boluses decaying from their time on."""
    ke = math.exp(log_ke)
    total = 0.0
    for t in t_obs:
        c = 0.0
        for t_dose, amount in DOSES.items():
            if t >= t_dose:
                c += amount / V * math.exp(-ke * (t - t_dose))
        total += c
    return total


def two_compartment_euler(params, dt=0.1, steps=120):
    """Central and peripheral amounts, Euler steps of a helper returning a tuple."""
    k10, k12, k21 = np.exp(params)

    def rhs(a1, a2):
        return -(k10 + k12) * a1 + k21 * a2, k12 * a1 - k21 * a2

    a1, a2 = 100.0, 0.0
    auc = 0.0
    for _ in range(steps):
        d1, d2 = rhs(a1, a2)
        a1, a2 = a1 + dt * d1, a2 + dt * d2
        auc += dt * a1
    return auc / 100.0


def emax_hill(params, dose=np.array([0.5, 1.0, 2.0, 5.0, 10.0, 20.0])):  # noqa: B008
    response = np.array([5.0, 9.0, 16.0, 27.0, 34.0, 38.0])
    e0, emax, ec50, hill = params
    pred = e0 + emax * dose ** hill / (ec50 ** hill + dose ** hill)
    return np.mean((pred - response) ** 2)


def lif_soft(w, current=np.array([1.2, 1.5, 0.8, 2.0, 1.1, 0.4, 1.9, 1.3]), tau=5.0, dt=1.0):  # noqa: B008
    """Leaky integrate-and-fire with a sigmoid spike and soft reset; counts the spikes."""
    v = 0.0
    spikes = []
    for I in current:
        v = v + dt / tau * (-v + w * I)
        s = 1 / (1 + np.exp(-(v - 1.0) * 8.0))
        v = v * (1 - s)
        spikes.append(s)
    return sum(spikes)


def hodgkin_huxley(g, dt=0.01, steps=150, I_ext=10.0):
    """Conductances g = (gNa, gK, gL), gating variables by their rate helpers."""
    gNa, gK, gL = g
    V, m, h, n = -65.0, 0.05, 0.6, 0.32
    for _ in range(steps):
        am = 0.1 * (V + 40) / (1 - math.exp(-(V + 40) / 10))
        bm = 4 * math.exp(-(V + 65) / 18)
        ah = 0.07 * math.exp(-(V + 65) / 20)
        bh = 1 / (1 + math.exp(-(V + 35) / 10))
        an = 0.01 * (V + 55) / (1 - math.exp(-(V + 55) / 10))
        bn = 0.125 * math.exp(-(V + 65) / 80)
        I = gNa * m ** 3 * h * (V - 50) + gK * n ** 4 * (V + 77) + gL * (V + 54.4)
        V += dt * (I_ext - I)
        m += dt * (am * (1 - m) - bm * m)
        h += dt * (ah * (1 - h) - bh * h)
        n += dt * (an * (1 - n) - bn * n)
    return V


def wilson_cowan(params, steps=40, dt=0.1):
    wee, wei, wie, wii = params
    E, I = 0.1, 0.05
    f = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    trace = []
    for _ in range(steps):
        E, I = E + dt * (-E + f(wee * E - wei * I + 0.5)), I + dt * (-I + f(wie * E - wii * I))
        trace.append(E - I)
    return np.var(trace)


def kepler_newton(e, M_anom=np.array([0.3, 1.1, 2.0, 2.9]), iters=8):  # noqa: B008
    """Eccentric anomaly by a fixed number of Newton steps, then the true anomaly."""
    E = M_anom.copy()
    for _ in range(iters):
        E = E - (E - e * np.sin(E) - M_anom) / (1 - e * np.cos(E))
    nu = 2 * np.arctan2(np.sqrt(1 + e) * np.sin(E / 2), np.sqrt(1 - e) * np.cos(E / 2))
    return np.sum(nu)


def radial_velocity(params, t=np.linspace(0, 10, 12)):  # noqa: B008
    K, P_orb, phase = params
    obs = 3.0 * np.sin(2 * np.pi * t / 4.1 + 0.3)
    model = K * np.sin(2 * np.pi * t / P_orb + phase)
    return np.sum((model - obs) ** 2)


def energy_balance(params, years=30, dt=1.0):
    """A zero-dimensional climate model: albedo by a smooth ice feedback (np.tanh)."""
    S0, eps = 1361.0, params[0]
    C = params[1]
    T = 288.0
    history = []
    for _ in range(years):
        albedo = 0.3 + 0.1 * np.tanh((265.0 - T) / 10.0)
        absorbed = S0 / 4 * (1 - albedo)
        emitted = eps * 5.67e-8 * T ** 4
        T = T + dt * (absorbed - emitted) / C
        history.append(T)
    return history[-1] - history[0]


def dc_power_flow(x_lines, injections=np.array([0.0, 1.0, -0.6, -0.4])):  # noqa: B008
    """B θ = P on a 4-bus network (bus 0 the slack), flows on each line, losses squared."""
    lines = [(0, 1), (1, 2), (2, 3), (0, 3), (1, 3)]
    B = np.zeros((4, 4))
    for (i, j), x in zip(lines, x_lines):
        B[i, i] += 1 / x
        B[j, j] += 1 / x
        B[i, j] -= 1 / x
        B[j, i] -= 1 / x
    theta = np.concatenate([[0.0], np.linalg.solve(B[1:, 1:], injections[1:])])
    flows = np.array([(theta[i] - theta[j]) / x for (i, j), x in zip(lines, x_lines)])
    return np.sum(flows ** 2)


def economic_dispatch(p, demand=5.0, costs=((0.1, 2.0), (0.05, 3.0), (0.2, 1.5)), penalty=50.0):
    total = sum(a * pi ** 2 + b * pi for (a, b), pi in zip(costs, p))
    return total + penalty * (np.sum(p) - demand) ** 2


def hardy_weinberg(logit_p, counts={"AA": 30, "Aa": 50, "aa": 20}):  # noqa: B006
    p = 1 / (1 + np.exp(-logit_p))
    q = 1 - p
    probs = {"AA": p ** 2, "Aa": 2 * p * q, "aa": q ** 2}
    return -sum(n * np.log(probs[g]) for g, n in counts.items())


def selection_recursion(s, generations=20, h=0.5):
    """Deterministic selection at one locus: allele frequency through generations."""
    p = 0.1
    for _ in range(generations):
        w11, w12, w22 = 1 + s, 1 + h * s, 1.0
        wbar = p * p * w11 + 2 * p * (1 - p) * w12 + (1 - p) ** 2 * w22
        p = (p * p * w11 + p * (1 - p) * w12) / wbar
    return p


def laplacian(weights, n=5):
    L = np.zeros((n, n))
    for (i, j, _), w in zip(EDGES, weights):
        L[i, j] -= w
        L[j, i] -= w
        L[i, i] += w
        L[j, j] += w
    return L


def heat_diffusion(weights, t=0.5, steps=10):
    """u' = -L u by implicit Euler steps, each a linear solve."""
    L = laplacian(weights)
    u = np.array([1.0, 0.0, 0.0, 0.0, 0.0])
    A = np.eye(5) + t / steps * L
    for _ in range(steps):
        u = np.linalg.solve(A, u)
    return u[4] - u[0]


def label_propagation(weights, iters=15, alpha=0.8):
    W = -laplacian(weights)
    np.fill_diagonal(W, 0.0)
    d = W.sum(axis=1)
    S = W / np.sqrt(np.outer(d, d))
    Y = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    F = Y.copy()
    for _ in range(iters):
        F = alpha * S @ F + (1 - alpha) * Y
    return F[2, 0] - F[4, 1]


def dirichlet_energy(signal, w=np.array([e[2] for e in EDGES])):  # noqa: B008
    energy = 0.0
    for (i, j, _), wij in zip(EDGES, w):
        energy += wij * (signal[i] - signal[j]) ** 2
    return energy + 0.1 * np.sum(signal ** 4)


def fiedler_rayleigh(v, weights=np.array([e[2] for e in EDGES])):  # noqa: B008
    L = laplacian(weights)
    v = v - v.mean()
    return v @ L @ v / (v @ v)


def heun_kinetics(k, y0=(1.0, 0.0, 0.0), dt=0.2, steps=25):
    """A -> B -> C by Heun's method, the state a tuple returned by a helper."""
    def rhs(y):
        a, b, c = y
        return (-k[0] * a, k[0] * a - k[1] * b, k[1] * b)

    y = y0
    states = [y]
    for _ in range(steps):
        f1 = rhs(y)
        pred = tuple(yi + dt * fi for yi, fi in zip(y, f1))
        f2 = rhs(pred)
        y = tuple(yi + 0.5 * dt * (a + b) for yi, a, b in zip(y, f1, f2))
        states.append(y)
    return max(s[1] for s in states[5:15]) + states[-1][2]


def rk4_step(f, y, t, dt):
    k1 = f(t, y)
    k2 = f(t + dt / 2, y + dt / 2 * k1)
    k3 = f(t + dt / 2, y + dt / 2 * k2)
    k4 = f(t + dt, y + dt * k3)
    return y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def brusselator_rk4(ab, steps=30, dt=0.1):
    a, b = ab

    def f(t, y):
        return np.array([a + y[0] ** 2 * y[1] - (b + 1) * y[0], b * y[0] - y[0] ** 2 * y[1]])

    y = np.array([1.0, 1.0])
    t = 0.0
    for _ in range(steps):
        y = rk4_step(f, y, t, dt)
        t += dt
    return y @ y


def gp_ard_nll(log_params, noise=0.05):
    """An ARD squared-exponential kernel, the marginal likelihood by Cholesky and triangular solves."""
    ell = np.exp(log_params[:2])
    sf2 = np.exp(2 * log_params[2])
    diff = (GP_X[:, None, :] - GP_X[None, :, :]) / ell
    K = sf2 * np.exp(-0.5 * np.sum(diff ** 2, axis=-1)) + noise * np.eye(len(GP_Y))
    Lc = np.linalg.cholesky(K)
    alpha = np.linalg.solve(Lc.T, np.linalg.solve(Lc, GP_Y))
    return 0.5 * GP_Y @ alpha + np.sum(np.log(np.diag(Lc))) + 0.5 * len(GP_Y) * np.log(2 * np.pi)


def gp_periodic_predict(log_params, x_star=np.array([0.7, 2.0])):  # noqa: B008
    ell, period = np.exp(log_params)
    x = GP_X[:, 0]

    def k(a, b):
        return np.exp(-2 * np.sin(np.pi * np.abs(a[:, None] - b[None, :] + 3.0) / period) ** 2 / ell ** 2)

    K = k(x, x) + 0.1 * np.eye(len(x))
    mean = k(x_star, x) @ np.linalg.solve(K, GP_Y)
    return np.sum(mean ** 2)


def unbalanced_sinkhorn(log_a, eps=0.5, rho=1.0, iters=20):
    """Unbalanced entropic transport in the log domain: KL-relaxed marginals, scaled updates."""
    x = np.linspace(0, 1, 4)
    y = np.linspace(0.1, 0.9, 3)
    C = (x[:, None] - y[None, :]) ** 2
    a, b = np.exp(log_a), np.full(3, 1 / 3)
    f, g = np.zeros(4), np.zeros(3)
    lam = rho / (rho + eps)
    for _ in range(iters):
        f = -lam * eps * np.log(np.sum(b[None, :] * np.exp((g[None, :] - C) / eps), axis=1))
        g = -lam * eps * np.log(np.sum(a[:, None] * np.exp((f[:, None] - C) / eps), axis=0))
    P_plan = a[:, None] * b[None, :] * np.exp((f[:, None] + g[None, :] - C) / eps)
    return np.sum(P_plan * C) + rho * np.sum(P_plan.sum(axis=1) * np.log(P_plan.sum(axis=1) / a))


SCIENCES = [
    ("sc_one_compartment", one_compartment, lambda r: (np.log([1.2, 0.2, 40.0]),), 0),
    ("sc_multiple_dosing", multiple_dosing, lambda r: (math.log(0.1),), 0),
    ("sc_two_compartment_euler", two_compartment_euler, lambda r: (np.log([0.2, 0.3, 0.15]),), 0),
    ("sc_emax_hill", emax_hill, lambda r: (np.array([2.0, 40.0, 3.0, 1.2]),), 0),
    ("sc_lif_soft", lif_soft, lambda r: (1.6,), 0),
    ("sc_hodgkin_huxley", hodgkin_huxley, lambda r: (np.array([120.0, 36.0, 0.3]),), 0),
    ("sc_wilson_cowan", wilson_cowan, lambda r: (np.array([12.0, 10.0, 10.0, 2.0]) + 0.2 * M(r, 4),), 0),
    ("sc_kepler_newton", kepler_newton, lambda r: (0.3,), 0),
    ("sc_radial_velocity", radial_velocity, lambda r: (np.array([2.8, 4.0, 0.4]),), 0),
    ("sc_energy_balance", energy_balance, lambda r: (np.array([0.61, 8.0]),), 0),
    ("sc_dc_power_flow", dc_power_flow, lambda r: (0.2 * P(r, 5),), 0),
    ("sc_economic_dispatch", economic_dispatch, lambda r: (np.array([1.5, 2.0, 1.2]),), 0),
    ("sc_hardy_weinberg", hardy_weinberg, lambda r: (0.3,), 0),
    ("sc_selection_recursion", selection_recursion, lambda r: (0.15,), 0),
    ("sc_heat_diffusion", heat_diffusion, lambda r: (P(r, 6),), 0),
    ("sc_label_propagation", label_propagation, lambda r: (P(r, 6),), 0),
    ("sc_dirichlet_energy", dirichlet_energy, lambda r: (M(r, 5),), 0),
    ("sc_fiedler_rayleigh", fiedler_rayleigh, lambda r: (M(r, 5),), 0),
    ("sc_heun_kinetics", heun_kinetics, lambda r: (np.array([0.8, 0.3]),), 0),
    ("sc_brusselator_rk4", brusselator_rk4, lambda r: (np.array([1.0, 2.5]),), 0),
    ("sc_gp_ard_nll", gp_ard_nll, lambda r: (np.array([0.0, -0.3, 0.1]),), 0),
    ("sc_gp_periodic_predict", gp_periodic_predict, lambda r: (np.log([1.0, 1.7]),), 0),
    ("sc_unbalanced_sinkhorn", unbalanced_sinkhorn, lambda r: (np.log(np.full(4, 0.25)) + 0.1 * M(r, 4),), 0),
]
