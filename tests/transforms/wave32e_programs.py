"""Wave 32e's per-example programs for srcdiff.vmap (test_wave32e.py), each written as a user writes it,
of the kinds wave 30 left one example at a time: has_aux, a list or tuple of numbers as the argument
differentiated, ``np.interp`` of a table that differs between examples, a while loop whose count differs
between examples, ``np.linalg.lstsq``, ``np.convolve``, ``np.pad``, ``np.kron``, ``np.all``, and masked
values in products and ``np.maximum``.  `PROGRAMS` pairs each with its arguments' maker (``make(rng, size)``
-> arguments, in_axes), the arguments differentiated, and whether it returns (loss, aux)."""

from __future__ import annotations

import numpy as np

N = 4


def vectors_args(r, b):
    return (r.normal(size=N), r.normal(size=(b, N))), (None, 0)


def list_args(r, b):
    return ([float(v) for v in r.normal(size=3)], r.normal(size=(b, N))), (None, 0)


def tuple_args(r, b):
    return (tuple(float(v) for v in r.normal(size=2)), r.normal(size=(b, N))), (None, 0)


def table_args(r, b):
    fp = r.normal(size=(b, 5))
    return (r.normal(size=N) * 0.4, fp), (None, 0)


def grid_args(r, b):
    xp = np.sort(r.uniform(-2.0, 2.0, size=(b, 5)), axis=1)
    xp[:, 0], xp[:, -1] = -2.5, 2.5
    return (r.normal(size=N) * 0.4, xp), (None, 0)


def system_args(r, b):
    return (r.normal(size=3), r.normal(size=(b, 6, 3)), r.normal(size=(b, 6))), (None, 0, 0)


def signal_args(r, b):
    return (r.normal(size=3), r.normal(size=(b, 8))), (None, 0)


# ---- has_aux: (loss, aux) ----

def aux_array(w, x):
    r = np.tanh(x * w)
    return np.sum(r ** 2), r


def aux_number(w, x):
    s = np.sum(np.sin(x) * w)
    return s * s, s


def aux_dict(w, x):
    z = x @ w
    return z ** 2 + np.sum(w * w), {"z": z, "norm": np.sqrt(np.sum(x * x))}


# ---- a list or tuple of numbers as the argument differentiated ----

def poly_list(p, x):
    return np.sum(p[0] + p[1] * x + p[2] * x * x)


def unpacked_tuple(ab, x):
    a, b = ab
    return np.sum(np.exp(a * x) * b)


def list_in_loop(p, x):
    s = 0.0
    for k in range(len(p)):
        s = s + p[k] * np.sum(x ** (k + 1))
    return s


# ---- np.interp of a per-example table ----

def interp_values(w, fp):
    xp = np.linspace(-2.0, 2.0, 5)
    return np.sum(np.interp(w, xp, fp) * fp[0])


def interp_grid(w, xp):
    fp = np.array([0.0, 1.0, -1.0, 2.0, 0.5])
    return np.sum(np.interp(w, xp, fp) ** 2)


# ---- while loops whose count differs between examples ----

def halve_until_small(w, x):
    while np.sum(x * x) > 1.0:
        x = 0.5 * x
    return np.sum(w * x)


def newton_sqrt(w, x):
    y = np.sum(x * x) + 1.0
    r = y
    while abs(r * r - y) > 1e-10 * y:
        r = 0.5 * (r + y / r)
    return r * np.sum(w)


def break_on_test(w, x):
    s = 0.0
    for k in range(N):
        s = s + w[k] * x[k]
        if s > 1.0:
            break
    return s


# ---- np.linalg.lstsq ----

def least_squares(w, A, y):
    coef = np.linalg.lstsq(A * w, y, rcond=None)[0]
    return np.sum(coef ** 2)


def lstsq_residual(w, A, y):
    coef, *_ = np.linalg.lstsq(A, y + w[0], rcond=None)
    r = A @ coef - y
    return np.sum(r * r) + np.sum(coef * w)


# ---- np.convolve, np.pad, np.kron, np.all ----

def smoothed(k, x):
    return np.sum(np.convolve(x, k, mode="valid") ** 2)


def full_convolution(k, x):
    return np.sum(np.sin(np.convolve(k, x)))


def padded_diff(w, x):
    p = np.pad(x * w, 1)
    return np.sum((p[1:] - p[:-1]) ** 2)


def edge_padded(w, x):
    p = np.pad(x, (2, 1), mode="edge")
    return np.sum(np.tanh(p[:N] * w) * p[3:])


def kron_features(w, x):
    return np.sum(np.kron(x[:2], w[:2]) * np.kron(w[2:], x[2:]))


def all_positive_gate(w, x):
    if np.all(x > -1.5):
        return np.sum(w * x ** 2)
    return np.sum(w * x)


def where_all(w, x):
    ok = np.all(np.abs(x) < 2.0)
    return np.sum(np.where(ok, np.sin(x * w), x * w))


# ---- masked values in products and np.maximum ----

def masked_product(w, x):
    m = x > 0
    return np.prod(x[m] * 0.5 + 1.0) * np.sum(w * x)


def masked_maximum(w, x):
    m = x > -0.5
    return np.sum(np.maximum(x[m] * w[m], 0.1))


def masked_max_reduction(w, x):
    m = x > -0.5
    return np.max(np.where(m, x * w, -10.0)) + np.sum(np.maximum(x[m], 0.0) * w[m])


AUX = [aux_array, aux_number, aux_dict]
LISTS = [(poly_list, list_args), (unpacked_tuple, tuple_args), (list_in_loop, list_args)]
SHAPES = [interp_values, interp_grid]
PROGRAMS = ([(f, vectors_args, (0, 1), True) for f in AUX]
            + [(f, make, (0, 1), False) for f, make in LISTS]
            + [(interp_values, table_args, (0, 1), False), (interp_grid, grid_args, (0,), False)]
            + [(f, vectors_args, (0, 1), False) for f in (halve_until_small, newton_sqrt, break_on_test)]
            + [(f, system_args, (0, 1, 2), False) for f in (least_squares, lstsq_residual)]
            + [(f, signal_args, (0, 1), False) for f in (smoothed, full_convolution)]
            + [(f, vectors_args, (0, 1), False) for f in (padded_diff, edge_padded, kron_features,
                                                          all_positive_gate, where_all, masked_product,
                                                          masked_maximum, masked_max_reduction)])
