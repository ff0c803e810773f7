"""Piecewise losses whose adjoint selections are zero case by case (backend/optimize/cases.py),
the fill of a mean's seed kept a number inside np.where (sameshape.py), and ``a @ -b`` as
``-(a @ b)`` (simplify.py): programs written after the rewrite (not the benchmark's four only),
each through every transformation (hessian and numba included), in float32, against float64
central differences, and at the kinks and ties where the documented convention decides."""

import sys
from pathlib import Path

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import variants18_contract as v18c  # noqa: E402
import variants20_piecewise as v20  # noqa: E402


def huber_minimum_scaled(w, X, y, delta):
    """The minimum's operands swapped, the quadratic spelled ``q * a - q * q / 2``."""
    a = np.abs(X @ w - y)
    q = np.minimum(delta, a)
    return np.sum(q * a - q * q / 2.0)


def huber_maximum(w, X, y, delta):
    """Huber's loss through np.maximum: q = max(-|r|, -d) is -min(|r|, d), -q (|r| + q / 2)."""
    a = np.abs(X @ w - y)
    q = np.maximum(-delta, -a)
    return -np.sum(q * (a + 0.5 * q))


def minimum_not_zero(w, X, y, delta):
    """q's adjoint ``(d - q)`` is zero where q is d, not where the minimum passes it on: kept."""
    a = np.abs(X @ w - y)
    q = np.minimum(a, delta)
    return np.sum(q * (delta - 0.5 * q) + a * a) / len(y)


def maximum_not_zero(w, X, y, delta):
    """As `minimum_not_zero` with np.maximum: q is a where a >= d, and there (d - q) is not zero;
    taking q for the other operand would drop a term that is not zero."""
    a = np.abs(X @ w - y)
    q = np.maximum(a, delta)
    return np.sum(q * (delta - 0.5 * q) + a * a) / len(y)


def maximum_floor(w, X, y, floor):
    """A maximum with a floor, the floor subtracted back: zero-cancelling only where it holds."""
    r = X @ w - y
    m = np.maximum(r, floor)
    return np.sum(m * (r - 0.5 * m)) + np.sum(np.tanh(r))


def where_decided(w, X, y, eps):
    """A forward np.where read inside the adjoint's branch on the same condition."""
    r = X @ w - y
    e = np.where(r > eps, r, eps)
    return np.sum(e * (r - 0.5 * e))


def _residual(n=12, d=3, extra=(0.8,), signs=False):
    return lambda rng: v20.residual_args(n=n, d=d, seed=int(rng.integers(1 << 30)), extra=extra, signs=signs)


PROGRAMS = [
    ("huber_minimum", v18c.huber_minimum, _residual(), 0),
    ("pinball_l2", v18c.pinball_l2, _residual(extra=(0.3, 0.1)), 0),
    ("smooth_l1_mask", v18c.smooth_l1_mask,
     lambda rng: v18c.residual_args(n=10, d=3, m=2, seed=int(rng.integers(1 << 30)), extra=(0.9,)), 0),
    ("eps_insensitive", v18c.eps_insensitive, _residual(extra=(0.5,)), 0),
    ("hinge_l2", v20.hinge_l2, _residual(extra=(0.05,), signs=True), 0),
    ("huber_clip", v20.huber_clip, _residual(), 0),
    ("huber_sq_hinge", v20.huber_sq_hinge, _residual(), 0),
    ("leaky_layer", v20.leaky_layer, lambda rng: v20.layer_args(n=9, d=3, h=4, seed=int(rng.integers(1 << 30))), 0),
    ("tukey_mask", v20.tukey_mask, _residual(extra=(2.5,)), 0),
    ("smooth_l1_min", v20.smooth_l1_min, _residual(), 0),
    ("capped_l1", v20.capped_l1, _residual(extra=(1.5,)), 0),
    ("huber_minimum_scaled", huber_minimum_scaled, _residual(), 0),
    ("huber_maximum", huber_maximum, _residual(), 0),
    ("minimum_not_zero", minimum_not_zero, _residual(), 0),
    ("maximum_not_zero", maximum_not_zero, _residual(), 0),
    ("maximum_floor", maximum_floor, _residual(extra=(-0.3,)), 0),
    ("where_decided", where_decided, _residual(extra=(0.2,)), 0),
]


def programs():
    return corpus.from_table(PROGRAMS, "speed20", "test_speed20_piecewise", 20)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_gradient_against_central_differences(program):
    got = srcdiff.grad(program.func, wrt=program.wrt)(*program.args)
    np.testing.assert_allclose(got, central_difference(program.func, program.args, program.wrt), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_hessian_and_numba(program):
    matrix.assert_ok(program, ("hessian",))
    matrix.assert_numba_included(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_jacobian_is_the_gradient(program):
    got = srcdiff.jacobian(program.func, wrt=program.wrt)(*program.args)
    np.testing.assert_allclose(np.reshape(got, np.shape(program.args[program.wrt])),
                               central_difference(program.func, program.args, program.wrt), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", [v18c.huber_minimum, v20.huber_clip, huber_minimum_scaled, huber_maximum])
def test_huber_has_no_selection_left(f):
    """The minimum's (the clip's) masked pass is gone: the adjoint of the residual is ``q / n``."""
    source = srcdiff.grad(f).source_for(*v20.residual_args(n=12, d=3))
    assert "np.where" not in source and "select" not in source, source


@pytest.mark.parametrize("f", [minimum_not_zero, maximum_not_zero])
def test_a_nonzero_branch_keeps_its_selection(f):
    source = srcdiff.grad(f).source_for(*v20.residual_args(n=12, d=3))
    assert "np.where" in source, source


def _kinks(delta):
    """w = 0, so the residual is -y: exactly at +-delta (the ties), at 0, inside and outside."""
    X = np.random.default_rng(5).standard_normal((8, 3))
    y = np.array([delta, -delta, 0.0, 0.25 * delta, -0.5 * delta, 3.0 * delta, -4.0 * delta, delta])
    return np.zeros(3), X, y, delta


@pytest.mark.parametrize("f", [v18c.huber_minimum, v20.huber_clip, huber_minimum_scaled, huber_maximum,
                               v20.smooth_l1_min])
def test_ties_and_zeros_keep_the_convention(f):
    """At |r| = delta a tie of np.minimum/np.clip shares the gradient half and half
    (docs/guarantees.md), which for these Huber spellings is exactly clip(r, -d, d); at r = 0
    it is 0: the rewrite must give the same numbers, never NaN."""
    w, X, y, delta = _kinks(0.75)
    got = srcdiff.grad(f)(w, X, y, delta)
    r = X @ w - y
    scale = {huber_minimum_scaled: 1.0, huber_maximum: 1.0, v20.smooth_l1_min: 1.0 / delta}.get(f, 1.0 / len(y))
    want = X.T @ (np.clip(r, -delta, delta) * scale)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    for jit in (None, "numba"):
        np.testing.assert_allclose(srcdiff.value_and_grad(f, jit=jit)(w, X, y, delta)[1], want, rtol=1e-12,
                                   atol=1e-15)


def test_capped_l1_at_the_cap_is_half():
    """At |r| = cap the minimum's tie passes half of sign(r) on."""
    w, X, y, cap = _kinks(1.5)
    r = X @ w - y
    a = np.abs(r)
    want = X.T @ (np.sign(r) * np.where(a < cap, 1.0, np.where(a == cap, 0.5, 0.0)))
    np.testing.assert_allclose(srcdiff.grad(v20.capped_l1)(w, X, y, cap), want, rtol=1e-12, atol=1e-15)


def test_pinball_at_zero_residual_is_the_mean_slope():
    """np.maximum(tau r, (tau - 1) r) ties at r = 0: half of each slope, tau - 1/2."""
    X = np.random.default_rng(6).standard_normal((4, 2))
    w, y, tau, lam = np.zeros(2), np.array([0.0, 1.0, -1.0, 0.0]), 0.3, 0.0
    r = y - X @ w
    slope = np.where(r > 0, tau, np.where(r < 0, tau - 1.0, tau - 0.5))
    want = -(X.T @ slope) / len(y)
    np.testing.assert_allclose(srcdiff.grad(v18c.pinball_l2)(w, X, y, tau, lam), want, rtol=1e-12, atol=1e-15)


# ---- the pass on its own: which operand a decided value stands for ----------------------------

CASE = """
def f_grad(a, d, c):
    g = c * a
    q = np.{fn}(a, d)
    t = c * (d - q)
    u = g + np.where({condition}, t, 0.0)
    return u
"""


def _dropped(fn, condition):
    """Whether `cases.drop_zero_cases` drops the selection from CASE (a vector, d and c numbers)."""
    import ast

    from srcdiff.backend.optimize.cases import drop_zero_cases
    from srcdiff.backend.optimize.shape_classes import shape_classes
    from srcdiff.ir import shapes

    func = ast.parse(CASE.format(fn=fn, condition=condition)).body[0]
    vector = shapes.Shape((shapes.MANY,))
    shape_of = {"a": vector, "g": vector, "q": vector, "t": vector, "u": vector, "d": shapes.Shape(()),
                "c": shapes.Shape(())}
    classes = shape_classes(func, lambda n: n in ("c", "d"), frozenset({"a", "d", "c"}),
                            lambda n: shape_of.get(n, shapes.UNKNOWN))
    return drop_zero_cases(func, classes, lambda n: True)


@pytest.mark.parametrize("fn, condition, dropped", [
    # t = c (d - q) is zero where q is d: where the minimum/maximum passes to d, not to a
    ("minimum", "a <= d", False), ("minimum", "d >= a", False), ("minimum", "a < d", False),
    ("minimum", "d <= a", True), ("minimum", "a >= d", True), ("minimum", "a > d", True),
    ("maximum", "a >= d", False), ("maximum", "d <= a", False), ("maximum", "a > d", False),
    ("maximum", "d >= a", True), ("maximum", "a <= d", True), ("maximum", "a < d", True),
    ("minimum", "a != d", False), ("maximum", "a == d", True),
])
def test_the_decided_operand(fn, condition, dropped):
    assert _dropped(fn, condition) is dropped


def test_a_negated_branch_leaves_the_selection():
    """hinge's ``np.where(c, -(s * y), 0.0)``: the sign moves out, then out of ``X.T @``."""
    import ast
    source = srcdiff.grad(v20.hinge_l2).source_for(*v20.residual_args(n=12, d=3, signs=True, extra=(0.1,)))
    wheres = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call) and ast.unparse(n.func) == "np.where"]
    assert wheres and not any(isinstance(a, ast.UnaryOp) for w in wheres for a in w.args), source
    assert "-= X.T @" in source, source
