"""Wave 34h: NumPy's sequence, ordering and indexing surface the way users write it (test_wave34h.py):
cumsum / cumprod / diff / gradient / trapezoid, np.convolve / np.correlate, np.interp, np.polyval and
Horner loops, sort / argsort / take_along_axis / partition (trimmed means), median / percentile /
quantile, fancy and boolean reads and writes, np.put / np.add.at / np.bincount with weights,
triu / tril / diag / diagonal / trace, roll / flip / rot90 / swapaxes / moveaxis / reshape(order="F"),
np.pad, tile / repeat / broadcast_to, meshgrid / ix_.

Each row is ``(name, func, make_args(rng), wrt)``.
"""

from __future__ import annotations

import numpy as np

# ---- sequences and signals ----


def cumsum_cumprod(x):
    return np.sum(np.cumsum(x) ** 2) + np.sum(np.cumprod(1.0 + 0.1 * x))


def cumsum_axis(X):
    return np.sum(np.tanh(np.cumsum(X, axis=1))) + np.sum(np.cumsum(X, axis=0)[-1] ** 2)


def diff_smoothness(x):
    return np.sum(np.diff(x) ** 2) + np.sum(np.diff(x, n=2) ** 2)


def gradient_penalty(y):
    g = np.gradient(y, 0.5)
    return np.sum(g ** 2)


def trapezoid_area(y):
    t = np.linspace(0.0, 1.0, y.size)
    return np.trapezoid(y ** 2, t) + np.trapezoid(np.sin(y), dx=0.1)


def convolve_modes(x, k):
    full = np.convolve(x, k)
    same = np.convolve(x, k, mode="same")
    valid = np.convolve(x, k, mode="valid")
    return np.sum(full ** 2) + np.sum(same) + np.sum(np.tanh(valid))


def correlate_lag(x, y):
    c = np.correlate(x, y, mode="full")
    return np.sum(c ** 2) / x.size


def interp_curve(y, xq):
    xp = np.linspace(0.0, 1.0, y.size)
    return np.sum(np.interp(xq, xp, y) ** 2)


def interp_query(xq, y):
    xp = np.linspace(0.0, 1.0, y.size)
    return np.sum(np.interp(xq, xp, y) ** 2)


def polyval_fit(c, t, y):
    return np.mean((np.polyval(c, t) - y) ** 2)


def horner_loop(c, t):
    acc = np.zeros_like(t)
    for ci in c:
        acc = acc * t + ci
    return np.sum(acc ** 2)


def poly1d_eval(c, t):
    p = np.poly1d(c)
    return np.sum(p(t) ** 2)


# ---- ordering ----


def sort_trimmed_mean(x):
    s = np.sort(x)
    return np.mean(s[1:-1])


def argsort_weighted(x):
    idx = np.argsort(x)
    w = np.linspace(0.1, 1.0, x.size)
    return np.sum(w * x[idx])


def take_along_rows(X):
    idx = np.argsort(X, axis=1)
    s = np.take_along_axis(X, idx, axis=1)
    return np.sum(s[:, -1]) + 0.3 * np.sum(s[:, 0] ** 2)


def partition_topk(x):
    part = np.partition(x, x.size - 3)
    return np.sum(part[-3:] ** 2)


def median_loss(x):
    return np.median(x) ** 2 + np.median(np.reshape(x, (2, -1)), axis=1).sum()


def percentile_quantile(x):
    return np.percentile(x, 75.0) - np.quantile(x, 0.25) + np.quantile(x, [0.1, 0.9]).sum()


# ---- indexing reads and writes ----


def fancy_read_write(x):
    idx = np.array([0, 2, 3, 2])
    y = np.zeros(6)
    y[[1, 4]] = x[[0, 1]] ** 2
    return np.sum(x[idx] ** 2) + np.sum(y * np.arange(6))


def boolean_mask_read(x, c):
    mask = c > 0.0
    return np.sum(x[mask] ** 2) + np.sum(np.exp(x[~mask]))


def boolean_mask_write(x, c):
    y = x.copy()
    y[c > 0.0] = 0.0
    y[c < -0.5] *= 3.0
    return np.sum(y ** 2)


def put_and_add_at(x):
    y = np.zeros(5)
    np.put(y, [0, 2], x[:2])
    np.add.at(y, np.array([1, 1, 3]), x[2:5])
    return np.sum(y ** 2) + np.sum(np.sin(y))


def bincount_weights(x, labels):
    sums = np.bincount(labels, weights=x, minlength=3)
    return np.sum(sums ** 2)


def triangles_trace(M):
    return np.sum(np.triu(M, 1) ** 2) + np.sum(np.tril(M)) + np.trace(M @ M) + np.sum(np.diagonal(M, 1))


def diag_build(v):
    D = np.diag(v) + np.diag(v[:-1], k=1)
    return np.sum(D @ D) + np.trace(D)


def roll_flip_rot(X):
    return np.sum(np.roll(X, 1, axis=0) * X) + np.sum(np.flip(X) * np.rot90(X)) + np.sum(np.fliplr(X) ** 3)


def axes_shuffles(T):
    A = np.swapaxes(T, 0, 2)
    B = np.moveaxis(T, 0, -1)
    C = np.transpose(T, (1, 0, 2))
    return np.sum(A ** 2 * np.arange(A.shape[-1])) + np.sum(np.sin(B)) + np.sum(C[0] ** 2)


def reshape_fortran(x):
    M = np.reshape(x, (2, 3), order="F")
    w = np.arange(6.0).reshape(2, 3)
    return np.sum(M * w) + np.sum(x.reshape(3, 2, order="F")[:, 0] ** 2) + np.sum(M.ravel(order="F") * np.arange(6))


def pad_edges(x):
    p = np.pad(x, 2, mode="edge")
    q = np.pad(x, (1, 2), constant_values=0.5)
    r = np.pad(x, 1, mode="reflect")
    return np.sum(np.diff(p) ** 2) + np.sum(q ** 2) + np.sum(r * np.arange(r.size))


def tile_repeat_broadcast(x):
    t = np.tile(x, 3)
    r = np.repeat(x, 2)
    b = np.broadcast_to(x, (4, x.size))
    return np.sum(t * np.arange(t.size)) + np.sum(r ** 2) + np.sum(b * np.arange(4)[:, None])


def meshgrid_surface(c):
    gx, gy = np.meshgrid(np.linspace(-1, 1, 4), np.linspace(0, 1, 3))
    z = c[0] * gx ** 2 + c[1] * gx * gy + c[2] * np.sin(gy)
    return np.sum(z ** 2)


def ix_block(M):
    rows, cols = np.array([0, 2]), np.array([1, 2, 3])
    B = M[np.ix_(rows, cols)]
    return np.sum(B ** 2) + np.sum(M[rows][:, cols])


def ix_write(x):
    K = np.zeros((4, 4))
    dofs = np.array([1, 3])
    K[np.ix_(dofs, dofs)] += np.outer(x, x)
    return np.sum(K ** 2) + np.sum(np.diag(K))


def _labels(n):
    return np.array([0, 1, 2, 1, 0, 2, 2, 1][:n])


PROGRAMS = [
    ("cumsum_cumprod", cumsum_cumprod, lambda r: [r.normal(size=5)], 0),
    ("cumsum_axis", cumsum_axis, lambda r: [r.normal(size=(3, 4))], 0),
    ("diff_smoothness", diff_smoothness, lambda r: [r.normal(size=6)], 0),
    ("gradient_penalty", gradient_penalty, lambda r: [r.normal(size=6)], 0),
    ("trapezoid_area", trapezoid_area, lambda r: [r.normal(size=6)], 0),
    ("convolve_modes", convolve_modes, lambda r: [r.normal(size=6), r.normal(size=3)], 0),
    ("convolve_modes_kernel", convolve_modes, lambda r: [r.normal(size=6), r.normal(size=3)], 1),
    ("correlate_lag", correlate_lag, lambda r: [r.normal(size=5), r.normal(size=5)], 1),
    ("interp_curve", interp_curve, lambda r: [r.normal(size=5), np.array([0.13, 0.41, 0.77, 0.92])], 0),
    ("interp_query", interp_query, lambda r: [np.array([0.13, 0.41, 0.77, 0.92]), r.normal(size=5)], 0),
    ("polyval_fit", polyval_fit, lambda r: [r.normal(size=4), np.linspace(-1, 1, 7), r.normal(size=7)], 0),
    ("polyval_fit_t", polyval_fit, lambda r: [r.normal(size=4), np.linspace(-1, 1, 7) + 0.03, r.normal(size=7)], 1),
    ("horner_loop", horner_loop, lambda r: [r.normal(size=4), np.linspace(-1, 1, 5)], 0),
    ("poly1d_eval", poly1d_eval, lambda r: [r.normal(size=3), np.linspace(-1, 1, 5)], 0),
    ("sort_trimmed_mean", sort_trimmed_mean, lambda r: [r.normal(size=6)], 0),
    ("argsort_weighted", argsort_weighted, lambda r: [r.normal(size=6)], 0),
    ("take_along_rows", take_along_rows, lambda r: [r.normal(size=(3, 4))], 0),
    ("partition_topk", partition_topk, lambda r: [r.normal(size=7)], 0),
    ("median_loss", median_loss, lambda r: [r.normal(size=6)], 0),
    ("percentile_quantile", percentile_quantile, lambda r: [r.normal(size=7)], 0),
    ("fancy_read_write", fancy_read_write, lambda r: [r.normal(size=5)], 0),
    ("boolean_mask_read", boolean_mask_read, lambda r: [r.normal(size=6), r.normal(size=6)], 0),
    ("boolean_mask_write", boolean_mask_write, lambda r: [r.normal(size=6), r.normal(size=6)], 0),
    ("put_and_add_at", put_and_add_at, lambda r: [r.normal(size=5)], 0),
    ("bincount_weights", bincount_weights, lambda r: [r.normal(size=8), _labels(8)], 0),
    ("triangles_trace", triangles_trace, lambda r: [r.normal(size=(3, 3))], 0),
    ("diag_build", diag_build, lambda r: [r.normal(size=4)], 0),
    ("roll_flip_rot", roll_flip_rot, lambda r: [r.normal(size=(3, 3))], 0),
    ("axes_shuffles", axes_shuffles, lambda r: [r.normal(size=(2, 3, 4))], 0),
    ("reshape_fortran", reshape_fortran, lambda r: [r.normal(size=6)], 0),
    ("pad_edges", pad_edges, lambda r: [r.normal(size=5)], 0),
    ("tile_repeat_broadcast", tile_repeat_broadcast, lambda r: [r.normal(size=3)], 0),
    ("meshgrid_surface", meshgrid_surface, lambda r: [r.normal(size=3)], 0),
    ("ix_block", ix_block, lambda r: [r.normal(size=(3, 4))], 0),
    ("ix_write", ix_write, lambda r: [r.normal(size=2)], 0),
]
