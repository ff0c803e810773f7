"""The red team's twenty-sixth wave, aimed at closure: every transformation accepts what `grad`
accepts, or refuses at the user's line, never a wrong number.  About 200 programs written the way
users write them (redteam_wave26_numeric.py: option pricing, portfolios, FIR filters, sliding
windows, differences and cumulative sums, pairwise distances, angles, cross products;
redteam_wave26_stats.py: mixtures by log-sum-exp, Student-t, Huber, pinball, clipped probabilities,
GLMs; redteam_wave26_models.py: leapfrog and Verlet loops with helpers returning tuples, springs,
n-body by np.newaxis, masked attention, layer norm, dropout masks as data, one-hot by np.eye,
cross-entropy of integer labels; redteam_wave26_python.py: while loops with data stops, early
returns, zip / enumerate, lists stacked, dicts of parameters, math.*, keywords and defaults,
nested helpers, small classes, 0-d to 2-d shapes, float32), each through grad, value_and_grad,
hessian, jvp, vjp, a tree of arguments, jacobian, hvp, float32 (closure_cells.py) and
jit="numba".  References are float64 central differences (matrix.py, tests/numeric.py), never
the code under test.

Found and fixed, each class with variants here:

1. REFUSED (every transformation; the known open item): ``np.tile(b, (X.shape[0], 1))``,
   ``np.repeat(h0[None, :], X.shape[0], axis=0)``, ``np.broadcast_to(b, X.shape)``,
   ``np.tile(x, len(y) // len(x))``: a count or shape read from an argument's shape was "not known
   when srcdiff builds the gradient".  Now such a count is computed as written and the rules read it
   when they run (rules/copies_when_run.py, lower/computed_shapes.py), the adjoint helpers with rules
   of their own, so second order works too.
2. REFUSED (every transformation; the other known open item): a function nested in the differentiated
   one that returns early, given a dict (``def g(u, k): if u[0] > 0: return u * k["a"]; return ...``,
   called ``g(x, k)``, or reading it as a default ``k=k``), was "k is a parameter tree, passed whole to
   g: srcdiff can pass trees only to Python functions of yours" (g is one) or "pass k to g".  The tree
   rewrite writes such a call out where it is made, which needs one ``return`` at the end: the early
   returns are now moved there first (frontend/single_return.py), the statements after an ``if`` that
   returns copied into its other side.

3. WRONG (jacobian; grad, jvp, vjp, hessian right): ``np.linalg.eigvalsh(S + S.T)[-1]``.  The gradient
   reads ``np.zeros(np.linalg.eigvalsh(S).shape)``, one expression kept as written, and shape inference
   took any ``<expression>.shape`` of a single operand for that operand's own shape: the zeros were read
   as a matrix, and the Jacobian's batched code put the seed on the wrong axis
   (``np.expand_dims(seed, 2)`` for ``-2``), silently.  The same misreading made
   ``t = X[:, 0].shape; np.zeros(t) + X[:, 1]`` a CRASH (grad raised a plain ValueError, "the operands'
   shapes do not match (f raises here too)", which f does not).  Fixed in ir/shape_inference.py and
   ad/shape_sources.py: only ``x.shape`` of a name is x's shape.

Before the fixes (262 programs, each through grad, value_and_grad, hessian, jvp, vjp, tree, jacobian,
hvp, float32): no crash in any cell; one WRONG (3 above); grad refused 13 at the user's line and every
other transformation refused the same ones, never one grad accepts.  After: grad refuses 4 (REFUSED: a
bisection's root found by comparisons alone, refused with that reason; a module-level helper testing
``key not in params`` of a key passed as an argument; ``np.random.default_rng(0).standard_normal(3)``
inside the function, "has no adjoint rule" though it is a constant), and so does every other
transformation: reach, not closure.  ``jit="numba"`` refused the gradients that call the new helpers
``tiles_summed`` / ``repeats_summed`` at the user's line (numba versions since wave 27:
backend/numba/counted_copies.py, test_numba27.py); vmap refuses the copies counted when run at the line.
"""

from __future__ import annotations

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

from . import closure_cells, corpus, matrix
from . import redteam_wave26_edges as edges
from . import redteam_wave26_models as models
from . import redteam_wave26_numeric as numeric
from . import redteam_wave26_python as python
from . import redteam_wave26_stats as stats

ALL = (*matrix.EVERY, *closure_cells.EXTRA)


def programs():
    out = []
    for module in (numeric, stats, models, python):
        out += corpus.from_table(module.PROGRAMS, "w26", module.__name__.rpartition(".")[2], 26)
    return out + corpus.from_table(edges.EDGES, "w26", "redteam_wave26_edges", 26)


def _name(p):
    return p.name.partition(":")[2]



#: the rows the default run keeps (one of each kind of program; the findings' own tests are below)
KEPT = {"bs_call", "leapfrog_energy", "masked_attention", "tile_rows_by_shape", "float32_loop_accumulate"}


#: refused by grad at the user's line (and so by every other transformation)
REFUSED = {"bisect_root"}




def accepted():
    return [p for p in programs() if _name(p) not in REFUSED]


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in accepted()], ids=_name)
def test_first_order(program):
    matrix.assert_ok(program, matrix.FIRST_ORDER)


@pytest.mark.slow
@pytest.mark.parametrize("program", accepted(), ids=_name)
def test_every_transformation(program):
    matrix.assert_ok_or_na(program, ALL)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", accepted(), ids=_name)
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


def _in_table(names):
    return [p for p in programs() if _name(p) in names]


@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) == "bisect_root", p) for p in _in_table(REFUSED)],
                         ids=_name)
def test_what_grad_refuses_every_transformation_refuses_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad", "value_and_grad", "jvp", "vjp", "tree", "jacobian"))


# ---- 1. copies counted when the function runs ----


def repeat_method_by_len(h, X):
    return np.sum(np.tanh(X + h[None, :].repeat(len(X), axis=0)))


def broadcast_column_of_rows(c, X):
    return np.sum(np.broadcast_to(c, (X.shape[0], 1)) * X)


def tile_count_named_first(x, y):
    n = len(y) // len(x)
    return np.sum(np.sin(np.tile(x, n)) * y)


def repeat_counts_per_element(x):
    return np.sum(np.repeat(x, np.arange(1, len(x) + 1)) ** 2)


def repeat_counts_with_a_zero(x):
    return np.sum(np.cos(np.repeat(x, np.arange(len(x)))))


def tile_2d_by_shape(B, X):
    return np.sum(np.tile(B, (X.shape[0] // B.shape[0], 1)) * X)


def repeat_axis1_of_a_matrix(A, X):
    return np.sum(np.repeat(A, X.shape[1] // A.shape[1], axis=1) * X)


def broadcast_in_a_loop(b, X):
    total = 0.0
    for k in range(2):
        total = total + np.sum(np.broadcast_to(b * (k + 1), X.shape) ** 2 * X)
    return total


def M(r, *shape):
    return r.standard_normal(shape)


COPIES = [
    ("repeat_method_by_len", repeat_method_by_len, lambda r: (M(r, 3), M(r, 4, 3)), 0),
    ("broadcast_column_of_rows", broadcast_column_of_rows, lambda r: (M(r, 1), M(r, 4, 3)), 0),
    ("tile_count_named_first", tile_count_named_first, lambda r: (M(r, 2), M(r, 6)), 0),
    ("repeat_counts_per_element", repeat_counts_per_element, lambda r: (M(r, 3),), 0),
    ("repeat_counts_with_a_zero", repeat_counts_with_a_zero, lambda r: (M(r, 3),), 0),
    ("tile_2d_by_shape", tile_2d_by_shape, lambda r: (M(r, 2, 3), M(r, 4, 3)), 0),
    ("repeat_axis1_of_a_matrix", repeat_axis1_of_a_matrix, lambda r: (M(r, 2, 2), M(r, 2, 6)), 0),
    ("broadcast_in_a_loop", broadcast_in_a_loop, lambda r: (M(r, 3), M(r, 2, 3)), 0),
    ("float32_tile_by_shape", tile_2d_by_shape,
     lambda r: (M(r, 2, 3).astype(np.float32), M(r, 4, 3).astype(np.float32)), 0),
]


def _first_kept(rows, kept=2):
    """The table's programs, all but the first `kept` left to the slow set (each a few seconds)."""
    table = corpus.from_table(rows, "w26", "test_redteam_wave26", 26)
    return [corpus.slow_unless(i < kept, p) for i, p in enumerate(table)]


@pytest.mark.parametrize("program", _first_kept(COPIES), ids=_name)
def test_copies_counted_when_run_every_transformation(program):
    matrix.assert_ok(program, ("grad", "value_and_grad", "jvp", "vjp", "tree", "jacobian", "float32"))


@pytest.mark.parametrize("program", _first_kept(COPIES[:4], kept=1), ids=_name)
def test_copies_counted_when_run_second_order(program):
    matrix.assert_ok(program, ("hessian", "hvp"))


def test_copies_counted_when_run_follow_each_call_s_lengths():
    """One gradient function, two lengths: the counts are read at each call, never baked in."""
    g = srcdiff.grad(repeat_method_by_len)
    for n in (2, 5):
        h, X = np.array([0.3, -0.2, 0.5]), np.linspace(-1.0, 1.0, 3 * n).reshape(n, 3)
        np.testing.assert_allclose(g(h, X), central_difference(repeat_method_by_len, (h, X), 0), rtol=1e-6, atol=1e-8)


# ---- 2. nested helpers returning early, given a dict ----


def elif_chain_dict(x):
    k = {"lo": 0.5, "hi": x[1], "mid": x[2]}

    def g(u, k):
        if u < -0.5:
            return u * k["lo"]
        elif u < 0.5:
            return np.sin(u) * k["mid"]
        return u * k["hi"]

    return g(x[0], k) + g(x[1], k) + g(x[2], k)


def early_return_then_more(params, x):
    def layer(h, p):
        z = h @ p["W"]
        if p["skip"]:
            return z + h
        z = np.tanh(z)
        return z * 2.0

    return np.sum(layer(x, params) ** 2)


def early_return_in_a_loop_call(x):
    cfg = {"scale": x[0], "shift": 0.3}

    def f(v, c):
        if v > 0:
            return v * c["scale"]
        return v + c["shift"]

    total = 0.0
    for v in x:
        total = total + f(v, cfg)
    return total


def early_return_tuple_param(x):
    pair = (x[0], x[1])

    def g(u, p):
        if u[2] > 0:
            return u * p[0]
        return u * p[1]

    return np.sum(g(x, pair) ** 2)


EARLY = [
    ("elif_chain_dict", elif_chain_dict, lambda r: (np.array([-0.9, 0.2, 1.4]),), 0),
    ("early_return_then_more", early_return_then_more, lambda r: ({"W": M(r, 3, 3), "skip": False}, M(r, 2, 3)), 0),
    ("early_return_then_more_skip", early_return_then_more, lambda r: ({"W": M(r, 3, 3), "skip": True}, M(r, 2, 3)), 0),
    ("early_return_in_a_loop_call", early_return_in_a_loop_call, lambda r: (np.array([0.7, -0.4, 1.2]),), 0),
    ("early_return_tuple_param", early_return_tuple_param, lambda r: (np.array([0.7, -0.4, 1.2]),), 0),
]


@pytest.mark.parametrize("program", _first_kept(EARLY), ids=_name)
def test_nested_early_return_given_a_tree_every_transformation(program):
    matrix.assert_ok(program, ("grad", "value_and_grad", "vjp", "tree", "jacobian", "hessian"))


# ---- 3. the shape of a value computed from an operand is not the operand's ----


def eigvalsh_last(S):
    return np.linalg.eigvalsh(S + S.T)[-1]


def eigvalsh_last_upper(S):
    return 2.0 * np.linalg.eigvalsh(S + S.T, UPLO="U")[-1]


def zeros_shaped_like_a_sum(X):
    z = np.zeros(np.sum(X, axis=0).shape)
    z[0] = 1.0
    return np.sum(np.expand_dims(z + np.sum(X, axis=0), -2) * X)


def ones_shaped_like_a_diff(x):
    w = np.ones(np.diff(x).shape)
    w[-1] = 3.0
    return np.sum(np.expand_dims(w * np.diff(x), -2) ** 2)


def full_shaped_like_a_row(X):
    return np.sum(np.expand_dims(np.full(X[0].shape, 2.0) * X[0], -2) * X)


def zeros_of_a_column_shape(X):
    t = X[:, 0].shape
    return np.sum(np.sin(np.zeros(t) + X[:, 1]) * X[:, 0])


def zeros_of_a_sum_shape(X):
    n = np.sum(X, axis=0).shape
    return np.sum((np.zeros(n) + X) ** 2 * np.arange(1.0, X.shape[1] + 1))


SHAPES = [
    ("zeros_of_a_column_shape", zeros_of_a_column_shape, lambda r: (M(r, 3, 2),), 0),
    ("eigvalsh_last", eigvalsh_last, lambda r: (M(r, 3, 3),), 0),
    ("eigvalsh_last_upper", eigvalsh_last_upper, lambda r: (M(r, 3, 3),), 0),
    ("zeros_shaped_like_a_sum", zeros_shaped_like_a_sum, lambda r: (M(r, 3, 2),), 0),
    ("ones_shaped_like_a_diff", ones_shaped_like_a_diff, lambda r: (M(r, 4),), 0),
    ("full_shaped_like_a_row", full_shaped_like_a_row, lambda r: (M(r, 3, 2),), 0),
    ("zeros_of_a_sum_shape", zeros_of_a_sum_shape, lambda r: (M(r, 3, 2),), 0),
]


@pytest.mark.parametrize("program", _first_kept(SHAPES), ids=_name)
def test_shape_of_a_computed_value_every_transformation(program):
    matrix.assert_ok(program, ("grad", "jvp", "vjp", "jacobian", "hessian"))
