"""The red team's wave 26c: the session's new features attacked as users write them, each answer
checked against float64 central differences (tests/numeric.py) or, for vmap, against a Python loop
of the function one example at a time; none of these found a wrong answer (the report lists what was
tried).  1. gradient objects called inside a differentiated function (MAML steps in a loop, a
penalty, value_and_grad, argnums tuples, the object rebound between calls, defaults, keywords,
keyword-only parameters, float32, hessian / jacobian / jvp / vjp of the outer function); 2. vmap on
axes other than 0 (negative, a batch as long as another axis, None axes, per-leaf axes of a tree);
3. np.tile / np.repeat / np.broadcast_to counted from shapes; 4. numba float32; 5. sum(list) of items
of different shapes."""

from __future__ import annotations

import numpy as np
import pytest
from numeric import assert_close, central_difference, hessian_difference

import srcdiff


def _jacobian_difference(f, args, wrt, eps=1e-6):
    x = np.asarray(args[wrt], dtype=float)
    J = np.zeros(np.shape(f(*args)) + x.shape)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += eps
        lo[i] -= eps
        a = list(args)
        a[wrt] = hi
        up = np.asarray(f(*a))
        a[wrt] = lo
        J[(...,) + i] = (up - np.asarray(f(*a))) / (2 * eps)
    return J


def _one_at_a_time(f, args, in_axes):
    n = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = [f(*[a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, in_axes)]) for i in range(n)]
    return np.stack(outs)


# ---- 1. gradient objects called inside ----


def loss(w, X, y):
    r = X @ w - y
    return np.mean(r * r)


dloss = srcdiff.grad(loss)
loss_vg = srcdiff.value_and_grad(loss)
loss_both = srcdiff.grad(loss, argnums=(0, 1))


def maml_three_steps(w, X, y):
    for _ in range(3):
        w = w - 0.1 * dloss(w, X, y)
    return loss(w, X, y)


def penalty(w, X, y):
    return loss(w, X, y) + np.sum(dloss(w, X=X, y=y) ** 2)


def value_times_norm(w, X, y):
    v, g = loss_vg(w, X, y)
    return v * np.sum(g * g)


def both_gradients(w, X, y):
    gw, gX = loss_both(w, X, y)
    return np.sum(gw * gw) + np.sum(gX**3)


def ridge(w, X, y, lam=0.5):
    return loss(w, X, y) + lam * np.sum(w * w)


dridge = srcdiff.grad(ridge)


def with_defaults(w, X, y):
    return np.sum(dridge(w, X, y) ** 2) + np.sum(dridge(w, X, y, lam=2.0) * w)


def quartic(w, *, lam):
    return np.sum(w**4) * lam


dquartic = srcdiff.grad(quartic)


def keyword_only(w, X, y):
    return np.sum(dquartic(w, lam=np.sum(y)) ** 2) + np.sum(X)


CALLED = [maml_three_steps, penalty, value_times_norm, both_gradients, with_defaults, keyword_only]


def _data(seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(3), rng.standard_normal((4, 3)), rng.standard_normal(4)


@pytest.mark.parametrize("f", CALLED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("wrt", [0, 1, 2])
def test_called_gradient_every_argument(f, wrt):
    args = _data()
    assert_close(srcdiff.grad(f, wrt=wrt)(*args), central_difference(f, args, wrt), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f", CALLED, ids=lambda f: f.__name__)
def test_called_gradient_second_order_and_float32(f):
    args = _data(1)
    assert_close(srcdiff.hessian(f)(*args), hessian_difference(f, args), rtol=1e-4, atol=1e-4)
    v = np.array([0.3, -1.0, 0.5])
    _, tangent = srcdiff.jvp(f, args, (v, np.zeros((4, 3)), np.zeros(4)))
    assert_close(tangent, np.sum(central_difference(f, args, 0) * v), rtol=1e-5, atol=1e-6)
    g32 = srcdiff.grad(f)(*(a.astype(np.float32) for a in args))
    assert g32.dtype == np.float32
    assert_close(g32, central_difference(f, args, 0), rtol=2e-3, atol=2e-3)


def steps(w, X, y):
    for _ in range(2):
        w = w - 0.1 * dloss(w, X, y)
    return w


@pytest.mark.parametrize("wrt", [0, 1, 2])
def test_called_gradient_jacobian_and_vjp(wrt):
    args = _data(2)
    expected = _jacobian_difference(steps, args, wrt)
    assert_close(srcdiff.jacobian(steps, wrt=wrt)(*args), expected, rtol=1e-5, atol=1e-6)
    _, pull = srcdiff.vjp(steps, *args, wrt=wrt)
    ct = np.array([1.0, -2.0, 0.5])
    assert_close(pull(ct), np.tensordot(ct, expected, axes=1), rtol=1e-5, atol=1e-6)


def square_sum(w):
    return np.sum(w**2)


def sine_sum(w):
    return np.sum(np.sin(w))


rebound = srcdiff.grad(square_sum)


def uses_rebound(w):
    return np.sum(rebound(w) ** 2)


def test_called_gradient_rebound_between_calls():
    global rebound
    w = np.array([0.3, -0.7, 1.1])
    made = srcdiff.grad(uses_rebound)
    assert_close(made(w), central_difference(uses_rebound, (w,), 0))
    old = rebound
    try:
        rebound = srcdiff.grad(sine_sum)
        assert_close(srcdiff.grad(uses_rebound)(w), central_difference(uses_rebound, (w,), 0))
        assert_close(made(w), central_difference(uses_rebound, (w,), 0))  # the object made before, too
    finally:
        rebound = old


def shifted(w, b):
    return np.sum(np.sin(w + b) ** 2)


dshifted_b = srcdiff.grad(shifted, wrt=1)


def broadcast_inner(w, b):
    return np.sum(dshifted_b(w, b) ** 2)


@pytest.mark.parametrize("b", [0.4, np.array([0.5, -0.2, 0.1]), np.array([[0.5], [-0.2]])], ids=["float", "row", "col"])
def test_called_gradient_of_a_broadcast_argument(b):
    w = np.array([[0.2, 0.5, -0.3], [1.0, 0.1, 0.4]])
    for wrt in (0, 1):
        got = srcdiff.grad(broadcast_inner, wrt=wrt)(w, b)
        assert_close(got, central_difference(broadcast_inner, (w, b), wrt), rtol=1e-5, atol=1e-6)


# ---- 2. vmap against a Python loop ----


def product_with_column(A):
    return A @ A[:, 0] + A[0]


def rows_accumulated(a, S):
    out = a * 0.0
    for i in range(S.shape[0]):
        out = out + S[i] * a[i]
    return out


def squared_rows(a, S):
    return np.sum(rows_accumulated(a, S) ** 2)


def net(p, x):
    return np.tanh(x @ p["W"] + p["b"]) * p["s"]


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2])
def test_vmap_square_batches_on_any_axis(axis):
    A = np.random.default_rng(3).standard_normal((3, 3, 3))
    assert_close(srcdiff.vmap(product_with_column, in_axes=axis)(A), _one_at_a_time(product_with_column, (A,), (axis,)))


@pytest.mark.parametrize("in_axes", [(0, None), (1, None), (None, 1)])
def test_vmap_gradient_batch_as_long_as_another_axis(in_axes):
    rng = np.random.default_rng(4)
    V, S = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    g = srcdiff.grad(squared_rows, wrt=0 if in_axes[0] is not None else 1)
    args = (V, S) if in_axes[0] is not None else (S, V)
    assert_close(srcdiff.vmap(g, in_axes=in_axes)(*args), _one_at_a_time(g, args, in_axes))


def test_vmap_tree_leaves_on_their_own_axes():
    rng = np.random.default_rng(5)
    Ws, bs, x = rng.standard_normal((4, 3, 2)), rng.standard_normal((4, 2)), rng.standard_normal((4, 3))
    p = {"W": np.moveaxis(Ws, 0, 2).copy(), "b": bs.T.copy(), "s": 2.0}
    got = srcdiff.vmap(net, in_axes=({"W": 2, "b": 1, "s": None}, 0))(p, x)
    expected = np.stack([net({"W": Ws[i], "b": bs[i], "s": 2.0}, x[i]) for i in range(4)])
    assert_close(got, expected)


# ---- 3. copies counted from shapes; 5. sum of a list of mixed shapes ----


def tiled(b, X):
    return (X + np.tile(b, (X.shape[0], 1))) ** 2


def repeated(b, X):
    return np.repeat(b[None, :], X.shape[0], axis=0) * X


def broadcast(b, X):
    return np.sin(np.broadcast_to(b, X.shape) * X)


def mixed_terms(w, X):
    terms = [X * w, w, np.sum(X * w)]
    return sum(terms) ** 2


@pytest.mark.parametrize("f", [tiled, repeated, broadcast, mixed_terms], ids=lambda f: f.__name__)
@pytest.mark.parametrize("wrt", [0, 1])
def test_vector_outputs_jacobian_vjp_jvp(f, wrt):
    rng = np.random.default_rng(6)
    args = (rng.standard_normal(3), rng.standard_normal((4, 3)))
    expected = _jacobian_difference(f, args, wrt)
    assert_close(srcdiff.jacobian(f, wrt=wrt)(*args), expected, rtol=1e-5, atol=1e-6)
    ct = rng.standard_normal((4, 3))
    _, pull = srcdiff.vjp(f, *args, wrt=wrt)
    assert_close(pull(ct), np.tensordot(ct, expected, axes=2), rtol=1e-5, atol=1e-6)
    v = rng.standard_normal(np.shape(args[wrt]))
    tangents = tuple(v if i == wrt else np.zeros_like(a) for i, a in enumerate(args))
    assert_close(srcdiff.jvp(f, args, tangents)[1], np.tensordot(expected, v, axes=v.ndim), rtol=1e-5, atol=1e-6)


def summed_terms(w, x):
    terms = [np.sum(w * x), w * x]
    return np.sum(sum(terms) ** 2)


def tiled_loss(b, X):
    return np.sum(tiled(b, X))


@pytest.mark.parametrize("f", [summed_terms, tiled_loss], ids=lambda f: f.__name__)
def test_hessian_and_vmap_of_the_gradient(f):
    rng = np.random.default_rng(7)
    w, X = rng.standard_normal(3), rng.standard_normal((4, 3))
    x = X[0] if f is summed_terms else X
    assert_close(srcdiff.hessian(f)(w, x), hessian_difference(f, (w, x)), rtol=1e-4, atol=1e-4)
    Wb = rng.standard_normal((3, 5))
    g = srcdiff.grad(f)
    assert_close(srcdiff.vmap(g, in_axes=(1, None))(Wb, x), _one_at_a_time(g, (Wb, x), (1, None)))


# ---- 4. numba float32 ----


G64 = np.array([0.5, -1.0, 2.0])


def scaled_steps(w, X, k):
    for _ in range(3):
        w = w - 0.1 * k * (X.T @ (X @ w))
    return np.sum(w**2) + np.sum(w * G64)


@pytest.mark.slow  # (numba compiles for seconds)
@pytest.mark.parametrize("wrt", [0, 1])
def test_numba_float32_widened_matches_numpy_float32(wrt):
    w, X, _ = _data(8)
    args32 = (w.astype(np.float32), X.astype(np.float32), 0.7)
    python = srcdiff.grad(scaled_steps, wrt=wrt)(*args32)
    compiled = srcdiff.grad(scaled_steps, wrt=wrt, jit="numba")(*args32)
    assert compiled.dtype == python.dtype == np.float32
    assert_close(compiled, python, rtol=1e-4, atol=1e-5)
    assert_close(compiled, central_difference(scaled_steps, (w, X, 0.7), wrt), rtol=2e-3, atol=2e-3)


# ---- found: the one-example-at-a-time loop met results of different shapes ----


def positives(x, t):
    return x[x > t]


def positives_tree(p, t):
    return {"kept": p["x"][p["x"] > t], "all": p["x"]}


def test_vmap_results_of_different_shapes_refused_at_the_line():
    # was a plain ValueError of np.stack in the generated loop (a CRASH, no line of the user's)
    X = np.array([[-1.0, 0.5, 2.0], [0.3, -2.0, 1.0], [-0.5, -0.1, 3.0]])
    for axis in (0, 1):
        with pytest.raises(srcdiff.SrcDiffError, match="different shapes") as found:
            srcdiff.vmap(positives, in_axes=(axis, None))(X, 0.0)
        assert found.value.location.filename == __file__
    with pytest.raises(srcdiff.SrcDiffError, match="different shapes") as found:
        srcdiff.vmap(positives_tree, in_axes=({"x": 0}, None))({"x": X}, 0.0)
    assert found.value.location.filename == __file__
    # results of one shape still stack, one example at a time
    assert_close(srcdiff.vmap(positives, in_axes=(0, None))(X, -5.0), X)


def test_vmap_numpy_integer_axes():
    # np.int64 axes (``X.ndim - 1`` of a NumPy shape) were refused as "not an int", with no line
    rng = np.random.default_rng(9)
    V, S = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    g = srcdiff.grad(squared_rows)
    got = srcdiff.vmap(g, in_axes=(np.int64(1), None))(V, S)
    assert_close(got, _one_at_a_time(g, (V, S), (1, None)))
    Ws, x = rng.standard_normal((4, 2, 5)), rng.standard_normal(4)
    axis = np.int64(Ws.ndim - 1)
    got = srcdiff.vmap(net, in_axes=({"W": axis, "b": None, "s": None}, None))({"W": Ws, "b": 0.5, "s": 2.0}, x)
    assert_close(got, np.stack([net({"W": Ws[..., i], "b": 0.5, "s": 2.0}, x) for i in range(5)]))
