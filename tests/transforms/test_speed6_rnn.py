"""RNN-like loops: weight gradients summed in place over the steps, and one elementwise
operation of saved arrays recomputed by the backward loop instead of saved (optimize/memory.py,
ad/invariants.py).  References: float64 central differences and hand-written gradients."""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff


def rnn_all_steps(Wx, Wh, b, xs, h0, target):
    h = h0
    loss = 0.0
    T = len(xs)
    for t in range(T):
        h = np.tanh(h @ Wh + xs[t] @ Wx + b)
        loss = loss + np.mean((h - target) ** 2)
    return loss / T


def rnn_last(Wx, Wh, b, xs, h0, target):
    h = h0
    for t in range(xs.shape[0]):
        pre = xs[t] @ Wx + b
        h = np.tanh(pre + h @ Wh)
    d = h - target
    return np.sum(d * d) / d.size


def rnn_scaled(Wx, Wh, b, xs, h0, target):     # the error scaled and negated: two cheap ops
    h = h0
    loss = 0.0
    for x in xs:
        h = np.tanh(x @ Wx + h @ Wh + b)
        e = -(target - h) * 0.5
        loss = loss + np.sum(e * e)
    return loss


def rnn_read_accumulator(Wx, Wh, b, xs, h0, target):   # an accumulator read in the loop stays out of place
    h = h0
    acc = np.zeros_like(h0)
    for t in range(len(xs)):
        h = np.tanh(xs[t] @ Wx + h @ Wh + b)
        acc = acc + h
        h = h + 0.1 * np.sin(acc)
    return np.sum((acc - target) ** 2)


def args(steps=4, batch=3, n_in=2, n_hidden=5, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((n_in, n_hidden)) / 2, 0.5 * rng.standard_normal((n_hidden, n_hidden)),
            0.1 * rng.standard_normal(n_hidden), rng.standard_normal((steps, batch, n_in)),
            0.1 * rng.standard_normal((batch, n_hidden)), 0.5 * rng.standard_normal((batch, n_hidden)))


@pytest.mark.parametrize("f", [rnn_all_steps, rnn_last, rnn_scaled, rnn_read_accumulator], ids=lambda f: f.__name__)
@pytest.mark.parametrize("steps", [0, 1, 4])
def test_gradients_against_central_differences(f, steps, check_gradient):
    if steps == 0 and f is rnn_all_steps:
        pytest.skip("loss / 0 steps raises in the function itself")
    a = args(steps=steps)
    got = check_gradient(f, a, wrt=(0, 1, 2, 4))
    for i, g in zip((0, 1, 2, 4), got):
        np.testing.assert_allclose(g, central_difference(f, a, i), rtol=1e-6, atol=1e-8)


def by_hand(Wx, Wh, b, xs, h0, target):     # rnn_all_steps's gradient, written out
    T = len(xs)
    hs = [h0]
    for t in range(T):
        hs.append(np.tanh(hs[-1] @ Wh + xs[t] @ Wx + b))
    c = 2.0 / (target.size * T)
    h_bar = np.zeros_like(h0)
    Wx_bar, Wh_bar, b_bar = np.zeros_like(Wx), np.zeros_like(Wh), np.zeros_like(b)
    for t in range(T - 1, -1, -1):
        h = hs[t + 1]
        a_bar = (h_bar + c * (h - target)) * (1.0 - h * h)
        Wx_bar += xs[t].T @ a_bar
        Wh_bar += hs[t].T @ a_bar
        b_bar += a_bar.sum(axis=0)
        h_bar = a_bar @ Wh.T
    return Wx_bar, Wh_bar, b_bar, h_bar


def test_equals_hand_written_at_benchmark_size():
    a = args(steps=20, batch=8, n_in=6, n_hidden=16, seed=3)
    got = srcdiff.grad(rnn_all_steps, wrt=(0, 1, 2, 4))(*a)
    for g, h in zip(got, by_hand(*a)):
        np.testing.assert_allclose(g, h, rtol=1e-12, atol=1e-15)


def test_generated_code_accumulates_in_place_and_saves_only_the_state():
    source = srcdiff.grad(rnn_all_steps, wrt=(0, 1, 2)).source_for(*args())
    backward = source.split("# backward")[1]
    for name in ("Wx_bar", "Wh_bar", "b_bar"):
        assert f"{name} += " in backward, source
    pushed = [line.strip() for line in source.splitlines() if ".append(" in line]
    assert pushed == ["stack.append(h)"], source


def test_read_accumulator_is_not_written_in_place():
    a = args(steps=3)
    g = srcdiff.grad(rnn_read_accumulator)(*a)
    np.testing.assert_allclose(g, central_difference(rnn_read_accumulator, a, 0), rtol=1e-6, atol=1e-8)


def test_returned_accumulators_are_distinct_arrays():
    def f(W, V, xs):
        h = np.zeros(W.shape[1])
        for x in xs:
            h = np.tanh(x @ W + h @ V)
        return np.sum(h)
    rng = np.random.default_rng(1)
    W, V, xs = rng.standard_normal((3, 3)), 0.3 * rng.standard_normal((3, 3)), rng.standard_normal((4, 3))
    gW, gV = srcdiff.grad(f, wrt=(0, 1))(W, V, xs)
    assert not np.shares_memory(gW, gV)
    np.testing.assert_allclose(gW, central_difference(f, (W, V, xs), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gV, central_difference(f, (W, V, xs), 1), rtol=1e-6, atol=1e-8)


def test_float32_keeps_its_dtype_and_values():
    a = tuple(np.asarray(v, np.float32) for v in args(steps=3))
    got = srcdiff.grad(rnn_all_steps, wrt=(0, 1))(*a)
    assert all(g.dtype == np.float32 for g in got)
    ref = srcdiff.grad(rnn_all_steps, wrt=(0, 1))(*[np.asarray(v, np.float64) for v in a])
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5)


def test_numba_agrees():
    pytest.importorskip("numba")
    a = args(steps=3)
    got = srcdiff.grad(rnn_all_steps, wrt=(0, 1, 2, 4), jit="numba")(*a)
    for g, h in zip(got, by_hand(*a)):
        np.testing.assert_allclose(g, h, rtol=1e-10, atol=1e-13)


def test_hessian_vector_product_through_the_loop():
    a = args(steps=3)
    Wx, b, xs, h0, target = a[0], a[2], a[3], a[4], a[5]

    def f(Wh):
        return rnn_all_steps(Wx, Wh, b, xs, h0, target)
    v = np.random.default_rng(2).standard_normal(a[1].shape)
    got = srcdiff.hvp(f, a[1], v)
    g = srcdiff.grad(f)
    eps = 1e-5
    np.testing.assert_allclose(got, (g(a[1] + eps * v) - g(a[1] - eps * v)) / (2 * eps), rtol=1e-5, atol=1e-7)


def growing_accumulator(x, M, n):   # the user's own sum grows by broadcasting: never written in place
    acc = np.zeros(3)
    for _i in range(n):
        acc = acc + M * x
    return np.sum(acc * acc)


@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_user_accumulator_that_broadcasts_is_left_as_written(n, check_gradient):
    x, M = np.array([0.5, -1.0, 2.0]), np.arange(6.0).reshape(2, 3) / 5
    got = check_gradient(growing_accumulator, (x, M, n), wrt=(0, 1))
    for i, g in zip((0, 1), got):
        np.testing.assert_allclose(g, central_difference(growing_accumulator, (x, M, n), i), rtol=1e-6, atol=1e-8)
