"""Batching of the functions that move, join or contract axes (ad/batching_moves.py): vmap
against a loop over the examples, and Hessians (all rows in one batched call) against second
differences."""

import re

import numpy as np
import pytest
from numeric import hessian_difference

import srcdiff


def rolled(x, c):
    return np.roll(x, 1) * c + np.roll(x, -2, axis=0)


def flipped(M, c):
    return np.flip(M) * c + np.flip(M, axis=1) + np.flip(M, 0)


def swapped(T, c):
    return np.swapaxes(T, 0, 2) * c + np.moveaxis(T, [0, 2], [2, 0]) + np.swapaxes(T, -1, 0)


def triangles(M, c):
    return np.tril(M) * c + np.triu(M, 1) ** 2


def joined(x, c):
    s = np.stack([x[:3], c, x[1:4]], axis=1).sum(axis=1)
    return np.concatenate([x, c[:2] * x[:2], np.ones(3)])[:6] + np.concatenate((s, s), axis=-1)


def contracted(M, c):
    implicit = np.einsum("ij,ij", M, M) + np.einsum("Ba,aC", M, c) + np.einsum("ba,aC", M, c)  # NumPy's output order
    return np.einsum("ij,jk->ik", M, c) + implicit + np.einsum("...j,j->...", M, c[0])[:, None]


def crossed(P, c):
    return np.cross(P, c) + np.cross(P, P[::-1])


def differenced(M, c):
    return np.diff(M) * c[1:] + np.diff(M, n=2, axis=0).sum() + np.diff(M, axis=-1)


def written(x, c):
    y = np.zeros((3,) + x.shape)
    y[1] = x * c
    y[0, 1:] = x[:-1]
    z = x.copy()
    z[0] = z[-1] * 2.0
    z[1:3] = c[:2]
    y[2, ...] = z
    return y


def copied(x, c):
    y = x
    z = y * c
    return z + y


rng = np.random.default_rng(11)
VMAP_CASES = [
    (rolled, rng.normal(size=(4, 6)), rng.normal(size=6)),
    (flipped, rng.normal(size=(4, 3, 2)), rng.normal(size=(3, 2))),
    (swapped, rng.normal(size=(4, 2, 3, 2)), rng.normal(size=(2, 3, 2))),
    (triangles, rng.normal(size=(4, 3, 3)), rng.normal(size=(3, 3))),
    (joined, rng.normal(size=(4, 5)), rng.normal(size=3)),
    (contracted, rng.normal(size=(4, 3, 3)), rng.normal(size=(3, 3))),
    (crossed, rng.normal(size=(4, 5, 3)), rng.normal(size=3)),
    (differenced, rng.normal(size=(4, 3, 4)), rng.normal(size=4)),
    (written, rng.normal(size=(4, 5)), rng.normal(size=5)),
    (copied, rng.normal(size=(4, 3)), rng.normal(size=3)),
]


@pytest.mark.parametrize("f, xs, c", VMAP_CASES, ids=[case[0].__name__ for case in VMAP_CASES])
def test_vmap_is_a_loop_over_the_examples(f, xs, c):
    got = srcdiff.vmap(f, in_axes=(0, None))(xs, c)
    np.testing.assert_allclose(got, np.stack([f(x, c) for x in xs]), rtol=1e-13, atol=1e-13)
    both = srcdiff.vmap(f, in_axes=(0, 0))(xs, np.stack([c] * len(xs)))  # the other operand batched too
    np.testing.assert_allclose(both, np.stack([f(x, c) for x in xs]), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("f, xs, c", VMAP_CASES, ids=[case[0].__name__ for case in VMAP_CASES])
def test_batched_hessian_rows(f, xs, c):
    x = xs[0]

    def loss(v):
        return np.sum(np.sin(f(v, c)) * np.arange(1.0, 1.0 + np.size(f(v, c))).reshape(np.shape(f(v, c))))

    H = srcdiff.hessian(loss)
    got = H(x)
    flat = lambda v: loss(v.reshape(x.shape))  # noqa: E731
    expected = hessian_difference(flat, (x.ravel(),)).reshape(x.shape + x.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert "_batched(" in H.source, H.source  # all rows in one batched call


@pytest.mark.parametrize("f, message", [(lambda M: np.roll(M, 1), "without an axis"),
                                        (lambda v: np.tril(v), "of a vector"),
                                        (lambda M: np.einsum("...i,...i", M, M), "implicit output")])
def test_what_the_batch_axis_would_change_runs_one_example_at_a_time(f, message):
    xs = rng.normal(size=(3, 2, 2)) if message != "of a vector" else rng.normal(size=(3, 4))
    mapped = srcdiff.vmap(f, per_example="allow")
    np.testing.assert_allclose(mapped(xs), np.stack([f(x) for x in xs]), rtol=1e-12, atol=1e-14)
    assert message in mapped.per_example


def picked_write(x, i):
    y = x.copy()
    y[i] = 0.0
    return y


def test_a_write_at_an_index_of_each_row_runs_one_example_at_a_time():
    xs = rng.normal(size=(3, 4))
    mapped = srcdiff.vmap(picked_write, per_example="allow")
    np.testing.assert_allclose(mapped(xs, np.array([0, 1, 2])), [picked_write(x, i) for x, i in zip(xs, [0, 1, 2])])
    assert "index computed from a batched value" in mapped.per_example
    np.testing.assert_allclose(srcdiff.vmap(picked_write, in_axes=(0, None))(xs, 2), [picked_write(x, 2) for x in xs])


@pytest.mark.parametrize("f, xs, c", VMAP_CASES[:5], ids=[case[0].__name__ for case in VMAP_CASES[:5]])
def test_batched_hessian_of_a_tree_and_of_float32(f, xs, c):
    """The same rows through a dict argument, and in float32 (its own dtype kept)."""
    x = xs[0]

    def loss(p):
        return np.sum(np.sin(f(p["x"], c)) ** 2)

    def plain(v):
        return np.sum(np.sin(f(v, c)) ** 2)

    H64 = srcdiff.hessian(plain)(x)
    flat = lambda v: plain(v.reshape(x.shape))  # noqa: E731
    np.testing.assert_allclose(H64, hessian_difference(flat, (x.ravel(),)).reshape(x.shape + x.shape),
                               rtol=1e-5, atol=1e-5)
    tree = srcdiff.hessian(loss)({"x": x})
    np.testing.assert_allclose(tree["x"]["x"], H64, rtol=1e-12, atol=1e-12)
    single = srcdiff.hessian(loss)({"x": x.astype(np.float32)})["x"]["x"]
    assert single.dtype == np.float32
    np.testing.assert_allclose(single, H64, rtol=2e-3, atol=2e-3)


def stencil(x, c):
    return x[1:-1] * c[:-2] - x[:-2] ** 2 + x[2:] * x[::2].sum() + x[-1] * x[3] + x[1::3].sum() ** 2


def grid_stencil(M, c):
    return (M[1:, :-1] * M[:-1, 1:]).sum() * c[0] + M[2, 1:] @ c[1:] + M[::-1, 0] @ M[:, -1]


@pytest.mark.parametrize("f, x, c", [(stencil, rng.normal(size=7), rng.normal(size=7)),
                                     (grid_stencil, rng.normal(size=(4, 3)), rng.normal(size=3))],
                         ids=["stencil", "grid_stencil"])
def test_slices_of_the_gradient_are_written_out_in_batched_code(f, x, c):
    """The adjoint of a constant slice (``index_read(g, (slice(1, None, None),))``) reads
    ``g[:, 1:]`` in batched code, with no helper call per read; the rows are second differences."""
    def loss(v):
        return np.sum(np.cos(f(v, c)))

    H = srcdiff.hessian(loss)
    flat = lambda v: loss(v.reshape(x.shape))  # noqa: E731
    np.testing.assert_allclose(H(x), hessian_difference(flat, (x.ravel(),)).reshape(x.shape + x.shape),
                               rtol=1e-5, atol=1e-5)
    assert "_batched(" in H.source and "index_read_rows" not in H.source, H.source
    assert re.search(r"\[:, 1:", H.source), H.source
    rows = srcdiff.vmap(srcdiff.grad(loss))(np.stack([x, 2.0 * x]))
    np.testing.assert_allclose(rows, [srcdiff.grad(loss)(x), srcdiff.grad(loss)(2.0 * x)], rtol=1e-13, atol=1e-13)
