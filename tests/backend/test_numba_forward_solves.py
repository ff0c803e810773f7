"""Forward mode compiled by numba over a log determinant, an inverse and a solve of one matrix.

For code NumPy runs, the optimiser turns ``np.linalg.slogdet``/``inv``/``solve`` of one matrix into
``spd_slogdet``/``spd_inverse``/``spd_solve`` through one Cholesky factor (``spd_factor``, SciPy's
LAPACK), which numba cannot compile.  A gradient numba compiles never had them; forward mode's code
(``jvp``, and the sweep over a gradient's code that makes ``hessian`` and ``hvp``) had them with
``jit="numba"`` too, so a Hessian of ``slogdet`` of a stiffness matrix was refused.  Every program
here is a matrix function of each kind, checked against central differences.  numba compiles each
for seconds: the slow set.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff

pytest.importorskip("numba")


def logdet_and_trace_of_inverse(a):
    k = a @ a.T + np.eye(a.shape[0])
    sign, logdet = np.linalg.slogdet(k)
    return logdet + np.trace(np.linalg.inv(k))


def gaussian_negative_log_likelihood(theta, y):
    t = np.linspace(0.0, 1.0, y.shape[0])
    k = np.exp(theta[0]) * np.exp(-((t[:, None] - t[None, :]) ** 2) / np.exp(theta[1])) + 0.1 * np.eye(y.shape[0])
    sign, logdet = np.linalg.slogdet(k)
    return 0.5 * logdet + 0.5 * y @ np.linalg.solve(k, y)


def spring_chain_logdet(k):
    n = k.shape[0] + 1
    stiffness = np.eye(n) * 0.1
    for e in range(n - 1):
        dofs = np.array([e, e + 1])
        stiffness[np.ix_(dofs, dofs)] += k[e] * np.array([[1.0, -1.0], [-1.0, 1.0]])
    free = np.arange(1, n)
    sign, logdet = np.linalg.slogdet(stiffness[np.ix_(free, free)])
    return logdet


PROGRAMS = {
    "logdet_and_trace_of_inverse": (logdet_and_trace_of_inverse, lambda r: (0.5 * r.normal(size=(3, 3)),)),
    "gaussian_negative_log_likelihood": (gaussian_negative_log_likelihood,
                                         lambda r: (np.array([0.2, -1.0]), r.normal(size=5))),
    "spring_chain_logdet": (spring_chain_logdet, lambda r: (1.0 + np.abs(r.normal(size=4)),)),
}


@pytest.mark.slow
@pytest.mark.parametrize("transform", ["jvp", "hessian", "hvp"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_forward_mode_under_numba_agrees_with_central_differences(name, transform, rng):
    f, make = PROGRAMS[name]
    args = make(rng)
    x = args[0]
    v = np.linspace(-1.0, 1.0, x.size).reshape(x.shape)
    if transform == "jvp":
        tangents = (v,) + tuple(np.zeros_like(a) for a in args[1:])
        value, tangent = srcdiff.jvp(f, args, tangents, jit="numba")
        np.testing.assert_allclose(value, f(*args), rtol=1e-12)
        np.testing.assert_allclose(tangent, np.sum(central_difference(f, list(args), 0) * v), rtol=1e-5, atol=1e-6)
        return
    want = hessian_difference(f, list(args))
    if transform == "hessian":
        got = srcdiff.hessian(f, jit="numba")(*args)
    else:
        got = srcdiff.hvp(srcdiff.grad(f, jit="numba"), x, v, *args[1:])
        want = (want.reshape(x.size, x.size) @ v.ravel()).reshape(x.shape)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
