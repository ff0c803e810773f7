"""The red team's wave 28a, chemistry and physics: Lennard-Jones and Morse pair loops, reaction
kinetics stepped by Euler and RK helpers returning tuples, heat and diffusion stencils by slices,
spring networks, geometry (angles, dihedrals, cross products, norms)."""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave28a_signal import F, M, P

BOLTZMANN = 1.0


def lj_pair(r2, eps=1.0, sigma=1.0):
    s6 = (sigma * sigma / r2) ** 3
    return 4.0 * eps * (s6 * s6 - s6)


def lj_cluster_cutoff(pos, rc=2.5):
    energy = 0.0
    n = pos.shape[0]
    for i in range(n - 1):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r2 = np.dot(d, d)
            if r2 < rc * rc:
                energy += lj_pair(r2) - lj_pair(rc * rc)
    return energy


def lj_vectorised(pos):
    diff = pos[:, None, :] - pos[None, :, :]
    r2 = np.sum(diff**2, axis=-1)
    iu = np.triu_indices(pos.shape[0], k=1)
    inv6 = 1.0 / r2[iu] ** 3
    return np.sum(4.0 * (inv6**2 - inv6))


def morse_pairs_while(pos, D=1.0, a=1.5, re=1.1):
    e = 0.0
    i = 0
    while i < len(pos):
        j = i + 1
        while j < len(pos):
            r = np.linalg.norm(pos[i] - pos[j])
            e += D * (1.0 - math.exp(-a * (r - re))) ** 2
            j += 1
        i += 1
    return e


def arrhenius_rates(logA, Ea, T=350.0, R=8.314):
    return np.exp(logA) * np.exp(-Ea / (R * T))


def arrhenius_total(logA, Ea):
    return np.sum(arrhenius_rates(logA, Ea, T=320.0))


def abc_kinetics_rhs(a, b, c, k1, k2):
    r1 = k1 * a
    r2 = k2 * b
    return -r1, r1 - r2, r2


def abc_kinetics_euler(k, a0=1.0):
    a, b, c = a0, 0.0, 0.0
    dt = 0.05
    for _ in range(30):
        da, db, dc = abc_kinetics_rhs(a, b, c, k[0], k[1])
        a, b, c = a + dt * da, b + dt * db, c + dt * dc
    return b + 0.5 * c


def rk2_step(f, y, dt, *args):
    k1 = f(y, *args)
    k2 = f(y + dt * k1, *args)
    return y + 0.5 * dt * (k1 + k2)


def michaelis_menten(s, vmax, km):
    return -vmax * s / (km + s)


def enzyme_rk2(params, s0=2.0):
    vmax, km = params[0], params[1]
    s = s0
    for _ in range(15):
        s = rk2_step(michaelis_menten, s, 0.1, vmax, km)
    return s


def reversible_equilibrium(kf, kr, steps=40):
    a, b = 1.0, 0.0
    h = 0.05
    history = []
    for _ in range(steps):
        rate = kf * a - kr * b
        a, b = a - h * rate, b + h * rate
        history.append(b)
    return np.mean(np.array(history))


def heat_explicit_slices(u0, kappa=0.2, steps=10):
    u = u0.copy()
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = u[2:] - 2.0 * u[1:-1] + u[:-2]
        u = u + kappa * lap
    return np.sum(u**2)


def heat_source_term(q, n=8, steps=6):
    u = np.zeros(n)
    for _ in range(steps):
        u[1:-1] = u[1:-1] + 0.2 * (u[2:] - 2 * u[1:-1] + u[:-2]) + 0.1 * q
    return np.sum(u * np.linspace(0.0, 1.0, n))


def heat_2d_stencil(U, alpha=0.1):
    for _ in range(3):
        inner = U[1:-1, 1:-1] + alpha * (U[2:, 1:-1] + U[:-2, 1:-1] + U[1:-1, 2:] + U[1:-1, :-2]
                                         - 4.0 * U[1:-1, 1:-1])
        U = np.pad(inner, 1)
    return np.sum(U**2)


def spring_network(pos, edges=((0, 1), (1, 2), (2, 0), (2, 3)), k=2.0, rest=1.0):
    e = 0.0
    for i, j in edges:
        length = np.sqrt(np.sum((pos[i] - pos[j]) ** 2))
        e = e + 0.5 * k * (length - rest) ** 2
    return e


def spring_chain_relax(x0, k=1.0, step=0.1, iters=5):
    """A few gradient steps on a spring chain's energy, the forces written by hand."""
    x = x0
    for _ in range(iters):
        stretch = np.diff(x) - 1.0
        force = np.zeros_like(x)
        force[:-1] += k * stretch
        force[1:] -= k * stretch
        x = x + step * force
    return np.sum((np.diff(x) - 1.0) ** 2) + x[0] ** 2


def bond_angle(a, b, c):
    u = a - b
    v = c - b
    cosang = np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))
    return math.acos(cosang)


def angle_energy(pos, theta0=1.9, k=5.0):
    th = bond_angle(pos[0], pos[1], pos[2])
    return 0.5 * k * (th - theta0) ** 2


def dihedral(pos):
    b0 = pos[0] - pos[1]
    b1 = pos[2] - pos[1]
    b2 = pos[3] - pos[2]
    b1n = b1 / np.linalg.norm(b1)
    v = b0 - np.dot(b0, b1n) * b1n
    w = b2 - np.dot(b2, b1n) * b1n
    x = np.dot(v, w)
    y = np.dot(np.cross(b1n, v), w)
    return np.arctan2(y, x)


def torsion_energy(pos, k=(1.0, 0.5, 0.2)):
    phi = dihedral(pos)
    return sum(kn * (1.0 + np.cos((n + 1) * phi)) for n, kn in enumerate(k))


def triangle_area_normals(pts):
    total = 0.0
    for tri in ((0, 1, 2), (0, 2, 3)):
        a, b, c = (pts[t] for t in tri)
        n = np.cross(b - a, c - a)
        total += 0.5 * np.linalg.norm(n)
    return total


def polygon_perimeter(pts):
    closed = np.vstack([pts, pts[:1]])
    seg = np.diff(closed, axis=0)
    return np.sum(np.sqrt(np.sum(seg**2, axis=1)))


def shoelace_area(pts):
    x, y = pts[:, 0], pts[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def torque_sum(forces, arms):
    tau = np.zeros(3)
    for f, r in zip(forces, arms):
        tau = tau + np.cross(r, f)
    return np.dot(tau, tau)


def ideal_gas_mixture(x, T=300.0):
    x = np.clip(x, 1e-9, None)
    x = x / np.sum(x)
    return BOLTZMANN * T * np.sum(x * np.log(x))


def van_der_waals_pressure(V, n=1.0, T=300.0, a=0.1, b=0.01, R=0.0821):
    return n * R * T / (V - n * b) - a * n**2 / V**2


def damped_oscillator_energy(c, x0=1.0, v0=0.0, k=4.0, dt=0.02):
    x, v = x0, v0
    n = 0
    energies = []
    while n < 50:
        a = -k * x - c * v
        v += dt * a
        x += dt * v
        energies.append(0.5 * v * v + 0.5 * k * x * x)
        n += 1
    return energies[-1]


def radial_distribution_soft(pos, r0=1.0, width=0.3):
    n = len(pos)
    acc = 0.0
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            r = np.linalg.norm(pos[i] - pos[j])
            acc += math.exp(-((r - r0) / width) ** 2)
    return acc / n


def gravity_2body_orbit(v0):
    x, y = 1.0, 0.0
    vx, vy = 0.0, v0
    dt = 0.05
    for _ in range(20):
        r3 = (x * x + y * y) ** 1.5
        vx -= dt * x / r3
        vy -= dt * y / r3
        x += dt * vx
        y += dt * vy
    return x * x + y * y


def beam_deflection_float32(loads):
    n = loads.shape[0]
    x = np.linspace(0, 1, n).astype(np.float32)
    w = np.zeros_like(loads)
    for i in range(n):
        w = w + loads[i] * x**2 * (3 * x[i] - x) / 6
    return np.sum(w**2)


def coulomb_with_screening(q, pos, kappa=0.5):
    e = 0.0
    for i in range(len(q)):
        for j in range(i + 1, len(q)):
            r = np.linalg.norm(pos[i] - pos[j])
            e += q[i] * q[j] * np.exp(-kappa * r) / r
    return e


def rotation_matrix_z(theta):
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rotated_alignment(theta, pts):
    R = rotation_matrix_z(theta)
    target = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    return np.sum((pts @ R.T - target) ** 2)


def unit_vector_angles(v):
    u = v / np.linalg.norm(v, axis=1, keepdims=True)
    cosines = np.clip(u @ u.T, -1.0, 1.0)
    return np.sum(np.triu(cosines, 1) ** 2)


def near(r, *rows, scale=0.05):
    """The points `rows`, each coordinate moved by a little noise."""
    base = np.array(rows, dtype=float)
    return base + scale * r.standard_normal(base.shape)


SQUARE = ((0.0, 0), (1, 0), (1, 1), (0, 1))
CHAIN4 = ((1.0, 0, 0), (0, 0, 0), (0, 1, 0), (0.3, 1.2, 0.8))


PHYSICS = [
    ("lj_cluster_cutoff", lj_cluster_cutoff, lambda r: (near(r, (0, 0, 0), (1.1, 0, 0), (0, 1.2, 0), (0.1, 0.3, 1.15),
                                                                     scale=0.02),), 0),
    ("lj_vectorised", lj_vectorised, lambda r: (near(r, (0, 0), (1.1, 0), (0, 1.2), (1.0, 1.1), scale=0.02),), 0),
    ("morse_pairs_while", morse_pairs_while, lambda r: (near(r, (0, 0), (1.2, 0), (0.4, 1.0)),), 0),
    ("arrhenius_total", arrhenius_total, lambda r: (M(r, 3), 1000 * P(r, 3)), 0),
    ("arrhenius_total_Ea", arrhenius_total, lambda r: (M(r, 3), 1000 * P(r, 3)), 1),
    ("abc_kinetics_euler", abc_kinetics_euler, lambda r: (np.array([1.2, 0.6]),), 0),
    ("enzyme_rk2", enzyme_rk2, lambda r: (np.array([1.0, 0.5]),), 0),
    ("reversible_equilibrium", reversible_equilibrium, lambda r: (0.8, 0.3), 0),
    ("reversible_equilibrium_kr", reversible_equilibrium, lambda r: (0.8, 0.3), 1),
    ("heat_explicit_slices", heat_explicit_slices, lambda r: (M(r, 8),), 0),
    ("heat_source_term", heat_source_term, lambda r: (M(r, 6),), 0),
    ("heat_2d_stencil", heat_2d_stencil, lambda r: (M(r, 5, 5),), 0),
    ("spring_network", spring_network, lambda r: (near(r, (0, 0), (1, 0), (0.5, 0.9), (1.5, 1.2)),), 0),
    ("spring_chain_relax", spring_chain_relax, lambda r: (np.arange(5.0) * 1.1 + 0.1 * M(r, 5),), 0),
    ("angle_energy", angle_energy, lambda r: (near(r, (1, 0, 0), (0, 0, 0), (0.2, 1.0, 0.1)),), 0),
    ("dihedral", dihedral, lambda r: (near(r, *CHAIN4),), 0),
    ("torsion_energy", torsion_energy, lambda r: (near(r, *CHAIN4),), 0),
    ("triangle_area_normals", triangle_area_normals,
     lambda r: (near(r, (0, 0, 0), (1, 0, 0), (1, 1, 0.2), (0, 1, 0.1)),), 0),
    ("polygon_perimeter", polygon_perimeter, lambda r: (near(r, *SQUARE),), 0),
    ("shoelace_area", shoelace_area, lambda r: (near(r, *SQUARE),), 0),
    ("torque_sum", torque_sum, lambda r: (M(r, 3, 3), M(r, 3, 3)), 0),
    ("torque_sum_arms", torque_sum, lambda r: (M(r, 3, 3), M(r, 3, 3)), 1),
    ("ideal_gas_mixture", ideal_gas_mixture, lambda r: (P(r, 4),), 0),
    ("van_der_waals_pressure", van_der_waals_pressure, lambda r: (1.3,), 0),
    ("damped_oscillator_energy", damped_oscillator_energy, lambda r: (0.4,), 0),
    ("radial_distribution_soft", radial_distribution_soft, lambda r: (near(r, (0, 0), (1.0, 0.1), (0.2, 0.9)),), 0),
    ("gravity_2body_orbit", gravity_2body_orbit, lambda r: (1.1,), 0),
    ("beam_deflection_float32", beam_deflection_float32, lambda r: (F(r, 5),), 0),
    ("coulomb_with_screening", coulomb_with_screening, lambda r: (M(r, 3), np.eye(3) + 0.05 * M(r, 3, 3)), 0),
    ("coulomb_with_screening_pos", coulomb_with_screening, lambda r: (M(r, 3), np.eye(3) + 0.05 * M(r, 3, 3)), 1),
    ("rotated_alignment", rotated_alignment, lambda r: (0.3, np.eye(3) + 0.1 * M(r, 3, 3)), 0),
    ("unit_vector_angles", unit_vector_angles, lambda r: (M(r, 3, 3),), 0),
]
