"""User-style programs for `srcdiff.vmap`, each with batched arguments and its in_axes.

Each `Case` is a function `grad` differentiates, the whole batch of its arguments, the in_axes
that map it and the parameter differentiated.  The truth of ``vmap(grad(f), in_axes)`` is a
Python loop over the examples of the plain ``grad(f)`` (and of ``vmap(f)`` the loop of `f`),
checked against float64 central differences (`example`, `truth`).  The programs: loops with
carries and lists, helpers, solves, sorts, scans, `np.where`, reductions over axes, matmul
chains, trees and float32.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.special

B = 3  # examples a batch


@dataclasses.dataclass
class Case:
    name: str
    func: object
    args: tuple  # the whole batch: an argument mapped along its in_axes entry holds B examples there
    in_axes: object  # as vmap takes it
    wrt: int = 0


def axes_of(case: Case) -> list:
    if isinstance(case.in_axes, (tuple, list)):
        return list(case.in_axes)
    return [case.in_axes] * len(case.args)


def _take(value, axis, i):
    if axis is None:
        return value
    if isinstance(value, dict):
        return {k: _take(v, axis[k] if isinstance(axis, dict) else axis, i) for k, v in value.items()}
    if isinstance(value, tuple):
        axes = axis if isinstance(axis, tuple) else [axis] * len(value)
        return tuple(_take(v, a, i) for v, a in zip(value, axes))
    return np.take(np.asarray(value), i, axis=axis)


def example(case: Case, i: int) -> list:
    """The arguments of example `i`."""
    return [_take(v, a, i) for v, a in zip(case.args, axes_of(case))]


# ---- helpers the programs call ----

def _rhs(y, k):
    return -k * y + np.sin(y)


def _rk4(y, k, h):
    a = _rhs(y, k)
    b = _rhs(y + 0.5 * h * a, k)
    c = _rhs(y + 0.5 * h * b, k)
    d = _rhs(y + h * c, k)
    return y + h / 6.0 * (a + 2.0 * b + 2.0 * c + d)


def _layer(W, x):
    return np.tanh(W @ x)


# ---- the programs: w shared (in_axes None) unless said, x an example ----

def mlp(W, b, x):
    h = np.tanh(W @ x + b)
    return np.sum(h ** 2)


def scalar_carry(w, x):
    s = 0.0
    for i in range(4):
        s = s * w + x[i]
    return s ** 2


def array_carry(W, x):
    h = x
    for _ in range(3):
        h = np.tanh(W @ h)
    return np.sum(h)


def list_append_stack(w, x):
    hs = []
    h = x
    for _ in range(3):
        h = np.sin(w * h)
        hs.append(h)
    return np.sum(np.stack(hs) ** 2)


def list_append_sum(w, x):
    terms = []
    for i in range(3):
        terms.append(np.sum((x - w * i) ** 2))
    return sum(terms)


def while_fixed(w, x):
    i = 0
    y = x
    while i < 4:
        y = y - 0.1 * w * np.tanh(y)
        i += 1
    return np.sum(y ** 2)


def rnn(Wh, wx, x):
    h = np.zeros(Wh.shape[0])
    for t in range(x.shape[0]):
        h = np.tanh(Wh @ h + wx * x[t])
    return np.sum(h)


def helper_in_loop(k, y0):
    y = y0
    for _ in range(5):
        y = _rk4(y, k, 0.1)
    return np.sum(y ** 2)


def helper_straight(W, x):
    return np.sum(_layer(W, x) ** 2)


def solve(w, A, b):
    M = A + np.diag(w ** 2 + 1.0)
    return np.sum(np.linalg.solve(M, b) ** 2)


def inverse(w, A):
    M = A + np.diag(w ** 2 + 2.0)
    return np.sum(np.linalg.inv(M))


def sort_values(w, x):
    s = np.sort(x * w)
    return np.sum(s * np.arange(1.0, s.size + 1.0))


def argsort_values(w, x):
    order = np.argsort(x)
    return np.sum((w * x)[order] * np.arange(1.0, x.size + 1.0))


def cumsum_loss(w, x):
    return np.sum(np.cumsum(w * x) ** 2)


def where_loss(w, x):
    r = w * x
    return np.sum(np.where(r > 0.0, r ** 2, -r))


def tuple_params(params, x):
    W, b = params
    return np.sum(np.tanh(W @ x + b) ** 2)


def dict_params(params, x):
    return np.sum(np.tanh(params["W"] @ x + params["b"]) ** 2)


def axis_reductions(w, X):
    Y = X * w
    return np.sum(np.mean(Y, axis=0) ** 2) + np.sum(np.max(Y, axis=1)) + np.sum(np.std(Y, axis=1))


def matmul_chain(A, B_, x):
    return np.sum((A @ B_ @ A.T @ x) ** 2)


def quadratic(x, A):
    return x @ A @ x


def softmax_xent(W, x, y):
    z = W @ x
    return scipy.special.logsumexp(z) - np.sum(z * y)


def euler_scalar(k, y0):
    y = y0
    for _ in range(10):
        y = y + 0.05 * (-k * y + np.cos(y))
    return y * y


def horner(c, x):
    s = 0.0
    for i in range(c.shape[0]):
        s = s * x + c[i]
    return s


def rows_loop(w, X):
    total = 0.0
    for row in X:
        total = total + np.sum(np.tanh(row * w))
    return total


def previous_items(w, x):
    ys = [w * x[0]]
    for i in range(1, 4):
        ys.append(ys[i - 1] * 0.5 + w * x[i])
    return sum(ys) ** 2


def slogdet_loss(w, A):
    M = A + np.diag(w ** 2 + 2.0)
    sign, logdet = np.linalg.slogdet(M)
    return logdet


def cholesky_loss(w, A):
    M = A @ A.T + np.diag(w ** 2 + 1.0)
    L = np.linalg.cholesky(M)
    return np.sum(L ** 2)


def outer_loss(w, x):
    return np.sum(np.outer(w, x) ** 2)


def clip_abs(w, x):
    return np.sum(np.abs(np.clip(w * x, -0.5, 0.5))) + np.sum(np.maximum(w, x) ** 2)


def einsum_loss(W, x):
    return np.einsum("ij,j,i->", W, x, x)


def concat_loss(w, x):
    z = np.concatenate([w * x, x ** 2, w])
    return np.sum(z[1:] - z[:-1]) + np.sum(z ** 2)


def diffs(w, x):
    d = x[1:] - w * x[:-1]
    return np.sum(d ** 2)


def float32_loss(w, x):
    return np.sum(np.tanh(w * x) ** 2)


def float32_cast(w, x):
    y = (w * x).astype(np.float32)
    return np.sum(y ** 2)


def gauss_nll(mu, x, s):
    return np.sum(0.5 * ((x - mu) / s) ** 2 + np.log(s))


def attention(Wq, X):
    q = X @ Wq
    a = scipy.special.softmax(q @ X.T, axis=1)
    return np.sum(a @ X)


def norm_loss(w, x):
    return np.linalg.norm(w * x) + np.linalg.norm(x - w, 1)


def loop_matrix_power(A, x):
    v = x
    for _ in range(3):
        v = A @ v
        v = v / np.linalg.norm(v)
    return np.sum(v)


def loop_accumulate_array(w, X):
    acc = np.zeros(w.shape)
    for i in range(X.shape[0]):
        acc = acc + np.exp(-w * X[i])
    return np.sum(acc ** 2)


def nested_loops(w, x):
    s = 0.0
    for i in range(2):
        for j in range(3):
            s = s + np.sin(w[j] * x[i] + i)
    return s


def mixed_list(w, x):
    hs = [w]  # an item the same for every example, then items of each example
    for _ in range(3):
        hs.append(np.sin(hs[-1] * x))
    return np.sum(np.stack(hs) ** 2)


def mixed_list_summed(w, x):
    hs = [w]  # carried through the loop: made of rows from the start, else w would be read as rows
    for _ in range(3):
        hs.append(np.sin(hs[-1] * x))
    return np.sum(sum(hs) ** 2)


def mixed_list_ends(w, x):
    hs = [w]
    for _ in range(3):
        hs.append(np.sin(hs[-1] * x))
    return np.sum(hs[-1] * hs[0])


def sum_mixed_ranks(w, x):
    terms = []
    terms.append(np.sum(w * x))  # a number per example, then a vector: sum() broadcasts them
    terms.append(w * x)
    return np.sum(sum(terms) ** 2)


def tape_of_matrices(W, x):
    H = np.outer(x, x)
    for _ in range(3):
        H = np.tanh(W @ H)
    return np.sum(H)


def scalars_stacked(w, x):
    vals = []
    for i in range(3):
        vals.append(np.sum(x * w ** (i + 1)))
    return np.sum(np.array(vals) ** 2)


def list_read_in_loop(w, x):
    hs = []
    h = x
    for _ in range(3):
        h = np.tanh(w * h + 0.1)
        hs.append(h)
    total = 0.0
    for item in hs:
        total = total + np.sum(item * item)
    return total


def _pair(a, b):
    return a * b, a + b


def tuple_helper_in_loop(w, x):
    a, b = x, w
    for _ in range(3):
        a, b = _pair(np.sin(a), b * 0.5)
    return np.sum(a * b)


def batched_wrt_x(x, w):
    return np.sum(np.exp(-w * x) * x)


def det_loss(w, A):
    return np.linalg.det(A + np.diag(w ** 2 + 2.0)) ** 2


def eigh_loss(w, A):
    vals, vecs = np.linalg.eigh(A + A.T + np.diag(w))
    return np.sum(vals ** 3) + np.sum(vecs[:, -1] ** 4) + np.sum(np.linalg.eigvalsh(A @ A.T + np.diag(w ** 2)))


def gather_beside_slices(w, X):
    order = np.argsort(X[:, 0])  # positions worked out of each example, beside a slice
    return np.sum(np.tanh(X[order, 1:]) * w[1:]) + np.sum(X[:, order[:2]] ** 2)


def max_along_axes(w, X):
    Y = X * w
    return np.sum(np.max(Y, axis=1) ** 2) + np.sum(Y.max(axis=0) * np.min(Y, axis=0))


def _rng(name: str):
    import zlib

    return np.random.default_rng(zlib.crc32(name.encode()))


def cases() -> list[Case]:
    r = _rng("vmap_programs")
    n = 4

    def N(*shape):
        return r.normal(size=shape)

    W, b, w = N(n, n) / 2, N(n), N(n)
    X = N(B, n)
    P = lambda: r.uniform(0.5, 1.5, size=n)  # noqa: E731
    A = N(B, n, n) / 3
    out = [
        Case("mlp", mlp, (W, b, X), (None, None, 0)),
        Case("mlp_per_example_wrt_x", mlp, (W, b, X), (None, None, 0), wrt=2),
        Case("scalar_carry", scalar_carry, (0.7, X), (None, 0)),
        Case("array_carry", array_carry, (W, X), (None, 0)),
        Case("list_append_stack", list_append_stack, (w, X), (None, 0)),
        Case("list_append_sum", list_append_sum, (w, X), (None, 0)),
        Case("while_fixed", while_fixed, (w, X), (None, 0)),
        Case("rnn", rnn, (W, w, N(B, 5)), (None, None, 0)),
        Case("helper_in_loop", helper_in_loop, (P(), X), (None, 0)),
        Case("helper_straight", helper_straight, (W, X), (None, 0)),
        Case("solve", solve, (w, A, X), (None, 0, 0)),
        Case("solve_shared_matrix", solve, (w, A[0], X), (None, None, 0)),
        Case("inverse", inverse, (w, A), (None, 0)),
        Case("sort_values", sort_values, (w, X), (None, 0)),
        Case("argsort_values", argsort_values, (w, X), (None, 0)),
        Case("cumsum_loss", cumsum_loss, (w, X), (None, 0)),
        Case("where_loss", where_loss, (w, X), (None, 0)),
        Case("tuple_params", tuple_params, ((W, b), X), (None, 0)),
        Case("dict_params", dict_params, ({"W": W, "b": b}, X), (None, 0)),
        Case("tuple_batched", tuple_params, ((W, N(B, n)), X), ((None, 0), 0)),
        Case("axis_reductions", axis_reductions, (w, N(B, 3, n)), (None, 0)),
        Case("matmul_chain", matmul_chain, (W, N(n, n), X), (None, None, 0)),
        Case("quadratic_batched_x", quadratic, (X, W), (0, None)),
        Case("softmax_xent", softmax_xent, (W, X, np.eye(n)[[0, 2, 1]]), (None, 0, 0)),
        Case("euler_scalar", euler_scalar, (0.8, r.uniform(0.1, 1.0, size=B)), (None, 0)),
        Case("horner", horner, (w, r.uniform(-1, 1, size=B)), (None, 0)),
        Case("rows_loop", rows_loop, (w, N(B, 3, n)), (None, 0)),
        Case("previous_items", previous_items, (0.6, X), (None, 0)),
        Case("slogdet_loss", slogdet_loss, (w, A), (None, 0)),
        Case("cholesky_loss", cholesky_loss, (w, A), (None, 0)),
        Case("outer_loss", outer_loss, (w, X), (None, 0)),
        Case("clip_abs", clip_abs, (w, X), (None, 0)),
        Case("einsum_loss", einsum_loss, (W, X), (None, 0)),
        Case("concat_loss", concat_loss, (w, X), (None, 0)),
        Case("diffs", diffs, (0.4, X), (None, 0)),
        Case("float32_loss", float32_loss, (w.astype(np.float32), X.astype(np.float32)), (None, 0)),
        Case("float32_cast", float32_cast, (w, X), (None, 0)),
        Case("gauss_nll", gauss_nll, (w, X, r.uniform(0.5, 2.0, size=(B, n))), (None, 0, 0)),
        Case("attention", attention, (W, N(B, 3, n)), (None, 0)),
        Case("norm_loss", norm_loss, (w, X), (None, 0)),
        Case("loop_matrix_power", loop_matrix_power, (W, X), (None, 0)),
        Case("loop_accumulate_array", loop_accumulate_array, (w, N(B, 3, n)), (None, 0)),
        Case("nested_loops", nested_loops, (w, X), (None, 0)),
        # a row as long as the batch (3): an axis lined up with the wrong one would not raise
        Case("mixed_list", mixed_list, (N(B), N(B, B)), (None, 0)),
        Case("sum_mixed_ranks", sum_mixed_ranks, (N(B), N(B, B)), (None, 0)),
        Case("mixed_list_summed", mixed_list_summed, (N(B), N(B, B)), (None, 0)),
        Case("mixed_list_ends", mixed_list_ends, (N(B), N(B, B)), (None, 0)),
        Case("tape_of_matrices", tape_of_matrices, (N(B, B) / 2, N(B, B)), (None, 0)),
        Case("scalars_stacked", scalars_stacked, (N(B), N(B, B)), (None, 0)),
        Case("list_read_in_loop", list_read_in_loop, (N(B), N(B, B)), (None, 0)),
        Case("tuple_helper_in_loop", tuple_helper_in_loop, (N(B), N(B, B)), (None, 0)),
        Case("batched_wrt_x_axis1", batched_wrt_x, (X.T.copy(), w), (1, None)),
        Case("batched_wrt_param_axis", batched_wrt_x, (X, N(B, n)), (0, 0), wrt=1),
        Case("det_loss", det_loss, (w, A), (None, 0)),
        Case("eigh_loss", eigh_loss, (w, A), (None, 0)),
        Case("gather_beside_slices", gather_beside_slices, (w, N(B, n, n)), (None, 0)),
        Case("max_along_axes", max_along_axes, (w, N(B, 3, n)), (None, 0)),
    ]
    return out


__all__ = ["B", "Case", "axes_of", "cases", "example"]
