"""Float64 central differences: the independent reference every gradient test compares with."""

import numpy as np


def central_difference(f, args, index, eps=1e-6):
    """d f(*args) / d args[index] by central differences, shaped like args[index]."""
    args = list(args)
    x = args[index]
    if not isinstance(x, np.ndarray):
        hi = f(*args[:index], x + eps, *args[index + 1:])
        lo = f(*args[:index], x - eps, *args[index + 1:])
        return (hi - lo) / (2 * eps)
    grad = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[i] += eps
        minus[i] -= eps
        args[index] = plus
        hi = f(*args)
        args[index] = minus
        lo = f(*args)
        grad[i] = (hi - lo) / (2 * eps)
    args[index] = x
    return grad


def assert_close(actual, expected, rtol=1e-6, atol=1e-7):
    assert np.shape(actual) == np.shape(expected), (np.shape(actual), np.shape(expected))
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


def hessian_difference(f, args, h=1e-4):
    """d^2 f(*args) / d args[0]^2 by second-order central differences (four points per
    entry), shaped ``x.shape + x.shape``: the reference every Hessian test compares with."""
    x = np.array(args[0], dtype=float)
    n = x.size
    H = np.zeros((n, n))

    def at(i, j, di, dj):
        y = x.copy().ravel()
        y[i] += di
        y[j] += dj
        return f(y.reshape(x.shape), *args[1:])

    for i in range(n):
        for j in range(n):
            H[i, j] = (at(i, j, h, h) - at(i, j, h, -h) - at(i, j, -h, h) + at(i, j, -h, -h)) / (4 * h * h)
    return H.reshape(x.shape + x.shape)


#: the three ways srcdiff computes second derivatives of f at x, checked alike
SECOND_ORDER = ("hessian", "hvp", "jacobian_of_the_gradient")


def second_order(transform, f, x, rng):
    """(srcdiff's second-order result by `transform`, its second-difference reference)."""
    import srcdiff  # here only: the references above use no srcdiff code

    expected = hessian_difference(f, (x,))
    if transform == "hessian":
        return srcdiff.hessian(f)(x), expected
    if transform == "hvp":
        v = rng.normal(size=x.shape)
        return srcdiff.hvp(f, x, v), expected @ v
    return srcdiff.jacobian(srcdiff.grad(f))(x), expected
