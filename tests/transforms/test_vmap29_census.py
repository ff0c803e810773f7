"""Wave 29: what srcdiff.vmap batches of per-example programs, 63 of them written as users write them
(vmap29_programs.py: losses ``f(params, x, y)`` mapped with in_axes (None, 0, 0), each example's
matrices given to np.linalg, masks, tests holding an index or a product, lists of lists;
vmap29_trees.py: parameters as a dict, tuple, list or namedtuple, a batched dict argument, a
parameter left to its default, more losses, and value_and_grad of 9 of them), each differentiated in
the shared and in the batched argument, at batch sizes 1, 3 and 7: ``vmap(grad(f, wrt))`` (or
``vmap(value_and_grad(f, wrt))``) against the loop of single calls, each example's gradient checked
against float64 central differences (vmap_checks.census_outcome).

Census of the 372 rows (batched / one example at a time with a PerExampleWarning / refused at the
user's line / WRONG / bad error / n/a: grad itself refuses np.linalg.solve of a stack by a vector):
before 172 / 194 / 0 / 3 / 0 / 6; after 357 / 12 / 0 / 0 / 0 / 6.  Besides, 14 programs of masked values
(vmap29_masks.py) and variants of each fix below.

Found and fixed:

1. WRONG (silently, before this wave): a test kept whole holding a matrix product with a shared
   matrix, ``np.where(A @ x > 0, A @ x, 0.0)`` (a ReLU layer written in one line), ``x @ A @ x > 0.5``:
   the test was batched as elementwise arithmetic, so NumPy paired the batch axis with a row's axis
   (an error, or a wrong answer where the batch is as long as the row: 3 rows of the census).  A
   product in a test (``@``, ``np.dot``) is now each row's product (rules/batching_linalg_helpers.py's
   `matmul_rows`).
2. WRONG (found when svd was batched, so never reached before): an adjoint list's item no contribution
   reached (``t2_bar[2]`` of svd's unused Vt) holds zero rows shaped like the item in batched code but
   the number 0.0 in the unbatched code whose shapes the transform reads: the batched code gave it axes
   of length one as to a number (a wrong shape, and wrong values with a batch of 3 matrices of 3 rows).
   Such an item's axes are now asked when the code runs (ad/batching_lists.py, `Batching.asked`).
3. One example at a time before, now batched in one call: vmap(value_and_grad(f)) (the derivable code
   returning the value beside the gradient, api/gradients.py); np.linalg.svd (full or thin,
   compute_uv=False), qr, pinv and matrix_power (NumPy's own calls on the stack of matrices; their
   adjoints are stack-aware); det/slogdet/inv/eigh of a stack of matrices built in each example
   (``np.linalg.det(np.stack([A, B]))``) and solve of stacks; the adjoint of ``x @ y`` where a row's x or
   y is a vector or a stack beside a batched factor (qr's ``Q @ w``, pinv's adjoint); values worked out
   of shapes alone (``np.ndim(s) == 1``, diag's adjoint's test); an index of numbers and slices inside a
   test (``np.where(x[0] > x, ...)``); a reduction's quotient inside a test (``x > np.sum(x[1:]) / 2``:
   the rendered code lost its parentheses, a TypeError, so it ran one example at a time);
   ``not``/``and``/``or`` of tests in a gradient's code (the guard ``np.where(not t2, 0.0, ...)`` of a
   hinge loss ``np.maximum(0.0, 1.0 - (2 * y - 1) * (x @ w))``: a ValueError, so one example at a time)
   as np.logical_not/_and/_or (``and``/``or`` of tests only: of numbers Python's give an operand);
   np.trace and np.diagonal (their axes moved past the batch axis); the adjoints of np.linalg.solve a
   gradient keeps (solve_adjoint_x/_y) of stacks.

4. One example at a time before, now batched: masked values summed (or averaged) after elementwise
   operations, ``np.sum(x[x > 0] * w[x > 0])``, ``np.mean(x[m] ** 2)``, ``(x > 0) & (w > -5)`` as the
   mask, and their gradients (``index_add(zeros_like(x), m, g)``, ``unbroadcast`` of masked rows): as
   *masked rows* (ad/batching_masks.py), each row whole beside its mask, reduced by
   ``np.sum(np.where(m, v, 0), axis=1)``, counted (``np.size(x[m])``, the mean's gradient) by
   ``np.sum(m, axis=1)``; two masks made apart are checked equal when run (else one
   example at a time: test_masks_made_apart_that_differ_run_one_example_at_a_time).
5. One example at a time before, now batched: a branch the same for every row one side of which cannot
   be batched (np.diag's adjoint's branch on the shape of s, in the gradient of the full SVD of a
   square matrix: its untaken side's values have no known shape) is batched with that side raising
   when run (then, and only then, vmap runs one example at a time; ad/batching.py's `_side`).

Still one example at a time (warned at the user's line), and why:
- a masked value read otherwise than elementwise and summed or counted: a product, a maximum, a sort,
  a slice, a loop carrying it, a test of it kept whole, ``len(x[x > 0])`` written in one expression
  (vmap29_masks.PER_EXAMPLE): each example's own number of items, which no array
  with a batch axis holds; ``np.where(x > 0, x * w, 0.0)`` batches and is the spelling to use;
- a branch on a value that differs between examples (``if x[0] > 0``): write it with np.where;
- value_and_grad of a function of trees (the value beside a tree of gradients), has_aux.
Refused, as before: vmap(jacobian(f)), vmap(hessian(f)) (compose from the inside out), out_axes other
than 0, and keyword arguments to the mapped function (in_axes gives one axis per positional argument;
a parameter left to its default is passed on, the same for every example).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import vmap29_masks as masks
from . import vmap29_programs as programs
from . import vmap29_trees as trees
from .vmap_checks import BATCHED, PER_EXAMPLE, assert_batched_like_the_loop, census_outcome, example

#: (program, wrt) rows that still run one example at a time (see the docstring)
STILL_PER_EXAMPLE = {("masked_count", 0)}  # (loss_branch_on_index: batched since wave 30, test_vmap30.py)
GRAD_REFUSES = {"solve_stack_by_vector"}

#: value_and_grad rows still one example at a time: a mask, a tree's gradients
VALUED_PER_EXAMPLE: set = set()  # (mlp_dict: value_and_grad of a dict of parameters, batched since wave 31v)

ROWS = [(f, make, wrt, size, valued) for f, make, wrts, valued in
        [(f, make, wrts, False) for f, make, wrts in programs.PROGRAMS] + trees.MORE
        if f.__name__ not in GRAD_REFUSES for wrt in wrts for size in (1, 3, 7)]
#: the default run's rows: one of each fixed class, at a batch of 3
KEPT = {("svd_first_vector", 1, False), ("qr_of_tall", 0, False), ("det_of_a_stack", 1, False),
        ("loss_index_test", 0, False), ("pinv_tall", 1, False), ("masked_sum", 0, False), ("relu_layer", 1, False),
        ("mlp_dict", 0, False), ("squared_error", 0, True), ("focal", 1, True)}


def _id(row):
    f, _, wrt, size, valued = row
    return f"{f.__name__}-wrt{wrt}-B{size}" + ("-value_and_grad" if valued else "")


@pytest.mark.parametrize("row", [row if (row[0].__name__, row[2], row[4]) in KEPT and row[3] == 3 else
                                 pytest.param(row, marks=pytest.mark.slow) for row in ROWS], ids=_id)
def test_census_batched_or_per_example_never_wrong(row):
    f, make, wrt, size, valued = row
    args, axes = make(np.random.default_rng(size + len(f.__name__)), size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", srcdiff.PerExampleWarning)
        outcome, why = census_outcome(f, wrt, args, axes, size, valued=valued)
    per = VALUED_PER_EXAMPLE if valued else STILL_PER_EXAMPLE
    want = PER_EXAMPLE if (f.__name__, wrt) in per else BATCHED
    assert outcome == want, why


def test_value_and_grad_is_one_batched_call():
    """vmap(value_and_grad(f)): the values and the per-example gradients from one batched function
    (its source printed), several gradients as a tuple."""
    r = np.random.default_rng(6)
    w, X, Y = r.normal(size=3), r.normal(size=(4, 3)), r.normal(size=4)
    mapped = srcdiff.vmap(srcdiff.value_and_grad(trees.gaussian_nll, wrt=(0, 2)), in_axes=(None, 0, 0),
                          per_example="refuse")
    values, (gw, gy) = mapped(w, X, Y)
    assert mapped.per_example is None and "_batched(" in mapped.source and mapped.source.count("def ") == 1
    for i in range(4):
        np.testing.assert_allclose(values[i], trees.gaussian_nll(w, X[i], Y[i]), rtol=1e-12)
        np.testing.assert_allclose(gw[i], central_difference(trees.gaussian_nll, (w, X[i], Y[i]), 0), rtol=1e-6,
                                   atol=1e-7)
        np.testing.assert_allclose(gy[i], central_difference(trees.gaussian_nll, (w, X[i], Y[i]), 2), rtol=1e-6,
                                   atol=1e-7)


@pytest.mark.parametrize("f", [programs.svd_first_vector, programs.qr_of_tall, programs.inverse_of_a_stack,
                               programs.loss_index_test], ids=lambda f: f.__name__)
def test_batched_in_one_call_like_the_loop(f):
    """Batched (per_example="refuse"), the batched code printable, equal to the loop of single calls."""
    make = next(m for g, m, _ in programs.PROGRAMS if g is f)
    args, axes = make(np.random.default_rng(5), 3)
    assert_batched_like_the_loop(f, 1, args, axes, 3, "_batched(", rtol=1e-9, atol=1e-11)


def determinants_of_blocks(w, x):
    blocks = np.stack([x[:2, :2], x[2:, 2:]])  # a stack of matrices in each example (per example before)
    return np.sum(np.linalg.det(blocks) * w[:2])


@pytest.mark.parametrize("size", [1, 3, pytest.param(7, marks=pytest.mark.slow)])
def test_a_stack_of_blocks_given_to_det_is_batched(size):
    r = np.random.default_rng(size)
    args, axes = (r.normal(size=4), r.normal(size=(size, 4, 4))), (None, 0)
    for wrt in (0, 1):
        assert_batched_like_the_loop(determinants_of_blocks, wrt, args, axes, size, "_batched(", rtol=1e-9,
                                     atol=1e-11)


# ---- 1. a matrix product inside a test kept whole ----

def relu_layer_dot(A, x):
    return np.sum(np.where(np.dot(A, x) > 0.1, np.tanh(A @ x), 0.0) ** 2)


def relu_of_row_times_matrix(A, x):
    return np.sum(np.where(x @ A > 0, x @ A, 0.1 * (x @ A)))


@pytest.mark.parametrize("size", [1, 3, pytest.param(7, marks=pytest.mark.slow)])
@pytest.mark.parametrize("f", [trees.relu_layer, relu_layer_dot, relu_of_row_times_matrix,
                               trees.gated_by_quadratic_form], ids=lambda f: f.__name__)
def test_a_product_in_a_test_is_each_rows(f, size):
    r = np.random.default_rng(size)
    args, axes = (r.normal(size=(3, 3)), r.normal(size=(size, 3))), (None, 0)  # (a batch as long as a row)
    assert_batched_like_the_loop(f, 1, args, axes, size, "matmul_rows(", rtol=1e-10, atol=1e-12)


def gate_by_matrix_products(A, X):
    return np.sum(np.where(A @ X > 0, X, -X)) + np.sum(np.where(X @ A > 0.1, X * 2.0, X))


def gate_by_squares_of_matrices(A, X):
    return np.sum(np.where(X @ X > 0.1, X * A, 0.0))


def gate_by_dot_and_index(A, x):
    return np.sum(np.where(np.dot(x, A[0]) > 0, x, 0.0)) + np.sum(np.where(A @ x > x[0] + x[1:2], x, 0.0))


@pytest.mark.parametrize("f", [gate_by_matrix_products, *[pytest.param(f, marks=pytest.mark.slow) for f in (
    gate_by_squares_of_matrices, gate_by_dot_and_index)]], ids=lambda f: f.__name__)
def test_products_of_stacks_and_vectors_in_a_test(f):
    r = np.random.default_rng(9)
    batched = r.normal(size=(3, 3)) if f is gate_by_dot_and_index else r.normal(size=(3, 3, 3))
    args, axes = (r.normal(size=(3, 3)), batched), (None, 0)
    for wrt in (0, 1):
        assert_batched_like_the_loop(f, wrt, args, axes, 3, "matmul_rows(", rtol=1e-10, atol=1e-12)


# ---- 2. an adjoint list's item no contribution reached ----

def svd_first_vector_only(w, A):
    U, s, Vt = np.linalg.svd(A * w + 2.0 * np.eye(3), full_matrices=False)
    return np.sum(U[:, 0] ** 2 * w)


def eigh_values_only(w, A):
    lam, V = np.linalg.eigh(A + A.T + np.diag(w))
    return np.sum(lam ** 2 * w)


@pytest.mark.parametrize("f", [svd_first_vector_only, eigh_values_only], ids=lambda f: f.__name__)
def test_an_unreached_adjoint_item_is_rows_of_its_shape(f):
    r = np.random.default_rng(2)
    args, axes = (r.normal(size=3), r.normal(size=(3, 3, 3)) / 2), (None, 0)
    assert_batched_like_the_loop(f, 1, args, axes, 3, "_batched(", rtol=1e-9, atol=1e-11)


FLOAT32 = [(masks.masked_products, masks.args, 1), (masks.mask_of_two_tests, masks.args, 0),
           (programs.solve_a_stack, programs.matrices_args, 0), (trees.relu_layer, trees.square_args, 1),
           (programs.trace_and_diagonal, programs.matrices_args, 1), (programs.loss_index_test, programs.loss_args, 0),
           (programs.qr_of_tall, programs.tall_args, 1)]


@pytest.mark.parametrize("f, make, wrt", [row if i < 2 else pytest.param(*row, marks=pytest.mark.slow)
                                          for i, row in enumerate(FLOAT32)], ids=lambda v: getattr(v, "__name__", ""))
def test_float32_stays_float32_batched(f, make, wrt):
    args, axes = make(np.random.default_rng(3), 3)
    small = [a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in args]
    for transform in (srcdiff.grad, srcdiff.value_and_grad):
        mapped = srcdiff.vmap(transform(f, wrt=wrt), in_axes=axes, per_example="refuse")
        got = mapped(*small)
        wide = srcdiff.vmap(transform(f, wrt=wrt), in_axes=axes)(*[np.asarray(a, dtype=float) for a in small])
        got, wide = (got[1], wide[1]) if transform is srcdiff.value_and_grad else (got, wide)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, wide, rtol=3e-3, atol=3e-3)


def test_float32_svd_stays_float32():
    r = np.random.default_rng(4)
    w, A = r.normal(size=3).astype(np.float32), (r.normal(size=(3, 3, 3)) / 2).astype(np.float32)
    got = srcdiff.vmap(srcdiff.grad(programs.svd_values, wrt=1), in_axes=(None, 0), per_example="refuse")(w, A)
    assert got.dtype == np.float32
    wide = srcdiff.vmap(srcdiff.grad(programs.svd_values, wrt=1), in_axes=(None, 0))(w.astype(float), A.astype(float))
    np.testing.assert_allclose(got, wide, rtol=2e-3, atol=2e-3)


def test_a_mask_still_per_example_is_refused_at_the_users_line_when_asked():
    r = np.random.default_rng(1)
    w, X = r.normal(size=3), r.normal(size=(3, 3)) + 1.0
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.vmap(srcdiff.grad(masks.masked_maximum), in_axes=(None, 0), per_example="refuse")(w, X)
    assert caught.value.location.filename.endswith("vmap29_masks.py")


@pytest.mark.slow
@pytest.mark.parametrize("f, make", [(programs.qr_of_tall, programs.tall_args),
                                     (programs.det_of_a_stack, programs.matrices_args), (trees.relu_layer, None)],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_numba_agrees_or_refuses_at_a_line(f, make):
    r = np.random.default_rng(3)
    args, axes = make(r, 3) if make is not None else ((r.normal(size=(3, 3)), r.normal(size=(3, 3))), (None, 0))
    want = srcdiff.vmap(srcdiff.grad(f, wrt=1), in_axes=axes)(*args)
    try:
        got = srcdiff.vmap(srcdiff.grad(f, wrt=1), in_axes=axes, jit="numba")(*args)
    except srcdiff.SrcDiffError as exc:
        assert exc.location is not None and exc.location.filename.endswith(".py"), str(exc)
        return
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


# ---- 3. masked values: summed after elementwise operations, batched as masked rows; else per example ----

@pytest.mark.parametrize("size", [1, 3, pytest.param(7, marks=pytest.mark.slow)])
@pytest.mark.parametrize("f", masks.BATCHED + masks.PER_EXAMPLE, ids=lambda f: f.__name__)
def test_a_masked_value_is_batched_or_per_example_never_wrong(f, size):
    args, axes = masks.args(np.random.default_rng(size), size)
    want = BATCHED if f in masks.BATCHED else PER_EXAMPLE
    for wrt in (0, 1):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", srcdiff.PerExampleWarning)
            outcome, why = census_outcome(f, wrt, args, axes, size)
        assert outcome == want, (wrt, why)
    mapped = srcdiff.vmap(f, in_axes=axes, per_example="allow")
    np.testing.assert_allclose(mapped(*args), [f(*example(args, axes, i)) for i in range(size)], rtol=1e-12)
    assert (mapped.per_example is None) == (want == BATCHED)


def test_masks_made_apart_that_differ_run_one_example_at_a_time():
    """``x[x > 0] * w[x[::-1] > 0]`` where the two masks select the same number of items at other
    positions: masked rows would pair other items, so the check when run sends vmap to one example at
    a time."""
    def apart(w, x):
        return np.sum(x[x > 0] * w[x[::-1] > 0])

    w, X = np.array([1.0, -1.0, 2.0]), np.array([[-1.0, 3.0, 2.0], [-2.0, 1.0, 5.0]])
    for g in (apart, srcdiff.grad(apart, wrt=1)):
        mapped = srcdiff.vmap(g, in_axes=(None, 0), per_example="allow")
        np.testing.assert_allclose(mapped(w, X), [g(w, x) for x in X], rtol=1e-12)
        assert mapped.per_example is not None and "select different positions" in mapped.per_example


# ---- 5. a branch the same for every row, one side not batched ----

def branch_on_the_shared_vector(w, x):
    if np.sum(w) > 0:
        return np.sum(w * x)
    return np.sum(np.sort(x)[np.argmax(x > 0)] * w)  # (the row's ndim of this side is not known)


def test_a_side_that_cannot_be_batched_runs_one_example_at_a_time_only_when_taken():
    X = np.abs(np.random.default_rng(8).normal(size=(3, 3))) + 0.1
    for w, batched in ((np.array([1.0, 2.0, 3.0]), True), (np.array([-1.0, -2.0, 3.0]), False)):
        for g in (branch_on_the_shared_vector, srcdiff.grad(branch_on_the_shared_vector, wrt=1)):
            mapped = srcdiff.vmap(g, in_axes=(None, 0), per_example="allow")
            np.testing.assert_allclose(mapped(w, X), [g(w, x) for x in X], rtol=1e-12)
            assert (mapped.per_example is None) == batched, mapped.per_example
