"""hvp's sweep without needless passes over memory (fresh_writes.py, factor.factor_sums, a fill
read only for its shape dropped): its product checked against the Hessian the per-row path
makes times v, and against central differences of the gradient along v."""

import numpy as np
import pytest

import srcdiff
from srcdiff.api.hvp import hvp_source


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def inner_slice(x):
    return np.sum(np.sin(x[2:-3]) * 3.0) + np.sum(x[1:] * x[:-1])


def columns(x):
    m = x.reshape(4, 5)
    return np.sum(m[:, 1:] * m[:, :-1] * 3.0) + np.sum(np.exp(m[1:, :] - m[:-1, :]))


def shifted(x, a):
    y = np.zeros(x.shape)
    y[1:] = x[:-1] * a
    return np.sum(np.sin(y) * x + 3.0 * y * y * x)


def scaled_twice(x):
    s = 3.0 * np.sin(x)
    return np.sum(s * x * x) + np.sum(s[1:] * s[:-1])


def columns_written(x):
    m = x.reshape(4, 5)
    y = np.zeros((4, 5))
    y[:, 2:] = -m[:, :3]
    return np.sum(np.cos(y) * m)


def reference(f, x, v, rest):
    H = srcdiff.hessian(f)
    H.batched.enabled = False
    matrix = np.asarray(H(x, *rest), dtype=float).reshape(x.size, x.size)
    g, h = srcdiff.grad(f), 1e-5
    central = (g(x + h * v, *rest) - g(x - h * v, *rest)) / (2 * h)
    return (matrix @ v.ravel()).reshape(x.shape), central


@pytest.mark.parametrize("f, rest, size", [(rosen, (), 9), (inner_slice, (), 12), (columns, (), 20),
                                           (shifted, (0.7,), 11), (columns_written, (), 20),
                                           (scaled_twice, (), 10)])
def test_hvp_matches_the_hessian_and_differences(f, rest, size):
    rng = np.random.default_rng(3)
    x, v = rng.normal(size=size) * 0.5, rng.normal(size=size)
    product = srcdiff.hvp(f, x, v, *rest)
    exact, central = reference(f, x, v, rest)
    np.testing.assert_allclose(product, exact, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(product, central, rtol=1e-6, atol=1e-6)


def test_rosenbrock_hvp_writes_its_first_scatter_into_the_result():
    x = np.linspace(-1.0, 1.0, 7)
    srcdiff.hvp(rosen, x, np.ones(7))
    source = hvp_source(rosen)
    assert "out=x_bar_1_dot[:-1]" in source and "x_bar_1_dot[-1:] = 0.0" in source
    assert "np.zeros" not in source  # (the gradient's x_bar, read only for its shape, is gone)
    # the product rule's common factor taken out, with the 200.0 of t4_bar = 200.0 * t4 (read
    # only there): one number, and t4_bar not made
    assert "-400.0 * (" in source and "\n    t4_bar = " not in source


def test_float32_hvp_keeps_its_values():
    x = np.linspace(-1.0, 1.0, 9).astype(np.float32)
    v = np.linspace(0.5, -0.5, 9).astype(np.float32)
    product = srcdiff.hvp(rosen, x, v)
    exact, _ = reference(rosen, x.astype(float), v.astype(float), ())
    np.testing.assert_allclose(product, exact, rtol=1e-4, atol=1e-3)
