"""Second derivatives of loops that swap arrays written through slices (`u_prev, u = u, u_next`):
the gradient's reversed loop hands one adjoint to the other (`u_bar = u_prev_bar`) and writes into
it by index.  A derivable gradient copies it first (ad/regions.py), which lowering can prove
safe; forward mode over it moves the tangent of one carried value alone (ad/tangent.py)."""

import numpy as np
import pytest

from . import matrix
from .second9_programs import SWAPPED_CARRIES
from .second_battery import assert_second_order, name, programs, sampled

PROGRAMS = programs(SWAPPED_CARRIES, "swapped_carries", 93)


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


def test_the_red_teams_wave_with_fixed_ends():
    from .redteam_wave4 import wave_fixed_ends

    c, u0 = 0.8, np.sin(np.linspace(0.0, np.pi, 7)) * np.linspace(1.0, 0.5, 7)
    assert_second_order(lambda c, u0: wave_fixed_ends(c, u0), (c, u0), numba=False)
    assert_second_order(lambda u0, c: wave_fixed_ends(c, u0), (u0, c), numba=False)
