"""``vmap(grad(f), jit="numba")`` where the batched code writes through an index (set_item_rows) or
adds through one (index_add_rows, scatter_add_rows, zero_rows_with): their numba versions
(backend/numba/row_helpers.py) against the plain vmap and float64 central differences, with slices,
numbers, an index array repeating a position (read through ``rows_index``), a value the same for every
row, float32; a float written into integers refused at the user's line as the plain vmap refuses it."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference
from transforms import redteam_wave29b_idioms as idioms
from transforms import redteam_wave29b_science as science

import srcdiff

pytest.importorskip("numba")


def written(x):
    y = np.zeros(4)
    y[1:3] = np.sin(x[:2])
    y[0] = x[2] * x[0]
    return np.sum(y ** 2)


def repeated_index(x):
    return np.sum(np.sin(x[np.array([0, 2, 2, 1])]) * np.array([1.0, 2.0, 3.0, 4.0]))


def shared_value(x):
    y = x * 1.0
    y[1] = 0.5
    return np.sum(y ** 3)


def into_integers(x):
    y = np.zeros(4, dtype=np.int64)
    y[0] = x[0]
    return np.sum(y * x)


CASES = [written, repeated_index, shared_value, science.heat_rod, science.spring_chain, idioms.break_continue]


@pytest.mark.slow  # (numba compiles for seconds each)
@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_vmap_grad_numba_writes(f, dtype):
    X = np.random.default_rng(296).normal(size=(3, 6)) + np.arange(6.0)
    mapped = srcdiff.vmap(srcdiff.grad(f), jit="numba")
    got = mapped(X.astype(dtype))
    np.testing.assert_allclose(got, srcdiff.vmap(srcdiff.grad(f))(X.astype(dtype)), rtol=1e-6, atol=1e-6)
    assert got.dtype == dtype
    for k in range(3):
        np.testing.assert_allclose(got[k], central_difference(f, (X[k],), 0), rtol=1e-5 if dtype == np.float64
                                   else 2e-3, atol=1e-6 if dtype == np.float64 else 2e-3)


def test_vmap_grad_numba_written():
    X = np.random.default_rng(297).normal(size=(2, 4))
    mapped = srcdiff.vmap(srcdiff.grad(written), jit="numba")
    got = mapped(X)
    assert "set_item_rows" in mapped.source and "zero_rows_with" in mapped.source
    for k in range(2):
        np.testing.assert_allclose(got[k], central_difference(written, (X[k],), 0), rtol=1e-5, atol=1e-6)


def test_float_into_integers_refused_at_the_users_line():
    X = np.random.default_rng(298).normal(size=(2, 4))
    for jit in (None, "numba"):
        with pytest.raises(srcdiff.SrcDiffError, match="test_numba_vmap_writes.py:"):
            srcdiff.vmap(srcdiff.grad(into_integers), jit=jit)(X)

