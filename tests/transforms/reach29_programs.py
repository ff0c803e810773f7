"""Programs of reach 29 (test_reach29_refusals.py): constructs grad refused before, each as a class
with variants, run through every transformation against float64 central differences.

Each row is ``(name, func, make_args(rng), wrt)`` (corpus.from_table).
"""

from __future__ import annotations

import math

import numpy as np

# ---- a loop over the sorted labels of groups: ``for g in sorted(set(groups))`` ----


def group_sums_squared(x, groups):
    t = 0.0
    for g in sorted(set(groups)):
        t = t + np.sum(x[groups == g]) ** 2
    return t


def group_means_comprehension(x, groups):
    return sum(np.mean(x[groups == g]) ** 2 for g in sorted(set(groups)))


def group_enumerated(x, groups):
    t = 0.0
    for k, g in enumerate(sorted(set(groups))):
        t = t + (k + 1.0) * np.sum(np.tanh(x[groups == g]))
    return t


def group_variance_components(params, y, groups):
    sigma_b, sigma_e = math.exp(params[0]), math.exp(params[1])
    ll = 0.0
    for g in sorted(set(groups)):
        yg = np.array([yi for yi, gi in zip(y, groups) if gi == g])
        n = len(yg)
        V = sigma_e**2 * np.eye(n) + sigma_b**2 * np.ones((n, n))
        sign, logdet = np.linalg.slogdet(V)
        ll += -0.5 * (logdet + yg @ np.linalg.solve(V, yg))
    return ll


def group_effects_dict(b, x, groups):
    # a random effect per group: b[g] read by the label
    r = 0.0
    for g in sorted(set(groups)):
        r = r + np.sum((x[groups == g] - b[g]) ** 2) + 0.5 * b[g] ** 2
    return r


def sorted_distinct_values(x):
    # sorted(set(...)) of the differentiated values themselves (distinct here)
    return sum(v * v * (k + 1.0) for k, v in enumerate(sorted(set(x))))


def _groups(r):
    return 0.5 * r.standard_normal(7), np.array([2, 0, 1, 2, 0, 1, 1])


GROUPS = [
    ("group_sums_squared", group_sums_squared, _groups, 0),
    ("group_sums_squared_list", group_sums_squared, lambda r: (0.5 * r.standard_normal(5), [1, 0, 1, 3, 3]), 0),
    ("group_means_comprehension", group_means_comprehension, _groups, 0),
    ("group_enumerated", group_enumerated, _groups, 0),
    ("group_variance_components", group_variance_components,
     lambda r: (np.array([0.1, -0.2]), r.standard_normal(6), np.array([0, 1, 0, 1, 1, 2])), 0),
    ("group_effects_dict", group_effects_dict,
     lambda r: (0.3 * r.standard_normal(3), r.standard_normal(6), np.array([0, 1, 0, 2, 1, 2])), 0),
    ("sorted_distinct_values", sorted_distinct_values, lambda r: (np.array([0.3, -1.2, 0.8, 2.0]),), 0),
]


# ---- functions kept in a list, tuple or dict the function builds, called in a loop ----


def relu(v):
    return np.maximum(v, 0.0)


def softplus(v):
    return np.logaddexp(0.0, v)


def mlp_activations_list(W, x):
    acts = [np.tanh, relu, softplus]
    h = x
    for k, a in enumerate(acts):
        h = a(W[k] @ h)
    return np.sum(h ** 2)


def mlp_activations_indexed(W, x):
    acts = (np.tanh, softplus, lambda v: v)
    h = x
    for k in range(len(acts)):
        h = acts[k](W[k] @ h)
    return np.sum(h ** 2)


def activation_by_name(w, x):
    fs = {"tanh": np.tanh, "relu": relu, "sin": np.sin}
    return np.sum(fs["tanh"](x @ w)) + 0.5 * np.sum(fs["sin"](x @ w) ** 2)


def basis_dict_items(c, x):
    basis = {"one": np.ones_like, "lin": lambda t: t, "quad": lambda t: t * t, "cos": np.cos}
    weights = {"one": 1.0, "lin": 0.5, "quad": 0.25, "cos": 2.0}
    y = 0.0
    for k, (name, phi) in enumerate(basis.items()):
        y = y + c[k] * weights[name] * phi(x)
    return np.sum((y - 0.3) ** 2)


def local_defs_in_a_tuple(x):
    def sq(v):
        return v * v

    def damped(v):
        return np.exp(-v) * np.sin(v)

    terms = (sq, damped, math.cos)
    return sum(t(x[0]) + t(x[1]) for t in terms) + sum(np.sum(f(x)) for f in (np.tanh,))


def penalties_list(w):
    penalties = [lambda v: np.sum(v ** 2), lambda v: np.sum(np.log1p(v ** 2)), np.linalg.norm]
    return sum(p(w) * 0.1 * (i + 1) for i, p in enumerate(penalties))


def losses_dict_values(pred, y):
    losses = {"mse": lambda a, b: np.mean((a - b) ** 2), "huberish": lambda a, b: np.mean(np.sqrt(1.0 + (a - b) ** 2))}
    total = 0.0
    for loss in losses.values():
        total = total + loss(pred, y)
    return total + len(losses)


def _mlp(r):
    return 0.5 * r.standard_normal((3, 4, 4)), r.standard_normal(4)


FUNCTIONS = [
    ("mlp_activations_list", mlp_activations_list, _mlp, 0),
    ("mlp_activations_list_x", mlp_activations_list, _mlp, 1),
    ("mlp_activations_indexed", mlp_activations_indexed, _mlp, 0),
    ("activation_by_name", activation_by_name, lambda r: (r.standard_normal(3), r.standard_normal((5, 3))), 0),
    ("basis_dict_items", basis_dict_items, lambda r: (r.standard_normal(4), r.standard_normal(6)), 0),
    ("local_defs_in_a_tuple", local_defs_in_a_tuple, lambda r: (r.standard_normal(2),), 0),
    ("penalties_list", penalties_list, lambda r: (r.standard_normal(5),), 0),
    ("losses_dict_values", losses_dict_values, lambda r: (r.standard_normal(5), r.standard_normal(5)), 0),
]


# ---- lists joined with +, in loops too: ``buf = buf[1:] + [echoed]`` ----


def delay_line_echo(x, delay=2, feedback=0.4):
    buf = [0.0] * delay
    out = 0.0
    for n in range(len(x)):
        echoed = x[n] + feedback * buf[0]
        buf = buf[1:] + [echoed]
        out += echoed**2
    return out


def sliding_window_sum(x):
    win = [x[0], x[1], x[2]]
    t = 0.0
    for n in range(3, len(x)):
        win = win[1:] + [x[n] * 0.5 + win[-1]]
        t = t + win[0] * win[-1]
    return t


def history_in_front(x):
    hist = [x[0]]
    for n in range(1, len(x)):
        hist = [hist[0] * 0.9 + x[n]] + hist[:2]
    return sum(h * h for h in hist)


def last_two_kept(x):
    buf = [x[0], x[1], x[2]]
    out = 0.0
    for n in range(3, len(x)):
        buf = buf[-2:] + [x[n] + 0.3 * buf[0]]
        out += buf[-1] ** 2
    return out


def rotated_and_joined(x):
    xs = [x[0], x[1], x[2]]
    ys = xs[1:] + xs[:1] + [x[3]]
    return sum(y * y * (k + 1) for k, y in enumerate(ys))


def rnn_state_history(W, x):
    # a list of arrays shifted each step, stacked at the end
    hist = [np.zeros(3), np.zeros(3)]
    for t in range(x.shape[0]):
        h = np.tanh(W @ (x[t] + 0.5 * hist[-1] - 0.2 * hist[0]))
        hist = hist[1:] + [h]
    return np.sum(np.stack(hist) ** 2)


def joined_outside_a_loop(x):
    xs = [x[0], x[1]]
    ys = [x[2] * 2.0]
    first = [x[3]] + xs
    return sum(z * z for z in xs + ys) + first[0] * first[2]


def M(r, *shape):
    return r.standard_normal(shape)


def _vec(r):
    return (r.standard_normal(6),)


JOINS = [
    ("delay_line_echo", delay_line_echo, _vec, 0),
    ("sliding_window_sum", sliding_window_sum, _vec, 0),
    ("history_in_front", history_in_front, _vec, 0),
    ("last_two_kept", last_two_kept, _vec, 0),
    ("rotated_and_joined", rotated_and_joined, _vec, 0),
    ("rnn_state_history", rnn_state_history, lambda r: (0.4 * r.standard_normal((3, 3)), M(r, 4, 3)), 0),
    ("rnn_state_history_x", rnn_state_history, lambda r: (0.4 * r.standard_normal((3, 3)), M(r, 4, 3)), 1),
    ("joined_outside_a_loop", joined_outside_a_loop, _vec, 0),
]

PROGRAMS = GROUPS + FUNCTIONS + JOINS
