"""Programs jit="numba" refused at the user's line where grad differentiates them (test_numba30.py).

Table rows: (name, function, make_args(rng), wrt)."""

from __future__ import annotations

import numpy as np

# ---- np.squeeze without an axis: the axes decided when the signature is known ----------------------


def squeeze_of_a_product(x, w):
    out = x[None, :, None] * w[:, None, None]
    return np.sum(np.sin(np.squeeze(out)) * x)


def squeeze_method(x):
    y = np.reshape(x, (1, 3, 1))
    return np.sum(y.squeeze() ** 2 * x)


def squeeze_an_argument(X, w):
    return np.sum(np.squeeze(X) * w) ** 2


def squeeze_keeping_every_axis(x):
    return np.sum(np.squeeze(np.outer(x, x)) ** 2)


def squeeze_to_a_number(x):
    s = np.reshape(np.sum(x), (1, 1)) * np.ones((1, 1))
    return np.squeeze(s) ** 2 + np.sum(x ** 3)


def squeeze_in_a_loop(M):
    total = 0.0
    for k in range(M.shape[0]):
        row = np.squeeze(M[k][:, None])
        total = total + np.sum(np.tanh(row) * row)
    return total


def squeeze_of_a_slice_of_one_row(M):
    total = 0.0
    for k in range(M.shape[0]):
        row = np.squeeze(M[k:k + 1, :])  # (k:k + 1: a length the signature does not say)
        total = total + np.sum(np.tanh(row) * row)
    return total


def _component(out, axis=None):
    return np.squeeze(out) if axis is None else np.squeeze(out, axis=axis)


def squeeze_in_a_helper(x):
    out = np.exp(x)[:, None] / np.sum(np.exp(x))
    return np.sum(_component(out) * np.log1p(x ** 2))


def squeeze_of_a_column_mean(X):
    m = np.mean(X, axis=1, keepdims=True)
    return np.sum((np.squeeze(m) - 0.1) ** 2)


def _v(r, n=3):
    return np.array([0.3, -0.5, 0.8, 0.2, -0.1][:n]) + 0.05 * r.standard_normal(n)


#: refused by jit="numba" at the user's line: name -> (row, why)
REFUSED = {
    "squeeze_of_a_slice_of_one_row": (
        ("squeeze_of_a_slice_of_one_row", squeeze_of_a_slice_of_one_row, lambda r: (np.reshape(_v(r, 4), (2, 2)),), 0),
        "M[k:k + 1, :] has a length the argument's signature does not say: which axes np.squeeze removes is not "
        "known when the code is compiled"),
}

SQUEEZES = [
    ("squeeze_of_a_product", squeeze_of_a_product, lambda r: (_v(r), np.array([0.7])), 0),
    ("squeeze_of_a_product_w", squeeze_of_a_product, lambda r: (_v(r), np.array([0.7])), 1),
    ("squeeze_method", squeeze_method, lambda r: (_v(r),), 0),
    ("squeeze_an_argument", squeeze_an_argument, lambda r: (_v(r)[None, :, None], _v(r)), 0),
    ("squeeze_keeping_every_axis", squeeze_keeping_every_axis, lambda r: (_v(r),), 0),
    ("squeeze_to_a_number", squeeze_to_a_number, lambda r: (_v(r),), 0),
    ("squeeze_in_a_loop", squeeze_in_a_loop, lambda r: (np.reshape(_v(r, 4), (2, 2)),), 0),
    ("squeeze_in_a_helper", squeeze_in_a_helper, lambda r: (_v(r),), 0),
    ("squeeze_of_a_column_mean", squeeze_of_a_column_mean, lambda r: (np.reshape(_v(r, 4), (2, 2)),), 0),
]

# ---- a number before a loop, an array in it ------------------------------------------------------


def sinkhorn_from_a_number(C):
    K = np.exp(-C)
    a = np.ones(3) / 3
    u = 1.0  # overwritten before it is read: pushed on the stack only
    v = np.ones(3)
    for _ in range(4):
        u = a / (K @ v)
        v = a / (K.T @ u)
    return np.sum(u[:, None] * K * v[None, :] * C)


def two_numbers_overwritten(x):
    m = 0.0
    s = 0.0
    for _ in range(3):
        m = np.tanh(x) * 0.5 + x
        s = m ** 2 + np.outer(m, m) @ x
    return np.sum(s * m)


def running_number_pushed_alone(x, n):
    v = 0.0
    for i in range(n):
        v = v + x * i
    return np.sum(v * x) + np.sum(x ** 2)


def number_in_a_while(x):
    v = 0.0
    k = 0
    while k < 3:
        v = v * 0.5 + np.sin(x)
        k += 1
    return np.sum(v * x)


def number_in_a_while_to_a_tolerance(x):
    s = 0.0
    change = 1.0
    while change > 1e-6:
        s_new = 0.5 * s + np.cos(x)
        change = np.max(np.abs(s_new - s))
        s = s_new
    return np.sum(s * x)


def _costs(r):
    return np.abs(np.array([[0.5, 1.2, 0.3], [0.9, 0.2, 1.1], [0.4, 0.8, 0.6]]) + 0.05 * r.standard_normal((3, 3)))


def float_argument_then_array(u0, x):
    s = u0
    for _ in range(3):
        s = s * x + 1.0
    return np.sum(s ** 2)


NUMBERS = [
    ("sinkhorn_from_a_number", sinkhorn_from_a_number, lambda r: (_costs(r),), 0),
    ("two_numbers_overwritten", two_numbers_overwritten, lambda r: (_v(r),), 0),
    ("running_number_no_trip", running_number_pushed_alone, lambda r: (_v(r), 0), 0),
    ("running_number_some_trips", running_number_pushed_alone, lambda r: (_v(r), 3), 0),
    ("number_in_a_while", number_in_a_while, lambda r: (_v(r),), 0),
    ("float_argument_then_array", float_argument_then_array, lambda r: (0.5, _v(r)), 1),
    ("number_in_a_while_to_a_tolerance", number_in_a_while_to_a_tolerance, lambda r: (_v(r),), 0),
]

REFUSED["float_argument_then_array_u0"] = (
    ("float_argument_then_array_u0", float_argument_then_array, lambda r: (0.5, _v(r)), 0),
    "the float argument differentiated is the number made an array: its gradient would have ones' shape")

# ---- a list that starts empty, typed through another name ------------------------------------------


def discounted_returns(x, gamma=0.9):
    returns = []
    G = 0.0
    for r in reversed(list(x)):
        G = r + gamma * G
        returns.insert(0, G)
    return np.sum(np.array(returns) * np.tanh(x))


def prepended_states(x):
    states = []
    h = np.zeros(2)
    for k in range(3):
        h = np.tanh(h + x[:2] * (k + 1))
        states = [h] + states
    return sum(np.sum(s * (i + 1)) for i, s in enumerate(states))


def running_sum_of_a_list(x):
    xs = []
    total = 0.0
    for v in x:
        total = total + np.sin(v)
        xs = xs + [total]
    return sum(t * t for t in xs)


EMPTY_LISTS = [
    ("discounted_returns", discounted_returns, lambda r: (_v(r, 4),), 0),
    ("prepended_states", prepended_states, lambda r: (_v(r),), 0),
    ("running_sum_of_a_list", running_sum_of_a_list, lambda r: (_v(r),), 0),
]

# ---- labels: the groups of a list of labels, of an array's tolist() ---------------------------------


def groups_of_a_list_of_labels(w, g):
    total = 0.0
    for k in sorted(set(g)):
        total = total + np.max(w[np.array(g) == k]) * (k + 1)
    return total


def groups_of_tolist(w, g):
    total = 0.0
    for i, k in enumerate(sorted(set(g.tolist()))):
        total = total + (i + 1) * np.sum(np.sin(w[g == k]))
    return total


def group_means_by_label(w, g):
    labels = np.asarray(g)
    return sum(np.mean(w[labels == k]) ** 2 * (k + 1) for k in sorted(set(g)))


LABELS = [
    ("groups_of_a_list_of_labels", groups_of_a_list_of_labels, lambda r: (_v(r, 5), [0, 2, 0, 1, 2]), 0),
    ("groups_of_tolist", groups_of_tolist, lambda r: (_v(r, 5), np.array([1, 1, 0, 3, 0])), 0),
    ("group_means_by_label", group_means_by_label, lambda r: (_v(r, 5), [2, 0, 2, 1, 1]), 0),
]

PROGRAMS = SQUEEZES + NUMBERS + EMPTY_LISTS + LABELS
