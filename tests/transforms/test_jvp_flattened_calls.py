"""jvp of a function srcdiff runs through a flattened form (library code that validates its
input or calls cached helpers: scipy.optimize.rosen, scipy.special.logsumexp): the forward
transform of the flattened function, once, never that same detour again (it recursed)."""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

scipy_optimize = pytest.importorskip("scipy.optimize")
scipy_special = pytest.importorskip("scipy.special")


@pytest.mark.parametrize("f", [scipy_optimize.rosen, scipy_special.logsumexp], ids=lambda f: f.__name__)
@pytest.mark.parametrize("direction", [np.ones(3), np.array([0.5, -1.0, 2.0])], ids=["ones", "mixed"])
def test_jvp_of_a_flattened_library_function(f, direction):
    x = np.array([0.3, -0.2, 0.9])
    value, tangent = srcdiff.jvp(f, (x,), (direction,))
    np.testing.assert_allclose(value, f(x), rtol=1e-12)
    expected = central_difference(lambda t: f(x + t * direction), (0.0,), 0)
    np.testing.assert_allclose(tangent, expected, rtol=1e-6, atol=1e-8)
