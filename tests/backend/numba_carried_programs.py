"""State carried through loops under jit="numba": float32 tuples, lists of an array and a number."""

import numpy as np


def tuple_state(x):
    s = (x, 1.0)
    for _ in range(3):
        a, b = s
        s = (a * 0.9 + np.sin(a), b * 0.5)
    return np.sum(s[0]) * s[1]


def tuple_state_while(x):
    s = (x, 1.0)
    k = 0
    while k < 3:
        s = (s[0] * 0.9 + np.sin(s[0]) * 0.3, s[1] * 0.7)
        k += 1
    return np.sum(s[0] * s[0]) * s[1]


def tuple_of_arrays(x):
    s = (x, x * 2.0)
    for _ in range(3):
        s = (0.1 * s[0] + s[1] * 0.7, np.tanh(s[0]))
    return np.sum(s[0] * s[1])


CARRIED = [tuple_state, tuple_state_while, tuple_of_arrays]


def list_while(x):
    s = [x, 1.0]
    k = 0
    while k < 3:
        s = [s[0] * 0.9 + np.sin(s[0]), s[1] * 0.5]
        k += 1
    return np.sum(s[0]) * s[1]


def list_for(x):
    s = [x, 1.0]
    for _ in range(3):
        s = [s[0] * 0.9 + np.sin(s[0]), s[1] * 0.5]
    return np.sum(s[0]) * s[1]


def number_first(x):
    s = [2.0, x]
    k = 0
    while k < 2:
        s = [s[0] * 0.5, s[1] * s[0]]
        k += 1
    return np.sum(s[1])


def built_in_the_loop(x):
    total = 0.0
    for k in range(3):
        pair = [x * k, 1.5]
        total = total + np.sum(pair[0]) * pair[1]
    return total


MIXED_LISTS = [list_while, list_for, number_first, built_in_the_loop]
