"""Sizes read from arguments where a NumPy function wants a constant (issue #25).

``np.linspace(0, 1, len(y))`` and ``x.reshape(z.shape[0], 2, 2)``: a gradient is compiled per
number of axes, not per length, so such a size is known only when the function runs.  A call
whose other arguments are numbers written in the code carries no gradient and is computed as
written; a reshape's shape is computed as written (its adjoint needs only x's shape).  Every
result is checked against central differences, at two lengths through the same gradient
function (the second call must not reuse the first length), in grad, jvp, hessian and float32.
``np.linspace(x[0], 1, len(y))`` is differentiated too (its number of points is read at run time);
where the size decides a differentiated value otherwise (``np.geomspace(x[0], 2, len(y))``,
``np.tile(x, len(y))``) srcdiff refuses with what to do.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import assert_close, central_difference, hessian_difference

import srcdiff


def linspace_len(x, y):
    t = np.linspace(0.0, 1.0, len(y))
    return np.sum(np.sin(x) * t * y)


def linspace_shape(x, y):
    return np.sum(x ** 2 * np.linspace(0, 1, y.shape[0]))


def linspace_size(x, y):
    return np.sum(np.exp(x * np.linspace(-1.0, 2.0, y.size)) * y)


def linspace_named(x, y):
    n = len(y)
    w = np.linspace(0.5, 1.5, n)
    return np.sum(w * x ** 3)


def geomspace_len(x, y):
    return np.sum(np.geomspace(1.0, 8.0, num=len(y)) * np.cos(x))


def reshape_shape(x, z):
    m = x.reshape(z.shape[0], 2, 2)
    return np.sum(np.sin(m) * m[:, ::-1, :])


def reshape_named(x, z):
    n = len(z)
    return np.sum(x.reshape(n, -1) ** 3 * z[:, None])


def reshape_tuple(x, z):
    return np.sum(np.reshape(x, (z.shape[0], 2)).sum(axis=1) ** 2 * z)


#: (function, x for length n as a function of n, the other argument for length n)
CASES = [
    (linspace_len, lambda n, r: r.normal(size=n), lambda n, r: r.normal(size=n)),
    (linspace_shape, lambda n, r: r.normal(size=n), lambda n, r: r.normal(size=n)),
    (linspace_size, lambda n, r: r.normal(size=n) * 0.3, lambda n, r: r.normal(size=n)),
    (linspace_named, lambda n, r: r.normal(size=n), lambda n, r: r.normal(size=n)),
    (geomspace_len, lambda n, r: r.normal(size=n), lambda n, r: r.normal(size=n)),
    (reshape_shape, lambda n, r: r.normal(size=4 * n), lambda n, r: r.normal(size=n)),
    (reshape_named, lambda n, r: r.normal(size=3 * n), lambda n, r: r.normal(size=n)),
    (reshape_tuple, lambda n, r: r.normal(size=2 * n), lambda n, r: r.normal(size=n)),
]
IDS = [c[0].__name__ for c in CASES]


@pytest.mark.parametrize("f,make_x,make_y", CASES, ids=IDS)
def test_grad_at_two_lengths(f, make_x, make_y):
    r = np.random.default_rng(0)
    g = srcdiff.grad(f)
    for n in (3, 5, 2):
        x, y = make_x(n, r), make_y(n, r)
        assert_close(g(x, y), central_difference(f, (x, y), 0), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f,make_x,make_y", CASES, ids=IDS)
def test_jvp_at_two_lengths(f, make_x, make_y):
    r = np.random.default_rng(1)
    for n in (4, 2):
        x, y = make_x(n, r), make_y(n, r)
        e = r.normal(size=x.shape)
        value, tangent = srcdiff.jvp(f, (x, y), (e, np.zeros_like(y)))
        assert_close(value, f(x, y))
        expected = np.sum(central_difference(f, (x, y), 0) * e)
        assert_close(tangent, expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f,make_x,make_y", CASES, ids=IDS)
def test_hessian_at_two_lengths(f, make_x, make_y):
    r = np.random.default_rng(2)
    h = srcdiff.hessian(f)
    for n in (3, 2):
        x, y = make_x(n, r), make_y(n, r)
        assert_close(h(x, y), hessian_difference(f, (x, y)), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("f,make_x,make_y", CASES, ids=IDS)
def test_float32(f, make_x, make_y):
    r = np.random.default_rng(3)
    g = srcdiff.grad(f)
    for n in (3, 4):
        x, y = make_x(n, r), make_y(n, r)
        x32, y32 = x.astype(np.float32), y.astype(np.float32)
        got = g(x32, y32)
        # float32 even where the function itself promotes (np.linspace gives float64, as in
        # NumPy): a gradient has its argument's dtype (issue 24, item 9)
        assert got.dtype == np.float32
        expected = central_difference(f, (x.astype(np.float64), y.astype(np.float32).astype(np.float64)), 0)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_a_length_passed_as_an_argument():
    """The workaround the refusals name: the length as an argument of its own."""
    def f(x, n):
        return np.sum(x * np.linspace(x[0], 1.0, n))

    g = srcdiff.grad(f)
    for n in (3, 5):
        x = np.linspace(0.2, 0.9, n)
        assert_close(g(x, n), central_difference(f, (x, n), 0))


def differentiated_endpoint(x, y):
    return np.sum(np.linspace(x[0], 1.0, len(y)) * x)


def differentiated_named(x, y):
    n = y.shape[0]
    return np.sum(np.linspace(x[0], x[1], n))


@pytest.mark.parametrize("f", [differentiated_endpoint, differentiated_named])
def test_linspace_of_a_run_time_size_between_differentiated_endpoints(f):
    g = srcdiff.grad(f)  # one gradient function, two lengths: the second must not reuse the first
    for x, y in ((np.array([0.3, 0.5, 0.7]), np.ones(3)), (np.array([0.3, 0.5, 0.7, -0.2]), np.ones(4))):
        assert_close(g(x, y), central_difference(f, (x, y), 0))
        _, slope = srcdiff.jvp(f, (x, y), (np.ones_like(x), None))
        assert_close(slope, central_difference(f, (x, y), 0) @ np.ones_like(x))


def geomspace_endpoint(x, y):
    return np.sum(np.geomspace(x[0], 2.0, len(y)) * x)


def tiled_by_a_length(x, y):
    n = y.shape[0]
    return np.sum(np.tile(x, n) ** 2)


def test_a_tile_counted_by_a_length_is_read_when_run():
    """np.tile's count read from a shape (refused until wave 26): each length its own tiles."""
    g = srcdiff.grad(tiled_by_a_length)
    for x, y in ((np.array([0.3, 0.5, 0.7]), np.ones(3)), (np.array([0.3, 0.5, 0.7]), np.ones(5))):
        assert_close(g(x, y), central_difference(tiled_by_a_length, (x, y), 0))


@pytest.mark.parametrize("f", [geomspace_endpoint])
def test_a_size_beside_a_differentiated_value_is_refused_with_what_to_do(f):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(f)(np.array([0.3, 0.5, 0.7]), np.ones(3))
    message = str(info.value)
    assert "test_sizes_static.py" in message and "must be a constant here" in message
    assert "pass the length as an argument of its own" in message
