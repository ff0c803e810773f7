"""Wave 34g: srcdiff.vmap's speed on per-example gradients and its closure over the recent red-team corpora.

Speed.  ``vmap(grad(loss), in_axes=(None, 0, 0))`` batches the gradient's derivable code, which the optimiser
folds less than the code grad runs; three of its leftovers cost per-example gradients passes over the batch
that a hand-written per-example gradient does not make (held-out losses, benchmarks/wave34g_vmap.py):

1. ``held_still(1.0 / t5, 1.0)``: a hold (the select that keeps 0 * inf from making NaN) whose direction is a
   nonzero number holds nothing, yet cost a finite test of a sum, here twice (nested).  The optimiser now drops
   a hold whose direction is a nonzero number literal, and a hold held again by the same direction (simplify.py;
   every gradient, not vmap's alone: a log of a sum seeded by 1.0 had one).
2. ``np.where(t2 >= 0.0, np.where(t2 >= 0.0, tie(...), 0.0), 0.0)``: the inner selection on a decided condition
   was kept because the optimiser could not tell that ``tie(...)`` (a tie's half shares) and ``held_still(...)``
   are floats; it can now (`is_float`), so the fold wheres.py already made applies (ReLU layers: one selection,
   one comparison fewer per example).
2b. ``tie(c, value, x, y)`` (a tie's half shares, which batched code keeps: it is derivable code) halved every
   element and selected; where no element is tied (the common case) it is now one copy (rules/kinks.py).
   benchmarks/wave34g_vmap.py, vmap(grad) / hand-written per-example gradient, CPU clock, batch 256, runs of
   the code before and after alternated on a shared machine (load 5 on 2 cores; ratios move by 0.1-0.3 between
   runs): batching.py's MLP row 1.11-1.14 -> 1.15-1.25 (its outer products, 4 MB of per-example gradients
   written by einsum at a copy's speed, are most of it: the hand-written per-example gradient is itself about
   2 batch gradients, so the 2x goal is NumPy's floor there; batching.py's row read 2.24 / 2.39 before, 2.13 /
   2.34 after); held out: relu_mse 1.36-1.52 -> 1.2-1.34, softmax_dot 1.31-1.44 -> 1.08-1.44, logistic
   2.79-3.23 -> 2.36-2.56 (24 µs: Python's cost per statement), tanh_mean 1.08-1.22 -> 1.06-1.37 (unchanged
   code: the noise).

Closure.  Census of ``vmap(grad(f))`` and ``vmap(value_and_grad(f))`` over the programs of
wave33a/e/f/g/h/i_programs.py, redteam_wave29a/b/c, redteam_wave31a/h and wave31m_programs.py (each with a
batch of 3 made by the program's own maker, vmap_checks.stacked_examples, and again with the differentiated
argument alone batched, trees leaf by leaf), each row against the loop of single gradients checked against
float64 central differences (batched / one example at a time / refused at the user's line / WRONG / bad
error / n/a).  Stacked by the makers (wave33a/e/f/g/h/i, 428 rows): 298 / 14 / 0 / 0 / 0 / 116 (n/a: nothing
differs between the makers' examples, the parameters being trees).  The differentiated argument batched
(wave33a/f/g/h/i, redteam_wave31a/h, redteam_wave29a; 29b/c not reached in the time), 742 rows: 682 / 44 / 0 /
0 / 0 / 14, and 2 rows that timed out (an SIR ODE, a cantilever's FEM solve: 30 s a row).  No WRONG, no bad
error.  One example at a time: the heads of an attention joined by ``np.concatenate(outs, axis=1)`` (3 below),
a pyramid halved ``while a.shape[0] >= 2`` (4), three helpers given an activation function (7), an early
return leaving None on one side, a fixed point and Kepler's equation iterated to a tolerance, a test kept
whole broadcast against a constant matrix, ``math.erf`` of a batched number (3 option-pricing programs),
helpers kept calls for other reasons (truss, planar_fk, a population model's), a list holding values with
and without a batch axis, a tree the leaves' batched code does not take.  After, re-run on those 46 rows:
the 10 rows of 3, 4 and 7 and both timed-out rows are batched, the others as before: 694 / 34 / 0 / 0 / 0 /
14.  This module's programs (wave34g_programs.py, 19 programs x grad / value_and_grad of each parameter and
vmap(f), batches of 1 and 4, 155 rows): before 40 batched / 115 one example at a time; after 141 / 14 (0 WRONG,
0 bad error, both).

Found and fixed:

3. One example at a time before, now batched: ``np.concatenate(xs, axis=a)`` and ``np.stack(xs, axis=a)`` of a
   list built in a loop whose items have a batch axis (heads of an attention, the states of an unrolled
   recurrence) join along ``a + 1`` (ad/batching_lists.py `_joined_rows`), and their adjoint
   ``join_adjoint`` cuts the rows there.
4. One example at a time before, now batched: a while loop whose test reads batched values for their shapes
   alone (``while a.shape[0] >= 2``, ``while len(x) > 1``, ``while x.size > 2``: a pyramid, a halving
   reduction) runs as many iterations for every row; its test is asked of the first rows
   (ad/batching_shapes.py `row_test`).
5. One example at a time before, now batched: ``np.linalg.lstsq`` inside a loss (NumPy takes no stack of
   matrices): the call runs row by row inside the batched code and each of its four results is stacked
   (``each_row_parts``, as ``each_row`` stacks a call's value); where a row's residuals differ in shape (a
   rank-deficient matrix among full-rank ones) that call alone runs one example at a time, the same numbers.
   jit="numba" refuses it at the user's line, as it refuses each_row.
7. One example at a time before, now batched (and grad's code one function): a helper given a function,
   ``_dense(x, W, np.sin)``, ``act=np.cos`` by keyword, an Euler step given its right-hand side
   ``_euler(_decay, y, k, dt)``: the helper bound to the function (frontend/function_arguments.py) is a
   closure, which the inliner kept a call (its caller's code could not read ``act``), and batching cannot
   batch a call of a gradient object.  It is copied into its caller now, the function read by a name the
   caller's closure holds (`functions_in_caller`, ad/inline.py).
6. Reason made clear: vmap(grad(f, has_aux=True)) with a dict aux batches the gradient but runs the aux (a
   call of f itself, whose dict display batched code cannot return) one example at a time; the warning said
   only that a dict "is supported only as a local tree assigned to a name" (untrue advice for an aux already
   assigned to a name).  It now says that the gradient is batched and the aux is not, and to return the aux
   as a tuple of arrays, which is batched.

Open (one example at a time, warned at the user's line, never wrong): ``np.hstack`` / ``np.vstack`` of a
list with a batch axis (their axis depends on the items' ndim); ``math.erf`` of a batched number; a while
loop whose count the values decide; a branch returning early on a per-example test; the dict aux itself
(a dict display in a return is not lowered); helpers kept calls for reasons other than a function argument.
"""

from __future__ import annotations

import ast
import warnings

import numpy as np
import pytest

import srcdiff

from . import closure_cells, corpus, matrix
from . import wave34g_programs as p
from .vmap_checks import BATCHED, PER_EXAMPLE, census_outcome, values_outcome

#: (program, transformation) rows the default run keeps: one of each class at a batch of 4
KEPT = {("rows_concatenated", "grad[0]"), ("stacked_steps", "value_and_grad[1]"), ("halving_len", "grad[0]"),
        ("lstsq_solution", "grad[1]"), ("relu_mse", "grad[0]"), ("hstacked", "vmap(f)"), ("euler_with_rhs", "grad[1]")}


def _rows():
    for f, make, wrts in p.PROGRAMS:
        for what in ["vmap(f)"] + [f"{t}[{w}]" for w in wrts for t in ("grad", "value_and_grad")]:
            for size in (1, 4):
                if what == "vmap(f)" and size == 1:
                    continue
                kept = (f.__name__, what) in KEPT and size == 4 and make is not p._heads_shared
                yield corpus.slow_unless(kept, f, make, what, size)


@pytest.mark.parametrize("f, make, what, size", list(_rows()),
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_census_batched_or_per_example_never_wrong(f, make, what, size):
    args, axes = make(np.random.default_rng(7), size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (NumPy's warnings of a side an example does not take)
        if what == "vmap(f)":
            outcome, why = values_outcome(f, args, axes, size)
        else:
            outcome, why = census_outcome(f, int(what[-2]), args, axes, size, valued=what.startswith("value"))
    assert outcome == (PER_EXAMPLE if f.__name__ in p.PER_EXAMPLE else BATCHED), why


def _matrix_programs():
    return corpus.from_table(p.MATRIX, "w34g", "wave34g_programs", 34)


@pytest.mark.slow
@pytest.mark.parametrize("program", _matrix_programs(), ids=lambda q: q.name)
def test_every_transformation(program):
    """The programs through grad, value_and_grad, hessian, jvp, vjp, a tree, jacobian, hvp and float32."""
    row = matrix.run(program, (*matrix.EVERY, *closure_cells.EXTRA))
    assert not row.excluded, row.excluded
    bad = {k: v for k, v in matrix.not_ok(row).items() if v[0] != matrix.NA}
    assert not bad, bad


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", _matrix_programs(), ids=lambda q: q.name)
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


# ---- 1, 2: what the batched per-example gradients no longer compute ----

def _source(f, make):
    args, axes = make(np.random.default_rng(3), 5)
    mapped = srcdiff.vmap(srcdiff.grad(f), in_axes=axes, per_example="refuse")
    mapped(*args)
    return mapped.source


def _holds(tree):
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", None) == "held_still"]


def _nested(holds):
    """(inner direction, outer direction) of each hold held again."""
    return [(call.args[0].args[1], call.args[1]) for call in holds
            if isinstance(call.args[0], ast.Call) and getattr(call.args[0].func, "id", None) == "held_still"]


def _is_number(node):
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float))


def test_a_hold_by_the_seed_and_a_hold_held_again_are_not_computed():
    source = _source(p.softmax_dot, p._softmax_args)
    holds = _holds(ast.parse(source))  # (comments are not code: the derivable lines they quote are not read)
    # (one hold by the seed's adjoint; wave 34f's use mask, label != 0, may hold it again: by another direction)
    assert holds and all(ast.dump(inner) != ast.dump(outer) for inner, outer in _nested(holds)), source
    assert all(not _is_number(call.args[1]) for call in holds), source
    assert "held_still" not in _source(p.norm_loss, p._norm_args).split("# ")[-1]


def test_a_selection_on_a_decided_condition_is_not_made_twice():
    code = [line for line in _source(p.relu_mse, p._relu).splitlines() if not line.strip().startswith("#")]
    assert sum(line.count("np.where(") for line in code) == 1
    assert sum(line.count(">= 0.0") for line in code) == 1


def test_the_tie_of_a_relu_keeps_its_half_shares():
    """The folded selections keep the tie's half shares: the batched gradient equals the loop's at a
    pre-activation exactly 0 (the first example's first unit)."""
    args, axes = p._relu(np.random.default_rng(7), 4)
    gradient = srcdiff.grad(p.relu_mse)
    assert (args[3][0] @ args[0] + args[1])[0] == 0.0
    mapped = srcdiff.vmap(gradient, in_axes=axes, per_example="refuse")(*args)
    loop = np.stack([gradient(*args[:3], args[3][i], args[4][i]) for i in range(4)])
    np.testing.assert_allclose(mapped, loop, rtol=1e-12, atol=1e-15)  # (a product of the batch: another order)
    W1, b1, W2, x, y = args[0], args[1], args[2], args[3][0], args[4][0]
    d = (np.maximum(x @ W1 + b1, 0.0) @ W2 - y) @ W2.T
    np.testing.assert_allclose(mapped[0][:, 0], x * 0.5 * d[0], rtol=1e-12)  # the unit at its tie: half


# ---- 5: lstsq row by row ----

def test_lstsq_of_a_rank_deficient_row_runs_that_call_one_example_at_a_time():
    args, axes = p._tall(np.random.default_rng(5), 3)
    args[1][1][:, 1] = args[1][1][:, 0]  # the second example's matrix: two equal columns, no residuals
    mapped = srcdiff.vmap(p.lstsq_residual, in_axes=axes, per_example="allow")
    got = mapped(*args)
    np.testing.assert_allclose(got, [p.lstsq_residual(args[0], args[1][i], args[2][i]) for i in range(3)],
                               rtol=1e-12)
    assert mapped.per_example is not None and "lstsq" in mapped.per_example


def test_lstsq_under_numba_is_refused_at_the_users_line():
    args, axes = p._tall(np.random.default_rng(5), 3)
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.vmap(srcdiff.grad(p.lstsq_solution), in_axes=axes, jit="numba")(*args)
    assert caught.value.location is not None and caught.value.location.filename.endswith("wave34g_programs.py")


# ---- 6: has_aux with a dict aux ----

def test_a_dict_aux_says_the_gradient_is_batched_and_what_batches_the_aux():
    rng = np.random.default_rng(2)
    w, x, y = rng.normal(size=3), rng.normal(size=(4, 3)), rng.normal(size=4)
    gradient = srcdiff.grad(p.loss_dict_aux, has_aux=True)
    with pytest.raises(srcdiff.SrcDiffError) as caught:
        srcdiff.vmap(gradient, in_axes=(None, 0, 0), per_example="refuse")(w, x, y)
    message = str(caught.value)
    assert "the gradient is batched" in message and "tuple of arrays" in message
    assert caught.value.location.filename.endswith("wave34g_programs.py")
    with pytest.warns(srcdiff.PerExampleWarning, match="the aux"):
        grads, aux = srcdiff.vmap(gradient, in_axes=(None, 0, 0))(w, x, y)
    for i in range(4):
        one, one_aux = gradient(w, x[i], y[i])
        np.testing.assert_allclose(grads[i], one, rtol=1e-12)
        np.testing.assert_allclose(aux["error"][i], one_aux["error"], rtol=1e-12)
