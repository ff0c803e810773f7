"""Wave 35g: srcdiff.vmap's closure over the recent corpora, and its speed on per-example gradients.

Census (before -> after).  ``vmap(grad(f))``, ``vmap(value_and_grad(f))`` and ``vmap(f)`` of every program
of wave34a/b/c/d/e/h/i/j, redteam_wave30a/h and wave33d (1395 rows: the differentiated argument batched over
3 examples made by the program's own maker, other arguments shared; each row against the loop of single
calls, whose gradients agree with float64 central differences), batched / one example at a time / refused
at the line / WRONG / bad error / n/a:
grad 418 / 30 / 0 / 0 / 0 / 16, value_and_grad 417 / 31 / 0 / 0 / 0 / 16, vmap(f) 391 / 73 / 0 / 0 / 1 / 0
-> grad 424 / 24 / 0 / 0 / 0 / 16, value_and_grad 425 / 23 / 0 / 0 / 0 / 16, vmap(f) 426 / 39 / 0 / 0 / 0 / 0
(2 more rows, a __slots__ object as the differentiated argument, are not stacked by the census's maker).
No WRONG either way (but see 2: a plan kept across calls).  This module's programs (wave35g_programs.py,
17 programs x vmap(f), grad and value_and_grad of each parameter, a batch of 4, 69 rows): before 10
batched / 58 one example at a time / 1 bad error; after 69 batched.

Found and fixed:

1. vmap(f) of a function grad reads rewritten ran one example at a time where vmap(grad(f)) was batched:
   a helper returning a dict of computed values (``s = _moments(x); s["var"]``), a dict built key by key, a
   configuration dict of dicts passed to a helper, a module-level object with ``__slots__`` or read through
   ``__getattr__`` (a bad error there: ``KeyError: 'dtype'`` from the namespace's __getattr__).  vmap(f) now
   batches the same rewrite grad differentiates (frontend/flatten.py; api/vmap_leaves.py `rewritten`).
2. WRONG, silently, before: the plan vmap keeps for calls like the last one checked the batched code's
   lowering but not what the rewrite of a function read, so ``vmap(grad(f))`` of a function reading a
   module-level object (``SPRING.k``) kept the first call's numbers after the object changed.  The plan
   checks the rewrite's dependencies on every call (api/plans.py `rewrites`).
3. ``math.erf``, ``math.erfc``, ``math.gamma``, ``math.lgamma`` of a batched number (probit, Black-Scholes,
   Poisson and gamma likelihoods) sent the whole call one example at a time ("no NumPy counterpart"); they
   are ``math_rows(math.erf, x)`` now (ad/batching_math.py, rules/batching_each_row.py): each element
   through the math function as one example computes it, the rest batched; a domain error (a side of a
   branch some rows do not take) runs the call one example at a time; numba refuses it at the line.
4. ``np.hstack``, ``np.vstack``, ``np.dstack``, ``np.column_stack`` of a list with a batch axis (and their
   adjoints) ran one example at a time (their axis depends on the items' ranks): ``join_rows`` /
   ``join_adjoint_rows`` promote each item by its row's rank when they run (rules/join_helpers.py).
5. A test kept whole reading ``x[:, None]`` (a new axis) and ``(x > 0.2).astype(int)`` were refused by
   batching (one example at a time); both are batched as the elementwise tests they are
   (ad/batching_conditions.py).
6. Nested vmap, ``vmap(vmap(f, in_axes=A), in_axes=B)``, was refused ("a function made by srcdiff.vmap");
   it merges both batch axes and runs the inner map's batched code once (api/vmap_nested.py); trees and an
   inner out_axes run the outer map one example at a time, each a batched call.

in_axes / out_axes / jvp / hvp: in_axes None for parameters, 0 or 1 for data, trees of in_axes, out_axes 1,
vmap of jvp_function and of a partial of hvp were batched before and still are (checked below against the
loop of single derivatives).

Open (one example at a time, warned at the user's line, never wrong): loops whose count the values decide
(de Casteljau's, a bilinear sample's ``int(math.floor(t))``), recursive helpers, a list holding values with
and without a batch axis (a Kalman smoother's adjoint), a tuple carried through a loop that becomes a list of
rows (a biquad filter's state: the batched code raises, then one example at a time), ``K[np.ix_(d, d)] +=``
(the same), np.quantile of a sequence of levels, ``isinstance(u, float)`` of a batched number, a dict
comprehension over items known only at run time, data read through another module's attribute.

Speed (benchmarks/batching.py's MLP row, CPU clock, batch 256): per statement, the batched code is the
hand-written per-example gradient's, statement for statement; the outer products that write the 256
per-example gradients (``np.einsum('bi,bj->bij', x, d)``: 4 MB) take 60 % of the call (230 us of 385 us,
the batch's gradient 194 us), and no NumPy spelling writes them faster (broadcast multiply 350 us, matmul
of (B, i, 1) by (B, 1, j) 600 us, a loop over i 400 us, einsum with out= 225 us).  Held-out losses
(benchmarks/wave35g_vmap.py, batch 256, vmap(grad) / batch gradient and / hand-written per-example
gradient, one run of the code before and one after on a loaded machine, ratios move by 0.2-0.4 between
runs): mlp_wx 3.63 / 1.26 -> 3.69 / 1.23, relu_ce 3.26 / 1.05 -> 4.26 / 1.44, reg_linear 3.19 / 1.47 ->
2.93 / 1.45 (18 us a call: 4 us of it vmap's check of its plan), sigmoid_bce 4.86 / 1.23 -> 5.08 / 1.57:
the batched code did not change; the hand-written per-example gradients are themselves 2.5-4 batch
gradients (their outer products), so the 2x goal is below NumPy's floor for these.  batching.py's vmap
row, before / after alternated: 2.11, 1.98 / 2.03, 2.04 (the jacobian row 32.7, 29.8 / 32.3, 30.0 us).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import corpus, matrix
from . import wave35g_programs as p
from .vmap_checks import BATCHED, census_outcome, values_outcome

#: (program, what) rows the default run keeps: one of each class, at a batch of 4
KEPT = {("stats_helper", "vmap(f)"), ("slots_energy", "vmap(f)"), ("probit", "grad[0]"), ("bs_call", "vmap(f)"),
        ("hstack_loop", "grad[1]"), ("blocks_joined", "vmap(f)"), ("mask_column", "vmap(f)"), ("mask_int", "vmap(f)")}


def _rows():
    for f, make, wrts in p.PROGRAMS:
        for what in ["vmap(f)"] + [f"{t}[{w}]" for w in wrts for t in ("grad", "value_and_grad")]:
            kept = (f.__name__, what) in KEPT and make.__name__ != "_both"
            yield corpus.slow_unless(kept, f, make, what)


@pytest.mark.parametrize("f, make, what", list(_rows()), ids=lambda v: getattr(v, "__name__", str(v)))
def test_census_batched_never_wrong(f, make, what):
    args, axes = make(np.random.default_rng(7), 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (NumPy's warnings of a side an example does not take)
        if what == "vmap(f)":
            outcome, why = values_outcome(f, args, axes, 4)
        else:
            outcome, why = census_outcome(f, int(what[-2]), args, axes, 4, valued=what.startswith("value"))
    assert outcome == BATCHED, why


def _matrix_programs():
    return corpus.from_table(p.MATRIX, "w35g", "wave35g_programs", 35)


@pytest.mark.slow
@pytest.mark.parametrize("program", _matrix_programs(), ids=lambda q: q.name)
def test_every_transformation(program):
    """The programs through grad, value_and_grad, hessian, jvp, vjp and a tree (their vmap: the census)."""
    row = matrix.run(program, matrix.EVERY)
    assert not row.excluded, row.excluded
    bad = {k: v for k, v in matrix.not_ok(row).items() if v[0] != matrix.NA}
    assert not bad, bad


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", _matrix_programs(), ids=lambda q: q.name)
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


# ---- 2: a module-level object changed after the first call ----

def test_a_module_object_changed_after_the_first_call_is_read_again():
    x = np.random.default_rng(1).normal(size=(4, p.N))
    gradient = srcdiff.grad(p.slots_energy)
    mapped, values = srcdiff.vmap(gradient, per_example="refuse"), srcdiff.vmap(p.slots_energy, per_example="refuse")
    kept = p.SPRING.k, p.SPRING.rest
    try:
        for change in (lambda: setattr(p.SPRING, "rest", 1.5), lambda: setattr(p.SPRING, "k", np.ones(p.N)),
                       lambda: p.SPRING.k.__setitem__(0, 3.0)):
            mapped(x), values(x)
            change()
            for i in range(4):
                np.testing.assert_allclose(mapped(x)[i], central_difference(p.slots_energy, [x[i]], 0), rtol=1e-6)
            np.testing.assert_allclose(values(x), [p.slots_energy(r) for r in x], rtol=1e-12)
            assert mapped.per_example is None and values.per_example is None
    finally:
        p.SPRING.k, p.SPRING.rest = kept


# ---- 3: math functions row by row ----

def test_a_math_domain_error_on_a_side_not_taken_runs_one_example_at_a_time():
    xs = np.array([0.5, 0.0, 2.5, -1.0])  # (lgamma(0) and lgamma(-1) raise: those rows take the other side)
    for f in (p.lgamma_branch, srcdiff.grad(p.lgamma_branch)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = srcdiff.vmap(f, per_example="allow")(xs)
        np.testing.assert_allclose(got, [f(x) for x in xs], rtol=1e-12)
    mapped = srcdiff.vmap(p.lgamma_branch, per_example="refuse")
    np.testing.assert_allclose(mapped(xs + 3.0), [p.lgamma_branch(x) for x in xs + 3.0], rtol=1e-12)
    assert "math_rows(math.lgamma" in mapped.source


def test_math_rows_keep_float32_rows():
    args, axes = p._shapes(np.random.default_rng(3), 4)
    a = args[0].astype(np.float32)
    got = srcdiff.vmap(p.gamma_mix, in_axes=axes, per_example="refuse")(a, np.float32(0.3))
    want = np.array([p.gamma_mix(r, np.float32(0.3)) for r in a])
    assert got.dtype == np.result_type(*[np.asarray(w).dtype for w in want])
    np.testing.assert_allclose(got, want, rtol=1e-5)


@pytest.mark.parametrize("f, make", [(p.probit, p._classified), (p.hstack_loop, p._shared_w)],
                         ids=["math_rows", "join_rows"])
def test_numba_refuses_the_row_helpers_at_the_users_line(f, make):
    args, axes = make(np.random.default_rng(5), 3)
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.vmap(srcdiff.grad(f), in_axes=axes, jit="numba")(*args)
    assert caught.value.location is not None and caught.value.location.filename.endswith("wave35g_programs.py")


# ---- 6 and the axes: nested maps, in_axes / out_axes variants, jvp and hvp ----

def _loop(f, w, xs, ys):
    return np.stack([f(w, x, y) for x, y in zip(xs, ys)])


def test_nested_vmap_merges_both_batch_axes():
    r = np.random.default_rng(11)
    w, X, Y, W = 0.5 * r.normal(size=p.N), r.normal(size=(2, 5, p.N)), (r.random((2, 5)) > 0.5) * 1.0, \
        0.5 * r.normal(size=(3, p.N))
    gradient = srcdiff.grad(p.probit)
    np.testing.assert_allclose(gradient(w, X[0, 0], Y[0, 0]), central_difference(p.probit, [w, X[0, 0], Y[0, 0]], 0),
                               rtol=1e-6)
    inner = srcdiff.vmap(gradient, in_axes=(None, 0, 0), per_example="refuse")
    got = srcdiff.vmap(inner, in_axes=(None, 0, 0), per_example="refuse")(w, X, Y)
    np.testing.assert_allclose(got, [_loop(gradient, w, X[a], Y[a]) for a in range(2)], rtol=1e-12)
    grid = srcdiff.vmap(inner, in_axes=(0, None, None), out_axes=1)(W, X[0], Y[0])  # parameters x data
    np.testing.assert_allclose(grid, np.stack([_loop(gradient, v, X[0], Y[0]) for v in W], axis=1), rtol=1e-12)
    moved = srcdiff.vmap(srcdiff.vmap(gradient, in_axes=(None, 1, 0)), in_axes=(None, 2, 1))(
        w, np.transpose(X, (2, 1, 0)), Y.T)
    np.testing.assert_allclose(moved, got, rtol=1e-12)  # (the outer map along X's last axis, the inner along its
    # second: after the outer axis is taken out, the same examples as before)
    valued = srcdiff.vmap(srcdiff.vmap(srcdiff.value_and_grad(p.probit), in_axes=(None, 0, 0)),
                          in_axes=(None, 0, 0))(w, X, Y)
    np.testing.assert_allclose(valued[1], got, rtol=1e-12)
    np.testing.assert_allclose(valued[0], [[p.probit(w, x, y) for x, y in zip(X[a], Y[a])] for a in range(2)])


def test_nested_vmap_with_an_inner_out_axes_runs_the_outer_map_one_example_at_a_time():
    r = np.random.default_rng(12)
    w, X, Y = 0.5 * r.normal(size=p.N), r.normal(size=(2, 5, p.N)), (r.random((2, 5)) > 0.5) * 1.0
    gradient = srcdiff.grad(p.probit)
    mapped = srcdiff.vmap(srcdiff.vmap(gradient, in_axes=(None, 0, 0), out_axes=1), in_axes=(None, 0, 0),
                          per_example="allow")
    np.testing.assert_allclose(mapped(w, X, Y), [_loop(gradient, w, X[a], Y[a]).T for a in range(2)], rtol=1e-12)
    assert mapped.per_example is not None and "out_axes" in mapped.per_example
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.vmap(srcdiff.vmap(gradient, in_axes=(None, 0, 0), out_axes=1), in_axes=(None, 0, 0),
                     per_example="refuse")(w, X, Y)
    assert caught.value.location is not None and caught.value.location.filename.endswith("wave35g_programs.py")


def test_in_axes_and_out_axes_variants_of_the_new_classes():
    r = np.random.default_rng(13)
    w, X, Y = 0.5 * r.normal(size=p.N), r.normal(size=(6, p.N, p.N)), r.normal(size=(6, p.N))
    gradient = srcdiff.grad(p.hstack_loop, wrt=1)
    want = np.stack([gradient(w, x) for x in X])
    np.testing.assert_allclose(want[0], central_difference(p.hstack_loop, [w, X[0]], 1), rtol=1e-6)
    for axes, data, out, expected in (((None, 0), X, 0, want), ((None, 2), np.moveaxis(X, 0, 2), 0, want),
                                      ((None, -1), np.moveaxis(X, 0, -1), 1, np.moveaxis(want, 0, 1))):
        mapped = srcdiff.vmap(gradient, in_axes=axes, out_axes=out, per_example="refuse")
        np.testing.assert_allclose(mapped(w, data), expected, rtol=1e-12)
    tree = {"w": w, "c": 0.3}
    tree_gradient = srcdiff.grad(p.tree_probit)
    got = srcdiff.vmap(tree_gradient, in_axes=({"w": None, "c": None}, 0, 0), per_example="refuse")(tree, Y, Y[:, 0])
    for i in range(6):
        one = tree_gradient(tree, Y[i], Y[i, 0])
        np.testing.assert_allclose(got["w"][i], one["w"], rtol=1e-12)
        np.testing.assert_allclose(got["c"][i], one["c"], rtol=1e-12)


def test_vmap_of_jvp_and_hvp_of_the_new_classes():
    r = np.random.default_rng(14)
    w, X, Y, V = 0.5 * r.normal(size=p.N), r.normal(size=(5, p.N)), (r.random(5) > 0.5) * 1.0, r.normal(size=(5, p.N))
    jvp = srcdiff.jvp_function(p.probit)
    values, tangents = srcdiff.vmap(jvp, in_axes=((None, 0, 0), (0, None, None)), per_example="refuse")(
        (w, X, Y), (V, np.zeros(p.N), 0.0))
    for i in range(5):
        along = central_difference(lambda t, i=i: p.probit(w + t * V[i], X[i], Y[i]), [0.0], 0)
        np.testing.assert_allclose(tangents[i], along, rtol=1e-6)
        np.testing.assert_allclose(values[i], p.probit(w, X[i], Y[i]), rtol=1e-12)
    hvp = srcdiff.vmap(functools.partial(srcdiff.hvp, p.erf_energy), in_axes=(0, 0), per_example="refuse")
    got = hvp(X, V)
    for i in range(5):
        grad_at = lambda t, i=i: srcdiff.grad(p.erf_energy)(X[i] + t * V[i])  # noqa: E731
        np.testing.assert_allclose(got[i], central_difference(grad_at, [0.0], 0), rtol=1e-5, atol=1e-8)
