"""Reach 30: special points an element leaves unused (special30_programs.py): np.sqrt / x ** p (0 < p < 1) /
np.log / 1 / x / np.cbrt at 0, np.arcsin / np.arccos at their edge, np.abs at its kink, a norm of zeros, a
denominator 0 in the branch np.where or np.minimum leaves, where the output does not use the element (a
slice, a zero weight, a mask, 0 times it): the true derivative there is 0 at every order, never NaN.
Through grad, value_and_grad, jvp, vjp, jacobian, a tree of the argument, float32, hessian, hvp and
jit="numba": `PROGRAMS` (defined on both sides of the point) against float64 central differences, `EDGE`
(on the edge of a domain: f is NaN on one side) against derivatives worked out by hand.

Census (ok / NaN where the truth is finite), before -> after:

- PROGRAMS, 15 rows x 10 cells (grad, value_and_grad, jvp, vjp, tree, jacobian, float32, hvp, hessian,
  numba): 107 / 43 -> 148 / 2 (the 2, open: `reciprocal_sliced` and `minimum_of_a_ratio`'s hessian).  The
  slices of sqrt, x ** 0.5, log, 1 / x, arcsin were NaN in every cell that reads the unused element (grad,
  value_and_grad, vjp, tree, jacobian, float32, numba, and hvp for log and 1 / x); x ** 0.5 sliced and
  np.minimum of an infinite ratio in the hessian.
- EDGE, 9 rows x 11 cells (grad, value_and_grad, vjp, jvp, jacobian, float32, numba, hessian, hvp, jvp of
  the gradient, jacobian of the gradient): 11 / 88 -> 95 / 4.  A zero weight or mask times sqrt, x ** 0.3,
  math.sqrt in a loop, arcsin, arccos, cbrt was NaN in every cell, jvp included (the norm of zeros was
  right before and after).  Open: the Hessian and the Jacobian of the gradient (reverse over reverse) of
  `math_sqrt_zero_weight` and `cbrt_zero_weight`, NaN at the element (hvp and jvp of the gradient exact).
- reach29_kinks.py's UNUSED_ABS (|x| at 0 on an unused element: abs, fabs, builtin abs of items and of an
  array, copysign, an L1 penalty without the bias), 8 rows x 4 second-order cells: 0 / 32 -> 32 / 0.

Found and fixed:

1. First order, a zero adjoint times an infinite slope: ``np.sum(np.sqrt(x)[1:])``, ``W * np.sqrt(x)`` with
   W[0] = 0 at x[0] = 0 gave ``0 / (2 * 0)`` = NaN.  A primitive whose slope may be infinite where its value
   is finite (a root, arcsin at 1) and whose adjoint *stands still* is held at 0 where that adjoint is 0
   (srcdiff/ad/still_adjoints.py): the adjoint reads no value a primitive of infinite slope computed (then it
   is a Lipschitz function of the input, 0 at the point, and its product with a root's O(h ** -p), p < 1,
   tends to 0).  ``np.log`` and ``1 / x`` of an element a slice leaves out are held by its use mask (3.);
   after them a zero factor leaves f NaN anyway, so code with logs and divisions is generated as before
   (the benchmarks' generated code is unchanged).  ``np.sqrt(x) ** 2``, ``np.sqrt(x) * np.sqrt(x)``,
   ``np.cos(np.sqrt(x))`` read the root in their adjoint and keep the honest NaN (their truth is a
   one-sided finite slope).
2. Forward mode, an infinite tangent times a zero factor: jvp of ``W * np.sqrt(x)`` along x[0] was
   ``inf * 0``; a product's term ``x_dot * y`` is held at 0 where y, computed from no such primitive, is 0
   (srcdiff/ad/tangent_node.py `_held_by_factor`).
3. Second order, the element's use mask (srcdiff/ad/unused_elements.py): an adjoint that is 0 by the code's
   structure (a slice leaves the element out, a constant factor is 0 there, a select by such a mask) is
   held at 0 by a mask that depends on no differentiated value, so the select is exact at every order, and
   a kink's condition (``kink(x == 0, g * np.sign(x), x)``, abs's derivable adjoint) holds only where the
   mask is not 0: reach29's open |x| rows are exact; ``np.abs(x) * np.abs(x)`` (truth 2) keeps NaN, as
   its adjoint is 0 by value, not by structure.
4. ``held_still``'s derivatives (srcdiff/rules/generated_code.py): its adjoint and tangent select whatever
   they are (the fast path returned a finite g as it was, so reverse over reverse multiplied it by the NaN
   the select had held), and are NaN where the direction is 0 but moves.

Convention: the norm of zeros (``np.linalg.norm``, ``np.sqrt(np.sum(x ** 2))``) has the subgradient 0, as
before (JAX's choice for ``jnp.linalg.norm`` with its safe-norm idiom), and no second derivative (NaN).

Fixed since (wave 31n, tests/transforms/test_wave31n.py): reverse over reverse of ``1 / x`` sliced, np.minimum
of ``x / D`` at D = 0 and cbrt times a zero weight (a division's numerator held by the use mask, masks passed
back through elementwise primitives), and ``np.sum(W * np.sqrt(x)) ** 2``'s Hessian.

Open (pinned: NaN, never a finite number): math.sqrt in a loop times a zero weight in the Hessian and the
Jacobian of the gradient.  Was open before wave 31n: reverse over reverse (hessian, jacobian of the gradient) where
the gradient's code reads the infinite local slope again through a value used twice (``1 / x`` sliced,
np.minimum of ``x / D`` at D = 0, cbrt and math.sqrt times a zero weight: NaN in the element's row; hvp
and jvp of the gradient are exact); a root of the sum of a slice squared (``np.sqrt(np.sum(x[:2] **
2))``: NaN where np.linalg.norm gives the subgradient 0); a zero adjoint that moves with the root
(``np.sum(W * np.sqrt(x)) ** 2``: first order exact by the use mask, NaN at second order).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numeric import central_difference

import srcdiff

from . import closure_cells, corpus, matrix
from . import special30_programs as programs_module

ALL = (*matrix.EVERY, *closure_cells.EXTRA, "numba")
PROGRAMS = corpus.from_table(programs_module.PROGRAMS, "s30", "special30_programs", 30)

#: cells still NaN at the unused element (none since wave 31n: tests/transforms/test_wave31n.py)
OPEN: dict = {}
#: the default run's rows (the rest run in the slow set)
KEPT = {"sqrt_sliced", "power_half_sliced", "log_sliced", "arcsin_sliced", "minimum_of_a_ratio", "reciprocal_sliced"}


def _name(p):
    return p.name.partition(":")[2]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in PROGRAMS], ids=_name)
def test_every_transformation(program):
    transforms = tuple(t for t in ALL if t != OPEN.get(_name(program)))
    matrix.assert_ok_or_na(program, transforms)


# ---- on the edge of a domain: against the derivatives worked out by hand ----

FIRST = ("grad", "value_and_grad", "vjp", "jvp", "jacobian", "float32", "numba")
SECOND = ("hessian", "hvp", "jvp of the gradient", "jacobian of the gradient")
#: (row, cell) still NaN at the unused element: pinned as NaN there, exact elsewhere
EDGE_OPEN = {("math_sqrt_zero_weight", c) for c in ("hessian", "jacobian of the gradient")}
#: rows whose Hessian is NaN beyond the truth's NaN block (the norm's kink spreads into its row and column)
LOOSE = {"norm_of_zeros"}


def _first(f, x, cell):
    n = x.size
    if cell == "grad":
        return srcdiff.grad(f)(x.copy())
    if cell == "value_and_grad":
        value, got = srcdiff.value_and_grad(f)(x.copy())
        np.testing.assert_allclose(value, f(x.copy()), rtol=1e-12)
        return got
    if cell == "vjp":
        return srcdiff.vjp(f, x.copy())[1](1.0)
    if cell == "jvp":
        return np.array([srcdiff.jvp(f, (x.copy(),), (e,))[1] for e in np.eye(n)])
    if cell == "jacobian":
        return srcdiff.jacobian(f)(x.copy())
    if cell == "float32":
        got = srcdiff.grad(f)(x.astype(np.float32))
        assert got.dtype == np.float32
        return got
    return srcdiff.grad(f, jit="numba")(x.copy())


def _second(f, x, cell):
    """The derivative of the gradient along each coordinate: ``[direction, component]``."""
    n, g = x.size, srcdiff.grad(f)
    if cell == "hessian":
        return srcdiff.hessian(f)(x.copy()).T
    if cell == "hvp":
        return np.stack([srcdiff.hvp(f, x.copy(), e) for e in np.eye(n)])
    if cell == "jvp of the gradient":
        return np.stack([srcdiff.jvp(g, (x.copy(),), (e,))[1] for e in np.eye(n)])
    return np.asarray(srcdiff.jacobian(g)(x.copy())).T


def _check(got, want, exact: bool, loose: bool, rtol: float):
    """`got` equals `want` (NaN in `want`: no finite value there); not `exact`: NaN at the unused element
    (index 0), exact elsewhere; `loose`: NaN allowed where `want` is finite, never another number."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert not np.any(np.isfinite(got[np.isnan(want)])), got
    known = ~np.isnan(want)
    if not exact:
        assert np.any(np.isnan(got[..., 0])) or np.any(np.isnan(got.flat[0])), got
        known &= np.indices(want.shape).min(axis=0) > 0 if want.ndim > 1 else np.arange(want.size) > 0
    if loose:
        known &= np.isfinite(got)
    np.testing.assert_allclose(got[known], want[known], rtol=rtol, atol=1e-12)


EDGE_CELLS = [corpus.slow_unless(cell != "numba" or name == "sqrt_zero_weight", name, f, x, g, h, cell)
              for name, f, x, g, h in programs_module.EDGE for cell in FIRST + SECOND]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, f, x, gradient, hessian, cell", EDGE_CELLS,
                         ids=[f"{p.values[0]}-{p.values[-1]}" for p in EDGE_CELLS])
def test_edge_of_a_domain(name, f, x, gradient, hessian, cell):
    exact = (name, cell) not in EDGE_OPEN
    if cell in FIRST:
        _check(_first(f, x, cell), gradient, exact, False, 2e-6 if cell == "float32" else 1e-9)
    else:
        _check(_second(f, x, cell), hessian, exact, name in LOOSE, 1e-9)


# ---- truths that are infinite or one-sided: NaN or inf, never a finite number ----


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, f, x", programs_module.NO_FIRST, ids=[r[0] for r in programs_module.NO_FIRST])
def test_a_zero_adjoint_that_moves_with_the_root_keeps_its_nan(name, f, x):
    for cell in FIRST[:5]:
        got = np.atleast_1d(_first(f, x, cell))
        assert not np.isfinite(got[0]), (cell, got)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, f, x, entries", programs_module.NO_SECOND,
                         ids=[r[0] for r in programs_module.NO_SECOND])
def test_a_second_derivative_that_does_not_exist_is_never_finite(name, f, x, entries):
    np.testing.assert_array_equal(srcdiff.grad(f)(x.copy()), np.zeros(x.size))  # the partials are 0
    for cell in SECOND:
        got = _second(f, x, cell)
        for direction, component in entries:
            assert not np.isfinite(got[direction, component]), (cell, got)


# ---- property: zero weights on zero elements, random, against central differences ----


def _weighted_root(x, w):
    # sqrt(|x|) is defined on both sides, so central differences apply: smooth where w is not 0
    return np.sum(w * np.sqrt(np.abs(x))) + np.sum(x * x)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(values=st.lists(st.floats(0.3, 2.0), min_size=2, max_size=5),
       signs=st.lists(st.booleans(), min_size=5, max_size=5), zeros=st.lists(st.booleans(), min_size=5, max_size=5))
def test_zero_weights_on_zero_elements(values, signs, zeros):
    n = len(values)
    x = np.array([0.0 if z else (v if s else -v) for v, s, z in zip(values, signs, zeros)])
    w = np.where(x == 0.0, 0.0, np.linspace(0.5, 1.5, n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = central_difference(_weighted_root, (x, w), 0)
        np.testing.assert_allclose(srcdiff.grad(_weighted_root)(x, w), want, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(srcdiff.vjp(_weighted_root, x, w)[1](1.0), want, rtol=1e-6, atol=1e-7)
        v = np.linspace(-1.0, 1.0, n)
        np.testing.assert_allclose(srcdiff.jvp(_weighted_root, (x, w), (v, np.zeros(n)))[1], want @ v,
                                   rtol=1e-6, atol=1e-7)
        g = srcdiff.grad(_weighted_root)
        second = np.stack([central_difference(lambda y, k=k: g(y, w)[k], (x,), 0) for k in range(n)])
        got = srcdiff.hessian(_weighted_root)(x, w)
        finite = np.isfinite(got)  # (|x|'s kink at an unused 0 under sqrt: NaN there, never a number)
        assert np.all(finite[np.ix_(x != 0, x != 0)])
        np.testing.assert_allclose(got[finite], second[finite], rtol=1e-5, atol=1e-6)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_open_root_of_a_sliced_sum_of_squares_is_nan_never_a_number():
    """Open: ``np.sqrt(np.sum(x[:2] ** 2))`` at zeros is NaN in the block, where np.linalg.norm's convention
    gives 0 (reverse mode recognises the hand-written norm's convention on a whole argument only; forward
    mode gives it); never another number."""
    x = np.array([0.0, 0.0, 0.7])
    for cell in FIRST[:6]:
        got = _first(programs_module.hand_norm_of_zeros, x, cell)
        assert np.all(np.isnan(got[:2]) | (got[:2] == 0.0)) and np.isclose(got[2], 1.4), (cell, got)
