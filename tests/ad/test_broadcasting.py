"""Broadcast operands get their adjoints summed back, exactly and inline where shapes are known."""

import numpy as np
import pytest

import srcdiff


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
    # adjoint of test_broadcasting.py:{line}  return np.tanh(X @ W + b).sum()
    t2_bar = 1.0 - t3 * t3
    del t3
    b_bar = np.sum(t2_bar, axis=0)
    W_bar = X.T @ t2_bar
    del t2_bar
    return W_bar, b_bar
'''


def test_layer_golden_source_has_one_inline_reduction_for_b(rng):
    W, b, X = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(5, 3))
    source = srcdiff.grad(layer, wrt=(0, 1)).source_for(W, b, X)
    assert source == LAYER_GRAD.format(line=layer.__code__.co_firstlineno + 1)
    assert "unbroadcast" not in source and code(source).count(".sum(") == 1


def test_layer_gradient_matches_central_differences(rng, check_gradient):
    W, b, X = rng.normal(size=(3, 4)), rng.normal(size=4), rng.normal(size=(5, 3))
    check_gradient(layer, (W, b, X), (0, 1), rtol=1e-6, atol=1e-7)


BROADCAST_CASES = [
    ((3, 1), (1, 4)),
    ((3, 4), (4,)),
    ((4,), (3, 4)),
    ((2, 1, 4), (3, 1)),
    ((3, 4), (3, 4)),
    ((1,), (5,)),
]


@pytest.mark.parametrize("shape_a, shape_b", BROADCAST_CASES)
def test_broadcast_shapes_against_central_differences(shape_a, shape_b, rng, check_gradient):
    a, b = rng.normal(size=shape_a), rng.normal(size=shape_b)
    check_gradient(outer_sum, (a, b), (0, 1), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("shape_a, shape_b", BROADCAST_CASES)
def test_known_shapes_need_no_runtime_helper(shape_a, shape_b, rng):
    a, b = rng.normal(size=shape_a), rng.normal(size=shape_b)
    assert "unbroadcast" not in srcdiff.grad(outer_sum, wrt=(0, 1)).source_for(a, b)


def test_equal_shapes_emit_no_reduction(rng):
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    assert ".sum(" not in code(srcdiff.grad(outer_sum, wrt=(0, 1)).source_for(a, b))


def test_exact_reduction_axes_are_emitted(rng):
    a, b = rng.normal(size=(2, 1, 4)), rng.normal(size=(3, 1))
    source = srcdiff.grad(outer_sum, wrt=(0, 1)).source_for(a, b)
    assert "a_bar += np.sum(t1_bar, axis=1, keepdims=True)" in source  # a's length-1 middle axis
    # b's missing leading axis, then its own length-1 axis
    assert "b_bar = np.sum(np.sum(t1_bar, axis=0), axis=1, keepdims=True)" in source


def test_unknown_shapes_fall_back_to_the_runtime_helper():
    # .source before any call knows no shapes: it must not guess a reduction.
    source = srcdiff.grad(outer_sum, wrt=(0, 1)).source
    assert "unbroadcast(" in source


def test_python_float_times_array_sums_to_a_float(rng, check_gradient):
    x, s = rng.normal(size=(3, 2)), 1.7
    (ds,) = check_gradient(scaled, (x, s), 1, rtol=1e-6, atol=1e-7)
    assert np.ndim(ds) == 0


def test_a_new_batch_size_reuses_the_compiled_variant(rng):
    df = srcdiff.grad(layer, wrt=(0, 1))
    W, b = rng.normal(size=(3, 4)), rng.normal(size=4)
    df(W, b, rng.normal(size=(5, 3)))
    before = srcdiff.cache_info().variants
    df(W, b, rng.normal(size=(7, 3)))
    assert srcdiff.cache_info().variants == before


def test_length_one_axis_gets_its_own_variant(rng):
    a = rng.normal(size=(3, 4))
    df = srcdiff.grad(outer_sum, wrt=1)
    wide, single = df.source_for(a, rng.normal(size=(1, 4))), df.source_for(a, rng.normal(size=(3, 4)))
    assert "keepdims=True" in wide and ".sum(" not in code(single)


def test_keepdims_reduction(rng, check_gradient):
    check_gradient(keepdims_norm, (rng.uniform(0.5, 2.0, size=(3, 4)),), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("func", [logsumexp, logsumexp_plain])
def test_logsumexp_with_max_subtraction(func, rng, check_gradient):
    check_gradient(func, (rng.normal(size=(3, 5)) * 10.0,))


GLOBAL_COLUMN = np.array([[1.0], [2.0], [3.0]])
LISTED_COLUMN = [[1.0], [2.0], [3.0]]  # a list: the array np.asarray makes of it has a shape known only when run


def times_global_column(x):
    return np.sum(np.sin(x * GLOBAL_COLUMN))


def test_operand_broadcast_against_a_global_is_summed_over_the_axes_its_shape_gives(rng, check_gradient):
    global GLOBAL_COLUMN
    df = srcdiff.grad(times_global_column)
    check_gradient(times_global_column, (rng.normal(size=4),), gradient=df, rtol=1e-6, atol=1e-7)
    # the transform is guarded on the global's signature: its shape is known, no run-time helper
    assert "unbroadcast(" not in df.source and "axis=0)" in df.source
    saved = GLOBAL_COLUMN
    try:
        GLOBAL_COLUMN = np.array([1.0, 2.0, 3.0, 4.0])  # another shape: transformed again
        check_gradient(times_global_column, (rng.normal(size=4),), gradient=df, rtol=1e-6, atol=1e-7)
        assert "axis=0)" not in df.source
        GLOBAL_COLUMN = np.array([0.5, 1.0, 1.5, 2.0])  # another value of that shape: the same code
        check_gradient(times_global_column, (rng.normal(size=4),), gradient=df, rtol=1e-6, atol=1e-7)
    finally:
        GLOBAL_COLUMN = saved


def times_listed_column(x):
    return np.sum(np.sin(x * np.asarray(LISTED_COLUMN)))


def test_operand_broadcast_against_a_value_of_unknown_shape_is_summed_at_run_time(rng, check_gradient):
    df = srcdiff.grad(times_listed_column)
    check_gradient(times_listed_column, (rng.normal(size=4),), gradient=df, rtol=1e-6, atol=1e-7)
    assert "unbroadcast(" in df.source  # np.asarray of a list: its shape is not in the signature
