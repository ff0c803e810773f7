"""numba's np.tanh of float64 is backend/numba/tanh_kernel.py's vectorisable arithmetic:
within 2 ulp of NumPy's tanh everywhere, the same at the special points (signed zeros, tiny
numbers, saturation, infinities, NaN), and gradients through it (an array of states, the
elements of a fused loop, a number) right under every transformation."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")
from srcdiff.backend.numba import tanh_kernel, ufuncs  # noqa: E402  (needs numba)

from .corpus import Program  # noqa: E402
from .matrix import assert_every_transformation  # noqa: E402

HERE = Path(__file__).parent


def _ulps(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    return np.abs(got - want) / np.spacing(np.abs(want))


def test_within_two_ulp_of_numpy_on_every_scale():
    rng = np.random.default_rng(23)
    x = np.concatenate(
        [rng.standard_normal(20_000) * s for s in (1e-6, 0.01, 0.3, 1.0, 3.0, 10.0)]
        + [
            np.linspace(-25.0, 25.0, 20_001),
            np.linspace(0.62, 0.63, 2_001),  # the two sides
            np.linspace(18.5, 21.0, 2_001),
        ]
    )  # where tanh reaches 1
    got = tanh_kernel.tanh_array(x)  # (with fused multiply-adds where the CPU has them)
    assert _ulps(got, np.tanh(x)).max() <= 2.0
    import numba

    @numba.njit
    def each(v):  # the numbers of a fused loop: no contraction
        out = np.empty_like(v)
        for i in range(v.size):
            out[i] = tanh_kernel.tanh(v[i])
        return out

    assert _ulps(each(x), np.tanh(x)).max() <= 2.0
    assert np.array_equal(np.sign(got), np.sign(x))
    assert np.all(np.abs(got) <= 1.0)


def test_special_points_are_numpys():
    x = np.array(
        [0.0, -0.0, 5e-324, -5e-324, 1e-300, -1e-12, 1e-9, 25.0, -25.0, 1e300, -1e300, np.inf, -np.inf, np.nan]
    )
    got, want = tanh_kernel.tanh_array(x), np.tanh(x)
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))
    import numba

    @numba.njit
    def one(v):
        return tanh_kernel.tanh(v)

    for v in x:
        got, w = one(v), math.tanh(v)
        assert (math.isnan(w) and math.isnan(got)) or (got == w and math.copysign(1.0, got) == math.copysign(1.0, w))


def test_the_helper_takes_any_layout_and_keeps_other_dtypes_numbas():
    import numba

    @numba.njit
    def call(x):
        return ufuncs.vector_tanh(x)

    base = np.random.default_rng(5).uniform(-3.0, 3.0, size=(40, 30))
    for x in (base, base.T, base[:, ::3], base[:2, :3], base[0]):
        np.testing.assert_allclose(call(x), np.tanh(x), rtol=5e-16, atol=0)
    small = np.linspace(-2.0, 2.0, 7, dtype=np.float32)
    assert call(small).dtype == np.float32
    np.testing.assert_allclose(call(small), np.tanh(small), rtol=1e-6)


def tanh_states(W, x):
    h = x
    for _ in range(3):
        h = np.tanh(W @ h + 0.1)
    return np.sum(h * h)


def tanh_elementwise(x):
    return np.sum(np.tanh(2.0 * x - 0.3) * x + np.tanh(x) ** 2)


def tanh_number(a, x):
    return math.tanh(a) * np.sum(np.tanh(a * x))


SLOW = pytest.mark.slow


CASES = [pytest.param("states", marks=SLOW), pytest.param("elementwise", marks=SLOW), "number"]


@pytest.mark.parametrize("case", CASES)
def test_gradients_through_the_kernel_under_every_transformation(case):
    rng = np.random.default_rng(7)
    x = rng.uniform(-2.0, 2.0, size=40)
    if case == "states":
        W = rng.normal(size=(40, 40)) / 6
        program = Program("tanh_kernel:tanh_states", tanh_states, (W, x), 0, HERE)
    elif case == "elementwise":
        program = Program("tanh_kernel:tanh_elementwise", tanh_elementwise, (x,), 0, HERE)
    else:
        program = Program("tanh_kernel:tanh_number", tanh_number, (0.7, x), 0, HERE)
    assert_every_transformation(program)
