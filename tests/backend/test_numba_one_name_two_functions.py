"""Two callee adjoints reading one free name bound to two functions (each layer's `act`, each
call's `f`) compile with both functions under ``jit="numba"``: numba's module imported the
name once, and the second function silently ran for both."""

import numpy as np
from numeric import central_difference

import srcdiff


class Layer:
    def __init__(self, W, act):
        self.W, self.act = W, act

    def __call__(self, x):
        return self.act(x @ self.W)


def two_layers(layers, x):
    return np.sum(layers["second"](layers["first"](x)) ** 2)


def apply(f, W, x):
    return f(W @ x)


def two_functions(W, x):
    return np.sum(apply(np.tanh, W, x)) + np.sum(apply(np.exp, 0.1 * W, x))


def test_objects_passed_with_different_functions():
    r = np.random.default_rng(0)
    layers = {"first": Layer(r.normal(size=(3, 3)) * 0.5, np.tanh), "second": Layer(r.normal(size=(3, 2)), np.sin)}
    x = r.normal(size=(4, 3))
    got = srcdiff.grad(two_layers, wrt=1, jit="numba")(layers, x)
    np.testing.assert_allclose(got, central_difference(two_layers, (layers, x), 1), rtol=1e-6, atol=1e-8)


def test_one_helper_given_two_functions():
    r = np.random.default_rng(1)
    W, x = r.normal(size=(3, 4)) * 0.5, r.normal(size=4) * 0.5
    got = srcdiff.grad(two_functions, jit="numba")(W, x)
    np.testing.assert_allclose(got, central_difference(two_functions, (W, x), 0), rtol=1e-6, atol=1e-8)
