"""Spellings grad used to refuse in the red team's tenth wave (reach10b_programs.py): every
transformation agrees with central differences, numba agrees or refuses at the user's line,
float32 stays float32, and the forms the rewrites do not cover are still refused at their line."""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix
from .reach10b_programs import PROGRAMS, any_condition, multi_dot_quadratic


def programs():
    return corpus.from_table(PROGRAMS, "reach10b", "reach10b_programs", 10)


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


@pytest.mark.parametrize("program", [p for p in programs() if isinstance(p.args[p.wrt], np.ndarray)], ids=_name)
def test_float32_gradients_stay_float32(program):
    args = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype == np.float64 else a for a in program.args]
    got = srcdiff.grad(program.func, wrt=program.wrt)(*args)
    want = srcdiff.grad(program.func, wrt=program.wrt)(*program.args)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3 * max(1.0, float(np.max(np.abs(want)))))
