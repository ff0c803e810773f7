"""Gated recurrent cells (gated_programs.py) through every transformation against central
differences, and the forms their gradients take: a sigmoid's adjoint read from its value (0, not
NaN, where it saturates), np.split's pieces as slices that still raise where NumPy does."""

import re
import warnings

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff

from . import corpus, matrix
from .gated_programs import PROGRAMS, gru_helper, ligru, lstm_stacked, sigmoid, unused_piece


def programs():
    return corpus.from_table(PROGRAMS, "gated", "gated_programs", 20)


def _program(name):
    return next(p for p in programs() if p.name == f"gated:{name}")


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name.partition(":")[2])
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name.partition(":")[2])
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name.partition(":")[2])
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


@pytest.mark.parametrize("name", ["gru_helper_Ur", "lstm_stacked_b", "ligru_U", "unused_piece"])
def test_hessian_against_differences_of_the_gradient(name):
    p = _program(name)
    grad = srcdiff.grad(p.func, wrt=p.wrt)
    x = p.args[p.wrt]
    H = np.reshape(srcdiff.hessian(p.func, wrt=p.wrt)(*p.args), (x.size, x.size))
    rows = []
    for k in range(x.size):
        step = np.zeros(x.size)
        step[k] = 1e-5
        at = [list(p.args), list(p.args)]
        at[0][p.wrt], at[1][p.wrt] = x + step.reshape(x.shape), x - step.reshape(x.shape)
        rows.append(np.ravel(grad(*at[0]) - grad(*at[1])) / 2e-5)
    assert_close(H, np.stack(rows), rtol=1e-5, atol=1e-7)


def saturated(x):
    return np.sum(1.0 / (1.0 + np.exp(-x)))


def saturated_helper(x, w):
    return np.sum(sigmoid(x) * w)


def test_a_saturated_sigmoid_has_the_derivative_zero_not_nan():
    """exp(800) overflows to inf: the derivative s (1 - s) is 0 there (s / d * e was 0 * inf)."""
    x = np.array([-800.0, -30.0, 0.0, 30.0, 800.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # exp's overflow, in the function as in the gradient
        for got in (srcdiff.grad(saturated)(x), srcdiff.grad(saturated_helper)(x, np.ones(5))):
            assert np.all(np.isfinite(got)), got
            assert got[0] == 0.0 and got[-1] == 0.0
            assert_close(got[1:4], central_difference(saturated, (x[1:4],), 0))


def _code(source):
    """The source without its comments (which quote the user's lines)."""
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))


def test_the_sigmoid_adjoint_is_read_from_its_value():
    """No exp(-x) kept for the backward sweep nor 1 + exp(-x) recomputed there: s * (1.0 - s)."""
    p = _program("gru_helper_Wz")
    source = srcdiff.grad(p.func, wrt=p.wrt).source_for(*p.args)
    backward = _code(source.split("# backward")[1])
    assert "np.exp" not in backward and re.search(r"\* \(1\.0 - (\w+)\)", backward), source
    assert not re.search(r"= 1(\.0)? \+ \w+\n", backward), source


def test_split_pieces_are_slices_and_the_adjoint_joins_them_once():
    p = _program("lstm_stacked_W_ih")
    source = _code(srcdiff.grad(p.func, wrt=p.wrt).source_for(*p.args))
    assert source.count("np.split(") == 1 and " else np.split(" in source, source  # the fallback only
    assert "[0.0] * len(" not in source, source


def uneven(x):
    a, b = np.split(x, 2)
    return np.sum(a * b)


def test_a_split_that_does_not_divide_raises_as_numpy_does():
    x = np.arange(5.0)
    with pytest.raises(ValueError):
        uneven(x)
    with pytest.raises((ValueError, srcdiff.SrcDiffError), match="equal division"):
        srcdiff.grad(uneven)(x)
    assert_close(srcdiff.grad(uneven)(np.arange(6.0)), central_difference(uneven, (np.arange(6.0),), 0))


def test_the_cells_at_benchmark_like_sizes():
    """Larger batches and states than the matrix's rows: the same code, checked against differences."""
    rng = np.random.default_rng(7)
    d, n, T, B = 4, 6, 5, 3
    cases = [(gru_helper, tuple(0.4 * rng.standard_normal(s) for s in ((d, n), (n, n)) * 3)
              + (rng.standard_normal((T, B, d)),), 3),
             (lstm_stacked, (0.4 * rng.standard_normal((4 * n, d)), 0.4 * rng.standard_normal((4 * n, n)),
                             0.1 * rng.standard_normal(4 * n), rng.standard_normal((T, B, d)),
                             rng.standard_normal((T, B, n))), 1),
             (ligru, (0.4 * rng.standard_normal((d, 2 * n)), 0.4 * rng.standard_normal((n, 2 * n)),
                      rng.standard_normal((T, B, d))), 1),
             (unused_piece, (rng.standard_normal(9), rng.standard_normal(3)), 0)]
    for func, args, wrt in cases:
        assert_close(srcdiff.grad(func, wrt=wrt)(*args), central_difference(func, args, wrt), rtol=1e-6, atol=1e-8)


def test_the_gated_update_gives_the_gate_one_product():
    """``h = z * h + (1 - z) * c``: the gate's adjoint is ``g * (h - c)``, its two terms' common
    factor taken out although other adjoints are computed between them."""
    for name in ("gru_helper_Wz", "ligru_W"):
        p = _program(name)
        backward = _code(srcdiff.grad(p.func, wrt=p.wrt).source_for(*p.args).split("# backward")[1])
        assert re.search(r"\bz_bar = \w+ \* \(\w+ - \w+\)\n", backward), backward


def test_a_relu_candidate_is_selected_once():
    """np.maximum(a, 0.0)'s tie rule selects with a >= 0 once, not again through the run-time select."""
    p = _program("ligru_U")
    source = srcdiff.grad(p.func, wrt=p.wrt).source_for(*p.args)
    assert "select(" not in source and source.count(">= 0.0") == 1, source


def split_of_a_sum(x, y):
    a, b, c = np.split(x + 2.0 * y, 3, axis=-1)
    return np.sum(a * b * c)


def test_a_sum_split_along_the_last_axis():
    """Sliced after ``...``, against central differences."""
    rng = np.random.default_rng(3)
    x, y = rng.standard_normal((2, 6)), rng.standard_normal(6)
    for wrt in (0, 1):
        assert_close(srcdiff.grad(split_of_a_sum, wrt=wrt)(x, y), central_difference(split_of_a_sum, (x, y), wrt))
    source = _code(srcdiff.grad(split_of_a_sum).source_for(x, y))
    assert "[..., :" in source, source


def two_blocks(U, hs, first, second):
    """Two products with column blocks of U, given by bounds: the blocks' adjoints may join."""
    total = 0.0
    for h in hs:
        a = np.tanh(h @ U[:, first[0]:first[1]])
        b = np.tanh(h @ U[:, second[0]:second[1]])
        total = total + np.sum(a * b)
    return total


def two_blocks_wide(U, hs):
    n = U.shape[1] // 3
    return two_blocks(U, hs, (n, 2 * n), (0, n)) + two_blocks(U, hs, (0, n), (2 * n, 3 * n))


def test_products_with_adjacent_column_blocks_are_joined():
    """The blocks [n:2n] then [0:n] (adjacent, given out of order) join into one product each way;
    [0:n] and [2n:3n] (not adjacent) do not; both against central differences."""
    rng = np.random.default_rng(11)
    U, hs = rng.standard_normal((3, 6)), rng.standard_normal((4, 2, 3))
    for wrt in (0, 1):
        assert_close(srcdiff.grad(two_blocks_wide, wrt=wrt)(U, hs), central_difference(two_blocks_wide, (U, hs), wrt))
    p = _program("ligru_U")
    source = _code(srcdiff.grad(p.func, wrt=p.wrt).source_for(*p.args))
    assert source.count("np.concatenate(") == 1 and source.count("U_bar[") == 1, source
