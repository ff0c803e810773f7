"""A tie's half shares as the rare case (backend/optimize/tie_shares.py): where np.maximum or
np.minimum compares two values of one array, the adjoint selects once when no element is tied
or NaN, and keeps the three selections otherwise.  Programs written after the rewrite (not the
benchmark's pinball loss only), each through every transformation (hessian and numba included),
in float32, against float64 central differences, against the unoptimised (debug) gradient, at
exact ties and at NaN."""

import sys
from pathlib import Path

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix, speed_checks

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import variants18_contract as v18c  # noqa: E402


def scaled_by_arrays(w, X, y, a, b):
    """Both sides scaled by arrays: the gradient flowing in is a number, the shares' factors arrays."""
    r = X @ w - y
    return np.sum(np.maximum(a * r, b * r))


def squared_minimum(w, X, y, tau):
    """np.minimum's shares under a square: the gradient flowing in is an array."""
    r = y - X @ w
    m = np.minimum(tau * r, (tau - 1.0) * r)
    return np.sum(m * m * y)


def leaky_rows(W, X, v):
    """A leaky ReLU of a matrix, max(z, 0.2 z), read by a matrix product."""
    Z = X @ W
    H = np.maximum(Z, 0.2 * Z)
    return np.sum(np.tanh(H @ v))


def swapped_sides(w, X, y):
    """np.maximum(b, a) with the larger slope on the right, and the shares read again below."""
    r = X @ w - y
    top = np.maximum(-0.5 * r, 2.0 * r)
    return np.sum(top * top) + np.sum(np.minimum(r, 0.25 * r))


def relu_squared(w, X, y):
    """np.maximum with a constant: its other side is not differentiated (one selection of shares)."""
    r = y - X @ w
    return np.mean(np.maximum(r, 0.0) ** 2)


def relu_exp(w, X, y):
    """np.maximum with a constant under a function whose derivative is not 0 there: the shares stay."""
    r = y - X @ w
    return np.mean(np.exp(np.maximum(r, 0.0)))


def hinge_signs(w, X, y):
    """The hinge loss, the constant on the left and the share scaled by the labels."""
    return np.sum(np.maximum(0.0, 1.0 - y * (X @ w)) * (1.0 + 0.5 * y))


def capped_rows(W, X, v):
    """np.minimum of a matrix and a constant, read by a matrix product."""
    H = np.minimum(X @ W, 0.5)
    return np.sum(np.sin(H @ v))


def ramp(w, X, y):
    """The ramp loss: a hinge capped by np.minimum, two constant sides nested."""
    return np.sum(np.minimum(np.maximum(1.0 - y * (X @ w), 0.0), 2.0) * (1.0 + 0.25 * y))


def leaky_recurrence(W, xs):
    """A leaky ReLU of two values of one array inside a loop (the adjoint's shares per step)."""
    h = np.zeros(W.shape[0])
    for x in xs:
        a = W @ h + x
        h = np.maximum(a, 0.3 * a)
    return np.sum(h * h)


def _recurrence(rng):
    return 0.6 * rng.standard_normal((4, 4)), rng.standard_normal((5, 4))


def _residual(n=12, d=3, extra=(0.3,)):
    def make(rng):
        X = rng.standard_normal((n, d))
        return (0.4 * rng.standard_normal(d), X, rng.standard_normal(n)) + tuple(extra)
    return make


def _arrays(rng):
    X = rng.standard_normal((12, 3))
    return 0.4 * rng.standard_normal(3), X, rng.standard_normal(12), 1.0 + rng.random(12), -rng.random(12)


def _signs(rng):
    X = rng.standard_normal((12, 3))
    return 0.4 * rng.standard_normal(3), X, np.where(rng.random(12) < 0.5, -1.0, 1.0)


def _layer(rng):
    X = rng.standard_normal((7, 3))
    return 0.5 * rng.standard_normal((3, 4)), X, rng.standard_normal(4)


PROGRAMS = [
    ("pinball_l2", v18c.pinball_l2, _residual(extra=(0.3, 0.01)), 0),
    ("scaled_by_arrays", scaled_by_arrays, _arrays, 0),
    ("squared_minimum", squared_minimum, _residual(extra=(0.7,)), 0),
    ("leaky_rows", leaky_rows, _layer, 0),
    ("swapped_sides", swapped_sides, _residual(extra=()), 0),
    ("relu_squared", relu_squared, _residual(extra=()), 0),
    ("hinge_signs", hinge_signs, _signs, 0),
    ("capped_rows", capped_rows, _layer, 0),
    ("leaky_recurrence", leaky_recurrence, _recurrence, 0),
    ("ramp", ramp, lambda rng: (_signs(rng)[0] * 5.0,) + _signs(rng)[1:], 0),
]


def programs():
    return corpus.from_table(PROGRAMS, "speed22", "test_speed22_ties", 22)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_gradient_against_central_differences(program):
    speed_checks.assert_near_central_differences(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_optimised_equals_debug(program):
    speed_checks.assert_optimised_equals_debug(program)


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


def _at_ties(program):
    """w = 0: the residual is -y or y, exactly 0 (both sides tie at 0) at every third position."""
    args = list(program.args)
    y = np.array(args[2], dtype=float)
    y[::3] = 0.0
    args[0], args[2] = np.zeros_like(args[0]), y
    return args


TIED = [p for p in programs() if not any(word in p.name for word in ("rows", "hinge", "ramp", "recurrence"))]


@pytest.mark.parametrize("program", TIED, ids=lambda p: p.name)
def test_at_ties_as_unoptimised(program):
    """Where the two sides tie the shares are halves: the rare branch runs, the gradient is the
    unoptimised one."""
    args = _at_ties(program)
    got = srcdiff.grad(program.func, wrt=program.wrt)(*args)
    want = srcdiff.grad(program.func, wrt=program.wrt, debug=True)(*args)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("program", TIED, ids=lambda p: p.name)
def test_a_nan_residual_gives_nothing(program):
    """Where a residual is NaN neither side holds the value, so that sample adds nothing (it is
    selected out, as unoptimised): the gradient is the one of the other samples (a mean divides
    by one more)."""
    args = _at_ties(program)
    n = len(args[2])
    kept = [i for i in range(n) if i != 1]
    fewer = [a[kept] if isinstance(a, np.ndarray) and a.shape[:1] == (n,) else a for a in args]
    args[2] = args[2].copy()
    args[2][1] = np.nan
    got = srcdiff.grad(program.func, wrt=program.wrt)(*args)
    want = srcdiff.grad(program.func, wrt=program.wrt)(*fewer)
    if program.func in (v18c.pinball_l2, relu_squared):  # (a mean)
        want = want * (n - 1) / n
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_pinball_tie_by_hand():
    """pinball at r = 0: each side half the gradient, so the slope there is tau - 1/2."""
    w, X, y, tau, lam = _residual(extra=(0.3, 0.0))(np.random.default_rng(1))
    y[:4] = 0.0
    r = y - X @ np.zeros(3)
    slope = np.where(r > 0.0, tau, np.where(r < 0.0, tau - 1.0, tau - 0.5))
    want = -(X.T @ slope) / len(y)
    np.testing.assert_allclose(srcdiff.grad(v18c.pinball_l2)(np.zeros(3), X, y, tau, lam), want, rtol=1e-13)


def test_one_selection_where_nothing_ties():
    """The generated code: the three selections kept for the rare case, one where nothing ties."""
    args = _residual(extra=(0.3, 0.01))(np.random.default_rng(2))
    source = srcdiff.grad(v18c.pinball_l2).source_for(*args)
    want = """    r_below = t2 <= t4
    if any_equal(r_below, t2 >= t4):
        # a tie or a NaN: each side its share, half at a tie
        t5_shared = np.where(t2 == t4, 0.5 * t5_bar, t5_bar)
        r_bar = keep_where(r_below, t5_shared * t3)
        r_bar = r_bar + keep_where(t2 >= t4, t5_shared * tau)
    else:
        r_bar = np.where(r_below, t5_bar * t3, t5_bar * tau)
"""
    assert want in source, source


def test_hinge_at_its_kink_as_unoptimised():
    """w = 0 and labels scaled to put 1 - y s exactly at 0 at some samples: half the gradient there."""
    w, X, y = _signs(np.random.default_rng(4))
    w = np.array([0.5, 0.0, 0.0])
    X[::3, 0] = 2.0 * y[::3]  # 1 - y * (X @ w) = 1 - y * y = 0 there
    got = srcdiff.grad(hinge_signs)(w, X, y)
    np.testing.assert_allclose(got, srcdiff.grad(hinge_signs, debug=True)(w, X, y), rtol=1e-13, atol=1e-15)
    margin = 1.0 - y * (X @ w)
    slope = np.where(margin > 0.0, 1.0, np.where(margin == 0.0, 0.5, 0.0)) * (1.0 + 0.5 * y)
    np.testing.assert_allclose(got, -(X.T @ (slope * y)), rtol=1e-13)


def test_the_nested_share_is_the_rare_case():
    """np.maximum(r, 0.0): the shares where something ties, the gradient itself where nothing does."""
    args = _residual(extra=())(np.random.default_rng(2))
    source = srcdiff.grad(relu_exp).source_for(*args)
    want = """    if any_equal(r, 0.0):
        # a tie: half the gradient each side
        t2_shared = np.where(r == 0.0, 0.5 * t2_bar, t2_bar)
    else:
        t2_shared = t2_bar
    del t2_bar
    w_bar = -(X.T @ keep_where(r >= 0.0, t2_shared))
"""
    assert want in source, source
    # a square's gradient 2 m g is 0 at the tie, where its half is the same bits: no share at all
    # (backend/optimize/zero_ties.py), and the maximum read only where r >= 0.0 is r (selected_extrema.py)
    source = srcdiff.grad(relu_squared).source_for(*args)
    assert "any_equal" not in source and "keep_where(r >= 0.0, 1.0 / y.size * 2 * r)" in source


def test_float32_arguments_keep_the_shares():
    """float32 arrays: the rewrite is not made (the share and the gradient could differ in dtype)."""
    args = [a.astype(np.float32) if isinstance(a, np.ndarray) else a
            for a in _residual(extra=(0.3, 0.01))(np.random.default_rng(2))]
    assert ".any():" not in srcdiff.grad(v18c.pinball_l2).source_for(*args)


def test_no_selection_decided_twice():
    """The ramp's adjoint selects on each comparison once on a path: an inner ``np.where`` on a
    condition an outer one decided is folded, through selections on other conditions too."""
    import ast
    source = srcdiff.grad(ramp).source_for(*_signs(np.random.default_rng(3)))

    def repeated(node, decided):
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "np.where":
            key = ast.dump(node.args[0])
            return key in decided or any(repeated(a, decided | {key}) for a in node.args[1:])
        return any(repeated(child, decided) for child in ast.iter_child_nodes(node))

    assert not repeated(ast.parse(source), frozenset()), source


def test_the_loop_body_selects_once():
    """In a loop's adjoint too, the shares are the rare case."""
    source = srcdiff.grad(leaky_recurrence).source_for(*_recurrence(np.random.default_rng(5)))
    assert "if any_equal(" in source and "else:" in source, source
