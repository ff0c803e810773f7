"""Wave 34c: speed of gated recurrent cells whose gates' width is computed at run time (issue 26):
``n = b.shape[0] // 2``, ``W.shape[1] // 3``, ``len(b) // 2``, ``W.shape[1] - U.shape[0]`` and the
slices between such bounds (wave34c_programs.py), through every transformation against float64
central differences, with rows where the width is 1, negative or 0.

Held out first: benchmarks/variants34_gates.py (an LSTM with coupled input and forget gates, a
minimal gated unit with biases and a computed width, a GRU with its reset after the recurrent
product, biases in a dict, gates split by np.split), written and measured before any change.

What was found (reading each cell's generated code beside its hand gradient, time per statement):

1. A width computed from shapes (``b.shape[0] // 2``) may be 1 as far as the signature says, and so
   may a slice between computed bounds (``W[:, n:]``, ``pre[:, n:2 * n]`` of ``np.zeros((B, 2 * n))``):
   every product with such a block kept an ``unbroadcast`` per operand, a seed's fill
   (``np.full(t16.shape, 1.0)``), recomputed products and extra stack items (arrays kept only for
   their shapes) in each step.  driver/computed_lengths.py: such ints (nograd or int arithmetic of
   ``x.shape[k]``, ``len(x)``, ints read from shapes and literals, in loops too) are compiled as not
   1 nor negative, and such slices of parameters and of arrays made of such lengths as not of length
   one; the gradient's first statement tests exactly that from the arguments and otherwise calls the
   gradient compiled without the assumption (made on first use): in effect the key is the signature
   and which computed lengths are 1, for every such length, not one spelling.  The other code is
   listed after the gradient (``.source``, export) and run by the symbolic check; not for numba, code
   srcdiff reads back, forward mode, pullbacks, nor a gradient calling other adjoints.
2. With the unbroadcasts gone, an adjoint read once moved into its product (``W_bar[:, :n] += x.T @
   (f_bar * f * (1.0 - f))``, ``keep_where(t >= 0.0, g)``): joined_scatters.py did not join such
   products (it wanted names); it reads arithmetic, comparisons and selections now.
3. The row sums of a bias's adjacent blocks (``b_bar[:n] += np.sum(g1, axis=0)``, ``b_bar[n:] += ...``)
   beside the join their products already make: one sum of the join (joined_sums.py; bitwise where
   each block has more than one column: NumPy sums a lone column pairwise).

Open: slices of a product (cifg_lstm's ``a[:, n:2 * n]`` of ``a = x @ W + h @ U + b``) have lengths
the ints' texts do not give (a product's axes would have to be followed): their ``unbroadcast`` stays;
a preallocated adjoint written block by block and read back by the same blocks (gated_writes'
``pre_2_bar``); np.split's gates and dict biases (split_gates, dict_bias_cell) unchanged.

Census (15 rows x grad, value_and_grad, hessian, jvp, vjp, numba, check, tree, jacobian, hvp,
float32, vmap_grad; cells ok / n/a / refused at the user's line / WRONG / BAD):

    after:   170 ok, 10 n/a, 0 refused, 0 WRONG, 0 BAD
    before:  170 ok, 10 n/a, 0 refused, 0 WRONG, 0 BAD

(n/a: hvp of another argument than the first, and the Hessian of len_halves_one_b at its ReLU's kink.)
A speed wave: every row agreed with central differences in every transformation, numba included,
before, and does after, widths of 1, negative and 0 included (they run the code assuming nothing).

Speed (grad / hand-written, CPU clock, median of 2 runs interleaved before / after, ``--quick
--no-numba --rounds 5``; held out = benchmarks/variants34_gates.py, written before the changes):

    mgu_bias (held out)         1.40x -> 1.09x     biased_gates     1.62x -> 1.23x
    cifg_lstm (held out)        1.31x -> 1.16x     gated_writes     1.62x -> 1.42x
    gru_reset_after (held out)  1.37x -> 1.23x     gru_concat       1.30x -> 1.14x
    dict_bias_cell (held out)   1.38x -> 1.38x     three_gates      1.29x -> 1.18x
    split_gates (held out)      1.46x -> 1.47x     peephole_named   1.29x -> 1.19x, ligru 1.32x -> 1.33x
    earlier held-out cells: gru_reset 1.10x -> 1.03x, min_gru_split 1.45x -> 1.42x, others within noise
    (named_gates, mgu_cell, highway_time, glu_recurrence, hstack_gru, lstm_quarters 1.02x-1.18x).
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import closure_cells, corpus, matrix, table_tests
from . import wave34c_programs as w

ALL = (*matrix.EVERY, *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w34c", "wave34c_programs", 34)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps: a width of 1 broadcast (the test's other code sums it back), one
#: of more, a negative one
KEPT = {"width_one_broadcast_b", "mgu_bias_b", "negative_width_b"}


TABLE = table_tests.Table(programs, kept=KEPT)
test_first_order = TABLE.first_order()
test_every_transformation = TABLE.every_transformation(ALL)
test_numba = TABLE.numba()


def _program(name):
    return next(p for p in programs() if _name(p) == name)


def _backward_loop(source: str) -> str:
    """The text of the generated function's last top-level loop (the backward sweep), not of the code
    it falls back to (listed after it)."""
    lines = source.split("\n\n\ndef ")[0].splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("    for "))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("        ")), len(lines))
    return "\n".join(lines[start:end])


@pytest.mark.parametrize("name", [corpus.slow_unless(name in ("mgu_bias_b", "reset_after_W"), name) for name in
                                  ("mgu_bias_b", "reset_after_W", "cifg_lstm_U", "difference_width_W", "len_halves_W")])
def test_computed_widths_tested_first(name):
    """driver/computed_lengths.py: a width computed from shapes (``b.shape[0] // 2``, ``W.shape[1] // 3``,
    ``W.shape[1] - U.shape[0]``, ``len(b) // 2``) and the slices of parameters between such bounds are
    compiled as not 1, tested by the first statement: where every slice is of a parameter the backward
    sweep sums nothing back (no ``unbroadcast``; cifg_lstm and reset_after slice a product: open)."""
    p = _program(name)
    g = srcdiff.grad(p.func, wrt=p.wrt)
    np.testing.assert_allclose(g(*p.args), central_difference(p.func, p.args, p.wrt), rtol=1e-5, atol=1e-7)
    first, then = g.source.splitlines()[1:3]
    assert first.startswith("    if ") and "== 1" in first and "_grad_any_width(" in then, g.source
    if name not in ("reset_after_W", "cifg_lstm_U"):
        assert "unbroadcast" not in _backward_loop(g.source), g.source


@pytest.mark.parametrize("name, widths", [("mgu_bias_b", (2, 1, 3, 1)), ("width_one_broadcast_b", (1, 2, 1)),
                                          ("len_halves_W", (2, 1, 2)), ("negative_width_b", (4, 5, 2, 7))])
def test_one_gradient_function_across_computed_widths(name, widths):
    """One gradient function called (slow path, then its fast path) with arguments of one signature
    whose computed width is now more than 1, now 1 (``n == 1``: the code assuming nothing, compiled
    once), now negative or 0: each call agrees with central differences."""
    p = _program(name)
    g = srcdiff.grad(p.func, wrt=p.wrt)
    rng = np.random.default_rng(7)
    for n in widths:
        args = list(p.args)
        b = args[2] if name.startswith("mgu") else args[1]
        size = 2 * n if name.startswith(("mgu", "width", "len")) else n
        new_b = 0.3 * rng.normal(size=size)
        if name.startswith("mgu"):
            args[0] = 0.5 * rng.normal(size=(args[0].shape[0], size))
            args[1] = 0.5 * rng.normal(size=(n, size))
            args[2] = new_b
        elif name == "width_one_broadcast_b":
            args[1] = new_b  # (W's 3 columns: a state of width 1 broadcast, else of 2... must match)
            args[0] = 0.5 * rng.normal(size=(args[0].shape[0], 3 if n == 1 else n))
        else:
            args[1] = new_b
            args[0] = 0.5 * rng.normal(size=(args[0].shape[0], size))
        assert b.ndim == new_b.ndim
        np.testing.assert_allclose(g(*args), central_difference(p.func, args, p.wrt), rtol=1e-5, atol=1e-7,
                                   err_msg=f"width {n}")


def test_bias_blocks_summed_once_of_the_join():
    """joined_sums.py: the row sums of a bias's two blocks (``b[:n]``, ``b[n:]``) are one sum of the
    join their products' adjoints already make, bit for bit the two sums (blocks of two columns)."""
    p = _program("len_halves_W")
    f = p.func
    args = list(p.args)
    g = srcdiff.grad(f, wrt=(0, 1))
    got = g(*args)
    loop = "\n".join(line for line in _backward_loop(g.source).splitlines() if not line.strip().startswith("#"))
    assert "np.sum(joined, axis=0)" in loop and loop.count("np.sum(") == 1, g.source
    np.testing.assert_allclose(got[1], central_difference(f, args, 1), rtol=1e-5, atol=1e-7)
    # the bias's gradient alone: no join (the weights not differentiated), its blocks summed apart
    apart = srcdiff.grad(f, wrt=1)
    assert np.array_equal(apart(*args), got[1]) and "joined" not in apart.source
