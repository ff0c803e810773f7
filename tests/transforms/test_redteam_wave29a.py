"""The red team's wave 29a: CENSUS_COUNT programs (redteam_wave29a_*.py) written the way scientists and
engineers write them.

CENSUS_TEXT
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import closure_cells, corpus, matrix
from . import redteam_wave29a_loops as lp
from . import redteam_wave29a_numba_calls as nc
from . import redteam_wave29a_programs as w
from .test_redteam_wave27a import cell_vmap_grad

matrix.CELLS["vmap_grad"] = cell_vmap_grad
ALL = (*matrix.EVERY, *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w29a", "redteam_wave29a_programs", 29)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps (one of each kind of program; the findings' own tests are below)
KEPT = {"rb_ik_loss", "vi_bilinear_wrt_coords", "ct_pid_loop", "ec_sir_euler", "ma_spring_network_indices",
        "fi_gp_lml_cholesky"}
#: refused by grad at the user's line, and so by every transformation
REFUSED: set = set()
#: jit="numba" refuses these at the user's line
NUMBA_REFUSED = {"ct_lqr_rollout_states", "ct_tracking_with_feedforward"}


def accepted():
    return [p for p in programs() if _name(p) not in REFUSED]


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in accepted()], ids=_name)
def test_first_order(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("program", accepted(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", accepted(), ids=_name)
def test_numba(program):
    if _name(program) in NUMBA_REFUSED:
        matrix.assert_numba_agrees_or_refuses(program)
    else:
        matrix.assert_ok(program, ("numba",))


@pytest.mark.parametrize("program", [p for p in programs() if _name(p) in REFUSED], ids=_name)
def test_what_grad_refuses_every_transformation_refuses_at_the_line(program):
    row = matrix.run(program, ("grad", "value_and_grad", "jvp", "vjp", "tree", "jacobian"))
    assert not row.excluded, row.excluded
    for name, cell in row.cells.items():
        assert cell.outcome == matrix.REFUSED and cell.located, (name, cell.message)


def _numba_agrees(f, x):
    want = central_difference(f, (x,), 0)
    np.testing.assert_allclose(srcdiff.grad(f, jit="numba")(x), want, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(srcdiff.grad(f)(x), want, rtol=1e-5, atol=1e-7)


# ---- 1. a helper's default that is not a literal, under jit="numba" ----


@pytest.mark.parametrize("f", [corpus.slow_unless(i == 0, f) for i, f in enumerate(nc.DEFAULTS)],
                         ids=lambda f: f.__name__)
def test_numba_a_default_that_is_not_a_literal(f):
    """The call passes the default the helper's def made (it raised numba's "missing a required
    argument" at the user's line before)."""
    _numba_agrees(f, np.array([0.4, 0.6, -0.3]))


@pytest.mark.slow  # (numba compiles for seconds a program)
def test_numba_a_default_array_changed_in_place_is_seen():
    """The default is read when the gradient is called, as a global is: changed in place, the
    next call sees it, as Python's gradient does."""
    x = np.array([0.4, 0.6, -0.3])
    g = srcdiff.grad(nc.default_array, jit="numba")
    before = g(x)
    nc.WEIGHTS[0] = 2.0
    try:
        after = g(x)
        np.testing.assert_allclose(after, central_difference(nc.default_array, (x,), 0), rtol=1e-5, atol=1e-7)
    finally:
        nc.WEIGHTS[0] = 1.0
    assert not np.allclose(before, after)


# ---- 2. carried lists of numbers read by a loop's counter, under jit="numba" ----


@pytest.mark.parametrize("f", [corpus.slow_unless(i == 0, f) for i, f in enumerate(nc.TABLES + nc.COUNTERS)],
                         ids=lambda f: f.__name__)
def test_numba_numbers_read_by_a_counter(f):
    """``DH[i]`` of a table of tuples of numbers, ``(-0.2, 0.0, 0.2)[i]`` of a loop over a tuple,
    ``x[j]`` of a vector: numbers, so a list display of them carried through the loop is a list of
    numbers, not refused as one srcdiff cannot tell."""
    _numba_agrees(f, np.array([0.4, 0.6, 3.0]))


# ---- 3. a loop over range of constants whose body reads a tree at fixed entries ----


def _loops(table):
    return corpus.from_table(table, "w29a", "redteam_wave29a_loops", 29)


@pytest.mark.parametrize("program", [corpus.slow_unless(i == 0, p) for i, p in enumerate(_loops(lp.KEPT_LOOPS))],
                         ids=_name)
def test_a_loop_reading_a_tree_at_fixed_entries_stays_a_loop(program):
    """The gradient's code holds the loop (it held one copy of the body per step: 60 steps of a
    PID loop reading its gains from a dict took minutes to build), and agrees."""
    gradient = srcdiff.grad(program.func, wrt=program.wrt)
    gradient(*program.args)
    source = gradient.source
    assert "for " in source and len(source.splitlines()) < 200, len(source.splitlines())
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("program", _loops(lp.KEPT_LOOPS), ids=_name)
def test_a_loop_reading_a_tree_at_fixed_entries_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.parametrize("program", [corpus.slow_unless(i == 0, p) for i, p in enumerate(_loops(lp.UNROLLED))],
                         ids=_name)
def test_a_loop_whose_counter_picks_the_entry_is_unrolled_as_before(program):
    """``layers[i]``, ``p[f"w{i}"]``, a helper given the tree and the counter, a dict changed in the
    loop: unrolled, as before, and right."""
    matrix.assert_ok(program, matrix.FIRST_ORDER)


# ---- 4. dict(zip(keys, values)) of keys written as strings ----


@pytest.mark.parametrize("program", [corpus.slow_unless(i == 0, p) for i, p in enumerate(_loops(lp.ZIPS))], ids=_name)
def test_a_dict_zipped_from_keys_and_values(program):
    """Read as the display ``{"a": values[0], ...}`` (it was refused at the first read of an entry:
    "index 'alpha' is not an integer")."""
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("program", _loops(lp.ZIPS), ids=_name)
def test_a_dict_zipped_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)


def test_a_dict_zipped_from_a_helpers_result_is_refused_at_the_line():
    """Values a function of the user's computes are not read twice: refused at the user's line."""
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(lp.zipped_from_a_helper)(np.array([1.0, 2.0]))
    assert "redteam_wave29a_loops.py" in str(caught.value)


# ---- 5. a history list grown while read in a helper that returns it ----


@pytest.mark.parametrize("program", [corpus.slow_unless(i == 0, p) for i, p in enumerate(_loops(lp.HISTORIES))],
                         ids=_name)
def test_a_history_a_helper_returns(program):
    """``pts.append(pts[-1] + ...)`` in a helper's loop, the list returned (alone or in a tuple): a
    new list each iteration, as in the function differentiated itself (it was refused: "the list
    pts is both appended to and read in this loop")."""
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("program", _loops(lp.HISTORIES), ids=_name)
def test_a_history_a_helper_returns_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)


def test_a_history_with_a_second_name_is_still_refused_at_the_line():
    """``first = pts`` before the loop: a new list would leave `first` behind; refused as before."""
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.grad(lp.history_with_a_second_name)(np.array([1.0, 2.0]))
    assert "redteam_wave29a_loops.py" in str(caught.value) and "appended to and read" in str(caught.value)
