"""The red team's wave 30a: variants of each class of finding (test_redteam_wave30a.py).

* GUARDED: ``nll -= ...`` in a branch whose test compares an item of an argument with a number
  (``if events[i] == 1:``), beside an array made in that branch: refused as an in-place update of an
  array "sharing memory" with it (the guard's value was taken to share the compared item's memory).
* GROWN: a list started as numbers written in the code (``lx = [1.0]``) then appended to: refused
  ("works only on a list this function builds"), and a crash of the gradient's code where the loop
  also read it (``lx.append(lx[-1] * (1 - q))``: 'numpy.ndarray' object has no attribute 'pop').
* SHAPES: ``W.reshape(D_MODEL, 3 * D_MODEL)`` of module constants: "must be a constant here".
* GENERATED: ``tuple(yi + dt * fi for yi, fi in zip(y, f))``: "tuple(...) is not supported".
* RAGGED: a loop over a tuple display of tuples of different lengths: a crash (np.ndim's ValueError).
* DICT_LOOPS: ``for k in RATES`` of a dict of the module iterated ``RATES[0], RATES[1]...``: a
  KeyError, or for a dict keyed 0, 1, ... its values taken for its keys (a silently wrong gradient);
  ``RATES.items()`` / ``.values()`` were refused.
"""

from __future__ import annotations

import numpy as np

from .redteam_wave29a_robotics import M, P

EVENTS = np.array([1, 0, 1, 1, 0, 1])
TIMES = np.array([2.0, 3.0, 4.0, 6.0, 7.0, 9.0])
D_MODEL = 4
HEADS = 2
AXIS = 1
WEIGHTS = {0: 10.0, 1: 20.0, 2: 5.0}  # keyed 0, 1, 2: its values were read as its keys
LAGS = {3: 0.5, 1: 0.25, 2: 0.125}
RATES = {"slow": 0.2, "fast": 1.5}
PAIRS = {(0, 1): 1.0, (1, 2): 0.5, (0, 2): 2.0}
LAYERS = {"w1": np.array([0.5, -0.2, 0.1]), "w2": np.array([1.0, 0.3, -0.4])}


# ---- GUARDED: a branch on an item of an argument compared with a number ----

def guarded_risk_set(beta, times=TIMES, events=EVENTS):
    nll = 0.0
    for i in range(len(times)):
        if events[i] == 1:
            at_risk = times >= times[i]
            nll -= beta[0] * times[i] - np.log(np.sum(np.exp(beta[0] * times) * at_risk))
    return nll


def guarded_exp_row(beta, flags=EVENTS):
    acc = 0.0
    for i in range(len(flags)):
        if flags[i] == 1:
            w = np.exp(beta * TIMES[i])
            acc += np.sum(w)
    return acc


def guarded_two_arguments(beta, flags=EVENTS, times=TIMES):
    acc = 0.0
    for i in range(len(flags)):
        if flags[i] == 1:
            w = np.exp(beta * times[i])
            acc += np.sum(w) * 0.1
    return acc


def guarded_product(beta, flags=EVENTS, times=TIMES):
    acc = 1.0
    for i in range(len(flags)):
        if flags[i] == 1:
            w = times[i:] * beta[0]
            acc *= np.sum(w) * 0.1
    return acc


def guarded_not_equal(beta, flags=EVENTS, times=TIMES):
    acc = 0.0
    for i in range(len(flags)):
        if flags[i] != 0:
            tail = np.exp(-beta * times[i]) * times
            acc -= np.sum(tail[i:])
    return acc


# ---- GROWN: a list of numbers written in the code, then appended to ----

def grown_no_loop(q):
    lx = [1.0]
    lx.append(q[0] * 2.0)
    lx.append(q[1] * lx[-1])
    return sum(lx)


def grown_survivors(qx):
    lx = [1.0]
    for q in qx:
        lx.append(lx[-1] * (1 - q))
    lx = np.array(lx)
    return np.sum((lx[:-1] + lx[1:]) / 2)


def grown_two_seeds(a):
    seq = [1.0, 1.0]
    for _ in range(6):
        seq.append(a[0] * seq[-1] + a[1] * seq[-2])
    return np.stack(seq) @ np.arange(len(seq))


def grown_by_index(qx):
    lx = [1.0]
    for i in range(len(qx)):
        lx.append(lx[i] * np.exp(-qx[i]))
    return np.mean(lx)


def grown_appended_only(x):
    out = [0.0]
    for v in x:
        out.append(v ** 2)
    return np.sum(np.asarray(out) * np.arange(len(out)))


def grown_history_tuple(theta):
    states = [(1.0, 0.0)]
    for _ in range(5):
        s, i = states[-1]
        states.append((s - theta[0] * s * 0.1, i + theta[0] * s * 0.1 - theta[1] * i * 0.1))
    return states[-1][1] + 0.5 * states[-1][0]


def grown_extend(x):
    acc = [0.5, 0.25]
    acc.extend([x[0] * x[1], x[2]])
    return sum(a * a for a in acc)


# ---- SHAPES: arithmetic on module constants where a constant is needed ----

def shape_reshape_product(W):
    return np.sum(W.reshape(D_MODEL, 2 * D_MODEL) ** 2 * np.arange(2 * D_MODEL))


def shape_reshape_minus_one(W):
    x = W.reshape(D_MODEL, -1)
    return np.sum(np.tanh(x) * x[:, :1])


def shape_heads(W):
    x = W.reshape(D_MODEL, 2 * D_MODEL)
    h = x.reshape(D_MODEL, HEADS, 2 * D_MODEL // HEADS).transpose(1, 0, 2)
    return np.sum(h[0] * h[1])


def shape_axis_arithmetic(W):
    x = W.reshape(D_MODEL, 2 * D_MODEL)
    return np.sum(np.log(np.sum(np.exp(x), axis=AXIS - 1)))


def shape_zeros_and_split(W):
    parts = np.split(W, D_MODEL // 2)
    out = np.zeros((D_MODEL // 2, W.size // (D_MODEL // 2)))
    for k in range(D_MODEL // 2):
        out[k] = parts[k] ** 2
    return out.sum()


# ---- DICT_LOOPS: loops over a dict of the module ----

def dict_keys_keyed_from_zero(x):
    total = 0.0
    for k in WEIGHTS:
        total += k * x[k]
    return total


def dict_keys_as_numbers(x):
    total = 0.0
    for k in WEIGHTS:
        total += (k + 1) * x[0] ** 2
    return total


def dict_keys_read_values(x):
    total = 0.0
    for lag in LAGS:
        total += LAGS[lag] * x[lag] ** 2
    return total


def dict_items(x):
    return sum(w * np.sin(x[lag]) for lag, w in LAGS.items())


def dict_values(x):
    rate_sum = 0.0
    for r in RATES.values():
        rate_sum = rate_sum + np.exp(-r * x[0])
    return rate_sum


def dict_sorted_keys(x):
    t = 0.0
    for k in sorted(LAGS):
        t = 0.5 * t + k * x[k]
    return t


def dict_enumerated(x):
    t = 0.0
    for i, name in enumerate(RATES):
        t += (i + 1) * RATES[name] * x[i] ** 2
    return t


def dict_comprehension(x):
    return np.sum([k * x[k] for k in WEIGHTS]) + len(WEIGHTS)


def dict_tuple_keys(x):
    energy = 0.0
    for (i, j), w in PAIRS.items():
        energy += w * (x[i] - x[j]) ** 2
    return energy


def dict_of_arrays_keys(x):
    return sum(np.sum(np.tanh(LAYERS[name] * x)) for name in LAYERS)


def dict_zipped(x):
    t = 0.0
    for k, (lag, w) in zip(WEIGHTS, LAGS.items()):
        t += (k + 1) * w * x[lag]
    return t


# ---- RAGGED: a loop over a tuple of tuples of different lengths, written in the code ----

SPRINGS = (((0, 1), 1.0), ((1, 2), 0.5), ((0, 2), 2.0))


def ragged_literal_pairs(x):
    energy = 0.0
    for (i, j), w in (((0, 1), 1.0), ((1, 2), 0.5)):
        energy += w * (x[i] - x[j]) ** 2
    return energy


def ragged_module_tuple(x):
    return sum(k * (x[i] * x[j] - 1.0) ** 2 for (i, j), k in SPRINGS)


def ragged_rows(x, rows=((0,), (1, 2), (0, 1, 2))):
    total = 0.0
    for row in rows:
        for r in row:
            total += np.sin(x[r]) * len(row)
    return total


# ---- GENERATED: tuple(...) / list(...) of a generator expression ----

def generated_tuple(x):
    t = tuple(v * v for v in x)
    return t[0] + t[-1]


def generated_list_appended(x):
    t = list(np.sin(v) for v in x)
    t.append(x[0])
    return sum(t)


def generated_unpacked(x):
    s, i = tuple(2.0 * v for v in x[:2])
    return s * i


def generated_state_update(x, y0=(1.0, 0.5)):
    y = y0
    for _ in range(3):
        y = tuple(yi + 0.1 * xi * yi for yi, xi in zip(y, x))
    return y[0] * y[1]


GUARDED = [
    ("guarded_risk_set", guarded_risk_set, lambda r: (0.1 * P(r, 1),), 0),
    ("guarded_exp_row", guarded_exp_row, lambda r: (0.1 * M(r, 6),), 0),
    ("guarded_two_arguments", guarded_two_arguments, lambda r: (0.1 * M(r, 6),), 0),
    ("guarded_product", guarded_product, lambda r: (P(r, 1),), 0),
    ("guarded_not_equal", guarded_not_equal, lambda r: (0.1 * P(r, 6),), 0),
]
GROWN = [
    ("grown_no_loop", grown_no_loop, lambda r: (M(r, 2),), 0),
    ("grown_survivors", grown_survivors, lambda r: (0.1 * P(r, 5),), 0),
    ("grown_two_seeds", grown_two_seeds, lambda r: (np.array([0.6, 0.3]),), 0),
    ("grown_by_index", grown_by_index, lambda r: (0.2 * P(r, 4),), 0),
    ("grown_appended_only", grown_appended_only, lambda r: (M(r, 4),), 0),
    ("grown_history_tuple", grown_history_tuple, lambda r: (np.array([0.8, 0.3]),), 0),
    ("grown_extend", grown_extend, lambda r: (M(r, 3),), 0),
]
SHAPES = [
    ("shape_reshape_product", shape_reshape_product, lambda r: (0.3 * M(r, 32),), 0),
    ("shape_reshape_minus_one", shape_reshape_minus_one, lambda r: (0.3 * M(r, 32),), 0),
    ("shape_heads", shape_heads, lambda r: (0.3 * M(r, 32),), 0),
    ("shape_axis_arithmetic", shape_axis_arithmetic, lambda r: (0.3 * M(r, 32),), 0),
    ("shape_zeros_and_split", shape_zeros_and_split, lambda r: (0.3 * M(r, 8),), 0),
]
DICT_LOOPS = [
    ("dict_keys_keyed_from_zero", dict_keys_keyed_from_zero, lambda r: (M(r, 4),), 0),
    ("dict_keys_as_numbers", dict_keys_as_numbers, lambda r: (M(r, 2),), 0),
    ("dict_keys_read_values", dict_keys_read_values, lambda r: (M(r, 4),), 0),
    ("dict_items", dict_items, lambda r: (M(r, 4),), 0),
    ("dict_values", dict_values, lambda r: (P(r, 2),), 0),
    ("dict_sorted_keys", dict_sorted_keys, lambda r: (M(r, 4),), 0),
    ("dict_enumerated", dict_enumerated, lambda r: (M(r, 2),), 0),
    ("dict_comprehension", dict_comprehension, lambda r: (M(r, 3),), 0),
    ("dict_tuple_keys", dict_tuple_keys, lambda r: (M(r, 3),), 0),
    ("dict_of_arrays_keys", dict_of_arrays_keys, lambda r: (M(r, 3),), 0),
    ("dict_zipped", dict_zipped, lambda r: (M(r, 4),), 0),
]
RAGGED = [
    ("ragged_literal_pairs", ragged_literal_pairs, lambda r: (M(r, 3),), 0),
    ("ragged_module_tuple", ragged_module_tuple, lambda r: (M(r, 3),), 0),
    ("ragged_rows", ragged_rows, lambda r: (M(r, 3),), 0),
]
GENERATED = [
    ("generated_tuple", generated_tuple, lambda r: (M(r, 3),), 0),
    ("generated_list_appended", generated_list_appended, lambda r: (M(r, 3),), 0),
    ("generated_unpacked", generated_unpacked, lambda r: (M(r, 3),), 0),
    ("generated_state_update", generated_state_update, lambda r: (M(r, 2),), 0),
]
