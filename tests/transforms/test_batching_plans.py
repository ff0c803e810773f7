"""Later calls of vmap, jacobian and hessian replay the first call's batched code (api/plans.py):
with new values, new batch sizes and new sizes, they give what a fresh transform gives; when
what the code was built on changes (a global the function reads statically, a loop count, a
flag), they build it again.

References: Python loops over the user's own function, central differences of a hand-written
gradient, closed forms.  None is computed by the code under test.
"""

import numpy as np
import pytest
import scipy.optimize
from numeric import assert_close, hessian_difference

import srcdiff

RNG = np.random.default_rng(26)


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def test_hessian_replayed_for_new_values_and_sizes():
    H = srcdiff.hessian(rosenbrock)
    for n in (5, 5, 5, 12, 12, 3, 40):
        x = RNG.normal(size=n)
        assert_close(H(x), scipy.optimize.rosen_hess(x), rtol=1e-10, atol=1e-8)


def test_hessian_in_several_chunks_matches_closed_form():
    x = RNG.normal(size=300)  # more rows than one chunk holds: rows written chunk by chunk
    H = srcdiff.hessian(rosenbrock)
    for _ in range(2):
        assert_close(H(x), scipy.optimize.rosen_hess(x), rtol=1e-10, atol=1e-8)
        x = x[::-1].copy()


def weighted(x, w, flag):
    if flag:
        return np.sum(w * x ** 3)
    return np.sum(w * np.sin(x))


def test_hessian_replay_follows_a_flag_argument():
    H = srcdiff.hessian(weighted)
    x, w = RNG.normal(size=4), RNG.normal(size=4)
    for flag in (True, True, False, False, True):
        expected = np.diag(6 * w * x) if flag else np.diag(-w * np.sin(x))
        assert_close(H(x, w, flag), expected, rtol=1e-12, atol=1e-12)


def summed_along(x, axis):
    return np.sum(np.sum(x, axis=axis) ** 3)


def test_vmap_of_grad_replay_follows_a_static_argument():
    per_example = srcdiff.vmap(srcdiff.grad(summed_along), in_axes=(0, None))
    X = RNG.normal(size=(5, 2, 3))
    for axis in (0, 0, 1, -1, 1, 0):
        expected = np.stack([3 * np.expand_dims(np.sum(x, axis=axis) ** 2, axis) * np.ones_like(x) for x in X])
        assert_close(per_example(X, axis), expected, rtol=1e-12, atol=1e-12)


AXIS = 0


def axis_sum(x):
    return np.sum(np.sum(x, axis=AXIS) ** 3)


def test_replay_follows_a_global_read_statically():
    global AXIS
    X = RNG.normal(size=(4, 2, 3))
    per_example = srcdiff.vmap(srcdiff.grad(axis_sum))
    H = srcdiff.hessian(axis_sum)
    try:
        for axis in (0, 0, 1, 1, 0):
            AXIS = axis
            expected = np.stack([3 * np.expand_dims(np.sum(x, axis=axis) ** 2, axis) * np.ones_like(x) for x in X])
            assert_close(per_example(X), expected, rtol=1e-12, atol=1e-12)
            assert_close(H(X[0]), hessian_difference(axis_sum, (X[0],)), rtol=1e-5, atol=1e-5)
    finally:
        AXIS = 0


SCALE = 2.0


def scaled_cubes(x):
    return np.sum(SCALE * x ** 3)


def test_replay_after_the_cache_is_cleared_and_a_global_changes():
    """A plan that found its lowerings current once checks only their globals while the
    cache is unchanged (api/plans.py): a cleared cache and a global read as a constant each
    send the call down the full path."""
    global SCALE
    H = srcdiff.hessian(scaled_cubes)
    x = RNG.normal(size=5)
    try:
        for scale, clear in ((2.0, False), (2.0, False), (2.0, True), (2.0, False), (-1.5, False), (-1.5, True)):
            SCALE = scale
            if clear:
                srcdiff.clear_cache()
            assert_close(H(x), np.diag(6.0 * scale * x), rtol=1e-12, atol=1e-12)
    finally:
        SCALE = 2.0


def layer(x, W, b):
    return np.tanh(W @ x + b)


def test_jacobian_replayed_for_new_values_and_shapes():
    J = srcdiff.jacobian(layer)
    for n, m in ((4, 3), (4, 3), (6, 2), (1, 5), (6, 2)):
        x, W, b = RNG.normal(size=n), RNG.normal(size=(m, n)), RNG.normal(size=m)
        expected = (1 - np.tanh(W @ x + b) ** 2)[:, None] * W
        assert_close(J(x, W, b), expected, rtol=1e-12, atol=1e-12)


def test_vmap_replayed_for_new_batch_sizes_and_values():
    def loss(w, x, y):
        return np.sum((np.tanh(x @ w) - y) ** 2)
    per_example = srcdiff.vmap(srcdiff.grad(loss), in_axes=(None, 0, 0))
    w = RNG.normal(size=(3, 2))
    for batch in (4, 4, 1, 7, 4):
        X, Y = RNG.normal(size=(batch, 3)), RNG.normal(size=(batch, 2))
        expected = []
        for x, y in zip(X, Y):
            t = np.tanh(x @ w)
            expected.append(np.outer(x, 2 * (t - y) * (1 - t * t)))
        assert_close(per_example(w, X, Y), np.stack(expected), rtol=1e-12, atol=1e-12)


def outer_of(x, y):
    return np.outer(x, y) * 2.0


def test_vmap_of_an_outer_product_with_either_side_batched():
    X, Y = RNG.normal(size=(5, 2, 3)), RNG.normal(size=(5, 4))
    for in_axes, args, rows in (((0, 0), (X, Y), lambda i: (X[i], Y[i])),
                                ((None, 0), (X[0], Y), lambda i: (X[0], Y[i])),
                                ((0, None), (X, Y[0]), lambda i: (X[i], Y[0]))):
        found = srcdiff.vmap(outer_of, in_axes=in_axes)(*args)
        expected = np.stack([outer_of(*rows(i)) for i in range(5)])
        assert_close(found, expected, rtol=1e-15, atol=0)
    found = srcdiff.vmap(outer_of)(X.astype(np.float32), Y.astype(np.float32))
    assert found.dtype == np.float32


def with_a_list(x, weights):
    return np.sum(x * weights[0]) + np.sum(x ** 3) * weights[1]


def test_arguments_compared_by_structure_are_never_replayed():
    H = srcdiff.hessian(with_a_list)
    x = RNG.normal(size=3)
    for weights in ([np.ones(3), 1.0], [np.ones(3), 2.0], [2 * np.ones(3), 0.5]):
        assert_close(H(x, weights), np.diag(6 * weights[1] * x), rtol=1e-12, atol=1e-12)


def _identity_map(x):
    return x


def _half_square(x):
    return 0.5 * np.sum(x * x)


@pytest.mark.parametrize("transform, f", [(srcdiff.jacobian, _identity_map), (srcdiff.hessian, _half_square)],
                         ids=["jacobian_of_x", "hessian_of_half_square"])
def test_a_result_that_is_its_seeds_is_the_callers_own_array(transform, f):
    """The identity seeds are made once and shared between calls (read-only); a Jacobian that
    is the identity itself is a new writable array each call, never the shared seeds."""
    J = transform(f)
    first = J(np.ones(4))
    np.testing.assert_array_equal(first, np.eye(4))
    assert first.flags.writeable
    first[0, 0] = 5.0
    again = J(np.ones(4))
    np.testing.assert_array_equal(again, np.eye(4))
    assert not np.may_share_memory(first, again)
