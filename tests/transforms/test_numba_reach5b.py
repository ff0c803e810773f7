"""jit="numba" on language classes it refused before (issue 23): stacks of matrices in
``slogdet``/``det``/``inv``/``solve`` (backend/numba/stacked.py), writes through integer index
arrays (points.py), joins of a list written in the call whose pieces are lists of numbers or
arrays of other dtypes (pieces.py), a shape tuple in arithmetic (shape_tuples.py), a tuple of
arrays' adjoint (``*args``), and a variable that is a number before a loop and an array in it
(backend/numba/joins.py).  Each gradient agrees with float64 central differences; float32
arguments keep their dtype.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

numba = pytest.importorskip("numba")


def _slow_but_first(cases):
    """numba compiles for seconds per program: the first of each class runs by default, the
    others with ``-m slow``."""
    return [pytest.param(f, a, id=f.__name__, marks=() if i == 0 else pytest.mark.slow)
            for i, (f, a) in enumerate(cases)]


def _rng(seed):
    return np.random.default_rng(seed)


def _agrees(func, args, wrt=0, rtol=1e-6, atol=1e-8):
    got = srcdiff.grad(func, wrt=wrt, jit="numba")(*args)
    want = central_difference(func, tuple(np.asarray(a, np.float64) if getattr(a, "dtype", None) == np.float32
                                          else a for a in args), wrt)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    return got


# ---- stacks of matrices -----------------------------------------------------------------

def slogdet_stack(x):
    sign, logdet = np.linalg.slogdet(x)
    return np.sum(sign * logdet)


def slogdet_product(x):
    return np.sum(np.linalg.slogdet(x)[0] * np.linalg.slogdet(x)[1])


def det_stack(x):
    return np.sum(np.linalg.det(x) ** 2)


def inv_stack(x, w):
    return np.sum(np.linalg.inv(x) * w)


def solve_stack(a, b):
    return np.sum(np.linalg.solve(a, b) ** 2)


def solve_stack_rhs(b, a):
    return np.sum(np.sin(np.linalg.solve(a, b)))


def det_single(x):
    return np.linalg.det(x) + np.linalg.slogdet(x)[1]


def _spd(shape, seed):
    r = _rng(seed)
    m = r.normal(size=shape)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


STACKS = [
    (slogdet_stack, (_spd((3, 3, 3), 1),)),
    (slogdet_product, (_spd((2, 4, 4), 2),)),
    (det_stack, (_spd((2, 2, 3, 3), 3) / 3,)),
    (inv_stack, (_spd((2, 3, 3), 4), _rng(5).normal(size=(2, 3, 3)))),
    (solve_stack, (_spd((3, 3, 3), 6), _rng(7).normal(size=(3, 3, 2)))),
    (solve_stack_rhs, (_rng(8).normal(size=(2, 4, 1)), _spd((2, 4, 4), 9))),
    (det_single, (_spd((3, 3), 10),)),
]


@pytest.mark.parametrize(("func", "args"), _slow_but_first(STACKS))
def test_stacks_of_matrices(func, args):
    _agrees(func, args)


def test_stack_in_float32_keeps_its_dtype():
    x = _spd((2, 3, 3), 11).astype(np.float32)
    got = _agrees(slogdet_stack, (x,), rtol=2e-3, atol=1e-4)
    assert got.dtype == np.float32


def test_a_solve_whose_stacks_broadcast_is_refused_when_run():
    a, b = _spd((2, 3, 3), 12), _rng(13).normal(size=(1, 3, 2))
    with pytest.raises(srcdiff.SrcDiffError, match="compiled gradient raised"):
        srcdiff.grad(solve_stack, jit="numba")(a, b)


# ---- writes through integer index arrays ----------------------------------------------------

def smoothed_targets_ce(logits, labels, eps=0.1):
    n, k = logits.shape
    target = np.full_like(logits, eps / (k - 1))
    target[np.arange(n), labels] = 1.0 - eps
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    return -(target * logp).sum() / n


def written_values(v, rows, cols):
    out = np.zeros((3, 4))
    out[rows, cols] = v * 2.0
    return np.sum(np.sin(out) * np.arange(12.0).reshape(3, 4))


def written_into_a_value(x, idx):
    y = x * 1.5
    y[idx] = np.cos(x[idx])
    return np.sum(y ** 2)


def written_with_a_number_axis(x, rows):
    y = np.tanh(x)
    y[rows, 1, np.array([0, 2])] = 0.5 * x[0, 0, 0]
    return np.sum(y * x)


POINTS = [
    (smoothed_targets_ce, (_rng(20).normal(size=(4, 3)), np.array([0, 2, 1, 1]))),
    (written_values, (_rng(21).normal(size=3), np.array([0, 2, -1]), np.array([1, 3, 0]))),
    (written_into_a_value, (_rng(22).normal(size=5), np.array([4, 0, -2]))),
    (written_with_a_number_axis, (_rng(23).normal(size=(3, 2, 3)), np.array([2, 0]))),
]


@pytest.mark.parametrize(("func", "args"), _slow_but_first(POINTS))
def test_writes_through_index_arrays(func, args):
    _agrees(func, args)


def test_a_write_through_index_arrays_in_float32():
    logits = _rng(24).normal(size=(5, 3)).astype(np.float32)
    got = _agrees(smoothed_targets_ce, (logits, np.array([0, 2, 1, 1, 0])), rtol=2e-3, atol=1e-4)
    assert got.dtype == np.float32


def test_a_repeated_position_is_refused_as_the_python_gradient_refuses_it():
    args = (_rng(25).normal(size=3), np.array([0, 0, 1]), np.array([1, 1, 0]))
    with pytest.raises(srcdiff.SrcDiffError, match="repeats a position"):
        srcdiff.grad(written_values)(*args)
    with pytest.raises(srcdiff.SrcDiffError, match="repeats a position"):
        srcdiff.grad(written_values, jit="numba")(*args)


def test_an_index_out_of_bounds_raises_as_numpy_does():
    args = (_rng(26).normal(size=5), np.array([4, 0, 7]))
    with pytest.raises(IndexError):
        written_into_a_value(*args)
    with pytest.raises((IndexError, srcdiff.SrcDiffError)):
        srcdiff.grad(written_into_a_value, jit="numba")(*args)


# ---- joins of a list written in the call ------------------------------------------------------

def mass_chain(x0, k=1.3, steps=6, dt=0.05):
    x = x0.copy()
    v = np.zeros_like(x0)
    for _ in range(steps):
        stretch = np.diff(np.concatenate([[0.0], x])) - 1.0
        tension = k * stretch
        force = tension - np.append(tension[1:], 0.0)
        v = v + dt * force
        x = x + dt * v
    return np.sum(x ** 2)


def padded_with_numbers(x):
    y = np.concatenate([[1.0, 2.0], np.sin(x), [0.5]])
    return np.sum(y[1:] * y[:-1])


def padded_in_front(x):
    y = np.concatenate([[1.0, 2.0], np.sin(x)])
    return np.sum(y[1:] * y[:-1])


def stacked_pieces(x):
    m = np.stack([x, x ** 2, [0.0, 1.0, 2.0]], axis=1)
    return np.sum(m @ np.array([1.0, -2.0, 0.5]))


def joined_with_a_double(x, w):
    return np.sum(np.concatenate([x * 2.0, w]) ** 2)


JOINS = [
    (mass_chain, (np.linspace(0.5, 2.0, 5),)),
    (padded_with_numbers, (_rng(30).normal(size=4),)),
    (padded_in_front, (_rng(31).normal(size=3),)),
    (stacked_pieces, (_rng(32).normal(size=3),)),
    (joined_with_a_double, (_rng(33).normal(size=3), _rng(34).normal(size=2))),
]


@pytest.mark.parametrize(("func", "args"), _slow_but_first(JOINS))
def test_joins_of_lists_written_in_the_call(func, args):
    _agrees(func, args)


def test_joined_pieces_of_two_dtypes():
    x = _rng(35).normal(size=3).astype(np.float32)
    got = _agrees(joined_with_a_double, (x, _rng(36).normal(size=2)), wrt=0)
    assert got.dtype == np.float32
    got = _agrees(padded_with_numbers, (x,), rtol=2e-3, atol=1e-4)
    assert got.dtype == np.float32


# ---- a shape tuple in arithmetic, a tuple of arrays ---------------------------------------------

def times_shape(x):
    return np.sum(x * np.shape(x))


def plus_shape(x):
    s = x.shape
    return np.sum(np.sin(x + s) / s)


def _sum_squares(*arrays, weight=1.0):
    total = 0.0
    for a in arrays:
        total = total + np.sum(a * a)
    return weight * total


def star_args(w, b):
    return _sum_squares(w, b, w[:2], weight=0.3) + np.sum(np.sin(w))


TUPLES = [
    (times_shape, (_rng(40).normal(size=3),)),
    (plus_shape, (_rng(41).normal(size=(2, 2)),)),
    (star_args, (_rng(43).normal(size=4), _rng(44).normal(size=4))),
]


@pytest.mark.parametrize(("func", "args"), _slow_but_first(TUPLES))
def test_tuples(func, args):
    _agrees(func, args)


def test_shape_arithmetic_in_float32():
    x = _rng(45).normal(size=(2, 2)).astype(np.float32)
    assert _agrees(plus_shape, (x,), rtol=2e-3, atol=1e-4).dtype == np.float32


# ---- a number before a loop, an array in it ----------------------------------------------------

def float_then_array(x, n):
    s = 0.0
    for i in range(n):
        s = s * 0.5 + np.sin(x * i)
    return np.sum(s)


def reversed_accumulator(x, n):
    s = 0.0
    for i in reversed(range(n)):
        s = s * 0.5 + np.sin(x * i)
    return np.sum((s + 1.0) ** 2)


def product_of_cosines(x):
    p = 1.0
    for i in range(3):
        p = p * np.cos(x + i)
    return np.sum(p * x)


def counted_while(x, w):
    s = 0.0
    k = 0
    while k < 3:
        s = s + np.tanh(x * w) * k
        k += 1
    return np.sum(s * s) + w * np.sum(x)


def rows_accumulated(x, W):
    acc = 0
    for row in range(W.shape[0]):
        acc = acc + W[row] * np.exp(-x)
    return np.mean(acc ** 2)


def scaled_after_the_loop(x, n, c):
    s = 0.0
    for i in range(n):
        s = s + x * (i + 1)
    return np.sum((s * c) ** 2 + 1.0)


LOOPS = [
    (float_then_array, (_rng(50).normal(size=3), 4)),
    (float_then_array, (_rng(51).normal(size=3), 0)),
    (reversed_accumulator, (_rng(52).normal(size=4), 0)),
    (reversed_accumulator, (_rng(53).normal(size=4), 3)),
    (product_of_cosines, (_rng(54).normal(size=(2, 3)),)),
    (counted_while, (_rng(55).normal(size=3), 0.7)),
    (rows_accumulated, (_rng(56).normal(size=3), _rng(57).normal(size=(4, 3)))),
    (scaled_after_the_loop, (_rng(58).normal(size=3), 0, 2.0)),
    (scaled_after_the_loop, (_rng(59).normal(size=3), 2, 2.0)),
]


@pytest.mark.parametrize(("func", "args"), _slow_but_first(LOOPS))
def test_a_number_that_a_loop_makes_an_array(func, args):
    _agrees(func, args)


@pytest.mark.parametrize("wrt", [1, 2])
def test_the_other_parameters_of_a_promoted_loop(wrt):
    args = (_rng(60).normal(size=3), 3, 0.8) if wrt == 2 else (_rng(60).normal(size=3), 0.7)
    func = scaled_after_the_loop if wrt == 2 else counted_while
    _agrees(func, args, wrt=wrt)


def test_a_promoted_loop_in_float32():
    x = _rng(61).normal(size=4).astype(np.float32)
    got = _agrees(product_of_cosines, (x,), rtol=2e-3, atol=1e-4)
    assert got.dtype == np.float32


def counted_axes(x, n):
    s = 0.0
    for i in range(n):
        s = s + x * i
    return np.sum(s) * np.ndim(s)


def indexed_after(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sin(x) * i
    return s[0] if n else s


@pytest.mark.parametrize(("func", "args"), [(counted_axes, (np.ones(3), 2)), (indexed_after, (np.ones(3), 2))])
def test_a_number_read_for_its_shape_is_left_to_numba(func, args):
    """A promotion would change what these compute (the number's ndim, an index): numba
    refuses them at the function, as before, or computes them right."""
    try:
        got = srcdiff.grad(func, jit="numba")(*args)
    except srcdiff.SrcDiffError as exc:
        assert "jit='numba'" in str(exc)
    else:
        np.testing.assert_allclose(got, central_difference(func, args, 0), rtol=1e-6, atol=1e-8)


# ---- np.rot90, np.pad, np.einsum with an ellipsis, a mask of a matrix -----------------------------

def turned(x):
    return np.sum(np.rot90(x) * np.arange(6.0).reshape(3, 2))


def turned_back(x):
    return np.sum(np.rot90(x, -1) ** 2 * np.arange(6.0).reshape(3, 2)) + np.sum(np.rot90(x, 2) * x)


def turned_in_3d(x):
    return np.sum(np.sin(np.rot90(x, 3, axes=(1, 2))) * np.arange(24.0).reshape(2, 4, 3))


def padded(x):
    return np.sum(np.pad(x, 1) ** 2 * np.arange(5.0))


def padded_unevenly(x):
    return np.sum(np.pad(x, ((1, 0), (0, 2)), constant_values=0.5) ** 2 * np.arange(15.0).reshape(3, 5))


def padded_by_a_pair(x):
    return np.sum(np.cumsum(np.pad(np.tanh(x), (2, 1), mode="constant")) ** 2)


def batched_dots(x, y):
    return np.sum(np.einsum("...i,...i->...", x, y) ** 2)


def batched_products(a, b):
    return np.sum(np.sin(np.einsum("...ij,jk", a, b)))


def positive_squares(x):
    return np.sum(x[x > 0] ** 2)


def masked_between(x):
    m = (x > -0.5) & (x < 0.8)
    return np.sum(np.exp(x[m])) + np.sum(x[~m] * 3.0)


def masked_in_3d(x, w):
    return np.sum(x[w > 0] * w[w > 0])


SHAPES = [
    (turned, (_rng(70).normal(size=(2, 3)),)),
    (turned_back, (_rng(71).normal(size=(2, 3)),)),
    (turned_in_3d, (_rng(72).normal(size=(2, 3, 4)),)),
    (padded, (_rng(73).normal(size=3),)),
    (padded_unevenly, (_rng(74).normal(size=(2, 3)),)),
    (padded_by_a_pair, (_rng(75).normal(size=4),)),
    (batched_dots, (_rng(76).normal(size=(2, 3)), _rng(77).normal(size=(2, 3)))),
    (batched_products, (_rng(78).normal(size=(2, 2, 3)), _rng(79).normal(size=(3, 2)))),
    (positive_squares, (_rng(80).normal(size=(3, 4)),)),
    (masked_between, (_rng(81).normal(size=(3, 3)),)),
    (masked_in_3d, (_rng(82).normal(size=(2, 2, 3)), _rng(83).normal(size=(2, 2, 3)))),
]


@pytest.mark.parametrize(("func", "args"), _slow_but_first(SHAPES))
def test_turns_pads_ellipses_and_masks(func, args):
    _agrees(func, args)


@pytest.mark.parametrize("func", [turned, padded_unevenly, positive_squares])
def test_turns_pads_and_masks_in_float32(func):
    x = _rng(84).normal(size=(2, 3)).astype(np.float32)
    x = x if func is not positive_squares else np.abs(x) * np.sign(x + 0.1).astype(np.float32)
    assert _agrees(func, (x,), rtol=2e-3, atol=1e-4).dtype == np.float32


# ---- np.clip of numbers, a builtin dtype in an allocation -----------------------------------------

def angle_between(a, b):
    c = np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))
    return np.arccos(np.clip(c, -1.0, 1.0))


def clipped_number(x):
    s = np.sum(x)
    return np.clip(s * 2.0, -0.5, 0.5) * np.sum(x ** 2) + np.clip(np.sin(s), 0, 1)


def lower_triangle(x):
    keep = np.tril(np.ones((3, 3), dtype=bool))
    return np.sum(np.where(keep, x, 0.0) ** 2) + np.sum(np.zeros(3, dtype=float) + x[0])


NUMBERS = [
    (angle_between, (_rng(90).normal(size=3), _rng(91).normal(size=3))),
    (clipped_number, (np.array([0.1, -0.3, 0.05]),)),
    (lower_triangle, (_rng(92).normal(size=(3, 3)),)),
]


@pytest.mark.parametrize(("func", "args"), _slow_but_first(NUMBERS))
def test_numbers_and_builtin_dtypes(func, args):
    _agrees(func, args)


# ---- joins of a list not written in the call --------------------------------------------------------

def hstack_of_a_list(x):
    pieces = [x, x ** 2]
    return np.sum(np.hstack(pieces) ** 2 * np.arange(6.0))


def column_stack_of_a_list(x, y):
    cols = [x, np.sin(y), x * y]
    return np.sum(np.column_stack(cols) @ np.array([1.0, 2.0, -1.0]))


def c_of_vectors(x, y):
    return np.sum(np.c_[x, y] ** 2 * np.arange(6.0).reshape(3, 2))


def c_of_matrices(a, b):
    return np.sum(np.tanh(np.c_[a, b]) * np.arange(10.0).reshape(2, 5))


def concatenated_in_a_loop(x):
    parts = []
    for k in range(3):
        parts.append(x * (k + 1.0))
    return np.sum(np.concatenate(parts) ** 2 * np.arange(12.0))


def vstack_of_a_comprehension(x):
    rows = [np.sin(x * k) for k in range(3)]
    return np.sum(np.vstack(rows) * np.arange(12.0).reshape(3, 4))


LIST_JOINS = [
    (hstack_of_a_list, (_rng(100).normal(size=3),)),
    (column_stack_of_a_list, (_rng(101).normal(size=4), _rng(102).normal(size=4))),
    (c_of_vectors, (_rng(103).normal(size=3), _rng(104).normal(size=3))),
    (c_of_matrices, (_rng(105).normal(size=(2, 3)), _rng(106).normal(size=(2, 2)))),
    (concatenated_in_a_loop, (_rng(107).normal(size=4),)),
    (vstack_of_a_comprehension, (_rng(108).normal(size=4),)),
]


@pytest.mark.parametrize(("func", "args"), _slow_but_first(LIST_JOINS))
def test_joins_of_lists_made_before_the_call(func, args):
    _agrees(func, args)


def test_a_join_of_a_list_in_float32():
    x = _rng(109).normal(size=3).astype(np.float32)
    assert _agrees(hstack_of_a_list, (x,), rtol=2e-3, atol=1e-4).dtype == np.float32


# ---- a list argument of arrays of two ndims -------------------------------------------------------

def dropout_mlp(W1, W2, X, masks, keep=0.8):
    h = np.maximum(X @ W1, 0.0)
    h = h * masks[0] / keep
    out = np.tanh(h @ W2) * masks[1] / keep
    return np.sum(out ** 2)


def loops_over_masks(x, masks):
    total = 0.0
    for m in masks:
        total = total + np.sum(x * m)
    return total


def test_a_list_argument_of_two_ndims_is_read_by_position():
    r = _rng(110)
    masks = [(r.uniform(size=(4, 3)) > 0.3).astype(float), (r.uniform(size=2) > 0.3).astype(float)]
    args = (r.normal(size=(2, 3)), r.normal(size=(3, 2)), r.normal(size=(4, 2)), masks)
    _agrees(dropout_mlp, args)
    _agrees(dropout_mlp, args, wrt=1)
    assert isinstance(masks, list)  # (the caller's list is left as it is)


def test_a_loop_over_a_list_of_two_ndims_is_refused_at_its_line():
    args = (_rng(111).normal(size=3), [np.ones(3), np.ones((2, 3))])
    with pytest.raises(srcdiff.SrcDiffError, match="jit='numba'") as info:
        srcdiff.grad(loops_over_masks, jit="numba")(*args)
    assert info.value.location is not None and info.value.location.line == loops_over_masks.__code__.co_firstlineno + 2
