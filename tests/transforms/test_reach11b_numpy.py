"""NumPy calls grad refused, or whose Hessian was NaN, after the red team's tenth wave
(reach11b_programs.py): every transformation (numba included) agrees with central differences,
float32 stays float32, and the forms still refused are refused at their line."""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix
from .reach11b_programs import PROGRAMS

HERE = "test_reach11b_numpy.py"

#: programs numba may refuse at the user's line (short name -> why)
NUMBA_REFUSED = {"nanpercentile_and_nanmedian": "numba's np.nanpercentile takes no axis"}


def programs():
    return corpus.from_table(PROGRAMS, "reach11b", "reach11b_programs", 11)


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_transformation_numba_included(program):
    matrix.assert_numba_included(program, NUMBA_REFUSED)


@pytest.mark.parametrize("program", [p for p in programs() if isinstance(p.args[p.wrt], np.ndarray)], ids=_name)
def test_float32_gradients_stay_float32(program):
    args = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a for a in program.args]
    got = srcdiff.grad(program.func, wrt=program.wrt)(*args)
    want = srcdiff.grad(program.func, wrt=program.wrt)(*program.args)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3 * max(1.0, float(np.nanmax(np.abs(want)))))
