"""Functions defined inside the differentiated function: nested ``def`` and lambdas, with
closures over the enclosing function's values, inlined at each call."""

import numpy as np
import pytest
from numeric import assert_close, central_difference

import srcdiff

rng = np.random.default_rng(20261201)


def iterpower_with_nested_def(x, n=3):  # as in Tangent's tests
    def inner(y):
        return y * x
    z = x
    for _ in range(n):
        z = inner(z)
    return z


def closure_reads_the_value_at_the_call(x, w):
    a = 2.0

    def scaled(v, k):
        """A docstring is skipped."""
        s = v * a
        return np.sum(s * k)

    first = scaled(x, w)
    a = 3.0  # Python's closures read `a` when called: 3.0 from here on
    return first + scaled(np.sin(x), w)


def nested_names_stay_its_own(x):
    y = x * 2.0

    def inner(v):
        y = v * v  # the nested function's own y
        return y + 1.0

    return np.sum(inner(x) * y)


def nested_calls_nested(x):
    def square(v):
        return v * v

    def energy(v):
        return np.sum(square(v) * x)

    return energy(np.exp(x)) + energy(x)


def lambdas_with_closures(x, w):
    f = lambda v: np.tanh(v * w)  # noqa: E731
    g = lambda v: f(v) * x  # noqa: E731
    return np.sum(g(x) + f(x * x))


def nested_def_with_branch_and_loop(x):
    def clipped_sum(v):
        total = 0.0
        for i in range(3):
            if v[i] > 0.5:
                total = total + v[i] * x[i]
            else:
                total = total - v[i]
        return total

    return clipped_sum(x) * clipped_sum(np.cos(x))


CASES = [
    (iterpower_with_nested_def, lambda: (1.3,)),
    (closure_reads_the_value_at_the_call, lambda: (rng.normal(size=3), rng.normal(size=3))),
    (nested_names_stay_its_own, lambda: (rng.normal(size=4),)),
    (nested_calls_nested, lambda: (rng.normal(size=3),)),
    (lambdas_with_closures, lambda: (rng.normal(size=3), rng.normal(size=3))),
    (nested_def_with_branch_and_loop, lambda: (np.array([0.2, 0.9, 0.7]),)),
]


@pytest.mark.parametrize("func, make", CASES, ids=[f.__name__ for f, _ in CASES])
def test_nested_functions_against_central_differences(func, make):
    args = make()
    assert_close(srcdiff.grad(func)(*args), central_difference(func, args, 0))


def test_nested_def_in_a_loop_body():
    def f(x):
        total = 0.0
        for k in range(3):
            def term(v):
                return np.sum(np.sin(v * (k + 1)))  # noqa: B023 (k as it is at the call)
            total = total + term(x)
        return total
    x = rng.normal(size=3)
    assert_close(srcdiff.grad(f)(x), central_difference(f, (x,), 0))


def recursive(x):
    def down(v):
        return down(v * 0.5)
    return down(x)


def escapes(x):
    def inner(v):
        return v * x
    g = inner
    return g(x)


def uses_nonlocal(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v
        return total
    return 2.0 * add(x)  # (return add(x) alone is written out since reach11c)


def returns_early(x):
    def inner(v):  # (a return in an `if` is made one at the end: nested_returns.py; in a loop it is refused)
        for k in range(3):
            if v > k:
                return v * k
        return -v
    return inner(x)


def defined_in_a_branch(x):
    if x > 0:
        def f(v):
            return v * 2.0
    else:
        def f(v):
            return v * 3.0
    return f(x)


def with_default(x):
    # (Python computes the default when the def runs, one object every call shares: a call or a list display
    # is refused; a constant, a name or arithmetic of them is computed at the def since wave 23)
    def inner(v, k=np.full(2, x)):  # noqa: B008
        return v * k[0]
    return inner(x)


@pytest.mark.parametrize("func, match, line", [
    (recursive, "recursion of a nested function", "return down(v * 0.5)"),
    (escapes, "can only be called", "g = inner"),
    (uses_nonlocal, "`nonlocal`", "nonlocal total"),
    (returns_early, "a `return` inside a loop", "return v * k"),
    (defined_in_a_branch, "defined inside an `if`", "def f(v):"),
    (with_default, "plain positional parameters", "def inner(v, k=np.full(2, x)):"),
])
def test_what_stays_refused_names_the_line_and_a_fix(func, match, line):
    with pytest.raises(srcdiff.SrcDiffError, match=match) as info:
        srcdiff.grad(func)(0.7)
    message = str(info.value)
    assert "test_nested_functions.py:" in message and line in message
    assert "hint:" in message
