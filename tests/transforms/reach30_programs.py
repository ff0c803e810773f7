"""Wave 30's reach: constructs earlier red teams found refused or mishandled by grad or a
composition, each written the way a user plausibly writes it, with variants
(test_reach30.py runs them through every transformation)."""

from __future__ import annotations

import functools

import numpy as np

NAMES = ("mass", "stiff", "damp")
BASIS = ((np.array([1.0, 0.0, 0.5]), np.array([0.0, 2.0, -1.0])),
         (np.array([0.3, 0.3, 0.3]), np.array([-1.0, 0.5, 0.0])))


def M(r, *shape):
    return r.standard_normal(shape)


def _points(q):
    pts = [np.zeros(2)]
    for qi in q:
        pts.append(np.array([np.cos(qi), np.sin(qi)]) * qi)
    return pts


# ---- 2. reversed(list(enumerate(...))), dict comprehensions over items, functools.partial ----


def reversed_enumerate_sum(x):
    total = 0.0
    for i, v in reversed(list(enumerate(x))):
        total = total * 0.5 + (i + 1) * np.sin(v)
    return total


def reversed_enumerate_list(xs):
    h = 1.0
    for i, v in reversed(list(enumerate(xs))):
        h = np.tanh(h * v + i)
    return np.sum(h)


def reversed_enumerate_items(x):
    pairs = reversed(list(enumerate(x)))
    return sum(v ** 2 * (i + 1) for i, v in pairs)


def reversed_enumerate_generator(x):
    return sum(v ** 2 * (i + 1) for i, v in reversed(list(enumerate(x))))


def reversed_zip_list(x, w):
    h = 0.0
    for a, b in reversed(list(zip(x, w))):
        h = np.sin(h + a * b)
    return h


def reversed_enumerate_zip(x, w):
    h = 0.0
    for i, (a, b) in reversed(list(enumerate(zip(x, w)))):
        h = h * 0.7 + a * b ** 2 * (i - 1)
    return h


def dict_comp_items(params, w):
    scaled = {k: v * w for k, v in params.items()}
    return sum(np.sum(np.sin(v)) for v in scaled.values())


def dict_comp_items_w(params, w):
    scaled = {k: v * w for k, v in params.items()}
    return np.sum(scaled["a"] ** 2) + np.sum(scaled["b"] * 3.0)


def dict_comp_transform(params):
    sq = {name: np.tanh(value) for name, value in params.items()}
    return np.sum(sq["a"] * sq["b"])


def _affine(x, a, b):
    return a * x + b


def partial_built_in_body(x, a):
    g = functools.partial(_affine, a=a, b=0.5)
    return np.sum(np.sin(g(x)))


def partial_positional(x, a):
    g = functools.partial(_affine, x)
    return np.sum(g(a, 1.0) ** 2)


def partial_in_loop(x, a):
    total = 0.0
    for k in range(3):
        g = functools.partial(_affine, b=float(k))
        total = total + np.sum(np.cos(g(x, a)))
    return total


# ---- 3. while len(...) < n, np.diag(v, k) written into, tuples of tuples, dict(zip(NAMES, ...)) ----


def while_len_history(x):
    history = [x]
    while len(history) < 4:
        history.append(np.sin(history[-1]) * 1.5)
    return np.sum(history[-1]) + np.sum(history[1])


def while_len_scalar(a):
    history = []
    v = a
    while len(history) < 3:
        v = v * v * 0.5 + 0.1
        history.append(v)
    return sum(history)


def while_len_turned_round(x, n=3):
    traj = [x * 0.5]
    while n >= len(traj):
        step = np.tanh(traj[-1]) + x
        traj.append(step)
    return np.sum(np.stack(traj) ** 2)


def while_len_length_read_after(a):
    out = [a]
    while len(out) < 3:
        out.append(out[-1] * a + 1.0)
    count = len(out)
    out.append(a * count)
    return sum(out) * count


def while_len_conditional_append(x):
    found = []
    k = 0
    while len(found) < 2:
        if k % 2 == 0:
            found.append(np.sin(x * k))
        k = k + 1
    return np.sum(found[0] + found[1])


def diag_below_written(v):
    m = np.diag(v, k=-1)
    m[0, -1] = v[0] * 2.0
    return np.sum(m @ m.T) + np.sum(np.sin(m))


def diag_above_written(v):
    m = np.diag(v, k=1) + np.eye(v.shape[0] + 1)
    m[-1, 0] = np.sum(v)
    return np.sum(np.linalg.solve(m, np.ones(v.shape[0] + 1)))


def diag_main_written(v):
    m = np.diag(v)
    m[0, 1] = v[1] ** 2
    return np.sum(m @ v)


def diag_written_in_loop(v):
    n = v.shape[0]
    m = np.diag(np.exp(v), k=-1)
    for i in range(n):
        m[i, i] = m[i + 1, i] * v[i]
    m[:, -1] = np.tanh(v[0])
    return np.sum(m ** 2) + np.sum(m[1:, :-1] @ v)


def diag_of_matrix_written(a):
    d = np.diag(a).copy()
    d[0] = 1.0
    return np.sum(d * a[0] ** 2)


def tuple_of_tuple_constants(x):
    total = 0.0
    for a, b in BASIS:
        total = total + np.sum(a * x) * np.sum(b * np.sin(x))
    return total


def tuple_of_tuple_local(x):
    pairs = ((np.ones(3), np.arange(3.0)), (np.full(3, 2.0), np.ones(3)))
    total = 0.0
    for a, b in pairs:
        total = total + np.sum((a * x + b) ** 2)
    return total


def rows_of_parameters(w, x):
    layers = ((w[:3], 0.1), (np.sin(w[3:]), -0.2))
    h = x
    for k, (a, b) in enumerate(layers):
        h = np.tanh(a * h + b * (k + 1))
    return np.sum(h) + np.sum(layers[1][0] ** 2)


def rows_in_comprehension(x):
    pairs = [[x, np.ones(3)], [x ** 2, np.arange(3.0)]]
    return sum(np.sum(a * b) for a, b in pairs) + len(pairs)


def dict_zip_names(values):
    p = dict(zip(NAMES, values))
    return p["mass"] * p["stiff"] ** 2 + np.sin(p["damp"])


def dict_zip_names_array(x):
    p = dict(zip(NAMES, x))
    return p["mass"] * np.exp(p["damp"]) - p["stiff"]


def computed_dict(x):
    d = {"s": np.sin(x), "c": np.cos(x)}
    d["t"] = d["s"] * d["c"]
    return np.sum(d["t"]) + np.sum(d["s"] ** 2)


# ---- 4. slices of a list a helper returns, second order ----


def slice_tail(q):
    pts = _points(q)
    tot = 0.0
    for p in pts[1:]:
        tot = tot + np.sum(p ** 3)
    return tot + np.sum(pts[2] * pts[1])


def slice_head_stacked(q):
    pts = _points(q)
    return np.sum(np.stack(pts[:-1]) ** 2) + np.sum(pts[-1] * 2.0)


def slice_stepped(q):
    pts = _points(q)
    return sum(np.sum((p - 0.3) ** 2) for p in pts[::2])


# ---- 5. np.pad widths from shapes, zip with shorter sequences, function lists ----


def pad_width_from_shape(x):
    n = x.shape[0]
    y = np.pad(x, (0, 8 - n))
    return np.sum(y * np.arange(8.0)) + np.sum(y ** 2)


def pad_width_half(x):
    y = np.pad(x, (x.shape[0] // 2, 1), mode="edge")
    return np.sum(np.sin(y) * np.arange(y.shape[0]))


def pad_widths_per_axis(a):
    rows, cols = a.shape
    b = np.pad(a, ((1, 4 - rows), (0, cols // 2)), constant_values=0.5)
    return np.sum(np.tanh(b) * np.arange(b.size).reshape(b.shape))


def pad_width_in_loop(x):
    total = 0.0
    for k in range(3):
        y = np.pad(x, (k, 2 - k), mode="reflect")
        total = total + np.sum(y * np.arange(y.shape[0]) ** 2)
    return total


def pad_width_wrap_len(x):
    y = np.pad(np.sin(x), len(x) - 2, mode="wrap")
    return np.sum(y[:-1] * y[1:])


def zip_tree_shorter(params, x):
    scales = [1.0, 2.0]
    return sum(np.sum(p * s * x) ** 2 for p, s in zip(params, scales))


def zip_array_shorter(w):
    scales = (0.5, -1.0, 2.0)
    total = 0.0
    for wi, s in zip(w, scales):
        total = total + np.sin(wi) * s
    return total


def funcs_appended_loop(x):
    fs = []
    for k in range(3):
        fs.append(np.sin if k % 2 == 0 else np.tanh)
    total = 0.0
    for f in fs:
        total = total + np.sum(f(x))
    return total


def funcs_rebound(x):
    fs = [np.sin, np.cos]
    fs = [np.tanh, np.exp]
    return sum(np.sum(f(x)) for f in fs)


def funcs_sliced(x):
    fs = [np.sin, np.cos, np.tanh]
    total = 0.0
    for f in fs[1:]:
        total = total + np.sum(f(x))
    return total


def funcs_reversed(x):
    layers = [np.sin, np.tanh, np.exp]
    h = x
    for f in reversed(layers):
        h = f(h)
    return np.sum(h)


def funcs_zipped(x, a):
    fs = [np.sin, np.cos]
    return sum(np.sum(f(ai * x)) for f, ai in zip(fs, a))


def funcs_zipped_a(x, a):
    return funcs_zipped(x, a)


def funcs_zip_shorter_weights(x, w):
    layers = [np.sin, np.tanh, np.exp]
    total = 0.0
    for wi, f in zip(w, layers):
        total = total + wi * np.sum(f(x))
    return total


def funcs_enumerate_reversed(x):
    fs = (np.sin, np.cos, np.tanh)
    h = x
    for i, f in enumerate(reversed(fs)):
        h = f(h) * (i + 1)
    return np.sum(h)


def funcs_step_slice(x):
    fs = [np.sin, np.cos, np.tanh, np.exp]
    return sum(np.sum(f(x)) for f in fs[::-2])


def funcs_rebound_in_between(x):
    fs = [np.sin, np.cos]
    h = x
    for f in fs:
        h = f(h)
    fs = [np.tanh, np.exp, np.sin]
    for f in fs[1:]:
        h = f(h) * 0.5
    return np.sum(h)


def funcs_zip_two_sequences(x, a, b):
    fs = [np.sin, np.tanh]
    total = 0.0
    for f, ai, bi in zip(fs, a, b):
        total = total + np.sum(f(ai * x + bi))
    return total


PROGRAMS = [
    ("reversed_enumerate_sum", reversed_enumerate_sum, lambda r: (M(r, 4),), 0),
    ("reversed_enumerate_list", reversed_enumerate_list, lambda r: ([M(r, 2), M(r, 2), M(r, 2)],), 0),
    ("reversed_enumerate_items", reversed_enumerate_items, lambda r: (M(r, 4),), 0),
    ("reversed_enumerate_generator", reversed_enumerate_generator, lambda r: (M(r, 4),), 0),
    ("reversed_zip_list", reversed_zip_list, lambda r: (M(r, 4), M(r, 3)), 0),
    ("reversed_zip_list_w", reversed_zip_list, lambda r: (M(r, 4), M(r, 3)), 1),
    ("reversed_enumerate_zip", reversed_enumerate_zip, lambda r: (M(r, 3), M(r, 3)), 1),
    ("dict_comp_items", dict_comp_items, lambda r: ({"a": M(r, 3), "b": M(r, 3)}, M(r, 3)), 0),
    ("dict_comp_items_w", dict_comp_items_w, lambda r: ({"a": M(r, 3), "b": M(r, 3)}, M(r, 3)), 1),
    ("dict_comp_transform", dict_comp_transform, lambda r: ({"a": M(r, 3), "b": M(r, 3)},), 0),
    ("partial_built_in_body", partial_built_in_body, lambda r: (M(r, 3), M(r, 3)), 0),
    ("partial_built_in_body_a", partial_built_in_body, lambda r: (M(r, 3), M(r, 3)), 1),
    ("partial_positional", partial_positional, lambda r: (M(r, 3), M(r, 3)), 1),
    ("partial_in_loop", partial_in_loop, lambda r: (M(r, 3), M(r, 3)), 0),
    ("while_len_history", while_len_history, lambda r: (M(r, 3),), 0),
    ("while_len_scalar", while_len_scalar, lambda r: (0.7,), 0),
    ("while_len_turned_round", while_len_turned_round, lambda r: (M(r, 3),), 0),
    ("while_len_length_read_after", while_len_length_read_after, lambda r: (0.4,), 0),
    ("while_len_conditional_append", while_len_conditional_append, lambda r: (M(r, 3),), 0),
    ("diag_below_written", diag_below_written, lambda r: (M(r, 3),), 0),
    ("diag_above_written", diag_above_written, lambda r: (M(r, 3) * 0.3,), 0),
    ("diag_main_written", diag_main_written, lambda r: (M(r, 3),), 0),
    ("diag_written_in_loop", diag_written_in_loop, lambda r: (M(r, 3),), 0),
    ("diag_of_matrix_written", diag_of_matrix_written, lambda r: (M(r, 3, 3),), 0),
    ("tuple_of_tuple_constants", tuple_of_tuple_constants, lambda r: (M(r, 3),), 0),
    ("tuple_of_tuple_local", tuple_of_tuple_local, lambda r: (M(r, 3),), 0),
    ("rows_of_parameters", rows_of_parameters, lambda r: (M(r, 6), M(r, 3)), 0),
    ("rows_of_parameters_x", rows_of_parameters, lambda r: (M(r, 6), M(r, 3)), 1),
    ("rows_in_comprehension", rows_in_comprehension, lambda r: (M(r, 3),), 0),
    ("dict_zip_names", dict_zip_names, lambda r: ((0.3, -0.8, 1.1),), 0),
    ("dict_zip_names_array", dict_zip_names_array, lambda r: (M(r, 3),), 0),
    ("computed_dict", computed_dict, lambda r: (M(r, 3),), 0),
    ("slice_tail", slice_tail, lambda r: (M(r, 3),), 0),
    ("slice_head_stacked", slice_head_stacked, lambda r: (M(r, 3),), 0),
    ("slice_stepped", slice_stepped, lambda r: (M(r, 4),), 0),
    ("pad_width_from_shape", pad_width_from_shape, lambda r: (M(r, 5),), 0),
    ("pad_width_half", pad_width_half, lambda r: (M(r, 4),), 0),
    ("pad_widths_per_axis", pad_widths_per_axis, lambda r: (M(r, 3, 4),), 0),
    ("pad_width_in_loop", pad_width_in_loop, lambda r: (M(r, 4),), 0),
    ("pad_width_wrap_len", pad_width_wrap_len, lambda r: (M(r, 4),), 0),
    ("zip_tree_shorter", zip_tree_shorter, lambda r: ([M(r, 3), M(r, 3), M(r, 3)], M(r, 3)), 0),
    ("zip_array_shorter", zip_array_shorter, lambda r: (M(r, 5),), 0),
    ("funcs_appended_loop", funcs_appended_loop, lambda r: (M(r, 3),), 0),
    ("funcs_rebound", funcs_rebound, lambda r: (M(r, 3),), 0),
    ("funcs_sliced", funcs_sliced, lambda r: (M(r, 3),), 0),
    ("funcs_reversed", funcs_reversed, lambda r: (M(r, 3) * 0.5,), 0),
    ("funcs_zipped", funcs_zipped, lambda r: (M(r, 3), M(r, 2)), 0),
    ("funcs_zipped_a", funcs_zipped, lambda r: (M(r, 3), M(r, 2)), 1),
    ("funcs_zip_shorter_weights", funcs_zip_shorter_weights, lambda r: (M(r, 3), M(r, 2)), 0),
    ("funcs_zip_shorter_weights_w", funcs_zip_shorter_weights, lambda r: (M(r, 3), M(r, 2)), 1),
    ("funcs_enumerate_reversed", funcs_enumerate_reversed, lambda r: (M(r, 3) * 0.5,), 0),
    ("funcs_step_slice", funcs_step_slice, lambda r: (M(r, 3),), 0),
    ("funcs_rebound_in_between", funcs_rebound_in_between, lambda r: (M(r, 3),), 0),
    ("funcs_zip_two_sequences", funcs_zip_two_sequences, lambda r: (M(r, 3), M(r, 4), M(r, 2)), 1),
]
