"""The red team's wave 29a, control: LQR costs of rollouts, a Riccati recursion, MPC costs over a
horizon with clipped inputs, PID loops with anti-windup, Kalman-style observers, shooting on a
pendulum, written the way a control engineer writes them (test_redteam_wave29a.py runs them
through every transformation)."""

from __future__ import annotations

import math

import numpy as np

from .redteam_wave29a_robotics import F, M, P

A = np.array([[1.0, 0.1], [0.0, 1.0]])
B = np.array([[0.005], [0.1]])
Q = np.diag([1.0, 0.1])
R = np.array([[0.01]])


def lqr_rollout_cost(K, x0=np.array([1.0, 0.0]), steps=20):  # noqa: B008
    """Cost of the closed loop u = -K x over a finite horizon."""
    x = x0
    J = 0.0
    for _ in range(steps):
        u = -K @ x
        J += x @ Q @ x + u @ R @ u
        x = A @ x + B @ u
    return J + x @ Q @ x


def lqr_rollout_states(K, x0=np.array([1.0, 0.5])):  # noqa: B008
    xs = [x0]
    us = []
    for _ in range(15):
        us.append(-(K[0, 0] * xs[-1][0] + K[0, 1] * xs[-1][1]))
        xs.append(A @ xs[-1] + B[:, 0] * us[-1])
    X = np.array(xs)
    U = np.array(us)
    return np.einsum("ti,ij,tj->", X, Q, X) + 0.01 * np.sum(U**2)


def riccati_value(q_diag, horizon=10):
    """Backward Riccati recursion; the value of x0 under the optimal finite-horizon policy."""
    Qm = np.diag(q_diag)
    P_ = Qm.copy()
    for _ in range(horizon):
        S = R + B.T @ P_ @ B
        K = np.linalg.solve(S, B.T @ P_ @ A)
        P_ = Qm + A.T @ P_ @ (A - B @ K)
    x0 = np.array([1.0, -0.5])
    return x0 @ P_ @ x0


def riccati_inverse(r_scale, horizon=8):
    P_ = Q.copy()
    for _ in range(horizon):
        S_inv = np.linalg.inv(r_scale * R + B.T @ P_ @ B)
        P_ = Q + A.T @ P_ @ A - A.T @ P_ @ B @ S_inv @ B.T @ P_ @ A
    return np.trace(P_)


def mpc_cost(u, x0=np.array([1.0, 0.0]), umax=1.0, ref=0.0):  # noqa: B008
    """Inputs clipped to the actuator limits, the state tracked over the horizon."""
    x = x0.copy()
    cost = 0.0
    for k in range(len(u)):
        uk = np.clip(u[k], -umax, umax)
        x = A @ x + B[:, 0] * uk
        cost = cost + (x[0] - ref) ** 2 + 0.1 * x[1] ** 2 + 0.01 * uk**2
    return cost


def mpc_rate_limited(u, x0=np.array([0.5, 0.2])):  # noqa: B008
    du = np.diff(np.concatenate([[0.0], u]))
    du = np.where(np.abs(du) > 0.5, 0.5 * np.sign(du), du)
    uu = np.cumsum(du)
    x = x0
    J = 0.0
    for k in range(uu.shape[0]):
        x = A @ x + B[:, 0] * uu[k]
        J = J + x @ Q @ x
    return J + 0.1 * np.sum(du**2)


def mpc_terminal_set(u, x0=np.array([1.0, 0.0])):  # noqa: B008
    """A soft terminal constraint by a hinge squared."""
    x = x0
    for k in range(u.shape[0]):
        x = A @ x + (B * u[k]).ravel()
    violation = np.maximum(np.abs(x) - 0.1, 0.0)
    return np.sum(u**2) * 0.01 + 100.0 * np.sum(violation**2) + x @ x


def pid_loop(gains, setpoint=1.0, dt=0.05, steps=60):
    kp, ki, kd = gains
    y, integral, prev_err = 0.0, 0.0, setpoint
    cost = 0.0
    for _ in range(steps):
        err = setpoint - y
        integral += err * dt
        deriv = (err - prev_err) / dt
        u = kp * err + ki * integral + kd * deriv
        y += dt * (-y + u)  # a first-order plant
        prev_err = err
        cost += err * err * dt
    return cost


def pid_antiwindup(gains, dt=0.05):
    p = {"kp": gains[0], "ki": gains[1], "umax": 2.0}
    y, integral = 0.0, 0.0
    cost = 0.0
    for k in range(50):
        sp = 1.0 if k < 25 else 0.5
        err = sp - y
        u_raw = p["kp"] * err + p["ki"] * integral
        u = min(max(u_raw, -p["umax"]), p["umax"])
        if u == u_raw:
            integral += err * dt
        y = y + dt * (u - 0.5 * y)
        cost += err**2
    return cost * dt


def pid_filtered_derivative(gains, alpha=0.3):
    kp, kd = gains[0], gains[1]
    y, v, d_f, prev = 0.0, 0.0, 0.0, 1.0
    out = []
    for _ in range(40):
        e = 1.0 - y
        d_f = alpha * (e - prev) / 0.05 + (1 - alpha) * d_f
        prev = e
        u = kp * e + kd * d_f
        v += 0.05 * (u - 0.4 * v - 2.0 * y)  # a mass-spring plant
        y += 0.05 * v
        out.append(e)
    errs = np.array(out)
    return np.sum(errs**2) * 0.05


def observer_gain_error(L, steps=30):
    Cm = np.array([[1.0, 0.0]])
    x = np.array([1.0, -1.0])
    xh = np.zeros(2)
    total = 0.0
    for _ in range(steps):
        y = Cm @ x
        xh = A @ xh + L * (y - Cm @ xh)
        x = A @ x
        e = x - xh
        total += float(e @ e)
    return total


def pendulum_shooting(u, dt=0.05, g=9.81, length=1.0):
    th, om = math.pi - 0.3, 0.0
    for uk in u:
        om += dt * (-g / length * math.sin(th) + uk - 0.1 * om)
        th += dt * om
    return (th - math.pi) ** 2 + 0.1 * om**2 + 1e-3 * sum(uk * uk for uk in u)


def cartpole_energy_shaping(k, steps=25, dt=0.02):
    x, xd, th, thd = 0.0, 0.0, 0.2, 0.0
    J = 0.0
    for _ in range(steps):
        E = 0.5 * thd**2 - 9.81 * (math.cos(th) - 1.0)
        f = k[0] * E * thd * math.cos(th) - k[1] * x - k[2] * xd
        xdd = f
        thdd = 9.81 * math.sin(th) - xdd * math.cos(th)
        x, xd = x + dt * xd, xd + dt * xdd
        th, thd = th + dt * thd, thd + dt * thdd
        J += th**2 + 0.1 * x**2
    return J


def tracking_with_feedforward(ff, K=np.array([2.0, 0.5]), dt=0.1):  # noqa: B008
    ref = np.sin(np.arange(ff.shape[0]) * dt * 2)
    x = np.zeros(2)
    err = np.zeros(ff.shape[0])
    for t in range(ff.shape[0]):
        u = ff[t] - K @ (x - np.array([ref[t], 0.0]))
        x = A @ x + B[:, 0] * u
        err[t] = x[0] - ref[t]
    return np.sum(err**2)


def discretised_continuous(params, dt=0.1):
    """Zero-order hold by a truncated matrix exponential series, then an LQR-like cost."""
    wn, zeta = params
    Ac = np.array([[0.0, 1.0], [-wn**2, -2 * zeta * wn]])
    Ad = np.eye(2)
    term = np.eye(2)
    for k in range(1, 8):
        term = term @ Ac * (dt / k)
        Ad = Ad + term
    x = np.array([1.0, 0.0])
    J = 0.0
    for _ in range(20):
        x = Ad @ x
        J += x @ x
    return J


def iterative_lqr_sweep(u, x0=np.array([0.8, 0.0])):  # noqa: B008
    """Forward pass of a nonlinear system (a pendulum-like drift) with a quadratic cost."""
    xs = np.zeros((u.shape[0] + 1, 2))
    xs[0] = x0
    for t in range(u.shape[0]):
        th, om = xs[t]
        xs[t + 1] = np.array([th + 0.1 * om, om + 0.1 * (-np.sin(th) + u[t])])
    return np.sum(xs[:, 0] ** 2) + 0.5 * np.sum(xs[-1] ** 2) + 0.01 * np.sum(u**2)


def h2_norm_by_gramian(a):
    """Controllability Gramian by a fixed-point loop on the discrete Lyapunov equation."""
    Ad = np.array([[a[0], 0.1], [0.0, a[1]]])
    W = np.zeros((2, 2))
    it = 0
    while it < 200:
        W_new = Ad @ W @ Ad.T + B @ B.T
        if np.max(np.abs(W_new - W)) < 1e-12:
            W = W_new
            break
        W = W_new
        it += 1
    return np.trace(np.array([[1.0, 0.0]]) @ W @ np.array([[1.0], [0.0]]))


def bang_bang_smoothed(switch_times, T=2.0, n=40):
    ts = np.linspace(0.0, T, n)
    u = np.tanh(20 * (ts - switch_times[0])) - np.tanh(20 * (ts - switch_times[1]))
    x, v = 0.0, 0.0
    dt = T / n
    for k in range(n):
        v += u[k] * dt
        x += v * dt
    return (x - 0.5) ** 2 + v**2


def gain_schedule(gains, speeds=np.array([0.5, 1.0, 1.5, 2.0])):  # noqa: B008
    """np.interp of a gain table at each operating point."""
    table_x = np.array([0.0, 1.0, 2.0, 3.0])
    ks = np.interp(speeds, table_x, gains)
    poles = 1.0 - 0.1 * ks * speeds
    return np.sum(poles**2)


def mpc_float32(u):
    x = np.zeros(2, dtype=np.float32)
    Af = A.astype(np.float32)
    Bf = B[:, 0].astype(np.float32)
    cost = np.float32(0.0)
    for k in range(u.shape[0]):
        x = Af @ x + Bf * u[k]
        cost = cost + (x[0] - np.float32(1.0)) ** 2 + np.float32(0.01) * u[k] ** 2
    return cost


CONTROL = [
    ("ct_lqr_rollout_cost", lqr_rollout_cost, lambda r: (np.array([[3.0, 2.5]]) + 0.1 * M(r, 1, 2),), 0),
    ("ct_lqr_rollout_states", lqr_rollout_states, lambda r: (np.array([[3.0, 2.5]]) + 0.1 * M(r, 1, 2),), 0),
    ("ct_riccati_value", riccati_value, lambda r: (P(r, 2),), 0),
    ("ct_riccati_inverse", riccati_inverse, lambda r: (1.3,), 0),
    ("ct_mpc_cost", mpc_cost, lambda r: (np.array([-0.5, 1.4, -0.8, 0.3, -1.3, 0.2]),), 0),
    ("ct_mpc_rate_limited", mpc_rate_limited, lambda r: (np.array([0.2, -0.1, 0.9, 0.7, 0.1]),), 0),
    ("ct_mpc_terminal_set", mpc_terminal_set, lambda r: (M(r, 8),), 0),
    ("ct_pid_loop", pid_loop, lambda r: (np.array([2.0, 1.0, 0.05]) + 0.1 * M(r, 3),), 0),
    ("ct_pid_antiwindup", pid_antiwindup, lambda r: (np.array([1.5, 0.8]),), 0),
    ("ct_pid_filtered_derivative", pid_filtered_derivative, lambda r: (np.array([3.0, 0.5]) + 0.1 * M(r, 2),), 0),
    ("ct_observer_gain_error", observer_gain_error, lambda r: (np.array([0.5, 0.8]) + 0.05 * M(r, 2),), 0),
    ("ct_pendulum_shooting", pendulum_shooting, lambda r: (M(r, 10),), 0),
    ("ct_cartpole_energy_shaping", cartpole_energy_shaping, lambda r: (np.array([0.5, 1.0, 1.0]) + 0.1 * M(r, 3),), 0),
    ("ct_tracking_with_feedforward", tracking_with_feedforward, lambda r: (M(r, 8),), 0),
    ("ct_discretised_continuous", discretised_continuous, lambda r: (np.array([2.0, 0.4]),), 0),
    ("ct_iterative_lqr_sweep", iterative_lqr_sweep, lambda r: (M(r, 10),), 0),
    ("ct_h2_norm_by_gramian", h2_norm_by_gramian, lambda r: (np.array([0.8, 0.6]) + 0.02 * M(r, 2),), 0),
    ("ct_bang_bang_smoothed", bang_bang_smoothed, lambda r: (np.array([0.5, 1.3]),), 0),
    ("ct_gain_schedule", gain_schedule, lambda r: (P(r, 4),), 0),
    ("ct_mpc_float32", mpc_float32, lambda r: (F(r, 6),), 0),
]
