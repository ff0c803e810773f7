"""Wave 32h's findings, each class with its variants (test_wave32h.py runs them through every
transformation).

NARROW_FILLS: a reduction's adjoint over an axis (``np.sum(n - x, axis=1)``: the fill
``np.full(x.shape, np.expand_dims(g, 1))``) is the first contribution to an adjoint that a later
line adds to (``z = np.exp(x) * n`` read before it); the optimizer kept the fill narrow (its
``np.expand_dims`` alone, read by a name rebound later) and the in-place sum ``x_bar += e`` could not
widen it: a ValueError from the generated code ("non-broadcastable output operand")."""

from __future__ import annotations

import numpy as np

RNG = np.random.default_rng(3201)
N62 = RNG.normal(size=(6, 2))
N43 = RNG.normal(size=(4, 3))
N234 = RNG.normal(size=(2, 3, 4))


def sum_axis1_then_elementwise(x, n=N62):
    z = np.exp(x) * n
    y = np.sum(n - x, axis=1)
    return np.sum(y ** 2) + np.sum(z)


def mean_axis0_then_elementwise(x, n=N43):
    z = np.tanh(x) - n
    y = np.mean(x * n, axis=0)
    return np.sum(z ** 2) + np.sum(np.sin(y))


def keepdims_then_elementwise(x, n=N43):
    z = x * x * n
    y = np.sum(n - x, axis=1, keepdims=True)
    return np.sum(z) + np.sum(y ** 3)


def three_axes(x, n=N234):
    z = np.cos(x) + n
    y = np.sum(x - n, axis=(0, 2))
    return np.sum(z * z) + np.sum(y ** 2)


def log_prob_then_exp(log_std, noise=N62):
    std = np.exp(log_std)
    a = np.tanh(std * noise)
    logp = np.sum(-0.5 * noise ** 2 - log_std, axis=1)
    logp -= np.sum(np.log(1 - a ** 2 + 1e-6), axis=1)
    return np.mean(logp)


def subtracted_after(x, n=N62):
    y = np.sum(x, axis=0)
    w = np.sum(y ** 2)
    return w - np.sum(x * n)


def _a(shape, scale=0.5):
    return lambda rng: (scale * rng.normal(size=shape),)


NARROW_FILLS = [
    ("narrow_sum_axis1", sum_axis1_then_elementwise, _a((6, 2)), 0),
    ("narrow_mean_axis0", mean_axis0_then_elementwise, _a((4, 3)), 0),
    ("narrow_keepdims", keepdims_then_elementwise, _a((4, 3)), 0),
    ("narrow_three_axes", three_axes, _a((2, 3, 4)), 0),
    ("narrow_log_prob_then_exp", log_prob_then_exp, _a((6, 2), 0.3), 0),
    ("narrow_subtracted_after", subtracted_after, _a((6, 2)), 0),
]


# STATIC_ZIPS: a module list of functions (lambdas or defs) looped over with ``zip(c, BASIS)`` or
# ``enumerate(BASIS)``, in a ``for`` or a generator: "cannot tell which function phi is" where ``for phi in
# BASIS`` was taken.  Now the loop is unrolled over the functions (lower/static_loops.py), the array's items
# read by position (a guard raises ValueError where it holds fewer items than the list: Python's zip would stop).

def _one(t):
    return np.ones_like(t)


def _ident(t):
    return t


BASIS_DEFS = [_one, _ident, np.sin, np.exp]
BASIS_LAMBDAS = [lambda t: np.ones_like(t), lambda t: t, lambda t: np.sin(3 * t), lambda t: np.exp(-t)]
ACTS = (np.tanh, np.sin)
TS = np.linspace(0, 2, 12)


def zip_defs_loop(c, ts=TS):
    pred = 0.0
    for ci, phi in zip(c, BASIS_DEFS):
        pred = pred + ci * phi(ts)
    return np.mean((pred - np.cos(ts)) ** 2)


def zip_lambdas_generator(c, ts=TS):
    pred = sum(ci * phi(ts) for ci, phi in zip(c, BASIS_LAMBDAS))
    return np.mean((pred - np.cos(ts)) ** 2)


def enumerate_lambdas(c, ts=TS):
    pred = 0.0
    for i, phi in enumerate(BASIS_LAMBDAS):
        pred = pred + c[i] * phi(ts)
    return np.sum(pred ** 2)


def enumerate_start_generator(c, ts=TS):
    return np.sum(sum(c[i - 1] * phi(ts) for i, phi in enumerate(BASIS_DEFS, 1)) ** 2)


def functions_first_rows(w, x=N43[:2]):
    total = 0.0
    for act, row in zip(ACTS, w):
        total = total + np.sum(act(x @ row))
    return total


def zip_list_built(c):
    ws = [c[0] * c[1], c[2] + 1.0]
    return sum(f(v) for v, f in zip(ws, ACTS)) + np.sum(c ** 2)


def zip_longer_array(c, ts=TS):
    pred = 0.0
    for ci, phi in zip(c, BASIS_DEFS):
        pred = pred + ci * phi(ts)
    return np.sum(pred ** 2) + np.sum(c)


def zip_rebinds_its_sequence(c):
    total = 0.0
    for ci, f in zip(c, ACTS):
        c = c * 2.0  # (Python's zip iterates the sequence it was given: refused at the line)
        total = total + f(ci)
    return total


STATIC_ZIPS = [
    ("zip_defs_loop", zip_defs_loop, _a(4), 0),
    ("zip_lambdas_generator", zip_lambdas_generator, _a(4), 0),
    ("enumerate_lambdas", enumerate_lambdas, _a(4), 0),
    ("enumerate_start_generator", enumerate_start_generator, _a(4), 0),
    ("zip_functions_first_rows", functions_first_rows, _a((2, 3)), 0),
    ("zip_list_built", zip_list_built, _a(3), 0),
    ("zip_longer_array", zip_longer_array, _a(6), 0),
]
