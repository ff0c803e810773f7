"""The red team's seventeenth wave, continued: maps R^n -> R^m for jacobian / jvp / vjp, from this wave's
domains (an SIR right-hand side returned as np.array of a list, forward kinematics returning a
position, a quaternion product and rotation of a vector, barycentric coordinates of a point, a
homography's projected points raveled, the softmax of a logit demand system, a chemical reaction
network's rates by a stoichiometry matrix, a planar arm's end effector by a loop, a cubic spline
evaluated at several points, a tridiagonal solve returning x, prices from a Bertrand best response, an
RGB to HSV-free YUV conversion, an IIR filter's output signal, a per-class log-softmax).
`VECTOR_MAPS17` holds the maps, ``(name, function, make, wrt)``, for the hand probes (srcdiff.jacobian,
jvp, vjp); `VECTOR17` the matrix's rows: each map read through a weighted sum of its outputs.  See
redteam_wave17.py.
"""

from __future__ import annotations

import math

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


def sir_rhs(u, beta=0.5, gamma=0.2):
    S, I, R = u
    return np.array([-beta * S * I, beta * S * I - gamma * I, gamma * I])


def arm_end_effector(angles, lengths=(1.0, 0.8, 0.5)):
    x = y = phi = 0.0
    for a, l in zip(angles, lengths):
        phi += a
        x += l * math.cos(phi)
        y += l * math.sin(phi)
    return np.array([x, y, phi])


def quat_multiply(q, p=np.array([0.9, 0.1, -0.3, 0.2])):  # noqa: B008  a default array, as users write it
    w1, x1, y1, z1 = q
    w2, x2, y2, z2 = p
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
                     w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
                     w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def quat_rotate(q, v=np.array([1.0, 0.5, -0.2])):  # noqa: B008  a default array, as users write it
    q = q / np.linalg.norm(q)
    w, u = q[0], q[1:]
    return v + 2.0 * np.cross(u, np.cross(u, v) + w * v)


def barycentric(p, tri=np.array([[0.0, 0.0], [2.0, 0.1], [0.3, 1.5]])):  # noqa: B008  a default array, as users write it
    a, b, c = tri
    v0, v1, v2 = b - a, c - a, p - a
    d00, d01, d11 = v0 @ v0, v0 @ v1, v1 @ v1
    d20, d21 = v2 @ v0, v2 @ v1
    denom = d00 * d11 - d01 * d01
    v = (d11 * d20 - d01 * d21) / denom
    w = (d00 * d21 - d01 * d20) / denom
    return np.array([1.0 - v - w, v, w])


def homography_points(h, src=np.array([[0.1, 0.2], [0.5, -0.3], [-0.4, 0.6]])):  # noqa: B008  a default array, as users write it
    H = np.append(h, 1.0).reshape(3, 3)
    pts = np.hstack([src, np.ones((3, 1))]) @ H.T
    return (pts[:, :2] / pts[:, 2:]).ravel()


def logit_shares(prices, quality=np.array([1.0, 0.4, 0.8])):  # noqa: B008  a default array, as users write it
    u = quality - 1.2 * prices
    e = np.exp(u)
    return e / (1.0 + e.sum())


STOICH = np.array([[-1.0, 0.0, 1.0], [1.0, -1.0, 0.0], [0.0, 1.0, -1.0], [0.0, 1.0, 0.0]])


def reaction_rates(conc, k=np.array([0.5, 1.2, 0.3])):  # noqa: B008  a default array, as users write it
    rates = np.array([k[0] * conc[0], k[1] * conc[1] * conc[3], k[2] * conc[2] ** 2])
    return STOICH @ rates


def spline_eval(coef, ts=np.array([0.1, 0.45, 0.8])):  # noqa: B008  a default array, as users write it
    out = []
    for t in ts:
        basis = np.array([(1 - t) ** 3, 3 * t * (1 - t) ** 2, 3 * t ** 2 * (1 - t), t ** 3])
        out.append(basis @ coef)
    return np.array(out)


def tridiagonal_solution(rhs, diag=np.array([4.0, 4.5, 5.0, 4.2])):  # noqa: B008  a default array, as users write it
    n = len(rhs)
    c = np.zeros(n)
    d = np.zeros(n)
    c[0] = 1.0 / diag[0]
    d[0] = rhs[0] / diag[0]
    for i in range(1, n):
        m = diag[i] - c[i - 1]
        c[i] = 1.0 / m
        d[i] = (rhs[i] - d[i - 1]) / m
    x = np.zeros(n)
    x[-1] = d[-1]
    for i in range(n - 2, -1, -1):
        x[i] = d[i] - c[i] * x[i + 1]
    return x


def bertrand_prices(costs):
    p = costs + 1.0
    for _ in range(40):
        e = np.exp(1.0 - p)
        s = e / (1.0 + e.sum())
        p = costs + 1.0 / (1.0 - s)
    return p


def rgb_to_yuv(rgb):
    m = np.array([[0.299, 0.587, 0.114], [-0.14713, -0.28886, 0.436], [0.615, -0.51499, -0.10001]])
    return (rgb.reshape(-1, 3) @ m.T).ravel() ** 2


def iir_output(x, a=0.7, b=0.3):
    y = np.zeros_like(x)
    prev = 0.0
    for i in range(len(x)):
        prev = a * prev + b * x[i]
        y[i] = prev
    return y


def log_softmax_rows(Z):
    Z = Z - Z.max(axis=1, keepdims=True)
    return (Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))).ravel()


VECTOR_MAPS17 = [
    ("sir_rhs", sir_rhs, lambda r: (np.array([0.9, 0.08, 0.02]),), 0),
    ("arm_end_effector", arm_end_effector, lambda r: (np.array([0.3, 0.5, -0.4]),), 0),
    ("quat_multiply", quat_multiply, lambda r: (M(r, 4),), 0),
    ("quat_rotate", quat_rotate, lambda r: (np.array([0.8, 0.2, -0.4, 0.3]),), 0),
    ("barycentric", barycentric, lambda r: (np.array([0.6, 0.4]),), 0),
    ("homography_points", homography_points,
     lambda r: (np.array([1.0, 0.1, 0.2, -0.05, 0.9, 0.1, 0.01, 0.02]),), 0),
    ("logit_shares", logit_shares, lambda r: (np.array([1.0, 0.5, 0.7]),), 0),
    ("reaction_rates", reaction_rates, lambda r: (r.uniform(0.5, 1.5, 4),), 0),
    ("spline_eval", spline_eval, lambda r: (M(r, 4),), 0),
    ("tridiagonal_solution", tridiagonal_solution, lambda r: (M(r, 4),), 0),
    ("bertrand_prices", bertrand_prices, lambda r: (np.array([0.5, 0.7, 0.4]),), 0),
    ("rgb_to_yuv", rgb_to_yuv, lambda r: (r.uniform(size=(2, 3)),), 0),
    ("iir_output", iir_output, lambda r: (M(r, 6),), 0),
    ("log_softmax_rows", log_softmax_rows, lambda r: (M(r, 2, 3),), 0),
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
    return (f"w17_{name}", _weighted(fn), args, 0)


VECTOR17 = [_row(name, fn, make) for name, fn, make, _ in VECTOR_MAPS17]
