"""`srcdiff.vmap` of `np.linalg.cholesky` and `np.linalg.slogdet` (and of their gradients, which keep
`cholesky_adjoint` and the pair slogdet returns): batched as NumPy's own calls on a stack of matrices,
the batch axis first, where they ran one example at a time before.

Each program is checked as ``vmap(f)`` against the loop of `f`, and ``vmap(grad(f))`` against the
loop of ``grad(f)``, itself checked against float64 central differences; in float32 the batched
gradient stays float32 and agrees with float64 to float32's precision; ``jit="numba"`` agrees or
refuses at a line."""

from __future__ import annotations

import numpy as np
import pytest

import srcdiff

from .vmap_checks import assert_batched_like_the_loop

B, N = 3, 4


def slogdet_batched_matrix(w, A):
    M = A @ A.T + np.diag(w ** 2 + 1.0)
    sign, logdet = np.linalg.slogdet(M)
    return logdet


def slogdet_of_an_outer_product(w, x):
    M = np.diag(w ** 2 + 1.0) + np.outer(x, x)
    sign, logdet = np.linalg.slogdet(M)
    return sign * logdet + np.sum(x * w)


def determinant_by_slogdet(w, A):
    sign, logdet = np.linalg.slogdet(A + np.diag(w ** 2 + 3.0))
    return sign * np.exp(logdet)


def cholesky_batched_matrix(w, A):
    L = np.linalg.cholesky(A @ A.T + np.diag(w ** 2 + 1.0))
    return np.sum(L ** 2)


def cholesky_shared_matrix(w, x):
    L = np.linalg.cholesky(np.outer(w, w) + np.diag(w ** 2 + 1.0))
    return np.sum((L @ x) ** 2)


def gaussian_nll(w, A, y):
    K = A @ A.T + np.diag(np.exp(w))
    L = np.linalg.cholesky(K)
    z = np.linalg.solve(L, y)
    return 0.5 * (z @ z) + np.sum(np.log(np.diag(L)))


def _args(name, r):
    w, A, X = r.normal(size=N), r.normal(size=(B, N, N)) / 2, r.normal(size=(B, N))
    if name in ("slogdet_of_an_outer_product", "cholesky_shared_matrix"):
        return (w, X), (None, 0)
    if name == "gaussian_nll":
        return (w, A, X), (None, 0, 0)
    return (w, A), (None, 0)


PROGRAMS = [slogdet_batched_matrix, slogdet_of_an_outer_product, determinant_by_slogdet, cholesky_batched_matrix,
            cholesky_shared_matrix, gaussian_nll]


#: (program, the argument differentiated): the shared parameter, and the batched matrix or vector
ROWS = [(f, 0) for f in PROGRAMS] + [pytest.param(f, k, marks=pytest.mark.slow) for f, k in
                                     ((slogdet_batched_matrix, 1), (cholesky_shared_matrix, 1), (gaussian_nll, 2))]


@pytest.mark.parametrize("f, wrt", ROWS, ids=lambda v: getattr(v, "__name__", str(v)))
def test_vmap_of_the_gradient_is_batched_and_the_loop_over_examples(f, wrt):
    args, axes = _args(f.__name__, np.random.default_rng(len(f.__name__) + wrt))
    assert_batched_like_the_loop(f, wrt, args, axes, B, "_batched(", rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("f", [f if f in (slogdet_batched_matrix, cholesky_shared_matrix) else
                               pytest.param(f, marks=pytest.mark.slow) for f in PROGRAMS],
                         ids=lambda f: f.__name__)
def test_float32_stays_float32(f):
    args, axes = _args(f.__name__, np.random.default_rng(7))
    small = [np.asarray(a, dtype=np.float32) for a in args]
    got = srcdiff.vmap(srcdiff.grad(f), in_axes=axes, per_example="refuse")(*small)
    assert got.dtype == np.float32
    wide = srcdiff.vmap(srcdiff.grad(f), in_axes=axes)(*[np.asarray(a, dtype=np.float64) for a in small])
    np.testing.assert_allclose(got, wide, rtol=2e-3, atol=2e-3)


@pytest.mark.slow
@pytest.mark.parametrize("f", [slogdet_batched_matrix, cholesky_shared_matrix], ids=lambda f: f.__name__)
def test_numba_agrees_or_refuses_at_a_line(f):
    args, axes = _args(f.__name__, np.random.default_rng(3))
    want = srcdiff.vmap(srcdiff.grad(f), in_axes=axes)(*args)
    try:
        got = srcdiff.vmap(srcdiff.grad(f), in_axes=axes, jit="numba")(*args)
    except srcdiff.SrcDiffError as exc:
        assert exc.location is not None and exc.location.filename.endswith(".py"), str(exc)
        return
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
