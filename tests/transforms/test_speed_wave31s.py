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

2. Sums of element-wise products of vectors, each product and difference a full temporary before
   the sum: a loss's value beside its gradient (``np.mean(0.5 * r * r - 0.5 * e * e)``: value_and_grad
   paid four passes and a sum over the gradient) and a number's adjoint (``np.sum(r * x)``).  Now dot
   products of vectors proved of one shape, ``(0.5 * (r @ r) - 0.5 * (e @ e)) / r.size``, in float64
   code (backend/optimize/dot_sums.py).
3. Float masks materialised: the adjoint of the side of ``np.where(abs(r) < beta, quad, abs(r) - k)``
   that only abs reads is ``np.where(c, 0.0, 1.0)`` times ``np.sign(r)``, a selection and a product,
   then added to the other side's selection.  A 0/1 mask read only as a factor is now the selection of
   that factor, which merges with the other side's into one ``np.where`` (backend/optimize/mask_products.py).

Each program runs through every transformation (hessian and numba included), against float64
central differences, and its optimised gradient and value_and_grad against the debug
(unoptimised) gradient and f's value.

Census (22 programs; ok / n/a / refused at the user's line / WRONG / BAD), the same before and after
the three rewrites:

                     ok  n/a  ref WRONG BAD
    grad             20    0    0     0   0
    value_and_grad   20    0    0     0   0
    hessian          15    4    0     1   0
    jvp              20    0    0     0   0
    vjp              20    0    0     0   0
    numba            20    0    0     0   0
    check            20    0    0     0   0
    tree             20    0    0     0   0

Two rows have no reference (winsor_sq_ties, l1_sign_ridge_zero: the loss itself is kinked there);
the one WRONG cell is the ramp's Hessian at its corners, NaN by design at a tie whose share jumps
(rules/kinks.py): NO_DERIVATIVE below, checked against the debug gradient only.

Open: np.sign and the tie guards still cost a pass each where a hand folds them into np.clip
(huber_sq_hinge, smooth_l1_min, huber_minmax: a selection of a product of a maximum's own value is
already zero off its condition except where that value is NaN, which the rewrite would not keep);
a number's adjoint summed over a rebound adjoint (``r_bar += ...``) is not proved of r's shape, so
it is not a dot yet.
"""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix, speed_checks
from . import speed_wave31s_programs as w

#: the rows the default run keeps through every transformation (`-m slow` runs them all)
KEPT = {"huber_minmax_ties", "sq_minus_hinge_ties", "twice_selected"}
#: rows at points where the loss has no derivative (a kink of the gradient itself: winsorising's edge,
#: |r| at 0, the ramp's corners): the matrix has no reference there (one-sided differences disagree,
#: the second derivative is NaN at a tie by design: rules/kinks.py); their half shares are checked
#: against the debug gradient only
NO_DERIVATIVE = {"winsor_sq_ties", "l1_sign_ridge_zero", "ramp_corners"}


def programs():
    return corpus.from_table(w.PROGRAMS, "w31s", "speed_wave31s_programs", 31)


def _name(p):
    return p.name.partition(":")[2]


#: rows at kinks: central differences of step h straddle them, within h of the derivative (the matrix's tolerance)
AT_KINKS = {"huber_minmax_ties", "huber_where_abs_ties", "eps_band_where_ties", "winsor_sq_ties",
            "l1_sign_ridge_zero", "ramp_corners", "sq_minus_hinge_ties"}


@pytest.mark.parametrize("program", [p for p in programs() if _name(p) not in AT_KINKS], ids=_name)
def test_gradient_against_central_differences(program):
    speed_checks.assert_near_central_differences(program)


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
    capped = _source(w.relu_capped, np.random.default_rng(0).standard_normal((700, 5)), np.ones(5))
    assert capped.count("keep_where(") == 2, capped
    # (huber_minmax's selections are gone since wave 35c: the minimum decided inside the maximum
    # makes the term they select zero case by case, cases.py)
    huber = _source(w.huber_minmax, *_big(w.residual()))
    assert "keep_where(" not in huber and "X.T @ (1.0 / t8[0] * c)" in huber, huber


def test_nested_selections_at_special_values():
    """The joined selections give the derivative's values at -0.0, the band's edges, NaN and inf
    (the arrays of 600: the bit masks' size)."""
    x = np.tile(np.array([-np.inf, -1.0, -0.0, 0.0, 0.3, 0.7, 1.0, np.inf, np.nan, -0.3]), 60)
    with np.errstate(invalid="ignore", over="ignore"):
        band = srcdiff.grad(w.band_nested)(x, -0.3, 0.7)
        inside = srcdiff.grad(w.inside_by_zeros)(x, -0.3, 0.7)
        np.testing.assert_array_equal(band, np.where((x > -0.3) & (x < 0.7), 2.0 * x, 0.0))
        np.testing.assert_allclose(inside, np.where((x < -0.3) | (x > 0.7), 0.0, (0.7 - x) - (x + 0.3)), rtol=1e-15)
    finite = np.linspace(-1.0, 1.0, 600)
    assert "logical_and" in _source(w.band_nested, finite, -0.3, 0.7)
    assert "logical_or" in _source(w.inside_by_zeros, finite, -0.3, 0.7)


def test_sums_of_products_are_dots():
    """A loss's value that sums products of vectors of one shape: dot products."""
    args = _big(w.residual())
    value = _source(w.sq_minus_hinge, *args, value=True)
    assert "(r @ r)" in value and "(e @ e)" in value and "np.mean" not in value, value
    # (huber_minmax's value was ``c @ t5`` while its gradient read t5 too; since wave 35c the gradient
    # is ``c`` scaled, and t5 is the value's alone)
    assert "X.T @ (1.0 / t9 * c)" in _source(w.huber_minmax, *args, value=True)


def test_sums_of_products_of_other_shapes_are_kept():
    """Vectors of shapes not proved equal (a broadcast), float32 and integers: the sum as written."""
    def broadcast(x, y):
        return np.sum(x * y)
    x, y = np.linspace(0.0, 1.0, 6), np.linspace(1.0, 2.0, 6)
    src = _source(broadcast, x.astype(np.float32), y.astype(np.float32), value=True)
    assert "np.sum(x * y)" in src or "(x * y).sum()" in src, src
    value, grad = srcdiff.value_and_grad(broadcast)(x, y[:1])   # (x @ y[:1] would raise)
    np.testing.assert_allclose(value, np.sum(x * y[0]), rtol=1e-15)
    np.testing.assert_allclose(grad, np.full(6, y[0]), rtol=1e-15)


def test_float_mask_read_as_a_factor_is_a_selection():
    """np.where's side only abs reads: its mask of floats is not made, the two sides one selection."""
    src = _source(w.smooth_l1_builtin, *_big(w.residual(extra=(0.7,))))
    assert "np.where(t2, 0.0, 1.0)" not in src and src.count("where(") == 1, src
    src = _source(w.where_mask_times, np.linspace(-1.0, 1.0, 600), 0.2)
    assert "1.0, 0.0)" not in src, src
