"""Objects and calls grad refused after the red team's eleventh wave, each written several ways as
everyday code writes them: a user class's operators (``__add__``, ``__mul__``, ``__radd__``,
``__rmul__``, ``__neg__``, ``__sub__``, ``__matmul__``, ``__getitem__``, ``__len__``, ``__call__``,
``+=``, ``sum``) on a small Dual / vector / polynomial class, a ``functools.partial`` of a bound
method and methods passed as values, recursion memoised in a dict or through ``functools.lru_cache``,
``scipy.stats`` moments and frozen distributions (reach12b_stats_programs.py), and a helper updating
its argument in place (``x -= x.mean()``), which the matrix's tree column calls with the argument
taken from a dict.  test_reach12b_objects.py runs every transformation on them."""

import dataclasses
import functools
import math

import numpy as np

from .reach12b_stats_programs import STATS_PROGRAMS

# ---- 1. a user class's operators ------------------------------------------------------------------


class Dual:
    """A forward-mode number: the arithmetic runs through __add__ / __mul__."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __add__(self, other):
        return Dual(self.a + other.a, self.b + other.b)

    def __mul__(self, other):
        return Dual(self.a * other.a, self.a * other.b + self.b * other.a)


def dual_polynomial(x):
    d = Dual(x, 1.0)
    e = d * d + d
    return e.a * e.b


def dual_iterated(x):
    d = Dual(x, 1.0)
    for _ in range(3):
        d = d * d + d
    return d.a + d.b


def _squared(d):
    return d * d


def dual_through_a_helper(x):
    e = _squared(Dual(np.sin(x), x))
    return np.sum(e.a + e.b)


class Vec:
    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        other = other if isinstance(other, Vec) else Vec(other)
        return Vec(self.v + other.v)

    __radd__ = __add__

    def __mul__(self, s):
        return Vec(self.v * s)

    def __rmul__(self, s):
        return Vec(s * self.v)

    def __neg__(self):
        return Vec(-self.v)

    def __sub__(self, other):
        return self + (-other)

    def __matmul__(self, other):
        return np.dot(self.v, other.v)

    def __getitem__(self, i):
        return self.v[i]

    def __len__(self):
        return len(self.v)


def vector_expression(x):
    u = Vec(x)
    w = 2.0 * u + (-u) * 0.5
    return w @ u + w[0] ** 2


def vector_accumulated(x, s):
    u = Vec(np.sin(x))
    acc = Vec(np.zeros_like(x))
    for k in range(3):
        acc = acc + (k + s) * u
    return (acc - u) @ acc + len(u)


def vector_added_in_place(x):
    acc = Vec(np.zeros_like(x))
    for k in range(3):
        acc += (k + 1.0) * Vec(np.sin(x))  # no __iadd__: acc = acc + ..., as Python does
    return acc @ acc


def dual_added_in_place(x):
    acc = Dual(0.0, 0.0)
    d = Dual(x, 1.0)
    acc += d * d
    acc += d
    return acc.a * acc.b


def vector_sum_of_a_list(x):
    vs = [Vec(x), Vec(np.sin(x)), 2.0 * Vec(x * x)]
    total = sum(vs)  # 0 + vs[0] through __radd__, then __add__
    return total @ total


def duals_in_a_list(x):
    ds = [Dual(x, 1.0), Dual(2.0 * x, 0.5)]
    total = ds[0] * ds[1] + ds[0]
    return total.a + total.b


def vector_plus_number(x):
    return np.sum(((Vec(x) + 1.5) - Vec(np.cos(x))).v ** 2)


class Weighted(Vec):
    def __radd__(self, other):  # Python asks a subclass's reflected method before Vec.__add__
        return Weighted(self.v + 2.0 * other.v)


def subclass_reflected(x):
    return np.sum((Vec(x) + Weighted(np.cos(x))).v ** 2)


class Poly:
    def __init__(self, c):
        self.c = c

    def __call__(self, t):
        out = 0.0
        for k in range(len(self.c) - 1, -1, -1):
            out = out * t + self.c[k]
        return out

    def __mul__(self, s):
        return Poly(self.c * s)


def polynomial_scaled(c):
    p = Poly(c) * 3.0
    return p(0.5) + p(-1.0) ** 2


@dataclasses.dataclass
class Point:
    x: float
    y: float

    def __add__(self, other):
        return Point(self.x + other.x, self.y + other.y)

    def __rmul__(self, s):
        return Point(s * self.x, s * self.y)


def dataclass_points(t):
    a, b = Point(t, t * t), Point(np.cos(t), 1.0)
    m = 0.5 * (a + b)
    return m.x * m.y


# ---- 2. partials of methods, methods as values ------------------------------------------------------


class Model:
    def __init__(self, scale):
        self.scale = scale

    def predict(self, w, x):
        return self.scale * np.tanh(w * x)

    def step(self, x, dt=0.5):
        return x + dt * np.sin(self.scale * x)

    def rollout(self, x, n=3):
        stepper = functools.partial(self.step, dt=0.1)
        for _ in range(n):
            x = stepper(x)
        return x

    @staticmethod
    def square(x):
        return x * x

    @classmethod
    def unit(cls):
        return cls(1.0)

    @property
    def double(self):
        return 2.0 * self.scale


def _integrate(f, x, n):
    for _ in range(n):
        x = f(x)
    return x


def partial_of_method(w, xs):
    predict = functools.partial(Model(2.0).predict, w)
    return sum(predict(x) ** 2 for x in xs)


def partial_with_a_keyword(x):
    m = Model(2.0)
    step = functools.partial(m.step, dt=0.1)
    return np.sum(step(step(x)))


def partial_inside_a_method(x):
    return np.sum(Model(1.5).rollout(x))


def method_passed_to_a_helper(x):
    m = Model(1.5)
    return np.sum(_integrate(m.step, x, 3))


def partial_passed_to_a_helper(x, s):
    stepper = functools.partial(Model(s).step, dt=0.1)
    return np.sum(_integrate(stepper, x, 2)) * Model(s).double


def static_and_class_methods(x):
    m = Model.unit()
    return np.sum(m.step(x)) + Model.square(np.sum(x))


class Normed:
    def __init__(self, w):
        self.w = w

    @property
    def norm(self):  # a property computed from the object's array
        return np.sqrt(np.sum(self.w ** 2) + 1.0)

    def __call__(self, x):
        return np.tanh(self.w * x) / self.norm


def property_of_arrays(w, x):
    layer = Normed(w)
    return np.sum(layer(x)) + layer.norm


# ---- 3. memoised recursion ---------------------------------------------------------------------------


def _catalan(n, memo):
    if n in memo:
        return memo[n]
    val = 1.0 if n == 0 else sum(_catalan(i, memo) * _catalan(n - 1 - i, memo) for i in range(n))
    memo[n] = val
    return val


def memo_catalan(x):
    memo = {}
    return sum(_catalan(k, memo) * x ** k / math.factorial(k) for k in range(5))


def _binomial(n, k, cache):
    """C(n, k) by Pascal's rule, cached under (n, k)."""
    if (n, k) in cache:
        return cache[(n, k)]
    if k == 0 or k == n:
        cache[(n, k)] = 1.0
        return cache[(n, k)]
    cache[(n, k)] = _binomial(n - 1, k - 1, cache=cache) + _binomial(n - 1, k, cache=cache)
    return cache[(n, k)]


def memo_pascal(p):
    cache = {}
    return sum(_binomial(4, k, cache) * p[0] ** k * p[1] ** (4 - k) for k in range(5))


@functools.lru_cache(maxsize=None)
def _fib(k):
    return 1.0 if k < 2 else _fib(k - 1) + _fib(k - 2)


def lru_fibonacci_weights(x):
    return sum(_fib(k) * x ** k for k in range(6))


@functools.lru_cache(maxsize=128)
def _power(x, k):
    return 1.0 if k == 0 else x * _power(x, k - 1)


def lru_of_the_value(x):
    return _power(x, 4) + math.sin(_power(x, 2))


# ---- 5. an argument updated in place (the tree column passes it from a dict) -------------------------


def centred_in_place(x, y):
    x -= np.mean(x)
    x *= y
    return np.sum(x ** 2)


def normalised_in_place(w):
    w /= np.sqrt(np.sum(w * w) + 1.0)
    return np.sum(np.sin(w))


def relaxed_in_place(x, h):
    for _ in range(3):
        x += h * np.tanh(x)
    return np.sum(x * x)


def _centre_(x):
    x -= np.mean(x)
    return np.sum(x ** 3)


def dict_leaf_updated_by_a_helper(params, y):
    return _centre_(params["w"]) * y


def _M(r, *shape):
    return 0.5 * r.normal(size=shape)


PROGRAMS = [
    ("dual_polynomial", dual_polynomial, lambda r: (0.7,), 0),
    ("dual_iterated", dual_iterated, lambda r: (0.3,), 0),
    ("dual_through_a_helper", dual_through_a_helper, lambda r: (_M(r, 3),), 0),
    ("vector_expression", vector_expression, lambda r: (_M(r, 3),), 0),
    ("vector_accumulated", vector_accumulated, lambda r: (_M(r, 2), 1.0), 0),
    ("vector_accumulated_s", vector_accumulated, lambda r: (_M(r, 2), 1.0), 1),
    ("vector_added_in_place", vector_added_in_place, lambda r: (_M(r, 2),), 0),
    ("dual_added_in_place", dual_added_in_place, lambda r: (0.7,), 0),
    ("vector_sum_of_a_list", vector_sum_of_a_list, lambda r: (_M(r, 2),), 0),
    ("duals_in_a_list", duals_in_a_list, lambda r: (0.4,), 0),
    ("vector_plus_number", vector_plus_number, lambda r: (_M(r, 3),), 0),
    ("subclass_reflected", subclass_reflected, lambda r: (_M(r, 3),), 0),
    ("polynomial_scaled", polynomial_scaled, lambda r: (_M(r, 3),), 0),
    ("dataclass_points", dataclass_points, lambda r: (0.6,), 0),
    ("partial_of_method", partial_of_method, lambda r: (0.4, [0.5, -1.0, 2.0]), 0),
    ("partial_with_a_keyword", partial_with_a_keyword, lambda r: (_M(r, 2),), 0),
    ("partial_inside_a_method", partial_inside_a_method, lambda r: (_M(r, 2),), 0),
    ("method_passed_to_a_helper", method_passed_to_a_helper, lambda r: (_M(r, 2),), 0),
    ("partial_passed_to_a_helper", partial_passed_to_a_helper, lambda r: (_M(r, 2), 1.2), 0),
    ("partial_passed_to_a_helper_s", partial_passed_to_a_helper, lambda r: (_M(r, 2), 1.2), 1),
    ("property_of_arrays", property_of_arrays, lambda r: (_M(r, 2), _M(r, 2)), 0),
    ("static_and_class_methods", static_and_class_methods, lambda r: (_M(r, 2),), 0),
    ("memo_catalan", memo_catalan, lambda r: (0.8,), 0),
    ("memo_pascal", memo_pascal, lambda r: (np.array([0.3, 0.6]),), 0),
    ("lru_fibonacci_weights", lru_fibonacci_weights, lambda r: (0.8,), 0),
    ("lru_of_the_value", lru_of_the_value, lambda r: (0.8,), 0),
    ("centred_in_place", centred_in_place, lambda r: (_M(r, 3), 1.5), 0),
    ("normalised_in_place", normalised_in_place, lambda r: (_M(r, 4),), 0),
    ("relaxed_in_place", relaxed_in_place, lambda r: (_M(r, 3), 0.3), 0),
    ("dict_leaf_updated_by_a_helper", dict_leaf_updated_by_a_helper, lambda r: ({"w": _M(r, 3)}, 1.5), 0),
    *STATS_PROGRAMS,
]
