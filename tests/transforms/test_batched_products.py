"""Batched code multiplies the factors without a batch axis first (ad/batched_products.py): one
pass over the batch per chain of products, the same Hessian as central differences."""

import ast

import numpy as np
import pytest
from numeric import hessian_difference

import srcdiff
from srcdiff.ad.batched_products import hoist_factors
from srcdiff.ir.program import Assign


def mlp(W1, b1, W2, X, y):
    h = np.tanh(X @ W1 + b1)
    r = h @ W2 - y
    return np.mean(r * r)


def chain(x):
    return np.sum(np.sin(x[1:]) * 3.0 * x[:-1] ** 2) + np.sum(np.exp(x) * x)


def body_code(H) -> str:
    return "\n".join(line for line in H.source.splitlines() if not line.strip().startswith("#"))


def test_a_chain_of_products_is_one_pass_over_the_rows():
    rng = np.random.default_rng(0)
    args = (rng.normal(size=(3, 4)) / 3, rng.normal(size=4), rng.normal(size=4) / 7, rng.normal(size=(5, 3)),
            rng.normal(size=5))
    H = srcdiff.hessian(mlp)
    got = H(*args)
    flat = lambda w: mlp(w.reshape(3, 4), *args[1:])  # noqa: E731
    expected = hessian_difference(flat, (args[0].ravel(),)).reshape(3, 4, 3, 4)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    code = body_code(H)
    assert "h_bar = t13_bar * (t10 * -2.0 * h)" in code, code  # was three statements, three passes
    assert "1.0 * cotangent" not in code, code  # the float seeds are not copied


@pytest.mark.parametrize("n", [2, 5, 9])
def test_hessians_with_hoisted_factors_against_second_differences(n):
    x = np.random.default_rng(n).uniform(-1.0, 1.0, n)
    np.testing.assert_allclose(srcdiff.hessian(chain)(x), hessian_difference(chain, (x,)), rtol=1e-5, atol=1e-5)


def hoisted(lines: list[str], rows: set, params=("x", "u", "v")) -> list[str]:
    body = [Assign([line.split(" = ")[0]], ast.parse(line.split(" = ")[1], mode="eval").body, i)
            for i, line in enumerate(lines)]
    out = hoist_factors(body, ast.Name("out", ast.Load()), frozenset(rows), params)
    return [f"{a.targets[0]} = {ast.unparse(a.expr)}" for a in out]


def test_only_temporaries_read_once_and_factors_that_hold_one_value_are_joined():
    rows = {"x", "a", "b", "out"}
    assert hoisted(["a = x * u", "b = a * 2.0", "out = v * b"], rows) == ["out = x * (u * 2.0 * v)"]
    read_twice = ["a = x * u", "b = a * 2.0", "out = b + a"]
    assert hoisted(read_twice, rows) == read_twice  # `a` is read again: it stays
    assigned_between = ["a = x * u", "u = v * 2.0", "out = a * u"]
    assert hoisted(assigned_between, rows) == assigned_between  # u changes in between
    batched_both = ["a = x * u", "out = a * x"]
    assert hoisted(batched_both, rows) == batched_both  # two batched factors: a pass either way
    aligned = ["a = x[:, None] * u", "out = a * v"]
    assert hoisted(aligned, rows) == aligned  # axes inserted to align: left alone


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7, 8, 12])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_sum_last_gives_numpys_bits(n, dtype):
    """Slice by slice where NumPy adds in order (fewer than 8 elements), NumPy itself elsewhere."""
    from srcdiff.rules.batching_helpers import sum_last
    rng = np.random.default_rng(n)
    x = (rng.normal(size=(40, 9, n)) * 10.0 ** rng.integers(-8, 8, size=(40, 9, n))).astype(dtype)
    for a in (x, np.swapaxes(np.swapaxes(x, 0, 1).copy(), 0, 1)):  # contiguous, and rows apart
        for keep in (False, True):
            got, want = sum_last(a, keepdims=keep), np.sum(a, axis=-1, keepdims=keep)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert np.array_equal(got, want), (n, dtype, keep)


def softmax_regression(W, X, Y):
    Z = X @ W
    Z = Z - np.max(Z, axis=1, keepdims=True)
    return -np.sum(Y * (Z - np.log(np.sum(np.exp(Z), axis=1, keepdims=True)))) / X.shape[0]


def test_a_softmax_hessian_sums_its_classes_slice_by_slice():
    rng = np.random.default_rng(4)
    W, X, Y = rng.normal(size=(3, 4)) * 0.3, rng.normal(size=(20, 3)), np.eye(4)[rng.integers(0, 4, 20)]
    H = srcdiff.hessian(softmax_regression)
    expected = hessian_difference(lambda w: softmax_regression(w.reshape(3, 4), X, Y), (W.ravel(),))
    np.testing.assert_allclose(H(W, X, Y), expected.reshape(3, 4, 3, 4), rtol=1e-5, atol=1e-6)
    assert "sum_last(" in body_code(H), body_code(H)
