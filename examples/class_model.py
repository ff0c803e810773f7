"""A class-based model, trained by differentiating its own `loss` method.

The model keeps its weights as attributes, as scikit-learn or PyTorch-style code does.
``srcdiff.grad(model.loss, wrt="self")`` differentiates the bound method with respect to the
object's float and array attributes and returns their gradients in a dict keyed by attribute
name; the training loop updates the attributes.  Attributes that are not numbers (the
activation function, the sizes) are part of what the gradient is specialised on: changing
one makes srcdiff transform again, and arrays are read afresh at every call.

Run:  python examples/class_model.py
"""

import numpy as np

import srcdiff


def make_data(n_points, n_features, seed):
    """A smooth nonlinear target of a few features, with a little noise."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, size=(n_points, n_features))
    y = np.sin(2.0 * X[:, 0]) + 0.5 * X[:, 1] ** 2 - 0.3 * X[:, -1] + 0.05 * rng.normal(size=n_points)
    return X, y


class Regressor:
    """One hidden layer; `activation` is any NumPy function with a derivative."""

    def __init__(self, n_features, hidden, seed=0, activation=np.tanh):
        rng = np.random.default_rng(seed)
        self.W1 = rng.normal(size=(n_features, hidden)) / np.sqrt(n_features)
        self.b1 = np.zeros(hidden)
        self.w2 = rng.normal(size=hidden) / np.sqrt(hidden)
        self.b2 = 0.0
        self.activation = activation
        self.penalty = 1e-4

    def parameters(self):
        return ["W1", "b1", "w2", "b2"]

    def predict(self, X):
        hidden = self.activation(X @ self.W1 + self.b1)
        return hidden @ self.w2 + self.b2

    def loss(self, X, y):
        residual = self.predict(X) - y
        return np.mean(residual ** 2) + self.penalty * (np.sum(self.W1 ** 2) + np.sum(self.w2 ** 2))


def main(steps=600, learning_rate=0.2, report_every=100, seed=0):
    """Train; return (first loss, last loss) so a test can check them."""
    X, y = make_data(200, 3, seed)
    model = Regressor(n_features=3, hidden=16, seed=seed + 1)
    value_and_grad = srcdiff.value_and_grad(model.loss, wrt="self")
    first = None
    for step in range(steps + 1):
        value, grads = value_and_grad(X, y)
        first = value if first is None else first
        if step % report_every == 0:
            print(f"step {step:5d}   loss {value:.5f}")
        for name in model.parameters():
            setattr(model, name, getattr(model, name) - learning_rate * grads[name])
    last = model.loss(X, y)
    print(f"loss {first:.4f} -> {last:.4f}")
    return first, last


if __name__ == "__main__":
    main()
