"""Second derivatives of a function with an early `return` inside a loop: the gradient's code
joins a fresh array with its functional update after the loop (`k_bar = index_add(k_bar, ...)` on
one side of the branch that says whether the loop returned), and the loop's backward sweep
writes into the join by index (lower/writes.py: a merge of fresh arrays is a fresh array)."""

import pytest

from . import matrix
from .second9_programs import EARLY_RETURNS
from .second_battery import assert_second_order, name, programs, sampled

PROGRAMS = programs(EARLY_RETURNS, "early_returns", 92)


@pytest.mark.parametrize("program", PROGRAMS, ids=name)
def test_every_second_order_transformation(program):
    assert_second_order(program.func, program.args, numba=False)


@pytest.mark.parametrize("program", sampled(PROGRAMS), ids=name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", sampled(PROGRAMS), ids=name)
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)
    assert_second_order(program.func, program.args, numba=True)
