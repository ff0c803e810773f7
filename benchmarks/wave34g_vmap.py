"""Per-example gradients, held out: losses written the way other users write them (none tuned on),
each mapped as ``vmap(grad(loss), in_axes=(None, ..., 0, 0))`` over a batch and timed against one
gradient of the batch's summed loss (the ratio the batching benchmark's vmap row reports) and against
a per-example gradient written by hand with einsum / broadcasting (the floor NumPy allows: the
per-example results must be written, B times the parameters).

The first case is batching.py's vmap row (its MLP), the others held out.

Run:  python benchmarks/wave34g_vmap.py [--rounds 7] [--batch 256] [--only relu_mse,logistic]

Every srcdiff result is checked first: the per-example rows sum to the batch's gradient and equal the
hand-written ones.  Timing as batching.py's: interleaved rounds, CPU clock, medians of the ratios.
"""

from __future__ import annotations

# isort: off
import single_core  # noqa: F401 - first: one core, one thread per library, before NumPy loads
# isort: on

import argparse

import numpy as np
from batching import Clock, batch_loss, example_loss, ratio, rounds_of

import srcdiff


def relu_mse(W1, b1, W2, x, y):
    """A ReLU layer and a squared error, halved (wrt W1)."""
    h = np.maximum(x @ W1 + b1, 0.0)
    return 0.5 * np.sum((h @ W2 - y) ** 2)


def relu_mse_batch(W1, b1, W2, X, Y):
    h = np.maximum(X @ W1 + b1, 0.0)
    return 0.5 * np.sum((h @ W2 - Y) ** 2)


def relu_mse_hand(W1, b1, W2, X, Y):
    a = X @ W1 + b1
    h = np.maximum(a, 0.0)
    d = ((h @ W2 - Y) @ W2.T) * (a > 0)
    return np.einsum("bi,bj->bij", X, d)


def logistic(w, x, y):
    """A logistic loss of one labelled example (labels in {-1, 1}), by log1p (wrt w)."""
    return np.log1p(np.exp(-y * np.dot(x, w)))


def logistic_batch(w, X, Y):
    return np.sum(np.log1p(np.exp(-Y * (X @ w))))


def logistic_hand(w, X, Y):
    e = np.exp(-Y * (X @ w))
    return (-Y * e / (1.0 + e))[:, None] * X


def softmax_dot(W, x, label):
    """Softmax regression with the weights rows per class, ``np.dot(W, x)``, a one-hot label (wrt W)."""
    z = np.dot(W, x)
    z = z - z.max()
    return -np.sum(label * (z - np.log(np.exp(z).sum())))


def softmax_dot_batch(W, X, L):
    z = X @ W.T
    z = z - z.max(axis=1, keepdims=True)
    return -np.sum(L * (z - np.log(np.exp(z).sum(axis=1, keepdims=True))))


def softmax_dot_hand(W, X, L):
    z = X @ W.T
    e = np.exp(z - z.max(axis=1, keepdims=True))
    p = e / e.sum(axis=1, keepdims=True)
    return np.einsum("bk,bi->bki", p * L.sum(axis=1, keepdims=True) - L, X)


def tanh_mean(W1, W2, x, y):
    """Two tanh layers without biases, a mean squared error over the outputs (wrt W1)."""
    out = np.tanh(np.tanh(x @ W1) @ W2)
    return np.mean((out - y) ** 2)


def tanh_mean_batch(W1, W2, X, Y):
    out = np.tanh(np.tanh(X @ W1) @ W2)
    return np.sum(np.mean((out - Y) ** 2, axis=1))


def tanh_mean_hand(W1, W2, X, Y):
    h = np.tanh(X @ W1)
    out = np.tanh(h @ W2)
    d = (2.0 / Y.shape[1] * (out - Y) * (1.0 - out * out)) @ W2.T * (1.0 - h * h)
    return np.einsum("bi,bj->bij", X, d)


def mlp_softmax_hand(W1, b1, W2, X, Y):
    """batching.py's MLP (example_loss): its per-example gradients w.r.t. W1 by hand."""
    h = np.tanh(X @ W1 + b1)
    z = h @ W2
    e = np.exp(z - z.max(axis=1, keepdims=True))
    d = ((e / e.sum(axis=1, keepdims=True) - Y) @ W2.T) * (1.0 - h * h)
    return np.einsum("bi,bj->bij", X, d)


def _cases(rng, batch: int) -> dict:
    """{name: (loss, batch loss, hand, shared arguments, batched arguments)}."""
    X = rng.normal(size=(batch, 32))
    onehot = np.eye(10)[rng.integers(0, 10, batch)]
    return {
        "mlp_softmax": (example_loss, batch_loss, mlp_softmax_hand,
                        (rng.normal(size=(32, 64)) / 6, rng.normal(size=64), rng.normal(size=(64, 10)) / 8),
                        (X, onehot)),
        "relu_mse": (relu_mse, relu_mse_batch, relu_mse_hand,
                     (rng.normal(size=(32, 64)) / 6, rng.normal(size=64) / 4, rng.normal(size=(64, 5)) / 8),
                     (X, rng.normal(size=(batch, 5)))),
        "logistic": (logistic, logistic_batch, logistic_hand, (rng.normal(size=32) / 6,),
                     (X, rng.choice([-1.0, 1.0], batch))),
        "softmax_dot": (softmax_dot, softmax_dot_batch, softmax_dot_hand, (rng.normal(size=(10, 32)) / 6,),
                        (X, onehot)),
        "tanh_mean": (tanh_mean, tanh_mean_batch, tanh_mean_hand,
                      (rng.normal(size=(32, 48)) / 6, rng.normal(size=(48, 8)) / 7),
                      (X, rng.normal(size=(batch, 8)) / 2)),
    }


def measure(rounds: int, batch: int, only: set | None, clock: Clock, cases=None) -> list[tuple]:
    """Rows (name, vmap / batch gradient, vmap / hand, vmap per call) of every case (`cases(rng, batch)`:
    name -> (loss, its batch sum, a hand-written per-example gradient, shared args, batched args))."""
    rows = []
    for name, (loss, summed, hand, shared, batched) in (cases or _cases)(np.random.default_rng(0), batch).items():
        if only and name not in only:
            continue
        axes = (None,) * len(shared) + (0,) * len(batched)
        per_example = srcdiff.vmap(srcdiff.grad(loss), in_axes=axes, per_example="refuse")
        one = srcdiff.grad(summed)
        got = per_example(*shared, *batched)
        np.testing.assert_allclose(got, hand(*shared, *batched), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(got.sum(axis=0), one(*shared, *batched), rtol=1e-9, atol=1e-9)
        arguments = (*shared, *batched)
        calls = {"vmap": lambda f=per_example, a=arguments: f(*a), "grad": lambda f=one, a=arguments: f(*a),
                 "hand": lambda f=hand, a=arguments: f(*a)}
        t = rounds_of(clock, rounds, calls)
        rows.append((name, ratio(t, "vmap", "grad"), ratio(t, "vmap", "hand"), min(t["vmap"])))
    return rows


def main(argv=None, cases=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--only", help="comma-separated case names")
    opts = parser.parse_args(argv)
    only = set(opts.only.split(",")) if opts.only else None
    rows = measure(opts.rounds, opts.batch, only, Clock("cpu", 0.02), cases)
    print("| case | vmap(grad) / batch grad | vmap(grad) / hand per-example | vmap(grad) per call |")
    print("| --- | --- | --- | --- |")
    for name, to_grad, to_hand, per_call in rows:
        print(f"| {name} | {to_grad:.3g} | {to_hand:.3g} | {per_call * 1e6:.0f} µs |")
    return rows


if __name__ == "__main__":
    main()
