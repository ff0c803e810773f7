"""Closures made by a factory of the user's, decorators wrapping a helper, and helpers cached with
``functools.lru_cache`` / ``functools.cache`` (classes 1 and 2 of reach15_programs.py)."""

import functools
import math

import numpy as np
import scipy.special
import scipy.stats
from scipy.stats import norm

from . import reach15_factory_module as factories
from .reach15_factory_module import make_softplus

# ---- 1a. a function made by a factory --------------------------------------------------------------


def _make_scaler(k):
    def scaled(v):
        return k * np.tanh(v / k)
    return scaled


def closure_of_a_parameter(x, k=2.0):
    clip = _make_scaler(k)
    return np.sum(clip(x) ** 2)


def closure_of_a_constant(x):
    clip = _make_scaler(1.5)
    return np.sum(clip(x) ** 2) + np.sum(clip(2.0 * x))


def closure_called_at_once(x):
    return np.sum(_make_scaler(1.5)(x) * x)


def _make_affine(w, b):
    def affine(v):
        return w * v + b
    return affine


def closure_of_the_differentiated_value(w, x):
    g = _make_affine(w, 0.5)
    return np.sum(np.sin(g(x)))


def _make_power(p):
    return lambda v: v ** p


def closure_returned_as_a_lambda(x):
    cube = _make_power(3)
    return np.sum(cube(x)) + np.sum(_make_power(2)(x))


def _make_standardizer(mu, s):
    inv = 1.0 / s

    def standardize(v):
        return (v - mu) * inv
    return standardize


def closure_of_computed_values(x):
    g = _make_standardizer(np.mean(x), 2.0 + np.std(x))
    return np.sum(g(x) ** 3)


def closure_made_in_a_loop(x):
    total = 0.0
    for c in (0.5, 1.0, 2.0):
        g = _make_scaler(c)
        total = total + np.sum(g(x) * c)
    return total


def closure_of_another_module(x):
    sp = make_softplus(2.0)
    return np.sum(sp(x)) + np.sum(factories.make_softplus(0.5)(x) ** 2)


def _compose(f, g):
    def composed(v):
        return f(g(v))
    return composed


def closure_of_functions(x):
    h = _compose(np.tanh, np.sin)
    return np.sum(h(x) * x)


def _make_polynomial(*coefficients):
    def polynomial(v):
        return sum(c * v ** k for k, c in enumerate(coefficients))
    return polynomial


def closure_of_varargs(x):
    p = _make_polynomial(1.0, 2.0, 3.0)
    return np.sum(p(x))


def closure_in_a_list(x):
    fs = [_make_scaler(c) for c in (0.5, 1.0)]
    return sum(np.sum(f(x)) for f in fs) + sum(np.sum(_make_scaler(c)(x) ** 2) for c in (0.7, 1.3))


def _standardized_energy(v):
    g = _make_standardizer(np.mean(v), 1.5)
    return np.sum(g(v) ** 2 * v)


def closure_inside_a_helper(x):
    return 2.0 * _standardized_energy(x)


# ---- 1b. a decorator wrapping a helper -------------------------------------------------------------


def _clamped_input(lo, hi):
    def wrap(fn):
        @functools.wraps(fn)
        def inner(x, *args, **kwargs):
            return fn(np.clip(x, lo, hi), *args, **kwargs)
        return inner
    return wrap


@_clamped_input(-1.5, 1.5)
def clamped_loss(x, scale=1.0):
    return scale * np.sum(np.exp(x) - x)


@_clamped_input(-1.0, 1.0)
def _clamped_dot(v, w):
    return np.sum(v * w)


def decorated_helper(x):
    return _clamped_dot(x, 2.0) + _clamped_dot(2.0 * x, x)


def _shift_input(d):
    def wrap(fn):
        @functools.wraps(fn)
        def inner(w, X, *args, **kwargs):
            return fn(w + d, X, *args, **kwargs)
        return inner
    return wrap


@_shift_input(0.1)
def _fit(w, X, l2=0.0):
    return np.sum((X @ w) ** 2) + l2 * np.sum(w ** 2)


def decorator_of_two_leading_parameters(w, X):
    return _fit(w, X, l2=0.5) + _fit(w, X)


def _positive(fn):
    @functools.wraps(fn)
    def inner(x, *args):
        return fn(np.abs(x) + 1e-3, *args)
    return inner


@_positive
def _log_sum(v, k):
    return k * np.sum(np.log(v))


def decorator_with_star_args_only(x):
    return _log_sum(x, 2.0)


def _doubled(fn):
    def wrapper(*args):
        return 2.0 * fn(*args)
    return wrapper


@_doubled
def _squared_distance(v, c):
    return np.sum((v - c) ** 2)


def decorator_without_wraps(x):
    return _squared_distance(x, 0.5)


def _tanh_of(fn):
    def wrapper(v):
        return np.tanh(fn(v))
    return wrapper


def _quadratic(v):
    return np.sum(v ** 2)


def decorator_applied_inside(x):
    g = _tanh_of(_quadratic)
    return g(x) + g(2.0 * x)


# ---- 2. helpers cached with functools.lru_cache / functools.cache ------------------------------------


@functools.lru_cache(maxsize=None)
def _binomial_weights(n):
    return tuple(math.comb(n, k) / 2 ** n for k in range(n + 1))


def cached_weights_rolled(x):
    w = _binomial_weights(4)
    return sum(wk * np.sum(np.roll(x, k - 2) ** 2 * x) for k, wk in enumerate(w))


def cached_weights_sliced(x):
    w = _binomial_weights(3)
    return sum(wk * np.sum(x[k:] ** 2) for k, wk in enumerate(w))


def cached_weights_as_an_array(x):
    w = np.array(_binomial_weights(3))
    return np.sum(w * x[:4] ** 2)


@functools.cache
def _gauss_kernel(width):
    k = np.exp(-0.5 * (np.arange(-width, width + 1) / width) ** 2)
    return k / k.sum()


def cached_kernel(x):
    return np.sum(np.convolve(x, _gauss_kernel(2), mode="same") ** 2)


@functools.lru_cache(maxsize=8)
def _chebyshev_nodes(n):
    return np.cos(np.pi * (np.arange(n) + 0.5) / n)


def loop_over_cached_nodes(x):
    total = 0.0
    for t in _chebyshev_nodes(5):
        total = total + np.sum(np.tanh(x * t))
    return total


def _smoothed(v, n):
    w = _binomial_weights(n)
    return sum(wk * np.sum(np.roll(v, k) * v) for k, wk in enumerate(w))


def cached_weights_in_a_helper(x):
    return _smoothed(x, 3) - _smoothed(x, 1)


def rolled_by_a_loop_index(x):
    total = 0.0
    for k in range(1, 4):
        total = total + np.sum(x * np.roll(x, k)) / k
    return total + sum(np.sum(np.roll(x, -j) ** 2 * x) for j in range(2))


# ---- 1c. a function made in the function given to a helper of yours -------------------------------------


def _euler(f, y, dt, n=3):
    for _ in range(n):
        y = y + dt * f(y)
    return y


def _midpoint(f, y, dt):
    half = y + 0.5 * dt * f(y)
    return y + dt * f(half)


def two_integrations_in_one_function(x):
    k = x[0]
    a = _euler(lambda y: -k * np.tanh(y), x[1:3], 0.1)
    b = _midpoint(lambda y: k * y ** 2, x[3:5], 0.2)  # (the second helper written out reads np, len as globals)
    return np.sum(a * b)


def lambda_given_to_an_integrator(k, y0):
    return np.sum(_euler(lambda y: -k * y ** 3, y0, 0.1) ** 2)


def _rate(y, k):
    return -k * y ** 3


def partial_given_to_an_integrator(k, y0):
    return np.sum(_midpoint(functools.partial(_rate, k=k), y0, 0.2) ** 2)


def nested_def_given_to_a_helper(w, y0):
    def field(y):
        return np.tanh(w * y) - 0.1 * y
    return np.sum(_euler(field, y0, 0.05, n=4))


def closure_given_to_a_helper(x, c=1.5):
    clip = _make_scaler(c)
    return np.sum(_midpoint(clip, x, 0.3) * x)


def _fold(combine, xs, start):
    acc = start
    for v in xs:
        acc = combine(acc, v)
    return acc


def two_argument_lambda_given_to_a_helper(x):
    return _fold(lambda a, b: a * 0.5 + np.sin(b), x, 0.0)


def _huber(r, delta):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))


def partial_as_a_default(w, X, y, loss_fn=functools.partial(_huber, delta=0.5)):  # noqa: B008  as users write it
    return np.sum(loss_fn(X @ w - y))


def _scaled_power(scale, v, p=2):
    return scale * np.sum(np.abs(v) ** p)


def partial_of_a_leading_argument(w, penalty=functools.partial(_scaled_power, 0.1, p=3)):  # noqa: B008
    return np.sum(np.tanh(w) ** 2) + penalty(w)


# ---- 1d. a local name for a library's function ------------------------------------------------------------


def aliases_of_library_functions(x):
    sig = scipy.special.expit
    exp = np.exp
    phi = norm.pdf
    return np.sum(sig(x) * exp(-x ** 2)) + sum(phi(v) for v in x)


def alias_used_in_a_loop(x):
    cdf = scipy.stats.norm.cdf
    total = 0.0
    for v in x:
        total = total + cdf(v) * v
    return total
