"""`srcdiff.vmap` of indexing at positions computed from a batched value (``x[np.argsort(x)]``,
``x[np.argmax(x)]``, ``X[i]`` with `i` worked out of the example): each row gathered at its own
positions (ad/batching_gathers.py), and the gradient's scatter-add likewise, where they ran one
example at a time before.  A mask of each row (its own number of items) still runs one example at a
time.

Each program: ``vmap(f)`` against the loop of `f`; ``vmap(grad(f))`` against the loop of
``grad(f)``, itself checked against float64 central differences; float32 kept; jit="numba" agrees or
refuses at a line."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import srcdiff

from .vmap_checks import assert_batched_like_the_loop, example

B, N = 4, 5


def ranked(w, x):
    order = np.argsort(x)
    return np.sum((w * x)[order] * np.arange(1.0, x.size + 1.0))


def at_the_largest(w, x):
    return np.sin(w * x)[np.argmax(x)] + np.sum(w * x ** 2)


def nearest_weight(w, x):
    i = np.argmin(np.abs(x - w))  # a number per example
    return w[i] * x[i] ** 2 + x[0] * w[i]


def row_of_a_matrix(W, x):
    i = np.argmax(x)
    return np.sum(np.tanh(W[i] * x))


def shared_table(w, x):
    table = np.cos(w)
    return np.sum(table[np.argsort(x)[:3]] * x[:3])


def rows_of_a_batched_matrix(w, X):
    i = np.argmax(X[:, 0])
    return np.sum(X[i] * w) + np.sum(X[np.argsort(X[:, 1])][0] ** 2)


PROGRAMS = [ranked, at_the_largest, nearest_weight, row_of_a_matrix, shared_table, rows_of_a_batched_matrix]


def _args(f, r):
    if f is row_of_a_matrix:
        return (r.normal(size=(N, N)), r.normal(size=(B, N))), (None, 0)
    if f is rows_of_a_batched_matrix:
        return (r.normal(size=3), r.normal(size=(B, N, 3))), (None, 0)
    return (r.normal(size=N), r.normal(size=(B, N))), (None, 0)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("wrt", [0, pytest.param(1, marks=pytest.mark.slow)])  # (the slow set: the other)
def test_vmap_gathers_each_rows_own_positions(f, wrt):
    args, axes = _args(f, np.random.default_rng(len(f.__name__)))
    assert_batched_like_the_loop(f, wrt, args, axes, B, "gather", rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("f", [ranked, nearest_weight], ids=lambda f: f.__name__)
def test_float32_stays_float32(f):
    args, axes = _args(f, np.random.default_rng(5))
    small = [np.asarray(a, dtype=np.float32) for a in args]
    got = srcdiff.vmap(srcdiff.grad(f), in_axes=axes, per_example="refuse")(*small)
    assert got.dtype == np.float32
    want = np.stack([srcdiff.grad(f)(*example(small, axes, i)) for i in range(B)])
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.slow
@pytest.mark.parametrize("f", [ranked, at_the_largest], ids=lambda f: f.__name__)
def test_numba_agrees_or_refuses_at_a_line(f):
    args, axes = _args(f, np.random.default_rng(2))
    want = srcdiff.vmap(srcdiff.grad(f), in_axes=axes)(*args)
    try:
        got = srcdiff.vmap(srcdiff.grad(f), in_axes=axes, jit="numba")(*args)
    except srcdiff.SrcDiffError as exc:
        assert exc.location is not None and exc.location.filename.endswith(".py"), str(exc)
        return
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13)


def masked(w, x):
    return np.sum(w[x > 0] * x[x > 0])


def test_a_mask_of_each_row_summed_is_batched_as_masked_rows():  # (one example at a time before wave 29)
    xs = np.array([[1.0, -2.0, 3.0, 0.5, -1.0], [-1.0, -2.0, 3.0, 0.5, 1.0], [1.0, 2.0, 3.0, 4.0, 5.0]])
    w = np.arange(1.0, 6.0)
    for f in (masked, srcdiff.grad(masked, wrt=1)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", srcdiff.PerExampleWarning)
            mapped = srcdiff.vmap(f, in_axes=(None, 0))
            got = mapped(w, xs)
        np.testing.assert_allclose(got, [f(w, x) for x in xs], rtol=1e-12)
        assert mapped.per_example is None
