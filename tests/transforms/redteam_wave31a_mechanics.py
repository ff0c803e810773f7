"""The red team's wave 31a: robotics (planar and SCARA arms by cumulative angles, homogeneous
transforms built by ``np.array`` of computed entries in a loop over a DH table of tuples,
manipulability, inverse kinematics with joint-limit penalties, Euler angles and the geodesic
angle, differential-drive odometry), one-dimensional finite elements (bars assembled by slices and
by ``np.ix_``, Euler-Bernoulli beams, trusses assembled by degrees of freedom, Gauss quadrature)
and energies of pairwise distances (broadcast differences with np.triu_indices, Coulomb with a
softened diagonal, bond angles by arccos, n-body loops with ``continue``, rings by np.roll,
springs keyed by pairs, a rigid body's inertia tensor)."""

from __future__ import annotations

import math

import numpy as np

LINKS = np.array([1.0, 0.8, 0.5])
TARGET = np.array([1.2, 1.1])
DH = ((0.0, 0.4, math.pi / 2), (0.6, 0.0, 0.0), (0.5, 0.0, 0.0))
Q_MIN = np.array([-2.0, -2.5, -2.5])
Q_MAX = np.array([2.0, 2.5, 2.5])


def planar_fk(q, lengths=LINKS, target=TARGET):
    phi = np.cumsum(q)
    x = np.sum(lengths * np.cos(phi))
    y = np.sum(lengths * np.sin(phi))
    return (x - target[0]) ** 2 + (y - target[1]) ** 2


def scara(q, target=np.array([0.6, 0.5, 0.2])):  # noqa: B008
    t1, t2, d3 = q
    x = 0.5 * np.cos(t1) + 0.4 * np.cos(t1 + t2)
    y = 0.5 * np.sin(t1) + 0.4 * np.sin(t1 + t2)
    z = 0.8 - d3
    p = np.array([x, y, z])
    return np.sum((p - target) ** 2)


def _dh(theta, a, d, alpha):
    ct, st = np.cos(theta), np.sin(theta)
    ca, sa = math.cos(alpha), math.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct],
                     [st, ct * ca, -ct * sa, a * st],
                     [0.0, sa, ca, d],
                     [0.0, 0.0, 0.0, 1.0]])


def dh_chain(q, table=DH, goal=np.array([0.5, 0.4, 0.9])):  # noqa: B008
    t = np.eye(4)
    for i, (a, d, alpha) in enumerate(table):
        t = t @ _dh(q[i], a, d, alpha)
    return np.sum((t[:3, 3] - goal) ** 2)


def manipulability(q, l1=1.0, l2=0.7):
    j = np.array([[-l1 * np.sin(q[0]) - l2 * np.sin(q[0] + q[1]), -l2 * np.sin(q[0] + q[1])],
                  [l1 * np.cos(q[0]) + l2 * np.cos(q[0] + q[1]), l2 * np.cos(q[0] + q[1])]])
    return -np.log(np.linalg.det(j @ j.T))


def ik_joint_limits(q, lengths=LINKS, target=TARGET, q_min=Q_MIN, q_max=Q_MAX, weight=100.0):
    err = planar_fk(q, lengths, target)
    over = np.maximum(q - q_max, 0.0)
    under = np.maximum(q_min - q, 0.0)
    return err + weight * np.sum(over ** 2 + under ** 2) + 1e-3 * q @ q


def _rot_zyx(yaw, pitch, roll):
    cz, sz = np.cos(yaw), np.sin(yaw)
    cy, sy = np.cos(pitch), np.sin(pitch)
    cx, sx = np.cos(roll), np.sin(roll)
    rz = np.array([[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]])
    ry = np.array([[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]])
    rx = np.array([[1.0, 0.0, 0.0], [0.0, cx, -sx], [0.0, sx, cx]])
    return rz @ ry @ rx


def geodesic_angle(angles, target=np.array([0.3, -0.2, 0.9])):  # noqa: B008
    r = _rot_zyx(*angles)
    r_target = _rot_zyx(target[0], target[1], target[2])
    cos_angle = (np.trace(r_target.T @ r) - 1.0) / 2.0
    return np.arccos(cos_angle) ** 2


def quaternion_rotate(q, v=np.array([1.0, 0.5, -0.3]), target=np.array([0.2, 1.1, 0.1])):  # noqa: B008
    w, x, y, z = q / np.linalg.norm(q)
    r = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                  [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                  [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    return np.sum((r @ v - target) ** 2)


def diff_drive_odometry(wheels, dt=0.1, base=0.3, goal=(1.0, 0.4)):
    x = y = th = 0.0
    for k in range(len(wheels) // 2):
        vl, vr = wheels[2 * k], wheels[2 * k + 1]
        v = 0.5 * (vl + vr)
        om = (vr - vl) / base
        x += v * math.cos(th) * dt
        y += v * math.sin(th) * dt
        th += om * dt
    return (x - goal[0]) ** 2 + (y - goal[1]) ** 2 + 0.1 * th ** 2


# ---- finite elements ----

def bar_assembly(log_ea, load=1.0, length=1.0):
    n = len(log_ea)
    h = length / n
    k = np.zeros((n + 1, n + 1))
    for e in range(n):
        k[e:e + 2, e:e + 2] += np.exp(log_ea[e]) / h * np.array([[1.0, -1.0], [-1.0, 1.0]])
    f = np.full(n + 1, load * h)
    f[0] *= 0.5
    f[-1] *= 0.5
    u = np.zeros(n + 1)
    u[1:] = np.linalg.solve(k[1:, 1:], f[1:])
    return f @ u  # compliance


def poisson_ix(kappa, n=4):
    h = 1.0 / n
    k = np.zeros((n + 1, n + 1))
    f = np.zeros(n + 1)
    for e in range(n):
        idx = np.array([e, e + 1])
        k[np.ix_(idx, idx)] += kappa[e] / h * np.array([[1.0, -1.0], [-1.0, 1.0]])
        f[idx] += 0.5 * h
    free = slice(1, n)
    u = np.linalg.solve(k[free, free], f[free])
    return np.sum(u ** 2)


def beam_element(ei, h):
    return ei / h ** 3 * np.array([[12.0, 6 * h, -12.0, 6 * h],
                                   [6 * h, 4 * h * h, -6 * h, 2 * h * h],
                                   [-12.0, -6 * h, 12.0, -6 * h],
                                   [6 * h, 2 * h * h, -6 * h, 4 * h * h]])


def cantilever_beam(ei, tip_load=1.0, length=2.0):
    n = ei.shape[0]
    h = length / n
    ndof = 2 * (n + 1)
    k = np.zeros((ndof, ndof))
    for e in range(n):
        k[2 * e:2 * e + 4, 2 * e:2 * e + 4] += beam_element(ei[e], h)
    f = np.zeros(ndof)
    f[-2] = tip_load
    u = np.linalg.solve(k[2:, 2:], f[2:])
    return u[-2]


NODES = np.array([[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [0.5, 0.8], [1.5, 0.8]])
ELEMS = [(0, 1), (1, 2), (0, 3), (1, 3), (1, 4), (2, 4), (3, 4)]


def truss(areas, nodes=NODES, elems=ELEMS, e_mod=100.0):
    ndof = 2 * len(nodes)
    k = np.zeros((ndof, ndof))
    for el, (i, j) in enumerate(elems):
        dx = nodes[j, 0] - nodes[i, 0]
        dy = nodes[j, 1] - nodes[i, 1]
        length = math.sqrt(dx * dx + dy * dy)
        c, s = dx / length, dy / length
        ke = e_mod * areas[el] / length * np.array([[c * c, c * s, -c * c, -c * s],
                                                    [c * s, s * s, -c * s, -s * s],
                                                    [-c * c, -c * s, c * c, c * s],
                                                    [-c * s, -s * s, c * s, s * s]])
        dofs = [2 * i, 2 * i + 1, 2 * j, 2 * j + 1]
        for a in range(4):
            for b in range(4):
                k[dofs[a], dofs[b]] += ke[a, b]
    free = [2, 3, 6, 7, 8, 9]
    f = np.array([0.0, -1.0, 0.0, 0.0, 0.0, 0.0])
    u = np.linalg.solve(k[np.ix_(free, free)], f)
    return f @ u + 0.1 * np.sum(areas)


def truss_nodes(free_nodes, areas=np.array([1.0, 1.0, 1.0, 0.5, 0.5, 1.0, 0.8])):  # noqa: B008
    nodes = np.vstack([NODES[:3], free_nodes.reshape(2, 2)])
    return truss(areas, nodes)


GAUSS = ((-1 / math.sqrt(3), 1.0), (1 / math.sqrt(3), 1.0))


def nonlinear_bar_energy(u, n=5, load=0.3):
    h = 1.0 / n
    energy = 0.0
    full = np.concatenate([[0.0], u])
    for e in range(n):
        for xi, wq in GAUSS:
            strain = (full[e + 1] - full[e]) / h
            disp = 0.5 * (1 - xi) * full[e] + 0.5 * (1 + xi) * full[e + 1]
            energy += wq * 0.5 * h * (0.5 * strain ** 2 + 0.25 * strain ** 4 - load * disp)
    return energy


# ---- pairwise energies ----

def lj_broadcast(x, eps=1.0, sigma=1.0):
    pts = x.reshape(-1, 3)
    diff = pts[:, None, :] - pts[None, :, :]
    r2 = np.sum(diff ** 2, axis=-1)
    iu = np.triu_indices(pts.shape[0], k=1)
    inv6 = (sigma ** 2 / r2[iu]) ** 3
    return np.sum(4 * eps * (inv6 ** 2 - inv6))


def coulomb_softened(x, q=np.array([1.0, -1.0, 1.0, -0.5]), soft=0.05):  # noqa: B008
    pts = x.reshape(4, 2)
    n = len(q)
    r = np.sqrt(np.sum((pts[:, None] - pts[None]) ** 2, axis=2) + soft ** 2 + np.eye(n))
    pair = np.outer(q, q) / r
    mask = 1.0 - np.eye(n)
    return 0.5 * np.sum(pair * mask)


def bond_angles(x, triples=((0, 1, 2), (1, 2, 3)), theta0=1.9, k=5.0):
    pts = x.reshape(4, 3)
    energy = 0.0
    for i, j, m in triples:
        a = pts[i] - pts[j]
        b = pts[m] - pts[j]
        cos_t = a @ b / (np.linalg.norm(a) * np.linalg.norm(b))
        energy = energy + k * (np.arccos(cos_t) - theta0) ** 2
    return energy


def nbody_loops(x, masses=np.array([1.0, 2.0, 0.5, 1.5]), soft=0.1):  # noqa: B008
    pts = x.reshape(-1, 2)
    u = 0.0
    for i in range(len(masses)):
        for j in range(len(masses)):
            if i == j:
                continue
            d = pts[i] - pts[j]
            u -= 0.5 * masses[i] * masses[j] / math.sqrt(d[0] ** 2 + d[1] ** 2 + soft ** 2)
    return u


def ring_chain(x, k=2.0, rest=1.0):
    pts = x.reshape(-1, 2)
    d = np.roll(pts, -1, axis=0) - pts
    length = np.linalg.norm(d, axis=1)
    return 0.5 * k * np.sum((length - rest) ** 2)


SPRINGS = {(0, 1): 1.0, (1, 2): 1.2, (0, 2): 1.5, (2, 3): 0.9}


def spring_dict(x, springs=SPRINGS, k=3.0):
    pts = x.reshape(4, 2)
    e = 0.0
    for (i, j), rest in springs.items():
        e += 0.5 * k * (np.linalg.norm(pts[i] - pts[j]) - rest) ** 2
    return e


def rigid_body_energy(params, masses=np.array([1.0, 2.0, 1.5]),  # noqa: B008
                      body=np.array([[0.5, 0.0, 0.1], [-0.3, 0.4, 0.0], [0.0, -0.2, 0.6]])):  # noqa: B008
    omega, shift = params[:3], params[3:]
    r = body - shift
    inertia = np.zeros((3, 3))
    for m, p in zip(masses, r):
        inertia += m * (np.dot(p, p) * np.eye(3) - np.outer(p, p))
    return 0.5 * omega @ inertia @ omega


def _vec(*values):
    return lambda rng: (np.array(values, dtype=float),)


MECHANICS = [
    ("rob_planar_fk", planar_fk, _vec(0.4, 0.5, -0.3), 0),
    ("rob_scara", scara, _vec(0.3, 0.9, 0.5), 0),
    ("rob_dh_chain", dh_chain, _vec(0.2, 0.7, -0.4), 0),
    ("rob_manipulability", manipulability, _vec(0.3, 1.1), 0),
    ("rob_ik_joint_limits", ik_joint_limits, _vec(1.5, 2.8, -0.4), 0),
    ("rob_geodesic_angle", geodesic_angle, _vec(0.1, 0.2, 0.5), 0),
    ("rob_quaternion_rotate", quaternion_rotate, _vec(0.9, 0.1, 0.3, -0.2), 0),
    ("rob_diff_drive", diff_drive_odometry, _vec(1.0, 1.2, 1.1, 1.4, 1.3, 1.0, 0.9, 1.1), 0),
    ("fem_bar_assembly", bar_assembly, _vec(0.1, -0.2, 0.3, 0.0), 0),
    ("fem_poisson_ix", poisson_ix, _vec(1.0, 1.5, 0.7, 1.2), 0),
    ("fem_cantilever_beam", cantilever_beam, _vec(2.0, 1.5, 1.2), 0),
    ("fem_truss_areas", truss, _vec(1.0, 1.2, 0.8, 0.5, 0.6, 1.1, 0.9), 0),
    ("fem_truss_nodes", truss_nodes, _vec(0.5, 0.8, 1.5, 0.9), 0),
    ("fem_nonlinear_bar", nonlinear_bar_energy, _vec(0.1, 0.15, 0.2, 0.22, 0.25), 0),
    ("phys_lj_broadcast", lj_broadcast, _vec(0, 0, 0, 1.1, 0.1, 0, 0.2, 1.2, 0.1, 0.9, 1.0, 0.8), 0),
    ("phys_coulomb_softened", coulomb_softened, _vec(0, 0, 1.0, 0.2, 0.3, 1.1, 1.2, 1.0), 0),
    ("phys_bond_angles", bond_angles, _vec(0, 0, 0, 1.0, 0, 0, 1.3, 0.9, 0, 2.2, 1.1, 0.4), 0),
    ("phys_nbody_loops", nbody_loops, _vec(0, 0, 1.0, 0.2, 0.3, 1.1, 1.2, 1.0), 0),
    ("phys_ring_chain", ring_chain, _vec(0, 0, 1.1, 0.1, 1.2, 1.0, 0.1, 0.9), 0),
    ("phys_spring_dict", spring_dict, _vec(0, 0, 1.1, 0.1, 1.2, 1.0, 0.1, 0.9), 0),
    ("phys_rigid_body", rigid_body_energy, _vec(0.3, -0.5, 1.2, 0.1, 0.05, -0.1), 0),
]
