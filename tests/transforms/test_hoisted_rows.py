"""Batched rows in several chunks with the work no seed changes done once a call
(driver/hoisted_rows.py): Hessians and Jacobians against float64 central differences, the
programs through every transformation, the split's refusals to move what the rows write
into, and the whole code run again when the split code raises.

`CHUNK_ELEMENTS` is made small so that these small programs take several chunks; references
are second differences of `f` (numeric.py), central differences of `f`, or SciPy's closed
form of Rosenbrock's Hessian."""

import numpy as np
import pytest
import scipy.optimize
from numeric import assert_close, central_difference, hessian_difference

import srcdiff
from srcdiff.api import batched_rows
from srcdiff.backend.numba.hoisting import split_sweep
from srcdiff.driver.hoisted_rows import HoistedRows

from . import corpus, matrix


def rosenbrock(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def mlp_w1(W1, b1, W2, X, y):
    h = np.tanh(X @ W1 + b1)
    r = h @ W2 - y
    return np.mean(r * r)


def softmax_loss(W, X, Y):
    z = X @ W
    m = np.max(z, axis=1, keepdims=True)
    return np.sum(m[:, 0] + np.log(np.sum(np.exp(z - m), axis=1)) - np.sum(z * Y, axis=1))


def scattered(x, idx):
    y = np.zeros(x.shape)
    y[idx] += np.sin(x[idx]) * x[::-1][idx]
    return np.sum(y ** 2) + np.sum(np.cos(x) * x)


def piecewise(x, w):
    r = w * x
    return np.sum(np.where(r > 0.0, r ** 3, np.exp(r))) + np.prod(1.0 + 0.1 * x[:3])


PROGRAMS = [
    ("rosenbrock", rosenbrock, lambda r: (r.normal(size=9),), 0),
    ("mlp_w1", mlp_w1, lambda r: (r.normal(size=(3, 4)) / 2, r.normal(size=4), r.normal(size=4) / 3,
                                  r.normal(size=(6, 3)), r.normal(size=6)), 0),
    ("softmax_loss", softmax_loss, lambda r: (r.normal(size=(3, 4)) / 2, r.normal(size=(5, 3)),
                                              np.eye(4)[[0, 2, 1, 3, 2]]), 0),
    ("scattered", scattered, lambda r: (r.normal(size=7), np.array([0, 3, 5])), 0),
    ("piecewise", piecewise, lambda r: (r.normal(size=8), r.normal(size=8)), 0),
]


def programs():
    return corpus.from_table(PROGRAMS, "hoisted", "test_hoisted_rows", 5)


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 8 rows (the least `compute` takes): every program here takes several."""
    monkeypatch.setattr(batched_rows, "CHUNK_ELEMENTS", 1)


def split_of(hessian):
    """The split of the batched code a Hessian ran last (None: nothing moved)."""
    return HoistedRows(hessian.batched.last).split()


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_hessian_in_chunks_against_second_differences(program, small_chunks):
    f, args = program.func, program.args
    H = srcdiff.hessian(f)
    for _ in range(2):  # the second call replays the first's plan
        assert_close(H(*args), hessian_difference(f, args), rtol=1e-5, atol=1e-5)
    assert split_of(H) is not None  # (each of these has work that no seed changes)


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_every_transformation(program, small_chunks):
    matrix.assert_every_transformation(program)
    matrix.assert_ok(program, ("hessian",))


@pytest.mark.parametrize("program", programs(), ids=lambda p: p.name)
def test_float32_stays_float32(program, small_chunks):
    matrix.assert_float32_stays_float32(program)


def test_hessian_in_chunks_keeps_float32(small_chunks):
    x = np.random.default_rng(1).normal(size=12).astype(np.float32)
    got = srcdiff.hessian(rosenbrock)(x)
    assert got.dtype == np.float32
    assert_close(got, scipy.optimize.rosen_hess(x.astype(float)), rtol=1e-4, atol=1e-2)


def layer(x, W, b):
    return np.tanh(W @ x + b) * np.sum(x ** 2)


def test_jacobian_in_chunks_against_central_differences(small_chunks):
    rng = np.random.default_rng(2)
    x, W, b = rng.normal(size=5), rng.normal(size=(20, 5)) / 3, rng.normal(size=20)
    J = srcdiff.jacobian(layer)
    expected = np.stack([central_difference(lambda x, W, b, i=i: layer(x, W, b)[i], (x, W, b), 0)
                         for i in range(20)])
    for _ in range(2):
        assert_close(J(x, W, b), expected, rtol=1e-6, atol=1e-7)


def test_split_code_that_raises_runs_the_whole_code(small_chunks, monkeypatch):
    """An exception in either half: the rows come from the whole code (which raises, located,
    where the function does; here it does not)."""
    x = np.random.default_rng(3).normal(size=11)

    def broken(self):
        def fails(*args):
            raise ValueError("split code failed")
        return fails, fails
    monkeypatch.setattr(HoistedRows, "split", broken)
    assert_close(srcdiff.hessian(rosenbrock)(x), scipy.optimize.rosen_hess(x), rtol=1e-10, atol=1e-8)


def test_rows_written_into_stay_with_the_rows():
    """A value the per-chunk half writes into (``scatter_add_rows`` adds into its first
    operand) is made per chunk: computed once, the second chunk would add into the first's."""
    source = ("def f_batched(x, cotangent):\n"
              "    z = np.zeros(x.shape)\n"
              "    w = np.sin(x)\n"
              "    v = cotangent * w\n"
              "    a = scatter_add_rows(z, (slice(None),), v, True)\n"
              "    return a\n")
    found = split_sweep(source, "f_batched", 1)
    invariant, directed = found.texts
    assert "np.sin(x)" in invariant and "np.zeros" not in invariant
    assert "z = np.zeros(x.shape)" in directed


def test_whole_code_runs_in_one_chunk():
    """One chunk (the default chunk size, a small Hessian): the code runs whole, unsplit."""
    x = np.random.default_rng(4).normal(size=6)
    H = srcdiff.hessian(rosenbrock)
    calls = []
    original = HoistedRows.split
    try:
        HoistedRows.split = lambda self: calls.append(self) or original(self)
        assert_close(H(x), scipy.optimize.rosen_hess(x), rtol=1e-10, atol=1e-8)
    finally:
        HoistedRows.split = original
    assert not calls


def tree_loss(p, X):
    h = np.tanh(X @ p["W"])
    return np.sum(h ** 2) + np.sum(p["W"] ** 4)


def test_the_split_is_made_once_however_many_calls_take_the_full_path(small_chunks, monkeypatch):
    """A call with a tree argument takes the full path every time (no plan): the split of its
    batched code is made on the first, and found again by the others."""
    from srcdiff.driver import hoisted_rows

    made = []
    monkeypatch.setattr(hoisted_rows, "split_sweep", lambda *a: made.append(a) or split_sweep(*a))
    rng = np.random.default_rng(5)
    p, X = {"W": rng.normal(size=(3, 4)) / 3}, rng.normal(size=(6, 3))
    H = srcdiff.hessian(tree_loss)
    flat = hessian_difference(lambda W, X: tree_loss({"W": W}, X), (p["W"], X))
    for _ in range(3):
        assert_close(H(p, X)["W"]["W"], flat, rtol=1e-5, atol=1e-5)
    assert len(made) == 1


def test_jacobian_of_two_leaves_in_chunks_against_central_differences(small_chunks):
    """Several differentiated parameters: the split code returns a part per parameter, each
    written into its own rows."""
    rng = np.random.default_rng(6)
    x, W, b = rng.normal(size=5), rng.normal(size=(20, 5)) / 3, rng.normal(size=20)
    Jx, Jb = srcdiff.jacobian(layer, wrt=(0, 2))(x, W, b)
    for index, got in ((0, Jx), (2, Jb)):
        expected = np.stack([central_difference(lambda x, W, b, i=i: layer(x, W, b)[i], (x, W, b), index)
                             for i in range(20)])
        assert_close(got, expected, rtol=1e-6, atol=1e-7)
