"""``np.fill_diagonal`` under jit="numba" (backend/numba/diagonals.py): square, wide
and tall matrices (``wrap=True`` too), in a loop of an n-body step, through every
transformation, numba agreeing with central differences.  The first program runs by
default; the others are slow (numba compiles for seconds)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from tests.transforms import corpus, matrix  # noqa: E402


def masked_gram(X):
    G = X @ X.T
    np.fill_diagonal(G, 0.0)
    return np.sum(np.tanh(G) ** 2)


def wide_diagonal_value(A, v=0.5):
    B = np.sin(A)
    np.fill_diagonal(B, v * np.sum(A))  # the value written carries a gradient too
    return np.sum(B * A)


def tall_wrapped(A):
    B = A * A
    np.fill_diagonal(B, 1.0, wrap=True)
    return np.sum(B * np.cos(A))


def pair_forces(pos, steps=3, dt=0.05):
    for _ in range(steps):
        d = pos[:, None, :] - pos[None, :, :]
        r2 = np.sum(d * d, axis=-1) + 0.1
        inv = r2 ** -1.5
        np.fill_diagonal(inv, 0.0)
        pos = pos + dt * np.sum(inv[:, :, None] * d, axis=1)
    return np.sum(pos ** 2)


PROGRAMS = [
    ("masked_gram", masked_gram, lambda r: (r.normal(size=(4, 3)),), 0),
    ("wide_diagonal_value", wide_diagonal_value, lambda r: (r.normal(size=(3, 5)),), 0),
    ("tall_wrapped", tall_wrapped, lambda r: (r.normal(size=(7, 3)),), 0),
    ("pair_forces", pair_forces, lambda r: (r.normal(size=(4, 2)),), 0),
]


#: numba cells refused at the user's line for a reason of their own (docs/jit.md)
REFUSED = {"wide_diagonal_value": "np.ravel of a number, in the adjoint of a written value that carries a gradient"}


def programs():
    return corpus.first_in_default_run(corpus.from_table(PROGRAMS, "write_positions", "test_numba_write_positions", 3))


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_every_transformation_numba_included(program):
    matrix.assert_numba_included(program, REFUSED)


def test_a_cube_is_refused_at_the_users_line():
    def cube_diagonal(x):
        C = np.ones((2, 2, 2)) * x
        np.fill_diagonal(C, 0.0)
        return np.sum(C)

    program = corpus.Program("write_positions:cube", cube_diagonal, (0.7,), 0, "test_numba_write_positions")
    cell = matrix.run(program, ("numba",)).cells["numba"]
    assert cell.outcome in (matrix.OK, matrix.REFUSED) and cell.located, cell.message
