"""Wave 29b's Python idioms and srcdiff inside srcdiff: *args, keyword-only and default arguments,
closures over globals, early returns, while/for with break and continue, enumerate/zip/reversed,
comprehensions, methods and attributes; functions that call a srcdiff gradient, value_and_grad or
jacobian of another function, custom_jvp / custom_vjp functions and stop_gradient inside others."""

from __future__ import annotations

import functools
import math

import numpy as np

import srcdiff

SCALE = 0.5
WEIGHTS = np.array([1.0, 0.5, 2.0, 0.25])


def sum_of_args(*xs):
    return sum(np.sum(np.sin(x) * x) for x in xs)


def star_args_caller(x, y):
    return sum_of_args(x, y, x * y)


def kw_only(x, *, power=3, offset=0.1):
    return np.sum((x + offset) ** power) * SCALE


def kw_only_caller(x):
    return kw_only(x) + kw_only(x, power=2) + kw_only(x, offset=-0.2, power=4)


def early_return(x):
    if np.sum(x) > 10.0:
        return np.sum(x)
    s = 0.0
    for i, xi in enumerate(x):
        if i == 3:
            return s + xi ** 3
        s += math.exp(xi) * WEIGHTS[i]
    return s


def break_continue(x):
    total = 0.0
    for i in range(len(x)):
        if i % 2 == 1:
            continue
        total += np.tanh(x[i]) * (i + 1)
        if i >= 4:
            break
    return total


def while_counter(x):
    i, acc = 0, 1.0
    while i < len(x):
        acc = acc * (1.0 + 0.1 * x[i] ** 2)
        i += 1
    return acc


def comprehension_pairs(x):
    return sum(x[i] * x[j] * math.cos(i - j) for i in range(len(x)) for j in range(i))


def dict_comprehension(x):
    terms = {k: x[k] ** (k + 1) for k in range(len(x))}
    return sum(terms.values())


def zip_reversed(x):
    out = 0.0
    for a, b in zip(x, reversed(x)):
        out += a * np.exp(-b)
    return out


def closure_over_global(x):
    def scaled(v):
        return SCALE * v ** 2 + np.sum(WEIGHTS[:v.size] * v)
    return scaled(x) @ x


class Model:
    def __init__(self):
        self.alpha = 0.3
        self.layers = [np.array([1.0, -0.5]), np.array([0.2, 0.4])]

    def forward(self, x):
        for w in self.layers:
            x = np.tanh(w * x + self.alpha)
        return x

    def loss(self, x):
        return np.sum(self.forward(x) ** 2)


MODEL = Model()


def method_caller(x):
    return MODEL.loss(x) + MODEL.alpha * np.sum(x)


def default_from_global(x, scale=SCALE, bias=None):
    if bias is None:
        bias = 0.0
    return np.sum(np.log1p(np.exp(scale * x + bias)))


def tuple_unpacking(x):
    a, b, *rest = x
    return a * b + sum(r ** 2 for r in rest)


def scalar_loop_min(t):
    best = math.inf
    for c in (0.5, 1.5, 2.5):
        val = (t - c) ** 2 + math.sin(c * t)
        best = min(best, val)
    return best


def inner_product_partial(x):
    f = functools.partial(np.dot, WEIGHTS[:3])
    return f(x) ** 2


# ---- srcdiff inside srcdiff ----


def energy(w):
    return np.sum(np.sin(w) * w) + 0.25 * np.sum(w * w) ** 2


denergy = srcdiff.grad(energy)
vg_energy = srcdiff.value_and_grad(energy)


def gradient_penalty(w):
    return energy(w) + 0.3 * np.sum(denergy(w) ** 2)


def value_and_grad_inside(w):
    value, g = vg_energy(w)
    return value * np.sum(g * w)


def grad_inline(w):
    return np.sum(srcdiff.grad(energy)(w) * np.cos(w))


def scalar_energy(t):
    return math.sin(t) * t ** 2 + math.exp(-t)


dscalar = srcdiff.grad(scalar_energy)


def scalar_grad_inside(t):
    return dscalar(t) ** 2 + scalar_energy(t)


def newton_step(t):
    for _ in range(2):
        t = t - 0.1 * dscalar(t)
    return scalar_energy(t)


def loss(w, X, y):
    return np.mean((X @ w - y) ** 2)


dloss = srcdiff.grad(loss)


def maml(w, X, y):
    w2 = w - 0.1 * dloss(w, X, y)
    return loss(w2, X[::-1], y)


def tanh_layer(w, x):
    return np.tanh(w * x)


jac_layer = srcdiff.jacobian(tanh_layer)


def jacobian_object_inside(w):
    return np.sum(jac_layer(w, np.array([0.5, -1.0, 2.0])) ** 2)


@srcdiff.custom_jvp
def softplus(x):
    return np.log1p(np.exp(x))


@softplus.defjvp
def softplus_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    return softplus(x), x_dot / (1.0 + np.exp(-x))


def custom_jvp_inside(w):
    return np.sum(softplus(w) ** 2 * w)


def custom_jvp_scalar(t):
    return np.sum(softplus(np.array([t, 2.0 * t])) * t)


@srcdiff.custom_vjp
def safe_log(x):
    return np.log(x)


def safe_log_fwd(x):
    return np.log(x), x


def safe_log_bwd(x, g):
    return (g / x,)


safe_log.defvjp(safe_log_fwd, safe_log_bwd)


def custom_vjp_inside(w):
    return np.sum(safe_log(w * w + 1.0) * w)


def custom_vjp_scalar(t):
    return safe_log(t * t + 1.0) * math.cos(t)


def stop_gradient_centred(w):
    return np.sum((w - srcdiff.stop_gradient(np.mean(w))) ** 2 * w)


def stop_gradient_target(w, x):
    target = srcdiff.stop_gradient(np.tanh(w @ x))
    return np.sum((w @ x - target) ** 2) + np.sum(w ** 3)


def stop_gradient_scalar(t):
    return t ** 3 * srcdiff.stop_gradient(t) + math.sin(t)


# their twins: the stopped value an argument held constant (the derivatives srcdiff must give)


def centred_frozen(w, m):
    return np.sum((w - m) ** 2 * w)


def target_frozen(w, x, target):
    return np.sum((w @ x - target) ** 2) + np.sum(w ** 3)


def scalar_frozen(t, s):
    return t ** 3 * s + math.sin(t)


IDIOMS = [
    ("star_args_caller", star_args_caller, lambda r: (r.normal(size=3), r.normal(size=3)), 0),
    ("kw_only_caller", kw_only_caller, lambda r: (r.uniform(0.2, 1.0, size=3),), 0),
    ("early_return", early_return, lambda r: (r.normal(size=5),), 0),
    ("break_continue", break_continue, lambda r: (r.normal(size=7),), 0),
    ("while_counter", while_counter, lambda r: (r.normal(size=4),), 0),
    ("comprehension_pairs", comprehension_pairs, lambda r: (r.normal(size=4),), 0),
    ("dict_comprehension", dict_comprehension, lambda r: (r.normal(size=4),), 0),
    ("zip_reversed", zip_reversed, lambda r: (r.normal(size=4),), 0),
    ("closure_over_global", closure_over_global, lambda r: (r.normal(size=3),), 0),
    ("method_caller", method_caller, lambda r: (r.normal(size=2),), 0),
    ("bound_method", MODEL.loss, lambda r: (r.normal(size=2),), 0),
    ("default_from_global", default_from_global, lambda r: (r.normal(size=3),), 0),
    ("tuple_unpacking", tuple_unpacking, lambda r: (r.normal(size=5),), 0),
    ("scalar_loop_min", scalar_loop_min, lambda r: (1.1,), 0),
    ("inner_product_partial", inner_product_partial, lambda r: (r.normal(size=3),), 0),
    ("gradient_penalty", gradient_penalty, lambda r: (r.normal(size=3),), 0),
    ("value_and_grad_inside", value_and_grad_inside, lambda r: (r.normal(size=3),), 0),
    ("grad_inline", grad_inline, lambda r: (r.normal(size=3),), 0),
    ("scalar_grad_inside", scalar_grad_inside, lambda r: (0.8,), 0),
    ("newton_step", newton_step, lambda r: (0.9,), 0),
    ("maml", maml, lambda r: (r.normal(size=2), r.normal(size=(4, 2)), r.normal(size=4)), 0),
    ("jacobian_object_inside", jacobian_object_inside, lambda r: (r.normal(size=3),), 0),
    ("custom_jvp_inside", custom_jvp_inside, lambda r: (r.normal(size=3),), 0),
    ("custom_jvp_scalar", custom_jvp_scalar, lambda r: (0.6,), 0),
    ("custom_vjp_inside", custom_vjp_inside, lambda r: (r.normal(size=3),), 0),
    ("custom_vjp_scalar", custom_vjp_scalar, lambda r: (0.6,), 0),
]

#: (name, f, its twin, make_args(rng), the stopped values at the arguments): compared with the twin
STOPPED = [
    ("stop_gradient_centred", stop_gradient_centred, centred_frozen, lambda r: (r.normal(size=4),),
     lambda w: (np.mean(w),)),
    ("stop_gradient_target", stop_gradient_target, target_frozen, lambda r: (r.normal(size=3), r.normal(size=3)),
     lambda w, x: (np.tanh(w @ x),)),
    ("stop_gradient_scalar", stop_gradient_scalar, scalar_frozen, lambda r: (0.7,), lambda t: (t,)),
]
