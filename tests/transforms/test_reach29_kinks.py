"""Reach 29: kinks at 0 that an element leaves unused, at second order (reach29_kinks.py): hessian,
hvp, jvp of the gradient and the Jacobian of the gradient against central differences of the gradient.

Census, 12 programs with an unused element on its kink x 4 second-order transformations: 16 exact
(``np.maximum`` / ``np.minimum`` / ``np.clip`` on their tie, fixed in wave 28a, and ``math.fabs`` of a
loop's item), 32 with NaN in the unused element's entries, the rest exact: ``np.abs``, ``np.fabs``,
builtin ``abs`` (of items and of an array), ``np.copysign``, an L1 penalty that leaves out the bias
(UNUSED_ABS).  Unchanged in this reach (open): never a finite wrong number, the tests pin it; the 3 kinks
whose share moves or is used (``x * np.abs(x)``, ``np.abs(x)`` itself, a weight that is 0 but moves)
have no second derivative and give NaN.

Why it stays open: abs's adjoint in a gradient srcdiff differentiates again is ``kink(x == 0, g *
np.sign(x), x)``, whose derivative is NaN at x == 0 whatever g.  Telling a g that is 0 and stands still
(exact 0) from one that is 0 and moves (``x * np.abs(x)``: no second derivative) needs g apart from the
sign, as a tie's share has its value (tie_still_nan).  Written ``tie(x == 0, g, x) * np.sign(x)`` (tried
here), forward over reverse is right (NaN for ``x * np.abs(x)``, exact for an unused element), but
reverse over reverse (``hessian``'s batched rows) selects an exact 0 through the product by
``np.sign(x)`` (a factor with no gradient, 0 there: ad/zero_factors.py), and so gave 0 for
``x * np.abs(x)`` at 0, a finite number where no second derivative exists: not acceptable.  The fix is a
helper of its own, ``sign_share(x == 0, g, np.sign(x), x)``, ``g * np.sign(x)`` with a tie's rules
keyed on g (tie_nan for x's direction, tie_still_nan for g's), was built and tried too: it made every
row above exact, and ``np.linalg.norm`` at the zero vector likewise, but it is wrong where g is |x|'s
own multiple: ``np.abs(x) * np.abs(x)`` or ``np.abs(x) ** 2`` squared in another block than the call
(truth 2 at 0) gave 0, because g's tangent there goes through abs's convention ``sign(0) = 0`` and reads
as standing still though g moves like |x|.  Telling a g that stands still from one whose tangent is 0
by a kink's convention needs to know where the tangent went through a kink: reverted, left open; the
test below pins the NaN of that case (never 0).

Reach 30 (test_special30.py) closed UNUSED_ABS: 32 NaN -> 32 exact.  Not by g's value or tangent but by
the code's structure: an element a slice leaves out, or a constant factor zeroes, has an adjoint 0
whatever the input, and its *use mask* (ad/unused_elements.py), which depends on no differentiated
value, keeps abs's kink only where the mask is not 0.  ``np.abs(x) * np.abs(x)`` has no mask (its
adjoint is 0 by value) and keeps its NaN.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from .reach29_kinks import MOVING, UNUSED, UNUSED_ABS


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


@pytest.mark.parametrize("name, f, x", UNUSED + UNUSED_ABS, ids=[u[0] for u in UNUSED + UNUSED_ABS])
def test_an_unused_element_on_its_tie_has_an_exact_hessian(name, f, x):
    g, want = _reference(f, x)
    for what, got in _answers(f, x, g).items():
        assert np.all(np.isfinite(got)), (what, got)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7, err_msg=what)


@pytest.mark.parametrize("name, f, x, entry", MOVING, ids=[m[0] for m in MOVING])
def test_a_kink_whose_share_moves_or_is_used_is_nan(name, f, x, entry):
    direction, component = entry
    assert np.isnan(srcdiff.hessian(f)(x.copy())[direction, component])
    assert np.isnan(srcdiff.hvp(f, x.copy(), np.eye(x.size)[direction])[component])
    g = srcdiff.grad(f)
    assert np.isnan(srcdiff.jvp(g, (x.copy(),), (np.eye(x.size)[direction],))[1][component])


def abs_squared_in_a_branch(x):
    a = np.abs(x)
    if np.sum(x) >= 0.0:
        return np.sum(a ** 2)  # squared in another block than the call: not rewritten as x * x
    return 2.0 * np.sum(a ** 2)


def abs_times_abs(x):
    return np.sum(np.abs(x) * np.abs(x))


@pytest.mark.parametrize("f", [abs_squared_in_a_branch, abs_times_abs], ids=lambda f: f.__name__)
def test_abs_times_its_own_multiple_at_zero_is_nan_never_zero(f):
    """The adjoint flowing into |x| is 2|x| here: 0 at 0 with a tangent of 0 by sign(0) = 0, yet moving
    like |x|; the truth is 2, a share that trusted the tangent said 0."""
    x = np.zeros(2)
    assert np.all(np.isnan(np.diag(srcdiff.hessian(f)(x))))
    assert np.isnan(srcdiff.hvp(f, x, np.array([1.0, 0.0]))[0])
