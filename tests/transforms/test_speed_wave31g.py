"""Wave 31g: the test of a tie's rare case, ``any_equal(x, bound, g)`` (rules/kinks.py), at the
cost of the test itself (issue 26).

Found and fixed:

1. Every share of a share of one gradient (np.clip's two bounds, np.minimum inside np.maximum, a
   chain of maxima) is guarded by ``any_equal(x, bound, g)`` (backend/optimize/tie_shares.py):
   the else branch, the gradient itself, is only exact where `x` and `bound` broadcast to no more
   than `g`'s shape, which the helper checked by np.broadcast_shapes on every call. On arrays of
   ten thousand elements that check cost 3.7 us, more than the equality test and count it guards
   (2.8 us): the second guard of a clip cost 6.5 us where a hand pays nothing. Found and fixed
   (the class: every guard with a gradient to compare shapes with): the usual case, an array of
   the gradient's shape against a Python float or an array of that shape, is answered from the
   shapes directly; the others (per-column bounds, a column broadcast against a row, 0-d arrays)
   still go through np.broadcast_shapes. Exact as before: the same answer on every shape (test
   below), the same branch, the same derivatives at ties.

2. jit="numba" of np.clip whose array bounds broadcast x wider (``np.clip(x[:, None], -b, b)``):
   numba's np.clip kept x's shape, the compiled gradient disagreed with the Python one and was
   refused at the user's line; np.clip between array bounds is now NumPy's minimum of a maximum
   under numba (backend/numba/calculus_calls.py; tests/backend/test_wave31g_numba_clip.py).

speed_wave31g_programs.py holds losses with chained guards of every shape kind, also exactly on
the bounds, where central differences straddling the bound give the half shares.

Census (the 7 rows with a derivative to compare with, through the matrix's default sample; ok /
n/a / refused at the user's line / WRONG / BAD); before -> after where it changed:

                     ok  n/a  ref WRONG BAD
    grad              7    0    0     0   0
    value_and_grad    7    0    0     0   0
    hessian           1    1    0     0   0    (sampled)
    jvp               7    0    0     0   0
    vjp               7    0    0     0   0
    numba          6->7    0 1->0     0   0    (clip_outer: finding 2)
    tree              7    0    0     0   0

grad/hand on benchmarks/variants.py (1e4 rows, CPU clock, two interleaved runs each, before -> after):
huber_minmax 1.57-1.58 -> 1.45-1.55, logcosh_clip 1.27-1.29 -> 1.21-1.26, and held out (never read while
tuning) winsor_sq 1.20-1.38 -> 1.26-1.28, fair_abs 1.18-1.19 -> 1.19-1.22 (no chained guard: unchanged);
huber_sq_hinge and smooth_l1_min have no chained guard (unchanged, within the noise).

The 5 rows on bounds where the loss has no derivative (NO_DERIVATIVE) are checked against central
differences straddling the bound and against the debug gradient.

Open: np.sign(r) times a selection on |r| (huber_sq_hinge, smooth_l1_min) still costs a sign, a
product and a selection (17 us on 1e4 elements) where a hand writes one np.clip (4.5 us); a
rewrite to one where/clip must keep sign(0) = 0 at r = 0, which the bound does not exclude when it
is a runtime number (a guard on the bound's sign would be needed).  Likewise np.minimum inside
np.maximum (10.6 us) where np.clip costs 4.5 us.
"""

import numpy as np
import pytest
from numeric import central_difference

import srcdiff
from srcdiff.rules.kinks import any_equal

from . import corpus, matrix, speed_checks
from . import speed_wave31g_programs as w

#: the rows the default run keeps through every transformation (`-m slow` runs them all)
KEPT = {"logcosh_clip", "minmax_chain_ties"}
#: rows exactly on a bound where the loss itself has no derivative (the sides' slopes differ): the
#: matrix has no reference there; central differences straddling the bound give the sides' mean,
#: the half shares, to within the step
NO_DERIVATIVE = {"logcosh_clip_ties", "clip_array_bounds_ties", "clip_columns_ties", "clip_outer_ties",
                 "three_maxima_ties"}
#: rows on a bound: checked against central differences to within the step only
AT_BOUNDS = NO_DERIVATIVE | {"minmax_chain_ties"}


def programs():
    return corpus.from_table(w.PROGRAMS, "w31g", "speed_wave31g_programs", 31)


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.parametrize("program", [p for p in programs() if _name(p) not in AT_BOUNDS], ids=_name)
def test_gradient_against_central_differences(program):
    speed_checks.assert_near_central_differences(program)


@pytest.mark.parametrize("program", [p for p in programs() if _name(p) in AT_BOUNDS], ids=_name)
def test_half_shares_on_the_bounds(program):
    """On a bound, the gradient is the mean of the two sides' slopes: central differences whose step
    straddles the bound, to within the step."""
    got = srcdiff.grad(program.func, wrt=program.wrt)(*program.args)
    want = central_difference(program.func, program.args, program.wrt)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_optimised_equals_debug(program):
    speed_checks.assert_optimised_equals_debug(program)


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in programs()
                                     if _name(p) not in NO_DERIVATIVE], ids=_name)
def test_every_transformation(program):
    """grad, value_and_grad, hessian, jvp, vjp, a tree, check and jit="numba" (the Hessian n/a at the
    ties rows: the losses are once differentiable there)."""
    matrix.assert_ok_or_na(program, matrix.TRANSFORMS)


@pytest.mark.parametrize("program", matrix.with_array_argument(programs()), ids=_name)
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


def _shapes():
    """(x, y, like) of every kind a guard meets: numbers, 0-d arrays, equal shapes, broadcasts
    narrower, equal to and wider than `like`'s shape."""
    a, m = np.arange(6.0), np.arange(6.0).reshape(2, 3)
    return [(a, 2.0, a), (a, 2, a), (a, np.float64(2.0), a), (a, np.array(2.0), a), (a, a + 1.0, a),
            (2.0, a, a), (np.array(2.0), 2.0, 1.0), (2.0, 3.0, 1.0), (m, np.arange(3.0), m),
            (m[:, :1], np.arange(3.0), m), (m[:, :1], np.arange(3.0), m[:, :1]), (a[:1], 7.0, a),
            (a, 2.0, a[:1]), (a, 2.0, 1.0), (m, m, m.copy()), (a.astype(np.float32), 2.0, a),
            ([0.0, 2.0], 2.0, a[:2]), ([[0.0, 2.0]], 2.0, a[:2])]


@pytest.mark.parametrize("x, y, like", _shapes())
def test_any_equal_answers_as_broadcast_shapes_does(x, y, like):
    """The shape test without np.broadcast_shapes gives its answer on every kind of operand; a tie
    is seen wherever one is (the same operands with `y` moved onto an element of `x`)."""
    def reference(x, y, like):
        if np.broadcast_shapes(np.shape(x), np.shape(y), np.shape(like)) != np.shape(like):
            return True
        return bool(np.any(np.equal(x, y)))
    assert any_equal(x, y, like) == reference(x, y, like)
    tied = np.ravel(x)[-1]
    assert any_equal(x, tied, like) == reference(x, tied, like)
    assert any_equal(x, tied, like)
