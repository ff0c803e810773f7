"""Wave 30: what srcdiff.vmap batches of the suite's programs, and what it still runs one example at a time.

The wide census: every program of the red team's tables (redteam_programs.PROGRAMS, waves 3-18) and of
tests/transforms/*programs*.py (waves 20-29, the reach and idiom tables), 4488 programs, each given a batch
of 3 examples made by its own maker at seeds s, s + 1, s + 2 (an argument that differs between them and
is floats of one shape is batched, in_axes 0; any other is shared, None, as vmap_checks.stacked_examples does),
mapped as ``vmap(grad(f, wrt))`` and as ``vmap(f)``, each compared with the loop over the examples (each
gradient checked against float64 central differences: vmap_checks.census_outcome).  n/a: grad itself
refuses, disagrees with central differences, or nothing differs between the examples.

Census of the 8976 rows (batched / one example at a time with a PerExampleWarning / WRONG / bad error /
n/a; nothing was refused at the user's line):
before, every row: 4962 / 2160 / 26 / 2 / 1821 (and 4 rows the census cannot compare, a tree holding
an object, 1 timeout).  After, re-run on every row not batched before of half the programs (chosen by a
hash of the name) and on every WRONG or bad-error row, 1282 rows: 187 of the 1077 one example at a time
before are batched, 890 still run one example at a time; 21 of the 26 WRONG are batched and right (11 of
them were the census's own: functions writing into their arguments, compared after the loop had changed
them), 5 are still WRONG (the two open classes below); both bad errors are batched; the 123 batched rows
re-run stayed batched.  Counted with the re-run rows replaced: 5172 / 1973 / 5 / 0 / 1821.
`test_wide_census_never_wrong` (``-m slow``) runs the census's check on a fortieth of the red team's
programs; test_census_batched_or_per_example_never_wrong runs it on vmap30_programs.py at batches of 1,
3 and 7, with value_and_grad too (300 rows: 242 batched, 58 one example at a time, listed below).

Found and fixed:

1. WRONG (silently): vmap(grad(f)) batches srcdiff's derivable code of the gradient, which leaves out
   a first-order gradient's select at a point of infinite slope (``held_still``: the distance
   ``np.sqrt(np.sum(diff ** 2))`` of a Matern kernel is 0 on the diagonal, where 0 / 0 would be NaN): the
   batched gradient was all NaN where the loop of grad gives numbers (2 rows).  The derivable code vmap
   batches is never differentiated again, so it keeps those selects now (`Options.once`).
1b. WRONG (silently): ``special.logsumexp(a, axis=0)`` with scipy.special imported as `special` was
   read as a method of `special`, and its first argument replaced by the axis (an HMM's forward
   algorithm gave 1.0 for every example, a loop of per-row cross-entropies other numbers: 6 rows); a
   row's stack times each row's vector (``E[ids] @ w``, ``A @ w`` of a shared stack) lined the vector's
   batch axis up with the stack's first axis, wrong where the stack is as long as the batch (2 rows).
2. bad error: vmap(f) of a function with a keyword-only parameter left to its default raised a
   TypeError (the batched code takes it after the positional ones): it is passed on now.
3. One example at a time before, now batched: a branch whose test differs between examples (``if
   x.sum() > 0:``, ``a if a > 0 else -a``, elif chains, nested branches, a branch in a loop, Python's
   ``abs`` in the test): both sides run for every example and each value the branch joins is taken from
   the side its example took (ad/batching_selects.py, ``branch_rows``), where the sides only compute
   values.  NumPy's warnings of the side an example does not take are silenced; an error raised there
   (``np.linalg.cholesky`` of the matrix the other side guards against) sends that call alone to one
   example at a time (api/vmap_selects.py), which raises it again where it is the user's; a test kept
   whole that batching would compute over the whole batch (``x[i] * w[i] > 0.1``, i a loop counter) is
   refused where the branch reads it, as before (it would have been WRONG: found while writing this).
4. One example at a time before, now batched: vmap(grad(f)) of a function srcdiff rewrites alone (it
   calls scipy's logsumexp, a partial, an object's method it reads), whose rewritten gradient takes the
   arguments themselves (its gradients, one per differentiated leaf, rebuilt as grad returns them:
   FlatCall.rebuilding; the census's check now compares the results' structure too, which the leaves
   alone hid); vmap(value_and_grad(f)) of such a function still runs one example at a time.
5. One example at a time before, now batched: writes through a mask that differs between examples
   (``y[y < 0] = 0.1 * y[y < 0]``, ``y[m] *= 0.1``, ``h[h > 0.5] = 0.5``, an integer array written,
   and the gradient's ``y_bar[m] = 0.0``): ``np.where`` of each row, the array's dtype kept
   (set_masked_rows); ``x.reshape(3, -1)`` and ``z.reshape(z.shape[0] // 2, 2)`` (the method, its shape
   given as numbers or computed when run); ``abs`` of a batched value; ``float`` of rows of one float64
   number (float32 rows run one example at a time: a Python float meets float32 arrays as float32); the
   shape of an index of numbers and slices (``pos[:, 0].shape``, a gradient's seed).
6. Refused before, now supported: ``out_axes`` (an int for every array of the result, a tuple, list or
   dict of them for its parts, None for a result the same for every example, checked so).

Speed: vmap(grad(mlp_loss)) at a batch of 256 against one batched gradient, 2.2x (before 2.2x:
benchmarks/batching.py's row, unchanged).

Still one example at a time (warned at the user's line), and why:
- a branch's side that prints, draws random numbers or appends to a list (running it for every example
  would do that for every example), a value one side leaves None and read where either side may have
  run (``if y is None``), sides giving values of other shapes or kinds (a loop's values kept from an
  earlier iteration, None on the first: the forward sweep of soft_threshold's gradient), and, for a
  batch of one, a value of the side its example does not take whose number of axes only a run tells;
- a loop whose number of iterations differs between examples (``while np.sum(x * x) > 1.0``, an early
  return in a loop): not run to the largest count with a mask yet;
- masked values read otherwise than elementwise and summed (a product, a maximum, a sort);
- value_and_grad of a function of trees, has_aux; np.linalg.lstsq; operations without a batching
  rule (np.convolve, np.interp, np.split of a list, np.pad, np.append, np.kron, np.tensordot, ...).
Open, not fixed here (the 5 WRONG rows after): vmap(f) of a loop carrying a Python number into float32
values gives float64 rows (the loop's first value is broadcast as float64, where one example's Python
float meets float32 as a float32; w11_float32_kalman_scalar, ma_float32_springs: values equal to float32
precision); a gradient that is a list (of a list argument) comes back from the loop over the examples as
one stacked array, not a list of stacked arrays (zip_tree_pairs_list, tuple_list_literal_of_calls,
weights_list_w: the same numbers, another structure).
"""

from __future__ import annotations

import warnings
import zlib

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus
from . import vmap30_programs as programs
from .vmap_checks import (
    BAD_ERROR,
    BATCHED,
    PER_EXAMPLE,
    WRONG,
    assert_batched_like_the_loop,
    census_outcome,
    example,
    stacked_examples,
    values_outcome,
)

STILL = {f.__name__ for f in programs.STILL} | {"soft_threshold"}
#: (program, wrt, batch size): a batch of one whose example takes one side only (its other side's axes unknown)
ONE_SIDE_SEEN = {("branch_on_sum", 1, 1), ("nested_branches", 0, 1)}
KEPT = {("branch_on_sum", 1), ("leaky_write", 0), ("reshaped_method", 1), ("mixture", 0), ("matern52", 0),
        ("printed_side", 1), ("huber_branch", 0)}

ROWS = [(f, make, wrt, size, valued) for f, make, wrts in programs.PROGRAMS for wrt in wrts for size in (1, 3, 7)
        for valued in (False, True)]


def _id(row):
    f, _, wrt, size, valued = row
    return f"{f.__name__}-wrt{wrt}-B{size}" + ("-value_and_grad" if valued else "")


@pytest.mark.parametrize("row", [corpus.slow_unless((r[0].__name__, r[2]) in KEPT and r[3] == 3 and not r[4], r)
                                 for r in ROWS], ids=_id)
def test_census_batched_or_per_example_never_wrong(row):
    f, make, wrt, size, valued = row
    args, axes = make(np.random.default_rng(size + len(f.__name__)), size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", srcdiff.PerExampleWarning)
        outcome, why = census_outcome(f, wrt, args, axes, size, valued=valued)
    per = f.__name__ in STILL or (f.__name__, wrt, size) in ONE_SIDE_SEEN  # (mixture's value_and_grad: batched
    # since wave 31v, test_wave31v.py)
    assert outcome == (PER_EXAMPLE if per else BATCHED), why


@pytest.mark.parametrize("f, make", [corpus.slow_unless(f is programs.log_or_square, f, make)
                                     for f, make, _ in programs.PROGRAMS], ids=lambda v: getattr(v, "__name__", ""))
def test_values_batched_like_the_loop(f, make):
    args, axes = make(np.random.default_rng(4), 5)
    mapped = srcdiff.vmap(f, in_axes=axes, per_example="allow")
    got = mapped(*args)
    np.testing.assert_allclose(got, [f(*example(args, axes, i)) for i in range(5)], rtol=1e-12, atol=1e-14)
    assert (mapped.per_example is None) == (f not in programs.STILL), mapped.per_example  # (soft_threshold's
    # values are batched: its gradient's forward sweep keeps values from earlier iterations, None on the first)


# ---- 3. branches whose test differs between examples ----

@pytest.mark.parametrize("f", [programs.branch_on_sum, programs.piecewise_elif,
                               pytest.param(programs.nested_branches, marks=pytest.mark.slow),
                               pytest.param(programs.guarded_root, marks=pytest.mark.slow)], ids=lambda f: f.__name__)
def test_a_branch_is_both_sides_selected_in_one_call(f):
    x = np.array([[1.0, 2.0, -0.5], [-1.0, -2.0, 0.5], [0.3, -0.1, 0.9], [-0.2, 0.4, -1.5]])  # both sides taken
    args, axes = (np.array([0.7, -1.2, 0.9]), x), (None, 0)
    assert_batched_like_the_loop(f, 1, args, axes, 4, "branch_rows(", rtol=1e-12, atol=1e-14)


def test_numpy_warns_nothing_of_the_side_an_example_does_not_take():
    w, X = np.array([1.0, 1.0, 1.0]), np.array([[1.0, 2.0, 0.5], [-1.0, -2.0, -0.5]])  # log of a negative sum
    for g in (programs.log_or_square, srcdiff.grad(programs.log_or_square, wrt=1)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = srcdiff.vmap(g, in_axes=(None, 0), per_example="refuse")(w, X)
        np.testing.assert_allclose(got, [g(w, x) for x in X], rtol=1e-12)
        assert np.all(np.isfinite(got))


def guarded_cholesky(w, x):
    if x[0] > 0.5:  # the matrix is positive definite only here
        L = np.linalg.cholesky(np.outer(x, x) + (x[0] - 0.5) * np.eye(3))
        return np.sum(L * w)
    return np.sum(x * w)


def test_an_error_of_the_side_not_taken_runs_that_call_one_example_at_a_time():
    w = np.array([0.7, -1.2, 0.9])
    mixed = np.array([[1.0, 0.2, -0.3], [0.1, 0.5, 0.5], [2.0, -1.0, 0.4]])
    taken = np.abs(mixed) + 0.6
    mapped = srcdiff.vmap(guarded_cholesky, in_axes=(None, 0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for X, batched in ((mixed, False), (taken, True), (mixed, False), (taken, True)):
            np.testing.assert_allclose(mapped(w, X), [guarded_cholesky(w, x) for x in X], rtol=1e-12)
            assert (mapped.per_example is None) == batched, mapped.per_example
    warned = [c for c in caught if issubclass(c.category, srcdiff.PerExampleWarning)]
    assert len(warned) == 1 and "LinAlgError" in str(warned[0].message) and len(caught) == 1
    refusing = srcdiff.vmap(guarded_cholesky, in_axes=(None, 0), per_example="refuse")
    np.testing.assert_allclose(refusing(w, taken), [guarded_cholesky(w, x) for x in taken], rtol=1e-12)
    with pytest.raises(srcdiff.SrcDiffError, match="per_example='refuse'") as info:
        refusing(w, mixed)
    assert info.value.location.filename == __file__


def test_a_test_computed_over_the_whole_batch_is_still_refused_where_the_branch_reads_it():
    """``x[k] * w[k] > 0.1`` with k a loop counter is a test kept whole whose index batching would read
    along the batch axis: the branch refuses it (a batch as long as a row would have been WRONG)."""
    def counted(w, x):
        s = 0.0
        for k in range(3):
            if x[k] * w[k] > 0.1:
                s = s + np.sin(x[k])
        return s

    w, X = np.array([1.0, 2.0, 3.0]), np.random.default_rng(2).normal(size=(3, 3))
    mapped = srcdiff.vmap(counted, in_axes=(None, 0), per_example="allow")
    np.testing.assert_allclose(mapped(w, X), [counted(w, x) for x in X], rtol=1e-12)
    assert "computes a value inside it" in mapped.per_example


@pytest.mark.parametrize("f, reason", [(programs.printed_side, "for its effect"),
                                       (programs.none_on_one_side, "None on one side"),
                                       (programs.sides_of_other_shapes, "other shapes")],
                         ids=["print", "None", "shape"])
def test_what_still_runs_one_example_at_a_time_says_why_at_the_users_line(f, reason):
    w, X = np.array([0.7, -1.2, 0.9]), np.array([[1.0, 2.0, -0.5], [-1.0, -2.0, 0.5]])
    mapped = srcdiff.vmap(f, in_axes=(None, 0), per_example="allow")
    np.testing.assert_allclose(mapped(w, X), [f(w, x) for x in X], rtol=1e-12)
    assert reason in mapped.per_example
    with pytest.raises(srcdiff.SrcDiffError, match="per_example='refuse'") as info:
        srcdiff.vmap(f, in_axes=(None, 0), per_example="refuse")(w, X)
    assert info.value.location.filename.endswith("vmap30_programs.py")


@pytest.mark.slow
@pytest.mark.parametrize("f", [programs.branch_on_sum, programs.leaky_write], ids=lambda f: f.__name__)
def test_numba_agrees_or_refuses_at_a_line(f):
    args, axes = programs.vectors_args(np.random.default_rng(3), 3)
    want = srcdiff.vmap(srcdiff.grad(f, wrt=1), in_axes=axes)(*args)
    try:
        got = srcdiff.vmap(srcdiff.grad(f, wrt=1), in_axes=axes, jit="numba")(*args)
    except srcdiff.SrcDiffError as exc:
        assert exc.location is not None and exc.location.filename.endswith(".py"), str(exc)
        return
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


# ---- 1. a point of infinite slope in the derivable code vmap batches ----

def test_the_gradient_at_a_point_of_infinite_slope_is_grads_not_nan():
    args, axes = programs.points_args(np.random.default_rng(0), 3)
    for wrt in (0, 1):
        g = srcdiff.grad(programs.matern52, wrt=wrt)
        got = srcdiff.vmap(g, in_axes=axes, per_example="refuse")(*args)
        want = [g(*example(args, axes, i)) for i in range(3)]
        assert np.all(np.isfinite(got))
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(want[1], central_difference(programs.matern52, example(args, axes, 1), wrt),
                                   rtol=1e-6, atol=1e-7)


# ---- 1b. silently WRONG before: a module imported under another name, a stack times each row's vector ----

@pytest.mark.parametrize("size", [3, pytest.param(1, marks=pytest.mark.slow), pytest.param(7, marks=pytest.mark.slow)])
@pytest.mark.parametrize("f, make, wrts", programs.SILENT, ids=lambda v: getattr(v, "__name__", ""))
def test_batched_like_the_loop_where_it_was_silently_wrong(f, make, wrts, size):
    """``special.logsumexp(a, axis=0)`` (scipy.special imported as `special`) was read as a method of
    `special`, its first argument replaced by the axis (an HMM's forward algorithm gave 1.0); the row of
    a stack times each row's vector paired the vector's batch axis with the stack's first axis (3 long,
    as the batch of 3): both silently wrong in vmap(f) and vmap(grad(f))."""
    args, axes = make(np.random.default_rng(size), size)
    for wrt in wrts:
        assert_batched_like_the_loop(f, wrt, args, axes, size, "_batched(", rtol=1e-10, atol=1e-12)


# ---- 2. keyword-only parameters left to their defaults ----

def scaled(x, *, scale=2.0):
    return np.sum(np.sin(x) * scale)


def test_keyword_only_defaults_are_passed_on():
    X = np.random.default_rng(1).normal(size=(3, 4))
    for g in (scaled, srcdiff.grad(scaled)):
        mapped = srcdiff.vmap(g, per_example="refuse")
        np.testing.assert_allclose(mapped(X), [g(x) for x in X], rtol=1e-12)


# ---- 5. masked writes, float32 and dtypes ----

@pytest.mark.parametrize("f", programs.WRITES + [programs.branch_on_sum, programs.relu_branch],
                         ids=lambda f: f.__name__)
def test_float32_stays_float32(f):
    args, axes = programs.vectors_args(np.random.default_rng(6), 3)
    small = [a.astype(np.float32) for a in args]
    for transform in (srcdiff.grad, srcdiff.value_and_grad):
        got = srcdiff.vmap(transform(f, wrt=1), in_axes=axes, per_example="refuse")(*small)
        want = [transform(f, wrt=1)(*example(small, axes, i)) for i in range(3)]
        got, want = (got[1], [w[1] for w in want]) if transform is srcdiff.value_and_grad else (got, want)
        assert got.dtype == np.float32 and all(w.dtype == np.float32 for w in want)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_a_masked_write_into_integers_keeps_them_integers():
    X = np.array([[1.0, -2.0, 3.0], [-1.0, 2.0, -3.0]])

    def counts(x):
        k = np.arange(3)
        k[x > 0] = 7
        return k

    got = srcdiff.vmap(counts, per_example="refuse")(X)
    assert got.dtype == np.arange(3).dtype
    np.testing.assert_array_equal(got, [counts(x) for x in X])


# ---- 6. out_axes ----

def outer_and_sum(w, x):
    return np.outer(x, w), np.sum(x * w), w * 2.0


def test_out_axes_place_each_results_batch_axis():
    w, X = np.array([1.0, 2.0, 3.0]), np.random.default_rng(3).normal(size=(4, 3))
    loop = [outer_and_sum(w, x) for x in X]
    outer, total, shared = srcdiff.vmap(outer_and_sum, in_axes=(None, 0), out_axes=(-1, 0, None))(w, X)
    np.testing.assert_allclose(outer, np.stack([o for o, _, _ in loop], axis=-1), rtol=1e-12)
    np.testing.assert_allclose(total, [t for _, t, _ in loop], rtol=1e-12)
    np.testing.assert_allclose(shared, w * 2.0, rtol=1e-12)
    moved = srcdiff.vmap(outer_and_sum, in_axes=(None, 0), out_axes=[1, -1, 1])(w, X)
    assert moved[0].shape == (3, 4, 3) and moved[1].shape == (4,) and moved[2].shape == (3, 4)
    grads = srcdiff.vmap(srcdiff.grad(lambda w, x: np.sum(np.sin(x * w)), wrt=1), in_axes=(None, 0), out_axes=1)(w, X)
    np.testing.assert_allclose(grads, (np.cos(X * w) * w).T, rtol=1e-12)


@pytest.mark.parametrize("out_axes, match", [((0, None, None), "differs between examples"),
                                             ((0, 1), "does not fit"), (3, "for a result of"),
                                             ("last", "must be an int")])
def test_out_axes_that_do_not_fit_are_refused(out_axes, match):
    w, X = np.array([1.0, 2.0, 3.0]), np.random.default_rng(3).normal(size=(4, 3))
    with pytest.raises(srcdiff.SrcDiffError, match=match):
        srcdiff.vmap(outer_and_sum, in_axes=(None, 0), out_axes=out_axes)(w, X)


# ---- the wide census: never WRONG, never a bad error ----

def _wide():
    from . import redteam_programs
    rows = [(name, f, make, wrt) for name, f, make, wrt in redteam_programs.PROGRAMS]
    return [r for r in rows if zlib.crc32(r[0].encode()) % 40 == 0]  # (every program: the docstring's census)


@pytest.mark.parametrize("row", [corpus.slow_unless(i == 0, r) for i, r in enumerate(_wide())], ids=lambda r: r[0])
def test_wide_census_never_wrong(row):
    name, f, make, wrt = row
    args, axes = stacked_examples(make, 3, zlib.crc32(name.encode()) % 10000)
    if not any(a == 0 for a in axes):
        pytest.skip("nothing differs between the examples")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outcomes = [census_outcome(f, wrt, args, axes, 3), values_outcome(f, args, axes, 3)]
    assert all(o not in (WRONG, BAD_ERROR) for o, _ in outcomes), outcomes  # (its open WRONG: fixed, test_wave31v.py)
