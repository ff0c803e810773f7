"""numba's `held_still` when the output's adjoint is kept as a 0-d array: a norm raised to a
power, guarded by `np.where`, at the norm's zero (the red team's safe_norm_cubed).  The
gradient is exact (0 at 0, 3 |v| v elsewhere), as the NumPy gradient is; numba refused it."""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff


def safe_norm_cubed(v):
    n = np.sqrt(np.sum(v ** 2))
    return np.where(n > 0.0, n ** 3, 0.0)


def norm_cubed_scaled(v, s):
    n = np.sqrt(np.sum(v * v))
    return np.where(n > 0.0, s * n ** 3, 0.0)


@pytest.mark.parametrize("f, args", [(safe_norm_cubed, (np.zeros(3),)),
                                     (safe_norm_cubed, (np.array([0.3, -1.2, 0.5]),)),
                                     (norm_cubed_scaled, (np.zeros(2), 1.5))],
                         ids=["at_zero", "away_from_zero", "scaled_at_zero"])
def test_numba_gradient_at_the_roots_zero_is_exact(f, args):
    got = srcdiff.grad(f, jit="numba")(*args)
    want = 3.0 * np.linalg.norm(args[0]) * args[0] * (args[1] if len(args) > 1 else 1.0)
    np.testing.assert_allclose(got, want, atol=1e-12)
    if np.any(args[0]):
        np.testing.assert_allclose(got, central_difference(f, args, 0), rtol=1e-6)
