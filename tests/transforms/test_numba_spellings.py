"""jit="numba" on NumPy calls numba's NumPy lacks, which the backend spells its own way
(backend/numba/spelling.py, missing.py, reductions.py, einsum.py): each program agrees with
float64 central differences and with the plain NumPy gradient.

numba compiles for seconds per program: the table is marked slow but for one program; the
spellings' building blocks are checked against NumPy itself in the default run.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

numba = pytest.importorskip("numba")


def flipped_cumsum(x):
    return np.sum(np.cumsum(x, axis=1) * np.flip(x, axis=0))


def stacked_matmul(a, b):
    return np.sum(np.matmul(a, b) ** 2)


def spread(x):
    return np.sum(np.var(x, axis=0)) + np.sum(np.std(x, axis=1, ddof=1)) + np.std(x)


def normalised(x):
    return np.sum(x / np.linalg.norm(x, axis=1, keepdims=True) * np.arange(x.shape[1]))


def product_along(x):
    return np.sum(np.prod(x, axis=1) ** 2) + np.prod(x)


def solved(a, b):
    return np.sum(np.linalg.solve(a, b) ** 2)


def bilinear(x, w):
    return np.sum(np.einsum("ij,jk,ik->i", x, w, x) ** 2)


def traced(x):
    return np.einsum("ij,ij", x, x @ x.T) + np.sum(np.einsum("ij,kj->ik", x, x))


def picked(x):
    return np.sum(x[[0, 0, 2]] * np.array([1.0, 2.0, 3.0]))


def stacked_lists(x):
    return np.sum(np.vstack([x, 2.0 * x, x * x]) ** 2) + np.sum(np.hstack([x, x * x]) * 0.5)


def as_floats(x):
    y = np.array(x, dtype=float, copy=True)
    return np.sum(np.sin(y) * np.asarray(x, dtype=np.float64))


def series(x):
    return sum(x ** k / math.factorial(k) for k in range(6))


def inner_number(x):
    return np.sum(np.inner(x, 2.5) ** 2) + np.inner(x, x)


def _rng(seed):
    return np.random.default_rng(seed)


PROGRAMS = [
    ("flip and cumsum along an axis", flipped_cumsum, (_rng(1).normal(size=(3, 4)),), 0, True),
    ("matmul of a stack", stacked_matmul, (_rng(2).normal(size=(2, 3, 4)), _rng(3).normal(size=(4, 2))), (0, 1),
     False),
    ("matmul of two stacks, one broadcast", stacked_matmul,
     (_rng(4).normal(size=(1, 3, 4)), _rng(5).normal(size=(2, 4, 2))), (0, 1), False),
    ("var, std, ddof", spread, (_rng(6).normal(size=(4, 3)),), 0, False),
    ("norm along an axis", normalised, (_rng(7).normal(size=(3, 4)) + 2.0,), 0, False),
    ("prod along an axis", product_along, (_rng(8).normal(size=(3, 4)),), 0, False),
    ("solve", solved, (np.eye(3) * 3.0 + _rng(9).normal(size=(3, 3)), _rng(10).normal(size=(3, 2))), (0, 1),
     False),
    ("einsum of three", bilinear, (_rng(11).normal(size=(3, 4)), _rng(12).normal(size=(4, 4))), (0, 1), False),
    ("einsum trace and implicit", traced, (_rng(13).normal(size=(3, 3)),), 0, False),
    ("index by a list", picked, (_rng(14).normal(size=4),), 0, False),
    ("vstack and hstack of a list", stacked_lists, (_rng(15).normal(size=3),), 0, False),
    ("np.array dtype=float copy=True", as_floats, (_rng(16).normal(size=3),), 0, False),
    ("math.factorial", series, (0.7,), 0, False),
    ("np.inner with a number", inner_number, (_rng(17).normal(size=3),), 0, False),
]


def _tuple(result, wrt):
    return result if isinstance(wrt, tuple) else (result,)


@pytest.mark.parametrize(("func", "args", "wrt"), [
    pytest.param(f, a, w, id=name, marks=() if default else pytest.mark.slow) for name, f, a, w, default in PROGRAMS])
def test_spelled_for_numba_agrees_with_central_differences(func, args, wrt):
    got = _tuple(srcdiff.grad(func, wrt=wrt, jit="numba")(*args), wrt)
    plain = _tuple(srcdiff.grad(func, wrt=wrt)(*args), wrt)
    for index, g, p in zip(wrt if isinstance(wrt, tuple) else (wrt,), got, plain):
        assert np.shape(g) == np.shape(args[index])
        np.testing.assert_allclose(g, central_difference(func, args, index), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g, p, rtol=1e-10, atol=1e-12)


# ---- the building blocks against NumPy itself ----------------------------------------------

EINSUMS = ["ij,kj->ik", "ii->", "ii", "ij->ji", "ij,i", "i,ij,kj->k", "ii->i", "ij,ij->", "ij,->ij", "ij,jk"]


def test_einsum_loops_agree_with_numpy():
    from srcdiff.backend.numba.einsum import einsum_1, einsum_2, einsum_3

    r = _rng(20)
    a, b, c, s = r.normal(size=(3, 4)), r.normal(size=(5, 4)), r.normal(size=3), r.normal(size=(4, 4))

    @numba.njit
    def run(a, b, c, s):
        return (einsum_2("ij,kj->ik", a, b), einsum_1("ii->", s), einsum_1("ii", s), einsum_1("ij->ji", a),
                einsum_2("ij,i", a, c), einsum_3("i,ij,kj->k", c, a, b), einsum_1("ii->i", s),
                einsum_2("ij,ij->", a, a), einsum_2("ij,->ij", a, 2.0), einsum_2("ij,jk", a, s))
    operands = [(a, b), (s,), (s,), (a,), (a, c), (c, a, b), (s,), (a, a), (a, 2.0), (a, s)]
    for got, subscripts, ops in zip(run(a, b, c, s), EINSUMS, operands):
        want = np.einsum(subscripts, *ops)
        assert np.shape(got) == np.shape(want), subscripts
        np.testing.assert_allclose(got, want, rtol=1e-12, err_msg=subscripts)


def test_einsum_of_operands_whose_lengths_disagree_raises():
    from srcdiff.backend.numba.einsum import einsum_2

    @numba.njit
    def run(a, b):
        return einsum_2("ij,kj->ik", a, b)
    with pytest.raises(ValueError, match="two lengths"):
        run(np.ones((2, 3)), np.ones((2, 4)))  # numba does not check bounds: the loops would read past b


def test_reductions_along_axes_agree_with_numpy():
    from srcdiff.backend.numba.missing import cumsum_axis, expand_axes, flip_axis
    from srcdiff.backend.numba.reductions import reduce_norm, reduce_std_ddof, reduce_var

    x = _rng(21).normal(size=(2, 3, 4))

    @numba.njit
    def run(x):
        return (cumsum_axis(x, 1), flip_axis(x, 2), expand_axes(x[0], (0, 2)), reduce_var(x, (0, 2), True),
                reduce_norm(x, 1, False), reduce_std_ddof(x, 2, False, 1))
    want = (np.cumsum(x, 1), np.flip(x, 2), np.expand_dims(x[0], (0, 2)), np.var(x, axis=(0, 2), keepdims=True),
            np.linalg.norm(x, axis=1), np.std(x, axis=2, ddof=1))
    for got, expected in zip(run(x), want):
        assert np.shape(got) == np.shape(expected)
        np.testing.assert_allclose(got, expected, rtol=1e-12)
