"""Objects as users write them: properties, class attributes, and methods calling methods.

A method's ``self`` is a tree of its array attributes (frontend/flatten.py).  Reading a
``@property`` runs its getter on that tree; a class attribute is read like a global the
transform depends on (rebinding it builds the code again); ``self.other(...)`` of a
dataclass or namedtuple is flattened like any helper given a tree.
"""

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff


class Model:
    scale = 2.0
    offset = np.array([1.0, -2.0, 0.5])

    def __init__(self, w, b):
        self.w, self.b = w, b

    @property
    def w2(self):
        return self.w * self.w

    def predict(self, x):
        return np.tanh(self.w2 * x + self.b + self.offset)

    def loss(self, x):
        return np.sum(self.predict(x) ** 2) * self.scale


@dataclass
class Affine:
    a: np.ndarray
    c: float

    def apply(self, x):
        return self.a * x + self.c

    def loss(self, x):
        return np.sum(np.sin(self.apply(x)) ** 2)


class Point(namedtuple("Point", "x y")):
    def norm2(self):
        return self.x * self.x + self.y * self.y

    def energy(self, k):
        return k * np.sum(self.norm2())


def model_loss_w(w, b, x):
    return Model(w, b).loss(x)


def test_property_class_attributes_and_method_calls(rng):
    w, b, x = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    model = Model(w, b)
    assert_close(srcdiff.grad(model.loss)(x), central_difference(model.loss, (x,), 0))
    dw, db = srcdiff.grad(model.loss, wrt=("self.w", "self.b"))(x)
    assert_close(dw, central_difference(model_loss_w, (w, b, x), 0))
    assert_close(db, central_difference(model_loss_w, (w, b, x), 1))


def test_rebinding_a_class_attribute_builds_the_code_again(rng, monkeypatch):
    w, b, x = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
    gradient = srcdiff.grad(Model.loss, wrt="self.w")
    model = Model(w, b)
    first = gradient(model, x)
    assert_close(first, central_difference(model_loss_w, (w, b, x), 0))
    monkeypatch.setattr(Model, "scale", 3.0)
    monkeypatch.setattr(Model, "offset", np.zeros(3))
    assert_close(gradient(model, x), central_difference(model_loss_w, (w, b, x), 0))


def test_dataclass_method_calling_another_method(rng):
    affine, x = Affine(rng.normal(size=3), 0.3), rng.normal(size=3)
    assert_close(srcdiff.grad(affine.loss)(x), central_difference(affine.loss, (x,), 0))
    grads = srcdiff.grad(Affine.loss)(affine, x)
    assert isinstance(grads, Affine)

    def by_a(a):
        return Affine(a, affine.c).loss(x)

    def by_c(c):
        return Affine(affine.a, c).loss(x)

    assert_close(grads.a, central_difference(by_a, (affine.a,), 0))
    assert_close(grads.c, central_difference(by_c, (affine.c,), 0))


def test_namedtuple_method_calling_another_method(rng):
    p = Point(rng.normal(size=2), rng.normal(size=2))
    g = srcdiff.grad(Point.energy)(p, 1.5)
    assert isinstance(g, Point)
    assert_close(g.x, 3.0 * p.x)
    assert_close(g.y, 3.0 * p.y)


class Holder:
    label = "name"

    def __init__(self, w):
        self.w = w

    def loss(self, x):
        return np.sum(self.w * x) * len(self.label)


class WithCache:
    table = {"a": 1.0}

    def __init__(self, w):
        self.w = w

    def loss(self, x):
        return np.sum(self.w * x) * self.table


def test_class_attributes_that_are_not_numbers(rng):
    w, x = rng.normal(size=3), rng.normal(size=3)
    assert_close(srcdiff.grad(Holder(w).loss)(x), 4.0 * w)
    with pytest.raises(srcdiff.SrcDiffError, match="class attribute holding a dict") as info:
        srcdiff.grad(WithCache(w).loss)(x)
    assert "test_objects.py:" in str(info.value) and "self.table" in str(info.value)


# ---- values written as NumPy users write them ----

def array_of_values(a, b):
    v = np.array([a, b, a * b], dtype=float)
    return np.sum(v * v)


def array_of_items(x):
    v = np.array([x[0], x[1] * 2.0], dtype=np.float64)
    return np.sum(np.sin(v))


def array_of_ints(a):
    return np.sum(np.array([a, 2.0], dtype=int))


def stack_columns(a, b):
    return np.sum(np.stack([a, b], axis=1) ** 2 * np.arange(6.0).reshape(3, 2))


def scaled_in_place(x):
    s = x[0]
    s *= np.sum(x)
    s += 1.0
    return s * s


def row_in_place(X):
    s = X[0]
    s *= np.sum(X)
    return np.sum(s)


@pytest.mark.parametrize("func, make", [
    (array_of_values, lambda rng: (1.3, 0.7)),
    (array_of_items, lambda rng: (rng.normal(size=3),)),
    (stack_columns, lambda rng: (rng.normal(size=3), rng.normal(size=3))),
    (scaled_in_place, lambda rng: (rng.normal(size=3),)),
], ids=["array-dtype", "array-items-dtype", "stack-axis", "scalar-in-place"])
def test_numpy_idioms(func, make, rng):
    args = make(rng)
    for index in range(len(args)):
        assert_close(srcdiff.grad(func, wrt=index)(*args), central_difference(func, args, index))


def test_idioms_that_stay_refused_say_why(rng):
    with pytest.raises(srcdiff.SrcDiffError, match="truncate the gradient") as info:
        srcdiff.grad(array_of_ints)(0.5)
    assert "test_objects.py:" in str(info.value)
    with pytest.raises(srcdiff.SrcDiffError, match="X shares its memory with s") as info:
        srcdiff.grad(row_in_place)(rng.normal(size=(2, 3)))
    assert "test_objects.py:" in str(info.value) and "s = s * ..." in str(info.value)


# ---- layers as callable objects ----

class Dense:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(x @ self.w)


class Stack:
    def __init__(self, rng):
        self.l1 = Dense(rng.normal(size=(3, 4)))
        self.l2 = Dense(rng.normal(size=(4, 2)))

    def loss(self, x):
        return np.sum(self.l2(self.l1(x)) ** 2)


class Energy:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return np.sum(self.k * x * x)


def test_layers_called_like_functions_are_trees(rng):
    model, x = Stack(rng), rng.normal(size=(5, 3))
    g = srcdiff.grad(model.loss, wrt="self")(x)

    def by_w1(w):
        layered = Stack(rng)
        layered.l1, layered.l2 = Dense(w), model.l2
        return layered.loss(x)

    assert set(g) == {"l1", "l2"} and set(g["l1"]) == {"w"}
    assert_close(g["l1"]["w"], central_difference(by_w1, (model.l1.w,), 0))
    assert_close(srcdiff.grad(model.loss)(x), central_difference(model.loss, (x,), 0))


def test_an_object_with_call_is_differentiated_as_its_call(rng):
    energy, x = Energy(rng.uniform(0.5, 1.5, size=3)), rng.normal(size=3)
    assert_close(srcdiff.grad(energy)(x), 2.0 * energy.k * x)
