"""Second derivatives of functions whose gradient keeps lists in its own stacks: `np.split`'s
parts kept for their shapes, a list a generator or comprehension builds inside a loop.  The
generated gradient, lowered again, reads an item of its list of lists; that item's adjoint is
refused only where it is needed (ad/regions.py), and its append gives it none (ad/appends.py)."""

import pytest

from . import corpus, matrix
from .second9_programs import LISTS_IN_GRADIENT
from .second_battery import assert_second_order, name, programs, sampled

PROGRAMS = programs(LISTS_IN_GRADIENT, "lists_in_gradient", 95)


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


@pytest.mark.parametrize("name_", ["pair_energy_combinations",
                                   pytest.param("lstm_split_gates", marks=pytest.mark.slow)])
def test_the_red_teams_programs(name_):
    from . import redteam_wave5

    f = getattr(redteam_wave5, name_)
    program = next(p for p in corpus.redteam() if p.name == f"redteam:{name_}")
    assert_second_order(f, program.args, numba=False, float32=False)
