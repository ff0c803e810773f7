"""Wave 32l: gated cells whose gates are products with one left operand and adjacent column
blocks of one matrix, and cells writing their pre-activations into an array made in each step
(wave32l_programs.py), through every transformation against float64 central differences.

What was found (benchmarks/variants.py gated_writes ran at 1.8-2x a hand-written gradient):

1. ``x @ W[:, :n]`` and ``x @ W[:, n:]`` left two products scattered into ``W_bar``'s blocks in
   the backward sweep (``W_bar[:, n:] += t12.T @ g2`` ... ``W_bar[:, :n] += t6.T @ g1``, t6 and t12
   both ``xs[t]``), where a hand writes one product over the joined blocks;
2. adjacent_products.py joined ``h @ U[:, :n]``, ``h @ U[:, n:]``'s products (ligru) but not where a
   block's adjoint also reached another matrix's (gated_writes: g1 scattered into ``W_bar`` too):
   it wanted exactly one scatter per adjoint, not one into U's; nor a third block with the block
   a first join left (``U[:, n:]``: three gates);
3. an array made in each step and written slice by slice (``pre = np.zeros(...)``,
   ``pre[:, :n] = ...``, ``pre[:, n:] = ...``) was copied twice per step (``set_item`` into the
   zeros, then ``pre_1.copy()`` before the second write).

Fixed by the class: joined_scatters.py joins two products scattered into adjacent column blocks
of one adjoint whose left factors are one value (one name, or names bound to one expression in
the run, nothing changed in between; factors of two axes or more); adjacent_products.py counts
the scatters into the blocked matrix's adjoint only and joins a block an earlier join left;
fresh_loop_writes.py writes in place into an array the block made and nothing else reads.  Not
joined (rows here): left operands of different inputs (two_inputs), ``xs[t]`` and ``xs[t + 1]``;
not written in place: an array read after its loop (prealloc_kept).  Open: weights sliced once
before the loop under names (named_gates: ``W_z = W[:, :n]``) accumulate each block's adjoint on
its own (1.15x); ``unbroadcast`` calls and a zeroed copy of an adjoint read only outside its
zeroed block (``pre_1_bar``) stay in gated_writes' backward sweep (about 0.1x of the rest).

Census (10 rows x grad, value_and_grad, hessian, jvp, vjp, tree, check, jacobian, hvp, float32,
vmap_grad, numba; cells ok / n/a / refused at the user's line / WRONG / BAD): after, every cell
ok or n/a (0 refused, 0 WRONG, 0 BAD); before, grad agreed with float64 central differences on
every row too (a speed change: the derivatives are the same sums).

Speed (grad / hand-written, CPU clock, median of 3 runs interleaved before / after, ``--quick
--no-numba``; the held-out rows of benchmarks/variants32_gates.py written before the passes):

    gated_writes   1.96x -> 1.58x     three_gates (held out)   1.49x -> 1.24x
    ligru          1.31x -> 1.30x     biased_gates (held out)  1.8x  -> 1.69x
    gru_concat     1.34x -> 1.31x     named_gates (held out)   1.15x -> 1.16x (not reached: open)
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix, table_tests
from . import wave32l_programs as w

ALL = (*matrix.EVERY, *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w32l", "wave32l_programs", 32)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps (an inline adjoints' join, a fresh array read after its loop)
KEPT = {"biased_gates_W", "prealloc_kept_W"}


TABLE = table_tests.Table(programs, kept=KEPT)
test_first_order = TABLE.first_order()
test_every_transformation = TABLE.every_transformation(ALL)
test_numba = TABLE.numba()


#: rows whose backward sweep joins the products (one concatenation at least) and those it must not
JOINED = {"three_blocks_W", "three_blocks_U", "biased_gates_W"}
APART = {"two_inputs_W"}


@pytest.mark.parametrize("program", [p for p in programs() if _name(p) in JOINED | APART], ids=_name)
def test_products_joined_only_with_one_left_operand(program):
    g = srcdiff.grad(program.func, wrt=program.wrt)
    got = g(*program.args)
    assert ("np.concatenate" in g.source) == (_name(program) in JOINED)
    # (against a plain float64 central difference too: the join is the same sum)
    x = np.asarray(program.args[program.wrt], dtype=float)
    want = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = 1e-6
        up = list(program.args)
        down = list(program.args)
        up[program.wrt], down[program.wrt] = x + e, x - e
        want[i] = (program.func(*up) - program.func(*down)) / 2e-6
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("program", [p for p in programs() if _name(p).startswith("prealloc_gates")], ids=_name)
def test_fresh_array_written_in_place(program):
    """fresh_loop_writes.py: the array made in each step is written in place, never copied."""
    g = srcdiff.grad(program.func, wrt=program.wrt)
    g(*program.args)
    assert "set_item" not in g.source and ".copy()" not in g.source


def test_left_operand_changed_between_is_not_joined():
    """``xs[t]`` read at two steps of ``t``: the two products' left operands differ, no join."""
    def shifted(W, xs):
        n = W.shape[1] // 2
        out = 0.0
        for t in range(xs.shape[0] - 1):
            a = np.tanh(xs[t] @ W[:, :n])
            b = np.tanh(xs[t + 1] @ W[:, n:])
            out = out + np.sum(a * b)
        return out

    rng = np.random.default_rng(3)
    W, xs = rng.normal(size=(3, 4)), rng.normal(size=(4, 2, 3))
    g = srcdiff.grad(shifted)
    got = g(W, xs)
    want = np.zeros_like(W)
    for i in np.ndindex(W.shape):
        e = np.zeros_like(W)
        e[i] = 1e-6
        want[i] = (shifted(W + e, xs) - shifted(W - e, xs)) / 2e-6
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)
    assert "np.concatenate" not in g.source
