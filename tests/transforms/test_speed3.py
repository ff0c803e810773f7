"""Second order and fills at their cost: an hvp's scatter-adds are scatters into the tangent
accumulator made in place (no zero-filled copy per update, no primal update kept alive for
its shape), and a mean's fill is a number broadcast where every use allows it (one
``full_like``/``rechunk`` fewer on Dask).  Values against float64 differences (of SciPy's
hand-written Rosenbrock gradient, of the function itself) and closed forms.
"""

import numpy as np
import pytest
import scipy.optimize
from numeric import central_difference, hessian_difference

import srcdiff
from srcdiff.api.hvp import hvp_source


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def neighbours_2d(x):
    return np.sum(np.sin(x[:, 1:] * x[:, :-1])) + np.sum(x[1:, :] ** 3 * x[:-1, :])


def ends(x):
    return x[0] * x[-1] ** 2 + np.sum(x[1:-1] ** 3) + np.sum(x[::2] * x[1::2])


def reversed_steps(x):
    return np.sum(x[::-1] * x ** 2) + np.sum(np.exp(x[2:]) * x[:-2])


def repeated(x):
    idx = np.array([0, 0, 2, 1, 2])
    return np.sum(np.sin(x[idx]) * x[idx] ** 2) + np.sum(x * x)


def picked(x):
    return x[2] + np.sum(x ** 3) - 2.0 * x[-1]


def picked_twice(x):
    return x[0] * 3.0 + np.sum(np.sin(x[1:])) + x[0]


def reference_product(f, x, v):
    """H(x) @ v from second differences of f alone (small x)."""
    H = hessian_difference(f, (x,))
    return (H.reshape(x.size, x.size) @ v.ravel()).reshape(x.shape)


def test_rosenbrock_hvp_against_scipy_and_differences():
    rng = np.random.default_rng(3)
    for n in (2, 3, 17, 1000):
        x, v = rng.uniform(-1.5, 1.5, n), rng.normal(size=n)
        product = srcdiff.hvp(rosenbrock, x, v)
        eps = 1e-6
        difference = (scipy.optimize.rosen_der(x + eps * v) - scipy.optimize.rosen_der(x - eps * v)) / (2 * eps)
        np.testing.assert_allclose(product, difference, rtol=1e-6, atol=1e-5)
        np.testing.assert_allclose(product, scipy.optimize.rosen_hess_prod(x, v), rtol=1e-12, atol=1e-9)


def test_rosenbrock_hvp_scatters_in_place():
    """No zero-filled copy per scatter, no `index_add` left, the updates are ``+=`` into one array."""
    x, v = np.linspace(-1.0, 1.0, 50), np.cos(np.arange(50.0))
    srcdiff.hvp(rosenbrock, x, v)
    source = "\n".join(line for line in hvp_source(rosenbrock).splitlines() if not line.strip().startswith("#"))
    assert "zeros_like" not in source and "index_add(" not in source, source
    # one array made: the tangent's (the primal's zeros, read only for their shape, are gone);
    # its first scatter is written by the product itself (``np.multiply(..., out=t[:-1])``)
    assert source.count("np.zeros(") + source.count("np.empty(") == 1, source
    assert "[1:] += " in source and "out=x_bar_1_dot[:-1])" in source and "[-1:] = 0.0" in source, source
    # the primal adjoint updates are not kept for their shapes: only the tangent's are written
    assert "x_bar_1 =" not in source and "x_bar_2 =" not in source, source


@pytest.mark.parametrize("f, shape", [(neighbours_2d, (4, 5)), (ends, (8,)), (reversed_steps, (6,)),
                                      (repeated, (3,)), (rosenbrock, (5,)), (picked, (5,)),
                                      (picked_twice, (4,))])
def test_hvp_variants_against_second_differences(f, shape):
    rng = np.random.default_rng(11)
    x, v = rng.uniform(-0.9, 0.9, shape), rng.normal(size=shape)
    np.testing.assert_allclose(srcdiff.hvp(f, x, v), reference_product(f, x, v), rtol=1e-5, atol=1e-5)
    srcdiff.hvp(f, x, v)  # again: the cached code gives the same
    np.testing.assert_allclose(srcdiff.hvp(f, x, v), reference_product(f, x, v), rtol=1e-5, atol=1e-5)


def test_hvp_source_before_a_call_is_refused():
    def fresh(x):
        return np.sum(x ** 3)
    with pytest.raises(srcdiff.SrcDiffError):
        hvp_source(fresh)


def logistic(w, b, X, y):
    z = X @ w + b
    return np.mean(np.logaddexp(0.0, z) - y * z)


def squares(w, b, X, y):
    r = X @ w + b - y
    return np.mean(r * r)


def paired(x, y):
    return np.mean(np.sin(x) * y + x * x)


def outer(x, y):
    return np.mean(x[None, :] * y[:, None] ** 2)


def own_mean(x):
    return np.mean(x)


def test_mean_fill_is_a_number_in_the_logistic_gradient():
    rng = np.random.default_rng(5)
    args = (rng.normal(size=4), 0.3, rng.normal(size=(40, 4)), (rng.random(40) > 0.5).astype(float))
    gradient = srcdiff.grad(logistic, wrt=(0, 1))
    gw, gb = gradient(*args)
    assert "np.full" not in gradient.source, gradient.source
    # closed form: X.T @ (sigmoid(z) - y) / n and its sum
    z = args[2] @ args[0] + args[1]
    r = (1.0 / (1.0 + np.exp(-z)) - args[3]) / z.size
    np.testing.assert_allclose(gw, args[2].T @ r, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gb, r.sum(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("f, args, fill", [
    (squares, (np.array([0.5, -1.0, 2.0]), 0.1, np.arange(21.0).reshape(7, 3) / 9, np.linspace(0, 1, 7)), False),
    (paired, (np.linspace(-1, 1, 9), np.linspace(2, 3, 9)), False),
    (outer, (np.linspace(-1, 1, 4), np.linspace(2, 3, 6)), None),
    (own_mean, (np.linspace(-1, 1, 5),), True),
])
def test_mean_fills_against_differences(f, args, fill):
    """Every parameter's gradient against central differences; where the fill is the returned
    gradient itself it stays an array (`fill` True), where only elementwise uses of equal
    shapes meet it, it is a number (False)."""
    for index in range(len(args)):
        if not isinstance(args[index], np.ndarray) and index:
            continue
        gradient = srcdiff.grad(f, wrt=index)
        np.testing.assert_allclose(gradient(*args), central_difference(f, args, index), rtol=1e-6, atol=1e-8)
        assert np.shape(gradient(*args)) == np.shape(args[index])
        if fill is not None and index == 0:
            assert ("np.full" in gradient.source) == fill, gradient.source


# ---- batched Hessians: scatter-adds into rows of their own, in place ----

def cubes_at(x):
    idx = np.array([1, 1, 0, 3])
    return np.sum(x[idx] ** 3) + np.sum(x[1:] * x[:-1] ** 2)


def ring(x):
    return np.sum(np.cos(x[2:] - x[:-2])) + x[0] ** 2 * x[-1]


@pytest.mark.parametrize("n", [2, 3, 10, 64])
def test_rosenbrock_hessian_batched_in_place(n):
    x = np.random.default_rng(n).uniform(-1.2, 1.2, n)
    H = srcdiff.hessian(rosenbrock)
    np.testing.assert_allclose(H(x), scipy.optimize.rosen_hess(x), rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(H(x), scipy.optimize.rosen_hess(x), rtol=1e-12, atol=1e-9)  # the replayed plan
    code = "\n".join(line for line in H.source.splitlines() if not line.strip().startswith("#"))
    assert "zero_rows_with(" in code and "index_add_rows(" not in code, code


@pytest.mark.parametrize("f, n", [(cubes_at, 5), (ring, 6), (reversed_steps, 5), (ends, 6), (picked, 5),
                                  (picked_twice, 4)])
def test_batched_hessians_against_second_differences(f, n):
    x = np.random.default_rng(7).uniform(-0.8, 0.8, n)
    H = srcdiff.hessian(f)
    expected = hessian_difference(f, (x,))
    np.testing.assert_allclose(H(x), expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(H(x + 0.1), hessian_difference(f, (x + 0.1,)), rtol=1e-5, atol=1e-5)


def scattered(source: str) -> str:
    import ast

    from srcdiff.driver.batched import scatter_in_place
    func = ast.parse(source).body[0]
    scatter_in_place(func)
    return ast.unparse(func)


def test_scatter_in_place_only_where_nothing_else_reads_the_rows():
    made = scattered("def f(x, v, n):\n    z = np.zeros(x.shape)\n"
                     "    a = index_add_rows(broadcast_rows(z, n), (slice(1, None),), v, True)\n"
                     "    b = index_add_rows(a, (slice(None, -1),), v, True)\n    return b")
    assert "a = zero_rows_with(z, n, (slice(1, None),), v, True)" in made and "b = scatter_add_rows(a," in made, made
    kept = scattered("def f(x, v, n):\n    z = np.zeros(x.shape)\n"
                     "    a = index_add_rows(broadcast_rows(z, n), (slice(1, None),), v, True)\n"
                     "    b = index_add_rows(a, (slice(None, -1),), v, True)\n    return a + b")
    assert "b = index_add_rows(a," in kept, kept  # `a` is read again: b is a copy
    shared = scattered("def f(x, v, n, w):\n    a = index_add_rows(broadcast_rows(w, n), (0,), v, True)\n"
                       "    return a")
    assert "index_add_rows(broadcast_rows(w, n)" in shared, shared  # w is not zeros made here
    again = scattered("def f(x, v, n, w):\n    z = np.zeros(x.shape)\n    z = w * 2.0\n"
                      "    a = index_add_rows(broadcast_rows(z, n), (0,), v, True)\n    return a")
    assert "index_add_rows(broadcast_rows(z, n)" in again, again  # z holds something else by then


def test_scatter_add_rows_widens_and_repeats_like_a_copy():
    from srcdiff.rules.batching_helpers import index_add_rows, scatter_add_rows
    base = np.arange(12, dtype=np.float32).reshape(2, 6)
    value = np.array([[0.1, 0.2], [0.3, 0.4]])
    for index in [(slice(1, 3),), (np.array([1, 1]),)]:
        expected = index_add_rows(base, index, value, True)
        got = scatter_add_rows(base.copy(), index, value, True)
        assert got.dtype == expected.dtype == np.float64
        np.testing.assert_array_equal(got, expected)
    by_hand = base.astype(float)
    by_hand[:, 1] += value[:, 0] + value[:, 1]  # the repeated position adds twice
    np.testing.assert_array_equal(scatter_add_rows(base.copy(), (np.array([1, 1]),), value, True), by_hand)


@pytest.mark.parametrize("index, value_rows", [((slice(1, 3),), True), ((2,), True), ((slice(None), 1), False),
                                               ((np.array([1, 1]),), True), ((slice(0, 2),), False)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.complex128])
def test_zero_rows_with_is_a_scatter_into_zeros(index, value_rows, dtype):
    """Written where each position is reached once, added (np.add.at) where an index repeats."""
    from srcdiff.rules.batching_helpers import zero_rows_with
    like = np.zeros((4, 3)) if len(index) == 2 else np.zeros(5)
    rng = np.random.default_rng(3)
    target = np.zeros((2,) + like.shape)[(slice(None),) + index]
    shape = target.shape if value_rows else target.shape[1:]
    value = rng.normal(size=shape).astype(dtype)
    by_hand = np.zeros((2,) + like.shape, dtype=np.result_type(np.float64, value))  # zero_rows: float64
    rows = [by_hand[b] for b in range(2)]
    for b, row in enumerate(rows):
        np.add.at(row, index, value[b] if value_rows else value)
    got = zero_rows_with(like, 2, index, value, value_rows)
    assert got.dtype == by_hand.dtype
    np.testing.assert_array_equal(got, by_hand)
