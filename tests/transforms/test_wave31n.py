"""Wave 31n: second order (hessian, hvp, the Jacobian and jvp of the gradient) exact where a root, arcsin or a
division meets a zero adjoint at an element the output leaves unused (wave31n_programs.py), against float64
central differences of the (already checked) gradient, or against the Hessian worked out by hand at the
point (`SPECIAL`); jit="numba" gives the same.

Census (24 rows x 4 second-order cells: hessian, hvp, jacobian of the gradient, jvp of the gradient;
exact / NaN where the truth is a number), before -> after:

                       hessian   hvp    jac(grad)  jvp(grad)
    before              3 / 20   10 / 13   3 / 20    10 / 13     (one more WRONG-looking cell each
    after              16 / 7    19 / 5   16 / 7     19 / 5       in hvp, jvp: the reference's, fixed)

(root_of_sliced_squares_zeros is NaN in every cell, before and after, as it must be: the root of a sum of
zeros has no second derivative.)

Found and fixed (srcdiff/ad/unused_elements.py):

1. A root (np.sqrt, ``x ** 0.5``, np.arcsin) after a kink (np.clip, np.maximum, np.abs), an exp after a root,
   at an element a slice, an index or a zero weight leaves out: the use mask of the root's result did not
   reach its operand, so abs's derivable adjoint ``kink(x == 0, ...)`` was NaN at second order and a root
   after an elementwise primitive was not held.  A use mask now passes back through every elementwise
   primitive whose operand is shaped like its result (the element it leaves unused, the operand's element
   of the same place is), and a value read by several primitives has the mask ``m1 != 0 or m2 != 0 ...``
   (unused where each leaves it unused).  Both depend on no differentiated value, so the holds stay exact.
2. Reverse over reverse (hessian, jacobian of the gradient) through the gradient's own ``g / (2.0 *
   root)`` held by ``held_still``: the numerator's contribution ``g_bar / (2.0 * root)`` is 0 / 0.  A
   division's numerator now counts as of infinite slope for the use mask's hold, and a value every
   adjoint path of which ends in a hold (`held_values`: the value is dropped where its hold's direction is
   0, so f stays finite) is held at first order too.  Fixed with it: special30's open cells
   (``1 / x`` sliced and np.minimum of ``x / D`` at D = 0 in the Hessian, cbrt and math.sqrt times a zero
   weight in the Hessian and the Jacobian of the gradient), wave 30h's sliced roots after clip, maximum
   and abs, and ``np.sum(W * np.sqrt(x)) ** 2``'s Hessian.

Open (NaN, never a finite number; pinned below):

* ``|x| ** 3`` and ``sqrt(|x|) * x ** 2`` at 0 (a used element: abs's kink is NaN at second order whatever
  multiplies it, though here it is O(x ** 2)): kink_nan would need to know the factor's first derivative
  is 0 too.
* ties at every point (``np.clip(x, x, 3)``, ``np.maximum(x ** 2, x * x)``): ad/ties.py does not prove them.
* float32 and trees of ``sqrt(clip(x))[1:]`` in the reverse-over-reverse Hessian (hvp exact): the
  float32 gradient's hold is on the slice's index mask only, and the Hessian's pass does not see the
  division's value dropped; a tree's leaves likewise.
* np.minimum of ``x / D`` at D = 0 in the reverse-over-reverse Hessian (hvp exact).
* the root of a sum of zeros (``np.sqrt(np.sum(x[:2] ** 2))`` at x[:2] = 0): NaN in its block, as it must
  be, but NaN spreads into the row and column of x[2] (truth 0), as for np.linalg.norm (special30's LOOSE).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import srcdiff

from . import corpus, leaves, matrix
from . import wave31n_programs as w

#: (row, cell) still NaN where the truth is a number (the docstring's Open)
OPEN = {("abs_cubed", c) for c in ("hessian", "hvp", "jacobian", "jvp")} \
    | {("sqrt_abs_times_square", c) for c in ("hessian", "hvp", "jacobian", "jvp")} \
    | {("clip_tie_itself", c) for c in ("hessian", "hvp", "jacobian", "jvp")} \
    | {("maximum_tie_itself", c) for c in ("hessian", "hvp", "jacobian", "jvp")} \
    | {("root_of_sliced_squares_zeros", c) for c in ("hessian", "hvp", "jacobian", "jvp")} \
    | {(r, c) for r in ("sqrt_clip_sliced_f32", "sqrt_clip_sliced_tree", "minimum_of_a_ratio")
       for c in ("hessian", "jacobian")}
CELLS = ("hessian", "hvp", "jacobian", "jvp")
KEPT = {"sqrt_abs_sliced", "sqrt_clip_sliced", "half_power_abs_sliced_end", "sqrt_abs_zero_weight",
        "reciprocal_sliced", "weighted_roots_squared", "abs_cubed"}
ROWS = {name: (f, make) for name, f, make, _ in w.PROGRAMS}


def _units(x):
    v = leaves.vector(x)
    for k in range(v.size):
        e = np.zeros(v.size, dtype=v.dtype)
        e[k] = 1.0
        yield leaves.with_vector(x, e)


def _want(name, f, x):
    """The true Hessian: by hand at the point (`SPECIAL`), else central differences of the gradient."""
    if name in w.SPECIAL:
        return w.SPECIAL[name]
    x64 = leaves.widened(x)
    ref = matrix.Reference(corpus.Program(name, f, (x64,), 0, "wave31n"))
    g = srcdiff.grad(f)
    return ref.difference(lambda v: g(leaves.with_vector(x64, v)), 1e-5)


def _second(f, x, cell, jit=None):
    """The derivative of the gradient along each coordinate, as a square matrix."""
    g = srcdiff.grad(f)
    if cell == "hessian":
        return leaves.square(srcdiff.hessian(f, jit=jit)(copy.deepcopy(x)), x)
    if cell == "jacobian":
        return leaves.square(srcdiff.jacobian(g)(copy.deepcopy(x)), x)
    if cell == "hvp":
        return np.stack([leaves.vector(srcdiff.hvp(f, copy.deepcopy(x), e)) for e in _units(x)], -1)
    return np.stack([leaves.vector(srcdiff.jvp(g, (copy.deepcopy(x),), (e,))[1]) for e in _units(x)], -1)


def _check(got, want, x, exact: bool):
    """`got` is `want` (NaN in `want`: no finite value there); not `exact`: NaN somewhere, never a wrong
    finite number where got is finite."""
    got, want = np.asarray(got, dtype=float), np.asarray(want, dtype=float)
    assert not np.any(np.isfinite(got[np.isnan(want)])), got
    known = ~np.isnan(want)
    if not exact:
        assert np.any(np.isnan(got)), got
        known &= np.isfinite(got)
    tol = 3e-3 if leaves.vector(x).dtype == np.float32 else 1e-5
    np.testing.assert_allclose(got[known], want[known], rtol=tol, atol=tol)


CASES = [corpus.slow_unless(name in KEPT, name, cell) for name, *_ in w.PROGRAMS for cell in CELLS]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name, cell", CASES, ids=[f"{p.values[0]}-{p.values[1]}" for p in CASES])
def test_second_order_at_the_special_point(name, cell):
    f, make = ROWS[name]
    (x,) = make(None)
    _check(_second(f, x, cell), _want(name, f, x), x, (name, cell) not in OPEN)


NUMBA_ROWS = ("sqrt_abs_sliced", "sqrt_abs_zero_weight", "reciprocal_sliced", "weighted_roots_squared")


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", NUMBA_ROWS)
def test_numba_gives_the_same_hessian(name):
    f, make = ROWS[name]
    (x,) = make(None)
    np.testing.assert_allclose(_second(f, x, "hessian", jit="numba"), _second(f, x, "hessian"), rtol=1e-9, atol=1e-12)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_numba_hessian_of_a_sliced_root_after_abs():
    f, make = ROWS["sqrt_abs_sliced"]
    (x,) = make(None)
    _check(_second(f, x, "hessian", jit="numba"), _want("sqrt_abs_sliced", f, x), x, True)
