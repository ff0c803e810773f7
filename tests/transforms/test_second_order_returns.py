"""Second derivatives of a function with an early `return` inside a loop: the gradient's code
joins a fresh array with its functional update after the loop (`k_bar = index_add(k_bar, ...)` on
one side of the branch that says whether the loop returned), and the loop's backward sweep
writes into the join by index (lower/writes.py: a merge of fresh arrays is a fresh array)."""

import numpy as np
import pytest

import srcdiff

from . import matrix
from .second9_programs import EARLY_RETURNS, EITHER, aliased_either
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


EITHER_PROGRAMS = programs(EITHER, "either", 94)


@pytest.mark.parametrize("program", EITHER_PROGRAMS, ids=name)
def test_a_write_into_an_array_either_branch_made(program):
    matrix.assert_every_transformation(program)
    assert_second_order(program.func, program.args, numba=False, float32=False)


def test_a_write_into_an_array_another_name_may_hold_is_refused():
    with pytest.raises(srcdiff.SrcDiffError, match="shares its memory") as info:
        srcdiff.grad(aliased_either)(np.array([0.5, 2.0, 1.0]))
    assert info.value.location is not None and info.value.location.filename.endswith("second9_programs.py")
