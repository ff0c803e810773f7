"""The red team's wave 28a: 163 programs (redteam_wave28a_*.py) written the way scientists and
engineers write them: FIR filters as double loops and by np.convolve/np.correlate, one-pole, biquad,
DC-blocker and cascaded IIR filters, Hann windows, spectra by np.fft.rfft/irfft/fft, Goertzel, LMS,
moving averages by slices and np.cumsum; Black-Scholes by math.erf and scipy's ndtr, binomial trees
as lists and as arrays shrunk by a while loop, Monte Carlo with fixed draws, portfolio variance,
risk parity, CVaR, discounting loops, yield by unrolled Newton steps, np.cumprod and
np.maximum.accumulate of returns, GARCH and EWMA recursions, Heston paths; Lennard-Jones with a
cut-off, Morse by nested while loops, kinetics by Euler and RK2 helpers returning tuples, heat
stencils by slices and np.pad, spring networks, bond and dihedral angles, cross products,
shoelace areas; GLMs, AR(p) by sums and lag matrices, MA(1), Kalman filters and an RTS smoother,
mixtures by a hand-written logsumexp, zero-inflated Poisson, Tobit, Weibull hazards, EM steps;
unrolled descent, RMSprop, Newton and ridge steps; convergence loops on values, swaps, augmented
slice assignments, Python max/min/abs, generators, keyword-only arguments, einsum, norms of an
order, x**0 at 0, float32.  Each goes through grad, value_and_grad, hessian, hvp, jvp, vjp,
jacobian, a tree of arguments, float32 and jit="numba", against float64 central differences
(matrix.py, tests/numeric.py), never the code under test.

Census before the fixes (163 programs; ok / refused at the user's line / WRONG / BAD, BAD being a
crash or a refusal naming no line of the user's; n/a: hvp of a second argument, float32 of numbers):

    transformation   ok  refused  WRONG  BAD          after:  ok  refused  WRONG  BAD
    grad            159        4      0    0                 159        4      0    0
    value_and_grad  159        4      0    0                 159        4      0    0
    hessian         157        0      2    0                 159        0      0    0
    hvp             133        4      2    0                 135        4      0    0
    jvp             159        4      0    0                 159        4      0    0
    vjp             159        4      0    0                 159        4      0    0
    jacobian        159        4      0    0                 159        4      0    0
    tree            159        4      0    0                 159        4      0    0
    float32         124        4      0    0                 124        4      0    0
    numba           157        6      0    0                 157        6      0    0
    vmap(grad)      152        4      1    0                 153        4      0    0

grad refuses 4 programs at the user's line, and so does every transformation (REFUSED below);
jit="numba" refused 2 more at the line (``np.squeeze`` without an axis; compiled since wave 30).  The WRONG
cells: unit_vector_angles' Hessian and hvp (1 below), rotated_alignment's vmap(grad) (2 below), and
one of the harness's own making, not srcdiff's (where_guarded_division at x == 0: ``np.where(abs(x)
> 1e-8, sin(x) / safe, 1.0)`` is constant on |x| < 1e-8, so its Hessian there is 0, as srcdiff says;
the central differences' step, 1e-5, crosses the guard; its point is now away from 0).

Found and fixed, the class with variants here:

1. WRONG (Hessian, hvp, jvp and Jacobian of the gradient: NaN where the second derivative exists):
   a tie's half share whose value is 0 at the tie.  ``np.clip(u @ u.T, -1, 1)`` of unit vectors puts
   the diagonal on the bound, and ``np.triu(..., 1)`` leaves it unused: the gradient's share there,
   ``tie(c == 1, c_bar, c, 1)``, is 0 on both sides of the tie and at it, yet its derivative was NaN
   (rules/kinks.py's tie_nan: NaN at every tie), which the matrix product spread over the whole
   Hessian.  Likewise an element of ``np.clip``, ``np.maximum`` or ``np.minimum`` on its kink that a
   slice, a mask or a zero weight leaves unused.  Fixed in rules/kinks.py and
   rules/generated_code.py: a share jumps only where its value is not 0 (tie_nan); where it is 0 it
   has a kink only if the value moves (tie_still_nan: NaN where the value's tangent or cotangent is
   not 0), so ``x * np.maximum(x, 0)`` at 0, which has no second derivative, keeps its NaN.

2. WRONG, silently (vmap of f, vmap(grad(f)); every other transformation right): ``np.array([[c, -s,
   0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])`` of batched numbers (a rotation by math.cos and math.sin of
   the mapped angle, in a helper or not; tuples of tuples too) with a batch as long as the inner list
   (3 here; 2 for a 2 x 2 rotation): the inner lists stayed Python lists of rows, and NumPy stacked
   each with the list's axis before the batch axis, while the constant row, broadcast, had it after;
   lengths that differ raised, so the value ran one example at a time (or, three levels deep, a plain
   ValueError).  Fixed in ad/batching_runtime.py: stack_rows stacks an item that is a row list itself
   first, its axis after the batch axis.

Open: the same class as 1 through ``np.abs``, whose adjoint is ``g * np.sign(x)``, not a tie: an element
of ``np.abs(x)`` at 0 that a slice leaves unused (``np.sum(np.abs(x)[1:] * x[1:])``, x[0] == 0) has
a NaN row in the Hessian (sign's jump times the structural 0 of the unused element's adjoint).  NaN
is the conservative answer (no wrong number); telling a factor that stands still from one that moves
needs its tangent, as tie_still_nan does.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import closure_cells, corpus, matrix, table_tests
from . import redteam_wave28a_programs as w

ALL = (*matrix.EVERY, *closure_cells.EXTRA, "vmap_grad")


def programs():
    return corpus.from_table(w.PROGRAMS, "w28a", "redteam_wave28a_programs", 28)


def _name(p):
    return p.name.partition(":")[2]


#: the rows the default run keeps (one of each kind of program; the finding's own tests are below)
KEPT = {"biquad", "ytm_newton", "abc_kinetics_euler", "kalman_filter_2d", "augmented_slices"}
#: refused by grad at the user's line, and so by every transformation: ``np.fft.ifft`` of complex
#: values, local functions appended to a list in a loop (since reach 29, test_reach29_refusals.py,
#: ``buf[1:] + [echoed]`` (a list joined by +) and a loop over ``sorted(set(groups))`` work)
#: (closure_over_loop, functions made in a loop and called from a list, is accepted since wave 34)
REFUSED = {"hilbert_envelope_fft"}
#: jit="numba" refused ``np.squeeze(out)`` without an axis at the user's line (mixture_k_components and
#: its _means); the axes are decided when the signature is known since wave 30 (test_numba30.py)
NUMBA_REFUSED: set = set()


TABLE = table_tests.Table(programs, kept=KEPT, refused=REFUSED, numba_refused=NUMBA_REFUSED)
test_first_order = TABLE.first_order(or_na=False)
test_every_transformation = TABLE.every_transformation(ALL)
test_numba = TABLE.numba()
test_what_grad_refuses_every_transformation_refuses_at_the_line = TABLE.refused_at_the_line(kept=REFUSED)


# ---- 1. a tie's share that is 0 at the tie ----


def unit_cosines(v):
    u = v / np.linalg.norm(v, axis=1, keepdims=True)
    cosines = np.clip(u @ u.T, -1.0, 1.0)
    return np.sum(np.triu(cosines, 1) ** 2)


def clip_unused_on_bound(v):
    c = np.clip(v, -1.0, 1.0)
    return np.sum(c[1:] ** 2) + np.sum(np.sin(v))


def maximum_masked(x):
    m = np.array([False, True, True, True])
    return np.sum(np.where(m, np.maximum(x, 0.0) ** 2 * x, 0.0))


def minimum_zero_weight(x):
    w_ = np.array([0.0, 1.0, 2.0, 0.5])
    return np.sum(w_ * np.minimum(x, 1.0) ** 2) + np.sum(x**3)


def clip_lower_unused(v):
    c = np.clip(v, -1.0, 1.0)
    return np.sum(c[:-1] * v[:-1] ** 2)


def _on_bound(r):
    return np.array([1.0, 0.4, -0.3, 0.7]) + np.array([0.0, 0.05, 0.05, 0.05]) * r.standard_normal(4)


def _at_zero(r):
    return np.array([0.0, 0.6, -0.8, 0.9]) + np.array([0.0, 0.05, 0.05, 0.05]) * r.standard_normal(4)


def _at_one(r):
    return np.array([1.0, 0.3, -0.5, 2.0]) + np.array([0.0, 0.05, 0.05, 0.05]) * r.standard_normal(4)


def _at_minus_one_last(r):
    return np.array([0.3, 0.5, -0.2, -1.0]) + np.array([0.05, 0.05, 0.05, 0.0]) * r.standard_normal(4)


SHARES = [
    ("unit_cosines", unit_cosines, lambda r: (r.standard_normal((3, 3)),), 0),
    ("clip_unused_on_bound", clip_unused_on_bound, lambda r: (_on_bound(r),), 0),
    ("maximum_masked", maximum_masked, lambda r: (_at_zero(r),), 0),
    ("minimum_zero_weight", minimum_zero_weight, lambda r: (_at_one(r),), 0),
    ("clip_lower_unused", clip_lower_unused, lambda r: (_at_minus_one_last(r),), 0),
]


def test_the_shares_sit_on_their_ties():
    """The points are exactly on the kinks (else these tests would test nothing)."""
    r = np.random.default_rng(28)
    assert _on_bound(r)[0] == 1.0 and _at_zero(r)[0] == 0.0 and _at_one(r)[0] == 1.0
    assert _at_minus_one_last(r)[-1] == -1.0
    v = r.standard_normal((3, 3))
    u = v / np.linalg.norm(v, axis=1, keepdims=True)
    assert np.any(np.diag(u @ u.T) >= 1.0)


#: the Hessian's batched reverse rows keep a NaN through a product by 0 (``w * np.minimum(x, 1.0)`` with
#: w = 0 where x is tied): conservative, not wrong (see the forward-over-reverse test below)
REVERSE_NAN = {"minimum_zero_weight"}


@pytest.mark.parametrize("transform", ["hessian", "hvp", "jacobian"])
@pytest.mark.parametrize("program", corpus.from_table(SHARES, "w28a", "test_redteam_wave28a", 28), ids=_name)
def test_a_share_of_zero_at_a_tie_second_order(program, transform):
    """Each transformation alone (a row of one always runs it, never sampled out)."""
    if transform == "hessian" and _name(program) in REVERSE_NAN:
        x = program.args[0]
        g = srcdiff.grad(program.func)
        want = np.stack([central_difference(lambda y, k=k: g(y)[k], (x,), 0) for k in range(x.size)])
        got = srcdiff.hessian(program.func)(x)
        assert np.isnan(got[0, 0]), got
        np.testing.assert_allclose(got[1:, 1:], want[1:, 1:], rtol=1e-5, atol=1e-6)
        return
    matrix.assert_ok(program, (transform,))


@pytest.mark.parametrize("program", corpus.from_table(SHARES, "w28a", "test_redteam_wave28a", 28), ids=_name)
def test_a_share_of_zero_at_a_tie_forward_over_reverse(program):
    """jvp and Jacobian of the gradient (forward mode over the gradient's code: the tangent rule;
    the Jacobian's batched reverse rows: the adjoint rule, whose NaN for a share's value that may
    move is dropped by the selections that leave it unused, and kept through a product by 0, as
    ``w * np.minimum(x, 1.0)`` with w = 0 there: conservative, not wrong)."""
    g = srcdiff.grad(program.func)
    x = program.args[0]
    want = np.stack([central_difference(lambda y, k=k: g(y).ravel()[k], (x,), 0).ravel()
                     for k in range(x.size)])
    v = np.linspace(-1.0, 1.0, x.size).reshape(x.shape)
    _, tangent = srcdiff.jvp(g, (x,), (v,))
    np.testing.assert_allclose(np.ravel(tangent), want @ v.ravel(), rtol=1e-5, atol=1e-6)
    got = np.reshape(srcdiff.jacobian(g)(x), (x.size, x.size))
    if _name(program) == "minimum_zero_weight":
        assert np.isnan(got[0, 0]), got
        got, want = got[1:, 1:], want[1:, 1:]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", corpus.from_table(SHARES, "w28a", "test_redteam_wave28a", 28), ids=_name)
def test_a_share_of_zero_at_a_tie_numba(program):
    matrix.assert_ok(program, ("numba",))


# the share is 0 at the tie but moves: the gradient has a kink there, no second derivative (NaN)


def x_times_relu(x):
    return np.sum(x * np.maximum(x, 0.0))


def shifted_times_clip(x):
    return np.sum((x - 1.0) * np.clip(x, -1.0, 1.0))


def weighted_relu_squared(x):
    return np.sum(np.array([2.0, 1.0]) * np.maximum(x, 0.0) ** 2)


@pytest.mark.parametrize("f, x", [(x_times_relu, [0.0, 0.5]), (shifted_times_clip, [1.0, 0.5]),
                                  (weighted_relu_squared, [0.0, 0.5])], ids=lambda a: getattr(a, "__name__", ""))
def test_a_share_of_zero_that_moves_keeps_its_nan(f, x):
    """Where the share is 0 at the tie but not nearby, the second derivative does not exist: NaN
    in that row and column's tied entry, every transformation of second order; the others exact."""
    x = np.array(x)
    h = srcdiff.hessian(f)(x)
    assert np.isnan(h[0, 0]), h
    assert np.isfinite(h[1, 1]) and np.isfinite(h[1, 0]), h
    g = srcdiff.grad(f)
    np.testing.assert_allclose(h[1, 1], central_difference(lambda y: g(y)[1], (x,), 0)[1], rtol=1e-6)
    assert np.isnan(srcdiff.hvp(f, x, np.array([1.0, 0.0]))[0])
    assert np.isnan(srcdiff.jvp(g, (x,), (np.array([1.0, 0.0]),))[1][0])
    assert np.isnan(srcdiff.jacobian(g)(x)[0, 0])


def test_a_share_of_zero_that_stands_still_in_one_direction():
    """Forward mode knows the direction: along a direction that leaves the tied element alone the
    tied share stands still, and the derivative exists (0 from it)."""
    x = np.array([0.0, 0.5])
    g = srcdiff.grad(x_times_relu)
    _, tangent = srcdiff.jvp(g, (x,), (np.array([0.0, 1.0]),))
    np.testing.assert_allclose(tangent, [0.0, 2.0])


# ---- 2. vmap of np.array of a list of lists of batched numbers ----


def rotation_z(theta):
    c, s = math.cos(theta), math.sin(theta)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rotate_by_helper(theta, pts):
    return np.sum((pts @ rotation_z(theta).T - np.eye(3)) ** 2)


def rotation_2d(theta, pts):
    c, s = np.cos(theta), np.sin(theta)
    R = np.array([[c, -s], [s, c]])
    return np.sum((pts[:, :2] @ R.T) ** 2 * np.array([1.0, 2.0]))


def tuple_of_tuples(theta, pts):
    M = np.array(((np.cos(theta), np.sin(theta)), (-np.sin(theta), np.cos(theta))))
    return np.sum(M @ pts[:2, :2] * M)


def three_levels(theta, pts):
    T = np.array([[[theta, 1.0, 0.0], [theta**2, 0.5, theta]], [[2.0, theta, 1.0], [1.0, theta**3, 2.0]]])
    return np.sum(T * T[::-1]) + np.sum(T[0] @ pts[:3, :2])


NESTED = [rotate_by_helper, rotation_2d, tuple_of_tuples, three_levels]


def _points():
    return np.eye(3) + 0.1 * np.random.default_rng(28).standard_normal((3, 3))


@pytest.mark.parametrize("size", [1, 2, 3, 4])
@pytest.mark.parametrize("f", NESTED, ids=lambda f: f.__name__)
def test_vmap_of_a_matrix_of_batched_numbers(f, size):
    """Every row right, whatever the batch size: a batch as long as the inner list (3 for a 3 x 3
    rotation, 2 for a 2 x 2) was silently wrong (NumPy stacked the inner list's axis before the
    batch axis), another size ran one example at a time or raised a plain ValueError."""
    pts, thetas = _points(), np.linspace(0.3, 0.5, size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", srcdiff.PerExampleWarning)
        got = srcdiff.vmap(f, in_axes=(0, None))(thetas, pts)
        grads = srcdiff.vmap(srcdiff.grad(f), in_axes=(0, None))(thetas, pts)
    np.testing.assert_allclose(got, [f(t, pts) for t in thetas], rtol=1e-12)
    want = [central_difference(f, (float(t), pts), 0) for t in thetas]
    np.testing.assert_allclose(np.ravel(grads), np.ravel(want), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("f", NESTED[:3], ids=lambda f: f.__name__)
def test_vmap_of_a_matrix_of_batched_numbers_is_batched(f):
    """Two levels of lists are batched (one call, no warning), the value and the gradient."""
    pts, thetas = _points(), np.linspace(0.3, 0.5, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", srcdiff.PerExampleWarning)
        srcdiff.vmap(f, in_axes=(0, None))(thetas, pts)
        srcdiff.vmap(srcdiff.grad(f), in_axes=(0, None))(thetas, pts)
