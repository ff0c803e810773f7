"""Reach 29: kinks at 0 that an element leaves unused, at second order (reach29_kinks.py): hessian,
hvp, jvp of the gradient and the Jacobian of the gradient against central differences of the gradient.

Found (wave 28a, open): ``np.abs(x)`` at 0 on an element a slice leaves unused
(``np.sum(np.abs(x)[1:] * x[1:])``, x[0] == 0) had a NaN row in the Hessian, where the second
derivative exists: abs's adjoint in a gradient srcdiff differentiates again was ``kink(x == 0, g *
np.sign(x), x)``, whose derivative is NaN at x == 0 whatever g, while the unused element's g is a
structural 0 that stands still.  The class: every |x| (``np.abs``, ``np.fabs``, builtin ``abs`` of items
and of an array, ``math.fabs``, ``np.copysign`` / ``math.copysign``) on its kink with a zero adjoint that
stands still (a slice, a mask, a zero weight; an L1 penalty that leaves out the bias).  Fixed: the
adjoint is ``sign_share(x == 0, g, np.sign(x), x)`` (rules/kinks.py), ``g * sign(x)`` with 0 at the kink,
whose derivative is a tie's share's keyed on g (as wave 28a made ties'): NaN where g is not 0 (the
gradient jumps) or moves (``x * np.abs(x)``), 0 where g is 0 and stands still; a constant zero factor
of g selects that 0 in reverse over reverse too (ad/zero_factors.py).  ``tie(x == 0, g, x) *
np.sign(x)``, tried first, is not enough: reverse over reverse selects an exact 0 through the product
by ``np.sign(x)`` (a factor with no gradient, 0 there), and gave 0 for ``x * np.abs(x)`` at 0, where
no second derivative exists.  ``np.maximum`` / ``np.minimum`` / ``np.clip`` on their tie are here as
variants (fixed in wave 28a).

Census, 12 programs with an unused element on its kink x 4 second-order transformations (hessian, hvp,
jvp of the gradient, Jacobian of the gradient): before 16 exact, 32 NaN in the unused element's
entries (the 8 of abs and its spellings; ``math.fabs`` of a loop's item was exact); after 48 exact.
The 3 kinks whose share moves or is used (``x * np.abs(x)``, ``np.abs(x)`` itself, a weight that is 0
but moves) have no second derivative and stay NaN.

Open (NaN kept, never a finite wrong number; docs/guarantees.md "Not covered"): ``np.linalg.norm`` at
the zero vector with a zero adjoint that stands still (``0.0 * np.linalg.norm(x[:2])``: its kink is a
group's, the adjoint spread over the reduced axes); and a zero adjoint meeting an infinite slope at
first order: ``np.sqrt(x) * 0.0``, ``x ** 0.5`` or ``np.sqrt(x)[1:]`` with x[0] == 0 give a NaN
gradient (``0 / (2 * 0)``) where the truth is 0.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from .reach29_kinks import MOVING, UNUSED

#: the rows the default run keeps (`-m slow` runs them all)
KEPT = {"abs_sliced", "abs_masked", "builtin_abs_items", "copysign_zero_weight", "relu_sliced"}


def _reference(f, x):
    """The Jacobian of srcdiff's gradient by central differences (rows: directions), and that
    gradient against central differences of f."""
    g = srcdiff.grad(f)
    np.testing.assert_allclose(g(x.copy()), central_difference(f, (x.copy(),), 0), rtol=1e-6, atol=1e-8)
    columns = [central_difference(lambda y, k=k: g(y)[k], (x.copy(),), 0) for k in range(x.size)]
    return g, np.stack(columns, axis=1)


def _answers(f, x, g):
    n = x.size
    return {"hessian": srcdiff.hessian(f)(x.copy()),
            "hvp": np.stack([srcdiff.hvp(f, x.copy(), np.eye(n)[k]) for k in range(n)]),
            "jvp of the gradient": np.stack([srcdiff.jvp(g, (x.copy(),), (np.eye(n)[k],))[1] for k in range(n)]),
            "jacobian of the gradient": np.asarray(srcdiff.jacobian(g)(x.copy())).T}


@pytest.mark.parametrize("name, f, x", [pytest.param(*u, marks=() if u[0] in KEPT else pytest.mark.slow)
                                        for u in UNUSED], ids=[u[0] for u in UNUSED])
def test_an_unused_element_on_its_kink_has_an_exact_hessian(name, f, x):
    g, want = _reference(f, x)
    for what, got in _answers(f, x, g).items():
        assert np.all(np.isfinite(got)), (what, got)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=what)


@pytest.mark.parametrize("name, f, x, entry", MOVING, ids=[m[0] for m in MOVING])
def test_a_kink_whose_share_moves_or_is_used_is_nan(name, f, x, entry):
    direction, component = entry
    h = srcdiff.hessian(f)(x.copy())
    assert np.isnan(h[direction, component]) or np.isnan(h[component, direction]), h
    assert np.isnan(srcdiff.hvp(f, x.copy(), np.eye(x.size)[direction])[component])
    g = srcdiff.grad(f)
    assert np.isnan(srcdiff.jvp(g, (x.copy(),), (np.eye(x.size)[direction],))[1][component])
    assert np.isnan(np.asarray(srcdiff.jacobian(g)(x.copy()))[component, direction])


def test_first_order_and_numba_unchanged():
    """abs'(0) = 0 at first order, numba too; the derivable gradient numba compiles (sign_share's own)."""
    f, x = UNUSED[2][1], UNUSED[2][2]  # abs_zero_weight
    want = central_difference(f, (x.copy(),), 0)
    np.testing.assert_allclose(srcdiff.grad(f)(x.copy()), want, rtol=1e-7)
    np.testing.assert_allclose(srcdiff.vjp(f, x.copy())[1](1.0), want, rtol=1e-7)
    np.testing.assert_allclose(srcdiff.grad(f, jit="numba")(x.copy()), want, rtol=1e-7)
    h = srcdiff.jacobian(srcdiff.grad(f), jit="numba")(x.copy())
    np.testing.assert_allclose(h, 2.0 * np.eye(3), atol=1e-12)
