"""The Cholesky factor's derivatives invert the factor as a triangular matrix (LAPACK's trtri,
rules/triangular.py) rather than as a general one: every transformation of likelihoods through
a factor still agrees with central differences, for one matrix and a stack, in float32 too."""

import numpy as np
import pytest
from numeric import SECOND_ORDER, assert_close, central_difference, second_order

import srcdiff
from srcdiff.rules.triangular import lower_inverse, phi

from . import corpus, matrix


def gp_likelihood(A, y):
    """0.5 y^T K^-1 y + log det L, K from A, solved with the factor (the held-out GP's form)."""
    K = A @ A.T + np.eye(A.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * y @ alpha + np.sum(np.log(np.diag(L)))


def factor_entries(A):
    """The factor's entries weighted: every element of L's lower triangle has its own adjoint."""
    L = np.linalg.cholesky(A @ A.T + 0.5 * np.eye(A.shape[0]))
    return np.sum(L * np.arange(1.0, 1.0 + L.size).reshape(L.shape) ** 0.5)


def stacked_factors(A):
    """A stack of factors (NumPy's inverse there: trtri takes one matrix)."""
    K = A @ np.swapaxes(A, -1, -2) + np.eye(A.shape[-1])
    L = np.linalg.cholesky(K)
    return np.sum(np.log(L[:, 1, 1]) ** 2 + L[:, 2, 0] * L[:, 2, 2])


def stacked_solves(A, b):
    """Solves with a stack of factors and their transposes (solve_lower: NumPy's solve there)."""
    L = np.linalg.cholesky(A @ np.swapaxes(A, -1, -2) + np.eye(A.shape[-1]))
    v = np.linalg.solve(L, b[..., None])
    return np.sum(np.linalg.solve(np.swapaxes(L, -1, -2), v) ** 2) + np.sum(np.linalg.inv(L))


def _rng():
    return np.random.default_rng(18)


PROGRAMS = [
    corpus.Program("cholesky_inverse:gp_likelihood[0]", gp_likelihood,
                   (_rng().standard_normal((4, 4)), _rng().standard_normal(4)), 0, __name__),
    corpus.Program("cholesky_inverse:factor_entries[0]", factor_entries, (_rng().standard_normal((3, 3)),), 0,
                   __name__),
    corpus.Program("cholesky_inverse:stacked_solves[0]", stacked_solves,
                   (_rng().standard_normal((2, 3, 3)), _rng().standard_normal((2, 3))), 0, __name__),
    corpus.Program("cholesky_inverse:stacked_factors[0]", stacked_factors, (_rng().standard_normal((2, 3, 3)),), 0,
                   __name__),
]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", PROGRAMS[:2], ids=lambda p: p.name)
def test_float32_stays_float32(program):
    matrix.assert_float32_stays_float32(program)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lower_inverse_is_the_inverse(dtype):
    A = _rng().standard_normal((6, 6))
    L = np.linalg.cholesky(A @ A.T + np.eye(6)).astype(dtype)
    inv = lower_inverse(L)
    assert inv.dtype == dtype
    np.testing.assert_allclose(inv @ L, np.eye(6), atol=1e-4 if dtype == np.float32 else 1e-12)
    assert not np.any(np.triu(inv, 1))  # lower triangular, as the adjoint's products assume


def test_lower_inverse_of_a_stack_and_of_a_singular_factor():
    L = np.tril(_rng().standard_normal((2, 4, 4))) + 3.0 * np.eye(4)
    np.testing.assert_allclose(lower_inverse(L) @ L, np.broadcast_to(np.eye(4), L.shape), atol=1e-12)
    singular = np.tril(np.ones((3, 3)))
    singular[1, 1] = 0.0
    with pytest.raises(np.linalg.LinAlgError):
        lower_inverse(singular)


def test_phi_halves_the_diagonal_of_the_lower_triangle():
    m = np.arange(1.0, 10.0).reshape(3, 3)
    np.testing.assert_array_equal(phi(m), np.tril(m) - 0.5 * np.diag(np.diag(m)))
    assert phi(m.astype(np.float32)).dtype == np.float32
    np.testing.assert_array_equal(phi(np.stack([m, 2 * m]))[1], phi(2 * m))


def test_the_gradient_names_the_helper_not_an_inverse():
    A, y = PROGRAMS[0].args
    grad = srcdiff.grad(gp_likelihood)
    grad(A, y)
    code = "\n".join(line for line in grad.source.splitlines() if not line.lstrip().startswith("#"))
    assert "cholesky_adjoint(" in code and "np.linalg.inv" not in code
    # the forward's solves and their adjoints': triangular, with the factor
    assert "np.linalg.solve" not in code and code.count("solve_lower(L, ") == 4


def test_numba_keeps_numpy_s_solves():
    grad = srcdiff.grad(gp_likelihood, jit="numba")
    A, y = PROGRAMS[0].args
    assert_close(grad(A, y), central_difference(gp_likelihood, (A, y), 0), rtol=1e-5, atol=1e-6)
    assert "solve_lower" not in grad.source


def _gp_of_entries(a):
    return gp_likelihood(np.reshape(a, (4, 4)), np.array([0.3, -1.2, 0.8, 0.5]))


@pytest.mark.parametrize("transform", SECOND_ORDER)
def test_second_derivatives_against_second_differences(transform):
    got, want = second_order(transform, _gp_of_entries, _rng().standard_normal(16), _rng())
    assert_close(got, want, rtol=1e-4, atol=1e-5)


def weighted_factor(A, W):
    """Every entry of a large factor weighted (its adjoint goes by blocks of rows: n > 128)."""
    return np.sum(W * np.linalg.cholesky(A @ A.T / A.shape[0] + np.eye(A.shape[0])))


@pytest.mark.parametrize("n", [129, 150, 200])
def test_a_large_factor_s_adjoint_by_blocks_against_central_differences(n):
    rng = _rng()
    A, W = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    grad = srcdiff.grad(weighted_factor)(A, W)
    for _ in range(3):  # directional derivatives: a full difference table would take n² solves
        V = rng.standard_normal((n, n))
        want = (weighted_factor(A + 1e-6 * V, W) - weighted_factor(A - 1e-6 * V, W)) / 2e-6
        assert_close(np.sum(grad * V), want, rtol=1e-6, atol=1e-8)


def test_a_large_factor_s_adjoint_in_float32():
    rng = _rng()
    A, W = rng.standard_normal((150, 150)), rng.standard_normal((150, 150))
    grad = srcdiff.grad(weighted_factor)
    got, want = grad(A.astype(np.float32), W.astype(np.float32)), grad(A, W)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3 * float(np.max(np.abs(want))))
