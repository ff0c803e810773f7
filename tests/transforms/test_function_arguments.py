"""A helper called with a function as an argument (``rk4_step(rhs, t, y, h)``): every
transformation agrees with central differences, or numba refuses at the user's line."""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix
from .function_argument_programs import PROGRAMS, oscillator_rk4, table_activation, table_by_computed_key


def programs():
    return corpus.from_table(PROGRAMS, "function_arguments", "function_argument_programs", 7)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name.partition(":")[2])
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name.partition(":")[2])
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


def test_the_generated_code_calls_the_bound_helper_by_name():
    source = srcdiff.grad(oscillator_rk4).source_for(1.3, np.array([0.2, -0.1]))
    assert "rk4_step_vjp(t, y, 0.1, w)" in source  # the function argument is bound, not passed


def test_rebinding_the_function_builds_the_gradient_again():
    from . import function_argument_programs as module

    g = srcdiff.grad(module.passed_through, wrt=1)
    y0 = np.array([0.3, -0.2, 0.1])
    before = g(0.7, y0)
    saved = module.decay
    try:
        module.decay = lambda t, y, k: -2.0 * k * y
        after = g(0.7, y0)
        expected = srcdiff.grad(module.passed_through, wrt=1)(0.7, y0)
    finally:
        module.decay = saved
    assert not np.allclose(before, after)
    np.testing.assert_allclose(after, expected)


def test_a_table_item_rebound_builds_the_gradient_again():
    from . import function_argument_programs as module

    g = srcdiff.grad(table_activation)
    W, X = np.full((3, 2), 0.3), np.linspace(-1.0, 1.0, 12).reshape(4, 3)
    before = g(W, X)
    saved = module.ACTIVATIONS["gelu"]
    try:
        module.ACTIVATIONS["gelu"] = np.sin
        after = g(W, X)
        expected = srcdiff.grad(table_activation)(W, X)
    finally:
        module.ACTIVATIONS["gelu"] = saved
    assert not np.allclose(before, after)
    np.testing.assert_allclose(after, expected)


def test_a_key_computed_from_values_is_refused_at_its_line():
    with pytest.raises(srcdiff.SrcDiffError, match="cannot tell which function") as info:
        srcdiff.grad(table_by_computed_key)(np.ones((3, 2)), np.ones((4, 3)))
    assert "function_argument_programs.py" in str(info.value)
