"""numba versions of products and linear algebra numba's NumPy lacks, for generated code:
``np.tensordot`` with constant axes (forward and adjoints), the Cholesky factor's adjoint
(``cholesky_adjoint``, a run-time helper), a stack of matrices times a vector (``x @ v``, x
3-D) and its adjoints, and ``np.inner`` of a 0-d array -- more overloads of runtime.py's
``matmul_adjoint_x``/``_y`` and missing.py's ``matmul_stacks``/``inner_product``.

As elsewhere in this package, the code of each call is written from the types alone.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.np.numpy_support import as_dtype

from ...rules import decomposition_helpers
from ...rules import runtime as python
from .missing import inner_product, matmul_stacks
from .naming import made, overload
from .runtime import matmul_adjoint_x, matmul_adjoint_y


def _is_array(t) -> bool:
    return isinstance(t, types.Array)


def _literal_ints(t) -> tuple | None:
    items = t.types if isinstance(t, types.BaseTuple) else (t,)
    if not all(isinstance(i, types.IntegerLiteral) for i in items):
        return None
    return tuple(i.literal_value for i in items)


def _product(sizes: list[str]) -> str:
    return " * ".join(sizes) or "1"


def _contract(a, b, first: tuple, second: tuple, params: str):
    """``np.tensordot(a, b, axes=(first, second))``: a's free axes then its contracted ones as
    a matrix, times b's contracted axes then its free ones, one matrix product."""
    if len(first) != len(second) or not all(-a.ndim <= d < a.ndim for d in first) \
            or not all(-b.ndim <= d < b.ndim for d in second):
        return None
    first = tuple(d % a.ndim for d in first)
    second = tuple(d % b.ndim for d in second)
    free_a = [d for d in range(a.ndim) if d not in first]
    free_b = [d for d in range(b.ndim) if d not in second]
    checks = "".join(f"    if a.shape[{i}] != b.shape[{j}]:\n        raise ValueError('shape-mismatch for sum')\n"
                     for i, j in zip(first, second))
    rows = _product([f"a.shape[{d}]" for d in free_a])
    inner = _product([f"a.shape[{d}]" for d in first])
    cols = _product([f"b.shape[{d}]" for d in free_b])
    out = "".join(f"a.shape[{d}], " for d in free_a) + "".join(f"b.shape[{d}], " for d in free_b)
    cast = ".astype(np.float64)" if a.dtype != b.dtype else ""
    return made(f"def impl({params}):\n" + checks +
                f"    m = np.ascontiguousarray(a.transpose({tuple(free_a + list(first))})){cast}"
                f".reshape(({rows}, {inner}))\n"
                f"    n = np.ascontiguousarray(b.transpose({tuple(list(second) + free_b)})){cast}"
                f".reshape(({inner}, {cols}))\n"
                f"    return (m @ n).reshape(({out}))\n")


def _scaled(a, b, contracted: tuple) -> bool:
    """Whether ``np.tensordot(a, b)`` is a number times an array, no axis contracted: the adjoint of
    a full contraction (``np.tensordot(A, B, axes=2)`` of matrices) is a tensordot of its number g."""
    numbers = [isinstance(t, types.Number) for t in (a, b)]
    return not contracted and any(numbers) and all(n or _is_array(t) for n, t in zip(numbers, (a, b)))


def tensordot_fixed(a, b, count):
    return np.tensordot(a, b, axes=count)


@overload(tensordot_fixed, prefer_literal=True)
def _tensordot_fixed(a, b, count):
    """``np.tensordot(a, b, axes=n)``: a's last n axes with b's first n."""
    n = _literal_ints(count)
    if n is not None and _scaled(a, b, n if n != (0,) else ()):
        return lambda a, b, count: a * b
    if not (_is_array(a) and _is_array(b)) or n is None or len(n) != 1 or n[0] > min(a.ndim, b.ndim):
        return None
    n = n[0]
    return _contract(a, b, tuple(range(a.ndim - n, a.ndim)), tuple(range(n)), "a, b, count")


def tensordot_pairs(a, b, first, second):
    return np.tensordot(a, b, axes=(first, second))


@overload(tensordot_pairs, prefer_literal=True)
def _tensordot_pairs(a, b, first, second):
    """``np.tensordot(a, b, axes=([i, ...], [j, ...]))``."""
    one, two = _literal_ints(first), _literal_ints(second)
    if one is not None and two is not None and _scaled(a, b, one + two):
        return lambda a, b, first, second: a * b
    if not (_is_array(a) and _is_array(b)) or one is None or two is None:
        return None
    return _contract(a, b, one, two, "a, b, first, second")


def cholesky_adjoint(g, L):
    return python.cholesky_adjoint(g, L)


@overload(cholesky_adjoint)
def _cholesky_adjoint(g, L):
    """rules/runtime.py's ``cholesky_adjoint``: S = L^-T Phi(L^T g) L^-1, then Phi(S + S^T),
    for a matrix or (one by one) a stack of them."""
    if not (_is_array(g) and _is_array(L)) or L.ndim not in (2, 3) or g.ndim != L.ndim:
        return None
    if g.dtype != L.dtype:  # a float32 factor and a float64 adjoint (numba's products take one dtype): float64
        return lambda g, L: cholesky_adjoint(np.asarray(g, dtype=np.float64), np.asarray(L, dtype=np.float64))
    if L.ndim == 2:
        return lambda g, L: one_cholesky_adjoint(np.ascontiguousarray(g), np.ascontiguousarray(L))

    def stack(g, L):
        out = np.empty(L.shape)
        for i in range(L.shape[0]):
            out[i] = one_cholesky_adjoint(np.ascontiguousarray(g[i]), np.ascontiguousarray(L[i]))
        return out
    return stack


@njit(cache=True)
def phi(m):
    """The lower triangle, the diagonal halved."""
    return np.tril(m) - 0.5 * np.diag(np.diag(m))


@njit(cache=True)
def one_cholesky_adjoint(g, L):
    inv = np.linalg.inv(L)
    s = np.ascontiguousarray(inv.T) @ phi(np.ascontiguousarray(L.T) @ g) @ inv
    return phi(s + np.ascontiguousarray(s.T))


def _stack_and_vector(g, x, y) -> bool:
    return _is_array(g) and _is_array(x) and _is_array(y) and sorted((x.ndim, y.ndim)) == [1, 3]


@overload(matmul_adjoint_x)
def _stack_times_vector_x(g, x, y):
    """``x @ v`` (x a stack of matrices, v a vector): x's adjoint is g[b, i] v[j]; ``v @ y``:
    v's adjoint sums each y[b] @ g[b]."""
    if not _stack_and_vector(g, x, y):
        return None
    if x.ndim == 3:
        return lambda g, x, y: np.ascontiguousarray(g).reshape((g.shape[0], g.shape[1], 1)) * y

    def vector(g, x, y):
        out = np.zeros(x.shape[0])
        for b in range(y.shape[0]):
            out += np.ascontiguousarray(y[b]) @ np.ascontiguousarray(g[b])
        return out
    return vector


@overload(matmul_adjoint_y)
def _stack_times_vector_y(g, x, y):
    """``x @ v``: v's adjoint sums x's rows weighted by g over the stack; ``v @ y``: y's
    adjoint is v[i] g[b, j]."""
    if not _stack_and_vector(g, x, y):
        return None
    if x.ndim == 3 and g.dtype != x.dtype:  # (a float64 adjoint of a float32 stack: numba's @ takes one dtype)
        return lambda g, x, y: np.ascontiguousarray(g).reshape(-1).astype(np.float64) @ \
            np.ascontiguousarray(x).reshape((-1, x.shape[2])).astype(np.float64)
    if x.ndim == 3:
        return lambda g, x, y: np.ascontiguousarray(g).reshape(-1) @ \
            np.ascontiguousarray(x).reshape((-1, x.shape[2]))
    return lambda g, x, y: np.ascontiguousarray(x).reshape((1, -1, 1)) * \
        np.ascontiguousarray(g).reshape((g.shape[0], 1, g.shape[1]))


@overload(matmul_stacks)
def _stack_times_vector(a, b):
    """``np.matmul`` of a stack of matrices and a vector (either side): one product each."""
    if not (_is_array(a) and _is_array(b)) or sorted((a.ndim, b.ndim)) != [1, 3] or a.dtype != b.dtype:
        return None
    dtype = as_dtype(a.dtype)
    if a.ndim == 3:
        def right(a, b):
            out = np.empty((a.shape[0], a.shape[1]), dtype)
            for i in range(a.shape[0]):
                out[i] = np.ascontiguousarray(a[i]) @ np.ascontiguousarray(b)
            return out
        return right

    def left(a, b):
        out = np.empty((b.shape[0], b.shape[2]), dtype)
        for i in range(b.shape[0]):
            out[i] = np.ascontiguousarray(a) @ np.ascontiguousarray(b[i])
        return out
    return left


@overload(inner_product)
def _inner_zero_dimensional(a, b):
    """``np.inner`` with a 0-d array: a product."""
    if _is_array(a) and a.ndim == 0 and (_is_array(b) or isinstance(b, types.Number)):
        return lambda a, b: a.sum() * b
    if _is_array(b) and b.ndim == 0 and (_is_array(a) or isinstance(a, types.Number)):
        return lambda a, b: a * b.sum()
    return None


@overload(inner_product)
def _inner_matrices(a, b):
    """``np.inner`` of two matrices (``a @ b.T``) or of a vector and a matrix (``b @ a``): sums
    over the last axes."""
    if not (_is_array(a) and _is_array(b) and a.dtype == b.dtype):  # (numba's @ takes one dtype)
        return None
    if a.ndim == 2 and b.ndim == 2:
        return lambda a, b: np.ascontiguousarray(a) @ np.ascontiguousarray(b).T
    if a.ndim == 1 and b.ndim == 2:
        return lambda a, b: np.ascontiguousarray(b) @ np.ascontiguousarray(a)
    return None


def cofactor(x):
    return decomposition_helpers.cofactor(x)


def cofactor_derivative(x, h):
    return decomposition_helpers.cofactor_derivative(x, h)


@njit(cache=True)
def cofactor_parts(x):
    """rules/decomposition_helpers.py's ``_cofactor_parts`` of one matrix: U, V^T, det(U) det(V) and
    P[i, j], the product of the singular values other than the i-th and the j-th."""
    u, s, vt = np.linalg.svd(np.ascontiguousarray(x).astype(np.float64))
    n = s.shape[0]
    others = np.ones((n, n))
    for i in range(n):
        for j in range(n):
            for m in range(n):
                if m != i and m != j:
                    others[i, j] *= s[m]
    return np.ascontiguousarray(u), np.ascontiguousarray(vt), np.linalg.det(u) * np.linalg.det(vt), others


@njit(cache=True)
def one_cofactor(x):
    u, vt, sign, others = cofactor_parts(x)
    return sign * ((u * np.diag(others)) @ vt)


@njit(cache=True)
def one_cofactor_derivative(x, h):
    u, vt, sign, others = cofactor_parts(x)
    k = np.ascontiguousarray(u.T) @ np.ascontiguousarray(h).astype(np.float64) @ np.ascontiguousarray(vt.T)
    n = k.shape[0]
    d = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i == j:
                for m in range(n):
                    if m != i:
                        d[i, i] += others[i, m] * k[m, m]
            else:
                d[i, j] = -others[i, j] * k[j, i]
    return sign * (u @ d @ vt)


@njit(cache=True)
def stack_cofactors(x):
    """`one_cofactor` of each matrix of a stack (x of shape (k, n, n))."""
    out = np.empty(x.shape)
    for i in range(x.shape[0]):
        out[i] = one_cofactor(x[i])
    return out


@njit(cache=True)
def stack_cofactor_derivatives(x, h):
    out = np.empty(x.shape)
    for i in range(x.shape[0]):
        out[i] = one_cofactor_derivative(x[i], h[i])
    return out


@overload(cofactor)
def _cofactor(x):
    """One matrix, or a stack of them (a leading axis or more)."""
    if not (_is_array(x) and x.ndim >= 2 and isinstance(x.dtype, types.Float)):
        return None
    dtype = as_dtype(x.dtype)
    if x.ndim == 2:
        return lambda x: one_cofactor(x).astype(dtype)
    return lambda x: stack_cofactors(
        np.ascontiguousarray(x).reshape((-1,) + x.shape[-2:])).reshape(x.shape).astype(dtype)


@overload(cofactor_derivative)
def _cofactor_derivative(x, h):
    if not (_is_array(x) and _is_array(h) and x.ndim >= 2 and h.ndim == x.ndim):
        return None
    dtype = np.result_type(as_dtype(x.dtype), as_dtype(h.dtype), np.float32)
    if x.ndim == 2:
        return lambda x, h: one_cofactor_derivative(x, h).astype(dtype)
    return lambda x, h: stack_cofactor_derivatives(
        np.ascontiguousarray(x).reshape((-1,) + x.shape[-2:]),
        np.ascontiguousarray(h).reshape((-1,) + h.shape[-2:])).reshape(x.shape).astype(dtype)


HELPERS = ("tensordot_fixed", "tensordot_pairs", "cholesky_adjoint", "cofactor", "cofactor_derivative")
