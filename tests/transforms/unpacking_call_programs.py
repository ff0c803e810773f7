"""Nested tuple unpacking of a call's result (``v, (gw, gb) = vgt(w, b, x)``) and ``*`` arguments of a
tuple written in the function (``dl(*args)``), of gradient objects and of helpers.  Table rows: (name,
function, make_args(rng), wrt)."""

import numpy as np

import srcdiff


def loss2(w, b, x):
    return np.sum(np.tanh(w * x + b) ** 2)


vg_both = srcdiff.value_and_grad(loss2, wrt=(0, 1))
dloss2 = srcdiff.grad(loss2)


def nested_value_and_grads(w, b, x):
    v, (gw, gb) = vg_both(w, b, x)
    return v + np.sum(gw * gb)


def _moments(w):
    return np.sum(w), (np.sum(w**2), np.sum(w**3))


def nested_helper_result(w, b, x):
    m1, (m2, m3) = _moments(w * x + b)
    return m1 * m2 + np.sin(m3)


def nested_first(w, b, x):
    (s, c), t = (np.sin(w), np.cos(b)), np.tanh(x * w)
    return np.sum(s * c + t)


def star_of_a_gradient(w, b, x):
    args = (w, b, x)
    return np.sum(dloss2(*args) ** 2)


def _triple(w, b, x):
    return np.sum(w * b * x) + np.sum(np.exp(w))


def star_of_a_helper(w, b, x):
    args = (w, b, x)
    return _triple(*args)


def star_of_a_display(w, b, x):
    return np.sum(dloss2(*(w, b, x)) * w) + _triple(*[w, b], x)


def star_read_after_a_rebinding(w, b, x):
    pair = (w, b)  # (a list here: the Hessian of a list display of parameters crashes, a class of its own)
    w = w * 2.0
    return _triple(*pair, x) + np.sum(w)


V = lambda r: (r.normal(size=3) * 0.7, r.normal(size=3) * 0.7, r.normal(size=3))  # noqa: E731

PROGRAMS = [
    ("nested_value_and_grads", nested_value_and_grads, V, 0),
    ("nested_value_and_grads_b", nested_value_and_grads, V, 1),
    ("nested_helper_result", nested_helper_result, V, 0),
    ("nested_first", nested_first, V, 0),
    ("star_of_a_gradient", star_of_a_gradient, V, 0),
    ("star_of_a_gradient_x", star_of_a_gradient, V, 2),
    ("star_of_a_helper", star_of_a_helper, V, 1),
    ("star_of_a_display", star_of_a_display, V, 0),
    ("star_read_after_a_rebinding", star_read_after_a_rebinding, V, 0),
]
