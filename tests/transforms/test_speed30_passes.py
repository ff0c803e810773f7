"""Classes of slow generated code found on the held-out variants (benchmarks/variants30_heldout.py),
each fixed in the optimizer for every program of its kind, not for a benchmark:

* integer powers past 2 (``u ** 3``, ``x ** 4``, and ``x ** 3`` in the adjoint of ``x ** 4``):
  NumPy calls ``pow`` per element, ten times the products and a hundred times for negative
  bases (Tukey's biweight: value_and_grad 10.7x its hand gradient); now products
  (backend/optimize/simplify.py), within an ulp or two;
* ``t[0]`` of a name bound to ``A.shape`` read as an int by the contractions
  (backend/optimize/contract_shapes.py): the gradient of a pairwise RBF kernel spelled by
  broadcasting kept its n x m x d product (grad 2.1x hand while value_and_grad was 1.1x, whose
  ``len`` had been named apart);
* ``np.where(c, g, 0.0)`` (every side of np.maximum, np.abs, np.clip, np.where not taken):
  NumPy branches per element, mispredicted half the time on a residual's sign, five to ten
  times a product; now ``keep_where`` / ``zero_where`` (rules/selections.py), the same bits
  by a mask of g's bits (np.where itself where the mask does not apply);
* a sum's seed fill (``np.full(y.shape, 1.0)``) kept as an array where an adjoint made from it
  is rebound (``m_bar = -t7_bar; m_bar = m_bar + e``): now the number (backend/optimize/sameshape.py);
* a selection's decided value not read through a division's numerator nor where read twice
  (``t4_bar = np.where(c, 1.0 / beta, 0.0)`` under two selections on c), and two selections
  on one side of one condition added (``np.where(c, a, 0.0) + np.where(c, b, 0.0)``): now
  ``np.where(c, ..., 0.0)`` once (backend/optimize/wheres.py);
* np.clip's tie shares at its bounds computed on every call, one of them inside an expression,
  and its constant bound's ``np.where(False, 0.0, e)`` copied: now the rare case of
  ``any_equal(a, b, g)`` (backend/optimize/tie_shares.py), the decided branch folded.

Each program runs through every transformation (hessian and numba included), in float32,
against float64 central differences and against the unoptimised (debug) gradient.
"""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix, speed_checks


def tukey_cubed(w, X, y, c):
    """Tukey's biweight with its cube written as a power, on residuals past the window too."""
    r = X @ w - y
    inside = (np.abs(r) < c).astype(float)
    u = 1.0 - (r / c) ** 2
    return np.sum(inside * (1.0 - u ** 3) + (1.0 - inside))


def quartic_mean(x):
    """A fourth power of signed values: its adjoint holds a cube."""
    return np.mean(x ** 4 - 2.0 * x ** 3)


def pairs_by_shape(A, B):
    """A sum over pairs scaled by the count of rows read from A.shape (wrt A)."""
    d2 = np.sum((A[:, None, :] - B[None, :, :]) ** 2, axis=2)
    return np.sum(np.exp(-d2)) / A.shape[0]


def smooth_l1_minimum(w, X, y, beta):
    """Smooth L1 through np.minimum: the sum's seed reaches an adjoint that is rebound."""
    a = np.abs(X @ w - y)
    m = np.minimum(a, beta)
    return np.sum(0.5 * m * m / beta + a - m)


def clipped_layer(W, X, v):
    """A ReLU6 layer by np.clip (two bounds, two tie shares), read by a matrix product."""
    H = np.clip(X @ W, 0.0, 1.0)
    return np.sum(np.sin(H @ v))


def smooth_l1_where(w, X, y, beta):
    """Smooth L1 by np.where and builtin abs: the quadratic side's adjoint through a division."""
    r = X @ w - y
    a = abs(r)
    return np.sum(np.where(a < beta, 0.5 * r * r / beta, a - 0.5 * beta))


def hinge_where(w, X, y):
    """A hinge by np.where on a computed margin: the not-taken side an exact 0."""
    m = 1.0 - y * (X @ w)
    return np.mean(np.where(m > 0.0, m, 0.0))


def _residual(n=12, d=3, extra=(0.9,)):
    def make(rng):
        X = rng.standard_normal((n, d))
        return (0.4 * rng.standard_normal(d), X, rng.standard_normal(n)) + tuple(extra)
    return make


PROGRAMS = [
    ("tukey_cubed", tukey_cubed, _residual(), 0),
    ("quartic_mean", quartic_mean, lambda rng: (rng.standard_normal(9),), 0),
    ("smooth_l1_minimum", smooth_l1_minimum, _residual(extra=(0.8,)), 0),
    ("clipped_layer", clipped_layer, lambda rng: (rng.standard_normal((3, 4)), rng.standard_normal((7, 3)),
                                                  rng.standard_normal(4)), 0),
    ("smooth_l1_where", smooth_l1_where, _residual(extra=(0.7,)), 0),
    ("hinge_where", hinge_where, lambda rng: _residual(extra=())(rng)[:2] + (np.sign(rng.standard_normal(12)),), 0),
    ("pairs_by_shape", pairs_by_shape, lambda rng: (rng.standard_normal((5, 2)), rng.standard_normal((4, 2))), 0),
]


def programs():
    return corpus.from_table(PROGRAMS, "speed30", "test_speed30_passes", 30)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_gradient_against_central_differences(program):
    speed_checks.assert_near_central_differences(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_optimised_equals_debug(program):
    speed_checks.assert_optimised_equals_debug(program)


@pytest.mark.parametrize("program", corpus.first_in_default_run(programs()), ids=lambda p: p.name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)
    matrix.assert_numba_included(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


def _source(f, *args, value=False):
    """The generated code of `f`'s gradient (or value and gradient), comments left out."""
    g = (srcdiff.value_and_grad if value else srcdiff.grad)(f)
    g(*args)
    return "\n".join(line for line in g.source.splitlines() if not line.strip().startswith("#"))


def test_integer_powers_are_products():
    args = _residual()(np.random.default_rng(0))
    assert "**" not in _source(tukey_cubed, *args, value=True)
    assert "**" not in _source(quartic_mean, np.linspace(-1.0, 1.0, 5), value=True)


def cube_sum(x):
    return np.sum(x ** 4)


def test_powers_keep_special_values():
    """At 0, -0.0, inf, -inf and NaN the products give what ``pow`` gives."""
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -2.0, 3.0])
    value, got = srcdiff.value_and_grad(cube_sum)(x)
    np.testing.assert_array_equal(got, 4 * x ** 3)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(4 * x ** 3))
    assert "**" not in _source(cube_sum, x, value=True)
    assert np.isnan(value)


def test_a_count_read_from_a_shape_contracts():
    A, B = np.random.default_rng(1).standard_normal((6, 3)), np.random.default_rng(2).standard_normal((5, 3))
    source = _source(pairs_by_shape, A, B)
    assert "@ B" in source and "t3" not in source.split("del t3")[1]


def test_masked_selections_are_np_where_bit_for_bit():
    from srcdiff.rules.selections import keep_where, zero_where
    rng = np.random.default_rng(3)
    for dtype in (np.float64, np.float32):
        g = rng.standard_normal((40, 30)).astype(dtype)
        g.ravel()[:6] = [np.nan, -0.0, np.inf, -np.inf, 0.0, -1e-310]
        c = rng.random((40, 30)) < 0.5
        for got, want in ((keep_where(c, g), np.where(c, g, 0.0)), (zero_where(c, g), np.where(c, 0.0, g)),
                          (keep_where(c[:, :1], g), np.where(c[:, :1], g, 0.0)),  # (broadcast: np.where itself)
                          (keep_where(c.T, g.T), np.where(c.T, g.T, 0.0))):
            assert got.dtype == want.dtype and got.shape == want.shape
            assert got.tobytes() == np.ascontiguousarray(want).tobytes()


def test_selections_in_the_generated_code():
    """NumPy code selects by the mask; code srcdiff reads back (a hessian's gradient) keeps np.where."""
    args = _residual(n=600, extra=())(np.random.default_rng(4))
    args = args[:2] + (np.sign(args[2]),)
    assert "keep_where(" in _source(hinge_where, *args)
    np.testing.assert_allclose(srcdiff.hessian(hinge_where)(*args), np.zeros((3, 3)))


def test_seed_fill_is_a_number():
    args = _residual(extra=(0.8,))(np.random.default_rng(5))
    assert "np.full" not in _source(smooth_l1_minimum, *args)


def _at_bounds(program):
    """W = 0 but one column: X @ W is exactly 0 (the lower bound) in most places, and 1.0 (the upper) in some."""
    W, X, v = (np.array(a, dtype=float) for a in program.args)
    W[:] = 0.0
    X[::2, 0] = 1.0
    W[0, 1] = 1.0
    return W, X, v


def test_clip_at_both_bounds_as_unoptimised():
    program = next(p for p in programs() if p.name.endswith("clipped_layer"))
    args = _at_bounds(program)
    source = _source(clipped_layer, *args)
    assert source.count("any_equal(") == 2 and "False" not in source, source
    got = srcdiff.grad(clipped_layer)(*args)
    want = srcdiff.grad(clipped_layer, debug=True)(*args)
    np.testing.assert_array_equal(got, want)


def test_decided_selections_fold():
    args = _residual(extra=(0.7,))(np.random.default_rng(6))
    source = _source(smooth_l1_where, *args)
    # (one selection: since wave 31s the linear side's mask-times-sign merges with it, a np.where)
    selections = source.count("keep_where(") + source.count("np.where(")
    assert selections == 1 and "np.where(t2, 1.0, 0.0)" not in source, source
