"""Wave 34d: the speed of piecewise losses against a careful hand-written NumPy gradient (issue 26),
on held-out losses written first (benchmarks/variants34_piecewise.py; wave34d_programs.py holds them
small, with the two losses tuned on and the shapes the rewrites read, some at exact ties).

Found and fixed, tuned on wave 33's huber_where_chain, smooth_hinge and huber_bool_mask only:

1. A chain of selections held in a temporary (backend/optimize/wheres.py): np.where's adjoint through nested np.where is
   ``t16_bar = np.where(c, 0.0, s); t15_bar = np.where(c, 0.0, np.where(e, 0.0, t16_bar))``, each a
   full pass, read only inside selections that decide `c` and `e`.  inline_decided substituted a
   temporary of one selection read once inside a selection on its own condition; now a chain of any
   depth is its innermost value wherever every condition it needs is decided, through nested
   selections on other conditions on the way (each re-broadcasts against its condition: no shape
   lost), bit for bit.  Huber by two np.where: 4 selections of the seed to 2 (its whole adjoint one
   expression, ``np.where(r > d, s * d, np.where(r < -d, s * -d, ...))``).
2. Complementary selections merged inside a selection's branch (merge_complements read the sums of
   assignments, operands and returns, not a call's arguments), and a difference of them, or a negated
   one (``x = -np.where(c, 0.0, a); x = x - np.where(c, 0.0, b)``: the smoothed hinge's adjoint), merged
   like a sum (the subtracted branch negated; up to the sign of a zero, as the sums already were).
   The smoothed hinge's 5 selections and 2 accumulations: one ``zero_where`` of one ``np.where``.
   (factor_branches moved to factored_branches.py: wheres.py had no room.)
3. Boolean masks times values (``small * (0.5 * r * r) + ~small * (d * np.abs(r) - k)``): ``~small``
   had no shape (shape_classes.py read ``-`` and ``+`` of an operand, not ``~``), so the adjoint kept
   the forward products for their shapes alone (``np.full(np.shape(t13), ...)``, three ``unbroadcast``)
   and multiplied by the masks.  ``~m`` now has `m`'s shape, and a product whose factors hold one
   boolean mask of arrays (a comparison's name, or ``~`` of one) or one selected number
   (``np.where(c, 0.0, s)``) is the selection of the other factors in their order
   (mask_products.py; bit for bit where the mask holds, 0.0 for a zero or NaN elsewhere, as float
   masks already were): Huber by boolean masks is one selection, ``np.where(small, r, d * np.sign(r))
   * s``.  Not for a comparison of numbers (its selection would be a 0-d array).

Census (20 programs, every cell run; ok / n/a / refused at the user's line / WRONG / BAD), the same
before and after (the default run keeps 1 row through every transformation, ``-m slow`` all; every
cell passes assert_ok_or_na before and after, and a tally with matrix.sample_everything() gave):

                     ok  n/a  ref WRONG BAD
    grad             20    0    0     0   0
    value_and_grad   20    0    0     0   0
    hessian          18    2    0     0   0
    jvp              20    0    0     0   0
    vjp              20    0    0     0   0
    numba            20    0    0     0   0
    check            20    0    0     0   0
    tree             20    0    0     0   0

(the two n/a: Huber's and the smoothed hinge's Hessians at residuals and margins on their kinks.)

Ratios grad/hand (value_and_grad/hand), before -> after: benchmarks/variants.py --quick --rounds 7,
CPU clock, one core, before (this branch's start) and after interleaved twice on a shared, loaded
machine, the mean of the two medians (rows whose code did not change moved by up to 0.08):

    tuned on      huber_where_chain 1.86 -> 1.34 (2.25 -> 1.73), smooth_hinge 1.61 -> 1.25
                  (2.07 -> 1.58), huber_bool_mask 1.64 -> 1.23 (1.71 -> 1.69); huber_sq_hinge 1.41 ->
                  1.44, smooth_l1_min 1.40 -> 1.42, huber_minmax 1.57 -> 1.54, huber_clip_excess 1.55
                  -> 1.49 (code unchanged: noise)
    held out      tukey_window 1.03 -> 1.05, cauchy_capped 1.25 -> 1.24, asym_huber 1.71 -> 1.75,
    (variants34)  sq_hinge_zero_first 1.09 -> 1.08, relu_mlp 1.05 -> 1.10, pinball_bool 1.01 -> 1.04,
                  capped_l1_where 0.99 -> 0.97, hardtanh_mlp 1.10 -> 1.10: none spells a selection
                  chain's adjoint nor a boolean mask as a factor, their code is unchanged (noise)

Open (the issue's 1.15x not reached on huber_where_chain, smooth_hinge, huber_bool_mask, and still
about 1.4-1.55x on huber_sq_hinge, smooth_l1_min, huber_minmax, huber_clip_excess and held-out
asym_huber 1.75, cauchy_capped 1.25): what is left is not a bit-for-bit rewrite but algebra a hand
does: ``r - max(|r| - d, 0) sign(r)`` and ``c (r - c / 2)``'s adjoint are ``clip(r, -d, d)`` only
for d >= 0 and round differently; np.clip's (and a minimum of a maximum's) two tie tests and their
half shares, needed where the gradient is not 0 at the tie; ``np.sign`` (three times a product) times
a selection; Huber by a np.where chain still computes ``s * (0.5 * r) + (0.5 * s) * r`` (one product
``s * r`` up to subnormals) and selects twice where np.clip is one pass; the selections a user's
np.where spells in the value stay in value_and_grad.
"""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix, table_tests
from . import wave34d_programs as w

#: the rows the default run keeps through every transformation (`-m slow` runs them all)
KEPT = {"smooth_hinge_ties"}

#: the rows the default run keeps for float32 (one per rewrite)
KEPT_FLOAT32 = {"huber_bool_mask", "negated_pieces", "huber_where_chain"}

#: rows at kinks: central differences of step h straddle them (the matrix's tolerance), not within 1e-8
AT_KINKS = {"huber_where_chain_ties", "smooth_hinge_ties", "asym_huber_ties"}


def programs():
    return corpus.from_table(w.PROGRAMS, "w34d", "wave34d_programs", 34)


def _name(p):
    return p.name.partition(":")[2]


SPEED = table_tests.Table(programs)
test_gradient_against_central_differences = SPEED.near_central_differences(AT_KINKS)
test_optimised_equals_debug = SPEED.optimised_equals_debug()


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in programs()], ids=_name)
def test_every_transformation(program):
    """grad, value_and_grad, hessian, jvp, vjp, a tree, check and jit="numba"."""
    matrix.assert_ok_or_na(program, matrix.TRANSFORMS)


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT_FLOAT32, p)
                                     for p in matrix.with_array_argument(programs())], ids=_name)
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


def _source(f, *args, **kw):
    g = srcdiff.grad(f, **kw)
    g(*args)
    return "\n".join(line for line in g.source.splitlines() if not line.strip().startswith("#"))


def _selections(src):
    return sum(src.count(s) for s in ("np.where(", "keep_where(", "zero_where("))


def _residuals(n=600, d=3, seed=0, signs=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = X @ np.ones(d) + rng.standard_normal(n)
    return np.zeros(d), X, np.sign(y) if signs else y


def test_chains_are_their_values_where_decided():
    """The selection chains' temporaries are gone: Huber by two np.where is two selections, the
    smoothed hinge one of one."""
    src = _source(w.v33.huber_where_chain, *_residuals(), 0.8)
    assert _selections(src) == 2 and "_bar = np.where(" not in src, src
    src = _source(w.v33.smooth_hinge, *_residuals(signs=True), 0.01)
    assert _selections(src) == 2 and src.count("X.T @") == 1, src


#: 600 values with the special finite ones: -1, -0.0, 0.0, the kinks ±0.5, ±1.5, 0.7 (the bit masks' size)
SPECIAL = np.tile(np.array([-1.0, -0.0, 0.0, 0.5, -0.5, 1.5, -1.5, 0.7, -0.7, 2.0]), 60)


@pytest.mark.parametrize("f, extra", [(w.three_pieces, (0.5, 1.5)), (w.negated_pieces, (0.7,)),
                                      (w.chain_read_outside, (0.5,)), (w.negated_pieces, (0.0,))])
def test_chains_at_special_values(f, extra):
    """Bit for bit the unoptimised gradient at ties, ±0 and on both sides of each kink (up to a zero's sign)."""
    np.testing.assert_array_equal(srcdiff.grad(f)(SPECIAL, *extra), srcdiff.grad(f, debug=True)(SPECIAL, *extra))


def test_boolean_masks_are_selections():
    """Huber by boolean masks times its pieces: one selection of the two pieces' adjoints, no product
    by the masks, no forward product kept for its shape alone."""
    src = _source(w.v33.huber_bool_mask, *_residuals(), 0.8)
    assert _selections(src) == 1 and "~" not in src and "unbroadcast" not in src, src
    src = _source(w.masked_middle, SPECIAL, 0.5)
    assert " * m" not in src and "m * " not in src, src


def test_a_mask_of_numbers_stays_a_product():
    """A comparison of numbers is a bool: its product stays one, the gradient a number (a selection
    would be a 0-d array)."""
    def f(x, a):
        on = a > 0.0
        return np.sum(x * x) * (on * a * a) + ~on * a  # (~True is -2: Python's int inversion)
    got = srcdiff.grad(f, wrt=1)(SPECIAL, 0.75)
    assert not isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, 2.0 * 0.75 * np.sum(SPECIAL * SPECIAL) - 2.0, rtol=1e-14)


@pytest.mark.parametrize("f, extra", [(w.masked_middle, (0.5,)), (w.masked_scalar_seed, (0.5,)),
                                      (w.masked_scalar_seed, (0.0,)), (w.masked_middle, (-0.0,))])
def test_boolean_masks_at_special_values(f, extra):
    """Bit for bit the unoptimised gradient at the masks' ties, ±0 and both sides (up to a zero's sign)."""
    np.testing.assert_array_equal(srcdiff.grad(f)(SPECIAL, *extra), srcdiff.grad(f, debug=True)(SPECIAL, *extra))


def test_ties_of_the_chains_are_the_pieces_they_select():
    """Huber by a np.where chain at r = ±d takes the middle piece (r > d fails): gradient r there, and the
    smoothed hinge at margins 1 and 0 the one its conditions select (0 and -y x)."""
    r = np.array([0.75, -0.75, 0.0, 2.0, -2.0] * 120)
    got = srcdiff.grad(lambda t: np.sum(np.where(t > 0.75, 0.75 * t, np.where(t < -0.75, -0.75 * t, 0.5 * t * t))))(r)
    np.testing.assert_array_equal(got[:5], [0.75, -0.75, 0.0, 0.75, -0.75])
    m = np.array([1.0, 0.0, 0.5, 2.0, -1.0] * 120)
    got = srcdiff.grad(lambda t: np.sum(np.where(t >= 1.0, 0.0, np.where(t <= 0.0, 0.5 - t, 0.5 * (1.0 - t) ** 2))))(m)
    np.testing.assert_array_equal(got[:5], [0.0, -1.0, -0.5, 0.0, -1.0])
