"""Wave 33a: module-level data read by attribute or from arguments (wave33a_programs.py).

CENSUS

Found and fixed:

OPEN
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix
from . import wave33a_programs as w
from .test_wave31m import changed_cell

ALL = (*matrix.EVERY, *closure_cells.EXTRA)
#: the rows the default run keeps (`-m slow` runs them all)
KEPT = {"nt_rate_times_x", "ns_taps_tuple", "cls_coefs_loop", "nested_attribute"}
#: refused by grad at the user's line, and so by every transformation (the docstring's open items)
REFUSED: set = set()
#: jit="numba" refuses these at the user's line
NUMBA_REFUSED: set = set()
#: the changes the default run makes (one transformation each: QUICK)
CHANGES_KEPT = {"nt_rate_times_x", "ns_list_field_loop", "cls_list_numbers", "nested_attribute"}
QUICK = ("grad",)
TRANSFORMS = ("grad", "value_and_grad", "hessian", "hvp", "jvp", "vjp", "jacobian", "numba", "float32")


def programs():
    return corpus.from_table(w.PROGRAMS, "w33a", "wave33a_programs", 33)


def _name(p):
    return p.name.partition(":")[2]


def accepted():
    return [p for p in programs() if _name(p) not in REFUSED]


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in accepted()], ids=_name)
def test_every_transformation(program):
    """grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree, float32 and check."""
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", accepted(), ids=_name)
def test_numba(program):
    matrix.assert_numba_unless_refused(program, NUMBA_REFUSED)


@pytest.mark.parametrize("program", [corpus.slow_unless(False, p) for p in programs() if _name(p) in REFUSED],
                         ids=_name)
def test_what_grad_refuses_every_transformation_refuses_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad", "value_and_grad", "jvp", "vjp", "tree", "jacobian", "hvp"))


def _changes():
    found = {_name(p): p for p in programs()}
    return [(found[name], change) for name, change in w.CHANGES]


@pytest.mark.parametrize("pair", [corpus.slow_unless(False, pair) for pair in _changes()],
                         ids=lambda pair: _name(pair[0]))
def test_changed_after_a_first_call_every_transformation(pair):
    """What a row read when its gradient was built (an attribute rebound, a frozen dataclass's field set, a
    class attribute's list changed in place, the module name rebound) changed after a first call: the new
    derivative, against central differences of the function as it is now, or a refusal at the line."""
    for name in TRANSFORMS:
        cell = changed_cell(*pair, name)
        assert cell.outcome in (matrix.OK, matrix.NA) or cell.outcome == matrix.REFUSED and cell.located, \
            (name, cell.outcome, cell.message)


@pytest.mark.parametrize("pair", [pair for pair in _changes() if _name(pair[0]) in CHANGES_KEPT],
                         ids=lambda pair: _name(pair[0]))
def test_changed_after_a_first_call(pair):
    """The same through grad (the default run)."""
    for name in QUICK:
        cell = changed_cell(*pair, name)
        assert cell.outcome == matrix.OK, (name, cell.outcome, cell.message)


def test_a_namespace_changed_and_put_back_follows_each_call():
    """``HP.l2`` set, then put back: each call's gradient is of the namespace as it is at that call."""
    x = np.array([0.3, -0.4, 0.6])
    g = srcdiff.grad(w.ns_hyper)
    first = g(x)
    w.HP.l2 = 1.0
    try:
        second = g(x)
    finally:
        w.HP.l2 = 0.05
    np.testing.assert_array_equal(g(x), first)
    assert not np.allclose(first, second)
