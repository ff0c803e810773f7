"""Indices that are tuples at run time (index_tuple_programs.py): every transformation agrees with
central differences, numba included or refused at the user's line.  ``x[idx]`` of a tuple held in
a name once read NumPy's array of the tuple (a different function, silently)."""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from .index_tuple_programs import PROGRAMS, pairs_read

#: what jit="numba" refuses at the user's line, and why
NUMBA_REFUSED = {
    "pairs_added_at": "numba's np.add.at takes one index array",
    "row_and_columns": "numba has no add_at through a slice and a number",
}


def _programs():
    return corpus.from_table(PROGRAMS, "index_tuples", "index_tuple_programs", 15)


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", _programs(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok(program, ("grad", "value_and_grad", "vjp", "jvp", "tree"))


@pytest.mark.parametrize("program", _programs(), ids=_name)
def test_every_second_order_transformation(program):  # a sampled family (tests/sampling.py)
    matrix.assert_ok(program, ("grad", "hessian", "check"))


@pytest.mark.parametrize("program", _programs(), ids=_name)
def test_numba_included(program):  # one in NUMBA_SAMPLE by default
    matrix.assert_numba_included(program, NUMBA_REFUSED)


def test_a_tuple_index_held_in_a_name_reads_one_axis_per_item():
    A = np.arange(9.0).reshape(3, 3) / 10.0
    value, got = srcdiff.value_and_grad(pairs_read)(A)
    assert value == pairs_read(A)
    np.testing.assert_allclose(got, central_difference(pairs_read, (A,), 0), rtol=1e-6, atol=1e-9)
    assert np.count_nonzero(got) == 2  # A[0, 2] and A[1, 0] only
