"""Gated recurrent cells and softmax max shifts (cells_programs.py): every transformation agrees
with central differences; a max shift the output does not depend on is held constant (no tie
mask in the gradient), its second derivatives still right; one it does depend on is not."""

import re

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff

from . import corpus, matrix
from .cells_programs import (
    PROGRAMS,
    log_softmax_xent,
    logsumexp_shift,
    multihead_attention,
)


def programs():
    return corpus.from_table(PROGRAMS, "cells", "cells_programs", 19)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name.partition(":")[2])
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name.partition(":")[2])
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name.partition(":")[2])
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


def _program(name):
    return next(p for p in programs() if p.name == f"cells:{name}")


@pytest.mark.parametrize("name", ["log_softmax_xent", "logsumexp_shift", "multihead_attention",
                                  "column_softmax_scores"])
def test_a_max_shift_that_cancels_has_no_tie_mask(name):
    p = _program(name)
    source = srcdiff.grad(p.func, wrt=p.wrt).source_for(*p.args)
    assert "==" not in source and "_shared" not in source, source


def test_a_max_shift_that_does_not_cancel_keeps_its_gradient():
    p = _program("softmax_shift_kept")
    source = srcdiff.grad(p.func, wrt=p.wrt).source_for(*p.args)
    assert "==" in source  # the tie mask of the max's adjoint
    assert_close(srcdiff.grad(p.func)(*p.args), central_difference(p.func, p.args, 0))


@pytest.mark.parametrize("func, name", [(log_softmax_xent, "log_softmax_xent"), (logsumexp_shift, "logsumexp_shift"),
                                        (multihead_attention, "multihead_attention")])
def test_second_derivatives_through_a_held_shift(func, name):
    p = _program(name)
    grad = srcdiff.grad(func, wrt=0)
    H = srcdiff.hessian(func, wrt=0)(*p.args)
    size = p.args[0].size
    numeric = np.stack([np.ravel(row) for row in _jacobian_rows(grad, p.args, size)])
    assert_close(np.reshape(H, (size, size)), numeric, rtol=1e-5, atol=1e-7)


def _jacobian_rows(grad, args, size):
    """Central differences of the (already checked) gradient, one input element at a time."""
    for k in range(size):
        def along(s, k=k):
            x = args[0].copy()
            x.flat[k] += s
            return grad(x, *args[1:])
        yield (along(1e-5) - along(-1e-5)) / 2e-5


def test_a_tie_of_the_held_max_changes_nothing():
    """Rows whose largest entries tie: the held max's gradient is that of the softmax alone."""
    W = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    X = np.array([[1.0, 0.0], [2.0, 2.0]])
    Y = np.eye(3)[[0, 2]]
    assert_close(srcdiff.grad(log_softmax_xent)(W, X, Y), central_difference(log_softmax_xent, (W, X, Y), 0))


def test_the_loop_cells_know_their_shapes():
    """np.split's parts and arrays made from lengths read from shapes keep their shapes in the loop:
    no run-time unbroadcast of the state's adjoints, no filled array added to them."""
    p = _program("peephole_split")
    source = srcdiff.grad(p.func, wrt=p.wrt).source_for(*p.args)
    assert "np.full(" not in source and "zeros_like(" not in source
    assert not re.search(r"unbroadcast\(.*, (c|h|c_1|h_1)\)", source), source  # summed back to the state


def test_a_broadcast_product_of_whole_slices_is_a_matmul_both_ways():
    """``Q[:, None, :]`` keeps Q's axes: the scores' sum and its adjoint are contractions (no
    n x m x d product, no run-time unbroadcast)."""
    p = _program("column_softmax_scores")
    source = srcdiff.grad(p.func, wrt=p.wrt).source_for(*p.args)
    assert "unbroadcast(" not in source and "np.full(" not in source, source
    assert source.count("@") >= 2, source
