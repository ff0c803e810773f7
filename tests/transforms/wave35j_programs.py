"""Wave 35j: second-order variants of what wave 35b and 35f left open (test_wave35j.py).

BRANCH_TUPLES: a tuple (or list) built on one side of a branch inside a loop and indexed there
(pow_state_estimation's ``h = (v0, v1)[bus]``): the gradient saves it for its backward loop, so
differentiating the gradient again meets a name that holds None before the loop and a tuple after.
"""
from __future__ import annotations

import math

import numpy as np

MEAS = [("v", 1, 1.01), ("p", 0, 0.62), ("v", 0, 1.0), ("p", 1, -0.5)]
PICKS = [0, 2, 1, 2]


def tuple_pick_in_if(x, meas=MEAS):
    th, v0, v1 = x[0], x[1], x[2]
    r = 0.0
    for kind, bus, z in meas:
        if kind == "v":
            h = (v0, v1)[bus]
        else:
            h = v0 * v1 * math.cos(th) + 0.1 * bus
        r += (z - h) ** 2
    return r


def list_pick_in_elif(x, meas=MEAS):
    res = []
    for kind, bus, z in meas:
        if kind == "q":
            h = x[0] ** 2
        elif kind == "v":
            h = [x[1], x[2]][bus] * x[0]
        else:
            h = np.sin(x[0]) * x[1 + bus]
        res.append((z - h) ** 2)
    return sum(res)


def pair_named_in_branch(x, picks=PICKS):
    total = 0.0
    for i, k in enumerate(picks):
        if k < 2:
            pair = (x[k] * x[2], x[k + 1])
            a = pair[0] + pair[1] ** 2
        else:
            a = np.exp(0.3 * x[i % 3])
        total = total + a * a
    return total


def tuple_unpacked_in_branch(x, picks=PICKS):
    s = 0.0
    for k in picks:
        if k == 2:
            a, b = (x[0], x[1] * x[2])
        else:
            a, b = x[k] ** 2, 1.0
        s += a * b + b ** 2
    return s


def tuple_in_nested_if(x, meas=MEAS):
    out = 0.0
    for kind, bus, z in meas:
        if kind == "v":
            if bus == 0:
                h = (x[0], x[1])[1] * x[2]
            else:
                h = (x[1], x[2])[bus - 1] ** 3
        else:
            h = math.tanh(x[bus] * z)
        out += h * h
    return out


def tuple_pick_in_range_loop(x):
    acc = 0.0
    for i in range(x.size - 1):
        if i % 2 == 0:
            h = (x[i], x[i + 1])[i % 2] * x[i + 1]
        else:
            h = math.log(1.0 + x[i] ** 2)
        acc += h ** 2
    return acc


BRANCH_TUPLES = [
    ("tuple_pick_in_if", tuple_pick_in_if, np.array([-0.05, 1.0, 1.01])),
    ("list_pick_in_elif", list_pick_in_elif, np.array([0.3, 0.9, 1.2])),
    ("pair_named_in_branch", pair_named_in_branch, np.array([0.4, -0.7, 1.1])),
    ("tuple_unpacked_in_branch", tuple_unpacked_in_branch, np.array([0.5, 0.8, -1.3])),
    ("tuple_in_nested_if", tuple_in_nested_if, np.array([0.2, 0.6, 0.9])),
    ("tuple_pick_in_range_loop", tuple_pick_in_range_loop, np.array([0.2, 0.6, 0.9, -0.4])),
]


IDX = np.array([2, 0, 2])


def list_index_cubed(x, js=PICKS):
    s = 0.0
    for j in js:
        s += x[j] ** 3 * x[(j + 1) % 3]
    return s


def index_array_in_loop(x, idx=IDX):
    s = 0.0
    for i in range(x.size):
        s = s + np.sum(x[idx] * x[i]) ** 2
    return s


def int_array_items_in_loop(x, idx=IDX):
    s = 0.0
    for j in idx:
        s = s + np.sin(x[j]) * x[0]
    return s


def pair_of_indices_in_loop(x, pairs=((0, 1), (1, 2), (2, 0))):
    e = 0.0
    for i, j in pairs:
        e += (x[i] - x[j]) ** 2 * x[i]
    return e


#: an element read at an index of unknown shape (``x[j]``, j read from a list) in a loop, with other writes
DYNAMIC_INDEX = [
    ("list_index_cubed", list_index_cubed, np.array([0.5, -0.8, 1.3])),
    ("index_array_in_loop", index_array_in_loop, np.array([0.5, -0.8, 1.3])),
    ("int_array_items_in_loop", int_array_items_in_loop, np.array([0.5, -0.8, 1.3])),
    ("pair_of_indices_in_loop", pair_of_indices_in_loop, np.array([0.5, -0.8, 1.3])),
]
