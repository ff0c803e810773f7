"""The seeds and the code of batched rows (api/batched_rows.py, driver/batched.py): a chunk's
identity rows are a read-only view of one band, never a block of the identity made per
chunk; the batched code keeps no statement whose value nothing reads.  References: NumPy's
``np.eye`` and SciPy's closed form of Rosenbrock's Hessian."""

import ast

import numpy as np
import pytest
import scipy.optimize

import srcdiff
from srcdiff.api import batched_rows
from srcdiff.api.batched_rows import identity_chunk


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def half_square(w):
    return 0.5 * np.sum(w * w)


@pytest.mark.parametrize("rows, chunk, size, start, shape", [
    (16, 16, 100, 0, None), (16, 16, 100, 48, (100,)), (4, 16, 100, 96, None), (8, 8, 20, 8, (4, 5)),
    (3, 5, 12, 9, (2, 3, 2)), (1, 1, 2, 1, None)])
def test_a_chunks_seeds_are_rows_of_the_identity(rows, chunk, size, start, shape):
    seeds = identity_chunk(rows, chunk, size, start, np.float32, shape)
    expected = np.eye(rows, size, k=start, dtype=np.float32)
    expected = expected if shape is None else expected.reshape((rows,) + shape)
    assert seeds.dtype == np.float32 and seeds.shape == expected.shape
    np.testing.assert_array_equal(seeds, expected)
    assert not seeds.flags.writeable  # (batched code only reads its seeds)
    other = identity_chunk(chunk, chunk, size, 0, np.float32)
    assert np.shares_memory(seeds, other)  # one band for every chunk, not a block made per chunk


def test_rows_that_are_their_seeds_in_several_chunks_are_the_callers_own(monkeypatch):
    monkeypatch.setattr(batched_rows, "CHUNK_ELEMENTS", 1)  # 8 rows a chunk: 3 chunks of 20 rows
    H = srcdiff.hessian(half_square)
    first = H(np.linspace(-1.0, 1.0, 20).reshape(4, 5))
    np.testing.assert_array_equal(first, np.eye(20).reshape(4, 5, 4, 5))
    assert first.flags.writeable
    first[0, 0, 0, 0] = 7.0
    np.testing.assert_array_equal(H(np.ones((4, 5))), np.eye(20).reshape(4, 5, 4, 5))


def test_batched_code_keeps_only_statements_something_reads():
    x = np.linspace(-1.5, 2.0, 30)
    H = srcdiff.hessian(rosenbrock)
    np.testing.assert_allclose(H(x), scipy.optimize.rosen_hess(x), rtol=1e-12, atol=1e-9)
    func = ast.parse(H.source).body[0]
    assert "_batched" in func.name, H.source
    body = [s for s in func.body if not isinstance(s, ast.Expr)]
    for i, stmt in enumerate(body):
        if isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name):
            name = stmt.targets[0].id
            later = [n.id for s in body[i + 1:] for n in ast.walk(s) if isinstance(n, ast.Name)]
            assert name in later, f"{name} is assigned and never read:\n{H.source}"
            assert not (isinstance(stmt.value, ast.Name)), f"{name} only renames another:\n{H.source}"
