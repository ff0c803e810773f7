"""The red team's third wave, part two: geometry (norms, arccos, atan2) and library-style code
(defaults, keyword-only parameters, dataclasses, dicts, namedtuples, partials, closures,
lambdas, comprehensions), written the way users write them.  `LIBRARY3` holds
``(name, function, make, wrt)`` as redteam_wave3.WAVE3 does; redteam_wave3.WAVE3 includes it.
"""

from __future__ import annotations

import collections
import dataclasses
import functools

import numpy as np
from scipy.special import expit, gammaln, logsumexp

# ---- geometry: norms, arccos, atan2 ------------------------------------------------------------


def angle_between(a, b):
    c = np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))
    return np.arccos(np.clip(c, -1.0, 1.0))


def polar_loss(p):
    r = np.hypot(p[:, 0], p[:, 1])
    theta = np.arctan2(p[:, 1], p[:, 0])
    return np.sum(r * np.cos(2.0 * theta))


def triangle_area(v):
    a, b, c = v[0], v[1], v[2]
    return 0.5 * np.linalg.norm(np.cross(b - a, c - a))


def sphere_sdf(points, radius=1.0):
    return np.sum(np.linalg.norm(points, axis=1) - radius)


def capsule_distance(p):
    a, b = np.array([0.0, 0.0]), np.array([1.0, 0.0])
    pa, ba = p - a, b - a
    h = np.clip(np.dot(pa, ba) / np.dot(ba, ba), 0.0, 1.0)
    return np.linalg.norm(pa - ba * h)


def dihedral(x):
    b1, b2, b3 = x[1] - x[0], x[2] - x[1], x[3] - x[2]
    n1, n2 = np.cross(b1, b2), np.cross(b2, b3)
    m = np.cross(n1, b2 / np.linalg.norm(b2))
    return np.arctan2(np.dot(m, n2), np.dot(n1, n2))


def rotation_loss(angle, pts):
    c, s = np.cos(angle), np.sin(angle)
    R = np.array([[c, -s], [s, c]])
    return np.sum((pts @ R.T - pts[::-1]) ** 2)


def normalized_dot(u, v):
    return np.sum(u / np.linalg.norm(u) * v)


def chamfer(a, b):
    d = np.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=-1)
    return np.sum(np.min(d, axis=1)) + np.sum(np.min(d, axis=0))


# ---- library style: defaults, kwargs, dataclasses, dicts, partials, closures --------------------


@dataclasses.dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray


def dataclass_layer(layer, x):
    return np.sum(np.tanh(x @ layer.W + layer.b) ** 2)


def _loss_scaled(x, *, scale=1.0, power=2):
    return scale * np.sum(np.abs(x) ** power)


def kwonly_loss(x, *, scale=2.0):
    return _loss_scaled(x, scale=scale, power=2) + np.sum(np.sin(x))


def _base_loss(x, shift, temperature):
    return np.sum(np.exp((x - shift) / temperature))


PARTIAL_LOSS = functools.partial(_base_loss, shift=0.5, temperature=2.0)


def through_partial(x):
    return PARTIAL_LOSS(x) + np.sum(x ** 2)


def make_regularised(lam):
    def loss(w, X, y):
        r = X @ w - y
        return np.mean(r ** 2) + lam * np.sum(np.abs(w) ** 1.5)
    return loss


closure_loss = make_regularised(0.05)


def config_loss(x, cfg=None):
    cfg = cfg or {}
    scale = cfg.get("scale", 1.0)
    return scale * np.sum(np.log1p(x ** 2))


def nested_tuple_params(params, x):
    (a, b), c = params
    return np.sum(a * x ** 2 + b * x) + c * np.sum(np.cos(x))


def default_eps_norm(x, eps=1e-6):
    return np.sum(x / np.sqrt(np.sum(x * x) + eps))


def method_style(x):
    return Model(2.0).energy(x)


class Model:
    def __init__(self, k):
        self.k = k

    def energy(self, x):
        return 0.5 * self.k * np.sum(x ** 2) + np.sum(np.cos(x))


def list_of_arrays(xs):
    total = 0.0
    for i, x in enumerate(xs):
        total = total + (i + 1.0) * np.sum(np.sin(x))
    return total


def kwargs_forward(x, **opts):
    return np.sum(x ** 2) * opts.get("weight", 1.0)


def float32_mlp(W, x):
    h = np.tanh(x @ W)
    return np.sum(h * h)


# ---- more losses, physics and statistics, written as users write them -------------------------


def focal_loss_clipped(logits, y, gamma=2.0):
    p = np.clip(expit(logits), 1e-7, 1.0 - 1e-7)
    pt = np.where(y > 0.5, p, 1.0 - p)
    return -np.mean((1.0 - pt) ** gamma * np.log(pt))


def kl_masked(logits, q):
    logp = logits - logsumexp(logits)
    return np.sum(np.where(q > 0.0, q * (np.log(np.where(q > 0.0, q, 1.0)) - logp), 0.0))


def cosine_similarity_eps(a, b, eps=1e-8):
    return np.dot(a, b) / max(np.linalg.norm(a) * np.linalg.norm(b), eps)


def triplet_margin(anchor, pos, neg, margin=0.5):
    dp = np.sum((anchor - pos) ** 2, axis=1)
    dn = np.sum((anchor - neg) ** 2, axis=1)
    return np.mean(np.maximum(dp - dn + margin, 0.0))


def _ewma_step(m, x, alpha):
    return alpha * x + (1.0 - alpha) * m


def ewma_loss(alpha, series):
    m = series[0]
    loss = 0.0
    for t in range(1, series.shape[0]):
        loss = loss + (series[t] - m) ** 2
        m = _ewma_step(m, series[t], alpha)
    return loss


def _accel(x, k):
    return -k * x - 0.1 * x ** 3


def spring_rk2(k, x0=1.0, v0=0.0, dt=0.1):
    x, v = x0, v0
    for _ in range(8):
        xm = x + 0.5 * dt * v
        vm = v + 0.5 * dt * _accel(x, k)
        x, v = x + dt * vm, v + dt * _accel(xm, k)
    return 0.5 * v * v + 0.5 * k * x * x


def orbital_energy(pos, vel, mu=1.0):
    return 0.5 * np.dot(vel, vel) - mu / np.linalg.norm(pos)


def kernel_regression(log_bw, X, y):
    bw = np.exp(log_bw)
    d2 = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = np.exp(-0.5 * d2 / bw ** 2)
    pred = K @ y / np.sum(K, axis=1)
    return np.mean((pred - y) ** 2)


def student_t_nll(log_df, x):
    nu = np.exp(log_df)
    return -np.sum(gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu * np.pi)
                   - (nu + 1) / 2 * np.log1p(x ** 2 / nu))


def negbin_softplus(theta, counts):
    r = np.logaddexp(0.0, theta[0])
    logits = theta[1]
    return -np.sum(gammaln(counts + r) - gammaln(r) + r * -np.logaddexp(0.0, logits)
                   + counts * -np.logaddexp(0.0, -logits))


def haversine(latlon):
    lat1, lon1, lat2, lon2 = latlon[0], latlon[1], latlon[2], latlon[3]
    a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    return 2.0 * np.arcsin(np.sqrt(a))


def quaternion_rotate(q, v):
    q = q / np.linalg.norm(q)
    w, u = q[0], q[1:]
    return np.sum(v + 2.0 * np.cross(u, np.cross(u, v) + w * v))


def polygon_area(pts):
    x, y = pts[:, 0], pts[:, 1]
    return 0.5 * np.abs(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


def shoelace_loop(pts):
    area = 0.0
    n = pts.shape[0]
    for i in range(n):
        j = (i + 1) % n
        area = area + pts[i, 0] * pts[j, 1] - pts[j, 0] * pts[i, 1]
    return 0.5 * abs(area)


def lambda_inside(x):
    sq = lambda t: t * t  # noqa: E731  written as users write it
    return np.sum(sq(np.tanh(x)))


def comprehension_l2(ws):
    return sum([np.sum(w ** 2) for w in ws]) + np.sum(ws[0] * ws[1])


def zip_enumerate(weights, xs):
    total = 0.0
    for i, (w, x) in enumerate(zip(weights, xs)):
        total = total + (i + 1) * np.sin(w * x)
    return total


Params = collections.namedtuple("Params", ["scale", "shift"])


def namedtuple_params(p, x):
    return np.sum(np.exp(p.scale * x + p.shift))


def _affine(x, a, b):
    return a * x + b


AFFINE = functools.partial(_affine, 2.0)


def positional_partial(x):
    return np.sum(np.tanh(AFFINE(x, 0.5)))


def make_with_default(scale=2.0):
    def loss(x, s=scale):
        return s * np.sum(np.log1p(x ** 2))
    return loss


default_closure = make_with_default(3.0)


class Physics:
    G = 9.81

    @staticmethod
    def potential(h, m):
        return m * Physics.G * h


def staticmethod_call(h, m):
    return np.sum(Physics.potential(h, m) ** 2)


def einsum_attention(Wq, X):
    Q = np.einsum("nd,de->ne", X, Wq)
    scores = np.einsum("ne,me->nm", Q, X @ Wq)
    return np.sum(np.exp(scores - np.max(scores, axis=1, keepdims=True)))


def dict_loop(params, x):
    out = 0.0
    for key in sorted(params):
        out = out + np.sum(params[key] * x[: params[key].shape[0]])
    return out ** 2


def M(rng, *shape):
    return rng.normal(size=shape)


def P(rng, *shape):
    return rng.uniform(0.2, 0.9, size=shape)


LIBRARY3 = [
    ("angle_between", angle_between, lambda r: (M(r, 3), M(r, 3)), 0),
    ("polar_loss", polar_loss, lambda r: (M(r, 4, 2),), 0),
    ("triangle_area", triangle_area, lambda r: (M(r, 3, 3),), 0),
    ("sphere_sdf", sphere_sdf, lambda r: (M(r, 4, 3),), 0),
    ("capsule_distance", capsule_distance, lambda r: (np.array([0.4, 0.7]),), 0),
    ("dihedral", dihedral, lambda r: (M(r, 4, 3),), 0),
    ("rotation_loss", rotation_loss, lambda r: (0.3, M(r, 4, 2)), 0),
    ("normalized_dot", normalized_dot, lambda r: (M(r, 4), M(r, 4)), 0),
    ("chamfer", chamfer, lambda r: (M(r, 3, 2), M(r, 4, 2)), 0),
    ("dataclass_layer", dataclass_layer, lambda r: (Layer(M(r, 3, 2), M(r, 2)), M(r, 4, 3)), 0),
    ("kwonly_loss", kwonly_loss, lambda r: (M(r, 4),), 0),
    ("through_partial", through_partial, lambda r: (M(r, 4),), 0),
    ("closure_regularised", closure_loss, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("config_loss", config_loss, lambda r: (M(r, 4),), 0),
    ("config_loss_dict", config_loss, lambda r: (M(r, 4), {"scale": 3.0}), 0),
    ("nested_tuple_params", nested_tuple_params, lambda r: (((M(r, 3), M(r, 3)), 0.7), M(r, 3)), 0),
    ("default_eps_norm", default_eps_norm, lambda r: (M(r, 4),), 0),
    ("method_style", method_style, lambda r: (M(r, 4),), 0),
    ("list_of_arrays", list_of_arrays, lambda r: ([M(r, 3), M(r, 2)],), 0),
    ("kwargs_forward", kwargs_forward, lambda r: (M(r, 3),), 0),
    ("float32_mlp", float32_mlp, lambda r: (M(r, 3, 2).astype(np.float32), M(r, 4, 3).astype(np.float32)), 0),
    ("focal_loss_clipped", focal_loss_clipped, lambda r: (M(r, 6), (M(r, 6) > 0).astype(float)), 0),
    ("kl_masked", kl_masked, lambda r: (M(r, 5), np.array([0.2, 0.0, 0.5, 0.3, 0.0])), 0),
    ("cosine_similarity_eps", cosine_similarity_eps, lambda r: (M(r, 4), M(r, 4)), 0),
    ("triplet_margin", triplet_margin, lambda r: (M(r, 4, 3), M(r, 4, 3), M(r, 4, 3)), 0),
    ("ewma_loss", ewma_loss, lambda r: (0.3, M(r, 6)), 0),
    ("ewma_series", ewma_loss, lambda r: (0.3, M(r, 6)), 1),
    ("spring_rk2", spring_rk2, lambda r: (1.5,), 0),
    ("orbital_energy", orbital_energy, lambda r: (M(r, 3), M(r, 3)), 0),
    ("kernel_regression", kernel_regression, lambda r: (0.1, M(r, 5, 2), M(r, 5)), 0),
    ("student_t_nll", student_t_nll, lambda r: (1.2, M(r, 6)), 0),
    ("negbin_softplus", negbin_softplus, lambda r: (M(r, 2), np.array([0.0, 2.0, 5.0, 1.0])), 0),
    ("haversine", haversine, lambda r: (np.array([0.3, 0.1, 0.5, 0.9]),), 0),
    ("quaternion_rotate", quaternion_rotate, lambda r: (M(r, 4), M(r, 3)), 0),
    ("polygon_area", polygon_area, lambda r: (np.array([[0.0, 0.0], [2.0, 0.1], [1.8, 1.5], [0.2, 1.2]]),), 0),
    ("shoelace_loop", shoelace_loop, lambda r: (np.array([[0.0, 0.0], [2.0, 0.1], [1.8, 1.5], [0.2, 1.2]]),), 0),
    ("lambda_inside", lambda_inside, lambda r: (M(r, 4),), 0),
    ("comprehension_l2", comprehension_l2, lambda r: ([M(r, 3), M(r, 3)],), 0),
    ("zip_enumerate", zip_enumerate, lambda r: (M(r, 3), M(r, 3)), 0),
    ("namedtuple_params", namedtuple_params, lambda r: (Params(0.5, -0.2), M(r, 4)), 0),
    ("positional_partial", positional_partial, lambda r: (M(r, 4),), 0),
    ("default_closure", default_closure, lambda r: (M(r, 4),), 0),
    ("staticmethod_call", staticmethod_call, lambda r: (M(r, 4), P(r, 4)), 0),
    ("einsum_attention", einsum_attention, lambda r: (0.3 * M(r, 3, 3), M(r, 4, 3)), 0),
    ("dict_loop", dict_loop, lambda r: ({"a": M(r, 2), "b": M(r, 3)}, M(r, 4)), 0),
]
