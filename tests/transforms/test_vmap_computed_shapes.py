"""`srcdiff.vmap` of a shape read of a computed value (``np.full((W @ x).shape, 2.0)``, ``len(x + w)``,
``(X.T @ W).size``, and the same in a gradient's code): asked of the operands' first rows where the
expression is made of operators (ad/batching_shapes.py), where it ran one example at a time before.
A shape that depends on each row's data (a mask's count) still runs one example at a time.

Each program: ``vmap(f)`` against the loop of `f`, ``vmap(grad(f))`` against the loop of ``grad(f)``,
itself checked against float64 central differences; float32; jit="numba" agrees or refuses at a line."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

B, N = 3, 4


def filled_like_product(W, x):
    return np.sum(np.full((W @ x).shape, 2.0) * np.tanh(W @ x))


def length_of_a_sum(w, x):
    return np.sum(w * x) ** 2 / len(x + w)


def size_of_a_transposed_product(W, X):
    return np.sum(np.sin(X.T @ W)) / (X.T @ W).size


def axes_of_a_product(W, x):
    return np.sum(np.tanh(W @ x)) * (W @ x).ndim


PROGRAMS = [filled_like_product, length_of_a_sum, size_of_a_transposed_product, axes_of_a_product]


def _args(f, r):
    if f is length_of_a_sum:
        return r.normal(size=N), r.normal(size=(B, N))
    if f is size_of_a_transposed_product:
        return r.normal(size=(N, 2)), r.normal(size=(B, N, N))
    return r.normal(size=(N, N)) / 2, r.normal(size=(B, N))


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("wrt", [0, pytest.param(1, marks=pytest.mark.slow)])  # (the slow set: the other)
def test_a_shape_of_a_computed_value_is_batched(f, wrt):
    w, X = _args(f, np.random.default_rng(len(f.__name__)))
    gradient = srcdiff.grad(f, wrt=wrt)
    per = [gradient(w, x) for x in X]
    for x, g in zip(X, per):
        np.testing.assert_allclose(g, central_difference(f, [w, x], wrt), rtol=1e-6, atol=1e-7)
    mapped = srcdiff.vmap(gradient, in_axes=(None, 0), per_example="refuse")
    np.testing.assert_allclose(mapped(w, X), np.stack(per), rtol=1e-12, atol=1e-13)
    values = srcdiff.vmap(f, in_axes=(None, 0), per_example="refuse")(w, X)
    np.testing.assert_allclose(values, [f(w, x) for x in X], rtol=1e-12)


def test_float32_stays_float32():
    w, X = (a.astype(np.float32) for a in _args(filled_like_product, np.random.default_rng(1)))
    got = srcdiff.vmap(srcdiff.grad(filled_like_product), in_axes=(None, 0), per_example="refuse")(w, X)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, [srcdiff.grad(filled_like_product)(w, x) for x in X], rtol=1e-5, atol=1e-6)


@pytest.mark.slow
def test_numba_agrees_or_refuses_at_a_line():
    w, X = _args(filled_like_product, np.random.default_rng(2))
    want = srcdiff.vmap(srcdiff.grad(filled_like_product), in_axes=(None, 0))(w, X)
    try:
        got = srcdiff.vmap(srcdiff.grad(filled_like_product), in_axes=(None, 0), jit="numba")(w, X)
    except srcdiff.SrcDiffError as exc:
        assert exc.location is not None and exc.location.filename == __file__, str(exc)
        return
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)


def count_of_positives(w, x):
    return np.sum(w * x) / len(x[x > 0])


def test_a_count_that_differs_between_rows_runs_one_example_at_a_time():
    w, X = np.ones(N), np.array([[1.0, -1.0, 2.0, 3.0], [1.0, 1.0, 1.0, 1.0], [-1.0, 2.0, -3.0, 4.0]])
    for f in (count_of_positives, srcdiff.grad(count_of_positives)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", srcdiff.PerExampleWarning)
            mapped = srcdiff.vmap(f, in_axes=(None, 0))
            got = mapped(w, X)
        np.testing.assert_allclose(got, [f(w, x) for x in X], rtol=1e-12)
        assert mapped.per_example is not None
