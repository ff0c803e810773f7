"""jit="numba" on a table of programs: each agrees with float64 central differences and with
the plain NumPy gradient, or is refused with a `SrcDiffError` naming the user's line.

numba compiles for seconds per program, so most of the table is marked slow (``pytest -m
slow``); the default run keeps one program of each kind.  Compiled code is kept on disk
(backend/jit.py), so a second run is quick.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

pytest.importorskip("numba")

# ---- the programs ------------------------------------------------------------------------


def softmax_xent(W, X, Y):
    z = X @ W
    z = z - np.max(z, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * logp, axis=1))


def mlp(W1, b1, W2, X):
    h = np.tanh(X @ W1 + b1)
    out = h @ W2
    out = out - np.mean(out, axis=0, keepdims=True)
    return np.sum(out ** 2) / X.shape[0]


def full_tuple_shape(x):
    base = np.full((3, 4), 0.5)
    ones = np.full(x.shape, 2.0)
    return np.sum(base * x * ones + x ** 2)


def power(x, n):
    y = 1.0
    for _ in range(n):
        y = y * x
    return y


def looping_helper(x):
    return power(x, 3) + math.sin(x) * power(x, 2)


def rhs(theta, omega, c, k):
    return omega, -c * omega - k * math.sin(theta)


def rk4_step(theta, omega, c, k, h):
    a1, b1 = rhs(theta, omega, c, k)
    a2, b2 = rhs(theta + 0.5 * h * a1, omega + 0.5 * h * b1, c, k)
    a3, b3 = rhs(theta + 0.5 * h * a2, omega + 0.5 * h * b2, c, k)
    a4, b4 = rhs(theta + h * a3, omega + h * b3, c, k)
    return (theta + h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4),
            omega + h / 6.0 * (b1 + 2.0 * b2 + 2.0 * b3 + b4))


def pendulum_fit(c, k):
    theta, omega = 1.0, 0.0
    loss = 0.0
    for _ in range(30):
        theta, omega = rk4_step(theta, omega, c, k, 0.05)
        loss = loss + (theta - 0.3) ** 2
    return loss


def clipped(v, lo):
    if v < lo:
        return lo + 0.0 * v
    return v * v


def branching_helper(x, y):
    return clipped(x, 0.5) * y + clipped(y, 0.5)


def checks_shape(x):
    if x.shape[0] != 4:
        raise ValueError(f"expected 4 rows, got {x.shape[0]} (shape {x.shape})")
    return np.sum(np.sin(x) * x)


SCALE = 0.5
OFFSETS = np.array([0.1, -0.2, 0.3])


def reads_globals(x):
    return np.sum((x * SCALE - OFFSETS) ** 2)


def scalar_while(x):
    s = x
    n = 0
    while s < 10.0 and n < 50:
        s = s * 1.3 + 0.1 * math.cos(s)
        n += 1
    return s


def branches(x, y):
    if x > y:
        z = x * y
    elif x > 0.0:
        z = x / (1.0 + y * y)
    else:
        z = math.exp(x) - y
    return z * z


def stacked_states(x, w):
    states = []
    h = x
    for _ in range(5):
        h = np.tanh(w * h + 0.1)
        states.append(h)
    return np.sum(np.stack(states) ** 2)


def reductions(x):
    a = np.sum(x, axis=(0, 1))
    b = np.min(x, axis=0)
    c = np.mean(x, axis=-1, keepdims=True)
    return np.sum(a * a) + np.sum(b) + np.sum(c * x)


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def affine(w, b, x):
    return np.sum(np.tanh(x * w + b))


def broadcast_helper(W, b, X):
    return affine(W, b, X) + affine(b, W, X)


def mixed_scalar_array(a, x):
    total = 0.0
    for i in range(x.shape[0]):
        total = total + a * x[i] ** 2 + math.sin(a * x[i])
    return total


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def _rng(seed=0):
    return np.random.default_rng(seed)


def _softmax_args():
    r = _rng(1)
    Y = np.eye(3)[[0, 2, 1, 1, 0]]
    return (r.normal(size=(4, 3)), r.normal(size=(5, 4)), Y)


def _mlp_args():
    r = _rng(2)
    return (r.normal(size=(3, 4)) / 2, r.normal(size=4), r.normal(size=(4, 2)), r.normal(size=(6, 3)))


#: (name, function, arguments, wrt, in the default run)
PROGRAMS = [
    ("softmax keepdims", softmax_xent, _softmax_args(), 0, True),
    ("mlp keepdims", mlp, _mlp_args(), (0, 1, 2), False),
    ("np.full tuple shape", full_tuple_shape, (_rng(3).normal(size=(3, 4)),), 0, False),
    ("helper with a loop", looping_helper, (1.3,), 0, True),
    ("rk4 with a helper", pendulum_fit, (0.3, 2.0), (0, 1), True),
    ("helper with a branch", branching_helper, (0.7, 1.4), (0, 1), False),
    ("helper with a branch, other side", branching_helper, (0.2, 1.4), (0, 1), False),
    ("f-string error branch", checks_shape, (_rng(4).normal(size=(4, 2)),), 0, False),
    ("globals", reads_globals, (_rng(5).normal(size=3),), 0, False),
    ("while loop", scalar_while, (1.1,), 0, False),
    ("branches, first", branches, (2.0, 1.5), (0, 1), False),
    ("branches, second", branches, (0.5, 1.5), (0, 1), False),
    ("branches, third", branches, (-0.5, 1.5), (0, 1), False),
    ("list of states", stacked_states, (_rng(6).normal(size=3), 0.7), (0, 1), False),
    ("reductions along axes", reductions, (_rng(7).normal(size=(3, 4)),), 0, False),
    ("logsumexp", logsumexp, (_rng(8).normal(size=5),), 0, False),
    ("helper of unknown shapes", broadcast_helper, (0.8, 0.3, _rng(9).normal(size=4)), (0, 1), False),
    ("scalar and array", mixed_scalar_array, (0.7, _rng(10).normal(size=4)), (0, 1), False),
    ("rosenbrock", rosenbrock, (_rng(11).normal(size=6),), 0, False),
]


def _param(name, func, args, wrt, default):
    return pytest.param(func, args, wrt, id=name, marks=() if default else pytest.mark.slow)


def _tuple(result, wrt):
    return result if isinstance(wrt, tuple) else (result,)


@pytest.mark.parametrize(("func", "args", "wrt"), [_param(*p) for p in PROGRAMS])
def test_numba_agrees_with_central_differences_and_the_numpy_gradient(func, args, wrt):
    got = _tuple(srcdiff.grad(func, wrt=wrt, jit="numba")(*args), wrt)
    plain = _tuple(srcdiff.grad(func, wrt=wrt)(*args), wrt)
    for index, g, p in zip(wrt if isinstance(wrt, tuple) else (wrt,), got, plain):
        assert np.shape(g) == np.shape(args[index])
        assert isinstance(g, np.ndarray) == isinstance(args[index], np.ndarray)
        np.testing.assert_allclose(g, central_difference(func, args, index), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g, p, rtol=1e-12, atol=1e-13)



# ---- globals: read on every call, never compiled in as constants -------------------------

WEIGHTS = np.array([1.0, 2.0, 3.0])
GAIN = 2.0
AXIS = 0


def global_array_and_number(x):
    return np.sum(np.sin(x * WEIGHTS) * GAIN)


def global_axis(x):
    return np.sum(np.max(x, axis=AXIS) ** 2)


def _expected_global_gradient(x):
    return GAIN * WEIGHTS * np.cos(x * WEIGHTS)


def test_a_global_array_changed_in_place_and_a_rebound_number_are_seen(monkeypatch):
    x = np.array([0.3, -0.2, 0.5])
    df = srcdiff.grad(global_array_and_number, jit="numba")
    np.testing.assert_allclose(df(x), _expected_global_gradient(x), rtol=1e-13)
    WEIGHTS[1] = -4.0  # in place: the same array object
    try:
        np.testing.assert_allclose(df(x), _expected_global_gradient(x), rtol=1e-13)
        monkeypatch.setattr(sys.modules[__name__], "GAIN", 0.25)
        np.testing.assert_allclose(df(x), _expected_global_gradient(x), rtol=1e-13)
        monkeypatch.setattr(sys.modules[__name__], "WEIGHTS", np.array([0.5, 0.5, 0.5]))
        np.testing.assert_allclose(df(x), _expected_global_gradient(x), rtol=1e-13)
    finally:
        WEIGHTS[1] = 2.0


@pytest.mark.slow
def test_a_rebound_static_global_builds_the_code_again(monkeypatch):
    x = np.array([[0.3, -0.2, 0.5], [0.1, 0.9, -0.4]])
    df = srcdiff.grad(global_axis, jit="numba")
    for axis in (0, 1, 0):
        monkeypatch.setattr(sys.modules[__name__], "AXIS", axis)
        np.testing.assert_allclose(df(x), central_difference(global_axis, (x,), 0), rtol=1e-6, atol=1e-8)


def _closure_with(scale):
    def f(x):
        return np.sum(np.tanh(x) * scale)
    return f


@pytest.mark.slow
def test_a_closure_variable_rebound_between_calls_is_seen():
    scale = 2.0

    def f(x):
        return np.sum(np.tanh(x) * scale)
    df = srcdiff.grad(f, jit="numba")
    x = np.array([0.2, -0.7])
    np.testing.assert_allclose(df(x), 2.0 * (1 - np.tanh(x) ** 2), rtol=1e-13)
    scale = -3.0  # noqa: F841  read by f through its cell
    np.testing.assert_allclose(df(x), -3.0 * (1 - np.tanh(x) ** 2), rtol=1e-13)


# ---- errors: where the Python gradient raises, the compiled one raises the same ----------


@pytest.mark.slow
def test_an_error_branch_taken_raises_the_users_error():
    df = srcdiff.grad(checks_shape, jit="numba")
    df(np.ones((4, 2)))
    with pytest.raises(ValueError, match=r"expected 4 rows, got 3 \(shape \(3, 2\)\)"):
        df(np.ones((3, 2)))


def fact(x, n):
    if n <= 0:
        return 1.0
    return x * fact(x, n - 1)


def calls_recursive(x):
    return fact(x, 4)


def shape_then_array(x, n):
    s = 0.0
    for i in range(n):
        s = s * 0.5 + np.sin(x * i)
    return np.sum(s) * np.ndim(s)  # (a number's ndim: backend/numba/joins.py does not make it an array)


def test_a_recursive_helper_compiles():  # (refused before backend/numba/recursion.py)
    want = srcdiff.grad(calls_recursive)(1.3)
    assert srcdiff.grad(calls_recursive, jit="numba")(1.3) == pytest.approx(want, rel=1e-12)
    assert want == pytest.approx(4 * 1.3 ** 3, rel=1e-12)


@pytest.mark.parametrize(("func", "args", "line", "words"), [
    # numba names where the variable's two kinds meet, a join the user's code does not spell: the function
    (shape_then_array, (np.ones(3), 4), shape_then_array.__code__.co_firstlineno, "unify float64 and array"),
])
def test_what_numba_cannot_compile_is_refused_at_the_users_line(func, args, line, words):
    plain = srcdiff.grad(func)(*args)  # the gradient exists: only numba refuses
    assert np.all(np.isfinite(plain))
    with pytest.raises(srcdiff.SrcDiffError, match=words) as info:
        srcdiff.grad(func, jit="numba")(*args)
    assert info.value.location is not None and info.value.location.line == line
    assert "jit='numba'" in str(info.value)
