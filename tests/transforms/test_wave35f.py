"""Wave 35f: first and second order exact at special points (wave35f_special_points.py).

Census at the special point (cells ok / WRONG / refused at the user's line / bad error; references:
one-sided or central float64 differences of f for first order, and of f's checked gradient for second
order, a number where the sides agree at two steps, NaN where they do not, `judge` below):

    (filled in below)
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix
from . import wave35f_special_points as w

assert closure_cells.EXTRA  # (importing it registers the jacobian, hvp and float32 cells)
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


#: first order at the special point, open (module docstring): forward mode through a dot product
#: (``np.dot(W, x_dot / (2 * sqrt(x)))``: 0 * inf), and a zero column of a matrix before roots whose
#: adjoint moves with them (``np.sum(v ** 2)``'s 2 v)
FIRST_OPEN = {("dot_list_sqrt", "jvp"), ("matmul_list_sqrt", "jvp"), ("dot_list_cbrt", "jvp"),
              *(("matrix_list_sqrt", t) for t in FIRST)}
SECOND_OPEN = {("matrix_list_sqrt", t) for t in SECOND}


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
LOOP_OPEN = {("loop_max", "hessian"), ("loop_max", "jacobian(grad)"), ("loop_abs", "hessian"),
             ("loop_abs", "jacobian(grad)"), ("loop_np_maximum", "hessian"), ("loop_np_maximum", "jacobian(grad)"),
             ("loop_relu_carry", "hvp"), ("loop_relu_carry", "jvp(grad)")}


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
    matrix.assert_ok_or_na(program, ("grad", "value_and_grad", "hessian", "jvp", "vjp", "jacobian", "hvp"))


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", programs(), ids=_name)
def test_numba(program):
    matrix.assert_numba_unless_refused(program, set())
