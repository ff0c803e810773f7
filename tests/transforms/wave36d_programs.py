"""Wave 36d: gated cells writing their pre-activations into a preallocated array block by block
(``pre[:, :n] = ...``, ``pre[:, n:] = ...``), with rows where a block's value broadcasts into it (one
column), where the batch is one row, where a ReLU ties at 0; and states written into a preallocated
array (``H[t + 1] = ...``), with rows that read a row the loop writes later (``H[t - 1]`` at t = 0 is
the last row), write the row they read, count from 1, or read the state array whole (test_wave36d.py
runs them; benchmarks/variants36_cells.py times held-out kin)."""

from __future__ import annotations

import numpy as np


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def written_blocks(W, U, xs):
    """A gate and a ReLU candidate written into a preallocated array, one block each."""
    n = U.shape[0]
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for t in range(xs.shape[0]):
        pre = np.zeros((xs.shape[1], 2 * n))
        pre[:, :n] = xs[t] @ W[:, :n] + h @ U[:, :n]
        pre[:, n:] = xs[t] @ W[:, n:] + h @ U[:, n:]
        f = _sigmoid(pre[:, :n])
        h = f * h + (1.0 - f) * np.maximum(pre[:, n:], 0.0)
        total = total + np.sum(h ** 2)
    return total


def written_broadcast(Wa, Wb, xs):
    """The second block's value of one column (Wb has one), broadcast into the block's n columns."""
    n = Wa.shape[1]
    h = np.zeros((xs.shape[1], n))
    total = 0.0
    for x in xs:
        pre = np.empty((xs.shape[1], 2 * n))
        pre[:, :n] = x @ Wa + h
        pre[:, n:] = x @ Wb
        z = _sigmoid(pre[:, n:])
        h = z * h + (1.0 - z) * np.tanh(pre[:, :n])
        total = total + np.sum(h * h)
    return total


def state_rows(W, U, xs, ys):
    """A tanh RNN writing its states into a preallocated array, a squared error of the rows."""
    H = np.zeros((xs.shape[0] + 1, xs.shape[1], U.shape[0]))
    for t in range(xs.shape[0]):
        H[t + 1] = np.tanh(xs[t] @ W + H[t] @ U)
    return 0.5 * np.sum((H[1:] - ys) ** 2)


def state_rows_back(W, U, xs):
    """Also reads ``H[t - 1]``: at t = 0 the last row, which the last step writes (its old value,
    zero, is what the first step used)."""
    H = np.zeros((xs.shape[0] + 1, xs.shape[1], U.shape[0]))
    for t in range(xs.shape[0]):
        H[t + 1] = np.tanh(xs[t] @ W + H[t] @ U + 0.5 * H[t - 1])
    return np.sum(H ** 2)


def state_rows_rewrite(W, U, xs):
    """Writes the next row, then the row it read (halved): a row read is written again later."""
    H = np.ones((xs.shape[0] + 1, xs.shape[1], U.shape[0]))
    for t in range(xs.shape[0]):
        H[t + 1] = np.tanh(xs[t] @ W + H[t] @ U)
        H[t] = 0.5 * H[t]
    return np.sum(H ** 2)


def state_rows_from_one(W, U, xs):
    """Counts from 1: ``H[t] = f(H[t - 1])``, a gate mixing the old state in."""
    T = xs.shape[0]
    H = np.zeros((T, xs.shape[1], U.shape[0]))
    for t in range(1, T):
        z = _sigmoid(xs[t] @ W + H[t - 1] @ U)
        H[t] = z * H[t - 1] + (1.0 - z) * np.tanh(xs[t] @ W)
    return np.sum(H * H)


def state_rows_whole(W, U, xs):
    """Reads the whole state array in each step (its sum), beside the rows."""
    H = np.zeros((xs.shape[0] + 1, xs.shape[1], U.shape[0]))
    total = 0.0
    for t in range(xs.shape[0]):
        H[t + 1] = np.tanh(xs[t] @ W + H[t] @ U)
        total = total + np.sum(H) ** 2
    return total


def _blocks(rng, n=2, n_in=3, T=3, B=2):
    return 0.5 * rng.normal(size=(n_in, 2 * n)), 0.5 * rng.normal(size=(n, 2 * n)), rng.normal(size=(T, B, n_in))


def _tied(rng):
    """The first step's pre-activations all 0 (no input, no state): the ReLU tied at 0."""
    W, U, xs = _blocks(rng)
    xs[0] = 0.0
    return W, U, xs


def _rows(rng, n=2, n_in=3, T=3, B=2):
    return 0.5 * rng.normal(size=(n_in, n)), 0.5 * rng.normal(size=(n, n)), rng.normal(size=(T, B, n_in))


PROGRAMS = [
    ("written_blocks_W", written_blocks, _blocks, 0),
    ("written_blocks_U", written_blocks, _blocks, 1),
    ("written_blocks_batch_one_W", written_blocks, lambda rng: _blocks(rng, B=1), 0),
    ("written_blocks_tied_W", written_blocks, _tied, 0),
    ("written_broadcast_Wb", written_broadcast, lambda rng: (0.5 * rng.normal(size=(3, 2)),
                                                             0.5 * rng.normal(size=(3, 1)),
                                                             rng.normal(size=(3, 2, 3))), 1),
    ("state_rows_U", state_rows, lambda rng: (*_rows(rng), 0.5 * rng.normal(size=(3, 2, 2))), 1),
    ("state_rows_W", state_rows, lambda rng: (*_rows(rng), 0.5 * rng.normal(size=(3, 2, 2))), 0),
    ("state_rows_back_U", state_rows_back, _rows, 1),
    ("state_rows_rewrite_U", state_rows_rewrite, _rows, 1),
    ("state_rows_from_one_U", state_rows_from_one, lambda rng: _rows(rng, T=4), 1),
    ("state_rows_whole_W", state_rows_whole, _rows, 0),
]
