"""The red team's wave 29c: 69 programs against the features landed in wave 29
(redteam_wave29c_programs.py: loops over ``sorted(set(groups))`` with float, negative, repeated
and string labels, enumerate, reverse and ``key=abs``; functions kept in lists, tuples and dicts, rebound, appended,
mutated, reversed, zipped; lists joined with ``+`` where a part is a slice with negative ends,
steps, reversed, empty, in a loop; sigmoids written out and spellings that only look like one
(``+ c``, ``2 / ...``, ``1 / (1 + exp(z))``, ``(1 + exp(-z)) ** -1``, ``1 / (2 + exp(-z))``, an int
array in the exponent), saturated at z = -800 and 750; numbers promoted before a loop that runs
zero times, lists carried through loops), each through grad, value_and_grad, jvp, vjp, jacobian, a
tree of the argument, float32, hessian, hvp, vmap (where shaped ``f(params, x, y)``) and
jit="numba", against float64 central differences.  Also here: vmap of grad and value_and_grad over
masks summed after elementwise ops (all False, all True, mixed per example, batch 1), svd / qr /
pinv and stacks of matrices built per example; vjp(jacobian(f)) with keyword arguments, and
jacobian(grad(f)) of dicts and lists.

Census of the 69 programs (ok / n/a / refused at the user's line / WRONG), before the fix:
grad, value_and_grad, jvp, vjp, jacobian, tree 51/0/17/1 each; float32 48/3/17/1; hessian 50/0/17/2;
hvp 45/7/16/1; vmap 3/66/0/0; numba 45/0/23/1.
After: grad, value_and_grad, jvp, vjp, jacobian, tree 52/0/17/0 each; float32 49/3/17/0; hessian
52/0/17/0; hvp 46/7/16/0; vmap 3/66/0/0; numba 46/0/23/0.
The vmap, vjp and jacobian(grad) checks below: all agreed before and after.

Found:

1. WRONG (NaN where the derivative is 0 or finite): sigmoids written with another numerator or as a
   power were not lowered as srcdiff's logistic function (lower/logistic_forms.py), so their
   derivatives went through the overflowing ``np.exp(-z)``: ``(1.0 + np.exp(-z)) ** -1`` NaN in every
   transformation at z = -800 (``0 * inf``; jvp's tangent NaN in every direction); ``2.0 / (1.0 +
   np.exp(-z))``, ``a / (1.0 + np.exp(-z))`` (a parameter) and ``np.ones_like(z) / (...)`` NaN in
   the Hessian and hvp (``inf / inf``).  Fixed: ``c / (1 + exp(-z))`` is lowered as ``c *
   logistic(z)`` for any numerator c, and ``(1 + exp(-z)) ** -1`` as ``logistic(z)``
   (srcdiff/lower/logistic_forms.py, srcdiff/lower/operators.py).

2. float32 in, float64 out: vjp(jacobian(f))'s pullback and jacobian(jacobian(f)) of a float32
   argument (NestedJacobian cast its rows to float; srcdiff/api/jacobians.py NestedJacobian.__call__,
   srcdiff/api/vjps.py ContractedPullback.__call__); fixed, the value's floating dtype is kept.

Refused at the user's line (not wrong; reach left open): functions in a list rebound, appended to,
with an item replaced, reversed, sliced, repeated (``fs * 2``), indexed ``fs[i](x)`` or zipped with
parameters (it said "np.sin is not a number"; now what srcdiff reads of a function list, and how to
write it); a list slice with a step,
reversed, or ending at an argument (``parts[:k]``, k = -1) joined with ``+``; ``len(labels)`` of
``sorted(set(g))``, ``sorted(set(g))[1:]``, a loop over ``set(g)`` unsorted; a dict comprehension
over ``sorted(set(g))``; ``rng.choice(x)`` of a differentiated array (refused as a draw whose
parameters carry a gradient); numba alone: a list of labels, string labels, ``g.tolist()``,
``sorted(..., key=abs)``, ``parts[:k]`` past the end, and a number promoted before a loop whose
value is an array after it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numeric import central_difference
from scipy import special

import srcdiff

from . import closure_cells, corpus, matrix
from . import redteam_wave29c_programs as programs_module

ALL = (*matrix.EVERY, *closure_cells.EXTRA, "vmap", "numba")
PROGRAMS = corpus.from_table(programs_module.PROGRAMS, "w29c", "redteam_wave29c_programs", 29)


def _name(p):
    return p.name.partition(":")[2]


#: the default run's rows (one of each kind, and the fixed sigmoids)
KEPT = {"groups_float_labels", "funcs_lambdas_weights", "join_negative_end", "sig_power_saturated",
        "sig_param_numerator", "promoted_zero_trips"}

#: refused at the user's line by every transformation (numba too)
REFUSED = {"groups_count_scaled", "groups_dict_comp", "funcs_appended", "funcs_mutated_item",
           "funcs_indexed_call", "join_step_slice", "join_reverse_slice",
           "groups_drop_first", "groups_unsorted_list", "funcs_repeated", "join_argument_end",
           "choice_of_values"}
# (funcs_rebound, funcs_reversed, funcs_slice and funcs_zip_params, refused here, are unrolled since wave 30:
# test_reach30.py)

#: refused by numba alone, at the user's line
#: (promoted_zero_trips, promoted_some_trips, groups_list_labels and groups_set_no_sort: compiled since wave 30,
#: test_numba30.py)
NUMBA_REFUSED = {"groups_sorted_key", "groups_string_labels", "join_argument_past"}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("program", [corpus.slow_unless(_name(p) in KEPT, p) for p in PROGRAMS
                                     if _name(p) not in REFUSED], ids=_name)
def test_every_transformation(program):
    transforms = tuple(t for t in ALL if not (t == "numba" and (_name(program) in NUMBA_REFUSED
                                                                       or _name(program) not in KEPT)))
    matrix.assert_ok_or_na(program, transforms)


@pytest.mark.slow  # (numba compiles for seconds a program)
@pytest.mark.parametrize("program", PROGRAMS, ids=_name)
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


@pytest.mark.parametrize("program", [corpus.slow_unless(i == 0, p) for i, p in
                                     enumerate(p for p in PROGRAMS if _name(p) in REFUSED)], ids=_name)
def test_refused_at_the_line(program):
    matrix.assert_refused_at_the_line(program, ("grad", "jvp", "vjp", "jacobian", "hvp"))


# ---- 1. sigmoids with another numerator, or as a power, saturated ----


def _two(z):
    return np.sum(2 / (1 + np.exp(-z)))


def _power(z):
    return np.sum((1.0 + np.exp(-z)) ** -1)


def _ones(z):
    return np.sum(np.ones_like(z) / (1.0 + np.exp(-z)))


def _param(z, a):
    return np.sum(a / (1.0 + np.exp(-z)))


def _sigmoid_parts(z):
    s = special.expit(z)
    return s, s * special.expit(-z), s * special.expit(-z) * (1.0 - 2.0 * s)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("func, c", [(_two, 2.0), (_power, 1.0), (_ones, 1.0)], ids=["two", "power", "ones"])
def test_saturated_scaled_sigmoid_every_order(func, c):
    """The gradient, tangents, pullback, float32 gradient and Hessian's diagonal of ``c * sigmoid``
    spelled otherwise are c times the sigmoid's derivatives at z = -800 and 750 too (were NaN)."""
    z = np.array([-800.0, -30.0, 0.3, 750.0])
    _, d1, d2 = _sigmoid_parts(z)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(srcdiff.grad(func)(z), c * d1, rtol=1e-9, atol=1e-300)
        np.testing.assert_allclose(srcdiff.vjp(func, z)[1](1.0), c * d1, rtol=1e-9, atol=1e-300)
        tangents = [srcdiff.jvp(func, (z,), (np.eye(4)[k],))[1] for k in range(4)]
        np.testing.assert_allclose(tangents, c * d1, rtol=1e-9, atol=1e-300)
        np.testing.assert_allclose(srcdiff.grad(func)(z.astype(np.float32)), c * d1, rtol=1e-5, atol=1e-30)
        h = srcdiff.hessian(func)(z)
        np.testing.assert_allclose(h, np.diag(c * d2), rtol=1e-9, atol=1e-300)
        np.testing.assert_allclose(srcdiff.hvp(func, z, np.ones(4)), c * d2, rtol=1e-9, atol=1e-300)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_saturated_sigmoid_times_a_parameter():
    """``a / (1 + exp(-z))``: the Hessian in z and the gradient in a, against the sigmoid's derivatives."""
    z, a = np.array([-800.0, 0.4, 750.0]), np.array([0.5, -1.2, 2.0])
    s, d1, d2 = _sigmoid_parts(z)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(srcdiff.hessian(_param)(z, a), np.diag(a * d2), rtol=1e-9, atol=1e-300)
        np.testing.assert_allclose(srcdiff.grad(_param, wrt=1)(z, a), s, rtol=1e-12)
        np.testing.assert_allclose(srcdiff.grad(_param)(z, a), a * d1, rtol=1e-9, atol=1e-300)


# ---- vmap over masks, decompositions and stacks; vjp(jacobian(f)) with keywords ----


def _masked(w, x):
    return np.sum(np.where(x > 0.0, w * x, 0.0)) / (np.sum(x > 0.0) + 1.0) + np.sum(np.tanh(w * x) * (x > 0))


def _svd(w, X):
    return np.sum(np.linalg.svd(X * w, compute_uv=False)) + np.sum(np.linalg.pinv(X * w) ** 2)


@pytest.mark.parametrize("kind", ["mixed", "all_false", "all_true", "batch_one"])
def test_vmap_masks_and_decompositions(kind):
    r = np.random.default_rng(29)
    for func, w, X in [(_masked, r.standard_normal(3), r.standard_normal((3, 3))),
                       (_svd, r.uniform(0.5, 1.5, 3), r.standard_normal((3, 4, 3)))]:
        X = {"all_false": -np.abs(X), "all_true": np.abs(X), "batch_one": X[:1]}.get(kind, X)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value, gradient = srcdiff.vmap(srcdiff.value_and_grad(func), in_axes=(None, 0), per_example="allow")(w, X)
        np.testing.assert_allclose(value, [func(w, x) for x in X], rtol=1e-10)
        np.testing.assert_allclose(gradient, [central_difference(func, (w, x), 0) for x in X], rtol=1e-5, atol=1e-7)


def _scaled(x, scale=1.0):
    return np.sin(scale * x) * x


def test_vjp_of_jacobian_with_keywords():
    x, u = np.array([0.3, -0.7, 1.1]), np.random.default_rng(3).standard_normal((3, 3))
    _, pullback = srcdiff.vjp(srcdiff.jacobian(_scaled), x, scale=-1.3)

    def contracted(y):
        rows = [central_difference(lambda v, k=k: _scaled(v, scale=-1.3)[k], (y,), 0, eps=1e-5) for k in range(3)]
        return np.sum(np.stack(rows) * u)

    np.testing.assert_allclose(pullback(u), central_difference(contracted, (x,), 0), rtol=1e-4, atol=1e-6)


def test_vjp_of_jacobian_float32_stays_float32():
    """vjp(jacobian(f))'s pullback and jacobian(jacobian(f)) of float32 are float32 (were float64)."""
    x, u = np.array([0.3, -0.7, 1.1], dtype=np.float32), np.random.default_rng(4).standard_normal((3, 3))
    value, pullback = srcdiff.vjp(srcdiff.jacobian(_scaled), x, scale=-1.3)
    got = pullback(u.astype(np.float32))
    assert value.dtype == np.float32 and got.dtype == np.float32
    _, pullback64 = srcdiff.vjp(srcdiff.jacobian(_scaled), x.astype(float), scale=-1.3)
    np.testing.assert_allclose(got, pullback64(u), rtol=1e-4, atol=1e-5)
    assert srcdiff.jacobian(srcdiff.jacobian(_scaled))(x, scale=-1.3).dtype == np.float32


def _pair(q):
    return np.sum(np.sin(q[0]) * q[1]) + np.sum(q[0] ** 2 * q[1] ** 3)


def test_jacobian_of_grad_of_a_list():
    """jacobian(grad(f)) of a list [a, b]: each block against differences of the gradient."""
    q = [np.array([0.4, -0.9]), np.array([1.2, 0.3])]
    h = srcdiff.jacobian(srcdiff.grad(_pair))(q)

    def flat(v):
        return _pair([v[:2], v[2:]])

    def gradient(v):
        return central_difference(flat, (v,), 0)

    want = np.stack([central_difference(lambda v, k=k: gradient(v)[k], (np.concatenate(q),), 0) for k in range(4)])
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(h[i][j], want[2 * i:2 * i + 2, 2 * j:2 * j + 2], rtol=1e-4, atol=1e-6)
