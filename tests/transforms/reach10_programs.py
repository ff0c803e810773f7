"""Spellings grad refused after the red team's ninth wave, each written several ways as everyday
code writes it: ``:=`` where it always runs, a nested ``def`` taking ``*terms``, ``math.hypot``
of three or more numbers, ``itertools.pairwise`` and ``itertools.accumulate``, a decorator of the
user's made with ``functools.wraps`` passing ``*args, **kwargs`` on, a lambda among several on one
line (a dict of activations), scipy.stats's negative binomial and geometric laws, a dict
default spread as ``**cfg``, ``np.put_along_axis``, ``scipy.linalg.cho_factor``/``cho_solve``, and a dataclass
state rebuilt in a loop.
test_reach10_spellings.py runs every transformation on them."""

import dataclasses
import functools
import itertools
import math
import operator
from itertools import accumulate, pairwise

import numpy as np
import scipy.linalg
import scipy.linalg as sla
import scipy.special
import scipy.stats

# ---- := where Python always evaluates it ----------------------------------------------------------


def walrus_if(w, X):
    if (n := np.sum(w ** 2)) > 0.5:
        return np.sum(np.tanh(X @ w)) + n
    return np.sum(np.tanh(X @ w))


def walrus_elif(w):
    if np.sum(w) > 10.0:
        return np.sum(w)
    elif (m := np.max(np.abs(w))) > 0.2:
        return m * np.sum(np.sin(w))
    return np.sum(w ** 3)


def walrus_in_assignment(w, X):
    y = (z := X @ w) * np.tanh(z)
    return np.sum(y) + np.sum(z ** 2)


def walrus_in_return(w):
    return np.sum((t := np.tanh(w)) * t) + (s := np.sum(w)) * s


def walrus_loop_iterable(w, X):
    total = 0.0
    for row in (rows := np.tanh(X * w)):
        total = total + np.sum(row ** 2)
    return total + np.sum(rows ** 3)


# ---- a nested function taking *terms ----------------------------------------------------------------


def nested_total(w, X):
    def total(*terms):
        return sum(terms)
    return total(np.sum((X @ w) ** 2), 0.1 * np.sum(w ** 2))


def nested_scaled_parts(w):
    def weighted(scale, *parts):
        acc = 0.0
        for p in parts:
            acc = acc + scale * np.sum(p ** 2)
        return acc / len(parts)
    return weighted(0.5, w, np.sin(w), w[:2] * w[1:])


def nested_two_arities(w):
    def combine(*xs):
        out = 1.0
        for x in xs:
            out = out * x
        return np.sum(out)
    return combine(w, w) + combine(w, np.cos(w), 2.0 * w)


# ---- math.hypot of three or more numbers -----------------------------------------------------------


def hypot_three_squared(p):
    return math.hypot(float(p[0]), float(p[1]), float(p[2])) ** 2


def hypot_four_distance(p):
    return math.log(1.0 + math.hypot(p[0], p[1] - 1.0, p[2], 2.0 * p[3]))


def hypot_points(a, b, c):
    return math.hypot(a, b, c) * math.hypot(a - 1.0, b, c, a * b)


# ---- itertools.pairwise -------------------------------------------------------------------------------


def pairwise_path_sum(pts):
    return sum(np.sum((b - a) ** 2) for a, b in itertools.pairwise(pts))


def pairwise_loop(x):
    total = 0.0
    for a, b in pairwise(x):
        total = total + np.tanh(b - a) * a
    return total


def pairwise_of_a_call(x):
    total = 0.0
    for lo, hi in itertools.pairwise(np.cumsum(np.exp(x))):
        total = total + np.log(hi - lo) * lo
    return total


def pairwise_comprehension(pts):
    steps = [np.sqrt(np.sum((b - a) ** 2) + 1e-3) for a, b in pairwise(pts)]
    return sum(steps)


# ---- itertools.accumulate ------------------------------------------------------------------------------


def accumulate_discounted(r, gamma=0.9):
    return np.sum(np.array(list(itertools.accumulate(r, lambda acc, v: v + gamma * acc))) ** 2)


def accumulate_sums(x):
    running = list(accumulate(x))
    return sum(v * v for v in running)


def accumulate_product_initial(x):
    total = 0.0
    for v in itertools.accumulate(x, operator.mul, initial=1.5):
        total = total + v
    return total


def accumulate_summed(x):
    return sum(accumulate(np.sin(x), lambda a, b: 0.5 * a + b))


# ---- a decorator of the user's made with functools.wraps ------------------------------------------------


def halved(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return 0.5 * fn(*args, **kwargs)
    return wrapper


def scaled(factor):
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            value = fn(*args, **kwargs)
            return factor * np.log1p(value)
        return wrapper
    return decorate


def positional_only(fn):
    @functools.wraps(fn)
    def run(*args):
        return fn(*args) ** 2
    return run


@halved
def decorated_halved(w, X):
    return np.sum((X @ w) ** 2)


@scaled(2.0)
def decorated_scaled(w, X, c=0.3):
    return np.sum(np.tanh(X @ w) ** 2) + c


@halved
@positional_only
def decorated_twice(w):
    return np.sum(np.sin(w))


# ---- a lambda among several on one line (a dict or tuple of activations) ----------------------------

ACTIVATIONS = {"swish": lambda z: z * scipy.special.expit(z), "sq": lambda z: z ** 2, "id": lambda z: z}
LOSSES = (lambda r: r ** 2, lambda r: np.log(np.cosh(r)), lambda r: np.sqrt(1.0 + r * r) - 1.0)
SCALES = {"two": lambda z: 2.0 * z ** 3, "three": lambda z: 3.0 * z ** 3}
SUMS = {"plain": lambda z: sum(v for v in z), "doubled": lambda z: sum(2.0 * v * v for v in z)}


def activation_swish(W, X, act="swish"):
    return np.sum(ACTIVATIONS[act](X @ W))


def activation_square(W, X, act="sq"):
    return np.sum(ACTIVATIONS[act](np.tanh(X @ W)))


def loss_from_a_tuple(w, X, y):
    return np.mean(LOSSES[1](X @ w - y)) + np.mean(LOSSES[2](w))


def scale_by_constant(x):
    return np.sum(SCALES["three"](x))


def sum_by_comprehension(x):
    return SUMS["doubled"](np.sin(x))


# ---- scipy.stats discrete laws with a real parameter --------------------------------------------------


def nbinom_log_likelihood(params, counts):
    log_mu, log_r = params
    mu, r = np.exp(log_mu), np.exp(log_r)
    return -np.sum(scipy.stats.nbinom.logpmf(counts, r, r / (r + mu)))


def nbinom_pmf_shifted(p, counts):
    return np.sum(scipy.stats.nbinom.pmf(counts, 2.5 * p[0] + 1.0, 1.0 / (1.0 + np.exp(-p[1])), loc=-1))


def geom_log_likelihood(logit, counts):
    q = scipy.special.expit(logit)
    return np.sum(scipy.stats.geom.logpmf(counts, q)) + np.sum(np.log(scipy.stats.geom.pmf(counts + 1, q)))


# ---- a dict default spread as **cfg or read by key (as a helper too: the tree-wrapped call) ----------


def _penalised(w, *, l1=0.0, l2=0.0, smooth=1e-3):
    return l1 * np.sum(np.sqrt(w ** 2 + smooth)) + l2 * np.sum(w ** 2)


def _powered(x, scale, power):
    return scale * np.sum(np.abs(x) ** power)


def config_splatted(w, X, y, cfg={"l1": 0.1, "l2": 0.05}):  # noqa: B006  read, never written
    return np.mean((X @ w - y) ** 2) + _penalised(w, **cfg)


def config_by_key(w, cfg={"l2": 0.3, "shift": np.array([0.1, -0.2, 0.3])}):  # noqa: B006, B008  read, never written
    return cfg["l2"] * np.sum((w - cfg["shift"]) ** 2) + np.sum(np.sin(w))


def options_to_named_parameters(x, opts={"scale": 2.0, "power": 3}):  # noqa: B006  read, never written
    return _powered(np.tanh(x), **opts) + _powered(x, 0.5, 2)


# ---- np.put_along_axis: an index write ---------------------------------------------------------------

LABELS = np.array([0, 2, 1, 1])
TOP = np.array([[2, 0], [1, 2], [0, 1]])


def smoothed_targets(W, X, labels=LABELS):
    z = X @ W
    target = np.full_like(z, 0.05)
    np.put_along_axis(target, labels[:, None], 0.9, axis=1)
    return -np.sum(target * (z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))))


def values_put_by_row(w, X, top=TOP):
    out = np.zeros((3, 3))
    np.put_along_axis(out, top, np.tanh(X[:3, :2] * w[0]), axis=1)
    return np.sum(out * np.cos(X[:3, :3] @ w))


def column_replaced(X, w, labels=np.array([[1, 0, 3]])):  # noqa: B008  read, never written
    out = X.copy()
    np.put_along_axis(out, labels, w[None, :] ** 2, 0)
    return np.sum(out ** 3) + np.sum(out[:, 0] * X[:, 1])


def cube_last_axis(T, picks=np.array([[[1], [0]], [[2], [1]]])):  # noqa: B008  read, never written
    out = np.sin(T)
    np.put_along_axis(out, picks, 2.0 * T[:, :, :1] ** 2, axis=-1)
    return np.sum(out * T)


# ---- scipy.linalg.cho_factor / cho_solve -------------------------------------------------------------


def gp_marginal_likelihood(log_ell, x, y):
    K = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / np.exp(2.0 * log_ell[0])) + 0.1 * np.eye(x.size)
    c, low = scipy.linalg.cho_factor(K)
    alpha = scipy.linalg.cho_solve((c, low), y)
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(c)))


def lower_factor_matrix_rhs(A, B):
    S = A @ A.T + np.eye(3)
    factor, lower = scipy.linalg.cho_factor(S, lower=True)
    return np.sum(scipy.linalg.cho_solve((factor, lower), B) ** 2) + np.sum(np.diagonal(factor))


def solves_in_a_loop(w, X):
    S = X.T @ X + np.diag(np.exp(w))
    c, low = sla.cho_factor(S, check_finite=False)
    x = np.ones(3)
    for _ in range(2):
        x = sla.cho_solve((c, low), x + w)
    return np.sum(x ** 2)


# ---- an object of the user's rebuilt in a loop whose length is a parameter ------------------------------


@dataclasses.dataclass
class Phase:
    q: np.ndarray
    p: np.ndarray


@dataclasses.dataclass(frozen=True)
class Walker:
    x: np.ndarray
    v: float


@dataclasses.dataclass
class Track:
    pos: np.ndarray
    vel: np.ndarray
    t: float


def symplectic_euler(q0, dt=0.1, steps=3):
    s = Phase(q0, np.zeros_like(q0))
    for _ in range(steps):
        p = s.p - dt * np.sin(s.q)
        s = Phase(s.q + dt * p, p)
    return np.sum(s.q ** 2 + s.p ** 2)


def walker_while(x0, steps=3):
    w = Walker(x0, 0.5)
    k = 0
    while k < steps:
        w = Walker(np.tanh(w.x) + w.v * x0, w.v * 0.9)
        k += 1
    return np.sum(w.x ** 2) * w.v


def track_with_keywords(v0, drag=0.2, steps=4):
    tr = Track(np.zeros_like(v0), v0, 0.0)
    energies = []
    for _ in range(steps):
        tr = Track(pos=tr.pos + 0.1 * tr.vel, vel=tr.vel * (1.0 - drag * np.abs(tr.vel)), t=tr.t + 0.1)
        energies.append(np.sum(tr.vel ** 2))
    return np.sum(tr.pos ** 2) + sum(energies) + tr.t


def _M(r, *shape):
    return r.normal(size=shape)


PROGRAMS = [
    ("walrus_if", walrus_if, lambda r: (r.normal(size=3), _M(r, 4, 3)), 0),
    ("walrus_if_small", walrus_if, lambda r: (0.1 * r.normal(size=3), _M(r, 4, 3)), 0),
    ("walrus_elif", walrus_elif, lambda r: (np.array([0.4, -0.7, 0.3]),), 0),
    ("walrus_in_assignment", walrus_in_assignment, lambda r: (r.normal(size=3), _M(r, 4, 3)), 0),
    ("walrus_in_return", walrus_in_return, lambda r: (r.normal(size=3),), 0),
    ("walrus_loop_iterable", walrus_loop_iterable, lambda r: (r.normal(size=3), _M(r, 4, 3)), 0),
    ("nested_total", nested_total, lambda r: (r.normal(size=3), _M(r, 4, 3)), 0),
    ("nested_scaled_parts", nested_scaled_parts, lambda r: (r.normal(size=3),), 0),
    ("nested_two_arities", nested_two_arities, lambda r: (r.normal(size=3),), 0),
    ("hypot_three_squared", hypot_three_squared, lambda r: (np.array([0.7, -1.2, 2.0]),), 0),
    ("hypot_four_distance", hypot_four_distance, lambda r: (r.normal(size=4),), 0),
    ("hypot_points", hypot_points, lambda r: (0.4, -0.8, 1.1), 0),
    ("hypot_points_c", hypot_points, lambda r: (0.4, -0.8, 1.1), 2),
    ("pairwise_path_sum", pairwise_path_sum, lambda r: (_M(r, 4, 2),), 0),
    ("pairwise_loop", pairwise_loop, lambda r: (r.normal(size=5),), 0),
    ("pairwise_of_a_call", pairwise_of_a_call, lambda r: (r.normal(size=4),), 0),
    ("pairwise_comprehension", pairwise_comprehension, lambda r: (_M(r, 5, 3),), 0),
    ("accumulate_discounted", accumulate_discounted, lambda r: (np.array([0.7, -1.2, 2.0]),), 0),
    ("accumulate_sums", accumulate_sums, lambda r: (r.normal(size=4),), 0),
    ("accumulate_product_initial", accumulate_product_initial, lambda r: (r.normal(size=4),), 0),
    ("accumulate_summed", accumulate_summed, lambda r: (r.normal(size=5),), 0),
    ("decorated_halved", decorated_halved, lambda r: (r.normal(size=3), _M(r, 4, 3)), 0),
    ("decorated_scaled", decorated_scaled, lambda r: (r.normal(size=3), _M(r, 4, 3)), 0),
    ("decorated_twice", decorated_twice, lambda r: (r.normal(size=3),), 0),
    ("activation_swish", activation_swish, lambda r: (_M(r, 3, 2), _M(r, 4, 3)), 0),
    ("activation_square", activation_square, lambda r: (_M(r, 3, 2), _M(r, 4, 3)), 0),
    ("loss_from_a_tuple", loss_from_a_tuple, lambda r: (r.normal(size=3), _M(r, 5, 3), r.normal(size=5)), 0),
    ("scale_by_constant", scale_by_constant, lambda r: (r.normal(size=4),), 0),
    ("sum_by_comprehension", sum_by_comprehension, lambda r: (r.normal(size=4),), 0),
    ("nbinom_log_likelihood", nbinom_log_likelihood, lambda r: (np.array([0.8, 0.3]), np.array([0, 3, 1, 5, 2, 0])), 0),
    ("nbinom_pmf_shifted", nbinom_pmf_shifted, lambda r: (np.array([0.6, -0.4]), np.array([0, 2, 1, 4])), 0),
    ("config_splatted", config_splatted, lambda r: (r.normal(size=3), _M(r, 5, 3), r.normal(size=5)), 0),
    ("config_by_key", config_by_key, lambda r: (r.normal(size=3),), 0),
    ("options_to_named_parameters", options_to_named_parameters, lambda r: (r.normal(size=4),), 0),
    ("smoothed_targets", smoothed_targets, lambda r: (_M(r, 3, 3), _M(r, 4, 3)), 0),
    ("values_put_by_row", values_put_by_row, lambda r: (r.normal(size=3), _M(r, 4, 3)), 0),
    ("column_replaced", column_replaced, lambda r: (_M(r, 4, 3), r.normal(size=3)), 0),
    ("column_replaced_w", column_replaced, lambda r: (_M(r, 4, 3), r.normal(size=3)), 1),
    ("cube_last_axis", cube_last_axis, lambda r: (_M(r, 2, 2, 3),), 0),
    ("gp_marginal_likelihood", gp_marginal_likelihood,
     lambda r: (np.array([0.2]), np.linspace(0.0, 2.0, 5), r.normal(size=5)), 0),
    ("lower_factor_matrix_rhs", lower_factor_matrix_rhs, lambda r: (_M(r, 3, 3), _M(r, 3, 2)), 0),
    ("lower_factor_matrix_rhs_b", lower_factor_matrix_rhs, lambda r: (_M(r, 3, 3), _M(r, 3, 2)), 1),
    ("solves_in_a_loop", solves_in_a_loop, lambda r: (r.normal(size=3) * 0.3, _M(r, 5, 3)), 0),
    ("symplectic_euler", symplectic_euler, lambda r: (np.array([0.4, -1.1]),), 0),
    ("walker_while", walker_while, lambda r: (r.normal(size=3),), 0),
    ("track_with_keywords", track_with_keywords, lambda r: (r.normal(size=3),), 0),
    ("geom_log_likelihood", geom_log_likelihood, lambda r: (np.array([0.3, -0.5, 1.2]), np.array([1, 4, 2])), 0),
]
