"""The red team's wave 32h: CENSUS_PLACEHOLDER
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix
from . import wave32h_findings as fd
from . import wave32h_programs as w
from .test_redteam_wave27a import cell_vmap_grad

matrix.CELLS["vmap_grad"] = cell_vmap_grad
ALL = (*matrix.EVERY, *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w32h", "wave32h_programs", 32)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps (cheap ones; the findings' rows hold the fixed classes; `-m slow` runs them all)
KEPT = {"que_mm1_raise"}
#: refused by grad at the user's line, and so by every transformation
REFUSED = {"nlp_ctc_logspace", "aud_adsr_piecewise", "idi_lambda_basis"}
#: jit="numba" refuses these at the user's line
NUMBA_REFUSED = {"opt_abcd_zip"}


def accepted():
    return [p for p in programs() if _name(p) not in REFUSED]


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in accepted()], ids=_name)
def test_first_order(program):
    matrix.assert_ok_or_na(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("program", accepted(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", accepted(), ids=_name)
def test_numba(program):
    matrix.assert_numba_unless_refused(program, NUMBA_REFUSED)


@pytest.mark.parametrize("program", [corpus.slow_unless(i == 0, p) for i, p in
                                     enumerate(p for p in programs() if _name(p) in REFUSED)], ids=_name)
def test_what_grad_refuses_every_transformation_refuses_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad", "value_and_grad", "jvp", "vjp", "tree", "jacobian", "hvp"))


# ---- the findings' variants ----

FINDINGS = {"narrow": fd.NARROW_FILLS, "zips": fd.STATIC_ZIPS}
ROWS = [(kind, p) for kind, table in FINDINGS.items()
        for p in corpus.from_table(table, "w32h", "wave32h_findings", 32)]
#: the default run keeps the first of each class
FIRST = {next(p.name for k, p in ROWS if k == kind) for kind in FINDINGS}


@pytest.mark.parametrize("kind,program", [corpus.slow_unless(p.name in FIRST, k, p) for k, p in ROWS],
                         ids=lambda v: v if isinstance(v, str) else _name(v))
def test_a_finding_first_order(kind, program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("kind,program", ROWS, ids=lambda v: v if isinstance(v, str) else _name(v))
def test_a_finding_every_transformation(kind, program):
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("kind,program", ROWS, ids=lambda v: v if isinstance(v, str) else _name(v))
def test_a_finding_numba(kind, program):
    matrix.assert_ok(program, ("numba",))


def test_a_zip_of_fewer_items_than_the_functions_raises():
    """Python's zip stops at the shorter; srcdiff unrolls over the functions: a ValueError, not a wrong value."""
    short = np.array([0.3, -0.2])
    for transform in (srcdiff.grad, srcdiff.value_and_grad):
        with pytest.raises(ValueError, match="zip: srcdiff unrolls this loop over 4 items; c holds fewer"):
            transform(fd.zip_defs_loop)(short)


def test_rebinding_a_zipped_name_in_the_loop_is_refused_at_the_line():
    def rebinds(c):
        total = 0.0
        for ci, f in zip(c, fd.ACTS):
            c = c * 2.0
            total = total + f(ci)
        return total

    with pytest.raises(srcdiff.SrcDiffError, match="rebinding c in it is not supported") as caught:
        srcdiff.grad(rebinds)(np.array([0.1, 0.2]))
    assert "test_wave32h.py" in str(caught.value)
