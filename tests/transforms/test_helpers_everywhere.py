"""Every transformation through every kind of user helper (ad/inline.py copies them into
the caller): branches, elif chains, loops, while loops, break, early returns, lists,
tuples, defaults and keywords, helpers of helpers, a helper called from several places,
one far over the old size cap, an RK4 step calling its right-hand side four times, static
arguments, module constants — and recursion, which cannot be copied and stays a call
(numba's gradient of it recomputes each level's values: backend/numba/recursion.py).

One matrix: each program through grad, value_and_grad, hessian, hvp, grad(grad(f)) (for a
scalar argument), jvp, vjp and jit="numba".  References are float64 central differences of
the program itself (first and second order), never srcdiff's own output.
"""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import srcdiff

# ---- the helpers and the programs calling them (argument 0 is differentiated) ----------


def bend(x):
    if x > 0.5:
        y = x * x
    else:
        y = math.sin(x)
    return y


def f_if(x):
    return bend(x) * 2.0 + bend(x - 0.4)


def piece(x, a):
    if x < -1.0:
        y = -x * a
    elif x < 1.0:
        y = x * x * a + math.cos(x)
    else:
        y = math.exp(x - 1.0) * a
    return y


def f_elif(x):
    return piece(x, 2.0) + piece(x * 3.0, 0.5) * piece(x - 2.5, 1.5)


def powsum(x, n=4):
    s = 0.0
    for i in range(n):
        s = s + math.sin(x * (i + 1)) / (i + 1)
    return s


def f_loop(x):
    return powsum(x) * x + powsum(x, n=2)


def newton_sqrt(a):
    y = a
    while abs(y * y - a) > 1e-13 * a:
        y = 0.5 * (y + a / y)
    return y


def f_while(a):
    return newton_sqrt(a) * a + newton_sqrt(a + 1.0)


def first_big(x, limit):
    s = x
    for _ in range(10):
        s = s * 1.5 + math.sin(s)
        if s > limit:
            break
    return s


def f_break(x):
    return first_big(x, 5.0) + first_big(0.5 * x, 100.0)


def signed_cube(x):
    if x < 0:
        return -x * x
    return x * x * x


def f_early(x):
    return signed_cube(x) + signed_cube(x - 1.0) * x


def big_polynomial(x):
    y = 1.0
    y = y * x + 0.5
    y = y * x - 0.25
    y = y * x + math.sin(x)
    y = y * x + 0.125
    y = y * x - math.cos(x)
    y = y * x + 0.5
    y = y * x - 0.75
    y = y * x + math.exp(-x * x)
    y = y * x + 0.1
    y = y * x - 0.2
    y = y * x + math.tanh(x)
    y = y * x + 0.3
    y = y * x - 0.4
    y = y * x + math.sin(2 * x) * math.cos(3 * x)
    y = y * x + 0.5
    y = y * x - 0.6
    y = y * x + math.log(1.0 + x * x)
    y = y * x + 0.7
    y = y * x - 0.8
    y = y * x + math.sqrt(1.0 + x * x)
    z = y / (1.0 + x * x)
    w = z * z + y * 0.01
    return w + math.atan(y) + math.sin(z) * math.cos(w) + math.exp(-z * z)


def f_large(x):
    return big_polynomial(0.4 * x)


def softsign(x):
    return x / (1.0 + abs(x))


def f_several(x):
    a = softsign(x)
    b = softsign(a * 3.0)
    return softsign(b - x) + a * b


def level4(x):
    return math.sin(x) * x


def level3(x):
    return level4(x) + level4(x * 0.5)


def level2(x):
    if x > 10.0:
        return x
    return level3(x) * level3(x + 1.0)


def level1(x):
    t = 0.0
    for i in range(2):
        t = t + level2(x + i)
    return t


def f_deep(x):
    return level1(x) + x


def rhs(theta, omega, c, k):
    return omega, -c * omega - k * math.sin(theta)


def rk4_step(theta, omega, c, k, dt):
    k1t, k1o = rhs(theta, omega, c, k)
    k2t, k2o = rhs(theta + 0.5 * dt * k1t, omega + 0.5 * dt * k1o, c, k)
    k3t, k3o = rhs(theta + 0.5 * dt * k2t, omega + 0.5 * dt * k2o, c, k)
    k4t, k4o = rhs(theta + dt * k3t, omega + dt * k3o, c, k)
    theta = theta + dt / 6.0 * (k1t + 2 * k2t + 2 * k3t + k4t)
    omega = omega + dt / 6.0 * (k1o + 2 * k2o + 2 * k3o + k4o)
    return theta, omega


def simulate(c, k, steps):
    theta, omega = 1.0, 0.0
    states = []
    for _ in range(steps):
        theta, omega = rk4_step(theta, omega, c, k, 0.05)
        states.append(theta)
    return states


def pendulum(p):
    states = simulate(p[0], p[1], 30)
    total = 0.0
    for s in states:
        total = total + (s - 0.5) ** 2
    return total


def polar(r, phi):
    return r * math.cos(phi), r * math.sin(phi)


def f_tuple(x):
    a, b = polar(x, 0.3 * x)
    c, d = polar(b + 1.0, a)
    return a * d - b * c


def damped(x, rate=0.5, scale=2.0, flip=False):
    y = scale * math.exp(-rate * x)
    if flip:
        y = -y
    return y


def f_defaults(x):
    return damped(x) + damped(x, scale=3.0) * damped(x, 0.25, flip=True)


def running(x, n):
    out = []
    acc = 0.0
    for i in range(n):
        acc = acc + math.sin(x + i)
        out.append(acc * x)
    return out


def total_of(values):
    s = 0.0
    for v in values:
        s = s + v * v
    return s


def f_list(x):
    return total_of(running(x, 5)) + sum(running(2.0 * x, 3))


def normalise(v, axis):
    return v / np.sqrt(np.sum(v * v, axis=axis, keepdims=True))


def f_axis(x):
    m = np.reshape(x, (2, 3))
    return np.sum(normalise(m, 1) * normalise(m, 0) * m)


RATE = 0.7


def decay(x):
    return np.exp(-RATE * x) * x


def f_global(x):
    return np.sum(decay(x) ** 2)


def smooth_abs(v):
    return np.where(v > 0, v, -v) + 0.1 * v * v


def layer(x, w):
    h = np.tanh(x * w)
    if np.sum(h) > 0.0:
        h = h * 2.0
    return smooth_abs(h)


WEIGHTS = np.array([0.5, -1.0, 2.0])


def f_array(x):
    y = layer(x, WEIGHTS)
    for _ in range(2):
        y = layer(y, WEIGHTS)
    return np.sum(y)


def fact(x, n):
    if n <= 0:
        return 1.0
    return x * fact(x, n - 1)


def f_recursive(x, n):
    return fact(x, n) + x


PROGRAMS = {  # name: (function, arguments)
    "if": (f_if, (0.7,)),
    "elif": (f_elif, (0.45,)),
    "loop": (f_loop, (0.8,)),
    "while": (f_while, (2.3,)),
    "break": (f_break, (0.9,)),
    "early_return": (f_early, (0.6,)),
    "large": (f_large, (0.9,)),
    "several_calls": (f_several, (0.7,)),
    "helper_of_helper": (f_deep, (0.3,)),
    "rk4_rhs": (pendulum, (np.array([0.3, 2.0]),)),
    "tuple": (f_tuple, (0.8,)),
    "defaults": (f_defaults, (0.6,)),
    "list": (f_list, (0.35,)),
    "static_axis": (f_axis, (np.array([0.5, -1.0, 2.0, 1.5, 0.3, -0.7]),)),
    "module_constant": (f_global, (np.array([0.2, 1.1, -0.4]),)),
    "arrays": (f_array, (np.array([0.3, -0.8, 1.2]),)),
    "recursion": (f_recursive, (0.8, 3)),
}

TRANSFORMS = ["grad", "value_and_grad", "hessian", "hvp", "grad_grad", "jvp", "vjp", "numba"]

#: (program, transform) -> why srcdiff refuses it, matched against the SrcDiffError, which
#: must name a line of this file
REFUSED: dict = {}  # (numba refused the recursive helper before its levels recomputed their values)

HERE = "test_helpers_everywhere.py:"


# ---- references: central differences of f in float64 ----------------------------------

H1, H2 = 1e-6, 1e-4


def _along(f, args, v, h):
    x = args[0]
    return f(x + h * v, *args[1:])


def _gradient(f, args):
    x = np.asarray(args[0], dtype=float)
    g = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[i] = 1.0
        g[i] = (_along(f, args, _like(e, args[0]), H1) - _along(f, args, _like(e, args[0]), -H1)) / (2 * H1)
    return g


_CORNERS = ((1, 1), (1, -1), (-1, 1), (-1, -1))


def _hessian(f, args):
    x = np.asarray(args[0], dtype=float)
    n = x.size
    hess = np.zeros((n, n))
    basis = np.eye(n)
    for i in range(n):
        for j in range(n):
            ei, ej = basis[i].reshape(x.shape), basis[j].reshape(x.shape)
            at = [f(_like(x + H2 * (a * ei + b * ej), args[0]), *args[1:]) for a, b in _CORNERS]
            hess[i, j] = (at[0] - at[1] - at[2] + at[3]) / (4 * H2 * H2)
    return hess


def _like(value, example):
    """`value` as a Python float when the argument is one."""
    return float(np.asarray(value).reshape(())) if isinstance(example, float) else value


def _close(actual, expected, rtol, atol):
    np.testing.assert_allclose(np.asarray(actual, dtype=float), np.asarray(expected, dtype=float), rtol=rtol, atol=atol)


# ---- the matrix ----------------------------------------------------------------------


def _run(transform: str, f, args):
    """What srcdiff gives for `transform`, and the reference it must agree with."""
    x = args[0]
    scalar = isinstance(x, float)
    if transform == "grad":
        return srcdiff.grad(f)(*args), _gradient(f, args), 1e-5
    if transform == "value_and_grad":
        value, grad = srcdiff.value_and_grad(f)(*args)
        assert value == pytest.approx(f(*args), rel=1e-12)
        return grad, _gradient(f, args), 1e-5
    if transform == "hessian":
        hess = srcdiff.hessian(f)(*args)
        return np.reshape(hess, (np.size(x), np.size(x))), _hessian(f, args), 1e-4
    if transform == "hvp":
        v = 0.75 if scalar else np.linspace(-1.0, 1.0, np.size(x)).reshape(np.shape(x))
        got = srcdiff.hvp(f, x, v, *args[1:])
        return np.reshape(got, -1), _hessian(f, args) @ np.reshape(v, -1), 1e-4
    if transform == "grad_grad":
        if not scalar:
            pytest.skip("grad(grad(f)) takes a function of one number")
        return srcdiff.grad(srcdiff.grad(f))(*args), _hessian(f, args)[0, 0], 1e-4
    if transform == "jvp":
        v = -0.6 if scalar else np.linspace(0.5, -1.5, np.size(x)).reshape(np.shape(x))
        tangents = (v,) + tuple(0.0 if isinstance(a, float) else None for a in args[1:])
        value, tangent = srcdiff.jvp(f, args, tangents)
        assert value == pytest.approx(f(*args), rel=1e-12)
        return tangent, (_along(f, args, v, H1) - _along(f, args, v, -H1)) / (2 * H1), 1e-5
    if transform == "vjp":
        value, pullback = srcdiff.vjp(f, *args)
        assert value == pytest.approx(f(*args), rel=1e-12)
        return pullback(1.5), 1.5 * _gradient(f, args), 1e-5
    assert transform == "numba"
    pytest.importorskip("numba")
    return srcdiff.grad(f, jit="numba")(*args), _gradient(f, args), 1e-5


#: numba compiles these two for seconds each (cold cache): they run under ``pytest -m slow``.
SLOW = {("static_axis", "numba"), ("arrays", "numba")}


@pytest.mark.parametrize(("program", "transform"), [
    pytest.param(p, t, marks=pytest.mark.slow if (p, t) in SLOW else ()) for p in PROGRAMS for t in TRANSFORMS])
def test_every_transformation_goes_through_every_helper(program, transform):
    f, args = PROGRAMS[program]
    refused = REFUSED.get((program, transform))
    if refused is not None:
        with pytest.raises(srcdiff.SrcDiffError, match=refused) as caught:
            _run(transform, f, args)
        assert HERE in str(caught.value), str(caught.value)
        if program == "recursion" and transform != "numba":  # at the user's call, not in generated code
            assert "return fact(x, n) + x" in str(caught.value), str(caught.value)
        return
    got, want, rtol = _run(transform, f, args)
    _close(got, want, rtol=rtol, atol=1e-6 if rtol == 1e-5 else 1e-4)


# ---- what inlining leaves in the code --------------------------------------------------


@pytest.mark.parametrize("program", [p for p in PROGRAMS if p != "recursion"])
def test_each_helper_is_copied_into_the_one_generated_function(program):
    f, args = PROGRAMS[program]
    source = srcdiff.grad(f).source_for(*args)
    defined = [line for line in source.splitlines() if line.startswith("def ")]
    assert defined == [f"def {f.__name__}_grad({', '.join(inspect.signature(f).parameters)}):"]


def test_a_helper_returning_a_tuple_hands_its_elements_over():
    source = srcdiff.grad(f_tuple).source_for(0.8)
    assert "[0]" not in source and "[1]" not in source  # no tuple built to be indexed


def test_the_copied_code_is_the_same_each_time():
    first = srcdiff.grad(f_deep).source_for(0.3)
    srcdiff.clear_cache()
    assert srcdiff.grad(f_deep).source_for(0.3) == first
