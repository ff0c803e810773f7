"""Never a silent wrong answer (#24, item 9): float32 in, float32 out, in every transformation.

Each derivative of a float32 argument is float32 (computed in float32: the fills of the
derivative code are float32 too), and its value agrees with float64 central differences of
the same function at float32 tolerance.  float64 arguments still get float64 code: the
argument signature tells the two apart."""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

RTOL, ATOL = 2e-3, 2e-3


def mlp(W, x):
    h = np.tanh(W @ x)
    return np.mean(h ** 2) + np.sum(h)


def loop(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(np.sin(x) * i)
    return s


def reductions(x):
    return np.mean(x ** 2) + np.sum(np.cos(x)) + np.std(x)


def _square_sum(v):
    return np.sum(v * v)


def through_helper(x):
    return _square_sum(np.tanh(x)) + np.var(x)


def axis_reductions(A):
    return np.sum(np.mean(A, axis=0) ** 2) + np.sum(np.std(A, axis=1))


rng = np.random.default_rng(7)
CASES = [
    (mlp, (rng.normal(size=(3, 4)), rng.normal(size=4))),
    (loop, (rng.normal(size=5),)),
    (reductions, (rng.normal(size=6),)),
    (through_helper, (rng.normal(size=4),)),
    (axis_reductions, (rng.normal(size=(3, 4)),)),
]
IDS = [f.__name__ for f, _ in CASES]


def _single(args):
    return tuple(np.asarray(a, dtype=np.float32) for a in args)


def _reference(f, args):
    """float64 central differences at the float32 point."""
    return central_difference(f, tuple(np.asarray(a, dtype=np.float32).astype(float) for a in args), 0)


def _hessian(f, args, eps=1e-4):
    x = np.asarray(args[0], dtype=np.float32).astype(float)
    rest = tuple(np.asarray(a, dtype=np.float32).astype(float) for a in args[1:])
    out = np.zeros(x.shape + x.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros(x.shape)
        e[i] = eps
        hi, lo = central_difference(f, (x + e, *rest), 0), central_difference(f, (x - e, *rest), 0)
        out[(...,) + i] = (hi - lo) / (2 * eps)
    return out


def _check(actual, expected):
    assert np.asarray(actual).dtype == np.float32, np.asarray(actual).dtype
    np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_reverse_mode_keeps_float32(f, args):
    single = _single(args)
    expected = _reference(f, args)
    _check(srcdiff.grad(f)(*single), expected)
    value, grad = srcdiff.value_and_grad(f)(*single)
    assert np.asarray(value).dtype == np.float32
    _check(grad, expected)
    value, pullback = srcdiff.vjp(f, *single)
    _check(pullback(np.float32(1.0)), expected)
    # float64 arguments afterwards get float64 code, not the float32 variant
    assert srcdiff.grad(f)(*args).dtype == np.float64


@pytest.mark.parametrize("f, args", CASES, ids=IDS)
def test_forward_and_second_order_keep_float32(f, args):
    single = _single(args)
    x, rest = single[0], single[1:]
    v = np.ones_like(x)
    expected = _reference(f, args)
    _, tangent = srcdiff.jvp(f, single, (v,) + tuple(np.zeros_like(a) for a in rest))
    assert np.asarray(tangent).dtype == np.float32
    np.testing.assert_allclose(tangent, np.sum(expected), rtol=RTOL, atol=ATOL)
    hess = _hessian(f, args)
    _check(srcdiff.hessian(f)(*single), hess)
    axes = tuple(range(x.ndim, 2 * x.ndim))
    _check(srcdiff.hvp(f, x, v, *rest), np.sum(hess, axis=axes))


@pytest.mark.parametrize("f, args", [CASES[1]], ids=["loop"])
def test_numba_keeps_float32(f, args):
    pytest.importorskip("numba")
    _check(srcdiff.grad(f, jit="numba")(*_single(args)), _reference(f, args))


@pytest.mark.parametrize("f, args", [CASES[1], CASES[2], CASES[3]], ids=["loop", "reductions", "helper"])
def test_array_api_namespace_keeps_float32(f, args):
    xp = pytest.importorskip("array_api_strict")
    x = xp.asarray(np.asarray(args[0], dtype=np.float32))
    grad = srcdiff.grad(f)(x)
    assert grad.dtype == xp.float32
    np.testing.assert_allclose(np.asarray(grad), _reference(f, args), rtol=RTOL, atol=ATOL)


def test_float32_and_float64_variants_differ_in_their_fills():
    x = np.linspace(0.1, 1.0, 4)
    df = srcdiff.grad(loop)
    double = df.variant_for(x).source
    single = df.variant_for(x.astype(np.float32)).source
    assert "np.float32" in single and "np.float32" not in double
