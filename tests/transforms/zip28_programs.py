"""zip of a parameter tree with an array or list SHORTER than the tree (reach 28's zip went on to the
tree's length and failed with an IndexError): Python's zip stops at the shorter, and so must the
gradient.  Each row goes through every transformation in test_zip28.py against central differences.
"""

from __future__ import annotations

import numpy as np

from .reach28_programs import F, M


def pairs_shorter(xs, theta):
    t = 0.0
    for a, (b, c) in zip(xs, theta):
        t = t + a * b * np.sin(c)
    return t


def dicts_shorter(xs, layers):
    t = 0.0
    for a, layer in zip(xs, layers):
        t = t + np.tanh(a * np.sum(layer["W"]) + layer["b"])
    return t


def layers_rows_shorter(X, layers):
    h = 0.0
    for row, (W, b) in zip(X, layers):
        h = h + np.sum(np.tanh(W @ row + b))
    return h


def tree_first_shorter(layers, xs):
    t = 0.0
    for (W, b), a in zip(layers, xs):
        t = t + np.sum(W * a) * np.sum(b)
    return t


def enumerated_shorter(xs, theta):
    t = 0.0
    for i, (a, (b, c)) in enumerate(zip(xs, theta)):
        t = t + (i + 1.0) * a * b * np.cos(c)
    return t


def three_way_shorter(xs, theta, ys):
    t = 0.0
    for a, (b, c), y in zip(xs, theta, ys):
        t = t + a * b * np.sin(c) + y**2
    return t


def list_shorter(x, theta):
    t = 0.0
    for a, (b, c) in zip([x[0], 2.0 * x[1]], theta):
        t = t + a * b * np.sin(c)
    return t


def loop_state_after(xs, theta):
    h = xs[0]
    n = 0
    for a, (b, c) in zip(xs, theta):
        h = np.tanh(h * b + a * c)
        n += 1
    return h * n


def comprehension_shorter(xs, theta):
    return sum([a * b * np.sin(c) for a, (b, c) in zip(xs, theta)])


def generator_shorter(xs, theta):
    return sum(a * b * np.sin(c) for a, (b, c) in zip(xs, theta))


# ---- the inner zip's pair bound to one name (was "no adjoint rule for builtins.zip") ----


def pair_named(xs, ys):
    t = 0.0
    for a, bc in zip(xs, zip(ys, xs)):
        b, c = bc
        t = t + a * b * np.sin(c)
    return t


def pair_indexed(xs, ys):
    t = 0.0
    for a, bc in zip(xs, zip(ys, xs)):
        t = t + a * bc[0] * np.sin(bc[1])
    return t


def whole_named(xs, ys):
    t = 0.0
    for ab in zip(xs, ys):
        t = t + ab[0] * np.sin(ab[1])
    return t


def enumerated_named(xs, ys):
    t = 0.0
    for i, bc in enumerate(zip(ys, xs)):
        b, c = bc
        t = t + (i + 1.0) * b * np.cos(c)
    return t


def deeper_named(X, ys):
    t = 0.0
    for row, bcd in zip(X, zip(ys, zip(ys[::-1], X[:, 0]))):
        b, cd = bcd
        t = t + np.sum(row * b) * np.sin(cd[0]) + cd[1] ** 2
    return t


def generator_named(xs, ys):
    return sum(a * bc[0] * np.sin(bc[1]) for a, bc in zip(xs, zip(ys, xs)))


# ---- a nested function given a tree, called in a generator over values (refused, with what to do) ----


def _layer_sum(p, x):
    return np.tanh(p["W"] @ x).sum()


def nested_in_a_generator_shadowing(p, x, ts):
    def layer(p, x):
        return np.tanh(p["W"] @ x).sum()

    t = 2.0
    return sum(layer(p, x * t) for t in ts) + t


def nested_in_a_list_comprehension(p, x, ts):
    def layer(p, x):
        return np.tanh(p["W"] @ x).sum()

    return sum([layer(p, x * u) for u in ts])


def nested_in_a_for_statement(p, x, ts):
    def layer(p, x):
        return np.tanh(p["W"] @ x).sum()

    t = 2.0
    total = 0.0
    for u in ts:
        total = total + layer(p, x * u)
    return total + t


def module_helper_in_a_generator(p, x, ts):
    t = 2.0
    return sum(_layer_sum(p, x * t) for t in ts) + t


def item_read_after_the_loop(xs, layers):
    t = 0.0
    for a, layer in zip(xs, layers):
        t = t + a * np.sum(layer["W"])
    return t + np.sum(layer["W"])  # (the last item zip reached: xs's length decides which)


def arrays_kept_in_the_loop(xs, layers):
    t = 0.0
    last = np.zeros(2)
    for a, layer in zip(xs, layers):
        t = t + a * np.sum(layer["W"])
        last = layer["W"]
    return t + np.sum(last**2)


def _layers(r, n):
    return [(0.5 * M(r, 2, 2), M(r, 2)) for _ in range(n)]


def _dicts(r, n):
    return [{"W": M(r, 2), "b": 0.3 * k} for k in range(n)]


_PAIRS = ((0.5, 0.7), (1.1, 0.2), (-0.4, 0.9))

SHORTER = [
    ("pairs_shorter", pairs_shorter, lambda r: (M(r, 2), _PAIRS), 1),
    ("pairs_shorter_xs", pairs_shorter, lambda r: (M(r, 2), _PAIRS), 0),
    ("pairs_shorter_one", pairs_shorter, lambda r: (M(r, 1), _PAIRS), 1),
    ("pairs_equal", pairs_shorter, lambda r: (M(r, 3), _PAIRS), 1),
    ("pairs_longer", pairs_shorter, lambda r: (M(r, 5), _PAIRS), 1),
    ("dicts_shorter", dicts_shorter, lambda r: (M(r, 2), _dicts(r, 3)), 1),
    ("dicts_shorter_xs", dicts_shorter, lambda r: (M(r, 1), _dicts(r, 3)), 0),
    ("layers_rows_shorter", layers_rows_shorter, lambda r: (M(r, 2, 2), _layers(r, 3)), 1),
    ("layers_rows_shorter_X", layers_rows_shorter, lambda r: (M(r, 1, 2), _layers(r, 3)), 0),
    ("layers_rows_float32", layers_rows_shorter, lambda r: (F(r, 2, 2), [(F(r, 2, 2), F(r, 2)) for _ in range(3)]), 0),
    ("tree_first_shorter", tree_first_shorter, lambda r: (_layers(r, 3), M(r, 2)), 0),
    ("tree_first_shorter_xs", tree_first_shorter, lambda r: (_layers(r, 3), M(r, 2)), 1),
    ("enumerated_shorter", enumerated_shorter, lambda r: (M(r, 2), _PAIRS), 1),
    ("enumerated_shorter_xs", enumerated_shorter, lambda r: (M(r, 2), _PAIRS), 0),
    ("three_way_shorter", three_way_shorter, lambda r: (M(r, 3), _PAIRS, M(r, 2)), 1),
    ("three_way_shorter_ys", three_way_shorter, lambda r: (M(r, 3), _PAIRS, M(r, 2)), 2),
    ("list_shorter", list_shorter, lambda r: (M(r, 2), _PAIRS), 1),
    ("list_shorter_x", list_shorter, lambda r: (M(r, 2), _PAIRS), 0),
    ("loop_state_after", loop_state_after, lambda r: (M(r, 2), _PAIRS), 1),
    ("loop_state_after_xs", loop_state_after, lambda r: (M(r, 2), _PAIRS), 0),
]

NAMED = [
    ("pair_named", pair_named, lambda r: (M(r, 3), M(r, 3)), 0),
    ("pair_named_ys", pair_named, lambda r: (M(r, 3), M(r, 2)), 1),
    ("pair_indexed", pair_indexed, lambda r: (M(r, 3), M(r, 3)), 0),
    ("pair_indexed_float32", pair_indexed, lambda r: (F(r, 3), F(r, 3)), 1),
    ("whole_named", whole_named, lambda r: (M(r, 3), M(r, 4)), 1),
    ("enumerated_named", enumerated_named, lambda r: (M(r, 3), M(r, 3)), 0),
    ("deeper_named", deeper_named, lambda r: (M(r, 3, 2), M(r, 3)), 0),
    ("deeper_named_ys", deeper_named, lambda r: (M(r, 3, 2), M(r, 3)), 1),
    ("generator_named", generator_named, lambda r: (M(r, 3), M(r, 3)), 0),
    ("generator_named_ys", generator_named, lambda r: (M(r, 3), M(r, 3)), 1),
]

def _p(r):
    return {"W": 0.5 * M(r, 2, 2)}


#: the refused nested calls' rewrites (the hint's for statement; a module-level helper)
GENERATOR_CALLS = [
    ("nested_in_a_for_statement", nested_in_a_for_statement, lambda r: (_p(r), M(r, 2), M(r, 3)), 0),
    ("nested_in_a_for_statement_x", nested_in_a_for_statement, lambda r: (_p(r), M(r, 2), M(r, 3)), 1),
    ("module_helper_in_a_generator", module_helper_in_a_generator, lambda r: (_p(r), M(r, 2), M(r, 3)), 0),
]

#: the rewrite the refusal of item_read_after_the_loop names
AFTER_THE_LOOP = [
    ("kept_in_the_loop", arrays_kept_in_the_loop, lambda r: (M(r, 2), _dicts(r, 3)), 1),
    ("kept_in_the_loop_equal", arrays_kept_in_the_loop, lambda r: (M(r, 3), _dicts(r, 3)), 1),
    ("kept_in_the_loop_xs", arrays_kept_in_the_loop, lambda r: (M(r, 2), _dicts(r, 3)), 0),
]

#: refused at the call's line, saying what is refused and what to write
NESTED_IN_GENERATORS = [
    ("nested_in_a_generator_shadowing", nested_in_a_generator_shadowing, lambda r: (_p(r), M(r, 2), M(r, 3)), 0),
    ("nested_in_a_list_comprehension", nested_in_a_list_comprehension, lambda r: (_p(r), M(r, 2), M(r, 3)), 0),
]

#: a comprehension is built element by element for the tree's length: a shorter sequence is refused at
#: its line when the function runs (the same function with sequences as long as the tree: SAME_LENGTH)
REFUSED = [
    ("item_read_after_the_loop", item_read_after_the_loop, lambda r: (M(r, 3), _dicts(r, 3)), 1),
    ("comprehension_shorter", comprehension_shorter, lambda r: (M(r, 2), _PAIRS), 1),
    ("generator_shorter", generator_shorter, lambda r: (M(r, 2), _PAIRS), 1),
]

SAME_LENGTH = [
    ("comprehension_equal", comprehension_shorter, lambda r: (M(r, 3), _PAIRS), 1),
    ("generator_longer", generator_shorter, lambda r: (M(r, 4), _PAIRS), 1),
]
