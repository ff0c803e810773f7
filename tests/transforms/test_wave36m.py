"""Wave 36m: the grad refusals wave 36b's red team left (test_wave36b.py's REFUSED), each closed for
its class with variants written the way users write them (wave36m_programs.py), through grad,
value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree of arguments, float32, vmap(grad) and
jit="numba", against float64 central differences (matrix.py).

CENSUS
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix
from . import wave36m_programs as w

ALL = (*matrix.FIRST_ORDER, "hessian", *closure_cells.EXTRA, "vmap_grad")

CLASSES = {"classmethod": w.CLASSMETHOD, "logaddexp_scan": w.LOGADDEXP_SCAN, "index_by_value": w.INDEX_BY_VALUE}
ROWS = [(kind, p) for kind, table in CLASSES.items() for p in corpus.from_table(table, "w36m", "wave36m_programs", 36)]
#: the default run keeps one row a class (`-m slow` runs them all)
FIRST = {"w36m:cm_from_params", "w36m:lae_matrix_axis", "w36m:index_list_copy"}
#: jit="numba" refuses at the user's line (numba has no ufunc's accumulate; a class read in generated code)
NUMBA_REFUSED = {"lae_cox", "lae_reversed", "lae_matrix_axis", "lae_large", "index_attribute", "index_tuple_count"}
#: the Hessian refused at the user's line: np.logaddexp.accumulate of an array whose axes lowering does not know
SECOND_REFUSED = {"lae_cox"}


def _ids(v):
    return v if isinstance(v, str) else v.name.partition(":")[2]


@pytest.mark.parametrize("kind,program", [corpus.slow_unless(p.name in FIRST, k, p) for k, p in ROWS], ids=_ids)
def test_first_order(kind, program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("kind,program", ROWS, ids=_ids)
def test_every_transformation(kind, program):
    if _ids(program) in SECOND_REFUSED:
        matrix.assert_refused_at_the_line(program, ("hessian", "hvp"))
        matrix.assert_ok_or_na(program, tuple(t for t in ALL if t not in ("hessian", "hvp")))
        return
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("kind,program", ROWS, ids=_ids)
def test_numba(kind, program):
    matrix.assert_numba_unless_refused(program, NUMBA_REFUSED)


def _central(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(len(x))])


def test_a_class_attribute_rebound_builds_the_gradient_again():
    """``cls.gain`` read by a classmethod is a constant of the code built; rebinding it builds again."""
    x = np.array([0.3, -0.2, 0.5])
    g = srcdiff.grad(w.cm_smooth)
    np.testing.assert_allclose(g(x), _central(w.cm_smooth, x), rtol=1e-6, atol=1e-8)
    old = w.Filter.gain
    try:
        w.Filter.gain = 2.5
        np.testing.assert_allclose(g(x), _central(w.cm_smooth, x), rtol=1e-6, atol=1e-8)
    finally:
        w.Filter.gain = old
