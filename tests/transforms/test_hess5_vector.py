"""Vector forward mode (ad/tangent_vector.py): a Hessian whose gradient code batching refuses
(loops with stacks, lists of states) gets all its columns from a few forward sweeps over the
gradient's code, several directions side by side.  References: float64 second differences of
the user's function (tests/numeric.py), never srcdiff's own output."""

import math

import numpy as np
import pytest
from numeric import assert_close, hessian_difference

import srcdiff
from srcdiff.api import hessian_forward


def flat(f, shapes):
    """f of several leaves as a function of one flat vector (the reference's view of it)."""
    def g(z):
        leaves, start = [], 0
        for shape in shapes:
            size = int(np.prod(shape))
            part = z[start:start + size]
            leaves.append(float(part[0]) if shape == () else part.reshape(shape))
            start += size
        return f(*leaves)
    return g


def blocks_to_matrix(H, shapes):
    """A tuple-of-tuples Hessian as one (n, n) matrix."""
    sizes = [int(np.prod(s)) for s in shapes]
    return np.block([[np.reshape(H[i][j], (sizes[i], sizes[j])) for j in range(len(shapes))]
                     for i in range(len(shapes))])


def rhs(theta, omega, c, k):
    return omega, -c * omega - k * math.sin(theta)


def step(theta, omega, c, k, h):
    a1, b1 = rhs(theta, omega, c, k)
    a2, b2 = rhs(theta + 0.5 * h * a1, omega + 0.5 * h * b1, c, k)
    return theta + h * a2, omega + h * b2


def pendulum(c, k, observed):
    theta, omega = 1.0, 0.0
    states = []
    for _ in range(len(observed)):
        theta, omega = step(theta, omega, c, k, 0.05)
        states.append(theta)
    misfit = 0.0
    for i in range(len(states)):
        misfit = misfit + (states[i] - observed[i]) ** 2
    return misfit


def decay(a, x, n):
    """A loop over a vector state with a list of its values: batching refuses its gradient."""
    ys = []
    y = x
    for _ in range(n):
        y = y * a + np.sin(y) * 0.3
        ys.append(np.sum(y * y))
    total = 0.0
    for v in ys:
        total = total + v * v
    return total


def scalar_loop(x, y):
    s = x
    for _ in range(6):
        s = 0.9 * s + y * math.sin(s) + 0.1 * x * y
    return s * s + math.cos(x * y)


OBSERVED = np.cos(0.1 * np.arange(1, 21))


@pytest.mark.parametrize("c, k", [(0.3, 4.0), (1.1, 0.5), (-0.2, 2.0)])
def test_pendulum_two_by_two(c, k):
    H = srcdiff.hessian(pendulum, wrt=(0, 1))
    got = blocks_to_matrix(H(c, k, OBSERVED), [(), ()])
    expected = hessian_difference(flat(lambda c, k: pendulum(c, k, OBSERVED), [(), ()]), (np.array([c, k]),))
    assert_close(got, expected, rtol=1e-5, atol=1e-5)
    assert "_dot1" in H.source  # both directions in one sweep


@pytest.mark.parametrize("size", [1, 3, 8, 9, 20])
def test_vector_leaf_in_several_sweeps(size):
    """More directions than one sweep carries: sweeps of equal width, the last padded."""
    rng = np.random.default_rng(size)
    x = rng.uniform(-0.8, 0.8, size)
    H = srcdiff.hessian(decay, wrt=1)
    got = H(0.7, x, 3)
    expected = hessian_difference(lambda z: decay(0.7, z, 3), (x,))
    assert_close(got, expected, rtol=1e-5, atol=1e-5)
    width = hessian_forward.widths(size)[0]
    assert width == 1 or f"_dot{width - 1}" in H.source


def test_mixed_scalar_and_vector_leaves():
    rng = np.random.default_rng(3)
    x = rng.uniform(-0.8, 0.8, 5)
    H = srcdiff.hessian(decay, wrt=(0, 1))
    got = blocks_to_matrix(H(0.6, x, 4), [(), (5,)])
    assert "_dot5" in H.source
    expected = hessian_difference(flat(lambda a, z: decay(a, z, 4), [(), (5,)]), (np.concatenate([[0.6], x]),))
    assert_close(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("x, y", [(0.4, 1.3), (-1.0, 0.2), (2.0, -0.7)])
def test_scalar_loop(x, y):
    H = srcdiff.hessian(scalar_loop, wrt=(0, 1))
    got = blocks_to_matrix(H(x, y), [(), ()])
    expected = hessian_difference(flat(scalar_loop, [(), ()]), (np.array([x, y]),))
    assert_close(got, expected, rtol=1e-5, atol=1e-5)


def test_float32_one_sweep_per_column_still_right():
    x = np.array([0.3, -0.2, 0.5], dtype=np.float32)
    got = srcdiff.hessian(decay, wrt=1)(0.7, x, 2)
    expected = hessian_difference(lambda z: decay(0.7, z, 2), (x.astype(float),))
    assert_close(got, expected, rtol=2e-3, atol=2e-3)


def test_widths_share_directions_evenly():
    assert hessian_forward.widths(2) == (2, 1)
    assert hessian_forward.widths(hessian_forward.WIDTH) == (hessian_forward.WIDTH, 1)
    assert hessian_forward.widths(hessian_forward.WIDTH + 1) == ((hessian_forward.WIDTH + 2) // 2, 2)
    assert hessian_forward.widths(20) == (7, 3)


def test_repeated_calls_and_new_points_reuse_the_sweep():
    H = srcdiff.hessian(pendulum, wrt=(0, 1))
    for c, k in [(0.3, 4.0), (0.5, 3.0), (0.3, 4.0)]:
        got = blocks_to_matrix(H(c, k, OBSERVED), [(), ()])
        expected = hessian_difference(flat(lambda c, k: pendulum(c, k, OBSERVED), [(), ()]), (np.array([c, k]),))
        assert_close(got, expected, rtol=1e-5, atol=1e-5)


def test_one_element_two_leaves_and_one_leaf():
    """One direction in all (the plain jvp, no copies) and a 1-element leaf beside a scalar."""
    x = np.array([0.4])
    got = srcdiff.hessian(decay, wrt=1)(0.8, x, 3)
    assert_close(got, hessian_difference(lambda z: decay(0.8, z, 3), (x,)), rtol=1e-5, atol=1e-5)
    got = blocks_to_matrix(srcdiff.hessian(decay, wrt=(0, 1))(0.8, x, 3), [(), (1,)])
    expected = hessian_difference(flat(lambda a, z: decay(a, z, 3), [(), (1,)]), (np.array([0.8, 0.4]),))
    assert_close(got, expected, rtol=1e-5, atol=1e-5)


def guarded(x, y):
    """math.log behind a guard: a value the directions share is not computed where the code
    would not compute it."""
    s = 0.0
    for _ in range(4):
        s = s + (math.log(x * y) if x * y > 0 else x * y * x) + math.sin(s * x)
    return s * y


@pytest.mark.parametrize("x, y", [(0.7, 1.2), (-0.7, 1.2), (0.5, -2.0)])
def test_guarded_math_in_the_shared_values(x, y):
    H = srcdiff.hessian(guarded, wrt=(0, 1))
    got = blocks_to_matrix(H(x, y), [(), ()])
    expected = hessian_difference(flat(guarded, [(), ()]), (np.array([x, y]),))
    assert_close(got, expected, rtol=1e-5, atol=1e-5)
    # the rows in one batched call since wave 26 (the gradient's loop tape is a list of rows); before, forward
    # sweeps sharing the values no direction changes ("common")
    assert "_batched(" in H.source or "common" in H.source


SCALE = 1.0


def scaled(x, y, n):
    s = x
    for _ in range(n):
        s = 0.5 * s + SCALE * math.sin(s * y)
    return s * s


def test_replayed_calls_follow_shapes_counts_and_globals():
    """Later calls take the remembered sweeps only while everything they came from holds."""
    global SCALE
    H = srcdiff.hessian(scaled, wrt=(0, 1))
    for x, y, n, scale in [(0.3, 1.1, 3, 1.0), (0.4, 0.9, 3, 1.0), (0.4, 0.9, 5, 1.0), (0.4, 0.9, 5, 2.5)]:
        SCALE = scale
        try:
            got = blocks_to_matrix(H(x, y, n), [(), ()])
            expected = hessian_difference(flat(lambda a, b, n=n: scaled(a, b, n), [(), ()]), (np.array([x, y]),))
        finally:
            SCALE = 1.0
        assert_close(got, expected, rtol=1e-5, atol=1e-5)
    observed = np.linspace(0.0, 1.0, 7)
    got = blocks_to_matrix(srcdiff.hessian(pendulum, wrt=(0, 1))(0.3, 4.0, observed), [(), ()])
    expected = hessian_difference(flat(lambda c, k: pendulum(c, k, observed), [(), ()]), (np.array([0.3, 4.0]),))
    assert_close(got, expected, rtol=1e-5, atol=1e-5)
