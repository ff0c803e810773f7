"""The red team's eleventh wave, continued: Python idioms (string configs through .lower() and
str methods, a class with __call__ and a property, a user class with operator overloading, a
frozen dataclass with __post_init__, recursion over a nested list, memoised recursion by a dict,
generators with ``yield from``, itertools.accumulate / pairwise / product / chain / islice,
a decorator factory, functools.partial of a method, functools.reduce with a lambda, math.lgamma /
erf / fsum / comb / atan2 / copysign, scipy.special.erfcx / ndtri-free logit, scipy.stats calls),
special points (a power at 0 through math.pow, np.where on an untaken log, np.sqrt of a square, a
relu of a relu at 0, np.linalg.norm of a zero difference) and float32 inputs.  See
redteam_wave11.py."""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math

import numpy as np
import scipy.special
import scipy.stats

# ---- strings, classes, dataclasses --------------------------------------------------------------


def string_config_loss(w, X, y, config="Huber"):
    res = X @ w - y
    kind = config.lower().strip()
    if kind.startswith("hub"):
        loss = np.where(np.abs(res) < 1.0, 0.5 * res ** 2, np.abs(res) - 0.5)
    elif kind in ("l2", "mse"):
        loss = res ** 2
    else:
        raise ValueError(f"unknown loss {config!r}")
    return np.mean(loss)


def split_config_terms(w, spec="l2:0.5,l1:0.1"):
    total = np.sum(np.sin(w))
    for part in spec.split(","):
        name, weight = part.split(":")
        if name == "l2":
            total = total + float(weight) * np.sum(w ** 2)
        elif name == "l1":
            total = total + float(weight) * np.sum(np.sqrt(w ** 2 + 1e-3))
    return total


class Softplus:
    def __init__(self, beta):
        self.beta = beta

    @property
    def inv_beta(self):
        return 1.0 / self.beta

    def __call__(self, x):
        return self.inv_beta * np.logaddexp(0.0, self.beta * x)


def callable_with_property(w, X):
    act = Softplus(2.0)
    return np.sum(act(X @ w) ** 2)


class Dual:
    """A user's little value class with operators: the arithmetic runs through __add__ / __mul__."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __add__(self, other):
        return Dual(self.a + other.a, self.b + other.b)

    def __mul__(self, other):
        return Dual(self.a * other.a, self.a * other.b + self.b * other.a)


def operator_overloading(x):
    d = Dual(x, 1.0)
    e = d * d + d
    return e.a * e.b


@dataclasses.dataclass(frozen=True)
class Prior:
    mu: float
    sigma: float
    log_norm: float = dataclasses.field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "log_norm", math.log(self.sigma * math.sqrt(2 * math.pi)))

    def logpdf(self, x):
        return -0.5 * ((x - self.mu) / self.sigma) ** 2 - self.log_norm


def frozen_post_init(w, X, y):
    prior = Prior(0.0, 2.0)
    return np.sum((X @ w - y) ** 2) - np.sum(prior.logpdf(w))


# ---- recursion and generators -------------------------------------------------------------------


def _nested_sum(tree, w):
    if isinstance(tree, list):
        return sum(_nested_sum(t, w) for t in tree)
    return np.sin(w * tree)


def recursive_nested_list(w, tree=(1.0, [2.0, [3.0, 0.5]], 1.5)):
    return _nested_sum(list(tree), w)


def _catalan_weight(n, memo):
    if n in memo:
        return memo[n]
    val = 1.0 if n == 0 else sum(_catalan_weight(i, memo) * _catalan_weight(n - 1 - i, memo) for i in range(n))
    memo[n] = val
    return val


def memo_dict_recursion(x):
    memo = {}
    return sum(_catalan_weight(k, memo) * x ** k / math.factorial(k) for k in range(5))


def _layers(W, x):
    for row in W:
        x = np.tanh(row * x)
        yield x


def _all_terms(W, x):
    yield from _layers(W, x)
    yield x * x


def yield_from_generator(W, x):
    return sum(np.sum(h) for h in _all_terms(W, x))


def accumulate_running_max_free(x):
    partial = list(itertools.accumulate(x * x))
    return sum(p * w for p, w in zip(partial, itertools.count(1)))


def pairwise_segments(pts):
    return sum(np.sqrt(np.sum((b - a) ** 2) + 1e-6) for a, b in itertools.pairwise(pts))


def product_grid_energy(w):
    total = 0.0
    for i, j in itertools.product(range(3), repeat=2):
        total += w[i] * w[j] * math.cos(i - j)
    return total


def chain_islice(a, b):
    terms = itertools.chain(a, b)
    return sum(t ** 2 for t in itertools.islice(terms, 1, 5))


# ---- functools and decorators -------------------------------------------------------------------


def scaled_by(factor):
    def deco(f):
        @functools.wraps(f)
        def wrapper(*args):
            return factor * f(*args)
        return wrapper
    return deco


@scaled_by(3.0)
def decorated_factory_loss(w, X):
    return np.sum(np.log1p(np.exp(X @ w)))


class Model:
    def __init__(self, scale):
        self.scale = scale

    def predict(self, w, x):
        return self.scale * np.tanh(w * x)


def partial_of_method(w, xs):
    predict = functools.partial(Model(2.0).predict, w)
    return sum(predict(x) ** 2 for x in xs)


def reduce_lambda_horner(coeffs, x=0.7):
    return functools.reduce(lambda acc, c: acc * x + c, coeffs, 0.0) ** 2


# ---- math, scipy.special, scipy.stats -----------------------------------------------------------


def math_special_scalars(t):
    a, b = t
    return (math.lgamma(a) + math.erf(b) + math.atan2(b, a) + math.copysign(1.0, b) * b * b
            + math.fsum([a * b, math.log1p(a), math.expm1(-b)]) + math.comb(5, 2) * a)


def erfcx_mills_ratio(x):
    return np.sum(np.log(scipy.special.erfcx(x)) - x ** 2)


def logit_expit_roundtrip(p_raw):
    p = scipy.special.expit(p_raw)
    return np.sum(scipy.special.logit(p) ** 2 + scipy.special.xlog1py(p, -p))


def stats_gamma_poisson(params, k):
    log_a, log_b = params
    lam = scipy.stats.gamma.mean(np.exp(log_a), scale=np.exp(-log_b))
    return -np.sum(scipy.stats.poisson.logpmf(k, lam)) - scipy.stats.gamma.logpdf(lam, 2.0)


def stats_mvn_logpdf(mu, X):
    cov = np.array([[1.0, 0.3], [0.3, 0.5]])
    return -np.sum(scipy.stats.multivariate_normal.logpdf(X, mean=mu, cov=cov))


def stats_norm_logcdf_sf(mu, x):
    return -np.sum(scipy.stats.norm.logcdf(x - mu) + scipy.stats.norm.logsf(x + mu))


# ---- special points -----------------------------------------------------------------------------


def math_pow_at_zero(x):
    return math.pow(x, 2) + math.pow(x, 3.0) + x ** 0


def where_untaken_log(x):
    return np.sum(np.where(x > 0, x * np.log(np.where(x > 0, x, 1.0)), 0.0))


def sqrt_of_square(x):
    return np.sum(np.sqrt(x ** 2 + 0.0) * np.cos(x))


def relu_of_relu(x):
    return np.sum(np.maximum(np.maximum(x, 0.0) - 0.5, 0.0) ** 2 + np.maximum(x, 0.0))


def norm_of_zero_difference(x, y):
    return np.linalg.norm(x - y) ** 2 + np.sum(x * y)


def entropy_with_zeros(logits, mask):
    p = scipy.special.softmax(np.where(mask, logits, -np.inf))
    return -np.sum(scipy.special.entr(p) * 0.0 + p * np.where(p > 0, np.log(np.where(p > 0, p, 1.0)), 0.0))


# ---- float32 and dict trees ---------------------------------------------------------------------


def float32_flow_step(params, z):
    s = np.tanh(z @ params["W"])
    y = z * np.exp(s) + params["b"]
    return np.float32(0.5) * np.sum(y * y) - np.sum(s)


def float32_kalman_scalar(q, ys):
    m, P = 0.0 * q, 1.0 + 0.0 * q  # q's dtype: float32 in, float32 out
    nll = 0.0
    for y in ys:
        P = P + q
        S = P + 0.5
        K = P / S
        nll = nll + np.log(S) + (y - m) ** 2 / S
        m = m + K * (y - m)
        P = (1 - K) * P
    return nll


def nested_dict_tree(params, x):
    h = np.tanh(params["enc"]["W"] @ x + params["enc"]["b"])
    out = params["dec"]["W"] @ h
    return np.sum((out - x) ** 2) + params["reg"]["lam"] * np.sum(params["enc"]["W"] ** 2)


def M(rng, *shape):
    return rng.normal(size=shape)


def F(rng, *shape):
    return rng.normal(size=shape).astype(np.float32)


def _tree(r):
    return {"enc": {"W": 0.5 * M(r, 2, 3), "b": M(r, 2)}, "dec": {"W": M(r, 3, 2)}, "reg": {"lam": 0.1}}


IDIOMS11 = [
    ("w11_string_config_loss", string_config_loss, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6)), 0),
    ("w11_string_config_mse", string_config_loss, lambda r: (M(r, 3), M(r, 6, 3), M(r, 6), " MSE "), 0),
    ("w11_split_config_terms", split_config_terms, lambda r: (M(r, 4),), 0),
    ("w11_callable_with_property", callable_with_property, lambda r: (M(r, 3), M(r, 5, 3)), 0),
    ("w11_operator_overloading", operator_overloading, lambda r: (0.7,), 0),
    ("w11_frozen_post_init", frozen_post_init, lambda r: (M(r, 3), M(r, 5, 3), M(r, 5)), 0),
    ("w11_recursive_nested_list", recursive_nested_list, lambda r: (0.6,), 0),
    ("w11_memo_dict_recursion", memo_dict_recursion, lambda r: (0.8,), 0),
    ("w11_yield_from_generator", yield_from_generator, lambda r: (M(r, 3), M(r, 4)), 0),
    ("w11_accumulate_partial_sums", accumulate_running_max_free, lambda r: (M(r, 5),), 0),
    ("w11_pairwise_segments", pairwise_segments, lambda r: (M(r, 5, 2),), 0),
    ("w11_product_grid_energy", product_grid_energy, lambda r: (M(r, 3),), 0),
    ("w11_chain_islice", chain_islice, lambda r: (M(r, 3), M(r, 3)), 1),
    ("w11_decorated_factory_loss", decorated_factory_loss, lambda r: (M(r, 3), M(r, 5, 3)), 0),
    ("w11_partial_of_method", partial_of_method, lambda r: (0.4, [0.5, -1.0, 2.0]), 0),
    ("w11_reduce_lambda_horner", reduce_lambda_horner, lambda r: (M(r, 4),), 0),
    ("w11_math_special_scalars", math_special_scalars, lambda r: ((1.7, 0.4),), 0),
    ("w11_erfcx_mills_ratio", erfcx_mills_ratio, lambda r: (M(r, 5) + 1.0,), 0),
    ("w11_logit_expit_roundtrip", logit_expit_roundtrip, lambda r: (M(r, 4),), 0),
    ("w11_stats_gamma_poisson", stats_gamma_poisson, lambda r: (np.array([0.5, 0.2]), np.array([0, 2, 1, 4])), 0),
    ("w11_stats_mvn_logpdf", stats_mvn_logpdf, lambda r: (M(r, 2), M(r, 5, 2)), 0),
    ("w11_stats_norm_logcdf_sf", stats_norm_logcdf_sf, lambda r: (0.3, M(r, 5)), 0),
    ("w11_math_pow_at_zero", math_pow_at_zero, lambda r: (0.0,), 0),
    ("w11_where_untaken_log", where_untaken_log, lambda r: (np.array([-0.3, 0.5, -1.0, 2.0]),), 0),
    ("w11_sqrt_of_square", sqrt_of_square, lambda r: (np.array([0.7, -0.4, 1.2]),), 0),
    ("w11_relu_of_relu", relu_of_relu, lambda r: (np.array([0.2, 1.3, -0.6, 0.9]),), 0),
    ("w11_norm_of_zero_difference", norm_of_zero_difference, lambda r: (np.array([1.0, 2.0]), np.array([1.0, 2.0])), 0),
    ("w11_entropy_with_zeros", entropy_with_zeros,
     lambda r: (M(r, 4), np.array([True, False, True, True])), 0),
    ("w11_float32_flow_step", float32_flow_step,
     lambda r: ({"W": F(r, 3, 3) * np.float32(0.5), "b": F(r, 3)}, F(r, 4, 3)), 0),
    ("w11_float32_kalman_scalar", float32_kalman_scalar,
     lambda r: (np.float32(0.2), F(r, 5)), 0),
    ("w11_nested_dict_tree", nested_dict_tree, lambda r: (_tree(r), M(r, 3)), 0),
]
