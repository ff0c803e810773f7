"""jit="numba" on classes it refused before (issue 23, seventh round).  Each gradient agrees
with float64 central differences of the function (tests/numeric.py).

numba compiles for seconds per program: the first program of each class runs by default,
the others with ``-m slow`` (and tests/conftest.py samples the numba tests of the default run).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from numeric import central_difference

import srcdiff

numba = pytest.importorskip("numba")


def _first_runs(cases):
    return [pytest.param(*case, id=case[0].__name__, marks=() if i == 0 else pytest.mark.slow)
            for i, case in enumerate(cases)]


def _agrees(func, args, wrt=0, rtol=1e-6, atol=1e-8):
    got = srcdiff.grad(func, wrt=wrt, jit="numba")(*args)
    wide = tuple(np.asarray(a, np.float64) if getattr(a, "dtype", None) == np.float32 else a for a in args)
    wants = [central_difference(func, wide, i) for i in (wrt if isinstance(wrt, tuple) else (wrt,))]
    for g, want in zip(got if isinstance(wrt, tuple) else (got,), wants):
        np.testing.assert_allclose(g, want, rtol=rtol, atol=atol)
    return got


# ---- 1. the zero adjoint of a full reduction, then a branch adds a number to it ------------
# ``np.zeros(np.shape(t))`` of a number numba types as a number: a 0-d array that a branch
# makes a float could not be joined ("Cannot unify array(float64, 0d, C) and float64").

def max_or_sum(x):
    m = np.max(x)
    if m > 2.0:
        return m * 3.0
    return np.sum(x ** 2)


def dot_in_branches(x, y):
    d = x @ y
    if d > 0:
        return np.log(1.0 + d)
    elif x[0] > 0:
        return np.sum(y ** 2)
    return d * d


def mean_of_matrix(a):
    m = np.mean(np.tanh(a))
    if m < 0.1:
        return np.sum(a[0] ** 2)
    return m ** 3


def norm_in_a_loop(x):
    total = 0.0
    for i in range(3):
        n = np.sqrt(np.sum(x ** 2)) + i
        if n > 3.0:
            total = total + np.log(n)
        else:
            total = total + n * n
    return total


def reduced_float32(x):
    s = np.sum(x * x)
    if s > 4.0:
        return np.float32(2.0) * np.sqrt(s)
    return s


REDUCED = [
    (max_or_sum, (np.array([0.5, -1.0, 2.5]),), 0),
    (max_or_sum, (np.array([0.5, -1.0, 1.5]),), 0),
    (dot_in_branches, (np.array([0.5, -1.0, 2.5]), np.array([1.0, 0.3, 0.2])), (0, 1)),
    (dot_in_branches, (np.array([0.5, -1.0, 2.5]), np.array([-1.0, 0.3, 0.2])), (0, 1)),
    (mean_of_matrix, (np.array([[0.5, -1.0], [0.2, -0.3]]),), 0),
    (mean_of_matrix, (np.array([[0.5, 1.0], [0.2, 0.3]]),), 0),
    (norm_in_a_loop, (np.array([0.5, -1.0, 1.5]),), 0),
    (reduced_float32, (np.array([0.5, -1.0, 2.5], np.float32),), 0),
]


@pytest.mark.parametrize("func, args, wrt", [
    pytest.param(*case, id=f"{case[0].__name__}-{i}", marks=() if i == 0 else pytest.mark.slow)
    for i, case in enumerate(REDUCED)])
def test_the_zero_adjoint_of_a_reduced_number(func, args, wrt):
    rtol = 1e-4 if args[0].dtype == np.float32 else 1e-6
    _agrees(func, args, wrt, rtol=rtol, atol=1e-4 if rtol > 1e-6 else 1e-8)


# ---- 2. ``a.reshape(...)`` of a strided view -----------------------------------------------
# numba reshapes C-ordered arrays only ("Resolution failure for literal arguments"): a piece of
# ``np.split`` along a later axis, a transpose, a slice with a step are copied first.

def split_heads(w, x):
    q, k = np.split(x @ w, 2, axis=1)
    q = q.reshape(x.shape[0], 2, 2).transpose(1, 0, 2)
    k = k.reshape((x.shape[0], 2, 2))
    return np.sum(np.tanh(q) * k.transpose(1, 0, 2))


def flattened_transpose(a):
    return np.sum(np.sin(a.T.reshape(-1)) * np.arange(6.0))


def strided_columns(a):
    b = a[:, ::2].reshape(9)
    return np.sum(b ** 3)


RESHAPES = [
    (split_heads, (np.linspace(-1.0, 1.0, 24).reshape(3, 8), np.linspace(0.2, 1.4, 9).reshape(3, 3)), (0, 1)),
    (flattened_transpose, (np.linspace(-1.0, 1.5, 6).reshape(2, 3),), 0),
    (strided_columns, (np.linspace(-1.0, 1.5, 18).reshape(3, 6),), 0),
]


@pytest.mark.parametrize("func, args, wrt", _first_runs(RESHAPES))
def test_reshape_methods_of_strided_arrays(func, args, wrt):
    _agrees(func, args, wrt)


# ---- 3. an index a branch inside a loop computes --------------------------------------------
# The loop's stack holds it on every path (preset to None before the loop): numba typed it
# Optional(int64) and had no setitem/getitem with an optional in the index.

def banded_stiffness(k, f):
    n = len(k)
    K = np.eye(n)
    for e in range(n):
        K[e, e] += k[e]
        if e + 1 < n:
            K[e, e + 1] -= k[e + 1]
            K[e + 1, e] -= k[e + 1]
    return f @ np.linalg.solve(K, f)


def neighbour_reads(x):
    total = 0.0
    for i in range(len(x)):
        if i % 2 == 0 and i + 1 < len(x):
            j = i + 1
            total = total + x[j] * x[i]
        else:
            total = total + np.sin(x[i])
    return total


def scattered_writes(x):
    y = np.zeros(len(x) + 1)
    for i in range(len(x)):
        if x[i] > 0:
            y[i + 1] = x[i] ** 2
        else:
            y[i] = y[i] + np.exp(x[i])
    return np.sum(y * np.arange(1.0, len(x) + 2.0))


OPTIONAL_INDICES = [
    (banded_stiffness, (np.array([1.5, 2.0, 0.7, 1.1]), np.array([1.0, -0.5, 0.3, 0.8])), 0),
    (neighbour_reads, (np.array([0.3, -1.2, 0.8, 1.5, -0.4]),), 0),
    (scattered_writes, (np.array([0.3, -1.2, 0.8, 1.5, -0.4]),), 0),
]


@pytest.mark.parametrize("func, args, wrt", _first_runs(OPTIONAL_INDICES))
def test_indices_a_branch_in_a_loop_sets(func, args, wrt):
    _agrees(func, args, wrt)


# ---- 4. np.diag of a value whose ndim the gradient did not know -----------------------------
# A loop-carried value: the adjoint is ``(np.diag(g, k) if np.ndim(x) == 1 else <matrix form>)``,
# and numba typed the matrix form of a vector too ("tuple index out of range").

def newton_with_diag(k, s):
    t = np.ones(len(s))
    for _ in range(3):
        jac = np.diag(1.0 + 0.3 * t ** 2) + np.diag(k[1:], 1) + np.diag(k[1:], -1)
        t = t - np.linalg.solve(jac, t + 0.1 * t ** 3 - s)
    return np.sum(t ** 2)


def off_diagonals_in_a_loop(v):
    m = np.eye(len(v) + 1)
    for _ in range(2):
        m = m + np.diag(np.sin(v), 1) - np.diag(v ** 2, -1)
        v = np.linalg.solve(np.eye(len(v)) * 2.0 + 0.1, v) + 0.1
    return np.sum(m ** 3)


def diagonal_of_a_solved_matrix(a):
    total = 0.0
    for _ in range(2):
        total = total + np.sum(np.diag(a, 1) ** 2) + np.sum(np.exp(np.diag(a)))
        a = np.linalg.solve(np.eye(3) * 2.0 + 0.1, a) * 1.5
    return total


DIAGONALS = [
    (newton_with_diag, (np.array([0.3, 0.2, 0.4, 0.1]), np.array([1.0, 0.5, -0.3, 0.8])), (0, 1)),
    (off_diagonals_in_a_loop, (np.array([0.3, -0.7, 1.1]),), 0),
    (diagonal_of_a_solved_matrix, (np.array([[0.3, -0.7, 0.2], [1.1, 0.4, -0.5], [0.6, 0.1, 0.9]]),), 0),
]


@pytest.mark.parametrize("func, args, wrt", _first_runs(DIAGONALS))
def test_diag_of_a_value_of_unknown_ndim(func, args, wrt):
    _agrees(func, args, wrt)


# ---- 5. writes through a boolean mask of a matrix -------------------------------------------
# numba's own ``a[m] = v`` with a mask of several axes fails an assertion where it compiles: the
# write, the copy written (set_item) and the adjoint's zeroing (zero_item) go element by element.

def leaky_masked(w, x):
    h = x @ w
    h = h.copy()
    h[h < 0] *= 0.1
    return np.sum(h ** 2)


def clipped_matrix(a):
    b = np.tanh(a) * 2.0
    b[b > 1.0] = 1.0
    return np.sum(b ** 2 * a)


def masked_from_another(a, c):
    out = np.zeros_like(a)
    m = c > 0.0
    out[m] = a[m] * c[m]
    return np.sum(np.sin(out) + a)


def masked_cube(t):
    u = t ** 2
    u[t < 0.2] = 0.0
    return np.sum(u * t)


MASKED_WRITES = [
    (leaky_masked, (np.linspace(-1.0, 1.0, 12).reshape(3, 4), np.linspace(-0.5, 1.3, 6).reshape(2, 3)), (0, 1)),
    (clipped_matrix, (np.linspace(-1.3, 1.9, 6).reshape(2, 3),), 0),
    (masked_from_another, (np.linspace(-1.3, 1.9, 6).reshape(3, 2), np.linspace(0.8, -1.0, 6).reshape(3, 2)),
     (0, 1)),
    (masked_cube, (np.linspace(-1.3, 1.9, 12).reshape(2, 3, 2),), 0),
]


@pytest.mark.parametrize("func, args, wrt", _first_runs(MASKED_WRITES))
def test_writes_through_a_mask_of_a_matrix(func, args, wrt):
    _agrees(func, args, wrt)


# ---- 6. sorting along an axis, and gathers by index arrays that broadcast ----------------------
# numba sorts along the last axis with no ``axis=``; ``z[rows[:, None], top]``'s adjoint adds
# through a column of rows and a matrix of columns, which numba's add.at spelling did not take.

W_SORT = np.array([0.5, -1.0, 2.0])


def top2_of_each_row(w, x):
    z = x @ w
    top = np.argsort(z, axis=1)[:, -2:]
    rows = np.arange(x.shape[0])[:, None]
    picked = z[rows, top]
    return np.sum(np.exp(picked) * np.array([1.0, 2.0]))


def sorted_columns(a):
    return np.sum(np.sort(a, axis=0) * W_SORT[:, None] ** 2)


def sorted_rows_last_axis(a):
    return np.sum(np.sort(np.tanh(a), axis=-1) * W_SORT)


def gathered_pairs(z):
    idx = np.array([[0, 2], [1, 1], [2, 0]])
    return np.sum(z[np.arange(3)[:, None], idx] ** 3)


SORTS = [
    (top2_of_each_row, (np.array([[0.3, -0.2, 0.9, 0.1], [1.2, 0.4, -0.7, 0.5]]),
                        np.array([[0.5, -1.1], [0.3, 0.8], [-0.6, 0.2]])), (0, 1)),
    (sorted_columns, (np.array([[0.3, -0.2], [1.9, 0.1], [1.2, 0.45]]),), 0),
    (sorted_rows_last_axis, (np.array([[0.3, -0.2, 1.3], [1.9, 0.1, -0.8]]),), 0),
    (gathered_pairs, (np.array([[0.3, -0.2, 1.3], [1.9, 0.1, -0.8], [0.7, 0.25, 1.1]]),), 0),
]


@pytest.mark.parametrize("func, args, wrt", _first_runs(SORTS))
def test_sorts_along_axes_and_broadcast_gathers(func, args, wrt):
    _agrees(func, args, wrt)


# ---- 7. np.take_along_axis's adjoint --------------------------------------------------------
# rules' take_along_axis_adjoint had no numba version (refused at the function).

def token_nll(logits, tokens):
    logp = logits - np.log(np.sum(np.exp(logits), axis=2, keepdims=True))
    return -np.sum(np.take_along_axis(logp, tokens[:, :, None], axis=2))


def picked_per_row(a, cols):
    return np.sum(np.take_along_axis(a, cols[:, None], axis=1) ** 2)


def picked_per_column(a, rows):
    return np.sum(np.sin(np.take_along_axis(a, rows, axis=0)))


TAKES = [
    (token_nll, (np.linspace(-1.0, 1.3, 24).reshape(2, 3, 4), np.array([[0, 3, 1], [2, 2, 0]])), 0),
    (picked_per_row, (np.linspace(-1.0, 1.3, 12).reshape(3, 4), np.array([3, 0, 3])), 0),
    (picked_per_column, (np.linspace(-1.0, 1.3, 12).reshape(3, 4), np.array([[2, 0, 1, 1], [0, 0, 2, 1]])), 0),
]


@pytest.mark.parametrize("func, args, wrt", _first_runs(TAKES))
def test_take_along_axis_adjoints(func, args, wrt):
    _agrees(func, args, wrt)


# ---- 8. matrix norms named by a string --------------------------------------------------------
# numba's np.linalg.norm takes no "fro" or "nuc": it raised "Invalid norm order for matrices".

def frobenius_penalty(w):
    return np.linalg.norm(w, "fro") ** 2 + np.linalg.norm(np.tanh(w), ord="fro")


def nuclear_norm(w):
    return np.linalg.norm(w, "nuc") * np.sum(w ** 2)


def mixed_norms(x):
    m = x.reshape(2, 3)
    return np.linalg.norm(x, 3) + np.linalg.norm(m, "fro") + np.linalg.norm(m, "nuc")


NAMED_NORMS = [
    (frobenius_penalty, (np.array([[0.3, -1.2, 0.5], [0.8, 0.1, -0.4]]),), 0),
    (nuclear_norm, (np.array([[0.3, -1.2, 0.5], [0.8, 0.1, -0.4]]),), 0),
    (mixed_norms, (np.array([0.3, -1.2, 0.5, 0.8, 0.1, -0.4]),), 0),
]


@pytest.mark.parametrize("func, args, wrt", _first_runs(NAMED_NORMS))
def test_matrix_norms_named_by_a_string(func, args, wrt):
    _agrees(func, args, wrt)


# ---- 9. a string option that decides what a branch returns -----------------------------------
# ``if reduction == "none": return err`` returns an array where the branch taken returns a
# number: numba typed both ("Cannot unify float64 and array").  The string is compiled in, one
# module per value met (backend/jit.py), so only the branch taken is compiled.

def reduced(pred, target, reduction="sum"):
    err = np.log(np.cosh(pred - target))
    if reduction == "none":
        return err
    if reduction == "sum":
        return np.sum(err)
    return np.mean(err)


def activated(w, x, act):
    z = x @ w
    if act == "relu":
        h = np.maximum(z, 0.0)
    elif act == "tanh":
        h = np.tanh(z)
    else:
        return z
    return np.sum(h ** 2)


P = np.array([0.3, -1.2, 0.5, 0.8])
T = np.array([0.1, 0.4, -0.5, 0.2])


@pytest.mark.parametrize("reduction", ["sum", pytest.param("mean", marks=pytest.mark.slow)])
def test_a_string_option_compiled_in(reduction):
    _agrees(reduced, (P, T, reduction))


@pytest.mark.slow
def test_each_string_value_has_its_own_compiled_code():
    df = srcdiff.grad(reduced, jit="numba")
    for reduction in ("sum", "mean", "sum", "mean"):  # never the code compiled for the other value
        np.testing.assert_allclose(df(P, T, reduction), central_difference(reduced, (P, T, reduction), 0),
                                   rtol=1e-6, atol=1e-8)
    with pytest.raises(srcdiff.SrcDiffError):
        df(P, T, "none")  # an array: no gradient (as without jit)
    w, x = np.array([[0.3, -0.2], [0.5, 1.1]]), np.array([[1.0, -0.4], [0.2, 0.7], [-0.9, 0.3]])
    dw = srcdiff.grad(activated, jit="numba")
    for act in ("tanh", "relu"):
        np.testing.assert_allclose(dw(w, x, act), central_difference(activated, (w, x, act), 0),
                                   rtol=1e-6, atol=1e-8)


def masked_and_conditional(a, k):
    b = a * 2.0
    b[a < 0.0] = 0.5
    scale = 2.0 if k > 1 else 3.0
    return np.sum(b ** 2) * scale


def test_a_masked_write_beside_a_conditional_expression():
    _agrees(masked_and_conditional, (np.array([[0.3, -1.2], [0.5, -0.1]]), 2))


# ---- 10. scipy.linalg.solve_triangular ------------------------------------------------------
# numba compiles no SciPy: the call and its adjoint's (trans=1) are substitution loops
# (triangular.py).

def gp_like(log_params, x, y):
    ell, sf = np.exp(log_params)
    d2 = (x[:, None] - x[None, :]) ** 2
    k = sf ** 2 * np.exp(-0.5 * d2 / ell ** 2) + 0.1 * np.eye(len(x))
    chol = np.linalg.cholesky(k)
    alpha = scipy.linalg.solve_triangular(chol, y, lower=True)
    return 0.5 * alpha @ alpha + np.sum(np.log(np.diag(chol)))


def upper_with_columns(u, b):
    return np.sum(scipy.linalg.solve_triangular(np.triu(u) + 3.0 * np.eye(3), b) ** 2)


def transposed_unit(l, b):
    return np.sum(np.sin(scipy.linalg.solve_triangular(l, b, trans="T", lower=True, unit_diagonal=True)))


SQUARE = np.array([[1.5, 0.2, -0.3], [0.4, 2.0, 0.1], [-0.6, 0.3, 1.2]])
TRIANGULAR = [
    (gp_like, (np.array([0.1, 0.3]), np.array([0.0, 0.5, 1.3, 2.0]), np.array([0.2, -0.4, 0.9, 0.1])), 0),
    (upper_with_columns, (SQUARE, np.array([[1.0, 0.5], [-0.3, 0.2], [0.8, -1.1]])), (0, 1)),
    (transposed_unit, (SQUARE, np.array([1.0, -0.3, 0.8])), (0, 1)),
]


@pytest.mark.parametrize("func, args, wrt", _first_runs(TRIANGULAR))
def test_solve_triangular(func, args, wrt):
    _agrees(func, args, wrt)


# ---- 11. np.diag_indices as an index ---------------------------------------------------------

def cholesky_from_vector(l_flat, x):
    d = x.shape[1]
    chol = np.zeros((d, d))
    chol[np.tril_indices(d)] = l_flat
    chol[np.diag_indices(d)] = np.exp(np.diag(chol))
    z = scipy.linalg.solve_triangular(chol, x.T, lower=True)
    return 0.5 * np.sum(z ** 2) + x.shape[0] * np.sum(np.log(np.diag(chol)))


def test_diag_indices_as_an_index():
    _agrees(cholesky_from_vector, (np.array([0.1, 0.3, -0.2]), np.array([[0.5, -1.0], [1.2, 0.3], [-0.4, 0.8]])))
