"""The red team's thirteenth wave, continued: helper libraries and student code.  Helpers calling
helpers with defaults, keyword-only arguments and *args / **kwargs, recursion (divide and conquer,
power by squaring, a recursive Horner), small simulations as classes with methods, properties,
classmethods and staticmethods, dataclass parameter trees (nested, with defaults), enum and
string configurations, functools.lru_cache on an integer helper, generators feeding sum(),
closures and decorators, try / except fallbacks, while loops with early returns, filtered
comprehensions, sorted(key=...), itertools.combinations / starmap / zip_longest, math.prod,
scipy.special (gammaln, digamma, xlog1py, log_ndtr, i0e), scipy.stats distributions (t, laplace,
logistic, lognorm, poisson, binom) and scipy.linalg (expm, lu_factor / lu_solve, solve with
assume_a, inv, det).  See redteam_wave13.py.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import itertools
import math
import operator

import numpy as np
import scipy.linalg
import scipy.special
import scipy.stats

# ---- a small helper library ------------------------------------------------------------------------


def _center(x, *, axis=0):
    return x - x.mean(axis=axis, keepdims=True)


def _scale(x, factor=1.0, *, eps=1e-8):
    return factor * x / np.sqrt(np.mean(x ** 2) + eps)


def _penalties(w, *terms, **weights):
    total = 0.0
    for name in terms:
        total = total + weights.get(name, 1.0) * (np.sum(w ** 2) if name == "l2" else np.sum(np.abs(w) ** 1.5))
    return total


def helper_library_loss(w, X, y):
    Z = _scale(_center(X), factor=2.0)
    r = Z @ w - y
    return np.mean(r ** 2) + _penalties(w, "l2", "l15", l2=0.1, l15=0.01)


def _split_sum(x, lo, hi):
    if hi - lo == 1:
        return x[lo] ** 2
    mid = (lo + hi) // 2
    return _split_sum(x, lo, mid) + np.sin(_split_sum(x, mid, hi))


def recursive_divide_conquer(x):
    return _split_sum(x, 0, len(x))


def _power(x, n):
    if n == 0:
        return 1.0
    half = _power(x, n // 2)
    return half * half * (x if n % 2 else 1.0)


def recursive_power_by_squaring(x):
    return _power(x, 7) - _power(x, 2)


def _horner(coeffs, x):
    if len(coeffs) == 1:
        return coeffs[0]
    return coeffs[0] + x * _horner(coeffs[1:], x)


def recursive_horner(c, x):
    return np.sum(_horner(c, x) ** 2)


# ---- classes ---------------------------------------------------------------------------------------


class Projectile:
    def __init__(self, v0, angle, drag=0.05):
        self.vx = v0 * math.cos(angle)
        self.vy = v0 * math.sin(angle)
        self.x = self.y = 0.0
        self.drag = drag

    @property
    def speed(self):
        return math.hypot(self.vx, self.vy)

    def step(self, dt):
        k = self.drag * self.speed
        self.vx -= dt * k * self.vx
        self.vy -= dt * (9.81 + k * self.vy)
        self.x += dt * self.vx
        self.y += dt * self.vy


def class_projectile_range(v0, angle=0.7, steps=20):
    p = Projectile(v0, angle)
    for _ in range(steps):
        p.step(0.05)
    return p.x + p.y


class Account:
    fee = 0.5

    def __init__(self, balance):
        self.balance = balance

    @classmethod
    def opened_with(cls, amount, bonus=0.1):
        return cls(amount * (1 + bonus))

    @staticmethod
    def rate_for(balance):
        return 0.02 + 0.01 * np.tanh(balance / 100.0)

    def accrue(self):
        self.balance = self.balance * (1 + self.rate_for(self.balance)) - self.fee
        return self


def classmethod_account(amount, years=5):
    acct = Account.opened_with(amount)
    for _ in range(years):
        acct.accrue()
    return acct.balance


@dataclasses.dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray

    def __call__(self, x):
        return np.tanh(x @ self.W + self.b)


@dataclasses.dataclass
class Net:
    hidden: Layer
    out: Layer
    l2: float = 1e-3

    def loss(self, X, y):
        pred = self.out(self.hidden(X))[:, 0]
        return np.mean((pred - y) ** 2) + self.l2 * np.sum(self.hidden.W ** 2)


def dataclass_net_from_dict(params, X, y):
    net = Net(Layer(params["W1"], params["b1"]), Layer(params["W2"], params["b2"]))
    return net.loss(X, y)


class Activation(enum.Enum):
    RELU = "relu"
    SOFTPLUS = "softplus"
    SWISH = "swish"


def enum_config_mlp(w, X, config):
    act = Activation(config["activation"])
    h = X @ w
    if act is Activation.SOFTPLUS:
        h = np.logaddexp(0.0, h)
    elif act == Activation.SWISH:
        h = h * scipy.special.expit(h)
    else:
        h = np.maximum(h, 0.0)
    return np.sum(h ** 2) * config.get("scale", 1.0)


@functools.lru_cache(maxsize=None)
def _binomial_weights(n):
    return tuple(math.comb(n, k) / 2 ** n for k in range(n + 1))


def lru_cache_smoothing(x):
    w = _binomial_weights(4)
    return sum(wk * np.sum(np.roll(x, k - 2) ** 2 * x) for k, wk in enumerate(w))


def _windows(x, size):
    for i in range(len(x) - size + 1):
        yield x[i:i + size]


def generator_windows(x):
    return sum(np.max(win) - np.min(win) + np.mean(win) ** 2 for win in _windows(x, 3))


def _make_scaler(k):
    def scaled(v):
        return k * np.tanh(v / k)
    return scaled


def closure_soft_clip(x, k=2.0):
    clip = _make_scaler(k)
    return np.sum(clip(x) ** 2)


def _clamped_input(lo, hi):
    def wrap(fn):
        @functools.wraps(fn)
        def inner(x, *args, **kwargs):
            return fn(np.clip(x, lo, hi), *args, **kwargs)
        return inner
    return wrap


@_clamped_input(-1.5, 1.5)
def decorated_clamped_loss(x, scale=1.0):
    return scale * np.sum(np.exp(x) - x)


def try_except_fallback(x):
    total = 0.0
    for v in x:
        try:
            total += 1.0 / v
        except ZeroDivisionError:
            total += 0.0
    return total


def student_while_early_return(x, tol=1e-3):
    guess = x
    i = 0
    while True:
        new = 0.5 * (guess + 2.0 / guess)
        if abs(new - guess) < tol:
            return new * x
        guess = new
        i += 1
        if i > 50:
            return guess


def filtered_comprehension(x):
    positives = [v ** 2 for v in x if v > 0]
    negatives = [math.exp(v) for v in x if v <= 0]
    return sum(positives) - sum(negatives)


def sorted_key_tuples(x):
    pairs = [(math.sin(v), v) for v in x]
    pairs = sorted(pairs, key=lambda p: p[1])
    return sum(i * a for i, (a, b) in enumerate(pairs))


def combinations_pair_energy(P):
    energy = 0.0
    for i, j in itertools.combinations(range(len(P)), 2):
        r = np.linalg.norm(P[i] - P[j])
        energy += 1.0 / r
    return energy


def starmap_zip_longest(a, b):
    terms = itertools.starmap(operator.mul, itertools.zip_longest(a, b, fillvalue=1.0))
    return functools.reduce(operator.add, terms)


def math_prod_of_terms(x):
    return math.prod(1.0 + 0.1 * v for v in x)


# ---- scipy.special, scipy.stats, scipy.linalg ------------------------------------------------------


def special_gamma_family(ab, x):
    a, b = ab
    return np.sum(scipy.special.gammaln(a + x) - scipy.special.gammaln(a) + scipy.special.digamma(b) * x)


def special_xlog1py_logndtr(x):
    return np.sum(scipy.special.xlog1py(x, x) + scipy.special.log_ndtr(x) + scipy.special.i0e(x))


def stats_t_laplace_logistic(loc, x):
    return -np.sum(scipy.stats.t.logpdf(x, df=4.0, loc=loc) + scipy.stats.laplace.logpdf(x, loc, 0.7)
                   + scipy.stats.logistic.logcdf(x - loc))


def stats_lognorm_fit(s, x):
    return -np.sum(scipy.stats.lognorm.logpdf(x, s, scale=1.3))


def stats_poisson_binom(rate, counts):
    return -np.sum(scipy.stats.poisson.logpmf(counts, rate)) - np.sum(
        scipy.stats.binom.logpmf(counts, 6, scipy.special.expit(rate - 2.0)))


def linalg_expm_rotation(theta):
    A = np.array([[0.0, -theta], [theta, 0.0]])
    return scipy.linalg.expm(A)[0, 1] + scipy.linalg.expm(0.5 * A)[0, 0]


def linalg_lu_solve(A, b):
    lu, piv = scipy.linalg.lu_factor(A)
    return np.sum(scipy.linalg.lu_solve((lu, piv), b) ** 2)


def linalg_solve_pos_inv_det(L, b):
    A = L @ L.T + np.eye(3)
    x = scipy.linalg.solve(A, b, assume_a="pos")
    return x @ b + np.trace(scipy.linalg.inv(A)) + np.log(scipy.linalg.det(A))


def M(rng, *shape):
    return rng.normal(size=shape)


def _net(r):
    return {"W1": 0.5 * M(r, 3, 4), "b1": M(r, 4), "W2": 0.5 * M(r, 4, 1), "b2": M(r, 1)}


LIBRARY13 = [
    ("w13_helper_library_loss", helper_library_loss, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("w13_helper_library_data", helper_library_loss, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 1),
    ("w13_recursive_divide_conquer", recursive_divide_conquer, lambda r: (M(r, 5),), 0),
    ("w13_recursive_power_by_squaring", recursive_power_by_squaring, lambda r: (1.1,), 0),
    ("w13_recursive_horner", recursive_horner, lambda r: (M(r, 4), M(r, 3)), 0),
    ("w13_recursive_horner_x", recursive_horner, lambda r: (M(r, 4), M(r, 3)), 1),
    ("w13_class_projectile_range", class_projectile_range, lambda r: (12.0,), 0),
    ("w13_classmethod_account", classmethod_account, lambda r: (50.0,), 0),
    ("w13_dataclass_net_from_dict", dataclass_net_from_dict, lambda r: (_net(r), M(r, 5, 3), M(r, 5)), 0),
    ("w13_enum_config_softplus", enum_config_mlp,
     lambda r: (M(r, 3), M(r, 5, 3), {"activation": "softplus", "scale": 0.5}), 0),
    ("w13_enum_config_swish", enum_config_mlp, lambda r: (M(r, 3), M(r, 5, 3), {"activation": "swish"}), 0),
    ("w13_lru_cache_smoothing", lru_cache_smoothing, lambda r: (M(r, 6),), 0),
    ("w13_generator_windows", generator_windows, lambda r: (M(r, 6),), 0),
    ("w13_closure_soft_clip", closure_soft_clip, lambda r: (M(r, 5),), 0),
    ("w13_decorated_clamped_loss", decorated_clamped_loss, lambda r: (np.array([0.3, -2.0, 1.0, 2.5]),), 0),
    ("w13_try_except_fallback", try_except_fallback, lambda r: (np.array([0.5, 2.0, -1.5]),), 0),
    ("w13_student_while_early_return", student_while_early_return, lambda r: (1.3,), 0),
    ("w13_filtered_comprehension", filtered_comprehension, lambda r: (M(r, 6),), 0),
    ("w13_sorted_key_tuples", sorted_key_tuples, lambda r: (M(r, 5),), 0),
    ("w13_combinations_pair_energy", combinations_pair_energy, lambda r: (M(r, 4, 2),), 0),
    ("w13_starmap_zip_longest", starmap_zip_longest, lambda r: (M(r, 4), M(r, 3)), 0),
    ("w13_math_prod_of_terms", math_prod_of_terms, lambda r: ([0.3, -1.2, 0.8],), 0),
    ("w13_special_gamma_family", special_gamma_family, lambda r: ((1.5, 2.5), r.uniform(0.5, 3.0, size=4)), 0),
    ("w13_special_xlog1py_logndtr", special_xlog1py_logndtr, lambda r: (r.uniform(0.1, 2.0, size=5),), 0),
    ("w13_stats_t_laplace_logistic", stats_t_laplace_logistic, lambda r: (0.2, M(r, 6)), 0),
    ("w13_stats_lognorm_fit", stats_lognorm_fit, lambda r: (0.6, r.uniform(0.3, 3.0, size=5)), 0),
    ("w13_stats_poisson_binom", stats_poisson_binom, lambda r: (2.2, np.array([0, 3, 1, 5, 2])), 0),
    ("w13_linalg_expm_rotation", linalg_expm_rotation, lambda r: (0.4,), 0),
    ("w13_linalg_lu_solve", linalg_lu_solve, lambda r: (M(r, 3, 3) + 3 * np.eye(3), M(r, 3)), 0),
    ("w13_linalg_solve_pos_inv_det", linalg_solve_pos_inv_det, lambda r: (M(r, 3, 3), M(r, 3)), 0),
]
