"""Wave 32j: helpers taking ``**opts`` that write into it before forwarding or reading it
(test_wave32j.py): ``opts.setdefault``, ``opts["k"] = v``, ``opts.pop``, ``opts.update``,
``del opts["k"]``, each written the way a user would, then forwarded with ``f(**opts)`` or read.
The REFUSED rows add a key on one path only (a branch on data, a loop)."""

from __future__ import annotations

import numpy as np


def _inner(w, x, scale=1.0, power=2):
    return scale * np.sum(np.abs(np.sin(x * w)) ** power)


def _setdefault_value(w, **opts):
    s = opts.setdefault("scale", 0.5)
    return s * np.sum(w) + _inner(w, w, **opts)


def setdefault_as_value(w):
    return _setdefault_value(w) + _setdefault_value(w, scale=2.0, power=3)


def _not_in_then_set(w, **opts):
    if "scale" not in opts:
        opts["scale"] = 0.25
    return _inner(w, np.cos(w), **opts)


def not_in_then_set(w):
    return _not_in_then_set(w) + _not_in_then_set(w, scale=np.sum(w))


def _item_overrides(w, **opts):
    opts["power"] = 3
    return _inner(w, w, **opts)


def item_overrides_a_given_keyword(w):
    return _item_overrides(w, power=2) + _item_overrides(w, scale=0.5)


def _item_from_get(w, **opts):
    opts["scale"] = 2.0 * opts.get("scale", 1.0)
    return _inner(w, w, **opts) + opts["scale"]


def item_from_its_get(w):  # the keyword given is w[0]: its derivative flows through the write
    return _item_from_get(w) + _item_from_get(w, scale=w[0])


def _setdefault_items(w, **opts):
    opts.setdefault("a", 0.5)
    total = 0.0
    for _, v in opts.items():
        total = total + v * np.sum(w ** 2)
    return total + len(opts)


def setdefault_then_items(w):
    return _setdefault_items(w) + _setdefault_items(w, b=1.5)


def _level2(w, **kw):
    kw.setdefault("power", 3)
    return _inner(w, w, **kw)


def _level1(w, **kw):
    kw.setdefault("scale", 0.3)
    return _level2(w, **kw) + kw["scale"]


def two_levels_of_defaults(w):
    return _level1(w) + _level1(w, power=2) + _level1(w, scale=np.max(w))


def _halved_in_a_loop(w, **opts):
    for _ in range(3):
        opts["scale"] = opts["scale"] * 0.5
    return _inner(w, w, **opts)


def given_key_set_in_a_loop(w):  # (was a compile error, "expression must have Store context")
    return _halved_in_a_loop(w, scale=np.sum(w))


def _pop_forward(w, x, **kwargs):
    scale = kwargs.pop("scale", 1.0)
    return scale * _inner(w, x, **kwargs)  # scale is no longer forwarded


def pop_then_forward(w, x):
    return _pop_forward(w, x) + _pop_forward(w, x, scale=np.sum(x * w), power=3)


def _pop_required(w, **kwargs):
    temperature = kwargs.pop("temperature")
    return _inner(w / temperature, w, **kwargs)


def pop_without_default(w):
    return _pop_required(w, temperature=2.0) + _pop_required(w, temperature=0.5, power=3)


def _del_forward(w, **opts):
    tag = opts["tag"]
    del opts["tag"]
    return tag * _inner(w, w, **opts)


def del_then_forward(w):
    return _del_forward(w, tag=1.5, power=3)


def _update_keywords(w, **opts):
    opts.update(scale=0.5, power=opts.get("power", 2) + 1)
    return _inner(w, w, **opts)


def update_keywords(w):
    return _update_keywords(w) + _update_keywords(w, power=1)


def _update_dict(w, **opts):
    opts.update({"scale": 0.5 * opts.get("scale", 1.0)})
    return _inner(w, w + 1.0, **opts)


def update_a_dict(w):
    return _update_dict(w) + _update_dict(w, scale=np.dot(w, w))


def _decided_branch(w, **opts):
    if "power" in opts:  # the call decides it: the key is added on the one path this call takes
        opts.setdefault("scale", 0.1)
    return _inner(w, w, **opts)


def setdefault_in_a_decided_branch(w):
    return _decided_branch(w) + _decided_branch(w, power=3)


def _tuple_target(w, **opts):
    opts["scale"], opts["power"] = 0.5 * opts["scale"], 3
    return _inner(w, w, **opts)


def tuple_target_of_given_keys(w):
    return _tuple_target(w, scale=w[1], power=2)


def _augmented(w, **opts):
    opts["scale"] *= 0.5
    opts["scale"] += np.sum(w)
    return _inner(w, w, **opts)


def augmented_given_keyword(w):
    return _augmented(w, scale=w[2])


def _augmented_missing(w, **opts):  # a KeyError in Python too: refused at its line
    opts["scale"] += 1.0
    return _inner(w, w, **opts)


def augmented_missing_keyword(w):
    return _augmented_missing(w)


# ---- zip(*pairs) of pairs written in the function (spread by star_calls.py since e03ca7f) ---------


def zip_star_display_in_call(w):
    xs, ys = zip(*[(w[0], w[1]), (w[2], np.sin(w[0]))])
    return sum(x * y for x, y in zip(xs, ys))


def for_zip_star_of_rows(w):
    rows = [(w[0], w[1], w[2]), (np.cos(w[1]), 2.0, w[0] * w[2])]
    total = 0.0
    for a, b in zip(*rows):
        total = total + a * b
    return total


def list_zip_star_of_rows(w):
    rows = [(w[0], w[1]), (w[2], w[0] ** 2), (1.0, w[1])]
    cols = list(zip(*rows))
    return sum(cols[0]) * sum(cols[1])


def user_star_still_spread(w):
    args = (w[0], w[1])
    return _times_sin(*args) + _times_sin(*(w[2], w[0]))


def _times_sin(a, b):
    return a * np.sin(b)


# ---- refused at the line: a key added on one path only ------------------------------------------


def _data_branch(w, **opts):
    if w[0] > 0:
        opts.setdefault("scale", 2.0)
    return _inner(w, w, **opts)


def setdefault_in_a_data_branch(w):
    return _data_branch(w)


def _added_in_loop(w, **opts):
    for i in range(2):
        opts["scale"] = float(i + 1)
    return _inner(w, w, **opts)


def key_added_in_a_loop(w):
    return _added_in_loop(w)


def _pop_in_branch(w, **opts):
    if np.sum(w) > 0:
        opts.pop("scale")
    return _inner(w, w, **opts)


def pop_in_a_data_branch(w):
    return _pop_in_branch(w, scale=0.5)


def M(rng, *shape):
    return rng.normal(size=shape)


PROGRAMS = [
    ("setdefault_as_value", setdefault_as_value, lambda r: (M(r, 3),), 0),
    ("not_in_then_set", not_in_then_set, lambda r: (M(r, 3),), 0),
    ("item_overrides_a_given_keyword", item_overrides_a_given_keyword, lambda r: (M(r, 3),), 0),
    ("item_from_its_get", item_from_its_get, lambda r: (M(r, 3),), 0),
    ("setdefault_then_items", setdefault_then_items, lambda r: (M(r, 3),), 0),
    ("two_levels_of_defaults", two_levels_of_defaults, lambda r: (M(r, 3),), 0),
    ("given_key_set_in_a_loop", given_key_set_in_a_loop, lambda r: (M(r, 3),), 0),
    ("pop_then_forward", pop_then_forward, lambda r: (M(r, 3), M(r, 3)), 0),
    ("pop_then_forward_x", pop_then_forward, lambda r: (M(r, 3), M(r, 3)), 1),
    ("pop_without_default", pop_without_default, lambda r: (M(r, 3),), 0),
    ("del_then_forward", del_then_forward, lambda r: (M(r, 3),), 0),
    ("update_keywords", update_keywords, lambda r: (M(r, 3),), 0),
    ("update_a_dict", update_a_dict, lambda r: (M(r, 3),), 0),
    ("setdefault_in_a_decided_branch", setdefault_in_a_decided_branch, lambda r: (M(r, 3),), 0),
    ("tuple_target_of_given_keys", tuple_target_of_given_keys, lambda r: (M(r, 3),), 0),
    ("augmented_given_keyword", augmented_given_keyword, lambda r: (M(r, 3),), 0),
    ("zip_star_display_in_call", zip_star_display_in_call, lambda r: (M(r, 3),), 0),
    ("for_zip_star_of_rows", for_zip_star_of_rows, lambda r: (M(r, 3),), 0),
    ("list_zip_star_of_rows", list_zip_star_of_rows, lambda r: (M(r, 3),), 0),
    ("user_star_still_spread", user_star_still_spread, lambda r: (M(r, 3),), 0),
    ("setdefault_in_a_data_branch", setdefault_in_a_data_branch, lambda r: (np.abs(M(r, 3)) + 0.1,), 0),
    ("key_added_in_a_loop", key_added_in_a_loop, lambda r: (M(r, 3),), 0),
    ("pop_in_a_data_branch", pop_in_a_data_branch, lambda r: (np.abs(M(r, 3)) + 0.1,), 0),
]

REFUSED = {"setdefault_in_a_data_branch", "key_added_in_a_loop", "pop_in_a_data_branch"}
