"""The red team's fifteenth wave, continued: geometry and graphics (barycentric coordinates solved by
Cramer's rule, signed distances of a box, a capsule and a polynomial smooth union built from
np.maximum / np.minimum / np.clip, a Catmull-Rom spline, a Bezier curve's length by sampling, de Boor's
B-spline recursion, a triangle mesh's area by np.cross, ray-sphere hits with a masked square root,
point-to-segment distances, an angle by a clipped arccos, a pinhole camera's reprojection error,
Laplacian smoothing of a polyline, Blinn-Phong shading) and everyday Python around a numeric core
(keyword-only options with string values, a dataclass of parameters and one of settings, dict
parameters read by name in a loop, list and dict comprehensions, a fixed-point ``while`` with a
tolerance, an early return, ``try`` / ``except ZeroDivisionError`` in a helper, an f-string in an
error branch, enumerate / zip / reversed, a string-keyed global configuration, results gathered in a
list then stacked, a nested helper, a lambda in a dict, a bound method, functools.partial, tuple
returns unpacked, ``*args`` of a helper, ``**kwargs`` passed through, a verbose flag that prints, method-call spellings,
an IIR filter writing y[t] in a loop, nested dict parameters, a swap recurrence, a memo dict in a
recursion, a lambda and a functools.partial handed to an integrator, a list of callable
dataclass layers).
See redteam_wave15.py.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np


def M(rng, *shape):
    return rng.normal(size=shape)


# ---- geometry and graphics -----------------------------------------------------------------------------


def barycentric(p, tri):
    a, b, c = tri
    v0, v1, v2 = b - a, c - a, p - a
    d00, d01, d11 = v0 @ v0, v0 @ v1, v1 @ v1
    d20, d21 = v2 @ v0, v2 @ v1
    denom = d00 * d11 - d01 * d01
    v = (d11 * d20 - d01 * d21) / denom
    w = (d00 * d21 - d01 * d20) / denom
    u = 1.0 - v - w
    return u ** 2 + 2 * v ** 2 + 3 * w ** 2


def sdf_box(p, half):
    q = np.abs(p) - half
    outside = np.linalg.norm(np.maximum(q, 0.0), axis=-1)
    inside = np.minimum(np.max(q, axis=-1), 0.0)
    return np.sum(outside + inside)


def sdf_capsule(p, a, b, radius=0.3):
    pa, ba = p - a, b - a
    h = np.clip(pa @ ba / (ba @ ba), 0.0, 1.0)
    d = np.linalg.norm(pa - h[:, None] * ba, axis=1) - radius
    return np.sum(d ** 2)


def smooth_union(p, c1, c2, k=0.5):
    d1 = np.linalg.norm(p - c1, axis=1) - 0.8
    d2 = np.linalg.norm(p - c2, axis=1) - 0.6
    h = np.clip(0.5 + 0.5 * (d2 - d1) / k, 0.0, 1.0)
    d = d2 * (1 - h) + d1 * h - k * h * (1 - h)
    return np.sum(d)


def catmull_rom(ctrl, ts):
    total = 0.0
    n = len(ctrl) - 3
    for t in ts:
        i = min(int(t * n), n - 1)
        s = t * n - i
        p0, p1, p2, p3 = ctrl[i], ctrl[i + 1], ctrl[i + 2], ctrl[i + 3]
        pt = 0.5 * ((2 * p1) + (-p0 + p2) * s + (2 * p0 - 5 * p1 + 4 * p2 - p3) * s ** 2
                    + (-p0 + 3 * p1 - 3 * p2 + p3) * s ** 3)
        total = total + np.sum(pt ** 2)
    return total


def bezier_length(P, samples=16):
    t = np.linspace(0.0, 1.0, samples)[:, None]
    pts = ((1 - t) ** 3 * P[0] + 3 * (1 - t) ** 2 * t * P[1] + 3 * (1 - t) * t ** 2 * P[2] + t ** 3 * P[3])
    seg = np.diff(pts, axis=0)
    return np.sum(np.sqrt(np.sum(seg ** 2, axis=1)))


def de_boor(ctrl, x, knots, degree=3):
    k = int(np.searchsorted(knots, x, side="right")) - 1
    d = [ctrl[j + k - degree] for j in range(degree + 1)]
    for r in range(1, degree + 1):
        for j in range(degree, r - 1, -1):
            alpha = (x - knots[j + k - degree]) / (knots[j + 1 + k - r] - knots[j + k - degree])
            d[j] = (1.0 - alpha) * d[j - 1] + alpha * d[j]
    return d[degree]


def bspline_fit(ctrl, xs, ys):
    knots = np.array([0, 0, 0, 0, 0.5, 1, 1, 1, 1.0])
    return sum((de_boor(ctrl, x, knots) - y) ** 2 for x, y in zip(xs, ys))


def mesh_area(V, faces):
    a, b, c = V[faces[:, 0]], V[faces[:, 1]], V[faces[:, 2]]
    n = np.cross(b - a, c - a)
    return 0.5 * np.sum(np.linalg.norm(n, axis=1))


def ray_sphere(center, origins, dirs, radius=1.0):
    oc = origins - center
    b = np.sum(oc * dirs, axis=1)
    c = np.sum(oc ** 2, axis=1) - radius ** 2
    disc = b * b - c
    hit = disc > 0
    t = -b - np.sqrt(np.where(hit, disc, 1.0))
    return np.sum(np.where(hit, t, 10.0))


def point_segment_distance(p, a, b):
    ab = b - a
    t = np.clip(np.dot(p - a, ab) / np.dot(ab, ab), 0.0, 1.0)
    closest = a + t * ab
    return np.sum((p - closest) ** 2)


def angle_between(u, v):
    c = np.dot(u, v) / (np.linalg.norm(u) * np.linalg.norm(v))
    return np.arccos(np.clip(c, -1.0, 1.0))


def reprojection_error(cam, X, uv, f=500.0):
    rvec_z, tx, ty, tz = cam
    c, s = np.cos(rvec_z), np.sin(rvec_z)
    R = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    Xc = X @ R.T + np.array([tx, ty, tz])
    proj = f * Xc[:, :2] / Xc[:, 2:3]
    return np.mean(np.sum((proj - uv) ** 2, axis=1))


def laplacian_smoothing(pts, lam=0.3, iters=3):
    for _ in range(iters):
        inner = pts[1:-1] + lam * (0.5 * (pts[:-2] + pts[2:]) - pts[1:-1])
        pts = np.vstack([pts[:1], inner, pts[-1:]])
    return np.sum(np.diff(pts, axis=0) ** 2)


def blinn_phong(normal, light, view, shininess=16.0):
    n = normal / np.linalg.norm(normal)
    l = light / np.linalg.norm(light)  # noqa: E741
    h = l + view
    h = h / np.linalg.norm(h)
    diffuse = max(np.dot(n, l), 0.0)
    specular = max(np.dot(n, h), 0.0) ** shininess
    return 0.7 * diffuse + 0.3 * specular


# ---- everyday Python -----------------------------------------------------------------------------------


def regularised_loss(w, X, y, *, reg=0.1, kind="l2", link="identity"):
    z = X @ w
    if link == "logistic":
        pred = 1.0 / (1.0 + np.exp(-z))
    elif link == "identity":
        pred = z
    else:
        raise ValueError(f"unknown link {link!r}")
    data = np.mean((pred - y) ** 2)
    if kind == "l2":
        penalty = np.sum(w ** 2)
    elif kind == "l1":
        penalty = np.sum(np.abs(w))
    else:
        raise ValueError(f"unknown penalty {kind}")
    return data + reg * penalty


def call_with_keywords(w, X, y):
    return regularised_loss(w, X, y, reg=0.05, kind="l1", link="logistic")


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float
    log_scale: float


@dataclasses.dataclass(frozen=True)
class Settings:
    l2: float = 0.01
    huber_delta: float = 1.0
    use_bias: bool = True


def dataclass_regression(p, X, y, settings=Settings()):
    pred = X @ p.w
    if settings.use_bias:
        pred = pred + p.b
    r = (pred - y) / np.exp(p.log_scale)
    d = settings.huber_delta
    loss = np.where(np.abs(r) < d, 0.5 * r ** 2, d * (np.abs(r) - 0.5 * d))
    return np.sum(loss) + X.shape[0] * p.log_scale + settings.l2 * np.sum(p.w ** 2)


LAYERS = ("dense1", "dense2", "out")


def dict_layers_by_name(params, x):
    h = x
    for name in LAYERS:
        h = h @ params[name]
        if name != "out":
            h = np.tanh(h)
    return float(np.sum(h ** 2))


def comprehension_pairs(As, x):
    terms = [np.dot(A @ x, x) for A in As]
    norms = {i: np.sum((A @ x) ** 2) for i, A in enumerate(As)}
    return sum(terms) + 0.1 * sum(norms.values())


def fixed_point_tolerance(a, tol=1e-12, max_iter=200):
    x = 0.5
    for _ in range(max_iter):
        x_new = math.cos(a * x)
        if abs(x_new - x) < tol:
            break
        x = x_new
    return x_new


def fixed_point_while(a):
    x, dx = 1.0, 1.0
    it = 0
    while abs(dx) > 1e-10 and it < 500:
        x_new = 0.5 * (x + a / x)
        dx = x_new - x
        x = x_new
        it += 1
    return x


def early_return(x):
    if np.all(x > 0):
        return np.sum(np.log(x))
    if np.any(np.isnan(x)):
        return np.nan
    return np.sum(np.log1p(x ** 2))


def _safe_ratio(a, b):
    try:
        return a / b
    except ZeroDivisionError:
        return 0.0


def try_except_helper(x):
    total = 0.0
    for i in range(len(x) - 1):
        total += _safe_ratio(float(x[i]), float(x[i + 1]) ** 2 + 1.0)
    return total


def _checked(v):
    if v.ndim != 1:
        raise ValueError(f"expected a vector, got shape {v.shape}")
    if not np.all(np.isfinite(v)):
        raise ValueError(f"non-finite entries: {v[~np.isfinite(v)]}")
    return v


def fstring_guard(x, w):
    x = _checked(x)
    return np.sum(w * np.sin(x) ** 2)


def enumerate_weighted(x):
    total = 0.0
    for i, xi in enumerate(x):
        total += (i + 1) * xi ** 2 - math.sin(xi) / (i + 2)
    return total


def zip_reversed(x, y):
    acc = 0.0
    for a, b in zip(reversed(x), y):
        acc = 0.5 * acc + a * b
    return acc


CONFIG = {"activation": "softplus", "scale": 2.0, "normalise": True}


def string_config(w, X):
    z = CONFIG["scale"] * (X @ w)
    if CONFIG["activation"] == "relu":
        h = np.maximum(z, 0)
    elif CONFIG["activation"] == "softplus":
        h = np.log1p(np.exp(-np.abs(z))) + np.maximum(z, 0)
    else:
        h = z
    if CONFIG["normalise"]:
        h = h / (1.0 + np.sum(h))
    return np.sum(h ** 2)


def gather_then_stack(W, xs):
    outs = []
    for x in xs:
        outs.append(np.tanh(W @ x))
    Y = np.stack(outs)
    return np.sum(Y.mean(axis=0) ** 2)


def nested_helper(x, lam=0.3):
    def penalty(v):
        return lam * np.sum(v ** 2)

    def data_term(v):
        return np.sum(np.cos(v))
    return data_term(x) + penalty(x)


LOSSES = {"mse": lambda r: np.mean(r ** 2), "mae_smooth": lambda r: np.mean(np.sqrt(r ** 2 + 1e-3)),
          "logcosh": lambda r: np.mean(np.log(np.cosh(r)))}


def lambda_in_dict(w, X, y, loss="logcosh"):
    return LOSSES[loss](X @ w - y)


class Model:
    def __init__(self, X, y, l2=0.1):
        self.X = X
        self.y = y
        self.l2 = l2

    def loss(self, w):
        r = self.X @ w - self.y
        return r @ r / len(r) + self.l2 * w @ w


_R = np.random.default_rng(1515)
BOUND = Model(_R.normal(size=(6, 3)), _R.normal(size=6)).loss


def _huber(r, delta):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))


def partial_loss(w, X, y, loss_fn=functools.partial(_huber, delta=0.5)):  # noqa: B008  as users write it
    return np.sum(loss_fn(X @ w - y))


def _moments(x):
    m = x.mean()
    v = ((x - m) ** 2).mean()
    return m, v, x.size


def tuple_unpacked(x):
    m, v, n = _moments(x)
    skew = np.mean((x - m) ** 3) / v ** 1.5
    return skew + m ** 2 + v / n


def _combine(*terms, weight=1.0):
    return weight * sum(terms)


def star_args_helper(x):
    return _combine(np.sum(x ** 2), np.sum(np.sin(x)), np.prod(x[:2]), weight=0.5)


def verbose_flag(w, X, y, verbose=False):
    r = X @ w - y
    loss = 0.5 * r.dot(r)
    if verbose:
        print(f"loss={loss:.4f} |w|={np.linalg.norm(w):.3f}")
    return loss


def method_spellings(A, x):
    y = A.dot(x)
    z = (A.T @ y).clip(-2.0, 2.0)
    return y.sum() + z.max() + (A ** 2).mean(axis=1).sum() + y.reshape(-1, 1).T.dot(y.reshape(-1, 1)).item()


def while_countdown(x):
    n = len(x)
    total = 0.0
    while n > 0:
        n -= 1
        total = total * 0.9 + x[n] ** 3
    return total


def range_step_slices(x):
    total = 0.0
    for i in range(0, len(x) - 1, 2):
        total += x[i] * x[i + 1]
    return total + np.sum(x[::3] ** 2)


def iir_filter(a, x):
    y = np.zeros(len(x))
    y[0] = x[0]
    for t in range(1, len(x)):
        y[t] = a * y[t - 1] + x[t]
    return np.sum(y ** 2)


def nested_dict_autoencoder(params, X):
    h = np.tanh(X @ params["enc"]["W"] + params["enc"]["b"])
    out = h @ params["dec"]["W"]
    return np.sum((out - X) ** 2)


def _kw_helper(x, scale=1.0, power=2):
    return scale * np.sum(np.abs(x) ** power)


def kwargs_passthrough(x, **kw):
    return _kw_helper(x, **kw) + np.sum(np.cos(x))


def kwargs_caller(x):
    return kwargs_passthrough(x, scale=0.5, power=3)


def swap_recurrence(c, n=6):
    a, b = c[0], c[1]
    for _ in range(n):
        a, b = b, 0.5 * a + np.sin(b)
    return a * b


def memo_recursion(x, n=5, memo=None):
    if memo is None:
        memo = {}
    if n in memo:
        return memo[n]
    if n < 2:
        return x ** (n + 1)
    v = 0.5 * memo_recursion(x, n - 1, memo) + 0.3 * memo_recursion(x, n - 2, memo)
    memo[n] = v
    return v


def _euler(f, y, dt, n=3):
    for _ in range(n):
        y = y + dt * f(y)
    return y


def lambda_rhs(k, y0):
    return np.sum(_euler(lambda y: -k * y ** 3, y0, 0.1) ** 2)


def _rate(y, k):
    return -k * y ** 3


def partial_rhs(k, y0):
    return np.sum(_euler(functools.partial(_rate, k=k), y0, 0.1) ** 2)


@dataclasses.dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray

    def __call__(self, x):
        return np.tanh(self.W @ x + self.b)


def _apply_layers(layers, x):
    for layer in layers:
        x = layer(x)
    return x


def callable_layer_list(x, layers):
    return np.sum(_apply_layers(layers, x) ** 2)


def _tri(r):
    return np.array([[0.0, 0.0], [2.0, 0.1], [0.3, 1.7]])


def _faces():
    return np.array([[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]])


GEOMETRY15 = [
    ("w15_barycentric_point", barycentric, lambda r: (np.array([0.6, 0.5]), _tri(r)), 0),
    ("w15_barycentric_triangle", barycentric, lambda r: (np.array([0.6, 0.5]), _tri(r)), 1),
    ("w15_sdf_box", sdf_box, lambda r: (1.5 * M(r, 6, 3), np.array([0.5, 0.8, 0.3])), 0),
    ("w15_sdf_box_half", sdf_box, lambda r: (1.5 * M(r, 6, 3), np.array([0.5, 0.8, 0.3])), 1),
    ("w15_sdf_capsule", sdf_capsule, lambda r: (M(r, 5, 2), np.array([-0.5, 0.0]), np.array([0.7, 0.4])), 0),
    ("w15_sdf_capsule_ends", sdf_capsule, lambda r: (M(r, 5, 2), np.array([-0.5, 0.0]), np.array([0.7, 0.4])), 2),
    ("w15_smooth_union", smooth_union, lambda r: (M(r, 6, 2), np.array([0.3, 0.0]), np.array([-0.4, 0.2])), 0),
    ("w15_catmull_rom", catmull_rom, lambda r: (M(r, 6, 2), [0.1, 0.35, 0.6, 0.9]), 0),
    ("w15_bezier_length", bezier_length, lambda r: (M(r, 4, 2),), 0),
    ("w15_bspline_fit", bspline_fit, lambda r: (M(r, 5), [0.1, 0.3, 0.55, 0.8], [0.0, 1.0, 0.5, -0.2]), 0),
    ("w15_mesh_area", mesh_area, lambda r: (M(r, 4, 3), _faces()), 0),
    ("w15_ray_sphere", ray_sphere, lambda r: (np.array([0.1, 0.2, 3.0]), 0.3 * M(r, 5, 3),
                                              np.tile(np.array([0.0, 0.0, 1.0]), (5, 1))), 0),
    ("w15_point_segment", point_segment_distance, lambda r: (np.array([0.3, 0.9]), np.array([0.0, 0.0]),
                                                             np.array([1.0, 0.2])), 0),
    ("w15_angle_between", angle_between, lambda r: (M(r, 3), M(r, 3)), 0),
    ("w15_reprojection", reprojection_error, lambda r: (np.array([0.1, 0.05, -0.02, 5.0]), M(r, 6, 3),
                                                        50 * M(r, 6, 2)), 0),
    ("w15_laplacian_smoothing", laplacian_smoothing, lambda r: (M(r, 6, 2),), 0),
    ("w15_blinn_phong", blinn_phong, lambda r: (np.array([0.1, 0.2, 1.0]), np.array([0.3, 0.5, 1.0]),
                                                np.array([0.0, 0.0, 1.0])), 0),
]

IDIOMS15 = [
    ("w15_regularised_defaults", regularised_loss, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("w15_call_with_keywords", call_with_keywords, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("w15_dataclass_regression", dataclass_regression,
     lambda r: (Params(M(r, 3), 0.2, 0.1), M(r, 7, 3), 2 * M(r, 7)), 0),
    ("w15_dict_layers_by_name", dict_layers_by_name,
     lambda r: ({"dense1": 0.5 * M(r, 3, 4), "dense2": 0.5 * M(r, 4, 4), "out": M(r, 4, 1)}, M(r, 3)), 0),
    ("w15_comprehension_pairs", comprehension_pairs, lambda r: ([M(r, 3, 3) for _ in range(3)], M(r, 3)), 1),
    ("w15_comprehension_pairs_As", comprehension_pairs, lambda r: ([M(r, 3, 3) for _ in range(3)], M(r, 3)), 0),
    ("w15_fixed_point_tolerance", fixed_point_tolerance, lambda r: (0.7,), 0),
    ("w15_fixed_point_while", fixed_point_while, lambda r: (2.0,), 0),
    ("w15_early_return", early_return, lambda r: (np.abs(M(r, 4)) + 0.1,), 0),
    ("w15_early_return_fallback", early_return, lambda r: (M(r, 4),), 0),
    ("w15_try_except_helper", try_except_helper, lambda r: (M(r, 5),), 0),
    ("w15_fstring_guard", fstring_guard, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w15_enumerate_weighted", enumerate_weighted, lambda r: (M(r, 5),), 0),
    ("w15_zip_reversed", zip_reversed, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w15_string_config", string_config, lambda r: (M(r, 3), M(r, 5, 3)), 0),
    ("w15_gather_then_stack", gather_then_stack, lambda r: (0.5 * M(r, 3, 2), [M(r, 2) for _ in range(4)]), 0),
    ("w15_nested_helper", nested_helper, lambda r: (M(r, 4),), 0),
    ("w15_lambda_in_dict", lambda_in_dict, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("w15_bound_method", BOUND, lambda r: (M(r, 3),), 0),
    ("w15_partial_default", partial_loss, lambda r: (M(r, 3), M(r, 6, 3), 2 * M(r, 6)), 0),
    ("w15_tuple_unpacked", tuple_unpacked, lambda r: (M(r, 6),), 0),
    ("w15_star_args_helper", star_args_helper, lambda r: (M(r, 4),), 0),
    ("w15_verbose_flag", verbose_flag, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("w15_method_spellings", method_spellings, lambda r: (M(r, 3, 3), M(r, 3)), 0),
    ("w15_while_countdown", while_countdown, lambda r: (M(r, 5),), 0),
    ("w15_range_step_slices", range_step_slices, lambda r: (M(r, 7),), 0),
    ("w15_iir_filter_coef", iir_filter, lambda r: (0.7, M(r, 6)), 0),
    ("w15_iir_filter_input", iir_filter, lambda r: (0.7, M(r, 6)), 1),
    ("w15_nested_dict_autoencoder", nested_dict_autoencoder,
     lambda r: ({"enc": {"W": M(r, 3, 2), "b": M(r, 2)}, "dec": {"W": M(r, 2, 3)}}, M(r, 4, 3)), 0),
    ("w15_kwargs_passthrough", kwargs_caller, lambda r: (M(r, 3),), 0),
    ("w15_swap_recurrence", swap_recurrence, lambda r: (M(r, 2),), 0),
    ("w15_memo_recursion", memo_recursion, lambda r: (0.7,), 0),
    ("w15_lambda_rhs", lambda_rhs, lambda r: (0.7, np.array([0.8, -0.4])), 0),
    ("w15_partial_rhs", partial_rhs, lambda r: (0.7, np.array([0.8, -0.4])), 0),
    ("w15_callable_layer_list", callable_layer_list,
     lambda r: (M(r, 3), [Layer(0.5 * M(r, 3, 3), M(r, 3)), Layer(0.5 * M(r, 2, 3), M(r, 2))]), 0),
]

EVERYDAY15 = GEOMETRY15 + IDIOMS15
