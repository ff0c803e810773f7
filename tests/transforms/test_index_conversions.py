"""Values that carry no gradient converted to integers (bilinear interpolation's cell index),
and the diagonal of a matrix: through every transformation, against central differences."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import assert_close, central_difference, hessian_difference

import srcdiff

IMAGE = np.array([1.0, 3.0, 2.0, 5.0, 4.0, 0.5])


def bilinear(img, p):
    i = np.floor(p[0]).astype(int)  # the cell: no gradient, a constant of the point
    t = p[0] - i
    return (1.0 - t) * img[i] + t * img[i + 1]


def warp(img, q):
    j = np.floor(q).astype(np.int64)
    w = q - j
    return np.sum(((1.0 - w) * img[j] + w * img[j + 1]) ** 2)


def diagonals(a):
    return np.sum(np.diagonal(a) ** 2) + np.sum(np.sin(a.diagonal(1))) + np.sum(np.diagonal(a, -1) ** 3)


CASES = [(bilinear, (IMAGE, np.array([1.3])), 1), (warp, (IMAGE, np.array([0.4, 2.7, 3.2])), 1),
         (diagonals, (np.arange(12.0).reshape(3, 4) / 7.0 - 0.6,), 0)]


@pytest.mark.parametrize("f, args, wrt", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_gradient_jvp_and_float32(f, args, wrt):
    expected = central_difference(f, args, wrt)
    assert_close(srcdiff.grad(f, wrt=wrt)(*args), expected, rtol=1e-6, atol=1e-8)
    direction = np.linspace(0.5, -0.5, np.size(args[wrt])).reshape(np.shape(args[wrt]))
    tangents = tuple(direction if i == wrt else np.zeros_like(a) for i, a in enumerate(args))
    _, dot = srcdiff.jvp(f, args, tangents)
    assert dot == pytest.approx(float(np.sum(expected * direction)), rel=1e-6, abs=1e-8)
    single = tuple(np.asarray(a, dtype=np.float32) for a in args)
    got = srcdiff.grad(f, wrt=wrt)(*single)
    assert got.dtype in (np.float32, np.float64)  # float64 where f itself promotes (float32 - int64)
    assert_close(got.astype(np.float64), expected, rtol=1e-3, atol=1e-3)


def bilinear_at(p):
    return bilinear(IMAGE, p)


def warp_at(q):
    return warp(IMAGE, q)


@pytest.mark.parametrize("f, x", [(bilinear_at, np.array([1.3])), (warp_at, np.array([0.4, 2.7, 3.2])),
                                  (diagonals, np.arange(12.0).reshape(3, 4) / 7.0 - 0.6)],
                         ids=["bilinear", "warp", "diagonals"])
def test_hessian(f, x):
    assert_close(srcdiff.hessian(f)(x), hessian_difference(f, (x,)), rtol=1e-4, atol=1e-5)


def test_a_differentiated_value_converted_to_int_is_still_refused():
    def truncated(x):
        return np.sum(x.astype(int) * x)
    with pytest.raises(srcdiff.SrcDiffError, match="would truncate the gradient"):
        srcdiff.grad(truncated)(np.array([0.3, 1.5]))
