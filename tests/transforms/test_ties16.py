"""Ties between elements of one array at second order (the red team's wave 16): NaN where the tie holds and
does not persist, in every second-order transformation; exact next to it; finite where the two sides are
proved one function.  References: one-sided second differences (the tie ends: they differ) and second
differences of f away from the tie.

Ties inside an ``np.max``/``np.min`` reduction keep their share's derivative 0 (the share taken to persist):
that keeps the max subtracted for stability exact at a tie (``m + log(sum(exp(x - m)))``, softmax cross-entropy
at W = 0, where every class ties), whose value does not depend on the split; max pooling of equal inputs has no
Hessian there and gets that finite one (docs/guarantees.md; test_redteam_wave16_findings_more.py, strict xfail)."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import assert_close, hessian_difference

import srcdiff


def max_of_two_items(v):
    return np.maximum(np.sin(v[0]), np.sin(v[1]))


def min_of_two_items(v):
    return np.minimum(v[0] ** 2, v[2] ** 2) + v[1]


def max_of_two_slices(v):
    return np.sum(np.maximum(np.tanh(v[:2]), np.tanh(v[2:])))


def max_reduction(v):
    return np.max(np.sin(v))


def min_reduction_rows(W):
    return np.sum(np.min(np.cos(W), axis=1) ** 2)


def amax_with_keepdims(W):
    return np.sum(np.exp(np.amax(W, axis=0, keepdims=True)))


def hinge_at_zero(W, X):
    return np.sum(np.max(X @ W, axis=1) ** 2)


def builtin_max_of_items(v):
    return max(v[0] * 2.0, v[1] + v[0]) + max(np.sin(v[0]), np.sin(v[1])) + v[2] ** 2


_X = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 1.0]])
#: (function, a tied point, a point away from any tie, the coordinate that ends the tie)
TIES = [
    (max_of_two_items, (np.array([0.3, 0.3]),), (np.array([0.3, 0.7]),), 0),
    (min_of_two_items, (np.array([0.5, 1.0, -0.5]),), (np.array([0.5, 1.0, -0.9]),), 0),
    (max_of_two_slices, (np.array([0.2, -0.4, 0.2, 0.1]),), (np.array([0.2, -0.4, 0.5, 0.1]),), 0),
    (builtin_max_of_items, (np.array([0.3, 0.3, 1.0]),), (np.array([0.3, 0.6, 1.0]),), 0),
]


def _one_sided(f, args, k, h=1e-4):
    x = np.asarray(args[0], dtype=float)
    e = np.zeros_like(x)
    e.flat[k] = h
    f0 = f(x, *args[1:])
    return ((f(x + 2 * e, *args[1:]) - 2 * f(x + e, *args[1:]) + f0) / h ** 2,
            (f(x - 2 * e, *args[1:]) - 2 * f(x - e, *args[1:]) + f0) / h ** 2)


def _second(kind, f, args):
    x = args[0]
    n = np.size(x)
    if kind == "hessian":
        return np.asarray(srcdiff.hessian(f)(*args), dtype=float).reshape(n, n)
    if kind == "jacobian_of_the_gradient":
        return np.asarray(srcdiff.jacobian(srcdiff.grad(f))(*args), dtype=float).reshape(n, n)
    columns = [srcdiff.hvp(f, x, e.reshape(np.shape(x)), *args[1:]) for e in np.eye(n)]
    return np.array([np.ravel(c) for c in columns]).T


@pytest.mark.parametrize("kind", ["hessian", "hvp", "jacobian_of_the_gradient"])
@pytest.mark.parametrize("f, tied, away, k", TIES, ids=[t[0].__name__ for t in TIES])
def test_second_order_at_a_tie_between_elements(f, tied, away, k, kind):  # a sampled family (tests/sampling.py)
    right, left = _one_sided(f, tied, k)
    assert abs(right - left) > 1e-2, (right, left)  # the reference: the tie ends along coordinate k
    H = _second(kind, f, tied)
    assert np.isnan(H[k, k]), H
    n = np.size(away[0])
    assert_close(_second(kind, f, away), hessian_difference(f, away).reshape(n, n), rtol=2e-4, atol=2e-4)


def logsumexp_stable(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def softmax_cross_entropy(W, X, y):
    z = X @ W
    m = np.max(z, axis=1, keepdims=True)
    return np.sum(m[:, 0] + np.log(np.sum(np.exp(z - m), axis=1)) - z[np.arange(len(y)), y])


def test_the_max_subtracted_for_stability_is_exact_at_a_tie():
    x = np.array([0.5, 0.5, -1.0])
    assert_close(srcdiff.hessian(logsumexp_stable)(x), hessian_difference(logsumexp_stable, (x,)), rtol=1e-5,
                 atol=1e-6)
    X, y = np.array([[1.0, 2.0, 0.5], [0.3, -1.0, 1.0]]), np.array([0, 1])
    W = np.zeros((3, 2))  # every class ties: Newton's method from zero
    assert_close(srcdiff.hessian(softmax_cross_entropy)(W, X, y), hessian_difference(softmax_cross_entropy, (W, X, y)),
                 rtol=1e-5, atol=1e-5)


def same_item_twice(v):  # the same element on both sides: one function, the tie persists
    return np.maximum(np.sin(v[0]), np.sin(v[0])) + v[1] ** 2


def test_a_tie_of_one_element_with_itself_persists():
    H = srcdiff.hessian(same_item_twice)(np.array([0.3, 0.5]))
    assert_close(H, np.array([[-np.sin(0.3), 0.0], [0.0, 2.0]]), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("f, tied, away, k", TIES, ids=[t[0].__name__ for t in TIES])
def test_first_order_at_the_tie_shares_equally(f, tied, away, k):
    """The tie's first derivative is unchanged: the share (half each for two), as documented."""
    g = srcdiff.grad(f)(*tied)
    assert np.all(np.isfinite(g)), g
    v = np.random.default_rng(0).normal(size=np.shape(tied[0]))
    assert srcdiff.jvp(f, tied, (v,) + tuple(np.zeros_like(a) for a in tied[1:]))[1] == pytest.approx(np.sum(g * v))
