"""Arrays made from computed shapes (made_shapes_programs.py): every transformation, numba
included, agrees with central differences; float32 stays float32; and the shape srcdiff infers
for each spelling has the number of axes NumPy gives."""

import ast

import numpy as np
import pytest

from srcdiff.ir import shapes
from srcdiff.ir.shape_inference import made_shape

from . import corpus, matrix
from .made_shapes_programs import PROGRAMS


def programs():
    return corpus.from_table(PROGRAMS, "made_shapes", "made_shapes_programs", 14)


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER + ("hessian",))


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_included(program):
    matrix.assert_numba_included(program)


@pytest.mark.parametrize("program", matrix.with_array_argument(programs()), ids=_name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


N = shapes.SCALAR  # a number the code computes (n = x.shape[0])


@pytest.mark.parametrize("call, operands, value", [
    ("np.zeros(n)", [N], np.zeros(3)),
    ("np.zeros(n, np.float32)", [N], np.zeros(3, np.float32)),
    ("np.ones(n, dtype=float)", [N], np.ones(3)),
    ("np.zeros((n,))", [N], np.zeros((3,))),
    ("np.zeros((n, n))", [N, N], np.zeros((3, 3))),
    ("np.empty((n, m))", [N, N], np.empty((3, 2))),
    ("np.zeros([n, 1])", [N], np.zeros([3, 1])),
    ("np.zeros((2, n))", [N], np.zeros((2, 3))),
    ("np.full((n, n, 2), 0.5)", [N, N], np.full((3, 3, 2), 0.5)),
    ("np.zeros((2, 3))", [], np.zeros((2, 3))),
])
def test_the_number_of_axes_of_an_array_made_from_a_shape(call, operands, value):
    got = made_shape("numpy." + call.split("(")[0].split(".")[1], ast.parse(call, mode="eval").body, operands)
    assert got is not None and got.ndim == value.ndim


def test_a_shape_held_in_a_name_is_not_guessed():
    got = made_shape("numpy.zeros", ast.parse("np.zeros(s)", mode="eval").body, [shapes.UNKNOWN])
    assert got is None  # s may be a tuple of any length
