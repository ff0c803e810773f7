"""jit="numba" through user helpers that are not copied into their caller: each helper's
adjoint, a closure in the Python gradient, becomes module-level functions numba compiles
(backend/numba/module.py).  Helpers with loops, branches, tuple returns, helpers calling
helpers, helpers reading globals and closure variables: each agrees with float64 central
differences and with the plain gradient.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

pytest.importorskip("numba")

RATE = 0.3


def decay(v, k):
    total = 0.0
    for i in range(k):
        total = total + v * math.exp(-RATE * i)
    return total


def calls_decay_twice(x, y):
    return decay(x, 4) * decay(y * x, 3)


def soft_clip(v):
    if v > 1.0:
        return 1.0 + math.log(v)
    if v < -1.0:
        return -1.0 - math.log(-v)
    return v


def clipped_sum(x, y):
    return soft_clip(x) * soft_clip(y) + soft_clip(x * y)


def polar(r, t):
    return r * math.cos(t), r * math.sin(t)


def inner_helper(a, b):
    u, v = polar(a, b)
    return u * u + 3.0 * v


def outer_helper(a, b):
    return inner_helper(a, b) * inner_helper(b, a)


def layer(W, h):
    return np.tanh(W @ h)


def two_layers(W, h):
    for _ in range(3):
        h = layer(W, h)
    return np.sum(h ** 2)


def _with_scale(scale):
    def scaled(v):
        return v * scale + math.sin(v)

    def f(x):
        return scaled(x) * scaled(2.0 * x)
    return f


with_closure = _with_scale(1.7)


def _rng(seed):
    return np.random.default_rng(seed)


PROGRAMS = [
    ("helper with a loop, called twice", calls_decay_twice, (0.8, 1.3), (0, 1), True),
    ("helper with branches, middle", clipped_sum, (0.4, 0.7), (0, 1), False),
    ("helper with branches, outer sides", clipped_sum, (2.5, -1.8), (0, 1), False),
    ("helper returning a tuple, called by a helper", outer_helper, (0.9, 0.4), (0, 1), False),
    ("array helper in a loop", two_layers, (_rng(1).normal(size=(3, 3)) / 2, _rng(2).normal(size=3)), (0, 1),
     False),
    ("helper reading a closure variable", with_closure, (0.6,), 0, False),
]


def _tuple(result, wrt):
    return result if isinstance(wrt, tuple) else (result,)


@pytest.mark.parametrize(("func", "args", "wrt"), [
    pytest.param(f, a, w, id=name, marks=() if default else pytest.mark.slow) for name, f, a, w, default in PROGRAMS])
def test_helpers_compile_as_module_functions_and_agree(func, args, wrt):
    df = srcdiff.grad(func, wrt=wrt, jit="numba")
    got = _tuple(df(*args), wrt)
    plain = _tuple(srcdiff.grad(func, wrt=wrt)(*args), wrt)
    for index, g, p in zip(wrt if isinstance(wrt, tuple) else (wrt,), got, plain):
        assert np.shape(g) == np.shape(args[index])
        np.testing.assert_allclose(g, central_difference(func, args, index), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g, p, rtol=1e-12, atol=1e-13)


@pytest.mark.slow
def test_a_global_a_helper_reads_is_read_on_every_call(monkeypatch):
    import sys
    df = srcdiff.grad(calls_decay_twice, wrt=0, jit="numba")
    first = df(0.8, 1.3)
    monkeypatch.setattr(sys.modules[__name__], "RATE", 0.6)
    second = df(0.8, 1.3)
    np.testing.assert_allclose(second, central_difference(calls_decay_twice, (0.8, 1.3), 0), rtol=1e-6)
    assert abs(first - second) > 1e-3
