"""Wave 33g: physics and control, written the way engineers and physicists write them: spring chains
and n-body energies by pairwise loops (continue past a pair, softening), a leapfrog rollout, a
pendulum and LQR rollouts with clipped controls, cart-pole by Euler with a helper returning a tuple,
SIR by RK4, Arrhenius kinetics with a dict of parameters, explicit heat and wave equations written in
place, Kepler's equation by Newton in a while loop, a beam by np.linalg.solve, DC power flow with
line limits, Lennard-Jones by broadcasting and np.triu, a Nash reservoir cascade, an energy balance
climate model, Snell's law through layers and ABCD lens matrices."""

from __future__ import annotations

import math

import numpy as np

G = 1.0
SOFT = 0.05
DT = 0.05
A_LQR = np.array([[1.0, 0.1], [0.0, 1.0]])
B_LQR = np.array([[0.005], [0.1]])
LINES = [(0, 1, 10.0), (1, 2, 8.0), (0, 2, 5.0), (2, 3, 12.0)]
CAPS = np.array([0.6, 0.5, 0.4, 0.7])
OBS_SIR = np.array([0.01, 0.018, 0.031, 0.05, 0.075])


def spring_chain(x, k=3.0, rest=1.0):
    e = 0.0
    n = x.shape[0]
    for i in range(n - 1):
        d = x[i + 1] - x[i]
        length = np.sqrt(np.sum(d * d))
        e += 0.5 * k * (length - rest) ** 2
    return e + 0.5 * np.sum(x[0] ** 2)


def nbody_energy(pos, masses=np.array([1.0, 2.0, 0.5, 1.5])):  # noqa: B008
    n = len(masses)
    pot = 0.0
    for i in range(n):
        for j in range(n):
            if j <= i:
                continue
            r = np.sqrt(np.sum((pos[i] - pos[j]) ** 2) + SOFT ** 2)
            pot = pot - G * masses[i] * masses[j] / r
    return pot


def _accel(pos, masses):
    diff = pos[None, :, :] - pos[:, None, :]
    r3 = (np.sum(diff ** 2, axis=-1) + SOFT ** 2) ** 1.5
    return G * np.sum(masses[None, :, None] * diff / r3[:, :, None], axis=1)


def leapfrog(v0, steps=6):
    masses = np.array([1.0, 0.1, 0.05])
    pos = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, -1.5]])
    vel = v0.copy()
    a = _accel(pos, masses)
    for _ in range(steps):
        vel = vel + 0.5 * DT * a
        pos = pos + DT * vel
        a = _accel(pos, masses)
        vel = vel + 0.5 * DT * a
    return np.sum((pos[1] - np.array([1.0, 0.3])) ** 2)


def pendulum_control(u, umax=2.0):
    th, om = 0.1, 0.0
    cost = 0.0
    for t in range(len(u)):
        torque = np.clip(u[t], -umax, umax)
        om = om + DT * (-9.81 * math.sin(th) + torque)
        th = th + DT * om
        cost = cost + 0.01 * torque ** 2
    return cost + (th - 0.5) ** 2 + 0.1 * om ** 2


def lqr_rollout(u, x0=np.array([1.0, 0.0]), q=np.diag([1.0, 0.1]), r=0.01):  # noqa: B008
    x = x0
    cost = 0.0
    for t in range(u.shape[0]):
        x = A_LQR @ x + B_LQR @ u[t]
        cost = cost + x @ q @ x + r * np.sum(u[t] ** 2)
    return cost


def _cartpole_rhs(state, force, mc=1.0, mp=0.1, length=0.5):
    x, xd, th, thd = state
    s, c = math.sin(th), math.cos(th)
    tmp = (force + mp * length * thd ** 2 * s) / (mc + mp)
    thdd = (9.81 * s - c * tmp) / (length * (4.0 / 3.0 - mp * c * c / (mc + mp)))
    xdd = tmp - mp * length * thdd * c / (mc + mp)
    return xd, xdd, thd, thdd


def cartpole(forces):
    state = (0.0, 0.0, 0.05, 0.0)
    for f in forces:
        d = _cartpole_rhs(state, f)
        state = tuple(s + 0.02 * ds for s, ds in zip(state, d))
    return state[2] ** 2 + 0.1 * state[0] ** 2


def _sir(y, beta, gamma):
    s, i, r = y
    return np.array([-beta * s * i, beta * s * i - gamma * i, gamma * i])


def sir_fit(theta, h=1.0):
    beta, gamma = np.exp(theta[0]), np.exp(theta[1])
    y = np.array([0.99, 0.01, 0.0])
    preds = []
    for _ in range(len(OBS_SIR)):
        k1 = _sir(y, beta, gamma)
        k2 = _sir(y + 0.5 * h * k1, beta, gamma)
        k3 = _sir(y + 0.5 * h * k2, beta, gamma)
        k4 = _sir(y + h * k3, beta, gamma)
        y = y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
        preds.append(y[1])
    return np.sum((np.array(preds) - OBS_SIR) ** 2) * 1e3


def arrhenius(p, temps=(300.0, 320.0, 340.0), t_end=1.0, n=20):
    obs = {300.0: 0.2, 320.0: 0.35, 340.0: 0.5}
    loss = 0.0
    for temp in temps:
        k1 = p["a1"] * math.exp(-p["ea1"] / (8.314e-3 * temp))
        k2 = p["a2"] * math.exp(-p["ea2"] / (8.314e-3 * temp))
        a, b = 1.0, 0.0
        dt = t_end / n
        for _ in range(n):
            a, b = a - dt * k1 * a, b + dt * (k1 * a - k2 * b)
        loss += (b - obs[temp]) ** 2
    return loss


def heat_explicit(u0, alpha=0.2, steps=10):
    u = u0.copy()
    for _ in range(steps):
        new = u.copy()
        new[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
        new[0] = new[-1] = 0.0
        u = new
    return np.sum(u ** 2)


def wave_string(c2, steps=8):
    n = 9
    u_prev = np.sin(np.linspace(0, np.pi, n))
    u = u_prev.copy()
    for _ in range(steps):
        nxt = np.zeros(n)
        nxt[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_prev, u = u, nxt
    return np.sum(u * u)


def kepler(e_and_m):
    e, m = e_and_m[0], e_and_m[1]
    ecc_anom = m
    delta = 1.0
    while abs(delta) > 1e-12:
        delta = (ecc_anom - e * math.sin(ecc_anom) - m) / (1 - e * math.cos(ecc_anom))
        ecc_anom = ecc_anom - delta
    nu = 2 * math.atan2(math.sqrt(1 + e) * math.sin(ecc_anom / 2), math.sqrt(1 - e) * math.cos(ecc_anom / 2))
    return nu + 0.5 * (1 - e * math.cos(ecc_anom))


def beam_fd(ei, n=6, load=1.0):
    h = 1.0 / (n + 1)
    k = np.zeros((n, n))
    for i in range(n):
        k[i, i] = 2.0 * ei[i]
        if i > 0:
            k[i, i - 1] = -ei[i]
        if i < n - 1:
            k[i, i + 1] = -ei[i + 1] if i + 1 < n else 0.0
    k = (k + k.T) / (2 * h * h)
    w = np.linalg.solve(k, np.full(n, load))
    return np.max(w) + 0.1 * np.sum(ei ** 2)


def dc_power_flow(injection, penalty=50.0):
    nb = 4
    bmat = np.zeros((nb, nb))
    for i, j, b in LINES:
        bmat[i, i] += b
        bmat[j, j] += b
        bmat[i, j] -= b
        bmat[j, i] -= b
    p = np.concatenate([np.array([-np.sum(injection)]), injection])
    theta = np.zeros(nb)
    theta[1:] = np.linalg.solve(bmat[1:, 1:], p[1:])
    flows = np.array([b * (theta[i] - theta[j]) for i, j, b in LINES])
    over = np.maximum(np.abs(flows) - CAPS, 0.0)
    return np.sum(injection ** 2 * np.array([1.0, 2.0, 1.5])) + penalty * np.sum(over ** 2)


def lennard_jones(x):
    pos = x.reshape(-1, 3)
    d = pos[:, None, :] - pos[None, :, :]
    r2 = np.sum(d ** 2, axis=-1)
    iu = np.triu_indices(pos.shape[0], 1)
    inv6 = 1.0 / r2[iu] ** 3
    return np.sum(4.0 * (inv6 ** 2 - inv6))


def nash_cascade(theta, rain=np.array([0.0, 5.0, 12.0, 3.0, 0.0, 0.0, 1.0, 0.0])):  # noqa: B008
    k = np.exp(theta[0])
    n = 3
    stores = [0.0] * n
    flows = []
    for p in rain:
        inflow = p
        for s in range(n):
            out = stores[s] / k
            stores[s] = stores[s] + inflow - out
            inflow = out
        flows.append(inflow)
    q = np.array(flows)
    return np.sum((q - np.array([0.0, 0.2, 1.0, 1.8, 2.0, 1.6, 1.3, 1.0])) ** 2) + 0.01 * theta[1] ** 2


def energy_balance(params, years=30):
    albedo_ice, albedo_free, width = params[0], params[1], params[2]
    temp = 288.0
    for _ in range(years):
        albedo = albedo_ice + (albedo_free - albedo_ice) * 0.5 * (1 + np.tanh((temp - 265.0) / width))
        temp = temp + 0.1 * (342.0 * (1 - albedo) - 0.61 * 5.67e-8 * temp ** 4)
    return (temp - 287.0) ** 2


def snell_layers(n_layers, x_total=3.0, theta0=0.3):
    sin0 = math.sin(theta0)
    time, x = 0.0, 0.0
    for i in range(len(n_layers)):
        s = sin0 / n_layers[i]
        th = np.arcsin(s)
        x = x + np.tan(th)
        time = time + n_layers[i] / np.cos(th)
    return time + (x - x_total) ** 2


def abcd_lenses(f):
    m = np.eye(2)
    for i in range(f.shape[0]):
        lens = np.array([[1.0, 0.0], [-1.0 / f[i], 1.0]])
        gap = np.array([[1.0, 0.5], [0.0, 1.0]])
        m = gap @ lens @ m
    return (m[0, 0] - 0.2) ** 2 + m[1, 0] ** 2


PHYSICS = [
    ("phys_spring_chain", spring_chain, lambda r: (np.cumsum(r.uniform(0.8, 1.2, (5, 2)), axis=0),), 0),
    ("phys_nbody_energy", nbody_energy, lambda r: (r.normal(size=(4, 3)),), 0),
    ("phys_leapfrog", leapfrog,
     lambda r: (np.array([[0.0, 0.0], [0.0, 1.0], [0.5, 0.0]]) + 0.1 * r.normal(size=(3, 2)),), 0),
    ("ctl_pendulum", pendulum_control, lambda r: (r.uniform(-1.5, 1.5, 10),), 0),
    ("ctl_lqr", lqr_rollout, lambda r: (r.normal(size=(8, 1)),), 0),
    ("ctl_lqr_f32", lqr_rollout, lambda r: (r.normal(size=(6, 1)).astype(np.float32),), 0),
    ("ctl_cartpole", cartpole, lambda r: (r.normal(size=8),), 0),
    ("ode_sir", sir_fit, lambda r: (np.log(np.array([0.6, 0.15])),), 0),
    ("ode_arrhenius", arrhenius, lambda r: ({"a1": 1e3, "ea1": 20.0, "a2": 50.0, "ea2": 12.0},), 0),
    ("pde_heat", heat_explicit, lambda r: (np.sin(np.linspace(0, np.pi, 8)) + 0.1 * r.normal(size=8),), 0),
    ("pde_wave", wave_string, lambda r: (0.3,), 0),
    ("orb_kepler", kepler, lambda r: (np.array([0.3, 1.1]),), 0),
    ("fe_beam_fd", beam_fd, lambda r: (r.uniform(1.0, 2.0, 6),), 0),
    ("grid_dc_flow", dc_power_flow, lambda r: (np.array([0.5, -0.3, 0.8]),), 0),
    ("phys_lennard_jones", lennard_jones,
     lambda r: ((np.array([[0, 0, 0], [1.1, 0, 0], [0, 1.1, 0], [0.5, 0.5, 0.9]])
                 + 0.02 * r.normal(size=(4, 3))).ravel(),), 0),
    ("hyd_nash_cascade", nash_cascade, lambda r: (np.array([0.5, 0.2]),), 0),
    ("clim_energy_balance", energy_balance, lambda r: (np.array([0.6, 0.3, 10.0]),), 0),
    ("opt_snell", snell_layers, lambda r: (np.array([1.0, 1.3, 1.5, 1.2]),), 0),
    ("opt_abcd", abcd_lenses, lambda r: (np.array([1.0, -2.0, 1.5]),), 0),
]
