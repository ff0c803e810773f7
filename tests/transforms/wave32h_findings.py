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
