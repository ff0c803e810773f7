"""The red team's wave 29c: programs written against the features landed in wave 29 (loops over
``sorted(set(groups))``, functions kept in lists and called in a loop, lists joined with ``+`` where
a part is a slice, sigmoids written out, numbers promoted to arrays before a loop), each the way a
user plausibly writes it, and each a variant that only looks like the landed form
(test_redteam_wave29c.py runs them through every transformation).
"""

from __future__ import annotations

import numpy as np


def M(r, *shape):
    return r.standard_normal(shape)


def _relu(z):
    return np.maximum(z, 0.0)


def _sq(z):
    return z * z


# ---- (a) loops over sorted(set(groups)) -----------------------------------------------------------


def groups_float_labels(w, x, g):
    total = 0.0
    for k in sorted(set(g)):
        total = total + k * np.sum(w[g == k] * x[g == k])
    return total


def groups_negative_labels(w, x, g):
    return sum(np.mean(w[g == k]) ** 2 * (k + 3) for k in sorted(set(g)))


def groups_repeated_list(w, g):
    out = []
    for k in sorted(set(g)):
        out.append(np.sum(np.sin(w[g == k])))
    return np.sum(np.array(out) * np.arange(len(out)))


def groups_list_labels(w, g):
    total = 0.0
    for k in sorted(set(g)):
        total = total + np.max(w[np.array(g) == k])
    return total


def groups_enumerate(w, g):
    total = 0.0
    for i, k in enumerate(sorted(set(g))):
        total = total + (i + 1) * np.sum(w[g == k] ** 2)
    return total


def groups_reverse(w, g):
    total = 0.0
    for j, k in enumerate(sorted(set(g), reverse=True)):
        total = total + (j + 1) * np.sum(w[g == k])
    return total


def groups_index_by_label(w, theta, g):
    # the label used as an index into a parameter vector
    return sum(theta[k] * np.sum(w[g == k]) for k in sorted(set(g)))


def groups_set_no_sort(w, g):
    total = 0.0
    for k in sorted(set(g.tolist())):
        total = total + np.prod(w[g == k])
    return total


def groups_count_scaled(w, g):
    labels = sorted(set(g))
    return sum(np.sum(w[g == k]) / len(labels) for k in labels) * len(labels)


def groups_dict_comp(w, g):
    means = {k: np.mean(w[g == k]) for k in sorted(set(g))}
    return sum(means[k] * k for k in means)


def groups_sorted_key(w, g):
    total = 0.0
    for i, k in enumerate(sorted(set(g), key=abs)):
        total = total + (i + 1) * np.sum(w[g == k])
    return total


def groups_drop_first(w, g):
    total = 0.0
    for k in sorted(set(g))[1:]:
        total = total + k * np.sum(w[g == k] ** 2)
    return total


def groups_string_labels(w, g):
    total = 0.0
    for i, k in enumerate(sorted(set(g))):
        total = total + (i + 1) * np.sum(np.sin(w[g == k]))
    return total


def groups_unsorted_list(w, g):
    return sum(np.sum(w[g == k]) ** 2 for k in set(g))


# ---- (b) functions kept in lists -----------------------------------------------------------------


def funcs_rebound(x):
    fs = [np.sin, np.cos]
    fs = [np.tanh, np.exp]
    return sum(np.sum(f(x)) for f in fs)


def funcs_appended(x):
    fs = [np.sin]
    fs.append(np.cos)
    total = 0.0
    for f in fs:
        total = total + np.sum(f(x))
    return total


def funcs_mutated_item(x):
    fs = [np.sin, np.cos]
    fs[1] = np.tanh
    total = 0.0
    for f in fs:
        total = total + np.sum(f(x))
    return total


def funcs_lambdas_weights(x, w):
    fs = [lambda z: z ** 2, lambda z: np.exp(-z), _relu]
    return sum(w[i] * np.sum(f(x)) for i, f in enumerate(fs))


def funcs_dict_items(x):
    acts = {"a": np.tanh, "b": _sq, "c": np.sin}
    total = 0.0
    for name, f in acts.items():
        total = total + np.sum(f(x)) * (len(name) + 1)
    return total


def funcs_tuple_composed(x):
    layers = (np.sin, _sq, np.tanh)
    h = x
    for f in layers:
        h = f(h)
    return np.sum(h)


def funcs_reversed(x):
    layers = [np.sin, _sq, np.exp]
    h = x
    for f in reversed(layers):
        h = f(h)
    return np.sum(h)


def funcs_indexed_call(x):
    fs = [np.sin, np.cos, np.tanh]
    return sum(np.sum(fs[i](x) * (i + 1)) for i in range(len(fs)))


def funcs_zip_params(x, a):
    fs = [np.sin, np.cos]
    return sum(np.sum(f(ai * x)) for f, ai in zip(fs, a))


def funcs_late_binding(x):
    fs = [lambda z, k=k: z * k for k in range(3)]
    return sum(np.sum(f(x)) for f in fs)


def funcs_slice(x):
    fs = [np.sin, np.cos, np.tanh]
    total = 0.0
    for i, f in enumerate(fs[1:]):
        total = total + (i + 1) * np.sum(f(x))
    return total


def funcs_repeated(x):
    fs = [np.sin, _sq]
    h = x
    for f in fs * 2:
        h = f(h)
    return np.sum(h)


# ---- (c) lists joined with + where a part is a slice ---------------------------------------------


def join_negative_end(x):
    parts = [x[0], x[1] * 2, x[2] ** 2, x[3]]
    joined = parts[:-1] + [np.sin(x[4])]
    return sum(p * (i + 1) for i, p in enumerate(joined))


def join_negative_start(x):
    parts = [x[i] ** 2 for i in range(4)]
    joined = [x[0]] + parts[-2:]
    return np.sum(np.array(joined) * np.array([1.0, 2.0, 3.0]))


def join_step_slice(x):
    parts = [x[i] * (i + 1) for i in range(5)]
    joined = parts[::2] + parts[1::2]
    return sum(p * (i + 1) for i, p in enumerate(joined))


def join_reverse_slice(x):
    parts = [np.sin(x[i]) for i in range(4)]
    joined = parts[::-1] + parts[:1]
    return sum(p * (i + 1) for i, p in enumerate(joined))


def join_empty_slice(x):
    parts = [x[i] for i in range(3)]
    joined = parts[3:] + parts[:0] + [x[1] ** 3]
    return sum(joined)


def join_in_loop(x):
    hist = [x[0]]
    for t in range(1, 4):
        hist = hist[-2:] + [hist[-1] * np.cos(x[t])]
    return sum(h * (i + 2) for i, h in enumerate(hist))


def join_arrays_slice(W, x):
    rows = [W[i] @ x for i in range(3)]
    return np.sum(np.stack(rows[1:] + rows[:1]) * np.arange(1.0, 4.0))


def join_middle_negative(x):
    parts = [x[i] * (i + 1) for i in range(5)]
    joined = parts[1:-1] + parts[-1:] + parts[:1]
    return sum(p ** 2 * (i + 1) for i, p in enumerate(joined))


def join_argument_end(x, k):
    parts = [x[i] * (i + 1) for i in range(4)]
    joined = parts[:k] + [x[0] ** 2]
    return sum(p * (i + 1) for i, p in enumerate(joined))


# ---- (d) sigmoids that only look like one ---------------------------------------------------------


def sig_plus_c(z, c):
    return np.sum(1 / (1 + np.exp(-z)) + c * z)


def sig_two(z):
    return np.sum(2 / (1 + np.exp(-z)))


def sig_positive_exp(z):
    return np.sum(1 / (1 + np.exp(z)) * z)


def sig_scaled_argument(z):
    return np.sum(1.0 / (1.0 + np.exp(-2.0 * z)) ** 2)


def sig_two_plus(z):
    return np.sum(1.0 / (2.0 + np.exp(-z)))


def sig_exp_over(z):
    e = np.exp(z)
    return np.sum(e / (1.0 + e) * z)


def sig_exp_over_minus(z):
    e = np.exp(-z)
    return np.sum(e / (1.0 + e))


def sig_int_array(z, k):
    # the sigmoid's argument an int array times a parameter
    return np.sum(1.0 / (1.0 + np.exp(-k * z)))


def sig_reversed_sum(z):
    return np.sum(1.0 / (np.exp(-z) + 1.0) * np.cos(z))


def sig_one_minus(z):
    return np.sum(1.0 - 1.0 / (1.0 + np.exp(-z)))


def sig_power_neg(z):
    return np.sum((1.0 + np.exp(-z)) ** -1 * z ** 2)


def sig_scalar_loop(z):
    total = 0.0
    for zi in z:
        total = total + 1.0 / (1.0 + np.exp(-zi)) ** 2
    return total


def sig_minus_one(z):
    return np.sum(1.0 / (1.0 - np.exp(-z)))


def sig_exp_shift(z):
    return np.sum(1.0 / (1.0 + np.exp(-(z - 1.0))) + 1.0 / (1.0 + np.exp(1.0 - z)))


def sig_two_saturated(z, a):
    # 2 / (1 + exp(-z)) at z = -800 (the Hessian was NaN: inf / inf)
    return np.sum(2.0 / (1.0 + np.exp(-z)) * a)


def sig_power_saturated(z):
    # (1 + exp(-z)) ** -1 at z = -800: NaN in every transformation (0 * inf)
    return np.sum((1.0 + np.exp(-z)) ** -1 * np.cos(z))


def sig_param_numerator(z, a):
    # a / (1 + exp(-z)), a carrying a gradient
    return np.sum(a / (1.0 + np.exp(-z)) + a ** 2)


def sig_ones_numerator(z):
    return np.sum(np.ones_like(z) / (1.0 + np.exp(-z)) * z)


def saturated(r):
    z = r.standard_normal(5)
    z[0], z[3] = -800.0, 750.0
    return z


def choice_of_values(x):
    rng = np.random.default_rng(5)
    picked = rng.choice(x, size=3)
    return np.sum(picked ** 2) + np.sum(x)


def choice_no_replace(x):
    rng = np.random.default_rng(5)
    idx = rng.choice(len(x), size=3, replace=False)
    return np.sum(np.sin(x[idx]) * np.arange(1.0, 4.0))


def choice_weighted(x, p):
    rng = np.random.default_rng(2)
    idx = rng.choice(len(x), size=4, p=p)
    return np.sum(x[idx] ** 3)


# ---- (g) numbers promoted before loops, lists carried --------------------------------------------


def promoted_zero_trips(x, n):
    v = 0.0
    for i in range(n):
        v = v + x * i
    return np.sum(v * x) + np.sum(x ** 2)


def promoted_number_then_array(x):
    acc = 1.0
    for i in range(3):
        acc = acc * np.sin(x + i)
    return np.sum(acc)


def carried_list_loop(x):
    hs = [x, x * 2.0]
    for _ in range(3):
        hs = [hs[1], np.tanh(hs[0] + hs[1])]
    return np.sum(hs[0] * hs[1])


def carried_list_append_empty(x, n):
    out = []
    for i in range(n):
        out.append(x * i)
    return np.sum(x ** 2) + sum(np.sum(o) for o in out)



PROGRAMS = [
    ("groups_float_labels", groups_float_labels,
     lambda r: (M(r, 8), M(r, 8), np.array([0.5, -1.5, 0.5, 2.25, -1.5, 2.25, 0.5, 3.0])), 0),
    ("groups_float_labels_x", groups_float_labels,
     lambda r: (M(r, 8), M(r, 8), np.array([0.5, -1.5, 0.5, 2.25, -1.5, 2.25, 0.5, 3.0])), 1),
    ("groups_negative_labels", groups_negative_labels,
     lambda r: (M(r, 7), M(r, 7), np.array([-2, 1, -2, 0, 1, 1, -2])), 0),
    ("groups_repeated_list", groups_repeated_list, lambda r: (M(r, 7), np.array([3, 3, 1, 3, 1, 7, 7])), 0),
    ("groups_list_labels", groups_list_labels, lambda r: (M(r, 6), [2, 0, 2, 1, 0, 1]), 0),
    ("groups_enumerate", groups_enumerate, lambda r: (M(r, 6), np.array([5, -1, 5, 2, -1, 2])), 0),
    ("groups_reverse", groups_reverse, lambda r: (M(r, 6), np.array([5, -1, 5, 2, -1, 2])), 0),
    ("groups_index_by_label", groups_index_by_label,
     lambda r: (M(r, 6), M(r, 4), np.array([3, 0, 3, 2, 0, 2])), 1),
    ("groups_index_by_label_w", groups_index_by_label,
     lambda r: (M(r, 6), M(r, 4), np.array([3, 0, 3, 2, 0, 2])), 0),
    ("groups_set_no_sort", groups_set_no_sort, lambda r: (M(r, 6), np.array([4, 1, 4, 1, 9, 9])), 0),
    ("groups_count_scaled", groups_count_scaled, lambda r: (M(r, 6), np.array([4, 1, 4, 1, 9, 9])), 0),
    ("groups_dict_comp", groups_dict_comp, lambda r: (M(r, 6), np.array([4, -1, 4, -1, 9, 9])), 0),
    ("groups_sorted_key", groups_sorted_key, lambda r: (M(r, 6), np.array([-3, 1, 2, -3, 1, 2])), 0),
    ("groups_drop_first", groups_drop_first, lambda r: (M(r, 6), np.array([-3, 1, 2, -3, 1, 2])), 0),
    ("groups_string_labels", groups_string_labels, lambda r: (M(r, 5), np.array(["b", "a", "c", "a", "b"])), 0),
    ("groups_unsorted_list", groups_unsorted_list, lambda r: (M(r, 6), np.array([3, 1, 2, 3, 1, 2])), 0),
    ("funcs_rebound", funcs_rebound, lambda r: (M(r, 4),), 0),
    ("funcs_appended", funcs_appended, lambda r: (M(r, 4),), 0),
    ("funcs_mutated_item", funcs_mutated_item, lambda r: (M(r, 4),), 0),
    ("funcs_lambdas_weights", funcs_lambdas_weights, lambda r: (M(r, 4), M(r, 3)), 0),
    ("funcs_lambdas_weights_w", funcs_lambdas_weights, lambda r: (M(r, 4), M(r, 3)), 1),
    ("funcs_dict_items", funcs_dict_items, lambda r: (M(r, 4),), 0),
    ("funcs_tuple_composed", funcs_tuple_composed, lambda r: (M(r, 4),), 0),
    ("funcs_reversed", funcs_reversed, lambda r: (M(r, 4) * 0.5,), 0),
    ("funcs_indexed_call", funcs_indexed_call, lambda r: (M(r, 4),), 0),
    ("funcs_zip_params", funcs_zip_params, lambda r: (M(r, 4), M(r, 2)), 1),
    ("funcs_late_binding", funcs_late_binding, lambda r: (M(r, 4),), 0),
    ("funcs_slice", funcs_slice, lambda r: (M(r, 4),), 0),
    ("funcs_repeated", funcs_repeated, lambda r: (M(r, 4) * 0.5,), 0),
    ("join_argument_end", join_argument_end, lambda r: (M(r, 4), -1), 0),
    ("join_argument_past", join_argument_end, lambda r: (M(r, 4), 9), 0),
    ("join_negative_end", join_negative_end, lambda r: (M(r, 5),), 0),
    ("join_negative_start", join_negative_start, lambda r: (M(r, 4),), 0),
    ("join_step_slice", join_step_slice, lambda r: (M(r, 5),), 0),
    ("join_reverse_slice", join_reverse_slice, lambda r: (M(r, 4),), 0),
    ("join_empty_slice", join_empty_slice, lambda r: (M(r, 3),), 0),
    ("join_in_loop", join_in_loop, lambda r: (M(r, 4),), 0),
    ("join_arrays_slice", join_arrays_slice, lambda r: (M(r, 3, 4), M(r, 4)), 0),
    ("join_middle_negative", join_middle_negative, lambda r: (M(r, 5),), 0),
    ("sig_plus_c", sig_plus_c, lambda r: (M(r, 5), 0.7), 0),
    ("sig_plus_c_c", sig_plus_c, lambda r: (M(r, 5), 0.7), 1),
    ("sig_two", sig_two, lambda r: (M(r, 5),), 0),
    ("sig_positive_exp", sig_positive_exp, lambda r: (M(r, 5),), 0),
    ("sig_scaled_argument", sig_scaled_argument, lambda r: (M(r, 5),), 0),
    ("sig_two_plus", sig_two_plus, lambda r: (M(r, 5),), 0),
    ("sig_exp_over", sig_exp_over, lambda r: (M(r, 5),), 0),
    ("sig_exp_over_minus", sig_exp_over_minus, lambda r: (M(r, 5),), 0),
    ("sig_int_array", sig_int_array, lambda r: (0.3, np.array([1, -2, 3, 0, 5])), 0),
    ("sig_reversed_sum", sig_reversed_sum, lambda r: (M(r, 5),), 0),
    ("sig_one_minus", sig_one_minus, lambda r: (M(r, 5),), 0),
    ("sig_power_neg", sig_power_neg, lambda r: (M(r, 5),), 0),
    ("sig_scalar_loop", sig_scalar_loop, lambda r: (M(r, 5),), 0),
    ("sig_minus_one", sig_minus_one, lambda r: (M(r, 5) + 3.0,), 0),
    ("sig_exp_shift", sig_exp_shift, lambda r: (M(r, 5),), 0),
    ("sig_two_saturated", sig_two_saturated, lambda r: (saturated(r), M(r, 5)), 0),
    ("sig_two_saturated_a", sig_two_saturated, lambda r: (saturated(r), M(r, 5)), 1),
    ("sig_power_saturated", sig_power_saturated, lambda r: (saturated(r),), 0),
    ("sig_param_numerator", sig_param_numerator, lambda r: (saturated(r), M(r, 5)), 0),
    ("sig_param_numerator_a", sig_param_numerator, lambda r: (saturated(r), M(r, 5)), 1),
    ("sig_ones_numerator", sig_ones_numerator, lambda r: (saturated(r),), 0),
    ("choice_of_values", choice_of_values, lambda r: (M(r, 5),), 0),
    ("choice_no_replace", choice_no_replace, lambda r: (M(r, 5),), 0),
    ("choice_weighted", choice_weighted, lambda r: (M(r, 4), np.array([0.1, 0.2, 0.3, 0.4])), 0),
    ("promoted_zero_trips", promoted_zero_trips, lambda r: (M(r, 4), 0), 0),
    ("promoted_some_trips", promoted_zero_trips, lambda r: (M(r, 4), 3), 0),
    ("promoted_number_then_array", promoted_number_then_array, lambda r: (M(r, 4),), 0),
    ("carried_list_loop", carried_list_loop, lambda r: (M(r, 4),), 0),
    ("carried_list_append_empty", carried_list_append_empty, lambda r: (M(r, 4), 0), 0),
    ("carried_list_append_some", carried_list_append_empty, lambda r: (M(r, 4), 2), 0),
]
