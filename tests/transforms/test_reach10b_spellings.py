"""Spellings grad used to refuse in the red team's tenth wave (reach10b_programs.py): every
transformation agrees with central differences, numba agrees or refuses at the user's line,
float32 stays float32, and the forms the rewrites do not cover are still refused at their line."""

import dataclasses

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix
from .reach10b_programs import PROGRAMS, Layer, any_condition, multi_dot_quadratic

HERE = "test_reach10b_spellings.py"


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


@pytest.mark.parametrize("program", matrix.with_array_argument(programs()), ids=_name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


def _code(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if not line.strip().startswith("#"))


def test_a_multi_dot_is_the_chain_of_matmuls_in_the_generated_code():
    args = (np.ones((3, 2)), np.ones((2, 4)), np.ones((4, 3)), np.ones(3))
    code = _code(srcdiff.grad(multi_dot_quadratic).source_for(*args))
    assert "linalg" not in code and "@ C.T @ B.T" in code  # the chain A @ B @ C, by its adjoint


def test_an_any_test_is_a_loop_deciding_the_branch():
    x = np.array([0.5, -11.0, 2.0])
    code = _code(srcdiff.grad(any_condition).source_for(x))
    assert "any(" not in code and "found = False" in code
    np.testing.assert_allclose(srcdiff.grad(any_condition)(x), np.ones(3))  # d/dx sum(x): the taken branch


def map_kept_in_a_name(x):
    squares = map(lambda v: v * v, [x, 2.0 * x])
    return sum(squares) + sum(squares)  # Python: the second sum finds the map empty


def multi_dot_of_a_changed_list(A, B):
    mats = [A, B]
    mats.append(A.T)
    return np.sum(np.linalg.multi_dot(mats))


def replace_of_an_argument(layer, X):
    wide = dataclasses.replace(layer, gain=2.0)
    return np.sum(np.tanh(wide.gain * X @ wide.W) ** 2)


def while_any_after_a_call(x):
    k = 0
    while len(x) > 1 and any(v > 1.0 for v in x):  # len(x) read twice would be a second call
        x = x / 2.0
        k = k + 1
    return np.sum(x)


@pytest.mark.parametrize("func, args, words", [
    (while_any_after_a_call, (np.array([0.5, 3.0]),), "condition"),
    (multi_dot_of_a_changed_list, (np.ones((2, 3)), np.ones((3, 2))), "multi_dot"),
    (map_kept_in_a_name, (0.7,), "iterator read again"),
    (replace_of_an_argument, (Layer(np.ones((3, 2))), np.ones((4, 3))), "dataclasses.replace"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_what_the_rewrites_do_not_cover_is_refused_at_its_line(func, args, words):
    with pytest.raises(srcdiff.SrcDiffError, match=words) as info:
        srcdiff.grad(func)(*args)
    assert HERE in str(info.value)
