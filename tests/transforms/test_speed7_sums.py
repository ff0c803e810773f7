"""Two contributions to an array adjoint that share a factor become one sum with the factor
taken out (optimize/factor.py), and ``c * (e - 0.0)`` folds to ``c * e`` (optimize/simplify.py):
the logistic loss's adjoint is ``t * (sigmoid - y)``, one pass fewer over the rows (on Dask, a
layer fewer).  Gradients against central differences and hand-written ones."""

import ast

import numpy as np
import pytest
from numeric import central_difference

import srcdiff
from srcdiff.backend.optimize.factor import factor_backward
from srcdiff.backend.optimize.simplify import simplify


def logistic(w, b, X, y):
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def logistic_by_hand(w, b, X, y):
    z = X @ w + b
    r = (1.0 / (1.0 + np.exp(-z)) - y) / y.shape[0]
    return X.T @ r, r.sum()


def weighted(x, a, c):                 # three contributions to x's adjoint, two share a
    return np.sum(a * np.sin(x) + a * x * x + c * np.exp(x))


def shifted(x, y):                     # logaddexp with a constant on the other side
    return np.sum(np.logaddexp(x, 0.0) + np.logaddexp(-0.0, y))


def data(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return rng.standard_normal(d) * 0.3, -0.2, X, (rng.random(n) > 0.5).astype(float)


CASES = [
    (logistic, data(), (0, 1)),
    (logistic, data(7, 1, 3), (0, 1)),
    (weighted, (np.linspace(-1.0, 1.0, 6), np.linspace(0.5, 2.0, 6), 0.3), (0, 1, 2)),
    (weighted, (0.4, 1.3, -0.7), (0, 1, 2)),
    (shifted, (np.linspace(-3.0, 2.0, 5), np.array([-0.0, 0.0, 1.0, -2.5, 0.5])), (0, 1)),
]


@pytest.mark.parametrize("f, args, wrt", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_against_central_differences(f, args, wrt, check_gradient):
    expected = tuple(central_difference(f, args, i) for i in wrt)
    got = check_gradient(f, args, wrt=wrt)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-8)


def test_logistic_is_one_sum_and_equals_the_hand_written_gradient():
    args = data(200, 5, 1)
    gradient = srcdiff.grad(logistic, wrt=(0, 1))
    source = gradient.source_for(*args)
    assert "- 0.0" not in source, source
    backward = [line.strip() for line in source.split("# backward")[1].splitlines()
                if line.strip().startswith("z_bar")]
    assert len(backward) == 1 and "- y)" in backward[0], source
    got = gradient(*args)
    for g, e in zip(got, logistic_by_hand(*args)):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-15)


def test_on_dask_as_on_numpy():
    da = pytest.importorskip("dask.array")
    w, b, X, y = data(400, 3, 2)
    dX, dy = da.from_array(X, chunks=(100, 3)), da.from_array(y, chunks=100)
    got = [np.asarray(g) for g in srcdiff.grad(logistic, wrt=(0, 1))(w, b, dX, dy)]
    for g, e in zip(got, logistic_by_hand(w, b, X, y)):
        np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-15)


def _optimised(text: str, floats=()) -> str:
    func = ast.parse(text).body[0]
    simplify(func, set(floats).__contains__, set(floats).__contains__)
    factor_backward(func)
    return ast.unparse(func)


def test_pairs_merge_only_with_a_common_factor():
    text = ("def f_grad(g, a, b, c, z):\n"
            "    __srcdiff_comment__('backward')\n"
            "    x_bar = g * a\n"
            "    x_bar = x_bar + g * b\n"
            "    y_bar = a * b\n"
            "    y_bar = y_bar + c\n"
            "    w_bar = g * a\n"
            "    w_bar = w_bar + w_bar * b\n"
            "    return x_bar, y_bar, w_bar\n")
    out = _optimised(text)
    assert "x_bar = g * (a + b)" in out, out
    assert "y_bar = y_bar + c" in out, out          # nothing shared: left as two statements
    assert "w_bar = w_bar + w_bar * b" in out, out  # reads itself: left alone


def test_minus_zero_folds_only_under_a_float_factor():
    out = _optimised("def f(z):\n    return (0.5 * (z - 0.0), z - 0.0, 0.5 * (z - -0.0), 2 * (z - 0.0))\n")
    assert "0.5 * z," in out and "z - 0.0," in out and "0.5 * (z - -0.0)" in out and "2 * (z - 0.0)" in out, out
    z = np.array([-0.0, 0.0, 3, -2], dtype=np.int64)
    np.testing.assert_array_equal(0.5 * (z - 0.0), 0.5 * z)
    zf = np.array([-0.0, 0.0, np.inf, np.nan, -1.5])
    np.testing.assert_array_equal(np.signbit(0.5 * (zf - 0.0)), np.signbit(0.5 * zf))
