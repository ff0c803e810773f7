"""Programs grad differentiates where jit="numba" refused or failed (test_wave31j.py), by class, each
written the way a user would write that kind of loss.

Table rows: (name, function, make_args(rng), wrt)."""

from __future__ import annotations

import numpy as np


def _v(r, n):
    return np.linspace(-0.6, 0.7, n) + 0.05 * r.standard_normal(n)


def _labels(r):
    return [2, 0, 2, 1, 1, 0]


# ---- PADS: np.pad with widths the code computes ------------------------------------------------------

def pad_to_a_length(x, length=8):
    y = np.pad(x, (0, length - x.shape[0]))
    return np.sum(np.cos(y) * np.arange(1.0, length + 1.0)) + np.sum(y ** 3)


def pad_centred_edge(x):
    n = len(x)
    y = np.pad(x, (n // 2, n - n // 2), mode="edge")
    return np.sum(np.tanh(y) * np.linspace(0.0, 1.0, y.shape[0]))


TAPS = np.array([0.25, 0.5, 0.25])


def pad_then_convolve(signal, taps=TAPS):
    half = len(taps) // 2
    padded = np.pad(signal, (half, half), mode="reflect")
    out = np.zeros(signal.shape[0])
    for k in range(len(taps)):
        out = out + taps[k] * padded[k:k + signal.shape[0]]
    return np.sum((out - 0.1) ** 2)


def pad_matrix_to_a_square(a, size=4):
    rows, cols = a.shape
    b = np.pad(a, ((0, size - rows), (0, size - cols)), constant_values=0.25)
    return np.sum(np.sin(b @ b.T))


def pad_periodic_ring(x):
    y = np.pad(x ** 2, len(x) - 1, mode="wrap")
    return np.sum(y[1:] * y[:-1]) + np.sum(np.sqrt(y + 1.0))


def pad_symmetric_in_a_loop(x):
    total = 0.0
    for w in range(1, 3):
        y = np.pad(x, (w, x.shape[0] - w), mode="symmetric")
        total = total + np.sum(np.exp(-y ** 2) * np.arange(y.shape[0]))
    return total


PADS = [
    ("pad_to_a_length", pad_to_a_length, lambda r: (_v(r, 5),), 0),
    ("pad_centred_edge", pad_centred_edge, lambda r: (_v(r, 5),), 0),
    ("pad_then_convolve", pad_then_convolve, lambda r: (_v(r, 6),), 0),
    ("pad_matrix_to_a_square", pad_matrix_to_a_square, lambda r: (np.reshape(_v(r, 6), (2, 3)),), 0),
    ("pad_periodic_ring", pad_periodic_ring, lambda r: (_v(r, 4),), 0),
    ("pad_symmetric_in_a_loop", pad_symmetric_in_a_loop, lambda r: (_v(r, 4),), 0),
]


# ---- WHILE_APPENDS: a list that starts empty, its length read before the first append --------------

def while_collect_squares(p, n=5):
    xs = []
    while len(xs) < n:
        xs.append(p[len(xs) % p.shape[0]] ** 2 * (len(xs) + 1.0))
    return sum(xs)


def while_rollout_states(theta, steps=4):
    states = []
    s = 0.5
    while len(states) < steps:
        s = np.tanh(theta[0] * s + theta[1])
        states.append(s)
    return np.sum(np.array(states) ** 2)


def while_where_rewards(p):
    rewards = []
    while len(rewards) < 4:
        k = len(rewards) % p.shape[0]
        rewards.append(np.where(p[k] > 0, p[k] ** 3, 0.1 * p[k]))
    return sum(rewards) + np.sum(p ** 2)


def while_pairs_of_neighbours(x):
    gaps = []
    while len(gaps) < x.shape[0] - 1:
        i = len(gaps)
        gaps.append((x[i + 1] - x[i]) ** 2)
    return np.sqrt(sum(gaps) + 1.0)


def while_then_diagonal(p):
    xs = []
    while len(xs) < 3:
        xs.append(np.sin(p[len(xs)]))
    m = np.diag(np.array(xs), 1)
    return np.sum(m @ m.T) + np.sum(m ** 3)


WHILE_APPENDS = [
    ("while_collect_squares", while_collect_squares, lambda r: (_v(r, 3),), 0),
    ("while_rollout_states", while_rollout_states, lambda r: (_v(r, 2),), 0),
    ("while_where_rewards", while_where_rewards, lambda r: (_v(r, 3),), 0),
    ("while_pairs_of_neighbours", while_pairs_of_neighbours, lambda r: (_v(r, 4),), 0),
    ("while_then_diagonal", while_then_diagonal, lambda r: (_v(r, 3),), 0),
]


# ---- MASKS: sums over a boolean mask of labels (their Hessians) -------------------------------------

def masked_group_energy(w, g):
    labels = np.array(g)
    total = 0.0
    for k in sorted(set(g)):
        total = total + np.sum(w[labels == k] ** 2) * (k + 1)
    return total


def masked_group_spread(w, g):
    labels = np.asarray(g)
    return sum(np.var(w[labels == k]) + np.mean(w[labels == k]) ** 2 for k in sorted(set(g)))


def masked_positive_part(x):
    return np.sum(x[x > 0] ** 3) + np.sum(np.exp(x[x <= 0]))


def masked_class_log_sum(w, g):
    labels = np.array(g)
    return sum(np.log(np.sum(np.exp(w[labels == k]))) for k in range(3))


MASKS = [
    ("masked_group_energy", masked_group_energy, lambda r: (_v(r, 6), _labels(r)), 0),
    ("masked_group_spread", masked_group_spread, lambda r: (_v(r, 6), _labels(r)), 0),
    ("masked_positive_part", masked_positive_part, lambda r: (_v(r, 5),), 0),
    ("masked_class_log_sum", masked_class_log_sum, lambda r: (_v(r, 6), _labels(r)), 0),
]


# ---- TOLIST: g.tolist() read apart from np.unique ---------------------------------------------------

def tolist_label_weights(w, g):
    total = 0.0
    for _, k in enumerate(g.tolist()):
        total = total + w[k] ** 2
    return total


def tolist_groups_enumerated(w, g):
    total = 0.0
    for i, k in enumerate(sorted(set(g.tolist()))):
        total = total + (i + 1) * np.sum(np.sin(w[g == k]))
    return total


def tolist_counts(w, g):
    labels = g.tolist()
    return sum(w[k] * labels.count(k) for k in range(3)) + np.sum(w ** 2)


TOLIST = [
    ("tolist_label_weights", tolist_label_weights, lambda r: (_v(r, 3), np.array([2, 0, 2, 1])), 0),
    ("tolist_groups_enumerated", tolist_groups_enumerated, lambda r: (_v(r, 5), np.array([1, 1, 0, 3, 0])), 0),
    ("tolist_counts", tolist_counts, lambda r: (_v(r, 3), np.array([2, 0, 2, 1])), 0),
]


# ---- DICTS: a dict of the module read at keys the code computes -------------------------------------

RATES = {"slow": 0.2, "medium": 0.7, "fast": 1.5}
BIASES = {"a": np.array([0.1, -0.2, 0.3]), "b": np.array([0.5, 0.0, -0.5])}
LAYERS = {"first": np.array([[0.5, -0.2], [0.1, 0.4]]), "second": np.array([[1.0, 0.3], [-0.4, 0.2]])}
POWERS = {0: 1.0, 1: 0.5, 2: 0.25}


def dict_rates_enumerated(x):
    t = 0.0
    for i, name in enumerate(RATES):
        t += (i + 1) * RATES[name] * x[i] ** 2
    return t


def dict_biases_in_a_generator(x):
    return sum(np.sum(np.tanh(BIASES[name] + x)) for name in BIASES)


def dict_layers_in_order(h):
    for name in LAYERS:
        h = np.tanh(LAYERS[name] @ h)
    return np.sum(h ** 2)


def dict_sorted_names(x):
    return sum(RATES[name] * np.sum(np.sin(x * RATES[name])) for name in sorted(RATES))


def dict_keyed_by_position(x):
    total = 0.0
    for i in range(len(x)):
        total = total + POWERS[i] * x[i] ** 3
    return total


DICTS = [
    ("dict_rates_enumerated", dict_rates_enumerated, lambda r: (_v(r, 3),), 0),
    ("dict_biases_in_a_generator", dict_biases_in_a_generator, lambda r: (_v(r, 3),), 0),
    ("dict_layers_in_order", dict_layers_in_order, lambda r: (_v(r, 2),), 0),
    ("dict_sorted_names", dict_sorted_names, lambda r: (_v(r, 3),), 0),
    ("dict_keyed_by_position", dict_keyed_by_position, lambda r: (_v(r, 3),), 0),
]


# ---- OPEN: still refused at the user's line (the test's REFUSED says why) ---------------------------

def ragged_rows_by_a_counter(x, rows=((0,), (1, 2), (0, 1, 2))):
    total = 0.0
    for row in rows:
        for r in row:
            total += np.sin(x[r]) * len(row)
    return total


def discounted_returns_prepended(x, gamma=0.9):
    returns = []
    G = 0.0
    for r in reversed(list(x)):
        G = r + gamma * G
        returns.insert(0, G)
    return np.sum(np.array(returns) * np.tanh(x))


OPEN = [
    ("ragged_rows_by_a_counter", ragged_rows_by_a_counter, lambda r: (_v(r, 3),), 0),
    ("discounted_returns_prepended", discounted_returns_prepended, lambda r: (_v(r, 4),), 0),
]

PROGRAMS = PADS + WHILE_APPENDS + MASKS + TOLIST + DICTS + OPEN
