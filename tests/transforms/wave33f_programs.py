"""Wave 33f: gated cells whose gate weights are sliced under names before the loop, and states made
from a slice of an input's shape (``np.zeros(xs.shape[1:])``) (test_wave33f.py runs them;
benchmarks/variants33_gates.py times their larger kin)."""

from __future__ import annotations

import numpy as np


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def peephole_named(W, U, p, xs):
    """Four gates' weights named before the loop (columns i, f, o, g), peepholes on the cell."""
    n = U.shape[0]
    Wi, Wf, Wo, Wg = W[:, :n], W[:, n:2 * n], W[:, 2 * n:3 * n], W[:, 3 * n:]
    Ui, Uf, Uo, Ug = U[:, :n], U[:, n:2 * n], U[:, 2 * n:3 * n], U[:, 3 * n:]
    h = np.zeros((xs.shape[1], n))
    c = np.zeros((xs.shape[1], n))
    loss = 0.0
    for x in xs:
        i = _sigmoid(x @ Wi + h @ Ui + p[0] * c)
        f = _sigmoid(x @ Wf + h @ Uf + p[1] * c)
        g = np.tanh(x @ Wg + h @ Ug)
        c = f * c + i * g
        o = _sigmoid(x @ Wo + h @ Uo + p[2] * c)
        h = o * np.tanh(c)
        loss = loss + np.sum(h * h)
    return loss


def overlapping_named(W, xs):
    """Two named blocks that overlap (``W[:, :2 * n]``, ``W[:, n:]``): each column of the middle
    block takes both gates' terms, summed block by block; not moved into the loop."""
    n = W.shape[1] // 3
    A, B = W[:, :2 * n], W[:, n:]
    out = 0.0
    for x in xs:
        out = out + np.sum(np.tanh(x @ A) ** 2) + np.sum(np.sin(x @ B))
    return out


def reversed_named(W, b, xs):
    """Blocks named out of column order, bias blocks of a vector split in halves (``b.shape[0] // 2``)."""
    n = b.shape[0] // 2
    Wc, Wz = W[:, n:], W[:, :n]
    bc, bz = b[n:], b[:n]
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for x in xs:
        z = _sigmoid(x @ Wz + bz)
        h = z * h + (1.0 - z) * np.maximum(x @ Wc + bc, 0.0)
        total = total + np.sum(h ** 2)
    return total


def literal_named(W, xs):
    """Blocks of literal column bounds (``W[:, :2]``, ``W[:, 2:4]``, ``W[:, 4:]``)."""
    A, B, C = W[:, :2], W[:, 2:4], W[:, 4:]
    out = 0.0
    for x in xs:
        out = out + np.sum(np.tanh(x @ A) * np.cos(x @ B)) + np.mean((x @ C) ** 2)
    return out


def named_read_after(W, xs):
    """A named block read after the loop too: its adjoint takes a term outside the loop."""
    n = W.shape[1] // 2
    Wa, Wb = W[:, :n], W[:, n:]
    out = 0.0
    for x in xs:
        out = out + np.sum(np.tanh(x @ Wa) * (x @ Wb))
    return out + np.sum(Wa ** 2)


def highway_time(Wh, Wt, bt, xs):
    """A highway layer over time, its state zeros of the input's trailing shape (``xs.shape[1:]``)."""
    h = np.zeros(xs.shape[1:])
    total = 0.0
    for t in range(xs.shape[0]):
        gate = _sigmoid(h @ Wt + bt)
        h = gate * np.tanh(h @ Wh + xs[t]) + (1.0 - gate) * h
        total = total + np.sum(h ** 2)
    return total


def leading_state(W, xs):
    """A state of the input's leading shape (``xs.shape[:-1]``) and its last axes' (``xs.shape[-2:]``)."""
    s = np.ones(xs.shape[:-1])
    m = np.zeros(xs.shape[-2:])
    for k in range(W.shape[0]):
        s = s * np.tanh(xs @ W[k])
        m = m + xs[0] * W[k]
    return np.sum(s ** 2) + np.sum(m * m)


def prealloc_relu(W, U, xs):
    """Pre-activations written block by block into an array made in each step, a ReLU candidate
    (at a kink where a pre-activation is exactly 0): the copy of the array's adjoint with its
    second block zeroed is read only in its first."""
    n = U.shape[0]
    B = xs.shape[1]
    h = np.zeros((B, n))
    out = 0.0
    for t in range(xs.shape[0]):
        pre = np.zeros((B, 2 * n))
        pre[:, :n] = xs[t] @ W[:, :n] + h @ U[:, :n]
        pre[:, n:] = xs[t] @ W[:, n:] + h @ U[:, n:]
        f = _sigmoid(pre[:, :n])
        h = f * h + (1.0 - f) * np.maximum(pre[:, n:], 0.0)
        out = out + np.sum(h ** 2)
    return out


def prealloc_overlap(W, xs):
    """The second write overlaps the first block by one column (``pre[:, n - 1:]``): the zeroed
    copy's first block is not the adjoint's own there."""
    n = W.shape[1] // 2
    out = 0.0
    for x in xs:
        pre = np.zeros((x.shape[0], 2 * n))
        pre[:, :n] = np.tanh(x @ W[:, :n])
        m = n - 1
        pre[:, m:] = np.sin(x @ W[:, m:])
        out = out + np.sum(pre[:, :n] * pre[:, :n]) + np.sum(pre[:, n:])
    return out


def halves_cell(W, b, xs):
    """A cell on the concatenation [x, h], its width half a bias's length (``b.shape[0] // 2``, a
    length the signature does not give), the squared states summed."""
    n = b.shape[0] // 2
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for x in xs:
        g = np.concatenate([x, h], axis=1) @ W + b
        z = _sigmoid(g[:, :n])
        h = (1.0 - z) * h + z * np.tanh(g[:, n:])
        total = total + np.sum(h * h)
    return total


def _cell(rng, n_in=3, n=2, k=4, T=3, B=2):
    return 0.5 * rng.normal(size=(n_in, k * n)), 0.5 * rng.normal(size=(n, k * n)), rng.normal(size=(T, B, n_in))


def _peephole(rng):
    W, U, xs = _cell(rng)
    return W, U, 0.3 * rng.normal(size=(3, 2)), xs


def _reversed(rng):
    W, _, xs = _cell(rng, k=2)
    xs[:, 0, :] = 0.0
    return W, np.array([0.3, -0.2, 0.0, 0.4]), xs  # (a candidate exactly 0 at a row of zero inputs: a kink)


def _highway(rng):
    n = 3
    return 0.5 * rng.normal(size=(n, n)), 0.5 * rng.normal(size=(n, n)), 0.1 * rng.normal(size=n), \
        rng.normal(size=(3, 2, n))


def _prealloc(rng):
    W, _, xs = _cell(rng, k=2)
    xs[:, 0, :] = 0.0  # (a row of zero inputs: the candidate's pre-activation exactly 0 at the first step)
    return W, 0.5 * rng.normal(size=(2, 4)), xs


PROGRAMS = [
    ("peephole_named_W", peephole_named, _peephole, 0),
    ("peephole_named_U", peephole_named, _peephole, 1),
    ("peephole_named_p", peephole_named, _peephole, 2),
    ("overlapping_named_W", overlapping_named, lambda rng: (0.5 * rng.normal(size=(3, 6)), rng.normal(size=(3, 2, 3))),
     0),
    ("reversed_named_W", reversed_named, _reversed, 0),
    ("reversed_named_b", reversed_named, _reversed, 1),
    ("literal_named_W", literal_named, lambda rng: (0.5 * rng.normal(size=(3, 6)), rng.normal(size=(3, 2, 3))), 0),
    ("named_read_after_W", named_read_after, lambda rng: (0.5 * rng.normal(size=(3, 4)), rng.normal(size=(3, 2, 3))),
     0),
    ("prealloc_relu_W", prealloc_relu, _prealloc, 0),
    ("prealloc_relu_U", prealloc_relu, _prealloc, 1),
    ("prealloc_overlap_W", prealloc_overlap, lambda rng: (0.5 * rng.normal(size=(3, 6)), rng.normal(size=(3, 2, 3))),
     0),
    ("halves_cell_W", halves_cell, lambda rng: (0.5 * rng.normal(size=(5, 4)), 0.1 * rng.normal(size=4),
                                                rng.normal(size=(3, 2, 3))), 0),
    ("halves_cell_b", halves_cell, lambda rng: (0.5 * rng.normal(size=(5, 4)), 0.1 * rng.normal(size=4),
                                                rng.normal(size=(3, 2, 3))), 1),
    ("highway_time_Wh", highway_time, _highway, 0),
    ("highway_time_Wt", highway_time, _highway, 1),
    ("highway_time_bt", highway_time, _highway, 2),
    ("leading_state_W", leading_state, lambda rng: (0.5 * rng.normal(size=(2, 3)), rng.normal(size=(2, 2, 3))), 0),
]
