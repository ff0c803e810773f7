"""Wave 35d: speed of gated recurrent cells (issue 26), the gates sliced from a computed product, read
from np.split's pieces, between bounds read from a shape, or by products of one left operand with the
blocks of one matrix (wave35d_programs.py), through every transformation against float64 central
differences, with rows where a gate's width is 1 (broadcast against the state), 0, a bias wider
than its product, a left operand rebound between its products, a piece's adjoint with a term outside
the loop.

Held out first: benchmarks/variants35_gates.py (an LSTM with a forget bias of 1.0 added inline and a
loss of the last state, an IndRNN-like cell, a highway network looped over its layers, a GRU of
per-gate weights in lists, gates on the leading axis of 3-d weights), written and measured before
any change; tuned on the known rows only (gated_writes, ligru, dict_bias_cell, split_gates,
biased_gates, three_gates, cifg_lstm).

What was found (each known row's generated code read beside its hand gradient, timed per statement):

1. Slices of a computed array (cifg_lstm's ``a[:, n:2 * n]`` of ``a = x @ W + h @ U + b``, ligru's
   ``a[:, n:]`` of ``a = xs[t] @ W``) kept an ``unbroadcast`` per operand and extra stack items: wave 34c
   followed only parameters' and made arrays' lengths.  driver/computed_lengths.py follows them through
   a step's rows (``xs[t]``), products of matrices (x's rows, W's columns) and broadcasting arithmetic
   (each axis the largest of its operands' lengths, ``max(W.shape[1], b.shape[0])``: wrong only where
   one is 0 and the other 1, when every slice is empty, never of length 1), so such slices are tested
   not of length one like slices of parameters.  Slices between bounds read from a shape alone
   (``n = biases["z"].shape[0]``; ``W[:, n:]``: dict_bias_cell) were not tested at all (the test ran
   only where some width was arithmetic): they are now.
2. np.split's pieces (split_gates) were lists' items to the shapes: each ``unbroadcast`` stayed, a shape
   check ran in each step, and ten stack items where four do.  computed_lengths.py takes each piece of
   a split into k equal sections as of width ``x.shape[axis] // k``, tested not 1.
3. Then the pieces' products stayed one per gate and their adjoints three accumulators joined by
   ``split_adjoint`` after the loop: split_blocks.py reads each piece as the block of the whole it is
   (``Wz = W[:, :w]``, once the split did not raise) and adds each piece's adjoint into the whole's
   block, bit for bit the join, so the passes joining blocks' products take them.
4. Products of one left operand by blocks tiling one matrix in the forward sweep (``x @ W[:, :n]``,
   ``x @ W[:, n:2 * n]``, ``x @ W[:, 2 * n:]``: three_gates, split_gates, gated_writes, dict_bias_cell)
   were one product each where a hand makes one and slices it: joined_products.py (the left operand one
   value between, the blocks from the first column to the last).
5. Three gates' adjoints were joined twice two by two and once more all three (``np.concatenate`` of a
   join, and the same join again for the input weights' product): nested_joins.py makes a join of a
   join flat and a join made twice once.
6. An input's adjoint through two adjacent blocks' transposes (dict_bias_cell's ``x_bar = g2 @ t10.T``,
   ``x_bar = x_bar + g1 @ t7.T``) stayed two products where the scatters into the matrix's adjoint
   already join the two adjoints: joined_transposes.py makes it one product of that join.

Open: the seed of ``np.sum(o * h)`` left as ``1.0 * h`` (a copy a step: the fill is dropped after
simplify last runs); a preallocated adjoint written block by block and read back (gated_writes'
``pre_bar``); the input rows of a joined product's adjoint computed and then dropped
(dict_bias_cell's ``x_bar[:, n_in:]``); the dict's biases summed apart.

Census (17 rows x grad, value_and_grad, hessian, jvp, vjp, tree, check, jacobian, hvp, float32,
vmap_grad; ok / n/a / refused at the user's line / WRONG / BAD), before -> after:

    before:  181 ok, 6 n/a, 0 refused, 0 WRONG, 0 BAD
    after:   181 ok, 6 n/a, 0 refused, 0 WRONG, 0 BAD

(n/a: hvp of another argument than the first.)  numba: 17 of 17 agree after (test_numba).  A speed
wave: every row agreed with central differences before and does after, widths of 1 and 0 included
(they run the code assuming nothing, or code whose slices are empty).

Speed (grad / hand-written, CPU clock, median of interleaved runs before / after, ``--quick --no-numba
--rounds 5``; held out = benchmarks/variants35_gates.py, written before the changes):

    split_gates      1.46x -> 1.13x     dict_bias_cell  1.37x -> 1.30x     three_gates   1.17x -> 1.10x
    ligru            1.34x -> 1.25x     cifg_lstm       1.17x -> 1.13x     gated_writes  1.44x -> 1.44x
    biased_gates     1.22x -> 1.25x (noise: one product where there were two, nothing else changed)
    held out:  lstm_forget_bias 1.15x -> 1.17x, indrnn_gated 1.18x -> 1.18x, highway_depth 1.08x -> 1.06x,
               list_gates 1.07x -> 1.07x, stacked_gates 1.28x -> 1.30x: within noise.  Weights in lists or
               on a leading axis are separate matrices to the joins (open); the forget-bias LSTM's slices of
               its product lost three ``unbroadcast`` a step (finding 1) without a change measured.
    (medians of four interleaved runs each, the machine shared)
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import closure_cells, corpus, matrix, table_tests
from . import wave35d_programs as w

ALL = (*matrix.EVERY, *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w35d", "wave35d_programs", 35)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps: a product's slices, np.split's pieces of width 1 (the code assuming
#: nothing runs); test_one_product_per_left_operand_and_matrix runs a rebound left operand
KEPT = {"product_slices_W", "split_cell_one_W"}

#: none: the np.hsplit cells (``h = 0.0`` before the loop, its adjoints joined by ``add_adjoints``), refused
#: by jit="numba" at the user's line once the wave's branches met, compile since wave 36e (test_wave36e.py)
NUMBA_REFUSED: set = set()

TABLE = table_tests.Table(programs, kept=KEPT, numba_refused=NUMBA_REFUSED)
test_first_order = TABLE.first_order()
test_every_transformation = TABLE.every_transformation(ALL)
test_numba = TABLE.numba()


def _program(name):
    return next(p for p in programs() if _name(p) == name)


def _fast(source: str) -> str:
    """The generated function, not the code it falls back to (listed after it)."""
    return source.split("\n\n\ndef ")[0]


def _loops(source: str) -> tuple[str, str]:
    """The forward and the backward loop of the generated function's fast path."""
    lines = _fast(source).splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("    for ")]

    def body(start):
        end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("        ")), len(lines))
        return "\n".join(line for line in lines[start:end] if not line.strip().startswith("#"))
    return body(starts[0]), body(starts[-1])


def _gradient(name, wrt=None):
    """The gradient of a row's program (of `wrt`, else the row's), checked against central differences."""
    p = _program(name)
    wrt = p.wrt if wrt is None else wrt
    g = srcdiff.grad(p.func, wrt=wrt)
    got = g(*p.args)
    for k, i in enumerate(wrt if isinstance(wrt, tuple) else (wrt,)):
        np.testing.assert_allclose(got[k] if isinstance(wrt, tuple) else got, central_difference(p.func, p.args, i),
                                   rtol=1e-5, atol=1e-7)
    return g


def test_product_slices_tested_not_of_length_one():
    """computed_lengths.py: slices of ``a = x @ W + h @ U + b`` tested not of length one (their length the
    largest of the product's and the bias's), no ``unbroadcast`` left in the backward sweep."""
    g = _gradient("product_slices_W")
    first = g.source.splitlines()[1]
    assert first.startswith("    if ") and "max(" in first, g.source
    assert "unbroadcast" not in _loops(g.source)[1], g.source


def test_split_pieces_added_into_the_whole():
    """computed_lengths.py and split_blocks.py: np.split's pieces tested not of width 1, read as blocks of
    the whole, their adjoints added into its blocks: no ``split_adjoint``, one product per matrix in
    each sweep, the gates' adjoints joined once."""
    g = _gradient("split_cell_W", wrt=(0, 1))
    forward, backward = _loops(g.source)
    assert "split_adjoint" not in _fast(g.source) and "unbroadcast" not in backward, g.source
    assert forward.count(" @ ") == 2 and backward.count(" @ ") == 3, g.source
    assert backward.count("np.concatenate(") == 1, g.source


def test_one_product_per_left_operand_and_matrix():
    """joined_products.py: ``x @ W[:, :n]`` and ``x @ W[:, n:]`` one product, sliced; the state's two
    products by U's blocks stay two where the state is rebound between them."""
    forward = _loops(_gradient("shape_bound_W").source)[0]
    assert forward.count(" @ ") == 1, forward
    forward = _loops(_gradient("rebound_left_U").source)[0]
    assert forward.count(" @ ") == 2, forward


@pytest.mark.parametrize("widths", [(2, 1, 3), corpus.slow_unless(False, (1, 2))])
def test_one_gradient_function_across_split_widths(widths):
    """One gradient function called with pieces of width 2, 1 (the code assuming nothing, compiled
    once, the gates broadcast against a state of 2) and 3: each call agrees with central differences."""
    p = _program("split_cell_W")
    g = srcdiff.grad(p.func, wrt=(0, 1))
    rng = np.random.default_rng(35)
    for width in widths:
        rows = 2 if width == 1 else width  # (the state's width: gates of one column broadcast against it)
        args = (0.5 * rng.normal(size=(3, 2 * width)), 0.5 * rng.normal(size=(rows, 2 * width)), p.args[2])
        got = g(*args)
        for k in (0, 1):
            np.testing.assert_allclose(got[k], central_difference(p.func, args, k), rtol=1e-5, atol=1e-7,
                                       err_msg=f"width {width}")


def test_uneven_split_raises_as_numpy_does():
    """A split that does not divide raises NumPy's error, as the user's function does (the pieces are
    read as blocks only after the split)."""
    p = _program("split_cell_W")
    g = srcdiff.grad(p.func, wrt=0)
    args = (0.5 * np.ones((3, 5)), 0.5 * np.ones((2, 5)), p.args[2])
    with pytest.raises((ValueError, srcdiff.SrcDiffError), match="equal division"):
        p.func(*args)
    with pytest.raises((ValueError, srcdiff.SrcDiffError), match="equal division"):
        g(*args)


def _rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def test_literal_slices_alone_are_not_tested():
    """``x[1:]``, ``x[:-1]`` of a parameter with no computed width: the gradient's code is the same
    whatever x's length, so it carries no width test and no ``_any_width`` twin (the benchmark's
    Rosenbrock paid a test of three ranges a call, 1.10 -> 1.24x hand, before this was pinned)."""
    g = srcdiff.grad(_rosenbrock)
    x = np.linspace(-1.0, 1.5, 7)
    np.testing.assert_allclose(g(x), central_difference(_rosenbrock, (x,), 0), rtol=1e-6, atol=1e-8)
    assert "_any_width" not in g.source and "len(range(" not in g.source, g.source
