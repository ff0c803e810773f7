"""Wave 33d: the closure of srcdiff.vmap over what grad accepts (wave33d_programs.py): per-example
gradients of losses (builtin max/min of array elements among them), per-row Newton iterations (a fixed
count, and while loops whose trip count differs per example), batched ODE solves (Euler, RK4, an
adaptive step), solve/lstsq/inv inside, batched Hessian-vector products, has_aux with a dict aux.
Each is mapped as itself (vmap(f)), as its gradient and as value_and_grad, at batches of 1 and 4,
against the loop over the examples whose gradients are checked against float64 central differences
(vmap_checks.census_outcome); and the compositions vmap(jvp_function(f)), vmap(jvp_function(grad(f)))
(Hessian-vector products), srcdiff.hvp / srcdiff.jvp called inside the mapped function,
partial(srcdiff.hvp, f), vmap(hessian(f)), vmap(grad(f, has_aux=True)) with a dict or tuple aux.

Census of 224 cells (batched in one call / one example at a time, warned / refused at the user's line /
WRONG / bad error / n/a: grad itself refuses the bisection):

    before:  159 / 59 / 0 / 0 / 2 / 4
    after:   167 / 53 / 0 / 0 / 0 / 4

Found and fixed:

1. Nondeterminism (the brief's "sometimes batched, sometimes per example depending on what ran
   earlier"): the batched variant of a function is cached per argument signature, but its code is made
   from what one example's run (driver/batched.py's probe) tells: the number of axes of values the rules
   leave unknown, seen only on the sides of branches that example takes.  The first example compiled in
   the process decided the code for every later call of that signature: the same call
   (``vmap(grad(f))(w, B)``, every row taking the else side) ran one example at a time in a fresh process
   and in one batched call after another call whose first row took the if side.  The variant is now
   keyed by what the probe of the call's own example tells (api/batched_code.py `variant_for`), so a
   call is batched or not by its own arguments.
2. Builtin ``max(a, b)`` / ``min(a, b)`` of batched numbers ran row by row (each_row), each row
   returning whichever operand it picked: a Python ``0`` (or a float64 ``0.0`` beside float32 rows) on
   some rows beside NumPy floats on others made rows of two dtypes, so the call ran one example at a time
   or batched depending on which sides the examples took.  Now ``np.where(b > a, b, a)``
   (``b < a`` for min): Python's choice on every row (the first operand unless the second is strictly
   beyond it, so a NaN first is kept), one dtype, one batched call (ad/batching_conditions.py `extreme`).
3. Bad error: ``vmap(srcdiff.jvp_function(f))`` was refused as "a function made by
   srcdiff.jvp_function", with a hint to compose from the inside out, which is what it is.  Now the
   generated forward sweep of one example is read back and batched (api/vmap_forward.py): ``vmap(
   jvp_function(f), in_axes=((0, None), (0, None)))((X, c), (V, zeros))`` is one batched call, and
   ``jvp_function(grad(f))`` mapped so gives per-example Hessian-vector products in one call (float32
   kept, jit="numba" compiles it); trees run one example at a time (warned).
4. ``srcdiff.hvp`` / ``srcdiff.jvp`` called inside a mapped function ran one example at a time with the
   reason "srcdiff.api.hvp.hvp has no batching rule" and a hint about jacobian and hessian; the reason now
   names srcdiff.hvp and the hint says what batches it (vmap of jvp_function(grad(f))).
5. ``vmap(partial(srcdiff.hvp, f))`` (JAX's spelling of per-example Hessian-vector products) ran one
   example at a time with the reason "srcdiff differentiates Python functions; got partial
   functools.partial(<function hvp at 0x...>)"; it is now mapped as vmap(jvp_function(grad(f))), the
   other arguments' tangents zeros: one batched call (a tree x: one example at a time, warned).

Still one example at a time (warned at the user's line), by design or open:
- a while loop whose trip count differs between examples (Newton until converged, a fixed point, an
  adaptive step until t reaches 1): the control flow differs per example (also at a batch of one: the
  count is known only when it runs);
- np.linalg.lstsq inside (its four results of a stack: no batching rule yet; solve and inv are batched;
  batched since wave 34, test_wave34g.py);
- has_aux with a dict aux (the loss's gradient is batched, the aux runs per example: a dict display in
  a return is not lowered); hvp/jvp called inside a def; vmap(hessian(f)) (by design: its rows are
  one batched call already).

Speed (benchmarks/batching.py's case, CPU clock, 7 interleaved rounds, before -> after in one run):
vmap(grad) of the softmax MLP at a batch of 256 / one gradient of the summed loss 2.13 -> 2.13 (noise:
2.13-2.25); held out (written for this wave, not tuned on): a ReLU MLP's squared error 4.27 -> 4.0 (its
per-example outer products, 256 x 32 x 64, are the cost), a squared hinge written with builtin max
41.6 -> 4.7 (np.where instead of a Python call per row).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus
from . import wave33d_programs as p
from .vmap_checks import BATCHED, NA, PER_EXAMPLE, census_outcome, mapped_outcome, values_outcome

#: (program, transformation) rows the default run keeps: one of each class at a batch of 4
KEPT = {("max_with_int_zero", "grad[0]"), ("relu_of_elements", "vmap(f)"), ("newton_until_converged", "grad[1]"),
        ("euler_decay", "grad[0]"), ("solve_inside", "value_and_grad[1]")}
#: what still runs one example at a time (lstsq inside is batched since wave 34: each row's call, its parts
#: stacked, test_wave34g.py)
STILL = p.PER_EXAMPLE


def _rows():
    for f, make, wrts in p.PROGRAMS:
        for what in ["vmap(f)"] + [f"{t}[{w}]" for w in wrts for t in ("grad", "value_and_grad")]:
            for size in (1, 4):
                if what == "vmap(f)" and size == 1:
                    continue
                yield corpus.slow_unless((f.__name__, what) in KEPT and size == 4, f, make, what, size)


@pytest.mark.parametrize("f, make, what, size", list(_rows()),
                         ids=lambda v: getattr(v, "__name__", str(v)) if not callable(v) or hasattr(v, "__name__")
                         else "")
def test_census_batched_or_per_example_never_wrong(f, make, what, size):
    """Each program mapped as itself, as its gradient and as value_and_grad: batched in one call, or (where
    its control flow differs per example) one example at a time; never wrong, never a bad error."""
    args, axes = make(np.random.default_rng(size + len(f.__name__)), size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", srcdiff.PerExampleWarning)
        if what == "vmap(f)":
            outcome, why = values_outcome(f, args, axes, size)
        else:
            name, wrt = what[:-3], int(what[-2])
            outcome, why = census_outcome(f, wrt, args, axes, size, valued=name == "value_and_grad")
    if f.__name__ == "bisection_root" and what != "vmap(f)":
        assert outcome == NA, why  # (grad refuses a search by comparisons, at the user's line)
        return
    assert outcome == (PER_EXAMPLE if f.__name__ in STILL else BATCHED), why


# ---- 1. the code a call runs does not depend on what ran before it in the process ----

def branch_side_first(w, x):
    if x[0] > 0:
        v = np.sort(x * w)[np.argmax(x > 0)]  # (a value whose axes the rules do not know: the probe tells)
    else:
        v = x[1] * w[1]
    return v * v + x[2] * w[2]


def branch_side_second(w, x):
    if x[0] > 0:
        v = np.sort(x * w)[np.argmax(x > 0)]
    else:
        v = x[1] * w[1]
    return v * v + x[2] * w[2]


def _outcome(f, w, X):
    gradient = srcdiff.grad(f, wrt=1)
    mapped = srcdiff.vmap(gradient, in_axes=(None, 0), per_example="allow")
    got = mapped(w, X)
    np.testing.assert_allclose(got, [central_difference(f, (w, x), 1) for x in X], rtol=1e-6, atol=1e-7)
    return mapped.per_example is None


def test_a_call_is_batched_or_not_by_its_own_arguments_not_by_what_ran_before():
    """The same call in two histories: fresh, and after a call whose example took the other side of the
    branch (whose values' axes the probe then saw).  Before, the second history batched it (the code made
    from the earlier example), the first ran it one example at a time."""
    w = np.array([0.5, -1.0, 2.0])
    took_if = np.array([[1.0, 2.0, 0.5], [2.0, 1.5, -0.7]])  # (no ties in the sort)
    took_else = -took_if
    fresh = _outcome(branch_side_first, w, took_else)
    _outcome(branch_side_first, w, took_if[:1])
    again = _outcome(branch_side_first, w, took_else)
    _outcome(branch_side_second, w, took_if[:1])  # (the other history: the if side compiled first)
    other = _outcome(branch_side_second, w, took_else)
    assert fresh == again == other
    assert _outcome(branch_side_second, w, took_if) and _outcome(branch_side_first, w, took_if)


# ---- 2. builtin max / min of batched numbers: one batched call, Python's choice on every row ----

@pytest.mark.parametrize("f, dtype", [corpus.slow_unless(f is p.max_with_int_zero or dtype == np.float64
                                                         and f is p.relu_of_elements, f, dtype)
                                      for f in (p.max_with_int_zero, p.relu_of_elements, p.clipped_margin)
                                      for dtype in (np.float64, np.float32)],
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_builtin_max_is_one_batched_call_whichever_sides_rows_take(f, dtype):
    make = next(m for g, m, _ in p.PROGRAMS if g is f)
    args, axes = make(np.random.default_rng(3), 6)
    args = [a.astype(dtype) if isinstance(a, np.ndarray) else a for a in args]
    for wrt in (0, 1):
        gradient = srcdiff.grad(f, wrt=wrt)
        mapped = srcdiff.vmap(gradient, in_axes=axes, per_example="refuse")
        got = mapped(*args)
        rows = [gradient(*[a if ax is None else a[i] for a, ax in zip(args, axes)]) for i in range(6)]
        assert got.dtype == dtype and mapped.per_example is None and "np.where(" in mapped.source
        np.testing.assert_allclose(got, rows, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


def pick_max(a, b):
    return max(a[0], b[0]) + min(a[1], b[1])


def test_builtin_max_keeps_pythons_choice_at_ties_and_nan():
    """max(a, b) is a unless b > a: a NaN first is kept, a NaN second is not; a tie keeps a."""
    a = np.array([[np.nan, 1.0], [1.0, np.nan], [2.0, 2.0], [-0.0, 0.0]])
    b = np.array([[1.0, np.nan], [np.nan, 1.0], [2.0, 2.0], [0.0, -0.0]])
    got = srcdiff.vmap(pick_max, per_example="refuse")(a, b)
    want = [pick_max(x, y) for x, y in zip(a, b)]
    np.testing.assert_array_equal(got, want)
    assert np.signbit(srcdiff.vmap(pick_max)(a[3:], b[3:])[0]) == np.signbit(want[3])


# ---- 3. vmap of a forward-mode derivative ----

def quartic_gradient(x, c):
    """The gradient of wave33d_programs.quartic, written by hand (the reference of its Hessian)."""
    g = 4 * x ** 3 * c[0] + np.cos(x) * c
    g[0] += x[1] * c[2]
    g[1] += x[0] * c[2]
    return g


def test_vmap_of_a_jvp_is_one_batched_call():
    r = np.random.default_rng(1)
    X, V, C = r.normal(size=(5, 3)), r.normal(size=(5, 3)), r.normal(size=3)
    mapped = srcdiff.vmap(srcdiff.jvp_function(p.quartic), in_axes=((0, None), (0, None)), per_example="refuse")
    values, tangents = mapped((X, C), (V, np.zeros(3)))
    assert mapped.per_example is None and "def quartic_jvp_batched(" in mapped.source
    np.testing.assert_allclose(values, [p.quartic(x, C) for x in X], rtol=1e-12)
    want = [central_difference(lambda t, x=x, v=v: p.quartic(x + t * v, C), (0.0,), 0) for x, v in zip(X, V)]
    np.testing.assert_allclose(tangents, want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_vmap_of_a_jvp_of_a_gradient_gives_hessian_vector_products(dtype):
    r = np.random.default_rng(2)
    X, V, C = (r.normal(size=(4, 3)).astype(dtype), r.normal(size=(4, 3)).astype(dtype),
               r.normal(size=3).astype(dtype))
    mapped = srcdiff.vmap(srcdiff.jvp_function(srcdiff.grad(p.quartic)), in_axes=((0, None), (0, None)),
                          per_example="refuse")
    grads, products = mapped((X, C), (V, np.zeros(3, dtype)))
    assert mapped.per_example is None and products.dtype == dtype and grads.dtype == dtype
    wide = [np.asarray(a, dtype=float) for a in (X, V, C)]
    tol = 1e-6 if dtype == np.float64 else 2e-3
    for x, v, g, hv in zip(wide[0], wide[1], grads, products):
        np.testing.assert_allclose(g, quartic_gradient(x, wide[2]), rtol=tol, atol=tol)
        want = central_difference(lambda t, x=x, v=v: quartic_gradient(x + t * v, wide[2]), (0.0,), 0)
        np.testing.assert_allclose(hv, want, rtol=tol, atol=tol)


def tree_quartic(params, c):
    return np.sum(params["x"] ** 4) * c[0] + np.sum(np.sin(params["x"]) * c)


def test_vmap_of_a_jvp_of_trees_runs_one_example_at_a_time_and_warns():
    r = np.random.default_rng(4)
    X, V, C = r.normal(size=(3, 3)), r.normal(size=(3, 3)), r.normal(size=3)
    mapped = srcdiff.vmap(srcdiff.jvp_function(tree_quartic), in_axes=((0, None), (0, None)))
    with pytest.warns(srcdiff.PerExampleWarning):
        values, tangents = mapped(({"x": X}, C), ({"x": V}, np.zeros(3)))
    for x, v, value, tangent in zip(X, V, values, tangents):
        np.testing.assert_allclose(value, tree_quartic({"x": x}, C), rtol=1e-12)
        want = central_difference(lambda t, x=x, v=v: tree_quartic({"x": x + t * v}, C), (0.0,), 0)
        np.testing.assert_allclose(tangent, want, rtol=1e-6, atol=1e-7)


def test_vmap_of_a_jvp_with_in_axes_of_another_form_is_refused_in_words():
    mapped = srcdiff.vmap(srcdiff.jvp_function(p.quartic), in_axes=(0, 0, 0))
    with pytest.raises(srcdiff.SrcDiffError, match=r"\(primals, tangents\)"):
        mapped((np.ones((2, 3)), np.ones(3)), (np.ones((2, 3)), np.zeros(3)), np.ones(2))


def test_hvp_called_inside_a_mapped_function_says_what_batches_it():
    r = np.random.default_rng(5)
    X, V, C = r.normal(size=(3, 3)), r.normal(size=(3, 3)), r.normal(size=3)
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.vmap(p.hvp_of_quartic, in_axes=(0, 0, None), per_example="refuse")(X, V, C)
    assert caught.value.location.filename.endswith("wave33d_programs.py") and "srcdiff.hvp called" in str(caught.value)
    assert "jvp_function(srcdiff.grad(f))" in caught.value.hint
    per = [srcdiff.hvp(p.quartic, x, v, C) for x, v in zip(X, V)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", srcdiff.PerExampleWarning)
        assert mapped_outcome(p.hvp_of_quartic, (X, V, C), (0, 0, None), per)[0] == PER_EXAMPLE


def test_vmap_of_partial_hvp_is_one_batched_call():
    """``vmap(partial(srcdiff.hvp, f))``, JAX's spelling of per-example Hessian-vector products: mapped as
    vmap(jvp_function(grad(f))), the other arguments' tangents zeros; a tree x one example at a time."""
    r = np.random.default_rng(8)
    X, V, C, Cs = r.normal(size=(4, 3)), r.normal(size=(4, 3)), r.normal(size=3), r.normal(size=(4, 3))
    for axes, args in (((0, 0, None), (X, V, C)), ((0, None, 0), (X, V[0], Cs))):
        mapped = srcdiff.vmap(functools.partial(srcdiff.hvp, p.quartic), in_axes=axes, per_example="refuse")
        got = mapped(*args)
        assert mapped.per_example is None and "_batched(" in mapped.source
        for i, hv in enumerate(got):
            x, v, c = (a if ax is None else a[i] for a, ax in zip(args, axes))
            want = central_difference(lambda t, x=x, v=v, c=c: quartic_gradient(x + t * v, c), (0.0,), 0)
            np.testing.assert_allclose(hv, want, rtol=1e-6, atol=1e-6)
    mapped = srcdiff.vmap(functools.partial(srcdiff.hvp, tree_quartic), in_axes=(0, 0, None), per_example="allow")
    got = mapped({"x": X}, {"x": V}, C)
    assert mapped.per_example is not None
    np.testing.assert_allclose(got["x"], [srcdiff.hvp(tree_quartic, {"x": x}, {"x": v}, C)["x"] for x, v in zip(X, V)],
                               rtol=1e-12)


@pytest.mark.slow
def test_vmap_of_a_jvp_with_numba_agrees_or_refuses_at_a_line():
    r = np.random.default_rng(6)
    X, V, C = r.normal(size=(4, 3)), r.normal(size=(4, 3)), r.normal(size=3)
    want = srcdiff.vmap(srcdiff.jvp_function(p.quartic), in_axes=((0, None), (0, None)))((X, C), (V, np.zeros(3)))
    try:
        got = srcdiff.vmap(srcdiff.jvp_function(p.quartic), in_axes=((0, None), (0, None)), jit="numba")(
            (X, C), (V, np.zeros(3)))
    except srcdiff.SrcDiffError as exc:
        assert exc.location is not None, str(exc)
        return
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-12)


# ---- has_aux: the loss's gradient batched, a dict aux one example at a time (never wrong) ----

@pytest.mark.parametrize("f", [p.loss_with_dict_aux, p.loss_with_dict_aux_named, p.loss_with_tuple_aux],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("transform", [srcdiff.grad, srcdiff.value_and_grad], ids=lambda t: t.__name__)
def test_has_aux_mapped_like_the_loop(f, transform):
    r = np.random.default_rng(7)
    w, X, Y = r.normal(size=3), r.normal(size=(4, 3)), r.normal(size=4)
    g = transform(f, has_aux=True)
    per = [g(w, x, y) for x, y in zip(X, Y)]
    for x, y, row in zip(X, Y, per):
        gradient = row[1] if transform is srcdiff.value_and_grad else row[0]
        loss = lambda v, x=x, y=y: f(v, x, y)[0]  # noqa: E731
        np.testing.assert_allclose(gradient, central_difference(loss, (w,), 0), rtol=1e-6, atol=1e-7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", srcdiff.PerExampleWarning)
        outcome, why = mapped_outcome(g, (w, X, Y), (None, 0, 0), per)
    assert outcome == (BATCHED if f is p.loss_with_tuple_aux else PER_EXAMPLE), why


# ---- in_axes and out_axes other than 0, through vmap(f), grad, value_and_grad and jvp_function ----

def pair_of_results(w, x):
    return x @ w, np.tanh(x * w)


def test_in_axes_and_out_axes_other_than_zero_are_the_loops_moved():
    r = np.random.default_rng(9)
    w, X = r.normal(size=3), r.normal(size=(3, 5))  # the batch along axis 1
    columns = [X[:, i] for i in range(5)]
    values = srcdiff.vmap(pair_of_results, in_axes=(None, -1), out_axes=(0, 1), per_example="refuse")(w, X)
    np.testing.assert_allclose(values[0], [pair_of_results(w, x)[0] for x in columns], rtol=1e-12)
    np.testing.assert_allclose(values[1], np.stack([pair_of_results(w, x)[1] for x in columns], axis=1), rtol=1e-12)
    valued = srcdiff.vmap(srcdiff.value_and_grad(p.squared_error, wrt=(0, 1)), in_axes=(None, 1, None),
                          out_axes=(0, (1, 0)), per_example="refuse")
    loss, (gw, gx) = valued(w, X, 0.5)
    assert loss.shape == (5,) and gw.shape == (3, 5) and gx.shape == (5, 3)
    for i, x in enumerate(columns):
        np.testing.assert_allclose(gw[:, i], central_difference(p.squared_error, (w, x, 0.5), 0), rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(gx[i], central_difference(p.squared_error, (w, x, 0.5), 1), rtol=1e-6, atol=1e-7)
    C = r.normal(size=3)
    forward = srcdiff.vmap(srcdiff.jvp_function(p.quartic), in_axes=((1, None), (1, None)), out_axes=(0, 0),
                           per_example="refuse")
    _, tangents = forward((X, C), (X[::-1], np.zeros(3)))
    for i, (x, v) in enumerate(zip(columns, X[::-1].T)):
        want = central_difference(lambda t, x=x, v=v: p.quartic(x + t * v, C), (0.0,), 0)
        np.testing.assert_allclose(tangents[i], want, rtol=1e-6, atol=1e-7)
