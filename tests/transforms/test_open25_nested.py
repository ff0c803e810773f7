"""Helpers nested two or more deep in the differentiated function (open25_nested_programs.py).

A ``return`` of a helper defined inside a nested helper was counted as an early ``return`` of the
helper holding it, and the whole function refused ("a `return` inside a loop, `try` or `with`")
though neither has one.  nested_returns.own_returns now stops at a function's own scope; the
innermost helper is inlined at its call like any other.  A helper's own helper is its own: the
caller's meaning of that name comes back after the call.
"""

import inspect

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix
from .open25_nested_programs import PROGRAMS, inner_with_loop_return


def programs():
    return corpus.from_table(PROGRAMS, "open25_nested", "test_open25_nested", 25)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", matrix.with_array_argument(programs()), ids=lambda p: p.name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_numba_compiles_each_program(program):
    matrix.assert_numba_agrees_or_refuses(program)


def test_a_return_in_a_loop_of_the_inner_helper_is_refused_at_its_line():
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(inner_with_loop_return)(np.ones(3))
    lines, first = inspect.getsourcelines(inner_with_loop_return)
    line = first + next(k for k, text in enumerate(lines) if "return v[i]" in text)
    assert str(caught.value).splitlines()[0].endswith(
        f"open25_nested_programs.py:{line}: a `return` inside a loop, `try` or `with` of the nested function h "
        "is not supported")
