"""Dict comprehensions over keys known when the gradient is built (dict_comprehension_programs.py):
every transformation agrees with central differences, numba included; over items known only when
the function runs they are refused at the user's line, with a hint saying what works."""

import pytest

import srcdiff

from . import corpus, matrix
from . import redteam_wave15_everyday as wave15
from .dict_comprehension_programs import PROGRAMS, REFUSED

#: what jit="numba" refuses at the user's line, and why
NUMBA_REFUSED = {"weights_picked_by_name": "numba has no list of arrays of different numbers of axes"}


def _programs(rows):
    return corpus.from_table(rows, "dictcomp", "dict_comprehension_programs", 15)


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", _programs(PROGRAMS), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok(program, ("grad", "value_and_grad", "vjp", "jvp", "tree"))


@pytest.mark.parametrize("program", _programs(PROGRAMS), ids=_name)
def test_every_second_order_transformation(program):  # a sampled family (tests/sampling.py)
    matrix.assert_ok(program, ("grad", "hessian", "check"))


@pytest.mark.parametrize("program", _programs(PROGRAMS), ids=_name)
def test_numba_included(program):  # one in NUMBA_SAMPLE by default
    matrix.assert_numba_included(program, NUMBA_REFUSED)


@pytest.mark.parametrize("program", _programs(REFUSED), ids=_name)
def test_items_known_only_at_run_time_are_refused_at_the_line(program):
    with pytest.raises(srcdiff.SrcDiffError, match=r"dict_comprehension_programs\.py:\d+: dict comprehensions over "
                                                    r"items known only when the function runs") as caught:
        srcdiff.grad(program.func)(*program.args)
    assert "a tuple of names" in str(caught.value)


@pytest.mark.parametrize("program", [p for p in corpus.from_table(wave15.IDIOMS15, "w15", "redteam_wave15_everyday", 15)
                                     if p.name.endswith("w15_dict_layers_by_name")], ids=_name)
def test_a_loop_over_module_level_names_reads_a_tree_by_name(program):
    """The red team's wave 15: ``for name in LAYERS: h = h @ params[name]``, LAYERS a module-level tuple."""
    matrix.assert_ok(program, ("grad", "value_and_grad", "vjp", "jvp", "hessian", "tree"))
