"""srcdiff.stop_gradient: the identity with a zero derivative, in every transformation.

References are central differences of the same function with the stopped value frozen (a
constant computed once at the point), or closed forms written by hand."""

import importlib.util
import math

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff
from srcdiff import stop_gradient


def scalar(x, y):
    a = np.exp(y) * x
    b = srcdiff.stop_gradient(np.sin(a * x))
    return a + b * x


def scalar_frozen(x, y, b):
    return np.exp(y) * x + b * x


def centred(w):
    return np.sum((w - stop_gradient(np.mean(w))) ** 2)


def looped(x, n):
    s = 0.0
    for i in range(n):
        s = s + stop_gradient(s) * x + math.sin(x * i)
    return s


def looped_frozen(x, n, stopped):
    s = 0.0
    for i in range(n):
        s = s + stopped[i] * x + math.sin(x * i)
    return s


def branched(x):
    if x > 0.0:
        y = stop_gradient(x * x) * x
    else:
        y = x * x
    return y


def helper(u):
    return stop_gradient(u * u)


def calls_helper(x):
    return helper(x) * x + x


def cubic_stop(x):
    return x * stop_gradient(x) ** 2


def _stopped_values(x, n):
    s, out = 0.0, []
    for i in range(n):
        out.append(s)
        s = s + s * x + math.sin(x * i)
    return out


@pytest.mark.parametrize("x, y", [(2.0, 0.5), (-1.3, 0.1), (0.7, -2.0)])
def test_scalar_gradient_holds_the_stopped_value_constant(x, y):
    b = math.sin(np.exp(y) * x * x)
    gx, gy = srcdiff.grad(scalar, wrt=(0, 1))(x, y)
    assert_close(gx, central_difference(lambda x, y: scalar_frozen(x, y, b), (x, y), 0))
    assert_close(gy, central_difference(lambda x, y: scalar_frozen(x, y, b), (x, y), 1))


def test_the_stopped_computation_gets_no_adjoint_code():
    source = srcdiff.grad(scalar, wrt=(0, 1)).source
    assert "stop_gradient(" in source          # the value is still computed ...
    assert "np.cos" not in source              # ... but nothing differentiates what it guards
    assert "* 0.0" not in source and "0.0 *" not in source


def test_array_mean_stopped(rng):
    w = rng.normal(size=7)
    assert_close(srcdiff.grad(centred)(w), 2 * (w - w.mean()))  # by hand: the mean is a constant


@pytest.mark.parametrize("n", [1, 3, 6])
def test_inside_a_loop(n):
    x = 0.3
    stopped = _stopped_values(x, n)
    expected = central_difference(lambda x: looped_frozen(x, n, stopped), (x,), 0)
    assert_close(srcdiff.grad(looped)(x, n), expected)


@pytest.mark.parametrize("x, expected", [(1.5, 1.5 ** 2), (-0.5, -1.0)])
def test_in_a_branch(x, expected):
    assert_close(srcdiff.grad(branched)(x), expected)  # x > 0: d/dx (c * x) = c = x**2


def test_in_a_called_helper():
    x = 1.7
    assert_close(srcdiff.grad(calls_helper)(x), x * x + 1.0)


def test_forward_mode_gives_a_zero_tangent():
    x, y = 2.0, 0.5
    b = math.sin(np.exp(y) * x * x)
    value, tangent = srcdiff.jvp(scalar, (x, y), (1.0, 0.0))
    assert_close(value, scalar(x, y))
    assert_close(tangent, central_difference(lambda x, y: scalar_frozen(x, y, b), (x, y), 0))


def test_higher_order_stops_again():
    # f(x) = x * c**2 with c = x stopped: f' = c**2 (numerically x**2), f'' = 0 (JAX's meaning)
    x = 1.3
    assert_close(srcdiff.grad(cubic_stop)(x), x * x)
    assert_close(srcdiff.grad(srcdiff.grad(cubic_stop))(x), 0.0)
    assert_close(srcdiff.hessian(cubic_stop)(x), 0.0)
    assert_close(srcdiff.hvp(cubic_stop, x, 1.0), 0.0)


def test_jacobian_of_a_vector_function(rng):
    def vector(v):
        return v * stop_gradient(np.sum(v))

    v = rng.normal(size=4)
    assert_close(srcdiff.jacobian(vector)(v), np.eye(4) * v.sum())


@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba is not installed")
def test_jit_numba():
    x, y = 2.0, 0.5
    assert_close(srcdiff.grad(scalar, jit="numba")(x, y), srcdiff.grad(scalar)(x, y))


def test_export_copies_the_helper(tmp_path):
    path = srcdiff.export(scalar, 2.0, 0.5, wrt=0, path=tmp_path / "scalar_grad.py")
    text = path.read_text()
    assert "import srcdiff" not in text and "from srcdiff" not in text
    scope = {}
    exec(compile(text, str(path), "exec"), scope)
    b = math.sin(np.exp(0.5) * 4.0)
    assert_close(scope["scalar_grad"](2.0, 0.5), np.exp(0.5) + b)
