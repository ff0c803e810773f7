"""Methods, objects, functools.partial and cached helpers, as the function and as callees."""

import functools

import numpy as np
from numeric import assert_close, central_difference

import srcdiff

rng = np.random.default_rng(20261202)


class Model:
    def __init__(self, n):
        self.w = rng.normal(size=n)
        self.b = 0.3
        self.act = np.tanh
        self.n = n

    def predict(self, x):
        return self.act(x @ self.w + self.b)

    def loss(self, x, y):
        return np.mean((self.predict(x) - y) ** 2)

    def scaled(self, x, s):
        return np.sum(self.w * x) * s


def attribute_difference(model, name, f):
    saved = getattr(model, name)

    def g(v):
        setattr(model, name, v)
        try:
            return f()
        finally:
            setattr(model, name, saved)
    return central_difference(g, (saved,), 0)


def data():
    return rng.normal(size=(4, 3)), rng.normal(size=4)


def test_bound_method_gradient_with_respect_to_its_argument():
    model, (X, y) = Model(3), data()
    assert_close(srcdiff.grad(model.loss)(X, y), central_difference(model.loss, (X, y), 0))


def test_wrt_an_attribute_and_the_whole_object():
    model, (X, y) = Model(3), data()
    g = srcdiff.grad(model.loss, wrt="self.w")(X, y)
    assert_close(g, attribute_difference(model, "w", lambda: model.loss(X, y)))
    whole = srcdiff.grad(model.loss, wrt="self")(X, y)
    assert sorted(whole) == ["act", "b", "n", "w"] and whole["n"] is None and whole["act"] is None
    assert_close(whole["b"], attribute_difference(model, "b", lambda: model.loss(X, y)))


def test_changed_attributes_are_never_stale():
    model, (X, y) = Model(3), data()
    gradient = srcdiff.grad(model.loss, wrt="self.w")
    gradient(X, y)
    model.w = model.w * 2.0  # an array: read at every call
    assert_close(gradient(X, y), attribute_difference(model, "w", lambda: model.loss(X, y)))
    model.act = np.sin  # a callable: part of the specialisation
    assert_close(gradient(X, y), attribute_difference(model, "w", lambda: model.loss(X, y)))


def test_unbound_method_takes_the_object_as_a_tree():
    model, (X, y) = Model(3), data()
    g_model, g_x = srcdiff.grad(Model.loss, wrt=(0, 1))(model, X, y)
    assert type(g_model) is dict
    assert_close(g_model["w"], attribute_difference(model, "w", lambda: model.loss(X, y)))
    assert_close(g_x, central_difference(model.loss, (X, y), 0))


def quadratic(x, a, b=1.0):
    return a * x * x + b * x


def test_partial_positional_keyword_and_of_a_method():
    assert_close(srcdiff.grad(functools.partial(quadratic, a=3.0))(2.0), 13.0)
    assert_close(srcdiff.grad(functools.partial(quadratic, 2.0))(3.0), 4.0)  # wrt a
    model, x = Model(3), rng.normal(size=3)
    assert_close(srcdiff.grad(functools.partial(model.scaled, s=2.0))(x), 2.0 * model.w)


PARTIAL = functools.partial(quadratic, a=3.0)


@functools.lru_cache(maxsize=None)
def cached_square(x):
    return x * x


def calls_partial(x):
    return PARTIAL(x) + 1.0


def calls_cached(x):
    return cached_square(x) * 2.0


def calls_a_caller(x):
    return calls_cached(x) + calls_partial(x)


def test_partial_and_lru_cache_as_callees():
    global PARTIAL
    assert_close(srcdiff.grad(calls_partial)(2.0), 13.0)
    assert_close(srcdiff.grad(calls_cached)(2.0), 8.0)
    assert_close(srcdiff.grad(calls_a_caller)(2.0), 21.0)
    PARTIAL = functools.partial(quadratic, a=5.0)  # rebinding the callee is seen
    try:
        assert_close(srcdiff.grad(calls_partial)(2.0), 21.0)
    finally:
        PARTIAL = functools.partial(quadratic, a=3.0)
