"""Wave 33f: speed of gated recurrent cells (issue 26) — gate weights sliced under names before the
loop, states made from a slice of an input's shape, arrays written block by block in each step,
widths computed from a bias's length (wave33f_programs.py), through every transformation against
float64 central differences.

Held out first: benchmarks/variants33_gates.py (a minimal gated unit, a peephole LSTM with its
gates' weights named before the loop, a highway layer over time, a gated linear unit recurrence,
a GRU on np.hstack), written and measured before any change.

What was found (reading each cell's generated code beside its hand gradient, time per statement):

1. ``h = np.zeros(xs.shape[1:])`` (highway_time) had no known ndim: shape inference read an item
   of a shape tuple (``x.shape[1]``) but not a slice of it, so the state, and everything computed
   from it, had unknown shapes: each product's adjoint went through ``matmul_adjoint_x``/``_y`` and
   each elementwise adjoint through ``unbroadcast`` (ir/shape_inference.py: ``x.shape[j:k]`` with
   literal bounds has those axes' dims);
2. ``unbroadcast(g, b[:n])`` in a loop, ``n = b.shape[0] // 2`` (a length the signature does not
   give: it may be 1), took the helper's generic path around the sum over the leading axis
   (rules/runtime.py: arrays one axis apart, no axis of length one: ``g.sum(axis=0)`` directly,
   the same sum);
3. the fast branch of a tie's half shares (tie_shares.py) was off for a whole function that
   copied an adjoint with ``np.array(g, dtype=float)``: ``dtype=`` was read as narrowing;
   float64 narrows nothing (gated_writes: one np.where per step less);
4. a copy of an adjoint with one block zeroed (``zero_item(pre_2_bar, np.s_[:, n:])``), made in
   each step and read only in the other block (``[:, :n]``): writes.read_around_zeroed saw
   constant positions at the top level only (optimize/zeroed_blocks.py: complementary cuts of one
   axis by one bound are disjoint for every value of the bound, in loops too);
5. ``np.full((h_2 * h_2).shape, 1.0)``, the seed of ``np.sum(h * h)`` where h's width is computed,
   made the square for its shape (sameshape.py: ``(x op x).shape`` is ``x.shape``).

Tried and dropped (measured slower, grad/hand in one run): accumulating the adjoints of blocks named
before the loop (``Wi = W[:, :n]``) into the matrix's adjoint inside the loop, so that
adjacent_products / joined_scatters join them (peephole_named 1.27x -> 1.35x: three concatenations
for four gates' partial joins), and one forward product per left operand for adjacent blocks,
sliced (named_gates 1.14x -> 1.20x: the slices are strided views every later pass reads; BLAS also
rounds a column of a wider product differently, 515 of 878 random shapes in the last bits).

Open: where a width is computed (``n = b.shape[0] // 2``) the shape classes cannot prove a
product with a block ``W[:, :n]`` has the state's shape (it need not: a key on which computed
lengths are 1 would decide it), so ``unbroadcast`` calls and a seed's fill
(``np.full(h_2.shape, 1.0) * h_2``) stay in biased_gates' and gru_concat's backward sweeps.

Census (17 rows x grad, value_and_grad, hessian, jvp, vjp, tree, check, jacobian, hvp, float32,
vmap_grad, numba; cells ok / n/a / refused at the user's line / WRONG / BAD):

    after:   196 ok, 8 n/a, 0 refused, 0 WRONG, 0 BAD
    before:  196 ok, 8 n/a, 0 refused, 0 WRONG, 0 BAD

(n/a: cells that do not apply to the row, as matrix.assert_ok_or_na allows: hvp of another argument
than the first (7 cells), and reversed_named_b's hessian).
A speed wave: every row agreed with central differences in every transformation, numba included,
before, and does after (the passes change no derivative).

Speed (grad / hand-written, CPU clock, median of 3 runs interleaved before / after, ``--quick
--no-numba``; held out = benchmarks/variants33_gates.py, written before the changes):

    highway_time (held out)    1.46x -> 1.05x     gated_writes   1.64x -> 1.60x
    hstack_gru (held out)      1.05x -> 1.03x     biased_gates   1.69x -> 1.63x
    mgu_cell (held out)        1.09x -> 1.11x *   gru_concat     1.32x -> 1.30x
    peephole_named (held out)  1.30x -> 1.33x *   three_gates    1.25x -> 1.27x *
    glu_recurrence (held out)  1.06x -> 1.11x *   ligru 1.29x -> 1.32x *, named_gates 1.15x -> 1.15x *

    * the generated code is the same before and after: the difference is the machine's noise.
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix, table_tests
from . import wave33f_programs as w

ALL = (*matrix.EVERY, *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w33f", "wave33f_programs", 33)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps (four named blocks, a zeroed copy read around its block at a tie,
#: an overlapping one; the others' sources are checked below)
KEPT = {"peephole_named_W", "prealloc_relu_U", "prealloc_overlap_W"}


TABLE = table_tests.Table(programs, kept=KEPT)
test_first_order = TABLE.first_order()
test_every_transformation = TABLE.every_transformation(ALL)
test_numba = TABLE.numba()


def _central(f, args, wrt):
    x = np.asarray(args[wrt], dtype=float)
    want = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = 1e-6
        up, down = list(args), list(args)
        up[wrt], down[wrt] = x + e, x - e
        want[i] = (f(*up) - f(*down)) / 2e-6
    return want


def _program(name):
    return next(p for p in programs() if _name(p) == name)


def _backward_loop(source: str) -> str:
    """The text of the generated function's last top-level loop (the backward sweep)."""
    lines = source.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("    for "))
    end = next((i for i in range(start + 1, len(lines)) if not lines[i].startswith("        ")), len(lines))
    return "\n".join(lines[start:end])


@pytest.mark.parametrize("name", ["highway_time_Wh", "highway_time_Wt"])
def test_shape_slices_give_states_their_dims(name):
    """``np.zeros(xs.shape[1:])`` has xs's trailing dims: the products' adjoints are ``@``, not
    the helpers for arrays of unknown ndim."""
    p = _program(name)
    g = srcdiff.grad(p.func, wrt=p.wrt)
    np.testing.assert_allclose(g(*p.args), _central(p.func, p.args, p.wrt), rtol=1e-5, atol=1e-7)
    assert "matmul_adjoint" not in g.source


@pytest.mark.parametrize("name", ["prealloc_relu_W", "prealloc_relu_U", "prealloc_overlap_W"])
def test_zeroed_copy_read_outside_its_block_reads_the_adjoint(name):
    """zeroed_blocks.py: ``zero_item(g, np.s_[:, n:])`` read only as ``[:, :n]`` reads g (no copy in
    the loop); a block overlapping the zeroed one (``[:, n - 1:]`` zeroed, ``[:, :n]`` read) keeps its
    copy.  The tie of a ReLU at 0 keeps its half shares on the rare branch (``dtype=float`` narrows
    nothing: tie_shares.py)."""
    p = _program(name)
    g = srcdiff.grad(p.func, wrt=p.wrt)
    np.testing.assert_allclose(g(*p.args), _central(p.func, p.args, p.wrt), rtol=1e-5, atol=1e-7)
    loop = _backward_loop(g.source)
    copied = ".copy()" in loop or "np.array(" in loop
    assert copied == (name == "prealloc_overlap_W"), g.source
    if name != "prealloc_overlap_W":
        assert "any_equal(" in loop, g.source


@pytest.mark.parametrize("name", ["halves_cell_W", "halves_cell_b"])
def test_shape_of_a_square_read_off_its_operand(name):
    """sameshape.earliest_shape_reads: ``np.full((h_2 * h_2).shape, 1.0)``, the seed of ``np.sum(h * h)``
    where h's width is not known before run time, reads ``h_2.shape``: the square is not made for it."""
    p = _program(name)
    g = srcdiff.grad(p.func, wrt=p.wrt)
    np.testing.assert_allclose(g(*p.args), _central(p.func, p.args, p.wrt), rtol=1e-5, atol=1e-7)
    assert ").shape" not in g.source, g.source


@pytest.mark.parametrize("g_shape, x_shape", [((3, 4), (4,)), ((3, 4), (1,)), ((2, 3, 4), (3, 4)), ((2, 3, 4), (1, 4)),
                                              ((5,), ()), ((4,), (4,)), ((2, 3, 4), (4,))])
def test_unbroadcast_sums_a_leading_axis_as_before(g_shape, x_shape):
    """rules/runtime.unbroadcast: the leading axis's sum taken directly (a bias's adjoint in a loop)
    gives the general path's bits, shape and type."""
    from srcdiff.rules.runtime import unbroadcast

    rng = np.random.default_rng(0)
    g, x = rng.normal(size=g_shape), rng.normal(size=x_shape)
    want = g.sum(axis=tuple(range(g.ndim - x.ndim)))
    ones = tuple(i for i, n in enumerate(x_shape) if n == 1 and np.shape(want)[i] != 1)
    want = want.sum(axis=ones, keepdims=True) if ones else want
    got = unbroadcast(g, x)
    assert np.shape(got) == x_shape and np.array_equal(got, want)
