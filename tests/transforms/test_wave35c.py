"""Wave 35c: the speed of piecewise losses against a careful hand-written NumPy gradient (issue 26), on
held-out losses written first (benchmarks/variants35_piecewise.py; wave35c_programs.py holds them small,
with the losses tuned on and the shapes the rewrites read, some at exact ties).

Found and fixed, tuned on the known rows of waves 20-34 only (huber_sq_hinge, smooth_l1_min, huber_minmax,
huber_clip_excess, asym_huber, huber_where_chain, huber_bool_mask, eps_band_where, dead_zone_clip):

1. The remaining rows need rewrites that are exact in value but not bit for bit.  The rule, written in
   docs/how-it-works.md ("Rewrites that round differently"): proved equal in exact arithmetic on every
   open piece between the thresholds the code compares against; at each tie and kink the value the code
   gave, its own share (proved, or tested where it runs with the code as it was taking over); an order of
   the thresholds assumed only where the generated code tests it; NumPy code only, float64, never code
   srcdiff differentiates again nor numba.
2. backend/optimize/clip_cases.py (new, after the optimizer's main loop): an operand of ``@`` read through
   the statements that make it, as a function of one array `r` (np.abs, np.sign, comparisons, np.where,
   np.minimum / np.maximum / np.clip, arithmetic with numbers), evaluated as affine forms of `r` on each
   interval between its thresholds (and 0 under abs / sign) and at each threshold; where it is one line
   inside and lines of one slope outside meeting it, it is ``k * np.clip(r, lo, hi) + j * (r - np.clip(r,
   lo, hi)) + b``, guarded by ``lo < [0.0 <] hi`` (else the expression as it was), and by ``not
   any_equal(r, t)`` for each threshold whose tie shares give another value (Huber as a clip plus its
   excess: half of d at r = d).  Huber by a squared hinge, by a np.where chain, by boolean masks, by a
   clip plus its excess, with two deltas, smooth L1 by np.minimum: X.T @ (s * np.clip(r, -d, d)); the
   squared epsilon-insensitive loss by np.where on |r|: 2 (r - np.clip(r, -eps, eps)).
3. Zero cases (cases.py) read a decided extremum as the operand it equals only one level deep: Huber by
   ``np.maximum(np.minimum(r, d), -d)`` has c = t2 where t2 >= -d, and t2 = r where r <= d, so the
   selected term ``t7 * t5 - 0.5 * t7 * c`` was not seen to be zero.  Renames are now read transitively;
   and a mean's ``1.0 / t8[0]`` of ``t8 = X.shape`` is a number (scalars.py: a shape's items are ints;
   is_scalar_expr moved there from optimizer.py), so the forms are linear.  huber_minmax's gradient is
   ``X.T @ (1.0 / t8[0] * c)``.  Bit for bit but the term's rounding around zero (cases.py's rule).
4. Found, open (before this wave as after, in every transformation): Huber as ``0.5 c^2 + d |r - c|``
   (huber_clip_excess) at r = ±d gives half its derivative (np.clip's half share times sign(0) of
   r - c; the loss is smooth there), and its Hessian inside the band is NaN (wave 33e's open row).
5. (Written while testing it) a sign decided on forms alone would be wrong where NumPy rounds otherwise:
   ``np.abs(3.0 * r - 2.0 * r) <= d`` is ``|r| <= d`` in exact arithmetic only.  Every comparison, np.abs,
   np.sign and extremum clip_cases decides reads values computed without rounding, or one sum of two
   rounded once against 0 (rounded_band: kept as written).  The
   rewrite keeps those values (the tie is tested where it runs); test_huber_clip_excess_at_its_tie is
   an xfail that says so.

Census (24 programs, every cell run with matrix.sample_everything(); ok / n/a / refused at the user's
line / WRONG / BAD), the same before and after:

                     ok  n/a  ref WRONG BAD
    grad             23    0    0     1   0
    value_and_grad   23    0    0     1   0
    hessian          17    6    0     1   0
    jvp              23    0    0     1   0
    vjp              23    0    0     1   0
    numba            23    0    0     1   0
    check            23    0    0     1   0
    tree             23    0    0     1   0

(the WRONG cells: item 4, huber_clip_excess at its ties, and its Hessian inside the band; the n/a: the
Hessians at residuals exactly on the kinks.)

Ratios grad/hand (value_and_grad/hand), before -> after: benchmarks/variants.py --quick, CPU clock, one
core, before (this branch's start) and after interleaved twice on a shared, loaded machine, the mean of
the two medians (rows whose code did not change moved by up to 0.12: winsor_sq 1.07 -> 1.19, smooth_hinge
1.27 -> 1.36):

    tuned on      huber_sq_hinge 1.42 -> 1.06 (1.60 -> 1.29), smooth_l1_min 1.46 -> 0.99 (1.60 -> 1.27),
                  huber_minmax 1.50 -> 1.08 (1.52 -> 1.23), huber_clip_excess 1.62 -> 1.18 (1.79 ->
                  1.46), asym_huber 1.73 -> 1.17 (2.23 -> 1.63), huber_where_chain 1.33 -> 1.04 (1.74 ->
                  1.56), huber_bool_mask 1.21 -> 1.08 (1.64 -> 1.56), eps_band_where 1.12 -> 1.05
    held out      soft_threshold_sq 1.35 -> 1.08 (its gradient a dead zone, r - np.clip(r, -lam, lam));
    (variants35)  unchanged code (noise): eps_two_hinges 1.29 -> 1.33, berhu_hinge 1.03 -> 1.04,
                  quantile_huber 1.48 -> 1.53, capped_abs_square 1.15 -> 1.12, interval_sq_hinge 1.28 ->
                  1.27

Open: the held-out rows clip_cases does not reach: a gradient that jumps (SVR's two hinges: a sign of
r - np.clip(r)), a weight that jumps at 0 (quantile Huber), two arrays (the interval hinge's y beside
X w; the smoothed hinge's labels), a selection on |r| whose branches hold the residual's square;
value_and_grad still computes the value's selections beside the clip.
"""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix, table_tests
from . import wave35c_programs as w

#: the rows the default run keeps through every transformation (`-m slow` runs them all)
KEPT = {"huber_sq_hinge_ties"}

#: rows whose gradient at the tie is half the derivative in every transformation, before this wave as after
#: (open: ``d * np.abs(r - np.clip(r, -d, d))`` at r = d, sign(0) times np.clip's half share)
WRONG_AT_TIES = {"huber_clip_excess_ties"}

#: open, before this wave as after: the Hessian of ``d * np.abs(r - np.clip(r, -d, d))`` is NaN inside the
#: band, where r - clip(r) is 0 nearby (np.abs's kink held at a persistent tie), not 0
OPEN = {"huber_clip_excess": ("hessian",)}

#: the rows the default run keeps for float32
KEPT_FLOAT32 = {"huber_sq_hinge"}

#: rows at kinks: central differences of step h straddle them (the matrix's tolerance), not within 1e-8
AT_KINKS = {"huber_sq_hinge_ties", "huber_clip_excess_ties", "smooth_l1_min_ties", "asym_huber_ties",
            "huber_bool_mask_ties", "eps_band_where_ties"}


def programs():
    return corpus.from_table(w.PROGRAMS, "w35c", "wave35c_programs", 35)


def _name(p):
    return p.name.partition(":")[2]


SPEED = table_tests.Table(programs)
test_gradient_against_central_differences = SPEED.near_central_differences(AT_KINKS)
test_optimised_equals_debug = SPEED.optimised_equals_debug()


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in programs()
                                     if _name(p) not in WRONG_AT_TIES], ids=_name)
def test_every_transformation(program):
    """grad, value_and_grad, hessian, jvp, vjp, a tree, check and jit="numba"."""
    open_cells = OPEN.get(_name(program), ())
    matrix.assert_ok_or_na(program, tuple(t for t in matrix.TRANSFORMS if t not in open_cells))


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT_FLOAT32, p)
                                     for p in matrix.with_array_argument(programs())], ids=_name)
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


def _source(f, *args):
    g = srcdiff.grad(f)
    g(*args)
    return "\n".join(line for line in g.source.splitlines() if not line.strip().startswith("#"))


def _residuals(n=600, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    return np.zeros(d), X, X @ np.ones(d) + rng.standard_normal(n)


@pytest.mark.parametrize("f, extra, clip", [
    (w.v20.huber_sq_hinge, (0.8,), "np.clip(r, -delta, delta) if -delta < 0.0 < delta else"),
    (w.v20.smooth_l1_min, (0.8,), "np.clip(t2, -beta, beta) if -beta < 0.0 < beta else"),
    (w.v33.huber_where_chain, (0.8,), "np.clip(r, -d, d) if -d < d else"),
    (w.v33.huber_bool_mask, (0.8,), "np.clip(r, -d, d) if -d < 0.0 < d else"),
    (w.v33.huber_clip_excess, (0.8,), "np.clip(r, -d, d) if -d < d and not any_equal(np.abs(r), d) else"),
    # (the code gives 0 where r is NaN, a clip NaN: eps_band_where's loss is finite there; wave 36i)
    (w.v34.asym_huber, (0.5, 1.0), "np.clip(r, -lo, hi) if not np.isnan(r.sum()) and -lo < hi else"),
    (w.v31.eps_band_where, (0.8,), "(r - np.clip(r, -eps, eps)) if not np.isnan(r.sum()) and -eps < 0.0 < eps else")])
def test_gradients_that_are_clips_are_one(f, extra, clip):
    """The operand of X.T @ that is a clip case by case is one np.clip, the thresholds' order checked
    where it runs (and the ties whose shares give another value, where they do)."""
    src = _source(f, *_residuals(), *extra)
    assert clip in src and src.count("X.T @") == 1, src


def test_minimum_inside_maximum_is_decided():
    """Huber by np.maximum of np.minimum: its selected term is zero case by case (cases.py, each extremum
    read as the operand it equals there, through the other), the gradient the clipped value scaled."""
    src = _source(w.v31.huber_minmax, *_residuals(), 0.8)
    assert "_where(" not in src and "np.where(" not in src and "X.T @ (1.0 / t8[0] * c)" in src, src


def test_a_jump_is_no_clip():
    """A derivative that jumps where the pieces meet (slope d inside, 2d outside) is kept as written, and so
    is a band tested on ``3 r - 2 r`` (a sign NumPy may round otherwise than the forms say)."""
    assert "np.clip" not in _source(w.huber_jump, *_residuals(), 0.8)
    assert "np.clip" not in _source(w.rounded_band, *_residuals(), 0.8)


@pytest.mark.parametrize("f, extra", [
    (w.v20.huber_sq_hinge, (0.75,)), (w.v20.huber_sq_hinge, (-0.75,)), (w.v20.huber_sq_hinge, (0.0,)),
    (w.v20.huber_sq_hinge, (np.inf,)), (w.v33.huber_clip_excess, (0.75,)), (w.v33.huber_clip_excess, (0.0,)),
    (w.v33.huber_clip_excess, (-0.75,)), (w.v20.smooth_l1_min, (0.75,)), (w.v34.asym_huber, (0.5, 0.75)),
    (w.v34.asym_huber, (0.75, -0.5)), (w.v33.huber_where_chain, (0.75,)), (w.v33.huber_bool_mask, (0.75,)),
    (w.v31.eps_band_where, (0.75,)), (w.v31.eps_band_where, (-0.75,))])
def test_at_ties_and_with_bounds_out_of_order(f, extra):
    """Residuals exactly at ±0.75, ±0.5 and ±0 (X of integers, w of few binary digits), thresholds in the
    order the rewrite assumes and not (a negative delta, zero, inf): the unoptimised gradient to rounding,
    the ties' half shares included (a half share missed would be off by a quarter of a row)."""
    X = np.tile(np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 2.0], [0.0, -2.0], [0.0, 0.0], [3.0, 1.0]]), (100, 1))
    wv = np.array([0.75, 0.25])
    y = np.zeros(600)
    with np.errstate(invalid="ignore"):
        got = srcdiff.grad(f)(wv, X, y, *extra)
        want = srcdiff.grad(f, debug=True)(wv, X, y, *extra)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-13)


def test_the_ties_keep_their_shares():
    """Huber as a clip plus its excess at r = d: half of d there (np.clip's tie share times sign(0)), as
    before this wave, so the rewrite tests for ties where it runs; Huber by a squared hinge at r = d: d (its
    hinge's share is of 0)."""
    X, y = np.ones((600, 1)), np.zeros(600)
    wv = np.array([0.75])
    assert srcdiff.grad(w.v33.huber_clip_excess)(wv, X, y, 0.75)[0] == pytest.approx(0.5 * 0.75)
    assert srcdiff.grad(w.v20.huber_sq_hinge)(wv, X, y, 0.75)[0] == pytest.approx(0.75)


@pytest.mark.xfail(strict=True, reason="open: np.clip's half share at r = d times sign(0) of r - clip(r) is "
                   "half of Huber's derivative there, in every transformation (found by wave 35c, not fixed)")
def test_huber_clip_excess_at_its_tie():
    """Huber as 0.5 c^2 + d |r - c|, c = np.clip(r, -d, d), is smooth at r = d: its derivative is d."""
    X, y = np.ones((600, 1)), np.zeros(600)
    assert srcdiff.grad(w.v33.huber_clip_excess)(np.array([0.75]), X, y, 0.75)[0] == pytest.approx(0.75 * 600 / 600)
