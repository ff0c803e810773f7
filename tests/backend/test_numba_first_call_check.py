"""The first call of a numba gradient is checked against the Python gradient
(backend/numba/first_call.py): integer arithmetic past 64 bits, which numba wraps around and
Python does not, is refused instead of returned; programs that agree run as before."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

pytest.importorskip("numba")

import srcdiff  # noqa: E402


def count_product(x, ks=(10 ** 6, 10 ** 7, 10 ** 8)):
    m = 1
    for k in ks:
        m = m * k
    return x * m / 1e21


def power_of_a_count(x, n=25):
    total = 0
    for k in range(n):
        total = total + (k + 10) ** 14
    return np.sum(x) * total / 1e30


def shifted_count(x, bits=70):
    return np.sum(x ** 2) * (1 << bits) / 2.0 ** bits


@pytest.mark.parametrize("f", [count_product, power_of_a_count, shifted_count], ids=lambda f: f.__name__)
def test_integers_past_64_bits_are_refused_not_wrapped(f):
    x = np.array([0.3, -0.7, 1.1]) if f is not count_product else 0.7
    want = central_difference(f, (x,), 0)
    np.testing.assert_allclose(srcdiff.grad(f)(x), want, rtol=1e-6)  # Python's integers: right
    with pytest.raises(srcdiff.SrcDiffError, match="jit='numba': the compiled gradient"):
        srcdiff.grad(f, jit="numba")(x)


def small_counts(x, ks=(3, 4, 5)):
    m = 1
    for k in ks:
        m = m * k
    return np.sum(np.sin(x)) * m


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_agreeing_gradients_are_returned(dtype):
    x = np.array([0.3, -0.7, 1.1], dtype=dtype)
    got = srcdiff.grad(small_counts, jit="numba")(x)
    np.testing.assert_allclose(got, 60.0 * np.cos(x.astype(np.float64)), rtol=1e-6 if dtype == np.float64 else 1e-5)
    assert got.dtype == dtype


def test_a_nan_on_one_side_only_is_named():
    from srcdiff.backend.numba.first_call import difference

    got, want = np.array([1.0, np.nan, 2.0]), np.array([1.0, 0.5, 2.0])
    assert "NaN in 1 places" in difference(got, want, (want,))
    assert difference(want, want.copy(), (want,)) == ""
    assert difference(np.array([np.nan]), np.array([np.nan]), (want,)) == ""


def test_a_gradient_that_is_zero_accepts_numbas_rounding():
    """Python's gradient exactly 0, numba's a rounding away (another order of summing): agreed;
    a real difference from 0 is still refused."""
    from srcdiff.backend.numba.first_call import difference

    zero = np.zeros(3)
    assert difference(np.array([8.9e-16, 0.0, -2e-16]), zero, (zero,)) == ""
    assert "differ" in difference(np.array([1e-6, 0.0, 0.0]), zero, (zero,))
