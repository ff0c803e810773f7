"""Objects built inside the function from its values (``Dense(W, b)(X)``, ``Ridge(w).loss(X, y)``):
every transformation agrees with central differences; an ``__init__`` that does more than
store values is refused at the line that builds the object."""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from .built_object_programs import (
    PROGRAMS,
    builds_a_checked_object,
    builds_in_a_branch_header,
    builds_in_a_loop_header,
    stacked_layers,
)


def programs():
    return corpus.from_table(PROGRAMS, "built_objects", "built_object_programs", 3)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name.partition(":")[2])
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name.partition(":")[2])
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


def test_the_object_s_attributes_are_assigned_before_the_line():
    source = srcdiff.grad(stacked_layers).source_for(np.eye(3), np.ones(3), np.ones((4, 3)))
    assert "affine_b_2 = 0.5 * b" in source  # the second Affine's b, computed before the line
    assert "np.cos(" in source and "1.0 - " in source  # the adjoints of the two objects' np.sin and np.tanh


def test_an_object_built_in_an_if_test_is_made_before_the_branch():  # (refused before reach15)
    for w in (np.array([0.5, 0.25, -0.4]), np.array([-0.5, -0.25, 0.4])):
        np.testing.assert_allclose(srcdiff.grad(builds_in_a_branch_header)(w),
                                   central_difference(builds_in_a_branch_header, (w,), 0), rtol=1e-6)


@pytest.mark.parametrize("func, words", [
    (builds_a_checked_object, "does more than store them"),
    (builds_in_a_loop_header, "header of a branch or loop"),
])
def test_refused_at_the_line_that_builds_it(func, words):
    with pytest.raises(srcdiff.SrcDiffError, match=words) as info:
        srcdiff.grad(func)(np.ones(3))
    assert "built_object_programs.py" in str(info.value)
