"""Regression tests for the bugs the fuzzer (test_fuzz.py) found, each minimised by hand.

One test per bug class: a small program, the expected gradient (central differences or a
closed form), and a docstring saying what srcdiff did.  Tests marked
``xfail(strict=True)`` fail today; remove the mark with the fix.

srcdiff's promise: the correct gradient, or a `SrcDiffError` whose message starts with
``file.py:LINE``.  `gradient_or_refusal` accepts exactly that.
"""

import math
import re
import warnings

import numpy as np
import pytest
from numeric import central_difference

import srcdiff

LOCATION = re.compile(r"^\S+\.py:\d+")
INTERNAL = re.compile(r"\b(TypeError|AttributeError|KeyError|IndexError|NameError|IndentationError|"
                      r"ZeroDivisionError)\b")


def value_and_gradient(f, args, wrt=0):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return srcdiff.value_and_grad(f, wrt=wrt)(*args)


def expect_gradient(f, args, wrt=0, expected=None, rtol=1e-6, atol=1e-7):
    """value_and_grad's value is f's, and its gradient the expected one (central differences
    when `expected` is None)."""
    value, grads = value_and_gradient(f, args, wrt)
    np.testing.assert_allclose(value, f(*args), rtol=1e-12)
    grads = grads if isinstance(wrt, tuple) else (grads,)
    indices = wrt if isinstance(wrt, tuple) else (wrt,)
    if expected is None:
        expected = tuple(central_difference(f, args, i) for i in indices)
    elif not isinstance(wrt, tuple):
        expected = (expected,)
    for got, want in zip(grads, expected):
        assert np.all(np.isfinite(got)), f"non-finite gradient {got!r}, expected {want!r}"
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def gradient_or_refusal(f, args, wrt=0, expected=None):
    """The promise: the right gradient, or a SrcDiffError naming file:line."""
    try:
        value_and_gradient(f, args, wrt)
    except srcdiff.SrcDiffError as error:
        assert LOCATION.match(str(error)), f"refusal without file:line: {error}"
        assert not INTERNAL.search(str(error).splitlines()[0]), f"srcdiff's own code failed: {error}"
        return
    expect_gradient(f, args, wrt, expected)


# =====================================================================================
# Known bugs (reported before the fuzzer ran)
# =====================================================================================

# ---- nested conditional expressions ----

def nested_ternary(x):
    lo, hi = 1.0, 3.0
    return 0.0 if x < lo else (x - lo) ** 2 if x < hi else 4.0 * (x - hi) + 4.0


def nested_ternary_in_loop(x):
    s = 0.0
    for i in range(3):  # noqa: B007
        s = s + (0.0 if x < 1.0 else x * x if x < 3.0 else 9.0)
    return s


def ternary_inside_operand_of_branch(x):
    return x ** 2 if x < 0 else x * (x * 2.0 if x > 1 else x)


def ternary_nested_in_body(x, y):
    return (x * 2.0 if x > 0 else x) if y < 5 else x * 4.0


def test_nested_conditional_expression():
    """`a if c else b if d else e`: the nested part is dropped; value None, gradient 0.0 (true 2.0)."""
    expect_gradient(nested_ternary, [2.0], expected=2.0)


def test_nested_conditional_expression_in_loop():
    """The same inside a loop body crashes: `unsupported operand type(s) for +: 'float' and 'NoneType'`."""
    expect_gradient(nested_ternary_in_loop, [2.0], expected=12.0)


@pytest.mark.parametrize("f, args, expected", [
    (ternary_inside_operand_of_branch, [0.5], 1.0),   # x * x: 2x
    (ternary_inside_operand_of_branch, [2.0], 8.0),   # 2x**2: 4x
    (ternary_nested_in_body, [0.5, 0.7], (2.0, 0.0)),
])
def test_conditional_expression_anywhere_inside_a_branch(f, args, expected):
    """Not only the `else` chain: any conditional expression inside either branch of another (here
    inside `x * (...)`, or in the body) makes srcdiff return value None and gradient 0."""
    wrt = (0, 1) if len(args) == 2 else 0
    expect_gradient(f, args, wrt=wrt, expected=expected)


# ---- x ** k at x = 0 ----

def power_loop(x, c):
    s = 0.0
    for k in range(len(c)):
        s = s + c[k] * x ** k
    return s


def power_zero(x):
    return x ** 0 + 3.0 * x


def power_zero_float(x):
    return x ** 0.0 + 3.0 * x


def power_parameter(p, x):
    return np.sum(x ** p)


@pytest.mark.parametrize("f", [power_zero, power_zero_float])
def test_power_zero_at_zero(f):
    """d/dx (x ** 0 + 3x) at x = 0 is 3; the adjoint computes 0 * x ** -1: ZeroDivisionError."""
    expect_gradient(f, [0.0], expected=3.0)


def test_polynomial_at_zero():
    """sum c[k] x**k at x = 0: d/dx = c[1], d/dc = [1, 0, 0]; srcdiff raises ZeroDivisionError."""
    c = np.array([1.0, 2.0, 3.0])
    expect_gradient(power_loop, [0.0, c], wrt=(0, 1), expected=(2.0, np.array([1.0, 0.0, 0.0])))


def test_polynomial_of_array_at_zero():
    """The same with x an array holding a 0: the NaN is silent (no exception)."""
    expect_gradient(_poly_array, [np.array([0.0, -0.5, 1.0]), np.array([-1.0, 1.5, 2.0])], wrt=0,
                    expected=np.array([1.5, 1.5 + 2 * 2.0 * -0.5, 1.5 + 2 * 2.0]))


def _poly_array(x, c):
    s = 0.0
    for k in range(len(c)):
        s = s + c[k] * x ** k
    return np.sum(s)


def test_power_exponent_gradient_with_zero_base():
    """d/dp sum(x ** p) = sum(x ** p log x); an entry x = 0 contributes 0 (p > 0), not 0 * -inf = NaN."""
    expect_gradient(power_parameter, [2.0, np.array([0.0, 1.0, 2.0])], expected=4.0 * math.log(2.0))


# ---- np.where guards (fixed; kept so that they stay fixed) ----

def where_sqrt(x):
    return np.sum(np.where(x > 0, np.sqrt(x), 0.0))


def softplus(x):
    return np.sum(np.where(x < 30, np.log1p(np.exp(x)), x))


def pairwise_distance(X):
    d = X[:, None, :] - X[None, :, :]
    r2 = np.sum(d ** 2, axis=-1)
    r = np.where(r2 > 0, np.sqrt(r2), 0)
    return np.sum(r)


def test_where_sqrt_guard():
    """np.where(x > 0, np.sqrt(x), 0): the untaken sqrt of a negative must not give NaN (true 0)."""
    expect_gradient(where_sqrt, [np.array([-1.0, 4.0])], expected=np.array([0.0, 0.25]))


def test_where_softplus_overflow():
    """np.where(x < 30, log1p(exp(x)), x) at x = 800: exp overflows on the untaken side; true 1."""
    expect_gradient(softplus, [np.array([800.0, 0.0])], expected=np.array([1.0, 0.5]))


def test_where_pairwise_distance():
    """Pairwise distances with a zero diagonal guarded by np.where: finite gradient."""
    X = np.array([[0.0, 1.0], [1.0, 0.5], [2.0, -1.0]])
    expect_gradient(pairwise_distance, [X])


# ---- nested list comprehension fed to np.array ----

def nested_comprehension(X):
    n = X.shape[0]
    return np.sum(np.array([[X[i, j] * X[j, i] for j in range(n)] for i in range(n)]))


def nested_comprehension_scalar(s):
    return np.sum(np.array([[s * s for j in range(2)] for i in range(2)]))


@pytest.mark.parametrize("f, args", [
    (nested_comprehension, [np.arange(9.0).reshape(3, 3)]),
    (nested_comprehension_scalar, [0.7]),
])
def test_nested_list_comprehension_to_array(f, args):
    """np.array([[... for j] for i]): the backward pass pops from an ndarray and crashes."""
    expect_gradient(f, args)


# ---- writes through repeated indices ----

def scatter_add(msg, dst):
    agg = np.zeros(3)
    agg[dst] += msg
    return np.sum(agg ** 2)


def test_scatter_add_refusal_names_its_line():
    """`agg[dst] += msg` (repeated indices) is refused, but the message has no file:line."""
    gradient_or_refusal(scatter_add, [np.array([1.0, 2.0, 3.0]), np.array([0, 0, 2])],
                        expected=np.array([6.0, 6.0, 6.0]))


# ---- print / assert in the body ----

def with_print(x):
    print("x is", x)
    return x * x


def with_assert(x):
    assert x > 0
    return x * x


@pytest.mark.parametrize("f", [with_print, with_assert])
def test_print_and_assert_in_body(f, capsys):
    """Debugging statements that do not change the value are refused ("an expression statement has no
    effect on the gradient", "`assert` statements are not supported")."""
    expect_gradient(f, [1.5], expected=3.0)


# =====================================================================================
# New bugs found by the fuzzer
# =====================================================================================

# ---- a comprehension inside a branch of a conditional expression ----

def generator_in_ternary_branch(x, y):
    return y * 2.0 if y > 0 else sum(x * i for i in range(3))


def list_comprehension_in_ternary_branch(x, y):
    return y * 2.0 if y > 0 else sum([x * 3.0 for j in range(3)])


def comprehension_and_ternary_in_ternary(x, y):
    return (y if x > 0.25 else y) if y > 0 else sum([x for j in range(3)])


@pytest.mark.parametrize("f, expected", [
    (generator_in_ternary_branch, (3.0, 0.0)),
    (list_comprehension_in_ternary_branch, (9.0, 0.0)),
])
def test_comprehension_in_conditional_expression_branch(f, expected):
    """`y * 2.0 if y > 0 else sum(x * i for i in range(3))` at y < 0: srcdiff returns value None
    and gradient (0, 0) -- a silent wrong gradient (true (3, 0)).  No nested conditional expression
    is involved: the comprehension's loop inside the branch is lost."""
    expect_gradient(f, [0.5, -0.7], wrt=(0, 1), expected=expected)


def test_comprehension_and_conditional_expression_in_branches():
    """A conditional expression in one branch and a comprehension in the other: srcdiff raises
    KeyError: '<ifexp 4:11>' (not a SrcDiffError)."""
    gradient_or_refusal(comprehension_and_ternary_in_ternary, [-0.725, -0.725], wrt=(0, 1), expected=(3.0, 0.0))


# ---- nested loops whose inner body has no adjoint ----

def nested_loops_constant_shift(x, y):
    for i in range(3):  # noqa: B007
        for j in range(2):  # noqa: B007
            y = y - 0.25
    return x + y


@pytest.mark.parametrize("wrt", [(0, 1), 1])
def test_nested_loops_with_constant_shift(wrt):
    """`for i: for j: y = y - 0.25`: the inner loop's reverse body is empty, and srcdiff emits a
    `for` with no body: IndentationError when the gradient source is compiled."""
    expected = (1.0, 1.0) if wrt == (0, 1) else 1.0
    expect_gradient(nested_loops_constant_shift, [0.5, 0.7], wrt=wrt, expected=expected)


# ---- over-refusals of documented constructs (refused, never wrong) ----

def comprehension_in_loop(x):
    s = 0.0
    for i in range(3):  # noqa: B007
        s = s + sum([x * j for j in range(2)])
    return s


def inplace_on_indexed_scalar(x):
    s = x[0]
    s *= np.sum(x)
    s += 1.0
    return s * 2.0


def test_comprehension_inside_a_loop():
    """`for i: s = s + sum([x * j for j in range(2)])` is refused: "the list t2 is both appended to and
    read in this loop" -- t2 is srcdiff's own temporary; comprehensions are documented as supported."""
    expect_gradient(comprehension_in_loop, [0.5], expected=3.0)


def test_augmented_assignment_on_an_element():
    """`s = x[0]; s *= np.sum(x); s += 1.0` was refused at the `+=` ("x shares its memory with s"), but
    x[0] of a 1-D array is a number and `s *= ...` made a new one (`s = x[0]; s += x[1]` works)."""
    x = np.array([0.5, 1.5, 2.0])
    # 2 * x0 * sum(x): d/dx0 = 2 * (sum + x0), d/dxi = 2 * x0
    expect_gradient(inplace_on_indexed_scalar, [x], expected=np.array([2 * (4.0 + 0.5), 1.0, 1.0]))


# ---- a slice and an index array in one subscript ----

def columns_by_index(X):
    return np.sum(X[:, [0, 2]] ** 2)


def rows_by_index_array(X):
    idx = np.array([2, 0])
    return np.sum(X[idx, :] ** 2)


def strided_rows_indexed_columns(X):
    return np.sum(X[::2, np.array([1, 1])] ** 2)


@pytest.mark.parametrize("f", [columns_by_index, rows_by_index_array, strided_rows_indexed_columns])
def test_slice_and_index_array_in_one_subscript(f):
    """`X[:, idx]`, `X[idx, :]`, `X[::2, idx]`: srcdiff writes the slice literally into a tuple,
    `np.add.at(X_bar, (:, idx), t_bar)`, and compiling the gradient raises SyntaxError."""
    X = np.arange(9.0).reshape(3, 3) / 4
    expect_gradient(f, [X])


def three_nested_loops(x, y):
    for i in range(2):  # noqa: B007
        for j in range(2):  # noqa: B007
            for k in range(2):  # noqa: B007
                y = y + 1.0
    return x * y


def test_three_nested_loops_with_constant_shift():
    """The same bug as test_nested_loops_with_constant_shift, one level deeper and through a product."""
    expect_gradient(three_nested_loops, [1.3, 0.7], wrt=(0, 1), expected=(8.7, 1.3))


def for_inside_while_constant_shift(x, y):
    k = 0
    while k < 3:
        for j in range(2):  # noqa: B007
            y = y + 2.0
        k = k + 1
    return x + y


def test_for_inside_while_with_constant_shift():
    """The same bug with a `while` outside: the reverse sweep's inner `for` has no body."""
    expect_gradient(for_inside_while_constant_shift, [1.3, -0.7], wrt=(0, 1), expected=(1.0, 1.0))
