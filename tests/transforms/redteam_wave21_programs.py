"""The red team's twenty-first wave: programs written the way users write them against the
optimiser's newest passes: piecewise losses whose adjoint selections are dropped case by case
(backend/optimize/cases.py), sigmoids whose adjoint is read from their value (logistic.py),
gates cut from one weight matrix by np.split or by column blocks (splits.py,
adjacent_products.py), repeated solves with one matrix or one Cholesky factor
(repeated_solves.py, frontend/cholesky_factors.py), and float32 arguments meeting float64
values (ir/dtype_inference.py).  test_redteam_wave21.py runs them through every transformation
against float64 central differences."""

import numpy as np
import scipy.linalg as sla
from scipy.linalg import cho_factor, cho_solve


def M(r, *shape):
    return r.normal(size=shape)


def residual(r, n=12, d=3, extra=(0.8,)):
    X = r.normal(size=(n, d))
    return (0.3 * r.normal(size=d), X, 2.0 * r.normal(size=n)) + tuple(extra)


def spd(r, n):
    A = r.normal(size=(n, n))
    return A @ A.T / n + np.eye(n)


# ---- 1. selections decided case by case (cases.py) -------------------------------------------


def huber_rebound(w, X, y, d):
    a = np.abs(X @ w - y)
    q = np.minimum(a, d)
    first = np.sum(q * (a - 0.5 * q))
    a = a * 2.0  # the operands rebound: the second minimum decides other values
    q = np.minimum(a, d)
    return first + np.sum(q * (a - 0.5 * q))


def where_condition_on_other_value(w, X, y, d):
    r = X @ w - y
    s = np.sin(r)
    q = np.where(r > d, s, r)  # a condition on r selecting s
    return np.sum(q * (s - 0.5 * q))


def nested_wheres(w, X, y, d):
    r = X @ w - y
    e = np.where(r > d, r, np.where(r < -d, -r, d))
    return np.sum(e * (r - 0.5 * e))


def minimum_column_bounds(W, X, y, d):
    A = np.abs(X @ W - y[:, None])
    b = d * np.linspace(0.5, 1.5, W.shape[1])  # one bound a column, broadcast down the rows
    q = np.minimum(A, b)
    return np.sum(q * (A - 0.5 * q))


def huber_in_a_loop(w, X, y, d):
    r = X @ w - y
    total = 0.0
    for k in range(3):
        a = np.abs(r * (k + 1.0))
        q = np.minimum(a, d)
        total = total + np.sum(q * (a - 0.5 * q))
    return total


def minimum_or_maximum_by_branch(w, X, y, d):
    a = np.abs(X @ w - y)
    if d > 0.5:
        q = np.minimum(a, d)
    else:
        q = np.maximum(a, d)
    return np.sum(q * (a - 0.5 * q))


def operand_written_in_place(w, X, y, d):
    a = np.abs(X @ w - y)
    q = np.minimum(a, d)
    a[0] = 3.0 * a[0]  # q keeps the old a[0]: q is no longer a where a <= d
    return np.sum(q * (a - 0.5 * q))


def minimum_written_in_place(w, X, y, d):
    a = np.abs(X @ w - y)
    q = np.minimum(a, d)
    q[1] = a[1]
    return np.sum(q * (a - 0.5 * q))


def clip_bounds_reversed(w, X, y, d):
    r = X @ w - y
    c = np.clip(r, d, -d)  # lo > hi: every element is -d
    return np.sum(c * (r - 0.5 * c)) + np.sum(r ** 2)


def clip_array_upper_bound(w, X, y, d):
    r = X @ w - y
    hi = d * (1.0 + np.arange(len(y)) / len(y))
    c = np.clip(r, -d, hi)
    return np.sum(c * (r - 0.5 * c))


def minimum_of_integer_bounds(w, X, y, d):
    a = np.abs(X @ w - y)
    q = np.minimum(a, np.arange(len(y)) % 2 + 1)
    return np.sum(q * (a - 0.5 * q))


def minimum_reused_with_its_condition(w, X, y, d):
    a = np.abs(X @ w - y)
    q = np.minimum(a, d)
    g = np.where(a <= d, a, 0.0)
    return np.sum(q * (a - 0.5 * q)) + np.sum(g * q)


def pinball_and_negative_part(w, X, y, tau):
    r = y - X @ w
    return np.mean(np.maximum(tau * r, (tau - 1.0) * r)) + np.sum(np.minimum(r, 0.0) * r)


def two_conditions_joined(w, X, y, d):
    r = X @ w - y
    a = np.abs(r)
    q = np.minimum(a, d)
    m = np.where((a <= d) & (r > 0.0), a - q, r)  # zero where both hold: a - q is 0 there
    return np.sum(q * (a - 0.5 * q)) + np.sum(m * r)


def mask_kept_past_rebinding(w, X, y, d):
    r = X @ w - y
    a = np.abs(r)
    inside = a <= d
    a = a * 1.5  # the mask says nothing of the new a
    q = np.where(inside, a, d)
    return np.sum(q * (a - 0.5 * q))


def where_of_where_on_one_condition(w, X, y, d):
    r = X @ w - y
    e = np.where(r > d, r, d)
    f = np.where(r > d, e - r, e)
    return np.sum(e * (r - 0.5 * e)) + np.sum(f * r)


def maximum_then_minimum(w, X, y, d):
    r = X @ w - y
    c = np.minimum(np.maximum(r, -d), d)  # np.clip spelled out
    return np.sum(c * (r - 0.5 * c))


def equal_condition(w, X, y, d):
    r = X @ w - y
    q = np.maximum(r, d)
    return np.sum(np.where(r == d, 0.0, q * (r - 0.5 * q)))


# ---- 2. sigmoids read from their value (logistic.py) -----------------------------------------


def sigmoid_ratio(x, w):
    e = np.exp(x)
    return np.sum(w * e / (1.0 + e))


def sigmoid_one_added_last(x, w):
    return np.sum(w / (np.exp(-x) + 1))


def sigmoid_rebound(x, w):
    s = 1.0 / (1.0 + np.exp(-x))
    s = s * s
    return np.sum(w * s)


def sigmoid_of_sigmoid(x, w):
    s = 1.0 / (1.0 + np.exp(-x))
    return np.sum(w / (1.0 + np.exp(-s)))


def binary_cross_entropy(x, y):
    p = 1.0 / (1.0 + np.exp(-x))
    return -np.sum(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def denominator_also_logged(x, w):
    e = np.exp(-x)
    d = 1.0 + e
    return np.sum(w / d) + np.sum(np.log(d))


def one_minus_exponential(x, w):
    e = np.exp(-x)
    return np.sum(w / (1.0 - e))


def x_over_one_plus_x(x, w):
    return np.sum(w * x / (1.0 + x))


def sigmoid_in_a_loop(x, w):
    h = x
    for _ in range(3):
        h = 1.0 / (1.0 + np.exp(-h * w))
    return np.sum(h)


# ---- 3. gates by np.split and by column blocks (splits.py, adjacent_products.py) --------------


def sig(z):
    return 1.0 / (1.0 + np.exp(-z))


def gru_blocks(h, U, xs):
    n = h.shape[1]
    for t in range(3):
        z = sig(xs[t] + h @ U[:, :n])
        r = sig(h @ U[:, n:2 * n])
        c = np.tanh((r * h) @ U[:, 2 * n:3 * n])
        h = (1.0 - z) * h + z * c
    return np.sum(h ** 2)


def blocks_out_of_order(h, U, xs):
    n = h.shape[1]
    for _ in range(3):
        c = np.tanh(h @ U[:, n:2 * n])
        z = sig(h @ U[:, :n])
        h = (1.0 - z) * h + z * c
    return np.sum(h ** 2)


def blocks_not_adjacent(h, U, xs):
    n = h.shape[1]
    for _ in range(3):
        z = sig(h @ U[:, :n])
        c = np.tanh(h @ U[:, 2 * n:3 * n])
        h = (1.0 - z) * h + z * c
    return np.sum(h ** 2)


def blocks_overlapping(h, U, xs):
    n = h.shape[1]
    for _ in range(3):
        z = sig(h @ U[:, 1:n + 1])
        c = np.tanh(h @ U[:, n:2 * n])
        h = (1.0 - z) * h + z * c
    return np.sum(h ** 2)


def blocks_of_two_matrices(h, U, V):
    n = h.shape[1]
    for _ in range(3):
        z = sig(h @ U[:, :n])
        c = np.tanh(h @ V[:, n:2 * n])
        h = (1.0 - z) * h + z * c
    return np.sum(h ** 2)


def blocks_matrix_rebound_between(h, U, xs):
    n = h.shape[1]
    for _ in range(3):
        z = sig(h @ U[:, :n])
        U = U + 0.1
        c = np.tanh(h @ U[:, n:2 * n])
        h = (1.0 - z) * h + z * c
    return np.sum(h ** 2)


def blocks_matrix_written_between(h, U, xs):
    n = h.shape[1]
    U = U.copy()
    for _ in range(3):
        z = sig(h @ U[:, :n])
        U[:, :n] *= 0.9
        c = np.tanh(h @ U[:, n:2 * n])
        h = (1.0 - z) * h + z * c
    return np.sum(h ** 2)


def blocks_moving_offset(h, U, xs):
    n = h.shape[1]
    m = 0
    for _ in range(2):
        z = sig(h @ U[:, m:m + n])
        c = np.tanh(h @ U[:, m + n:m + 2 * n])
        h = (1.0 - z) * h + z * c
        m = m + 1
    return np.sum(h ** 2)


def blocks_of_rows(h, U, xs):
    n = h.shape[1]
    for _ in range(3):
        z = sig(h @ U[:n, :].T)
        c = np.tanh(h @ U[n:2 * n, :].T)
        h = (1.0 - z) * h + z * c
    return np.sum(h ** 2)


def blocks_of_an_alias(h, U, xs):
    n = h.shape[1]
    W = U
    for _ in range(3):
        z = sig(h @ U[:, :n])
        c = np.tanh(h @ W[:, n:2 * n])
        h = (1.0 - z) * h + z * c
    return np.sum(h ** 2)


def blocks_state_rebound_between(h, U, xs):
    n = h.shape[1]
    for _ in range(3):
        z = sig(h @ U[:, :n])
        h = h * 0.5
        c = np.tanh(h @ U[:, n:2 * n])
        h = (1.0 - z) * h + z * c
    return np.sum(h ** 2)


def lstm_split(h, U, x):
    z = x + h @ U
    i, f, o, g = np.split(z, 4, axis=1)
    c = sig(f) * h + sig(i) * np.tanh(g)
    return np.sum(sig(o) * np.tanh(c))


def split_again_after_rebinding(h, U, x):
    z = x + h @ U
    i, f, o, g = np.split(z, 4, axis=1)
    z = z * 2.0
    i2, f2, o2, g2 = np.split(z, 4, axis=1)
    return np.sum(sig(i) * np.tanh(g2) + f * o2)


def split_piece_written(h, U, x):
    z = x + h @ U
    a, b = np.split(z, 2, axis=1)
    a = a.copy()
    a[0] = 0.0
    return np.sum(np.tanh(a) * b) + np.sum(z ** 2)


def split_list_indexed(h, U, x):
    z = x + h @ U
    parts = np.split(z, 4, axis=1)
    return np.sum(parts[0] * parts[3]) + np.sum(parts[0] ** 2)


# ---- 4. repeated solves, one matrix or one Cholesky factor (repeated_solves.py) ---------------


def solve_two_right_hand_sides(r, K):
    a = np.linalg.solve(K, r)
    b = np.linalg.solve(K, 2.0 * r + 1.0)
    return r @ a + np.sum(b * r)


def solve_matrix_rebound(r, K):
    a = np.linalg.solve(K, r)
    K = K + np.eye(K.shape[0])
    b = np.linalg.solve(K, r)
    return r @ a + 0.5 * (r @ b)


def solve_right_hand_side_written(r, K):
    b = r.copy()
    a = np.linalg.solve(K, b)
    b[0] = 5.0
    c = np.linalg.solve(K, b)
    return r @ a + r @ c


def solve_of_a_solve(r, K):
    a = np.linalg.solve(K, r)
    return r @ np.linalg.solve(K, a)


def solve_and_transpose(r, K):
    a = np.linalg.solve(K, r)
    b = np.linalg.solve(K.T, r)
    return r @ a + np.sum(b ** 2)


def solve_first_element_zero(r, K):
    r = r.copy()
    r[0] = 0.0  # proportion() cannot read a scale from a zero first element
    return r @ np.linalg.solve(K, r)


def cho_quadratic(r, K):
    c = cho_factor(K)  # SciPy reads K's upper triangle
    return r @ cho_solve(c, r)


def cho_quadratic_lower(r, K):
    c, low = cho_factor(K, lower=True)
    return r @ cho_solve((c, low), r)


def cho_two_right_hand_sides(r, K):
    c = cho_factor(K)
    a = cho_solve(c, r)
    b = cho_solve(c, r * r)
    return r @ a + np.sum(b)


def cho_rows(R, K):
    c = cho_factor(K)
    return np.sum(R * cho_solve(c, R.T).T)


def cholesky_triangular_solves(r, K):
    L = np.linalg.cholesky(K)
    z = sla.solve_triangular(L, r, lower=True)
    y = sla.solve_triangular(L, 3.0 * r, lower=True)
    return z @ z + 0.1 * (y @ z)


def gp_likelihood(K, r):
    c, low = cho_factor(K)
    return 0.5 * r @ cho_solve((c, low), r) + np.sum(np.log(np.diag(c)))


#: (name, function, arguments(rng), the parameter differentiated)
PROGRAMS = [
    ("huber_rebound", huber_rebound, lambda r: residual(r), 0),
    ("where_condition_on_other_value", where_condition_on_other_value, lambda r: residual(r, extra=(0.3,)), 0),
    ("nested_wheres", nested_wheres, lambda r: residual(r, extra=(0.5,)), 0),
    ("minimum_column_bounds", minimum_column_bounds,
     lambda r: (0.3 * M(r, 3, 4), M(r, 12, 3), 2.0 * M(r, 12), 0.8), 0),
    ("huber_in_a_loop", huber_in_a_loop, lambda r: residual(r), 0),
    ("minimum_by_branch", minimum_or_maximum_by_branch, lambda r: residual(r), 0),
    ("maximum_by_branch", minimum_or_maximum_by_branch, lambda r: residual(r, extra=(0.3,)), 0),
    ("operand_written_in_place", operand_written_in_place, lambda r: residual(r), 0),
    ("minimum_written_in_place", minimum_written_in_place, lambda r: residual(r), 0),
    ("clip_bounds_reversed", clip_bounds_reversed, lambda r: residual(r), 0),
    ("clip_array_upper_bound", clip_array_upper_bound, lambda r: residual(r), 0),
    ("minimum_of_integer_bounds", minimum_of_integer_bounds, lambda r: residual(r), 0),
    ("minimum_reused_with_its_condition", minimum_reused_with_its_condition, lambda r: residual(r), 0),
    ("pinball_and_negative_part", pinball_and_negative_part, lambda r: residual(r, extra=(0.3,)), 0),
    ("two_conditions_joined", two_conditions_joined, lambda r: residual(r), 0),
    ("mask_kept_past_rebinding", mask_kept_past_rebinding, lambda r: residual(r), 0),
    ("where_of_where_on_one_condition", where_of_where_on_one_condition, lambda r: residual(r), 0),
    ("maximum_then_minimum", maximum_then_minimum, lambda r: residual(r), 0),
    ("equal_condition", equal_condition, lambda r: residual(r), 0),
    ("sigmoid_ratio", sigmoid_ratio, lambda r: (2.0 * M(r, 6), M(r, 6)), 0),
    ("sigmoid_one_added_last", sigmoid_one_added_last, lambda r: (2.0 * M(r, 6), M(r, 6)), 0),
    ("sigmoid_rebound", sigmoid_rebound, lambda r: (2.0 * M(r, 6), M(r, 6)), 0),
    ("sigmoid_of_sigmoid", sigmoid_of_sigmoid, lambda r: (2.0 * M(r, 6), M(r, 6)), 0),
    ("binary_cross_entropy", binary_cross_entropy, lambda r: (2.0 * M(r, 6), np.arange(6.0) % 2), 0),
    ("denominator_also_logged", denominator_also_logged, lambda r: (2.0 * M(r, 6), M(r, 6)), 0),
    ("one_minus_exponential", one_minus_exponential, lambda r: (1.0 + np.abs(M(r, 6)), M(r, 6)), 0),
    ("x_over_one_plus_x", x_over_one_plus_x, lambda r: (np.abs(M(r, 6)), M(r, 6)), 0),
    ("sigmoid_in_a_loop", sigmoid_in_a_loop, lambda r: (M(r, 6), M(r, 6)), 0),
    ("gru_blocks", gru_blocks, lambda r: (M(r, 2, 3), 0.5 * M(r, 3, 9), M(r, 3, 2, 3)), 1),
    ("blocks_out_of_order", blocks_out_of_order, lambda r: (M(r, 2, 3), 0.5 * M(r, 3, 9), None), 1),
    ("blocks_not_adjacent", blocks_not_adjacent, lambda r: (M(r, 2, 3), 0.5 * M(r, 3, 9), None), 1),
    ("blocks_overlapping", blocks_overlapping, lambda r: (M(r, 2, 3), 0.5 * M(r, 3, 9), None), 1),
    ("blocks_of_two_matrices", blocks_of_two_matrices, lambda r: (M(r, 2, 3), 0.5 * M(r, 3, 9), 0.5 * M(r, 3, 9)), 1),
    ("blocks_matrix_rebound_between", blocks_matrix_rebound_between,
     lambda r: (M(r, 2, 3), 0.5 * M(r, 3, 9), None), 1),
    ("blocks_matrix_written_between", blocks_matrix_written_between,
     lambda r: (M(r, 2, 3), 0.5 * M(r, 3, 9), None), 1),
    ("blocks_moving_offset", blocks_moving_offset, lambda r: (M(r, 2, 3), 0.5 * M(r, 3, 9), None), 1),
    ("blocks_of_rows", blocks_of_rows, lambda r: (M(r, 2, 3), 0.5 * M(r, 9, 3), None), 1),
    ("blocks_of_an_alias", blocks_of_an_alias, lambda r: (M(r, 2, 3), 0.5 * M(r, 3, 9), None), 1),
    ("blocks_state_rebound_between", blocks_state_rebound_between,
     lambda r: (M(r, 2, 3), 0.5 * M(r, 3, 9), None), 0),
    ("lstm_split", lstm_split, lambda r: (M(r, 2, 3), 0.5 * M(r, 3, 12), M(r, 2, 12)), 1),
    ("split_again_after_rebinding", split_again_after_rebinding,
     lambda r: (M(r, 2, 3), 0.5 * M(r, 3, 12), M(r, 2, 12)), 1),
    ("split_piece_written", split_piece_written, lambda r: (M(r, 2, 3), 0.5 * M(r, 3, 12), M(r, 2, 12)), 0),
    ("split_list_indexed", split_list_indexed, lambda r: (M(r, 2, 3), 0.5 * M(r, 3, 12), M(r, 2, 12)), 1),
    ("solve_two_right_hand_sides", solve_two_right_hand_sides, lambda r: (M(r, 4), spd(r, 4)), 1),
    ("solve_matrix_rebound", solve_matrix_rebound, lambda r: (M(r, 4), spd(r, 4)), 1),
    ("solve_right_hand_side_written", solve_right_hand_side_written, lambda r: (M(r, 4), spd(r, 4)), 0),
    ("solve_of_a_solve", solve_of_a_solve, lambda r: (M(r, 4), spd(r, 4)), 1),
    ("solve_and_transpose", solve_and_transpose, lambda r: (M(r, 4), spd(r, 4)), 1),
    ("solve_first_element_zero", solve_first_element_zero, lambda r: (M(r, 4), spd(r, 4)), 1),
    ("cho_quadratic", cho_quadratic, lambda r: (M(r, 4), spd(r, 4)), 1),
    ("cho_quadratic_r", cho_quadratic, lambda r: (M(r, 4), spd(r, 4)), 0),
    ("cho_quadratic_lower", cho_quadratic_lower, lambda r: (M(r, 4), spd(r, 4)), 1),
    ("cho_two_right_hand_sides", cho_two_right_hand_sides, lambda r: (M(r, 4), spd(r, 4)), 1),
    ("cho_rows", cho_rows, lambda r: (M(r, 3, 4), spd(r, 4)), 1),
    ("cholesky_triangular_solves", cholesky_triangular_solves, lambda r: (M(r, 4), spd(r, 4)), 1),
    ("gp_likelihood", gp_likelihood, lambda r: (spd(r, 4), M(r, 4)), 0),
]

#: the same solves at 40 rows, where np.linalg.solve goes through a shared Cholesky factor
#: (rules/symmetric.py: 32 rows or more)
LARGE = [
    ("solve_two_right_hand_sides_40", solve_two_right_hand_sides, lambda r: (M(r, 40), spd(r, 40)), 1),
    ("solve_matrix_rebound_40", solve_matrix_rebound, lambda r: (M(r, 40), spd(r, 40)), 1),
    ("solve_and_transpose_40", solve_and_transpose, lambda r: (M(r, 40), spd(r, 40)), 1),
    ("cho_quadratic_40", cho_quadratic, lambda r: (M(r, 40), spd(r, 40)), 1),
    ("cho_rows_40", cho_rows, lambda r: (M(r, 3, 40), spd(r, 40)), 1),
]


# ---- 5. float32 arguments meeting float64 values (dtype_inference.py), differentiated with respect
# to a Python float k that meets a float64 value first: the function is float64 in k ----------------

W64 = np.array([0.5, -0.2, 0.9])  # a module's float64 array
C64 = np.float64(1.3)  # a module's NumPy float64 number


def f32_times_list(u, k):
    return np.sum(np.sin(k * (u * [1.0, 2.0, 3.0])))  # a list of Python floats is a float64 array


def f32_array_of_mixed_list(u, k):
    return np.sum(np.sin(k * np.array([u[0], 0.3])))


def f32_concatenate_list(u, k):
    return np.sum(np.sin(k * np.concatenate([u, [0.5]])))


def f32_polyval_list(u, k):
    return np.sum(np.sin(k * np.polyval([1.0, 0.3], u)))


def f32_dot_list(u, k):
    return np.sin(k * np.dot(u, [1.0, 2.0, 3.0]))


def f32_where_float64(u, k):
    return np.sum(np.sin(k * np.where(u > 0, u, W64)))


def f32_module_number(u, k):
    return np.sum(np.sin(k * (u * C64)))


def f32_sum_float64_dtype(u, k):
    return np.sin(k * np.sum(u, dtype=np.float64))


def f32_item(u, k):
    return np.sin(k * u[0].item() * 1.1)  # a Python float: float64 arithmetic from here


def f32_item_of_a_sum(u, k):
    return np.sin(k * np.sum(u * u).item()) + np.sum(u)


def f32_float_of(u, k):
    return np.sin(k * float(u[1]) * 1.1)


def f32_bool_mask_times(u, k):
    return np.sum(np.sin(k * (u * (u > 0) * W64)))


def _f32(r):
    return np.array([0.31, -0.52, 0.77], dtype=np.float32), 1.37 + 0.1 * float(r.normal())


#: (name, function, arguments(rng), the parameter differentiated: k, a Python float)
MIXED = [
    (name, f, _f32, 1) for name, f in [
        ("f32_times_list", f32_times_list), ("f32_array_of_mixed_list", f32_array_of_mixed_list),
        ("f32_concatenate_list", f32_concatenate_list), ("f32_polyval_list", f32_polyval_list),
        ("f32_dot_list", f32_dot_list), ("f32_where_float64", f32_where_float64),
        ("f32_module_number", f32_module_number), ("f32_sum_float64_dtype", f32_sum_float64_dtype),
        ("f32_item", f32_item), ("f32_item_of_a_sum", f32_item_of_a_sum), ("f32_float_of", f32_float_of),
        ("f32_bool_mask_times", f32_bool_mask_times)]]
