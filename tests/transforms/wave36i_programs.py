"""Programs of test_wave36i.py: wave 36's rewrites attacked (piecewise gradients in one array, states
written into H[t + 1], histories read at [-1], reading methods, joins of an array's two ends)."""

from __future__ import annotations

import numpy as np

# ---- piecewise losses of one residual (clip_cases.py, piece_lines.py) ----


def three_steps(w, X, y, c):
    """Slope 2 above c, -1 below -c, 0 between (wave36c's), c a number or an array per row."""
    r = X @ w - y
    return np.sum(np.where(r > c, 2.0 * (r - c), np.where(r < -c, -(r + c), 0.0)))


def quantile_huber(w, X, y, tau, d):
    """A weight jumping at 0 (1 - tau, tau) times a Huber of half-width d."""
    r = y - X @ w
    a = np.abs(r)
    h = np.where(a <= d, 0.5 * r * r / d, a - 0.5 * d)
    return np.mean(np.where(r < 0.0, (1.0 - tau) * h, tau * h))


def eps_hinges(w, X, y, eps):
    """SVR's loss: two hinges at -eps and eps."""
    r = X @ w - y
    return np.mean(np.maximum(r - eps, 0.0) + np.maximum(-r - eps, 0.0))


def pinball(w, X, y, tau):
    """A pinball loss by np.where of two lines, summed."""
    r = y - X @ w
    return np.sum(np.where(r >= 0.0, tau * r, (tau - 1.0) * r))


def clip_bounds(w, X, y, lo, hi):
    """A clipped residual squared: lo > hi in some rows (np.clip gives hi there)."""
    r = X @ w - y
    return np.sum(np.clip(r, lo, hi) ** 2 + 0.1 * r)


def inner_jump(w, X, y, s, d):
    """A weight that jumps at an inner threshold s (not 0) times a clip at +-d."""
    r = X @ w - y
    c = np.clip(r, -d, d)
    return np.sum(np.where(r < s, 0.3 * c * r, 1.7 * c * r))


def masked_lines(w, X, y, c):
    """A mask read only as a condition, lines on each side."""
    r = X @ w - y
    below = r < c
    return np.mean(np.where(below, 3.0 * r, -r) + 0.5 * np.where(below, 1.0, 2.0) * r)


def abs_ties(w, X, y, t):
    """Ties at -t and t: one test of np.abs(r) in the rewrite."""
    r = X @ w - y
    return np.sum(np.where(np.abs(r) <= t, 0.5 * r, np.sign(r) * (r - 0.5 * np.sign(r) * t)))


# ---- states written into a preallocated array (row_writes.py) ----


def rows_two_back(W, U, xs):
    """A second-order recurrence: H[t + 2] from H[t + 1] and H[t]."""
    T = xs.shape[0]
    H = np.zeros((T + 2, xs.shape[1], U.shape[0]))
    H[1] = 0.1
    for t in range(T):
        H[t + 2] = np.tanh(xs[t] @ W + H[t + 1] @ U - 0.5 * H[t])
    return np.sum(H ** 2)


def rows_written_ahead(W, U, xs):
    """Each step writes rows t + 1 and t + 2 (the next step overwrites t + 2)."""
    T = xs.shape[0]
    H = np.zeros((T + 2, xs.shape[1], U.shape[0]))
    for t in range(T):
        h = np.tanh(xs[t] @ W + H[t] @ U)
        H[t + 1] = h
        H[t + 2] = 2.0 * h
    return np.sum(H ** 2)


def rows_kept_in_list(W, U, xs):
    """The rows read are kept in a list and summed after the loop, beside a write after the loop."""
    T = xs.shape[0]
    H = np.zeros((T + 1, xs.shape[1], U.shape[0]))
    seen = []
    for t in range(T):
        prev = H[t]
        H[t + 1] = np.tanh(xs[t] @ W + prev @ U)
        seen.append(prev)
    H[0] = H[T]
    return np.sum(sum(seen) ** 2) + np.sum(H * H)


def rows_alias(W, U, xs):
    """Another name for the array before the loop, read after it."""
    T = xs.shape[0]
    H = np.zeros((T + 1, xs.shape[1], U.shape[0]))
    G = H
    for t in range(T):
        H[t + 1] = np.tanh(xs[t] @ W + H[t] @ U)
    return np.sum(G ** 2)


def rows_epochs(W, U, xs):
    """The loop run twice from the last state of the first run (the array written before the 2nd)."""
    T = xs.shape[0]
    H = np.zeros((T + 1, xs.shape[1], U.shape[0]))
    total = 0.0
    for _e in range(2):
        for t in range(T):
            H[t + 1] = np.tanh(xs[t] @ W + H[t] @ U)
        total = total + np.sum(H[1:] ** 2)
        H[0] = H[T]
    return total


def rows_given(H, W, xs):
    """The array is the differentiated argument, written into in the loop."""
    H = H.copy()
    for t in range(xs.shape[0]):
        H[t + 1] = np.tanh(xs[t] @ W + H[t])
    return np.sum(H ** 3)


def rows_computed_index(W, U, xs):
    """Rows counted through names bound to the counter (k = t + 1), the last read at T - 1 - t."""
    T = xs.shape[0]
    H = np.zeros((T + 1, xs.shape[1], U.shape[0]))
    for t in range(T):
        k = t + 1
        H[k] = np.tanh(xs[t] @ W + H[t] @ U + H[T - 1 - t])
    return np.sum(H ** 2)


def rows_returned_row(W, U, xs):
    """A row view read after the loop, and the last row of the array."""
    T = xs.shape[0]
    H = np.zeros((T + 1, xs.shape[1], U.shape[0]))
    first = H[1]
    for t in range(T):
        H[t + 1] = np.tanh(xs[t] @ W + H[t] @ U)
    return np.sum(first * H[-1]) + np.sum(H[1])


# ---- histories read at [-1] (last_items.py) ----


def hist_two_back(W, xs):
    """Reads [-1] and [-2]: left to list_joins."""
    hs = [np.zeros(W.shape[0]), np.zeros(W.shape[0])]
    for x in xs:
        hs.append(np.tanh(W @ hs[-1] + 0.5 * hs[-2] + x))
    return np.sum(hs[-1] ** 2) + np.sum(np.stack(hs) ** 2)


def hist_mutated_after(W, xs):
    """Read at [-1] in the loop, its last item replaced and popped after."""
    hs = [np.ones(W.shape[0])]
    for x in xs:
        hs.append(np.tanh(W @ hs[-1] + x))
    hs[-1] = 2.0 * hs[-1]
    last = hs.pop()
    return np.sum(last ** 2) + np.sum(np.stack(hs) ** 2)


def hist_two_appends(W, xs):
    """Two appends a step, [-1] read between them."""
    hs = [np.ones(W.shape[0])]
    for x in xs:
        hs.append(np.tanh(W @ hs[-1] + x))
        hs.append(np.sin(hs[-1]) * hs[-1])
    return sum(np.sum(h * h) for h in hs)


def hist_last_item_expr(W, xs):
    """The list made from a display whose last item is an expression, read at [-1] and by len."""
    h0 = np.ones(W.shape[0])
    hs = [h0, W @ h0]
    for x in xs:
        hs.append(np.tanh(W @ hs[-1] + x) * len(hs))
    return np.sum(hs[-1]) + np.sum(hs[1])


# ---- methods that only read self (reading_methods.py) ----


class Spring:
    def __init__(self, k, c):
        self.k = k
        self.c = c

    def accel(self, x, v):
        return -self.k * x - self.c * v


class Leaky:
    """A method that changes self.k through an alias, in place."""

    def __init__(self, k, c):
        self.k = k
        self.c = c

    def accel(self, x, v):
        k = self.k
        k *= 1.1
        return -k * x - self.c * v


def spring_loop(p, x0):
    s = Spring(p[0], p[1])
    x, v = x0, 0.0
    for _ in range(20):
        a = s.accel(x, v)
        v = v + 0.05 * a
        x = x + 0.05 * v
    return x * x + v


def leaky_loop(p, x0):
    s = Leaky(np.array([p[0]]), p[1])
    x, v = x0, 0.0
    for _ in range(5):
        a = s.accel(x, v)
        v = v + 0.1 * a
        x = x + 0.1 * v
    return np.sum(x * x + v)


# ---- an array's two ends joined (whole_arrays.py) ----


def joined_ends(W, x):
    """A join of W's two ends written by the user, then written into: the join is no view of W."""
    J = np.concatenate([W[:, :2], W[:, 2:]], axis=-1)
    J[0, 0] = 0.0
    return np.sum(J * W) + np.sum(np.tanh(x @ J))


def joined_ends_3d(A):
    """Three axes: the join along the last axis of slices of axis 1 is not A."""
    J = np.concatenate([A[:, :2], A[:, 2:]], axis=-1)
    return np.sum(J ** 2 * np.arange(J.size).reshape(J.shape))


# ---- arguments ----


def residual(extra, n=12, d=3):
    def make(rng):
        X = rng.standard_normal((n, d))
        y = X @ rng.standard_normal(d) + rng.standard_normal(n)
        return (0.4 * rng.standard_normal(d), X, y) + tuple(e(rng) if callable(e) else e for e in extra)
    return make


def ties(extra, at):
    """Residuals X w - y exactly at the points `at` on the first rows (X of integers, w of few binary digits)."""
    def make(rng):
        X = rng.integers(-3, 4, (10, 3)).astype(float)
        w = np.array([0.5, -0.25, 0.75])
        s = X @ w
        y = s + rng.standard_normal(10)
        y[:len(at)] = s[:len(at)] - np.array(at)
        return (w, X, y) + tuple(e(rng) if callable(e) else e for e in extra)
    return make


def _rows(rng, n=2, n_in=3, T=3, B=2):
    return 0.5 * rng.normal(size=(n_in, n)), 0.5 * rng.normal(size=(n, n)), rng.normal(size=(T, B, n_in))


def _hist(rng, n=3, T=4):
    return 0.5 * rng.normal(size=(n, n)), rng.normal(size=(T, n))


def _per_row(lo, hi, n=12):
    return lambda rng: rng.uniform(lo, hi, n)


PROGRAMS = [
    ("three_steps_c_array", three_steps, residual((_per_row(0.2, 1.0),)), 0),
    ("three_steps_c_array_wrt_c", three_steps, residual((_per_row(0.2, 1.0),)), 3),
    ("three_steps_c_negative", three_steps, residual((-0.4,)), 0),
    ("three_steps_c_mixed_signs", three_steps, residual((_per_row(-1.0, 1.0),)), 0),
    ("three_steps_c_zero", three_steps, residual((0.0,)), 0),
    ("three_steps_int_c", three_steps, residual((1,)), 0),
    ("quantile_huber_d_array", quantile_huber, residual((0.3, _per_row(0.3, 1.5))), 0),
    ("quantile_huber_wrt_d", quantile_huber, residual((0.3, 0.8)), 4),
    ("quantile_huber_wrt_tau", quantile_huber, residual((0.3, 0.8)), 3),
    ("quantile_huber_tau_array", quantile_huber, residual((_per_row(0.1, 0.9), 0.8)), 0),
    ("eps_hinges_eps_array", eps_hinges, residual((_per_row(-0.5, 0.8),)), 0),
    ("eps_hinges_eps_negative", eps_hinges, residual((-0.3,)), 0),
    ("eps_hinges_wrt_eps", eps_hinges, residual((0.5,)), 3),
    ("pinball_tau_array", pinball, residual((_per_row(0.1, 0.9),)), 0),
    ("pinball_wrt_tau", pinball, residual((0.3,)), 3),
    ("clip_bounds_crossed", clip_bounds, residual((_per_row(-1.0, 1.0), _per_row(-1.0, 1.0))), 0),
    ("clip_bounds_numbers_crossed", clip_bounds, residual((0.5, -0.5)), 0),
    ("clip_bounds_wrt_lo", clip_bounds, residual((-0.5, 0.6)), 3),
    ("inner_jump", inner_jump, residual((0.2, 0.9)), 0),
    ("inner_jump_s_outside", inner_jump, residual((1.5, 0.9)), 0),
    ("inner_jump_s_array", inner_jump, residual((_per_row(-0.5, 0.5), 0.9)), 0),
    ("inner_jump_wrt_s_d", inner_jump, residual((0.2, 0.9)), 4),
    ("masked_lines", masked_lines, residual((0.1,)), 0),
    ("masked_lines_c_array", masked_lines, residual((_per_row(-0.5, 0.5),)), 0),
    ("abs_ties_t_array", abs_ties, residual((_per_row(0.1, 1.0),)), 0),
    ("abs_ties_t_negative", abs_ties, residual((-0.5,)), 0),
    ("rows_two_back_U", rows_two_back, _rows, 1),
    ("rows_written_ahead_U", rows_written_ahead, _rows, 1),
    ("rows_kept_in_list_U", rows_kept_in_list, _rows, 1),
    ("rows_alias_U", rows_alias, _rows, 1),
    ("rows_epochs_U", rows_epochs, _rows, 1),
    ("rows_given_H", rows_given, lambda rng: (0.3 * rng.normal(size=(4, 2, 2)), 0.5 * rng.normal(size=(3, 2)),
                                              rng.normal(size=(3, 2, 3))), 0),
    ("rows_computed_index_U", rows_computed_index, _rows, 1),
    ("rows_returned_row_U", rows_returned_row, _rows, 1),
    ("hist_two_back", hist_two_back, _hist, 0),
    ("hist_mutated_after", hist_mutated_after, _hist, 0),
    ("hist_two_appends", hist_two_appends, _hist, 0),
    ("hist_last_item_expr", hist_last_item_expr, _hist, 0),
    ("spring_loop", spring_loop, lambda rng: (np.array([2.0, 0.3]), 1.0), 0),
    ("leaky_loop", leaky_loop, lambda rng: (np.array([2.0, 0.3]), 1.0), 0),
    ("joined_ends", joined_ends, lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=(2, 3))), 0),
    ("joined_ends_3d", joined_ends_3d, lambda rng: (rng.normal(size=(2, 4, 3)),), 0),
]


# ---- residuals of missing labels (NaN): the loss's comparisons leave them out, the loss is finite ----


def band_sq(w, X, y, eps):
    """The squared epsilon-insensitive loss by np.where: 0 inside the band and where r is NaN."""
    r = X @ w - y
    a = np.abs(r)
    return np.sum(np.where(a > eps, (a - eps) ** 2, 0.0))


def steps_middle_last(w, X, y, c):
    """Three pieces, the middle one (0) written last: where r is NaN every test is false, the loss 0."""
    r = X @ w - y
    return np.mean(np.where(r < -c, -3.0 * (r + c), np.where(r > c, r - c, 0.0)))


def hinge_up_first(w, X, y, c):
    """The top piece tested first, the bottom one last: NaN takes the bottom (a constant 1)."""
    r = X @ w - y
    return np.sum(np.where(r >= c, 2.0 * r, np.where(r > -c, r + c + 1.0, 1.0)))


NAN_PROGRAMS = [
    ("three_steps_nan", three_steps, (0.5,)),
    ("band_sq_nan", band_sq, (0.8,)),
    ("steps_middle_last_nan", steps_middle_last, (0.6,)),
    ("hinge_up_first_nan", hinge_up_first, (0.4,)),
]
