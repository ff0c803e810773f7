"""Quickstart: take a loss function, get its gradient, read the code that computes it.

Run:  python examples/quickstart.py
"""

import numpy as np

import srcdiff


def loss(w, X, y):
    """Mean squared error of a linear model."""
    r = X @ w - y
    return (r * r).mean()


def main():
    """Print the gradient, its source, and a sympy cross-check; return the gradient for the tests."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 3))
    y = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.normal(size=8)
    w = np.zeros(3)

    dloss = srcdiff.grad(loss)  # or decorate: @srcdiff.grad
    gradient = dloss(w, X, y)
    print("gradient at w = 0:", gradient)
    print()
    print("generated source:")
    print(dloss.source)

    by_hand = 2 * X.T @ (X @ w - y) / len(y)
    print("agrees with the hand-written gradient:", np.allclose(gradient, by_hand))
    print()
    # sympy differentiates `loss` itself and compares with the generated gradient, on small
    # arrays of symbols (w, and here X as well: every entry becomes a sympy symbol).
    small_X = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]])
    print(srcdiff.check(loss, np.zeros(2), small_X, np.array([1.0, 0.0, 2.0]), wrt=("w", "X")))
    return gradient


if __name__ == "__main__":
    main()
