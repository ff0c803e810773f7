"""Guards ``n > 0`` of a measure of several values at once (a norm, a hypot, a sum of squares):
the rotation vector's exponential (Rodrigues), normalisations, radial functions, written with
``if`` and with ``np.where``.  test_measure_guards.py runs them through every transformation
away from the guarded point and checks what each gives at it."""

import numpy as np


def _skew(w):
    return np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])


WEIGHTS = np.array([1.0, 2.0, 3.0])


def rodrigues_if(w, p):
    theta = np.linalg.norm(w)
    if theta > 0:
        K = _skew(w / theta)
        R = np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * K @ K
    else:
        R = np.eye(3)
    return np.sum((R @ p) ** 2 * WEIGHTS)


def rodrigues_where(w, p):
    theta = np.sqrt(np.sum(w ** 2))
    safe = np.where(theta > 0, theta, 1.0)
    K = _skew(w / safe)
    s = np.where(theta > 0, np.sin(theta), 0.0)
    c = np.where(theta > 0, 1 - np.cos(theta), 0.0)
    return np.sum(((np.eye(3) + s * K + c * K @ K) @ p) ** 2 * WEIGHTS)


def hypot_identity(p):
    n = np.hypot(p[0], p[1])
    return np.where(n > 0, p[0] + 2.0 * p[1], 0.0)


def norm_cubed(v):
    n = np.linalg.norm(v)
    return np.where(n > 0, n ** 3, 0.0) + np.sum(v)


def dot_scaled(v):
    n2 = v @ v
    return np.where(n2 > 0, v[0] * n2 ** 2, 0.0)


def sinc_radius(v):
    r = np.linalg.norm(v)
    return np.where(r > 0, np.sin(r) / np.where(r > 0, r, 1.0), 1.0)


def unit_direction_if(v, target):
    n = np.linalg.norm(v)
    if n > 0:
        u = v / n
    else:
        u = np.zeros(3)
    return np.sum((u - target) ** 2)


def sum_of_squares_where(x, y):
    r2 = x ** 2 + y ** 2
    return np.sum(np.where(r2 > 0, x * y / np.where(r2 > 0, r2, 1.0), 0.0))


def rows_hypot(P):  # element by element: a row at its point, the other rows exact
    n = np.hypot(P[:, 0], P[:, 1])
    radial = np.where(n > 0, np.sin(n) / np.where(n > 0, n, 1.0), 1.0)
    return np.sum(np.where(n > 0, P[:, 0] * 3.0, 0.0)) + np.sum(radial)


def early_return(v):
    n = np.linalg.norm(v)
    if n <= 0:
        return 0.0
    return np.sum(v) * np.tanh(n) / n


def zero_on_the_left(v):
    n = np.linalg.norm(v)
    return np.where(0 < n, v[1] * 2.0, 0.0) + np.where(0 < n, n * n, 0.0)


def measure_inline_if(v):
    if np.linalg.norm(v) > 0:
        return v[0] * 2.0 + np.sum(v ** 2)
    return 0.0


def measure_inline_where(v):
    return np.where(np.sqrt(np.sum(v ** 2)) > 0, v[1], 0.0)


def _r(n, seed=5):
    return np.random.default_rng(seed).normal(size=n)


#: (name, function, arguments away from the point, arguments at it, the derivative there or None
#: when srcdiff is to say NaN: the continuation's derivative, which the code never evaluates)
PROGRAMS = [
    ("rodrigues_if", rodrigues_if, (_r(3), np.array([0.3, -0.5, 0.8])), (np.zeros(3), np.array([0.3, -0.5, 0.8])),
     None),
    ("rodrigues_where", rodrigues_where, (_r(3), np.array([0.3, -0.5, 0.8])),
     (np.zeros(3), np.array([0.3, -0.5, 0.8])), None),
    ("hypot_identity", hypot_identity, (_r(2),), (np.zeros(2),), np.array([1.0, 2.0])),
    ("norm_cubed", norm_cubed, (_r(3),), (np.zeros(3),), np.ones(3)),
    ("dot_scaled", dot_scaled, (_r(3),), (np.zeros(3),), np.zeros(3)),
    ("sinc_radius", sinc_radius, (_r(3),), (np.zeros(3),), None),
    ("unit_direction_if", unit_direction_if, (_r(3), _r(3, 6)), (np.zeros(3), _r(3, 6)), None),
    ("rows_hypot", rows_hypot, (_r(4).reshape(2, 2),), (np.array([[0.0, 0.0], [0.3, -0.4]]),), None),
    ("early_return", early_return, (_r(3),), (np.zeros(3),), None),
    ("zero_on_the_left", zero_on_the_left, (_r(3),), (np.zeros(3),), np.array([0.0, 2.0, 0.0])),
    ("measure_inline_if", measure_inline_if, (_r(3),), (np.zeros(3),), None),
    ("measure_inline_where", measure_inline_where, (_r(3),), (np.zeros(3),), np.array([0.0, 1.0, 0.0])),
    ("sum_of_squares_where", sum_of_squares_where, (_r(3), _r(3, 7)),
     (np.array([0.0, 0.4, -0.3]), np.array([0.0, 0.2, 0.5])), None),
]
