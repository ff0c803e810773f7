"""jit="numba" of np.clip whose array bounds broadcast x wider than itself (found in wave 31g:
tests/transforms/test_speed_wave31g.py's clip_outer).  numba's own np.clip keeps x's shape, so the
compiled gradient disagreed with the Python one and jit="numba" refused the program; clip_number
(backend/numba/calculus_calls.py) now takes NumPy's definition, a minimum of a maximum, there."""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff


def clip_outer(x, bounds):
    c = np.clip(x[:, None], -bounds, bounds)
    return np.sum(c * c * bounds)


def clip_rows(X, lo, hi):
    return np.sum(np.sin(np.clip(X, lo[:, None], hi)))


def clip_upper_only(x, hi):
    return np.sum(np.clip(x, None, hi) ** 2)


CASES = [
    (clip_outer, lambda rng: (rng.standard_normal(6), np.array([0.5, 1.0, 1.5]))),
    (clip_rows, lambda rng: (rng.standard_normal((4, 3)), -rng.uniform(0.1, 1.0, 4), rng.uniform(0.1, 1.0, 3))),
    (clip_upper_only, lambda rng: (rng.standard_normal(7), np.linspace(-1.0, 1.0, 7))),
]


@pytest.mark.parametrize("f, make", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_numba_clip_broadcasting_bounds(f, make):
    """The compiled value and gradient agree with NumPy's value and with central differences."""
    args = make(np.random.default_rng(7))
    value, got = srcdiff.value_and_grad(f, jit="numba")(*args)
    np.testing.assert_allclose(value, f(*args), rtol=1e-13)
    np.testing.assert_allclose(got, central_difference(f, args, 0), rtol=1e-6, atol=1e-8)
