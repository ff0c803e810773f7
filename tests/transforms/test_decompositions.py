"""np.linalg's decompositions (#25): pinv, svd, eigh, eigvalsh, qr, matrix_power and the
matrix norms, in every transformation.

References are float64 central differences of the function (tests/numeric.py) or closed
forms written by hand; none is computed by srcdiff.  Inputs keep eigenvalues / singular
values apart (the derivative of an eigenvector does not exist at a repeated eigenvalue);
losses read eigenvectors through even functions or fixed weights (LAPACK's sign choice is
locally constant, so central differences see the same vectors)."""

import numpy as np
import pytest
from numeric import SECOND_ORDER, assert_close, central_difference, hessian_difference, second_order

import srcdiff

try:
    import scipy.linalg as sl
except ImportError:  # an optional extra: its tests skip
    sl = None

W = np.random.default_rng(11).normal(size=(2, 5, 5))


def svd_all(A):
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    return np.sum(U ** 4) + np.sum(s ** 2 * np.arange(1.0, s.shape[-1] + 1)) + np.sum(Vt ** 4)


def svd_square_default(A):
    U, s, Vt = np.linalg.svd(A)
    return np.sum(np.abs(U[..., 0]) * s[..., :1]) + np.sum(Vt[..., 0, :] ** 2 * np.sin(s[..., :1]))


def singular_values(A):
    return np.sum(np.sin(np.linalg.svd(A, compute_uv=False)))


def svd_indexed(A):
    return np.sum(np.linalg.svd(A, full_matrices=False)[1] ** 3)


def eigh_pair(A):
    w, v = np.linalg.eigh(A)
    return np.sum(w * np.cos(w)) + np.sum(v ** 4 * W[0, :3, :3])


def eigh_upper(A):
    w, v = np.linalg.eigh(A, UPLO="U")
    return np.sum(w ** 2) + np.sum(v * v * w[..., None, :] ** 2)


def eigh_tuple(A):
    r = tuple(np.linalg.eigh(A))
    return np.sum(r[0] ** 3) + np.sum(r[1] ** 2 * A)


def eigh_tuple_display(A):
    w, v = np.linalg.eigh(A @ np.swapaxes(A, -1, -2))
    r = tuple((w, v))
    return np.sum(np.log(r[0] + 1.0)) + np.sum(r[1] ** 4)


def eigenvalues(A):
    return np.sum(np.exp(np.linalg.eigvalsh(A, "U")))


def pinv(A):
    return np.sum(np.linalg.pinv(A) * W[0, :A.shape[-1], :A.shape[-2]])


def pinv_squared(A):
    return np.sum(np.linalg.pinv(A) ** 2)


def qr(A):
    Q, R = np.linalg.qr(A)
    return np.sum(Q * W[0, :A.shape[-2], :A.shape[-1]]) + np.sum(R ** 2)


def qr_r(A):
    return np.sum(np.linalg.qr(A)[1] ** 3)


def power(A):
    return np.sum(np.linalg.matrix_power(A, 3) * W[0, :A.shape[-1], :A.shape[-1]])


def inverse_power(A):
    return np.sum(np.linalg.matrix_power(A + 3.0 * np.eye(A.shape[-1]), -2) ** 2)


def nuclear(A):
    return np.linalg.norm(A, "nuc") + np.linalg.norm(A, 2) ** 2 - np.linalg.norm(A, -2)


def induced(A):
    return np.linalg.norm(A, 1) + np.linalg.norm(A, np.inf) * np.linalg.norm(A, -1) + np.linalg.norm(A, -np.inf)


def norms_over_axes(A):
    return np.sum(np.linalg.norm(A, "nuc", axis=(0, 2)) ** 2) + np.sum(np.linalg.norm(A, 2, axis=(-1, -2)))


def symmetric(rng, shape):
    q, _ = np.linalg.qr(rng.normal(size=shape))
    return q @ (np.arange(1.0, shape[-1] + 1) * np.swapaxes(q, -1, -2)) + 0.1 * rng.normal(size=shape)


def plain(rng, shape):
    return rng.normal(size=shape)


def shifted(rng, shape):
    return rng.normal(size=shape) + 2.0 * np.eye(shape[-1])


def named_fields(A):
    r = np.linalg.svd(A, full_matrices=False)
    return np.sum(np.linalg.eigh(A @ A.T).eigenvalues ** 2) + np.sum(r.S ** 3) + np.sum(r.U ** 4) \
        + np.sum(np.linalg.qr(A.T).R ** 2) + np.linalg.slogdet(A @ A.T + np.eye(A.shape[0])).logabsdet


# name: (function, input maker, shapes: wide, tall, square, batched)
PROGRAMS = {
    "svd": (svd_all, plain, [(3, 5), (5, 3), (4, 4), (2, 3, 4)]),
    "svd full_matrices square": (svd_square_default, plain, [(3, 3), (2, 3, 3)]),
    "svd compute_uv=False": (singular_values, plain, [(3, 5), (5, 2), (2, 4, 3)]),
    "svd indexed": (svd_indexed, plain, [(2, 4), (3, 2, 4)]),
    "eigh": (eigh_pair, symmetric, [(3, 3)]),
    "eigh UPLO=U": (eigh_upper, symmetric, [(4, 4), (2, 3, 3)]),
    "tuple(eigh)": (eigh_tuple, symmetric, [(3, 3), (2, 3, 3)]),
    "tuple((w, v))": (eigh_tuple_display, shifted, [(3, 3)]),
    "eigvalsh": (eigenvalues, symmetric, [(4, 4), (2, 3, 3)]),
    "pinv": (pinv, plain, [(3, 5), (5, 3), (4, 4), (2, 3, 4)]),
    "pinv squared": (pinv_squared, plain, [(2, 3), (3, 2)]),
    "qr": (qr, plain, [(5, 3), (4, 4), (2, 4, 3)]),
    "qr r": (qr_r, plain, [(4, 2), (2, 3, 3)]),
    "matrix_power": (power, plain, [(3, 3), (2, 3, 3)]),
    "matrix_power -2": (inverse_power, plain, [(3, 3), (2, 2, 2)]),
    "norm nuc 2 -2": (nuclear, plain, [(3, 4), (4, 2)]),
    "norm 1 inf -1 -inf": (induced, plain, [(3, 4), (4, 4)]),
    "norm over axes": (norms_over_axes, plain, [(3, 2, 4)]),
    "named fields": (named_fields, plain, [(2, 3), (3, 4)]),
}
CASES = [(name, shape) for name, (_, _, shapes) in PROGRAMS.items() for shape in shapes]
IDS = [f"{name}-{'x'.join(map(str, shape))}" for name, shape in CASES]


def draw(name, shape, seed=0):
    f, make, _ = PROGRAMS[name]
    return f, make(np.random.default_rng(seed), shape)


@pytest.mark.parametrize("name, shape", CASES, ids=IDS)
def test_gradient_matches_central_differences(name, shape, check_gradient):
    f, A = draw(name, shape)
    check_gradient(f, (A,), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, shape", CASES, ids=IDS)
def test_jvp_and_vjp_match_central_differences(name, shape):
    f, A = draw(name, shape)
    expected = central_difference(f, (A,), 0)
    v = np.random.default_rng(5).normal(size=shape)
    value, tangent = srcdiff.jvp(f, (A,), (v,))
    assert value == pytest.approx(f(A))
    assert tangent == pytest.approx(np.sum(expected * v), rel=1e-5, abs=1e-6)
    value, pullback = srcdiff.vjp(f, A)
    assert_close(pullback(1.0), expected, rtol=1e-5, atol=1e-6)


SMALL = [(name, shape) for name, shape in CASES if np.prod(shape) <= 12]


@pytest.mark.parametrize("transform", SECOND_ORDER)
@pytest.mark.parametrize("name, shape", SMALL, ids=[f"{n}-{'x'.join(map(str, s))}" for n, s in SMALL])
def test_second_order(name, shape, transform):
    f, A = draw(name, shape)
    rng = np.random.default_rng(9)
    if transform == "hvp":  # numeric.second_order's hvp reference is for vectors: contract every axis of v
        v = rng.normal(size=shape)
        actual, expected = srcdiff.hvp(f, A, v), np.tensordot(hessian_difference(f, (A,)), v, axes=v.ndim)
    else:
        actual, expected = second_order(transform, f, A, rng)
    assert_close(actual, expected, rtol=2e-4, atol=2e-4)


@pytest.mark.parametrize("name, shape", [("svd indexed", (3, 4)), ("tuple(eigh)", (3, 3)), ("pinv squared", (2, 3)),
                                         ("qr r", (3, 2)), ("eigvalsh", (3, 3)), ("norm nuc 2 -2", (3, 4)),
                                         ("svd compute_uv=False", (2, 3))])
def test_float32_stays_float32(name, shape):
    f, A = draw(name, shape)
    single = A.astype(np.float32)
    expected = central_difference(f, (single.astype(float),), 0)
    grad = srcdiff.grad(f)(single)
    assert grad.dtype == np.float32
    np.testing.assert_allclose(grad, expected, rtol=2e-3, atol=2e-3)
    _, tangent = srcdiff.jvp(f, (single,), (np.ones_like(single),))
    assert np.asarray(tangent).dtype == np.float32
    hessian = srcdiff.hessian(f)(single)
    assert hessian.dtype == np.float32
    np.testing.assert_allclose(hessian, hessian_difference(f, (single.astype(float),)), rtol=2e-2, atol=2e-2)


# ---- vector norms of any order ----

ORDERS = [3, 0.5, -1, -2, 1.5, 0, -np.inf]


@pytest.mark.parametrize("order", ORDERS, ids=[str(o) for o in ORDERS])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (1, True), (0, False)])
def test_vector_norms_of_any_order(order, axis, keepdims):
    rng = np.random.default_rng(12)
    shape = (5,) if axis is None else (3, 4)
    weights = rng.normal(size=shape)

    def p_norm(x):
        return np.sum(np.linalg.norm(x * weights, ord=order, axis=axis, keepdims=keepdims) ** 2)

    x = rng.uniform(0.5, 2.0, size=shape) * rng.choice([-1.0, 1.0], size=shape)  # no zeros, no ties
    expected = central_difference(p_norm, (x,), 0)
    assert_close(srcdiff.grad(p_norm)(x), expected, rtol=1e-5, atol=1e-6)
    v = rng.normal(size=shape)
    assert srcdiff.jvp(p_norm, (x,), (v,))[1] == pytest.approx(np.sum(expected * v), rel=1e-5, abs=1e-6)
    assert_close(srcdiff.hessian(p_norm)(x), hessian_difference(p_norm, (x,)), rtol=2e-4, atol=2e-4)


# ---- lstsq: two operands, a tuple of four ----

def lstsq_all(A, b):
    x, res, rank, s = np.linalg.lstsq(A, b, rcond=None)
    return np.sum(x ** 2) + 0.5 * np.sum(res) + np.sum(s ** 3) + 0.0 * rank


def lstsq_solution(A, b):
    return np.sum(np.sin(np.linalg.lstsq(A, b)[0]))


LSTSQ = [(f, a, b) for f in (lstsq_all, lstsq_solution)
         for a, b in [((5, 3), (5,)), ((5, 3), (5, 2)), ((3, 5), (3,)), ((4, 4), (4, 2))]]


@pytest.mark.parametrize("f, a, b", LSTSQ, ids=[f"{f.__name__}-{a}-{b}" for f, a, b in LSTSQ])
def test_lstsq(f, a, b, check_gradient):
    rng = np.random.default_rng(4)
    A, B = rng.normal(size=a), rng.normal(size=b)
    check_gradient(f, (A, B), (0, 1), rtol=1e-5, atol=1e-6)
    dA, dB = rng.normal(size=a), rng.normal(size=b)
    _, tangent = srcdiff.jvp(f, (A, B), (dA, dB))  # both operands move: their parts add item by item
    expected = np.sum(central_difference(f, (A, B), 0) * dA) + np.sum(central_difference(f, (A, B), 1) * dB)
    assert tangent == pytest.approx(expected, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("f, a, b", LSTSQ, ids=[f"{f.__name__}-{a}-{b}" for f, a, b in LSTSQ])
@pytest.mark.parametrize("wrt", [0, 1])
def test_lstsq_second_order(f, a, b, wrt):  # a sampled family (tests/sampling.py)
    """Through the pseudo-inverse, the residuals (present only with more rows than columns) and the
    singular values: every second-order transformation against second differences of f."""
    rng = np.random.default_rng(5)
    args = [rng.normal(size=a), rng.normal(size=b)]
    moved = args[wrt]

    def of_moved(x, *rest):
        both = [x, *rest] if wrt == 0 else [rest[0], x]
        return f(*both)
    expected = hessian_difference(of_moved, (moved, args[1 - wrt]))
    assert_close(srcdiff.hessian(f, wrt=wrt)(*args), expected, rtol=2e-4, atol=2e-4)
    v = rng.normal(size=moved.shape)
    assert_close(srcdiff.jacobian(srcdiff.grad(f, wrt=wrt), wrt=wrt)(*args), expected, rtol=2e-4, atol=2e-4)
    if wrt == 0:
        product = srcdiff.hvp(f, moved, v, args[1])
        assert_close(product, np.tensordot(expected, v, axes=v.ndim), rtol=2e-4, atol=2e-4)


# ---- closed forms ----

def trace_of_eigenvalues(A):
    return np.sum(np.linalg.eigvalsh(A))


def largest_singular_value(A):
    return np.linalg.svd(A, compute_uv=False)[0]


def test_closed_forms():
    A = np.array([[2.0, 0.5, 0.0], [0.3, 1.0, 0.2], [0.7, -0.4, 3.0]])
    # sum of the eigenvalues is the trace of the lower triangle's symmetric matrix: only the diagonal counts
    assert_close(srcdiff.grad(trace_of_eigenvalues)(A), np.eye(3), rtol=1e-12, atol=1e-12)
    # the largest singular value of diag(3, 2) moves with the (0, 0) entry only
    assert_close(srcdiff.grad(largest_singular_value)(np.diag([3.0, 2.0])), np.array([[1.0, 0.0], [0.0, 0.0]]),
                 rtol=1e-12, atol=1e-12)


def eigenvalues_only(A):
    w, v = np.linalg.eigh(A)
    return np.sum(w ** 2)


def test_eigenvalues_alone_are_differentiable_at_repeated_eigenvalues():
    # sum(w ** 2) = ||A||_F^2 for symmetric A: 2 A, folded onto the lower triangle
    A = np.eye(3)
    assert_close(srcdiff.grad(eigenvalues_only)(A), 2.0 * np.eye(3), rtol=1e-12, atol=1e-12)


def eigenvector_loss(A):
    w, v = np.linalg.eigh(A)
    return np.sum(v[0] ** 2 * w)


def test_eigenvectors_at_repeated_eigenvalues_are_not_a_silent_number():
    with np.errstate(all="ignore"):
        grad = srcdiff.grad(eigenvector_loss)(np.eye(3))
    assert not np.all(np.isfinite(grad))


# ---- refusals at the user's line ----

def svd_wide_full(A):
    U, s, Vt = np.linalg.svd(A)
    return np.sum(s)


def svd_hermitian(A):
    return np.sum(np.linalg.svd(A, hermitian=True)[1])


def general_eig(A):
    w, v = np.linalg.eig(A)
    return np.sum(np.abs(w))


def _eig_parts(A):
    w, v = np.linalg.eig(A)
    return tuple((np.abs(w), np.abs(v)))


def eig_through_a_helper(A):
    r = _eig_parts(A)
    return np.sum(r[0]) + np.sum(r[1])


def _arange_parts(x):
    return (np.arange(x[0], 5.0), x)


def arange_through_a_helper(x):
    r = _arange_parts(x)
    return np.sum(r[0] * x[1])


def qr_complete(A):
    return np.sum(np.linalg.qr(A, mode="complete")[0])


@pytest.mark.parametrize("f, x, message", [
    (svd_wide_full, np.ones((2, 3)) + np.eye(2, 3), "full_matrices=True"),
    (svd_hermitian, np.eye(3), "hermitian=True"),
    (general_eig, np.eye(3) + 0.1, "numpy.linalg.eig"),
    (eig_through_a_helper, np.eye(3) + 0.1, "numpy.linalg.eig"),
    (arange_through_a_helper, np.array([1.5, 2.0]), "numpy.arange"),
    (qr_complete, np.eye(3) + 0.1, "mode='complete'"),
], ids=["svd full non-square", "svd hermitian", "eig", "eig in a helper", "arange in a helper", "qr complete"])
def test_refused_at_the_line(f, x, message):
    with pytest.raises(srcdiff.SrcDiffError, match="test_decompositions.py:") as info:
        srcdiff.grad(f)(x)
    assert message in str(info.value)


def eig_of_a_constant(x):
    w = np.linalg.eigvals(np.diag([1.0, 2.0]))
    return np.sum(w * x)


def test_eig_of_a_constant_is_a_constant():
    assert_close(srcdiff.grad(eig_of_a_constant)(np.array([0.5, 0.25])), np.array([1.0, 2.0]))


@pytest.mark.parametrize("f", [svd_all, eigh_pair, qr])
def test_numba_compiles_the_helpers_of_one_matrix(f):
    pytest.importorskip("numba")
    M = np.eye(3) + 0.1 * np.arange(9.0).reshape(3, 3)
    A = M + M.T  # (eigh reads a symmetric matrix)
    assert_close(srcdiff.grad(f, jit="numba")(A), central_difference(f, (A,), 0), rtol=1e-5, atol=1e-6)


def test_numba_compiles_pinv():
    pytest.importorskip("numba")
    f, A = draw("pinv", (3, 5))
    assert_close(srcdiff.grad(f, jit="numba")(A), central_difference(f, (A,), 0), rtol=1e-5, atol=1e-6)


# ---- scipy.linalg ----

def triangular_lower(A, b):
    return np.sum(np.sin(sl.solve_triangular(A, b, lower=True)))


def triangular_transposed_unit(A, b):
    return np.sum(sl.solve_triangular(A, b, trans=1, unit_diagonal=True) ** 2)


def cholesky_solve(A, b):
    L = np.linalg.cholesky(A @ A.T + np.eye(A.shape[0]))
    z = sl.solve_triangular(L, b, lower=True)
    return np.sum(sl.solve_triangular(L, z, lower=True, trans="T") ** 2)


TRIANGULAR = [(f, b) for f in (triangular_lower, triangular_transposed_unit, cholesky_solve) for b in ((3,), (3, 2))]


@pytest.mark.parametrize("f, b", TRIANGULAR, ids=[f"{f.__name__}-{len(b)}d" for f, b in TRIANGULAR])
def test_solve_triangular(f, b, check_gradient):
    if sl is None:
        pytest.skip("scipy is not installed")
    rng = np.random.default_rng(6)
    A, B = rng.normal(size=(3, 3)) + 3.0 * np.eye(3), rng.normal(size=b)
    check_gradient(f, (A, B), (0, 1), rtol=1e-5, atol=1e-6)
    dA, dB = rng.normal(size=(3, 3)), rng.normal(size=b)
    _, tangent = srcdiff.jvp(f, (A, B), (dA, dB))
    expected = np.sum(central_difference(f, (A, B), 0) * dA) + np.sum(central_difference(f, (A, B), 1) * dB)
    assert tangent == pytest.approx(expected, rel=1e-5, abs=1e-6)


def root(A):
    return np.sum(sl.sqrtm(A @ A.T + np.eye(3)) * np.arange(9.0).reshape(3, 3))


def root_of_diagonal(d):
    return np.trace(sl.sqrtm(np.diag(d)))


def scipy_wrappers(A):
    U, s, Vt = sl.svd(A, full_matrices=False)
    return np.sum(s ** 2) + np.sum(U ** 4) + np.sum(sl.pinv(A) ** 2)


def scipy_inverse(A):
    return np.sum(sl.inv(A) ** 2) + sl.det(A)


def test_sqrtm_and_the_wrappers():
    if sl is None:
        pytest.skip("scipy is not installed")
    rng = np.random.default_rng(8)
    A = rng.normal(size=(3, 3))
    for f, x in [(root, A), (scipy_wrappers, rng.normal(size=(2, 3))), (scipy_inverse, A + 3.0 * np.eye(3))]:
        assert_close(srcdiff.grad(f)(x), central_difference(f, (x,), 0), rtol=1e-5, atol=1e-6)
    for f, x in [(scipy_wrappers, rng.normal(size=(2, 3))), (scipy_inverse, A + 3.0 * np.eye(3))]:
        assert_close(srcdiff.hessian(f)(x), hessian_difference(f, (x,)), rtol=2e-4, atol=2e-4)
    d = np.array([1.0, 4.0, 9.0])  # trace(sqrt(diag(d))) = sum(sqrt(d)): 1 / (2 sqrt(d))
    assert_close(srcdiff.grad(root_of_diagonal)(d), 0.5 / np.sqrt(d), rtol=1e-12, atol=1e-12)
    with pytest.raises(srcdiff.SrcDiffError, match="test_decompositions.py:"):
        srcdiff.hessian(root)(A)  # the Sylvester solve has no rule: refused at the line


# ---- export: the helpers and the small functions they call are copied, once ----

def factorised(A):
    L = np.linalg.cholesky(A @ A.T + np.eye(A.shape[0]))
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    return np.sum(L ** 2) + np.sum(s ** 3) + np.sum(np.linalg.eigh(A @ A.T)[1] ** 4) + np.linalg.norm(A, "nuc")


def test_export_copies_the_decomposition_helpers(tmp_path):
    import importlib.util

    A = np.random.default_rng(13).normal(size=(3, 3))
    path = tmp_path / "factorised_grad.py"
    srcdiff.export(factorised, A, wrt=0, path=str(path))
    text = path.read_text()
    assert "import srcdiff" not in text and "from srcdiff" not in text
    assert text.count("def _mT(") == 1
    spec = importlib.util.spec_from_file_location("factorised_grad", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert_close(module.factorised_grad(A), central_difference(factorised, (A,), 0), rtol=1e-5, atol=1e-6)
