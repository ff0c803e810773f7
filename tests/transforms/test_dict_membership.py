"""``if key not in params:`` of a parameter dict, in the function and in module-level helpers given the key
as a constant: decided when the function is transformed (a dict tree's keys are static), so the side
Python takes is the one differentiated; every transformation agrees with central differences."""

import pytest

from . import corpus, matrix
from . import dict_membership_programs as programs


def table():
    return corpus.from_table(programs.PROGRAMS, "dict_membership", "dict_membership_programs", 5)


#: the rows the default run keeps (the slow set runs every row)
DEFAULT = ("early_return_in_a_helper", "key_passed_to_a_helper", "conditional_expression")


def rows():
    return [p if p.name.endswith(DEFAULT) else pytest.param(p, marks=pytest.mark.slow) for p in table()]


@pytest.mark.parametrize("program", rows(), ids=lambda p: p.name.partition(":")[2])
def test_every_transformation_of_a_membership_test(program):
    matrix.assert_ok(program, ("grad", "value_and_grad", "hessian", "jvp", "vjp", "tree"))


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", table()[:4], ids=lambda p: p.name.partition(":")[2])
def test_numba_agrees_on_a_membership_test(program):
    cell = matrix.run(program, ("numba",)).cells["numba"]
    assert cell.outcome == matrix.OK, cell.message
