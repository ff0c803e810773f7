"""What the red team's twelfth wave found and fixed, each a class with variants of its own, through
every transformation (vmap's are in test_redteam_wave12_vmap.py).  References are float64 central
differences of the function (the matrix's own through `matrix.run`, tests/numeric.py for values
written out here), never srcdiff's."""

from __future__ import annotations

import enum
import itertools
import math
import typing

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from .corpus import Program
from .matrix import assert_every_transformation, assert_numba_agrees_or_refuses, not_ok, run

HERE = "test_redteam_wave12_findings.py"
R = np.random.default_rng(12)


def _program(f, *args, wrt=0) -> Program:
    return Program(f"w12_findings:{f.__name__}", f, args, wrt, HERE)


# ---- 1. a `try` body's augmented assignment crashed its probe (WRONG kind: a crash at the user's line) ----
# ``try: total += a / (b - 1.0) except ZeroDivisionError: total += a``: the probe that runs the body to
# learn which handler Python takes was given the names the body reads, and ``total += ...`` was not
# counted as a read of total: UnboundLocalError inside the generated code, reported at the user's line
# as if the code were wrong (and `srcdiff.check` crashed on it).  FIXED: frontend/try_blocks.py counts an
# augmented assignment's target as read.


def try_augmented_in_loop(x, y):
    total = 0.0
    for a, b in zip(x, y):
        try:
            total += float(a) / (b - 1.0)
        except ZeroDivisionError:
            total += float(a)
    return total


def try_augmented_minus(x, y):
    acc = 1.0
    for a, b in zip(x, y):
        try:
            acc -= float(a) * float(a) / (b - 2.0)  # Python floats raise at b == 2
        except ZeroDivisionError:
            acc -= a
    return acc


def try_augmented_product(a, b):
    scale = 2.0
    try:
        scale *= a / (b - 1.0)
    except ZeroDivisionError:
        scale *= a * a
    return scale


def try_handler_augmented(x, d):
    out = x * x
    try:
        out += 1.0 / d
    except ZeroDivisionError:
        out += x
    return out


TRIES = [(try_augmented_in_loop, (R.normal(size=3), (0.5, 1.0, 2.0))),
         (try_augmented_in_loop, (R.normal(size=3), (0.5, 3.0, 2.0))),
         (try_augmented_minus, (R.normal(size=3), (2.0, 0.5, 3.0))),
         (try_augmented_product, (0.7, 1.0)), (try_augmented_product, (0.7, 3.0)),
         (try_handler_augmented, (0.4, 0.0)), (try_handler_augmented, (0.4, 2.0))]


def test_try_with_augmented_assignment_under_check_and_numba():
    report = srcdiff.gradcheck(try_augmented_in_loop, R.normal(size=3), (0.5, 1.0, 2.0))
    assert report, str(report)
    assert_numba_agrees_or_refuses(_program(try_augmented_product, 0.7, 1.0))


# ---- 6. the thin SVD's vectors at a zero singular value: a SILENT WRONG Hessian ------------------------------
# ``np.linalg.norm(A @ B, "nuc")`` of a 3x2 A and a 2x3 B (rank 2): its third singular value is
# 1e-16, not 0, so the SVD vectors' derivative divided by it and the Hessian was finite noise (error
# 2.5; 8e4 for the sum of singular values of a rank-deficient square matrix).  The derivative needs
# full rank (docs/guarantees.md).  FIXED: rules/decomposition_helpers.py reads a singular value
# below NumPy's matrix_rank tolerance as NaN there: the honest NaN, not a number.


def nuclear_of_product(A, B):
    return np.linalg.norm(A @ B, "nuc")


def singular_sum(X):
    return np.sum(np.linalg.svd(X, compute_uv=False))


def test_svd_vectors_at_a_zero_singular_value_are_nan_not_noise():
    A, B = R.normal(size=(3, 2)), R.normal(size=(2, 3))
    H = srcdiff.hessian(nuclear_of_product)(A, B)
    assert np.isnan(H).any()
    assert np.isnan(srcdiff.hessian(singular_sum)(A @ B)).any()


def test_svd_vectors_at_full_rank_stay_exact():
    A = R.normal(size=(3, 2))
    g = srcdiff.grad(srcdiff.grad(lambda_free_singular_sum))(0.3)
    eps = 1e-5
    want = (central_difference(lambda_free_singular_sum, [0.3 + eps], 0)
            - central_difference(lambda_free_singular_sum, [0.3 - eps], 0)) / (2 * eps)
    assert abs(g - want) < 1e-4 * max(1.0, abs(want))
    assert not np.isnan(srcdiff.hessian(nuclear_of_product)(A, R.normal(size=(2, 2)))).any()


def lambda_free_singular_sum(t):
    X = np.array([[1.0, t], [t * t, 2.0], [0.5, -t]])
    return np.sum(np.linalg.svd(X, compute_uv=False))


# ---- 7. a distance at 0 with a zero adjoint gave NaN (Matérn kernels' diagonal) --------------------------------
# ``r = np.sqrt(np.sum((X[:, None] - X[None]) ** 2, -1))`` is 0 on the diagonal, and a Matérn kernel's
# k'(0) = 0, so the root's adjoint was 0 / 0 = NaN and every input's gradient NaN, though the kernel is
# smooth there.  FIXED: ad/zero_factors.py holds a zero adjoint still through the root of a sum of
# squares (np.sum of squares, d @ d, a * a + b * b), the minimum of its operand (as it did for a root
# raised to a power above 1); a nonzero adjoint there keeps the honest NaN.


def matern32(X):
    r = np.sqrt(np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1))
    return np.sum((1 + math.sqrt(3.0) * r) * np.exp(-math.sqrt(3.0) * r))


def matern52_ell(log_ell, X):
    r = np.sqrt(np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)) / np.exp(log_ell)
    s5 = math.sqrt(5.0)
    return np.sum((1.0 + s5 * r + 5.0 / 3.0 * r ** 2) * np.exp(-s5 * r))


def pair_dot_distance(x, y):
    d = x - y
    r = np.sqrt(d @ d)
    return np.cos(r) + r * r


def scalar_distance(a, b):
    r = math.sqrt(a * a + b * b)
    return math.cosh(r) + math.exp(-r) * (1 + r)


DISTANCES = [(matern32, (R.normal(size=(4, 2)),)), (matern52_ell, (0.2, R.normal(size=(4, 2)))),
             (pair_dot_distance, (np.array([0.5, -0.2]), np.array([0.5, -0.2]))),
             (scalar_distance, (0.0, 0.0)), (scalar_distance, (0.3, -0.4))]


def test_a_distance_with_a_nonzero_adjoint_at_zero_stays_nan():
    def kinked(x, y):
        return np.sqrt(np.sum((x - y) ** 2))
    g = srcdiff.grad(kinked)(np.array([0.5, 1.0]), np.array([0.5, 1.0]))
    assert not np.isfinite(g).all()  # |d| at 0 has no derivative: never a silent number


def test_matern_in_float32_and_numba():
    X = R.normal(size=(4, 2))
    got = srcdiff.grad(matern32)(X.astype(np.float32))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, central_difference(matern32, [X], 0), rtol=2e-3, atol=2e-3)
    assert_numba_agrees_or_refuses(_program(matern32, X))


# ---- 8. math.prod of an array and math.log with a base were refused ---------------------------------------------
# ``math.prod(x[:3])`` of a 1-D array: refused ("of a list written in the call"); ``math.log(x, 2)``:
# "too many positional arguments".  FIXED: lower/number_calls.py reads the first as np.prod's rule
# (exact where an item is 0), the second as ``math.log(x) / math.log(base)``, as CPython computes it.


def log_bases(p):
    a, b = p
    return math.log(a, 2) + math.log(a * b, 10.0) + math.log(b, a + 1.0)


def prod_slices(x):
    return math.prod(x[:3]) + math.prod(x)


def prod_of_sines(x):
    return math.prod(np.sin(x)) ** 2


PRODUCTS = [(prod_slices, (np.array([0.0, 1.5, -0.5, 2.0]),)), (prod_slices, (np.array([0.3, 1.5, -0.5, 2.0]),)),
            (prod_of_sines, (np.array([0.3, 1.5, -0.5]),)), (log_bases, ((1.7, 0.4),))]


# ---- 9. zip with itertools.cycle: its generated code raised TypeError, and check said MISMATCH ---------------
# ``signs = itertools.cycle([1.0, -1.0, 0.5]); zip(x, signs)``: the loop over the zip asked for
# ``len(signs)`` at run time (TypeError at the user's line) and `srcdiff.check` reported a MISMATCH.
# FIXED: lower/loops.py reads ``itertools.cycle(seq)`` in a zip as ``[seq[n % len(seq)] for n in
# range(len(xs))]``, and a cycle or count held in a name assigned once as that call, when the zip runs
# as often as the assignment; one read again (a second zip, a loop around the zip only), whose
# iterator would go on where it stopped, is refused at the zip.


def cycle_named(x):
    signs = itertools.cycle([1.0, -1.0, 0.5])
    return sum(s * math.tanh(v) for v, s in zip(x, signs))


def cycle_written_in(x):
    total = 0.0
    for v, w in zip(x, itertools.cycle((2.0, 0.5))):
        total = total + w * v ** 2
    return total


def cycle_first(x, w):
    return sum(a * b for a, b in zip(itertools.cycle(w), x))


def count_named(x):
    k = itertools.count(1)
    return sum(a * j for a, j in zip(x, k))


def cycle_made_per_row(X):
    total = 0.0
    for row in X:
        signs = itertools.cycle([1.0, -1.0])
        for v, s in zip(row, signs):
            total = total + s * v * v
    return total


def cycle_read_again(X):
    signs = itertools.cycle([1.0, -1.0])
    total = 0.0
    for row in X:
        for v, s in zip(row, signs):
            total = total + s * v * v
    return total


X5 = np.array([0.3, -1.2, 0.8, 0.5, 0.1])
CYCLES = [(cycle_named, (X5,)), (cycle_written_in, (X5,)), (cycle_first, (X5, np.array([1.0, 2.0]))),
          (count_named, (X5,)), (cycle_made_per_row, (R.normal(size=(2, 3)),))]


def test_a_cycle_read_again_is_refused_at_the_zip():
    with pytest.raises(srcdiff.SrcDiffError, match="goes on where it stopped") as info:
        srcdiff.grad(cycle_read_again)(R.normal(size=(2, 3)))
    assert HERE in str(info.value)


def test_check_of_a_cycled_zip_agrees():
    assert srcdiff.gradcheck(cycle_named, X5), "gradcheck"
    assert_numba_agrees_or_refuses(_program(cycle_named, X5))


# ---- 10. an IntEnum member as an index was refused ---------------------------------------------------------
# ``p[Axis.X]`` with ``class Axis(enum.IntEnum)``: "'Axis' is a function or module, not a value".  FIXED:
# lower/subscripts.py reads a member of an int enum written as an index as the number it is (a member
# held in a name, in a slice or in arithmetic is still refused at its line: it may be tested with `is`).


class Axis(enum.IntEnum):
    X = 0
    Y = 1
    Z = 2


def enum_indexed(p):
    return p[Axis.X] ** 2 + np.sin(p[Axis.Z]) * p[Axis.Y]


def enum_indexed_matrix(P):
    return np.sum(P[Axis.Y] ** 2) + P[Axis.X, Axis.Y] * P[Axis.Y, Axis.Z]


ENUMS = [(enum_indexed, (R.normal(size=3),)), (enum_indexed_matrix, (R.normal(size=(2, 3)),))]


# ---- 11. items swapped by a tuple assignment were refused ----------------------------------------------------
# ``a[0], a[1] = a[1], a[0]``: "assignment to a[0] is not supported".  FIXED: lower/assignments.py
# computes every right-hand side first, as Python does, then writes the items in order, where the
# right-hand sides are numbers (copies in NumPy too).  Rows (``B[0], B[1] = B[1], B[0]``, views NumPy reads
# after the first write, so both rows end up equal) and values of unknown shape stay refused.


def swap_items(x):
    a = x.copy()
    a[0], a[1] = a[1], a[0] * 2.0
    return np.sum(a * np.arange(1.0, 4.0))


def swap_through_a_function(x):
    a = x.copy()
    a[0], a[2] = a[2], np.sin(a[0])
    return np.sum(a * np.arange(1.0, 4.0))


def swap_matrix_items(W):
    X = W.copy()
    X[0, 1], X[1, 0] = X[1, 0], 2.0 * X[0, 1]
    return np.sum(X * np.arange(1.0, 7.0).reshape(2, 3))


def swap_item_and_name(x, y):
    a = x.copy()
    a[0], b = y * 2.0, a[0]
    return np.sum(a) * b


def swap_rows(W):
    X = W.copy()
    X[0], X[1] = X[1], X[0]
    return np.sum(X * np.arange(1.0, 7.0).reshape(2, 3))


SWAPS = [(swap_items, (R.normal(size=3),)), (swap_through_a_function, (R.normal(size=3),)),
         (swap_matrix_items, (R.normal(size=(2, 3)),)), (swap_item_and_name, (R.normal(size=3), 0.7))]


def test_swapping_rows_through_views_is_refused():
    with pytest.raises(srcdiff.SrcDiffError, match="both rows end up equal") as info:
        srcdiff.grad(swap_rows)(R.normal(size=(2, 3)))
    assert HERE in str(info.value)


# ---- 12. NamedTuple._asdict() of a tree was refused at a line of the collections module -------------------------
# ``d = p._asdict()`` of a NamedTuple argument: srcdiff copied collections' own ``_asdict`` into the
# function and refused it at collections/__init__.py, not at the user's line.  FIXED: built_objects.py
# reads ``p._asdict()`` of a namedtuple tree as the dict of its fields (the same leaves).


class Shape3(typing.NamedTuple):
    loc: float
    log_scale: float
    skew: float


def asdict_fields(p, x):
    d = p._asdict()
    z = (x - d["loc"]) * math.exp(-d["log_scale"])
    return float(np.sum(z ** 2 + d["skew"] * z ** 3)) + x.size * d["log_scale"]


def asdict_values(p, x):
    return sum(v * v for v in p._asdict().values()) + np.sum(x * p._asdict()["skew"])


def asdict_items(p, x):
    total = 0.0
    for name, v in p._asdict().items():
        total = total + (2.0 if name == "loc" else 1.0) * math.sin(v)
    return total * np.sum(x)


ASDICTS = [(asdict_fields, (Shape3(0.1, -0.2, 0.05), R.normal(size=5))),
           (asdict_values, (Shape3(0.3, 0.2, -0.5), R.normal(size=3))),
           (asdict_items, (Shape3(0.3, 0.2, -0.5), R.normal(size=3)))]


@pytest.mark.parametrize("f, args", ASDICTS, ids=[f.__name__ for f, _ in ASDICTS])
def test_asdict_of_a_namedtuple_tree(f, args):
    p, x = args
    got = srcdiff.grad(f)(p, x)
    eps = 1e-6
    for field in p._fields:
        hi = f(p._replace(**{field: getattr(p, field) + eps}), x)
        lo = f(p._replace(**{field: getattr(p, field) - eps}), x)
        assert abs(getattr(got, field) - (hi - lo) / (2 * eps)) < 1e-6
    np.testing.assert_allclose(srcdiff.grad(f, wrt=1)(p, x), central_difference(f, [p, x], 1), rtol=1e-6, atol=1e-8)


# ---- every class's variants through every transformation: one table ---------------------------------

TABLE = TRIES + DISTANCES + PRODUCTS + CYCLES + ENUMS + SWAPS
IDS = [f"{f.__name__}-{k}" for k, (f, _) in enumerate(TABLE)]


@pytest.mark.parametrize("f, args", TABLE, ids=IDS)
def test_wave12_findings_first_order(f, args):
    row = run(_program(f, *args), ("grad", "value_and_grad", "jvp", "vjp", "tree"))
    assert not row.excluded, row.excluded
    assert not not_ok(row), not_ok(row)


@pytest.mark.parametrize("f, args", TABLE, ids=IDS)
def test_wave12_findings_hessian_and_every_transformation(f, args):
    if f in (matern32, matern52_ell, pair_dot_distance, scalar_distance):
        pytest.skip("the distance's second derivative at 0 stays NaN (test_redteam_wave12_open.py)")
    assert_every_transformation(_program(f, *args))
