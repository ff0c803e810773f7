"""jit="numba" made faster without changing a number: the direct entry into numba's dispatcher
(backend/numba/entry.py), matrix products of transposes without a copy (missing.py) and
NumPy's vector loops for large arrays' tanh, exp, ... (backend/numba/ufuncs.py).  Every
gradient is checked against float64 central differences, on the first (general) call and on
the calls after it (the entry), and the entry's guard against the calls it must not take."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff

pytest.importorskip("numba")
from srcdiff.backend.numba import ufuncs  # noqa: E402  (needs numba)


def scalar_poly(x, y):
    return x * x * y + 3.0 * math.sin(x) * y - math.exp(x * y) + 2.0 * y ** 3


def scalar_loop(x, a, n):
    s = x
    total = 0.0
    for _ in range(n):
        s = 0.9 * s + a * math.tanh(s)
        total = total + s * s
    return total


def references(f, args, wrt):
    return tuple(central_difference(f, args, i) for i in wrt)


@pytest.mark.parametrize("f, args, wrt", [(scalar_poly, (0.3, -0.7), (0, 1)),
                                          (scalar_loop, (0.4, 0.6, 25), (0, 1))],
                         ids=["poly", "loop"])
def test_scalar_gradients_through_the_entry(f, args, wrt):
    df = srcdiff.grad(f, wrt=wrt, jit="numba")
    expected = references(f, args, wrt)
    for _ in range(3):  # the first call compiles, the next ones go through the entry
        got = df(*args)
        assert all(type(g) is float for g in got)
        for g, e in zip(got, expected):
            assert_close(g, e)
    other = tuple(a + 0.1 if isinstance(a, float) else a for a in args)
    for g, e in zip(df(*other), references(f, other, wrt)):
        assert_close(g, e)


def test_the_entry_sends_other_calls_to_the_general_path():
    df = srcdiff.grad(scalar_poly, wrt=(0, 1), jit="numba")
    df(0.3, -0.7)
    expected = references(scalar_poly, (0.3, -0.7), (0, 1))
    for g, e in zip(df(x=0.3, y=-0.7), expected):  # keywords
        assert_close(g, e)
    for g, e in zip(df(np.float64(0.3), -0.7), expected):  # another signature
        assert_close(g, e)
    single = df(np.float32(0.3), np.float32(-0.7))  # float32 numbers: gradients in float32
    assert all(np.asarray(g).dtype == np.float32 for g in single)
    for g, e in zip(single, expected):
        assert_close(float(g), e, rtol=1e-4, atol=1e-5)
    with pytest.raises(TypeError):
        df(0.3)


SCALE = 2.0


def scaled(w, X):
    return SCALE * np.sum(np.tanh(X @ w) ** 2)


def test_the_entry_checks_the_globals_the_transform_read():
    global SCALE
    rng = np.random.default_rng(0)
    w, X = rng.normal(size=4), rng.normal(size=(6, 4))
    df = srcdiff.grad(scaled, jit="numba")
    try:
        for value in (2.0, 2.0, -1.5, -1.5):
            SCALE = value
            assert_close(df(w, X), central_difference(scaled, (w, X), 0))
    finally:
        SCALE = 2.0


def elementwise(w, X):
    return 2.0 * np.sum(np.tanh(X * w) ** 2)


def test_float32_arrays_keep_their_dtype_after_float64_calls():
    rng = np.random.default_rng(1)
    w, X = rng.normal(size=4), rng.normal(size=(6, 4))
    df = srcdiff.grad(elementwise, jit="numba")
    df(w, X)
    df(w, X)
    g32 = df(w.astype(np.float32), X.astype(np.float32))
    assert g32.dtype == np.float32
    with pytest.raises(srcdiff.SrcDiffError, match="float16"):  # numba has no float16: never a float64 gradient
        df(w.astype(np.float16), X)
    assert_close(g32, central_difference(elementwise, (w.astype(np.float32).astype(float),
                                                  X.astype(np.float32).astype(float)), 0), rtol=1e-3, atol=1e-3)


def mse(w, b, X, y):
    return ((X @ w + b - y) ** 2).mean()


def products(A, B, C):
    return np.sum(np.tanh(A.T @ B) @ (B.T @ C.T))


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_products_of_transposes(layout):
    rng = np.random.default_rng(2)
    A, B, C = rng.normal(size=(5, 3)), rng.normal(size=(5, 4)), rng.normal(size=(2, 5))
    if layout == "F":
        A, B, C = np.asfortranarray(A), np.asfortranarray(B), np.asfortranarray(C)
    elif layout == "strided":
        A, B = rng.normal(size=(5, 6))[:, ::2], rng.normal(size=(10, 4))[::2]
    df = srcdiff.grad(products, wrt=(0, 1, 2), jit="numba")
    for _ in range(2):
        for g, e in zip(df(A, B, C), references(products, (A, B, C), (0, 1, 2))):
            assert_close(g, e)
    w, X, y = rng.normal(size=3), rng.normal(size=(7, 3)), rng.normal(size=7)
    dm = srcdiff.grad(mse, wrt=(0, 1), jit="numba")
    for g, e in zip(dm(w, 0.2, X, y), references(mse, (w, 0.2, X, y), (0, 1))):
        assert_close(g, e)


def rnn(Wx, Wh, b, xs, h0):
    h = h0
    for t in range(xs.shape[0]):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
    return np.sum(h * h)


def transcendental(x):
    return np.sum(np.exp(-x * x) + np.log(1.5 + np.cos(x)) * np.sin(x) + np.expm1(0.1 * x) + np.log1p(x * x))


@pytest.mark.parametrize("rows", [2, 40], ids=["small", "large"])
def test_rnn_with_large_and_small_states(rows):
    # 40 x 16 = 640 elements: above ufuncs.THRESHOLD, NumPy's loop; 2 x 16 below it, numba's
    assert 2 * 16 < ufuncs.THRESHOLD <= 40 * 16
    rng = np.random.default_rng(3)
    Wx, Wh, b = rng.normal(size=(3, 16)) / 2, rng.normal(size=(16, 16)) / 5, rng.normal(size=16) / 4
    xs, h0 = rng.normal(size=(4, rows, 3)), rng.normal(size=(rows, 16)) / 3
    df = srcdiff.grad(rnn, wrt=(0, 1, 2), jit="numba")
    expected = references(rnn, (Wx, Wh, b, xs, h0), (0, 1, 2))
    for _ in range(2):
        for g, e in zip(df(Wx, Wh, b, xs, h0), expected):
            assert_close(g, e)


@pytest.mark.parametrize("shape", [(7,), (30, 30), (900,)], ids=["small", "square", "vector"])
def test_vector_ufuncs_in_gradients(shape):
    rng = np.random.default_rng(4)
    x = rng.uniform(-1.0, 1.0, size=shape)
    df = srcdiff.grad(transcendental, jit="numba")
    got = df(x)
    if x.size <= 100:
        assert_close(got, central_difference(transcendental, (x,), 0))
    else:  # central differences of every element are slow: the closed form
        expected = (-2 * x * np.exp(-x * x) - np.sin(x) / (1.5 + np.cos(x)) * np.sin(x)
                    + np.log(1.5 + np.cos(x)) * np.cos(x) + 0.1 * np.exp(0.1 * x) + 2 * x / (1 + x * x))
        assert_close(got, expected, rtol=1e-12, atol=1e-12)
    assert_close(df(x.T.copy().T), got, rtol=0, atol=0)


@pytest.mark.parametrize("name", ufuncs.NAMES)
def test_each_vector_helper_is_numpys_function(name):
    import numba

    helper = getattr(ufuncs, ufuncs.PREFIX + name)

    @numba.njit
    def call(x):
        return helper(x)

    rng = np.random.default_rng(5)
    for x in (rng.uniform(0.1, 2.0, size=(40, 30)), rng.uniform(0.1, 2.0, size=(40, 30)).T,
              rng.uniform(0.1, 2.0, size=5), rng.uniform(0.1, 2.0, size=(3, 700))[:, ::3]):
        np.testing.assert_allclose(call(x), getattr(np, name)(x), rtol=1e-15, atol=0)
    assert call(0.5) == pytest.approx(getattr(np, name)(0.5), rel=1e-15)
    small = np.arange(1, 5, dtype=np.float32)
    np.testing.assert_allclose(call(small), getattr(np, name)(small), rtol=1e-6)


def test_only_one_argument_calls_are_respelled_in_place():
    from srcdiff.backend.numba.module import NumbaModule

    source = ("def g(x, y):\n"
              "    a = np.tanh(x) + np.exp(np.sin(y))\n"
              "    b = np.exp(x, out=y) + np.log(x, y)\n"
              "    return np.tanh(a) * math.tanh(1.0), np.arctan(b)\n")
    built = NumbaModule(source, "g", ["g"], [], {2: "origin"}, {"np": ("numpy", None)})
    new = ufuncs.vectorised(built)
    assert new.source.splitlines() == [
        "def g(x, y):",
        "    a = vector_tanh(x) + vector_exp(vector_sin(y))",
        "    b = np.exp(x, out=y) + np.log(x, y)",
        "    return vector_tanh(a) * math.tanh(1.0), np.arctan(b)"]
    assert new.lines == built.lines
    assert new.imports == {"np": ("numpy", None), **{n: (ufuncs.__name__, n) for n in
                                                     ("vector_exp", "vector_sin", "vector_tanh")}}
    plain = NumbaModule("def g(x):\n    return math.exp(x)\n", "g", ["g"], [])
    assert ufuncs.vectorised(plain) is plain


def with_default(x, a=0.5):
    return math.sin(a * x) * x


def test_alternating_calls_reuse_the_entrys_code():
    df = srcdiff.grad(with_default, jit="numba")
    for i in range(6):  # defaults left out, then given; a float, then a NumPy float
        x = 0.2 + 0.1 * i
        args = (x,) if i % 2 else (np.float64(x), 0.5)
        assert_close(df(*args), central_difference(with_default, (x, 0.5), 0))
    run = df.variant_for(0.3).jitted
    assert len(run.entry_factories) == 1
