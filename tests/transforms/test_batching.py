"""The batching transform: Hessians and Jacobians in one batched call, and srcdiff.vmap.

References are float64 central differences (second order: differences of a hand-written
gradient, or of f itself twice), closed forms written by hand, or a Python loop over the
examples of the user's own function; the per-row Jacobian (one pullback per row, the path
batching falls back to) is compared too.  No reference is computed by the batched code.
"""

import math
import re

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff

RNG = np.random.default_rng(7)


def hessian_fd(f, args, index=0, eps=1e-4):
    """Second derivatives of f by central differences of central differences (float64)."""
    x = np.asarray(args[index], dtype=float)
    n = x.size
    out = np.zeros((n, n))
    for i in range(n):
        e = np.zeros(n)
        e[i] = eps

        def shifted(sign, e=e):
            moved = list(args)
            moved[index] = (x.ravel() + sign * e).reshape(x.shape)
            return central_difference(f, moved, index, eps=eps).ravel()
        out[i] = (shifted(1) - shifted(-1)) / (2 * eps)
    return out.reshape(x.shape + x.shape)


# ---- scalar programs (hessian) ----

def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def quartic(x):
    return np.sum(x ** 4) + np.sum(x) ** 2


def softplus_sum(x):
    return np.sum(np.log1p(np.exp(x)) * x)


def quadratic_form(x, A):
    return x @ A @ x


def log_sum_exp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def matrix_input(W, v):
    h = np.tanh(W @ v)
    return np.sum(h * h)


def mlp_w1(W1, b1, W2, X, y):
    h = np.tanh(X @ W1 + b1)
    r = h @ W2 - y
    return np.mean(r * r)


def loop_sum(x):
    s = 0.0
    for i in range(3):
        s = s + np.sum(np.sin(x * (i + 1)))
    return s


def branchy(x, flag):
    if flag:
        y = np.exp(x)
    else:
        y = x * x
    return np.sum(y * x)


def mean_var(x):
    return np.var(x) + np.mean(x) ** 2


def norms(x):
    return np.linalg.norm(x) ** 3 + np.sum(np.cos(x))


def outer_prod(x):
    return np.sum(np.outer(x, x) ** 2)


def reshaped(x):
    z = np.reshape(x, (2, 3))
    return np.sum(np.exp(z.T) @ np.ones(2))


def sliced(x):
    return np.sum(x[::2] * x[1::2]) + x[0] ** 3


def where_prog(x):
    return np.sum(np.where(x > 0, x ** 3, np.sin(x)))


def two_args(x, y):
    return np.sum(x * x * y) + np.sum(np.exp(y) * x)


A = RNG.normal(size=(4, 4))
HESSIAN_CASES = [
    (rosenbrock, (RNG.normal(size=6),)),
    (quartic, (RNG.normal(size=5),)),
    (softplus_sum, (RNG.normal(size=4),)),
    (quadratic_form, (RNG.normal(size=4), A)),
    (log_sum_exp, (RNG.normal(size=5),)),
    (matrix_input, (RNG.normal(size=(2, 3)), RNG.normal(size=3))),
    (mlp_w1, (RNG.normal(size=(3, 2)), RNG.normal(size=2), RNG.normal(size=2), RNG.normal(size=(5, 3)),
              RNG.normal(size=5))),
    (loop_sum, (RNG.normal(size=4),)),
    (branchy, (RNG.normal(size=3), True)),
    (branchy, (RNG.normal(size=3), False)),
    (mean_var, (RNG.normal(size=5),)),
    (norms, (RNG.normal(size=4),)),
    (outer_prod, (RNG.normal(size=3),)),
    (reshaped, (RNG.normal(size=6),)),
    (sliced, (RNG.normal(size=6),)),
    (where_prog, (np.array([0.5, -0.7, 1.2, -0.3]),)),
    (two_args, (RNG.normal(size=3), RNG.normal(size=3))),
]


@pytest.mark.parametrize("f, args", HESSIAN_CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_hessian_batched_equals_rows_and_differences(f, args):
    batched = srcdiff.hessian(f)
    found = batched(*args)
    # every Hessian here takes the batched path: a loop's stack too (its lists are row lists, each item
    # with the rows' axis: ad/batching_lists.py), and a slice's adjoint, g + zeros_like(a)
    assert batched.batched.last is not None, "the batched path ran"
    rows = srcdiff.hessian(f)
    rows.batched.enabled = False
    assert_close(found, rows(*args), rtol=1e-10, atol=1e-10)
    expected = hessian_fd(f, args)
    assert_close(found, expected, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(expected).max()))


def test_hessian_of_two_parameters_is_a_tuple_of_tuples():
    x, y = RNG.normal(size=3), RNG.normal(size=2)

    def f(x, y):
        return np.sum(x ** 2) * np.sum(np.sin(y)) + x[0] * y[1]
    H = srcdiff.hessian(f, wrt=(0, 1))
    found = H(x, y)
    rows = srcdiff.hessian(f, wrt=(0, 1))
    rows.batched.enabled = False
    expected = rows(x, y)
    for i in range(2):
        for j in range(2):
            assert_close(found[i][j], expected[i][j], rtol=1e-10, atol=1e-12)
    assert found[0][1].shape == (3, 2) and found[1][0].shape == (2, 3)
    assert H.batched.last is not None


def test_rosenbrock_hessian_closed_form():
    import scipy.optimize
    x = RNG.normal(size=20)
    assert_close(srcdiff.hessian(rosenbrock)(x), scipy.optimize.rosen_hess(x), rtol=1e-10, atol=1e-8)


# ---- vector programs (jacobian) ----

def layer(x, W, b):
    return np.tanh(W @ x + b)


def elementwise_vec(x):
    return np.exp(x) * np.sin(x)


def cumulative(x):
    return np.cumsum(x * x)


def square_map(x):
    return np.outer(x, x).ravel()


@pytest.mark.parametrize("f, args, expected", [
    (layer, (RNG.normal(size=4), RNG.normal(size=(3, 4)), RNG.normal(size=3)),
     lambda x, W, b: (1 - np.tanh(W @ x + b) ** 2)[:, None] * W),
    (elementwise_vec, (RNG.normal(size=5),), lambda x: np.diag(np.exp(x) * (np.sin(x) + np.cos(x)))),
    (cumulative, (RNG.normal(size=4),), lambda x: np.tril(np.ones((4, 4))) * 2 * x),
    (square_map, (RNG.normal(size=3),), lambda x: (np.einsum("ik,j->ijk", np.eye(3), x)
                                                   + np.einsum("i,jk->ijk", x, np.eye(3))).reshape(9, 3)),
], ids=["layer", "elementwise", "cumsum", "outer"])
def test_jacobian_batched(f, args, expected):
    J = srcdiff.jacobian(f)
    found = J(*args)
    rows = srcdiff.jacobian(f)
    rows.batched.enabled = False
    assert_close(found, rows(*args), rtol=1e-12, atol=1e-12)
    assert_close(found, expected(*args), rtol=1e-10, atol=1e-10)
    numeric = np.stack([central_difference(lambda *a, i=i: f(*a)[i], args, 0) for i in range(np.size(f(*args)))])
    assert_close(found, numeric, rtol=1e-5, atol=1e-6)
    if f is not cumulative:  # np.cumsum's adjoint reverses x: a slice with a negative step is batched too
        assert J.batched.last is not None


# ---- the fallback: a primitive without a batching rule ----

def with_solve(x, A):
    return np.sum(np.linalg.solve(A, x) ** 2)


def test_fallback_without_batching_rule_is_still_correct():
    A = np.array([[3.0, 0.5, 0.1], [0.2, 2.0, 0.3], [0.1, 0.4, 4.0]])
    x = RNG.normal(size=3)
    H = srcdiff.hessian(with_solve)
    found = H(x, A)
    Ainv = np.linalg.inv(A)
    assert_close(found, 2 * Ainv.T @ Ainv, rtol=1e-10, atol=1e-12)
    xs = RNG.normal(size=(2, 3))
    mapped = srcdiff.vmap(with_solve, in_axes=(0, None))  # np.linalg.solve has a batching rule since wave 26
    assert_close(mapped(xs, A), [with_solve(x, A) for x in xs], rtol=1e-12, atol=1e-14)
    assert mapped.per_example is None


# ---- vmap against a Python loop over examples ----

def sq_loss(w, x, y):
    r = np.tanh(x @ w) - y
    return r * r


def mlp_loss(W1, b1, W2, x, y):
    h = np.tanh(x @ W1 + b1)
    out = h @ W2
    return np.sum((out - y) ** 2)


def scalar_loop(a, b):
    s = 0.0
    for _ in range(4):
        s = 0.9 * s + a * math.sin(s + b)
    return s


def matrix_rows(M, v):
    return np.sum(M * M, axis=1) + M @ v


def normalise(x):
    return x / np.linalg.norm(x)


def maximum(x, c):
    return np.max(np.maximum(x, c) * x, axis=0)


def transposed(M):
    return (M.T @ M)[0]


def expanded(x, y):
    return np.expand_dims(x, 1) * y


def pick(x):
    return x[1:, 0] * x[0, 1:]


def select(x):
    return np.where(x > 0.0, np.exp(x), x * 2.0)


def per_row_reference(f, in_axes, args):
    size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    outs = []
    for i in range(size):
        row = [a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, in_axes)]
        outs.append(f(*row))
    return np.stack(outs)


W1, B1, W2 = RNG.normal(size=(3, 4)), RNG.normal(size=4), RNG.normal(size=(4, 2))
VMAP_CASES = [
    (sq_loss, (None, 0, 0), (RNG.normal(size=3), RNG.normal(size=(6, 3)), RNG.normal(size=6))),
    (mlp_loss, (None, None, None, 0, 0), (W1, B1, W2, RNG.normal(size=(5, 3)), RNG.normal(size=(5, 2)))),
    (scalar_loop, (0, None), (RNG.normal(size=5), 0.3)),
    (scalar_loop, (0, 0), (RNG.normal(size=5), RNG.normal(size=5))),
    (matrix_rows, (0, None), (RNG.normal(size=(4, 3, 2)), RNG.normal(size=2))),
    (matrix_rows, (None, 0), (RNG.normal(size=(3, 2)), RNG.normal(size=(4, 2)))),
    (matrix_rows, (2, None), (RNG.normal(size=(3, 2, 5)), RNG.normal(size=2))),
    (normalise, (0,), (RNG.normal(size=(4, 3)),)),
    (maximum, (0, None), (RNG.normal(size=(4, 3, 2)), 0.1)),
    (transposed, (0,), (RNG.normal(size=(3, 2, 4)),)),
    (expanded, (0, None), (RNG.normal(size=(3, 2)), RNG.normal(size=4))),
    (pick, (0,), (RNG.normal(size=(4, 3, 3)),)),
    (select, (0,), (RNG.normal(size=(5, 3)),)),
]


@pytest.mark.parametrize("f, in_axes, args", VMAP_CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_vmap_equals_a_loop(f, in_axes, args):
    batched = srcdiff.vmap(f, in_axes=in_axes)
    assert_close(batched(*args), per_row_reference(f, in_axes, args), rtol=1e-12, atol=1e-12)
    assert "def " in batched.source


def loss_of_w(w, x, y):
    r = np.tanh(x @ w) - y
    return np.sum(r * r)


def mlp_scalar(W1, b1, W2, x, y):
    return np.sum((np.tanh(x @ W1 + b1) @ W2 - y) ** 2)


@pytest.mark.parametrize("f, wrt, args", [
    (loss_of_w, 0, (RNG.normal(size=3), RNG.normal(size=(6, 3)), RNG.normal(size=6))),
    (mlp_scalar, 0, (W1, B1, W2, RNG.normal(size=(5, 3)), RNG.normal(size=(5, 2)))),
    (mlp_scalar, 2, (W1, B1, W2, RNG.normal(size=(5, 3)), RNG.normal(size=(5, 2)))),
], ids=["linear", "mlp-W1", "mlp-W2"])
def test_vmap_of_grad_is_per_example_gradients(f, wrt, args):
    in_axes = tuple(None if i < len(args) - 2 else 0 for i in range(len(args)))
    batched = srcdiff.vmap(srcdiff.grad(f, wrt=wrt), in_axes=in_axes)
    found = batched(*args)
    expected = []
    for i in range(len(args[-1])):
        row = (*args[:-2], args[-2][i], args[-1][i])
        expected.append(central_difference(f, row, wrt))
    assert_close(found, np.stack(expected), rtol=1e-6, atol=1e-7)
    assert "_grad_batched" in batched.source


# ---- located refusals ----

def branch_on_row(x):
    while np.sum(x * x) > 1.0:  # (a branch on a row's value is batched: both sides, selected row by row)
        x = 0.5 * x
    return np.sum(x)


def loop_per_row(x, n):
    s = 0.0
    for _ in range(n):
        s = s + x
    return s


def test_what_differs_between_examples_runs_one_example_at_a_time_naming_the_line():
    xs = RNG.normal(size=(3, 2))
    mapped = srcdiff.vmap(branch_on_row)
    with pytest.warns(srcdiff.PerExampleWarning, match="differs between examples") as warned:
        assert_close(mapped(xs), [branch_on_row(x) for x in xs], rtol=1e-12, atol=1e-14)
    assert warned[0].filename == __file__ and warned[0].lineno == branch_on_row.__code__.co_firstlineno + 1
    assert re.search(r"test_batching.py:\d+.*differs between examples", mapped.per_example), mapped.per_example
    assert "one example at a time" in mapped.source
    counted = srcdiff.vmap(loop_per_row, in_axes=(None, 0), per_example="allow")
    assert_close(counted(1.5, np.array([2, 3])), [3.0, 4.5], rtol=1e-12, atol=1e-14)
    assert re.search("test_batching.py:.*(differs between examples|the same for every)", counted.per_example)


def test_refusals_name_the_users_line():
    with pytest.raises(srcdiff.SrcDiffError, match="batched arguments have different sizes"):
        srcdiff.vmap(sq_loss, in_axes=(None, 0, 0))(np.ones(3), np.ones((4, 3)), np.ones(5))
    with pytest.raises(srcdiff.SrcDiffError, match="in_axes has 2 entries"):
        srcdiff.vmap(sq_loss, in_axes=(None, 0))(np.ones(3), np.ones((4, 3)), np.ones(4))
    with pytest.raises(srcdiff.SrcDiffError, match="out_axes"):
        srcdiff.vmap(sq_loss, out_axes="last")


@pytest.mark.parametrize("value_shape, value_rows", [((4, 3), True), ((4, 1), True), ((4,), True), ((3,), False),
                                                     ((), False)])
def test_scatters_of_rows_through_slices_agree_with_a_loop_over_rows(value_shape, value_rows):
    """`zero_rows_with` and `scatter_add_rows` with an index of slices (their fast path) do
    for each row what ``row[index] += value_row`` does, value rows with fewer axes aligned
    after the batch axis as the general path aligns them."""
    from srcdiff.rules.batching_helpers import scatter_add_rows, zero_rows_with

    rng = np.random.default_rng(7)
    value, index = rng.normal(size=value_shape), (slice(1, None), slice(None, 3))
    base = rng.normal(size=(4, 5, 3))
    expected_zero, expected_added = np.zeros((4, 5, 3)), base.copy()
    for i in range(4):
        part = value[i] if value_rows else value
        if value_rows and np.ndim(part) == 0:
            part = np.reshape(part, (1, 1))
        expected_zero[i][index] += part
        expected_added[i][index] += part
    assert_close(zero_rows_with(np.zeros((5, 3)), 4, index, value, value_rows), expected_zero, rtol=0, atol=0)
    assert_close(scatter_add_rows(base, index, value, value_rows), expected_added, rtol=0, atol=0)
