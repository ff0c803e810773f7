"""Wave 31s: first-order gradients of piecewise data losses (np.sign, abs, np.minimum / np.maximum,
np.where bands) against a careful hand-written NumPy gradient (issue 26), on held-out losses
written first (benchmarks/variants31_signs.py; speed_wave31s_programs.py holds them small, with
the optimizer's new cases and ties at the kinks).

Found and fixed (CENSUS below; ratios in the final report of the wave):

1. Selections against 0.0 nested in one adjoint, each a full pass (three for ``keep_where``'s bit
   mask): ``np.where(t4 <= 2.0, np.where(t3 >= 0.0, g, 0.0), 0.0)`` (a ramp's two corners, a clip
   spelled by np.minimum inside np.maximum) is now one selection on ``np.logical_and`` of the two
   conditions, bit for bit; and a selection whose value already vanishes where its condition fails
   (``np.where(t2 >= t3, s, 0.0)`` of a tie's share ``s`` of ``g = np.where(t2 >= t3, ..., 0.0)``:
   the minimum's zero guard selecting again what the maximum's adjoint selected) is the value
   itself, up to the sign of a zero (backend/optimize/joined_selections.py).

Each program runs through every transformation (hessian and numba included), against float64
central differences, and its optimised gradient and value_and_grad against the debug
(unoptimised) gradient and f's value.
"""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix, speed_checks
from . import speed_wave31s_programs as w

#: the rows the default run keeps through every transformation (`-m slow` runs them all)
KEPT = {"huber_minmax_ties", "ramp_corners", "twice_selected"}


def programs():
    return corpus.from_table(w.PROGRAMS, "w31s", "speed_wave31s_programs", 31)


def _name(p):
    return p.name.partition(":")[2]


#: rows at kinks: central differences of step h straddle them, within h of the derivative (the matrix's tolerance)
AT_KINKS = {"huber_minmax_ties", "huber_where_abs_ties", "eps_band_where_ties", "winsor_sq_ties",
            "l1_sign_ridge_zero", "ramp_corners"}


@pytest.mark.parametrize("program", [p for p in programs() if _name(p) not in AT_KINKS], ids=_name)
def test_gradient_against_central_differences(program):
    speed_checks.assert_near_central_differences(program)


@pytest.mark.parametrize("program", programs(), ids=_name)
def test_optimised_equals_debug(program):
    speed_checks.assert_optimised_equals_debug(program)


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in programs()], ids=_name)
def test_every_transformation(program):
    """grad, value_and_grad, hessian, hvp, jvp, vjp, jacobian, a tree, check and jit="numba"."""
    matrix.assert_numba_included(program)


@pytest.mark.parametrize("program", matrix.with_array_argument(programs()), ids=_name)
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


def _source(f, *args, value=False):
    """The generated code of `f`'s gradient (or value and gradient), comments left out."""
    g = (srcdiff.value_and_grad if value else srcdiff.grad)(f)
    g(*args)
    return "\n".join(line for line in g.source.splitlines() if not line.strip().startswith("#"))


def _big(make):
    """Arguments of 2000 rows: the bit masks' size (rules/selections.py)."""
    return w.residual(n=2000)(np.random.default_rng(0))[:3] + make(np.random.default_rng(0))[3:]


def test_nested_selections_are_one():
    """The ramp's two corners and np.minimum inside np.maximum: one selection each, on both conditions."""
    X = np.random.default_rng(1).standard_normal((2000, 3))
    ramp = _source(w.ramp, np.zeros(3), X, np.sign(X[:, 0]))
    assert "np.logical_and(" in ramp and "keep_where(keep_where" not in ramp.replace(" ", "")
    huber = _source(w.huber_minmax, *_big(w.residual()))
    assert huber.count("keep_where(") == 2, huber


def test_nested_selections_at_special_values():
    """The joined selections give the derivative's values at -0.0, the band's edges, NaN and inf
    (the arrays of 600: the bit masks' size)."""
    x = np.tile(np.array([-np.inf, -1.0, -0.0, 0.0, 0.3, 0.7, 1.0, np.inf, np.nan, -0.3]), 60)
    with np.errstate(invalid="ignore", over="ignore"):
        band = srcdiff.grad(w.band_nested)(x, -0.3, 0.7)
        inside = srcdiff.grad(w.inside_by_zeros)(x, -0.3, 0.7)
        np.testing.assert_array_equal(band, np.where((x > -0.3) & (x < 0.7), 2.0 * x, 0.0))
        np.testing.assert_allclose(inside, np.where((x < -0.3) | (x > 0.7), 0.0, (0.7 - x) - (x + 0.3)), rtol=1e-15)
    assert "logical_and" in _source(w.band_nested, x[:-10], -0.3, 0.7)
    assert "logical_or" in _source(w.inside_by_zeros, x[:-10], -0.3, 0.7)
