"""Programs written for issue 23's reach8b classes (state in dicts and lists, partials and
closures in lists, objects from factories, try/except alternatives); test_reach8b_constructs.py
runs each through every transformation against central differences."""

import functools

import numpy as np


def M(r, *shape):
    return r.normal(size=shape)


# ---- dict state written in a loop the dict was not built in ----

def _drift(q, k):
    return k * q + 0.2 * q ** 3


def dict_state_euler(q0, k=1.3, steps=5):
    state = {"q": q0, "v": np.zeros_like(q0)}
    for _ in range(steps):
        state["v"] = state["v"] - 0.1 * _drift(state["q"], k)
        state["q"] = state["q"] + 0.1 * state["v"]
    return np.sum(state["q"] ** 2) + np.sum(np.sin(state["v"]))


def dict_state_augassign(x, steps=4):
    acc = {"s": 0.0, "p": x}
    for i in range(steps):
        acc["s"] += np.sum(acc["p"] ** 2) / (i + 1)
        acc["p"] = np.tanh(acc["p"]) * 1.1
    return acc["s"]


def dict_state_branch(x, a):
    state = {"y": x * a, "z": x}
    for i in range(3):
        if i % 2 == 0:
            state["y"] = np.sin(state["y"]) + state["z"]
        else:
            state["z"] = state["z"] * state["y"]
    return np.sum(state["y"] * state["z"])


def _energy(state):
    return np.sum(state["a"] ** 2) + np.sum(state["a"] * state["b"])


def dict_state_to_helper(x):
    st = {"a": x, "b": 2.0 * x}
    total = 0.0
    for _ in range(3):
        total = total + _energy(st)
        st["a"] = st["a"] + 0.3 * np.cos(st["b"])
        st["b"] = st["b"] * 0.9 - 0.1 * st["a"]
    return total + _energy(st)


def dict_state_while(x, tol=1e-3):
    st = {"x": x, "n": 0}
    while st["n"] < 4:
        st["x"] = 0.5 * (st["x"] + 2.0 / st["x"])
        st["n"] = st["n"] + 1
    return np.sum(st["x"] ** 2)


PROGRAMS = [
    ("dict_state_euler", dict_state_euler, lambda r: (M(r, 4),), 0),
    ("dict_state_euler_k", dict_state_euler, lambda r: (M(r, 4), 1.3), 1),
    ("dict_state_augassign", dict_state_augassign, lambda r: (M(r, 3),), 0),
    ("dict_state_branch", dict_state_branch, lambda r: (M(r, 3), 0.7), 0),
    ("dict_state_branch_a", dict_state_branch, lambda r: (M(r, 3), 0.7), 1),
    ("dict_state_to_helper", dict_state_to_helper, lambda r: (M(r, 4),), 0),
    ("dict_state_while", dict_state_while, lambda r: (1.0 + np.abs(M(r, 3)),), 0),
]


# ---- refused, naming the line ----

def dict_copy_then_write(x, steps=2):
    state = {"q": x}
    saved = dict(state)
    for _ in range(steps):
        state["q"] = state["q"] * 2.0
    return np.sum(saved["q"] * state["q"])


def dict_new_key_in_loop(x, steps=2):
    state = {"q": x}
    for _ in range(steps):
        state["r"] = state["q"] * 2.0
    return np.sum(state["r"])
