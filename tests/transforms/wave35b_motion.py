"""Wave 35b: robotics and control, written the way their users write them: a planar arm's forward
kinematics by np.cumsum and by an angle accumulated in a loop with math.cos, a Denavit-Hartenberg chain
of 4x4 matrices from a list of rows, a quaternion class with methods, slerp by arccos of a clipped dot,
Rodrigues by np.cross, differential-drive odometry carried as a tuple, an LQR cost by a while loop with
a counter, an MPC rollout with clipped inputs and an early return, a PID loop with saturation and a
list of errors, a cart-pole from a dict of parameters, an extended Kalman update with arctan2,
minimum jerk by np.diff(n=3), collision penalties by pairwise norms with an upper-triangle mask,
potential fields, and a unicycle tracking loss."""

from __future__ import annotations

import math

import numpy as np

LINKS = np.array([1.0, 0.8, 0.5])
TARGETS = [(1.2, 0.9), (0.4, 1.6), (-0.3, 1.1)]
DH = [(0.0, 0.3, math.pi / 2), (0.4, 0.0, 0.0), (0.35, 0.0, 0.0)]
A_SYS = np.array([[1.0, 0.1], [0.0, 1.0]])
B_SYS = np.array([[0.005], [0.1]])
Q_COST = np.diag([1.0, 0.1])
OBSTACLES = np.array([[0.5, 0.5], [1.2, 0.3]])
LANDMARKS = [(2.0, 1.0), (0.0, 3.0), (-1.0, -1.0)]
BEARINGS = [0.35, 1.2, -2.4]


def planar_fk_cumsum(q, target=np.array([1.1, 1.3])):  # noqa: B008
    angles = np.cumsum(q)
    x = np.sum(LINKS * np.cos(angles))
    y = np.sum(LINKS * np.sin(angles))
    return (x - target[0]) ** 2 + (y - target[1]) ** 2


def ik_loop_math(q):
    loss = 0.0
    for tx, ty in TARGETS:
        ang, x, y = 0.0, 0.0, 0.0
        for i in range(len(LINKS)):
            ang += q[i]
            x += LINKS[i] * math.cos(ang)
            y += LINKS[i] * math.sin(ang)
        loss += (x - tx) ** 2 + (y - ty) ** 2
        q = q * 0.9
    return loss


def _dh(theta, a, d, alpha):
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct],
                     [st, ct * ca, -ct * sa, a * st],
                     [0.0, sa, ca, d],
                     [0.0, 0.0, 0.0, 1.0]])


def dh_chain(q, goal=np.array([0.3, 0.2, 0.6])):  # noqa: B008
    t = np.eye(4)
    for qi, (a, d, alpha) in zip(q, DH):
        t = t @ _dh(qi, a, d, alpha)
    return float(np.sum((t[:3, 3] - goal) ** 2))


class Quat:
    def __init__(self, w, x, y, z):
        self.w, self.x, self.y, self.z = w, x, y, z

    def mul(self, o):
        return Quat(self.w * o.w - self.x * o.x - self.y * o.y - self.z * o.z,
                    self.w * o.x + self.x * o.w + self.y * o.z - self.z * o.y,
                    self.w * o.y - self.x * o.z + self.y * o.w + self.z * o.x,
                    self.w * o.z + self.x * o.y - self.y * o.x + self.z * o.w)

    def conj(self):
        return Quat(self.w, -self.x, -self.y, -self.z)

    def norm(self):
        return math.sqrt(self.w ** 2 + self.x ** 2 + self.y ** 2 + self.z ** 2)


def quat_class_rotate(q, v=(1.0, 0.0, 0.0), target=(0.0, 0.6, 0.8)):
    r = Quat(q[0], q[1], q[2], q[3])
    n = r.norm()
    r = Quat(r.w / n, r.x / n, r.y / n, r.z / n)
    p = r.mul(Quat(0.0, *v)).mul(r.conj())
    return (p.x - target[0]) ** 2 + (p.y - target[1]) ** 2 + (p.z - target[2]) ** 2


def quat_slerp(q, q1=np.array([0.0, 0.0, 0.6, 0.8]), t=0.3):  # noqa: B008
    q0 = q / np.linalg.norm(q)
    dot = np.clip(np.dot(q0, q1), -1.0, 1.0)
    omega = np.arccos(dot)
    s = (np.sin((1 - t) * omega) * q0 + np.sin(t * omega) * q1) / np.sin(omega)
    return float(s[0] ** 2 - s[3])


def rodrigues(axis_angle, pts=np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.5], [0.3, 0.2, 1.0]])):  # noqa: B008
    theta = np.linalg.norm(axis_angle)
    k = axis_angle / theta
    rotated = (pts * np.cos(theta) + np.cross(k, pts) * np.sin(theta)
               + np.outer(pts @ k, k) * (1 - np.cos(theta)))
    return np.sum((rotated - pts[::-1]) ** 2)


def odometry(wheels, dt=0.1, base=0.5):
    state = (0.0, 0.0, 0.0)
    for k in range(0, len(wheels), 2):
        vl, vr = wheels[k], wheels[k + 1]
        x, y, th = state
        v, w = (vl + vr) / 2, (vr - vl) / base
        state = (x + dt * v * math.cos(th), y + dt * v * math.sin(th), th + dt * w)
    x, y, th = state
    return (x - 0.3) ** 2 + (y - 0.1) ** 2 + 0.1 * th ** 2


def lqr_while(gain, horizon=25):
    x = np.array([1.0, -0.5])
    cost, k = 0.0, 0
    while k < horizon:
        u = -gain @ x
        cost += x @ Q_COST @ x + 0.01 * u @ u
        x = A_SYS @ x + B_SYS @ u
        k += 1
    return cost


def mpc_clipped(u, x0=np.array([1.0, 0.0]), umax=2.0):  # noqa: B008
    x = x0.copy()
    cost = 0.0
    for uk in u:
        uc = np.clip(uk, -umax, umax)
        x = A_SYS @ x + B_SYS[:, 0] * uc
        cost += x[0] ** 2 + 0.1 * uc ** 2
        if cost > 1e6:
            return cost
    return cost + 10.0 * x @ x


def pid_saturated(gains, setpoint=1.0, dt=0.05, steps=60):
    kp, ki, kd = gains
    y, integral = 0.0, 0.0
    errors = []
    for _ in range(steps):
        e = setpoint - y
        integral += e * dt
        deriv = (e - errors[-1]) / dt if errors else 0.0
        u = max(-5.0, min(5.0, kp * e + ki * integral + kd * deriv))
        y += dt * (-y + u)
        errors.append(e)
    return sum(e * e for e in errors) * dt


def cart_pole(gains, p={"m": 0.1, "M": 1.0, "l": 0.5, "g": 9.81}, dt=0.02, steps=50):  # noqa: B006
    x, xd, th, thd = 0.0, 0.0, 0.2, 0.0
    cost = 0.0
    for _ in range(steps):
        f = -(gains[0] * x + gains[1] * xd + gains[2] * th + gains[3] * thd)
        s, c = math.sin(th), math.cos(th)
        tmp = (f + p["m"] * p["l"] * thd ** 2 * s) / (p["m"] + p["M"])
        thdd = (p["g"] * s - c * tmp) / (p["l"] * (4.0 / 3.0 - p["m"] * c ** 2 / (p["m"] + p["M"])))
        xdd = tmp - p["m"] * p["l"] * thdd * c / (p["m"] + p["M"])
        x, xd, th, thd = x + dt * xd, xd + dt * xdd, th + dt * thd, thd + dt * thdd
        cost += th ** 2 + 0.1 * x ** 2 + 0.001 * f ** 2
    return cost


def ekf_bearing(pose, cov=np.eye(3) * 0.1):  # noqa: B008
    mean = pose.copy()
    p = cov.copy()
    for (lx, ly), z in zip(LANDMARKS, BEARINGS):
        dx, dy = lx - mean[0], ly - mean[1]
        q = dx * dx + dy * dy
        zhat = np.arctan2(dy, dx) - mean[2]
        h = np.array([dy / q, -dx / q, -1.0])
        s = h @ p @ h + 0.01
        k = p @ h / s
        innov = (z - zhat + np.pi) % (2 * np.pi) - np.pi
        mean = mean + k * innov
        p = p - np.outer(k, h @ p)
    return float(mean @ mean + np.trace(p))


def minimum_jerk(path):
    pts = path.reshape(-1, 2)
    full = np.vstack([np.zeros((1, 2)), pts, np.ones((1, 2))])
    jerk = np.diff(full, n=3, axis=0)
    return np.sum(jerk ** 2)


def collision_penalty(pos, radius=0.6):
    p = pos.reshape(-1, 2)
    diff = p[:, None, :] - p[None, :, :]
    dist = np.linalg.norm(diff + 1e-9, axis=-1)
    iu = np.triu_indices(len(p), k=1)
    pen = np.logaddexp(0.0, 10.0 * (radius - dist[iu])) / 10.0
    obst = np.linalg.norm(p[:, None, :] - OBSTACLES[None], axis=2)
    return float(np.sum(pen ** 2) + np.sum(np.exp(-obst ** 2)))


def potential_field(xy, goal=(2.0, 2.0), eta=0.5):
    att = 0.5 * ((xy[0] - goal[0]) ** 2 + (xy[1] - goal[1]) ** 2)
    rep = 0.0
    for ox, oy in OBSTACLES:
        d = math.hypot(xy[0] - ox, xy[1] - oy)
        if d < 1.0:
            rep += eta * (1.0 / d - 1.0) ** 2
    return att + rep


def unicycle_track(u, ref=np.array([[0.1, 0.0], [0.2, 0.05], [0.3, 0.12], [0.4, 0.2]])):  # noqa: B008
    x = np.zeros(3)
    err = 0.0
    controls = u.reshape(-1, 2)
    for t in range(controls.shape[0]):
        v, w = controls[t]
        x[0] += 0.1 * v * np.cos(x[2])
        x[1] += 0.1 * v * np.sin(x[2])
        x[2] += 0.1 * w
        err += np.sum((x[:2] - ref[t]) ** 2)
    return err


DOSES = {0: 100.0, 8: 100.0, 16: 50.0}
CONC_OBS = np.array([1.8, 3.1, 2.4, 4.0, 3.3, 2.9])


class Compartment:
    """A one-compartment model that absorbs a depot and eliminates, stepped by its method."""

    def __init__(self, ka, ke, vol):
        self.ka, self.ke, self.vol = ka, ke, vol
        self.depot, self.central = 0.0, 0.0

    def step(self, dt):
        absorbed = self.ka * self.depot * dt
        self.depot -= absorbed
        self.central += absorbed - self.ke * self.central * dt
        return self.central / self.vol


def pk_dosing_dict(theta, steps=24, dt=1.0):
    body = Compartment(math.exp(theta[0]), math.exp(theta[1]), math.exp(theta[2]))
    conc = []
    step = 0
    while step < steps:
        if step in DOSES:
            body.depot += DOSES[step]
        c = body.step(dt)
        if step % 4 == 3:
            conc.append(c)
        step += 1
    return float(np.sum((np.log(np.array(conc)) - np.log(CONC_OBS)) ** 2))


def kinematic_wave(inflow, c=0.4, n=6):
    h = np.zeros(n)
    out = 0.0
    for q in inflow:
        h[0] += q
        h[1:] -= c * (h[1:] - h[:-1])
        h[0] *= 1 - c
        out += h[-1] ** 2
    return out


def joint_limits_ik(q, lo=np.array([-1.0, -0.5, -1.5]), hi=np.array([1.0, 1.5, 0.5])):  # noqa: B008
    x = y = ang = 0.0
    for length, qi in zip(LINKS, q):
        ang = ang + qi
        x, y = x + length * np.cos(ang), y + length * np.sin(ang)
    penalty = np.sum(np.maximum(q - hi, 0) ** 2 + np.maximum(lo - q, 0) ** 2)
    return (x - 0.9) ** 2 + (y - 1.4) ** 2 + 10.0 * penalty


MOTION = [
    ("rob_fk_cumsum", planar_fk_cumsum, lambda r: (np.array([0.4, 0.5, -0.3]),), 0),
    ("rob_ik_loop_math", ik_loop_math, lambda r: (np.array([0.3, 0.6, -0.2]),), 0),
    ("rob_dh_chain", dh_chain, lambda r: (np.array([0.2, 0.4, -0.5]),), 0),
    ("rob_quat_class", quat_class_rotate, lambda r: (np.array([0.9, 0.1, 0.2, 0.3]),), 0),
    ("rob_quat_slerp", quat_slerp, lambda r: (np.array([0.8, 0.2, 0.1, 0.5]),), 0),
    ("rob_rodrigues_cross", rodrigues, lambda r: (np.array([0.3, -0.4, 0.8]),), 0),
    ("rob_odometry_tuple", odometry, lambda r: (r.uniform(0.5, 1.5, 8),), 0),
    ("ctl_lqr_while", lqr_while, lambda r: (np.array([[3.0, 2.5]]),), 0),
    ("ctl_mpc_clip_return", mpc_clipped, lambda r: (r.normal(0.0, 0.8, 8),), 0),
    ("ctl_pid_saturation", pid_saturated, lambda r: (np.array([1.5, 0.8, 0.05]),), 0),
    ("ctl_cart_pole_dict", cart_pole, lambda r: (np.array([1.0, 1.5, 25.0, 4.0]),), 0),
    ("rob_ekf_arctan2", ekf_bearing, lambda r: (np.array([0.2, 0.1, 0.05]),), 0),
    ("rob_minimum_jerk", minimum_jerk, lambda r: (r.uniform(0, 1, 8),), 0),
    ("rob_collision_triu", collision_penalty, lambda r: (r.uniform(0, 1.5, 8),), 0),
    ("rob_potential_field", potential_field, lambda r: (np.array([0.8, 0.9]),), 0),
    ("pk_dosing_class_while", pk_dosing_dict, lambda r: (np.array([-0.5, -1.8, 3.3]),), 0),
    ("hyd_kinematic_wave_slices", kinematic_wave, lambda r: (r.uniform(0.5, 2.0, 8),), 0),
    ("rob_joint_limits_ik", joint_limits_ik, lambda r: (np.array([0.4, 1.7, -0.6]),), 0),
    ("rob_unicycle_inplace", unicycle_track, lambda r: (np.array([1.0, 0.2, 1.0, 0.5, 1.0, 0.6, 1.0, 0.4]),), 0),
]
