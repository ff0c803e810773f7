"""Per-example gradients, held out (wave 35g): losses written the way other users write them (none tuned
on), each mapped as ``vmap(grad(loss), in_axes=(None, ..., 0, 0))`` over a batch and timed against one
gradient of the batch's summed loss (the ratio the batching benchmark's vmap row reports) and against a
per-example gradient written by hand (the floor NumPy allows: B per-example gradients written).

Run:  python benchmarks/wave35g_vmap.py [--rounds 7] [--batch 256] [--only mlp_wx,relu_ce]

Every srcdiff result is checked first: its rows sum to the batch's gradient and equal the hand-written
ones.  Timing as batching.py's (interleaved rounds, CPU clock, medians of the ratios).
"""

from __future__ import annotations

# isort: off
import single_core  # noqa: F401 - first: one core, one thread per library, before NumPy loads
# isort: on


import numpy as np
import wave34g_vmap


def mlp_wx(W1, b1, W2, b2, x, y):
    """Weights (out, in) applied as ``W @ x``, biases, a halved squared error (wrt W1)."""
    h = np.tanh(W1 @ x + b1)
    out = W2 @ h + b2
    return 0.5 * np.sum((out - y) ** 2)


def mlp_wx_batch(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1.T + b1)
    return 0.5 * np.sum((h @ W2.T + b2 - Y) ** 2)


def mlp_wx_hand(W1, b1, W2, b2, X, Y):
    h = np.tanh(X @ W1.T + b1)
    d = ((h @ W2.T + b2 - Y) @ W2) * (1.0 - h * h)
    return np.einsum("bi,bj->bij", d, X)


def relu_ce(W1, W2, x, label):
    """A ReLU by np.where, a cross-entropy by log-sum-exp without the shift, an integer label (wrt W1)."""
    a = x @ W1
    h = np.where(a > 0, a, 0.0)
    z = h @ W2
    return np.log(np.sum(np.exp(z))) - z[label]


def relu_ce_batch(W1, W2, X, L):
    a = X @ W1
    z = np.where(a > 0, a, 0.0) @ W2
    return np.sum(np.log(np.sum(np.exp(z), axis=1)) - z[np.arange(len(L)), L])


def relu_ce_hand(W1, W2, X, L):
    a = X @ W1
    e = np.exp(np.where(a > 0, a, 0.0) @ W2)
    g = e / e.sum(axis=1, keepdims=True)
    g[np.arange(len(L)), L] -= 1.0
    return np.einsum("bi,bj->bij", X, (g @ W2.T) * (a > 0))


def reg_linear(w, x, y):
    """A linear model with an L2 penalty inside the per-example loss (wrt w)."""
    r = np.dot(x, w) - y
    return r * r + 0.01 * np.sum(w * w)


def reg_linear_batch(w, X, Y):
    r = X @ w - Y
    return np.sum(r * r) + len(Y) * 0.01 * np.sum(w * w)


def reg_linear_hand(w, X, Y):
    return 2.0 * (X @ w - Y)[:, None] * X + 0.02 * w


def sigmoid_bce(W1, W2, x, y):
    """A sigmoid layer written as 1 / (1 + exp(-a)), a binary cross-entropy (wrt W1)."""
    h = 1.0 / (1.0 + np.exp(-(x @ W1)))
    p = 1.0 / (1.0 + np.exp(-(h @ W2)))
    return -(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def sigmoid_bce_batch(W1, W2, X, Y):
    h = 1.0 / (1.0 + np.exp(-(X @ W1)))
    p = 1.0 / (1.0 + np.exp(-(h @ W2)))
    return -np.sum(Y * np.log(p) + (1.0 - Y) * np.log(1.0 - p))


def sigmoid_bce_hand(W1, W2, X, Y):
    h = 1.0 / (1.0 + np.exp(-(X @ W1)))
    p = 1.0 / (1.0 + np.exp(-(h @ W2)))
    return np.einsum("bi,bj->bij", X, (p - Y)[:, None] * W2 * h * (1.0 - h))


def cases(rng, batch: int) -> dict:
    """{name: (loss, batch loss, hand, shared arguments, batched arguments)}."""
    X = rng.normal(size=(batch, 32))
    return {
        "mlp_wx": (mlp_wx, mlp_wx_batch, mlp_wx_hand,
                   (rng.normal(size=(64, 32)) / 6, rng.normal(size=64), rng.normal(size=(10, 64)) / 8,
                    rng.normal(size=10)), (X, rng.normal(size=(batch, 10)))),
        "relu_ce": (relu_ce, relu_ce_batch, relu_ce_hand,
                    (rng.normal(size=(32, 64)) / 6, rng.normal(size=(64, 10)) / 8), (X, rng.integers(0, 10, batch))),
        "reg_linear": (reg_linear, reg_linear_batch, reg_linear_hand, (rng.normal(size=32) / 6,),
                       (X, rng.normal(size=batch))),
        "sigmoid_bce": (sigmoid_bce, sigmoid_bce_batch, sigmoid_bce_hand,
                        (rng.normal(size=(32, 48)) / 6, rng.normal(size=48) / 7), (X, (rng.random(batch) > 0.5) * 1.0)),
    }


def main(argv=None):
    return wave34g_vmap.main(argv, cases)


if __name__ == "__main__":
    main()
