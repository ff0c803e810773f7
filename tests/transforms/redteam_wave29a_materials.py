"""The red team's wave 29a, chemistry and materials: kinetics networks by stoichiometric matrices,
Arrhenius and Eyring fits, equilibrium by Newton steps, spring networks and the elastic energy of a
triangle mesh through index arrays, bending energies, Neo-Hookean strain energy, lattice sums
(test_redteam_wave29a.py runs them through every transformation)."""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave29a_robotics import M, P

STOICH = np.array([[-1.0, 0.0, 1.0], [1.0, -1.0, 0.0], [0.0, 1.0, -1.0], [0.0, 0.0, 0.0]])
TRIS = np.array([[0, 1, 2], [1, 3, 2], [2, 3, 4], [0, 2, 5]])
EDGES = np.array([[0, 1], [1, 2], [2, 0], [1, 3], [3, 2], [3, 4], [4, 2], [2, 5], [5, 0]])


def network_rates(c, k):
    """Mass-action rates of A -> B, B -> C, C -> A (plus an inert D)."""
    return np.array([k[0] * c[0], k[1] * c[1], k[2] * c[2]])


def kinetics_network(log_k, dt=0.05, steps=40):
    k = np.exp(log_k)
    c = np.array([1.0, 0.0, 0.0, 0.2])
    for _ in range(steps):
        c = c + dt * STOICH @ network_rates(c, k)
    return c[1] ** 2 + 0.5 * c[2]


def second_order_kinetics(k, c0=np.array([1.0, 0.8, 0.0])):  # noqa: B008
    """A + B -> C, C -> A + B; concentrations as a dict updated in place."""
    conc = {"A": c0[0], "B": c0[1], "C": c0[2]}
    for _ in range(30):
        fwd = k[0] * conc["A"] * conc["B"]
        rev = k[1] * conc["C"]
        net = 0.1 * (fwd - rev)
        conc["A"] -= net
        conc["B"] -= net
        conc["C"] += net
    return conc["C"] / (conc["A"] + conc["B"] + conc["C"])


def arrhenius_fit(params, T=np.array([300.0, 320.0, 340.0, 360.0, 380.0]),  # noqa: B008
                  k_obs=np.array([0.011, 0.042, 0.14, 0.41, 1.1])):  # noqa: B008
    lnA, Ea = params[0], params[1] * 1e4
    ln_k = lnA - Ea / (8.314 * T)
    return np.sum((ln_k - np.log(k_obs)) ** 2)


def eyring_fit(params, T=np.array([290.0, 310.0, 330.0, 350.0])):  # noqa: B008
    dH, dS = params[0] * 1e4, params[1]
    kB_h = 2.08e10
    k = kB_h * T * np.exp(dS / 8.314) * np.exp(-dH / (8.314 * T))
    return np.sum((np.log(k) - np.array([-2.0, -0.5, 0.8, 2.0])) ** 2)


def equilibrium_newton(K, total=1.0):
    """Solve x^2 / (total - x) = K for the extent x by a while loop to a tolerance."""
    x = 0.5 * total
    it = 0
    while True:
        f = x * x - K * (total - x)
        df = 2 * x + K
        step = f / df
        x = x - step
        it += 1
        if abs(step) < 1e-12 or it > 50:
            break
    return x


def equilibrium_objective(K):
    return equilibrium_newton(K) ** 2 + 0.1 * K


def ph_of_buffer(log_ka, ca=0.1, cb=0.05):
    ka = 10.0 ** log_ka
    h = 1e-5
    for _ in range(30):
        a_minus = ca * ka / (ka + h)
        f = h + cb - a_minus - 1e-14 / h
        df = 1.0 + ca * ka / (ka + h) ** 2 + 1e-14 / h**2
        h = h - f / df
    return -math.log10(h)


def spring_network_indices(pos, k=np.array([1.0, 1.2, 0.8, 1.0, 1.1, 0.9, 1.3, 0.7, 1.0]), rest=1.0):  # noqa: B008
    d = pos[EDGES[:, 0]] - pos[EDGES[:, 1]]
    length = np.sqrt(np.sum(d * d, axis=1))
    return 0.5 * np.sum(k * (length - rest) ** 2)


def spring_network_relaxed(pos0, steps=5, lr=0.05):
    pos = pos0.copy()
    for _ in range(steps):
        d = pos[EDGES[:, 0]] - pos[EDGES[:, 1]]
        length = np.linalg.norm(d, axis=1)
        f = ((length - 1.0) / length)[:, None] * d
        grad = np.zeros_like(pos)
        np.add.at(grad, EDGES[:, 0], f)
        np.add.at(grad, EDGES[:, 1], -f)
        pos = pos - lr * grad
    return spring_network_indices(pos)


def mesh_rest_shapes(rest_pos):
    """Inverse rest-shape matrices of every triangle (a list), for the linear elastic energy."""
    inv = []
    for t in TRIS:
        Dm = np.stack([rest_pos[t[1]] - rest_pos[t[0]], rest_pos[t[2]] - rest_pos[t[0]]], axis=1)
        inv.append((np.linalg.inv(Dm), 0.5 * abs(np.linalg.det(Dm))))
    return inv


REST = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, 0.8], [1.5, 0.7], [1.0, 1.5], [-0.4, 0.9]])


def st_venant_kirchhoff(pos, mu=1.0, lam=0.5):
    energy = 0.0
    for t, (Dm_inv, area) in zip(TRIS, mesh_rest_shapes(REST)):
        Ds = np.stack([pos[t[1]] - pos[t[0]], pos[t[2]] - pos[t[0]]], axis=1)
        Fd = Ds @ Dm_inv
        E = 0.5 * (Fd.T @ Fd - np.eye(2))
        energy += area * (mu * np.sum(E * E) + 0.5 * lam * np.trace(E) ** 2)
    return energy


def neo_hookean_vectorised(pos, mu=1.0, lam=2.0):
    """All triangles at once: edge matrices by fancy indexing, determinants by hand, einsum."""
    a, b, c = pos[TRIS[:, 0]], pos[TRIS[:, 1]], pos[TRIS[:, 2]]
    Ds = np.stack([b - a, c - a], axis=2)
    ra, rb, rc = REST[TRIS[:, 0]], REST[TRIS[:, 1]], REST[TRIS[:, 2]]
    Dm = np.stack([rb - ra, rc - ra], axis=2)
    det_m = Dm[:, 0, 0] * Dm[:, 1, 1] - Dm[:, 0, 1] * Dm[:, 1, 0]
    Dm_inv = np.stack([np.stack([Dm[:, 1, 1], -Dm[:, 0, 1]], 1), np.stack([-Dm[:, 1, 0], Dm[:, 0, 0]], 1)], 1)
    Dm_inv = Dm_inv / det_m[:, None, None]
    Fd = np.einsum("tij,tjk->tik", Ds, Dm_inv)
    J = Fd[:, 0, 0] * Fd[:, 1, 1] - Fd[:, 0, 1] * Fd[:, 1, 0]
    I1 = np.einsum("tij,tij->t", Fd, Fd)
    logJ = np.log(J)
    psi = 0.5 * mu * (I1 - 2.0) - mu * logJ + 0.5 * lam * logJ**2
    return np.sum(0.5 * np.abs(det_m) * psi)


def triangle_areas_energy(pos, target=0.4):
    e1 = pos[TRIS[:, 1]] - pos[TRIS[:, 0]]
    e2 = pos[TRIS[:, 2]] - pos[TRIS[:, 0]]
    area = 0.5 * (e1[:, 0] * e2[:, 1] - e1[:, 1] * e2[:, 0])
    return np.sum((area - target) ** 2)


def bending_energy_chain(pos, kb=0.5):
    """A discrete elastic rod: turning angles between consecutive segments."""
    seg = pos[1:] - pos[:-1]
    t = seg / np.linalg.norm(seg, axis=1, keepdims=True)
    cosang = np.sum(t[1:] * t[:-1], axis=1)
    sinang = t[:-1, 0] * t[1:, 1] - t[:-1, 1] * t[1:, 0]
    ang = np.arctan2(sinang, cosang)
    stretch = np.sum((np.linalg.norm(seg, axis=1) - 1.0) ** 2)
    return kb * np.sum(ang**2) + stretch


def lattice_lj_sum(a, n=2):
    """A cubic lattice's Lennard-Jones energy per atom by triple loops over images."""
    e = 0.0
    for i in range(-n, n + 1):
        for j in range(-n, n + 1):
            for k in range(-n, n + 1):
                if i == 0 and j == 0 and k == 0:
                    continue
                r2 = a * a * (i * i + j * j + k * k)
                inv6 = 1.0 / r2**3
                e += 2.0 * (inv6 * inv6 - inv6)
    return e


def buckingham_pairs(params, r=np.array([1.8, 2.1, 2.5, 3.0, 3.6])):  # noqa: B008
    A_, rho, C = params
    return np.sum(A_ * np.exp(-r / rho) - C / r**6)


def hooke_stress_strain(C_flat, strain=np.array([0.01, -0.005, 0.002])):  # noqa: B008
    """Voigt notation: a symmetric stiffness matrix from its upper triangle."""
    Cm = np.zeros((3, 3))
    iu = np.triu_indices(3)
    Cm[iu] = C_flat
    Cm = Cm + Cm.T - np.diag(np.diag(Cm))
    stress = Cm @ strain
    return 0.5 * strain @ stress + 0.01 * np.sum(stress**2)


def gibbs_mixing(x, T=300.0, omega=2000.0):
    """Regular-solution free energy of mixing over compositions (softmax of logits)."""
    z = np.exp(x - np.max(x))
    frac = z / np.sum(z)
    ideal = 8.314 * T * np.sum(frac * np.log(frac))
    excess = omega * (frac[0] * frac[1] + frac[1] * frac[2] + 0.5 * frac[0] * frac[2])
    return (ideal + excess) / 1000.0


def debye_heat_capacity(theta_D, T=np.array([20.0, 50.0, 100.0, 200.0])):  # noqa: B008
    """The Debye integral by the trapezoidal rule (np.trapezoid of a written integrand)."""
    out = []
    for Ti in T:
        xD = theta_D / Ti
        x = np.linspace(1e-6, xD, 60)
        integrand = x**4 * np.exp(x) / (np.expm1(x)) ** 2
        out.append(9.0 * (Ti / theta_D) ** 3 * np.sum(0.5 * (integrand[1:] + integrand[:-1]) * np.diff(x)))
    return np.sum(np.array(out))


def crystal_plasticity_hardening(h, steps=20):
    """Voce hardening integrated by Euler steps with a yield check."""
    tau, gamma_dot = 1.0, 0.1
    stress = 0.0
    for _ in range(steps):
        trial = stress + 2.0 * 0.05
        if trial > tau:
            stress = tau
            tau = tau + h[0] * (1.0 - tau / h[1]) * gamma_dot
        else:
            stress = trial
    return tau + 0.1 * stress


def mesh_laplacian_smoothing(vals, w=0.3):
    L = np.zeros((6, 6))
    for i, j in EDGES:
        L[i, j] -= 1.0
        L[j, i] -= 1.0
        L[i, i] += 1.0
        L[j, j] += 1.0
    smooth = np.linalg.solve(np.eye(6) + w * L, vals)
    return smooth @ L @ smooth + np.sum((smooth - vals) ** 2)


def float32_springs(pos):
    d = pos[EDGES[:, 0]] - pos[EDGES[:, 1]]
    length = np.sqrt(np.sum(d * d, axis=1))
    return np.float32(0.5) * np.sum((length - np.float32(1.0)) ** 2)


def near_mesh(r, scale=0.05):
    return (REST + scale * M(r, 6, 2),)


MATERIALS = [
    ("ma_kinetics_network", kinetics_network, lambda r: (0.2 * M(r, 3),), 0),
    ("ma_second_order_kinetics", second_order_kinetics, lambda r: (np.array([1.5, 0.4]),), 0),
    ("ma_arrhenius_fit", arrhenius_fit, lambda r: (np.array([20.0, 6.0]),), 0),
    ("ma_eyring_fit", eyring_fit, lambda r: (np.array([8.0, -30.0]),), 0),
    ("ma_equilibrium_objective", equilibrium_objective, lambda r: (0.7,), 0),
    ("ma_ph_of_buffer", ph_of_buffer, lambda r: (-4.7,), 0),
    ("ma_spring_network_indices", spring_network_indices, near_mesh, 0),
    ("ma_spring_network_relaxed", spring_network_relaxed, near_mesh, 0),
    ("ma_st_venant_kirchhoff", st_venant_kirchhoff, lambda r: near_mesh(r, 0.1), 0),
    ("ma_neo_hookean_vectorised", neo_hookean_vectorised, lambda r: near_mesh(r, 0.05), 0),
    ("ma_triangle_areas_energy", triangle_areas_energy, near_mesh, 0),
    ("ma_bending_energy_chain", bending_energy_chain, lambda r: (np.stack([np.arange(5.0), 0.2 * M(r, 5)], 1),), 0),
    ("ma_lattice_lj_sum", lattice_lj_sum, lambda r: (1.12,), 0),
    ("ma_buckingham_pairs", buckingham_pairs, lambda r: (np.array([1000.0, 0.3, 20.0]),), 0),
    ("ma_hooke_stress_strain", hooke_stress_strain, lambda r: (P(r, 6) * 100.0,), 0),
    ("ma_gibbs_mixing", gibbs_mixing, lambda r: (M(r, 3),), 0),
    ("ma_debye_heat_capacity", debye_heat_capacity, lambda r: (300.0,), 0),
    ("ma_crystal_plasticity_hardening", crystal_plasticity_hardening, lambda r: (np.array([0.5, 2.0]),), 0),
    ("ma_mesh_laplacian_smoothing", mesh_laplacian_smoothing, lambda r: (M(r, 6),), 0),
    ("ma_float32_springs", float32_springs, lambda r: ((REST + 0.05 * M(r, 6, 2)).astype(np.float32),), 0),
]
