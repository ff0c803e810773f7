"""Stencil loops over a loop-carried array (stencil_programs.py): every transformation, numba
included, agrees with central differences and float32 stays float32; the generated code runs
the user's forward pass and a backward pass with no shape check, zero array or copy per step
where the shapes are proved equal (backend/optimize/shape_classes.py, reassembly.py,
zero_restore.py, carried_writes.py, stack_items.py), and gives the unoptimised code's values;
and each of those passes leaves alone the code it must not change."""

import ast
import math
import textwrap

import numpy as np
import pytest
from numeric import assert_close

import srcdiff
from srcdiff.backend.optimize import carried_writes, reassembly, stack_items, zero_restore
from srcdiff.backend.optimize.optimizer import OptimizeInfo, optimize_function
from srcdiff.backend.optimize.shape_classes import ShapeClasses, shape_classes
from srcdiff.backend.optimize.shape_pieces import constant_bound, partition, tiles
from srcdiff.ir import shapes
from srcdiff.rules.runtime import copy_array, set_item, zero_item

from . import corpus, matrix
from .stencil_programs import (
    PROGRAMS,
    advect_shifted,
    heat_concat,
    heat_copy_write,
    heat_direct,
    heat_in_place,
    heat_pad,
    heat_roll,
    nonlinear_diffusion,
    plate_copy_write,
    plate_in_place,
    wave_two_arrays,
    wide_boundary,
)


def programs():
    return corpus.from_table(PROGRAMS, "stencil", "stencil_programs", 18)


def _name(p):
    return p.name.partition(":")[2]


#: first order, in the default run; second order and `srcdiff.check` (sympy) in a sampled family


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_every_second_order_transformation(program):  # a sampled family (tests/sampling.py)
    matrix.assert_ok(program, ("grad", "hessian", "check"))


#: what jit="numba" refuses at the user's line, and why
NUMBA_REFUSED = {
    "heat_hstack": "numba has no np.hstack of numbers and arrays together",
    "heat_hstack_kappa": "numba has no np.hstack of numbers and arrays together",
}


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba_included(program):  # every transformation again, numba too (one in NUMBA_SAMPLE by default)
    matrix.assert_numba_included(program, NUMBA_REFUSED)


@pytest.mark.parametrize("program", matrix.with_array_argument(programs()), ids=_name)
def test_float32_gradients_stay_float32(program):
    matrix.assert_float32_stays_float32(program)


# ---- the generated code --------------------------------------------------------------------------

ROD = (np.sin(np.linspace(0.0, 3.0, 9)), 0.2, np.linspace(-0.1, 0.1, 9), 5)


def _loops(source: str) -> list[str]:
    """The text of each top-level loop of the generated function, forward first."""
    func = ast.parse(source).body[0]
    return [ast.unparse(s) for s in func.body if isinstance(s, (ast.For, ast.While))]


@pytest.mark.parametrize("f", [heat_concat, heat_pad, heat_copy_write, heat_in_place],
                         ids=lambda f: f.__name__)
def test_the_backward_loop_updates_one_array_in_place(f):
    source = srcdiff.grad(f, wrt=(0, 1)).source_for(*ROD)
    forward, backward = _loops(source)
    assert "unbroadcast" not in source and "set_item" not in source, source
    assert "stack.append(lap)" in forward or "stack.append(t" in forward, source  # one array kept per step
    for made in ("np.zeros", ".copy()", "astype(np.float64)", "copy_array"):  # (astype(..., copy=False): no copy)
        assert made not in backward, source
    assert "u_bar[2:] += lap_bar" in backward.replace("u_1_bar", "u_bar"), source


def test_a_join_of_the_arrays_own_ends_is_a_write_into_it():
    source = srcdiff.grad(heat_concat, wrt=(0, 1)).source_for(*ROD)
    forward = _loops(source)[0]
    assert "u = u0.copy()" in source and "u[1:-1] += kappa * lap" in forward and "concatenate" not in forward, source


@pytest.mark.parametrize("f", [heat_copy_write, heat_in_place], ids=lambda f: f.__name__)
def test_a_write_into_the_carried_array_is_made_in_place(f):
    forward = _loops(srcdiff.grad(f, wrt=(0, 1)).source_for(*ROD))[0]
    assert "[1:-1] += kappa * lap" in forward and ".copy()" not in forward, forward


PLATE = (np.outer(np.sin(np.linspace(0.0, 3.0, 7)), np.cos(np.linspace(0.0, 2.0, 6))), 0.1, 4)


@pytest.mark.parametrize("f", [plate_in_place, plate_copy_write, heat_direct], ids=lambda f: f.__name__)
def test_a_plate_and_a_direct_write_update_one_array_each_way(f):
    args = ROD[:2] + ROD[3:] if f is heat_direct else PLATE
    source = srcdiff.grad(f, wrt=(0, 1)).source_for(*args)
    forward, backward = _loops(source)
    assert "unbroadcast" not in source and "set_item" not in source, source
    assert "+= kappa * " in forward and ".copy()" not in forward, source
    for made in ("np.zeros", ".copy()", "astype(np.float64)", "copy_array"):  # (astype(..., copy=False): no copy)
        assert made not in backward, source


def test_boundaries_two_wide_keep_their_run_time_shape_checks():
    # u[:2], u[2:-2] + ..., u[-2:] have u's length only when it is 4 or more: not provable from the
    # signature (an axis longer than one), so the sums back to shape stay
    x = np.linspace(0.0, 1.0, 8)
    assert "unbroadcast" in srcdiff.grad(wide_boundary).source_for(x, 0.05, 3)


SAME_AS_UNOPTIMISED = [
    (heat_concat, ROD, (0, 1)), (heat_pad, ROD, (0, 1)), (heat_copy_write, ROD, (0, 1)),
    (heat_in_place, ROD, (0, 1)), (heat_roll, ROD, (0, 1)),
    (nonlinear_diffusion, (np.cos(np.linspace(0.0, 2.0, 8)), 0.1, 4), 0),
    (advect_shifted, (np.cos(np.linspace(0.0, 2.0, 8)), 0.3, 4), (0, 1)),
    (wave_two_arrays, (np.cos(np.linspace(0.0, 2.0, 8)), np.zeros(8), 0.2, 4), (0, 1, 2)),
]


@pytest.mark.parametrize("f, args, wrt", SAME_AS_UNOPTIMISED, ids=lambda v: getattr(v, "__name__", None))
def test_the_optimised_gradient_is_the_unoptimised_one(f, args, wrt):
    # debug mode runs the generated statements as generated (only constants folded)
    got, want = srcdiff.grad(f, wrt=wrt)(*args), srcdiff.grad(f, wrt=wrt, debug=True)(*args)
    for a, b in zip(got if isinstance(wrt, tuple) else (got,), want if isinstance(wrt, tuple) else (want,)):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-15)


# ---- the lengths of pieces: brute force over every length -----------------------------------------


def _pieces_of(slices, n):
    return [np.arange(n)[s] for s in slices]


@pytest.mark.parametrize("slices, tiled", [
    ([slice(None, 1), slice(1, -1), slice(-1, None)], True),
    ([slice(None, 2), slice(2, None)], True),
    ([slice(1, None), slice(None, 1)], True),  # a rotation: the lengths add up
    ([slice(None, 2), slice(2, -2), slice(-2, None)], False),  # n = 2, 3 give 4
    ([slice(None, 1), slice(None, -1)], True),  # lengths add up, positions overlap: `partition` says no
])
def test_tiles_and_partition_agree_with_numpy(slices, tiled):
    from srcdiff.backend.optimize.shape_pieces import piece_of_slice
    pieces = [piece_of_slice(ast.parse(f"x[{_text(s)}]").body[0].value.slice) for s in slices]
    assert tiles(pieces, shapes.MANY) == tiled
    for n in [0] + list(range(2, 12)):
        found = _pieces_of(slices, n)
        assert (sum(len(p) for p in found) == n) or not tiled
    nodes = [ast.parse(f"x[{_text(s)}]").body[0].value.slice for s in slices]
    exact = all(sorted(np.concatenate(_pieces_of(slices, n))) == list(range(n)) for n in [0] + list(range(2, 12)))
    assert partition(nodes, shapes.MANY) == exact


def _text(s: slice) -> str:
    return f"{'' if s.start is None else s.start}:{'' if s.stop is None else s.stop}"


@pytest.mark.parametrize("pieces, extra, first", [
    ([("head", 1)], 0, shapes.MANY), ([("head", 1), ("slice", 2)], 0, shapes.MANY),
    ([("head", 1), ("slice", 2)], 0, shapes.UNKNOWN_DIM), ([("slice", 3)], 1, shapes.MANY),
    ([], 4, shapes.MANY), ([("slice", 0)], 0, shapes.MANY), ([("head", 2), ("slice", 4)], 0, shapes.MANY),
])
def test_a_constant_bound_takes_the_computed_bounds_place_at_every_length(pieces, extra, first):
    found = constant_bound(pieces, extra, first)
    lengths = [1] if first == shapes.ONE else [n for n in range(14) if n != 1 or first != shapes.MANY]
    positions = [min(extra + sum(min(p, n) if k == "head" else max(n - p, 0) for k, p in pieces), n)
                 for n in lengths]
    placed = [len(range(n)[:found[0]]) for n in lengths] if found is not None else None
    assert found is None or placed == positions
    if first == shapes.MANY and pieces == [("head", 1), ("slice", 2)]:
        assert found == (-1,)


# ---- the passes on code they must leave alone -----------------------------------------------------

VEC = shapes.Shape((shapes.MANY,))


def _function(source: str) -> ast.FunctionDef:
    return ast.parse(textwrap.dedent(source)).body[0]


def _run(source: str, *args):
    namespace = {"np": np, "math": math, "copy_array": copy_array, "set_item": set_item, "zero_item": zero_item,
                 "unbroadcast": lambda g, x: g}
    exec(compile(source, "<test>", "exec"), namespace)
    return namespace["f_grad"](*args)


def _optimized(source: str, shapes_: dict, adjoints=()) -> str:
    func = _function(source)
    params = frozenset(a.arg for a in func.args.args)
    info = OptimizeInfo(dict(shapes_), {a: a[:-4] for a in adjoints}, params, frozenset(params))
    return ast.unparse(optimize_function(func, info)) + "\n"


def _vectors(*names):
    return lambda n: VEC if n in names else shapes.UNKNOWN


def test_a_carried_array_that_grows_has_no_class():
    func = _function("""
    def f_grad(x):
        u = x
        for _ in range(3):
            u = np.concatenate([u, u[:1]])
        return u
    """)
    classes = shape_classes(func, lambda n: False, frozenset({"x"}), _vectors("x", "u"))
    assert classes.of(ast.Name("u")) != classes.of(ast.Name("x"))


def test_a_carried_array_rebuilt_from_its_own_pieces_keeps_its_class():
    func = _function("""
    def f_grad(x):
        u = x
        for _ in range(3):
            t = u[1:-1] * 2.0
            u = np.concatenate([u[:1], t, u[-1:]])
        return u
    """)
    classes = shape_classes(func, lambda n: False, frozenset({"x"}), _vectors("x", "u"))
    assert classes.of(ast.Name("u")) == classes.of(ast.Name("x")) is not None
    unknown_axis = shapes.Shape((shapes.UNKNOWN_DIM,))  # n = 1 would give 2 elements: not provable
    classes = ShapeClasses(func, lambda n: False, frozenset({"x"}),
                           lambda n: unknown_axis if n == "x" else shapes.UNKNOWN, {"u": ast.Name("x")})
    assert classes.broken({"u": ast.Name("x")}) == {"u"}


LATE_PIECE = """
def f_grad(g, d):
    g = copy_array(g)
    for _ in range(3):
        p = g[1:-1]
        g = g.copy()
        g[2:] += d
        g[:-2] += p
    return g, p
"""

LOOP_OVER_IT = """
def f_grad(g, d):
    g = copy_array(g)
    total = 0.0
    for x in g:
        p = g[1:]
        g = g.copy()
        g[1:] += p * d[1:]
        total = total + x
    return g, total
"""


@pytest.mark.parametrize("source", [LATE_PIECE, LOOP_OVER_IT], ids=["piece read after a write", "loop over it"])
def test_a_copy_that_must_stay_in_the_loop_stays(source):
    func = _function(source)
    assert not reassembly.copy_before_loops(func)
    args = (np.linspace(0.0, 1.0, 6), np.linspace(1.0, 2.0, 4 if source is LATE_PIECE else 6))
    for got, want in zip(_run(ast.unparse(func), *args), _run(textwrap.dedent(source), *args)):
        assert_close(got, want)


def test_a_stack_item_read_after_the_loop_is_kept():
    func = _function("""
    def f_grad(x, n):
        stack = []
        for _ in range(n):
            a = x * 2.0
            b = x * 3.0
            stack.append((a, b))
        total = 0.0
        for _ in range(n):
            a, b = stack.pop()
            total = total + np.sum(a)
        return total + np.sum(b)
    """)
    assert not stack_items.drop_unread_items(func)


def test_a_copy_skipped_by_continue_is_not_carried():
    source = """
    def f_grad(x, n):
        u = x
        for i in range(n):
            new = u.copy()
            new[0] = 5.0
            if i % 2:
                continue
            u = new
        return u
    """
    func = _function(source)
    assert not carried_writes.carry_copies(func)


def test_a_zeroed_copy_read_before_its_positions_come_back_stays_zeroed():
    source = """
    def f_grad(g):
        z = zero_item(g, np.s_[1:3])
        p = g[1:3]
        s = np.sum(z * 1.0)
        z[1:3] += p
        return z, s
    """
    func = _function(source)
    assert not zero_restore.restore_zeroed(func, lambda n: True, lambda n: True)


def test_a_zeroing_given_back_is_a_copy_with_the_same_values():
    source = """
    def f_grad(g, d):
        h = g
        z = zero_item(g, np.s_[1:-1])
        p = h[1:-1]
        q = p * d
        z[1:-1] += p
        z[2:] += q
        return z
    """
    func = _function(source)
    assert zero_restore.restore_zeroed(func, lambda n: True, lambda n: True)
    assert "zero_item" not in ast.unparse(func)
    args = (np.linspace(0.0, 1.0, 6), 0.5)
    assert np.array_equal(_run(ast.unparse(func), *args), _run(textwrap.dedent(source), *args))


def test_in_place_stencil_snippet_gives_the_same_values():
    # the whole optimizer on a forward loop writing into its carried array (a set_item each step)
    source = """
    def f_grad(x, k):
        u = x.copy()
        for _ in range(4):
            t = u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:])
            u_2 = set_item(u, np.s_[1:-1], t)
            u = u_2
        return u
    """
    out = _optimized(source, {"x": VEC, "u": VEC, "u_2": VEC, "t": shapes.Shape((shapes.UNKNOWN_DIM,)),
                              "k": shapes.SCALAR})
    assert "set_item" not in out and "u[1:-1] += k * " in out, out
    args = (np.linspace(0.0, 1.0, 7) ** 2, 0.2)
    assert np.array_equal(_run(out, *args), _run(textwrap.dedent(source), *args))


def test_a_join_that_does_not_tile_its_array_stays_a_join():
    # u[:1] and u[1:-1] * 2.0 make an array one shorter than u: no copy of u can be it
    source = """
    def f_grad(x):
        u = x
        for _ in range(3):
            u = np.concatenate([u[:1], u[1:-1] * 2.0])
        return u
    """
    out = _optimized(source, {"x": VEC, "u": shapes.Shape((shapes.UNKNOWN_DIM,))})
    assert "np.concatenate" in out, out
    x = np.linspace(1.0, 2.0, 9)
    assert np.array_equal(_run(out, x), _run(textwrap.dedent(source), x))


def test_a_join_of_the_arrays_ends_is_a_copy_written_into():
    source = """
    def f_grad(x, k):
        u = x
        for _ in range(3):
            u = np.concatenate([u[:1], u[1:-1] + k * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
        return u
    """
    out = _optimized(source, {"x": VEC, "u": VEC, "k": shapes.SCALAR})
    assert "np.concatenate" in out, out  # k's type is not known here: it might promote u's dtype
    func = _function(source)
    params = frozenset({"x", "k"})
    info = OptimizeInfo({"x": VEC, "u": VEC, "k": shapes.SCALAR}, {}, params, params, weak=frozenset({"k"}))
    out = ast.unparse(optimize_function(func, info))
    assert "np.concatenate" not in out and "u[1:-1] += " in out, out
    for x in (np.linspace(1.0, 2.0, 9) ** 2, np.linspace(1.0, 2.0, 9).astype(np.float32)):
        got, want = _run(out, x, 0.2), _run(textwrap.dedent(source), x, 0.2)
        assert got.dtype == want.dtype and np.array_equal(got, want)
