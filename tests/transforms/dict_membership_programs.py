"""Membership tests on a parameter dict (``if key not in params:``), decided when the function is
transformed (a dict tree's keys are static), in the function itself and in module-level helpers given
the key as a constant.  Table rows: (name, function, make_args(rng), wrt)."""

import numpy as np


def _regulariser(params):
    if "b" not in params:
        return 0.0
    return np.sum(params["b"] ** 2)


def early_return_in_a_helper(params, x):
    return np.sum(np.tanh(params["w"] * x)) + _regulariser(params)


def _clamped(params, key, default=0.5):
    if key not in params:
        return default
    return params[key] * 2.0


def key_passed_to_a_helper(params, x):
    return np.sum(x * _clamped(params, "w")) + _clamped(params, "missing") * np.sum(params["w"])


def key_passed_by_keyword(params, x):
    return np.sum(np.sin(x * _clamped(params, key="w", default=1.0)))


def if_else_in_the_function(params, x):
    if "scale" not in params:
        scale = 1.0
    else:
        scale = params["scale"]
    return np.sum((params["w"] * x) ** 2) * scale


def conditional_expression(params, x):
    bias = params["b"] if "b" in params else 0.0
    return np.sum(np.exp(params["w"] * x + bias))


def loop_over_constant_keys(params, x):
    total = 0.0
    for key in ("w", "b", "c"):
        if key in params:
            total = total + np.sum(np.cos(params[key] * x))
    return total


P = lambda r: ({"w": r.normal(size=3) * 0.5}, r.normal(size=3))  # noqa: E731
PB = lambda r: ({"w": r.normal(size=3) * 0.5, "b": r.normal(size=3) * 0.5}, r.normal(size=3))  # noqa: E731
PS = lambda r: ({"w": r.normal(size=3) * 0.5, "scale": 1.5}, r.normal(size=3))  # noqa: E731

PROGRAMS = [
    ("early_return_in_a_helper", early_return_in_a_helper, P, 0),
    ("early_return_in_a_helper_b", early_return_in_a_helper, PB, 0),
    ("early_return_in_a_helper_x", early_return_in_a_helper, PB, 1),
    ("key_passed_to_a_helper", key_passed_to_a_helper, P, 0),
    ("key_passed_to_a_helper_x", key_passed_to_a_helper, P, 1),
    ("key_passed_by_keyword", key_passed_by_keyword, P, 0),
    ("if_else_in_the_function", if_else_in_the_function, P, 0),
    ("if_else_in_the_function_scale", if_else_in_the_function, PS, 0),
    ("conditional_expression", conditional_expression, P, 0),
    ("conditional_expression_b", conditional_expression, PB, 0),
    ("loop_over_constant_keys", loop_over_constant_keys, PB, 0),
]
