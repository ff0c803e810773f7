"""Float64 arguments meeting a float32 value made inside (width_programs.py): the optimised gradient is
the unoptimised one to float64's rounding.

``r_bar = np.full(shape, s)`` of a float32 number `s` is a float32 array; the unoptimised
``r_bar = r_bar + 0.6 * r`` promotes it to float64, but the optimiser's ``r_bar += 0.6 * r`` wrote the
float64 sum into the float32 buffer: the gradient rounded to float32 (1e-7 relative).  In-place sums
(memory.accumulate_in_place, zero_restore.fold_zero_sums) now run only where every value has one width
(optimizer.one_width): float32 throughout (proved), or float64 arguments and no narrower dtype named.
Folding two Python numbers stays float64 (Python's own arithmetic), checked here too (``0.1 * 3.0``,
``1.0 / k * 0.7``).
"""

import numpy as np
import pytest

import srcdiff

from .width_programs import PROGRAMS

rng = np.random.default_rng(20261204)
X = rng.standard_normal((20, 3))
W = rng.standard_normal(3)
Y = rng.standard_normal(20)


def _sampled(programs: list, default: int = 3) -> list:
    """The first `default` programs in the default run, every one in the slow set."""
    return [f if k < default else pytest.param(f, marks=pytest.mark.slow) for k, f in enumerate(programs)]


def _assert_as_unoptimised(got, want):
    assert got.dtype == want.dtype == np.float64
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("data", ["float64", "float32"])
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_gradient_as_unoptimised(f, data):
    args = (W, X.astype(data), Y)
    _assert_as_unoptimised(srcdiff.grad(f)(*args), srcdiff.grad(f, debug=True)(*args))


@pytest.mark.parametrize("f", _sampled(PROGRAMS), ids=lambda f: f.__name__)
def test_value_and_gradient_as_unoptimised(f):
    value, got = srcdiff.value_and_grad(f)(W, X, Y)
    _assert_as_unoptimised(got, srcdiff.grad(f, debug=True)(W, X, Y))
    np.testing.assert_allclose(value, f(W, X, Y), rtol=1e-14)


@pytest.mark.parametrize("f", _sampled(PROGRAMS), ids=lambda f: f.__name__)
def test_pullback_as_unoptimised(f):
    _, pullback = srcdiff.vjp(f, W, X, Y)
    _assert_as_unoptimised(pullback(1.0), srcdiff.grad(f, debug=True)(W, X, Y))


def test_one_width_keeps_the_in_place_sum():
    """Float64 throughout: the accumulation is still written in place (no extra array)."""
    def f(w, X, y):
        r = y - X @ w
        return np.sum(r * r) + 0.5 * np.sum(w * w) + np.sum(np.sin(w))
    g = srcdiff.grad(f)
    g(W, X, Y)
    assert "w_bar +=" in g.source
