"""NumPy calls grad refused (or was NaN on at second order) after the red team's tenth wave, each
written several ways: quantiles of several levels, covariances of two arrays, an array sorted in
place, and a tie raised to a power that flattens it.  test_reach11b_numpy.py runs every
transformation on them."""

import numpy as np
import scipy.linalg

LEVELS = (0.1, 0.5, 0.9)

# ---- np.quantile / np.percentile / np.nanquantile of several levels, np.median(axis=) ------------


def quantile_levels(x):
    return np.sum(np.quantile(x, [0.25, 0.75]) ** 2)


def percentile_levels_rows(X):
    return np.sum(np.percentile(np.sin(X), [10, 50, 90], axis=1) * np.array([[1.0], [2.0], [3.0]]))


def quantile_levels_global_keepdims(X):
    q = np.quantile(X * X, LEVELS, axis=0, keepdims=True)
    return np.sum(q[2] - q[0]) + np.sum(np.exp(q[1]))


def nanquantile_array_levels(x):
    return np.sum(np.nanquantile(x, np.array([0.3, 0.6])) * np.array([1.0, -2.0]))


def nanpercentile_and_nanmedian(X):
    return np.sum(np.nanpercentile(X, [20.0, 80.0], axis=0)) + np.sum(np.nanmedian(X, axis=1) ** 2)


def median_axis_in_a_loop(X):
    total = 0.0
    for k in range(2):
        total = total + np.sum(np.median(X * (k + 1.0), axis=1) ** 2)
    return total


def spread_of(x):
    low, high = np.quantile(x, [0.1, 0.9])
    return high - low


def quantile_levels_in_a_helper(x):
    return spread_of(np.tanh(x)) ** 2 + spread_of(x)


# ---- np.cov / np.corrcoef of two arrays, of a join ---------------------------------------------


def cov_of_two_vectors(a):
    return np.sum(np.cov(a, a ** 2))


def corrcoef_of_two_vectors(a, y):
    return np.corrcoef(a, np.sin(a) + y)[0, 1]


def cov_of_a_stack(a, y):
    C = np.cov(np.stack([a, y * a]))
    return C[0, 1] ** 2 + C[1, 1]


def cov_matrix_and_vector_ddof(X, y):
    return np.sum(np.cov(X, y=y, ddof=0) ** 2)


def cov_bias_y_keyword(a, y):
    return np.sum(np.cov(a, y=np.exp(a) * y, bias=True))


def corrcoef_of_a_stack(X):
    return np.sum(np.corrcoef(np.stack([X[0], X[1] ** 2, X[2]])) ** 2)


def cov_columns(X):
    return np.trace(np.cov(X, rowvar=False, ddof=1) @ np.cov(X.T, bias=True))


# ---- an array sorted in place (read as np.sort), np.sort of rows, argsort in an index -------------


def sort_a_copy_in_place(x):
    z = x.copy()
    z.sort()
    return z @ np.arange(1.0, x.size + 1.0)


def sort_rows_in_place(X):
    Z = X * 2.0
    Z.sort(axis=0)
    return np.sum(Z[-1] ** 2) - np.sum(Z[0])


def sort_in_place_in_a_loop(X):
    total = 0.0
    for k in range(2):
        Z = np.tanh(X + k)
        Z.sort()
        total = total + np.sum(Z[:, -1] - Z[:, 0])
    return total


def sort_rows_and_argsort(X, w):
    order = X[0].argsort()
    return np.sum(np.sort(X, axis=1) * w) + np.sum(X[:, order][:, 0] ** 2)


# ---- a tie raised to a power that flattens it: the Hessian exact at the tie ---------------------


def relu_cubed(x):
    return np.sum(np.maximum(x, 0.0) ** 3) + np.sum(x)


def clip_cubed(x):
    return np.sum(np.clip(x, 0.0, None) ** 3 * np.array([1.0, 2.0, 3.0]))


def relu_times_itself_twice(x):
    r = np.maximum(x, 0)
    return np.sum(r * r * r)


def negative_part_power(x):
    return np.sum(np.minimum(x, 0.0) ** 4) + np.sum(np.maximum(x - 1.0, 0.0) ** 2.5)


def scalar_relu_cubed(x):
    return max(x, 0.0) ** 3 + 2.0 * x


# ---- the tenth wave's smaller refusals: multi_dot of a list in a name, where= with dtype=, map of a lambda
# with defaults -------------------------------------------------------------------------------------


def multi_dot_of_a_name(A, B):
    mats = [A, B, np.sin(A)]
    return np.sum(np.linalg.multi_dot(mats))


def multi_dot_of_a_tuple_name(A, x):
    chain = (A, np.tanh(A), A)
    return x @ np.linalg.multi_dot(chain) @ x


def mean_where_dtype(x, mask):
    return np.mean(x ** 2, where=mask, dtype=np.float64) + np.sum(np.sin(x), where=mask, dtype=np.float64)


def sum_where_dtype_rows(X, mask):
    return np.sum(np.sum(np.sin(X), axis=1, where=mask, dtype=np.float64) ** 2)


def map_lambda_default(w, X):
    return sum(map(lambda row, s=2.0: s * np.sum(row * w), X))


def map_lambda_two_defaults(w, X):
    return sum(map(lambda row, s=0.5, p=3: s * np.sum(row * w) ** p, X))


# ---- running rows (redteam_special.running_rows without the shared array): a slice of the rows read
# back read its shape from the very adjoint being defined (an optimizer bug, UnboundLocalError) -------


def rows_written_slice_summed(x):
    rows = np.zeros((3, 3))
    for i in range(3):
        rows[i] = x[i] ** 2
    return np.sum(rows[1:])


def running_rows_rebound(x):
    acc = np.zeros(3)
    rows = []
    for i in range(3):
        acc = acc + x[i]
        rows.append(acc)
    return np.sum(np.stack(rows)[:-1] * 0.5) + np.sum(rows[0])


def rows_written_tail_mean(X):
    out = np.zeros(X.shape)
    for i in range(X.shape[0]):
        out[i] = np.tanh(X[i])
    return np.mean(out[2:]) + np.sum(out[:-1] ** 2)


def while_any_halves(x):
    while any(v > 1.0 for v in x):
        x = x / 2.0
    return np.sum(x ** 2)


def while_not_all_small(x):
    k = 0
    while not all(abs(v) < 0.5 for v in x):
        x = x * 0.5
        k = k + 1
    return np.sum(np.sin(x)) * (k + 1)


def while_any_rows_with_break(X):
    n = 0
    while any(np.sum(row) > 0.1 for row in X):
        X = X - 0.3
        n = n + 1
        if n > 10:
            break
    return np.sum(X * X)


# ---- np.linalg.det at a singular matrix: the cofactor matrix, exact at first and second order -------

RANK_TWO = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.5, -1.0, 2.0]])


def det_plus_ridge(A):
    return np.linalg.det(A) + 0.1 * np.sum(A ** 2)


def det_squared_and_sum(A):
    return np.linalg.det(A) ** 2 + np.sum(A)


def det_of_rows_in_a_helper(w):
    M = np.outer(w, w) + np.diag(w)  # singular where w has a 0
    return np.linalg.det(M) + np.sum(w ** 2)


def scipy_det_times_trace(A):
    return scipy.linalg.det(A) * np.trace(A)


def if_and_any(x, k):
    if k > 0 and any(v > 1.0 for v in x):
        return np.sum(x ** 2)
    return np.sum(np.sin(x))


def if_or_all(x):
    n = x.size
    if n > 5 or all(v > -2.0 for v in x):
        return np.sum(x ** 3)
    return np.sum(x)


def while_any_and_count(x):
    k = 0
    while any(v > 1.0 for v in x) and k < 5:
        x = x / 2.0
        k = k + 1
    return np.sum(x ** 2) + k


def elif_not_any(x):
    if x[0] > 5.0:
        return np.sum(x)
    elif x[1] < 3.0 and not any(v > 2.5 for v in x):
        return np.sum(x * x)
    return np.sum(np.cos(x))


AT_A_TIE = np.array([0.0, 0.7, -0.4])

PROGRAMS = [
    ("quantile_levels", quantile_levels, lambda r: (r.normal(size=6),), 0),
    ("percentile_levels_rows", percentile_levels_rows, lambda r: (r.normal(size=(3, 5)),), 0),
    ("quantile_levels_global_keepdims", quantile_levels_global_keepdims, lambda r: (r.normal(size=(5, 2)),), 0),
    ("nanquantile_array_levels", nanquantile_array_levels, lambda r: (r.normal(size=7),), 0),
    ("nanquantile_with_nan", nanquantile_array_levels, lambda r: (np.array([0.3, np.nan, -1.2, 2.0, 0.8]),), 0),
    ("nanpercentile_and_nanmedian", nanpercentile_and_nanmedian, lambda r: (r.normal(size=(4, 3)),), 0),
    ("median_axis_in_a_loop", median_axis_in_a_loop, lambda r: (r.normal(size=(3, 4)),), 0),
    ("quantile_levels_in_a_helper", quantile_levels_in_a_helper, lambda r: (r.normal(size=8),), 0),
    ("cov_of_two_vectors", cov_of_two_vectors, lambda r: (r.normal(size=5),), 0),
    ("corrcoef_of_two_vectors", corrcoef_of_two_vectors, lambda r: (r.normal(size=6), r.normal(size=6)), 0),
    ("corrcoef_of_two_vectors_y", corrcoef_of_two_vectors, lambda r: (r.normal(size=6), r.normal(size=6)), 1),
    ("cov_of_a_stack", cov_of_a_stack, lambda r: (r.normal(size=5), r.normal(size=5)), 1),
    ("cov_matrix_and_vector_ddof", cov_matrix_and_vector_ddof, lambda r: (r.normal(size=(2, 5)), r.normal(size=5)), 0),
    ("cov_matrix_and_vector_ddof_y", cov_matrix_and_vector_ddof,
     lambda r: (r.normal(size=(2, 5)), r.normal(size=5)), 1),
    ("cov_bias_y_keyword", cov_bias_y_keyword, lambda r: (r.normal(size=4), r.normal(size=4)), 0),
    ("corrcoef_of_a_stack", corrcoef_of_a_stack, lambda r: (r.normal(size=(3, 5)),), 0),
    ("cov_columns", cov_columns, lambda r: (r.normal(size=(5, 2)),), 0),
    ("sort_a_copy_in_place", sort_a_copy_in_place, lambda r: (r.normal(size=5),), 0),
    ("sort_rows_in_place", sort_rows_in_place, lambda r: (r.normal(size=(3, 4)),), 0),
    ("sort_in_place_in_a_loop", sort_in_place_in_a_loop, lambda r: (r.normal(size=(2, 4)),), 0),
    ("sort_rows_and_argsort", sort_rows_and_argsort, lambda r: (r.normal(size=(3, 4)), r.normal(size=4)), 0),
    ("multi_dot_of_a_name", multi_dot_of_a_name, lambda r: (r.normal(size=(2, 3)), r.normal(size=(3, 2))), 0),
    ("multi_dot_of_a_name_b", multi_dot_of_a_name, lambda r: (r.normal(size=(2, 3)), r.normal(size=(3, 2))), 1),
    ("multi_dot_of_a_tuple_name", multi_dot_of_a_tuple_name, lambda r: (r.normal(size=(3, 3)), r.normal(size=3)), 0),
    ("mean_where_dtype", mean_where_dtype, lambda r: (r.normal(size=4), np.array([True, False, True, True])), 0),
    ("sum_where_dtype_rows", sum_where_dtype_rows,
     lambda r: (r.normal(size=(2, 3)), np.array([[1, 0, 1], [1, 1, 0]], dtype=bool)), 0),
    ("map_lambda_default", map_lambda_default, lambda r: (r.normal(size=3), r.normal(size=(2, 3))), 0),
    ("map_lambda_two_defaults", map_lambda_two_defaults, lambda r: (r.normal(size=3), r.normal(size=(2, 3))), 0),
    ("rows_written_slice_summed", rows_written_slice_summed, lambda r: (r.normal(size=(3, 3)),), 0),
    ("running_rows_rebound", running_rows_rebound, lambda r: (r.normal(size=(3, 3)),), 0),
    ("rows_written_tail_mean", rows_written_tail_mean, lambda r: (r.normal(size=(4, 2)),), 0),
    ("while_any_halves", while_any_halves, lambda r: (np.array([0.5, 3.0, 2.2]),), 0),
    ("while_not_all_small", while_not_all_small, lambda r: (np.array([0.3, -1.7, 0.9]),), 0),
    ("while_any_rows_with_break", while_any_rows_with_break, lambda r: (np.array([[0.4, 0.25], [-1.0, 0.3]]),), 0),
    ("det_plus_ridge", det_plus_ridge, lambda r: (RANK_TWO.copy(),), 0),
    ("det_squared_and_sum", det_squared_and_sum, lambda r: (np.array([[1.0, 2.0], [2.0, 4.0]]),), 0),
    ("det_of_rows_in_a_helper", det_of_rows_in_a_helper, lambda r: (np.array([0.0, 1.5, -0.7]),), 0),
    ("scipy_det_times_trace", scipy_det_times_trace, lambda r: (RANK_TWO.copy(),), 0),
    ("if_and_any", if_and_any, lambda r: (np.array([0.5, 3.0, 2.2]), 1), 0),
    ("if_and_any_skipped", if_and_any, lambda r: (np.array([0.5, 3.0, 2.2]), 0), 0),
    ("if_or_all", if_or_all, lambda r: (np.array([0.5, 3.0, 2.2]),), 0),
    ("while_any_and_count", while_any_and_count, lambda r: (np.array([0.5, 3.0, 2.2]),), 0),
    ("elif_not_any", elif_not_any, lambda r: (np.array([0.5, 1.0, 2.0]),), 0),
    ("elif_not_any_else", elif_not_any, lambda r: (np.array([0.5, 1.0, 2.7]),), 0),
    ("relu_cubed", relu_cubed, lambda r: (AT_A_TIE.copy(),), 0),
    ("clip_cubed", clip_cubed, lambda r: (AT_A_TIE.copy(),), 0),
    ("relu_times_itself_twice", relu_times_itself_twice, lambda r: (AT_A_TIE.copy(),), 0),
    ("negative_part_power", negative_part_power, lambda r: (np.array([0.0, 1.5, -0.5]),), 0),
    ("scalar_relu_cubed", scalar_relu_cubed, lambda r: (0.0,), 0),
]
