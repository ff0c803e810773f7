"""Wave 35e: jit="numba" closure (wave35e_programs.py).  Every program grad accepts compiles under
jit="numba" and agrees with float64 central differences, in grad and value_and_grad, float64 and float32,
or is refused at the user's line saying what to write instead.

CENSUS_PLACEHOLDER
"""

from __future__ import annotations

import copy
import importlib.util

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix
from . import wave35e_data as data
from . import wave35e_programs as w

pytest.importorskip("numba")


def cell_numba_value_and_grad(ref: matrix.Reference):
    value, got = srcdiff.value_and_grad(ref.p.func, wrt=ref.p.wrt, jit="numba")(*copy.deepcopy(ref.p.args))
    matrix._value(ref, value)
    matrix.first_order(ref, got)


def cell_numba_float32(ref: matrix.Reference):
    """jit="numba" of the program with its float64 arrays made float32 (closure_cells.cell_float32's check)."""
    return closure_cells.cell_float32(ref, jit="numba")


matrix.CELLS.update(numba_value_and_grad=cell_numba_value_and_grad, numba_float32=cell_numba_float32)
NUMBA = ("numba", "numba_value_and_grad", "numba_float32")
FIRST = ("grad", "value_and_grad", "float32")


def _name(p):
    return p.name.partition(":")[2]


def table(rows):
    return corpus.from_table(rows, "w35e", "wave35e_programs", 35)


ACCEPTED = w.MEDIANS + w.DIAGONALS + w.TABLES + w.MODULE_ARRAYS + w.CONVOLUTIONS + w.INDEX_ADDS + w.SEEN
#: jit="numba" may refuse these at the user's line
NUMBA_REFUSED: set = set()
#: the rows the default run keeps (first order), and takes through jit="numba" (NUMBA_KEPT: numba compiles
#: for seconds)
KEPT = {"median_rows", "upper_diagonal", "coupling_double_loop", "counts_of_counts", "data_least_squares"}
NUMBA_KEPT = {"median_rows", "coupling_double_loop", "data_least_squares"}


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in NUMBA_KEPT, p) for p in table(ACCEPTED)],
                         ids=_name)
def test_numba(program):
    """jit="numba" agrees in grad (the default run: one row of each class), value_and_grad and float32 (slow)."""
    if _name(program) in NUMBA_REFUSED:
        matrix.assert_numba_agrees_or_refuses(program)
        return
    matrix.assert_ok_or_na(program, NUMBA if _name(program) not in NUMBA_KEPT else ("numba",))


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in table(ACCEPTED)], ids=_name)
def test_first_order(program):
    matrix.assert_ok_or_na(program, FIRST)


@pytest.mark.slow
@pytest.mark.parametrize("program", table(w.MEDIANS + w.DIAGONALS + w.TABLES + w.MODULE_ARRAYS), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok_or_na(program, ("jvp", "vjp", "hessian", "hvp", "jacobian", "tree"))


@pytest.mark.parametrize("program", table(w.REFUSED + w.GRAD_REFUSED), ids=_name)
def test_refused_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad", "value_and_grad", "numba"))


def test_a_table_read_at_a_computed_key_says_to_loop_over_its_keys():
    with pytest.raises(srcdiff.SrcDiffError, match=r"wave35e_programs\.py:\d+: looping over COUPLING\[i\].*"
                                                   r"(?s:.*)for k in COUPLING: for j in COUPLING\[k\]"):
        srcdiff.grad(w.coupling_computed_key)(np.ones(4))


def _central(f, x):
    return np.array([(f(x + 1e-6 * e) - f(x - 1e-6 * e)) / 2e-6 for e in np.eye(x.size)])


@pytest.mark.parametrize("jit", [None, pytest.param("numba", marks=pytest.mark.slow)])
def test_another_modules_array_changed_between_calls_is_seen(jit):
    """``data.X`` rebound, changed in place, made float32 between calls: each call's gradient is of the array
    as it is then (the NumPy code reads it when run; numba's is given it as a parameter on each call)."""
    g = srcdiff.grad(w.data_least_squares, jit=jit)
    x = np.array([0.3, -0.2, 0.5])
    old = data.X
    try:
        for change in (lambda: None, lambda: setattr(data, "X", old * 2.0), lambda: data.X.__setitem__(0, 3.0),
                       lambda: setattr(data, "X", old.astype(np.float32)), lambda: setattr(data, "X", old[:, :3])):
            change()
            np.testing.assert_allclose(g(x), _central(w.data_least_squares, x), rtol=1e-5, atol=1e-6)
    finally:
        data.X = old


def test_a_table_of_tables_changed_between_calls_is_seen():
    g = srcdiff.grad(w.coupling_double_loop)
    x = np.array([0.3, -0.2, 0.5, 0.9])
    g(x)
    w.COUPLING[1][3] = 0.75
    try:
        np.testing.assert_allclose(g(x), _central(w.coupling_double_loop, x), rtol=1e-5, atol=1e-6)
        w.COUPLING[0][1] = -2.0
        np.testing.assert_allclose(g(x), _central(w.coupling_double_loop, x), rtol=1e-5, atol=1e-6)
    finally:
        del w.COUPLING[1][3]
        w.COUPLING[0][1] = 0.5
    np.testing.assert_allclose(g(x), _central(w.coupling_double_loop, x), rtol=1e-5, atol=1e-6)



def test_another_modules_array_in_the_tools(tmp_path):
    """``data.X`` in the tools that run the program's nodes one by one (trace) and in debug mode (they evaluated
    the read as one name ``data.X``: a NameError), and in an exported module (which imports the module)."""
    x = np.array([0.3, -0.2, 0.5])
    want = srcdiff.grad(w.data_least_squares)(x)
    np.testing.assert_allclose(srcdiff.grad(w.data_least_squares, debug=True)(x), want)
    assert "data_least_squares" in str(srcdiff.trace(w.data_least_squares, x))
    path = srcdiff.export(w.data_least_squares, x, path=tmp_path / "exported.py")
    spec = importlib.util.spec_from_file_location("exported", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    np.testing.assert_allclose(module.data_least_squares_grad(x), want)
