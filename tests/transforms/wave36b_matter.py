"""Wave 36b: chemistry, structures, traffic and geostatistics, written as scientists write them
(Arrhenius networks stepped by a dict of reactions, Lennard-Jones with a cutoff and a shifted
potential by a boolean mask, Morse pairs by np.triu_indices, Langmuir isotherms, Antoine vapour
pressures and a bubble point by Newton, Henderson-Hasselbalch titrations; a truss assembled by index
loops and solved, Euler-Bernoulli beams by superposition, a spring chain's equilibrium; the
intelligent driver model, Greenshields LWR with a Godunov flux of np.minimum; spherical variograms,
ordinary kriging weights by np.linalg.solve of a bordered matrix)
(test_wave36b.py runs them through every transformation)."""

from __future__ import annotations

import math

import numpy as np

R_GAS = 8.314
REACTIONS = {"A->B": (0, 1), "B->C": (1, 2), "A->C": (0, 2)}
TEMPS = np.array([300.0, 320.0, 340.0, 360.0])
YIELD_C = np.array([0.05, 0.12, 0.25, 0.41])


def arrhenius_network(theta, temps=TEMPS, target=YIELD_C, dt=0.1, steps=20):
    """First-order reactions named in a dict, rates k = A exp(-Ea / RT), Euler steps per temperature."""
    log_a, ea = theta[:3], theta[3:] * 1e4
    loss = 0.0
    for temp in temps:
        rates = {name: math.exp(log_a[j]) * math.exp(-ea[j] / (R_GAS * temp))
                 for j, name in enumerate(REACTIONS)}
        conc = np.array([1.0, 0.0, 0.0])
        for _ in range(steps):
            change = np.zeros(3)
            for name, (src, dst) in REACTIONS.items():
                flux = rates[name] * conc[src]
                change[src] -= flux
                change[dst] += flux
            conc = conc + dt * change
        loss += (conc[2] - target[list(temps).index(temp)]) ** 2
    return loss


def lennard_jones_cutoff(pos, rc=2.5, eps=1.0, sig=1.0):
    """Pair energies inside the cutoff only (a boolean mask), shifted so the potential is 0 at rc."""
    diff = pos[:, np.newaxis, :] - pos[np.newaxis, :, :]
    i, j = np.triu_indices(len(pos), k=1)
    r = np.sqrt(np.sum(diff[i, j] ** 2, axis=-1))
    inside = r < rc
    sr6 = (sig / r[inside]) ** 6
    shift = 4 * eps * ((sig / rc) ** 12 - (sig / rc) ** 6)
    return np.sum(4 * eps * (sr6 ** 2 - sr6) - shift)


def morse_triu(pos, de=0.5, a=1.2, re=1.1):
    i, j = np.triu_indices(pos.shape[0], 1)
    r = np.linalg.norm(pos[i] - pos[j], axis=1)
    return np.sum(de * (1.0 - np.exp(-a * (r - re))) ** 2)


def langmuir_isotherm(params, pressure=np.array([0.1, 0.5, 1.0, 2.0, 5.0]),  # noqa: B008
                      loading=np.array([0.8, 2.6, 3.7, 4.5, 5.1])):  # noqa: B008
    q_max, log_k = params
    k = math.exp(log_k)
    pred = q_max * k * pressure / (1 + k * pressure)
    return float(np.sum((pred - loading) ** 2))


ANTOINE = {"benzene": (6.905, 1211.0, 220.8), "toluene": (6.954, 1344.8, 219.5)}


def bubble_point_newton(x_benzene, pressure=760.0):
    """Raoult's law with Antoine vapour pressures; the bubble temperature found by Newton steps."""
    fractions = {"benzene": x_benzene[0], "toluene": 1.0 - x_benzene[0]}
    t = 90.0
    for _ in range(20):
        total, slope = 0.0, 0.0
        for name, (a, b, c) in ANTOINE.items():
            p_sat = 10.0 ** (a - b / (t + c))
            total += fractions[name] * p_sat
            slope += fractions[name] * p_sat * math.log(10.0) * b / (t + c) ** 2
        t = t - (total - pressure) / slope
    return t


def henderson_titration(pka, ph=np.array([3.5, 4.2, 4.8, 5.5, 6.1]),  # noqa: B008
                        fraction=np.array([0.06, 0.25, 0.55, 0.86, 0.96])):  # noqa: B008
    pred = 1.0 / (1.0 + 10.0 ** (pka - ph))
    return np.sum((pred - fraction) ** 2)


NODES = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [0.5, 0.8], [1.5, 0.8]])
BARS = [(0, 1), (1, 2), (0, 3), (1, 3), (1, 4), (2, 4), (3, 4)]


def truss_compliance(areas, load=np.array([0.0, -1.0])):  # noqa: B008
    """A 2-D truss: the stiffness assembled bar by bar by index loops, supports removed, solved."""
    n_dof = 2 * len(NODES)
    k = np.zeros((n_dof, n_dof))
    for b, (p, q) in enumerate(BARS):
        d = NODES[q] - NODES[p]
        length = math.sqrt(d[0] ** 2 + d[1] ** 2)
        c, s = d / length
        local = areas[b] / length * np.outer([c, s, -c, -s], [c, s, -c, -s])
        dofs = [2 * p, 2 * p + 1, 2 * q, 2 * q + 1]
        for a_i, gi in enumerate(dofs):
            for a_j, gj in enumerate(dofs):
                k[gi, gj] += local[a_i, a_j]
    free = [2, 3, 4, 6, 7, 8, 9]
    f = np.zeros(n_dof)
    f[2:4] = load
    u = np.linalg.solve(k[np.ix_(free, free)], f[free])
    return float(f[free] @ u) + 0.1 * np.sum(areas)


def beam_superposition(loads, span=4.0, ei=2.0, where=(1.0, 2.0, 3.0)):
    """Mid-span deflection of a simply supported beam under point loads, by superposition."""
    x = span / 2
    total = 0.0
    for p, a in zip(loads, where):
        b = span - a
        if x <= a:
            total += p * b * x * (span ** 2 - b ** 2 - x ** 2) / (6 * span * ei)
        else:
            total += p * a * (span - x) * (2 * span * x - x ** 2 - a ** 2) / (6 * span * ei)
    return total ** 2 + 0.05 * sum(p ** 2 for p in loads)


def spring_chain_energy(x, k=np.array([1.0, 2.0, 1.5, 3.0]), rest=0.5):  # noqa: B008
    """A chain fixed at 0 and 2.0; energy of springs between consecutive free nodes."""
    nodes = np.concatenate([[0.0], x, [2.0]])
    stretch = np.diff(nodes) - rest
    return 0.5 * np.sum(k * stretch ** 2) + 0.1 * np.sum(np.cos(3 * x))


def idm_platoon(params, steps=40, dt=0.25):
    """Intelligent driver model: a platoon behind a braking leader; gaps kept above zero."""
    v0, t_head, a_max, b_comf = params
    pos = np.array([0.0, -10.0, -20.0, -30.0])
    vel = np.array([10.0, 10.0, 10.0, 10.0])
    discomfort = 0.0
    for step in range(steps):
        lead_acc = -1.5 if step < 10 else 0.5
        acc = [lead_acc]
        for car in range(1, len(pos)):
            gap = pos[car - 1] - pos[car] - 4.0
            dv = vel[car] - vel[car - 1]
            s_star = 2.0 + vel[car] * t_head + vel[car] * dv / (2 * np.sqrt(a_max * b_comf))
            acc.append(a_max * (1 - (vel[car] / v0) ** 4 - (s_star / gap) ** 2))
        acc = np.array(acc)
        vel = np.maximum(vel + dt * acc, 0.0)
        pos = pos + dt * vel
        discomfort = discomfort + np.sum(acc[1:] ** 2)
    return discomfort * dt


def lwr_godunov(rho0, vmax=1.0, rho_max=1.0, dx=0.1, dt=0.04, steps=15):
    """Greenshields LWR: the Godunov flux by np.minimum of demand and supply, periodic by np.roll."""
    rho = rho0
    crit = rho_max / 2
    for _ in range(steps):
        flux = vmax * rho * (1 - rho / rho_max)
        demand = np.where(rho < crit, flux, vmax * rho_max / 4)
        supply = np.where(rho > crit, flux, vmax * rho_max / 4)
        f = np.minimum(demand, np.roll(supply, -1))
        rho = rho - dt / dx * (f - np.roll(f, 1))
    return np.sum(rho ** 2 * np.arange(len(rho)))


SITES = np.array([[0.0, 0.0], [1.0, 0.2], [0.3, 1.1], [1.2, 1.0], [0.6, 0.5]])
VALUES = np.array([1.2, 0.8, 1.5, 0.9, 1.1])


def spherical_variogram(h, nugget, sill, rng_):
    r = h / rng_
    return np.where(h < rng_, nugget + (sill - nugget) * (1.5 * r - 0.5 * r ** 3), sill)


def kriging_prediction(params, target=np.array([0.5, 0.6])):  # noqa: B008
    """Ordinary kriging: the bordered variogram system solved by np.linalg.solve for the weights."""
    nugget, sill, rng_ = params
    n = len(SITES)
    d = np.sqrt(((SITES[:, None, :] - SITES[None, :, :]) ** 2).sum(-1))
    gamma = spherical_variogram(d, nugget, sill, rng_) * (1 - np.eye(n))
    a = np.ones((n + 1, n + 1))
    a[:n, :n] = gamma
    a[n, n] = 0.0
    d0 = np.sqrt(((SITES - target) ** 2).sum(-1))
    b = np.append(spherical_variogram(d0, nugget, sill, rng_), 1.0)
    w = np.linalg.solve(a, b)
    estimate = w[:n] @ VALUES
    variance = w @ b
    return (estimate - 1.0) ** 2 + variance


def empirical_variogram_fit(params, lags=np.array([0.2, 0.4, 0.6, 0.8, 1.0, 1.2]),  # noqa: B008
                            semivar=np.array([0.05, 0.09, 0.12, 0.14, 0.15, 0.15])):  # noqa: B008
    """An exponential variogram fitted by weighted least squares (Cressie's weights)."""
    nugget, sill, a = params
    model = nugget + sill * (1 - np.exp(-lags / a))
    return np.sum((semivar / model - 1) ** 2)


def equilibrium_newton_system(log_k, c0=np.array([1.0, 0.8])):  # noqa: B008
    """A + B <-> C and 2A <-> D at equilibrium: Newton on extents, each step by np.linalg.solve."""
    k1, k2 = np.exp(log_k)
    xi = np.array([0.2, 0.1])
    for _ in range(30):
        a = c0[0] - xi[0] - 2 * xi[1]
        b = c0[1] - xi[0]
        res = np.array([xi[0] - k1 * a * b, xi[1] - k2 * a * a])
        jac = np.array([[1 + k1 * (b + a), 2 * k1 * b], [2 * k2 * a, 1 + 4 * k2 * a]])
        xi = xi - np.linalg.solve(jac, res)
    return xi[0] + 0.5 * xi[1] ** 2


def euler_buckling_lowest(stiff, length=3.0, modes=(1, 2, 3)):
    """The lowest critical load over buckling modes of a column on an elastic foundation, by min."""
    ei, k_found = stiff[0], stiff[1]
    loads = [ei * (m * np.pi / length) ** 2 + k_found * (length / (m * np.pi)) ** 2 for m in modes]
    return min(loads) / (1.0 + 0.1 * ei)


def idw_interpolation(power, sites=SITES, values=VALUES, targets=np.array([[0.5, 0.6], [0.9, 0.3]])):  # noqa: B008
    """Inverse-distance weighting with a learned power, left out one site at a time."""
    loss = 0.0
    for k in range(len(sites)):
        keep = np.arange(len(sites)) != k
        d = np.linalg.norm(sites[keep] - sites[k], axis=1)
        w = d ** (-power[0])
        loss += (np.sum(w * values[keep]) / np.sum(w) - values[k]) ** 2
    return loss


ZERNIKE = {(2, 0): lambda r, t: np.sqrt(3) * (2 * r ** 2 - 1), (2, 2): lambda r, t: np.sqrt(6) * r ** 2 * np.cos(2 * t),
           (3, 1): lambda r, t: np.sqrt(8) * (3 * r ** 3 - 2 * r) * np.cos(t)}


def zernike_wavefront(coef):
    """A wavefront as Zernike terms kept in a dict of lambdas by (n, m); its RMS over a pupil grid."""
    r = np.linspace(0.1, 1.0, 6)[:, None] * np.ones((1, 8))
    t = np.linspace(0, 2 * np.pi, 8, endpoint=False)[None, :] * np.ones((6, 1))
    w = sum(c * term(r, t) for c, term in zip(coef, ZERNIKE.values()))
    return np.sqrt(np.mean(w ** 2)) + 0.1 * np.sum(coef ** 2)


def _vec(*values):
    return lambda rng: (np.array(values, dtype=float),)


def _cluster(rng):
    base = np.array([[0.0, 0.0, 0.0], [1.1, 0.0, 0.1], [0.1, 1.2, 0.0], [0.9, 1.0, 0.8], [3.0, 0.2, 0.1]])
    return (base + 0.03 * rng.normal(size=base.shape),)


MATTER = [
    ("chem_arrhenius_network", arrhenius_network, _vec(4.0, 3.0, 1.5, 2.0, 2.2, 2.5), 0),
    ("chem_lj_cutoff", lennard_jones_cutoff, _cluster, 0),
    ("chem_morse_triu", morse_triu, _cluster, 0),
    ("chem_langmuir", langmuir_isotherm, lambda rng: ((5.5, 0.3),), 0),
    ("chem_bubble_point", bubble_point_newton, _vec(0.4), 0),
    ("chem_henderson", henderson_titration, _vec(4.7), 0),
    ("mech_truss_compliance", truss_compliance, _vec(1.0, 1.2, 0.8, 1.1, 0.9, 1.0, 1.3), 0),
    ("mech_beam_superposition", beam_superposition, lambda rng: ([1.0, 0.5, 0.8],), 0),
    ("mech_spring_chain", spring_chain_energy, _vec(0.4, 0.9, 1.5), 0),
    ("traffic_idm_platoon", idm_platoon, _vec(15.0, 1.5, 1.2, 2.0), 0),
    ("traffic_lwr_godunov", lwr_godunov, _vec(0.2, 0.3, 0.65, 0.8, 0.55, 0.35, 0.15, 0.1), 0),
    ("geo_kriging", kriging_prediction, _vec(0.02, 0.2, 1.6), 0),
    ("geo_variogram_fit", empirical_variogram_fit, _vec(0.02, 0.13, 0.35), 0),
    ("chem_equilibrium_newton", equilibrium_newton_system, _vec(0.5, -0.3), 0),
    ("mech_euler_buckling_min", euler_buckling_lowest, _vec(2.0, 0.5), 0),
    ("geo_idw", idw_interpolation, _vec(2.0), 0),
    ("opt_zernike_dict", zernike_wavefront, _vec(0.3, -0.2, 0.1), 0),
]
