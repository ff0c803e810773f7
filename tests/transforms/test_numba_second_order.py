"""``jit="numba"`` of every transformation besides `grad`: `hessian`, `hvp`, `jvp`, `vjp`,
`jacobian`, on several programs (Rosenbrock, an MLP, a loop, a helper, a tree argument,
floats), against float64 central differences of the function or of its gradient (itself
checked against central differences of the function first), and the refusals, located."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff

pytest.importorskip("numba")


# ---- programs ------------------------------------------------------------------------------

def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def mlp(W1, b1, W2, X, y):
    h = np.tanh(X @ W1 + b1)
    r = h @ W2 - y
    return np.mean(r * r)


def looped(x):
    s = x
    for _ in range(4):
        s = np.sin(s) * 1.1 + 0.1 * s
    return np.sum(s * s)


def bump(u):
    return u * np.tanh(u)


def with_helper(x):
    return np.sum(bump(x) ** 2) + np.sum(bump(x[::-1]) * x)


def tree_loss(p):
    return np.sum(p["w"] ** 2 * p["b"]) + np.sum(np.sin(p["w"])) * p["b"]


def floats(x, y):
    return math.sin(x) * y ** 2 + math.exp(0.3 * x * y)


def layer(x, W, b):
    return np.tanh(W @ x + b)


def vec_loop(x):
    y = x
    for _ in range(3):
        y = np.sin(y) + 0.5 * y
    return y


def vec_helper(x):
    return bump(x) * x[::-1]


def solved(A, b):
    return np.linalg.solve(A, b) * b


RNG = np.random.default_rng(7)
MLP_ARGS = (RNG.normal(size=(3, 4)) / 2, RNG.normal(size=4), RNG.normal(size=4) / 3, RNG.normal(size=(6, 3)),
            RNG.normal(size=6))

#: the default run keeps the programs numba compiles fastest (a cold compile of the loop's or
#: the MLP's Hessian takes 10-25 s): the others are marked slow (``pytest -m slow`` runs them)
SLOW = pytest.mark.slow

#: (name, f, args, index of the parameter differentiated) of the scalar programs
SCALAR = [
    ("rosenbrock", rosenbrock, (RNG.uniform(-1, 1, 7),), 0),
    ("mlp", mlp, MLP_ARGS, 0),
    ("loop", looped, (RNG.normal(size=5),), 0),
    ("helper", with_helper, (RNG.normal(size=5),), 0),
    ("floats", floats, (0.4, -0.7), 0),
]

#: (name, f, args) of the vector-valued programs (differentiated w.r.t. the first parameter)
VECTOR = [
    ("layer", layer, (RNG.normal(size=4), RNG.normal(size=(5, 4)) / 2, RNG.normal(size=5))),
    ("loop", vec_loop, (RNG.normal(size=4),)),
    ("helper", vec_helper, (RNG.normal(size=5),)),
    ("solve", solved, (np.eye(3) * 3 + RNG.normal(size=(3, 3)) / 4, RNG.normal(size=3))),
]


# ---- references: central differences -------------------------------------------------------

def jacobian_difference(func, args, index, eps=1e-6):
    """d func(*args) / d args[index] by central differences: ``value.shape + x.shape``."""
    args = list(args)
    x = args[index]
    if not isinstance(x, np.ndarray):
        hi = func(*args[:index], x + eps, *args[index + 1:])
        lo = func(*args[:index], x - eps, *args[index + 1:])
        return (np.asarray(hi) - np.asarray(lo)) / (2 * eps)
    value = np.asarray(func(*args))
    out = np.zeros(value.shape + x.shape)
    for i in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[i] += eps
        minus[i] -= eps
        hi = np.asarray(func(*args[:index], plus, *args[index + 1:]))
        lo = np.asarray(func(*args[:index], minus, *args[index + 1:]))
        out[(...,) + i] = (hi - lo) / (2 * eps)
    return out


def checked_gradient(f, args, index):
    """srcdiff's NumPy gradient of `f`, checked against central differences of `f` here."""
    gradient = srcdiff.grad(f, wrt=index)
    assert_close(gradient(*args), central_difference(f, args, index), rtol=1e-6, atol=1e-6)
    return gradient


def hessian_reference(f, args, index):
    """Central differences of the checked gradient: ``x.shape + x.shape``."""
    gradient = checked_gradient(f, args, index)
    found = jacobian_difference(lambda *a: gradient(*a), args, index)
    return found if np.ndim(args[index]) else float(found)


def cases(table, slow=()):
    """`table` as pytest parameters, those named in `slow` marked slow."""
    return [pytest.param(*row, id=row[0], marks=[SLOW] if row[0] in slow else []) for row in table]


def direction(x, seed=1):
    if np.ndim(x) == 0:
        return 0.8
    return np.random.default_rng(seed).normal(size=np.shape(x))


# ---- hessian, hvp, jvp of a gradient -------------------------------------------------------

@pytest.mark.parametrize("name,f,args,index", cases(SCALAR, slow=("mlp", "loop", "helper")))
def test_hessian_jit(name, f, args, index):
    expected = hessian_reference(f, args, index)
    H = srcdiff.hessian(f, wrt=index, jit="numba")
    assert_close(H(*args), expected, rtol=1e-5, atol=1e-5)
    assert "jit='numba'" in H.source  # the module numba compiled
    assert_close(H(*args), expected, rtol=1e-5, atol=1e-5)  # again: the plan's path


@pytest.mark.parametrize("name,f,args,index", cases(SCALAR, slow=("mlp", "loop")))
def test_hvp_of_a_numba_gradient(name, f, args, index):
    x, v = args[0], direction(args[0])
    expected = np.tensordot(hessian_reference(f, args, 0), v, axes=np.ndim(x)) if np.ndim(x) else \
        hessian_reference(f, args, 0) * v
    found = srcdiff.hvp(srcdiff.grad(f, jit="numba"), x, v, *args[1:])
    assert_close(found, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name,f,args,index", cases(SCALAR[:3], slow=("mlp", "loop")))
def test_jvp_of_a_gradient_jit(name, f, args, index):
    v = direction(args[0])
    tangents = (v,) + tuple(np.zeros_like(a) for a in args[1:])
    value, product = srcdiff.jvp(srcdiff.grad(f), args, tangents, jit="numba")
    assert_close(value, checked_gradient(f, args, 0)(*args), rtol=1e-10, atol=1e-10)
    assert_close(product, np.tensordot(hessian_reference(f, args, 0), v, axes=np.ndim(v)), rtol=1e-5, atol=1e-5)


def test_hvp_jit_fuses_the_sweep():
    """Rosenbrock's hvp under numba: the forward sweep over the gradient is one loop."""
    x, v = SCALAR[0][2][0], direction(SCALAR[0][2][0])
    forward = srcdiff.jvp_function(srcdiff.grad(rosenbrock), jit="numba")
    _, product = forward((x,), (v,))
    assert_close(product, np.tensordot(hessian_reference(rosenbrock, (x,), 0), v, axes=1), rtol=1e-5, atol=1e-5)
    # fused: the elementwise chains run as loops over i (two: the adjoint's scatter-adds split them)
    assert 1 <= forward.source.count("for i in range(") <= 2


@SLOW
def test_hessian_jit_of_a_tree():
    p = {"w": RNG.normal(size=3), "b": 0.7}
    H = srcdiff.hessian(tree_loss, jit="numba")(p)

    def as_vector(z):
        return tree_loss({"w": z[:3], "b": z[3]})
    z = np.concatenate([p["w"], [p["b"]]])
    expected = jacobian_difference(lambda z: central_difference(as_vector, (z,), 0, eps=1e-5), (z,), 0, eps=1e-5)
    assert_close(H["w"]["w"], expected[:3, :3], rtol=1e-4, atol=1e-4)
    assert_close(H["w"]["b"], expected[:3, 3], rtol=1e-4, atol=1e-4)
    assert_close(np.asarray(H["b"]["b"]), expected[3, 3], rtol=1e-4, atol=1e-4)


def test_hvp_jit_of_a_tree():
    p, v = {"w": RNG.normal(size=3), "b": 0.7}, {"w": RNG.normal(size=3), "b": -0.4}
    gradient = srcdiff.grad(tree_loss)
    eps = 1e-6
    step = {k: p[k] + eps * v[k] for k in p}, {k: p[k] - eps * v[k] for k in p}
    hi, lo = gradient(step[0]), gradient(step[1])
    found = srcdiff.hvp(srcdiff.grad(tree_loss, jit="numba"), p, v)
    assert_close(found["w"], (hi["w"] - lo["w"]) / (2 * eps), rtol=1e-5, atol=1e-5)
    assert_close(float(found["b"]), float((hi["b"] - lo["b"]) / (2 * eps)), rtol=1e-5, atol=1e-5)


def rhs(theta, omega, c, k):
    return omega, -c * omega - k * math.sin(theta)


def simulated(c, k, observed):
    """A pendulum fit: a helper returning a tuple, a list of states, a loop over them."""
    theta, omega = 1.0, 0.0
    states = []
    for _ in range(6):
        a, b = rhs(theta, omega, c, k)
        theta, omega = theta + 0.1 * a, omega + 0.1 * b
        states.append(theta)
    misfit = 0.0
    for i in range(len(states)):
        misfit = misfit + (states[i] - observed[i]) ** 2
    return misfit


def test_hessian_and_hvp_jit_of_a_simulation():
    """The gradient's backward loop drops the list's last element (``del states_bar[-1:]`` in
    forward mode over it): numba must keep that statement (it once dropped every ``del``)."""
    args = (0.3, 2.0, np.linspace(0.9, 0.1, 6))
    gradient = srcdiff.grad(simulated, wrt=(0, 1))
    for index in (0, 1):
        assert_close(gradient(*args)[index], central_difference(simulated, args, index), rtol=1e-6, atol=1e-8)
    expected = np.array([[(gradient(*(args[:j] + (args[j] + 1e-6,) + args[j + 1:]))[i]
                           - gradient(*(args[:j] + (args[j] - 1e-6,) + args[j + 1:]))[i]) / 2e-6
                          for j in (0, 1)] for i in (0, 1)])
    H = srcdiff.hessian(simulated, wrt=(0, 1), jit="numba")(*args)
    assert_close(np.array(H, dtype=float), expected, rtol=1e-5, atol=1e-7)
    product = srcdiff.hvp(srcdiff.grad(simulated, jit="numba"), args[0], -0.5, *args[1:])
    assert float(product) == pytest.approx(-0.5 * expected[0, 0], rel=1e-5, abs=1e-7)


# ---- jvp, jacobian, vjp of vector-valued functions -----------------------------------------

@pytest.mark.parametrize("name,f,args", cases(VECTOR, slow=("solve", "loop")))
def test_jacobian_jit(name, f, args):
    J = srcdiff.jacobian(f, jit="numba")
    assert_close(J(*args), jacobian_difference(f, args, 0), rtol=1e-6, atol=1e-7)
    assert_close(J(*args), jacobian_difference(f, args, 0), rtol=1e-6, atol=1e-7)  # the plan's path
    assert "jit='numba'" in J.source


@pytest.mark.parametrize("name,f,args", cases(VECTOR, slow=("solve",)))
def test_jvp_jit(name, f, args):
    tangents = tuple(direction(a, seed=k) for k, a in enumerate(args))
    value, tangent = srcdiff.jvp(f, args, tangents, jit="numba")
    assert_close(value, f(*args), rtol=1e-12, atol=1e-12)
    expected = sum(np.tensordot(jacobian_difference(f, args, k), t, axes=np.ndim(t)) for k, t in enumerate(tangents))
    assert_close(tangent, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name,f,args", cases(VECTOR, slow=("solve",)))
def test_vjp_jit(name, f, args):
    value, pullback = srcdiff.vjp(f, *args, jit="numba")
    assert_close(value, f(*args), rtol=1e-12, atol=1e-12)
    g = direction(value, seed=3)
    expected = np.tensordot(g, jacobian_difference(f, args, 0), axes=np.ndim(g))
    assert_close(pullback(g), expected, rtol=1e-6, atol=1e-6)
    assert_close(pullback(2.0 * g), 2.0 * expected, rtol=1e-6, atol=1e-6)  # again: the forward runs again


def scaled(x, scale=2.0, power=3):
    return np.sin(x) ** power * scale


def test_vjp_jit_of_a_function_with_defaults():
    x = RNG.normal(size=3)
    value, pullback = srcdiff.vjp(scaled, x, jit="numba")
    assert_close(value, scaled(x), rtol=1e-14, atol=1e-14)
    g = np.array([1.0, -2.0, 0.5])
    assert_close(pullback(g), np.tensordot(g, jacobian_difference(scaled, (x,), 0), 1), rtol=1e-6, atol=1e-7)


def test_jvp_jit_of_floats():
    value, tangent = srcdiff.jvp(floats, (0.4, -0.7), (1.0, 0.5), jit="numba")
    expected = central_difference(floats, (0.4, -0.7), 0) + 0.5 * central_difference(floats, (0.4, -0.7), 1)
    assert value == pytest.approx(floats(0.4, -0.7), rel=1e-12)
    assert tangent == pytest.approx(expected, rel=1e-6, abs=1e-8)


def test_vjp_jit_of_a_tree_and_several_wrt():
    x, W = RNG.normal(size=2), RNG.normal(size=(3, 2))

    def tree_layer(p):
        return np.tanh(p["W"] @ p["x"])
    _, pullback = srcdiff.vjp(tree_layer, {"x": x, "W": W}, jit="numba")
    g = np.array([1.0, -2.0, 0.5])
    found = pullback(g)
    assert_close(found["x"], np.tensordot(g, jacobian_difference(lambda x: tree_layer({"x": x, "W": W}), (x,), 0), 1))
    assert_close(found["W"], np.tensordot(g, jacobian_difference(lambda W: tree_layer({"x": x, "W": W}), (W,), 0), 1))
    _, pullback = srcdiff.vjp(layer, x, W, np.zeros(3), wrt=(0, 1), jit="numba")
    gx, gW = pullback(g)
    assert_close(gW, np.tensordot(g, jacobian_difference(layer, (x, W, np.zeros(3)), 1), 1))
    assert_close(gx, np.tensordot(g, jacobian_difference(layer, (x, W, np.zeros(3)), 0), 1))


def example_loss(W1, b1, W2, x, y):
    h = np.tanh(x @ W1 + b1)
    z = h @ W2
    m = np.max(z)
    return m + np.log(np.sum(np.exp(z - m))) - np.sum(z * y)


def residual(w, x, y):
    r = np.tanh(x @ w) - y
    return r * r


def test_vmap_jit_of_a_function():
    w, X, Y = np.array([0.5, -0.2]), np.array([[1.0, 2.0], [0.5, -1.0], [0.0, 3.0]]), np.array([0.1, 0.2, -0.3])
    mapped = srcdiff.vmap(residual, in_axes=(None, 0, 0), jit="numba")
    assert_close(mapped(w, X, Y), np.array([residual(w, X[i], Y[i]) for i in range(3)]), rtol=1e-14, atol=1e-15)


@SLOW  # (a cold compile of the batched MLP gradient: a minute)
def test_vmap_jit_of_per_example_gradients():
    rng = np.random.default_rng(3)
    W1, b1, W2 = rng.normal(size=(3, 4)) / 2, rng.normal(size=4), rng.normal(size=(4, 3)) / 2
    X, Y = rng.normal(size=(5, 3)), np.eye(3)[rng.integers(0, 3, 5)]
    per_example = srcdiff.vmap(srcdiff.grad(example_loss), in_axes=(None, None, None, 0, 0), jit="numba")
    found = per_example(W1, b1, W2, X, Y)
    for i in range(5):
        assert_close(found[i], central_difference(example_loss, (W1, b1, W2, X[i], Y[i]), 0), rtol=1e-6, atol=1e-7)
    assert_close(per_example(W1, b1, W2, X, Y), found, rtol=1e-14, atol=1e-14)  # the plan's path
    assert "jit='numba'" in per_example.source


# ---- refusals ------------------------------------------------------------------------------

def recursive(x, n):
    if n == 0:
        return x
    return np.sin(recursive(x, n - 1))  # line numba refuses (a recursive helper's adjoint)


def recursive_loss(x):
    return np.sum(recursive(x, 3) ** 2)


RECURSIVE_LINE = recursive.__code__.co_firstlineno + 3


# (jvp and jacobian of it compile since a tangent's broadcast to the shape () of a number does:
# test_redteam_wave17_findings_more.py, class 7)
@pytest.mark.parametrize("call", ["hessian", "hvp"])
def test_numba_refusals_are_located(call):
    x = np.ones(3)
    with pytest.raises(srcdiff.SrcDiffError) as info:
        if call == "hessian":
            srcdiff.hessian(recursive_loss, jit="numba")(x)
        elif call == "hvp":
            srcdiff.hvp(srcdiff.grad(recursive_loss, jit="numba"), x, x)
        elif call == "jvp":
            srcdiff.jvp(recursive_loss, (x,), (x,), jit="numba")
        else:
            srcdiff.jacobian(lambda_free_recursive, jit="numba")(x)
    assert info.value.location is not None and info.value.location.line == RECURSIVE_LINE, str(info.value)
    assert info.value.location.filename.endswith("test_numba_second_order.py")


def lambda_free_recursive(x):
    return recursive(x, 2) * 2.0


def test_options_that_cannot_be_honoured():
    x = np.ones(3)
    for make in (lambda: srcdiff.hessian(rosenbrock, jit="jax"), lambda: srcdiff.jacobian(layer, jit="jax"),
                 lambda: srcdiff.jvp(rosenbrock, (x,), (x,), jit="jax"), lambda: srcdiff.vjp(rosenbrock, x, jit=1),
                 lambda: srcdiff.vmap(rosenbrock, jit="jax")):
        with pytest.raises(srcdiff.SrcDiffError, match="jit="):
            make()
    with pytest.raises(srcdiff.SrcDiffError, match="first parameter"):  # hvp is with respect to x
        srcdiff.hvp(srcdiff.grad(mlp, wrt=1, jit="numba"), MLP_ARGS[0], MLP_ARGS[0], *MLP_ARGS[1:])
    with pytest.raises(srcdiff.SrcDiffError, match="value_and_grad"):
        srcdiff.hvp(srcdiff.value_and_grad(rosenbrock, jit="numba"), x, x)
    with pytest.raises(srcdiff.SrcDiffError, match="jit='numba'"):  # a tree's rows: not batched, not compiled
        srcdiff.jacobian(lambda_tree, jit="numba")({"x": x})
    with pytest.raises(srcdiff.SrcDiffError, match="jit='numba'"):
        srcdiff.vjp(srcdiff.grad(rosenbrock), x, jit="numba")


def lambda_tree(p):
    return np.sin(p["x"]) * 2.0


def test_jit_left_out_is_unchanged():
    """`jit=None` stays the default: the NumPy code, no numba module."""
    x = SCALAR[0][2][0]
    H = srcdiff.hessian(rosenbrock)
    H(x)
    assert "jit='numba'" not in H.source
    forward = srcdiff.jvp_function(rosenbrock)
    forward((x,), (x,))
    assert "jit='numba'" not in forward.source
