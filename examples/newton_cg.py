"""Newton-CG with srcdiff's gradient and Hessian-vector product, against BFGS.

`scipy.optimize.minimize(f, x0, method="Newton-CG", jac=..., hessp=...)` takes second-order
steps: it needs the gradient and, at each step, products of the Hessian with a few vectors.
srcdiff gives both from the function's source: `srcdiff.grad(f)`, and `srcdiff.hvp(f, x, v)`,
which differentiates the generated gradient again and never forms the Hessian.  We compare
it with BFGS given srcdiff's gradient and BFGS estimating the gradient by finite differences,
on the Rosenbrock function in 100 dimensions: iterations, evaluations and wall time.

Run:  python examples/newton_cg.py
"""

import time

import numpy as np
from scipy.optimize import minimize

import srcdiff


def rosenbrock(x):
    """The Rosenbrock function in any dimension; its minimum is 0 at x = (1, 1, ..., 1)."""
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


gradient = srcdiff.grad(rosenbrock)


def hessp(x, v):
    return srcdiff.hvp(rosenbrock, x, v)


def main(dimension=100):
    """Minimise from a fixed start three ways; return the results for a test to check."""
    x0 = np.linspace(-1.2, 1.0, dimension)
    runs = {
        "Newton-CG, srcdiff hvp": dict(method="Newton-CG", jac=gradient, hessp=hessp, options={"xtol": 1e-10}),
        "BFGS, srcdiff gradient": dict(method="BFGS", jac=gradient, options={"maxiter": 20000}),
        "BFGS, finite diffs": dict(method="BFGS", jac=None, options={"maxiter": 20000}),
    }
    print(f"Rosenbrock in {dimension} dimensions")
    print(f"{'method':<25}{'iterations':>11}{'f evals':>9}{'seconds':>9}{'final f':>11}")
    results = {}
    for name, options in runs.items():
        start = time.perf_counter()
        result = minimize(rosenbrock, x0, **options)
        seconds = time.perf_counter() - start
        print(f"{name:<25}{result.nit:>11}{result.nfev:>9}{seconds:>9.3f}{result.fun:>11.2e}")
        results[name] = result
    return results


if __name__ == "__main__":
    main()
