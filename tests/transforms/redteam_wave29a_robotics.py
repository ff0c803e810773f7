"""The red team's wave 29a, robotics: planar arm forward kinematics as chains of angles, inverse
kinematics losses, rotation matrices and quaternions composed, Denavit-Hartenberg transforms,
Jacobian-transpose steps, written the way a roboticist writes them (test_redteam_wave29a.py runs
them through every transformation)."""

from __future__ import annotations

import math

import numpy as np


def M(r, *shape):
    """Standard normal float64 numbers."""
    return r.standard_normal(shape)


def P(r, *shape):
    """Positive float64 numbers in [0.5, 1.5)."""
    return r.uniform(0.5, 1.5, shape)


def F(r, *shape):
    """Standard normal float32 numbers."""
    return r.standard_normal(shape).astype(np.float32)


LINKS = np.array([1.0, 0.8, 0.5])
TARGET = np.array([1.2, 0.9])


def planar_fk(q, lengths=LINKS):
    """End-effector position of a planar arm: angles accumulate down the chain."""
    x, y, phi = 0.0, 0.0, 0.0
    for i in range(len(q)):
        phi = phi + q[i]
        x = x + lengths[i] * math.cos(phi)
        y = y + lengths[i] * math.sin(phi)
    return x, y


def ik_loss(q):
    x, y = planar_fk(q)
    return (x - TARGET[0]) ** 2 + (y - TARGET[1]) ** 2


def planar_fk_cumsum(q, lengths=LINKS):
    phi = np.cumsum(q)
    return np.array([np.sum(lengths * np.cos(phi)), np.sum(lengths * np.sin(phi))])


def ik_loss_vectorised(q):
    err = planar_fk_cumsum(q) - TARGET
    return err @ err + 0.01 * np.sum(q**2)


def joint_positions(q, lengths=LINKS):
    """Every joint's position (a list of arrays), the base first."""
    pts = [np.zeros(2)]
    phi = 0.0
    for qi, li in zip(q, lengths):
        phi += qi
        pts.append(pts[-1] + li * np.array([np.cos(phi), np.sin(phi)]))
    return pts


def obstacle_clearance(q, centre=np.array([0.5, 0.5]), radius=0.3):  # noqa: B008
    pts = joint_positions(q)
    cost = 0.0
    for p in pts[1:]:
        d2 = np.sum((p - centre) ** 2)
        cost = cost + np.exp(-d2 / radius**2)
    return cost + ik_loss(q)


def homogeneous(theta, length):
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s, length * c], [s, c, length * s], [0.0, 0.0, 1.0]])


def chain_of_transforms(q):
    T = np.eye(3)
    for i in range(3):
        T = T @ homogeneous(q[i], LINKS[i])
    tip = T[:2, 2]
    return np.sum((tip - TARGET) ** 2)


def dh_transform(theta, d, a, alpha):
    ct, st = math.cos(theta), math.sin(theta)
    ca, sa = math.cos(alpha), math.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct],
                     [st, ct * ca, -ct * sa, a * st],
                     [0.0, sa, ca, d],
                     [0.0, 0.0, 0.0, 1.0]])


DH = [(0.3, 0.0, math.pi / 2), (0.0, 0.7, 0.0), (0.0, 0.5, 0.0)]


def dh_reach(q):
    T = np.eye(4)
    for qi, (d, a, alpha) in zip(q, DH):
        T = T @ dh_transform(qi, d, a, alpha)
    p = T[:3, 3]
    return np.linalg.norm(p - np.array([0.4, 0.3, 0.8]))


def rot_x(a):
    return np.array([[1.0, 0.0, 0.0], [0.0, np.cos(a), -np.sin(a)], [0.0, np.sin(a), np.cos(a)]])


def rot_y(a):
    return np.array([[np.cos(a), 0.0, np.sin(a)], [0.0, 1.0, 0.0], [-np.sin(a), 0.0, np.cos(a)]])


def rot_z(a):
    return np.array([[np.cos(a), -np.sin(a), 0.0], [np.sin(a), np.cos(a), 0.0], [0.0, 0.0, 1.0]])


def euler_zyx_alignment(angles):
    R = rot_z(angles[0]) @ rot_y(angles[1]) @ rot_x(angles[2])
    R_target = rot_z(0.3) @ rot_y(-0.2)
    return 3.0 - np.trace(R_target.T @ R)


def quat_mul(p, q):
    w1, x1, y1, z1 = p
    w2, x2, y2, z2 = q
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def quat_conj(q):
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def quat_rotate_vector(q, v=np.array([1.0, 0.5, -0.3])):  # noqa: B008
    q = q / np.linalg.norm(q)
    qv = np.concatenate([[0.0], v])
    r = quat_mul(quat_mul(q, qv), quat_conj(q))
    return np.sum((r[1:] - np.array([0.2, 1.0, 0.4])) ** 2)


def quat_to_matrix(q):
    w, x, y, z = q / np.sqrt(np.sum(q * q))
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def quat_matrix_fit(q, pts):
    R = quat_to_matrix(q)
    moved = pts @ R.T
    return np.mean((moved - pts[:, ::-1]) ** 2)


def quat_chain_angle(qs):
    """Compose a list of unit quaternions (rows) and return the rotation angle of the product."""
    acc = np.array([1.0, 0.0, 0.0, 0.0])
    for k in range(qs.shape[0]):
        qk = qs[k] / np.linalg.norm(qs[k])
        acc = quat_mul(acc, qk)
    return 2.0 * np.arccos(np.clip(abs(acc[0]), -1.0, 1.0))


def axis_angle_rodrigues(w):
    theta = np.linalg.norm(w)
    k = w / theta
    K = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    R = np.eye(3) + math.sin(theta) * K + (1.0 - math.cos(theta)) * (K @ K)
    return np.sum(R * np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [1.0, 0.0, 1.0]]))


def rotation_geodesic(w):
    R = np.eye(3)
    theta = np.sqrt(w @ w)
    K = np.zeros((3, 3))
    K[0, 1], K[0, 2], K[1, 2] = -w[2], w[1], -w[0]
    K = K - K.T
    R = R + np.sin(theta) / theta * K + (1 - np.cos(theta)) / theta**2 * K @ K
    c = (np.trace(R @ rot_z(0.4).T) - 1.0) / 2.0
    return np.arccos(np.clip(c, -1.0, 1.0)) ** 2


def jacobian_transpose_steps(q0, steps=4, alpha=0.2):
    q = q0.copy()
    for _ in range(steps):
        phi = np.cumsum(q)
        pos = np.array([np.sum(LINKS * np.cos(phi)), np.sum(LINKS * np.sin(phi))])
        err = TARGET - pos
        J = np.zeros((2, 3))
        for i in range(3):
            J[0, i] = -np.sum(LINKS[i:] * np.sin(phi[i:]))
            J[1, i] = np.sum(LINKS[i:] * np.cos(phi[i:]))
        q = q + alpha * J.T @ err
    phi = np.cumsum(q)
    pos = np.array([np.sum(LINKS * np.cos(phi)), np.sum(LINKS * np.sin(phi))])
    return np.sum((pos - TARGET) ** 2)


def damped_least_squares_step(q, lam=0.1):
    phi = np.cumsum(q)
    J = np.stack([-np.cumsum((LINKS * np.sin(phi))[::-1])[::-1], np.cumsum((LINKS * np.cos(phi))[::-1])[::-1]])
    err = TARGET - np.array([LINKS @ np.cos(phi), LINKS @ np.sin(phi)])
    dq = J.T @ np.linalg.solve(J @ J.T + lam**2 * np.eye(2), err)
    q_new = q + dq
    phi = np.cumsum(q_new)
    return np.sum((np.array([LINKS @ np.cos(phi), LINKS @ np.sin(phi)]) - TARGET) ** 2)


def manipulability(q):
    phi = np.cumsum(q[:2])
    l1, l2 = 1.0, 0.8
    J = np.array([[-l1 * np.sin(phi[0]) - l2 * np.sin(phi[1]), -l2 * np.sin(phi[1])],
                  [l1 * np.cos(phi[0]) + l2 * np.cos(phi[1]), l2 * np.cos(phi[1])]])
    return -np.log(abs(np.linalg.det(J)) + 1e-9)


def two_link_ik_analytic(target):
    """Closed-form inverse kinematics, then the elbow's distance from a preferred angle."""
    x, y = target[0], target[1]
    l1, l2 = 1.0, 0.8
    c2 = (x * x + y * y - l1 * l1 - l2 * l2) / (2 * l1 * l2)
    q2 = math.acos(max(-1.0, min(1.0, c2)))
    q1 = math.atan2(y, x) - math.atan2(l2 * math.sin(q2), l1 + l2 * math.cos(q2))
    return (q1 - 0.2) ** 2 + (q2 - 1.0) ** 2


def trajectory_smoothness(qs, dt=0.1):
    """qs: waypoints x joints; squared jerk by third differences, and a start pose."""
    vel = (qs[1:] - qs[:-1]) / dt
    acc = (vel[1:] - vel[:-1]) / dt
    jerk = (acc[1:] - acc[:-1]) / dt
    return np.sum(jerk**2) * dt + 10.0 * np.sum(qs[0] ** 2)


def cubic_spline_joint(coeffs, ts=np.linspace(0.0, 1.0, 7)):  # noqa: B008
    a0, a1, a2, a3 = coeffs
    q = a0 + a1 * ts + a2 * ts**2 + a3 * ts**3
    dq = a1 + 2 * a2 * ts + 3 * a3 * ts**2
    return np.sum((q - np.sin(ts)) ** 2) + 0.1 * np.sum(dq[::2] ** 2)


def diff_drive_odometry(u, dt=0.1):
    """Unicycle model: u is steps x (v, omega); the final pose's distance from a goal."""
    x, y, th = 0.0, 0.0, 0.0
    for k in range(u.shape[0]):
        v, w = u[k, 0], u[k, 1]
        x += v * np.cos(th) * dt
        y += v * np.sin(th) * dt
        th += w * dt
    return (x - 0.5) ** 2 + (y - 0.2) ** 2 + 0.1 * (th - 0.3) ** 2


def bicycle_model(steer, v=1.0, L=0.5, dt=0.1):
    state = {"x": 0.0, "y": 0.0, "yaw": 0.0}
    path = []
    for d in steer:
        state["x"] += v * math.cos(state["yaw"]) * dt
        state["y"] += v * math.sin(state["yaw"]) * dt
        state["yaw"] += v / L * math.tan(d) * dt
        path.append((state["x"], state["y"]))
    ref = [(0.1 * (k + 1), 0.02 * (k + 1) ** 2) for k in range(len(path))]
    return sum((px - rx) ** 2 + (py - ry) ** 2 for (px, py), (rx, ry) in zip(path, ref))


def gravity_torques(q, m=(1.0, 0.7), g=9.81):
    l1, l2 = 1.0, 0.8
    tau2 = m[1] * g * 0.5 * l2 * np.cos(q[0] + q[1])
    tau1 = (m[0] * 0.5 * l1 + m[1] * l1) * g * np.cos(q[0]) + tau2
    return tau1**2 + tau2**2


def mass_matrix_energy(qd, q=np.array([0.3, -0.5])):  # noqa: B008
    l1, l2, m1, m2 = 1.0, 0.8, 1.0, 0.7
    c2 = np.cos(q[1])
    M11 = m1 * l1**2 / 3 + m2 * (l1**2 + l2**2 / 3 + l1 * l2 * c2)
    M12 = m2 * (l2**2 / 3 + l1 * l2 * c2 / 2)
    M22 = m2 * l2**2 / 3
    Mq = np.array([[M11, M12], [M12, M22]])
    return 0.5 * qd @ Mq @ qd


def pose_graph_2d(poses):
    """poses: n x 3 (x, y, theta); relative-pose residuals of a chain and one loop closure."""
    meas = [(0, 1, np.array([1.0, 0.0, 0.5])), (1, 2, np.array([1.0, 0.1, 0.5])),
            (2, 0, np.array([-1.2, -1.0, -1.0]))]
    total = poses[0] @ poses[0]
    for i, j, z in meas:
        c, s = np.cos(poses[i, 2]), np.sin(poses[i, 2])
        d = poses[j, :2] - poses[i, :2]
        local = np.array([c * d[0] + s * d[1], -s * d[0] + c * d[1], poses[j, 2] - poses[i, 2]])
        r = local - z
        total = total + r @ r
    return total


def near_arm(r):
    return (np.array([0.4, 0.6, -0.3]) + 0.05 * M(r, 3),)


ROBOTICS = [
    ("rb_ik_loss", ik_loss, near_arm, 0),
    ("rb_ik_loss_vectorised", ik_loss_vectorised, near_arm, 0),
    ("rb_obstacle_clearance", obstacle_clearance, near_arm, 0),
    ("rb_chain_of_transforms", chain_of_transforms, near_arm, 0),
    ("rb_dh_reach", dh_reach, near_arm, 0),
    ("rb_euler_zyx_alignment", euler_zyx_alignment, lambda r: (0.1 * M(r, 3),), 0),
    ("rb_quat_rotate_vector", quat_rotate_vector, lambda r: (np.array([0.9, 0.1, 0.3, -0.2]) + 0.05 * M(r, 4),), 0),
    ("rb_quat_matrix_fit", quat_matrix_fit, lambda r: (np.array([0.9, 0.1, 0.3, -0.2]) + 0.05 * M(r, 4),
                                                       M(r, 5, 3)), 0),
    ("rb_quat_matrix_fit_pts", quat_matrix_fit, lambda r: (np.array([0.9, 0.1, 0.3, -0.2]), M(r, 5, 3)), 1),
    ("rb_quat_chain_angle", quat_chain_angle, lambda r: (np.array([[0.9, 0.1, 0.2, 0.0], [0.8, -0.3, 0.1, 0.2],
                                                                   [0.95, 0.0, 0.1, -0.1]]) + 0.02 * M(r, 3, 4),), 0),
    ("rb_axis_angle_rodrigues", axis_angle_rodrigues, lambda r: (np.array([0.3, -0.5, 0.4]) + 0.05 * M(r, 3),), 0),
    ("rb_rotation_geodesic", rotation_geodesic, lambda r: (np.array([0.1, -0.2, 0.6]) + 0.05 * M(r, 3),), 0),
    ("rb_jacobian_transpose_steps", jacobian_transpose_steps, near_arm, 0),
    ("rb_damped_least_squares_step", damped_least_squares_step, near_arm, 0),
    ("rb_manipulability", manipulability, lambda r: (np.array([0.3, 0.9]) + 0.05 * M(r, 2),), 0),
    ("rb_two_link_ik_analytic", two_link_ik_analytic, lambda r: (np.array([1.1, 0.6]) + 0.05 * M(r, 2),), 0),
    ("rb_trajectory_smoothness", trajectory_smoothness, lambda r: (M(r, 6, 2),), 0),
    ("rb_cubic_spline_joint", cubic_spline_joint, lambda r: (M(r, 4),), 0),
    ("rb_diff_drive_odometry", diff_drive_odometry, lambda r: (P(r, 6, 2),), 0),
    ("rb_bicycle_model", bicycle_model, lambda r: (0.1 * M(r, 5),), 0),
    ("rb_gravity_torques", gravity_torques, lambda r: (M(r, 2),), 0),
    ("rb_mass_matrix_energy", mass_matrix_energy, lambda r: (M(r, 2),), 0),
    ("rb_mass_matrix_energy_q", mass_matrix_energy, lambda r: (M(r, 2), M(r, 2)), 1),
    ("rb_pose_graph_2d", pose_graph_2d, lambda r: (np.array([[0.0, 0.0, 0.0], [1.0, 0.0, 0.5], [1.4, 0.9, 1.0]])
                                                   + 0.05 * M(r, 3, 3),), 0),
    ("rb_ik_float32", ik_loss_vectorised, lambda r: (np.array([0.4, 0.6, -0.3], dtype=np.float32)
                                                     + F(r, 3) * 0.05,), 0),
]
