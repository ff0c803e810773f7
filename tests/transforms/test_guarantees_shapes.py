"""Never a silent wrong answer (#24, item 4): the derivative fails where the function fails.

A forward statement the gradient does not need (``X @ w`` in ``np.sum(X @ w - y)``) is left
out, but its operands' shapes are still checked: with mismatched shapes the function raises,
and so does every transformation of it.  With matching shapes the result is unchanged
(compared with float64 central differences)."""

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff

FAILS = (ValueError, srcdiff.SrcDiffError)


def residual_sum(w, X, y):
    return np.sum(X @ w - y)


def product_sum(w, y):
    return np.sum(w * y)


def sine_plus(w, y):
    return np.sum(np.sin(w) + y)


def matrix_mean(w, B):
    return np.mean(w @ B)


def batched(w, y):
    return np.sum((w + y) * 2.0)


def in_a_loop(w, y):
    s = 0.0
    for i in range(3):
        s = s + np.sum(w * y) * i
    return s


def chain(w, X, y, z):
    r = X @ w - y
    return np.sum(r * z)


rng = np.random.default_rng(4)
# (function, good arguments, bad arguments): the bad ones make the function itself raise
CASES = [
    (residual_sum, (rng.normal(size=4), rng.normal(size=(3, 4)), rng.normal(size=3)),
     (rng.normal(size=5), rng.normal(size=(3, 4)), rng.normal(size=3))),
    (residual_sum, (rng.normal(size=4), rng.normal(size=(3, 4)), rng.normal(size=3)),
     (rng.normal(size=4), rng.normal(size=(3, 4)), rng.normal(size=2))),
    (product_sum, (rng.normal(size=3), rng.normal(size=3)), (rng.normal(size=3), rng.normal(size=4))),
    (sine_plus, (rng.normal(size=3), rng.normal(size=3)), (rng.normal(size=3), rng.normal(size=2))),
    (matrix_mean, (rng.normal(size=(2, 3)), rng.normal(size=(3, 4))),
     (rng.normal(size=(2, 3)), rng.normal(size=(2, 4)))),
    (batched, (rng.normal(size=(3, 2)), rng.normal(size=(1, 2))), (rng.normal(size=(3, 2)), rng.normal(size=(4, 2)))),
    (in_a_loop, (rng.normal(size=3), rng.normal(size=3)), (rng.normal(size=3), rng.normal(size=5))),
    (chain, (rng.normal(size=4), rng.normal(size=(3, 4)), rng.normal(size=3), rng.normal(size=3)),
     (rng.normal(size=4), rng.normal(size=(3, 4)), rng.normal(size=3), rng.normal(size=2))),
]
IDS = [f"{f.__name__}-{i}" for i, (f, _, _) in enumerate(CASES)]


def _transforms(f, args):
    x = args[0]
    rest = args[1:]
    return {
        "grad": lambda: srcdiff.grad(f)(*args),
        "value_and_grad": lambda: srcdiff.value_and_grad(f)(*args)[1],
        "jvp": lambda: srcdiff.jvp(f, args, (np.ones_like(x),) + tuple(np.zeros_like(a) for a in rest))[1],
        "vjp": lambda: srcdiff.vjp(f, *args)[1](1.0),
        "hessian": lambda: srcdiff.hessian(f)(*args),
        "hvp": lambda: srcdiff.hvp(f, x, np.ones_like(x), *rest),
    }


@pytest.mark.parametrize("f, good, bad", CASES, ids=IDS)
def test_every_transformation_fails_where_the_function_fails(f, good, bad):
    with pytest.raises(ValueError):
        f(*bad)
    for name, run in _transforms(f, bad).items():
        with pytest.raises(FAILS):
            run()
            pytest.fail(f"{name} returned a value where {f.__name__} raises")


@pytest.mark.parametrize("f, good, bad", CASES, ids=IDS)
def test_matching_shapes_keep_the_gradient(f, good, bad):
    assert_close(srcdiff.grad(f)(*good), central_difference(f, good, 0), rtol=1e-6, atol=1e-6)
    value, grad = srcdiff.value_and_grad(f)(*good)
    assert_close(value, f(*good))
    assert_close(grad, central_difference(f, good, 0), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("f, good, bad", [CASES[0], CASES[2], CASES[6]], ids=["residual", "product", "loop"])
def test_numba_fails_where_the_function_fails(f, good, bad):
    pytest.importorskip("numba")
    df = srcdiff.grad(f, jit="numba")
    assert_close(df(*good), central_difference(f, good, 0), rtol=1e-6, atol=1e-6)
    with pytest.raises(FAILS):
        df(*bad)


def test_the_check_names_the_line_and_reads_as_code():
    df = srcdiff.grad(residual_sum)
    w, X, y = CASES[0][2]
    with pytest.raises(ValueError, match=r"test_guarantees_shapes.py:\d+: the operands' shapes do not match"):
        df(w, X, y)
    source = df.variant_for(*CASES[0][1]).source
    assert "X @ w" not in source.split("# backward")[0]  # the work is left out...
    assert "if X.shape[1] != w.shape[0]:" in source  # ...its check is not
