"""Second derivatives of functions called with trees: `jacobian(grad(f))`, `vjp(grad(f))`,
`jvp(grad(f))` and `grad(grad(f))` take what `hessian` takes (api/outer.py).  Each program goes
through every transformation (matrix.py) and every second-order one (second_battery.py);
numba's compiles are slow, so the default run keeps one program of them."""

import pytest

from . import matrix
from .second9_programs import TREE_SETTINGS
from .second_battery import assert_second_order, name, programs, sampled

PROGRAMS = programs(TREE_SETTINGS, "settings", 91)


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
