"""Generated code calls ``spd_solve``/``spd_inverse``/``spd_slogdet`` for NumPy's solve, inv and
slogdet (rules/symmetric.py): through a Cholesky factor for a symmetric positive-definite
matrix of 32 rows or more, NumPy's own call otherwise.  Gradients of likelihoods written with
them agree with central differences in every transformation, on both paths."""

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff
from srcdiff.rules.symmetric import spd_factor, spd_inverse, spd_slogdet, spd_solve

from . import corpus, matrix

X = np.random.default_rng(26).uniform(-2.0, 2.0, (40, 2))
Y = np.sin(X.sum(axis=1))


def gp_slogdet(theta):
    """A GP's negative log likelihood with slogdet and solve (the kernel matrix 40 x 40)."""
    D = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = np.exp(2 * theta[0]) * np.exp(-0.5 * D / np.exp(2 * theta[1])) + np.exp(2 * theta[2]) * np.eye(len(Y))
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * Y @ np.linalg.solve(K, Y) + 0.5 * logdet


def gp_inverse(theta):
    """The same likelihood through np.linalg.inv, a trace of the inverse beside it."""
    D = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    K = np.exp(2 * theta[0]) * np.exp(-0.5 * D / np.exp(2 * theta[1])) + np.exp(2 * theta[2]) * np.eye(len(Y))
    Kinv = np.linalg.inv(K)
    return 0.5 * Y @ Kinv @ Y + 0.1 * np.trace(Kinv) + 0.5 * np.linalg.slogdet(K)[1]


def indefinite(theta):
    """A symmetric matrix that is not positive definite, and one not symmetric: NumPy's calls."""
    S = np.outer(X[:, 0], X[:, 1])
    A = theta[0] * (S + S.T) + theta[1] * np.eye(40) + 0.01 * np.arange(1600.0).reshape(40, 40) / 1600
    B = theta[0] * (S + S.T) + (1.0 + theta[1]) * np.eye(40)
    return np.linalg.solve(A, Y) @ Y + np.linalg.slogdet(B)[1] + np.sum(np.linalg.inv(B)[0])


THETA = np.array([0.1, -0.2, -1.0])
PROGRAMS = [corpus.Program(f"spd_solves:{f.__name__}[0]", f, (THETA,), 0, __name__)
            for f in (gp_slogdet, gp_inverse)]
PROGRAMS.append(corpus.Program("spd_solves:indefinite[0]", indefinite, (np.array([0.3, 0.05]),), 0, __name__))


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_every_transformation(program):
    matrix.assert_every_transformation(program)


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.name)
def test_gradient_against_central_differences(program):
    got = srcdiff.grad(program.func)(*program.args)
    assert_close(got, central_difference(program.func, program.args, 0), rtol=1e-6, atol=1e-7)


def test_the_gradient_calls_the_helpers():
    grad = srcdiff.grad(gp_slogdet)
    grad(THETA)
    code = "\n".join(line for line in grad.source.splitlines() if not line.lstrip().startswith("#"))
    assert "spd_slogdet(" in code and "spd_solve(" in code and "spd_inverse(" in code
    assert "np.linalg" not in code
    # K is factored once: the slogdet, the solve and their adjoints' solve and inverse share it
    assert code.count("spd_factor(") == 1 and code.count("factor=K_factor") == 4


def test_float32_stays_float32():
    matrix.assert_float32_stays_float32(corpus.Program("spd:gp", lambda K: gp_of(K), (kernel(),), 0, __name__))


def kernel():
    D = np.sum((X[:, None, :] - X[None, :, :]) ** 2, axis=-1)
    return np.exp(-0.5 * D) + 0.1 * np.eye(40)


def gp_of(K):
    return 0.5 * Y @ np.linalg.solve(K, Y) + 0.5 * np.linalg.slogdet(K)[1]


def test_the_helpers_are_numpy_s_calls():
    K, rng = kernel(), np.random.default_rng(3)
    b, B = rng.standard_normal(40), rng.standard_normal((40, 3))
    assert spd_factor(K) is not None and spd_factor(K + np.triu(K, 1) * 1e-9) is None
    for a in (K, K + 0.01 * np.triu(np.ones((40, 40)), 1), K - 5.0 * np.eye(40), K[:8, :8]):  # SPD, not symmetric,
        n = len(a)  # indefinite, small
        assert_close(spd_solve(a, b[:n]), np.linalg.solve(a, b[:n]), rtol=1e-9, atol=1e-10)
        assert_close(spd_solve(a, B[:n]), np.linalg.solve(a, B[:n]), rtol=1e-9, atol=1e-10)
        assert_close(spd_inverse(a), np.linalg.inv(a), rtol=1e-9, atol=1e-10)
        sign, logdet = spd_slogdet(a)
        assert sign == np.linalg.slogdet(a).sign and np.isclose(logdet, np.linalg.slogdet(a).logabsdet, rtol=1e-12)
    assert spd_slogdet(K.astype(np.float32)).logabsdet.dtype == np.float32
    assert spd_inverse(K.astype(np.float32)).dtype == np.float32
    factor = spd_factor(K)  # given once for several calls: the same values as found in each
    assert_close(spd_inverse(K, factor=factor), np.linalg.inv(K), rtol=1e-9, atol=1e-10)
    assert_close(spd_solve(K.T, B, factor=factor), np.linalg.solve(K, B), rtol=1e-9, atol=1e-10)
    assert spd_slogdet(K, factor=factor) == spd_slogdet(K)
    assert_close(spd_solve(K, b, factor=None), np.linalg.solve(K, b), rtol=1e-12, atol=1e-12)
    singular = np.zeros((40, 40))
    with pytest.raises(np.linalg.LinAlgError):  # NumPy's own error
        spd_solve(singular, b)
