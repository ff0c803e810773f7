"""Linear regression by plain gradient descent, with the gradient from srcdiff.

The data come from the line y = 3.0 * x + 1.5 plus a little noise.  Gradient descent on
the mean squared error should recover w = 3.0 and b = 1.5.

Run:  python examples/linear_regression.py
"""

import numpy as np

import srcdiff


def loss(w, b, x, y):
    """Mean squared error of the line w * x + b on the points (x, y)."""
    residual = w * x + b - y
    return np.mean(residual ** 2)


def main(n_points=128, steps=100, learning_rate=0.05, seed=0):
    """Fit w and b; return them (and the final loss) so a test can check them."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n_points)
    y = 3.0 * x + 1.5 + 0.1 * rng.normal(size=n_points)

    # One call builds the gradient with respect to both w (parameter 0) and b (parameter 1).
    dloss = srcdiff.grad(loss, wrt=("w", "b"))

    w, b = 0.0, 0.0
    for step in range(steps + 1):
        if step % 20 == 0:
            print(f"step {step:4d}   loss {loss(w, b, x, y):.6f}")
        dw, db = dloss(w, b, x, y)
        w -= learning_rate * dw
        b -= learning_rate * db

    print(f"recovered w = {w:.4f} (true 3.0), b = {b:.4f} (true 1.5)")
    return w, b, loss(w, b, x, y)


if __name__ == "__main__":
    main()
