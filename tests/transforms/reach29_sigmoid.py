"""Sigmoids written out (test_reach29_sigmoid.py): every spelling lower/logistic_forms.py reads as
srcdiff's logistic function, with the derivatives written by hand (`D1`, `D2`: first and second, per
element, of ``np.sum(f(z))``'s terms) for points at and past saturation."""

from __future__ import annotations

import numpy as np


def _s(z, a=1.0):
    with np.errstate(over="ignore"):
        return 1.0 / (1.0 + np.exp(-a * z))


def plain(z):
    return np.sum(1.0 / (1.0 + np.exp(-z)))


def integer_ones(z):
    return np.sum(1 / (1 + np.exp(-z)))


def exp_over_one_plus(z):
    return np.sum(np.exp(z) / (1.0 + np.exp(z)))


def one_added_last(z):
    return np.sum(1.0 / (np.exp(-z) + 1.0))


def scaled(z):
    return np.sum(1.0 / (1.0 + np.exp(-2.5 * z)))


def negative_exponent_written(z):
    u = -z
    return np.sum(1.0 / (1.0 + np.exp(u)))


def named_parts(z):
    e = np.exp(-z)
    d = 1.0 + e
    s = 1.0 / d
    return np.sum(s)


def named_exponential(z):
    e = np.exp(z)
    return np.sum(e / (e + 1.0))


def squared(z):
    s = 1.0 / (1.0 + np.exp(-z))
    return np.sum(s * s)


def helper_sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def through_a_helper(z):
    return np.sum(helper_sigmoid(z) * 2.0)


def per_element_loop(z):
    t = 0.0
    for k in range(len(z)):
        t = t + 1.0 / (1.0 + np.exp(-z[k]))
    return t


def one_minus(z):
    return np.sum(1.0 - 1.0 / (1.0 + np.exp(-z)))


#: (name, f, first derivative per element, second derivative per element)
VARIANTS = [
    ("plain", plain, lambda z: _s(z) * (1 - _s(z)), lambda z: _s(z) * (1 - _s(z)) * (1 - 2 * _s(z))),
    ("integer_ones", integer_ones, lambda z: _s(z) * (1 - _s(z)), lambda z: _s(z) * (1 - _s(z)) * (1 - 2 * _s(z))),
    ("exp_over_one_plus", exp_over_one_plus, lambda z: _s(z) * (1 - _s(z)),
     lambda z: _s(z) * (1 - _s(z)) * (1 - 2 * _s(z))),
    ("one_added_last", one_added_last, lambda z: _s(z) * (1 - _s(z)),
     lambda z: _s(z) * (1 - _s(z)) * (1 - 2 * _s(z))),
    ("scaled", scaled, lambda z: 2.5 * _s(z, 2.5) * (1 - _s(z, 2.5)),
     lambda z: 6.25 * _s(z, 2.5) * (1 - _s(z, 2.5)) * (1 - 2 * _s(z, 2.5))),
    ("negative_exponent_written", negative_exponent_written, lambda z: _s(z) * (1 - _s(z)),
     lambda z: _s(z) * (1 - _s(z)) * (1 - 2 * _s(z))),
    ("named_parts", named_parts, lambda z: _s(z) * (1 - _s(z)), lambda z: _s(z) * (1 - _s(z)) * (1 - 2 * _s(z))),
    ("named_exponential", named_exponential, lambda z: _s(z) * (1 - _s(z)),
     lambda z: _s(z) * (1 - _s(z)) * (1 - 2 * _s(z))),
    ("squared", squared, lambda z: 2 * _s(z) ** 2 * (1 - _s(z)),
     lambda z: 2 * _s(z) ** 2 * (1 - _s(z)) * (2 - 3 * _s(z))),
    ("through_a_helper", through_a_helper, lambda z: 2 * _s(z) * (1 - _s(z)),
     lambda z: 2 * _s(z) * (1 - _s(z)) * (1 - 2 * _s(z))),
    ("per_element_loop", per_element_loop, lambda z: _s(z) * (1 - _s(z)),
     lambda z: _s(z) * (1 - _s(z)) * (1 - 2 * _s(z))),
    ("one_minus", one_minus, lambda z: -_s(z) * (1 - _s(z)), lambda z: -_s(z) * (1 - _s(z)) * (1 - 2 * _s(z))),
]

#: saturated and ordinary points (float64: exp overflows past 709; -inf and inf themselves)
POINTS = np.array([-np.inf, -800.0, -30.0, 0.3, 2.0, 800.0, np.inf])
