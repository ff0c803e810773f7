"""Wave 35d: gated cells whose gates are slices of a computed product (``a = x @ W + h @ U + b``,
``a[:, n:2 * n]``), np.split's / np.hsplit's pieces, slices between bounds read from a shape
(``n = b.shape[0]``, ``W[:, n:]``) and products of one left operand by blocks tiling a matrix, with
rows where such a width IS 1 (a gate of one column broadcast against the state: the code assuming
nothing runs), where a bias is wider than the product it is added to, where a width is 0, where a
product's left operand is rebound between two blocks, and where a piece's adjoint has a term outside
the loop (test_wave35d.py runs them; benchmarks/variants35_gates.py times held-out kin)."""

from __future__ import annotations

import numpy as np


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def product_slices(W, U, b, xs):
    """Three gates sliced from one computed pre-activation, the width ``b.shape[0] // 3``."""
    n = b.shape[0] // 3
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for x in xs:
        a = x @ W + h @ U + b
        f = _sigmoid(a[:, :n])
        o = _sigmoid(a[:, n:2 * n])
        g = np.tanh(a[:, 2 * n:])
        h = f * h + (1.0 - f) * g * o
        total = total + np.sum(h * h)
    return total


def product_slice_one(W, U, xs):
    """A gate sliced from a product after the state's width (``a[:, n:]``, n = U.shape[0]): one column
    where W has n + 1, broadcast against the state."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for t in range(xs.shape[0]):
        a = xs[t] @ W
        gate = _sigmoid(a[:, n:])
        h = gate * h + (1.0 - gate) * np.tanh(a[:, :n] + h @ U)
        total = total + np.sum(h ** 2)
    return total


def bias_wider(W, b, xs):
    """A product of one column plus a bias of 2n broadcast: the gates sliced from the sum."""
    n = b.shape[0] // 2
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for x in xs:
        a = x @ W + b
        z = _sigmoid(a[:, :n])
        h = z * h + (1.0 - z) * np.tanh(a[:, n:])
        total = total + np.sum(h ** 2)
    return total


def split_cell(W, U, xs):
    """A GRU-like cell of np.split's pieces of W and U (two gates)."""
    Wz, Wc = np.split(W, 2, axis=1)
    Uz, Uc = np.split(U, 2, axis=1)
    h = np.zeros((xs.shape[1], U.shape[0]))
    total = 0.0
    for x in xs:
        z = _sigmoid(x @ Wz + h @ Uz)
        c = np.tanh(x @ Wc + h @ Uc)
        h = (1.0 - z) * h + z * c
        total = total + np.sum(h * h)
    return total


def hsplit_cell(W, xs):
    """Gates of np.hsplit's three pieces of W, a state updated without recurrent weights."""
    Wz, Wo, Wc = np.hsplit(W, 3)
    h = 0.0
    total = 0.0
    for x in xs:
        z = _sigmoid(x @ Wz)
        h = z * h + (1.0 - z) * np.tanh(x @ Wc)
        total = total + np.sum(_sigmoid(x @ Wo) * h)
    return total


def split_outside(W, xs):
    """np.split's pieces, one of them also penalised outside the loop (its adjoint has a term there)."""
    Wa, Wb = np.split(W, 2, axis=1)
    h = np.zeros((xs.shape[1], Wa.shape[1]))
    total = 0.1 * np.sum(Wa ** 2)
    for x in xs:
        h = np.tanh(x @ Wa + h) * _sigmoid(x @ Wb)
        total = total + np.sum(h)
    return total


def shape_bound_slice(W, b, xs):
    """Blocks between a bound read from a shape (``n = b.shape[0]``; ``W[:, n:]`` of one column where
    W has n + 1, broadcast against the gate)."""
    n = b.shape[0]
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for t in range(xs.shape[0]):
        f = _sigmoid(xs[t] @ W[:, :n] + b)
        h = f * h + (1.0 - f) * np.tanh(xs[t] @ W[:, n:])
        total = total + np.sum(h ** 2)
    return total


def rebound_left(U, xs):
    """Products of the state by U's two blocks, the state rebound between them: two products."""
    n = U.shape[1] // 2
    h = np.ones((xs.shape[1], U.shape[0]))
    total = 0.0
    for x in xs:
        z = _sigmoid(h @ U[:, :n] + x)
        h = z * h
        c = np.tanh(h @ U[:, n:] + x)
        h = h + c
        total = total + np.sum(h ** 2)
    return total


def _gates(rng, k, n=2, n_in=3, T=3, B=2, extra=0):
    return 0.5 * rng.normal(size=(n_in, k * n + extra)), 0.5 * rng.normal(size=(n, k * n + extra)), \
        0.1 * rng.normal(size=k * n), rng.normal(size=(T, B, n_in))


def _one_slice(rng, n=2, width=1):
    return 0.5 * rng.normal(size=(3, n + width)), 0.5 * rng.normal(size=(n, n)), rng.normal(size=(3, 2, 3))


def _split(rng, width=2, n=2):
    return 0.5 * rng.normal(size=(3, 2 * width)), 0.5 * rng.normal(size=(n, 2 * width)), rng.normal(size=(3, 2, 3))


PROGRAMS = [
    ("product_slices_W", product_slices, lambda rng: _gates(rng, 3), 0),
    ("product_slices_b", product_slices, lambda rng: _gates(rng, 3), 2),
    ("product_slices_one_U", product_slices, lambda rng: _gates(rng, 3, n=1), 1),
    ("product_slice_one_W", product_slice_one, _one_slice, 0),
    ("product_slice_wide_U", product_slice_one, lambda rng: _one_slice(rng, width=2), 1),
    ("bias_wider_b", bias_wider, lambda rng: (0.5 * rng.normal(size=(3, 1)), 0.3 * rng.normal(size=4),
                                              rng.normal(size=(3, 2, 3))), 1),
    ("bias_wider_W", bias_wider, lambda rng: (0.5 * rng.normal(size=(3, 1)), 0.3 * rng.normal(size=4),
                                              rng.normal(size=(3, 2, 3))), 0),
    ("bias_zero_width_b", bias_wider, lambda rng: (0.5 * rng.normal(size=(3, 0)), 0.3 * rng.normal(size=1),
                                                   rng.normal(size=(3, 2, 3))), 1),
    ("split_cell_W", split_cell, _split, 0),
    ("split_cell_U", split_cell, _split, 1),
    ("split_cell_one_W", split_cell, lambda rng: _split(rng, width=1), 0),
    ("hsplit_cell_W", hsplit_cell, lambda rng: (0.5 * rng.normal(size=(3, 6)), rng.normal(size=(3, 2, 3))), 0),
    ("hsplit_cell_one_W", hsplit_cell, lambda rng: (0.5 * rng.normal(size=(3, 3)), rng.normal(size=(3, 2, 3))), 0),
    ("split_outside_W", split_outside, lambda rng: (0.5 * rng.normal(size=(3, 4)), rng.normal(size=(3, 2, 3))), 0),
    ("shape_bound_one_W", shape_bound_slice, lambda rng: (0.5 * rng.normal(size=(3, 3)), 0.3 * rng.normal(size=2),
                                                          rng.normal(size=(3, 2, 3))), 0),
    ("shape_bound_W", shape_bound_slice, lambda rng: (0.5 * rng.normal(size=(3, 4)), 0.3 * rng.normal(size=2),
                                                      rng.normal(size=(3, 2, 3))), 0),
    ("rebound_left_U", rebound_left, lambda rng: (0.5 * rng.normal(size=(2, 4)), rng.normal(size=(3, 2, 2))), 0),
]
