"""The red team's sixteenth wave, continued: maps R^n -> R^m written for jacobian / jvp / vjp (residual
functions for least squares, ODE right-hand sides returning ``np.array([...])``, a list of pieces then
``np.array`` / ``np.stack`` / ``np.concatenate``, a Jacobian-of-a-Jacobian map, a Newton step's residual).
`VECTOR_MAPS16` holds the maps themselves, ``(name, function, make, wrt)``, for the hand probes
(srcdiff.jacobian, jvp, vjp); `VECTOR16` the matrix's rows: each map read through a scalar of it (half the
squared norm, a weighted sum), as a least-squares loss reads its residual.  See redteam_wave16.py.
"""

from __future__ import annotations

import math

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


# ---- residuals -----------------------------------------------------------------------------------------


def rosenbrock_residual(x):
    return np.array([10.0 * (x[1] - x[0] ** 2), 1.0 - x[0]])


def exp_decay_residual(p, t, y):
    return p[0] * np.exp(-p[1] * t) + p[2] - y


def circle_fit_residual(c, pts):
    res = []
    for p in pts:
        res.append(np.sqrt((p[0] - c[0]) ** 2 + (p[1] - c[1]) ** 2) - c[2])
    return np.array(res)


def powell_residual(x):
    return np.array([x[0] + 10 * x[1], math.sqrt(5) * (x[2] - x[3]), (x[1] - 2 * x[2]) ** 2,
                     math.sqrt(10) * (x[0] - x[3]) ** 2])


def stacked_residuals(w, X, y, lam=0.1):
    data = X @ w - y
    prior = math.sqrt(lam) * w
    return np.concatenate([data, prior])


def bundle_reprojection(pose, pts3d, obs):
    r = []
    for P, uv in zip(pts3d, obs):
        c = P + pose[:3]
        r.append(np.array([c[0] / c[2], c[1] / c[2]]) * pose[3] - uv)
    return np.stack(r).ravel()


# ---- ODE right-hand sides and maps ---------------------------------------------------------------------


def lorenz_rhs(u, sigma=10.0, rho=28.0, beta=8.0 / 3.0):
    x, y, z = u
    return np.array([sigma * (y - x), x * (rho - z) - y, x * y - beta * z])


def pendulum_rhs(state, g=9.81, L=1.0, damping=0.1):
    theta, omega = state[0], state[1]
    return np.array([omega, -g / L * math.sin(theta) - damping * omega])


def robertson_rhs(y, k1=0.04, k2=3e7, k3=1e4):
    return np.array([-k1 * y[0] + k3 * y[1] * y[2],
                     k1 * y[0] - k3 * y[1] * y[2] - k2 * y[1] ** 2,
                     k2 * y[1] ** 2])


def polar_to_cartesian(rt):
    r, t = rt[0], rt[1]
    return np.stack([r * np.cos(t), r * np.sin(t)])


def spherical_map(v):
    r, th, ph = v
    return np.array([r * np.sin(th) * np.cos(ph), r * np.sin(th) * np.sin(ph), r * np.cos(th)])


def softmax_map(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def list_of_moments(x):
    out = []
    for k in range(1, 4):
        out.append(np.mean(x ** k))
    return np.array(out)


def rk4_flow(y0, h=0.05, n=4):
    y = y0
    for _ in range(n):
        k1 = lorenz_rhs(y)
        k2 = lorenz_rhs(y + h / 2 * k1)
        k3 = lorenz_rhs(y + h / 2 * k2)
        k4 = lorenz_rhs(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def newton_residual(x, A, b):
    return A @ x + 0.1 * x ** 3 - b


def mlp_outputs(W, x):
    h = np.tanh(W[:, :-1] @ x + W[:, -1])
    return np.concatenate([h, [np.sum(h)]])


# ---- the scalars the matrix reads ----------------------------------------------------------------------


def half_sq(r):
    return 0.5 * np.sum(r ** 2)


def rosenbrock_loss(x):
    return half_sq(rosenbrock_residual(x))


def exp_decay_loss(p, t, y):
    r = exp_decay_residual(p, t, y)
    return r @ r


def circle_fit_loss(c, pts):
    return np.sum(circle_fit_residual(c, pts) ** 2)


def powell_loss(x):
    r = powell_residual(x)
    return float(r @ r)


def stacked_loss(w, X, y):
    return half_sq(stacked_residuals(w, X, y))


def bundle_loss(pose, pts3d, obs):
    return half_sq(bundle_reprojection(pose, pts3d, obs))


def lorenz_weighted(u, c):
    return c @ lorenz_rhs(u)


def pendulum_energy_rate(state):
    d = pendulum_rhs(state)
    return d[0] * d[1] + d[1] ** 2


def robertson_loss(y):
    f = robertson_rhs(y)
    return np.sum(f * np.array([1.0, 1e-3, -2.0]))


def polar_loss(rt):
    return np.sum(polar_to_cartesian(rt) ** 3)


def spherical_loss(v, target):
    return np.sum((spherical_map(v) - target) ** 2)


def softmax_entropy(z):
    p = softmax_map(z)
    return -np.sum(p * np.log(p))


def moments_loss(x, target):
    return np.sum((list_of_moments(x) - target) ** 2)


def rk4_flow_loss(y0):
    return np.sum(rk4_flow(y0) ** 2) / 100.0


def newton_loss(x, A, b):
    r = newton_residual(x, A, b)
    return 0.5 * r @ r


def mlp_outputs_loss(W, x):
    return np.sum(mlp_outputs(W, x) * np.arange(1.0, 5.0))


_PTS3D = lambda r: np.column_stack([M(r, 4, 2), 4.0 + r.uniform(0, 1, 4)])  # noqa: E731

VECTOR_MAPS16 = [
    ("rosenbrock_residual", rosenbrock_residual, lambda r: (np.array([-1.2, 1.0]),), 0),
    ("exp_decay_residual", exp_decay_residual,
     lambda r: (np.array([2.0, 0.7, 0.1]), np.linspace(0, 3, 6), M(r, 6)), 0),
    ("circle_fit_residual", circle_fit_residual, lambda r: (np.array([0.1, -0.2, 1.5]), M(r, 5, 2)), 0),
    ("powell_residual", powell_residual, lambda r: (np.array([3.0, -1.0, 0.5, 1.0]),), 0),
    ("stacked_residuals", stacked_residuals, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("bundle_reprojection", bundle_reprojection,
     lambda r: (np.array([0.1, -0.1, 0.2, 500.0]), _PTS3D(r), M(r, 4, 2)), 0),
    ("lorenz_rhs", lorenz_rhs, lambda r: (M(r, 3),), 0),
    ("pendulum_rhs", pendulum_rhs, lambda r: (np.array([0.5, -0.3]),), 0),
    ("robertson_rhs", robertson_rhs, lambda r: (np.array([1.0, 1e-4, 1e-2]),), 0),
    ("polar_to_cartesian", polar_to_cartesian, lambda r: (np.array([1.5, 0.7]),), 0),
    ("spherical_map", spherical_map, lambda r: (np.array([2.0, 0.8, 0.3]),), 0),
    ("softmax_map", softmax_map, lambda r: (M(r, 4),), 0),
    ("list_of_moments", list_of_moments, lambda r: (M(r, 5),), 0),
    ("rk4_flow", rk4_flow, lambda r: (M(r, 3),), 0),
    ("newton_residual", newton_residual, lambda r: (M(r, 3), np.eye(3) + 0.1 * M(r, 3, 3), M(r, 3)), 0),
    ("mlp_outputs", mlp_outputs, lambda r: (0.5 * M(r, 3, 3), M(r, 2)), 0),
]

VECTOR16 = [
    ("w16_rosenbrock_residual", rosenbrock_loss, lambda r: (np.array([-1.2, 1.0]),), 0),
    ("w16_exp_decay_residual", exp_decay_loss, lambda r: (np.array([2.0, 0.7, 0.1]), np.linspace(0, 3, 6), M(r, 6)), 0),
    ("w16_circle_fit_residual", circle_fit_loss, lambda r: (np.array([0.1, -0.2, 1.5]), M(r, 5, 2)), 0),
    ("w16_powell_residual", powell_loss, lambda r: (np.array([3.0, -1.0, 0.5, 1.0]),), 0),
    ("w16_stacked_residuals", stacked_loss, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("w16_bundle_reprojection", bundle_loss,
     lambda r: (np.array([0.1, -0.1, 0.2, 5.0]), _PTS3D(r), M(r, 4, 2)), 0),
    ("w16_lorenz_rhs", lorenz_weighted, lambda r: (M(r, 3), M(r, 3)), 0),
    ("w16_pendulum_rhs", pendulum_energy_rate, lambda r: (np.array([0.5, -0.3]),), 0),
    ("w16_robertson_rhs", robertson_loss, lambda r: (np.array([1.0, 1e-4, 1e-2]),), 0),
    ("w16_polar_to_cartesian", polar_loss, lambda r: (np.array([1.5, 0.7]),), 0),
    ("w16_spherical_map", spherical_loss, lambda r: (np.array([2.0, 0.8, 0.3]), M(r, 3)), 0),
    ("w16_softmax_entropy", softmax_entropy, lambda r: (M(r, 4),), 0),
    ("w16_list_of_moments", moments_loss, lambda r: (M(r, 5), M(r, 3)), 0),
    ("w16_rk4_flow", rk4_flow_loss, lambda r: (M(r, 3),), 0),
    ("w16_newton_residual", newton_loss, lambda r: (M(r, 3), np.eye(3) + 0.1 * M(r, 3, 3), M(r, 3)), 0),
    ("w16_mlp_outputs", mlp_outputs_loss, lambda r: (0.5 * M(r, 3, 3), M(r, 2)), 0),
]
