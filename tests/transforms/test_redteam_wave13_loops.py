"""What the red team's thirteenth wave found and fixed in loops and batching (test_redteam_wave13_findings.py
holds the guards, the try bodies and SciPy's refusals): each a class with variants of its own, through every
transformation.  References are float64 central differences of the function."""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from .corpus import Program
from .matrix import assert_every_transformation, assert_numba_agrees_or_refuses

HERE = "test_redteam_wave13_loops.py"


def _program(f, *args, wrt=0) -> Program:
    return Program(f"w13_loops:{f.__name__}", f, args, wrt, HERE)


# ---- 1. Refused: an element read back from an array the loop writes into (``y1 = y[n]``) ---------------------
# An IIR filter's ``y[n] = b0 * x[n] + ... - a1 * y1; y2, y1 = y1, y[n]`` was refused ("writes into an array
# by index that y1 also refers to in the next iteration"): ``y[n]`` was taken for a possible view of y.
# FIXED: an integer for each axis of an array whose number of axes the signature decides reads one element,
# a NumPy scalar (lower/emit.py), and a loop's array that the body only writes into keeps its shape, as does
# a range's index, an int (lower/loops.py).  ``r = B[i]`` of a matrix is a view still, and still refused.


def first_order_iir(alpha, x):
    y = np.zeros_like(x)
    prev = 0.0
    for n in range(len(x)):
        y[n] = alpha * x[n] + (1.0 - alpha) * prev
        prev = y[n]
    return np.sum(y ** 2)


def grid_recurrence(c, A):
    out = A.copy()
    last = 0.0
    for i in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[i, j] = np.tanh(c * out[i, j] + last)
            last = out[i, j]
    return np.sum(out * A)


def two_tap_feedback(k, x):
    y = np.zeros(len(x))
    y1 = y2 = 0.0
    for n in range(len(x)):
        y[n] = x[n] - k[0] * y1 - k[1] * y2
        y2, y1 = y1, y[n]
    return np.sum(np.sin(y))


def row_view_written(B):
    C = B.copy()
    out = 0.0
    for i in range(2):
        r = C[i]
        C[i] = C[i] * 2.0
        out = out + np.sum(r * B[i])
    return out


X8 = np.array([0.3, -1.0, 0.5, 2.0, 0.1, -0.4, 0.8, 1.2])
ELEMENT_READS = [(first_order_iir, (0.3, X8), 0), (first_order_iir, (0.3, X8), 1),
                 (grid_recurrence, (0.7, np.arange(6.0).reshape(2, 3) / 5), 0),
                 (grid_recurrence, (0.7, np.arange(6.0).reshape(2, 3) / 5), 1),
                 (two_tap_feedback, (np.array([-0.5, 0.2]), X8), 0), (two_tap_feedback, (np.array([-0.5, 0.2]), X8), 1),
                 (first_order_iir, (np.float32(0.3), X8.astype(np.float32)), 1)]


@pytest.mark.parametrize("f, args, wrt", ELEMENT_READS, ids=[f"{f.__name__}-{k}" for k, (f, _, _) in
                                                            enumerate(ELEMENT_READS)])
def test_element_read_back_from_a_written_array_every_transformation(f, args, wrt):
    assert_every_transformation(_program(f, *args, wrt=wrt))


@pytest.mark.parametrize("k", [0, 4])
def test_element_read_back_under_numba(k):
    f, args, wrt = ELEMENT_READS[k]
    assert_numba_agrees_or_refuses(_program(f, *args, wrt=wrt))


def test_a_row_view_of_a_written_matrix_is_still_refused():
    with pytest.raises(srcdiff.SrcDiffError, match="shares its memory"):
        srcdiff.grad(row_view_written)(np.ones((2, 3)))


# ---- 2. Refused: ``while True:`` left only by a `return` ("can end without a `return`") ----------------------
# FIXED: a ``while True:`` (or ``while 1:``) with no `break` of its own ends the path (lower/loops.py).


def newton_sqrt_returns(x, tol=1e-3):
    guess = x
    i = 0
    while True:
        new = 0.5 * (guess + 2.0 / guess)
        if abs(new - guess) < tol:
            return new * x
        guess = new
        i += 1
        if i > 50:
            return guess


def counted_return(x):
    k = 0
    while 1:
        x = x * np.cos(x)
        k += 1
        if k >= 3:
            return np.sum(x * x)


@pytest.mark.parametrize("f, args", [(newton_sqrt_returns, (1.3,)), (counted_return, (np.array([0.4, -0.2]),))],
                         ids=["newton", "counted"])
def test_while_true_left_by_return_every_transformation(f, args):
    assert_every_transformation(_program(f, *args))


# ---- 3. vmap of a gradient taking a tree: refused without a line ---------------------------------------------
# ``srcdiff.vmap(srcdiff.grad(loss, wrt=1), in_axes=(None, 0))(params, Xs)`` with a dict or dataclass
# `params` is refused ("the gradient of a tree ... cannot be batched yet", open), and the message named no
# file and line.  FIXED: it names `loss`'s def line (api/vmap.py).


def dict_tree_loss(params, X):
    return np.sum(np.tanh(X @ params["W"] + params["b"]) ** 2)


def test_vmap_of_a_tree_gradient_is_the_loop_over_examples():
    # refused at the def line since wave 13; since wave 26 the gradient of the tree's leaves is batched
    params = {"W": np.linspace(-1.0, 1.0, 6).reshape(3, 2), "b": np.array([0.1, -0.2])}
    Xs = np.random.default_rng(13).normal(size=(2, 4, 3))
    gradient = srcdiff.grad(dict_tree_loss, wrt=1)
    batched = srcdiff.vmap(gradient, in_axes=(None, 0))
    np.testing.assert_allclose(batched(params, Xs), np.stack([gradient(params, X) for X in Xs]), rtol=1e-12)
