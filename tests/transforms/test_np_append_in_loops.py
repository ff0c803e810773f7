"""`np.append(arr, values)` inside a loop body (found by the red team's fourth wave: a spring
chain's force `tension - np.append(tension[1:], 0.0)`).  The loop analysis took any
``name.append(...)`` for a list growing in place, so `np` became a loop variable and every
NumPy call of the body was then refused as "the method .sin() of np".  A list's append takes
one argument; NumPy's takes two.  Against central differences, through grad, jvp and hessian."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import assert_close, central_difference, hessian_difference

import srcdiff


def shift_left(x0, k):
    x = x0
    for _ in range(3):
        x = np.append(x[1:], 0.0) * k
    return np.sum(x ** 2)


def sine_then_append(x0, k):
    x = x0
    for _ in range(3):
        y = np.sin(x)
        x = np.append(y[1:], 0.5) * k
    return np.sum(x ** 2)


def spring_forces(x0, k):
    x = x0.copy()
    v = np.zeros_like(x0)
    for _ in range(4):
        tension = k * (np.diff(np.concatenate([[0.0], x])) - 1.0)
        force = tension - np.append(tension[1:], 0.0)
        v = v + 0.05 * force
        x = x + 0.05 * v
    return np.sum(x ** 2)


def append_keyword_axis(x0, k):
    x = x0
    for _ in range(2):
        x = np.append(x[:, 1:], x[:, :1] * k, axis=1) + 0.1 * np.cumsum(x, axis=1)
    return np.sum(np.tanh(x))


def append_and_list(x0, k):
    out = []  # a list that does grow, next to np.append: both in one loop
    x = x0
    for i in range(3):
        x = np.append(x[1:], k * x[0])
        out.append(np.sum(x * (i + 1)))
    return sum(out) + np.sum(np.exp(0.1 * x))


PROGRAMS = [shift_left, sine_then_append, spring_forces, append_and_list]
POINT = np.array([1.0, 2.5, 3.0, 5.0])


@pytest.mark.parametrize("f", PROGRAMS + [append_keyword_axis], ids=lambda f: f.__name__)
def test_gradient(f):
    x = POINT.reshape(2, 2) if f is append_keyword_axis else POINT
    for wrt, args in ((0, (x, 0.7)), (1, (x, 0.7))):
        assert_close(srcdiff.grad(f, wrt=wrt)(*args), central_difference(f, args, wrt), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_tangent(f):
    v = np.array([0.3, -1.0, 0.5, 2.0])
    _, tangent = srcdiff.jvp(f, (POINT, 0.7), (v, None))
    assert_close(tangent, central_difference(f, (POINT, 0.7), 0) @ v, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", [shift_left, sine_then_append, spring_forces], ids=lambda f: f.__name__)
def test_hessian(f):
    x = 0.3 * POINT
    assert_close(srcdiff.hessian(f)(x, 0.7), hessian_difference(f, (x, 0.7)), rtol=1e-4, atol=1e-4)
