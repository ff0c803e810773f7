"""scipy.optimize.minimize with srcdiff's gradient, against finite differences.

`minimize(f, x0, jac=None)` makes SciPy estimate the gradient by finite differences, which
costs one extra evaluation of f per coordinate at every step (and is only approximate).
`jac=srcdiff.grad(f)` gives it the exact gradient instead.  We compare the number of
function evaluations each run needs on the Rosenbrock function.

Run:  python examples/scipy_optimize.py
"""

import numpy as np
from scipy.optimize import minimize

import srcdiff


def rosenbrock(x):
    """The Rosenbrock function in any dimension; its minimum is 0 at x = (1, 1, ..., 1)."""
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


def main(dimension=10, method="BFGS"):
    """Minimise from a fixed start both ways; return the two results for a test to check."""
    x0 = np.linspace(-1.2, 1.0, dimension)

    with_fd = minimize(rosenbrock, x0, method=method, jac=None)
    with_srcdiff = minimize(rosenbrock, x0, method=method, jac=srcdiff.grad(rosenbrock))

    print(f"Rosenbrock in {dimension} dimensions, method {method}")
    print(f"{'gradient':<22}{'f evaluations':>14}{'gradients':>11}{'final f':>12}   distance to (1, ..., 1)")
    for name, result in [("finite differences", with_fd), ("srcdiff.grad", with_srcdiff)]:
        njev = getattr(result, "njev", 0)
        error = np.max(np.abs(result.x - 1.0))
        print(f"{name:<22}{result.nfev:>14d}{njev:>11d}{result.fun:>12.2e}   {error:.1e}")
    print(f"(with finite differences, each gradient costs {dimension + 1} evaluations of f, "
          "counted in the first column)")
    return with_fd, with_srcdiff


if __name__ == "__main__":
    main()
