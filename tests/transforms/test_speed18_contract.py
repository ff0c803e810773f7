"""Sums of broadcast products written as the contractions they are (backend/optimize/contract.py),
and the adjoints of a piecewise loss's branches merged into one selection
(backend/optimize/wheres.py `merge_complements`): each rewrite pinned on the generated source,
each gradient against float64 central differences, and the programs through every
transformation (hessian, jvp, vmap-based ones, numba) and in float32."""

import ast

import numpy as np
import pytest
from numeric import central_difference

import srcdiff
from srcdiff.backend.optimize.contract import contract_sums
from srcdiff.backend.optimize.factored_branches import factor_branches
from srcdiff.backend.optimize.wheres import merge_complements
from srcdiff.ir import shapes

from . import corpus, matrix


def sq_dists(C, X):
    D = np.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=-1)
    return np.sum(np.exp(-D))


def sq_dists_swapped(C, X):
    D = ((C[:, None, :] - X[None]) ** 2).sum(2)
    return np.sum(np.log1p(D))


def weighted_means(C, R, X):
    M = (R[:, :, None] * X[:, None, :]).sum(axis=0)
    return np.sum((M - C) ** 2)


def broadcast_layer(W, X):
    Z = np.sum(X[:, :, None] * W[None, :, :], axis=1)
    return np.sum(np.tanh(Z) ** 2)


def scores(Q, K):
    S = (Q[:, None, :] * K[None, :, :]).sum(-1)
    return np.sum(np.exp(0.3 * S))


def outer_total(x, y):
    return np.sum(x[:, None] * np.tanh(y)[None, :])


def huber(w, X, y, delta):
    r = X @ w - y
    a = np.abs(r)
    return np.mean(np.where(a <= delta, 0.5 * r ** 2, delta * (a - 0.5 * delta)))


def dead_zone(w, X, y, eps):
    r = X @ w - y
    return np.sum(np.where(np.abs(r) > eps, np.abs(r) - eps, 0.0) ** 2)


def _rng(seed=0):
    return np.random.default_rng(seed)


PROGRAMS = [
    ("sq_dists", sq_dists, lambda r: (r.standard_normal((3, 2)), r.standard_normal((5, 2))), 0),
    ("sq_dists_swapped", sq_dists_swapped, lambda r: (r.standard_normal((3, 2)), r.standard_normal((4, 2))), 0),
    ("weighted_means", weighted_means,
     lambda r: (r.standard_normal((3, 2)), r.uniform(0.1, 1.0, (5, 3)), r.standard_normal((5, 2))), 1),
    ("broadcast_layer", broadcast_layer, lambda r: (0.5 * r.standard_normal((3, 2)), r.standard_normal((4, 3))), 0),
    ("scores", scores, lambda r: (r.standard_normal((3, 2)), r.standard_normal((4, 2))), 1),
    ("outer_total", outer_total, lambda r: (r.standard_normal(3), r.standard_normal(4)), 1),
    ("dead_zone", dead_zone,
     lambda r: (r.standard_normal(3), r.standard_normal((8, 3)), 2.0 * r.standard_normal(8), 0.5), 0),
    ("huber", huber, lambda r: (r.standard_normal(3), r.standard_normal((8, 3)), 2.0 * r.standard_normal(8), 0.7),
     0),
]


def programs():
    return corpus.from_table(PROGRAMS, "speed18", "test_speed18_contract", 3)


def _calls(source, name):
    return [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call) and ast.unparse(n.func) == name]


def _big_arrays(source):
    """Statements still multiplying something into the three-axis difference or product."""
    return [line for line in source.splitlines() if "unbroadcast(" in line and "t3" in line]


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_gradient_against_central_differences(program):
    got = srcdiff.grad(program.func, wrt=program.wrt)(*program.args)
    np.testing.assert_allclose(got, central_difference(program.func, program.args, program.wrt), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


def test_squared_distances_adjoint_contracts():
    """The adjoint of ``sum((X[:, None] - C[None]) ** 2, -1)`` w.r.t. C is two matrix products,
    ``D_bar.T @ X`` and ``D_bar.sum(0)[:, None] * C``: no (n, k, d) array in the backward."""
    rng = _rng()
    C, X = rng.standard_normal((3, 2)), rng.standard_normal((5, 2))
    source = srcdiff.grad(sq_dists).source_for(C, X)
    adjoint = next(line for line in source.splitlines() if "@ X" in line)
    assert ".T @ X" in adjoint and "* C" in adjoint and "t3" not in adjoint, source
    assert _calls(source, "np.einsum"), source   # the squared norms


@pytest.mark.parametrize("f, shapes, wrt, spelled", [
    (broadcast_layer, ((3, 2), (4, 3)), 0, "X @ W"),
    (scores, ((3, 2), (4, 2)), 0, "Q @ K.T"),
    (weighted_means, ((3, 2), (5, 3), (5, 2)), 1, "R.T @ X"),   # (R float: wrt, see contract.py)
])
def test_forward_broadcast_product_sum_is_a_matrix_product(f, shapes, wrt, spelled):
    rng = _rng(1)
    args = [rng.standard_normal(s) for s in shapes]
    source = srcdiff.grad(f, wrt=wrt).source_for(*args)
    assert spelled in source, source
    assert not _big_arrays(source), source


def test_huber_branches_are_one_selection():
    rng = _rng(2)
    args = (rng.standard_normal(3), rng.standard_normal((8, 3)), 2.0 * rng.standard_normal(8), 0.7)
    source = srcdiff.grad(huber).source_for(*args)
    assert len(_calls(source, "np.where")) == 1, source


def test_computed_comparison_makes_exact_selections():
    """``np.abs(r) > eps`` has the residual's shape (its operand lowered first), so the masks
    are np.where on it, folded into one (against 0.0: ``keep_where``, rules/selections.py): no
    run-time ``select``."""
    rng = _rng(4)
    args = (rng.standard_normal(3), rng.standard_normal((8, 3)), 2.0 * rng.standard_normal(8), 0.5)
    source = srcdiff.grad(dead_zone).source_for(*args)
    assert "select" not in source and len(_calls(source, "np.where") + _calls(source, "keep_where")) == 1, source


MERGE = """\
def f(c, a, b, r):
    x = np.where(c, a * r, 0.0)
    u = b * 2.0
    x = x + np.where(c, 0.0, u)
    return x
"""


def test_complementary_selections_merge():
    tree = ast.parse(MERGE)
    assert merge_complements(tree.body[0], {"a", "b", "u"}.__contains__)
    assert ast.unparse(tree.body[0]).splitlines()[1:] == [
        "    u = b * 2.0",
        "    x = np.where(c, a * r, u)",
        "    return x",
    ]


@pytest.mark.parametrize("between", [
    "a = a + 1.0",          # what the first selection reads is rebound
    "c = ~c",               # the condition too
    "y = x * 2.0",          # x read between: it must hold the first selection there
])
def test_complementary_selections_stay_apart(between):
    source = MERGE.replace("    u = b * 2.0\n", f"    u = b * 2.0\n    {between}\n")
    tree = ast.parse(source)
    assert not merge_complements(tree.body[0], {"a", "b", "u"}.__contains__)


@pytest.mark.parametrize("expr", [
    "np.where(c, a, 0.0) + np.where(d, 0.0, b)",   # two conditions
    "np.where(c, a, 0.0) - np.where(d, 0.0, b)",   # a difference, two conditions
])
def test_selections_that_are_not_complements_stay(expr):
    tree = ast.parse(f"def f(a, b, c, d):\n    return {expr}")
    assert not merge_complements(tree.body[0], {"a", "b"}.__contains__)


def test_a_difference_of_complements_is_one():
    """Wave 34d: ``np.where(c, a, 0.0) - np.where(c, 0.0, b)`` is ``np.where(c, a, -b)`` (a difference
    merged like a sum, the subtracted selection negated), up to the sign of a zero."""
    tree = ast.parse("def f(a, b, c):\n    return np.where(c, a, 0.0) - np.where(c, 0.0, b)")
    assert merge_complements(tree.body[0], {"a", "b"}.__contains__)
    assert ast.unparse(tree.body[0].body[0]) == "return np.where(c, a, -b)"


def test_selections_on_the_same_side_are_one():
    """``np.where(c, a, 0.0) + np.where(c, b, 0.0)`` is ``np.where(c, a + b, 0.0)``: the zeros add to 0.0."""
    tree = ast.parse("def f(a, b, c):\n    return np.where(c, a, 0.0) + np.where(c, b, 0.0)")
    assert merge_complements(tree.body[0], {"a", "b"}.__contains__)
    assert ast.unparse(tree.body[0].body[0]) == "return np.where(c, a + b, 0.0)"


@pytest.mark.parametrize("expr, factored", [
    ("np.where(c, s * a * b, s * d)", "np.where(c, a * b, d) * s"),
    ("np.where(c, s * 0.5 * 2 * a, s * k * np.sign(a))", "np.where(c, a, k * np.sign(a)) * s"),
    ("np.where(c, 2.0 * a, 2.0 * b)", "np.where(c, a, b) * 2.0"),
])
def test_a_number_both_branches_multiply_is_factored_out(expr, factored):
    tree = ast.parse(f"def f(a, b, c, d, s, k):\n    return {expr}")
    assert factor_branches(tree.body[0], {"s", "k"}.__contains__, {"a", "b", "d"}.__contains__)
    assert ast.unparse(tree.body[0].body[0].value) == factored


@pytest.mark.parametrize("expr", [
    "np.where(c, s * a, 0.0)",          # 0.0 * s is not 0.0 for an infinite s
    "np.where(c, s * a, k * b)",        # two factors
    "np.where(c, b * a, b * d)",        # b an array: its broadcast could change the shape
])
def test_branches_without_a_shared_number_stay(expr):
    tree = ast.parse(f"def f(a, b, c, d, s, k):\n    return {expr}")
    assert not factor_branches(tree.body[0], {"s", "k"}.__contains__, {"a", "b", "d"}.__contains__)


CHANGED_IN_PLACE = """\
def f(a, b):
    t = a[:, None] * b[None, :]
    {between}
    return np.sum(t, axis=0)
"""


@pytest.mark.parametrize("between, contracted", [
    ("u = b * 2.0", True),
    ("a[0] += 1.0", False),                 # t holds the product of the old a
    ("np.add.at(a, [0], 1.0)", False),
    ("b = b * 2.0", False),
])
def test_a_product_is_read_again_only_while_its_operands_stand(between, contracted):
    tree = ast.parse(CHANGED_IN_PLACE.format(between=between))
    vector = shapes.Shape((shapes.MANY,))
    changed = contract_sums(tree.body[0], lambda name: vector, lambda name: False, lambda e: True, lambda n: n)
    assert changed == contracted
    assert ("return b * np.sum(a)" in ast.unparse(tree)) == contracted   # the outer product is not made


def features_scaled(s, X, W):
    Z = np.sum((0.5 * X)[:, :, None] * W[None, :, :], axis=1)
    return s * np.sum(Z * Z)


def test_arrays_of_another_library_keep_the_array_api():
    """np.einsum is not in the array API: the contractions are NumPy's only (the code of arrays
    of another library runs in their namespace), where ``X @ W`` is written for NumPy."""
    xp = pytest.importorskip("array_api_strict")
    pytest.importorskip("array_api_compat")
    rng = _rng(5)
    X, W = rng.standard_normal((4, 3)), rng.standard_normal((3, 2))
    g = srcdiff.grad(features_scaled)
    want = np.sum((0.5 * X @ W) ** 2)
    assert np.isclose(float(g(1.5, xp.asarray(X), xp.asarray(W))), want, rtol=1e-12)
    assert "@" not in g.source_for(1.5, xp.asarray(X), xp.asarray(W))
    assert np.isclose(g(1.5, X, W), want, rtol=1e-12) and "@ W" in g.source_for(1.5, X, W)
