"""Helpers nested in the differentiated function whose default is a dict built there (open item of
wave 24): ``def g(u, k=k)`` was refused with "name 'k' is not defined"."""

import numpy as np


def dict_default(x):
    k = {"a": x[0], "b": np.sum(x)}

    def g(u, k=k):
        return u * k["a"] + k["b"]
    return np.sum(g(x) ** 2)


def dict_of_arrays_default(x):
    k = {"w": np.sin(x), "b": 0.5}

    def g(u, k=k):
        return np.tanh(u * k["w"] + k["b"])
    return np.sum(g(x) * x)


def item_default(x):
    k = {"a": x[0] * 2.0, "b": 3.0}

    def g(u, c=k["a"], d=k["b"] * 2.0):
        return u * c + d
    return np.sum(g(x) * g(np.cos(x)))


def default_and_passed(x):
    k = {"a": x[1], "b": 1.0}
    other = {"a": np.exp(x[0]), "b": x[2]}

    def g(u, k=k):
        return u * k["a"] - k["b"]
    return np.sum(g(x)) * np.sum(g(x, other)) + np.sum(g(x, k=other))


def item_written_before_def(x):
    k = {"a": 1.0, "b": 2.0}
    k["a"] = x[0] ** 2

    def g(u, k=k):
        return u * k["a"] + k["b"]
    return np.sum(g(x))


def nested_dict_default(x):
    k = {"layer": {"w": x * 0.5, "b": x[0]}, "scale": 2.0}

    def g(u, k=k):
        return k["scale"] * np.sum(np.sin(u * k["layer"]["w"] + k["layer"]["b"]))
    return g(x) + g(x * x)


def comprehension_default(x):
    k = {name: x[i] * (i + 1.0) for i, name in enumerate(("a", "b"))}

    def g(u, k=k):
        return u * k["a"] + u * u * k["b"]
    return np.sum(g(x))


def def_in_loop(x):
    s = 0.0
    for i in range(3):
        k = {"a": x[i], "b": float(i)}

        def g(u, k=k):
            return u * k["a"] + k["b"]
        s = s + np.sum(g(x) ** 2)
    return s


def config_argument_default(x, cfg):
    def g(u, c=cfg):
        return np.sum((u - c["shift"]) ** 2) * c["scale"]
    return g(x)


def called_in_a_conditional(x):
    k = {"a": x[0], "b": 2.0}

    def g(u, k=k):
        return np.sum(u * k["a"] + k["b"])
    return g(x) if x[1] > 0.0 else g(-x)


PROGRAMS = [
    ("dict_default", dict_default, lambda rng: (rng.standard_normal(3),), 0),
    ("dict_of_arrays_default", dict_of_arrays_default, lambda rng: (rng.standard_normal(3),), 0),
    ("item_default", item_default, lambda rng: (rng.standard_normal(3),), 0),
    ("default_and_passed", default_and_passed, lambda rng: (rng.standard_normal(3),), 0),
    ("item_written_before_def", item_written_before_def, lambda rng: (rng.standard_normal(3),), 0),
    ("nested_dict_default", nested_dict_default, lambda rng: (rng.standard_normal(3),), 0),
    ("comprehension_default", comprehension_default, lambda rng: (rng.standard_normal(3),), 0),
    ("def_in_loop", def_in_loop, lambda rng: (rng.standard_normal(3),), 0),
    ("called_in_a_conditional", called_in_a_conditional, lambda rng: (rng.standard_normal(3),), 0),
    ("config_argument_default", config_argument_default,
     lambda rng: (rng.standard_normal(3), {"shift": rng.standard_normal(3), "scale": 1.5}), 0),
]


# Refused, each at the line that breaks it, with what to write instead.


def item_written_after_def(x):
    k = {"a": x[0], "b": 2.0}

    def g(u, k=k):
        return u * k["a"] + k["b"]
    k["a"] = x[1]  # refused here: the default is the same dict, srcdiff does not follow the write
    return np.sum(g(x))


def rebound_after_def(x):
    k = {"a": x[0], "b": 2.0}

    def g(u, k=k):
        return u * k["a"] + k["b"]
    k = {"a": x[2], "b": 1.0}  # refused here: the default is still the first dict
    return np.sum(g(x)) + k["a"]


def returns_early(x):
    k = {"a": x[0], "b": 2.0}

    def g(u, k=k):
        if u[0] > 0.0:
            return u * k["a"]
        return u * k["b"]
    return np.sum(g(x))  # (refused here until wave 26: g's returns are now moved to its end)
