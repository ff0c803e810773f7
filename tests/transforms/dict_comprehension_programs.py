"""Comprehensions over keys srcdiff knows when it builds the gradient: dicts built over a string's
characters, a module-level tuple of names, ``enumerate``/``zip``/``range`` of those, a tree's
items; lists and generators over a tree's items kept by a condition on the key
(``sum(np.sum(v ** 2) for k, v in p.items() if k.startswith("W"))``).  Each becomes the dict or
list of its entries (frontend/flatten_items.py, flatten_exprs.py); test_dict_comprehensions.py
runs every transformation on them."""

import numpy as np

NAMES = ("w", "b")
AXES = "xyz"
LAYERS = ["hidden", "out"]


def powers_by_letter(x):  # the red team's: keys from a string literal
    d = {k: x[i] ** (i + 1) for i, k in enumerate("abc")}
    return d["a"] * d["c"] + sum(d.values())


def scaled_by_module_names(x):  # keys from a module-level tuple
    d = {k: x[i] * 2.0 for i, k in enumerate(NAMES)}
    return d["w"] * d["b"] + d["w"] ** 2


def sines_by_axis(x):  # keys from a module-level string, values through a ufunc
    d = {c: np.sin(x[j]) for j, c in enumerate(AXES)}
    return sum(v ** 2 for v in d.values()) + d["y"] * d["z"]


def squares_by_position(x):  # integer keys from range
    d = {i: x[i] ** 2 for i in range(3)}
    return d[0] + d[2] * d[1]


def layer_norms(W):  # keys zipped with positions, values arrays
    blocks = {name: W[i] for name, i in zip(LAYERS, range(2))}
    return sum(np.sum(b ** 2) for b in blocks.values()) + np.sum(blocks["hidden"] * blocks["out"])


def tree_scaled_by_key(p):  # over a parameter tree's items, with a condition on the key
    decay = {k: 0.5 * np.sum(v ** 2) for k, v in p.items() if k != "b"}
    return sum(decay.values()) + np.sum(p["w"] * p["b"])


def squares_by_length(x):  # range(len(x)): the length is known only when the function runs
    d = {i: x[i] ** 2 for i in range(len(x))}
    return d[0] + d[2] * d[1]


def squares_from_one(x):  # range(1, len(x)): keys known only when the function runs, not a list's indices
    d = {i: x[i] ** 2 for i in range(1, len(x))}
    return d[1] + d[2] * d[1]


def decay_of_weights_only(p, X, y):  # the red team's (wave 15): weight decay on the "W" entries
    h = np.tanh(X @ p["W1"] + p["b1"])
    loss = np.mean((h @ p["W2"] - y) ** 2)
    loss += 1e-2 * sum(np.sum(v ** 2) for k, v in p.items() if k.startswith("W"))
    return loss


def cubes_but_the_bias(p):  # a list comprehension, two conditions on the key
    return sum([np.sum(v ** 3) for k, v in p.items() if k != "b1" and not k.endswith("2")])


def weights_picked_by_name(p):  # over a tuple of names, kept by a test on each
    xs = [p[k] for k in ("W1", "b1", "W2") if "W" in k]
    return np.sum(xs[0]) * np.sum(xs[1] ** 2)


def loss_terms_by_name(w, X, y):  # a dict of named loss terms, summed by a comprehension over its keys
    r = X @ w - y
    terms = {name: weight * value for name, weight, value in
             zip(NAMES, (1.0, 0.1), (np.mean(r ** 2), np.sum(w ** 2)))}
    return terms["w"] + terms["b"]


def _mlp(r):
    return {"W1": r.normal(size=(3, 4)), "b1": r.normal(size=4), "W2": r.normal(size=4)}


PROGRAMS = [
    ("powers_by_letter", powers_by_letter, lambda r: (r.normal(size=3),), 0),
    ("scaled_by_module_names", scaled_by_module_names, lambda r: (r.normal(size=2),), 0),
    ("sines_by_axis", sines_by_axis, lambda r: (r.normal(size=3),), 0),
    ("squares_by_position", squares_by_position, lambda r: (r.normal(size=3),), 0),
    ("layer_norms", layer_norms, lambda r: (r.normal(size=(2, 3)),), 0),
    ("tree_scaled_by_key", tree_scaled_by_key, lambda r: ({"w": r.normal(size=3), "b": r.normal(size=3)},), 0),
    ("decay_of_weights_only", decay_of_weights_only, lambda r: (_mlp(r), r.normal(size=(5, 3)), r.normal(size=5)), 0),
    ("cubes_but_the_bias", cubes_but_the_bias, lambda r: (_mlp(r),), 0),
    ("weights_picked_by_name", weights_picked_by_name, lambda r: (_mlp(r),), 0),
    # (refused before wave 31: a range of a length read as a list, frontend/range_dicts.py; a display
    # of computed values zipped with names, frontend/display_items.py)
    ("squares_by_length", squares_by_length, lambda r: (r.normal(size=3),), 0),
    ("loss_terms_by_name", loss_terms_by_name,
     lambda r: (r.normal(size=3), r.normal(size=(5, 3)), r.normal(size=5)), 0),
]

#: still refused, at the user's line: items known only when the function runs
REFUSED = [
    ("squares_from_one", squares_from_one, lambda r: (r.normal(size=3),), 0),
]
