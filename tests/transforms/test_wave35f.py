"""Wave 35f: first and second order exact at special points (wave35f_special_points.py).

Census at the special point, before -> after (cells ok / WRONG / refused at the user's line; first order:
grad, value_and_grad, vjp, jacobian, jvp, float32, numba against one-sided or central float64 differences
of f, a side outside f's domain left out; second order: hessian, jacobian(grad), hvp, jvp(grad) against
one-sided differences of f's checked gradient, a number where the sides agree at two steps, NaN where they
do not, `judge`; every WRONG is a NaN where the derivative is a number, none a finite wrong number):

    WEIGHTED_LOOPS (6 rows)   first  12 ok, 10 WRONG, 20 refused (ZeroDivisionError)  ->  42 ok
                              second  4 ok,  4 WRONG, 16 refused                        ->  24 ok
    DOTS (4 rows)             first   0 ok, 28 WRONG                                    ->  28 ok
                              second  6 ok, 10 WRONG                                    ->  14 ok, 2 WRONG
    BOUNDS (4 rows)           first  28 ok                                              ->  28 ok
                              second  8 ok,  8 WRONG                                    ->  16 ok
    PERSISTENT_ZEROS (5 rows) first  28 ok (4 rows)                                     ->  28 ok
                              second  2 ok, 18 WRONG                                    ->  20 ok
    LOOP_KINKS (4 rows)       first  28 ok                                              ->  28 ok
                              second  6 ok, 10 WRONG                                    ->   8 ok, 8 WRONG

Found and fixed (each a class, with its variants):

1. A zero weight in a loop before a root (``s += W[i] * math.sqrt(x[i])``, zip, enumerate, while,
   ``math.asin`` at 1, a fractional power, a helper): the adjoint's hold (ad/still_adjoints.py) stopped
   at a loop's carry and a branch's merge; it now follows them (`region_edges`), and reads through a
   saved stack item (``list.append``) and a shape-only operand (``unbroadcast(g, x)``'s x, which also no
   longer taints); a held Python float is ``0.0 if g == 0.0 else g / (2.0 * r)`` (no ZeroDivisionError),
   wrapped in ``held_still`` in code differentiated again so that ``held_values`` sees it; there a value
   whose every path ends in a hold has its division held at first order too (`eligibility`), and the
   "moves with the input" test reads values, not shapes.
2. ``np.dot(np.array(W), np.sqrt(x))`` at W[0] = x[0] = 0: first-order NaN (``dot_adjoint_y(g, W, y)``
   read y, the root, for its shape only; now known so); forward mode holds the root's tangent inside the
   dot where W's column is 0 (ad/held_dots.py); a matrix of a module list with a zero column before roots
   whose adjoint moves (``np.sum((M @ np.sqrt(x)) ** 2)``) has a use mask by its columns.
3. A bound made from an element (``np.clip(x, x[0] * 1.0, 10.0) ** 3``, ``np.maximum(x, x[0] * 1.0)``,
   np.minimum with ``1.0 * x[-1]`` under a mean): reverse over reverse left the tie's NaN in every row of
   its column: use masks now pass ``np.sum`` / ``np.mean`` of every element and a generated
   ``copy_array``, and hold a number's share of an elementwise rule (np.clip's bound) by its mask;
   ``x.size`` of a known array is a number (np.mean's ``1.0 / x.size`` left the masks no shape).
4. ``np.abs(r - np.clip(r, -d, d))`` inside the band (wave 33e's huber_clip_excess, its strict xfail),
   ``np.abs(np.minimum(x, 1) - x)``, ``np.abs(x - np.maximum(x, 0))``, ``np.fabs``: abs's kink at a zero
   that persists (a difference of one function with itself near the point, ad/ties.zero_persistence) is
   held: the Hessian is exact, on the diagonal too.
5. Forward over reverse at a tie in a loop (``np.maximum(x[i] - 0.5, 0)``): an item saved on a loop's stack
   moves as it did (ad/moving_values.py), so hvp along another element is exact.

First-order code: every benchmark program's (benchmarks/variants.py, benchmarks/problems.py; grad and
value_and_grad) is unchanged but margin_logaddexp's, which no longer computes its unused forward loss
(``x.size`` is a number now, so the value's ``ensure_scalar`` and its ``np.sum(np.logaddexp(...))`` go).

Open (strict xfails below, and FIRST_OPEN / SECOND_OPEN):

* a kink or a tie reached through a loop's carry by reverse over reverse (``max(x[i], 0.0)``, ``abs(x[i])``
  in a loop: the NaN of element 0's tie in every row of its column): a use mask does not pass a loop's
  carried gradient (``x_bar[i] += ...`` in the generated backward loop); (by forward over reverse, a carried
  value through relu, ``h = np.maximum(h, 0) * w + x[i]``: fixed in wave 36a, test_wave36a.py);
* a zero column of a matrix before roots by reverse over reverse (matrix_list_sqrt: its column NaN);
* at the band's edge, Huber written with ``clip`` and ``abs`` has the first derivative of the kinks
  composed (0.1 for 0.2: documented, docs/guarantees.md "Kinks composed at the same point");
* (not a bug) eps_linear_max's half share of a constant gradient (a speed item of wave 33e): not done.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix
from . import wave35f_special_points as w

EPS = 1e-6


def _quiet(call):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return call()


def _at(f, x, like=None):
    """f(x) as a float array, NaN where x is outside f's domain (math.sqrt of a negative number raises)."""
    try:
        return np.asarray(f(x), float)
    except (ValueError, ZeroDivisionError, srcdiff.SrcDiffError):
        return np.full(np.shape(like), np.nan)


def _sides(f, x, j, eps):
    """The one-sided difference quotients of `f` (array valued or not) along e_j."""
    e = np.zeros_like(x)
    e[j] = eps
    f0 = _at(f, x)
    return (_at(f, x + e, f0) - f0) / eps, (f0 - _at(f, x - e, f0)) / eps


def derivative(f, x, j):
    """f's derivative along e_j (each of f's entries) from one-sided differences at two steps: a side
    where f is not defined (a root's domain) is left out; NaN where the sides do not agree."""
    (fwd, bwd), (fwd2, bwd2) = _quiet(lambda: (_sides(f, x, j, EPS), _sides(f, x, j, 10 * EPS)))
    out = np.full(np.shape(fwd), np.nan)
    for i in np.ndindex(out.shape):
        sides = [(a[i], b[i]) for a, b in ((fwd, fwd2), (bwd, bwd2)) if np.isfinite(a[i]) and np.isfinite(b[i])]
        tol = 1e-4 * max([1.0] + [abs(a) for a, _ in sides])
        if sides and all(abs(a - b) <= 10 * tol for a, b in sides) and \
                all(abs(a - sides[0][0]) <= tol for a, _ in sides):
            out[i] = sides[0][0]
    return out


def reference_gradient(f, x):
    return np.array([derivative(f, x, j) for j in range(x.size)])


def judge(f, x, H, diagonal_nan=True) -> list:
    """The entries of the Hessian `H` that disagree with one-sided differences of f's checked gradient:
    a number where it exists (NaN allowed on the diagonal only, with `diagonal_nan`: a tie srcdiff cannot
    prove persists), NaN where it does not."""
    gradient = srcdiff.grad(f)
    want = np.column_stack([derivative(lambda t: gradient(t), x, j) for j in range(x.size)])
    bad = []
    for i, j in np.ndindex(want.shape):
        if np.isnan(want[i, j]) and not np.isnan(H[i, j]):
            bad.append((i, j, "a number where no derivative exists", H[i, j]))
        elif not np.isnan(want[i, j]) and not (np.isnan(H[i, j]) and i == j and diagonal_nan) \
                and not abs(H[i, j] - want[i, j]) <= 1e-4 * max(1.0, abs(want[i, j])):
            bad.append((i, j, H[i, j], "want", want[i, j]))
    return bad


def _jvp(f, x):
    return np.array([srcdiff.jvp(f, (x.copy(),), (e,))[1] for e in np.eye(x.size)])


FIRST = {"grad": lambda f, x: srcdiff.grad(f)(x.copy()),
         "value_and_grad": lambda f, x: srcdiff.value_and_grad(f)(x.copy())[1],
         "vjp": lambda f, x: srcdiff.vjp(f, x.copy())[1](1.0),
         "jacobian": lambda f, x: srcdiff.jacobian(f)(x.copy()),
         "jvp": _jvp,
         "float32": lambda f, x: srcdiff.grad(f)(x.astype(np.float32)),
         "numba": lambda f, x: srcdiff.grad(f, jit="numba")(x.copy())}
SECOND = {"hessian": lambda f, x: srcdiff.hessian(f)(x.copy()),
          "jacobian(grad)": lambda f, x: srcdiff.jacobian(srcdiff.grad(f))(x.copy()),
          "hvp": lambda f, x: np.column_stack([srcdiff.hvp(f, x.copy(), e) for e in np.eye(x.size)]),
          "jvp(grad)": lambda f, x: np.column_stack([srcdiff.jvp(srcdiff.grad(f), (x.copy(),), (e,))[1]
                                                     for e in np.eye(x.size)])}


def first_order_bad(f, x, transform, skip=()) -> list:
    """The entries of `transform`'s gradient that disagree with `reference_gradient` (float32 to its
    precision), leaving out the elements in `skip` (a kink's own, where no derivative exists)."""
    got = _quiet(lambda: FIRST[transform](f, x))
    want = reference_gradient(f, x)
    rtol = 1e-3 if transform == "float32" else 1e-5
    if transform == "float32" and np.asarray(got).dtype != np.float32:
        return [("dtype", np.asarray(got).dtype)]
    return [(i, got[i], "want", want[i]) for i in range(x.size) if i not in skip
            and not abs(float(got[i]) - want[i]) <= rtol * max(1.0, abs(want[i]))]


def census(rows, transforms, check) -> dict:
    """(name, transform) -> "ok", "WRONG ...", "refused" (at the user's line) or "BAD ..." (another error)."""
    out = {}
    for name, f, x in rows:
        for t in transforms:
            try:
                bad = check(f, x, t)
                out[name, t] = "ok" if not bad else f"WRONG {bad[:2]}"
            except srcdiff.SrcDiffError as exc:
                out[name, t] = "refused" if matrix.located(exc) else f"BAD {exc}"
            except Exception as exc:  # noqa: BLE001  (the census counts it)
                out[name, t] = f"BAD {type(exc).__name__}: {exc}"
    return out


def _second_bad(f, x, t, diagonal_nan=True):
    return judge(f, x, _quiet(lambda: SECOND[t](f, x)), diagonal_nan)


def _name(p):
    return p.name.partition(":")[2]


def _param(kept, row, transform, *marks):
    marks = [*marks] + ([] if kept else [pytest.mark.slow])
    return pytest.param(row, transform, id=f"{row[0]}-{transform}", marks=marks)


def _rows(table, transforms, kept=()):
    """(row, transform) params; the default run keeps the `kept` (name, transform) pairs."""
    return [_param((row[0], t) in kept, row, t) for row in table for t in transforms]


FIRST_OPEN: set = set()
#: open (module docstring): a zero column of a matrix before roots, by reverse over reverse
SECOND_OPEN = {("matrix_list_sqrt", "jacobian(grad)")}  # (its hessian: closed since waves 35b and 35j)


@pytest.mark.parametrize("row, transform", _rows(w.WEIGHTED_LOOPS + w.DOTS, [t for t in FIRST if t != "numba"],
                                                 {("loop_math_sqrt", "grad"), ("dot_list_sqrt", "grad"),
                                                  ("loop_asin", "float32")}))
def test_a_zero_weight_first_order(row, transform):
    """The element weighted 0 has the derivative 0 (f does not read it), the others their own."""
    name, f, x = row
    bad = first_order_bad(f, x, transform)
    assert bool(bad) == ((name, transform) in FIRST_OPEN), bad


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("row", w.WEIGHTED_LOOPS + w.DOTS, ids=lambda r: r[0])
def test_a_zero_weight_numba(row):
    name, f, x = row
    bad = first_order_bad(f, x, "numba")
    assert bool(bad) == ((name, "numba") in FIRST_OPEN), bad


@pytest.mark.parametrize("row, transform", _rows(w.WEIGHTED_LOOPS + w.DOTS, SECOND,
                                                 {("loop_math_sqrt", "hessian"), ("loop_np_sqrt", "jvp(grad)")}))
def test_a_zero_weight_second_order(row, transform):
    """Its row and column of the Hessian are 0, the others exact, by every second-order transformation
    (math.sqrt's Python floats divide by 0 nowhere: a ZeroDivisionError was refused at the line)."""
    name, f, x = row
    bad = _second_bad(f, x, transform)
    assert bool(bad) == ((name, transform) in SECOND_OPEN), bad


@pytest.mark.parametrize("row, transform", _rows(w.BOUNDS, SECOND, {("clip_bound_element", "hessian")}))
def test_a_bound_made_from_an_element(row, transform):
    """A tie with a bound equal to the element only algebraically: NaN in the tie's own entry at most, the
    other rows and columns exact (reverse over reverse too: the bound's share summed over the broadcast)."""
    name, f, x = row
    assert not _second_bad(f, x, transform)


@pytest.mark.parametrize("row, transform", _rows(w.BOUNDS, [t for t in FIRST if t != "numba"]))
def test_a_bound_made_from_an_element_first_order(row, transform):
    name, f, x = row
    assert not first_order_bad(f, x, transform)


@pytest.mark.parametrize("row, transform", _rows(w.PERSISTENT_ZEROS, SECOND, {("huber_clip_excess", "hessian")}))
def test_a_zero_that_persists(row, transform):
    """|a - b| where a and b are one function near the point (``r - np.clip(r, -d, d)`` inside the band):
    0 nearby, so its Hessian is the rest's, not abs's NaN at 0, on the diagonal too (at the band's edge:
    NaN in that entry)."""
    name, f, x = row
    assert not _second_bad(f, x, transform, diagonal_nan=name.endswith("_edge"))


@pytest.mark.parametrize("row, transform", _rows(w.PERSISTENT_ZEROS[:-1], [t for t in FIRST if t != "numba"]))
def test_a_zero_that_persists_first_order(row, transform):
    """(At the band's edge the first derivative is the conventions' product, documented: not judged.)"""
    name, f, x = row
    assert not first_order_bad(f, x, transform)


#: a kink or a tie reached through a loop's carry (open, module docstring): (name, transform)
#: (their hessian rows since wave 35b take forward mode's entries, where the two across the diagonal agree:
#: wave 35j)
#: (loop_relu_carry's hvp and jvp(grad): fixed in wave 36a, a carried value's flag and a tie's value's tangent)
LOOP_OPEN = {("loop_max", "jacobian(grad)"), ("loop_abs", "jacobian(grad)"), ("loop_np_maximum", "jacobian(grad)")}


_THROUGH_A_CARRY = pytest.mark.xfail(strict=True,
                                     reason="open: a kink's NaN reaches other entries through a loop's carry")


@pytest.mark.parametrize("row, transform", [_param((row[0], t) == ("loop_np_maximum", "hvp"), row, t,
                                                   *([_THROUGH_A_CARRY] if (row[0], t) in LOOP_OPEN else []))
                                            for row in w.LOOP_KINKS for t in SECOND])
def test_a_kink_through_a_loop(row, transform):
    name, f, x = row
    assert not _second_bad(f, x, transform)


@pytest.mark.parametrize("row, transform", _rows(w.LOOP_KINKS, [t for t in FIRST if t != "numba"],
                                                 {("loop_relu_carry", "grad")}))
def test_a_kink_through_a_loop_first_order(row, transform):
    """The kinked element takes the convention (not judged here), the others their derivative."""
    name, f, x = row
    assert not first_order_bad(f, x, transform, skip=(0,))


def programs():
    return corpus.from_table(w.PROGRAMS, "w35f", "wave35f_special_points", 35)


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) == "loop_math_sqrt", p) for p in programs()],
                         ids=_name)
def test_ordinary_points_every_transformation(program):
    second = () if _name(program) in ALWAYS_TIED else ("hessian", "hvp")
    matrix.assert_ok_or_na(program, ("grad", "value_and_grad", "jvp", "vjp", "jacobian", *second))


#: a bound made from an element (``np.clip(x, x[0] * 1.0, 10)``): that element is at its bound at every
#: point, so no point is ordinary for it: its own Hessian entry is NaN (docs/guarantees.md) though the
#: function is smooth there (x[0] ** 3), the other entries exact (test_a_bound_made_from_an_element above)
ALWAYS_TIED = {"clip_bound_element", "clip_upper_element", "maximum_floor_element", "minimum_mean_element"}


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="open: an element tied with a bound made from itself keeps NaN in its own "
                   "Hessian entry, at every point (wave 35f)")
@pytest.mark.parametrize("name", sorted(ALWAYS_TIED))
def test_always_tied_second_order(name):
    program = next(p for p in programs() if _name(p) == name)
    matrix.assert_ok_or_na(program, ("hessian", "hvp"))


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba(program):
    matrix.assert_numba_unless_refused(program, set())
