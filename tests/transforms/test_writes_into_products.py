"""Writing by index into the value of a product (``G = X @ X.T; np.fill_diagonal(G, 0)``,
``np.dot``, ``np.inner``, ``np.tensordot``): these values are new arrays whenever their
shape says they are arrays (of vectors, ``x @ y`` is a number), so the write is a functional
update like any other.  Every transformation agrees with central differences; a write while
another name holds the product is refused at its line."""

import numpy as np
import pytest

import srcdiff

from . import corpus, matrix


def masked_gram(X):
    G = X @ X.T
    np.fill_diagonal(G, 0.0)
    return np.sum(np.tanh(G) ** 2)


def dot_then_row(X, w):
    H = np.dot(X, np.outer(w, w))
    H[0] = np.sin(w)
    return np.sum(H ** 2)


def inner_masked(A, B):
    C = np.inner(A, B.T)
    C[C < 0.0] = 0.0
    return np.sum(C * A[:, :1])


def tensordot_column(A, B):
    T = np.tensordot(A, B, axes=1)
    T[:, 1] *= 3.0
    return np.sum(np.exp(-T ** 2))


def matmul_in_loop(W, x, steps=3):
    for _ in range(steps):
        M = W @ W.T
        M[0, 0] = 1.0
        x = np.tanh(M @ x)
    return np.sum(x ** 2)


PROGRAMS = [
    ("masked_gram", masked_gram, lambda r: (r.normal(size=(4, 3)),), 0),
    ("dot_then_row", dot_then_row, lambda r: (r.normal(size=(3, 3)), r.normal(size=3)), 1),
    ("inner_masked", inner_masked, lambda r: (r.normal(size=(3, 4)), r.normal(size=(4, 2))), 0),
    ("tensordot_column", tensordot_column, lambda r: (r.normal(size=(3, 4)), r.normal(size=(4, 2))), 1),
    ("matmul_in_loop", matmul_in_loop, lambda r: (0.5 * r.normal(size=(3, 3)), r.normal(size=3)), 0),
]


def programs():
    return corpus.from_table(PROGRAMS, "products", "test_writes_into_products", 7)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_every_transformation(program):
    row = matrix.run(program, matrix.EVERY)
    assert not row.excluded
    assert not matrix.not_ok(row)


@pytest.mark.parametrize("program", programs()[:1], ids=lambda p: p.name)
def test_numba_agrees_or_refuses_at_the_line(program):
    matrix.assert_numba_agrees_or_refuses(program)


def held_twice(X):
    G = X @ X.T
    H = G
    G[0, 0] = 0.0
    return np.sum(H * G)


def test_a_product_another_name_holds_is_not_written():
    with pytest.raises(srcdiff.SrcDiffError, match="H shares its memory with G") as info:
        srcdiff.grad(held_twice)(np.ones((2, 2)))
    assert info.value.location.line == held_twice.__code__.co_firstlineno + 3
