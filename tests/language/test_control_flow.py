"""Branches and loops in reverse mode: structured regions, loop stacks, early exits."""

import math
import textwrap

import numpy as np
import pytest
from numeric import assert_close

import srcdiff

# ---- functions under test ----

def tanh_rnn(h0, W, U, xs, T):
    h = h0
    for t in range(T):
        h = np.tanh(W @ h + U @ xs[t])
    return np.sum(h * h)


def halve_until_done(x, n):
    step = 1.0
    k = n
    y = x
    while k > 0:
        y = y + step * math.sin(y)
        step = step / 2.0
        k = k - 1
    return y


def break_in_nested_loop(a, limit):
    total = 0.0
    for i in range(len(a)):
        for j in range(len(a)):
            total = total + a[i] * a[j]
            if total > limit:
                break
    return total


def branch_on_data(x, y):
    if x > y:
        z = x * y
    elif x > 0.0:
        z = x - y
    else:
        z = x + 2.0 * y
    return z * x


def branch_on_flag(x, square):
    y = x * 3.0
    if square:
        y = y * y
    return y


def conditional_expression(x, y):
    return (x * y if x > 0.5 and y < 2.0 else x - y) + x


def accumulate(x, w, n):
    s = 0.0
    for i in range(n):
        s = s + x[i] * w
    return s


def powers(x, n):
    s = 0.0
    p = 1.0
    for i in range(n):  # noqa: B007
        p = p * x
        s = s + np.sin(p)
    return s


def continue_odd(x, n):
    s = 0.0
    for i in range(n):
        if i % 2 == 1:
            continue
        s = s + x[i] ** 2
    return s


def return_from_loop(x, n):
    y = x
    for i in range(n):  # noqa: B007
        y = y * 1.5
        if y > 10.0:
            return y * 2.0
    return y


def early_return(x):
    if x < 0.0:
        return -x * x
    y = math.exp(x)
    return y + x


def swap_in_loop(a, b, n):
    for i in range(n):  # noqa: B007
        a, b = b, a + 0.5 * b
    return a * b


def loop_over_rows(X, v):
    acc = 0.0
    for row in X:
        acc = acc + np.sum(row * v)
    return acc


def enumerate_and_zip(xs, ws):
    acc = 0.0
    for k, x in enumerate(xs):
        acc = acc + k * x * x
    for x, w in zip(xs, ws):
        acc = acc + np.sin(x * w)
    return acc


def loop_over_tuple(x, y):
    acc = 0.0
    for v in (x, y, x * y):
        acc = acc + v * v
    return acc


def while_with_break(x):
    y = x
    while True:
        y = y * 0.5 + 1.0
        if y < 2.1:
            break
    return y * x


def reversed_range(x, n):
    s = 0.0
    for i in reversed(range(n)):
        s = s * 0.5 + np.sin(x * i)
    return np.sum(s)


def reversed_stepped_range(x):
    s = 0.0
    for i in reversed(range(1, 8, 3)):
        s = s * x + i
    return s


def reversed_bounds_at_run_time(x, lo, hi):
    s = x
    for i in reversed(range(lo, hi, 2)):
        s = np.sin(s) * i
    return np.sum(s)


def reversed_list(x, n):
    vals = []
    for i in range(n):
        vals.append(x * (i + 1.0))
    out = 0.0
    for v in reversed(vals):
        out = out * 0.5 + np.sum(np.sin(v))
    return out


def reversed_rows(A, w):
    acc = 0.0
    for row in reversed(A):
        acc = acc * 0.9 + np.tanh(row @ w)
    return acc


def deletes_a_name(x):
    y = x * 2.0
    z = np.sin(y) * x
    del y
    return np.sum(z)


# ---- gradients against central differences ----

CASES = [
    ("tanh RNN over run-time T", tanh_rnn,
     lambda rng: (rng.normal(size=3), rng.normal(size=(3, 3)) * 0.5, rng.normal(size=(3, 2)),
                  rng.normal(size=(6, 2)), 6),
     (0, 1, 2, 3)),
    ("while halving a step", halve_until_done, (0.7, 6), (0,)),
    ("break in nested loop", break_in_nested_loop, lambda rng: (rng.normal(size=5), 0.3), (0,)),
    ("if/elif/else, first", branch_on_data, (3.0, 2.0), (0, 1)),
    ("if/elif/else, second", branch_on_data, (1.0, 2.0), (0, 1)),
    ("if/elif/else, third", branch_on_data, (-1.0, 2.0), (0, 1)),
    ("flag on", branch_on_flag, (1.3, True), (0,)),
    ("flag off", branch_on_flag, (1.3, False), (0,)),
    ("conditional expression, true", conditional_expression, (0.7, 1.5), (0, 1)),
    ("conditional expression, false", conditional_expression, (0.2, 1.5), (0, 1)),
    ("accumulating loop", accumulate, lambda rng: (rng.normal(size=5), 0.8, 4), (0, 1)),
    ("loop-carried product", powers, (0.9, 5), (0,)),
    ("continue", continue_odd, lambda rng: (rng.normal(size=6), 6), (0,)),
    ("return inside loop, taken", return_from_loop, (1.0, 10), (0,)),
    ("return inside loop, not taken", return_from_loop, (1.0, 3), (0,)),
    ("early return, taken", early_return, (-0.5,), (0,)),
    ("early return, not taken", early_return, (0.5,), (0,)),
    ("tuple swap in loop", swap_in_loop, (0.3, 0.7, 4), (0, 1)),
    ("rows of an array", loop_over_rows, lambda rng: (rng.normal(size=(3, 4)), rng.normal(size=4)), (0, 1)),
    ("enumerate and zip", enumerate_and_zip, lambda rng: (rng.normal(size=4), rng.normal(size=4)), (0, 1)),
    ("loop over a tuple", loop_over_tuple, (0.4, 1.1), (0, 1)),
    ("while True with break", while_with_break, (7.0,), (0,)),
    ("reversed(range(n))", reversed_range, lambda rng: (rng.normal(size=3), 5), (0,)),
    ("reversed(range(n)), no iteration", reversed_range, lambda rng: (rng.normal(size=3), 0), (0,)),
    ("reversed(range(1, 8, 3))", reversed_stepped_range, (0.7,), (0,)),
    ("reversed range, bounds at run time", reversed_bounds_at_run_time, lambda rng: (rng.normal(size=2), 1, 8),
     (0,)),
    ("reversed list", reversed_list, lambda rng: (rng.normal(size=3), 4), (0,)),
    ("reversed rows", reversed_rows, lambda rng: (rng.normal(size=(4, 3)), rng.normal(size=3)), (0, 1)),
    ("del of a name", deletes_a_name, lambda rng: (rng.normal(size=3),), (0,)),
]


@pytest.mark.parametrize("label, func, args, wrt", CASES, ids=[c[0] for c in CASES])
def test_gradient_matches_central_differences(label, func, args, wrt, rng, check_gradient):
    check_gradient(func, args(rng) if callable(args) else args, wrt)


def test_zero_iterations_pass_the_gradient_straight_through(rng):
    df = srcdiff.grad(tanh_rnn, wrt=0)
    h0 = rng.normal(size=3)
    assert_close(df(h0, np.eye(3), np.ones((3, 2)), np.ones((1, 2)), 0), 2 * h0)


# ---- the generated source ----

def test_loop_source_does_not_depend_on_the_trip_count():
    df = srcdiff.grad(powers)
    df(0.9, 10)
    short = df.source
    df(0.9, 10_000)
    assert df.source == short
    assert "for p in reversed(stack):" in short


def test_loop_source_is_golden():
    df = srcdiff.grad(powers)
    df(0.9, 10)
    line = powers.__code__.co_firstlineno
    expected = textwrap.dedent(f"""\
        def powers_grad(x, n):
            # forward
            stack = []
            p = 1.0
            for i in range(n):
                p_1 = p * x
                stack.append(p)
                p = p_1
            # backward
            # adjoint of test_control_flow.py:{line + 3}  for i in range(n):  # noqa: B007
            x_bar = 0.0
            p_bar = 0.0
            p_1 = p
            for p in reversed(stack):
                # adjoint of test_control_flow.py:{line + 5}  s = s + np.sin(p)
                p_1_bar = p_bar + np.cos(p_1)
                # adjoint of test_control_flow.py:{line + 4}  p = p * x
                p_bar = p_1_bar * x
                x_bar = x_bar + p_1_bar * p
                p_1 = p
            del stack
            return x_bar
        """)
    assert df.source == expected


def test_accumulating_loop_keeps_no_stack_for_the_sum():
    df = srcdiff.grad(accumulate, wrt=(0, 1))
    df(np.ones(4), 2.0, 4)
    assert "stack" not in df.source  # nothing per iteration: x[i] is recomputed, s not saved
    assert "append" not in df.source


def test_break_uses_an_iteration_count():
    df = srcdiff.grad(break_in_nested_loop)
    df(np.ones(3), 0.5)
    assert "break" in df.source
    assert "for _ in range(count):" in df.source


def test_branch_replays_the_taken_side():
    df = srcdiff.grad(branch_on_data, wrt=(0, 1))
    df(3.0, 2.0)
    backward = df.source.split("# backward")[1]
    assert "if t1:" in backward  # the saved test, not a new comparison


def reads_a_deleted_name(x):
    y = x * 2.0
    del y
    return np.sum(y)  # noqa: F821 (the refusal under test)


def deletes_in_a_branch(x):
    y = x * 2.0
    if np.sum(x) > 0:
        del y
        y = x
    return np.sum(y)


def deletes_an_item(x):
    y = [x, x]
    del y[0]
    return np.sum(y[0])


@pytest.mark.parametrize("func, message", [
    (reads_a_deleted_name, "'y' is used before it is assigned"),
    (deletes_in_a_branch, "`del` inside a branch or loop is not supported"),
    (deletes_an_item, r"`del y\[0\]` is not supported"),
])
def test_del_refusals_name_the_line(func, message):
    with pytest.raises(srcdiff.SrcDiffError, match=message) as info:
        srcdiff.grad(func)(np.ones(2))
    assert info.value.location.filename.endswith("test_control_flow.py")
