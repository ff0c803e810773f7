"""jit="numba" gives each gradient its argument's floating dtype, as the NumPy code does
(numba computes a Python float times a float32 array in float64; NumPy keeps float32)."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

pytest.importorskip("numba")


def loss(w, b, X):
    return np.sum(np.tanh(X * w + b) ** 2) * 0.5 + 0.1 * np.sum(w * w)


def args(dtype):
    rng = np.random.default_rng(3)
    return rng.normal(size=3).astype(dtype), dtype(0.25), rng.normal(size=(5, 3)).astype(dtype)


# float64 runs under -m slow: every numba row elsewhere checks a float64 gradient already
@pytest.mark.parametrize("dtype", [np.float32, pytest.param(np.float64, marks=pytest.mark.slow)],
                         ids=lambda d: d.__name__)
def test_numba_gradients_have_their_arguments_dtypes(dtype):
    w, b, X = args(dtype)
    tol = 1e-3 if dtype is np.float32 else 1e-6
    dw = srcdiff.grad(loss, jit="numba")(w, b, X)
    assert dw.dtype == dtype
    (dw2, db), value = srcdiff.grad(loss, wrt=(0, 1), jit="numba")(w, b, X), None
    assert dw2.dtype == dtype and np.asarray(db).dtype == dtype
    value, dw3 = srcdiff.value_and_grad(loss, jit="numba")(w, b, X)
    assert dw3.dtype == dtype
    reference = central_difference(loss, (w.astype(float), float(b), X.astype(float)), 0)
    for got in (dw, dw2, dw3):
        np.testing.assert_allclose(got, reference, rtol=tol, atol=tol)
    # the same as the NumPy code's, dtype included
    np.testing.assert_allclose(dw, srcdiff.grad(loss)(w, b, X), rtol=tol)
    assert srcdiff.grad(loss)(w, b, X).dtype == dw.dtype
