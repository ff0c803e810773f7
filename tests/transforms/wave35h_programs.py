"""Programs of test_wave35h.py, the red team of wave 35's rewrites: losses whose gradient operand of ``@``
is a clip piece by piece (clip_cases.py) written other ways, with thresholds of either sign, equal,
zero, computed from the data, of one element, nested clips, a residual of a matrix and ``y - w @ X``;
gated cells read by blocks of computed products or np.split's pieces (split_blocks.py,
joined_products.py, joined_transposes.py, nested_joins.py) with the blocks in another order,
overlapping, read twice, of odd widths, unequal pieces, batch size 1 and a vector state; slices of
lists of literal numbers with computed and negative bounds, written back.
"""

from __future__ import annotations

import numpy as np

# ---- piecewise losses (clip_cases.py) ----


def huber_where(w, X, y, d):
    r = X @ w - y
    return np.sum(np.where(np.abs(r) <= d, 0.5 * r * r, d * np.abs(r) - 0.5 * d * d))


def huber_hinge_mean(w, X, y, d):
    r = X @ w - y
    h = np.maximum(np.abs(r) - d, 0.0)
    return np.mean(0.5 * r * r - 0.5 * h * h)


def huber_std(w, X, y):
    """Huber whose threshold is the residuals' own standard deviation (a threshold of the data)."""
    r = X @ w - y
    d = np.std(r)
    return np.sum(np.where(np.abs(r) <= d, 0.5 * r * r, d * np.abs(r) - 0.5 * d * d))


def asym_clip(w, X, y, a, b):
    """A band [-a, b] as a clip plus two hinges (the bounds the caller's, of either order)."""
    r = X @ w - y
    c = np.clip(r, -a, b)
    return np.sum(0.5 * c * c + a * np.maximum(-r - a, 0.0) + b * np.maximum(r - b, 0.0))


def two_hinges(w, X, y, d):
    """Huber by two one-sided squared hinges."""
    r = X @ w - y
    h = np.maximum(r - d, 0.0)
    g = np.maximum(-r - d, 0.0)
    return np.sum(0.5 * r * r - 0.5 * h * h - 0.5 * g * g)


def nested_clips(w, X, y, d, e):
    """A clip of a clip plus its excess: a band of the smaller bound."""
    r = X @ w - y
    c = np.clip(np.clip(r, -d, d), -e, e)
    return np.sum(0.5 * c * c + e * np.abs(r - c))


def huber_transposed(w, X, y, d):
    """The residual ``y - w @ X`` (X's columns the examples): the gradient ``-(X @ clip)``."""
    r = y - w @ X
    h = np.maximum(np.abs(r) - d, 0.0)
    return np.sum(0.5 * r * r - 0.5 * h * h)


def huber_matrix(W, X, Y, d):
    """A residual matrix X @ W - Y (d a number or one per column, broadcast)."""
    r = X @ W - Y
    h = np.maximum(np.abs(r) - d, 0.0)
    return np.sum(0.5 * r * r - 0.5 * h * h)


def smooth_l1_div(w, X, y, b):
    r = X @ w - y
    a = np.abs(r)
    m = np.minimum(a, b)
    return np.sum(0.5 * m * m / b + (a - m))


# ---- gated cells (split_blocks.py, joined_products.py, joined_transposes.py, nested_joins.py) ----


def _sig(z):
    return 1.0 / (1.0 + np.exp(-z))


def lstm_slices(W, U, b, xs):
    """Four gates sliced from one pre-activation, the width U.shape[0] (1 in some rows)."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    c = np.zeros((xs.shape[1], n))
    total = 0.0
    for x in xs:
        a = x @ W + h @ U + b
        i, f = _sig(a[:, :n]), _sig(a[:, n:2 * n])
        o, g = _sig(a[:, 2 * n:3 * n]), np.tanh(a[:, 3 * n:])
        c = f * c + i * g
        h = o * np.tanh(c)
        total = total + np.sum(h * h)
    return total


def reordered_blocks(W, U, xs):
    """The second block's products before the first's."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for x in xs:
        c = np.tanh(x @ W[:, n:] + h @ U[:, n:])
        z = _sig(x @ W[:, :n] + h @ U[:, :n])
        h = (1.0 - z) * h + z * c
        total = total + np.sum(h * h)
    return total


def overlapping_blocks(W, U, xs):
    """Blocks that overlap (``[:n]`` and ``[1:n + 1]``): they tile nothing."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for x in xs:
        z = _sig(x @ W[:, :n] + h @ U[:, :n])
        c = np.tanh(x @ W[:, 1:n + 1] + h @ U[:, 1:n + 1])
        h = (1.0 - z) * h + z * c
        total = total + np.sum(h * h)
    return total


def block_read_twice(W, U, xs):
    """W's first block read by two gates."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for x in xs:
        z = _sig(x @ W[:, :n] + h @ U[:, :n])
        c = np.tanh(x @ W[:, :n] + h @ U[:, n:])
        q = np.tanh(x @ W[:, n:])
        h = (1.0 - z) * h + z * c * q
        total = total + np.sum(h * h)
    return total


def split_unequal(W, xs):
    """np.split at indices: pieces of 1, 2 and the rest."""
    Wa, Wb, Wc = np.split(W, [1, 3], axis=1)
    total = 0.0
    h = 0.0
    for x in xs:
        h = np.tanh(x @ Wa) * h + np.sum(_sig(x @ Wb), axis=1, keepdims=True) + np.sum(x @ Wc, axis=1, keepdims=True)
        total = total + np.sum(h * h)
    return total


def split_three(W, U, xs):
    """A GRU of np.split's three pieces of W and of U, the reset gate inside the candidate's product."""
    Wz, Wr, Wc = np.split(W, 3, axis=1)
    Uz, Ur, Uc = np.split(U, 3, axis=1)
    h = np.zeros((xs.shape[1], U.shape[0]))
    total = 0.0
    for x in xs:
        z = _sig(x @ Wz + h @ Uz)
        r = _sig(x @ Wr + h @ Ur)
        c = np.tanh(x @ Wc + (r * h) @ Uc)
        h = (1.0 - z) * h + z * c
        total = total + np.sum(h * h)
    return total


def split_piece_reused(W, U, xs):
    """A piece read by two gates and again after the loop."""
    Wz, Wc = np.split(W, 2, axis=1)
    Uz, Uc = np.split(U, 2, axis=1)
    h = np.zeros((xs.shape[1], U.shape[0]))
    total = 0.0
    for x in xs:
        z = _sig(x @ Wz + h @ Uz)
        c = np.tanh(x @ Wc + h @ Uc + x @ Wz)
        h = (1.0 - z) * h + z * c
        total = total + np.sum(h * h)
    return total + np.sum(Wz * Wc)


def vector_state(W, U, b, xs):
    """One example: a state of one axis, the gates sliced from a vector."""
    n = U.shape[0]
    h = np.zeros(n)
    total = 0.0
    for x in xs:
        a = x @ W + h @ U + b
        z, c = _sig(a[:n]), np.tanh(a[n:])
        h = (1.0 - z) * h + z * c
        total = total + np.sum(h * h)
    return total


def odd_width(W, U, b, xs):
    """Gates of n, n and one column (2n + 1 in all), the last broadcast."""
    n = (b.shape[0] - 1) // 2
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for x in xs:
        a = x @ W + h @ U + b
        z, c, e = _sig(a[:, :n]), np.tanh(a[:, n:2 * n]), a[:, 2 * n:]
        h = (1.0 - z) * h + z * c * e
        total = total + np.sum(h * h)
    return total


# ---- lists of literal numbers, sliced ----


def literal_slices(x):
    """Slices of a list of literal numbers with bounds computed from x's length and negative."""
    ws = [0.5, 1.0, 2.0, 3.0, 4.0]
    k = len(x) - 1
    head, tail = ws[:k], ws[-k:]
    return sum(h * x[i] ** 2 for i, h in enumerate(head)) + sum(t * np.sin(x[i]) for i, t in enumerate(tail))


def literal_slice_written(x):
    """A slice of a literal list written by index, then read back beside the list."""
    ws = [1.0, 2.0, 3.0, 4.0]
    part = ws[1:-1]
    part[0] = x[0] * x[1]
    ws[2] = x[2]
    return part[0] * part[1] + ws[1] * ws[2] + sum(part)


def literal_slice_loop(x):
    """A loop's slice of a list of numbers it appends to (the numbers the loop's)."""
    hist = [1.0, 0.0]
    for v in x:
        hist.append(hist[-1] * 0.5 + v * hist[-2])
    tail = hist[-3:]
    return sum(t * t for t in tail) + hist[2]


def literal_slice_steps(x):
    """Slices with steps, a negative step, and bounds past the ends, of a literal list."""
    ws = [0.5, 1.0, 2.0, 3.0, 4.0, 5.0]
    even, back, wide = ws[::2], ws[::-2], ws[-9:9]
    return sum(e * x[i] for i, e in enumerate(even)) * sum(back) + sum(v * x[0] ** 2 for v in wide[4:])


def literal_slice_rebuilt(x):
    """A slice of a list replaced, as a new list (the refusals' hint)."""
    ws = [1.0, 2.0, 3.0, 4.0]
    ws = ws[:1] + [x[0] * x[1], np.sin(x[2])] + ws[3:]
    return sum(v * v for v in ws) + ws[1] * ws[-1]


# ---- refused at the user's line: a write into a slice of a list (was a TypeError inside the code) ----


def literal_slice_assigned(x):
    """A slice of a literal list replaced by a list of values of x."""
    ws = [1.0, 2.0, 3.0, 4.0]
    ws[1:3] = [x[0] * x[1], np.sin(x[2])]
    return sum(v * v for v in ws) + ws[1] * ws[-1]


def items_slice_assigned(x):
    """A slice of a list of x's items replaced by fewer items (the list shrinks)."""
    ws = [x[0], x[1], x[2]]
    ws[:2] = [x[0] * x[1]]
    return sum(v * v for v in ws)


def slice_assigned_in_loop(x):
    """A loop writing a step slice of a list."""
    ws = [0.0] * 4
    for v in x:
        ws[::2] = [v, v * v]
    return sum(ws) * x[0]


def literal_slice_by_argument(x, k):
    """A literal list sliced at an int the caller passes."""
    ws = [0.5, 1.5, 2.5, 3.5]
    return sum(w * x[i] ** 3 for i, w in enumerate(ws[k:])) + sum(ws[:k]) * x[0]


# ---- arguments ----


def residual(n=12, k=3, extra=(0.8,)):
    def make(rng):
        X = rng.standard_normal((n, k))
        y = X @ rng.standard_normal(k) + rng.standard_normal(n)
        return (0.4 * rng.standard_normal(k), X, y) + tuple(extra)
    return make


def residual_ties(extra, at):
    """Residuals exactly at the values `at` on the first rows (X of integers, w of few binary digits)."""
    def make(rng):
        X = rng.integers(-3, 4, (10, 3)).astype(float)
        w = np.array([0.5, -0.25, 0.75])
        s = X @ w
        y = s + rng.standard_normal(10)
        y[:len(at)] = s[:len(at)] - np.array(at)
        return (w, X, y) + tuple(extra)
    return make


def transposed(rng):
    X = rng.standard_normal((3, 12))
    return 0.4 * rng.standard_normal(3), X, w_y(rng, X.T), 0.8


def w_y(rng, X):
    return X @ rng.standard_normal(X.shape[1]) + rng.standard_normal(X.shape[0])


def matrix_residual(d):
    def make(rng):
        X = rng.standard_normal((12, 3))
        return 0.4 * rng.standard_normal((3, 2)), X, rng.standard_normal((12, 2)), d
    return make


def lstm(n, B=2, T=3):
    return lambda rng: (0.5 * rng.normal(size=(3, 4 * n)), 0.5 * rng.normal(size=(n, 4 * n)),
                        0.1 * rng.normal(size=4 * n), rng.normal(size=(T, B, 3)))


def two(n, B=2, T=3, blocks=2):
    return lambda rng: (0.5 * rng.normal(size=(3, blocks * n)), 0.5 * rng.normal(size=(n, blocks * n)),
                        rng.normal(size=(T, B, 3)))


def vector(n):
    return lambda rng: (0.5 * rng.normal(size=(3, 2 * n)), 0.5 * rng.normal(size=(n, 2 * n)),
                        0.1 * rng.normal(size=2 * n), rng.normal(size=(3, 3)))


def odd(n, B=2):
    return lambda rng: (0.5 * rng.normal(size=(3, 2 * n + 1)), 0.5 * rng.normal(size=(n, 2 * n + 1)),
                        0.1 * rng.normal(size=2 * n + 1), rng.normal(size=(3, B, 3)))


def positive(k):
    return lambda rng: (0.5 + 0.3 * np.abs(rng.normal(size=k)),)


PROGRAMS = [
    ("huber_where", huber_where, residual(), 0),
    ("huber_where_negative", huber_where, residual(extra=(-0.8,)), 0),
    ("huber_where_zero", huber_where, residual(extra=(0.0,)), 0),
    ("huber_where_int", huber_where, residual(extra=(1,)), 0),
    ("huber_where_one_element", huber_where, residual(extra=(np.array([0.8]),)), 0),
    ("huber_where_per_row", huber_where, residual(extra=(np.full(12, 0.8),)), 0),
    ("huber_hinge_mean", huber_hinge_mean, residual(), 0),
    ("huber_std", huber_std, residual(extra=()), 0),
    ("asym_clip", asym_clip, residual(extra=(0.5, 1.0)), 0),
    ("asym_clip_reversed", asym_clip, residual(extra=(-1.0, 0.5)), 0),
    ("asym_clip_point", asym_clip, residual(extra=(0.0, 0.0)), 0),
    ("two_hinges", two_hinges, residual(), 0),
    ("two_hinges_negative", two_hinges, residual(extra=(-0.3,)), 0),
    ("nested_clips", nested_clips, residual(extra=(0.8, 0.5)), 0),
    ("nested_clips_wider", nested_clips, residual(extra=(0.5, 0.8)), 0),
    ("huber_transposed", huber_transposed, transposed, 0),
    ("huber_matrix", huber_matrix, matrix_residual(0.8), 0),
    ("huber_matrix_per_column", huber_matrix, matrix_residual(np.array([0.5, 0.9])), 0),
    ("smooth_l1_div", smooth_l1_div, residual(), 0),
    ("huber_where_ties", huber_where, residual_ties((0.75,), (0.75, -0.75, 0.0)), 0),
    ("two_hinges_ties", two_hinges, residual_ties((0.75,), (0.75, -0.75, 0.0)), 0),
    ("asym_clip_ties", asym_clip, residual_ties((0.5, 0.75), (0.75, -0.5, 0.0)), 0),
    ("smooth_l1_div_ties", smooth_l1_div, residual_ties((0.75,), (0.75, -0.75, 0.0)), 0),
    ("lstm_slices_W", lstm_slices, lstm(2), 0),
    ("lstm_slices_one_U", lstm_slices, lstm(1), 1),
    ("lstm_slices_batch_one_b", lstm_slices, lstm(3, B=1), 2),
    ("reordered_blocks_W", reordered_blocks, two(2), 0),
    ("reordered_blocks_one_U", reordered_blocks, two(1), 1),
    ("overlapping_blocks_W", overlapping_blocks, two(2), 0),
    ("overlapping_blocks_U", overlapping_blocks, two(3, B=1), 1),
    ("block_read_twice_W", block_read_twice, two(2), 0),
    ("block_read_twice_one_U", block_read_twice, two(1), 1),
    ("split_unequal_W", split_unequal, lambda rng: (0.5 * rng.normal(size=(3, 5)), rng.normal(size=(3, 2, 3))), 0),
    ("split_unequal_one_W", split_unequal,
     lambda rng: (0.5 * rng.normal(size=(3, 3)), rng.normal(size=(3, 1, 3))), 0),
    ("split_three_W", split_three, two(2, blocks=3), 0),
    ("split_three_one_U", split_three, two(1, B=1, blocks=3), 1),
    ("split_piece_reused_W", split_piece_reused, two(2), 0),
    ("split_piece_reused_one_U", split_piece_reused, two(1), 1),
    ("vector_state_W", vector_state, vector(2), 0),
    ("vector_state_one_U", vector_state, vector(1), 1),
    ("odd_width_W", odd_width, odd(2), 0),
    ("odd_width_one_b", odd_width, odd(1, B=1), 2),
    ("literal_slices", literal_slices, positive(4), 0),
    ("literal_slice_written", literal_slice_written, positive(3), 0),
    ("literal_slice_loop", literal_slice_loop, positive(4), 0),
    ("literal_slice_steps", literal_slice_steps, positive(3), 0),
    ("literal_slice_rebuilt", literal_slice_rebuilt, positive(3), 0),
    ("literal_slice_by_argument", literal_slice_by_argument,
     lambda rng: (0.5 + 0.3 * np.abs(rng.normal(size=3)), 1), 0),
]

REFUSED = [
    ("literal_slice_assigned", literal_slice_assigned, positive(3), 0),
    ("items_slice_assigned", items_slice_assigned, positive(3), 0),
    ("slice_assigned_in_loop", slice_assigned_in_loop, positive(3), 0),
]
