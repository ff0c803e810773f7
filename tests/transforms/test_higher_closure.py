"""Second order through what a derivable gradient's own code does (issue 23): the closure of
srcdiff's output under srcdiff.

Each class below was refused once, because the first-order code uses it and lowering did not
read it back: an index write into a copy (``set_item(y, np.s_[1:3], v)``, ``zero_item``), a
nested loop's stacks, tensordot adjoints of ``np.inner`` / ``np.tensordot``, slices of an
adjoint written in a loop (``u_bar[1:-1] += ...``), a saved ``isinstance(...) and flag`` test.
Every program goes through `hessian`, `hvp` and ``jacobian(grad(f))`` (against second-order
central differences of f, float64), `jvp` (against central differences of f), float32 second
order, and, for programs of one number, ``grad(grad(f))``.  No reference comes from srcdiff.
"""

import numpy as np
import pytest
from numeric import SECOND_ORDER, assert_close, central_difference, hessian_difference, second_order

import srcdiff

W = np.array([[0.3, -0.4], [0.7, 1.1], [-0.5, 0.2]])
T = np.linspace(-1.0, 1.0, 12).reshape(2, 2, 3)
BASE = np.array([0.3, -0.4, 0.7, 1.1])


# ---- index writes into copies: set_item / zero_item read back as writes ----

def copy_written(x):
    y = np.array(x, copy=True)
    y[0] = x[1] * x[2]
    return np.sum(y * x)


def copy_slice_written(x):
    y = x.copy()
    y[1:3] = np.sin(x[:2])
    return np.sum(y ** 2 * x)


def number_into_a_slice(x):
    y = np.ones(4)
    y[1:3] = x[0] * x[3]
    return np.sum(y * x) + y[1] * x[2]


def written_in_a_branch(x):
    y = x.copy()
    if x[0] > 0.0:
        y[2] = x[0] ** 2
    else:
        y[2] = -x[1]
    return np.sum(np.exp(y) * x)


# ---- nested loops: one read position per stack, counting down through every iteration ----

def nested_for(x):
    s = 0.0
    for i in range(3):
        for j in range(i + 1):
            s = s + np.sin(x[i] * x[j] + 0.1 * s)
    return s


def nested_with_break(x):
    s = 0.0
    for i in range(3):
        for j in range(3):
            if j > i:
                break
            s = s + x[i] * np.cos(x[j] * s + 0.2)
    return s


def nested_triangle(x):
    s = 0.0
    for i in range(4):
        for j in range(i):
            s = s + x[j] ** 2 * x[i]
    return s


def while_in_for(x):
    s = 0.0
    for i in range(3):
        t = x[i] ** 2 + 0.1
        while t < 2.0:
            t = t * 1.7 + x[3] * 0.05
            s = s + np.sin(t * x[i])
    return s


def for_in_while(x):
    s = 0.0
    k = 0
    while k < 2:
        for j in range(3):
            s = s + np.cos(x[j] * s + x[k])
        k = k + 1
    return s


def three_deep(x):
    s = 0.0
    for i in range(2):
        for j in range(2):
            for m in range(2):
                s = s + np.sin(x[i] * x[j] + x[m] * s)
    return s


# ---- products whose adjoints are tensordots (their shapes now known) ----

def inner_of_matrices(x):
    return np.sum(np.sin(np.inner(x.reshape(2, 2), W)))


def tensordot_pairs(x):
    return np.sum(np.tanh(np.tensordot(x.reshape(2, 2), T, axes=([0, 1], [1, 0]))))


def tensordot_one_axis(x):
    return np.sum(np.tensordot(x.reshape(2, 2), T[0], axes=1) ** 2)


# ---- slices of an adjoint written in a loop ----

def shrinking_slices(x):
    y = x
    for _ in range(2):
        y = y[1:] * y[:-1]
    return np.sum(y)


def heat_steps(x):
    u = x.copy()
    for _ in range(3):
        lap = u[:-2] - 2 * u[1:-1] + u[2:]
        u[1:-1] = u[1:-1] + 0.2 * lap
    return np.sum(u ** 3)


def smoother(x):
    u = x
    for _ in range(2):
        u = 0.25 * np.concatenate([u[:1], u[:-1]]) + 0.5 * u + 0.25 * np.concatenate([u[1:], u[-1:]])
    return np.sum(np.tanh(u) ** 2)


# ---- a saved test made of builtins and a flag ----

def isinstance_and_flag(x, matrix=True):
    if isinstance(x, np.ndarray) and matrix:
        y = x.reshape(2, 2)
    else:
        y = x
    return np.sum(np.exp(y) * y[0])


PROGRAMS = {f.__name__: f for f in [
    copy_written, copy_slice_written, number_into_a_slice, written_in_a_branch,
    nested_for, nested_with_break, nested_triangle, while_in_for, for_in_while, three_deep,
    inner_of_matrices, tensordot_pairs, tensordot_one_axis,
    shrinking_slices, heat_steps, smoother, isinstance_and_flag]}


@pytest.mark.parametrize("transform", SECOND_ORDER)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_second_order(name, transform, rng):
    x = BASE + 0.1 * rng.normal(size=4)
    got, expected = second_order(transform, PROGRAMS[name], x, rng)
    assert_close(got, expected, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jvp(name, rng):
    f = PROGRAMS[name]
    x, v = BASE + 0.1 * rng.normal(size=4), rng.normal(size=4)
    value, tangent = srcdiff.jvp(f, (x,), (v,))
    assert value == pytest.approx(f(x), rel=1e-12)
    assert tangent == pytest.approx(float(central_difference(f, (x,), 0) @ v), rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_float32_second_order(name):
    f = PROGRAMS[name]
    x = BASE.astype(np.float32)
    H, product = srcdiff.hessian(f)(x), srcdiff.hvp(f, x, np.ones(4, np.float32))
    if np.asarray(f(x)).dtype == np.float32:  # (f mixing in float64 constants computes in float64)
        assert H.dtype == np.float32 and product.dtype == np.float32
    expected = hessian_difference(f, (BASE,))
    assert_close(H, expected, rtol=2e-3, atol=2e-3)
    assert_close(product, expected @ np.ones(4), rtol=2e-3, atol=2e-3)


# ---- programs of one number: grad(grad(f)) ----

def scalar_written(t):
    y = np.cos(t * BASE)
    z = y.copy()
    z[1:3] = t * y[:2]
    return np.sum(z ** 2)


def scalar_nested(t):
    s = t
    for i in range(3):
        for j in range(i + 1):
            s = np.sin(s * t + 0.1 * j)
    return s


def scalar_heat(t):
    u = np.cos(t * BASE).copy()
    for _ in range(2):
        u[1:-1] = u[1:-1] + 0.3 * (u[:-2] - 2 * u[1:-1] + u[2:])
    return np.sum(u ** 2)


def scalar_inner(t):
    A = np.reshape(np.sin(t * BASE), (2, 2))
    return np.sum(np.inner(A, A) ** 2)


@pytest.mark.parametrize("f", [scalar_written, scalar_nested, scalar_heat, scalar_inner], ids=lambda f: f.__name__)
def test_grad_of_grad(f):
    t, h = 0.7, 1e-4
    expected = (f(t + h) - 2.0 * f(t) + f(t - h)) / (h * h)
    assert srcdiff.grad(srcdiff.grad(f))(t) == pytest.approx(expected, rel=1e-5, abs=1e-5)


def test_the_derivable_gradient_writes_as_it_reads():
    """The forms this file exercises are in the first-order code srcdiff reads back as it is."""
    x = BASE.copy()
    sources = {f: srcdiff.grad(f)._derivable((x,))[1].source for f in (copy_slice_written, nested_for, heat_steps)}
    assert "y[1:3] = " in sources[copy_slice_written]  # written in place: x.copy() is new
    assert sources[nested_for].count("len(stack") >= 2  # a read position per loop, set before both
    assert "u_1_bar[1:-1] += " in sources[heat_steps]
