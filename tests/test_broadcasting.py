"""Broadcast operands get their adjoints summed back, exactly and inline where shapes are known."""

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff

rng = np.random.default_rng(20261131)


def layer(W, b, X):
    return np.tanh(X @ W + b).sum()


def outer_sum(a, b):
    return np.sum(np.sin(a + b) * a)


def scaled(x, s):
    return np.sum((x * s) ** 2)


def keepdims_norm(x):
    return np.sum(x / x.sum(axis=1, keepdims=True))


def logsumexp(x):
    m = np.max(x, axis=1, keepdims=True)
    return np.sum(np.log(np.sum(np.exp(x - m), axis=1)) + np.squeeze(m, axis=1))


def logsumexp_plain(x):
    m = x.max(axis=-1, keepdims=True)
    return np.sum(np.log(np.exp(x - m).sum(axis=-1, keepdims=True)) + m)


def code(source: str) -> str:
    """The generated statements without their comments (which quote the user's code)."""
    return "\n".join(line for line in source.splitlines() if not line.strip().startswith("#"))


LAYER_GRAD = '''\
def layer_grad(W, b, X):
    # forward
    t3 = np.tanh(X @ W + b)
    # backward
    # adjoint of test_broadcasting.py:13  return np.tanh(X @ W + b).sum()
    t2_bar = 1.0 - t3 * t3
    del t3
    b_bar = t2_bar.sum(axis=0)
    W_bar = X.T @ t2_bar
    del t2_bar
    return W_bar, b_bar
'''


def test_layer_golden_source_has_one_inline_reduction_for_b():
    W, b, X = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(5, 3))
    source = srcdiff.grad(layer, wrt=(0, 1)).source_for(W, b, X)
    assert source == LAYER_GRAD
    assert "unbroadcast" not in source and code(source).count(".sum(") == 1


def test_layer_gradient_matches_central_differences():
    W, b, X = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(5, 3))
    dW, db = srcdiff.grad(layer, wrt=(0, 1))(W, b, X)
    assert_close(dW, central_difference(layer, (W, b, X), 0))
    assert_close(db, central_difference(layer, (W, b, X), 1))


BROADCAST_CASES = [
    ((3, 1), (1, 4)),
    ((3, 4), (4,)),
    ((4,), (3, 4)),
    ((2, 1, 4), (3, 1)),
    ((3, 4), (3, 4)),
    ((1,), (5,)),
]


@pytest.mark.parametrize("shape_a, shape_b", BROADCAST_CASES)
def test_broadcast_shapes_against_central_differences(shape_a, shape_b):
    a, b = rng.normal(size=shape_a), rng.normal(size=shape_b)
    da, db = srcdiff.grad(outer_sum, wrt=(0, 1))(a, b)
    assert_close(da, central_difference(outer_sum, (a, b), 0))
    assert_close(db, central_difference(outer_sum, (a, b), 1))


@pytest.mark.parametrize("shape_a, shape_b", BROADCAST_CASES)
def test_known_shapes_need_no_runtime_helper(shape_a, shape_b):
    a, b = rng.normal(size=shape_a), rng.normal(size=shape_b)
    assert "unbroadcast" not in srcdiff.grad(outer_sum, wrt=(0, 1)).source_for(a, b)


def test_equal_shapes_emit_no_reduction():
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    assert ".sum(" not in code(srcdiff.grad(outer_sum, wrt=(0, 1)).source_for(a, b))


def test_exact_reduction_axes_are_emitted():
    a, b = rng.normal(size=(2, 1, 4)), rng.normal(size=(3, 1))
    source = srcdiff.grad(outer_sum, wrt=(0, 1)).source_for(a, b)
    assert ".sum(axis=1, keepdims=True)" in source  # a's length-1 middle axis
    assert ".sum(axis=0)" in source  # b's missing leading axis
    assert ".sum(axis=1, keepdims=True)" in source.split("b_bar =")[1]  # b's own length-1 axis


def test_unknown_shapes_fall_back_to_the_runtime_helper():
    # .source before any call knows no shapes: it must not guess a reduction.
    source = srcdiff.grad(outer_sum, wrt=(0, 1)).source
    assert "unbroadcast(" in source


def test_python_float_times_array_sums_to_a_float():
    x, s = rng.normal(size=(3, 2)), 1.7
    ds = srcdiff.grad(scaled, wrt=1)(x, s)
    assert np.ndim(ds) == 0
    assert_close(ds, central_difference(scaled, (x, s), 1))


def test_a_new_batch_size_reuses_the_compiled_variant():
    df = srcdiff.grad(layer, wrt=(0, 1))
    W, b = rng.normal(size=(3, 4)), rng.normal(size=4)
    df(W, b, rng.normal(size=(5, 3)))
    before = srcdiff.cache_info().variants
    df(W, b, rng.normal(size=(7, 3)))
    assert srcdiff.cache_info().variants == before


def test_length_one_axis_gets_its_own_variant():
    a = rng.normal(size=(3, 4))
    df = srcdiff.grad(outer_sum, wrt=1)
    wide, single = df.source_for(a, rng.normal(size=(1, 4))), df.source_for(a, rng.normal(size=(3, 4)))
    assert "keepdims=True" in wide and ".sum(" not in code(single)


def test_keepdims_reduction():
    x = rng.uniform(0.5, 2.0, size=(3, 4))
    assert_close(srcdiff.grad(keepdims_norm)(x), central_difference(keepdims_norm, (x,), 0))


@pytest.mark.parametrize("func", [logsumexp, logsumexp_plain])
def test_logsumexp_with_max_subtraction(func):
    x = rng.normal(size=(3, 5)) * 10.0
    assert_close(srcdiff.grad(func)(x), central_difference(func, (x,), 0), rtol=1e-5, atol=1e-6)
