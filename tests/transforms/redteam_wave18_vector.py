"""The red team's eighteenth wave, continued: maps R^n -> R^m for jacobian / jvp / vjp, written as users write
them (np.array of computed numbers, np.concatenate of pieces, a result array filled by index, a returned
stack).  Spherical to Cartesian, a Lorenz right-hand side, a softmax with a temperature, a 2-link arm's
Jacobian-free forward kinematics by complex numbers avoided, a quaternion to rotation matrix, an RGB to HSV
style hue-free transform, a cumulative product of discount factors, a biquad's impulse response, a barycentric
solve, a normalisation, polar decomposition by the closed form of 2x2, a Nelson-Siegel curve at maturities,
an SE(2) composition and a Bezier curve sampled at several t.  Each map is also turned into a scalar row
``w @ f(x)`` for the matrix; the maps themselves are in VECTOR_MAPS18.  See redteam_wave18.py.
"""

from __future__ import annotations

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


def spherical_to_cartesian(p):
    r, theta, phi = p
    return np.array([r * np.sin(theta) * np.cos(phi), r * np.sin(theta) * np.sin(phi), r * np.cos(theta)])


def lorenz_rhs(s, sigma=10.0, rho=28.0, beta=8 / 3):
    x, y, z = s
    return np.array([sigma * (y - x), x * (rho - z) - y, x * y - beta * z])


def tempered_softmax(z, T=0.7):
    e = np.exp((z - z.max()) / T)
    return e / e.sum()


def quat_to_matrix(q):
    q = q / np.linalg.norm(q)
    w, x, y, z = q
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                  [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                  [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    return R.ravel()


def discount_factors(rates):
    return np.cumprod(1.0 / (1.0 + rates))


def impulse_response(a, n=6):
    h = np.zeros(n)
    y1 = y2 = 0.0
    for k in range(n):
        x = 1.0 if k == 0 else 0.0
        y = x - a[0] * y1 - a[1] * y2
        h[k] = y
        y2, y1 = y1, y
    return h


def barycentric_solve(p):
    A = np.array([[0.0, 1.0, 0.2], [0.0, 0.1, 1.0], [1.0, 1.0, 1.0]])
    return np.linalg.solve(A, np.concatenate([p, [1.0]]))


def unit_vector(v):
    return v / np.sqrt(np.sum(v ** 2))


def polar_2x2(a):
    A = a.reshape(2, 2)
    sign = 1.0 if np.linalg.det(A) > 0 else -1.0
    Q = A + sign * np.array([[A[1, 1], -A[1, 0]], [-A[0, 1], A[0, 0]]])
    Q = Q / np.sqrt(abs(np.linalg.det(Q)))
    return Q.ravel()


def ns_curve(p, t=np.array([0.5, 1.0, 3.0, 7.0])):  # noqa: B008
    b0, b1, b2, tau = p
    x = t / tau
    f = (1 - np.exp(-x)) / x
    return b0 + b1 * f + b2 * (f - np.exp(-x))


def se2_compose(p):
    x1, y1, t1, x2, y2, t2 = p
    c, s = np.cos(t1), np.sin(t1)
    return np.array([x1 + c * x2 - s * y2, y1 + s * x2 + c * y2, t1 + t2])


def bezier_samples(ctrl_flat, ts=np.array([0.1, 0.5, 0.9])):  # noqa: B008
    P = ctrl_flat.reshape(4, 2)
    out = []
    for t in ts:
        b = np.array([(1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t ** 2 * (1 - t), t ** 3])
        out.append(b @ P)
    return np.concatenate(out)


def running_mean(x):
    out = np.empty_like(x)
    total = 0.0
    for i, v in enumerate(x):
        total += v
        out[i] = total / (i + 1)
    return out


def pairwise_distances(flat):
    P = flat.reshape(-1, 2)
    i, j = np.triu_indices(len(P), k=1)
    return np.sqrt(np.sum((P[i] - P[j]) ** 2, axis=1))


def gram_schmidt_columns(a):
    A = a.reshape(3, 2)
    q1 = A[:, 0] / np.linalg.norm(A[:, 0])
    v = A[:, 1] - (q1 @ A[:, 1]) * q1
    q2 = v / np.linalg.norm(v)
    return np.hstack([q1, q2])


def cartesian_to_polar(v):
    return np.stack([np.hypot(v[0], v[1]), np.arctan2(v[1], v[0])])


def layer_norm_map(x, eps=1e-5):
    mu = x.mean()
    var = ((x - mu) ** 2).mean()
    return (x - mu) / np.sqrt(var + eps)


def clipped_outputs(x):
    return np.clip(2 * x, -1.0, 1.0) + np.minimum(x, 0.3)


VECTOR_MAPS18 = [
    ("spherical_to_cartesian", spherical_to_cartesian, lambda r: (np.array([1.5, 0.7, 0.4]),), 0),
    ("lorenz_rhs", lorenz_rhs, lambda r: (np.array([1.0, 2.0, 20.0]),), 0),
    ("tempered_softmax", tempered_softmax, lambda r: (M(r, 4),), 0),
    ("quat_to_matrix", quat_to_matrix, lambda r: (np.array([0.9, 0.1, -0.3, 0.2]),), 0),
    ("discount_factors", discount_factors, lambda r: (0.03 + 0.01 * r.uniform(size=5),), 0),
    ("impulse_response", impulse_response, lambda r: (np.array([-0.9, 0.4]),), 0),
    ("barycentric_solve", barycentric_solve, lambda r: (np.array([0.3, 0.4]),), 0),
    ("unit_vector", unit_vector, lambda r: (M(r, 3),), 0),
    ("polar_2x2", polar_2x2, lambda r: (np.array([1.0, 0.3, -0.2, 0.8]),), 0),
    ("ns_curve", ns_curve, lambda r: (np.array([0.04, -0.02, 0.01, 1.5]),), 0),
    ("se2_compose", se2_compose, lambda r: (np.array([1.0, 0.5, 0.3, -0.2, 0.7, 0.1]),), 0),
    ("bezier_samples", bezier_samples, lambda r: (M(r, 8),), 0),
    ("running_mean", running_mean, lambda r: (M(r, 5),), 0),
    ("pairwise_distances", pairwise_distances, lambda r: (M(r, 8),), 0),
    ("gram_schmidt_columns", gram_schmidt_columns, lambda r: (M(r, 6),), 0),
    ("cartesian_to_polar", cartesian_to_polar, lambda r: (np.array([0.6, -0.8]),), 0),
    ("layer_norm_map", layer_norm_map, lambda r: (M(r, 5),), 0),
    ("clipped_outputs", clipped_outputs, lambda r: (np.array([0.2, -0.7, 0.9, 0.1]),), 0),
]


def _weighted(fn):
    def loss(x, w):
        return w @ fn(x)
    loss.__name__ = f"{fn.__name__}_weighted"
    loss.__qualname__ = loss.__name__
    return loss


def _row(name, fn, make):
    def args(r):
        x = make(r)[0]
        return (x, np.random.default_rng(len(name)).normal(size=np.size(fn(x))))
    return (f"w18_{name}", _weighted(fn), args, 0)


VECTOR18 = [_row(name, fn, make) for name, fn, make, _ in VECTOR_MAPS18]
