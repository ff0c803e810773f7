"""An error raised inside generated code names the user's line it comes from.

A NumPy shape mismatch in ``X @ w`` used to surface as ``<srcdiff:...>, line 3``; now it is a
`SrcDiffError` (chained to NumPy's own exception) at the user's file:line, forward or backward,
also inside helpers and loops, and also on the compiled fast path.
"""

import numpy as np
import pytest
from modules import import_source

import srcdiff

SOURCE = '''
import math

import numpy as np


def loss(w, X, y):
    r = X @ w - y
    return np.mean(r * r)


def rhs(w, X):
    return np.tanh(X @ w)


def calls_helper(w, X):
    h = rhs(w, X)
    return np.sum(h)


def looped(w, Xs):
    total = 0.0
    for i in range(3):
        total = total + np.sum(Xs[i] @ w)
    return total


def root(x):
    r = math.sqrt(x)
    return r * 2.0
'''


@pytest.fixture(scope="module")
def m(tmp_path_factory):
    return import_source(tmp_path_factory.mktemp("located"), SOURCE, "located_model")


def _line(m, text):
    lines = open(m.__file__).read().splitlines()
    return next(i for i, line in enumerate(lines, start=1) if text in line)


def _error(call):
    with pytest.raises(srcdiff.SrcDiffError) as info:
        call()
    return info.value


def test_forward_shape_error_names_the_line(m):
    # (the value is asked for: the gradient alone computes X @ w - y in its backward sweep)
    error = _error(lambda: srcdiff.value_and_grad(m.loss)(np.ones(3), np.ones((5, 4)), np.ones(5)))
    assert error.location.line == _line(m, "r = X @ w - y") and error.sweep == "forward"
    assert error.location.filename == m.__file__
    assert isinstance(error.__cause__, ValueError)
    assert "r = X @ w - y" in str(error)


def test_the_fast_path_names_the_line_too(m):
    gradient = srcdiff.grad(m.loss)
    gradient(np.ones(4), np.ones((5, 4)), np.ones(5))  # compiles, installs the fast path
    error = _error(lambda: gradient(np.ones(3), np.ones((5, 4)), np.ones(5)))
    assert error.location.line == _line(m, "r = X @ w - y")


def test_backward_error_names_the_line(m):
    error = _error(lambda: srcdiff.grad(m.root)(0.0))  # sqrt's adjoint divides by zero
    assert (error.location.line, error.sweep) == (_line(m, "r = math.sqrt(x)"), "backward")
    assert isinstance(error.__cause__, ZeroDivisionError)


def test_error_inside_a_helper_names_the_helpers_line(m):
    error = _error(lambda: srcdiff.grad(m.calls_helper)(np.ones(3), np.ones((5, 4))))
    assert error.location.line == _line(m, "return np.tanh(X @ w)")


def test_error_inside_a_loop(m):
    Xs = [np.ones((2, 3)), np.ones((2, 3)), np.ones((2, 4))]
    error = _error(lambda: srcdiff.grad(m.looped)(np.ones(3), Xs))
    assert error.location.line == _line(m, "total = total + np.sum(Xs[i] @ w)")


def test_a_correct_call_is_unaffected(m):
    w, X, y = np.ones(4), np.arange(20.0).reshape(5, 4), np.ones(5)
    expected = 2 * X.T @ (X @ w - y) / 5
    np.testing.assert_allclose(srcdiff.grad(m.loss)(w, X, y), expected)
