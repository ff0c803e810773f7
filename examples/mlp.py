"""A two-layer tanh network with softmax cross-entropy, trained on generated spirals.

Three classes of points lie on three interleaved spiral arms in the plane: no straight
line separates them, so logistic regression cannot do well, but one hidden tanh layer can.
Full-batch gradient descent.  The weights live in one dict, ``params = {"W1": ..., "b1":
..., "W2": ..., "b2": ...}``, as in most ML code: srcdiff differentiates with respect to the
whole dict and returns the gradient as a dict with the same keys.

Run:  python examples/mlp.py
"""

import numpy as np

import srcdiff


def make_spirals(n_per_class, n_classes, seed):
    """Points on `n_classes` spiral arms with a little noise; labels one-hot encoded."""
    rng = np.random.default_rng(seed)
    X, labels = [], []
    for k in range(n_classes):
        radius = np.linspace(0.05, 1.0, n_per_class)
        angle = 4.0 * radius + 2 * np.pi * k / n_classes + 0.2 * rng.normal(size=n_per_class)
        X.append(np.column_stack([radius * np.sin(angle), radius * np.cos(angle)]))
        labels.append(np.full(n_per_class, k))
    labels = np.concatenate(labels)
    return np.concatenate(X), np.eye(n_classes)[labels], labels


def loss(params, X, Y):
    """Softmax cross-entropy of a tanh network with one hidden layer; Y is one-hot."""
    hidden = np.tanh(X @ params["W1"] + params["b1"])
    logits = hidden @ params["W2"] + params["b2"]
    shifted = logits - np.max(logits, axis=1, keepdims=True)  # for numerical stability
    log_probs = shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
    return -np.mean(np.sum(Y * log_probs, axis=1))


def predict(params, X):
    hidden = np.tanh(X @ params["W1"] + params["b1"])
    return np.argmax(hidden @ params["W2"] + params["b2"], axis=1)


def main(n_per_class=100, hidden=32, steps=1000, learning_rate=1.0, seed=0, report_every=100):
    """Train; return (accuracy before, accuracy after, chance) so a test can check them."""
    n_classes = 3
    X, Y, labels = make_spirals(n_per_class, n_classes, seed)
    rng = np.random.default_rng(seed + 1)
    params = {"W1": rng.normal(size=(2, hidden)), "b1": np.zeros(hidden),
              "W2": 0.1 * rng.normal(size=(hidden, n_classes)), "b2": np.zeros(n_classes)}

    dloss = srcdiff.grad(loss, wrt="params")  # a dict with the keys of params

    def accuracy():
        return np.mean(predict(params, X) == labels)

    start = accuracy()
    for step in range(steps + 1):
        if step % report_every == 0:
            print(f"step {step:5d}   loss {loss(params, X, Y):.4f}   accuracy {accuracy():.3f}")
        grads = dloss(params, X, Y)
        params = {name: value - learning_rate * grads[name] for name, value in params.items()}

    end = accuracy()
    print(f"accuracy {start:.3f} -> {end:.3f} (chance is {1 / n_classes:.3f})")
    return start, end, 1 / n_classes


if __name__ == "__main__":
    main()
