"""Wave 32h: everyday Python idioms inside numerical code: ``first, *rest = w``, ``zip(w[:-1], w[1:])``,
``zip(*pairs)``, dict comprehensions of parameters, ``np.add.at`` assembly, reversed cumulative sums
by ``[::-1]``, ``scipy.special.logsumexp`` with weights, ``np.triu_indices`` pairs, ``math.hypot`` and
``math.atan2`` on array items, lambdas in a list of basis functions, fixed-point iterations with a
tolerance ``break``, ``np.interp`` of values, ``np.clip(x, lo, None)``, keyword-only helpers,
validation with ``any()``, float32 arrays through math functions, slice updates in loops."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

RNG = np.random.default_rng(326)


def star_unpack(w):
    first, *rest = w
    return first ** 2 + sum(r * first for r in rest) + np.sum(np.array(rest) ** 2)


def adjacent_pairs(w):
    total = 0.0
    for a, b in zip(w[:-1], w[1:]):
        total += (b - a) ** 2 + 0.1 * a * b
    return total


PAIRS = [(0.5, 1.0), (1.5, 2.2), (2.5, 2.9), (3.5, 4.1)]


def zip_star_transpose(theta, pairs=PAIRS):
    xs, ys = zip(*pairs)
    x, y = np.array(xs), np.array(ys)
    return np.sum((theta[0] + theta[1] * x + theta[2] * x ** 2 - y) ** 2)


def dict_comprehension(params):
    scaled = {k: 2.0 * v for k, v in params.items()}
    return np.sum(scaled["a"] ** 2) + np.sum(np.sin(scaled["b"])) * scaled["c"]


ELEMS = np.array([[0, 1], [1, 2], [2, 3], [3, 4]])


def add_at_assembly(k, elems=ELEMS, f=np.array([0.0, 0.0, 0.0, 0.0, 1.0])):  # noqa: B008
    K = np.zeros((5, 5))
    for e, (i, j) in enumerate(elems):
        ke = k[e] * np.array([[1.0, -1.0], [-1.0, 1.0]])
        np.add.at(K, (np.array([i, i, j, j]), np.array([i, j, i, j])), ke.ravel())
    K[0, 0] += 1e3
    u = np.linalg.solve(K, f)
    return u @ f


def reversed_cumsum(r, gamma=0.9):
    disc = gamma ** np.arange(len(r))
    returns = np.cumsum((r * disc)[::-1])[::-1] / disc
    return np.sum(returns ** 2)


def weighted_logsumexp(a, b=np.array([0.2, 0.5, 0.3, 1.0])):  # noqa: B008
    return logsumexp(a, b=b) + 0.1 * np.sum(a ** 2)


def triu_pairs(pos):
    i, j = np.triu_indices(len(pos), k=1)
    r = np.linalg.norm(pos[i] - pos[j], axis=1)
    return np.sum(1.0 / r ** 6 - 1.0 / r ** 3)


def math_on_items(p):
    total = 0.0
    for k in range(0, len(p), 2):
        r = math.hypot(p[k], p[k + 1])
        ang = math.atan2(p[k + 1], p[k])
        total += (r - 1.0) ** 2 + math.sin(ang) ** 2
    return total


BASIS = [lambda t: np.ones_like(t), lambda t: t, lambda t: np.sin(3 * t), lambda t: np.exp(-t)]
TS = np.linspace(0, 2, 12)


def lambda_basis(c, ts=TS, y=np.cos(TS)):  # noqa: B008
    pred = sum(ci * phi(ts) for ci, phi in zip(c, BASIS))
    return np.mean((pred - y) ** 2)


def basis_by_index(c, ts=TS, y=np.cos(TS)):  # noqa: B008
    pred = 0.0
    for i in range(len(BASIS)):
        pred = pred + c[i] * BASIS[i](ts)
    return np.mean((pred - y) ** 2)


def fixed_point(a, tol=1e-12, max_iter=200):
    x = 1.0
    for _ in range(max_iter):
        x_new = math.cos(a * x)
        if abs(x_new - x) < tol:
            break
        x = x_new
    return x_new ** 2


XP = np.linspace(0.0, 1.0, 6)


def interp_values(fp, xq=np.array([0.05, 0.33, 0.52, 0.91])):  # noqa: B008
    return np.sum(np.interp(xq, XP, fp) ** 2) + np.sum(np.diff(fp) ** 2)


def clip_one_sided(w):
    v = np.clip(w, 0.1, None)
    return np.sum(np.log(v) * w)


def _penalty(x, *, scale=1.0, power=2):
    return scale * np.sum(np.abs(x) ** power)


def keyword_only_helper(w):
    return _penalty(w, scale=0.5) + _penalty(np.diff(w), power=4) + np.sum(np.cos(w))


def any_validation(w, data=RNG.uniform(0.5, 1.5, size=6)):  # noqa: B008
    if any(data <= 0):
        raise ValueError("data must be positive")
    if not all(np.isfinite(w)):
        raise ValueError("weights must be finite")
    return np.sum((np.log(data) - w[0] - w[1] * data) ** 2)


def float32_math(w):
    total = 0.0
    for wi in w:
        total += math.exp(-wi) * math.tanh(wi)
    return total


def slice_update_in_loop(w, steps=4):
    u = np.zeros(len(w) + 2)
    for _ in range(steps):
        u[1:-1] += 0.25 * (w - u[1:-1])
        u[1:-1] -= 0.1 * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(u ** 2)


IDIOMS = [
    ("idi_star_unpack", star_unpack, lambda rng: (rng.normal(size=4),), 0),
    ("idi_zip_adjacent", adjacent_pairs, lambda rng: (rng.normal(size=5),), 0),
    ("idi_zip_star_transpose", zip_star_transpose, lambda rng: (np.array([0.2, 1.0, -0.05]),), 0),
    ("idi_dict_comprehension", dict_comprehension,
     lambda rng: ({"a": rng.normal(size=3), "b": rng.normal(size=2), "c": 0.7},), 0),
    ("idi_add_at_assembly", add_at_assembly, lambda rng: (np.array([1.0, 2.0, 1.5, 0.8]),), 0),
    ("idi_reversed_cumsum", reversed_cumsum, lambda rng: (rng.normal(size=6),), 0),
    ("idi_weighted_logsumexp", weighted_logsumexp, lambda rng: (rng.normal(size=4),), 0),
    ("idi_triu_pairs", triu_pairs, lambda rng: (np.eye(4, 3) * 1.2 + 0.1 * rng.normal(size=(4, 3)),), 0),
    ("idi_math_hypot_atan2", math_on_items, lambda rng: (rng.normal(size=4),), 0),
    ("idi_lambda_basis", lambda_basis, lambda rng: (rng.normal(size=4),), 0),
    ("idi_lambda_basis_by_index", basis_by_index, lambda rng: (rng.normal(size=4),), 0),
    ("idi_fixed_point_break", fixed_point, lambda rng: (0.8,), 0),
    ("idi_interp_values", interp_values, lambda rng: (rng.normal(size=6),), 0),
    ("idi_clip_none", clip_one_sided, lambda rng: (rng.uniform(0.3, 2.0, size=5),), 0),
    ("idi_keyword_only_helper", keyword_only_helper, lambda rng: (rng.normal(size=5),), 0),
    ("idi_any_validation", any_validation, lambda rng: (np.array([0.1, 0.2]),), 0),
    ("idi_float32_math_items", float32_math, lambda rng: (rng.normal(size=4).astype(np.float32),), 0),
    ("idi_slice_update_loop", slice_update_in_loop, lambda rng: (rng.normal(size=5),), 0),
]
