"""Wave 36c: the speed of piecewise losses against a careful hand-written NumPy gradient (issue 26), on
held-out losses written first (benchmarks/variants36_piecewise.py; wave36c_programs.py holds them small,
with the rows tuned on and the shapes the rewrites read, some at exact ties).

CENSUS_AND_FINDINGS
"""

import ast

import numpy as np
import pytest

import srcdiff
from srcdiff.backend.optimize import widths

from . import corpus, matrix, speed_checks
from . import wave36c_programs as w

#: the rows the default run keeps through every transformation (`-m slow` runs them all)
KEPT = {"quantile_huber_ties", "eps_two_hinges"}

#: the rows the default run keeps for float32
KEPT_FLOAT32 = {"pinball_two"}

#: rows at kinks: central differences of step h straddle them (the matrix's tolerance), not within 1e-8
AT_KINKS = {"eps_two_hinges_ties", "quantile_huber_ties", "pinball_two_ties", "three_steps_ties",
            "truncated_l1_ties", "pinball_where_sum_ties"}

#: rows at points where the loss has no derivative (a jump of the gradient: one-sided differences disagree,
#: the matrix has no reference); test_optimised_equals_debug and test_at_ties_* hold them to the code as it was
NO_DERIVATIVE = {"eps_two_hinges_ties", "pinball_two_ties", "three_steps_ties", "truncated_l1_ties",
                 "pinball_where_sum_ties"}


def programs():
    return corpus.from_table(w.PROGRAMS, "w36c", "wave36c_programs", 36)


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", [p for p in programs() if _name(p) not in AT_KINKS], ids=_name)
def test_gradient_against_central_differences(program):
    speed_checks.assert_near_central_differences(program)


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_optimised_equals_debug(program):
    speed_checks.assert_optimised_equals_debug(program)


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in programs()
                                     if _name(p) not in NO_DERIVATIVE], ids=_name)
def test_every_transformation(program):
    """grad, value_and_grad, hessian, jvp, vjp, a tree, check and jit="numba"."""
    matrix.assert_ok_or_na(program, matrix.TRANSFORMS)


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT_FLOAT32, p)
                                     for p in matrix.with_array_argument(programs())], ids=_name)
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


def _source(f, *args):
    g = srcdiff.grad(f)
    g(*args)
    return "\n".join(line for line in g.source.splitlines() if not line.strip().startswith("#"))


def _residuals(n=600, d=3, seed=0, signs=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = X @ np.ones(d) + rng.standard_normal(n)
    return np.zeros(d), X, np.sign(y) if signs else y


@pytest.mark.parametrize("f, extra, written", [
    (w.v35.eps_two_hinges, (0.8,), "np.where(r <= -eps, -(1.0 / t9), zero_where(r <= eps, 1.0 / t9)) if -eps < eps "
     "and not any_equal(np.abs(r), eps) else"),
    (w.v35.quantile_huber, (0.3, 0.8), "np.where(r < 0.0, (1.0 - tau) * t8_bar, t8_bar * tau) * np.clip(r, -d, d) "
     "if -d < 0.0 < d else"),
    (w.v36.pinball_two, (0.1, 0.9), "X.T @ (np.where(below, -2.0 + hi + lo, hi + lo) * t10_bar)"),
    (w.three_steps, (0.7,), "np.where(r < -c, -1.0, np.where(r <= c, 0.0, 2.0)) if -c < c else")])
def test_gradients_of_pieces_are_selections(f, extra, written):
    """The operand of X.T @ that is constant (or a weight times a clip) piece by piece is one chain of
    selections of the residual, the thresholds' order checked where it runs, and the ties whose half
    shares take neither neighbour's value tested there (the code as it was at a tie)."""
    src = _source(f, *_residuals(), *extra)
    assert written in src, src


def _value_source(f, *args):
    g = srcdiff.value_and_grad(f)
    g(*args)
    return "\n".join(line for line in g.source.splitlines() if not line.strip().startswith("#"))


def test_a_value_piecewise_linear_is_one_selection():
    """value_and_grad's loss, a mean of lines of the residual (two quantiles' pinball), is one selection of
    the slopes times r (a dot product, the mean's size read from the name r); a value no cheaper so (the
    truncated L1's np.minimum of |r|) is kept as written."""
    src = _value_source(w.v36.pinball_two, *_residuals(), 0.1, 0.9)
    assert "pinball_two = np.where(r < 0.0, -2.0 + hi + lo, hi + lo) @ r / r.size" in src, src
    src = _value_source(w.v36.truncated_l1, *_residuals(), 0.8)
    assert "np.sum(np.minimum(t2, c))" in src and "np.clip" not in src, src


def test_lines_times_an_array_are_kept():
    """Pieces that are lines of the margin times the labels (the smoothed hinge): a chain would cost as
    many passes as the code as it was, which is kept; a tie's share alone (np.maximum's at 0) likewise."""
    src = _source(w.v33.smooth_hinge, *_residuals(signs=True), 0.01)
    assert "np.clip" not in src and "if 0.0 < 1.0" not in src, src


def test_a_parameter_named_like_a_dtype_is_a_number():
    """``half`` or ``single`` as the user's parameter is no float32 value made inside: the float64 rewrites
    apply (before, widths.narrows read the name as NumPy's dtype and turned them all off)."""
    src = _source(w.huber_single, *_residuals(), 0.8)
    assert "np.clip(r, -single, single)" in src, src
    assert not widths.narrows(ast.parse("def f(half, x):\n    single = 2.0 * half\n    return x * single").body[0])
    assert widths.narrows(ast.parse("def f(x):\n    return x.astype(np.half)").body[0])


@pytest.mark.parametrize("f, extra", [
    (w.v35.eps_two_hinges, (0.75,)), (w.v35.eps_two_hinges, (-0.75,)), (w.v35.eps_two_hinges, (0.0,)),
    (w.v35.eps_two_hinges, (np.inf,)), (w.v35.quantile_huber, (0.3, 0.75)), (w.v35.quantile_huber, (0.3, -0.75)),
    (w.v35.quantile_huber, (0.3, 0.0)), (w.v36.pinball_two, (0.1, 0.9)), (w.v36.pinball_two, (0.9, 0.1)),
    (w.pinball_where_sum, (0.3,)),
    (w.three_steps, (0.75,)), (w.three_steps, (-0.75,)), (w.three_steps, (0.0,)), (w.v36.truncated_l1, (0.75,))])
def test_at_ties_and_with_bounds_out_of_order(f, extra):
    """Residuals exactly at ±0.75, ±0.5 and ±0 (X of integers, w of few binary digits), thresholds in the
    order the rewrite assumes and not (a negative threshold, zero, inf): the unoptimised gradient to
    rounding, the ties' half shares included (a half share missed would be off by a quarter of a row)."""
    X = np.tile(np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 2.0], [0.0, -2.0], [0.0, 0.0], [3.0, 1.0]]), (100, 1))
    wv = np.array([0.75, 0.25])
    y = np.zeros(600)
    with np.errstate(invalid="ignore"):
        got = srcdiff.grad(f)(wv, X, y, *extra)
        want = srcdiff.grad(f, debug=True)(wv, X, y, *extra)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def test_the_ties_keep_their_shares():
    """SVR's two hinges at r = eps: np.maximum's half share, 0.5 / n (the hand-written gradient's 0 is
    another subgradient): the rewrite tests for the tie where it runs and the code as it was answers."""
    X, y = np.ones((600, 1)), np.zeros(600)
    assert srcdiff.grad(w.v35.eps_two_hinges)(np.array([0.75]), X, y, 0.75)[0] == pytest.approx(0.5)
    assert srcdiff.grad(w.v35.eps_two_hinges)(np.array([0.5]), X, y, 0.75)[0] == 0.0
    assert srcdiff.grad(w.v35.eps_two_hinges)(np.array([1.0]), X, y, 0.75)[0] == pytest.approx(1.0)
