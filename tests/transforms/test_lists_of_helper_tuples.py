"""A list holding tuples a helper returned (``out.append(step(x, a))``, ``[step(x), step(y)]``):
kept as one list per field right after parsing (frontend/tuple_lists.py), so every
transformation differentiates it like lists of arrays (grad used to fail in its generated code,
"float + list").  reach9_programs.py has more spellings through every transformation."""

import numpy as np
import pytest

import srcdiff

from .reach9_programs import tuple_list_unpacked


def _step(x, a):
    return a * x, np.sin(x) * a


def appended_then_stacked(a, x0):
    out = []
    for i in range(3):
        out.append(_step(x0 * i, a))
    return np.sum(np.stack([o[1] for o in out]))


def literal_of_calls(a, x0):
    out = [_step(x0, a), _step(2.0 * x0, a)]
    return np.sum(out[1][0] * out[0][1])


def appended_then_indexed(a, x0):
    out = []
    for i in range(3):
        out.append(_step(x0 * i, a))
    return np.sum(out[1][0] * out[2][1])


PROGRAMS = (tuple_list_unpacked, appended_then_stacked, literal_of_calls, appended_then_indexed)
TRANSFORMS = {
    "grad": lambda f: srcdiff.grad(f),
    "jvp": lambda f: lambda a, x0: srcdiff.jvp(f, (a, x0), (1.0, np.zeros_like(x0))),
    "vjp": lambda f: lambda a, x0: srcdiff.vjp(f, a, x0)[1](1.0),
    "hessian": lambda f: srcdiff.hessian(f),
}


def test_a_helper_tuple_unpacked_at_once_still_works():
    def f(a, x0):
        y, z = _step(x0, a)
        out = [y, z]
        return np.sum(out[0] * out[1])

    a, x0, h = 0.7, np.array([0.3, 0.5]), 1e-6
    reference = (f(a + h, x0) - f(a - h, x0)) / (2 * h)
    assert np.isclose(srcdiff.grad(f)(a, x0), reference, rtol=1e-6)



def _central(f, a, x0, h=1e-6):
    return (f(a + h, x0) - f(a - h, x0)) / (2 * h)


@pytest.mark.parametrize("transform", ["grad", "vjp"])
@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_reverse_mode_agrees_with_central_differences(f, transform):
    a, x0 = 0.7, np.array([0.3, 0.5])
    assert np.isclose(TRANSFORMS[transform](f)(a, x0), _central(f, a, x0), rtol=1e-6)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_second_order_agrees_with_central_differences_of_the_gradient(f):
    a, x0 = 0.7, np.array([0.3, 0.5])
    g = srcdiff.grad(f)
    assert np.isclose(TRANSFORMS["hessian"](f)(a, x0), _central(g, a, x0), rtol=1e-5)


def test_the_list_is_kept_as_one_list_per_field():
    source = srcdiff.grad(appended_then_indexed).source_for(0.7, np.array([0.3, 0.5]))
    assert "out_0.append(" in source and "out_1.append(" in source


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_forward_mode_agrees_with_central_differences(f):
    a, x0, h = 0.7, np.array([0.3, 0.5]), 1e-6
    reference = (f(a + h, x0) - f(a - h, x0)) / (2 * h)
    assert np.isclose(TRANSFORMS["jvp"](f)(a, x0)[1], reference, rtol=1e-6)
