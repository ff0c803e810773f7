"""Wave 32l: gated cells that read one weight matrix by column blocks, one product per gate with
one left operand (test_wave32l.py runs them; benchmarks/variants32_gates.py times them)."""

from __future__ import annotations

import numpy as np


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def named_gates(W, U, xs):
    """Each gate's weights under a name (``W_z = W[:, :n]``), a tanh candidate."""
    n = U.shape[0]
    W_z, W_c = W[:, :n], W[:, n:]
    U_z, U_c = U[:, :n], U[:, n:]
    h = np.zeros((xs.shape[1], n))
    loss = 0.0
    for x in xs:
        z = _sigmoid(x @ W_z + h @ U_z)
        c = np.tanh(x @ W_c + h @ U_c)
        h = (1.0 - z) * h + z * c
        loss = loss + np.sum(h * h)
    return loss


def three_blocks(W, U, xs):
    """A GRU's three column blocks ``[:n]``, ``[n:2 * n]``, ``[2 * n:]`` of the input weights."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    loss = 0.0
    for t in range(xs.shape[0]):
        x = xs[t]
        z = _sigmoid(x @ W[:, :n] + h @ U[:, :n])
        r = _sigmoid(x @ W[:, n:2 * n] + h @ U[:, n:])
        c = np.tanh(x @ W[:, 2 * n:] + (r * h) @ U[:, :n].T)
        h = z * h + (1.0 - z) * c
        loss = loss + np.mean(h ** 2)
    return loss


def biased_gates(W, b, xs):
    """Per-gate products plus the bias's matching slice, a ReLU candidate (at a kink where a
    pre-activation is exactly 0)."""
    n = b.shape[0] // 2
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for x in xs:
        f = _sigmoid(x @ W[:, :n] + b[:n])
        cand = np.maximum(x @ W[:, n:] + b[n:], 0.0)
        h = f * h + (1.0 - f) * cand
        total = total + np.sum(h ** 2)
    return total


def two_inputs(W, U, xs, ys):
    """Two inputs, each read by one block: the left operands differ, nothing to join."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    out = 0.0
    for t in range(xs.shape[0]):
        a = xs[t] @ W[:, :n] + ys[t] @ W[:, n:]
        h = np.tanh(a + h @ U)
        out = out + np.sum(h ** 2)
    return out


def prealloc_gates(W, U, xs):
    """Pre-activations written slice by slice into an array made in each step (fresh_loop_writes.py)."""
    n = U.shape[0]
    B = xs.shape[1]
    h = np.zeros((B, n))
    out = 0.0
    for t in range(xs.shape[0]):
        pre = np.zeros((B, 2 * n))
        pre[:, :n] = xs[t] @ W[:, :n] + h @ U[:, :n]
        pre[:, n:] = xs[t] @ W[:, n:] + h @ U[:, n:]
        f = _sigmoid(pre[:, :n])
        h = f * h + (1.0 - f) * np.tanh(pre[:, n:])
        out = out + np.sum(h ** 2)
    return out


def prealloc_kept(W, xs):
    """The array made in each step is read again after the loop (its last step's): written in
    place only where nothing else sees it."""
    n = W.shape[1] // 2
    out = 0.0
    for x in xs:
        pre = np.ones((x.shape[0], 2 * n))
        pre[:, :n] = np.tanh(x @ W[:, :n])
        out = out + np.sum(pre[:, :n] * pre[:, n:])
    return out + np.sum(pre ** 2)


def _cell(rng, n_in=3, n=2, k=2, T=3, B=2):
    return (0.5 * rng.normal(size=(n_in, k * n)), 0.5 * rng.normal(size=(n, n)), rng.normal(size=(T, B, n_in)))


def _wide(rng):
    W, _, xs = _cell(rng, k=2)
    return W, 0.5 * rng.normal(size=(2, 4)), xs


def _three(rng):
    W, _, xs = _cell(rng, k=3)
    return W, 0.5 * rng.normal(size=(2, 4)), xs


def _biased(rng):
    W, _, xs = _cell(rng)
    xs[:, 0, :] = 0.0
    return W, np.array([0.3, -0.2, 0.0, 0.4]), xs   # (a candidate exactly 0 at a row of zero inputs)


def _two(rng):
    W, U, xs = _cell(rng)
    return W, U, xs, rng.normal(size=xs.shape)


PROGRAMS = [
    ("named_gates_W", named_gates, _wide, 0),
    ("named_gates_U", named_gates, _wide, 1),
    ("three_blocks_W", three_blocks, _three, 0),
    ("three_blocks_U", three_blocks, _three, 1),
    ("biased_gates_W", biased_gates, _biased, 0),
    ("biased_gates_b", biased_gates, _biased, 1),
    ("two_inputs_W", two_inputs, _two, 0),
    ("prealloc_gates_W", prealloc_gates, _wide, 0),
    ("prealloc_gates_U", prealloc_gates, _wide, 1),
    ("prealloc_kept_W", prealloc_kept, lambda rng: _cell(rng)[::2], 0),
]
