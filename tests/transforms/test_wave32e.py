"""Wave 32e: what srcdiff.vmap batches of the kinds wave 30 left one example at a time (wave32e_programs.py).

The programs (23, written as users write them, 47 (program, wrt) rows): has_aux (an array, a number, a dict
as the aux), a list or tuple of numbers differentiated (indexed, unpacked, read in a loop), ``np.interp`` of
a table of values or of knots that differs between examples, while loops whose count differs between
examples (halving, Newton's iteration, a ``break``), ``np.linalg.lstsq``, ``np.convolve`` (valid, full),
``np.pad`` (zeros, edge), ``np.kron``, ``np.all`` (in an ``if`` and in ``np.where``), masked values in
``np.prod`` and ``np.maximum``.  Each row through vmap(grad), vmap(value_and_grad) (census_outcome: the loop
over the examples, each gradient checked against float64 central differences, then the batched call
against the loop), and vmap of a function calling srcdiff.jvp or srcdiff.hvp along each example's direction
(checked against central and second differences).  Batches of 3 (the census) and 4-6 (the tests).

Census, cells batched / one example at a time (warned at the user's line) / WRONG / bad error / n/a:

    vmap(grad), vmap(value_and_grad), 94 cells:  before 10 / 84 / 0 / 0 / 0    after 66 / 28 / 0 / 0 / 0
    vmap(jvp) 47 cells, vmap(hvp) 47 cells:      before and after 55 / 39 n/a, one example at a time
                                                 (srcdiff.jvp / srcdiff.hvp called inside have no batching rule)

Nothing was WRONG or a bad error before or after; every fallback gives the loop's numbers.  Batched now:

1. has_aux (8 of 12 cells): vmap refused the gradient's code ("only a plain gradient can be batched") and ran
   one example at a time.  Now the loss's gradient (the function rewritten to return its loss, which grad
   already differentiates) is batched and the aux comes from vmap(f)'s second result, as grad(f,
   has_aux=True) calls f once more for it (api/vmap_aux.py): (gradients, aux), ((values, aux), gradients).
   An aux vmap cannot batch (aux_dict: a dict built in the return) runs that half one example at a time,
   said by `.per_example`, refused at the user's line with per_example="refuse".
2. A list or tuple of numbers differentiated (6 cells): its gradient's code takes the leaves, so vmap
   refused it; now it is batched as the function of the leaves (api/vmap_leaves.py `leaves_or_none`), a
   list of per-example-stacked arrays back, as the loop's structure.
3. np.all / np.any / np.count_nonzero (8 cells): no rule of their own (their value has no gradient), so no
   batching rule; now each row's (ad/batching_conditions.py `truth_reduction`), and kept whole in a test
   (``if np.all(x > -1.5):``) too, whose ``-1.5`` (a negated constant) the test's rows could not line up.
4. A pure call with no batching rule of its own (26 cells: np.convolve, np.pad, np.kron, np.interp of each
   example's table, and their adjoints np.correlate, interp_adjoint, ...): run once per row inside the
   batched code, ``each_row(lambda row: np.convolve(x[row], k), batch_size, where)``, the rest batched
   (ad/batching_each_row.py); a row of another shape or a tuple sends that call to the loop over the
   examples; with jit="numba" refused at the user's line as before.  ``np.interp(w, xp, fp).shape`` (a
   gradient's seed) is asked of the first rows.  Jacobians and Hessians (batched over cotangent rows) of
   such functions take the same path instead of one pullback per row (checked against second differences).
5. Masked values (8 cells): ``np.prod(x[m] ...)`` (np.prod of each row with 1 where the mask is off, and the
   product's adjoint likewise: exact at zeros and for an empty mask, bit for bit the loop's) and
   ``np.maximum(x[m] * w[m], c)`` (the gradient's ``select`` of masked rows) are masked rows now.

Still one example at a time, and why: while loops whose count differs between examples (12 cells: not run
to the largest count under a mask yet, forward or reverse), np.linalg.lstsq (12 cells: it returns a tuple,
read as a list, whose residuals' shape differs with each example's rank), aux_dict's aux (4 cells), and every
jvp/hvp cell (calls of srcdiff.jvp/hvp inside a vmapped function).

Speed (CPU clock, one BLAS thread, medians of 5-9 interleaved rounds, vmap(grad(example loss)) / grad(the
batch's summed loss), batch 256): the mlp of benchmarks/batching.py 2.05-2.21 (unchanged: 2.2x in
RESULTS.md).  Its per-example first-layer gradient, ``np.einsum('bi,bj->bij', ...)`` writing 256 x 32 x
64, is at NumPy's floor: einsum 238 us, ``a[:, :, None] * b[:, None, :]`` 387, ``np.matmul`` of (B, I, 1)
by (B, 1, J) 595, a loop over i 427, einsum into a reused buffer 241 (einsum zeroes its output and adds the
products: twice the stores of a fill, 80 us); the (i, j, b) layout returned as a moved view is 221 at this
size but 1705 against 1197 at 256 x 128 x 64, and a non-contiguous result: no change made.  The rest of
the batched code costs 0.94 of one batched gradient, so the outer product alone (1.2 of one) keeps it
above 2x.  Held-out problems: logistic regression (d=50, a Python float bias) 3.35 -> 1.90: a Python
number argument sent every call down vmap's full path (binding, trees, kinds: 20 us of a 34 us call);
it now takes the short path, compared by value by the plan (api/vmap_fast.py `SHARED`).  Unchanged:
2-layer tanh nets 20-16-3 2.64 and 64-128-8 4.4 (its outer product writes 16 MB), softmax regression 40->10
1.93.  What is batched now against the loop it ran before, per call at a batch of 256: poly_list's gradient
7.3 ms -> 0.19 ms, smoothed's (np.convolve row by row) 6.7 -> 1.7 ms, interp_values's 10.0 -> 4.0 ms.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest
from numeric import central_difference, hessian_difference

import srcdiff

from . import corpus, leaves
from . import wave32e_programs as programs
from .vmap_checks import BATCHED, NA, PER_EXAMPLE, census_outcome, item, mapped_outcome, tree_difference, wide

TRANSFORMS = ("grad", "value_and_grad", "jvp", "hvp")


def _examples(args, axes, size):
    return [[a if ax is None else item(a, i) for a, ax in zip(args, axes)] for i in range(size)]


def _aux_outcome(f, wrt, args, axes, size, valued):
    """vmap(grad(f, has_aux=True)) or of value_and_grad: the loop's gradients checked against central
    differences of the loss, then the batched call against the loop (its aux too)."""
    transformed = (srcdiff.value_and_grad if valued else srcdiff.grad)(f, wrt=wrt, has_aux=True)
    examples = _examples(args, axes, size)
    per = [transformed(*copy.deepcopy(e)) for e in examples]
    for e, result in zip(examples, per):
        want = tree_difference(lambda *a: f(*a)[0], wide(e), wrt)
        if not np.allclose(leaves.vector(result[1] if valued else result[0]), want, rtol=1e-5, atol=1e-6):
            return NA, "grad disagrees with central differences (not vmap's)"
    return mapped_outcome(transformed, args, axes, per)


def _jvp_outcome(f, wrt, args, axes, size, rng):
    """vmap of a function calling srcdiff.jvp along a direction of its own for each example, against the
    loop, each tangent checked against central differences along that direction."""
    def along(*a):
        *given, v = a
        return srcdiff.jvp(f, tuple(given), tuple(v if k == wrt else None for k in range(len(given))))

    examples = _examples(args, axes, size)
    if not isinstance(examples[0][wrt], (np.ndarray, float)):
        return NA, "jvp takes arrays and numbers"
    directions = rng.normal(size=(size, *np.shape(examples[0][wrt])))
    try:
        per = [along(*copy.deepcopy(e), v) for e, v in zip(examples, directions)]
    except srcdiff.SrcDiffError as exc:
        return NA, f"jvp refuses: {exc.reason}"
    for e, v, (_, tangent) in zip(examples, directions, per):
        at = lambda t, e=e, v=v: f(*e[:wrt], e[wrt] + t * v, *e[wrt + 1:])  # noqa: E731
        want = (at(1e-6) - at(-1e-6)) / 2e-6
        if not np.allclose(tangent, want, rtol=1e-5, atol=1e-6):
            return NA, "jvp disagrees with central differences (not vmap's)"
    return mapped_outcome(along, [*args, directions], [*axes, 0], per)


def _hvp_outcome(f, wrt, args, axes, size, rng):
    """vmap of a function calling srcdiff.hvp (of the first argument) along each example's direction,
    against the loop, each product checked against second differences."""
    if wrt != 0:
        return NA, "hvp takes the first argument"

    def product(*a):
        x, *rest, v = a
        return srcdiff.hvp(f, x, v, *rest)

    examples = _examples(args, axes, size)
    if not isinstance(examples[0][0], np.ndarray):
        return NA, "hvp of a list of numbers: not this census's"
    directions = rng.normal(size=(size, *np.shape(examples[0][0])))
    try:
        per = [product(*copy.deepcopy(e), v) for e, v in zip(examples, directions)]
    except srcdiff.SrcDiffError as exc:
        return NA, f"hvp refuses: {exc.reason}"
    for e, v, got in zip(examples, directions, per):
        H = hessian_difference(f, e).reshape(v.size, v.size)
        if not np.allclose(got.ravel(), H @ v.ravel(), rtol=1e-4, atol=1e-4):
            return NA, "hvp disagrees with second differences (not vmap's)"
    return mapped_outcome(product, [*args, directions], [*axes, 0], per)


def outcome(f, make, wrt, aux, transform, size=3):
    """The census's cell: (outcome, why) of `transform` (TRANSFORMS) of `f` w.r.t. `wrt`, vmapped."""
    rng = np.random.default_rng(size + len(f.__name__))
    args, axes = make(rng, size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", srcdiff.PerExampleWarning)
        if transform in ("grad", "value_and_grad"):
            if aux:
                return _aux_outcome(f, wrt, args, axes, size, transform == "value_and_grad")
            return census_outcome(f, wrt, args, axes, size, valued=transform == "value_and_grad")
        if aux:
            return NA, "(loss, aux): jvp and hvp take functions of one value"
        return (_jvp_outcome if transform == "jvp" else _hvp_outcome)(f, wrt, args, axes, size, rng)


ROWS = [(f, make, wrt, aux) for f, make, wrts, aux in programs.PROGRAMS for wrt in wrts]


def census(transforms=TRANSFORMS) -> dict:
    """(program, wrt, transformation) -> (outcome, why)."""
    return {(f.__name__, wrt, t): outcome(f, make, wrt, aux, t) for f, make, wrt, aux in ROWS for t in transforms}


#: (program, wrt) still run one example at a time by vmap(grad) and vmap(value_and_grad), and why (docstring)
STILL = {("aux_dict", 0), ("aux_dict", 1)} | {
    (f.__name__, wrt) for f, _, wrts, _ in programs.PROGRAMS for wrt in wrts
    if f.__name__ in {"halve_until_small", "newton_sqrt", "break_on_test", "least_squares", "lstsq_residual"}}
#: the rows the default run keeps (`-m slow` runs them all)
KEPT = {("aux_array", 1), ("aux_dict", 0), ("where_all", 1), ("all_positive_gate", 0), ("halve_until_small", 1),
        ("poly_list", 0), ("interp_values", 0), ("smoothed", 0), ("masked_product", 1), ("masked_maximum", 1)}


def _row_id(row):
    f, _, wrt, _ = row
    return f"{f.__name__}-wrt{wrt}"


@pytest.mark.parametrize("row", [corpus.slow_unless((r[0].__name__, r[2]) in KEPT, r) for r in ROWS], ids=_row_id)
def test_census_batched_or_per_example_never_wrong(row):
    """vmap(grad) and vmap(value_and_grad) of each row: equal to the loop over the examples (each
    gradient checked against float64 central differences), batched unless listed in STILL."""
    f, make, wrt, aux = row
    for transform in ("grad", "value_and_grad"):
        got, why = outcome(f, make, wrt, aux, transform)
        assert got == (PER_EXAMPLE if (f.__name__, wrt) in STILL else BATCHED), (transform, why)


@pytest.mark.parametrize("row", [corpus.slow_unless((r[0].__name__, r[2]) in KEPT, r) for r in ROWS if not r[3]],
                         ids=_row_id)
def test_jvp_and_hvp_inside_vmap_run_one_example_at_a_time_and_agree(row):
    """vmap of a function calling srcdiff.jvp or srcdiff.hvp: one example at a time (those calls have no
    batching rule), the loop's numbers, each checked against central differences."""
    f, make, wrt, _ = row
    for transform in ("jvp", "hvp"):
        got, why = outcome(f, make, wrt, False, transform)
        assert got in (PER_EXAMPLE, NA), (transform, why)


# ---- has_aux ----

def test_has_aux_is_batched_and_keeps_its_structure():
    """vmap(grad(f, has_aux=True)) is (the batched gradient, the batched aux), value_and_grad
    ((values, aux), gradients), as the loop gives them; a call that runs one example at a time says why."""
    args, axes = programs.vectors_args(np.random.default_rng(1), 4)
    for transform in (srcdiff.grad, srcdiff.value_and_grad):
        g = transform(programs.aux_array, wrt=1, has_aux=True)
        mapped = srcdiff.vmap(g, in_axes=axes, per_example="refuse")
        got = mapped(*args)
        loop = [g(args[0], x) for x in args[1]]
        if transform is srcdiff.grad:
            np.testing.assert_allclose(got[0], [r[0] for r in loop], rtol=1e-12)
            np.testing.assert_allclose(got[1], [r[1] for r in loop], rtol=1e-12)
        else:
            np.testing.assert_allclose(got[0][0], [r[0][0] for r in loop], rtol=1e-12)
            np.testing.assert_allclose(got[0][1], [r[0][1] for r in loop], rtol=1e-12)
            np.testing.assert_allclose(got[1], [r[1] for r in loop], rtol=1e-12)
        assert mapped.per_example is None


def test_has_aux_whose_aux_cannot_be_batched_is_refused_at_the_users_line_when_asked():
    """aux_dict's aux (a dict of values computed in the function) runs one example at a time: with
    per_example="refuse" that is a SrcDiffError at the user's line, never a silent loop."""
    args, axes = programs.vectors_args(np.random.default_rng(2), 3)
    mapped = srcdiff.vmap(srcdiff.grad(programs.aux_dict, has_aux=True), in_axes=axes, per_example="refuse")
    with pytest.raises(srcdiff.SrcDiffError, match="per_example='refuse'") as info:
        mapped(*args)
    assert info.value.location.filename.endswith("wave32e_programs.py")


@pytest.mark.slow
def test_has_aux_with_numba_agrees_or_refuses_at_a_line():
    args, axes = programs.vectors_args(np.random.default_rng(3), 3)
    g = srcdiff.grad(programs.aux_number, wrt=1, has_aux=True)
    want = srcdiff.vmap(g, in_axes=axes)(*args)
    try:
        got = srcdiff.vmap(g, in_axes=axes, jit="numba")(*args)
    except srcdiff.SrcDiffError as exc:
        assert exc.location is not None and exc.location.filename.endswith(".py"), str(exc)
        return
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-10, atol=1e-12)


# ---- np.all, np.any, np.count_nonzero ----

def counted_gate(w, x):
    k = np.count_nonzero(x > 0)
    a = np.any(x > 1.0, axis=0)
    if np.any(x < -1.0):
        k = k + 1
    return np.sum(w * x) * k + np.sum(np.where(a, x, 0.0))


@pytest.mark.parametrize("f", [counted_gate, programs.all_positive_gate, programs.where_all], ids=lambda f: f.__name__)
def test_truth_reductions_are_batched_per_row(f):
    """``np.all``/``np.any``/``np.count_nonzero`` of each row (kept whole in a test too), for vmap(f) and
    vmap(grad(f)): the loop's numbers, in one call."""
    w, X = np.array([0.5, -0.2, 0.3, 1.0]), np.random.default_rng(0).normal(size=(6, 4)) * 1.2
    for wrt in (0, 1):
        np.testing.assert_allclose(srcdiff.grad(f, wrt=wrt)(w, X[0]), central_difference(f, [w, X[0]], wrt),
                                   rtol=1e-6, atol=1e-7)
    for g in (f, srcdiff.grad(f, wrt=0), srcdiff.grad(f, wrt=1)):
        mapped = srcdiff.vmap(g, in_axes=(None, 0), per_example="refuse")
        np.testing.assert_allclose(mapped(w, X), [g(w, x) for x in X], rtol=1e-12, atol=1e-14)


# ---- a call with no batching rule, row by row ----

def test_each_row_refuses_rows_of_other_shapes_so_that_vmap_runs_the_loop():
    """each_row stacks rows of one shape and dtype; a row of another shape (or a tuple) raises the error that
    sends that call to vmap's loop over the examples, never a ragged or object array."""
    from srcdiff.errors import SelectedSideError
    from srcdiff.rules.batching_each_row import each_row

    np.testing.assert_array_equal(each_row(lambda r: np.arange(3.0) * r, 2, "f.py:1"), [[0, 0, 0], [0, 1, 2]])
    for ragged in (lambda r: np.ones(r + 1), lambda r: (np.ones(2), 1.0)):
        with pytest.raises(SelectedSideError, match="f.py:1"):
            each_row(ragged, 2, "f.py:1")


@pytest.mark.parametrize("f", [programs.smoothed, programs.kron_features], ids=lambda f: f.__name__)
def test_a_row_by_row_call_is_refused_at_a_line_with_numba(f):
    """jit="numba" compiles no lambda: a call with no batching rule is refused at the user's line, as before."""
    args, axes = (programs.signal_args if f is programs.smoothed else programs.vectors_args)(
        np.random.default_rng(4), 3)
    with pytest.raises(srcdiff.SrcDiffError) as info:
        srcdiff.vmap(srcdiff.grad(f, wrt=1), in_axes=axes, jit="numba")(*args)
    assert info.value.location is not None and info.value.location.filename.endswith("wave32e_programs.py")


# ---- masked values in products and np.maximum ----

def masked_zero_product(w, x):
    m = x > -0.5
    return np.prod(x[m] * w[m])


def test_masked_products_keep_exact_zeros_and_empty_masks():
    """np.prod of masked values and its gradient (the product of the others, exact where items are 0:
    one zero, two zeros, an empty mask) batched equal to the loop bit for bit, the loop checked against
    central differences."""
    X = np.array([[0.0, 1.0, 2.0, -1.0], [0.0, 0.0, 1.0, 3.0], [-1.0, -1.0, -1.0, -1.0], [1.0, 2.0, 3.0, 4.0]])
    w = np.array([1.0, -2.0, 0.5, 1.5])
    for wrt in (0, 1):
        g = srcdiff.grad(masked_zero_product, wrt=wrt)
        for x in X:
            np.testing.assert_allclose(g(w, x), central_difference(masked_zero_product, [w, x], wrt), atol=1e-7)
        for h in (masked_zero_product, g):
            mapped = srcdiff.vmap(h, in_axes=(None, 0), per_example="refuse")
            np.testing.assert_array_equal(mapped(w, X), [h(w, x) for x in X])


def test_masked_maximum_at_its_tie_is_the_loops():
    """np.maximum of masked values at a tie (x * w == 0.1: half the slope, as grad gives) batched like the loop."""
    w = np.array([1.0, 0.5, -1.0, 2.0])
    X = np.array([[0.1, 0.2, -1.0, 0.05], [-0.6, 0.3, 0.4, 1.0], [0.1, 0.2, -0.1, 0.05]])
    for wrt in (0, 1):
        g = srcdiff.grad(programs.masked_maximum, wrt=wrt)
        mapped = srcdiff.vmap(g, in_axes=(None, 0), per_example="refuse")
        np.testing.assert_array_equal(mapped(w, X), [g(w, x) for x in X])


# ---- speed: a Python number shared by every example takes the short path ----

def logistic(w, b, x, y):
    z = x @ w + b
    return np.logaddexp(0.0, z) - y * z


def repeated(w, n, x):
    s = 0.0
    for _ in range(n):
        s = s + np.sin(x * w)
    return np.sum(s)


def test_a_shared_python_number_takes_the_short_path_and_is_read_each_call():
    """vmap(grad(loss)) with a Python float (a bias, a rate) or int (a loop count) shared by every example
    runs the last call's batched code without binding the arguments again (it took the full path every
    call); each call's number is the one used: a float read when run, an int the code is made for
    compared by value (another count: the full path, its own code)."""
    rng = np.random.default_rng(5)
    w, X, Y = rng.normal(size=4), rng.normal(size=(6, 4)), (rng.random(6) < 0.5) * 1.0
    mapped = srcdiff.vmap(srcdiff.grad(logistic), in_axes=(None, None, 0, 0), per_example="refuse")
    for b in (0.1, 0.1, -2.0, 3, 0.5):
        got = mapped(w, b, X, Y)
        np.testing.assert_allclose(got, [central_difference(logistic, [w, b, x, y], 0) for x, y in zip(X, Y)],
                                   rtol=1e-6, atol=1e-8)
    assert mapped._fast is not None and mapped._fast.ready((w, 0.7, X, Y), mapped._plan)
    counted = srcdiff.vmap(srcdiff.grad(repeated, wrt=2), in_axes=(None, None, 0), per_example="refuse")
    for n in (2, 2, 3, 2):
        np.testing.assert_allclose(counted(w, n, X), [central_difference(repeated, [w, n, x], 2) for x in X],
                                   rtol=1e-6, atol=1e-8)
