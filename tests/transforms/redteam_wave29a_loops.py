"""The red team's wave 29a's finding on loops over ``range`` of constants whose body reads a tree
(a dict of gains, an object's fields): kept as loops where the counter never decides which entry
is read, unrolled (as before) where it does or where the body changes the tree
(test_redteam_wave29a.py checks each against float64 central differences)."""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np


def pid_gains_in_a_dict(gains, dt=0.05):
    p = {"kp": gains[0], "ki": gains[1], "umax": 2.0}
    y, integral, cost = 0.0, 0.0, 0.0
    for k in range(60):
        sp = 1.0 if k < 30 else 0.5
        err = sp - y
        u_raw = p["kp"] * err + p["ki"] * integral
        u = min(max(u_raw, -p["umax"]), p["umax"])
        if u == u_raw:
            integral += err * dt
        y = y + dt * (u - 0.5 * y)
        cost += err**2
    return cost * dt


def lotka_volterra_dict(log_params):
    e = np.exp(log_params)
    p = {"alpha": e[0], "beta": e[1], "gamma": e[2], "delta": e[3]}
    u, v, out = 0.0, -0.7, 0.0
    for _ in range(40):
        du = p["alpha"] - p["beta"] * np.exp(v)
        dv = p["delta"] * np.exp(u) - p["gamma"]
        u, v = u + 0.05 * du, v + 0.05 * dv
        out += np.exp(u) + np.exp(v)
    return out


@dataclass
class Plant:
    gain: float
    lag: float


Limits = namedtuple("Limits", "low high")


def plant_fields(x):
    plant, lim = Plant(x[0], x[1]), Limits(-1.0, 1.0)
    y, cost = 0.0, 0.0
    for t in range(40):
        u = np.clip(np.sin(0.3 * t) - y, lim.low, lim.high)
        y = y + 0.1 * (plant.gain * u - y / plant.lag)
        cost = cost + (y - 0.5) ** 2 * (t + 1)
    return cost


def step_by_counter(weights, x):
    layers = [weights[0], weights[1], weights[2]]
    for i in range(3):
        x = np.tanh(layers[i] * x + 0.1 * i)
    return np.sum(x**2)


def keyed_by_counter(w):
    p = {"w0": w[0], "w1": w[1], "w2": w[2]}
    total = 0.0
    for i in range(3):
        total = total + p[f"w{i}"] ** 2 * (i + 1)
    return total


def dict_changed_in_the_loop(k):
    conc = {"A": 1.0, "B": 0.8, "C": 0.0}
    for _ in range(20):
        net = 0.1 * (k[0] * conc["A"] * conc["B"] - k[1] * conc["C"])
        conc["A"] -= net
        conc["B"] -= net
        conc["C"] += net
    return conc["C"] / (conc["A"] + conc["B"] + conc["C"])


def _advance(p, i, y):
    return y + p["rate"][i] * (1.0 - y)


def helper_given_tree_and_counter(rates):
    p = {"rate": rates, "scale": 2.0}
    y = 0.0
    for i in range(3):
        y = _advance(p, i, y) * p["scale"] * 0.5
    return y**2


#: programs whose loop is kept (no copy of the body per step), and those unrolled as before
KEPT_LOOPS = [
    ("plant_fields", plant_fields, lambda r: (np.array([1.2, 2.0]) + 0.05 * r.standard_normal(2),), 0),
    ("pid_gains_in_a_dict", pid_gains_in_a_dict, lambda r: (np.array([1.5, 0.8]),), 0),
    ("lotka_volterra_dict", lotka_volterra_dict, lambda r: (0.1 * r.standard_normal(4),), 0),
]
UNROLLED = [
    ("step_by_counter", step_by_counter, lambda r: (r.standard_normal(3), r.standard_normal(4)), 0),
    ("keyed_by_counter", keyed_by_counter, lambda r: (r.standard_normal(3),), 0),
    ("dict_changed_in_the_loop", dict_changed_in_the_loop, lambda r: (np.array([1.5, 0.4]),), 0),
    ("helper_given_tree_and_counter", helper_given_tree_and_counter, lambda r: (0.3 * r.uniform(0.5, 1.5, 3),), 0),
]


def zipped_exp_in_a_loop(log_params):
    p = dict(zip(("alpha", "beta", "gamma", "delta"), np.exp(log_params)))
    u, v, out = 0.0, -0.7, 0.0
    for _ in range(30):
        u, v = u + 0.05 * (p["alpha"] - p["beta"] * np.exp(v)), v + 0.05 * (p["delta"] * np.exp(u) - p["gamma"])
        out += np.exp(u) + np.exp(v)
    return out


def zipped_array(theta):
    p = dict(zip(["r", "K"], theta))
    n = 2.0
    for _ in range(10):
        n = n + 0.5 * p["r"] * n * (1.0 - n / p["K"])
    return n


def zipped_tuple_display(x):
    cfg = dict(zip(("k", "c", "m"), (x[0], 2.0 * x[1], x[0] * x[1])))
    return cfg["k"] ** 2 + cfg["c"] * cfg["m"]


def zipped_shorter_values(x):
    cfg = dict(zip(("a", "b", "unused"), (np.sin(x[0]), x[1] ** 2)))
    return cfg["a"] * cfg["b"]


def _scaled(v):
    return 2.0 * v


def zipped_from_a_helper(x):
    p = dict(zip(("a", "b"), _scaled(x)))
    return p["a"] * p["b"]


ZIPS = [
    ("zipped_exp_in_a_loop", zipped_exp_in_a_loop, lambda r: (0.1 * r.standard_normal(4),), 0),
    ("zipped_array", zipped_array, lambda r: (np.array([0.8, 10.0]),), 0),
    ("zipped_tuple_display", zipped_tuple_display, lambda r: (r.standard_normal(2),), 0),
    ("zipped_shorter_values", zipped_shorter_values, lambda r: (r.standard_normal(2),), 0),
]


LINKS = np.array([1.0, 0.8, 0.5])


def _joints(q):
    pts = [np.zeros(2)]
    phi = 0.0
    for qi, li in zip(q, LINKS):
        phi += qi
        pts.append(pts[-1] + li * np.array([np.cos(phi), np.sin(phi)]))
    return pts


def returned_history_last(q):
    return np.sum((_joints(q)[-1] - np.array([1.2, 0.9])) ** 2)


def returned_history_iterated(q):
    cost = 0.0
    for p in _joints(q)[1:]:
        cost = cost + np.exp(-np.sum((p - 0.5) ** 2) / 0.09)
    return cost


def _orbit(v, steps):
    states = [np.array([1.0, 0.0, v[0], v[1]])]
    for _ in range(steps):
        s = states[-1]
        r3 = (s[0] ** 2 + s[1] ** 2) ** 1.5
        states.append(s + 0.05 * np.array([s[2], s[3], -s[0] / r3, -s[1] / r3]))
    return states, len(states)


def returned_in_a_tuple(v):
    states, n = _orbit(v, 12)
    return sum(s[0] ** 2 + s[1] for s in states) / n


def _kept_aside(q):
    pts = [np.zeros(2)]
    first = pts
    for qi in q:
        pts.append(pts[-1] + np.array([np.cos(qi), np.sin(qi)]))
    return first


def history_with_a_second_name(q):
    return np.sum(_kept_aside(q)[-1] ** 2)


HISTORIES = [
    ("returned_history_last", returned_history_last,
     lambda r: (np.array([0.4, 0.6, -0.3]) + 0.05 * r.standard_normal(3),), 0),
    ("returned_history_iterated", returned_history_iterated,
     lambda r: (np.array([0.4, 0.6, -0.3]) + 0.05 * r.standard_normal(3),), 0),
    ("returned_in_a_tuple", returned_in_a_tuple, lambda r: (np.array([0.1, 1.0]) + 0.05 * r.standard_normal(2),), 0),
]
