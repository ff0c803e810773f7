"""Wave 33f: speed of gated recurrent cells (issue 26) — gate weights sliced under names before the
loop, states made from a slice of an input's shape (wave33f_programs.py), through every
transformation against float64 central differences.

CENSUS_PLACEHOLDER
"""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix
from . import wave33f_programs as w
from .test_redteam_wave27a import cell_vmap_grad

matrix.CELLS["vmap_grad"] = cell_vmap_grad
ALL = (*matrix.EVERY, *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w33f", "wave33f_programs", 33)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps (four named blocks joined, overlapping blocks left apart, a state
#: of a shape's slice)
KEPT = {"peephole_named_W", "overlapping_named_W", "reversed_named_b", "highway_time_Wh", "prealloc_relu_U",
        "prealloc_overlap_W"}


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in programs()], ids=_name)
def test_first_order(program):
    matrix.assert_ok_or_na(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba(program):
    matrix.assert_numba_unless_refused(program, set())


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
