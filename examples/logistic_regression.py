"""Logistic regression on two generated clouds of points, trained by gradient descent.

Each point has two features; label 1 points are centred at (+1, +1), label 0 points at
(-1, -1).  The model predicts p = sigmoid(X @ w + b) and is trained on the mean binary
cross-entropy.  Accuracy rises from about a half (chance) to well above it.

Run:  python examples/logistic_regression.py
"""

import numpy as np

import srcdiff


def make_blobs(n_per_class, seed):
    """Two overlapping Gaussian clouds in 2-D, with labels 0.0 and 1.0."""
    rng = np.random.default_rng(seed)
    centres = np.array([[-1.0, -1.0], [1.0, 1.0]])
    X = np.concatenate([c + 1.2 * rng.normal(size=(n_per_class, 2)) for c in centres])
    y = np.repeat([0.0, 1.0], n_per_class)
    return X, y


def cross_entropy(w, b, X, y):
    """Mean binary cross-entropy of the logistic model."""
    p = 1.0 / (1.0 + np.exp(-(X @ w + b)))
    return -np.mean(y * np.log(p) + (1.0 - y) * np.log(1.0 - p))


def accuracy(w, b, X, y):
    return np.mean(((X @ w + b) > 0) == (y == 1.0))


def main(n_per_class=200, steps=100, learning_rate=0.5, seed=0):
    """Train; return (accuracy before, accuracy after) so a test can check them."""
    X, y = make_blobs(n_per_class, seed)
    w, b = np.array([0.5, -0.5]), 0.0  # a deliberately poor start
    dloss = srcdiff.grad(cross_entropy, wrt=("w", "b"))

    start = accuracy(w, b, X, y)
    for step in range(steps + 1):
        if step % 20 == 0:
            print(f"step {step:4d}   loss {cross_entropy(w, b, X, y):.4f}   "
                  f"accuracy {accuracy(w, b, X, y):.3f}")
        dw, db = dloss(w, b, X, y)
        w = w - learning_rate * dw
        b = b - learning_rate * db

    end = accuracy(w, b, X, y)
    print(f"weights {np.round(w, 3)}, bias {b:.3f}")
    return start, end


if __name__ == "__main__":
    main()
