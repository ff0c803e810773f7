"""The red team's twelfth wave, continued: Python idioms.  Lambdas made in a loop (late binding, and
the ``k=k`` default that fixes it), functools.lru_cache on a static helper and cached_property on a
model, classmethod constructors, a property setter, inheritance through super(), a container class
with __getitem__/__len__/__iter__, IntEnum members as indices, enum.auto dispatch through a dict,
match with mapping and class patterns, getattr(np, name), **kwargs forwarding, generator pipelines
and a generator filtering on the differentiated values, itertools.combinations / zip_longest /
cycle / groupby / starmap, operator.mul in reduce, min(..., key=) choosing an element, recursion (de
Casteljau, an expression tree of tuples), try/except ZeroDivisionError, math.log with a base /
log2 / hypot of three / dist / fmod.  NumPy conveniences and trees are in redteam_wave12_numpy.py.
See redteam_wave12.py."""

from __future__ import annotations

import dataclasses
import enum
import functools
import itertools
import math
import operator

import numpy as np

# ---- closures and caches ------------------------------------------------------------------------


def late_binding_lambdas(x):
    fs = [lambda v: v * k for k in range(1, 4)]  # every lambda sees k = 3, as Python says  # noqa: B023
    return sum(np.sum(f(x) ** 2) for f in fs)


def default_bound_lambdas(x):
    fs = [lambda v, k=k: np.sin(k * v) for k in range(1, 4)]
    return sum(np.sum(f(x)) for f in fs)


@functools.lru_cache(maxsize=None)
def _binomial_row(n):
    return tuple(math.comb(n, k) for k in range(n + 1))


def lru_cached_coefficients(x, n=4):
    coeffs = np.array(_binomial_row(n), dtype=float)
    powers = np.stack([x ** k * (1 - x) ** (n - k) for k in range(n + 1)])
    return np.sum(coeffs @ powers)


class Quadratic:
    def __init__(self, A, b):
        self.A, self.b = A, b

    @functools.cached_property
    def sym(self):
        return 0.5 * (self.A + self.A.T)

    @classmethod
    def from_params(cls, p):
        return cls(p["A"], p["b"])

    def __call__(self, x):
        return 0.5 * x @ self.sym @ x - self.b @ x


def cached_property_model(params, x):
    return Quadratic.from_params(params)(x)


class Scaled:
    def __init__(self, w):
        self._w = w
        self._scale = 1.0

    @property
    def scale(self):
        return self._scale

    @scale.setter
    def scale(self, value):
        self._scale = value * 2.0

    def energy(self, x):
        return self.scale * np.sum((self._w * x) ** 2)


def property_setter(w, x):
    m = Scaled(w)
    m.scale = np.sum(w)
    return m.energy(x)


class Layer:
    def __init__(self, W):
        self.W = W

    def __call__(self, h):
        return np.tanh(h @ self.W)


class ResidualLayer(Layer):
    def __call__(self, h):
        return h + super().__call__(h)


class Stack:
    def __init__(self, layers):
        self._layers = list(layers)

    def __len__(self):
        return len(self._layers)

    def __getitem__(self, i):
        return self._layers[i]

    def __iter__(self):
        return iter(self._layers)


def inheritance_container(Ws, x):
    net = Stack([ResidualLayer(W) for W in Ws])
    h = x
    for layer in net:
        h = layer(h)
    return np.sum(h ** 2) + np.sum(net[len(net) - 1].W)


# ---- enums, match, strings ----------------------------------------------------------------------


class Axis(enum.IntEnum):
    X = 0
    Y = 1
    Z = 2


def intenum_index(p):
    return p[Axis.X] ** 2 + np.sin(p[Axis.Z]) * p[Axis.Y]


class Act(enum.Enum):
    TANH = enum.auto()
    SOFTPLUS = enum.auto()


ACTS = {Act.TANH: np.tanh, Act.SOFTPLUS: lambda v: np.logaddexp(0.0, v)}


def enum_auto_dispatch(w, x, acts=(Act.TANH, Act.SOFTPLUS)):
    h = x * w
    for a in acts:
        h = ACTS[a](h)
    return np.sum(h)


def match_mapping(w, x, cfg=None):
    cfg = cfg or {"kind": "huber", "delta": 0.5}
    r = x * w - 1.0
    match cfg:
        case {"kind": "huber", "delta": d}:
            loss = np.where(np.abs(r) <= d, 0.5 * r ** 2, d * (np.abs(r) - 0.5 * d))
        case {"kind": "l2"}:
            loss = r ** 2
        case _:
            raise ValueError(cfg)
    return np.sum(loss)


@dataclasses.dataclass
class Gauss:
    mu: float
    sigma: float


@dataclasses.dataclass
class Laplace:
    mu: float
    b: float


def match_class(theta, x):
    dist = Gauss(theta[0], math.exp(theta[1])) if x.size > 3 else Laplace(theta[0], math.exp(theta[1]))
    match dist:
        case Gauss(mu=m, sigma=s):
            return np.sum(0.5 * ((x - m) / s) ** 2) + x.size * math.log(s)
        case Laplace(mu=m, b=b):
            return np.sum(np.abs(x - m) / b) + x.size * math.log(b)


def getattr_numpy(w, x, name="tanh"):
    act = getattr(np, name)
    return np.sum(act(x @ w))


def _inner_loss(w, x, scale=1.0, power=2):
    return scale * np.sum(np.abs(np.sin(x * w)) ** power)


def kwargs_forwarding(w, x, **kw):
    kw.setdefault("scale", 0.5)
    return _inner_loss(w, x, **kw) + _inner_loss(w, x, power=3, **{"scale": 1.0})


# ---- generators and itertools -------------------------------------------------------------------


def _scaled(xs, s):
    for v in xs:
        yield s * v


def _shifted(xs, c):
    for v in xs:
        yield v + c


def generator_pipeline(x):
    return sum(np.exp(-v * v) for v in _shifted(_scaled(x, 0.5), 0.1))


def generator_filter_values(x):
    return sum(v ** 2 for v in x if v > 0) + sum(math.sin(v) for v in x if v <= 0)


def combinations_energy(x):
    pts = x.reshape(-1, 2)
    e = 0.0
    for i, j in itertools.combinations(range(len(pts)), 2):
        d = pts[i] - pts[j]
        e += 1.0 / (0.1 + d @ d)
    return e


def zip_longest_weights(x, w=(0.5, 2.0)):
    return sum(a * b for a, b in itertools.zip_longest(x, w, fillvalue=1.0))


def cycle_zip(x):
    signs = itertools.cycle([1.0, -1.0, 0.5])
    return sum(s * math.tanh(v) for v, s in zip(x, signs))


def groupby_static(x, groups=(0, 0, 1, 1, 1, 2)):
    total = 0.0
    for _, members in itertools.groupby(range(len(groups)), key=lambda i: groups[i]):
        idx = list(members)
        total += np.max(x[idx]) + np.mean(x[idx]) ** 2
    return total


def starmap_reduce(x, y):
    terms = itertools.starmap(operator.mul, zip(x, y))
    return functools.reduce(operator.add, terms) + functools.reduce(operator.mul, x)


def min_key_select(x):
    best = min(range(len(x)), key=lambda i: abs(x[i] - 0.3))
    return x[best] ** 2 + np.sum(x)


# ---- recursion, exceptions, math ----------------------------------------------------------------


def _casteljau(pts, t):
    if len(pts) == 1:
        return pts[0]
    return _casteljau([(1 - t) * a + t * b for a, b in zip(pts[:-1], pts[1:])], t)


def de_casteljau(ctrl, ts=(0.2, 0.5, 0.9)):
    pts = list(ctrl.reshape(-1, 2))
    return sum(np.sum(_casteljau(pts, t) ** 2) for t in ts)


def _evaluate(node, x):
    if isinstance(node, str):
        return x[int(node[1:])]
    if isinstance(node, float):
        return node
    op, left, right = node
    a, b = _evaluate(left, x), _evaluate(right, x)
    return a + b if op == "add" else a * b if op == "mul" else a / b


TREE = ("add", ("mul", "x0", ("add", "x1", 2.0)), ("div", "x2", ("add", ("mul", "x0", "x0"), 1.0)))


def expression_tree(x):
    return _evaluate(TREE, x)


def try_zero_division(x, y):
    total = 0.0
    for a, b in zip(x, y):
        try:
            total += float(a) / (b - 1.0)  # Python floats raise at b == 1
        except ZeroDivisionError:
            total += a
    return total


def math_assortment(p):
    a, b, c = p
    return (math.log(a, 2) + math.log2(b) + math.log10(c) + math.hypot(a, b, c) + math.dist((a, b), (c, 1.0))
            + math.fmod(a * 5.0, 1.3) + math.degrees(math.erfc(b)) / 100 + math.gamma(c))


def M(rng, *shape):
    return rng.normal(size=shape)


IDIOMS12 = [
    ("w12_late_binding_lambdas", late_binding_lambdas, lambda r: (M(r, 4),), 0),
    ("w12_default_bound_lambdas", default_bound_lambdas, lambda r: (M(r, 4),), 0),
    ("w12_lru_cached_coefficients", lru_cached_coefficients, lambda r: (np.array([0.2, 0.5, 0.7]),), 0),
    ("w12_cached_property_model", cached_property_model,
     lambda r: ({"A": M(r, 3, 3), "b": M(r, 3)}, M(r, 3)), 0),
    ("w12_property_setter", property_setter, lambda r: (M(r, 3), M(r, 3)), 0),
    ("w12_inheritance_container", inheritance_container, lambda r: ([0.5 * M(r, 3, 3), 0.5 * M(r, 3, 3)], M(r, 3)), 0),
    ("w12_intenum_index", intenum_index, lambda r: (M(r, 3),), 0),
    ("w12_enum_auto_dispatch", enum_auto_dispatch, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w12_match_mapping", match_mapping, lambda r: (M(r, 5), M(r, 5)), 0),
    ("w12_match_class", match_class, lambda r: (np.array([0.2, -0.1]), M(r, 5)), 0),
    ("w12_match_class_laplace", match_class, lambda r: (np.array([0.2, -0.1]), np.array([0.5, -0.3, 1.1])), 0),
    ("w12_getattr_numpy", getattr_numpy, lambda r: (M(r, 3, 2), M(r, 4, 3)), 0),
    ("w12_kwargs_forwarding", kwargs_forwarding, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w12_generator_pipeline", generator_pipeline, lambda r: (M(r, 5),), 0),
    ("w12_generator_filter_values", generator_filter_values, lambda r: (M(r, 6),), 0),
    ("w12_combinations_energy", combinations_energy, lambda r: (M(r, 8),), 0),
    ("w12_zip_longest_weights", zip_longest_weights, lambda r: (M(r, 4),), 0),
    ("w12_cycle_zip", cycle_zip, lambda r: (M(r, 7),), 0),
    ("w12_groupby_static", groupby_static, lambda r: (M(r, 6),), 0),
    ("w12_starmap_reduce", starmap_reduce, lambda r: (M(r, 4), M(r, 4)), 0),
    ("w12_min_key_select", min_key_select, lambda r: (np.array([1.2, 0.4, -0.5, 0.9]),), 0),
    ("w12_de_casteljau", de_casteljau, lambda r: (M(r, 8),), 0),
    ("w12_expression_tree", expression_tree, lambda r: (M(r, 3),), 0),
    ("w12_try_zero_division", try_zero_division, lambda r: (M(r, 3), (0.5, 1.0, 2.0)), 0),
    ("w12_math_assortment", math_assortment, lambda r: ((1.37, 0.7, 2.2),), 0),
]
