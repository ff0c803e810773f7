"""Wave 34b: chemistry, geodesy and astronomy, structural mechanics and fluids, written the way their
users write them: a reaction network from a list of (reactant, product, rate name) tuples over a dict
of rate constants, equilibria by fixed Newton steps, buffers by log10, Gibbs mixing by softmax mole
fractions, haversine trilateration, geodetic to ECEF with WGS84 constants, orbital elements to a
position by Kepler's equation in a while loop, a truss assembled with np.add.at and by index loops,
a 1D bar by slices written in place, diffusion and advection by np.roll, a D1Q3 lattice, shallow water
with np.maximum, a particle in a box by eigvalsh, a heat exchanger's LMTD and a damped oscillator whose
states are appended to a list."""

from __future__ import annotations

import math

import numpy as np

R_GAS = 8.314
REACTIONS = [("A", "B", "k1"), ("B", "C", "k2"), ("B", "A", "k_1")]
C_OBS = {"A": 0.35, "B": 0.3, "C": 0.35}
WGS84_A = 6378137.0
WGS84_F = 1 / 298.257223563
STATIONS = np.array([[0.0, 0.0], [0.02, 0.01], [-0.01, 0.03], [0.015, -0.02]])
RANGES = np.array([1.8, 1.2, 2.9, 2.4])
EARTH_R = 6371.0
NODES = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [0.5, 0.8], [1.5, 0.8]])
BARS = np.array([[0, 1], [1, 2], [0, 3], [1, 3], [1, 4], [2, 4], [3, 4]])
FIXED = [0, 1, 5]
LOAD = np.zeros(10)
LOAD[7] = -1.0


def reaction_network(logk, steps=20, dt=0.1):
    rates = {"k1": math.exp(logk[0]), "k2": math.exp(logk[1]), "k_1": math.exp(logk[2])}
    c = {"A": 1.0, "B": 0.0, "C": 0.0}
    for _ in range(steps):
        dc = {s: 0.0 for s in c}
        for src, dst, key in REACTIONS:
            flux = rates[key] * c[src]
            dc[src] = dc[src] - flux
            dc[dst] = dc[dst] + flux
        for s in c:
            c[s] = c[s] + dt * dc[s]
    return sum((c[s] - C_OBS[s]) ** 2 for s in c)


def acid_equilibrium(pka, c0=np.array([0.1, 0.05, 0.2])):  # noqa: B008
    ka = 10.0 ** (-pka)
    x = np.sqrt(ka * c0)
    for _ in range(8):  # x**2 / (c0 - x) = ka by Newton
        f = x * x - ka * (c0 - x)
        df = 2 * x + ka
        x = x - f / df
    ph = -np.log10(x)
    return np.sum((ph - np.array([2.9, 3.2, 2.6])) ** 2)


def buffer_ph(ratio_log, pka=4.76):
    ph = pka + np.log10(np.exp(ratio_log))
    ph = np.clip(ph, 0.0, 14.0)
    return float(np.mean((ph - 5.0) ** 2))


def gibbs_mixing(logits, g0=np.array([-1.0, -0.5, -0.2, 0.3]), temp=300.0):  # noqa: B008
    z = logits - np.max(logits)
    x = np.exp(z) / np.sum(np.exp(z))
    return np.sum(x * g0) + R_GAS * temp / 1000.0 * np.sum(x * np.log(x))


def arrhenius_fit(theta, temps=np.array([300.0, 320.0, 340.0, 360.0])):  # noqa: B008
    log_a, ea = theta
    ks = []
    for t in temps:
        ks.append(math.exp(log_a - ea * 1000.0 / (R_GAS * t)))
    k = np.array(ks)
    obs = np.array([0.02, 0.08, 0.27, 0.8])
    return float(np.sum((np.log(k) - np.log(obs)) ** 2))


def michaelis_fit(p, s=np.array([0.5, 1.0, 2.0, 4.0, 8.0]), v_obs=np.array([0.9, 1.4, 2.0, 2.4, 2.7])):  # noqa: B008
    vmax, km = p[0], p[1]
    i, loss = 0, 0.0
    while i < len(s):
        v = vmax * s[i] / (km + s[i])
        loss += (v - v_obs[i]) ** 2
        i += 1
    return loss


def _haversine(lat1, lon1, lat2, lon2):
    dlat = lat2 - lat1
    dlon = lon2 - lon1
    a = np.sin(dlat / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin(dlon / 2) ** 2
    return 2 * EARTH_R * np.arcsin(np.sqrt(a))


def trilateration(pos):
    lat, lon = np.radians(pos[0]), np.radians(pos[1])
    total = 0.0
    for k in range(STATIONS.shape[0]):
        d = _haversine(lat, lon, np.radians(STATIONS[k, 0]), np.radians(STATIONS[k, 1]))
        total += (d - RANGES[k]) ** 2
    return total


def geodetic_ecef(llh):
    e2 = WGS84_F * (2 - WGS84_F)
    lat, lon, h = math.radians(1.0) * llh[0], math.radians(1.0) * llh[1], llh[2]
    n = WGS84_A / np.sqrt(1 - e2 * np.sin(lat) ** 2)
    x = (n + h) * np.cos(lat) * np.cos(lon)
    y = (n + h) * np.cos(lat) * np.sin(lon)
    z = (n * (1 - e2) + h) * np.sin(lat)
    target = np.array([4.0e6, 0.9e6, 4.8e6])
    return np.sum(((np.array([x, y, z]) - target) / 1e6) ** 2)


def _eccentric_anomaly(m, e):
    big_e = m if e < 0.8 else math.pi
    k = 0
    while k < 10:
        big_e = big_e - (big_e - e * np.sin(big_e) - m) / (1 - e * np.cos(big_e))
        k += 1
    return big_e


def orbit_position(elements, times=(0.3, 1.1, 2.0)):
    a, e, omega = elements[0], elements[1], elements[2]
    n = math.sqrt(1.0) / a ** 1.5
    loss = 0.0
    for j, t in enumerate(times):
        big_e = _eccentric_anomaly(n * t, 0.3)
        big_e = big_e + 0.0 * e
        nu = 2 * np.arctan2(np.sqrt(1 + e) * np.sin(big_e / 2), np.sqrt(1 - e) * np.cos(big_e / 2))
        r = a * (1 - e * np.cos(big_e))
        x, y = r * np.cos(nu + omega), r * np.sin(nu + omega)
        loss = loss + (x - 0.5 * j) ** 2 + (y - 0.4) ** 2
    return loss


def kepler_mean_anomalies(ecc, mean=np.array([0.4, 1.3, 2.2, 3.0])):  # noqa: B008
    big_e = mean.copy()
    for _ in range(12):
        big_e -= (big_e - ecc * np.sin(big_e) - mean) / (1.0 - ecc * np.cos(big_e))
    return float(np.sum(np.cos(big_e)) + ecc ** 2)


def truss_compliance(areas):
    k = np.zeros((10, 10))
    for b in range(BARS.shape[0]):
        i, j = BARS[b]
        d = NODES[j] - NODES[i]
        length = np.sqrt(d @ d)
        c, s = d / length
        t = np.array([-c, -s, c, s])
        dofs = np.array([2 * i, 2 * i + 1, 2 * j, 2 * j + 1])
        np.add.at(k, (dofs[:, None], dofs[None, :]), areas[b] / length * np.outer(t, t))
    free = [q for q in range(10) if q not in FIXED]
    u = np.linalg.solve(k[np.ix_(free, free)], LOAD[free])
    return LOAD[free] @ u + 0.1 * np.sum(areas)


def truss_loops(areas):
    k = np.zeros((10, 10))
    for b, (i, j) in enumerate(BARS):
        d = NODES[j] - NODES[i]
        length = math.hypot(d[0], d[1])
        t = np.array([-d[0], -d[1], d[0], d[1]]) / length
        dofs = [2 * i, 2 * i + 1, 2 * j, 2 * j + 1]
        ke = areas[b] / length * np.outer(t, t)
        for r in range(4):
            for q in range(4):
                k[dofs[r], dofs[q]] += ke[r, q]
    keep = [q for q in range(10) if q not in FIXED]
    kf = k[keep][:, keep]
    u = np.linalg.solve(kf, LOAD[keep])
    return float(u @ kf @ u)


def fem_bar(ea, n=6, q=1.0):
    h = 1.0 / n
    k = np.zeros((n + 1, n + 1))
    f = np.full(n + 1, q * h)
    for e in range(n):
        k[e:e + 2, e:e + 2] += ea[e] / h * np.array([[1.0, -1.0], [-1.0, 1.0]])
    f[0] = f[-1] = q * h / 2
    u = np.zeros(n + 1)
    u[1:] = np.linalg.solve(k[1:, 1:], f[1:])
    return u[-1] + 0.01 * np.sum(ea ** 2)


def diffusion_roll(u0, steps=10, nu=0.2):
    u = u0.copy()
    for _ in range(steps):
        u = u + nu * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
    return np.sum((u - np.linspace(0.2, 0.8, u.shape[0])) ** 2)


def advection_upwind(c, steps=8):
    u = np.exp(-((np.arange(12) - 3.0) ** 2) / 2.0)
    vel = c[0]
    for _ in range(steps):
        flux = np.where(vel > 0, vel * u, vel * np.roll(u, -1))
        u = u - 0.3 * (flux - np.roll(flux, 1))
    return np.sum(u[6:] ** 2) + c[1] ** 2


def lattice_d1q3(tau, steps=6):
    w = np.array([2 / 3, 1 / 6, 1 / 6])
    rho0 = 1.0 + 0.1 * np.sin(np.linspace(0, 2 * np.pi, 10, endpoint=False))
    f = w[:, None] * rho0[None, :]
    for _ in range(steps):
        rho = f.sum(axis=0, keepdims=True)
        feq = w[:, None] * rho
        f = f - (f - feq) / tau
        f[1] = np.roll(f[1], 1)
        f[2] = np.roll(f[2], -1)
    return float(np.sum(f.sum(axis=0) ** 2))


def shallow_water(h0, steps=5, g=9.81, dt=0.01, dx=0.5):
    h = h0.copy()
    u = np.zeros_like(h)
    for _ in range(steps):
        hu = h * u
        h = h - dt / dx * (np.roll(hu, -1) - np.roll(hu, 1)) / 2
        h = np.maximum(h, 1e-3)
        u = u - dt / dx * g * (np.roll(h, -1) - np.roll(h, 1)) / 2
    return np.sum(h ** 2) + np.sum(u ** 2)


def particle_in_box(v):
    n = v.shape[0]
    h = 1.0 / (n + 1)
    ham = (np.diag(np.full(n, 2.0)) - np.diag(np.ones(n - 1), 1) - np.diag(np.ones(n - 1), -1)) / h ** 2
    ham = ham + np.diag(v)
    energies = np.linalg.eigvalsh(ham)
    return energies[0] + 0.5 * energies[1]


def heat_exchanger(ua, th_in=150.0, tc_in=20.0, mh=2.0, mc=3.0):
    ntu = ua[0] / min(mh, mc)
    cr = min(mh, mc) / max(mh, mc)
    eff = (1 - np.exp(-ntu * (1 - cr))) / (1 - cr * np.exp(-ntu * (1 - cr)))
    q = eff * min(mh, mc) * (th_in - tc_in)
    th_out = th_in - q / mh
    tc_out = tc_in + q / mc
    dt1, dt2 = th_in - tc_out, th_out - tc_in
    lmtd = (dt1 - dt2) / np.log(dt1 / dt2)
    return (q - 150.0) ** 2 / 100.0 + 0.01 * lmtd + ua[1] ** 2


def damped_oscillator(params, dt=0.05, steps=30):
    k, c = params["k"], params["c"]
    x, v = 1.0, 0.0
    states = []
    for _ in range(steps):
        a = -k * x - c * v
        v_half = v + 0.5 * dt * a
        x = x + dt * v_half
        v = v_half + 0.5 * dt * (-k * x - c * v_half)
        states.append((x, v))
    traj = np.array([s[0] for s in states])
    return float(np.sum((traj - np.cos(np.arange(1, steps + 1) * dt * 2.0) * np.exp(-0.1 * np.arange(steps))) ** 2))


def thin_film(n_d, lam=np.array([450.0, 550.0, 650.0])):  # noqa: B008
    n_film, d = n_d[0], n_d[1]
    r1 = (1.0 - n_film) / (1.0 + n_film)
    r2 = (n_film - 1.5) / (n_film + 1.5)
    delta = 4 * np.pi * n_film * d / lam
    refl = (r1 ** 2 + r2 ** 2 + 2 * r1 * r2 * np.cos(delta)) / (1 + r1 ** 2 * r2 ** 2 + 2 * r1 * r2 * np.cos(delta))
    return float(np.mean(refl))


SCIENCE = [
    ("chem_reaction_network", reaction_network, lambda r: (np.log(np.array([0.5, 0.3, 0.1])),), 0),
    ("chem_acid_equilibrium", acid_equilibrium, lambda r: (np.array([4.7, 4.2, 3.8]),), 0),
    ("chem_buffer_ph", buffer_ph, lambda r: (r.normal(0.3, 0.4, 5),), 0),
    ("chem_gibbs_mixing", gibbs_mixing, lambda r: (r.normal(size=4),), 0),
    ("chem_arrhenius_tuple", arrhenius_fit, lambda r: (np.array([17.0, 55.0]),), 0),
    ("chem_michaelis_while", michaelis_fit, lambda r: (np.array([3.0, 1.2]),), 0),
    ("geo_trilateration", trilateration, lambda r: (np.array([0.005, 0.004]),), 0),
    ("geo_ecef", geodetic_ecef, lambda r: (np.array([48.0, 12.0, 500.0]),), 0),
    ("astro_orbit_position", orbit_position, lambda r: (np.array([1.2, 0.2, 0.3]),), 0),
    ("astro_kepler_inplace", kepler_mean_anomalies, lambda r: (0.35,), 0),
    ("struct_truss_add_at", truss_compliance, lambda r: (r.uniform(0.5, 1.5, 7),), 0),
    ("struct_truss_loops", truss_loops, lambda r: (r.uniform(0.5, 1.5, 7),), 0),
    ("struct_fem_bar", fem_bar, lambda r: (r.uniform(1.0, 2.0, 6),), 0),
    ("fluid_diffusion_roll", diffusion_roll, lambda r: (r.uniform(0, 1, 8),), 0),
    ("fluid_advection_upwind", advection_upwind, lambda r: (np.array([0.6, 0.1]),), 0),
    ("fluid_lattice_d1q3", lattice_d1q3, lambda r: (0.8,), 0),
    ("fluid_shallow_water", shallow_water, lambda r: (1.0 + 0.1 * r.normal(size=8),), 0),
    ("quant_particle_box", particle_in_box, lambda r: (r.uniform(0, 5, 6),), 0),
    ("therm_heat_exchanger", heat_exchanger, lambda r: (np.array([3.0, 0.2]),), 0),
    ("mech_oscillator_dict", damped_oscillator, lambda r: ({"k": 4.0, "c": 0.3},), 0),
    ("opt_thin_film", thin_film, lambda r: (np.array([1.38, 100.0]),), 0),
]
