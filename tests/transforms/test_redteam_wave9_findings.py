"""What the red team's ninth wave found, each a class with variants of its own.  A class still
open is a strict xfail naming it; references are float64 central differences of the function
(tests/numeric.py, and the matrix's own through `matrix.run`)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.linalg
from numeric import central_difference

import srcdiff

from .corpus import Program
from .matrix import OK, assert_every_transformation, assert_numba_agrees_or_refuses, run

HERE = "test_redteam_wave9_findings.py"
FIRST_ORDER = ("grad", "value_and_grad", "jvp", "vjp", "tree", "check")


def open_class(name: str, cases, failing):
    """`cases` as pytest params, the ones in `failing` a strict xfail naming the class."""
    return [pytest.param(c, marks=pytest.mark.xfail(strict=True, reason=name)) if c in failing else c for c in cases]


def _located_here(exc: srcdiff.SrcDiffError) -> bool:
    return exc.location is not None and str(exc.location.filename).endswith(HERE)


def _program(f, *args) -> Program:
    return Program(f"w9_findings:{f.__name__}", f, args, 0, HERE)


# ---- 1. a root raised to a power, at the root's zero: the gradient was NaN (a silent wrong answer) ----
# ``np.sqrt(np.sum(x ** 2)) ** 3`` at x = 0: the power's adjoint is 0 there and sqrt's is g / (2 * 0), so
# reverse mode gave 0 / 0 = NaN where the derivative is 0 (forward mode was right: `held_still`).
# FIXED: ad/zero_factors.held_by_zero_adjoint selects an exact 0 where such a root's adjoint is 0.


def root_cubed(x):
    return np.sqrt(np.sum(x ** 2)) ** 3


def root_of_dot_squared(x):
    r = np.sqrt(x @ x)
    return r ** 2 + np.sum(x)


def math_root_power(x):
    r = math.sqrt(x[0] * x[0] + x[1] * x[1])
    return r ** 2.5


def row_roots_cubed(x):
    return np.sum(np.sqrt(np.sum(x * x, axis=1)) ** 3)


def power_half_to_the_fourth(x):
    return np.power(np.sum(x * x), 0.5) ** 4


def square_of_root(x):
    return np.square(np.sqrt(x[0] ** 2 + x[1] ** 2)) + x[0]


ROOT_POWERS = [(root_cubed, np.zeros(3)), (root_of_dot_squared, np.zeros(2)), (math_root_power, np.zeros(2)),
               (row_roots_cubed, np.array([[0.0, 0.0], [0.3, -0.4]])), (power_half_to_the_fourth, np.zeros(2)),
               (square_of_root, np.zeros(2)), (root_cubed, np.zeros(3, dtype=np.float32))]


@pytest.mark.parametrize("f, x", ROOT_POWERS, ids=lambda v: getattr(v, "__name__", None) or str(np.asarray(v).dtype))
def test_a_root_raised_to_a_power_at_its_zero(f, x):
    row = run(_program(f, x), FIRST_ORDER)
    assert not row.excluded, row.excluded
    bad = {name: cell.message for name, cell in row.cells.items() if cell.outcome != OK}
    assert not bad, bad
    assert np.all(np.isfinite(srcdiff.grad(f)(x)))


@pytest.mark.parametrize("f, x", ROOT_POWERS[:3], ids=lambda v: getattr(v, "__name__", None) or "")
def test_a_root_raised_to_a_power_numba_agrees_or_refuses(f, x):
    assert_numba_agrees_or_refuses(_program(f, x))


@pytest.mark.parametrize("f", [root_cubed, row_roots_cubed, math_root_power])
def test_a_root_raised_to_a_power_away_from_zero_is_unchanged(f):
    x = np.array([[0.3, -0.4], [1.2, 0.5]]) if f is row_roots_cubed else np.array([0.3, -0.4, 0.2])
    x = x if f is not math_root_power else x[:2]
    np.testing.assert_allclose(srcdiff.grad(f)(x), central_difference(f, (x,), 0), rtol=1e-6, atol=1e-9)


def cbrt_cubed(x):
    return np.sum(np.cbrt(x) ** 3)


def test_a_root_inside_its_domain_keeps_its_honest_nan():
    # cbrt(x) ** 3 is x: its slope at 0 is 1, not the 0 a select would give; no select, NaN as before
    assert np.all(np.isnan(srcdiff.grad(cbrt_cubed)(np.zeros(2))))


@pytest.mark.xfail(strict=True, reason="second order of a root's power at the root's zero (NaN)")
def test_hessian_of_a_root_cubed_at_its_zero():
    # the Hessian of |x| ** 3 at 0 is 0; a derivable gradient keeps the 0 / 0 (a select would make
    # sqrt(u) ** 2, which is u, have Hessian 0 instead of 2)
    np.testing.assert_allclose(srcdiff.hessian(root_cubed)(np.zeros(3)), np.zeros((3, 3)), atol=1e-12)


# ---- 2. a result reached only through comparisons (bisection, a search): the gradient is 0 ----------
# The returned value is computed from constants; the differentiated input only decides the branches.
# The program's own derivative is 0 almost everywhere (a staircase with steps of the tolerance) but the
# user means the root's: srcdiff answered 0 silently.  FIXED: ad/searches.py refuses at the loop, in
# both sweeps (tests/transforms/test_comparison_searches.py: variants through every transformation).


def bisection_while(k, tol=1e-12):
    lo, hi = 0.0, 2.0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if mid ** 3 + k * mid - 1.0 > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def bisection_fixed_steps(k):
    lo, hi = -3.0, 3.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if np.tanh(mid) > k:
            hi = mid
        else:
            lo = mid
    return lo


def golden_section_argmin(k, tol=1e-10):
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = -2.0, 2.0
    while b - a > tol:
        c, d = b - ratio * (b - a), a + ratio * (b - a)
        if (c - k) ** 2 + 0.1 * c ** 4 < (d - k) ** 2 + 0.1 * d ** 4:
            b = d
        else:
            a = c
    return 0.5 * (a + b)


@pytest.mark.parametrize("f", [bisection_while, bisection_fixed_steps, golden_section_argmin],
                         ids=lambda f: f.__name__)
def test_a_result_reached_only_through_comparisons_is_refused_or_right(f):
    k = 0.7 if f is not bisection_fixed_steps else 0.3
    try:
        got = srcdiff.grad(f)(k)
    except srcdiff.SrcDiffError as exc:
        assert _located_here(exc), str(exc)
        return
    want = central_difference(f, (k,), 0, eps=1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-4)


# ---- 3. a refusal inside an installed library's function named the library's file ------------------
# ``scipy.linalg.cho_factor(K)``: scipy wraps it in a decorator srcdiff will not see through, and the
# refusal named scipy/_lib/_util.py:1149 (no line the user can change).  FIXED: lower/user_calls.py
# names the user's call, the library's line in the message.


def cho_factor_solve(K, y):
    c, low = scipy.linalg.cho_factor(K @ K.T + np.eye(3))
    return y @ scipy.linalg.cho_solve((c, low), y)


def lu_factor_sum(K):
    lu, piv = scipy.linalg.lu_factor(K)
    return np.sum(lu)


def scipy_logm_trace(K):
    return np.trace(scipy.linalg.logm(K @ K.T + np.eye(3)))


def scipy_eigh_values(K):
    return np.sum(scipy.linalg.eigh(K @ K.T)[0] ** 2)


def test_cho_factor_and_cho_solve_are_differentiated():
    """Was refused inside SciPy's batch decorator; now a Cholesky factor and two triangular solves
    (frontend/cholesky_factors.py; variants in reach10_programs.py)."""
    K = np.eye(3) + 0.1 * np.arange(9.0).reshape(3, 3)
    args = (K, np.ones(3))
    np.testing.assert_allclose(srcdiff.grad(cho_factor_solve)(*args), central_difference(cho_factor_solve, args, 0),
                               rtol=1e-5, atol=1e-7)


def test_lu_factor_is_differentiated_since():
    """scipy.linalg.lu_factor has a rule now (rules15: the row swaps carry no gradient)."""
    K = np.eye(3) + 0.1 * np.arange(9.0).reshape(3, 3)
    np.testing.assert_allclose(srcdiff.grad(lu_factor_sum)(K), central_difference(lu_factor_sum, (K,), 0),
                               rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("f", [scipy_logm_trace, scipy_eigh_values], ids=lambda f: f.__name__)
def test_a_refusal_inside_a_library_function_names_the_users_call(f):
    K = np.eye(3) + 0.1 * np.arange(9.0).reshape(3, 3)
    args = (K,)
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(f)(*args)
    assert _located_here(info.value), str(info.value)
    assert "scipy" in str(info.value).splitlines()[0]
    assert "scipy.linalg" in info.value.location.code


# ---- 4. `match` on a value was refused ----------------------------------------------------------------
# FIXED: frontend/desugar_match.py writes a match on values (literals, dotted constants, None, `|`,
# the wildcard, a capture, guards) as the if/elif chain it stands for.


class Mode:
    FAST = "fast"
    EXACT = "exact"


def match_literals(W, X, name="softplus"):
    z = X @ W
    match name:
        case "relu":
            h = np.maximum(z, 0.0)
        case "tanh" | "gelu":
            h = np.tanh(z)
        case _:
            h = np.logaddexp(0.0, z)
    return np.sum(h ** 2)


def match_in_loop_with_guard(w, X):
    total = 0.0
    for i in range(3):
        match i:
            case 0:
                total = total + np.sum(np.sin(X @ w))
            case k if k % 2 == 1:
                total = total + k * np.sum(w ** 2)
            case other:
                total = total + other * np.sum(np.tanh(X @ w))
    return total


def match_dotted_and_none(w, X, mode=Mode.EXACT, scale=None):
    match mode:
        case Mode.FAST:
            r = X @ w
        case Mode.EXACT:
            r = np.tanh(X @ w)
    match scale:
        case None:
            s = 1.0
        case _:
            s = scale
    return s * np.sum(r ** 2)


def match_on_a_call(w, X):
    match len(w):
        case 3:
            return np.sum((X @ w) ** 2)
        case _:
            return np.sum(w)


MATCHES = [match_literals, match_in_loop_with_guard, match_dotted_and_none, match_on_a_call]


def _match_args(f):
    rng = np.random.default_rng(9)
    return (rng.normal(size=(3, 2)) if f is match_literals else rng.normal(size=3)), rng.normal(size=(4, 3))


@pytest.mark.parametrize("f", MATCHES, ids=lambda f: f.__name__)
def test_match_on_values_through_every_transformation(f):
    assert_every_transformation(_program(f, *_match_args(f)))


@pytest.mark.parametrize("f", MATCHES[:2], ids=lambda f: f.__name__)
def test_match_on_values_numba_agrees_or_refuses(f):
    assert_numba_agrees_or_refuses(_program(f, *_match_args(f)))


def test_match_takes_the_branch_of_each_value():
    W, X = _match_args(match_literals)
    for name in ("relu", "tanh", "gelu", "softplus"):
        got = srcdiff.grad(match_literals)(W, X, name)
        np.testing.assert_allclose(got, central_difference(match_literals, (W, X, name), 0), rtol=1e-5, atol=1e-7)


def match_sequence_pattern(w):
    match w.shape:
        case (n,):
            return np.sum(w ** n)
    return 0.0


def test_a_match_on_structure_is_still_refused_at_its_line():
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.grad(match_sequence_pattern)(np.ones(2))
    assert _located_here(info.value) and "match" in str(info.value)


# ---- 5. np.diag's result had no known rank: rules that need it refused ("not differentiable") ----------
# ``np.kron(np.diag(a), B)``: kron's adjoint interleaves axes and needs both ranks, and np.diag's shape
# was unknown (a vector's diagonal is a matrix, a matrix's a vector), so grad refused saying kron "is not
# differentiable with respect to its argument 'x'".  FIXED: rules/numpy_linalg.py gives np.diag a shape.


def kron_of_diagonal(a, B):
    return np.sum(np.tanh(np.kron(np.diag(a), B)) ** 2)


def kron_with_diagonal_second(a, B):
    return np.sum(np.kron(B, np.diag(a, k=1)) ** 2)


def det_of_diagonal_plus(a, B):
    return np.log(np.linalg.det(np.diag(a) + B @ B.T)) + np.linalg.det(np.diag(a))


def diagonal_of_a_product(a, B):
    return np.sum(np.diag(np.diag(a) @ B) ** 3)


DIAGONALS = [kron_of_diagonal, kron_with_diagonal_second, det_of_diagonal_plus, diagonal_of_a_product]


@pytest.mark.parametrize("f", DIAGONALS, ids=lambda f: f.__name__)
def test_rules_needing_ranks_take_np_diag(f):
    # two by two: `check`'s symbolic stage stays small (a 3 x 3 slogdet ran long on a busy machine)
    p = _program(f, np.array([0.5, 1.5]), np.eye(2) + 0.1 * np.arange(4.0).reshape(2, 2) / 4)
    assert_every_transformation(p)
    assert_numba_agrees_or_refuses(p)
