"""jit="numba" on classes it refused before (issue 23, sixth round): type tests that the
compiled signature decides (``isinstance``, ``hasattr``, ``np.issubdtype``, ``dtype.char``,
``np.result_type``, ``ndim`` checks), folded before numba types the code
(backend/numba/folding.py) -- in the user's code and in library code srcdiff reads through its
source (``np.polyval``'s polynomial module, ``scipy.optimize.rosen``,
``scipy.spatial.distance``).  Each gradient agrees with float64 central differences.
"""

from __future__ import annotations

import ast
import importlib

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

numba = pytest.importorskip("numba")


def _first_runs(cases):
    """numba compiles for seconds per program: the first of each class runs by default, the
    others with ``-m slow``."""
    return [pytest.param(*case, id=case[0].__name__, marks=() if i == 0 else pytest.mark.slow)
            for i, case in enumerate(cases)]


def _agrees(func, args, wrt=0, rtol=1e-6, atol=1e-8):
    got = srcdiff.grad(func, wrt=wrt, jit="numba")(*args)
    wide = tuple(np.asarray(a, np.float64) if getattr(a, "dtype", None) == np.float32 else a for a in args)
    wants = [central_difference(func, wide, i) for i in (wrt if isinstance(wrt, tuple) else (wrt,))]
    for g, want in zip(got if isinstance(wrt, tuple) else (got,), wants):
        np.testing.assert_allclose(g, want, rtol=rtol, atol=atol)
    return got


# ---- type tests the signature decides -----------------------------------------------------

def list_or_array(x):
    if isinstance(x, (list, tuple)):
        x = np.array(x)
    return np.sum(np.sin(x) ** 2)


def inexact_or_converted(x):
    dtype = None if hasattr(x, "dtype") and np.issubdtype(x.dtype, np.inexact) else np.float64
    y = np.asarray(x, dtype=dtype)
    return np.sum(y * y * y)


def promoted_to_floating(x, w):
    x = np.asarray(x, dtype=np.result_type(x, 1.0))
    return np.sum(np.exp(x) * w)


def integer_coefficients_widened(c, x):
    c = np.array(c, ndmin=1, copy=True)
    if c.dtype.char in "?bBhHiIlLqQpP":
        c = c.astype(np.double)
    return np.sum(c * np.cos(x))


def checked_ndim(x):
    x = np.asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be 1-D")
    if not isinstance(x, np.ndarray):
        x = np.array([x])
    return np.sum(x[1:] * x[:-1]) + np.sum(x)


def number_or_array(x, a):
    if isinstance(x, float) or np.ndim(x) == 0:
        return a * x ** 2
    return np.sum(a * x ** 2)


def scalar_dtype_branch(a, x):
    if hasattr(a, "dtype") and a.dtype.kind == "f":
        scale = 2.0
    else:
        scale = 0.5
    return np.sum(np.tanh(x * scale) * a)


TYPE_TESTS = [
    (list_or_array, (np.linspace(-1.0, 1.0, 5),), 0),
    (inexact_or_converted, (np.linspace(0.2, 1.4, 6),), 0),
    (promoted_to_floating, (np.linspace(-1.0, 0.5, 4), np.arange(1.0, 5.0)), 0),
    (integer_coefficients_widened, (np.array([1.5, -0.5, 2.0]), np.array([0.1, 0.7, -0.3])), (0, 1)),
    (checked_ndim, (np.linspace(-1.0, 2.0, 7),), 0),
    (number_or_array, (0.7, 1.3), 0),
    (number_or_array, (np.array([0.7, -0.4]), 1.3), 0),
    (scalar_dtype_branch, (np.array([0.3, -1.2, 0.8]), np.array([0.5, 0.1, -0.9])), (0, 1)),
]


@pytest.mark.parametrize("func, args, wrt", _first_runs(TYPE_TESTS))
def test_type_tests_folded(func, args, wrt):
    _agrees(func, args, wrt)


def test_result_type_keeps_float32():
    x, w = np.linspace(-1.0, 0.5, 4).astype(np.float32), np.arange(1.0, 5.0).astype(np.float32)
    got = _agrees(promoted_to_floating, (x, w), 0, rtol=1e-5, atol=1e-6)
    assert got.dtype == np.float32


# ---- library code read through its source ----------------------------------------------------

def _library(name):
    module, _, attr = name.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attr)
    except ImportError:
        pytest.skip(f"{module} is not installed")


def _poly(name):
    func = _library(name)

    def poly(x, c, w):
        return np.sum(func(x, c) * w)
    return poly


@pytest.mark.parametrize("name", ["numpy.polynomial.polynomial.polyval", "scipy.optimize.rosen",
                                  "scipy.spatial.distance.sqeuclidean", "scipy.spatial.distance.braycurtis"])
def test_library_type_tests(name):
    rng = np.random.default_rng(6)
    x, w, c = rng.uniform(0.2, 1.5, size=5), rng.normal(size=5), rng.normal(size=4)
    if name.endswith("polyval"):
        _agrees(_poly(name), (x, c, w), (0, 1))
    elif name.endswith("rosen"):
        _agrees(_library(name), (x,), 0)
    else:
        _agrees(_library(name), (x, w + 3.0), (0, 1))


# ---- the folding is the same for every array the compiled code may be called with --------------

def _folded(text: str, params: dict) -> str:
    from srcdiff.backend.numba import folding
    tree = ast.parse(text).body[0]
    folding.fold(tree, params, {"np": np})
    return ast.unparse(tree)


def test_an_integer_key_is_every_integer_width():
    text = "def f(x):\n    t = np.result_type(x)\n    return t"
    # "i" is int64, int32, int16 and int8 alike: the dtype stays the argument's
    assert "t = x.dtype" in _folded(text, {"x": (1, (False,), "i")})
    assert "t = np.float32" in _folded(text, {"x": (1, (False,), "f4")})
    assert "t = np.float64" in _folded(text, {"x": (1, (False,), "f")})
    text = "def f(x, w):\n    y = np.asarray(w, dtype=np.result_type(x, 1.0))\n    return y"
    assert "np.asarray(w)" in _folded(text, {"x": (1, (False,), "i"), "w": (1, (False,), "f")})


def test_undecided_tests_stay():
    text = ("def f(x, n):\n    if x.dtype.itemsize == 8:\n        return x\n"
            "    if n > 2:\n        return x * 2\n    return x")
    folded = _folded(text, {"x": (1, (False,), "i"), "n": int})
    assert "x.dtype.itemsize == 8" in folded and "n > 2" in folded
    folded = _folded(text.replace("== 8", "== 4"), {"x": (1, (False,), "f4"), "n": int})
    assert "itemsize" not in folded and folded.count("return") == 1  # float32: 4 bytes, always taken


# ---- one index along an axis of N-D (the adjoint of np.stack along a later axis, np.take) ------

def stack_last_axis(x, y):
    return np.sum(np.sin(np.stack([x, y], axis=-1)) * np.stack([y, x], axis=-1))


def stack_middle_axis(x, y):
    return np.sum(np.stack((x, y * x, np.cos(y)), axis=1) ** 2)


def stack_three_last(a, b):
    pairs = np.stack([a, a * b, np.tanh(b)], axis=2)
    return np.sum(pairs[..., 1] * pairs[..., 2]) + np.sum(pairs ** 2)


STACKS = [
    (stack_last_axis, (np.linspace(-1.0, 1.0, 6).reshape(2, 3), np.linspace(0.5, 2.0, 6).reshape(2, 3)), (0, 1)),
    (stack_middle_axis, (np.linspace(-1.0, 1.0, 8).reshape(2, 2, 2), np.linspace(0.5, 2.0, 8).reshape(2, 2, 2)),
     (0, 1)),
    (stack_last_axis, (np.linspace(-1.0, 1.0, 4), np.linspace(0.5, 2.0, 4)), (0, 1)),
    (stack_three_last, (np.linspace(-1.0, 1.0, 6).reshape(3, 2), np.linspace(0.5, 2.0, 6).reshape(3, 2)), (0, 1)),
]


@pytest.mark.parametrize("func, args, wrt", _first_runs(STACKS))
def test_one_index_along_an_axis(func, args, wrt):
    _agrees(func, args, wrt)


# ---- a number on one side of a branch, an array on the other (backend/numba/joins.py) ----------

def number_or_sine(x, w):
    if np.sum(x) > 3.0:
        s = 0.0
    else:
        s = np.sin(x) * w
    return np.sum((s + x) ** 2 * w)


def integer_or_row(a, x):
    if a.shape[0] == 1:
        first = 0
    else:
        first = a[1]
    return np.sum(np.exp(first * x) + a[0] * x)


def _series(name):
    func = _library(name)

    def series(x, c, w):
        return np.sum(func(x, c) * w)
    return series


BRANCH_JOINS = [
    (number_or_sine, (np.array([0.3, -0.2, 0.5]), np.array([1.0, 2.0, -1.0])), (0, 1)),
    (number_or_sine, (np.array([1.3, 1.2, 1.5]), np.array([1.0, 2.0, -1.0])), (0, 1)),
    (integer_or_row, (np.array([[0.5, -0.3], [0.2, 0.4]]), np.array([0.7, -1.1])), (0, 1)),
    (integer_or_row, (np.array([[0.5, -0.3]]), np.array([0.7, -1.1])), (0, 1)),
]


@pytest.mark.parametrize("func, args, wrt", _first_runs(BRANCH_JOINS))
def test_number_on_one_side_of_a_branch(func, args, wrt):
    _agrees(func, args, wrt)


@pytest.mark.parametrize("name", ["numpy.polynomial.hermite.hermval", "numpy.polynomial.chebyshev.chebval",
                                  "numpy.polynomial.legendre.legval", "numpy.polynomial.laguerre.lagval"])
def test_polynomial_series(name):
    rng = np.random.default_rng(7)
    x, c, w = rng.uniform(0.2, 1.5, size=5), rng.normal(size=4), rng.normal(size=5)
    _agrees(_series(name), (x, c, w), (0, 1))


# ---- np.add.at with a tuple of integers (the adjoint of g[n, e] read with two numbers) ------------

def chosen_gate(W, X):
    gates = np.tanh(X @ W)
    choice = np.argmax(gates, axis=1)
    total = 0.0
    for n in range(X.shape[0]):
        total = total + gates[n, choice[n]] ** 2
    return total


def chosen_rows(A, x):
    total = 0.0
    for n in range(2):
        k = n + 1
        total = total + np.sum(A[k, n] * x) + np.sum(A[-1, k] ** 2)
    return total


def chosen_plane(T, w):
    i, j = 1, 0
    return np.sum(np.sin(T[i, j]) * w)


INDEX_ADDS = [
    (chosen_gate, (np.linspace(-1.0, 1.0, 6).reshape(3, 2), np.linspace(0.3, 1.7, 12).reshape(4, 3)), (0, 1)),
    (chosen_rows, (np.linspace(-1.0, 1.0, 9).reshape(3, 3), np.array([0.4, -0.2])), (0, 1)),
    (chosen_plane, (np.linspace(-1.0, 1.0, 24).reshape(2, 3, 4), np.linspace(0.5, 1.5, 4)), (0, 1)),
]


@pytest.mark.parametrize("func, args, wrt", _first_runs(INDEX_ADDS))
def test_add_at_integers(func, args, wrt):
    _agrees(func, args, wrt)


# ---- np.pad of a vector with the modes that copy its values (backend/numba/pads.py) -------------

def padded_smoothing(x):
    xp = np.pad(x, 2, mode="edge")
    y = (xp[:-4] + 2 * xp[1:-3] + 3 * xp[2:-2] + 2 * xp[3:-1] + xp[4:]) / 9.0
    return np.sum((y - x) ** 2)


def reflected_cubes(x):
    return np.sum(np.pad(x, (1, 2), mode="reflect") ** 3)


def symmetric_weights(x, w):
    return np.sum(np.sin(np.pad(x, (3, 1), "symmetric")) * w)


def wrapped_convolution(x, k):
    return np.sum(np.convolve(np.pad(x, (2, 5), mode="wrap"), k, mode="valid") ** 2)


PADS = [
    (padded_smoothing, (np.array([0.3, -0.1, 0.8, 1.2, 0.4, -0.6]),), 0),
    (reflected_cubes, (np.array([0.3, -0.1, 0.8, 1.2]),), 0),
    (symmetric_weights, (np.array([0.3, -0.1, 0.8]), np.linspace(-1.0, 1.0, 7)), (0, 1)),
    (wrapped_convolution, (np.array([0.3, -0.1, 0.8]), np.array([0.2, 0.5, 0.3])), (0, 1)),
]


@pytest.mark.parametrize("func, args, wrt", _first_runs(PADS))
def test_pad_modes(func, args, wrt):
    _agrees(func, args, wrt)


def test_pad_wider_than_its_mirror_is_refused():
    x = np.array([0.3, -0.1, 0.8])
    with pytest.raises(srcdiff.SrcDiffError):  # NumPy mirrors again; the compiled helper does not
        srcdiff.grad(reflected_cubes_wide, jit="numba")(x)


def reflected_cubes_wide(x):
    return np.sum(np.pad(x, (1, 4), mode="reflect") ** 3)
